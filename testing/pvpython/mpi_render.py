"""Render a real volume (headsq CT from data/) with 'cavr Volume' and save a PNG; run by pvbatch, alone or
under mpiexec. Under MPI the reader's output is split between the ranks: the rendered data goes through
'Process Ids', and the script checks that every rank holds a part (the ProcessId range covers all ranks)
and prints each rank's share of points. Usage: pvbatch mpi_render.py OUT.png [SHADE 0|1]"""
import gzip
import os
import sys

from cavr_pvtest import DATA, OUT, fail, load_plugin, show_volume, view
from paraview import servermanager
from paraview.simple import OpenDataFile, ProcessIdScalars, SaveScreenshot

load_plugin()
ranks = servermanager.vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
# VTK's NRRD reader reads sub-extents (pieces) of raw data only, so decompress the gzip data once.
raw = os.path.join(OUT, "headsq_64x64x93_uint16.raw")
header = os.path.join(OUT, "headsq_raw.nhdr")
with gzip.open(DATA + "/headsq_64x64x93_uint16.raw.gz") as f, open(raw, "wb") as g:
    g.write(f.read())
with open(DATA + "/headsq_64x64x93_uint16.nhdr") as f, open(header, "w") as g:
    g.write(f.read().replace("encoding: gzip", "encoding: raw").replace(".raw.gz", ".raw"))
reader = OpenDataFile(header)
pids = ProcessIdScalars(Input=reader)
pids.UpdatePipeline()
info = pids.GetDataInformation()
prange = pids.PointData["ProcessId"].GetRange()
print("ranks: %d, points in all pieces: %d, ProcessId range: %s" % (ranks, info.GetNumberOfPoints(), prange))
if ranks > 1 and (prange[0] != 0 or prange[1] != ranks - 1):
    fail("the volume is not split between the %d ranks (ProcessId range %s)" % (ranks, prange))
v = view((400, 400))
array = reader.PointData.keys()[0]  # vtkNrrdReader names it ImageFile or ImageScalars by encoding
d = show_volume(pids, v, array, (0, 3926),
                [0, 0, 0.5, 0, 450, 0, 0.5, 0, 1000, 0.05, 0.5, 0, 1300, 0.3, 0.5, 0, 3926, 0.6, 0.5, 0], shade=1)
d.CavrSampleDistance = 0.5
d.Shade = int(sys.argv[2]) if len(sys.argv) > 2 else 1
v.CameraPosition = [-250, -420, 300]
v.CameraFocalPoint = [100.8, 100.8, 69]
v.CameraViewUp = [0, 0, 1]
v.CameraViewAngle = 30
SaveScreenshot(sys.argv[1], v, ImageResolution=[400, 400])
print("wrote", sys.argv[1])

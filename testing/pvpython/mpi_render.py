# SPDX-License-Identifier: BSD-3-Clause
"""Render a real volume (headsq CT from data/) with 'cavr Volume' and save a PNG; run by pvbatch, alone or
under mpiexec. Under MPI the reader's output is split between the ranks: the rendered data goes through
'Process Ids', and the script checks that every rank holds a part (the ProcessId range covers all ranks)
and prints each rank's share of points. Usage: pvbatch mpi_render.py OUT.png [SHADE 0|1]"""
import sys

from cavr_pvtest import (HEADSQ_OPACITY, HEADSQ_RANGE, check_backend, fail, headsq_camera, load_plugin,
                         process_ids, raw_headsq, show_volume, view)
from paraview import servermanager
from paraview.simple import OpenDataFile, SaveScreenshot

load_plugin()
ranks = servermanager.vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
reader = OpenDataFile(raw_headsq())
pids, pid_array = process_ids(reader)
pids.UpdatePipeline()
info = pids.GetDataInformation()
prange = pids.PointData[pid_array].GetRange()
print("ranks: %d, points in all pieces: %d, ProcessId range: %s" % (ranks, info.GetNumberOfPoints(), prange))
if ranks > 1 and (prange[0] != 0 or prange[1] != ranks - 1):
    fail("the volume is not split between the %d ranks (ProcessId range %s)" % (ranks, prange))
v = view((400, 400))
array = reader.PointData.keys()[0]  # vtkNrrdReader names it ImageFile or ImageScalars by encoding
d = show_volume(pids, v, array, HEADSQ_RANGE, HEADSQ_OPACITY, shade=1)
d.CavrSampleDistance = 0.5
d.Shade = int(sys.argv[2]) if len(sys.argv) > 2 else 1
headsq_camera(v)
SaveScreenshot(sys.argv[1], v, ImageResolution=[400, 400])
check_backend(v)
print("wrote", sys.argv[1])

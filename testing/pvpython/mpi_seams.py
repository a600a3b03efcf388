# SPDX-License-Identifier: BSD-3-Clause
"""Render a volume with "cavr Volume" under pvbatch (alone or under mpiexec with N ranks) in four settings:
composite and maximum intensity, each unshaded and shaded; save OUT_PREFIX_<blend>_<shade>.png. Also write
OUT_PREFIX_boundary.npy: a mask of the pixels whose rays cross a boundary between the ranks' pieces (the
ProcessId array, fetched on a grid of every 4th voxel, marks where neighbouring voxels belong to different
ranks; those points are projected with the view's camera and dilated by 2 pixels). One rank writes an empty
mask. Usage: pvbatch [--mpi] mpi_seams.py OUT_PREFIX VOLUME.nhdr (gzip data are copied to raw in CAVR_TEST_OUT first)"""
import sys

import numpy as np
from cavr_pvtest import check_backend, fail, load_plugin, process_ids, raw_copy, show_volume, view
from paraview import servermanager
from paraview.simple import ExtractSubset, OpenDataFile, PassArrays, Render, SaveScreenshot
from vtkmodules.util.numpy_support import vtk_to_numpy

SIZE = 400
prefix, path = sys.argv[1], sys.argv[2]
load_plugin()
ranks = servermanager.vtkProcessModule.GetProcessModule().GetNumberOfLocalPartitions()
reader = OpenDataFile(raw_copy(path))
pids, pid_array = process_ids(reader)
pids.UpdatePipeline()
array = reader.PointData.keys()[0]
lo, hi = reader.PointData[array].GetRange()
prange = pids.PointData[pid_array].GetRange()
print("ranks %d, ProcessId range %s, data range %s" % (ranks, prange, (lo, hi)))
if ranks > 1 and (prange[0] != 0 or prange[1] != ranks - 1):
    fail("the volume is not split between the %d ranks (ProcessId range %s)" % (ranks, prange))
img = None
if ranks > 1:
    # The ProcessId array on a grid of every 4th voxel, fetched before the volume is shown: "cavr Volume" asks for
    # ghost levels, and the pieces' ghost points, each with its own rank's id, would then hide the boundaries. Only
    # the ProcessId array travels (the reader's other arrays cannot be serialized between ranks).
    only = PassArrays(Input=pids, PointDataArrays=[pid_array], CellDataArrays=[], FieldDataArrays=[])
    sub = ExtractSubset(Input=only)
    sub.VOI = list(reader.GetDataInformation().GetExtent())
    sub.SampleRateI = sub.SampleRateJ = sub.SampleRateK = 4
    img = servermanager.Fetch(sub)
v = view((SIZE, SIZE))
# FXAA off: VTK applies it before volumes in one process (vtkOpenGLRenderer::UpdateGeometry), but under MPI
# ParaView applies it to the composited image, volumes included, so with it on any volume differs between one
# and N ranks at high-contrast edges (ParaView's own "Volume": 47.5 dB with FXAA, 59.1 dB without, CT shoulder,
# 2 ranks; docs/design.md). The comparison is of the renderer, not of that post-process.
v.UseFXAA = 0
t0, t1 = lo + 0.25 * (hi - lo), lo + 0.6 * (hi - lo)
opacity = [lo, 0, 0.5, 0, t0, 0, 0.5, 0, t1, 0.3, 0.5, 0, hi, 0.8, 0.5, 0]
d = show_volume(pids, v, array, (lo, hi), opacity)
d.CavrSampleDistance = 0.5
b = reader.GetDataInformation().GetBounds()
c = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]
r = max(b[1] - b[0], b[3] - b[2], b[5] - b[4])
v.CameraFocalPoint = c
v.CameraPosition = [c[0] - 1.2 * r, c[1] - 2.0 * r, c[2] + 1.1 * r]
v.CameraViewUp = [0, 0, 1]
v.CameraViewAngle = 30
for blend in ("Composite", "Maximum Intensity"):
    d.CavrBlendMode = blend
    for shade in (0, 1):
        d.Shade = shade
        out = "%s_%s_%d.png" % (prefix, blend.split()[0].lower(), shade)
        SaveScreenshot(out, v, ImageResolution=[SIZE, SIZE])
        check_backend(v)
        print("wrote", out)

# Pixels whose rays cross a piece boundary.
mask = np.zeros((SIZE, SIZE), bool)
if ranks > 1:
    dims = img.GetDimensions()
    pid = vtk_to_numpy(img.GetPointData().GetArray(pid_array)).reshape(dims[2], dims[1], dims[0])
    edge = np.zeros(pid.shape, bool)
    for axis in range(3):
        diff = np.diff(pid, axis=axis) != 0
        sl = [slice(None)] * 3
        sl[axis] = slice(0, -1)
        edge[tuple(sl)] |= diff
        sl[axis] = slice(1, None)
        edge[tuple(sl)] |= diff
    ks, js, is_ = np.nonzero(edge)
    ren = v.GetRenderer()
    Render(v)
    for k, j, i in zip(ks, js, is_):
        p = img.GetPoint(int(i + dims[0] * (j + dims[1] * k)))
        ren.SetWorldPoint(p[0], p[1], p[2], 1.0)
        ren.WorldToDisplay()
        x, y, _ = ren.GetDisplayPoint()
        x, y = int(round(x)), SIZE - 1 - int(round(y))  # PNG rows top to bottom
        mask[max(y - 2, 0):y + 3, max(x - 2, 0):x + 3] = True
    print("boundary points %d, boundary pixels %.1f%% of the image" % (len(ks), 100.0 * mask.mean()))
    if not mask.any():
        fail("no pixel crosses a piece boundary: the seam check would check nothing")
np.save(prefix + "_boundary.npy", mask)

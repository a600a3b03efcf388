# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark inside ParaView: "cavr Volume" (CPU back end) against ParaView's own "Volume" representation with
Volume Rendering Mode "Ray Cast Only" (vtkFixedPointVolumeRayCastMapper) in the same pvpython session, render view,
volume, transfer function and camera, at 1024x1024. Each time is the wall time of Render() (median and minimum of
--repeat after a warm-up render), which is what a ParaView user waits for. Prints a table and the PSNR between the
two screenshots of each view.

Note: Debian's ParaView 5.11 libraries are built at -O0 (its changelog; docs/benchmarks.md), so its Ray Cast Only is
slower here than an optimised VTK's: bench_cpu_vs_vtk.py measures against Debian's optimised VTK 9.1 instead.

Run (the plugin from a build with CAVR_ENABLE_PARAVIEW=ON, the default):
  xvfb-run -a -s "-screen 0 1280x1280x24 -noreset" pvpython --force-offscreen-rendering \\
      testing/bench/bench_pv_raycast.py --plugin build/lib/paraview-plugins/cavr/cavr.so \\
      --volume ../shared/data/ct_shoulder_512x512x450_uint8.nhdr
"""
import argparse
import csv
import math
import os
import time

import numpy as np
from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetOpacityTransferFunction,
                             LoadPlugin, OpenDataFile, Render, Show)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

p = argparse.ArgumentParser()
p.add_argument("--plugin", default=os.environ.get("CAVR_PLUGIN"))
p.add_argument("--volume", required=True)
p.add_argument("--size", type=int, default=1024)
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--sample-distance", type=float, default=0.5, help="cavr's, voxels of the finest axis")
p.add_argument("--tf-scale", type=float, default=1.0, help="multiply the transfer function's control-point values")
p.add_argument("--out", default="bench-out")
args = p.parse_args()
os.makedirs(args.out, exist_ok=True)
LoadPlugin(args.plugin, remote=False, ns=globals())

# bench_cpu_vs_vtk.py's transfer function: (value, r, g, b, opacity per voxel of the finest axis).
POINTS = [(0, 0, 0, 0, 0), (40, 0.55, 0.25, 0.15, 0), (70, 0.88, 0.6, 0.45, 0.02), (105, 0.95, 0.75, 0.62, 0.04),
          (140, 1.0, 0.95, 0.88, 0.5), (255, 1, 1, 1, 0.9)]
POINTS = [(v * args.tf_scale, r, g, b, a) for v, r, g, b, a in POINTS]

src = OpenDataFile(args.volume)
src.UpdatePipeline()
info = src.GetDataInformation()
bounds = info.GetBounds()
array = src.PointData.keys()[0]
image = src.GetClientSideObject().GetOutputDataObject(0)
min_spacing = min(image.GetSpacing())
print("volume %s: %s, array %s, %s threads" % (os.path.basename(args.volume), "x".join(map(str, image.GetDimensions())),
                                              array, os.cpu_count()))

v = GetActiveViewOrCreate("RenderView")
v.ViewSize = [args.size, args.size]
v.OrientationAxesVisibility = 0
v.Background = [0, 0, 0]
try:  # ParaView 5.11: the single colour background, not the palette's
    v.UseColorPaletteForBackground = 0
except AttributeError:
    pass
d = Show(src, v)
ColorBy(d, ("POINTS", array))
d.SetRepresentationType("Volume")
lut = GetColorTransferFunction(array)
lut.RGBPoints = [x for (val, r, g, b, _) in POINTS for x in (val, r, g, b)]
lut.AutomaticRescaleRangeMode = "Never"
pwf = GetOpacityTransferFunction(array)
pwf.Points = [x for (val, _, _, _, a) in POINTS for x in (val, a, 0.5, 0.0)]
d.ScalarOpacityUnitDistance = min_spacing  # opacity per voxel of the finest axis, as bench_cpu_vs_vtk.py
d.Shade = 0

center = [0.5 * (bounds[2 * i] + bounds[2 * i + 1]) for i in range(3)]
radius = math.sqrt(sum((0.5 * (bounds[2 * i + 1] - bounds[2 * i])) ** 2 for i in range(3)))


def rotate(vec, axis, deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    vec = list(vec)
    vec[i], vec[j] = c * vec[i] - s * vec[j], s * vec[i] + c * vec[j]
    return vec


def grab():
    w2i = vtkWindowToImageFilter()
    w2i.SetInput(v.GetRenderWindow())
    w2i.SetInputBufferTypeToRGB()
    w2i.ReadFrontBufferOff()
    w2i.Update()
    img = w2i.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, 3).astype(float)


def timed():
    Render(v)  # warm-up (ParaView's first render of a representation also delivers the data)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        Render(v)
        times.append(1e3 * (time.perf_counter() - t))
    return float(np.median(times)), float(np.min(times)), grab()


VIEWS = [(-90, 0), (-90, 30), (-90, 60), (-90, 90), (0, 0), (-45, 45)]
rows = []
for rx, ry in VIEWS:
    off, up = [0, 0, 3 * radius], [0, 1, 0]
    for axis, ang in ((0, rx), (1, ry)):
        off, up = rotate(off, axis, ang), rotate(up, axis, ang)
    v.CameraFocalPoint = center
    v.CameraPosition = [center[i] + off[i] for i in range(3)]
    v.CameraViewUp = up
    v.CameraParallelProjection = 1
    v.CameraParallelScale = radius

    d.SetRepresentationType("Volume")
    d.VolumeRenderingMode = "Ray Cast Only"
    pv_ms, pv_min, ref = timed()
    d.SetRepresentationType("cavr Volume")
    d.CavrBackEnd = "CPU"
    d.CavrSampleDistance = args.sample_distance
    cavr_ms, cavr_min, ours = timed()
    mse = np.mean((ours - ref) ** 2)
    psnr = math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)
    rows.append(dict(rx=rx, ry=ry, pv_ms=pv_ms, cavr_ms=cavr_ms, speedup=pv_ms / cavr_ms, pv_min_ms=pv_min,
                     cavr_min_ms=cavr_min, psnr_db=psnr))
    print("view rx=%4d ry=%4d: ParaView Ray Cast Only %8.1f ms  cavr Volume %8.1f ms  x%.2f  PSNR %.1f dB" %
          (rx, ry, pv_ms, cavr_ms, pv_ms / cavr_ms, psnr))

with open(os.path.join(args.out, "pv_raycast.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print()
print("| view (rx, ry) | ParaView 'Ray Cast Only' ms | cavr Volume (CPU) ms | speed-up | PSNR dB |")
print("|---|---|---|---|---|")
for r in rows:
    print("| (%d, %d) | %.1f | %.1f | x%.2f | %.1f |" % (r["rx"], r["ry"], r["pv_ms"], r["cavr_ms"], r["speedup"],
                                                         r["psnr_db"]))
sp = sum(r["pv_ms"] for r in rows)
sc = sum(r["cavr_ms"] for r in rows)
print("| all views (sum) | %.1f | %.1f | x%.2f | min %.1f |" % (sp, sc, sp / sc, min(r["psnr_db"] for r in rows)))

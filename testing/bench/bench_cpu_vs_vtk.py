# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark: cavr's CPU back end against VTK 9.1's vtkFixedPointVolumeRayCastMapper (Debian's optimised
libvtk9.1, not ParaView's -O0 build) on the same real volume, transfer function, sample distance, camera and
thread count, at 1024x1024. Prints a table, writes the raw numbers as CSV, and reports the PSNR between
the two images of each view (equal quality check).

Both renderers get the sample distance and the opacity unit distance in voxels of the finest axis (cavr-render's
convention; VTK takes world units, so they are multiplied by the finest spacing: for the 1-mm CT nothing changes).
--tf-scale S multiplies the control-point values of the transfer function (written for 8-bit CT) for volumes of
other value ranges (bunny int16: 10, INIA19 float: 0.5). Times are medians (and minima) of --repeat renders.

Run (see run_cpu_vs_vtk.sh, which sets it up):
  PYTHONPATH=/opt/vtk91py/usr/lib/python3/dist-packages xvfb-run -a python3 bench_cpu_vs_vtk.py \
      --cavr-render build/core/cavr-render --volume ../shared/data/ct_shoulder_512x512x450_uint8.nhdr
"""
import argparse
import csv
import json
import math
import os
import subprocess
import tempfile
import time

import numpy as np
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401 (object factory overrides)
import vtkmodules.vtkRenderingVolumeOpenGL2  # noqa: F401
from vtkmodules import vtkIOImage, vtkRenderingCore, vtkRenderingVolume
from vtkmodules.util.numpy_support import vtk_to_numpy


class vtk:  # the few VTK 9.1 classes used, without importing every module (Qt ones are not installed)
    vtkNrrdReader = vtkIOImage.vtkNrrdReader
    vtkPNGReader = vtkIOImage.vtkPNGReader
    vtkColorTransferFunction = vtkRenderingCore.vtkColorTransferFunction
    vtkPiecewiseFunction = __import__("vtkmodules.vtkCommonDataModel", fromlist=["x"]).vtkPiecewiseFunction
    vtkVolumeProperty = vtkRenderingCore.vtkVolumeProperty
    vtkVolume = vtkRenderingCore.vtkVolume
    vtkRenderer = vtkRenderingCore.vtkRenderer
    vtkRenderWindow = vtkRenderingCore.vtkRenderWindow
    vtkWindowToImageFilter = vtkRenderingCore.vtkWindowToImageFilter
    vtkFixedPointVolumeRayCastMapper = vtkRenderingVolume.vtkFixedPointVolumeRayCastMapper

p = argparse.ArgumentParser()
p.add_argument("--cavr-render", required=True)
p.add_argument("--volume", required=True)
p.add_argument("--size", type=int, default=1024)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--sample-distance", type=float, default=0.5)
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--out", default="bench-out")
p.add_argument("--shade", action="store_true")
p.add_argument("--tf-scale", type=float, default=1.0, help="multiply the transfer function's control-point values")
args = p.parse_args()
os.makedirs(args.out, exist_ok=True)

# One transfer function for both: control points (value, r, g, b, a) for 8-bit CT, opacity per unit
# length (1 voxel here: both use the finest spacing, 1, as the unit).
POINTS = [(0, 0, 0, 0, 0), (40, 0.55, 0.25, 0.15, 0), (70, 0.88, 0.6, 0.45, 0.02), (105, 0.95, 0.75, 0.62, 0.04),
          (140, 1.0, 0.95, 0.88, 0.5), (255, 1, 1, 1, 0.9)]
tf_path = os.path.join(args.out, "ct.tf")
POINTS = [(v * args.tf_scale, r, g, b, a) for v, r, g, b, a in POINTS]
with open(tf_path, "w") as f:
    f.write("# benchmark transfer function (8-bit CT, values x %g)\n" % args.tf_scale)
    for pt in POINTS:
        f.write("%g %g %g %g %g\n" % pt)

reader = vtk.vtkNrrdReader()
reader.SetFileName(args.volume)
reader.Update()
image = reader.GetOutput()
bounds = image.GetBounds()
center = [0.5 * (bounds[2 * i] + bounds[2 * i + 1]) for i in range(3)]
radius = math.sqrt(sum((0.5 * (bounds[2 * i + 1] - bounds[2 * i])) ** 2 for i in range(3)))
dims = image.GetDimensions()
min_spacing = min(image.GetSpacing())
print("volume %s: %s voxels, %s, finest spacing %g" % (os.path.basename(args.volume), "x".join(map(str, dims)),
                                                      image.GetScalarTypeAsString(), min_spacing))

ctf = vtk.vtkColorTransferFunction()
otf = vtk.vtkPiecewiseFunction()
for v, r, g, b, a in POINTS:
    ctf.AddRGBPoint(v, r, g, b)
    otf.AddPoint(v, a)
prop = vtk.vtkVolumeProperty()
prop.SetColor(ctf)
prop.SetScalarOpacity(otf)
prop.SetScalarOpacityUnitDistance(min_spacing)  # opacity per voxel of the finest axis, as cavr-render
prop.SetInterpolationTypeToLinear()
prop.SetShade(1 if args.shade else 0)
prop.SetAmbient(0.1)
prop.SetDiffuse(0.7)
prop.SetSpecular(0.2)
prop.SetSpecularPower(10)
mapper = vtk.vtkFixedPointVolumeRayCastMapper()
mapper.SetInputConnection(reader.GetOutputPort())
mapper.SetAutoAdjustSampleDistances(0)
mapper.SetSampleDistance(args.sample_distance * min_spacing)  # world units
mapper.SetImageSampleDistance(1.0)
mapper.SetNumberOfThreads(args.threads)
volume = vtk.vtkVolume()
volume.SetMapper(mapper)
volume.SetProperty(prop)
ren = vtk.vtkRenderer()
ren.AddVolume(volume)
ren.SetBackground(0, 0, 0)
win = vtk.vtkRenderWindow()
win.SetOffScreenRendering(1)
win.SetSize(args.size, args.size)
win.AddRenderer(ren)
win.SetDesiredUpdateRate(0.0001)  # still render: full quality


def rotate(v, axis, deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    v = list(v)
    v[i], v[j] = c * v[i] - s * v[j], s * v[i] + c * v[j]
    return v


def vtk_image():
    w2i = vtk.vtkWindowToImageFilter()
    w2i.SetInput(win)
    w2i.SetInputBufferTypeToRGB()
    w2i.ReadFrontBufferOff()
    w2i.Update()
    img = w2i.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, 3)[::-1].astype(float)


def png_image(path):
    r = vtk.vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3].astype(float)


VIEWS = [(-90, 0), (-90, 30), (-90, 60), (-90, 90), (0, 0), (-45, 45)]
rows = []
for rx, ry in VIEWS:
    # Same orbit as cavrSetCameraOrbit (orthographic): eye 3 radii from the centre, rotated x then y.
    off, up = [0, 0, 3 * radius], [0, 1, 0]
    for axis, ang in ((0, rx), (1, ry)):
        off, up = rotate(off, axis, ang), rotate(up, axis, ang)
    cam = ren.GetActiveCamera()
    cam.SetFocalPoint(*center)
    cam.SetPosition(*[center[i] + off[i] for i in range(3)])
    cam.SetViewUp(*up)
    cam.ParallelProjectionOn()
    cam.SetParallelScale(radius)
    cam.SetClippingRange(radius, 5 * radius)
    win.Render()  # warm-up (builds VTK's tables)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        win.Render()
        times.append(1e3 * (time.perf_counter() - t))
    vtk_ms, vtk_min = float(np.median(times)), float(np.min(times))
    ref = vtk_image()

    png = os.path.join(args.out, "cavr_rx%d_ry%d.png" % (rx, ry))
    cmd = [args.cavr_render, args.volume, "-o", png, "--size", "%dx%d" % (args.size, args.size),
           "--rotate-x", str(rx), "--rotate-y", str(ry), "--tf", tf_path, "--sample-distance",
           str(args.sample_distance), "--threads", str(args.threads), "--repeat", str(args.repeat),
           "--backend", "cpu", "--json"] + (["--shade"] if args.shade else [])
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    ours = png_image(png)
    mse = np.mean((ours - ref) ** 2)
    psnr = math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)
    rows.append(dict(rx=rx, ry=ry, vtk_ms=vtk_ms, cavr_ms=out["ms_median"], speedup=vtk_ms / out["ms_median"],
                     vtk_min_ms=vtk_min, cavr_min_ms=out["ms_min"], cavr_samples=out["samples"], cavr_rays=out["rays"],
                     psnr_db=psnr))
    print("view rx=%4d ry=%4d: VTK %8.1f ms  cavr %8.1f ms  x%.2f  PSNR %.1f dB  (%d samples, %.1f ns/sample)" %
          (rx, ry, vtk_ms, out["ms_median"], vtk_ms / out["ms_median"], psnr, out["samples"],
           1e6 * out["ms_median"] * args.threads / max(out["samples"], 1)))

with open(os.path.join(args.out, "cpu_vs_vtk.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print()
print("| view (rx, ry) | VTK 9.1 fixed-point ms | cavr CPU ms | speed-up | PSNR dB |")
print("|---|---|---|---|---|")
for r in rows:
    print("| (%d, %d) | %.1f | %.1f | x%.2f | %.1f |" % (r["rx"], r["ry"], r["vtk_ms"], r["cavr_ms"], r["speedup"],
                                                         r["psnr_db"]))
sv = sum(r["vtk_ms"] for r in rows)
sc = sum(r["cavr_ms"] for r in rows)
print("| all views (sum) | %.1f | %.1f | x%.2f | min %.1f |" % (sv, sc, sv / sc, min(r["psnr_db"] for r in rows)))
mv = sum(r["vtk_min_ms"] for r in rows)
mc = sum(r["cavr_min_ms"] for r in rows)
print("(minima instead of medians: VTK %.1f ms, cavr %.1f ms, x%.2f)" % (mv, mc, mv / mc))

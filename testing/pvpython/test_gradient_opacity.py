# SPDX-License-Identifier: BSD-3-Clause
"""Gradient opacity in ParaView: the "cavr Volume" properties "Gradient Opacity" (off by default) and "Gradient Opacity
Points" become the representation's vtkVolumeProperty gradient opacity, which the mapper passes to
cavrSetTransferFunctionGradientOpacity. Scene: a 33^3 image whose left half (x < 0) is flat (100) and whose right half
rises by 10 per world unit (Calculator 100 + 10 max(x, 0)), seen down -z. With the points (0, 0), (5, 1) the flat half
fades to the background (gradient 0: factor 0) and the ramp half keeps its picture (gradient 10: factor 1); turned off
again, the first picture comes back. Then headsq (data/): the function changes the picture and turning it off restores
it exactly."""
import numpy as np

from cavr_pvtest import (DATA, HEADSQ_OPACITY, HEADSQ_RANGE, fail, headsq_camera, load_plugin, psnr, screenshot,
                         show_volume, view)
from paraview.simple import Calculator, Hide, OpenDataFile, Wavelet

load_plugin()
v = view((300, 300))
w = Wavelet(WholeExtent=[-16, 16, -16, 16, -16, 16])
ramp = Calculator(Input=w, Function="100 + 10*max(coordsX,0)", ResultArrayName="ramp")
d = show_volume(ramp, v, "ramp", (0, 200), [0, 0.2, 0.5, 0, 200, 0.2, 0.5, 0])
if d.CavrGradientOpacity != 0:
    fail("Gradient Opacity must be off by default")
v.CameraPosition = [0, 0, 120]
v.CameraFocalPoint = [0, 0, 0]
v.CameraViewUp = [0, 1, 0]
v.CameraParallelProjection = 1
v.CameraParallelScale = 20
off = screenshot(v, "gradop_ramp_off.png")
d.CavrGradientOpacityPoints = [0, 0, 5, 1]
on_points_only = screenshot(v, "gradop_ramp_points_only.png")
if psnr(on_points_only, off) != float("inf"):
    fail("points without the Gradient Opacity switch changed the picture")
d.CavrGradientOpacity = 1
on = screenshot(v, "gradop_ramp_on.png")
d.CavrGradientOpacity = 0
back = screenshot(v, "gradop_ramp_back.png")
# The volume spans x, y in [-16, 16] world units = pixels 30..270 at 7.5 pixels a unit; take the middle rows and
# columns well inside each half.
rows = slice(90, 210)
left, right = (slice(60, 130), slice(170, 240))
l_off, l_on = off[rows, left].mean(), on[rows, left].mean()
r_off, r_on = off[rows, right].mean(), on[rows, right].mean()
print("flat half: mean brightness %.2f -> %.2f; ramp half: %.2f -> %.2f (of 255)" % (l_off, l_on, r_off, r_on))
if not l_off > 20:
    fail("the flat half should be visible without gradient opacity")
if not l_on < 0.05 * l_off:
    fail("the flat half did not fade with gradient opacity")
if not abs(r_on - r_off) < 0.05 * r_off:
    fail("the ramp half changed with gradient opacity")
if psnr(back, off) != float("inf"):
    fail("turning gradient opacity off did not restore the picture")
Hide(ramp, v)

head = OpenDataFile(DATA + "/headsq_64x64x93_uint16.nhdr")
h = show_volume(head, v, "ImageScalars", HEADSQ_RANGE, HEADSQ_OPACITY)
headsq_camera(v)
v.CameraParallelProjection = 0
h_off = screenshot(v, "gradop_headsq_off.png")
h.CavrGradientOpacityPoints = [0, 0, 300, 1]
h.CavrGradientOpacity = 1
h_on = screenshot(v, "gradop_headsq_on.png")
h.CavrGradientOpacity = 0
h_back = screenshot(v, "gradop_headsq_back.png")
p_on, p_back = psnr(h_on, h_off), psnr(h_back, h_off)
print("headsq: gradient opacity (0, 0)-(300, 1) against off: %.2f dB; off again: %.2f dB" % (p_on, p_back))
if not p_on < 35.0:
    fail("gradient opacity hardly changed headsq")
if p_back != float("inf"):
    fail("turning gradient opacity off did not restore headsq")
print("PASS")

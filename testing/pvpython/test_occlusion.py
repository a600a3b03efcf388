# SPDX-License-Identifier: BSD-3-Clause
"""Opaque geometry and the cavr volume occlude each other correctly, both ways.

The volume is a homogeneous medium (ParaView's Wavelet source over [-10,10]^3 with a constant white
colour and constant opacity a = 0.05 per unit length), the sphere an opaque red ball. Looking down -z:
  * sphere inside the volume (centre 0, radius 4): the centre pixel is the sphere seen through 6 units of
    medium: S * T + 255 * (1 - T) with T = (1 - a)^6; a pixel beside the sphere sees all 20 units;
  * sphere in front of the volume (z = 14): the volume is hidden, the pixel equals the sphere alone;
  * sphere behind the volume (z = -14): seen through all 20 units.
S is the same pixel with the volume hidden. Tolerance: 3 of 255 (8-bit rounding, sample placement)."""
import numpy as np
from cavr_pvtest import fail, load_plugin, screenshot, show_volume, view
from paraview.simple import (GetColorTransferFunction, Hide, Show, Sphere, Wavelet)

TOL = 3.0
A = 0.05
load_plugin()
v = view((200, 200))
wave = Wavelet(WholeExtent=[-10, 10, -10, 10, -10, 10])
d = show_volume(wave, v, "RTData", (30, 280), [30, A, 0.5, 0, 280, A, 0.5, 0])
lut = GetColorTransferFunction("RTData")
lut.RGBPoints = [30, 1, 1, 1, 280, 1, 1, 1]
d.ScalarOpacityUnitDistance = 1.0
d.CavrSampleDistance = 0.25
cam = v.GetActiveCamera()
cam.SetParallelProjection(1)
cam.SetFocalPoint(0, 0, 0)
cam.SetPosition(0, 0, 60)
cam.SetViewUp(0, 1, 0)
cam.SetParallelScale(12)
v.CameraParallelProjection = 1
v.CameraParallelScale = 12
v.CameraPosition = [0, 0, 60]
v.CameraFocalPoint = [0, 0, 0]
v.CameraViewUp = [0, 1, 0]

sphere = Sphere(Radius=4, ThetaResolution=64, PhiResolution=64)
s = Show(sphere, v)
s.ColorArrayName = [None, ""]
s.DiffuseColor = [1, 0, 0]
s.AmbientColor = [1, 0, 0]

c = (100, 100)          # image centre: the sphere's centre
side = (100, 100 + 55)  # beside the sphere (about 6.6 units up), inside the volume's silhouette


def pixels(tag):
    img = screenshot(v, "occlusion_%s.png" % tag)
    return img[c[1], c[0]], img[side[1], side[0]]


def check(name, got, expected):
    print("%s: got %s, expected %s" % (name, np.round(got, 1), np.round(expected, 1)))
    if np.max(np.abs(got - expected)) > TOL:
        fail(name)


full = 255.0 * (1.0 - (1.0 - A) ** 20)
for z, depth_in_front, tag in [(0, 6.0, "inside"), (14, 0.0, "front"), (-14, 20.0, "behind")]:
    sphere.Center = [0, 0, z]
    Hide(wave, v)
    s_alone, _ = pixels(tag + "_sphere")
    Show(wave, v)
    both, beside = pixels(tag + "_both")
    if s_alone[0] < 100 or s_alone[1] > 20:
        fail("the sphere is not visible as red: %s" % s_alone)
    t = (1.0 - A) ** depth_in_front
    check("sphere %s, centre pixel" % tag, both, s_alone * t + 255.0 * (1.0 - t))
    if tag == "inside":
        check("volume beside the sphere", beside, np.array([full] * 3))
print("PASS")

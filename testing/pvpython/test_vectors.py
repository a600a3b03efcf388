# SPDX-License-Identifier: BSD-3-Clause
"""Vector arrays (issue 15 item 3): "cavr Volume" coloured by a 3-component point array draws its magnitude or
one component, as Color By's component menu picks (the colour map's vector mode), like ParaView's GPU mapper.
References: the magnitude and the component computed by Calculator as scalar arrays and drawn by "Volume"
(Ray Cast Only) with the same colour map and opacity: PSNR >= 35 dB each; the three views differ from each other
(so the mode switch takes effect)."""
from cavr_pvtest import apply_backend, fail, load_plugin, psnr, screenshot, view
from paraview.simple import (Calculator, ColorBy, GetColorTransferFunction,
                             GetOpacityTransferFunction, Hide, Render, Show, Wavelet)

THRESHOLD_DB = 35.0
load_plugin()
wav = Wavelet()
vec = Calculator(Input=wav)
vec.ResultArrayName = "vec"
vec.Function = "RTData*iHat + (300-RTData)*0.5*jHat + coordsX*coordsY*0.2*kHat"
mag = Calculator(Input=vec)
mag.ResultArrayName = "vmag"
mag.Function = "mag(vec)"
comp = Calculator(Input=vec)
comp.ResultArrayName = "vy"
comp.Function = "vec_Y"
v = view((300, 300))


def draw(src, array, component, rep):
    d = Show(src, v)
    ColorBy(d, ("POINTS", array, component) if component else ("POINTS", array))
    d.SetRepresentationType(rep)
    apply_backend(d)
    if rep == "Volume":
        d.VolumeRenderingMode = "Ray Cast Only"
    lut = GetColorTransferFunction(array)
    lut.ApplyPreset("Cool to Warm", True)
    d.RescaleTransferFunctionToDataRange(False, True)
    rng = lut.RGBPoints[0], lut.RGBPoints[-4]
    pwf = GetOpacityTransferFunction(array)
    pwf.Points = [rng[0], 0.0, 0.5, 0.0, rng[1], 0.5, 0.5, 0.0]
    v.CameraFocalPoint = [0, 0, 0]  # the same view every time (the Wavelet spans [-10, 10]^3)
    v.CameraPosition = [60, -45, 40]
    v.CameraViewUp = [0, 0, 1]
    v.CameraParallelProjection = 1
    v.ResetCamera()
    Render(v)
    img = screenshot(v, "vectors_%s_%s_%s.png" % (array, component or "scalar", rep.split()[0]))
    Hide(src, v)
    return img, rng


ours_mag, r1 = draw(vec, "vec", "Magnitude", "cavr Volume")
ref_mag, r2 = draw(mag, "vmag", None, "Volume")
ours_y, r3 = draw(vec, "vec", "Y", "cavr Volume")
ref_y, r4 = draw(comp, "vy", None, "Volume")
print("colour-map ranges: magnitude %s vs %s, Y %s vs %s" % (r1, r2, r3, r4))
p_mag, p_y = psnr(ours_mag, ref_mag), psnr(ours_y, ref_y)
p_modes = psnr(ours_mag, ours_y)
print("magnitude: cavr vs Calculator + Ray Cast Only %.2f dB; component Y: %.2f dB; magnitude vs Y (cavr) %.2f dB" %
      (p_mag, p_y, p_modes))
if ours_mag.max() == 0 or ours_y.max() == 0:
    fail("a vector render is black")
if min(p_mag, p_y) < THRESHOLD_DB:
    fail("vector array differs from its Calculator reference: %.2f / %.2f dB < %.0f dB" % (p_mag, p_y, THRESHOLD_DB))
if p_modes > p_mag - 10:
    fail("magnitude and component Y images are too alike (%.2f dB): the vector mode did not take effect" % p_modes)
print("PASS: vector magnitude %.2f dB, component %.2f dB (>= %.0f dB)" % (p_mag, p_y, THRESHOLD_DB))

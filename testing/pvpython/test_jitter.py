# SPDX-License-Identifier: BSD-3-Clause
"""Jittered ray starts in ParaView: the "cavr Volume" property "Jitter Ray Starts" (off by default) turns the
wood-grain rings of a sharp transfer function into fine noise, reproducibly. Scene: a sphere's distance field (Calculator
mag(coords) over an 81^3 Wavelet grid) whose opacity is a thin shell (radius 30 to 30.3, under the 0.5-voxel default
sample distance), perspective. Against a reference at sample distance 0.02: the ring energy (the error's radial profile
about the sphere's centre, detrended; test_jitter.c's measure) must fall to at most 0.3 of the unjittered one's; two screenshots with
jitter are identical; turning it off restores the unjittered picture."""
import numpy as np

from cavr_pvtest import fail, load_plugin, psnr, screenshot, show_volume, view
from paraview.simple import Calculator, Wavelet


def ring_energy(img, ref):
    """The error img - ref averaged over 1-pixel annuli about the centre of the sphere's disc (the reference's pixels
    above 10 of 255), minus that radial profile's average over r +- 4 (the bias of point sampling, which jitter
    keeps), mean square over r: concentric rings survive the annulus average, pixel noise does not."""
    disc = ref.max(axis=2) > 10
    ys, xs = np.nonzero(disc)
    cy, cx = ys.mean(), xs.mean()
    yy, xx = np.indices(disc.shape)
    r = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2).astype(int)
    err = (img - ref).mean(axis=2)
    n = np.bincount(r[disc], minlength=r.max() + 1)
    prof = np.bincount(r[disc], weights=err[disc], minlength=r.max() + 1) / np.maximum(n, 1)
    rmax = int(r[disc].max())
    trend = np.convolve(prof, np.ones(9) / 9.0, mode="same")
    d = (prof - trend)[4:rmax - 3]
    return float(np.mean(d ** 2))


load_plugin()
v = view((320, 320))
v.OrientationAxesVisibility = 0
w = Wavelet(WholeExtent=[-40, 40, -40, 40, -40, 40])
r = Calculator(Input=w, Function="mag(coords)", ResultArrayName="radius")
d = show_volume(r, v, "radius", (0, 70), [0, 0, 0.5, 0, 29.99, 0, 0.5, 0, 30, 0.7, 0.5, 0, 30.3, 0.7, 0.5, 0,
                                          30.31, 0, 0.5, 0, 70, 0, 0.5, 0])
if d.CavrJitterRayStarts != 0:
    fail("Jitter Ray Starts must be off by default")
v.CameraPosition = [60, -90, 110]
v.CameraFocalPoint = [0, 0, 0]
v.CameraViewUp = [0, 0, 1]
v.CameraViewAngle = 30
v.ResetCamera()
d.CavrSampleDistance = 0.02
ref = screenshot(v, "jitter_ref.png")
d.CavrSampleDistance = 0.5
off = screenshot(v, "jitter_off.png")
d.CavrJitterRayStarts = 1
on = screenshot(v, "jitter_on.png")
again = screenshot(v, "jitter_on_again.png")
d.CavrJitterRayStarts = 0
back = screenshot(v, "jitter_back.png")
e_off, e_on = ring_energy(off, ref), ring_energy(on, ref)
print("sphere shell, sample distance 0.5 against 0.02: PSNR %.2f dB without jitter, %.2f dB with; ring "
      "(radial-profile) energy %.3f -> %.3f (%.3fx)" % (psnr(off, ref), psnr(on, ref), e_off, e_on, e_on / e_off))
if np.mean(ref.max(axis=2) > 10) < 0.05:
    fail("reference image is nearly empty")
if not e_on <= 0.3 * e_off:
    fail("jitter did not remove the rings")
if not np.array_equal(on, again):
    fail("two renders with jitter differ (PSNR %.2f dB)" % psnr(on, again))
if not np.array_equal(off, back):
    fail("turning jitter off did not restore the picture")
print("PASS")

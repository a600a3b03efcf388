# SPDX-License-Identifier: BSD-3-Clause
"""'cavr Volume' is in the representation list of image data, its properties exist with their documented
defaults, and it renders a real volume (an MRI from data/) into a non-trivial picture; bad arrays give an
error message and the view keeps rendering."""
import numpy as np
from cavr_pvtest import BACKEND, DATA, OUT, cavr_info, fail, load_plugin, psnr, screenshot, show_volume, view
from paraview.simple import Calculator, Hide, OpenDataFile, Render

load_plugin()
src = OpenDataFile(DATA + "/colin27_ch2better_301x370x316_uint8.nhdr")
v = view((300, 300))
d = show_volume(src, v, "ImageScalars", (0, 130), [0, 0, 0.5, 0, 25, 0, 0.5, 0, 130, 0.4, 0.5, 0], shade=1)
available = d.Representation.Available
print("representations:", available)
if "cavr Volume" not in available:
    fail("'cavr Volume' missing from %s" % available)
if d.Representation != "cavr Volume":
    fail("representation is %s" % d.Representation)
defaults = {"CavrBackEnd": BACKEND or "Auto", "CavrStrategy": "Auto", "CavrSampleDistance": 0.5,
            "CavrEarlyRayTermination": 0.99,
            "CavrBlendMode": "Composite", "CavrCubicInterpolation": 0, "CavrSupersampling": "1", "CavrGpuIndex": -1,
            "CavrCompressiveOnlyWherePays": 1, "CavrJitterRayStarts": 0, "CavrGradientOpacity": 0,
            "CavrGradientOpacityPoints": [0.0, 0.0, 20.0, 1.0]}
for name, value in defaults.items():
    got = d.GetPropertyValue(name)
    print(name, "=", got)
    if got != value:
        fail("%s is %r, expected %r" % (name, got, value))
# GUI labels: no "Cavr" prefix inside the "cavr Volume Rendering" group; the expert properties are Advanced.
labels = {"CavrBackEnd": ("Back End", "default"), "CavrStrategy": ("GPU Strategy", "advanced"),
          "CavrSampleDistance": ("Sample Distance", "default"),
          "CavrEarlyRayTermination": ("Early Ray Termination", "advanced"), "CavrBlendMode": ("Blend Mode", "default"),
          "CavrSampleFraction": ("Sample Fraction", "default"), "CavrReconstruction": ("Reconstruction", "advanced"),
          "CavrCompressiveWhileInteracting": ("Compressive While Interacting", "default"),
          "CavrCubicInterpolation": ("Cubic Interpolation", "advanced"), "CavrSupersampling": ("Rays Per Pixel", "advanced"),
          "CavrGpuIndex": ("GPU Index", "advanced"),
          "CavrCompressiveOnlyWherePays": ("Compressive Only Where It Pays", "advanced"),
          "CavrJitterRayStarts": ("Jitter Ray Starts", "default"), "CavrGradientOpacity": ("Gradient Opacity", "default"),
          "CavrGradientOpacityPoints": ("Gradient Opacity Points", "default")}
for name, (label, panel) in labels.items():
    prop = d.SMProxy.GetProperty(name)
    got = (prop.GetXMLLabel(), prop.GetPanelVisibility())
    if got != (label, panel):
        fail("%s: label and panel visibility %r, expected %r" % (name, got, (label, panel)))
    doc = prop.GetDocumentation()
    if doc is None or len(doc.GetDescription().split()) < 8:  # the GUI's tooltip
        fail("%s: no documentation (tooltip)" % name)
for name in ("CavrBackEndInUse", "CavrDeviceInUse", "CavrCompressiveDecision"):
    prop = d.SMProxy.GetProperty(name)
    if prop is None or not prop.GetInformationOnly():
        fail("%s: expected a read-only (information) property" % name)
v.ResetCamera()
img = screenshot(v, "cavr_repr.png")
# The back end in use: CUDA on a GPU device, the CPU otherwise (screenshot() also checks CAVR_PV_EXPECT_BACKEND).
used, device = cavr_info(d, "CavrBackEndInUse"), cavr_info(d, "CavrDeviceInUse")
print("back end in use: %s, device %s" % (used, device))
if used not in ("CPU", "CUDA") or (used == "CUDA") != device.startswith("CUDA"):
    fail("back end in use %r does not match the device %r" % (used, device))
lit = np.mean(img.max(axis=2) > 40)
print("fraction of bright pixels: %.3f" % lit)
if not 0.1 < lit < 0.9:
    fail("the render does not look like a brain: %.3f of pixels bright" % lit)

# Maximum intensity projection through the exposed property changes the picture.
d.CavrBlendMode = "Maximum Intensity"
mip = screenshot(v, "cavr_repr_mip.png")
if np.mean(np.abs(mip - img)) < 1.0:
    fail("blend mode did not change the image")
d.CavrBlendMode = "Composite"

# The cubic B-spline filter and 5 rays per pixel (issue 12, items 4-5) reach the renderer: each changes the picture
# (smoother: not bit-identical) but keeps it (PSNR against the linear, 1-ray render).
for name, value, reset in (("CavrCubicInterpolation", 1, 0), ("CavrSupersampling", "5 (4 + centre)", "1")):
    d.SetPropertyWithName(name, value)
    other = screenshot(v, "cavr_repr_%s.png" % name)
    d.SetPropertyWithName(name, reset)
    diff, q = np.mean(np.abs(other - img)), psnr(other, img)
    print("%s = %r: mean difference %.3f, PSNR %.2f dB against the default" % (name, value, diff, q))
    if diff < 0.02 or q < 25.0:
        fail("%s = %r: the image did not change as expected (mean difference %.3f, %.2f dB)" % (name, value, diff, q))

# A 3-component array is refused with a message; the view keeps working.
calc = Calculator(Input=src, AttributeType="Point Data", ResultArrayName="vec",
                  Function="ImageScalars*iHat+jHat")
Hide(src, v)
dv = show_volume(calc, v, "vec", (0, 130), [0, 0, 0.5, 0, 130, 0.4, 0.5, 0])
Render(v)
Hide(calc, v)
d = show_volume(src, v, "ImageScalars", (0, 130), [0, 0, 0.5, 0, 25, 0, 0.5, 0, 130, 0.4, 0.5, 0], shade=1)
again = screenshot(v, "cavr_repr_again.png")
if np.mean(np.abs(again - img)) > 1.0:
    fail("the view does not render the good volume again after a bad array")
print("PASS")

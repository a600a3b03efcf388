# SPDX-License-Identifier: BSD-3-Clause
"""Bad input through pvpython (issue 15 item 9): an unsupported array type, an empty volume, a 1-voxel-thick
volume, NaN/Inf values and a non-uniform grid, each fed to the same "cavr Volume" representation after a good
volume. Each must give a clear message in ParaView's output window (captured here), nothing may crash, and the
view must keep the previous image (identical screenshot)."""
import math
import os
import sys

import numpy as np
from cavr_pvtest import apply_backend, load_plugin, psnr, screenshot, view
from paraview.simple import ColorBy, GetColorTransferFunction, GetOpacityTransferFunction, PVTrivialProducer, Render, Show
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkOutputWindow, vtkStringOutputWindow
from vtkmodules.vtkCommonDataModel import vtkImageData, vtkRectilinearGrid

load_plugin()
# pvpython sends Python's own output through VTK's output window too: capture everything there, and write
# this test's lines straight to the standard output.
log = vtkStringOutputWindow()
vtkOutputWindow.SetInstance(log)


def say(text):
    os.write(1, (text + "\n").encode())


def fail(msg):
    say("FAIL: " + msg)
    say("(output window: %s)" % log.GetOutput())
    sys.exit(1)


def image(dims, values, name="v"):
    img = vtkImageData()
    img.SetDimensions(*dims)
    img.SetSpacing(1.0, 1.0, 1.0)
    arr = numpy_to_vtk(np.ascontiguousarray(values).ravel(), deep=1)
    arr.SetName(name)
    img.GetPointData().SetScalars(arr)
    return img


n = 32
z, y, x = np.mgrid[0:n, 0:n, 0:n].astype(np.float32)
ball = (np.sqrt((x - 15.5) ** 2 + (y - 15.5) ** 2 + (z - 15.5) ** 2) < 12).astype(np.float32) * 100.0 + x

# First, bad data before any good volume: a message, no crash, nothing drawn.
src = PVTrivialProducer()
src.GetClientSideObject().SetOutput(image((n, n, n), np.where(ball > 100, np.nan, ball).astype(np.float32)))
v = view((200, 200))
d = Show(src, v)
ColorBy(d, ("POINTS", "v"))
d.SetRepresentationType("cavr Volume")
apply_backend(d)
GetColorTransferFunction("v").RescaleTransferFunction(0.0, 131.0)
GetOpacityTransferFunction("v").Points = [0, 0, 0.5, 0, 131, 0.8, 0.5, 0]
v.ResetCamera()
Render(v)
first = screenshot(v, "bad_input_first.png", check=False)
if "NaN" not in log.GetOutput() or first.max() != 0:
    fail("NaN data before any good volume: expected a message and an empty view")
# Then a good volume.
src.GetClientSideObject().SetOutput(image((n, n, n), ball))
src.MarkModified(src)
Render(v)
good = screenshot(v, "bad_input_good.png")
if good.max() == 0:
    fail("the good volume rendered black")


def feed(label, data, needle):
    start = len(log.GetOutput())
    src.GetClientSideObject().SetOutput(data)
    src.MarkModified(src)
    Render(v)
    # Bad input renders no frame (the last good picture stays): no back end to check.
    img = screenshot(v, "bad_input_%s.png" % label, check=needle is None)
    text = log.GetOutput()[start:]
    say("%s: %s" % (label, text.strip().replace("\n", " | ")[:400]))
    p = psnr(img, good)
    say("%s: PSNR against the previous image %.1f dB" % (label, p))
    return text, p


cases = [
    ("int64", image((n, n, n), ball.astype(np.int64)), "long long"),
    ("empty", image((0, 0, 0), np.zeros(0, np.float32)), "empty"),
    ("thin", image((n, n, 1), ball[:1]), "1 voxel"),
    ("nan", image((n, n, n), np.where(ball > 100, np.nan, ball).astype(np.float32)), "NaN"),
    ("inf", image((n, n, n), np.where(ball > 100, np.inf, ball).astype(np.float32)), "infinite"),
]
rg = vtkRectilinearGrid()
rg.SetDimensions(n, n, n)
for axis, setter in ((0, rg.SetXCoordinates), (1, rg.SetYCoordinates), (2, rg.SetZCoordinates)):
    c = numpy_to_vtk(np.cumsum(np.linspace(0.5, 1.5, n)).astype(np.float64), deep=1)
    setter(c)
arr = numpy_to_vtk(ball.ravel(), deep=1)
arr.SetName("v")
rg.GetPointData().SetScalars(arr)
cases.append(("rectilinear", rg, "uniform"))
for label, data, needle in cases:
    text, p = feed(label, data, needle)
    if "cavr Volume" not in text or needle not in text:
        fail("%s: expected a cavr Volume message containing %r in the output window" % (label, needle))
    if p != math.inf:
        fail("%s: the view changed (PSNR %.1f dB against the last good image); it must keep that image" % (label, p))
# Back to good data (shifted, so the image must change and then show the new volume).
text, p = feed("good_again", image((n, n, n), np.roll(ball, 4, axis=2)), None)
if "ERR" in text or "ERROR" in text or p == math.inf:
    fail("good data after bad data: expected a new image and no error (PSNR %.1f dB, output %r)" % (p, text))
say("PASS: 6 kinds of bad input gave a message each and kept the last good image; good data renders again")

# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for cavr's pvpython/pvbatch tests: plugin loading, scenes, screenshots as arrays, PSNR."""
import atexit
import gzip
import math
import os
import sys

import numpy as np
from paraview import simple as pvsimple
from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             GetOpacityTransferFunction, LoadPlugin, OpenDataFile, Render,
                             SaveScreenshot, Show)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

PLUGIN = os.environ.get("CAVR_PLUGIN")
DATA = os.environ.get("CAVR_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
OUT = os.environ.get("CAVR_TEST_OUT", "/tmp")
# The back end the tests ask for (CAVR_PV_BACKEND: Auto, CPU or CUDA; unset: the property's default, Auto) and the one
# every screenshot's cavr Volume must have used (CAVR_PV_EXPECT_BACKEND: CPU or CUDA; default: the one asked for, if
# CPU or CUDA). On a GPU machine, CAVR_PV_BACKEND=CUDA runs every test on CUDA and fails if a frame fell back to the
# CPU; CAVR_PV_EXPECT_BACKEND=CUDA alone checks that Auto picks CUDA.
BACKEND = os.environ.get("CAVR_PV_BACKEND", "")
EXPECT = os.environ.get("CAVR_PV_EXPECT_BACKEND", BACKEND if BACKEND in ("CPU", "CUDA") else "")
_checked_devices = []  # the device of every checked screenshot (the first and changes are printed)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load_plugin():
    if not PLUGIN or not os.path.exists(PLUGIN):
        fail("CAVR_PLUGIN must name the built plugin (cavr.so), got %r" % PLUGIN)
    LoadPlugin(PLUGIN, remote=False, ns=globals())
    if EXPECT:
        atexit.register(_backend_checked)


def apply_backend(d):
    """Set the representation's Back End to CAVR_PV_BACKEND, when given (any representation type: the property is
    the composite representation's and applies whenever it shows "cavr Volume")."""
    if BACKEND and d.SMProxy.GetProperty("CavrBackEnd") is not None:  # the plugin may be absent (a "Volume" reference)
        d.CavrBackEnd = BACKEND
    return d


def cavr_info(d, name):
    """The value of one of the cavr representation's read-only properties (CavrBackEndInUse, CavrDeviceInUse,
    CavrLastRenderTime, CavrLastDrawTime) after the last frame. Only that property is updated: the composite representation's
    UpdatePropertyInformation() also asks its other representations, and one of them lost ParaView's OpenGL context
    (GLXBadContext) in test_bad_input."""
    prop = d.SMProxy.GetProperty(name)
    prop.GetParent().UpdatePropertyInformation(prop)  # the cavr representation's proxy, which owns the property
    return prop.GetElement(0)


def check_backend(v):
    """Every visible "cavr Volume" of the view rendered its last frame on CAVR_PV_EXPECT_BACKEND (when set): its
    read-only property CavrBackEndInUse says so. Called by screenshot(); prints the device once per change."""
    if not EXPECT:
        return
    for d in v.Representations:
        if d.GetProperty("CavrBackEndInUse") is None or d.Representation != "cavr Volume" or not d.Visibility:
            continue
        used, device = cavr_info(d, "CavrBackEndInUse"), cavr_info(d, "CavrDeviceInUse")
        if not used:  # no frame yet (bad input before any good volume): nothing to check
            continue
        if used != EXPECT:
            fail("cavr Volume rendered on %r (%s), expected %s" % (used, device, EXPECT))
        if not _checked_devices or _checked_devices[-1] != device:
            print("cavr Volume back end in use: %s (%s)" % (used, device))
        _checked_devices.append(device)


def _backend_checked():
    if not _checked_devices:
        print("FAIL: CAVR_PV_EXPECT_BACKEND=%s but no screenshot showed a cavr Volume to check" % EXPECT, flush=True)
        os._exit(1)  # a failing exit status, for the scripts that run this one without ctest's FAIL: regex


def view(size=(400, 400), background=(0, 0, 0)):
    v = GetActiveViewOrCreate("RenderView")
    v.ViewSize = list(size)
    v.OrientationAxesVisibility = 0
    v.Background = list(background)
    try:  # ParaView 5.11: use the single colour background, not the palette's
        v.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    return v


def show_volume(source, v, array, rng, opacity_points, representation="cavr Volume", shade=0):
    d = Show(source, v)
    ColorBy(d, ("POINTS", array))
    d.SetRepresentationType(representation)
    apply_backend(d)
    lut = GetColorTransferFunction(array)
    lut.ApplyPreset("Grayscale", True)
    lut.RescaleTransferFunction(rng[0], rng[1])
    pwf = GetOpacityTransferFunction(array)
    pwf.Points = opacity_points
    d.Shade = shade
    return d


def screenshot(v, name, size=None, check=True):
    """Save the view as OUT/NAME and return it as an (h, w, 3) float array; check (default) that every visible cavr
    Volume rendered on CAVR_PV_EXPECT_BACKEND (check_backend)."""
    path = os.path.join(OUT, name)
    SaveScreenshot(path, v, ImageResolution=list(size or v.ViewSize))
    if check:
        check_backend(v)
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3]
    return a.astype(np.float64)


def psnr(a, b):
    mse = np.mean((a - b) ** 2)
    return math.inf if mse == 0 else 10.0 * math.log10(255.0 ** 2 / mse)


def compare(ours, ref, label, what):
    """PSNR (dB) of cavr's screenshot against the reference, printed with the largest error and the reference's
    coverage (pixels brighter than 10); fails when the reference is nearly empty (under 5% covered)."""
    p = psnr(ours, ref)
    covered = np.mean(ref.max(axis=2) > 10)
    print("%s: PSNR cavr vs %s = %.2f dB (max abs error %d of 255; %.0f%% covered)" %
          (label, what, p, np.abs(ours - ref).max(), 100 * covered))
    if covered < 0.05:
        fail("reference image is nearly empty")
    return p


def vtk_then_cavr(v, d, prefix):
    """Screenshot "Volume" / Ray Cast Only, then "cavr Volume" at sample distance 0.25, of the same scene (d: the
    representation), saved as PREFIX_vtk.png and PREFIX_cavr.png; print and return the PSNR of cavr's against
    VTK's. Fails when VTK's image is nearly empty (under 5% of the pixels above 10 of 255)."""
    d.SetRepresentationType("Volume")
    d.VolumeRenderingMode = "Ray Cast Only"
    ref = screenshot(v, prefix + "_vtk.png")
    d.SetRepresentationType("cavr Volume")
    d.CavrSampleDistance = 0.25
    ours = screenshot(v, prefix + "_cavr.png")
    p = psnr(ours, ref)
    covered = np.mean(ref.max(axis=2) > 10)
    print("%s: PSNR cavr vs Ray Cast Only = %.2f dB (max abs error %d of 255, mean %.2f; %.0f%% of pixels covered)"
          % (prefix, p, np.abs(ours - ref).max(), np.abs(ours - ref).mean(), 100 * covered))
    if covered < 0.05:
        fail("%s: the reference image is nearly empty" % prefix)
    return p


def raw_copy(nhdr):
    """A raw-encoded copy of a gzip NRRD volume (detached header) in OUT; returns its .nhdr path (the header
    itself when its data are raw already). ParaView's NRRD reader reads pieces (MPI ranks) of raw data only."""
    with open(nhdr) as f:
        text = f.read()
    if "encoding: gzip" not in text:
        return nhdr
    name = [l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith("data file")][0]
    stem = os.path.basename(nhdr)[:-len(".nhdr")]
    raw = os.path.join(OUT, stem + ".raw")
    header = os.path.join(OUT, stem + "_raw.nhdr")
    if not os.path.exists(raw):
        with gzip.open(os.path.join(os.path.dirname(nhdr), name)) as f, open(raw + ".part", "wb") as g:
            while True:
                block = f.read(1 << 24)
                if not block:
                    break
                g.write(block)
        os.rename(raw + ".part", raw)
    with open(header, "w") as g:
        g.write(text.replace("encoding: gzip", "encoding: raw").replace(name, os.path.basename(raw)))
    return header


def process_ids(source):
    """source with a point array of each point's rank, and that array's name: (proxy, name). ParaView 5.11 offers
    'Process Ids' as ProcessIdScalars (array "ProcessId"); 6.1 only as ProcessIds (vtkGenerateProcessIds), whose
    "PointProcessIds" is the data's process-ids attribute, which Fetch under MPI drops when it gathers the ranks'
    pieces; a Calculator copies it to a plain "ProcessId". Chosen by what paraview.simple has, not by version."""
    if hasattr(pvsimple, "ProcessIdScalars"):
        return pvsimple.ProcessIdScalars(Input=source), "ProcessId"
    pids = pvsimple.ProcessIds(Input=source, GeneratePointData=1)
    return pvsimple.Calculator(Input=pids, ResultArrayName="ProcessId", Function="PointProcessIds"), "ProcessId"


def raw_headsq():
    """A raw-encoded copy of data/'s headsq CT (64x64x93 uint16) in OUT; returns its .nhdr path. ParaView's
    NRRD reader reads sub-extents (pieces, one per MPI rank) of raw data only, not of gzip data."""
    raw = os.path.join(OUT, "headsq_64x64x93_uint16.raw")
    header = os.path.join(OUT, "headsq_raw.nhdr")
    with gzip.open(DATA + "/headsq_64x64x93_uint16.raw.gz") as f, open(raw, "wb") as g:
        g.write(f.read())
    with open(DATA + "/headsq_64x64x93_uint16.nhdr") as f, open(header, "w") as g:
        g.write(f.read().replace("encoding: gzip", "encoding: raw").replace(".raw.gz", ".raw"))
    return header


# headsq's opacity function and camera, shared by the MPI and client-server tests.
HEADSQ_RANGE = (0, 3926)
HEADSQ_OPACITY = [0, 0, 0.5, 0, 450, 0, 0.5, 0, 1000, 0.05, 0.5, 0, 1300, 0.3, 0.5, 0, 3926, 0.6, 0.5, 0]


def headsq_camera(v):
    v.CameraPosition = [-250, -420, 300]
    v.CameraFocalPoint = [100.8, 100.8, 69]
    v.CameraViewUp = [0, 0, 1]
    v.CameraViewAngle = 30

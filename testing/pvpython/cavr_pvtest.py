"""Helpers for cavr's pvpython/pvbatch tests: plugin loading, scenes, screenshots as arrays, PSNR."""
import math
import os
import sys

import numpy as np
from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             GetOpacityTransferFunction, LoadPlugin, OpenDataFile, Render,
                             SaveScreenshot, Show)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

PLUGIN = os.environ.get("CAVR_PLUGIN")
DATA = os.environ.get("CAVR_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
OUT = os.environ.get("CAVR_TEST_OUT", "/tmp")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load_plugin():
    if not PLUGIN or not os.path.exists(PLUGIN):
        fail("CAVR_PLUGIN must name the built plugin (cavr.so), got %r" % PLUGIN)
    LoadPlugin(PLUGIN, remote=False, ns=globals())


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
    lut = GetColorTransferFunction(array)
    lut.ApplyPreset("Grayscale", True)
    lut.RescaleTransferFunction(rng[0], rng[1])
    pwf = GetOpacityTransferFunction(array)
    pwf.Points = opacity_points
    d.Shade = shade
    return d


def screenshot(v, name, size=None):
    path = os.path.join(OUT, name)
    SaveScreenshot(path, v, ImageResolution=list(size or v.ViewSize))
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

# SPDX-License-Identifier: BSD-3-Clause
"""Render a volume file through the cavr ParaView plugin ("cavr Volume") and save a PNG.

pvpython --force-offscreen-rendering render_volume.py --plugin PATH/cavr.so [--output out.png]
    [--size 1024] [--backend auto|cpu|cuda] [--range MIN:MAX] VOLUME.nhdr

The default transfer function suits T1 MRI (grey/white matter): a warm grey colour map over the given
range (default: 0 to 130, the tissue range of the Colin27 template) and an opacity ramp from 20% of the
range, with Phong shading. Prints the time of the first frame."""
import argparse
import time

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             GetOpacityTransferFunction, LoadPlugin, OpenDataFile, Render, SaveScreenshot,
                             Show)

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("volume")
parser.add_argument("--plugin", required=True)
parser.add_argument("--output", default="cavr.png")
parser.add_argument("--size", type=int, default=1024)
parser.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto")
parser.add_argument("--range", default="0:130")
args = parser.parse_args()
lo, hi = (float(x) for x in args.range.split(":"))

LoadPlugin(args.plugin, remote=False, ns=globals())
source = OpenDataFile(args.volume)
source.UpdatePipeline()
array = source.PointData.keys()[0]
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [args.size, args.size]
view.OrientationAxesVisibility = 0
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
view.Background = [0.08, 0.08, 0.1]

display = Show(source, view)
ColorBy(display, ("POINTS", array))
display.SetRepresentationType("cavr Volume")
display.CavrBackEnd = {"auto": "Auto", "cpu": "CPU", "cuda": "CUDA"}[args.backend]
display.CavrSampleDistance = 0.5
display.Shade = 1
display.Ambient = 0.15
display.Diffuse = 0.8
display.Specular = 0.25
display.SpecularPower = 20
lut = GetColorTransferFunction(array)
lut.RGBPoints = [lo, 0.25, 0.12, 0.08,
                 lo + 0.35 * (hi - lo), 0.78, 0.56, 0.45,
                 lo + 0.7 * (hi - lo), 0.96, 0.88, 0.80,
                 hi, 1.0, 1.0, 0.97]
opacity = GetOpacityTransferFunction(array)
opacity.Points = [lo, 0.0, 0.5, 0.0,
                  lo + 0.2 * (hi - lo), 0.0, 0.5, 0.0,
                  lo + 0.6 * (hi - lo), 0.15, 0.5, 0.0,
                  hi, 0.6, 0.5, 0.0]

view.ResetCamera()
camera = view.GetActiveCamera()
camera.Elevation(-60)
camera.OrthogonalizeViewUp()
camera.Azimuth(-35)
view.ResetCamera()
camera.Dolly(1.3)

start = time.time()
Render(view)
first = time.time() - start
SaveScreenshot(args.output, view, ImageResolution=[args.size, args.size])
print("render_volume: %s -> %s (%dx%d, back end %s requested, first frame %.2f s)" %
      (args.volume, args.output, args.size, args.size, args.backend, first))

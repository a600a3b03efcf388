# SPDX-License-Identifier: BSD-3-Clause
"""Inside the ParaView GUI (`paraview --script=gui_shot.py`): open data/'s Colin27 MRI, show it as "cavr Volume" with
Back End CUDA, select it so the Properties panel shows the cavr group, render, and write the back end in use to
CAVR_GUI_LOG. device.sh gui then photographs the whole X screen (window, Properties panel, view) and ends the GUI."""
import os

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetOpacityTransferFunction,
                             OpenDataFile, Render, SetActiveSource, Show)

src = OpenDataFile(os.path.join(os.environ["CAVR_DATA_DIR"], "colin27_ch2better_301x370x316_uint8.nhdr"))
v = GetActiveViewOrCreate("RenderView")
d = Show(src, v)
ColorBy(d, ("POINTS", "ImageScalars"))
d.SetRepresentationType("cavr Volume")
d.CavrBackEnd = "CUDA"
lut = GetColorTransferFunction("ImageScalars")
lut.ApplyPreset("Grayscale", True)
lut.RescaleTransferFunction(0, 130)
GetOpacityTransferFunction("ImageScalars").Points = [0, 0, 0.5, 0, 25, 0, 0.5, 0, 130, 0.4, 0.5, 0]
d.Shade = 1
SetActiveSource(src)
v.ResetCamera()
v.CameraPosition = [75, -400, 200]
v.CameraViewUp = [0, 0, 1]
v.ResetCamera()
Render(v)
info = [d.SMProxy.GetProperty(n) for n in ("CavrBackEndInUse", "CavrDeviceInUse", "CavrLastRenderTime")]
for prop in info:
    prop.GetParent().UpdatePropertyInformation(prop)
with open(os.environ["CAVR_GUI_LOG"], "w") as f:
    f.write("cavr Volume in the GUI: back end in use %s (%s), render call %.2f ms\n" % tuple(p.GetElement(0) for p in info))

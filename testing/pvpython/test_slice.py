# SPDX-License-Identifier: BSD-3-Clause
"""ParaView's own Blend Mode "Slice" and its slice plane ("Slice Type": a Plane's Origin and Normal) drive cavr's
slice mode (issue 15, item 1): the same real volume, colour map, opacity function, plane and camera rendered by
ParaView's "Volume" representation with the GPU mapper (vtkOpenGLGPUVolumeRayCastMapper: one sample per ray on the
plane, coloured by the colour map with the opacity function's raw value; Mesa under Xvfb) and by "cavr Volume" agree
to at least 35 dB PSNR (8-bit screenshots), for an oblique plane through the CT's centre seen from an oblique camera,
for an axis-aligned plane off the centre, and with Shade on (both then light the slice from its gradient; one
headlight). The opacity function is not constant (0.35 to 1), so an opacity corrected for a sample distance would
show."""
import numpy as np
from cavr_pvtest import DATA, compare, fail, load_plugin, screenshot, show_volume, view
from paraview.simple import AddLight, GetColorTransferFunction, OpenDataFile

THRESHOLD_DB = 35.0
load_plugin()
src = OpenDataFile(DATA + "/headsq_64x64x93_uint16.nhdr")
v = view((400, 400))
d = show_volume(src, v, "ImageScalars", (0, 3926), [0, 0.35, 0.5, 0, 3926, 1.0, 0.5, 0], representation="Volume")
lut = GetColorTransferFunction("ImageScalars")
lut.ApplyPreset("Cool to Warm", True)
lut.RescaleTransferFunction(0, 3926)
d.VolumeRenderingMode = "GPU Based"
d.InterpolationType = "Linear"
d.BlendMode = "Slice"
d.Ambient, d.Diffuse, d.Specular = 0.1, 0.7, 0.0
# One headlight (the GPU mapper's light complexity 1: a light at the camera, Ambient x colour).
v.UseLight = 0
light = AddLight(view=v)
light.Coords = "Headlight"
light.Intensity = 1.0
v.CameraPosition = [-250, -420, 300]
v.CameraFocalPoint = [100.8, 100.8, 69]
v.CameraViewUp = [0, 0, 1]
v.CameraViewAngle = 30

cases = [("oblique", [100.8, 100.8, 69.0], [0.3, -0.25, 1.0], 0),
         ("axis", [80.0, 100.8, 69.0], [1.0, 0.0, 0.0], 0),
         ("shaded", [100.8, 100.8, 69.0], [0.3, -0.25, 1.0], 1)]
worst = np.inf
for tag, origin, normal, shade in cases:
    d.SliceFunction.Origin = origin
    d.SliceFunction.Normal = normal
    d.Shade = shade
    d.SetRepresentationType("Volume")
    ref = screenshot(v, "slice_vtk_%s.png" % tag)
    d.SetRepresentationType("cavr Volume")
    ours = screenshot(v, "slice_cavr_%s.png" % tag)
    worst = min(worst, compare(ours, ref, tag, "ParaView GPU slice"))
if worst < THRESHOLD_DB:
    fail("PSNR %.2f dB below %.1f dB" % (worst, THRESHOLD_DB))
print("PASS")

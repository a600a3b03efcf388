# SPDX-License-Identifier: BSD-3-Clause
"""ParaView's own Blend Mode "Isosurface" and "Isosurface Values" drive cavr's isosurface mode (issue 12 item 7,
issue 15 item 1): the same real volume, colour map, iso-value and camera rendered by ParaView's "Volume"
representation with the GPU mapper (vtkOpenGLGPUVolumeRayCastMapper, Mesa under Xvfb) and by "cavr Volume" agree
to at least 30 dB PSNR (8-bit screenshots), shaded, without and with an opaque sphere inside the volume (the
surface hides the part of the sphere behind it and the sphere the part of the surface behind it). The two place
the crossing differently (VTK: the first sample past it, no refinement; cavr: refined), so they are close, not
equal."""
import numpy as np
from cavr_pvtest import DATA, fail, load_plugin, psnr, screenshot, show_volume, view
from paraview.simple import AddLight, GetActiveCamera, GetColorTransferFunction, Hide, OpenDataFile, Show, Sphere

THRESHOLD_DB = 30.0
load_plugin()
src = OpenDataFile(DATA + "/headsq_64x64x93_uint16.nhdr")
v = view((320, 320))
# Opacity 1 at the iso-value: VTK's isosurface mode takes the opacity function's value there.
d = show_volume(src, v, "ImageScalars", (0, 3926), [0, 1, 0.5, 0, 3926, 1, 0.5, 0], representation="Volume", shade=1)
lut = GetColorTransferFunction("ImageScalars")
lut.RGBPoints = [0, 0.9, 0.7, 0.5, 3926, 0.9, 0.7, 0.5]
d.VolumeRenderingMode = "GPU Based"
d.BlendMode = "Isosurface"
d.IsosurfaceValues = [1000.0]
# Diffuse only (the isosurface's shading under the light kit, with Ambient and Specular: test_iso_shading.py).
d.Ambient, d.Diffuse, d.Specular = 0.0, 0.7, 0.0
# One headlight (cavr takes the view's lights; one light keeps the two mappers' lighting alike).
v.UseLight = 0
light = AddLight(view=v)
light.Coords = "Headlight"
light.Intensity = 1.0
v.ResetCamera()
cam = GetActiveCamera()
cam.Elevation(-70)
cam.OrthogonalizeViewUp()
cam.Azimuth(20)
v.ResetCamera()

sphere = Sphere(Radius=70, Center=[100.8, 100.8, 69], ThetaResolution=64, PhiResolution=64)
worst = np.inf
for tag in ["alone", "sphere"]:
    if tag == "sphere":
        s = Show(sphere, v)
        s.ColorArrayName = [None, ""]
        s.DiffuseColor = [1, 0, 0]
        s.AmbientColor = [1, 0, 0]
    d.SetRepresentationType("Volume")
    ref = screenshot(v, "iso_vtk_%s.png" % tag)
    d.SetRepresentationType("cavr Volume")
    d.CavrSampleDistance = 0.25
    ours = screenshot(v, "iso_cavr_%s.png" % tag)
    p = psnr(ours, ref)
    covered = np.mean(ref.max(axis=2) > 10)
    red = np.mean((ref[:, :, 0] > 100) & (ref[:, :, 1] < 50))
    print("%s: PSNR cavr vs ParaView GPU isosurface = %.2f dB (max abs error %d of 255; %.0f%% covered, %.1f%% red)" %
          (tag, p, np.abs(ours - ref).max(), 100 * covered, 100 * red))
    if covered < 0.05:
        fail("reference image is nearly empty")
    if tag == "sphere" and not 0.001 < red < 0.5:
        fail("the sphere should show partly: %.3f of the pixels are red" % red)
    worst = min(worst, p)
if worst < THRESHOLD_DB:
    fail("PSNR %.2f dB below %.1f dB" % (worst, THRESHOLD_DB))
print("PASS")

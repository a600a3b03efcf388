# SPDX-License-Identifier: BSD-3-Clause
"""Dependent components in ParaView: Map Scalars off, or Multi Components Mapping on, turn the volume property's
independent components off; for a 2- or 4-component array "cavr Volume" then classifies as ParaView's "Volume" does
(VTK's GPU ray caster: 2 components, colour from component 0 through the colour map, opacity from component 1 through
the opacity function; 4 components, RGB from components 0-2 each rescaled from its range, opacity from component 3).
Data, made from data/'s headsq CT (64x64x93 uint16, s its voxels) and written as a .vti:
- "rgba": unsigned char, RGB a blue-green-red colour map of s, alpha s scaled to 0-255;
- "gs": float, component 0 the gradient magnitude of s (central differences per voxel), component 1 s.
Each is rendered by "Volume" (GPU Based: Mesa llvmpipe under Xvfb) and by "cavr Volume" (Back End CPU, or CAVR_PV_BACKEND) with the same
colour map and opacity function, under Map Scalars off and under Multi Components Mapping on (Map Scalars on); the
two must agree to THRESHOLD_DB. cavr's image must also change when both are back to their defaults (independent
components: the colour map's magnitude), so the properties are seen to be honoured, and come back when one is set
again. With Map Scalars off and Blend Mode Maximum Intensity (dependent components are composite only) cavr renders
the colour map's magnitude with one warning instead of failing."""
import os

import numpy as np
from cavr_pvtest import (DATA, OUT, apply_backend, fail, headsq_camera, load_plugin, psnr, screenshot, view)
from paraview import servermanager
from paraview.simple import (ColorBy, GetColorTransferFunction, GetOpacityTransferFunction, Hide, OpenDataFile, Show)
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.vtkCommonDataModel import vtkImageData
from vtkmodules.vtkIOXML import vtkXMLImageDataWriter

# 8-bit screenshots of two ray casters: VTK's GPU mapper samples its tables at the data's ranges and composites in
# its own way (as in test_iso_shading and test_compare_raycast).
THRESHOLD_DB = 35.0

load_plugin()
head = servermanager.Fetch(OpenDataFile(DATA + "/headsq_64x64x93_uint16.nhdr"))
dims = head.GetDimensions()
s = vtk_to_numpy(head.GetPointData().GetScalars()).astype(np.float64).reshape(dims[2], dims[1], dims[0])
u = (s - s.min()) / (s.max() - s.min())
rgb = np.stack([u, 1.0 - np.abs(2.0 * u - 1.0), 1.0 - u], axis=-1)
rgba = np.concatenate([np.floor(rgb * 255 + 0.5), np.floor(u * 255 + 0.5)[..., None]], axis=-1).astype(np.uint8)
g = np.sqrt(sum(np.gradient(s, axis=a) ** 2 for a in range(3)))
gs = np.stack([g, s], axis=-1).astype(np.float32)
image = vtkImageData()
image.SetDimensions(dims)
image.SetSpacing(head.GetSpacing())
image.SetOrigin(head.GetOrigin())
for name, arr in (("rgba", rgba), ("gs", gs)):
    a = numpy_to_vtk(arr.reshape(-1, arr.shape[-1]), deep=1)
    a.SetName(name)
    image.GetPointData().AddArray(a)
path = os.path.join(OUT, "components_headsq.vti")
w = vtkXMLImageDataWriter()
w.SetFileName(path)
w.SetInputData(image)
w.SetDataModeToBinary()
w.Write()

src = OpenDataFile(path)
v = view((400, 400))
headsq_camera(v)
G_HI = float(np.percentile(g, 99))
# array: (opacity points over the opacity component's values, colour map range over the colour component's)
cases = {"rgba": ([0, 0, 0.5, 0, 30, 0, 0.5, 0, 70, 0.1, 0.5, 0, 255, 0.6, 0.5, 0], (0.0, 255.0)),
         "gs": ([0, 0, 0.5, 0, 450, 0, 0.5, 0, 1000, 0.05, 0.5, 0, 1300, 0.3, 0.5, 0, 3926, 0.6, 0.5, 0],
                (0.0, G_HI))}
worst = np.inf
for array, (points, crange) in cases.items():
    d = Show(src, v)
    ColorBy(d, ("POINTS", array))
    d.SetRepresentationType("Volume")
    d.VolumeRenderingMode = "GPU Based"
    d.CavrBackEnd = "CPU"
    apply_backend(d)  # CAVR_PV_BACKEND=CUDA on a GPU machine
    d.CavrSampleDistance = 0.25
    lut = GetColorTransferFunction(array)
    lut.AutomaticRescaleRangeMode = "Never"
    lut.ApplyPreset("Jet", True)
    lut.RescaleTransferFunction(crange[0], crange[1])
    pwf = GetOpacityTransferFunction(array)
    pwf.Points = points
    images = {}
    for mode in ("MapScalars off", "MultiComponentsMapping on"):
        d.MapScalars = 0 if mode == "MapScalars off" else 1
        d.MultiComponentsMapping = 1 if mode == "MultiComponentsMapping on" else 0
        tag = "%s_%s" % (array, mode.split()[0])
        d.SetRepresentationType("Volume")
        ref = screenshot(v, "components_vtk_%s.png" % tag)
        d.SetRepresentationType("cavr Volume")
        ours = screenshot(v, "components_cavr_%s.png" % tag)
        p = psnr(ours, ref)
        covered = np.mean(ref.max(axis=2) > 10)
        print("%s, %s: PSNR cavr (CPU) vs Volume (GPU Based) = %.2f dB (max abs error %d of 255; %.0f%% covered)" %
              (array, mode, p, np.abs(ours - ref).max(), 100 * covered))
        if covered < 0.05:
            fail("%s, %s: the reference image is nearly empty" % (array, mode))
        if p < THRESHOLD_DB:
            fail("%s, %s: %.2f dB, below %.0f" % (array, mode, p, THRESHOLD_DB))
        worst = min(worst, p)
        images[mode] = ours
    # Both back to their defaults: independent components (the colour map's magnitude); a different picture.
    d.MapScalars = 1
    d.MultiComponentsMapping = 0
    indep = screenshot(v, "components_cavr_%s_independent.png" % array)
    p_indep = psnr(indep, images["MapScalars off"])
    print("%s: independent components against dependent: %.2f dB" % (array, p_indep))
    if not p_indep < 30.0:
        fail("%s: turning Map Scalars on and Multi Components Mapping off did not change cavr's picture" % array)
    d.MultiComponentsMapping = 1
    again = screenshot(v, "components_cavr_%s_again.png" % array)
    if psnr(again, images["MultiComponentsMapping on"]) != np.inf:
        fail("%s: Multi Components Mapping on again did not restore cavr's picture" % array)
    # Another blend mode with dependent components: the colour map's magnitude instead, one warning, a picture.
    d.MapScalars = 0
    d.CavrBlendMode = "Maximum Intensity"
    mip = screenshot(v, "components_cavr_%s_mip.png" % array)
    lit = np.mean(mip.max(axis=2) > 10)
    print("%s, Map Scalars off, Maximum Intensity (falls back to the magnitude): %.0f%% of pixels lit" % (array, 100 * lit))
    if not lit > 0.05:
        fail("%s: maximum intensity with Map Scalars off rendered nothing" % array)
    d.CavrBlendMode = "Composite"
    d.MapScalars = 1
    Hide(src, v)
print("worst PSNR cavr vs Volume with dependent components: %.2f dB (threshold %.0f)" % (worst, THRESHOLD_DB))
print("PASS")

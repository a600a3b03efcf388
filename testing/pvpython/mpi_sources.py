# SPDX-License-Identifier: BSD-3-Clause
"""Render "cavr Volume" of sources other than a reader under pvbatch (alone or under mpiexec with N ranks), each
shaded, with the view's FXAA off (mpi_seams.py says why), and save OUT_PREFIX_<source>.png:
  wavelet     ParaView's Wavelet (vtkRTAnalyticSource): gives its piece grown by the ghost levels asked for
  extent      a Programmable Source of image data that produces the update extent it is given (the executive grows
              it by the ghost levels asked for and marks the ghost points)
  piece       a Programmable Source that produces its piece's own extent and ignores the ghost levels asked for
              (the representation adds the layers with vtkGhostCellsGenerator)
Usage: pvbatch [--mpi] mpi_sources.py OUT_PREFIX"""
import sys

from cavr_pvtest import check_backend, load_plugin, show_volume, view
from paraview.simple import Hide, ProgrammableSource, SaveScreenshot, Wavelet

SIZE = 300
N = 48  # points along each axis of the programmable sources' images
INFO = """
executive = self.GetExecutive()
info = executive.GetOutputInformation(0)
info.Set(executive.WHOLE_EXTENT(), 0, %d, 0, %d, 0, %d)
info.Set(vtk.vtkAlgorithm.%s(), 1)
""" % (N - 1, N - 1, N - 1, "%s")
FILL = """
import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
def fill(output, ext):
    output.SetExtent(ext)
    k, j, i = np.mgrid[ext[4]:ext[5] + 1, ext[2]:ext[3] + 1, ext[0]:ext[1] + 1].astype(np.float32)
    c = 0.5 * (%d - 1)
    r = np.sqrt((i - c) ** 2 + (j - c) ** 2 + (k - c) ** 2) / c
    v = 100.0 * np.exp(-4.0 * r * r) + 30.0 * np.sin(0.4 * i) * np.cos(0.3 * j) + 60.0 * (np.abs(r - 0.7) < 0.08)
    a = numpy_to_vtk(v.ravel().astype(np.float32), deep=1)
    a.SetName("v")
    output.GetPointData().SetScalars(a)
executive = self.GetExecutive()
info = executive.GetOutputInformation(0)
""" % N
EXTENT = FILL + """
fill(self.GetOutput(), [executive.UPDATE_EXTENT().Get(info, i) for i in range(6)])
"""
PIECE = FILL + """
from vtkmodules.vtkCommonExecutionModel import vtkExtentTranslator
et = vtkExtentTranslator()
et.SetWholeExtent([0, %d, 0, %d, 0, %d])
et.SetPiece(info.Get(executive.UPDATE_PIECE_NUMBER()))
et.SetNumberOfPieces(info.Get(executive.UPDATE_NUMBER_OF_PIECES()))
et.SetGhostLevel(0)
et.PieceToExtent()
fill(self.GetOutput(), list(et.GetExtent()))
""" % (N - 1, N - 1, N - 1)


prefix = sys.argv[1]
load_plugin()
v = view((SIZE, SIZE))
v.UseFXAA = 0
sources = {
    "wavelet": (Wavelet(WholeExtent=[-20, 20, -20, 20, -20, 20]), "RTData", (40.0, 280.0)),
    "extent": (ProgrammableSource(OutputDataSetType="vtkImageData", ScriptRequestInformation=INFO % "CAN_PRODUCE_SUB_EXTENT",
                                  Script=EXTENT), "v", (-30.0, 190.0)),
    "piece": (ProgrammableSource(OutputDataSetType="vtkImageData", ScriptRequestInformation=INFO % "CAN_HANDLE_PIECE_REQUEST",
                                 Script=PIECE), "v", (-30.0, 190.0)),
}
shown = None
for name, (src, array, (lo, hi)) in sources.items():
    if shown is not None:
        Hide(shown, v)
    t0, t1 = lo + 0.3 * (hi - lo), lo + 0.6 * (hi - lo)
    d = show_volume(src, v, array, (lo, hi), [lo, 0, 0.5, 0, t0, 0, 0.5, 0, t1, 0.6, 0.5, 0, hi, 1.0, 0.5, 0], shade=1)
    d.CavrSampleDistance = 0.5
    shown = src
    v.ResetCamera()
    v.CameraPosition = [v.CameraFocalPoint[0] - 60, v.CameraFocalPoint[1] - 100, v.CameraFocalPoint[2] + 55]
    v.CameraViewUp = [0, 0, 1]
    v.ResetCamera()
    v.CameraViewAngle = 18
    out = "%s_%s.png" % (prefix, name)
    SaveScreenshot(out, v, ImageResolution=[SIZE, SIZE])
    check_backend(v)
    print("wrote", out, flush=True)

# SPDX-License-Identifier: BSD-3-Clause
"""Compare two PNG screenshots: PSNR (dB) and max error; fail below the given PSNR. Usage:
pvpython compare_png.py A.png B.png MIN_PSNR_DB [MAX_ABS_ERROR]"""
import sys

import numpy as np
from cavr_pvtest import fail, psnr
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader


def read(path):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3].astype(np.float64)


if __name__ == "__main__":
    a, b = read(sys.argv[1]), read(sys.argv[2])
    if a.shape != b.shape:
        fail("sizes differ: %s vs %s" % (a.shape, b.shape))
    p = psnr(a, b)
    err = np.abs(a - b).max(axis=2)
    covered = np.mean(a.max(axis=2) > 10)
    print("PSNR %.2f dB, max abs error %d of 255, %.2f%% of pixels differ by more than 2; %.0f%% covered" %
          (p, err.max(), 100 * np.mean(err > 2), 100 * covered))
    if covered < 0.05:
        fail("the reference picture is nearly empty")
    if p < float(sys.argv[3]):
        fail("PSNR %.2f dB below %s dB" % (p, sys.argv[3]))
    if len(sys.argv) > 4 and err.max() > float(sys.argv[4]):
        rows, cols = np.nonzero(err > float(sys.argv[4]))
        fail("max error %d above %s at %d pixels, e.g. (%d, %d): a seam?" % (err.max(), sys.argv[4], len(rows), cols[0], rows[0]))
    print("PASS")

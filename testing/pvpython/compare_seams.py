# SPDX-License-Identifier: BSD-3-Clause
"""Compare the renders of N ranks with those of one rank (mpi_seams.py): PSNR over the image, and the largest
per-pixel difference on the pixels whose rays cross a piece boundary against the largest elsewhere.
Every setting is asserted: composite (IceT's "over" in visibility order) and maximum intensity (z-buffer
compositing of each pixel's maximum, written as depth by the mapper: vtkCavrVolumeMapper::SetIntensityDepth). Usage: pvpython compare_seams.py ONE_PREFIX N_PREFIX MIN_PSNR_DB [MAX_BOUNDARY_ERROR]"""
import sys

import numpy as np
from cavr_pvtest import fail, psnr
from compare_png import read

one, many, min_db = sys.argv[1], sys.argv[2], float(sys.argv[3])
max_err = float(sys.argv[4]) if len(sys.argv) > 4 else None
mask = np.load(many + "_boundary.npy")
worst = None
problems = []  # every setting is measured and printed before the test fails
for blend in ("composite", "maximum"):
    for shade in (0, 1):
        a, b = read("%s_%s_%d.png" % (one, blend, shade)), read("%s_%s_%d.png" % (many, blend, shade))
        if a.max(axis=2).mean() < 5:
            fail("%s shade %d: the one-rank picture is nearly empty" % (blend, shade))
        err = np.abs(a - b).max(axis=2)
        p = psnr(a, b)
        eb = err[mask].max() if mask.any() else 0
        eo = err[~mask].max()
        print("%s, shade %d: PSNR %.2f dB; max difference on boundary pixels %d of 255, elsewhere %d" %
              (blend, shade, p, eb, eo))
        if p < min_db:
            problems.append("%s shade %d: PSNR %.2f dB below %.0f dB" % (blend, shade, p, min_db))
        if max_err is not None and eb > max_err:
            problems.append("%s shade %d: a seam: %d of 255 on boundary pixels (limit %.0f)" % (blend, shade, eb, max_err))
        worst = p if worst is None else min(worst, p)
if problems:
    fail("; ".join(problems))
print("PASS: worst PSNR %.2f dB" % worst)

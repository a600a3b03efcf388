#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One process against two MPI ranks (pvbatch) rendering headsq split between the ranks (mpi_render.py
# checks that each rank holds a part): the same picture, PSNR >= 40 dB. Unshaded, the split must also
# leave no seam: no pixel off by more than 12 of 255 (the two ranks' 8-bit images are blended by IceT, so
# rays crossing the split differ by a level or two). Shaded, the PSNR is checked and the max error shown.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ]; then # one X server for every step (and every rank)
  exec xvfb-run -a -s "-screen 0 1024x1024x24 -noreset" bash "$0" "$@"
fi
OUT=${CAVR_TEST_OUT:-/tmp}
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
for shade in 0 1; do
  pvbatch --force-offscreen-rendering "$HERE/mpi_render.py" "$OUT/mpi_single_$shade.png" $shade
  mpiexec --allow-run-as-root --oversubscribe -x DISPLAY -x XAUTHORITY -x PYTHONPATH -x CAVR_PLUGIN \
    -x CAVR_DATA_DIR -x CAVR_TEST_OUT -np 2 \
    pvbatch --mpi --force-offscreen-rendering "$HERE/mpi_render.py" "$OUT/mpi_split_$shade.png" $shade
done
echo "unshaded:"
pvpython "$HERE/compare_png.py" "$OUT/mpi_single_0.png" "$OUT/mpi_split_0.png" 40 12
echo "shaded:"
pvpython "$HERE/compare_png.py" "$OUT/mpi_single_1.png" "$OUT/mpi_split_1.png" 40

#!/usr/bin/env bash
# One process against two MPI ranks (pvbatch): same picture, PSNR >= 40 dB, and no pixel off by more than
# 12 of 255 (a seam between the ranks' pieces would show as a line of larger errors).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${CAVR_TEST_OUT:-/tmp}
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
xvfb-run -a pvbatch --force-offscreen-rendering "$HERE/mpi_render.py" "$OUT/mpi_single.png"
xvfb-run -a mpiexec --allow-run-as-root --oversubscribe -np 2 \
  pvbatch --mpi --force-offscreen-rendering "$HERE/mpi_render.py" "$OUT/mpi_split.png"
pvpython "$HERE/compare_png.py" "$OUT/mpi_single.png" "$OUT/mpi_split.png" 40 12

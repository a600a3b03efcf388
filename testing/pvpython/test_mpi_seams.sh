#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPI without seams (issue 15 item 7): the same volume rendered by pvbatch with 1, 2 and 4 ranks (mpiexec), in
# four settings (composite and maximum intensity, each unshaded and shaded). Each must give the one-rank image
# within 45 dB with every rank count, and the largest per-pixel difference on the pixels whose rays cross a piece
# boundary is measured and must stay within 8 of 255 (a seam shows there first; measured: at most 3 on headsq and
# on the CT shoulder, with the view's FXAA off as mpi_seams.py explains). Maximum intensity is composited
# by depth, the mapper writing each pixel's maximum as its depth (docs/design.md). The volume: CAVR_MPI_VOLUME
# (e.g. the 512x512x450 CT shoulder), default data/'s headsq.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ]; then # one X server for every step (and every rank)
  exec xvfb-run -a -s "-screen 0 1024x1024x24 -noreset" bash "$0" "$@"
fi
OUT=${CAVR_TEST_OUT:-/tmp}
VOLUME=${CAVR_MPI_VOLUME:-${CAVR_DATA_DIR:-$HERE/../../data}/headsq_64x64x93_uint16.nhdr}
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" CAVR_TEST_OUT="$OUT"
echo "volume: $VOLUME"
pvbatch --force-offscreen-rendering "$HERE/mpi_seams.py" "$OUT/seams_1" "$VOLUME"
status=0
for n in 2 4; do
  mpiexec --allow-run-as-root --oversubscribe -x DISPLAY -x XAUTHORITY -x PYTHONPATH -x CAVR_PLUGIN \
    -x CAVR_DATA_DIR -x CAVR_TEST_OUT -np $n \
    pvbatch --mpi --force-offscreen-rendering "$HERE/mpi_seams.py" "$OUT/seams_$n" "$VOLUME"
  echo "== $n ranks against 1:"
  pvpython "$HERE/compare_seams.py" "$OUT/seams_1" "$OUT/seams_$n" 45 8 || status=1
done
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Sources other than a reader under MPI (mpi_sources.py): Wavelet, a Programmable Source that produces its update
# extent and one that ignores the ghost levels asked for. Two ranks against one: each
# picture within 45 dB. The ranks' log must show both ways a piece gets its ghost layers: from the pipeline as the
# grown extent asked for, without ghost arrays (Wavelet, the first Programmable Source) and from
# vtkGhostCellsGenerator (the second).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ]; then # one X server for every step (and every rank)
  exec xvfb-run -a -s "-screen 0 1024x1024x24 -noreset" bash "$0" "$@"
fi
OUT=${CAVR_TEST_OUT:-/tmp}
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" CAVR_TEST_OUT="$OUT"
pvbatch --force-offscreen-rendering "$HERE/mpi_sources.py" "$OUT/sources_1"
mpiexec --allow-run-as-root --oversubscribe -x DISPLAY -x XAUTHORITY -x PYTHONPATH -x CAVR_PLUGIN \
  -x CAVR_DATA_DIR -x CAVR_TEST_OUT -np 2 \
  pvbatch --mpi --force-offscreen-rendering --verbosity=INFO "$HERE/mpi_sources.py" "$OUT/sources_2" \
  >"$OUT/sources_2.log" 2>&1 || { tail -20 "$OUT/sources_2.log"; echo "FAIL: 2 ranks"; exit 1; }
status=0
for s in wavelet extent piece; do
  echo "== $s, 2 ranks against 1:"
  pvpython "$HERE/compare_png.py" "$OUT/sources_1_$s.png" "$OUT/sources_2_$s.png" 45 || status=1
done
# The readers' and sources' way (Wavelet, the first Programmable Source: they make any sub-extent): each rank asks for
# its piece grown by the ghost layers as one extent, so the pieces come without ghost arrays (two bytes a voxel).
for what in "with ghost layers from the pipeline (the grown extent asked for; ghost arrays: none)" \
  "ghost layers added by vtkGhostCellsGenerator"; do
  grep -q "$what" "$OUT/sources_2.log" || { echo "FAIL: no rank logged \"$what\""; status=1; }
done
grep -o "cavr Volume: piece.*" "$OUT/sources_2.log" | sed 's/\x1b\[[0-9;]*m//g' | sort | uniq -c
exit $status

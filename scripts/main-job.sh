#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: on a fresh Debian 12 machine, install what is needed, build cavr, then render a real MRI
# volume (Colin27, data/) through the ParaView plugin with pvpython: representation "cavr Volume", an
# MRI transfer function, 1024x1024 PNG. GPU (CUDA) when one is present, CPU otherwise.
# Writes out/cavr_colin27.png (or the path given as the first argument). It says what it is doing; the
# compiler's output goes to build/build.log (shown only when the build fails).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPNG=${1:-$ROOT/out/cavr_colin27.png}
BUILD=${CAVR_BUILD_DIR:-$ROOT/build}
mkdir -p "$(dirname "$OUTPNG")" "$BUILD"
say() { echo "main-job: $*"; }
say "[1/3] checking the Debian packages cavr needs (scripts/install-deps.sh; installs the missing ones)"
"$ROOT/scripts/install-deps.sh"
say "[2/3] building cavr into $BUILD (a few minutes on 2 cores; compiler output in $BUILD/build.log)"
if ! CAVR_BUILD_DIR="$BUILD" "$ROOT/scripts/build.sh" >"$BUILD/build.log" 2>&1; then
  tail -n 40 "$BUILD/build.log" >&2
  say "the build failed; the full log is $BUILD/build.log" >&2
  exit 1
fi
PLUGIN=$(find "$BUILD" -name cavr.so -path "*paraview-plugins*" | head -n 1)
[ -n "$PLUGIN" ] || { say "the ParaView plugin was not built (see $BUILD/configure.log)" >&2; exit 1; }
CUDA=$(grep -q "CUDA back end ON" "$BUILD/configure.log" && echo "with the CUDA back end" || echo "CPU back end only (CUDA not built: no CUDA compiler found, or CAVR_ENABLE_CUDA=OFF)")
say "      built $PLUGIN, $CUDA"
say "[3/3] rendering data/colin27_ch2better_301x370x316_uint8.nhdr with pvpython, representation \"cavr Volume\""
xvfb-run -a -s "-screen 0 1280x1280x24" pvpython --force-offscreen-rendering \
  "$ROOT/scripts/render_volume.py" --plugin "$PLUGIN" --output "$OUTPNG" \
  "$ROOT/data/colin27_ch2better_301x370x316_uint8.nhdr"
say "done: the picture is $OUTPNG"

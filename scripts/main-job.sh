#!/usr/bin/env bash
# The main job: on a fresh Debian 12 machine, install what is needed, build cavr, then render a real MRI
# volume (Colin27, data/) through the ParaView plugin with pvpython: representation "cavr Volume", an
# MRI transfer function, 1024x1024 PNG. GPU (CUDA) when one is present, CPU otherwise.
# Writes out/cavr_colin27.png (or the path given as the first argument).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPNG=${1:-$ROOT/out/cavr_colin27.png}
mkdir -p "$(dirname "$OUTPNG")"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh" >/dev/null
PLUGIN=$(find "$ROOT/build" -name cavr.so -path "*paraview-plugins*" | head -n 1)
[ -n "$PLUGIN" ] || { echo "main-job: the ParaView plugin was not built" >&2; exit 1; }
xvfb-run -a -s "-screen 0 1280x1280x24" pvpython --force-offscreen-rendering \
  "$ROOT/scripts/render_volume.py" --plugin "$PLUGIN" --output "$OUTPNG" \
  "$ROOT/data/colin27_ch2better_301x370x316_uint8.nhdr"
echo "main-job: wrote $OUTPNG"

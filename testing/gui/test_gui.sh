#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GUI test (issue 15 item 6): ParaView's own client under Xvfb plays cavr_gui.xml (Qt event playback: open a
# volume, choose "cavr Volume" in the representation drop-down, change a cavr property and the blend mode) and
# compares the view with baseline/cavr_gui.png (ParaView's image comparison, threshold 5; the baseline is matched with error 0, a composite render differs by 11.5). The plugin is loaded
# from PV_PLUGIN_PATH. A second playback with the blend mode left at Composite must NOT match the baseline, so the
# comparison is shown to see the change. Usage: test_gui.sh PLUGIN_DIR DATA_DIR OUT_DIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PLUGIN_DIR=$1 DATA=$2 OUT=$3
mkdir -p "$OUT"
play() { # script baseline
  PV_PLUGIN_PATH="$PLUGIN_DIR" timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" \
    paraview --dr --data-directory="$DATA" --test-directory="$OUT" --test-script="$1" --test-baseline="$2" \
    --test-threshold=5 --exit >"$OUT/$(basename "$1").log" 2>&1
}
play "$HERE/cavr_gui.xml" "$HERE/baseline/cavr_gui.png"
rc=$?
grep -E "ImageError|Success|critical" "$OUT/cavr_gui.xml.log" | head -5
if [ $rc -ne 0 ]; then
  tail -30 "$OUT/cavr_gui.xml.log"
  echo "FAIL: the GUI playback or its image comparison failed (exit $rc; log $OUT/cavr_gui.xml.log)"
  exit 1
fi
grep -v "CavrBlendMode" "$HERE/cavr_gui.xml" >"$OUT/cavr_gui_composite.xml"
play "$OUT/cavr_gui_composite.xml" "$HERE/baseline/cavr_gui.png"
if [ $? -eq 0 ]; then
  echo "FAIL: a composite render matched the maximum-intensity baseline: the comparison cannot see the change"
  exit 1
fi
echo "PASS: the GUI playback renders with cavr Volume and matches the baseline; a different blend mode does not"

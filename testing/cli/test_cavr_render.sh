#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cavr-render: renders real volumes to PNG, reports JSON, and fails clearly (non-zero exit, message on
# stderr, nothing on stdout) for bad input.
set -u
BIN=$1
DATA=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# Real renders: NRRD (gzip, uint16) with JSON, raw input with dims/type/spacing, every blend mode.
out=$("$BIN" "$DATA/headsq_64x64x93_uint16.nhdr" -o "$T/a.png" --size 96x64 --rotate-x -90 --tf ct-skin \
      --projection perspective --shade --repeat 3 --json)
if python3 - "$out" "$T/a.png" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert j["backend"] in ("cpu", "cuda") and j["width"] == 96 and j["height"] == 64, j
assert j["ms_median"] >= j["ms_min"] > 0 and j["samples"] > 0 and j["repeat"] == 3, j
assert j["commit_ms"] > 0 and j["commit_gbps"] > 0 and j["cells_ms"] >= 0, j   # cavrGetVolumeCommitStats
assert (j["upload_ms"] > 0 and j["device_bytes"] == 64 * 64 * 93 * 2) if j["backend"] == "cuda" else j["upload_ms"] == 0, j
with open(sys.argv[2], "rb") as f:
    head = f.read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", head
w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
assert (w, h) == (96, 64), (w, h)
PY
then pass "nrrd render + json"; else bad "nrrd render + json: $out"; fi

for blend in composite mip minip average; do
  if "$BIN" "$DATA/bucky_32x32x32_uint8.raw" --dims 32,32,32 --type uint8 --spacing 1,1,1 --blend $blend \
       --size 32x32 -o "$T/b.png" >/dev/null; then pass "raw $blend"; else bad "raw $blend"; fi
done

# Slice: one sample per ray that meets the plane (through the volume's centre by default) inside the volume.
J=$("$BIN" "$DATA/headsq_64x64x93_uint16.nhdr" --size 64x64 --backend cpu --blend slice --slice-normal 0.2,0.1,1 \
    --json -o "$T/sl.png")
if python3 - "$J" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert 0.9 * j["rays_hit"] <= j["samples"] <= j["rays_hit"] and j["samples"] > 0, j
PY
then pass "slice: one sample a ray"; else bad "slice JSON: $J"; fi

printf '# test\n0 0 0 0 0\n128 1 0.5 0 0.1\n255 1 1 1 0.8\n' > "$T/t.tf"
if "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --tf "$T/t.tf" --size 32x32 -o "$T/c.png" >/dev/null; then
  pass "transfer-function file"; else bad "transfer-function file"; fi

# Compressive rendering: the JSON counts exactly the rays cast and reports the solve.
J=$("$BIN" "$DATA/headsq_64x64x93_uint16.nhdr" --size 128x96 --tf ct-skin --backend cpu --sample-fraction 0.25 \
    --adaptive --json -o "$T/cr.png")
if echo "$J" | grep -q '"rays": 3072,' && echo "$J" | grep -q '"reconstruction": "local", "adaptive": 1' &&
   echo "$J" | grep -Eq '"iterations": [1-9]'; then pass "compressive JSON"; else bad "compressive JSON: $J"; fi
J=$("$BIN" "$DATA/headsq_64x64x93_uint16.nhdr" --size 128x96 --backend cpu --reconstruction global --json -o "$T/cr.png")
if echo "$J" | grep -q '"rays": 12288,' && echo "$J" | grep -q '"reconstruction": "none"'; then
  pass "fraction 1 casts every ray"; else bad "fraction 1: $J"; fi

# Bad input: each must exit non-zero with a message naming the problem.
expect_fail() { # description, pattern, command...
  local what=$1 pattern=$2
  shift 2
  local err
  err=$("$@" 2>&1 >/dev/null)
  local rc=$?
  if [ $rc -ne 0 ] && echo "$err" | grep -q -- "$pattern"; then pass "$what ($err)"; else bad "$what: rc=$rc: $err"; fi
}
printf 'NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\ndata file: s.raw\n' > "$T/s.nhdr"
head -c 10 /dev/zero > "$T/s.raw"
expect_fail "missing file" "cannot open" "$BIN" "$T/none.nhdr" -o "$T/x.png"
expect_fail "truncated nrrd" "CAVR_ERROR_FILE_TRUNCATED" "$BIN" "$T/s.nhdr" -o "$T/x.png"
expect_fail "raw without dims" "needs --dims" "$BIN" "$T/s.raw" -o "$T/x.png"
expect_fail "raw wrong size" "truncated" "$BIN" "$T/s.raw" --dims 4,4,4 --type uint8 -o "$T/x.png"
expect_fail "2-D raw" "each must be in" "$BIN" "$T/s.raw" --dims 5,2,1 --type uint8 -o "$T/x.png"
expect_fail "unknown type" "--type expects" "$BIN" "$T/s.raw" --dims 5,2,1 --type complex -o "$T/x.png"
expect_fail "bad size" "--size" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --size 0x10
expect_fail "bad blend" "--blend" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --blend add
expect_fail "unknown preset" "presets:" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --tf nothing
expect_fail "bad tf file" "expected 'VALUE R G B A'" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --tf "$T/s.nhdr"
expect_fail "bad sample distance" "CAVR_ERROR_INVALID_ARGUMENT" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --sample-distance 0 -o "$T/x.png"
expect_fail "bad sample fraction" "--sample-fraction expects" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --sample-fraction 1.5
expect_fail "bad reconstruction" "--reconstruction expects" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --reconstruction fft
expect_fail "adaptive global" "adaptive sampling needs the local" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --size 8x8 --sample-fraction 0.5 --reconstruction global --adaptive -o "$T/x.png"
expect_fail "bad slice normal" "--slice-normal expects" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --blend slice --slice-normal 1,2
expect_fail "zero slice normal" "CAVR_ERROR_INVALID_ARGUMENT" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --blend slice --slice-normal 0,0,0 -o "$T/x.png"
expect_fail "unwritable output" "cannot write PNG" "$BIN" "$DATA/bucky_32x32x32_uint8.nhdr" --size 8x8 -o /nonexistent/x.png

echo "cli: $fails failure(s)"
[ $fails -eq 0 ]

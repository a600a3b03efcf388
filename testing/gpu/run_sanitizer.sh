#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_sanitizer.sh - one GPU test under NVIDIA's compute-sanitizer, as a ctest (testing/CMakeLists.txt).
#
#   run_sanitizer.sh SANITIZER TOOL [TOOL OPTIONS] -- TEST [TEST ARGUMENTS]
#
# SANITIZER: the compute-sanitizer executable found at configure time (empty or "...-NOTFOUND": look on PATH);
# TOOL: memcheck, racecheck, initcheck or synccheck. Exit codes: 77 (ctest SKIP) when compute-sanitizer is not
# installed, when nvidia-smi lists no GPU, or when the test itself skips (77: no usable GPU); 9 when the tool reports
# an error (--error-exitcode 9); otherwise the test's own exit code. The tool's summary line is printed last.
set -u
SAN=${1:-}
TOOL=${2:-}
shift 2 || { echo "usage: $0 SANITIZER TOOL [OPTIONS] -- TEST [ARGS]" >&2; exit 2; }
OPTS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do OPTS+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: run_sanitizer.sh SANITIZER TOOL [OPTIONS] -- TEST [ARGS]" >&2; exit 2; }
case "$SAN" in "" | *NOTFOUND) SAN=$(command -v compute-sanitizer || true) ;; esac
if [ -z "$SAN" ] || [ ! -x "$SAN" ]; then
  echo "SKIP: compute-sanitizer not found (CUDA toolkit's bin/)"
  exit 77
fi
if command -v nvidia-smi >/dev/null 2>&1 && ! nvidia-smi -L 2>/dev/null | grep -q "^GPU "; then
  echo "SKIP: nvidia-smi lists no GPU"
  exit 77
fi
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
"$SAN" --tool "$TOOL" "${OPTS[@]}" --error-exitcode 9 "$@" >"$LOG" 2>&1
rc=$?
cat "$LOG"
if [ $rc = 77 ]; then
  echo "SKIP: $(basename "$1") found no usable GPU"
  exit 77
fi
echo "$TOOL $(basename "$1"): rc=$rc $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|LEAK SUMMARY' "$LOG" | tr '\n' ' ')"
exit $rc

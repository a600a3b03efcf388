#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The tests: install what is needed, build, run every ctest (C unit tests, CLI tests, pvpython/pvbatch
# tests, GPU tests that SKIP without a GPU), then build the C tests again with AddressSanitizer and
# UndefinedBehaviorSanitizer and run them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh" >/dev/null
(cd "$ROOT/build" && ctest --output-on-failure -j2)
echo "== C tests under AddressSanitizer + UndefinedBehaviorSanitizer =="
CAVR_BUILD_DIR="$ROOT/build-asan" "$ROOT/scripts/build.sh" -DCMAKE_BUILD_TYPE=Debug -DCAVR_SANITIZE=ON \
  -DCAVR_ENABLE_CUDA=OFF -DCAVR_ENABLE_PARAVIEW=OFF -DCAVR_ENABLE_VTK=OFF >/dev/null
(cd "$ROOT/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$ROOT/testing/lsan.supp" \
  ctest --output-on-failure -j2 -L c)
echo "== cavr's mapper in a plain VTK program, against Debian's VTK 9.1 (scripts/test_plain_vtk.sh) =="
"$ROOT/scripts/test_plain_vtk.sh"
echo "== fuzzing: each libFuzzer harness for a bounded time (scripts/fuzz.sh; longer runs: docs/fuzzing.md) =="
"$ROOT/scripts/fuzz.sh"

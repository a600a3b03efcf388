#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure and build cavr (core, CLI, CUDA back end if nvcc is found, ParaView plugin) into build/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${CAVR_BUILD_DIR:-$ROOT/build}
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCAVR_REQUIRE_IO_LIBS=ON "$@" >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"

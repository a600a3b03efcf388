#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# device_check.sh - the GPU machine's check: build cavr for its GPU, run the GPU tests by ctest label, optionally the
# GPU benchmark; logs under $OUT. Run from the repository root on a machine with nvcc and cmake (no ParaView there).
#
#   bash testing/lab/device_check.sh [tests|bench|all]        (default: tests)
#
# tests: `ctest -L gpu` (every GPU test, each GPU image against the CPU back end's, and compute-sanitizer memcheck and
#        racecheck of test_gpu_render --quick and test_gpu_rotation: label sanitizer), then the C unit tests on the
#        host's CPU (AVX-512 there) but those that read NRRD or write PNG (no teem, no libpng on the GPU machines);
#        gpu_tests.log (verbose), c_tests.log.
# bench: cavr-bench on BENCH_RAW (BENCH_DIMS; default the CT shoulder, .devdata/ct_shoulder_512x512x450_uint8.raw[.gz],
#        carried) with BENCH_ARGS, then its plots (testing/bench/README.md); bench/ under $OUT.
# Environment: OUT (./device-out), BUILD (build-gpu), CUDA_ARCH (90: H100 and H200), JOBS (all cores),
# CAVR_TESTING_INTENSITY (2; 3 adds the soak and four MPI ranks), CTEST_ARGS (more ctest arguments, e.g. "-LE sanitizer").
# Exit status: 0 when every test passed or skipped, 1 otherwise. The one-off measurement modes of the dated benchmark
# log are in testing/lab/history/gpu_check_modes.sh.
set -uo pipefail
MODE=${1:-tests}
OUT=${OUT:-$PWD/device-out}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
T0=$(date +%s)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_PARAVIEW=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  -DCMAKE_CUDA_FLAGS=-lineinfo -DCAVR_TESTING_INTENSITY="${CAVR_TESTING_INTENSITY:-2}" >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build "$BUILD" -j"${JOBS:-$(nproc)}" >"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
echo "configured and built in $(($(date +%s) - T0)) s"
# Raw copies of the data/ volumes for the tests (CAVR_RAW_DIR: no NRRD reader here).
mkdir -p .devdata/raw
for f in data/*.raw.gz; do b=$(basename "$f" .gz); [ -f ".devdata/raw/$b" ] || gunzip -c "$f" >".devdata/raw/$b"; done
cp data/*.raw .devdata/raw/
export CAVR_RAW_DIR=$PWD/.devdata/raw
rc=0
if [ "$MODE" != bench ]; then
  (cd "$BUILD" && ctest -V -L gpu ${CTEST_ARGS:-}) >"$OUT/gpu_tests.log" 2>&1 || rc=1
  NEEDS_IO="test_components|test_io|test_empty_space|test_threads|test_pieces|test_api_header|test_crop|test_reconstruct|test_refine"
  (cd "$BUILD" && ctest --output-on-failure -L c -E "$NEEDS_IO|test_supersample|test_lights|cli.cavr_render") \
    >"$OUT/c_tests.log" 2>&1 || rc=1
  grep -E "Test +#|tests passed|SUMMARY: [0-9]|^[0-9]+: (memcheck|racecheck) |CHECK failed" "$OUT/gpu_tests.log" | cut -c1-200
  grep -E "tests passed|Failed|\*\*\*" "$OUT/c_tests.log"
fi
if [ "$MODE" != tests ]; then
  RAW=${BENCH_RAW:-.devdata/ct_shoulder_512x512x450_uint8.raw}
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" >"$RAW" || exit 1
  mkdir -p "$OUT/bench"
  "$BUILD"/testing/cavr-bench --raw "$RAW" --dims "${BENCH_DIMS:-512,512,450}" --out "$OUT/bench" ${BENCH_ARGS:-} 2>&1 |
    tee "$OUT/bench/bench.log" | tail -40
  python3 testing/bench/plot_bench.py "$OUT/bench/bench.csv" "$OUT/bench" || true
fi
gzip -f "$OUT/build.log"
echo "device_check $MODE: rc=$rc"
exit $rc

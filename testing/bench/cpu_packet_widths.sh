#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# cpu_packet_widths.sh - issue 13 item 1 on a CPU with AVX-512: the 8-lane (AVX2) and 16-lane (AVX-512) packet
# casters in one run. Builds the CPU back end only, runs test_cpu_packets (scalar vs 8 vs 16 lanes, bit for bit),
# then cavr-cpu-scaling at 1024^2, 1 thread and all cores, unshaded and shaded, on colin27 (uint8), inia19
# (float32) and headsq (uint16), with the width capped by CAVR_CPU_PACKET_LANES=8 or 16 (cpu_packet.c), the two
# widths interleaved over ROUNDS rounds (default 2; 8 first, then 16 first). GATHER=1 adds a second build with
# CAVR_PACKET512_GATHER (16 lanes, corner rows by hardware gathers: label 16g), tested and measured alike.
# Needs no teem (the volumes are read raw).
#   [ROUNDS=N] [GATHER=1] bash testing/bench/cpu_packet_widths.sh OUTDIR
#   (writes cpu.txt, test_cpu_packets.txt, widths.csv, bench.log)
set -u
OUT=${1:-out}
mkdir -p "$OUT"
{ grep -o 'avx512[a-z0-9_]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo; lscpu | head -20; } | tee "$OUT/cpu.txt"
grep -q avx512f /proc/cpuinfo || { echo "no AVX-512 on this CPU: nothing to compare"; exit 0; }
build() { # DIR C_FLAGS
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_CUDA=OFF -DCAVR_ENABLE_PARAVIEW=OFF \
    -DCAVR_ENABLE_VTK=OFF -DCMAKE_C_FLAGS="$2" >>"$OUT/build.log" 2>&1 &&
    cmake --build "$1" -j"$(nproc)" --target test_cpu_packets cavr-cpu-scaling >>"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
}
build build-cpu ""
[ "${GATHER:-0}" = 1 ] && build build-gather -DCAVR_PACKET512_GATHER
rm -f "$OUT/build.log"
R=$PWD/.devdata/raw
mkdir -p "$R"
for f in data/*.raw.gz; do b=$(basename "$f" .gz); [ -f "$R/$b" ] || gunzip -c "$f" >"$R/$b"; done
cp data/bucky_32x32x32_uint8.raw "$R/"
export CAVR_RAW_DIR=$R
for b in build-cpu build-gather; do
  [ -x $b/testing/test_cpu_packets ] || continue
  $b/testing/test_cpu_packets >"$OUT/test_cpu_packets.txt.$b" 2>&1
  echo "$b test_cpu_packets exit $?" >>"$OUT/test_cpu_packets.txt.$b"
  tail -4 "$OUT/test_cpu_packets.txt.$b"
done
cat "$OUT"/test_cpu_packets.txt.* >"$OUT/test_cpu_packets.txt" && rm -f "$OUT"/test_cpu_packets.txt.*
T=$(nproc)
bench() { # NAME LANES SHADE ARGS...
  local name=$1 lanes=$2 shade=$3 bin=build-cpu
  shift 3
  [ "$lanes" = 16g ] && bin=build-gather
  CAVR_CPU_PACKET_LANES=${lanes%g} $bin/testing/cavr-cpu-scaling "$@" --threads "1,$T" --sizes '' --scales '' \
    --size 1024 --repeat 5 --shade "$shade" --name "${name}_s${shade}_l${lanes}" --csv "$OUT/widths.csv" | grep -v '^#\|^volume'
}
G=""
[ "${GATHER:-0}" = 1 ] && G=16g
for round in $(seq "${ROUNDS:-2}"); do
  order="8 16 $G"
  [ "$round" = 2 ] && order="$G 16 8"
  for shade in 0 1; do
    for lanes in $order; do
      bench colin27 "$lanes" "$shade" --volume "$R/colin27_ch2better_301x370x316_uint8.raw" --dims 301,370,316 \
        --type uint8 --spacing 0.5,0.5,0.5 --tf mri
      bench inia19 "$lanes" "$shade" --volume "$R/inia19_t1brain_168x206x128_float32.raw" --dims 168,206,128 \
        --type float32 --spacing 0.5,0.5,0.5 --tf mri
      bench headsq "$lanes" "$shade" --volume "$R/headsq_64x64x93_uint16.raw" --dims 64,64,93 --type uint16 \
        --spacing 3.2,3.2,1.5 --tf ct-bone
    done
  done
done 2>&1 | tee "$OUT/bench.log"

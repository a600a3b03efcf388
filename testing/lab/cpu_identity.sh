#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cpu_identity.sh - render a fixed matrix of CPU images with one cavr-render binary and list their md5 sums, so that
# two builds (before and after a change that must not change a pixel) can be compared byte for byte.
#
#   testing/lab/cpu_identity.sh BIN OUTDIR [DATA]
#
# BIN: a cavr-render binary; OUTDIR: created, receives one PNG per case and md5.txt ("md5  case.png", sorted);
# DATA: the data folder (default: the repository's data/). Compare two runs with: diff A/md5.txt B/md5.txt.
# The matrix: the 4 volumes of data/ (uint8, uint16, float32; bucky raw and NRRD) x every blend mode (composite,
# mip, minip, average, iso, slice) x shaded or not x nearest / linear / cubic, on the CPU back end; composite also
# at every packet width (CAVR_CPU_PACKET_LANES 0: the scalar caster, 8: AVX2, 16: AVX-512 where the CPU has it,
# else the widest it has), plus perspective, cropped-free oblique views and sparse (compressive, refine) frames, which
# take the packets' prefetching path. Takes a few minutes on 2 cores.
set -u
BIN=$1
OUT=$2
DATA=${3:-$(cd "$(dirname "$0")/../../data" && pwd)}
mkdir -p "$OUT"
fails=0

render() { # name, lanes, args...
  local name=$1 lanes=$2
  shift 2
  if ! CAVR_CPU_PACKET_LANES=$lanes "$BIN" "$@" --backend cpu -o "$OUT/$name.png" >/dev/null 2>"$OUT/$name.err"; then
    echo "FAIL: $name" >&2
    fails=$((fails + 1))
  else
    rm -f "$OUT/$name.err"
  fi
}

VOLS=(bucky headsq inia19 colin27)
vol_args() {
  case $1 in
  bucky) echo "$DATA/bucky_32x32x32_uint8.raw --dims 32,32,32 --type uint8 --spacing 1,1,1.5 --size 64x48" ;;
  headsq) echo "$DATA/headsq_64x64x93_uint16.nhdr --tf ct-skin --size 80x64 --rotate-x -90 --rotate-y 25" ;;
  inia19) echo "$DATA/inia19_t1brain_168x206x128_float32.nhdr --tf mri --size 72x72 --rotate-y 40 --rotate-x 15" ;;
  colin27) echo "$DATA/colin27_ch2better_301x370x316_uint8.nhdr --size 64x64 --rotate-x -60 --rotate-z 30" ;;
  esac
}

for v in "${VOLS[@]}"; do
  # shellcheck disable=SC2207
  A=($(vol_args "$v"))
  for interp in nearest linear cubic; do
    for shade in 0 1; do
      S=()
      [ "$shade" = 1 ] && S=(--shade)
      for lanes in 0 8 16; do
        render "${v}_composite_${interp}_s${shade}_l${lanes}" "$lanes" "${A[@]}" --blend composite --interpolation $interp "${S[@]}"
      done
      for blend in mip minip average iso slice; do
        extra=()
        [ "$blend" = slice ] && extra=(--slice-normal 0.2,0.1,1)
        render "${v}_${blend}_${interp}_s${shade}" 8 "${A[@]}" --blend $blend --interpolation $interp "${S[@]}" "${extra[@]}"
      done
    done
  done
  # Perspective, a finer step, and sparse frames (the packets' prefetching path; REFINE's depth hints).
  for lanes in 0 8; do
    render "${v}_persp_l${lanes}" $lanes "${A[@]}" --projection perspective --shade --sample-distance 0.5
    render "${v}_sparse_l${lanes}" $lanes "${A[@]}" --sample-fraction 0.25 --shade
    render "${v}_refine_l${lanes}" $lanes "${A[@]}" --sample-fraction 0.3 --reconstruction refine
  done
  render "${v}_iso_multi" 8 "${A[@]}" --blend iso --iso 40,90,150 --shade --projection perspective
done

(cd "$OUT" && md5sum -- *.png | sort -k2 > md5.txt)
echo "$(wc -l < "$OUT/md5.txt") images, $fails failures; md5 list in $OUT/md5.txt"
[ "$fails" = 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A/B of two cavr-render binaries in one run (same machine, same data, alternating rounds): frame time (the render
# call, median of --repeat frames; the minimum over rounds is kept) and whether the images are byte-identical.
# Used to check that a refactoring keeps speed (within 3%) and pictures on the CPU and the GPU.
#
#   testing/lab/ab_render.sh BASE_BIN NEW_BIN OUTDIR [cuda|cpu] [ROUNDS] [REPEAT]
#
# Volumes: the data/ volumes (raw copies are made under .devdata/raw). Writes OUTDIR/ab_<backend>.csv (one row per
# case: base_ms, new_ms, new/base, identical) and prints a table with the geometric mean of new/base.
# AB_VOLUMES="colin27 inia19": those volumes only (default all three).
# AB_IMAGES=0: timings only (-o none; for builds without libpng, as on the GPU machines), identical reads -1.
set -uo pipefail
BASE=$1 NEW=$2 OUTDIR=$3 BACKEND=${4:-cuda} ROUNDS=${5:-3} REPEAT=${6:-21}
mkdir -p "$OUTDIR/img" .devdata/raw
for f in data/*.raw.gz; do b=$(basename "$f" .gz); [ -f ".devdata/raw/$b" ] || gunzip -c "$f" > ".devdata/raw/$b"; done
R=.devdata/raw
VOLS=(
  "colin27|$R/colin27_ch2better_301x370x316_uint8.raw --dims 301,370,316 --type uint8 --spacing 0.5,0.5,0.5 --tf mri"
  "headsq|$R/headsq_64x64x93_uint16.raw --dims 64,64,93 --type uint16 --spacing 3.2,3.2,1.5 --tf ct-skin"
  "inia19|$R/inia19_t1brain_168x206x128_float32.raw --dims 168,206,128 --type float32 --spacing 0.5,0.5,0.5 --tf mri"
)
MODES=(
  "composite|"
  "shaded|--shade"
  "cubic|--interpolation cubic --shade"
  "nearest|--interpolation nearest"
  "mip|--blend mip"
  "minip|--blend minip"
  "average|--blend average"
  "iso|--blend iso --shade"
  "slice|--blend slice --slice-normal 0.3,0.2,1"
)
VIEWS=("y0|--rotate-y 0" "y35|--rotate-y 35" "y90|--rotate-y 90" "x60y20|--rotate-x 60 --rotate-y 20")
[ "$BACKEND" = cpu ] && VIEWS=("y35|--rotate-y 35" "x60y20|--rotate-x 60 --rotate-y 20")
CSV="$OUTDIR/ab_$BACKEND.csv"
echo "volume,mode,view,base_ms,new_ms,ratio,identical" > "$CSV"
ms() { sed -n 's/.*"ms_median": \([0-9.]*\).*/\1/p'; }
for v in "${VOLS[@]}"; do
  vn=${v%%|*}; va=${v#*|}
  [ -n "${AB_VOLUMES:-}" ] && [[ " $AB_VOLUMES " != *" $vn "* ]] && continue
  for m in "${MODES[@]}"; do
    mn=${m%%|*}; ma=${m#*|}
    for w in "${VIEWS[@]}"; do
      wn=${w%%|*}; wa=${w#*|}
      best_b=1e9 best_n=1e9
      for r in $(seq "$ROUNDS"); do
        for which in b n; do
          bin=$BASE; [ $which = n ] && bin=$NEW
          img="$OUTDIR/img/${vn}_${mn}_${wn}_$which.png"; [ "${AB_IMAGES:-1}" = 0 ] && img=none
          t=$($bin $va $ma $wa --backend "$BACKEND" --size 1024x1024 --repeat "$REPEAT" --json \
              -o "$img" 2>>"$OUTDIR/ab_errors.log" | ms)
          [ -z "$t" ] && t=1e9
          if [ $which = b ]; then best_b=$(python3 -c "print(min($best_b,$t))"); else best_n=$(python3 -c "print(min($best_n,$t))"); fi
        done
      done
      same=0; [ "${AB_IMAGES:-1}" = 0 ] && same=-1
      [ $same = 0 ] && cmp -s "$OUTDIR/img/${vn}_${mn}_${wn}_b.png" "$OUTDIR/img/${vn}_${mn}_${wn}_n.png" && same=1
      ratio=$(python3 -c "print('%.4f' % ($best_n/$best_b))")
      echo "$vn,$mn,$wn,$best_b,$best_n,$ratio,$same" >> "$CSV"
      [ $same = 1 ] && rm -f "$OUTDIR/img/${vn}_${mn}_${wn}_"[bn].png
    done
  done
done
python3 - "$CSV" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%-8s %-10s %-7s %9s %9s %7s %s" % ("volume", "mode", "view", "base ms", "new ms", "new/old", "identical"))
for r in rows:
    print("%-8s %-10s %-7s %9.3f %9.3f %7.3f %s" % (r["volume"], r["mode"], r["view"], float(r["base_ms"]),
          float(r["new_ms"]), float(r["ratio"]), {"1": "yes", "-1": "-"}.get(r["identical"], "NO")))
ok = [float(r["ratio"]) for r in rows if float(r["base_ms"]) < 1e8 and float(r["new_ms"]) < 1e8]
if ok:
    g = math.exp(sum(map(math.log, ok)) / len(ok))
    print("cases %d, geometric mean new/old %.4f, min %.3f, max %.3f, identical %d/%d" % (len(ok), g, min(ok), max(ok),
          sum(r["identical"] == "1" for r in rows), len(rows)))
EOF

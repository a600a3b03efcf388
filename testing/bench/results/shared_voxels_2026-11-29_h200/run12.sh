#!/usr/bin/env bash
# 1 rank, ct_2048: resident memory every 0.25 s, the plugin of main before (4112399) and now
set -u
source <(sed -n '/^pv_env() {/,/^}/p' testing/lab/paraview-gpu/device.sh)
ROOT=$PWD PV=/opt/pv; pv_env
O=$OUT; export CAVR_TUNE=0
mkdir -p /tmp/oldplug && xz -dc .devdata/oldplug/cavr.so.xz > /tmp/oldplug/cavr.so
for which in old new; do
  plug=$CAVR_PLUGIN; [ $which = old ] && plug=/tmp/oldplug/cavr.so
  timeout 200 pvbatch --force-offscreen-rendering --verbosity=INFO testing/bench/bench_pv_mpi.py --plugin $plug --volume /dev/shm/cavr/ct_2048.nhdr --out $O/$which --views 4 --blend Composite > $O/$which.log 2>&1 &
  sleep 0.5
  while pgrep -x pvbatch > /dev/null; do ps -C pvbatch -o rss= | head -1; sleep 0.25; done > $O/$which.rss
  wait
  echo "$which: $(awk '{n++; v=$1/1048576; if (v-p > 0.4 || p-v > 0.4) {printf "%.1fs:%.1f ", n*0.25, v; p=v}}' $O/$which.rss)"
  grep -E "first|peak" $O/$which.log
done

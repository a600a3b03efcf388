#!/usr/bin/env bash
# 1 rank, ct_2048, the new plugin: every 0.5 s the rank's anon/file/shmem resident memory and its busiest threads
set -u
source <(sed -n '/^pv_env() {/,/^}/p' testing/lab/paraview-gpu/device.sh)
ROOT=$PWD PV=/opt/pv; pv_env
O=$OUT
timeout 200 pvbatch --force-offscreen-rendering --verbosity=INFO testing/bench/bench_pv_mpi.py --volume /dev/shm/cavr/ct_2048.nhdr --out $O/d --views 4 --blend Composite > $O/d.log 2>&1 &
sleep 1
P=$(pgrep -x pvbatch | head -1)
declare -A last
i=0
while kill -0 $P 2>/dev/null; do
  i=$((i+1))
  m=$(awk '/RssAnon|RssFile|RssShmem/ {printf "%s%.1f ", substr($1,4,4), $2/1048576}' /proc/$P/status 2>/dev/null)
  busy=""
  for t in /proc/$P/task/*; do
    id=${t##*/}; read -r _ c _ < <(awk '{print $1, $14+$15, $2}' $t/stat 2>/dev/null) || continue
    d=$(( c - ${last[$id]:-$c} )); last[$id]=$c
    [ $d -gt 20 ] && busy="$busy $(cat $t/comm 2>/dev/null):$d"
  done
  echo "$((i/2)).$((i%2*5))s $m|$busy"
  sleep 0.5
done > $O/trace.txt
wait
awk '{print}' $O/trace.txt | awk -F'|' '{ if ($2 != "" || $1 != p) print; p=$1 }' | tail -70
grep -E "first|peak" $O/d.log

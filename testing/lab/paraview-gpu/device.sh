#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ParaView on the GPU machine (lab, not product): run from the checkout's root there, one call after another,
#   bash testing/lab/paraview-gpu/device.sh STEP [STEP ...]
# Every call first unpacks the parts carried so far (.pvgpu/*, made by pack.sh here; each part once per machine)
# and sets up ParaView's environment (Debian 12's ParaView 5.11 in /opt/pv, Xvfb :5 with NVIDIA's GLX), then runs
# the STEPs in order. What they write goes to $OUT (the device call's output folder; /tmp/pvgpu-out elsewhere) as
# one results.tgz of logs, CSVs and pictures.
#   stage    nothing more (the parts' calls)
#   info     GPUs, GL_RENDERER through GLX, ParaView's version, the plugin's libraries resolved
#   tests    every pvpython test with Back End = CUDA (CAVR_PV_BACKEND=CUDA: a frame on the CPU fails), the
#            representation test with Back End Auto expecting CUDA, and the MPI/client-server tests on CUDA
#   gui      the ParaView GUI under the same X server: cavr Volume on CUDA, a screenshot of the whole window
#   volumes  the CT at 1024^3 and 2048^3 (VOLUME_CUBES) and a 20-step 512^3 series (make_volumes.py; VOLUME_SERIES=0:
#            none) in /dev/shm/cavr
#   bench    cavr Volume vs ParaView's Volume (GPU Based) in one pvpython: Colin27, the CT, CT 1024^3, CT 2048^3,
#            still and interactive orbits (testing/bench/bench_pv_gpu.py)
#   split    where a frame's time goes (frame_split.py: VTK's timer log per frame, Colin27 and the CT at 1024^3)
#   trace    ParaView's scopes over 0.1 s around the first frame (pvbatch --verbosity=TRACE, 1 rank, MPI_VOLUME)
#   split_mpi the same under pvbatch with each of SPLIT_RANKS ("2") ranks, cavr Volume only (IceT's part in rank 0's
#            log); MPI_VOLUME picks the volume (default the CT at 1024^3)
#   series   the 20-step 512^3 time series played in both representations, from files and from memory
#   mpi      pvbatch with 1, 2 (and 4 when the machine has them) ranks on the CT at 2048^3: one GPU per rank
#            (asserted from the ranks' log lines), composite and maximum intensity against one rank >= 45 dB, frames
#   pvserver the same through pvserver with 1, 2 (and 4) ranks and a pvpython client (bench_pv_mpi.py --server)
#   big      a volume of MPI_BIG_FACTOR (default 1.3) x one GPU's memory on 2 GPUs (and 4: MPI_BIG_RANKS), made in
#            /dev/shm when it and the ranks' host memory fit, else on disk (BIG_DIR, default /tmp/cavr); BIG_TYPE
#            uint8 (default) or uint16; BIG_SOURCE=tile: no file, each rank makes its piece (the CT repeated)
# CAVR_MPI_GHOSTS (generator, none) reaches every rank of mpi, split_mpi, pvserver and big: see docs/user-guide.md.
# PVGPU_SUITE=sid: Debian sid's ParaView 6.1.1 instead (pack_sid.sh's parts .pvgpu/sid*): its root is unpacked into
# /opt/pv61 once every piece has come, and its programs (pvpython, pvbatch, pvserver, mpiexec, Xvfb, glxinfo, ldd,
# paraview) run in a chroot there through wrappers in /opt/pv61-bin, with /dev, /proc, /sys, /tmp and the checkout
# mounted at the same paths and the machine's NVIDIA driver libraries copied in (sid's glibc is newer than the
# machine's). Steps work as for 5.11.
set -uo pipefail
ROOT=$(pwd)
LAB=$ROOT/testing/lab/paraview-gpu
SUITE=${PVGPU_SUITE:-bookworm}
PV=/opt/pv
[ "$SUITE" = sid ] && PV=/opt/pv61
# Volumes in memory when /dev/shm can hold them (>= 40 GiB free), else on disk.
W=/dev/shm/cavr
[ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -1)" -ge $((40 << 20)) ] 2>/dev/null || W=/tmp/cavr
O=/tmp/pvgpu-out
mkdir -p "$W" "$O"
RESULT=${OUT:-/tmp/pvgpu-result}
mkdir -p "$RESULT"
log() { echo "[$(date +%T)] $*"; }

unpack() {
  local d name
  for d in "$ROOT"/.pvgpu/*/; do
    [ -d "$d" ] || continue
    name=$(basename "$d")
    [ -e "/tmp/pvgpu-done-$name" ] && continue
    case $name in
    sid[0-9]*) # a piece of the sid root: kept until every piece is here (sidplugin says how many)
      mkdir -p /opt/pv61-pieces && cp "$d"/root.tar.xz.* /opt/pv61-pieces/ ;;
    sidplugin)
      xz -dc -T8 "$d/build61.tar.xz" | tar xf - -C "$ROOT"
      mkdir -p /opt/pv61-pieces && cp "$d/dirs.txt" "$d/pieces" /opt/pv61-pieces/ ;;
    glx*) # X server, Mesa, GL loaders into /: Ubuntu's /lib is a link to usr/lib, so unpack apart and copy with links kept
      rm -rf /tmp/x && mkdir -p /tmp/x
      for f in "$d"/*.deb; do dpkg -x "$f" /tmp/x; done
      (cd /tmp/x && tar cf - .) | tar xf - -C / --keep-directory-symlink
      ldconfig ;;
    *)    # ParaView's closure and the extras, into /opt/pv; the build into the checkout; data into /dev/shm/cavr
      mkdir -p "$PV"
      for f in "$d"/*.deb; do [ -e "$f" ] && dpkg -x "$f" "$PV"; done
      for f in "$d"/*.tar.xz; do
        [ -e "$f" ] || continue
        case $(basename "$f") in
        build*) xz -dc -T8 "$f" | tar xf - -C "$ROOT" ;;
        data*) xz -dc -T8 "$f" | tar xf - -C "$W" ;;
        *) xz -dc -T8 "$f" | tar xf - -C "$PV" ;;
        esac
      done ;;
    esac
    touch "/tmp/pvgpu-done-$name"
    log "unpacked $name"
  done
  local have
  have=$(ls /opt/pv61-pieces/root.tar.xz.* 2>/dev/null | wc -l)
  if [ -e /opt/pv61-pieces/pieces ] && [ ! -e /opt/pv61/.unpacked ] && [ "$have" -eq "$(cat /opt/pv61-pieces/pieces)" ]; then
    mkdir -p /opt/pv61 && (cd /opt/pv61 && xargs -a /opt/pv61-pieces/dirs.txt mkdir -p)
    cat /opt/pv61-pieces/root.tar.xz.* | xz -dc -T8 | tar xf - -C /opt/pv61 && touch /opt/pv61/.unpacked
    rm -rf /opt/pv61-pieces/root.tar.xz.*
    log "unpacked the sid root ($(du -sh /opt/pv61 | cut -f1))"
  elif [ -e /opt/pv61-pieces/pieces ] && [ ! -e /opt/pv61/.unpacked ]; then
    log "sid root: $have of $(cat /opt/pv61-pieces/pieces) pieces here"
  fi
}

# The sid root as a chroot: mounts, the NVIDIA driver's libraries (CUDA, GLX; found through the machine's ldconfig)
# copied in, and one wrapper a program that runs it there in the caller's folder with the caller's environment.
sid_chroot() {
  local R=$PV t
  [ -e $R/.unpacked ] || { echo "FAIL: the sid root is not unpacked (pieces missing)"; exit 1; }
  if ! mountpoint -q $R/proc; then
    mkdir -p $R/proc $R/sys $R/dev $R/tmp $R/opt/nvidia-host "$R$ROOT"
    mount -t proc proc $R/proc && mount --rbind /sys $R/sys && mount --rbind /dev $R/dev &&
      mount --bind /tmp $R/tmp && mount --bind "$ROOT" "$R$ROOT" || { echo "FAIL: mounts for the sid chroot"; exit 1; }
    ldconfig -p | awk '/^\t*(libcuda\.so|libnvidia-|libGLX_nvidia|libEGL_nvidia)/ { print $NF }' |
      awk -F/ '!seen[$NF]++' | xargs -r cp -L -t $R/opt/nvidia-host/ # one file a name (the driver's folder and /lib)
  fi
  mkdir -p /opt/pv61-bin
  for t in pvpython pvbatch pvserver mpiexec Xvfb glxinfo ldd paraview; do
    printf '#!/bin/sh\nexec chroot %s /usr/bin/env -C "$PWD" PATH=/usr/bin:/bin %s "$@"\n' "$R" "/usr/bin/$t" >/opt/pv61-bin/$t
    chmod +x /opt/pv61-bin/$t
  done
}

pv_env() {
  if [ "$SUITE" = sid ]; then
    sid_chroot
    # Inside the chroot: sid's own Python and Open MPI; the driver's libraries on the library path.
    export LD_LIBRARY_PATH=/opt/nvidia-host PYTHONHOME=/usr PYTHONPATH='' PATH=/opt/pv61-bin:$PATH
    unset QT_PLUGIN_PATH OPAL_PREFIX
  else
  export LD_LIBRARY_PATH=$PV/usr/lib:$PV/lib:$PV/usr/lib/x86_64-linux-gnu:$PV/lib/x86_64-linux-gnu:$PV/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PYTHONHOME=$PV/usr PYTHONPATH=$PV/usr/lib/python3/dist-packages OPAL_PREFIX=$PV/usr PATH=$PV/usr/bin:$PATH
  export QT_PLUGIN_PATH=$PV/usr/lib/x86_64-linux-gnu/qt5/plugins
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  # Debian's VTK runs its SMP tools sequentially by default (its STDThread back end is built in): ParaView's data
  # information (array ranges after every update) then costs ~490 s for 2048^3 at -O0. PV_SMP=Sequential keeps the default.
  export VTK_SMP_BACKEND_IN_USE=${PV_SMP:-STDThread}
  pgrep -f "Xvfb :5" >/dev/null || { (Xvfb :5 -screen 0 1280x1280x24 +extension GLX -noreset >/tmp/xvfb5.log 2>&1 &); sleep 3; }
  export DISPLAY=:5 __GLX_VENDOR_LIBRARY_NAME=nvidia
  local build=$ROOT/build
  [ "$SUITE" = sid ] && build=$ROOT/build61
  CAVR_PLUGIN=$(find "$build" -name cavr.so -path "*paraview-plugins*" | head -n 1)
  export CAVR_PLUGIN
  export CAVR_DATA_DIR=$ROOT/data
}

# Python for the volumes: the machine's own (numpy, torch), not ParaView's.
SYS_PY=$(command -v python3)
sys_python() { env -u PYTHONHOME -u PYTHONPATH -u LD_LIBRARY_PATH "$SYS_PY" "$@"; }
step_stage() { :; }
ngpus() { nvidia-smi -L 2>/dev/null | grep -c "^GPU"; }

step_info() {
  nvidia-smi -L
  # 5.11: the machine's GL loaders (the carried glx parts) without ParaView's library path; sid: the chroot's, with
  # the driver's libraries on the path.
  if [ "$SUITE" = sid ]; then glxinfo -B; else env -u LD_LIBRARY_PATH glxinfo -B; fi 2>&1 | grep -E "direct rendering|renderer string|core profile version" || true
  pvpython --version 2>&1 | tail -1
  echo "plugin: $CAVR_PLUGIN"
  ldd "$CAVR_PLUGIN" | grep -E "not found|cavr|cuda" || true
  command -v mpiexec && mpiexec --version 2>&1 | head -1
}

# The pvpython tests as ctest runs them (testing/pvpython/CMakeLists.txt: PASS in the output, no "FAIL:"), on CUDA,
# TESTS_JOBS at a time (default 4), each on its own X server (ParaView's -O0 reference renders are CPU-bound).
step_tests() {
  local out=$O/tests t i=0 jobs=${TESTS_JOBS:-4}
  mkdir -p "$out"
  export CAVR_TEST_OUT=$out PYTHONPATH=$ROOT/testing/pvpython:$PYTHONPATH
  for i in $(seq 0 $((jobs - 1))); do
    pgrep -f "Xvfb :$((10 + i)) " >/dev/null ||
      (Xvfb :$((10 + i)) -screen 0 1280x1280x24 +extension GLX -noreset >/tmp/xvfb$((10 + i)).log 2>&1 &)
  done
  sleep 2
  local list
  list=$(sed -n '/^foreach(t /,/)$/p' "$ROOT/testing/pvpython/CMakeLists.txt" | tr -s ' \n()' ' ' |
    sed 's/foreach t //; s/ *$//')
  one() { # NAME DISPLAY ENV...: one test; prints PASS/FAIL NAME
    local name=$1 disp=$2 t0=$SECONDS rc; shift 2
    mkdir -p "$out/$name"
    case $name in
    test_mpi* | test_client_server)
      env DISPLAY=$disp CAVR_TEST_OUT=$out/$name "$@" timeout 900 bash "$ROOT/testing/pvpython/$name.sh" \
        >"$out/$name.log" 2>&1
      rc=$? ;;
    *)
      env DISPLAY=$disp CAVR_TEST_OUT=$out/$name "$@" timeout 600 pvpython --force-offscreen-rendering \
        "$ROOT/testing/pvpython/${name%%@*}.py" >"$out/$name.log" 2>&1
      rc=0; grep -q "PASS" "$out/$name.log" || rc=1 ;;
    esac
    grep -q "FAIL:" "$out/$name.log" && rc=1
    if [ $rc -eq 0 ]; then
      echo "PASS $name ($((SECONDS - t0)) s) $(grep -m1 -o 'back end in use: .*' "$out/$name.log")"
    else
      echo "FAIL $name ($((SECONDS - t0)) s)"; grep -v "^ *[0-9]* *0x" "$out/$name.log" | tail -12
    fi
  }
  i=0
  for t in ${TESTS_ONLY:-$list test_representation@auto test_mpi test_mpi_seams test_mpi_sources test_client_server}; do
    local envs=(CAVR_PV_BACKEND=CUDA)
    [ "$t" = test_representation@auto ] && envs=(CAVR_PV_EXPECT_BACKEND=CUDA)
    one "$t" ":$((10 + i % jobs))" "${envs[@]}" >"$out/$t.result" &
    i=$((i + 1))
    [ $((i % jobs)) -eq 0 ] && wait
  done
  wait
  cat "$out"/*.result
  for t in test_mpi test_mpi_seams test_client_server; do
    grep -hE "PSNR|dB" "$out/$t.log" | sort | uniq -c | head -8
  done
  grep -hoE "cavr Volume: rendering on [^(]*\([^,]*, [^,]*(, GPU [0-9]+ of [0-9]+)?" "$out"/*.log "$out"/*/*.log 2>/dev/null |
    sort | uniq -c
  ! grep -q "^FAIL" "$out"/*.result
}

step_gui() { # the GUI stays open after its script: photograph the X screen after a while, then end it
  local out=$O/gui
  mkdir -p "$out"
  ldd "$PV/usr/bin/paraview" | grep "not found" || true
  rm -f "$out/gui_script.log"
  # Qt finds the carried fonts (fonts-dejavu-core in /opt/pv) through a fontconfig file of our own.
  local fonts=$PV/usr/share/fonts
  [ "$SUITE" = sid ] && fonts=/usr/share/fonts # the chroot's own path
  mkdir -p /tmp/fc && printf '<?xml version="1.0"?>\n<fontconfig><dir>%s</dir><cachedir>/tmp/fc</cachedir></fontconfig>\n' "$fonts" >/tmp/fc/fonts.conf
  FONTCONFIG_FILE=/tmp/fc/fonts.conf CAVR_GUI_LOG=$out/gui_script.log PV_PLUGIN_PATH=$(dirname "$CAVR_PLUGIN") \
    timeout 120 paraview --dr --script="$LAB/gui_shot.py" >"$out/gui.log" 2>&1 &
  local pid=$! i
  for i in $(seq 90); do [ -s "$out/gui_script.log" ] && break; sleep 1; done
  sleep 10
  sys_python -c "from PIL import ImageGrab; ImageGrab.grab(xdisplay=':5').save('$out/paraview_gui_cavr_cuda.png')"
  kill $pid 2>/dev/null; sleep 1; pkill -x paraview 2>/dev/null
  cat "$out/gui_script.log" 2>/dev/null || { tail -20 "$out/gui.log"; return 1; }
}

step_volumes() {
  local ct=$W/ct_shoulder_512x512x450_uint8.nhdr
  local n
  for n in ${VOLUME_CUBES:-1024 2048}; do
    [ -e "$W/ct_$n.nhdr" ] || sys_python "$LAB/make_volumes.py" "$ct" "$W" cube "$n"
  done
  [ "${VOLUME_SERIES:-1}" = 0 ] || [ -e "$W/series/step_19.vtk" ] ||
    sys_python "$LAB/make_volumes.py" "$ct" "$W" series 512 20
  df -h /dev/shm | tail -1
}

# BENCH_VOLUMES (names in $W, or paths) picks the volumes; each set writes its own CSV and log (BENCH_TAG).
step_bench() {
  local out=$O/bench v vols=()
  mkdir -p "$out"
  for v in ${BENCH_VOLUMES:-$ROOT/data/colin27_ch2better_301x370x316_uint8.nhdr ct_shoulder_512x512x450_uint8.nhdr ct_1024.nhdr ct_2048.nhdr}; do
    case $v in /*) vols+=(--volume "$v") ;; *) vols+=(--volume "$W/$v") ;; esac
  done
  local tag=${BENCH_TAG:-}
  timeout ${BENCH_TIMEOUT:-560} pvpython --force-offscreen-rendering "$ROOT/testing/bench/bench_pv_gpu.py" --views 24 --interactive \
    "${vols[@]}" ${BENCH_ARGS:-} \
    --csv "$out/bench_pv_gpu$tag.csv" --png "$out/view0" 2>&1 | tee "$out/bench$tag.log" | grep -v "^ *[0-9]* *0x" | grep -v "INFO|"
}

step_split() {
  local out=$O/bench
  mkdir -p "$out"
  timeout ${SPLIT_TIMEOUT:-300} pvpython --force-offscreen-rendering "$LAB/frame_split.py" --views 12 \
    --volume "$ROOT/data/colin27_ch2better_301x370x316_uint8.nhdr" --volume "$W/ct_1024.nhdr" \
    --csv "$out/frame_split.csv" 2>&1 | tee "$out/frame_split.log" | grep -v "^ *[0-9]* *0x" | grep -v "INFO|"
}

# The same split under pvbatch with SPLIT_RANKS (default 2) ranks, cavr Volume only: rank 0's timer log with IceT's.
step_split_mpi() {
  local out=$O/bench n status=0
  mkdir -p "$out"
  for n in ${SPLIT_RANKS:-2}; do
    log "== split, $n rank(s), $(basename "${MPI_VOLUME:-$W/ct_1024.nhdr}") ${CAVR_MPI_GHOSTS:+(CAVR_MPI_GHOSTS=$CAVR_MPI_GHOSTS)}"
    watch_host "$out/frame_split_r$n.host"
    local hmon=$! t0=$SECONDS
    mpiexec_args "$n"
    timeout ${SPLIT_TIMEOUT:-300} "${MPIEXEC[@]}" pvbatch --mpi --force-offscreen-rendering --verbosity=INFO \
      "$LAB/frame_split.py" --views 12 --cavr-only --volume "${MPI_VOLUME:-$W/ct_1024.nhdr}" \
      --csv "$out/frame_split_r$n.csv" >"$out/frame_split_r$n.log" 2>&1 || status=1
    kill $hmon 2>/dev/null
    grep -v "^ *[0-9]* *0x" "$out/frame_split_r$n.log" | grep -v "INFO|"
    rank_gpus "$n" "$out/frame_split_r$n.log" || status=1
    host_report "$out/frame_split_r$n.host"
    log "$n rank(s): $((SECONDS - t0)) s"
  done
  return $status
}

step_series() {
  local out=$O/bench
  mkdir -p "$out"
  timeout ${SERIES_TIMEOUT:-500} pvpython --force-offscreen-rendering "$ROOT/testing/bench/bench_pv_gpu.py" \
    ${SERIES_ARGS:---series "$W/series" --memory-series "$W/ct_shoulder_512x512x450_uint8.nhdr"} --steps 20 --series-size 512 --profile \
    --csv "$out/bench_pv_series.csv" 2>&1 | tee "$out/series.log" | grep -v "^ *[0-9]* *0x" | grep -v "INFO|"
}

# mpiexec_args N: the mpiexec command line (into the array MPIEXEC) that starts N ranks with the environment cavr's
# ParaView runs need (every rank free to use every core: Open MPI binds 1- and 2-rank jobs to one core otherwise).
mpiexec_args() {
  MPIEXEC=(mpiexec --oversubscribe --bind-to none -np "$1" -x DISPLAY -x __GLX_VENDOR_LIBRARY_NAME -x LD_LIBRARY_PATH
    -x PYTHONHOME -x PYTHONPATH -x CAVR_PLUGIN -x VTK_SMP_BACKEND_IN_USE ${CAVR_MPI_GHOSTS:+-x CAVR_MPI_GHOSTS})
}

# watch_host FILE: sample each pvbatch process's resident memory into FILE every second, in the background ($! is
# the sampler); host_report FILE prints each process's peak.
watch_host() {
  (while true; do ps -C pvbatch -o pid=,rss=; sleep 1; done) >"$1" 2>/dev/null &
}
host_report() {
  awk '{ if ($2 > m[$1]) m[$1] = $2 } END { for (p in m) printf "pvbatch pid %s: at most %.2f GiB resident\n", p, m[p] / 1048576 }' \
    "$1" | sort
}

# rank_gpus N LOG: the ranks' device lines in LOG ("cavr Volume: rendering on ..."), printed; fails (and says so) when
# N ranks name fewer than N distinct GPUs on a machine that has N (on one GPU: every rank on CUDA).
rank_gpus() {
  local n=$1 gpus distinct
  gpus=$(grep -o "cavr Volume: rendering on .*" "$2" | sed 's/\x1b\[[0-9;]*m//g' | sort -u)
  echo "$gpus"
  distinct=$(echo "$gpus" | grep "rendering on CUDA" | grep -o "GPU [0-9]* of" | sort -u | wc -l)
  [ "$(ngpus)" -eq 1 ] && distinct=$(echo "$gpus" | grep -c "CUDA")
  if [ "$n" -le "$(ngpus)" ] && [ "$distinct" -lt "$n" ]; then
    echo "FAIL: $n ranks but $distinct distinct GPUs in $(basename "$2")"
    return 1
  fi
}

# mpi_run N VOLUME PREFIX [bench args]: pvbatch with N ranks, the ranks' device lines checked (N distinct GPUs when
# the machine has N), GPU memory sampled while it runs.
mpi_run() {
  local n=$1 vol=$2 prefix=$3; shift 3
  (while true; do nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits; sleep 1; done) \
    >"$prefix.mem" 2>/dev/null &
  local mon=$!
  watch_host "$prefix.host" # each rank's host memory
  local hmon=$!
  local cmd=(pvbatch --force-offscreen-rendering --verbosity=INFO)
  if [ "$n" -gt 1 ]; then
    mpiexec_args "$n"
    cmd=("${MPIEXEC[@]}" pvbatch --mpi --force-offscreen-rendering --verbosity=INFO)
  fi
  timeout 1200 "${cmd[@]}" "$ROOT/testing/bench/bench_pv_mpi.py" --volume "$vol" --out "$prefix" "$@" \
    >"$prefix.log" 2>&1
  local rc=$?
  kill $mon $hmon 2>/dev/null
  grep -E "^ranks|^rank|Error|error|FAIL|ghost layers" "$prefix.log" | grep -v "^ *[0-9]* *0x" | sed "s/.*INFO| *//" | head -16
  host_report "$prefix.host"
  rank_gpus "$n" "$prefix.log" || rc=1
  awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (g in m) printf "GPU %s: at most %d MiB used\n", g, m[g] }' \
    "$prefix.mem" | sort
  return $rc
}

# ParaView's own scopes over 0.1 s (pvbatch --verbosity=TRACE, one rank, MPI_VOLUME, CAVR_TUNE=0): where the time
# before and in the first frame goes (the reader, data information gathers, the first still render).
step_trace() {
  local out=$O/trace vol=${MPI_VOLUME:-$W/ct_2048.nhdr}
  mkdir -p "$out"
  CAVR_TUNE=0 timeout 300 pvbatch --force-offscreen-rendering --verbosity=TRACE "$ROOT/testing/bench/bench_pv_mpi.py" \
    --volume "$vol" --out "$out/t" --views 2 --blend Composite >"$out/trace.log" 2>&1
  sed 's/\x1b\[[0-9;]*m//g' "$out/trace.log" | grep -E "\} [0-9.]+ s:|read in|first" | grep -vE "\} 0\.0[0-9]+ s" |
    cut -c1-170 | tee "$out/trace_scopes.log"
}

mpi_compare() { # REF_PREFIX PREFIX: both blend modes' pictures >= 45 dB
  local b
  for b in composite maximum; do
    pvpython "$ROOT/testing/pvpython/compare_png.py" "$1_$b.png" "$2_$b.png" 45 || echo "FAIL: $2_$b.png vs $1_$b.png"
  done
}

step_mpi() {
  local out=$O/mpi vol=${MPI_VOLUME:-$W/ct_2048.nhdr} n
  mkdir -p "$out"
  local counts="1 2"
  [ "$(ngpus)" -ge 4 ] && counts="1 2 4"
  for n in ${MPI_RANKS:-$counts}; do
    log "== $n rank(s), $(basename "$vol")"
    mpi_run "$n" "$vol" "$out/r$n" --views "${MPI_VIEWS:-12}"
    [ "$n" -gt 1 ] && mpi_compare "$out/r1" "$out/r$n"
  done
  cat "$out"/r*.csv
}

# pvserver with N ranks (1, 2, and 4 when the machine has them) and a pvpython client on the same machine:
# bench_pv_mpi.py --server; the server's log must name N distinct GPUs; N ranks against 1 rank >= 45 dB.
step_pvserver() {
  local out=$O/pvserver vol=${MPI_VOLUME:-$W/ct_2048.nhdr} n
  mkdir -p "$out"
  local counts="1 2"
  [ "$(ngpus)" -ge 4 ] && counts="1 2 4"
  for n in ${PVSERVER_RANKS:-$counts}; do
    log "== pvserver, $n rank(s), $(basename "$vol")"
    local port=$((11111 + n)) prefix=$out/s$n
    mpiexec_args "$n"
    setsid timeout 900 "${MPIEXEC[@]}" pvserver --mpi --sp=$port --force-offscreen-rendering \
      --verbosity=INFO >"$prefix.server.log" 2>&1 &
    local server=$! i
    for i in $(seq 120); do grep -q "Accepting connection" "$prefix.server.log" && break; sleep 0.5; done
    timeout ${PVSERVER_TIMEOUT:-400} pvpython --force-offscreen-rendering "$ROOT/testing/bench/bench_pv_mpi.py" \
      --server localhost:$port --volume "$vol" --out "$prefix" --views "${MPI_VIEWS:-12}" >"$prefix.log" 2>&1 ||
      { grep -v "^ *[0-9]* *0x" "$prefix.log" | tail -15; echo "FAIL: client with $n ranks"; }
    kill -TERM -- -$server 2>/dev/null; sleep 2; pkill -x pvserver 2>/dev/null
    grep -E "^pvserver ranks" "$prefix.log"
    rank_gpus "$n" "$prefix.server.log"
    [ "$n" -gt 1 ] && mpi_compare "$out/s1" "$prefix"
  done
  cat "$out"/s*.csv
}

step_big() {
  local out=$O/big
  mkdir -p "$out"
  local mib n nz gib ranks dir bytes=1 mode=box suffix=""
  [ "${BIG_TYPE:-uint8}" = uint16 ] && { bytes=2; mode=box16; suffix=_u16; }
  mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
  # A box of MPI_BIG_FACTOR x one GPU's memory in BIG_TYPE voxels: 4096 x 4096 x nz.
  nz=$(awk -v f="${MPI_BIG_FACTOR:-1.3}" -v m="$mib" -v b=$bytes 'BEGIN { printf "%d", int(f * m * 1048576 / 4096 / 4096 / 16 / b) * 16 }')
  gib=$(awk -v z="$nz" -v b=$bytes 'BEGIN { printf "%d", 4096 * 4096 * z * b / 1073741824 + 1 }')
  ranks=$(echo ${MPI_BIG_RANKS:-2} | tr ' ' '\n' | sort -n | tail -1)
  # Host memory the ranks need: since 2026-11-29 a rank keeps its piece once (the grown extent from the reader, no
  # ghost arrays; on CUDA no copy of cavr's: docs/benchmarks.md, "Host memory a rank") and about 2 GiB of its own, but
  # with several ranks it peaks at about two pieces (the update before Show makes the rank's own piece, then the
  # representation asks for the grown one while the first is still held: 8.85 GiB a rank for 4 GiB pieces);
  # CAVR_MPI_GHOSTS=generator adds a ghosted copy. A file in /dev/shm is host memory too: it goes there only when both
  # fit, else to disk (BIG_DIR, default /tmp/cavr). BIG_SOURCE=tile makes no file: each rank makes its own piece of a
  # volume that repeats the CT (bench_pv_mpi.py --tile), for volumes over the disk or over memory twice (2.5 x an
  # H200 on 4 of them: 352 GiB, against 235 GiB of disk and 512 of memory). The machines' MemTotal starts low and grows
  # as memory is used (KINDS.md): BIG_HOST_GIB gives the host's real size when it misleads.
  local need mem shm tile=${BIG_SOURCE:-file}
  need=$((gib + 2 * ranks))
  [ "$ranks" -gt 1 ] && need=$((2 * gib + 2 * ranks))
  [ "${CAVR_MPI_GHOSTS:-}" = generator ] && need=$((need + gib))
  mem=${BIG_HOST_GIB:-$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) >> 20))}
  shm=$(($(df --output=avail -k /dev/shm | tail -1) >> 20))
  local vol args=()
  if [ "$tile" = tile ]; then
    [ $bytes -eq 1 ] || { echo "FAIL: BIG_SOURCE=tile repeats the uint8 CT: BIG_TYPE uint8 only"; return 1; }
    vol=$W/ct_shoulder_512x512x450_uint8.nhdr
    args=(--tile 4096 4096 "$nz")
    log "volume 4096x4096x$nz ($gib GiB) made by the ranks; they need about $need GiB of the host's $mem GiB ($ranks ranks)"
  else
    dir=${BIG_DIR:-}
    if [ -z "$dir" ]; then
      dir=/tmp/cavr
      [ "$shm" -ge $((gib + 8)) ] && [ $((need + gib + 16)) -le "$mem" ] && dir=$W
    fi
    mkdir -p "$dir"
    log "volume $gib GiB in $dir; the ranks need about $need GiB of the host's $mem GiB ($ranks ranks)"
    vol=$dir/ct_4096x4096x$nz$suffix.nhdr
    [ -e "$vol" ] || [ ! -e "$W/ct_4096x4096x$nz$suffix.nhdr" ] || vol=$W/ct_4096x4096x$nz$suffix.nhdr
    if [ ! -e "$vol" ]; then
      local free
      free=$(($(df --output=avail -k "$dir" | tail -1) >> 20))
      [ "$free" -ge $((gib + 2)) ] || { echo "FAIL: $free GiB free in $dir, the volume needs $gib GiB (set BIG_DIR, or BIG_SOURCE=tile)"; return 1; }
      sys_python "$LAB/make_volumes.py" "$W/ct_shoulder_512x512x450_uint8.nhdr" "$dir" $mode 4096 4096 "$nz" ||
        { rm -f "$dir/ct_4096x4096x$nz$suffix.raw"; echo "FAIL: make_volumes.py"; return 1; }
    fi
    df -h /dev/shm "$dir" | tail -2
  fi
  [ $((need + 16)) -le "$mem" ] || echo "WARN: the ranks will likely run out of host memory ($need GiB > $mem GiB - 16)"
  [ -n "${BIG_MAKE_ONLY:-}" ] && return 0
  for n in ${MPI_BIG_RANKS:-2}; do
    log "== $n ranks, 4096x4096x$nz ${BIG_TYPE:-uint8} ($(awk -v z="$nz" -v b=$bytes 'BEGIN { printf "%.1f", 4096 * 4096 * z * b / 1073741824 }') GiB; one GPU: $mib MiB)"
    mpi_run "$n" "$vol" "$out/big_r$n" --views "${BIG_VIEWS:-6}" --blend Composite "${args[@]}"
  done
  cat "$out"/big_r*.csv
}

collect() {
  (cd "$O" && find . -name "*.log" -o -name "*.csv" -o -name "*.mem" -o -name "*.host" -o -name "*.png" | grep -v "tests/.*png" |
    tar czf "$RESULT/results.tgz" -T -)
  ls -la "$RESULT"
}

unpack
[ "$*" = stage ] && { df -h /opt /dev/shm | tail -2; exit 0; }
pv_env
status=0
for s in "$@"; do
  log "== $s"
  "step_$s" || status=1
done
collect
exit $status

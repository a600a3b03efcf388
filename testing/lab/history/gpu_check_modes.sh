#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-off measurement modes of the dated benchmark log (docs/history/benchmarks-2026-11.md, where it is quoted as
# testing/gpu_check.sh MODE; docs/benchmarks.md cites its modes): each mode builds what it needs on the GPU machine
# (H100/H200, nvcc + cmake, no ParaView) and repeats one run of that log. Run from the repository root:
#   bash testing/lab/history/gpu_check_modes.sh MODE
# The device check (build, GPU tests, sanitizers, benchmark) is testing/lab/device_check.sh, over ctest labels; the
# modes `tests` and `all` below are its older form, kept so that the log's commands still run as quoted.
# Needs .devdata/ct_shoulder_512x512x450_uint8.raw.gz (carried) for the benchmark modes. Results under $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
MODE=${1:-all}   # all | tests | bench | sweep | big | vtk | vtk-mapper | vtk-soak | handover | ncu-big | profile | compressive | solver | commit | iso | iso2 | rotation | final | refine-cpu | mpi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
if [ "$MODE" = refine-cpu ]; then
  # Issue 13 item 3 on the GPU machine's quiet CPU (the 2-core VM is shared): REFINE at 25% of the rays against 2x2
  # rays + bilinear and the full frame, the four volumes of the issue-4 table, shaded (9 pairs) and unshaded (5), one
  # thread, CPU time, with and without the pilot's depth hint (refine, refine-nohint: the same run; REFINE_METHODS
  # picks others, e.g. refine,refine-nofloor: with and without the last level's key floor); then shaded on 2
  # and 16 threads, wall clock (refine_cpu_threads.txt). CPU back end only (no CUDA build). Needs .devdata/{ct_shoulder_512x512x450,foot_256x256x256,
  # cthead8bit_256x256x99}_uint8.raw.gz or .raw.xz (carried); colin27 is in data/. REFINE_PF="6 8": the shaded CT shoulder
  # again with the sparse rays' prefetch distance at those lattice steps (CAVR_PREFETCH_AHEAD, 4 by default).
  mkdir -p .devdata/raw
  for v in ct_shoulder_512x512x450_uint8 foot_256x256x256_uint8 cthead8bit_256x256x99_uint8; do
    [ -f .devdata/raw/$v.raw ] && continue
    if [ -f .devdata/$v.raw.xz ]; then xz -dc .devdata/$v.raw.xz > .devdata/raw/$v.raw || exit 1 # (the CT: 39 MB, not 45)
    else gunzip -c .devdata/$v.raw.gz > .devdata/raw/$v.raw || exit 1; fi
  done
  [ -f .devdata/raw/colin27.raw ] || gunzip -c data/colin27_ch2better_301x370x316_uint8.raw.gz > .devdata/raw/colin27.raw
  { lscpu | grep -E "Model name|^CPU\(s\)"; grep -q avx512f /proc/cpuinfo && echo "AVX-512: yes"; } | tee "$OUT/cpu.txt"
  build_cpu() { # build_cpu DIR [C flags]
    cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_CUDA=OFF -DCAVR_ENABLE_PARAVIEW=OFF -DCAVR_ENABLE_VTK=OFF \
      ${2:+-DCMAKE_C_FLAGS="$2"} > "$OUT/$1_configure.log" 2>&1 && cmake --build "$1" -j16 --target cavr-compressive-bench \
      > "$OUT/$1_build.log" 2>&1 || { tail -20 "$OUT/$1_build.log"; exit 1; }
  }
  build_cpu build-cpu
  row() { # row BUILD SHADE REPEAT NAME RAW DIMS SPACING TF CSV (TH threads, CLK clock: 1 and cpu by default)
    "$1"/testing/cavr-compressive-bench --volume "$5" --dims "$6" --type uint8 --spacing "$7" --tf "$8" --name "$4" \
      --backend cpu --size 512 --fractions 0.25 --methods ${REFINE_METHODS:-refine,refine-nohint} --shade "$2" --repeat "$3" \
      --threads "${TH:-1}" --clock "${CLK:-cpu}" --csv "$9" | awk '$6 ~ /^refine/ || $6=="bilinear2" || $1 ~ /^refine/'
  }
  VOLS="ct_shoulder:.devdata/raw/ct_shoulder_512x512x450_uint8.raw:512,512,450:1,1,1:ct-bone
foot:.devdata/raw/foot_256x256x256_uint8.raw:256,256,256:1,1,1:ct-bone
cthead:.devdata/raw/cthead8bit_256x256x99_uint8.raw:256,256,99:1,1,2:ct-skin
colin27:.devdata/raw/colin27.raw:301,370,316:0.5,0.5,0.5:mri"
  for S in 1 0; do
    R=$([ $S = 1 ] && echo 9 || echo 5)
    echo "$VOLS" | while IFS=: read -r name raw dims sp tf; do
      row build-cpu $S $R $name $raw $dims $sp $tf "$OUT/refine_cpu1.csv"
    done
  done 2>&1 | tee "$OUT/refine_cpu1.txt"
  for T in 2 16; do
    echo "$VOLS" | while IFS=: read -r name raw dims sp tf; do
      TH=$T CLK=wall row build-cpu 1 9 $name $raw $dims $sp $tf "$OUT/refine_cpu_threads$T.csv" | sed "s/^/$T threads: /"
    done
  done 2>&1 | tee "$OUT/refine_cpu_threads.txt"
  for pf in ${REFINE_PF:-}; do
    build_cpu build-cpu-pf$pf "-DCAVR_PREFETCH_AHEAD=$pf"
    for b in build-cpu build-cpu-pf$pf; do
      echo "$b: $(row $b 1 9 ct_shoulder .devdata/raw/ct_shoulder_512x512x450_uint8.raw 512,512,450 1,1,1 ct-bone "$OUT/refine_pf.csv" | grep refine)"
    done
  done 2>&1 | tee "$OUT/refine_pf.txt"
  rm -f "$OUT"/*_configure.log "$OUT"/*_build.log
  exit 0
fi
if [ "$MODE" = mpi ]; then
  # Issue 14 item 4 on a machine with two or more GPUs (nvidia-h100-x2 / nvidia-h200-x2): one GPU per MPI rank.
  # MPI: MPICH from its PyPI wheel when .whl/ carries one (relocatable: mpicc, mpiexec, mpi.h, libmpi;
  # `python3 -m pip download --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 -d .whl mpich`; the
  # 2026-11-26 runs used it), else the image's own Open MPI (/usr/bin/mpiexec, 4.1.6 on 2026-11-26).
  # Builds the CUDA core with test_gpu_mpi and test_gpu_two; runs test_gpu_two (two devices in one process), then
  # test_gpu_mpi with 1, 2 and 4 ranks (each rank's GPU chosen by default: local rank modulo the visible GPUs).
  MPIARGS=""
  if ls .whl/mpich-*.whl >/dev/null 2>&1; then
    M=/tmp/mpich; rm -rf $M; mkdir -p $M
    python3 -m zipfile -e "$(ls .whl/mpich-*.whl | head -1)" $M/w >/dev/null || exit 1
    mv $M/w/mpich-*.data/data/* $M/ && chmod +x $M/bin/*
    export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    MPIARGS="-DMPI_HOME=$M"
  else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  fi
  mpiexec --version 2>&1 | head -2
  cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_PARAVIEW=OFF -DCAVR_ENABLE_VTK=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 $MPIARGS >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build build-mpi -j32 --target test_gpu_mpi test_gpu_two >"$OUT/build.log" 2>&1 ||
    { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
  mkdir -p .devdata/raw
  gunzip -c data/colin27_ch2better_301x370x316_uint8.raw.gz > .devdata/raw/colin27_ch2better_301x370x316_uint8.raw
  export CAVR_RAW_DIR=$PWD/.devdata/raw CAVR_TUNE_DIR=$PWD/build-mpi/tune
  build-mpi/testing/test_gpu_two 2>&1 | tee "$OUT/gpu_two.txt"; echo "test_gpu_two: rc=${PIPESTATUS[0]}"
  # RGBA32F images (exact compositing), then RGBA8 (4 bytes a pixel, as IceT composites ParaView's ranks).
  for im in f32 u8; do
    for n in 1 2 4; do
      mpiexec -n $n build-mpi/testing/test_gpu_mpi --size ${MPI_SIZE:-1024} --frames 9 --image $im \
        --csv "$OUT/mpi_${im}_ranks$n.csv" > "$OUT/mpi_${im}_ranks$n.log" 2>&1; echo "test_gpu_mpi, $im, $n ranks: rc=$?"
      grep -E "^rank|^view|^worst|CHECK|rank .* expected|share" "$OUT/mpi_${im}_ranks$n.log" | cut -c1-260
    done
  done
  cat "$OUT"/mpi_*_ranks*.log > "$OUT/mpi_logs.txt"; rm -f "$OUT"/mpi_*_ranks*.log
  { head -1 "$OUT/mpi_f32_ranks1.csv"; for c in "$OUT"/mpi_*_ranks*.csv; do tail -n +2 "$c"; done; } > "$OUT/mpi.csv"
  rm -f "$OUT"/mpi_*_ranks*.csv
  (cd build-mpi && ctest -R "mpi" --output-on-failure 2>&1 | tail -4)
  rm -f "$OUT/configure.log"; gzip -f "$OUT/build.log"
  exit 0
fi
if [ "$MODE" = handover ]; then
  # The control for the mapper's CUDA -> OpenGL hand-over (issue 14, item 3): testing/lab/probes/probe_gl_handover.cu, no
  # VTK, an EGL context of its own; needs .vtkegl/debs (the GL loaders). Twice: an empty kernel, and one that takes
  # about as long as a 512^3 MRI render (0.3 ms).
  for f in .vtkegl/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  nvcc -O2 -arch=sm_90 -o /tmp/probe_gl_handover testing/lab/probes/probe_gl_handover.cu -lEGL -lOpenGL -lcuda || exit 1
  /tmp/probe_gl_handover 1024 300 0 "$OUT/handover_spin0.csv" | tee "$OUT/handover.txt"
  /tmp/probe_gl_handover 1024 300 100000 "$OUT/handover_spin1e5.csv" | tee -a "$OUT/handover.txt"
  exit 0
fi
if [ "$MODE" = vtk ] || [ "$MODE" = vtk-mapper ] || [ "$MODE" = vtk-soak ]; then
  # VTK on the GPU machine. Needs .vtkegl/ (carried): the GL loader debs and VTK 9.4.2 built with EGL
  # (../shared/setup/vtk-egl/). Configured and built on its own (no full build first).
  # vtk (issue 11, item 6): VTK's GPU ray caster and cavr's C API in one program.
  # vtk-mapper (issue 14, items 2, 3, 5): vtkCavrVolumeMapper with the CUDA back end in an EGL window: the checks
  # (CUDA = CPU through both display paths, an opaque sphere, re-rendering), the orbit benchmark (VTK's GPU mapper,
  # cavr's mapper through host memory and through OpenGL textures, the C API; 512^3 and 1024^3, two transfer
  # functions), then the soak (SOAK_FRAMES frames, default 10000) and the CPU fallback of a volume too large for the GPU.
  # ORBIT_ONLY=1 with vtk-mapper: the orbit benchmark alone (ORBIT_SIZES, ORBIT_TFS: a subset of "512 1024", "mri dense";
  # CAVR_BENCH_MULTISAMPLES / CAVR_BENCH_FXAA: the window's multisamples and FXAA, VTK's defaults otherwise; ORBIT_WINDOWS
  # below for several set-ups in one pass).
  # vtk-soak: the checks and the soak only, then the soak again with glibc's mmap threshold fixed at 128 KiB
  # (MALLOC_MMAP_THRESHOLD_, a control: no adaptive threshold, so no heap retention of large freed blocks).
  for f in .vtkegl/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  [ -d /opt/vis ] || tar xJf .vtkegl/vtk-9.4.2-egl-install.tar.xz -C /opt
  T0=$(date +%s)
  cmake -S . -B build-vtk -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_PARAVIEW=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCAVR_BUILD_VTK_GPU_BENCH=ON -DVTK_DIR=/opt/vis/lib/cmake/vtk-9.4 -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    >"$OUT/vtk_configure.log" 2>&1 || { tail -30 "$OUT/vtk_configure.log"; exit 1; }
  TARGETS="cavr-vtk-gpu-bench"; [ "$MODE" = vtk-mapper ] && TARGETS="cavr-vtk-gpu-bench cavr-vtk-mapper-check"
  [ "$MODE" = vtk-soak ] && TARGETS="cavr-vtk-mapper-check"
  cmake --build build-vtk -j16 --target $TARGETS >"$OUT/vtk_build.log" 2>&1 || { grep -E "error" "$OUT/vtk_build.log" | head -20; exit 1; }
  echo "configured and built in $(( $(date +%s) - T0 )) s"
  mkdir -p .devdata/raw
  RAW=.devdata/raw/colin27_ch2better_301x370x316_uint8.raw
  [ -f "$RAW" ] || gunzip -c data/colin27_ch2better_301x370x316_uint8.raw.gz > "$RAW"
  export LD_LIBRARY_PATH=/opt/vis/lib:${LD_LIBRARY_PATH:-}
  B=build-vtk/testing/cavr-vtk-gpu-bench
  if [ "$MODE" = vtk ]; then
    for n in 0 1024; do
      $B "$RAW" 301 370 316 testing/bench/dense.tf 1024 0,30,60,90 20 "$OUT" $n
      $B "$RAW" 301 370 316 testing/bench/mri.tf 1024 0,30,60,90 20 "$OUT" $n
    done 2>&1 | tee "$OUT/vtk_side_by_side.txt"
    rm -f "$OUT/vtk_configure.log" "$OUT/vtk_build.log"
    exit 0
  fi
  C=build-vtk/testing/vtk/cavr-vtk-mapper-check
  mkdir -p "$OUT/png"
  [ "${ORBIT_ONLY:-0}" = 1 ] || { $C check "$OUT/png" > "$OUT/mapper_check.log" 2>&1; echo "mapper check: rc=$?"; }
  grep -E "^(FAIL|PASS|SKIP)|dB through|silhouette|in front|outside the" "$OUT/mapper_check.log" 2>/dev/null | cut -c1-190 | head -40
  if [ "$MODE" = vtk-soak ]; then
    $C soak ${SOAK_FRAMES:-10000} > "$OUT/mapper_soak.log" 2>&1; echo "mapper soak: rc=$?"
    grep -E "^(ok|FAIL|PASS)|soak:|fallback" "$OUT/mapper_soak.log" | cut -c1-230 | head -40
    MALLOC_MMAP_THRESHOLD_=131072 $C soak ${SOAK_FRAMES:-10000} > "$OUT/mapper_soak_fixed_threshold.log" 2>&1
    echo "mapper soak, MALLOC_MMAP_THRESHOLD_=131072 (control): rc=$?"
    grep -E "^(ok|FAIL|PASS)|soak:" "$OUT/mapper_soak_fixed_threshold.log" | cut -c1-230 | head -20
    tar czf "$OUT/png.tgz" -C "$OUT" png && rm -rf "$OUT/png"
    rm -f "$OUT/vtk_configure.log"; gzip -f "$OUT/vtk_build.log"
    exit 0
  fi
  for w in ${ORBIT_WINDOWS:-default}; do
    # ORBIT_WINDOWS: window set-ups "MULTISAMPLES,FXAA" (e.g. "8,0 0,1 0,0": VTK's default, ParaView's render view, none)
    [ "$w" = default ] || export CAVR_BENCH_MULTISAMPLES=${w%,*} CAVR_BENCH_FXAA=${w#*,}
    for n in ${ORBIT_SIZES:-512 1024}; do
      for tf in ${ORBIT_TFS:-mri dense}; do
        $B "$RAW" 301 370 316 testing/bench/$tf.tf 1024 0 ${ORBIT_FRAMES:-24} "$OUT/png" $n orbit 2>&1 | grep -v "^volume\|^cavr device"
      done
    done
  done | tee "$OUT/orbit.txt"
  mv "$OUT/png/vtk_mapper_orbit.csv" "$OUT/" 2>/dev/null
  [ "${ORBIT_ONLY:-0}" = 1 ] || { $C soak ${SOAK_FRAMES:-10000} > "$OUT/mapper_soak.log" 2>&1; echo "mapper soak: rc=$?"; }
  grep -E "^(ok|FAIL|PASS)|soak:|fallback" "$OUT/mapper_soak.log" | cut -c1-200 | head -40
  tar czf "$OUT/png.tgz" -C "$OUT" png && rm -rf "$OUT/png"
  rm -f "$OUT/vtk_configure.log"; gzip -f "$OUT/vtk_build.log"
  exit 0
fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_PARAVIEW=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-lineinfo \
  >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
case "$MODE" in iso|iso2) TARGETS="--target cavr-render test_gpu_iso cavr-compressive-bench";; *) TARGETS="";; esac
cmake --build build-gpu -j16 $TARGETS >"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
# Raw copies of the data/ volumes (no teem here).
mkdir -p .devdata/raw
for f in data/*.raw.gz; do b=$(basename "$f" .gz); [ -f ".devdata/raw/$b" ] || gunzip -c "$f" > ".devdata/raw/$b"; done
cp data/bucky_32x32x32_uint8.raw .devdata/raw/
export CAVR_RAW_DIR=$PWD/.devdata/raw
if [ "$MODE" = sweep ]; then
  # Issue 11, items 3-4: AUTO's tables measured, then every strategy over y/x/z sweeps on the probe field (uint8,
  # uint16, float32), the CT at 1024^3 (dense and bone transfer functions) and at native size; plots in one tarball.
  (cd build-gpu && ctest -L gpu 2>&1 | tail -4)
  RAW=.devdata/ct_shoulder_512x512x450_uint8.raw
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" > "$RAW"
  build-gpu/testing/cavr-bench --raw "$RAW" --dims 512,512,450 --out "$OUT" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log"
  mkdir -p "$OUT/plots" && python3 testing/bench/plot_bench.py "$OUT/bench.csv" "$OUT/plots" && tar czf "$OUT/plots.tgz" -C "$OUT" plots && rm -rf "$OUT/plots"
  rm -f "$OUT/configure.log" "$OUT/build.log"
  exit 0
fi
if [ "$MODE" = ncu-big ]; then
  # Issue 11, item 7: why rotation and block shape pay on a big volume: ncu on the 90-degree frames of a 2048^3 uint8
  # volume (launches 12, 18, 24 of --big-volume after the tables exist: AUTO, standard, 16x16 + rotation).
  build-gpu/testing/cavr-bench --tune > /dev/null
  ncu --kernel-name regex:raycast --launch-skip 12 --launch-count 13 \
      --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,launch__block_size \
      build-gpu/testing/cavr-bench --big-volume ${BIG_N:-2048} --out "$OUT" > "$OUT/ncu_big.log" 2>&1
  grep -E "big volume|auto |standard |rotation forced|raycast|duration|hit_rate|throughput|bytes_read|sectors|block_size" "$OUT/ncu_big.log" | head -120
  exit 0
fi
if [ "$MODE" = big ]; then
  # Issue 11, item 5: a volume of >= 55% of device memory and one with more than 2048 voxels on an axis.
  build-gpu/testing/cavr-bench --big-volume ${BIG_N:-3584} --aniso ${ANISO:-512,512,4096} --out "$OUT" 2>&1 | tee "$OUT/big.log"
  exit 0
fi
if [ "$MODE" = iso2 ]; then
  # Issue 12, second pass: the two control programs (testing/lab/probes/probe_*.cu: warp marching against the L1 size, the
  # cubic filter's fetch floor), CPU = GPU on the isosurface tests, the expensive-ray compressive frame taken apart
  # (full 1024^2, full 512^2 = a regular quarter of the rays, 25% compressive; ncu of the ray-casting launches), the
  # per-view hybrid over sweeps about y and x, and isosurfaces of every volume carried. Volumes (.devdata/*.raw.gz or
  # .raw.xz): CT shoulder, foot, bunny (int16), whichever are there. ISO2_PARTS picks parts (default: all of
  # probes tests ss5 ncu sweep volumes); at most 8 files come back from a call, so the rest go to stdout.
  want() { [[ " ${ISO2_PARTS:-probes tests ss5 ncu sweep volumes} " == *" $1 "* ]]; }
  if want probes; then for p in probe_warp_march probe_cubic_fetch; do
    nvcc -O3 -arch=sm_90 -std=c++17 -o "build-gpu/$p" "testing/lab/probes/$p.cu" || exit 1
  done
  echo "== probe_warp_march"; build-gpu/probe_warp_march 512 1024 "$OUT/probe_warp_march.csv" 2>&1 | tee "$OUT/probe_warp_march.txt"
  echo "== probe_cubic_fetch"; build-gpu/probe_cubic_fetch 512 1024 "$OUT/probe_cubic_fetch.csv" 2>&1 | tee "$OUT/probe_cubic_fetch.txt"
  fi
  if want tests; then
    (cd build-gpu && ./testing/test_gpu_iso > "$OUT/iso_test.log" 2>&1); echo "test_gpu_iso: rc=$?"
    grep -E "FAIL|below|CHECK|SKIP" "$OUT/iso_test.log" | head -20; grep -c "dB" "$OUT/iso_test.log"
  fi
  for f in .devdata/*.raw.gz; do [ -e "$f" ] || continue; b=$(basename "$f" .gz); [ -f ".devdata/raw/$b" ] || gunzip -c "$f" > ".devdata/raw/$b"; done
  for f in .devdata/*.raw.xz; do [ -e "$f" ] || continue; b=$(basename "$f" .xz); [ -f ".devdata/raw/$b" ] || xz -dc -T8 "$f" > ".devdata/raw/$b"; done
  R=build-gpu/core/cavr-render
  js() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(" ".join("%s %s" % (k, d[k]) for k in sys.argv[2:]))' "$@"; }
  CT=.devdata/raw/ct_shoulder_512x512x450_uint8.raw
  if [ -f "$CT" ] && want ss5; then
    echo "== expensive rays: CT, ct-bone, cubic, shaded, 5 rays per pixel"
    for spec in 1024:1 512:1 1024:0.25 1024:0.5; do
      IFS=: read -r sz fr <<< "$spec"
      j=$($R "$CT" --dims 512,512,450 --type uint8 --size ${sz}x${sz} --backend cuda --tf ct-bone --shade --interpolation cubic \
        --supersample 5 --sample-fraction "$fr" --reconstruction local --repeat 5 --json -o none 2>/dev/null)
      echo "size $sz fraction $fr $(js "$j" kernel_ms solve_ms transfer_ms ms_median ms_min rays samples)"
      j=$($R "$CT" --dims 512,512,450 --type uint8 --size ${sz}x${sz} --backend cuda --tf ct-bone --shade --interpolation cubic \
        --sample-fraction "$fr" --reconstruction local --repeat 5 --json -o none 2>/dev/null)
      echo "  (1 ray) size $sz fraction $fr $(js "$j" kernel_ms solve_ms ms_median rays samples)"
    done 2>&1 | tee "$OUT/ss5_parts.txt"
  fi
  if [ -f "$CT" ] && want ncu; then
    for spec in full:1 q:0.25; do
      IFS=: read -r l fr <<< "$spec"
      ncu --kernel-name regex:raycast_kernel --launch-count 4 \
        --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_requests_pipe_tex_mem_texture.sum,l1tex__t_sectors_pipe_tex_mem_texture.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,smsp__thread_inst_executed_per_inst_executed.ratio \
        $R "$CT" --dims 512,512,450 --type uint8 --size 1024x1024 --backend cuda --tf ct-bone --shade --interpolation cubic \
        --supersample 5 --sample-fraction "$fr" --reconstruction local --repeat 2 -o none > "$OUT/ncu_ss5_$l.log" 2>&1
    done
    for l in full q; do echo "== ncu ss5 $l"; grep -E "raycast_kernel|duration|hit_rate|requests|sectors|throughput|warps_active|per_inst" "$OUT/ncu_ss5_$l.log" | sed -e 's/  */ /g' | head -40; done
  fi
  if [ -f "$CT" ] && want ss5; then
    build-gpu/testing/cavr-compressive-bench --volume "$CT" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda \
      --size 1024 --repeat 3 --shade 1 --fractions 0.25,0.5 --interpolation cubic --supersample 5 --name ct_cubic_ss5 \
      --csv "$OUT/iso_compressive.csv" 2>&1 | tee "$OUT/iso_compressive.txt" | tail -12
  fi
  if [ -f "$CT" ] && want sweep; then
    echo "== isosurface hybrid: CT, iso 80, shaded, sweeps about y and about x"
    for ax in y x; do for a in 0 15 30 45 60 75 90; do for m in standard warp auto; do
      j=$($R "$CT" --dims 512,512,450 --type uint8 --size 1024x1024 --backend cuda --blend iso --iso 80 --iso-method $m --shade \
        --rotate-$ax "$a" --repeat 7 --json -o none 2>/dev/null)
      echo "sweep $ax $a $m $(js "$j" kernel_ms ms_median iso_method)"
    done; done; done | tee "$OUT/iso_sweep.txt"
  fi
  want volumes && echo "== isosurfaces of every volume: XY, XZ, ZY, standard / warp / auto"
  want volumes && for spec in ct_shoulder_512x512x450_uint8:512,512,450:uint8:80 foot_256x256x256_uint8:256,256,256:uint8:60 \
              bunny_ct_512x512x361_int16:512,512,361:int16:${BUNNY_ISO:-1400} headsq_64x64x93_uint16:64,64,93:uint16:1000 \
              inia19_t1brain_168x206x128_float32:168,206,128:float32:60; do
    IFS=: read -r name dims type iso <<< "$spec"
    [ -f ".devdata/raw/$name.raw" ] || continue
    for view in XY:0:0 XZ:90:0 ZY:0:90; do
      IFS=: read -r vn rx ry <<< "$view"
      for m in standard warp auto; do
        j=$($R ".devdata/raw/$name.raw" --dims "$dims" --type "$type" --size 1024x1024 --backend cuda --blend iso --iso "$iso" \
          --iso-method $m --shade --rotate-x "$rx" --rotate-y "$ry" --repeat 7 --json -o none 2>/dev/null)
        echo "iso $name $vn $m $(js "$j" kernel_ms ms_median iso_method samples)"
      done
    done
  done | tee "$OUT/iso_volumes.txt"
  rm -f "$OUT/configure.log" "$OUT/build.log"
  exit 0
fi
if [ "$MODE" = iso ]; then
  # Isosurfaces, cubic filter, super-sampling (issue 12): CPU vs GPU standard vs warp marching, memcheck, then
  # iso timings at 1024^2 facing XY, XZ, ZY and a sweep about y, standard vs warp marching, the cubic filter's
  # cost, and ncu figures of both methods facing ZY. Needs .devdata/{ct_shoulder_512x512x450,foot_256x256x256}_uint8.raw.gz.
  (cd build-gpu && ./testing/test_gpu_iso > "$OUT/iso_test.log" 2>&1); echo "test_gpu_iso: rc=$?"
  grep -E "FAIL|below|CHECK|SKIP" "$OUT/iso_test.log" | head -20; grep -c "dB" "$OUT/iso_test.log"
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_iso --quick > "$OUT/cs_iso.log" 2>&1
  echo "memcheck test_gpu_iso --quick: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs_iso.log")"
  grep -E -A6 "^========= (Invalid|Program hit|Uninitialized)" "$OUT/cs_iso.log" | head -20
  for v in ct_shoulder_512x512x450_uint8 foot_256x256x256_uint8; do
    [ -f ".devdata/raw/$v.raw" ] || gunzip -c ".devdata/$v.raw.gz" > ".devdata/raw/$v.raw"
  done
  R=build-gpu/core/cavr-render
  CSV="$OUT/iso_bench.csv"; echo "volume,view,rx,ry,method,interp,blend,shade,kernel_ms,frame_ms" > "$CSV"
  one() { # volume dims type iso view rx ry method interp blend [noshade]
    local j sh=--shade; [ "${11:-}" = noshade ] && sh=""
    j=$($R ".devdata/raw/$1.raw" --dims "$2" --type "$3" --size 1024x1024 --backend cuda --blend "${10}" \
      --iso "$4" --iso-method "$8" --interpolation "$9" $sh --rotate-x "$6" --rotate-y "$7" --repeat 5 --json \
      -o none 2>&1) || { echo "$1 $5 $8 failed: $j"; return; }
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%.4f" % (tuple(sys.argv[2:10]) + (d["kernel_ms"], d["ms_median"])))' \
      "$j" "$1" "$5" "$6" "$7" "$8" "$9" "${10}" "$([ -n "$sh" ] && echo 1 || echo 0)" >> "$CSV"
  }
  VOLS="ct_shoulder_512x512x450_uint8:512,512,450:uint8:80 foot_256x256x256_uint8:256,256,256:uint8:60"
  # ISO_QUICK=1: the two large volumes, no sweep and no compressive frames (a short device call).
  [ -n "${ISO_QUICK:-}" ] || VOLS="$VOLS headsq_64x64x93_uint16:64,64,93:uint16:1000
        inia19_t1brain_168x206x128_float32:168,206,128:float32:60 colin27_ch2better_301x370x316_uint8:301,370,316:uint8:50"
  for spec in $VOLS; do
    IFS=: read -r name dims type iso <<< "$spec"
    for view in XY:0:0 XZ:90:0 ZY:0:90; do
      IFS=: read -r vn rx ry <<< "$view"
      for m in standard warp auto; do one "$name" "$dims" "$type" "$iso" "$vn" "$rx" "$ry" "$m" linear iso; done
    done
  done
  [ -n "${ISO_QUICK:-}" ] || for ry in 15 30 45 60 75; do for m in standard warp auto; do
    one ct_shoulder_512x512x450_uint8 512,512,450 uint8 80 sweep 0 "$ry" "$m" linear iso; done; done
  for view in XY:0:0 XZ:90:0 ZY:0:90; do
    IFS=: read -r vn rx ry <<< "$view"
    for ip in linear cubic; do
      one ct_shoulder_512x512x450_uint8 512,512,450 uint8 80 "$vn" "$rx" "$ry" standard "$ip" composite
      one ct_shoulder_512x512x450_uint8 512,512,450 uint8 80 "$vn" "$rx" "$ry" standard "$ip" composite noshade
    done
    one ct_shoulder_512x512x450_uint8 512,512,450 uint8 80 "$vn" "$rx" "$ry" standard cubic iso
  done
  python3 - "$CSV" <<'PY' | tee "$OUT/iso_bench.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda r: (r["volume"], r["view"], r["ry"], r["interp"], r["blend"] + ("" if r["shade"] == "1" else "-flat"))
by = {}
for r in rows: by.setdefault(key(r), {})[r["method"]] = float(r["kernel_ms"])
print("%-38s %-5s %4s %-7s %-14s %10s %10s %8s %10s %12s" % ("volume", "view", "ry", "interp", "blend", "standard", "warp",
      "std/warp", "auto", "auto/faster"))
f3 = lambda x: "%.3f" % x if x else "-"
for k, v in by.items():
    s, w, a = v.get("standard"), v.get("warp"), v.get("auto")
    best = min(x for x in (s, w) if x) if (s or w) else None
    print("%-38s %-5s %4s %-7s %-14s %10s %10s %8s %10s %12s" % (k[0], k[1], k[2], k[3], k[4], f3(s), f3(w),
          "%.2f" % (s / w) if s and w else "-", f3(a), "%.3f" % (a / best) if a and best else "-"))
PY
  # Item 6: compressive frames where rays are dear (cubic, shading, 5 rays per pixel), 25% and 50% vs full.
  [ -n "${ISO_QUICK:-}" ] || build-gpu/testing/cavr-compressive-bench --volume .devdata/raw/ct_shoulder_512x512x450_uint8.raw --dims 512,512,450 \
    --type uint8 --tf ct-bone --backend cuda --size 1024 --repeat 3 --shade 1 --fractions 0.25,0.5 --interpolation cubic \
    --supersample 5 --name ct_cubic_ss5 --csv "$OUT/iso_compressive.csv" | tee "$OUT/iso_compressive.txt"
  RAW=.devdata/raw/ct_shoulder_512x512x450_uint8.raw
  for m in standard warp; do
    ncu --kernel-name regex:iso_ --launch-skip 0 --launch-count 3 \
      --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_requests_pipe_tex_mem_texture.sum,launch__registers_per_thread \
      $R "$RAW" --dims 512,512,450 --type uint8 --size 1024x1024 --backend cuda --blend iso --iso 80 --iso-method $m \
      --shade --rotate-y 90 -o none > "$OUT/ncu_iso_$m.log" 2>&1
    echo "== ncu $m facing ZY"; grep -E "iso_|duration|throughput|hit_rate|inst_executed|warps_active|requests|registers" "$OUT/ncu_iso_$m.log" | head -40
  done
  rm -f "$OUT/configure.log"
  exit 0
fi
if [ "$MODE" = commit ]; then
  # Volume upload (issue 11, item 5): the volume test, memcheck on it, then commit time and GB/s against the
  # page-locked host-to-device ceiling for 512^3, 1024^3, 2048^3 and the 512 x 512 x 2000 CT shape.
  (cd build-gpu && ./testing/test_gpu_volume > "$OUT/volume_test.log" 2>&1); echo "test_gpu_volume: rc=$?"
  grep -E "GB/s|differ|memory|commit|rotation|worst|CHECK" "$OUT/volume_test.log" | cut -c1-200 | head -40
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_volume > "$OUT/cs_volume.log" 2>&1
  echo "memcheck test_gpu_volume: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs_volume.log")"
  build-gpu/testing/cavr-commit-bench --ct --out "$OUT" 2>&1 | tee "$OUT/commit_bench.txt"
  exit 0
fi
if [ "$MODE" = solver ]; then
  # The local solver alone: GPU vs CPU, racecheck with source lines, an ncu profile at 1024^2 / 25%, solve times.
  (cd build-gpu && ./testing/test_gpu_compressive 2>&1 | grep -E "local|worst|CHECK")
  compute-sanitizer --tool racecheck --print-limit 4 build-gpu/testing/test_gpu_compressive 2>&1 | grep -E -A4 "Race reported|SUMMARY" | head -30
  RAW=.devdata/ct_shoulder_512x512x450_uint8.raw
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" > "$RAW"
  B=build-gpu/testing/cavr-compressive-bench
  ncu --kernel-name regex:local_kernel --launch-skip 20 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active \
      $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --mode solve --repeat 9 --name ct > "$OUT/ncu_solver.log" 2>&1
  grep -E "Duration|Throughput|Occupancy|Warps|Registers|Stall|Issue|Eligible|bank|wavefronts|inst_executed|pipe_fma|Grid Size|Block Size|Shared Memory Config|No Eligible" "$OUT/ncu_solver.log" | head -50
  $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --mode solve --repeat 9 --name ct \
      | grep -E "local|global"
  $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --mode solve --repeat 9 --tolerance 1e-3 \
      --name ct_tol1e-3 | grep -E "local|global"
  exit 0
fi
if [ "$MODE" = compressive ]; then
  # Compressive rendering (issue 4): GPU vs CPU test, sanitizers on it, quality/speed sweep and solve times.
  (cd build-gpu && ./testing/test_gpu_compressive > "$OUT/compressive_test.log" 2>&1); echo "test_gpu_compressive: rc=$?"
  grep -E "GPU|worst|CHECK|vs CPU" "$OUT/compressive_test.log" | head -20
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_compressive > "$OUT/cs_mem.log" 2>&1
  echo "memcheck test_gpu_compressive: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs_mem.log")"
  grep -E -A6 "^========= (Invalid|Program hit|Uninitialized)" "$OUT/cs_mem.log" | head -20
  compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/testing/test_gpu_compressive > "$OUT/cs_race.log" 2>&1
  echo "racecheck test_gpu_compressive: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/cs_race.log")"
  grep -E -B2 -A6 "Race reported|Error: " "$OUT/cs_race.log" | head -20
  RAW=.devdata/ct_shoulder_512x512x450_uint8.raw
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" > "$RAW"
  B=build-gpu/testing/cavr-compressive-bench
  $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --size 1024 --repeat 7 \
     --name ct_shoulder --csv "$OUT/compressive_gpu.csv" ${CBENCH_ARGS:-} | tee "$OUT/compressive_gpu.txt"
  # 2048^2 shaded: four times the rays per frame, where the GPU is throughput-bound rather than latency-bound.
  $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --size 2048 --repeat 5 --shade 1 \
     --fractions 0.1,0.25,0.5 --name ct_shoulder --csv "$OUT/compressive_gpu.csv" | tee -a "$OUT/compressive_gpu.txt"
  $B --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda --mode solve --repeat 9 \
     --name ct_shoulder --csv "$OUT/compressive_solve_gpu.csv" | tee -a "$OUT/compressive_gpu.txt"
  cat "$OUT"/cs_*.log "$OUT/compressive_test.log" > "$OUT/compressive_checks.log"; rm -f "$OUT"/cs_*.log "$OUT"/configure.log
  exit 0
fi
if [ "$MODE" = final ]; then
  # One short call after a merge: every GPU test (C and GPU labels), memcheck on the isosurface kernels, the rotation
  # kernels at 1024^3, and isosurface AUTO beside both methods on Colin27 (data/) facing XY, XZ, ZY at 1024^2.
  (cd build-gpu && ctest -V -L gpu > "$OUT/gpu_tests.log" 2>&1); echo "ctest -L gpu: rc=$?"
  grep -E "tests passed|Test +#|SKIP|worst|isosurface AUTO|two GPUs|devices:|CHECK failed|FAIL|light" "$OUT/gpu_tests.log" | cut -c1-230 | head -70
  (cd build-gpu && ctest -L c -E "test_io|test_empty_space|test_threads|test_pieces|test_api_header" 2>&1 | tail -3)
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_iso --quick > "$OUT/cs_iso.log" 2>&1
  echo "memcheck test_gpu_iso --quick: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs_iso.log")"
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_render --quick > "$OUT/cs_render.log" 2>&1
  echo "memcheck test_gpu_render --quick (shared planes too): rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/cs_render.log")"
  build-gpu/testing/cavr-bench --rotation 1024 --out "$OUT" > "$OUT/rotation_bench.txt" 2>&1; tail -33 "$OUT/rotation_bench.txt"
  R=build-gpu/core/cavr-render
  for view in XY:0:0 XZ:90:0 ZY:0:90 Y45:0:45; do
    IFS=: read -r vn rx ry <<< "$view"
    for m in standard warp auto; do
      j=$($R .devdata/raw/colin27_ch2better_301x370x316_uint8.raw --dims 301,370,316 --type uint8 --size 1024x1024 \
        --backend cuda --blend iso --iso 50 --iso-method $m --shade --rotate-x "$rx" --rotate-y "$ry" --repeat 7 --json \
        -o none 2>/dev/null)
      echo "iso colin27 $vn $m $(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("kernel_ms %.4f frame_ms %.4f last %s" % (d["kernel_ms"], d["ms_median"], d["iso_method"]))' "$j")"
    done
  done | tee "$OUT/iso_auto.txt"
  # Issue 12 item 6 with the device-side super-sampling: cubic + shading + 5 rays, 25% of the rays vs the full frame.
  if [ -f .devdata/ct_shoulder_512x512x450_uint8.raw.gz ]; then
    RAW=.devdata/raw/ct_shoulder_512x512x450_uint8.raw
    [ -f "$RAW" ] || gunzip -c .devdata/ct_shoulder_512x512x450_uint8.raw.gz > "$RAW"
    build-gpu/testing/cavr-compressive-bench --volume "$RAW" --dims 512,512,450 --type uint8 --tf ct-bone --backend cuda \
      --size 1024 --repeat 3 --shade 1 --fractions 0.25,0.5 --interpolation cubic --supersample 5 --name ct_cubic_ss5 \
      --csv "$OUT/iso_compressive.csv" 2>&1 | tee "$OUT/iso_compressive.txt" | tail -12
  fi
  rm -f "$OUT/configure.log" "$OUT/build.log" "$OUT/cs_iso.log"
  exit 0
fi
if [ "$MODE" = rotation ]; then
  # Issue 11, item 3: the in-place rotation kernels: every variant equal to the default's turn, racecheck on the
  # shared-memory staging, then GB/s per variant and storage type against the copy and the in-place control.
  (cd build-gpu && ./testing/test_gpu_rotation > "$OUT/rotation_test.log" 2>&1); echo "test_gpu_rotation: rc=$?"
  grep -E "variants|CHECK" "$OUT/rotation_test.log" | head
  compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/testing/test_gpu_rotation > "$OUT/cs_rotation.log" 2>&1
  echo "racecheck test_gpu_rotation: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/cs_rotation.log")"
  for n in ${ROT_N:-1024 2048}; do build-gpu/testing/cavr-bench --rotation "$n" --out "$OUT" 2>&1 | tee -a "$OUT/rotation_bench.txt"; done
  rm -f "$OUT/configure.log" "$OUT/build.log"
  exit 0
fi
if [ "$MODE" != bench ]; then
  (cd build-gpu && ctest --output-on-failure -L gpu > "$OUT/gpu_tests.log" 2>&1)
  (cd build-gpu && ./testing/test_gpu_render > "$OUT/gpu_render_cases.log" 2>&1)
  grep -E "rot [12]" "$OUT/gpu_render_cases.log" | head -6
  grep -E "worst|Passed|Failed|SKIP|tests passed|CHECK|refused|four quarter|rotated volume" "$OUT/gpu_tests.log" "$OUT/gpu_render_cases.log" | head -40
  grep -B3 "CHECK failed" "$OUT/gpu_tests.log" | head -20
  (cd build-gpu && ctest -L c -E "test_io|test_empty_space|test_threads|test_pieces|test_api_header" 2>&1 | tail -3)
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 build-gpu/testing/test_gpu_render --quick \
    >"$OUT/memcheck.log" 2>&1; echo "memcheck test_gpu_render: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log")"
  grep -E -A6 "^========= (Invalid|Program hit|Leaked|Uninitialized)" "$OUT/memcheck.log" | head -24
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/testing/test_gpu_rotation \
    >"$OUT/memcheck_rot.log" 2>&1; echo "memcheck test_gpu_rotation: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck_rot.log")"
  compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/testing/test_gpu_render --quick \
    >"$OUT/racecheck.log" 2>&1; echo "racecheck test_gpu_render: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log")"
  compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/testing/test_gpu_rotation \
    >"$OUT/racecheck_rot.log" 2>&1; echo "racecheck test_gpu_rotation: rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck_rot.log")"
fi
if [ "$MODE" = profile ]; then
  RAW=.devdata/ct_shoulder_512x512x450_uint8.raw
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" > "$RAW"
  # Kernel throughput and the L1/texture hit rate at theta_y = 0, 30, 90 (standard, auto).
  ncu --kernel-name raycast_kernel --launch-skip 0 --launch-count 12 \
      --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__warps_issue_stalled_tex_throughput_per_warp_active.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
      build-gpu/testing/cavr-bench --raw "$RAW" --dims 512,512,450 --profile > "$OUT/ncu.log" 2>&1
  grep -E "profile theta|raycast_kernel|duration|throughput|hit_rate|inst_executed|registers|warps_active|stalled" "$OUT/ncu.log" | head -150
  exit 0
fi
if [ "$MODE" != tests ]; then
  RAW=.devdata/ct_shoulder_512x512x450_uint8.raw
  [ -f "$RAW" ] || gunzip -c "$RAW.gz" > "$RAW"
  build-gpu/testing/cavr-bench --raw "$RAW" --dims 512,512,450 --out "$OUT" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log"
  python3 testing/bench/plot_bench.py "$OUT/bench.csv" "$OUT" || true
  # At most 8 files come back: keep the ones that matter, fold the logs into one.
  cat "$OUT"/gpu_tests.log "$OUT"/gpu_render_cases.log "$OUT"/memcheck*.log "$OUT"/racecheck*.log > "$OUT/checks.log" 2>/dev/null
  rm -f "$OUT"/gpu_tests.log "$OUT"/gpu_render_cases.log "$OUT"/memcheck*.log "$OUT"/racecheck*.log "$OUT"/configure.log "$OUT"/build.log \
        "$OUT"/fig9_*_x.png "$OUT"/fig9_*_z.png "$OUT"/device.txt
fi

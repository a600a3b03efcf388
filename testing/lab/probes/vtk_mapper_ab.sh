#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Same-run A/B of the mapper against an older tree on the GPU machine (one `device` call): builds this tree and .ab/old
# (prepare here: mkdir -p .ab/old && git archive REV | tar x -C .ab/old; carry .ab and .vtkegl) against
# ../shared/setup/vtk-egl, runs the orbit of cavr-vtk-gpu-bench (Colin27 MRI from data/ at 512^3 and 1024^3, mri.tf, 24
# frames) for old and new in turn, twice, then a host-path-only soak of the new build. Output: $OUT/ab.txt.
set -u
for f in .vtkegl/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -d /opt/vis ] || tar xJf .vtkegl/vtk-9.4.2-egl-install.tar.xz -C /opt
build() { # $1 source dir
  cmake -S "$1" -B "$1/build-vtk" -DCMAKE_BUILD_TYPE=Release -DCAVR_ENABLE_PARAVIEW=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCAVR_BUILD_VTK_GPU_BENCH=ON -DVTK_DIR=/opt/vis/lib/cmake/vtk-9.4 -DCMAKE_POLICY_VERSION_MINIMUM=3.5 > /tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
  cmake --build "$1/build-vtk" -j16 --target cavr-vtk-gpu-bench cavr-vtk-mapper-check > /tmp/build.log 2>&1 || grep error /tmp/build.log | head
}
T0=$(date +%s); build . & build .ab/old; wait; echo "built both in $(( $(date +%s) - T0 )) s"
export LD_LIBRARY_PATH=/opt/vis/lib:${LD_LIBRARY_PATH:-}
mkdir -p .devdata/raw "$OUT/png"
RAW=.devdata/raw/colin27_ch2better_301x370x316_uint8.raw
[ -f "$RAW" ] || gunzip -c data/colin27_ch2better_301x370x316_uint8.raw.gz > "$RAW"
# AB_SIZES: the volumes' sizes (default "512 1024"); CAVR_BENCH_ORBIT_ORDER and CAVR_BENCH_MULTISAMPLES pass through.
for rep in 1 2; do
  for n in ${AB_SIZES:-512 1024}; do
    for which in old new; do
      B=build-vtk/testing/cavr-vtk-gpu-bench; [ $which = old ] && B=.ab/old/build-vtk/testing/cavr-vtk-gpu-bench
      echo "== $which rep $rep n $n"
      $B "$RAW" 301 370 316 testing/bench/mri.tf 1024 0 24 "$OUT/png" $n orbit 2>&1 | grep -E "^orbit|vtk_gpu_mapper |cavr_mapper|vtk_empty|cavr_c_api"
    done
  done
done | tee "$OUT/ab.txt"
CAVR_SOAK_PATHS=host build-vtk/testing/vtk/cavr-vtk-mapper-check soak 6000 > "$OUT/soak_host.log" 2>&1; echo "host-only soak rc=$?"
grep -E "soak:|FAIL|ok: host" "$OUT/soak_host.log" | cut -c1-200
rm -rf "$OUT/png"

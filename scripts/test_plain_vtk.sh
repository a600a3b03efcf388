#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cavr's mapper module in a plain VTK program, built against Debian's VTK 9.1 rather than ParaView's (issue 14,
# item 1). Debian's libvtk9-dev cannot be installed beside ParaView (python3-paraview conflicts with python3-vtk9),
# so its files are unpacked into a private prefix (dpkg -x) over the installed VTK 9.1 runtime libraries; a small
# CMake project then takes cavr with add_subdirectory, builds cavr_vtk_example and runs it headless.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${CAVR_PLAIN_VTK_DIR:-/tmp/cavr-plain-vtk}
mkdir -p "$WORK/debs" "$WORK/prefix"
export DEBIAN_FRONTEND=noninteractive
dpkg -s libvtk9.1 >/dev/null 2>&1 || apt-get -o DPkg::Lock::Timeout=900 install -y -qq libvtk9.1 >/dev/null
if [ ! -d "$WORK/prefix/usr/lib/x86_64-linux-gnu/cmake/vtk-9.1" ]; then
  (cd "$WORK/debs" && apt-get download -qq libvtk9-dev python3-vtk9 2>/dev/null)
  for d in "$WORK"/debs/*.deb; do dpkg -x "$d" "$WORK/prefix"; done
  for f in /usr/lib/x86_64-linux-gnu/libvtk*-9.1.so*; do ln -sf "$f" "$WORK/prefix/usr/lib/x86_64-linux-gnu/"; done
fi
mkdir -p "$WORK/project"
cat > "$WORK/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(cavr_in_a_vtk_program C CXX)
set(CAVR_ENABLE_PARAVIEW OFF CACHE BOOL "" FORCE)
set(CAVR_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
add_subdirectory("$ROOT" cavr)
CMAKE
cmake -S "$WORK/project" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
  -DVTK_DIR="$WORK/prefix/usr/lib/x86_64-linux-gnu/cmake/vtk-9.1" >"$WORK/configure.log" 2>&1 ||
  { tail -30 "$WORK/configure.log"; exit 1; }
grep -q "building the mapper module cavr::Mapper" "$WORK/configure.log" || { echo "FAIL: cavr::Mapper not configured"; exit 1; }
cmake --build "$WORK/build" -j"$(nproc)" --target cavr_vtk_example >"$WORK/build.log" 2>&1 ||
  { grep -E "error" "$WORK/build.log" | head -20; exit 1; }
timeout 300 xvfb-run -a -s "-screen 0 1024x1024x24 -noreset" "$WORK/build/cavr/testing/vtk/cavr_vtk_example" "$WORK"

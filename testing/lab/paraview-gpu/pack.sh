#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Make the parts that carry ParaView 5.11, its GUI, Open MPI, the plugin (built here with CUDA for sm_90) and a CT to
# the GPU machine (lab, not product). Run on this Debian 12 machine from the checkout's root after
# scripts/install-deps.sh; writes the git-ignored folder .pvgpu/ with one sub-folder per device call, each small
# enough to travel with the working tree (a call carries at most 64 MiB, the tree included):
#   glx1 glx2          Xvfb, Mesa and the GL loaders (../shared/setup/glx-on-device.md), split in two
#   pv1 .. pv5         Debian's ParaView 5.11 run-time closure (../shared/setup/paraview-gpu/pack.sh makes them)
#   extra              openmpi-bin (mpiexec for pvbatch/pvserver), the ParaView GUI (its binary and the Qt/xcb
#                      libraries the closure lacks), the build's plugin (build.tar.xz)
#   data               the CT shoulder (../shared/data, not ours to commit) as data.tar.xz
# Then, on the device, one call per part, back to back (a machine is released 30 s after a call; device.sh says how):
#   run: bash testing/lab/paraview-gpu/device.sh stage      carry: [".pvgpu/glx1"]   ... and so on, last:
#   run: bash testing/lab/paraview-gpu/device.sh info tests  carry: [".pvgpu/data"]
# About 10 minutes on 2 cores the first time (xz), seconds when only the build changed (PVGPU_ONLY=extra).
set -euo pipefail
ROOT=$(pwd)
SHARED=${PVGPU_SHARED:-$ROOT/../shared}
W=${PVGPU_WORK:-/tmp/paraview-gpu}
P=$ROOT/.pvgpu
LIMIT=$((44 * 1024 * 1024)) # bytes a part may hold: 64 MiB less the working tree (about 19 MiB) and a margin
mkdir -p "$P" "$W/extra"
grep -qx "/.pvgpu/" .gitignore || { echo "pack.sh: .pvgpu/ must be git-ignored" >&2; exit 1; }

if [ -z "${PVGPU_ONLY:-}" ]; then
  # ParaView's closure and the X server, as the shared recipe makes them (.glx, .pv1 .. .pv5 in the checkout).
  [ -e .pv5/part5.tar.xz ] || bash "$SHARED/setup/paraview-gpu/pack.sh"
  for i in 1 2 3 4 5; do mkdir -p "$P/pv$i" && cp -l .pv$i/*.tar.xz "$P/pv$i/" 2>/dev/null || cp .pv$i/*.tar.xz "$P/pv$i/"; done
  # .glx is ~59 MB of .deb files: two parts of about equal size.
  rm -rf "$P/glx1" "$P/glx2" && mkdir -p "$P/glx1" "$P/glx2"
  a=0 b=0
  while read -r size f; do
    if [ $a -le $b ]; then cp "$f" "$P/glx1/"; a=$((a + size)); else cp "$f" "$P/glx2/"; b=$((b + size)); fi
  done < <(du -b .glx/*.deb | sort -rn)
  # The CT (not ours to commit: it travels as a lab part, never in the tree).
  rm -rf "$P/data" && mkdir -p "$P/data"
  gzip -dc "$SHARED/data/ct_shoulder_512x512x450_uint8.raw.gz" >"$W/ct_shoulder_512x512x450_uint8.raw"
  sed 's/encoding: gzip/encoding: raw/; s/\.raw\.gz/.raw/' "$SHARED/data/ct_shoulder_512x512x450_uint8.nhdr" \
    >"$W/ct_shoulder_512x512x450_uint8.nhdr"
  (cd "$W" && tar cf - ct_shoulder_512x512x450_uint8.nhdr ct_shoulder_512x512x450_uint8.raw | xz -9 -T2 >"$P/data/data.tar.xz")
fi

# Extras: Open MPI's launcher, the GUI, the plugin.
rm -rf "$P/extra" && mkdir -p "$P/extra"
(cd "$W/extra" && rm -f ./*.deb && apt-get download openmpi-bin openmpi-common libqt5dbus5 libqt5opengl5 libsystemd0 \
  libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 libxcb-util1 libxcb-xinerama0 \
  libxcb-xinput0 libxcb-xkb1 libxkbcommon-x11-0 libxkbcommon0 libdbus-1-3 fontconfig-config fonts-dejavu-core \
  libfontconfig1 >/dev/null 2>&1)
cp "$W"/extra/*.deb "$P/extra/"
# The GUI binary: the shared pack drops usr/bin/paraview from the closure.
rm -rf "$W/gui" && mkdir -p "$W/gui" && dpkg -x "$(ls "$W"/debs/paraview_*.deb | head -n 1)" "$W/gui"
(cd "$W/gui" && tar cf - usr/bin/paraview | xz -T2 >"$P/extra/gui.tar.xz")
# The plugin with native code for the device's GPUs (Hopper): a build/ made for other architectures is reconfigured.
grep -q '^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=.*90' build/CMakeCache.txt 2>/dev/null ||
  scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
[ -e build/lib/paraview-plugins/cavr/cavr.so ] || scripts/build.sh
grep -q "CUDA back end ON" build/configure.log || { echo "pack.sh: build/ has no CUDA back end" >&2; exit 1; }
tar cf - build/lib/paraview-plugins | xz -T2 >"$P/extra/build.tar.xz"

tree=$(git ls-files -z | xargs -0 du -cb | tail -n 1 | cut -f1)
status=0
for d in "$P"/*/; do
  size=$(du -cb "$d" | tail -n 1 | cut -f1)
  awk -v n="$(basename "$d")" -v s="$size" -v t="$tree" 'BEGIN { printf "%-8s %6.1f MiB (+ tree %.1f MiB)\n", n, s / 1048576, t / 1048576 }'
  [ "$size" -le $LIMIT ] || { echo "pack.sh: $(basename "$d") is over the 44 MiB a part may hold" >&2; status=1; }
done
exit $status

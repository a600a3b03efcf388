#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Make the parts that carry Debian sid's ParaView 6.1.1 and the plugin built against it (CUDA for sm_90) to the GPU
# machine (lab, not product). sid's glibc is newer than the GPU machine's (Ubuntu 24.04), so ParaView runs there in a
# chroot of a sid root (device.sh with PVGPU_SUITE=sid). Run as root on this Debian machine from the checkout's root;
# needs the network to a Debian mirror. Writes into .pvgpu/ (git-ignored):
#   sid00 .. sidNN   one tar.xz of the pruned sid root (sid_closure.py: ParaView, Python 3.14, Xvfb, Mesa, Open MPI
#                    and the shared libraries they need), cut in pieces of PIECE_MIB (default 37) MiB
#   sidplugin        build61.tar.xz (the plugin) and dirs.txt (the root's directories), carried with the last piece
# Two chroots under CAVR_CHROOT_ROOT (default /var/cache/cavr/chroots), kept and reused: sid-rt (the run-time root:
# debootstrap + ParaView's run-time packages) and sid (the SDK, made by scripts/paraview_versions.sh), where the
# plugin is built in /root/cavr-build-cuda with this machine's CUDA toolkit bind-mounted. CUDA 13.0's math_functions.h
# declares rsqrt/rsqrtf without glibc 2.42's noexcept: a patched copy is mounted over it inside the chroot only.
# About 12 minutes on 2 cores the first time (debootstrap, the plugin's build, xz), 8 after (xz).
set -euo pipefail
ROOT=$(pwd)
LAB=$ROOT/testing/lab/paraview-gpu
CHROOTS=${CAVR_CHROOT_ROOT:-/var/cache/cavr/chroots}
RT=$CHROOTS/sid-rt
SDK=$CHROOTS/sid
CUDA=${CUDA_HOME:-/usr/local/cuda}
CUDA=$(readlink -f "$CUDA")
W=${PVGPU_WORK:-/tmp/paraview-gpu-sid}
P=$ROOT/.pvgpu
PIECE_MIB=${PIECE_MIB:-37}
MIRROR=${CAVR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
RT_PACKAGES="paraview python3-paraview python3-numpy xvfb xauth openmpi-bin mesa-utils libgl1-mesa-dri libglx-mesa0 procps"
grep -qx "/.pvgpu/" .gitignore || { echo "pack_sid.sh: .pvgpu/ must be git-ignored" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "pack_sid.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
mkdir -p "$W" "$P"

MOUNTS=()
unmount_all() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}"; done
  MOUNTS=()
}
trap unmount_all EXIT
mount_at() { # TARGET MOUNT-ARGS...
  local target=$1
  shift
  [ -e "$target" ] || mkdir -p "$target"
  mount "$@" "$target"
  MOUNTS+=("$target")
}
in_chroot() { # CHROOT COMMAND: sh -ec COMMAND in the chroot with a clean environment
  chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive sh -ec "$2"
}

echo "== the run-time root ($RT)"
if [ ! -e "$RT/.cavr-debootstrap-done" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
  rm -rf --one-file-system "$RT" && mkdir -p "$RT"
  debootstrap --variant=minbase sid "$RT" "$MIRROR" >"$W/debootstrap.log" 2>&1 || { tail -20 "$W/debootstrap.log"; exit 3; }
  touch "$RT/.cavr-debootstrap-done"
fi
echo 'Acquire::Check-Valid-Until "false";' >"$RT/etc/apt/apt.conf.d/99cavr-valid-until"
printf '#!/bin/sh\nexit 101\n' >"$RT/usr/sbin/policy-rc.d" && chmod +x "$RT/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$RT/etc/resolv.conf"
mount_at "$RT/proc" -t proc proc
in_chroot "$RT" "dpkg -s $RT_PACKAGES >/dev/null 2>&1 || { apt-get update -qq &&
  apt-get install -y -qq --no-install-recommends $RT_PACKAGES >/root/apt.log 2>&1 || { tail -40 /root/apt.log; exit 1; }; }
  dpkg-query -W -f '\${Package} \${Version}\n' paraview python3 libc6 openmpi-bin xvfb mesa-utils"
unmount_all

echo "== the plugin against ParaView 6.1 (SDK chroot $SDK, CUDA $CUDA)"
[ -e "$SDK/.cavr-debootstrap-done" ] || CAVR_STEPS=sdk bash scripts/paraview_versions.sh sid
hdr=targets/x86_64-linux/include/crt/math_functions.h
# Rewritten only when it changes: a new file time would make the next build recompile every kernel.
sed -E 's/^(extern .* (rsqrt|rsqrtf)\((double|float) x\));$/\1 __THROW;/' "$CUDA/$hdr" >"$W/math_functions.h.new"
cmp -s "$W/math_functions.h.new" "$W/math_functions.h" || mv "$W/math_functions.h.new" "$W/math_functions.h"
mount_at "$SDK/proc" -t proc proc
mount_at "$SDK/dev" --bind /dev
mount_at "$SDK/cavr" --bind "$ROOT"
mount_at "$SDK$CUDA" --bind "$CUDA"
mount_at "$SDK$CUDA/$hdr" --bind "$W/math_functions.h"
in_chroot "$SDK" "dpkg -s g++-14 >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends g++-14 >/root/apt-gcc14.log 2>&1
  cmake -S /cavr -B /root/cavr-build-cuda -DCMAKE_BUILD_TYPE=Release -DCAVR_REQUIRE_IO_LIBS=ON \
    -DCMAKE_CUDA_COMPILER=$CUDA/bin/nvcc -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-14 -DCMAKE_CUDA_ARCHITECTURES=90 \
    >/root/cavr-build-cuda-configure.log 2>&1 || { tail -40 /root/cavr-build-cuda-configure.log; exit 1; }
  grep -q 'CUDA back end ON' /root/cavr-build-cuda-configure.log || { echo 'no CUDA back end'; exit 1; }
  nice cmake --build /root/cavr-build-cuda -j$(nproc) --target cavr >/root/cavr-build-cuda.log 2>&1 ||
    { grep -E -B2 -A8 error /root/cavr-build-cuda.log | tail -60; exit 1; }"
unmount_all
PLUGIN=$SDK/root/cavr-build-cuda/lib/paraview-plugins/cavr/cavr.so

echo "== the pruned root, in pieces of $PIECE_MIB MiB"
python3 "$LAB/sid_closure.py" "$RT" "$W/files.txt" "$W/dirs.txt" "$PLUGIN"
rm -rf "$P"/sid[0-9]* "$P/sidplugin"
(cd "$RT" && tar cf - --no-recursion -T "$W/files.txt" 2>/dev/null | xz -6 -T"$(nproc)" >"$W/root.tar.xz")
(cd "$W" && rm -f root.tar.xz.* && split -b "${PIECE_MIB}M" -d -a 2 root.tar.xz root.tar.xz.)
for f in "$W"/root.tar.xz.*; do
  n=${f##*.}
  mkdir -p "$P/sid$n" && mv "$f" "$P/sid$n/"
done
ls "$P"/sid[0-9]*/ -d | wc -l >"$W/pieces"
mkdir -p "$P/sidplugin" "$W/build61/lib/paraview-plugins/cavr"
cp "$PLUGIN" "$W/build61/lib/paraview-plugins/cavr/"
(cd "$W" && tar cf - build61 | xz -T"$(nproc)" >"$P/sidplugin/build61.tar.xz")
cp "$W/dirs.txt" "$W/pieces" "$P/sidplugin/"
du -sh "$P"/sid*

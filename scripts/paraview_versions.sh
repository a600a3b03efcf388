#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cavr on the ParaView of other Debian releases: for each SUITE, a debootstrap chroot with that suite's ParaView
# SDK, cavr built in it (CPU back end) and its pvpython tests run there (ctest -L pvpython, each test under its own
# Xvfb as on the host).
#
#   scripts/paraview_versions.sh [SUITE...]     SUITE: bookworm (ParaView 5.11), trixie (5.13), sid (6.1); default sid
#
# Needs root (runs itself under sudo otherwise), a Debian host (debootstrap is installed when missing) and the
# network to a Debian mirror. A chroot is kept and reused: CAVR_CHROOT_ROOT (default /var/cache/cavr/chroots) holds
# one folder per suite; a second run only installs what is missing from the list (no upgrade) and, cavr's build
# folder being inside the chroot (/root/cavr-build), builds incrementally; CAVR_CHROOT_FRESH=1 removes the suite's
# chroot first. One run per suite at a time. The source tree is bind-mounted at /cavr; /proc, /sys, /dev, /dev/pts
# and /dev/shm are mounted for the tests; every mount is undone on exit, failure included.
#
# Other settings: CAVR_DEBIAN_MIRROR (default http://deb.debian.org/debian), CAVR_CTEST_ARGS (default
# "-L pvpython": then only the plugin is built, the one target those tests use; other labels build everything),
# CAVR_JOBS (default: the host's cores; the build's jobs and ctest's), CAVR_STEPS (default "all"; "sdk": only make the
# chroot and install its SDK, e.g. in the background while other work holds the cores, as .ci/run does). The exit status
# is the first failing suite's: 3 where Debian's archive failed us (debootstrap or the package install: no mirror, or
# a suite whose packages cannot be installed together that day, which happens in sid), 1 for anything else (cavr's
# configure, build or tests, a mount); each suite's step times are printed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHROOT_ROOT=${CAVR_CHROOT_ROOT:-/var/cache/cavr/chroots}
MIRROR=${CAVR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CTEST_ARGS=${CAVR_CTEST_ARGS:--L pvpython}
JOBS=${CAVR_JOBS:-$(nproc)}
STEPS=${CAVR_STEPS:-all}
TARGET=""
[ "$CTEST_ARGS" = "-L pvpython" ] && TARGET=cavr # the pvpython tests need the plugin alone
[ $# -gt 0 ] || set -- sid

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    exec sudo --preserve-env=CAVR_CHROOT_ROOT,CAVR_CHROOT_FRESH,CAVR_DEBIAN_MIRROR,CAVR_CTEST_ARGS,CAVR_JOBS,CAVR_STEPS "$0" "$@"
  fi
  echo "paraview_versions: needs root (debootstrap, chroot, mounts)" >&2
  exit 2
fi
case $STEPS in
  all | sdk) ;;
  *) echo "paraview_versions: CAVR_STEPS must be all or sdk, not '$STEPS'" >&2; exit 2 ;;
esac
for suite in "$@"; do
  case $suite in
    bookworm | trixie | sid) ;;
    *) echo "paraview_versions: unknown suite '$suite' (bookworm, trixie or sid)" >&2; exit 2 ;;
  esac
done
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# The packages of scripts/debian_packages.sh per suite: ParaView 5.11 is built on Qt 5, 5.13 and 6.1 on Qt 6; sid's
# ParaView CMake files also name targets of Debian's separate VTK (libvtk9-dev).
. "$ROOT/scripts/debian_packages.sh"
COMMON=("${CAVR_PKGS_BUILD[@]}" "${CAVR_PKGS_PARAVIEW[@]}")
packages() {
  case $1 in
    bookworm) echo "${COMMON[@]}" "${CAVR_PKGS_QT5[@]}" ;;
    trixie) echo "${COMMON[@]}" "${CAVR_PKGS_QT6[@]}" ;;
    sid) echo "${COMMON[@]}" "${CAVR_PKGS_QT6[@]}" libvtk9-dev ;;
  esac
}

MOUNTS=()
unmount_all() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null ||
      echo "paraview_versions: could not unmount ${MOUNTS[i]}" >&2
  done
  MOUNTS=()
}
trap unmount_all EXIT
trap 'exit 130' INT TERM
# mount_at TARGET MOUNT-ARGS...: mount, and remember it for unmount_all
mount_at() {
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  MOUNTS+=("$target")
}

# unmount_stale DIR: mounts under DIR left by a run that was killed (SIGKILL leaves no trap to run); one run per suite
# at a time.
unmount_stale() {
  local m
  awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    echo "paraview_versions: unmounting $m, left by an earlier run" >&2
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}

stamp() { date +%s; }
minutes() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", (e - s) / 60 }'; }

run_suite() {
  local suite=$1 ch="$CHROOT_ROOT/$1" t0 t1 t2 t3 t4
  t0=$(stamp)
  unmount_stale "$ch"
  if [ "${CAVR_CHROOT_FRESH:-0}" = 1 ] && [ -d "$ch" ]; then
    echo "== $suite: removing $ch (CAVR_CHROOT_FRESH=1) =="
    rm -rf --one-file-system "$ch"
  fi
  if [ ! -e "$ch/.cavr-debootstrap-done" ]; then
    echo "== $suite: debootstrap into $ch =="
    rm -rf --one-file-system "$ch"
    mkdir -p "$ch"
    debootstrap --variant=minbase "$suite" "$ch" "$MIRROR" >"$CHROOT_ROOT/$suite-debootstrap.log" 2>&1 ||
      { tail -n 30 "$CHROOT_ROOT/$suite-debootstrap.log"; return 3; }
    touch "$ch/.cavr-debootstrap-done"
  fi
  # sid's Release file carries a Valid-Until date that a machine with a clock ahead of the archive (or an old
  # snapshot) sees as expired; apt then refuses the index.
  if [ "$suite" = sid ]; then
    echo 'Acquire::Check-Valid-Until "false";' >"$ch/etc/apt/apt.conf.d/99cavr-valid-until"
  fi
  # Services must not start inside the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$ch/usr/sbin/policy-rc.d"
  chmod +x "$ch/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$ch/etc/resolv.conf" 2>/dev/null || true
  t1=$(stamp)

  mount_at "$ch/proc" -t proc proc
  mount_at "$ch/sys" --bind /sys
  mount_at "$ch/dev" --bind /dev
  mount_at "$ch/dev/pts" --bind /dev/pts
  mount_at "$ch/dev/shm" -t tmpfs -o mode=1777 shm
  mount_at "$ch/cavr" --bind "$ROOT"

  echo "== $suite: ParaView SDK =="
  # shellcheck disable=SC2046 # the package list splits on spaces
  chroot "$ch" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive \
    sh -ec 'apt-get update -qq
            suite=$1; shift
            for p in "$@"; do # a -dev package that the suite dropped is reported and skipped
              if apt-cache show "$p" >/dev/null 2>&1; then set -- "$@" "$p"; else echo "not in $suite: $p"; fi
              shift
            done
            apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "$@" >/root/cavr-apt.log 2>&1 ||
              { tail -n 40 /root/cavr-apt.log; exit 1; }
            dpkg-query -W -f "\${Package} \${Version}\n" paraview-dev cmake' sh "$suite" $(packages "$suite") ||
    { echo "paraview_versions: $suite: the package install failed (Debian's archive, not cavr)" >&2; return 3; }
  # Debian's module-name problem (docs/user-guide.md, "Debian 13 and later"): links from the names that the CMake
  # files use to the renamed Python modules, only where the file is missing.
  chroot "$ch" /usr/bin/python3 /cavr/scripts/debian_module_links.py >"$ch/root/cavr-links.log"
  t2=$(stamp)
  if [ "$STEPS" = sdk ]; then
    unmount_all
    echo "== $suite: chroot and SDK ready; minutes: chroot $(minutes "$t0" "$t1"), SDK $(minutes "$t1" "$t2") =="
    return 0
  fi

  echo "== $suite: configure and build cavr (CPU back end${TARGET:+, target $TARGET}) in /root/cavr-build =="
  chroot "$ch" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root JOBS="$JOBS" TARGET="$TARGET" \
    sh -ec 'cmake -S /cavr -B /root/cavr-build -DCMAKE_BUILD_TYPE=Release -DCAVR_REQUIRE_IO_LIBS=ON \
              -DCAVR_ENABLE_CUDA=OFF >/root/cavr-build-configure.log 2>&1 ||
              { cat /root/cavr-build-configure.log; exit 1; }
            grep -E "cavr: (ParaView|CUDA)" /root/cavr-build-configure.log
            grep -q "building the plugin" /root/cavr-build-configure.log ||
              { echo "paraview_versions: ParaView was not found, the plugin would not be built" >&2; exit 1; }
            nice -n 10 cmake --build /root/cavr-build -j"$JOBS" ${TARGET:+--target "$TARGET"} >/root/cavr-build.log 2>&1 ||
              { grep -E -B2 -A8 "error|Error" /root/cavr-build.log | tail -n 80; exit 1; }
            if grep -q "warning:" /root/cavr-build.log; then
              echo "compiler warnings:"; grep -A3 "warning:" /root/cavr-build.log | head -n 60
            fi'
  t3=$(stamp)

  echo "== $suite: ctest $CTEST_ARGS =="
  # shellcheck disable=SC2086 # CTEST_ARGS holds several words
  chroot "$ch" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root JOBS="$JOBS" \
    sh -ec 'cd /root/cavr-build && ctest --output-on-failure -j"$JOBS" "$@"' sh $CTEST_ARGS
  t4=$(stamp)
  unmount_all
  echo "== $suite: passed; minutes: chroot $(minutes "$t0" "$t1"), SDK $(minutes "$t1" "$t2")," \
    "build $(minutes "$t2" "$t3"), tests $(minutes "$t3" "$t4"), total $(minutes "$t0" "$t4") =="
}

main() {
  mkdir -p "$CHROOT_ROOT"
  local suite
  for suite in "$@"; do
    run_suite "$suite"
  done
}
# On one line: bash has read all of the script before it runs, so editing the file meanwhile cannot change a run.
main "$@"; exit

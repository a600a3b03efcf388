#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what cavr needs on Debian 12 (bookworm): compilers, CMake, teem, libpng, ParaView 5.11 with its
# development files, Xvfb and MPI; clang with its sanitizer and libFuzzer
# runtimes (libclang-rt-14-dev) for the fuzz harnesses in testing/fuzz/. Idempotent; needs root.
set -euo pipefail
. "$(dirname "$0")/debian_packages.sh"
PKGS=("${CAVR_PKGS_BUILD[@]}" teem-apps clang libclang-rt-14-dev "${CAVR_PKGS_PARAVIEW[@]}" "${CAVR_PKGS_QT5[@]}")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "cavr: installing ${#missing[@]} Debian packages" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what cavr needs on Debian 12 (bookworm): compilers, CMake, teem, libpng, ParaView 5.11 with its
# development files, Xvfb and MPI; clang with its sanitizer and libFuzzer
# runtimes (libclang-rt-14-dev) for the fuzz harnesses in testing/fuzz/. Idempotent; needs root.
set -euo pipefail
PKGS=(build-essential cmake pkg-config libteem-dev teem-apps libpng-dev zlib1g-dev libbz2-dev clang libclang-rt-14-dev
  paraview paraview-dev python3-paraview python3-numpy xvfb xauth mpi-default-bin mpi-default-dev
  qtbase5-dev qttools5-dev libqt5svg5-dev qtxmlpatterns5-dev-tools libqt5xmlpatterns5-dev
  libqt5x11extras5-dev libqt5opengl5-dev qtmultimedia5-dev
  libutfcpp-dev libhdf5-dev libhdf5-mpi-dev libhdf5-openmpi-dev libdouble-conversion-dev libeigen3-dev
  libexpat1-dev libfreetype6-dev libgl1-mesa-dev libgl2ps-dev libglew-dev libglu1-mesa-dev
  libjpeg-dev libjsoncpp-dev liblz4-dev liblzma-dev libnetcdf-cxx-legacy-dev libnetcdf-dev
  libpython3-dev libtheora-dev libogg-dev libtiff-dev libx11-dev libxml2-dev libxt-dev
  libprotobuf-dev protobuf-compiler libcgns-dev libpugixml-dev libfmt-dev
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libtbb-dev libproj-dev libgdal-dev
  default-libmysqlclient-dev libpq-dev libxft-dev libxss-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "cavr: installing ${#missing[@]} Debian packages" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

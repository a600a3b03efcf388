# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages cavr builds and tests with, in one place: sourced by scripts/install-deps.sh (this machine,
# Debian 12) and scripts/paraview_versions.sh (a chroot per suite). CAVR_PKGS_PARAVIEW is the ParaView SDK of
# ../shared/setup/debian-paraview-sdk.md (what find_package(ParaView) needs beside paraview-dev) with Xvfb and MPI
# for the tests; ParaView 5.11 is built on Qt 5 (CAVR_PKGS_QT5), 5.13 and 6.1 on Qt 6 (CAVR_PKGS_QT6).
CAVR_PKGS_BUILD=(build-essential cmake pkg-config libteem-dev libpng-dev zlib1g-dev libbz2-dev)
CAVR_PKGS_PARAVIEW=(paraview paraview-dev python3-paraview python3-numpy xvfb xauth mpi-default-bin mpi-default-dev
  libutfcpp-dev libhdf5-dev libhdf5-mpi-dev libhdf5-openmpi-dev libdouble-conversion-dev libeigen3-dev
  libexpat1-dev libfreetype-dev libgl1-mesa-dev libgl2ps-dev libglew-dev libglu1-mesa-dev
  libjpeg-dev libjsoncpp-dev liblz4-dev liblzma-dev libnetcdf-cxx-legacy-dev libnetcdf-dev
  libpython3-dev libtheora-dev libogg-dev libtiff-dev libx11-dev libxml2-dev libxt-dev
  libprotobuf-dev protobuf-compiler libcgns-dev libpugixml-dev libfmt-dev
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libtbb-dev libproj-dev libgdal-dev
  default-libmysqlclient-dev libpq-dev libxft-dev libxss-dev)
CAVR_PKGS_QT5=(qtbase5-dev qttools5-dev libqt5svg5-dev qtxmlpatterns5-dev-tools libqt5xmlpatterns5-dev
  libqt5x11extras5-dev libqt5opengl5-dev qtmultimedia5-dev)
CAVR_PKGS_QT6=(qt6-base-dev qt6-5compat-dev qt6-tools-dev qt6-svg-dev)

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up and run bench_cpu_vs_vtk.py: Debian's optimised VTK 9.1 beside ParaView (its Python bindings are
# unpacked, not installed, because python3-vtk9 conflicts with python3-paraview), then the benchmark.
# Usage: testing/bench/run_cpu_vs_vtk.sh [VOLUME.nhdr] [extra args]   (default: ../shared/data CT shoulder)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VOL=${1:-$ROOT/../shared/data/ct_shoulder_512x512x450_uint8.nhdr}
shift || true
[ -f "$VOL" ] || { echo "no volume $VOL (../shared/data absent?): skipped"; exit 0; }
if [ ! -d /opt/vtk91py/usr/lib/python3/dist-packages/vtkmodules ]; then
  apt-get install -y -qq --no-install-recommends libvtk9.1 >/dev/null
  (cd /tmp && apt-get download python3-vtk9 >/dev/null && dpkg -x python3-vtk9_*.deb /opt/vtk91py)
fi
[ -x "$ROOT/build/core/cavr-render" ] || "$ROOT/scripts/build.sh" >/dev/null
PYTHONPATH=/opt/vtk91py/usr/lib/python3/dist-packages xvfb-run -a /usr/bin/python3 \
  "$ROOT/testing/bench/bench_cpu_vs_vtk.py" --cavr-render "$ROOT/build/core/cavr-render" --volume "$VOL" \
  --out "$ROOT/build/bench-out" "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Client-server sessions (issue 10): a pvpython client connected to pvserver on a local port, 1 rank and 2 MPI
# ranks, renders a real CT (headsq, raw NRRD so the ranks split it; cs_render.py checks the split) and each
# picture must equal the one-process render (PSNR >= 45 dB) and not be empty. Covered: the plugin loaded by
# LoadPlugin on both sides in both orders, and auto-loaded on both sides through PV_PLUGIN_PATH; "cavr Volume"
# unshaded and shaded; ParaView's own "Volume" with the plugin loaded; the ParaView GUI as the client. Rendering happens on the server ranks
# (volumes are never delivered to the client); IceT composites them and the image reaches the client.
# Every server runs under `timeout`, is waited for with a bound, and is killed on exit.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${DISPLAY:-}" ]; then # one X server for every process (-noreset: no reset between clients)
  exec xvfb-run -a -s "-screen 0 1024x1024x24 -noreset" bash "$0" "$@"
fi
: "${CAVR_PLUGIN:?CAVR_PLUGIN must name the built plugin (cavr.so)}"
OUT=${CAVR_TEST_OUT:-/tmp}/client_server
mkdir -p "$OUT"
export CAVR_TEST_OUT=$OUT
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
LIMIT=180 # seconds for any one server or client
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() { env -u PYTHONHOME -u PYTHONPATH python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server NAME RANKS [ENV=VALUE...]: pvserver (under mpiexec when RANKS > 1) on a free port in its own
# process group; sets PORT once it accepts connections (at most 60 s).
start_server() {
  local name=$1 ranks=$2
  shift 2
  PORT=$(free_port)
  local cmd=(pvserver --sp="$PORT" --force-offscreen-rendering)
  if [ "$ranks" -gt 1 ]; then
    local xs=(-x DISPLAY)
    for kv in "$@"; do xs+=(-x "${kv%%=*}"); done
    cmd=(mpiexec --allow-run-as-root --oversubscribe "${xs[@]}" -np "$ranks" pvserver --mpi --sp="$PORT"
      --force-offscreen-rendering)
  fi
  env "$@" setsid timeout "$LIMIT" "${cmd[@]}" >"$OUT/$name.server.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 120); do
    grep -q "Accepting connection" "$OUT/$name.server.log" 2>/dev/null && return 0
    sleep 0.5
  done
  cat "$OUT/$name.server.log"
  echo "FAIL: $name: pvserver did not accept connections within 60 s"
  exit 1
}

render() { # render NAME [cs_render.py options...]: one client or one-process render to $OUT/NAME.png
  local name=$1
  shift
  echo "== $name"
  timeout "$LIMIT" pvpython --force-offscreen-rendering "$HERE/cs_render.py" "$OUT/$name.png" "$@" \
    >"$OUT/$name.log" 2>&1 || { grep -v "^ *[0-9]* *0x" "$OUT/$name.log" | tail -30; echo "FAIL: $name"; exit 1; }
  grep -E "session|ProcessId|lit" "$OUT/$name.log"
}

compare() { pvpython "$HERE/compare_png.py" "$OUT/$1.png" "$OUT/$2.png" 45; }

# One-process references.
render ref_cavr --load local
render ref_cavr_shaded --load local --shade 1
render ref_volume --load none --representation Volume

start_server one_rank 1
render cs1_cavr --server "$PORT" --load local,remote
compare ref_cavr cs1_cavr

start_server two_ranks 2
render cs2_cavr --server "$PORT" --ranks 2 --load remote,local --every-representation
grep "^representation" "$OUT/cs2_cavr.log"
compare ref_cavr cs2_cavr

PLUGIN_DIR=$(dirname "$CAVR_PLUGIN")
start_server two_ranks_autoload 2 PV_PLUGIN_PATH="$PLUGIN_DIR"
PV_PLUGIN_PATH="$PLUGIN_DIR" render cs2_cavr_shaded_autoload --server "$PORT" --ranks 2 --load none --shade 1
compare ref_cavr_shaded cs2_cavr_shaded_autoload

start_server two_ranks_volume 2
render cs2_volume --server "$PORT" --ranks 2 --load local,remote --representation Volume
compare ref_volume cs2_volume

# The GUI client (paraview --server-url), both sides auto-loading the plugin, 2 ranks.
start_server two_ranks_gui 2 PV_PLUGIN_PATH="$PLUGIN_DIR"
echo "== gui_cs2_cavr"
PV_PLUGIN_PATH="$PLUGIN_DIR" CAVR_GUI_LOG="$OUT/gui_cs2_cavr.log" \
  CAVR_GUI_ARGS="$OUT/gui_cs2_cavr.png --remote --ranks 2 --load none" \
  timeout "$LIMIT" paraview --dr --server-url="cs://localhost:$PORT" --script="$HERE/cs_gui.py" \
  >"$OUT/gui_cs2_cavr.client.log" 2>&1 || true
cat "$OUT/gui_cs2_cavr.log" 2>/dev/null || true
tail -n 1 "$OUT/gui_cs2_cavr.log" 2>/dev/null | grep -qx PASS || { tail -20 "$OUT/gui_cs2_cavr.client.log"; echo "FAIL: GUI client"; exit 1; }
compare ref_cavr gui_cs2_cavr

start_server one_rank_volume 1 PV_PLUGIN_PATH="$PLUGIN_DIR"
PV_PLUGIN_PATH="$PLUGIN_DIR" render cs1_volume --server "$PORT" --load none --representation Volume
compare ref_volume cs1_volume
echo "PASS"

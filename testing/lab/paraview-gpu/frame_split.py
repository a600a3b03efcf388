# SPDX-License-Identifier: BSD-3-Clause
"""Where the time of a ParaView frame with "cavr Volume" goes (lab probe for issue 28, item 3): the same orbit as
bench_pv_gpu.py, with VTK's timer log on, for an empty view, cavr Volume and ParaView's Volume (GPU Based), and for
cavr Volume with depth peeling off. Per frame, the timer log's events (ParaView's "Still Render", each renderer's
"OpenGL Dev Render", the mapper's "cavr Volume: ..." phases) are summed by name; the table gives each event's median
over the orbit beside the whole frame (Render() + WaitForCompletion(), measured in Python).

  pvpython frame_split.py --plugin cavr.so --volume A.nhdr [--volume B.nhdr] [--size 1024] [--views 12] --csv out.csv
"""
import argparse
import csv
import os
import sys
import time

import numpy as np
from paraview.simple import ColorBy, Hide, LoadPlugin, OpenDataFile, Render, Show
from vtkmodules.vtkCommonSystem import vtkTimerLog

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "pvpython"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from cavr_pvtest import cavr_info, view  # noqa: E402
from pv_bench_scene import apply_tf, centre_radius, orbit_view, timer_sums  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--plugin", default=os.environ.get("CAVR_PLUGIN"))
p.add_argument("--volume", action="append", default=[])
p.add_argument("--size", type=int, default=1024)
p.add_argument("--views", type=int, default=12)
p.add_argument("--backend", default="CUDA")
p.add_argument("--csv", default="frame_split.csv")
p.add_argument("--cavr-only", action="store_true", help="leave out ParaView's Volume and the depth-peeling variant")
args = p.parse_args()
LoadPlugin(args.plugin, remote=False, ns=globals())
# Under pvbatch with several ranks every rank runs this script; rank 0 prints (its timer log holds IceT's compositing).
from paraview import servermanager  # noqa: E402
pm = servermanager.vtkProcessModule.GetProcessModule()
RANK, RANKS = pm.GetPartitionId(), pm.GetNumberOfLocalPartitions()
if RANK:
    sys.stdout = open(os.devnull, "w")
print("ranks: %d" % RANKS)
v = view((args.size, args.size))
win = v.GetRenderWindow()
Render(v)
print("GL_RENDERER:", win.ReportCapabilities().split("OpenGL renderer string:")[-1].splitlines()[0].strip())
rows = []


def orbit(label, name, centre, radius, d=None):
    for k in range(2):  # warm-up (delivery, upload)
        orbit_view(v, centre, radius, k, args.views)
        Render(v)
        win.WaitForCompletion()
    per_name, frames, calls = {}, [], []
    vtkTimerLog.SetMaxEntries(200000)
    for k in range(args.views):
        orbit_view(v, centre, radius, k, args.views)
        vtkTimerLog.ResetLog()
        vtkTimerLog.LoggingOn()
        t = time.perf_counter()
        Render(v)
        win.WaitForCompletion()
        frames.append(1e3 * (time.perf_counter() - t))
        vtkTimerLog.LoggingOff()
        for n, ms in timer_sums().items():
            per_name.setdefault(n, []).append(ms)
        if d is not None:
            calls.append((cavr_info(d, "CavrLastRenderTime"), cavr_info(d, "CavrLastDrawTime")))
    r = dict(volume=name, case=label, frame_ms=float(np.median(frames)))
    if calls:
        r["property call_ms"] = float(np.median([c for c, _ in calls]))
        r["property draw_ms"] = float(np.median([m for _, m in calls]))
    for n, lst in sorted(per_name.items()):
        r[n] = float(np.median(lst + [0.0] * (len(frames) - len(lst))))
    rows.append(r)
    print("\n%s, %s: frame %.2f ms (median of %d)" % (name, label, r["frame_ms"], len(frames)))
    for n, ms in sorted(r.items(), key=lambda kv: -kv[1] if isinstance(kv[1], float) else 0):
        if isinstance(ms, float) and n != "frame_ms":
            print("   %8.3f ms  %s" % (ms, n))


for path in args.volume:
    name = os.path.basename(path).split(".")[0]
    src = OpenDataFile(path)
    src.UpdatePipeline()
    array = src.PointData.keys()[0]
    lo, hi = src.PointData[array].GetRange()
    image = src.GetClientSideObject().GetOutputDataObject(0)
    centre, radius = centre_radius(src.GetDataInformation().GetBounds())
    d = Show(src, v)
    ColorBy(d, ("POINTS", array))
    apply_tf(array, lo, hi)
    d.ScalarOpacityUnitDistance = min(image.GetSpacing())
    d.Shade = 0
    d.CavrBackEnd = args.backend
    d.CavrSampleDistance = 0.5
    Hide(src, v)
    orbit("empty view", name, centre, radius)
    Show(src, v)
    d.SetRepresentationType("cavr Volume")
    orbit("cavr Volume", name, centre, radius, d)
    print("   on %s (%s)" % (cavr_info(d, "CavrBackEndInUse"), cavr_info(d, "CavrDeviceInUse")))
    if not args.cavr_only:
        peeling = v.DepthPeeling
        v.DepthPeeling = 0
        orbit("cavr Volume, depth peeling off", name, centre, radius, d)
        v.DepthPeeling = peeling
        d.SetRepresentationType("Volume")
        d.VolumeRenderingMode = "GPU Based"
        orbit("Volume (GPU Based)", name, centre, radius)
    from paraview.simple import Delete
    Delete(d)
    Delete(src)

keys = []
for r in rows:
    keys += [k for k in r if k not in keys]
with open(args.csv if not RANK else os.devnull, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)

# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark inside ParaView on a GPU: "cavr Volume" (CUDA) against ParaView's own "Volume" (GPU Based,
vtkOpenGLGPUVolumeRayCastMapper) in one pvpython process, same render view, volume, colour map, opacity function,
unit distance and camera. What a ParaView user waits for: a frame is Render() + the window's WaitForCompletion()
(the picture finished in the window), median over an orbit of --views azimuths (one frame each, after two warm-up
frames that also deliver and upload the data). Beside each frame: ParaView's empty frame (the same view with the
volume hidden), cavr's own render call (its CavrLastRenderTime property: the C API frame for that view, called
inside ParaView's frame) and the PSNR between the two representations' pictures of the first view.

--interactive adds the same orbit as interactive renders (v.InteractiveRender()) with "Compressive While
Interacting" off and on (Sample Fraction 0.25): frame times and PSNR against the still picture of the same view.

--series DIR plays a time series (DIR/step_*.vtk, one legacy VTK file per step: ParaView
plays a list of them as a file series): next step + still render, steps per second for
both representations, with what a step costs by VTK's timer log: the view's update (ParaView's pipeline:
reader or source, representations' data) and its still render (for cavr Volume: its Render() and the volume's
upload in it). --memory-series FILE plays a series held in memory instead (what a simulation coupled to
ParaView or a caching reader delivers): --steps copies of FILE's volume resampled to --series-size^3 (nearest) and
shifted by 2 voxels along x a step, served by a Programmable Source with time steps, so that a step costs ParaView's
pipeline and the representations, not a file read.

Prints a table per volume and writes the raw numbers (one row per representation and mode) to --csv. Run under an X
server whose OpenGL is the GPU's (check the printed GL_RENDERER), e.g. testing/lab/paraview-gpu/device.sh bench.
"""
import argparse
import builtins  # a Programmable Source's script runs in __main__ and replaces min, max, sum and abs there with numpy's
import csv
import glob
import math
import os
import sys
import time

import numpy as np
from paraview.simple import ColorBy, GetAnimationScene, Hide, LoadPlugin, OpenDataFile, Render, Show
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonSystem import vtkTimerLog
from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pvpython"))
from cavr_pvtest import cavr_info, view  # noqa: E402 - the read-only properties, one at a time; the render view
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pv_bench_scene import apply_tf, centre_radius, orbit_view, timer_sums  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--plugin", default=os.environ.get("CAVR_PLUGIN"))
p.add_argument("--volume", action="append", default=[], help="a .nhdr (or any file ParaView opens); repeatable")
p.add_argument("--size", type=int, default=1024)
p.add_argument("--views", type=int, default=24)
p.add_argument("--backend", default="CUDA", help="cavr's Back End property (Auto, CPU, CUDA)")
p.add_argument("--skip-volume-above", type=float, default=1e30,
               help="skip ParaView's Volume for volumes above this many voxels (it may not fit or take minutes)")
p.add_argument("--interactive", action="store_true")
p.add_argument("--series", help="folder of step_*.vtk files played as a time series")
p.add_argument("--memory-series", help="a volume file made into an in-memory time series (see above)")
p.add_argument("--steps", type=int, default=20, help="steps of --memory-series")
p.add_argument("--series-size", type=int, default=512, help="edge of --memory-series' volumes, voxels")
p.add_argument("--profile", action="store_true",
               help="print where two steps of each series go: VTK's timer log (events over 2 ms) and Python's profile")
p.add_argument("--csv", default="bench_pv_gpu.csv")
p.add_argument("--png", help="prefix for the first view's pictures (PREFIX_<volume>_<representation>.png)")
args = p.parse_args()
LoadPlugin(args.plugin, remote=False, ns=globals())

v = view((args.size, args.size))
win = v.GetRenderWindow()
Render(v)
print("GL_RENDERER:", win.ReportCapabilities().split("OpenGL renderer string:")[-1].splitlines()[0].strip())

rows = []


def finish():
    win.WaitForCompletion()


def frame(render):
    t = time.perf_counter()
    render()
    finish()
    return 1e3 * (time.perf_counter() - t)


def grab():
    w2i = vtkWindowToImageFilter()
    w2i.SetInput(win)
    w2i.SetInputBufferTypeToRGB()
    w2i.ShouldRerenderOff()  # the picture of the last render (a still render would replace an interactive one)
    w2i.ReadFrontBufferOff()
    w2i.Update()
    img = w2i.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, 3).astype(np.float64)


def psnr(a, b):
    mse = np.mean((a - b) ** 2)
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def set_view(center, radius, k):
    orbit_view(v, center, radius, k, args.views)


def cavr_call_ms(d):
    return cavr_info(d, "CavrLastRenderTime"), cavr_info(d, "CavrLastDrawTime")


def orbit(d, center, radius, render, cavr):
    """Two warm-up frames at view 0 (the first one's time returned apart), then one frame per view: times, cavr's
    own render calls, the first view's picture."""
    set_view(center, radius, 0)
    first = frame(render)
    frame(render)
    pic = grab()
    times, calls = [], []
    for k in range(args.views):
        set_view(center, radius, k)
        times.append(frame(render))
        if cavr:
            calls.append(cavr_call_ms(d))
    return first, times, calls, pic


def row(name, rep, mode, first, times, calls, empty, quality):
    med = float(np.median(times))
    r = dict(volume=name, representation=rep, mode=mode, first_ms=first, median_ms=med, min_ms=float(np.min(times)),
             empty_ms=empty, part_ms=med - empty,
             cavr_call_ms=float(np.median([c for c, _ in calls])) if calls else float("nan"),
             cavr_draw_ms=float(np.median([m for _, m in calls])) if calls else float("nan"), psnr_db=quality)
    rows.append(r)
    print("%-28s %-12s %-22s first %8.1f  median %8.2f  min %8.2f  (- empty %6.2f = %8.2f)  call %6.2f  mapper %6.2f"
          "  %s" % (name, rep, mode, first, med, r["min_ms"], empty, r["part_ms"], r["cavr_call_ms"], r["cavr_draw_ms"],
        "PSNR %.1f dB" % quality if quality == quality else ""))
    return r


def setup(src):
    src.UpdatePipeline()
    info = src.GetDataInformation()
    bounds = info.GetBounds()
    array = src.PointData.keys()[0]
    lo, hi = src.PointData[array].GetRange()
    image = src.GetClientSideObject().GetOutputDataObject(0)
    d = Show(src, v)
    ColorBy(d, ("POINTS", array))
    apply_tf(array, lo, hi)
    d.ScalarOpacityUnitDistance = builtins.min(image.GetSpacing())
    d.Shade = 0
    d.CavrBackEnd = args.backend
    d.CavrSampleDistance = 0.5  # voxels; VTK's GPU mapper samples at half the finest spacing by default too
    center, radius = centre_radius(bounds)
    dims = image.GetDimensions()
    return d, center, radius, dims


def bench_volume(path):
    name = os.path.basename(path).split(".")[0]
    t = time.perf_counter()
    src = OpenDataFile(path)
    d, center, radius, dims = setup(src)
    print("\n%s: %s voxels, read in %.1f s" % (name, "x".join(map(str, dims)), time.perf_counter() - t))
    Hide(src, v)
    _, empty_times, _, _ = orbit(d, center, radius, lambda: Render(v), False)
    empty = float(np.median(empty_times))
    Show(src, v)
    pics = {}
    d.SetRepresentationType("cavr Volume")
    first, times, calls, pics["cavr"] = orbit(d, center, radius, lambda: Render(v), True)
    print("cavr Volume on %s (%s)" % (cavr_info(d, "CavrBackEndInUse"), cavr_info(d, "CavrDeviceInUse")))
    still = pics["cavr"]
    if args.interactive:
        cavr_rows = [("cavr Volume", "still", first, times, calls)]
        for cwi in (0, 1):
            d.CavrSampleFraction = 0.25 if cwi else 1.0
            d.CavrCompressiveWhileInteracting = cwi
            f, tm, cl, _ = orbit(d, center, radius, lambda: v.InteractiveRender(), True)
            set_view(center, radius, 0)
            v.InteractiveRender()
            finish()
            q = psnr(grab(), still)
            cavr_rows.append(("cavr Volume", "interactive cwi=%d" % cwi, f, tm, cl, q))
        d.CavrSampleFraction = 1.0
        d.CavrCompressiveWhileInteracting = 0
    voxels = dims[0] * dims[1] * dims[2]
    if voxels <= args.skip_volume_above:
        d.SetRepresentationType("Volume")
        d.VolumeRenderingMode = "GPU Based"
        vfirst, vtimes, _, pics["volume"] = orbit(d, center, radius, lambda: Render(v), False)
        quality = psnr(pics["cavr"], pics["volume"])
        row(name, "Volume", "still", vfirst, vtimes, [], empty, float("nan"))
        if args.interactive:
            f, tm, _, _ = orbit(d, center, radius, lambda: v.InteractiveRender(), False)
            set_view(center, radius, 0)
            v.InteractiveRender()
            finish()
            row(name, "Volume", "interactive", f, tm, [], empty, psnr(grab(), pics["volume"]))
    else:
        quality = float("nan")
        print("ParaView's Volume skipped (%d voxels > --skip-volume-above)" % voxels)
    row(name, "cavr Volume", "still", first, times, calls, empty, quality)
    if args.interactive:
        for rep, mode, f, tm, cl, q in cavr_rows[1:]:
            row(name, rep, mode, f, tm, cl, empty, q)
    if args.png:
        from vtkmodules.vtkIOImage import vtkPNGWriter
        from vtkmodules.util.numpy_support import numpy_to_vtk
        from vtkmodules.vtkCommonDataModel import vtkImageData
        for rep, pic in pics.items():
            img = vtkImageData()
            img.SetDimensions(pic.shape[1], pic.shape[0], 1)
            img.GetPointData().SetScalars(numpy_to_vtk(pic.reshape(-1, 3).astype(np.uint8), deep=1))
            wr = vtkPNGWriter()
            wr.SetFileName("%s_%s_%s.png" % (args.png, name, rep))
            wr.SetInputData(img)
            wr.Write()
    from paraview.simple import Delete
    Delete(d)
    Delete(src)


MEMORY_INFO = """
from vtkmodules.vtkCommonDataModel import vtkDataObject
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
import cavr_memory_series as m
info = self.GetOutputInformation(0)
info.Set(sddp.WHOLE_EXTENT(), *m.extent)
info.Set(vtkDataObject.SPACING(), *m.spacing)
info.Set(vtkDataObject.ORIGIN(), 0.0, 0.0, 0.0)
info.Set(sddp.TIME_STEPS(), m.times, len(m.times))
info.Set(sddp.TIME_RANGE(), [m.times[0], m.times[-1]], 2)
"""
MEMORY_DATA = """
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
import cavr_memory_series as m
info = self.GetOutputInformation(0)
t = info.Get(sddp.UPDATE_TIME_STEP()) if info.Has(sddp.UPDATE_TIME_STEP()) else m.times[0]
k = sorted(range(len(m.times)), key=lambda i: abs(m.times[i] - t))[0]  # the script's min and max are numpy's
self.GetOutput().ShallowCopy(m.images[k])
"""


def memory_series(path):
    """A Programmable Source with --steps time steps, each a volume held in memory (see the module's doc)."""
    import types
    from paraview.simple import Delete, ProgrammableSource
    from vtkmodules.util.numpy_support import numpy_to_vtk
    from vtkmodules.vtkCommonDataModel import vtkImageData
    src = OpenDataFile(path)
    src.UpdatePipeline()
    image = src.GetClientSideObject().GetOutputDataObject(0)
    scalars = image.GetPointData().GetScalars()
    nx, ny, nz = image.GetDimensions()
    vol = vtk_to_numpy(scalars).reshape(nz, ny, nx)
    n = args.series_size
    pick = [np.minimum((np.arange(n) * m) // n, m - 1) for m in (nz, ny, nx)]
    vol = vol[np.ix_(*pick)]
    spacing = [image.GetSpacing()[a] * image.GetDimensions()[a] / n for a in range(3)]
    images = []
    for k in range(args.steps):
        img = vtkImageData()
        img.SetDimensions(n, n, n)
        img.SetSpacing(spacing)
        a = numpy_to_vtk(np.ascontiguousarray(np.roll(vol, 2 * k, axis=2)).ravel(), deep=1)
        a.SetName(scalars.GetName() or "scalars")
        a.GetRange()  # computed once here and kept by the array: ParaView's data information reads it
        img.GetPointData().SetScalars(a)
        images.append(img)
    module = types.ModuleType("cavr_memory_series")
    module.images, module.times = images, [float(k) for k in range(args.steps)]
    module.extent, module.spacing = (0, n - 1, 0, n - 1, 0, n - 1), spacing
    sys.modules[module.__name__] = module  # the Programmable Source's scripts run in this interpreter
    Delete(src)
    ps = ProgrammableSource()
    ps.OutputDataSetType = "vtkImageData"
    ps.ScriptRequestInformation = MEMORY_INFO
    ps.Script = MEMORY_DATA
    return ps, "memory series"


PROFILER = []


def profile_start():
    import cProfile
    vtkTimerLog.SetMaxEntries(100000)
    vtkTimerLog.ResetLog()
    vtkTimerLog.LoggingOn()
    PROFILER[:] = [cProfile.Profile()]
    PROFILER[0].enable()


def profile_end(title):
    import io
    import pstats
    PROFILER[0].disable()
    print("\n-- %s: timer log events over 2 ms (indent = nesting)" % title)
    opened = {}
    for i in range(vtkTimerLog.GetNumberOfEvents()):
        kind, name, t = vtkTimerLog.GetEventType(i), vtkTimerLog.GetEventString(i), vtkTimerLog.GetEventWallTime(i)
        if kind == 1:
            opened.setdefault(name, []).append((t, vtkTimerLog.GetEventIndent(i)))
        elif kind == 2 and opened.get(name):
            t0, indent = opened[name].pop()
            if 1e3 * (t - t0) > 2.0:
                print("   %s%8.1f ms  %s" % ("  " * indent, 1e3 * (t - t0), name))
    text = io.StringIO()
    pstats.Stats(PROFILER[0], stream=text).sort_stats("cumulative").print_stats(10)
    print("-- Python's profile (cumulative, top 10):")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[-1800:])


def bench_series(src, label):
    """Play SRC's time steps in both representations: next step + still render, steps per second."""
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    steps = list(src.TimestepValues)
    d, center, radius, dims = setup(src)
    set_view(center, radius, 3)
    name = "%s %dx %s" % (label, len(steps), "x".join(map(str, dims)))
    print("\n%s" % name)
    # ParaView's own work per step, nothing rendered: the reader and the data information (array ranges) it gathers
    # the first time a step is updated. Every step is visited here, so that both representations then play what a
    # looping playback gives (a step's data information is gathered once; each step is still read or made again).
    pipe = []
    for s in steps:
        t = time.perf_counter()
        src.UpdatePipeline(s)
        pipe.append(1e3 * (time.perf_counter() - t))
    print("ParaView's pipeline alone, first visit of a step (source + data information), median of %d steps: "
          "%.1f ms a step" % (
        len(pipe), float(np.median(pipe))))
    for rep in ("cavr Volume", "Volume"):
        d.SetRepresentationType(rep)
        if rep == "Volume":
            d.VolumeRenderingMode = "GPU Based"
        scene.AnimationTime = steps[0]
        first = frame(lambda: Render(v))
        times, calls = [], []
        parts = {"RenderView::Update": [], "Still Render": [], "cavr Volume: Render": [], "cavr Volume: volume": []}
        for k, s in enumerate(steps[1:] + steps[:1]):
            profiling = args.profile and k in (4, 5)
            if profiling:
                profile_start()
            else:
                vtkTimerLog.ResetLog()
                vtkTimerLog.LoggingOn()
            t = time.perf_counter()
            scene.AnimationTime = s  # the scene updates the pipeline and renders the view, as Play does
            finish()
            times.append(1e3 * (time.perf_counter() - t))
            sums = timer_sums()
            for key in parts:
                parts[key].append(sums.get(key, 0.0))
            if profiling:
                profile_end("%s, %s, step %g: %.1f ms" % (name, rep, s, times[-1]))
            vtkTimerLog.LoggingOff()
            if rep == "cavr Volume":
                calls.append(cavr_call_ms(d))
        rate = 1e3 * len(times) / builtins.sum(times)  # steps a second, the property reads between steps left out
        r = row(name, rep, "play (step + render)", first, times, calls, float("nan"), float("nan"))
        r["steps_per_s"] = rate
        r["pipeline_ms"] = float(np.median(pipe))
        r["view_update_ms"] = float(np.median(parts["RenderView::Update"]))
        r["still_render_ms"] = float(np.median(parts["Still Render"]))
        if rep == "cavr Volume":
            r["cavr_render_ms"] = float(np.median(parts["cavr Volume: Render"]))
            r["cavr_volume_ms"] = float(np.median(parts["cavr Volume: volume"]))
        print("  %s: %.1f steps/s; a step: the view's update (pipeline) %.1f ms, its still render %.1f ms%s" % (
            rep, rate, r["view_update_ms"], r["still_render_ms"],
            ", of which cavr's Render() %.1f ms (volume upload %.1f ms)" % (r["cavr_render_ms"], r["cavr_volume_ms"])
            if rep == "cavr Volume" else ""))
    from paraview.simple import Delete
    Delete(d)  # the next series plays alone: a source left in the pipeline would still update and render
    Delete(src)


for path in args.volume:
    bench_volume(path)
if args.series:
    bench_series(OpenDataFile(sorted(glob.glob(os.path.join(args.series, "step_*.vtk")))), "file series")
if args.memory_series:
    bench_series(*memory_series(args.memory_series))

keys = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0].keys()).index(k) if k in rows[0] else 99)
with open(args.csv, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
print("\n| volume | representation | mode | frame ms (median) | - empty frame | cavr call ms | mapper Render() ms "
      "| PSNR dB |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f |" % (r["volume"], r["representation"], r["mode"],
                                                               r["median_ms"], r["part_ms"], r["cavr_call_ms"],
                                                               r["cavr_draw_ms"], r["psnr_db"]))
by = {(r["volume"], r["representation"], r["mode"]): r for r in rows}
for (vol, rep, mode), r in by.items():
    if rep == "cavr Volume" and (vol, "Volume", mode) in by:
        o = by[(vol, "Volume", mode)]
        print("%s %s: Volume / cavr = %.1fx (whole frame), %.1fx (less the empty frame)" % (
            vol, mode, o["median_ms"] / r["median_ms"], o["part_ms"] / builtins.max(r["part_ms"], 1e-3)))

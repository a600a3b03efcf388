# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark "cavr Volume" under pvbatch with N MPI ranks (one GPU per rank by cavr's default choice): ParaView's
NRRD reader gives each rank its piece of a raw-encoded volume, which the rank renders on its GPU; IceT composites
(in visibility order for composite, by depth for maximum intensity). A frame is Render() on rank 0, which returns
with the composited picture in hand: the whole ParaView frame, IceT included. Median over an orbit of --views
azimuths after two warm-up frames (the first one reads, ghosts and uploads the data: its time is printed apart).

  mpiexec -np N pvbatch --mpi bench_pv_mpi.py --volume V.nhdr --out PREFIX [--views 12] [--size 1024]
  pvpython bench_pv_mpi.py --server HOST:PORT --volume V.nhdr --out PREFIX   (a client of pvserver with N ranks: the
      frame is Render() on the client, which returns with the composited picture delivered to it)

  ... --tile NX NY NZ: no file of that size: each rank makes its own piece of an NX x NY x NZ volume that repeats
      V (mirrored, so without seams) in a Programmable Source that produces the extent asked of it: no file, for a
      volume larger than the disk or than host memory holds beside its pieces

Writes PREFIX_<blend>.png (the first view) and appends one CSV row per blend mode to PREFIX.csv (ranks, blend,
first, median and minimum frame in ms, the back end and device rank 0 used). Every rank logs the device it renders on
("cavr Volume: rendering on CUDA (..., GPU i of n)") at verbosity INFO: run pvbatch with --verbosity=INFO and read
the ranks' lines to see one GPU per rank (testing/lab/paraview-gpu/device.sh mpi does, and asserts it).
"""
import argparse
import builtins
import csv
import os
import sys
import time

from paraview import servermanager
from paraview.simple import ColorBy, LoadPlugin, OpenDataFile, Render, SaveScreenshot, Show

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pvpython"))
from cavr_pvtest import cavr_info, view  # noqa: E402 - the read-only properties, one at a time; the render view
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pv_bench_scene import apply_tf, centre_radius, orbit_view  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--plugin", default=os.environ.get("CAVR_PLUGIN"))
p.add_argument("--volume", required=True)
p.add_argument("--out", required=True)
p.add_argument("--size", type=int, default=1024)
p.add_argument("--views", type=int, default=12)
p.add_argument("--backend", default="CUDA")
p.add_argument("--blend", action="append", default=[], help="Composite, Maximum Intensity (default both)")
p.add_argument("--server", help="HOST:PORT of a pvserver to connect to (the plugin is loaded on both sides)")
p.add_argument("--tile", type=int, nargs=3, metavar=("NX", "NY", "NZ"),
               help="make an NX x NY x NZ volume that repeats --volume, each rank its own piece (see above)")
args = p.parse_args()
if args.server:
    from paraview.simple import Connect
    host, port = args.server.rsplit(":", 1)
    Connect(host, int(port))
    LoadPlugin(args.plugin, remote=True, ns=globals())
LoadPlugin(args.plugin, remote=False, ns=globals())
ranks = servermanager.ActiveConnection.GetNumberOfDataPartitions()

# --tile: the Programmable Source's two scripts. It says it can produce any sub-extent (as image readers do), so the
# representation asks each rank for its piece grown by the ghost layers and the script makes exactly that extent.
TILE_INFO = """
executive = self.GetExecutive()
info = executive.GetOutputInformation(0)
info.Set(executive.WHOLE_EXTENT(), 0, %d, 0, %d, 0, %d)
info.Set(vtk.vtkAlgorithm.CAN_PRODUCE_SUB_EXTENT(), 1)
"""
TILE_DATA = """
import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.vtkIOImage import vtkNrrdReader
r = vtkNrrdReader()
r.SetFileName(%r)
r.Update()
cx, cy, cz = r.GetOutput().GetDimensions()
src = vtk_to_numpy(r.GetOutput().GetPointData().GetScalars()).reshape(cz, cy, cx)
out = self.GetOutput()
out.Initialize()  # this output's last piece goes before the next is made (a copy downstream may still hold it)
executive = self.GetExecutive()
info = executive.GetOutputInformation(0)
e = [executive.UPDATE_EXTENT().Get(info, i) for i in range(6)]
def mirrored(a, b, n):  # indices a..b into 0..n-1 repeated forwards then backwards
    i = np.arange(a, b + 1) %% (2 * n)
    return np.where(i < n, i, 2 * n - 1 - i)
xi, yi, zi = mirrored(e[0], e[1], cx), mirrored(e[2], e[3], cy), mirrored(e[4], e[5], cz)
v = np.empty((len(zi), len(yi), len(xi)), dtype=src.dtype)
made = {}
for k, z in enumerate(zi):  # a slice of the source is gathered once, then copied
    if z in made:
        v[k] = v[made[z]]
    else:
        v[k] = src[z][np.ix_(yi, xi)]
        made[z] = k
out.SetExtent(e)
a = numpy_to_vtk(v.reshape(-1), deep=0)  # the VTK array keeps v alive: no copy
a.SetName(r.GetOutput().GetPointData().GetScalars().GetName() or "tiled")
out.GetPointData().SetScalars(a)
"""

t = time.perf_counter()
if args.tile:
    from paraview.simple import ProgrammableSource
    reader = ProgrammableSource(OutputDataSetType="vtkImageData",
                                ScriptRequestInformation=TILE_INFO % tuple(n - 1 for n in args.tile),
                                Script=TILE_DATA % os.path.abspath(args.volume))
else:
    reader = OpenDataFile(args.volume)
reader.UpdatePipeline()
read_s = time.perf_counter() - t
array = reader.PointData.keys()[0]
lo, hi = reader.PointData[array].GetRange()
b = reader.GetDataInformation().GetBounds()
ext = reader.GetDataInformation().GetExtent()
print("ranks %d, volume %s%s: extent %s, range %s, read in %.1f s" % (
    ranks, os.path.basename(args.volume), " tiled to %dx%dx%d" % tuple(args.tile) if args.tile else "", ext, (lo, hi),
    read_s))

v = view((args.size, args.size))
v.UseFXAA = 0  # ParaView applies FXAA to the composited image under MPI only (mpi_seams.py): compare the renderer
d = Show(reader, v)
ColorBy(d, ("POINTS", array))
d.SetRepresentationType("cavr Volume")
d.CavrBackEnd = args.backend
d.CavrSampleDistance = 0.5
apply_tf(array, lo, hi)
# builtins': a Programmable Source's script (--tile) runs in this namespace and brings numpy's min and max into it
d.ScalarOpacityUnitDistance = builtins.min((b[2 * i + 1] - b[2 * i]) / builtins.max(ext[2 * i + 1] - ext[2 * i], 1)
                                           for i in range(3))
center, radius = centre_radius(b)


def set_view(k):
    orbit_view(v, center, radius, k, args.views)


def frame():
    t = time.perf_counter()
    Render(v)
    return 1e3 * (time.perf_counter() - t)


rows = []
for blend in args.blend or ["Composite", "Maximum Intensity"]:
    d.CavrBlendMode = blend
    set_view(0)
    first = frame()
    frame()
    times, calls = [], []
    for k in range(args.views):
        set_view(k)
        times.append(frame())
        calls.append(cavr_info(d, "CavrLastRenderTime"))  # rank 0's last render call of the frame
    times.sort()
    calls.sort()
    call = calls[len(calls) // 2]
    med = times[len(times) // 2] if len(times) % 2 else 0.5 * (times[len(times) // 2 - 1] + times[len(times) // 2])
    set_view(0)
    png = "%s_%s.png" % (args.out, blend.split()[0].lower())
    SaveScreenshot(png, v, ImageResolution=[args.size, args.size])
    used, device = cavr_info(d, "CavrBackEndInUse"), cavr_info(d, "CavrDeviceInUse")
    rows.append(dict(ranks=ranks, mode="pvserver" if args.server else "pvbatch", volume=os.path.basename(args.volume), blend=blend, read_s=read_s, first_ms=first,
                     median_ms=med, min_ms=times[0], backend=used, device=device, rank0_call_ms=call))
    print("%s ranks %d %-18s first %9.1f ms  median %8.2f ms  min %8.2f ms  rank 0: %s (%s), its render call %.2f ms "
          "(median; with maximum intensity under MPI, the second render for the depth is not counted)" % (
        "pvserver" if args.server else "pvbatch", ranks, blend, first, med, times[0], used, device, call))


def peak_host_gib():
    """This process's peak resident memory (VmHWM), GiB; on a pvserver client, the client's."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1048576.0
    return float("nan")


pm = servermanager.vtkProcessModule.GetProcessModule()
print("rank %d of %d: peak host memory %.2f GiB (%s)" % (pm.GetPartitionId(), ranks, peak_host_gib(),
                                                          "client" if args.server else "pvbatch rank"), flush=True)
for r in rows:
    r["rank0_peak_host_gib"] = peak_host_gib()
new = not os.path.exists(args.out + ".csv")
with open(args.out + ".csv", "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    if new:
        w.writeheader()
    w.writerows(rows)

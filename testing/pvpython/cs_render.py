# SPDX-License-Identifier: BSD-3-Clause
"""Render headsq (a real CT from data/, as raw NRRD so that the server's ranks can split it) in one process or
as the client of a pvserver, and save a PNG; run by test_client_server.sh.

    pvpython cs_render.py OUT.png [--server PORT] [--ranks N] [--representation "cavr Volume"|Volume]
                                  [--load local,remote|remote,local|none] [--shade 0|1]

--server: connect to pvserver on localhost:PORT (default: the built-in one-process session); --remote: the
  session must already be client-server (the GUI started with --server-url).
--ranks: the number of server ranks expected; the script checks that the volume is split between them (every
  rank's ProcessId present) before rendering.
--every-representation: afterwards switch to each representation on offer; each must draw something.
--load: where and in which order LoadPlugin loads $CAVR_PLUGIN; "none" loads nothing (the plugin comes from
  PV_PLUGIN_PATH, or the run is a reference without it).
The rendered data goes through 'Process Ids' as in mpi_render.py, coloured by the CT values. Prints PASS.
cs_gui.py runs the same from the ParaView GUI (main() with its arguments)."""
import argparse

from cavr_pvtest import (HEADSQ_OPACITY, HEADSQ_RANGE, PLUGIN, fail, headsq_camera, process_ids, raw_headsq,
                         screenshot, show_volume, view)
from paraview import servermanager
from paraview.simple import Connect, LoadPlugin, OpenDataFile


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--server", type=int)
    ap.add_argument("--remote", action="store_true", help="the session must be client-server (GUI: already connected)")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--representation", default="cavr Volume")
    ap.add_argument("--load", default="local,remote")
    ap.add_argument("--shade", type=int, default=0)
    ap.add_argument("--every-representation", action="store_true",
                    help="afterwards, switch to each representation on offer: each must draw something")
    args = ap.parse_args(argv)

    if args.server:
        Connect("localhost", args.server)
    remote = bool(servermanager.ActiveConnection.IsRemote())
    if (args.server or args.remote) and not remote:
        fail("the session is not connected to a pvserver")
    for where in [w for w in args.load.split(",") if w != "none"]:
        LoadPlugin(PLUGIN, remote=(where == "remote"), ns=globals())

    ranks = servermanager.ActiveConnection.GetNumberOfDataPartitions()
    print("session: %s, data ranks: %d" % ("client-server" if remote else "built-in", ranks))
    if ranks != args.ranks:
        fail("the server has %d data ranks, expected %d" % (ranks, args.ranks))
    reader = OpenDataFile(raw_headsq())
    pids, pid_array = process_ids(reader)
    pids.UpdatePipeline()
    prange = pids.PointData[pid_array].GetRange()
    print("points: %d, ProcessId range: %s" % (pids.GetDataInformation().GetNumberOfPoints(), prange))
    if prange[0] != 0 or prange[1] != ranks - 1:
        fail("the volume is not split between the %d ranks (ProcessId range %s)" % (ranks, prange))

    v = view((400, 400))
    array = reader.PointData.keys()[0]  # vtkNrrdReader names it ImageFile (raw encoding)
    d = show_volume(pids, v, array, HEADSQ_RANGE, HEADSQ_OPACITY, representation=args.representation,
                    shade=args.shade)
    available = d.Representation.Available
    if args.representation not in available:
        fail("%r is not among the representations %s" % (args.representation, available))
    if args.representation == "cavr Volume":
        d.CavrSampleDistance = 0.5
    headsq_camera(v)
    img = screenshot(v, args.out)
    covered = (img.max(axis=2) > 10).mean()
    print("%s: %.1f%% of the pixels lit" % (args.out, 100 * covered))
    if covered < 0.05:
        fail("the picture is nearly empty")
    if args.every_representation:
        for rep in available:
            d.SetRepresentationType(rep)
            img = screenshot(v, "every_representation.png")
            drawn = (img.max(axis=2) > 0).mean()
            print("representation %-20s %.1f%% of the pixels drawn" % (rep, 100 * drawn))
            if drawn == 0:
                fail("representation %r draws nothing" % rep)
    print("PASS")


if __name__ == "__main__":
    main()

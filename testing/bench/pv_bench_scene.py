# SPDX-License-Identifier: BSD-3-Clause
"""The scene of the in-ParaView benchmarks (bench_pv_gpu.py, bench_pv_mpi.py, the lab's frame_split.py): a CT-like
transfer function on the array's range, an orbit camera around the volume's bounds, and VTK's timer log summed by
event."""
import math

from paraview.simple import GetColorTransferFunction, GetOpacityTransferFunction
from vtkmodules.vtkCommonSystem import vtkTimerLog

# (fraction of the range, r, g, b, opacity per unit distance)
TF = [(0.0, 0, 0, 0, 0), (0.16, 0.55, 0.25, 0.15, 0), (0.27, 0.88, 0.6, 0.45, 0.02), (0.41, 0.95, 0.75, 0.62, 0.04),
      (0.55, 1.0, 0.95, 0.88, 0.5), (1.0, 1, 1, 1, 0.9)]


def apply_tf(array, lo, hi):
    """Colour map and opacity function of ARRAY: TF stretched over [lo, hi], never rescaled automatically."""
    lut = GetColorTransferFunction(array)
    lut.RGBPoints = [x for (f, r, g, b, _) in TF for x in (lo + f * (hi - lo), r, g, b)]
    lut.AutomaticRescaleRangeMode = "Never"
    pwf = GetOpacityTransferFunction(array)
    pwf.Points = [x for (f, _, _, _, a) in TF for x in (lo + f * (hi - lo), a, 0.5, 0.0)]


def centre_radius(bounds):
    """Centre and half-diagonal of bounds (xmin, xmax, ymin, ymax, zmin, zmax), world units."""
    centre = [0.5 * (bounds[2 * i] + bounds[2 * i + 1]) for i in range(3)]
    radius = math.sqrt(math.fsum((0.5 * (bounds[2 * i + 1] - bounds[2 * i])) ** 2 for i in range(3)))
    return centre, radius


def orbit_view(v, centre, radius, k, views):
    """View k of an orbit of VIEWS azimuths around the z axis: 3.2 radii away, 0.8 radii above, 30 degrees."""
    a = 2 * math.pi * k / views
    v.CameraFocalPoint = centre
    v.CameraPosition = [centre[0] + 3.2 * radius * math.sin(a), centre[1] - 3.2 * radius * math.cos(a),
                        centre[2] + 0.8 * radius]
    v.CameraViewUp = [0, 0, 1]
    v.CameraViewAngle = 30


def timer_sums():
    """The durations (ms) of VTK's timer-log events since its last reset, summed by name (start and end matched)."""
    sums, opened = {}, {}
    for i in range(vtkTimerLog.GetNumberOfEvents()):
        kind, name, t = vtkTimerLog.GetEventType(i), vtkTimerLog.GetEventString(i), vtkTimerLog.GetEventWallTime(i)
        if kind == 1:
            opened.setdefault(name, []).append(t)
        elif kind == 2 and opened.get(name):
            sums[name] = sums.get(name, 0.0) + 1e3 * (t - opened[name].pop())
    return sums

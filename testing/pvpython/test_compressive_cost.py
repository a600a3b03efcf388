# SPDX-License-Identifier: BSD-3-Clause
"""Compressive only where it pays, through ParaView: an orbit with "Compressive While Interacting" on (Sample
Fraction 0.25, "Compressive Only Where It Pays" on, its default). Still renders cast every ray and feed the cost
model the full frame's time; interactive renders are compressive only when the model predicts them cheaper than
0.9 x the full frame, else full. The test's claim: an interactive frame is not slower than the still frame.

Stated tolerance (wall time of the cavr render call, CavrLastRenderTime, on a shared machine): every compressive
interactive frame (decision 1) within 1.5 x the median still frame + 3 ms, except the one that measures the
compressive side first and the re-measurements (decision 4: at most one per 4, then 8, 16, ... 64 frames), which are
the model's price of learning, with at most one frame in ten over it (a shared machine preempts a frame now and then:
in CI on 2 cores, 2026-11-28, a full interactive frame, the still frame's work, once took 158 ms against a still
frame's 102); and the mean of all interactive frames, those included, within 1.15 x the median still frame + 1 ms.
Full interactive frames (decisions 2 and 3) do the still frame's work, so only the mean covers them. Three cases: shaded with the local and the global reconstruction, and
unshaded maximum intensity (cheap rays) with the global one; which decisions are taken is printed, not asserted (it
is a measurement: on a 2-core CPU at 400^2, 2026-11-27, all three paid, about 0.45-0.65x the still frame, with
decisions 1 and 3; a full frame because compressive does not pay, decision 2, is tested through the C API in
c.test_compressive_mode and on the GPU in gpu.test_gpu_compressive). The decision must show in the read-only property CavrCompressiveDecision (1..4 for interactive
frames, 0 for still ones). Back end: CPU unless CAVR_PV_BACKEND says otherwise (CUDA on a GPU machine)."""
import os
import statistics

from cavr_pvtest import DATA, cavr_info, check_backend, fail, load_plugin, show_volume, view
from paraview.simple import GetActiveCamera, OpenDataFile

FRAMES = 40          # interactive frames per orbit, 9 degrees apart
RATIO, SLACK = 1.5, 3.0          # per-frame tolerance: ratio x still + slack ms
MEAN_RATIO, MEAN_SLACK = 1.15, 1.0  # mean tolerance
load_plugin()
src = OpenDataFile(DATA + "/headsq_64x64x93_uint16.nhdr")
v = view((400, 400))
d = show_volume(src, v, "ImageScalars", (0, 3926),
                [0, 0, 0.5, 0, 450, 0, 0.5, 0, 1200, 0.2, 0.5, 0, 3926, 0.6, 0.5, 0], shade=1)
if not os.environ.get("CAVR_PV_BACKEND"):
    d.CavrBackEnd = "CPU"
if d.GetPropertyValue("CavrCompressiveOnlyWherePays") != 1:
    fail("Compressive Only Where It Pays should default to on")
d.CavrSampleFraction = 0.25
d.CavrCompressiveWhileInteracting = 1
v.ResetCamera()
cam = GetActiveCamera()
cam.Elevation(-70)
cam.OrthogonalizeViewUp()
v.ResetCamera()


def frame(render):
    render()
    return cavr_info(d, "CavrLastRenderTime"), int(cavr_info(d, "CavrCompressiveDecision"))


# (reconstruction, shading, blend mode): shaded local and global; and cheap rays (unshaded maximum intensity) with the
# global solve, where on the CPU the solve may cost more than the rays it saves.
for recon, shade, blend in (("Local", 1, "Composite"), ("Global", 1, "Composite"), ("Global", 0, "Maximum Intensity")):
    d.CavrReconstruction = recon
    d.Shade = shade
    d.CavrBlendMode = blend
    recon = "%s, %s, %s" % (recon, "shaded" if shade else "unshaded", blend)
    still = []
    for _ in range(5):
        ms, decision = frame(v.StillRender)
        if decision != 0:
            fail("%s: a still render's decision is %d, expected 0 (full as asked)" % (recon, decision))
        still.append(ms)
    s = statistics.median(still[1:])  # the first may pay for the new settings
    times, decisions = [], []
    for i in range(FRAMES):
        cam.Azimuth(9)
        ms, decision = frame(v.InteractiveRender)
        times.append(ms)
        decisions.append(decision)
    check_backend(v)  # no screenshots here: the back end of the orbit's last frame (CAVR_PV_EXPECT_BACKEND)
    counts = {k: decisions.count(k) for k in sorted(set(decisions))}
    print("%s: still %.2f ms (median); interactive mean %.2f ms, max %.2f ms; decisions %s (1 compressive, "
          "2 full: compressive does not pay, 3 full re-measured, 4 compressive re-measured)" %
          (recon, s, statistics.mean(times), max(times), counts))
    if any(k not in (1, 2, 3, 4) for k in decisions):
        fail("%s: an interactive frame's decision is outside 1..4: %s" % (recon, decisions))
    learning = [i for i, k in enumerate(decisions) if k == 4 or (k == 1 and 1 not in decisions[:i] and 4 not in decisions[:i])]
    checked = [(i, ms) for i, (ms, k) in enumerate(zip(times, decisions)) if k == 1 and i not in learning]
    over = [(i, ms) for i, ms in checked if ms > RATIO * s + SLACK]
    if len(over) > max(1, len(checked) // 10):
        fail("%s: %d of %d compressive interactive frames took more than %.1f x the still frame's %.2f ms + %.0f ms: %s"
             % (recon, len(over), len(checked), RATIO, s, SLACK, over))
    if statistics.mean(times) > MEAN_RATIO * s + MEAN_SLACK:
        fail("%s: interactive frames take %.2f ms on average, more than %.2f x the still frame's %.2f ms + %.0f ms" %
             (recon, statistics.mean(times), MEAN_RATIO, s, MEAN_SLACK))
print("PASS")

// SPDX-License-Identifier: BSD-3-Clause
/*
 * auto_replay.c - AUTO's rotation and block-shape policy (core/src/view_policy.c) replayed on the CPU over the orbit
 * cavr-auto-sweep runs about y (0-90 degrees in 15-degree steps, 9 frames a view), with a measured table and a model of
 * the kernel's cost per frame instead of a GPU: which state and shape AUTO plans, frame by frame. A control for the
 * sweep's AUTO column (docs/benchmarks.md: on 512x512x4096 the GPU did not show the second turn this replay takes;
 * swept again on 2026-11-29 with that rule, the GPU turns from 60 degrees, keeping the turn about z).
 * The cost model below is the H200's 512x512x4096 row of 2026-11-28 (ms: unturned 2x128 0.63-0.65, 16x16 0.70; turned
 * about z 0.67-0.77; about y with 16x16 0.51 from 60 degrees).
 *
 *   (a CPU-only build: cmake -S . -B build-cpu -DCAVR_ENABLE_CUDA=OFF -DCAVR_ENABLE_PARAVIEW=OFF; target cavr_core)
 *   gcc -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Icore/include -Ibuild-cpu/core/include -Icore/src \
 *       testing/lab/probes/auto_replay.c build-cpu/core/libcavr_core.a -lm -lpthread -o /tmp/auto_replay
 *   /tmp/auto_replay testing/bench/results/auto_sweep_2026-11-28/auto-NVIDIA_H200-uint8.txt [Z16_MS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "gpu_tune.h"
#include "objects.h"
#include "view_policy.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: auto_replay TABLE.txt [Z16_MS]\n");
    return 2;
  }
  /* The turn about z with 16x16 blocks from 60 degrees: not measured by the sweep (its strategies turn about y).
     0.77 (as with 2x128) makes that turn lose its pair; 0.60 makes it win by more than the margin without paying for
     its 3.3 ms turn (4e8 samples a frame, 32 frames): the pattern the H200's sweep showed (two turns a view, kept
     unturned) before the other turn was tried in that case too. */
  const double zTurned16 = argc > 2 ? atof(argv[2]) : 0.60;
  CAVRTuneTable t;
  char msg[256];
  FILE *f = fopen(argv[1], "r");
  if (!f || cavr_tune_read(&t, f, msg, sizeof msg)) {
    fprintf(stderr, "%s: %s\n", argv[1], f ? msg : "cannot open");
    return 1;
  }
  fclose(f);
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU);
  CAVRCamera cam = cavrNewCamera(dev);
  double b[6] = {0, 511, 0, 511, 0, 4095};
  CAVRSettingsDesc s; memset(&s, 0, sizeof s); s.strategy = CAVR_STRATEGY_AUTO; s.blendMode = CAVR_BLEND_COMPOSITE; s.rotation = 1;
  CAVRPlanHistory h; memset(&h, 0, sizeof h); h.elongation = 8;
  double bytes = 512.0*512*4096, sp[3] = {1,1,1};
  int rot = 0;
  for (int ang = 0; ang <= 90; ang += 15) {
    cavrSetCameraOrbit(cam, b, 0, ang, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0); cavrCommitCamera(cam);
    for (int k = 0; k < 9; ++k) {
      double d[3], r[3], u[3]; CAVRRenderPlan p;
      cavr_plan_view_index(cam->view, sp, d, r, u);
      cavr_plan_frame(&s, d, r, u, &t, bytes, rot, 0, &h, &p);
      int turned = p.rotation != rot; rot = p.rotation;
      cavr_plan_launch(d, r, u, &t, bytes, rot, &h, &p);
      double lean = p.xLean;
      double ms = rot == 1 ? (lean >= 55 ? 0.51 : 0.874) : rot ? (lean >= 55 ? (p.shape == 0 ? zTurned16 : 0.77) : (p.shape == 0 ? 0.874 : 0.666)) : (p.shape == 0 ? 0.7 : (lean >= 55 ? 0.631 : 0.652));
      if (turned) cavr_plan_record_rotation(3.3, bytes, &h);
      cavr_plan_record(&p, rot, ms, 400000000ull, 1048576.0, 1, &h);
      printf("ang %2d k %d lean %5.1f vc %2d rot %d%s repair %d second %d shape %d paired %d pairLean %.1f\n", ang, k, lean, p.viewClass, rot, turned ? " TURN" : "", p.repair, p.secondTurn, p.shape, p.viewClass >= 0 ? h.statePaired[p.viewClass] : -1, p.viewClass >= 0 ? h.pairLean[p.viewClass] : -1);
    }
  }
  return 0;
}

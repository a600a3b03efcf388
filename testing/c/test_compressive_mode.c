// SPDX-License-Identifier: BSD-3-Clause
/*
 * Compressive only where it pays, through cavrRender on the CPU back end (cavrSetRenderCompressiveMode, the frame
 * buffer's cost model: view_policy.h, cavr_compressive_decide). Timing is not deterministic, so the costs the model
 * starts from are set in the frame buffer (objects.h) far apart, where a real frame's measurement cannot flip them:
 * - bad arguments; fraction 1: decision 0 (full as asked); ALWAYS (the default): compressive, whatever the costs;
 * - AUTO with compressive made dear: full frames (decision 2), the full frame's image bit for bit and every ray cast,
 *   then a compressive frame that measures it again (decision 4) after CAVR_COMPRESSIVE_PROBE_MIN frames;
 * - AUTO with compressive made cheap: compressive (1), a full frame measured again (3) after the same period;
 * - a key change (shading) starts afresh: nothing measured, the frame asked for (1) with no prediction.
 * The pure rule is tested in test_view_policy.c.
 */
#include "test_util.h"
#include "objects.h"

static CAVRRenderStats frame(Scene *s) {
  CAVRRenderStats st;
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &st));
  return st;
}

int main(void) {
  const int W = 64, H = 64;
  const uint64_t n = (uint64_t)W * H;
  Scene s = scene_new(W, H);
  scene_load_named(&s, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5);
  float table[4 * 256];
  char msg[256];
  CHECK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -90, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));

  CHECK_ERR(cavrSetRenderCompressiveMode(NULL, CAVR_COMPRESSIVE_AUTO), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressiveMode(s.set, (CAVRCompressiveMode)2), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressiveMode(s.set, (CAVRCompressiveMode)-1), CAVR_ERROR_INVALID_ARGUMENT);
  const char *m = NULL;
  cavrGetDeviceError(s.dev, &m); /* clear the recorded error */

  /* Fraction 1: a full frame as asked, no prediction. */
  CAVRRenderStats st = frame(&s);
  CHECK(st.compressiveDecision == CAVR_COMPRESSIVE_NOT_ASKED && st.raysCast == n);
  CHECK(st.predictedFullMilliseconds == 0.0 && st.predictedCompressiveMilliseconds == 0.0);
  uint8_t *full8 = malloc(4 * n);
  memcpy(full8, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8), 4 * n);

  /* ALWAYS (default) at 25%: compressive even where the model says it does not pay. */
  CHECK_OK(cavrSetRenderCompressive(s.set, 0.25, CAVR_RECONSTRUCTION_LOCAL, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CAVRCompressiveCost *c = &s.fb->compressiveCost;
  c->fullMs = 1e-3;
  c->rayMs = 1e4;
  c->solveMs = 1e4;
  c->fraction = 0.25;
  st = frame(&s);
  CHECK(st.compressiveDecision == CAVR_COMPRESSIVE_RENDERED && st.raysCast < n);
  CHECK(st.predictedCompressiveMilliseconds > 1e4 && st.predictedFullMilliseconds < 1.0);

  /* AUTO, compressive dear: full frames (the full image, every ray), then one compressive frame re-measures it. */
  CHECK_OK(cavrSetRenderCompressiveMode(s.set, CAVR_COMPRESSIVE_AUTO));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  c->rayMs = 1e4;
  c->solveMs = 1e4;
  int probe = -1;
  for (int i = 1; i <= CAVR_COMPRESSIVE_PROBE_MIN + 2; ++i) {
    st = frame(&s);
    if (st.compressiveDecision == CAVR_COMPRESSIVE_PROBE) {
      CHECK(probe < 0 && st.raysCast < n);
      probe = i;
      continue;
    }
    CHECK(st.compressiveDecision == CAVR_COMPRESSIVE_NOT_PAYING && st.raysCast == n);
    CHECK(st.predictedCompressiveMilliseconds > st.predictedFullMilliseconds);
    CHECK(memcmp(full8, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8), 4 * n) == 0);
  }
  CHECK(probe == CAVR_COMPRESSIVE_PROBE_MIN + 1);

  /* AUTO, compressive cheap: compressive frames, then one full frame re-measures the full side. */
  memset(c, 0, sizeof *c);
  st = frame(&s); /* sets the key */
  c->fullMs = 1e6;
  c->rayMs = 1e-3;
  c->solveMs = 1e-3;
  c->fraction = 0.25;
  c->since = 0;
  c->period = CAVR_COMPRESSIVE_PROBE_MIN;
  c->choice = -1;
  probe = -1;
  for (int i = 1; i <= CAVR_COMPRESSIVE_PROBE_MIN + 2; ++i) {
    st = frame(&s);
    if (st.compressiveDecision == CAVR_COMPRESSIVE_PROBE_FULL) {
      CHECK(probe < 0 && st.raysCast == n);
      CHECK(memcmp(full8, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8), 4 * n) == 0);
      probe = i;
      continue;
    }
    CHECK(st.compressiveDecision == CAVR_COMPRESSIVE_RENDERED && st.raysCast < n);
    CHECK(st.predictedCompressiveMilliseconds < st.predictedFullMilliseconds);
  }
  CHECK(probe == CAVR_COMPRESSIVE_PROBE_MIN + 1);

  /* A key change (shading on): nothing measured for it, the frame asked for, no prediction. */
  c->fullMs = 1e-3;
  c->rayMs = 1e4;
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  st = frame(&s);
  CHECK(st.compressiveDecision == CAVR_COMPRESSIVE_RENDERED && st.raysCast < n);
  CHECK(st.predictedFullMilliseconds == 0.0 && st.predictedCompressiveMilliseconds == 0.0);

  free(full8);
  scene_free(&s);
  printf("compressive mode: ALWAYS, AUTO dear / cheap with re-measurements, key change: ok\n");
  return 0;
}

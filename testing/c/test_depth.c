// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opaque geometry: rays stop at the given depth buffer, geometry in front hides the volume, and the
 * depth plane reports the first visible sample. Camera: identity view and an orthographic projection
 * with near 0 and far 100, so window depth = -z_eye / 100. The slab spans z in [-60, -20].
 */
#include "test_util.h"

int main(void) {
  Scene s = scene_new(8, 8);
  int dims[3] = {9, 9, 41};
  static unsigned char vox[9 * 9 * 41];
  memset(vox, 255, sizeof vox);
  double origin[3] = {-4, -4, -60};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, sizeof vox));
  CHECK_OK(cavrSetVolumeOrigin(s.vol, origin));
  CHECK_OK(cavrCommitVolume(s.vol));
  const float a = 0.03f;
  tf_constant(s.tf, 1, 1, 1, a, 0, 255);
  double view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double proj[16] = {0};
  const double n = 0.0, f = 100.0, half = 3.0;
  proj[0] = 1.0 / half;
  proj[5] = 1.0 / half;
  proj[10] = -2.0 / (f - n);
  proj[14] = -(f + n) / (f - n);
  proj[15] = 1.0;
  CHECK_OK(cavrSetCameraMatrices(s.cam, view, proj));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetRenderEarlyTermination(s.set, 1.0));
  CHECK_OK(cavrSetRenderSampleDistance(s.set, 0.5));
  CHECK_OK(cavrCommitRenderSettings(s.set));

  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  CHECK_NEAR(pixel(&s, 4, 4)[3], 1.0 - pow(1.0 - a, 40.0), 1e-4);
  const float *depth = cavrGetFrameBufferData(s.fb, CAVR_FB_DEPTH);
  CHECK_NEAR(depth[4 * 8 + 4], 0.20 + 0.25 / 100.0, 1e-5); /* first sample: front face + half a step */

  float opaque[64];
  for (int i = 0; i < 64; ++i) opaque[i] = 0.4f; /* a plane at z = -40: half the slab is visible */
  opaque[0] = 0.1f;                              /* geometry in front of the volume at pixel (0,0) */
  opaque[63] = 1.0f;                             /* background: no limit */
  CHECK_OK(cavrSetFrameBufferOpaqueDepth(s.fb, opaque, 64));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  CHECK_NEAR(pixel(&s, 4, 4)[3], 1.0 - pow(1.0 - a, 20.0), 1e-4);
  CHECK(pixel(&s, 0, 0)[3] == 0.0f);
  CHECK(depth[0] == 1.0f);
  CHECK_NEAR(pixel(&s, 7, 7)[3], 1.0 - pow(1.0 - a, 40.0), 1e-4);
  CHECK_ERR(cavrSetFrameBufferOpaqueDepth(s.fb, opaque, 63), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetFrameBufferOpaqueDepth(s.fb, NULL, 0)); /* limit removed */
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  CHECK_NEAR(pixel(&s, 0, 0)[3], 1.0 - pow(1.0 - a, 40.0), 1e-4);
  scene_free(&s);
  return 0;
}

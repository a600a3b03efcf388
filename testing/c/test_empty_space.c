// SPDX-License-Identifier: BSD-3-Clause
/*
 * Empty-space skipping changes no pixel: renders of real volumes with skipping on and off are
 * bit-identical (float and 8-bit planes, depth too), and skipping takes fewer samples.
 */
#include "test_util.h"

static void compare(Scene *s, double rx, double ry, CAVRProjection proj, int shade) {
  double bounds[6];
  size_t n = (size_t)s->w * s->h;
  CHECK_OK(cavrGetVolumeBounds(s->vol, bounds));
  CHECK_OK(cavrSetCameraOrbit(s->cam, bounds, rx, ry, 0, proj, 1.0));
  CHECK_OK(cavrCommitCamera(s->cam));
  CHECK_OK(cavrSetRenderShading(s->set, shade, 0.1, 0.7, 0.2, 10));
  float *ref = malloc(n * 4 * sizeof(float)), *refDepth = malloc(n * sizeof(float));
  CAVRRenderStats on, off;
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(s->set, 0));
  CHECK_OK(cavrCommitRenderSettings(s->set));
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &off));
  memcpy(ref, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), n * 4 * sizeof(float));
  memcpy(refDepth, cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), n * sizeof(float));
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(s->set, 1));
  CHECK_OK(cavrCommitRenderSettings(s->set));
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &on));
  CHECK(memcmp(ref, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), n * 4 * sizeof(float)) == 0);
  CHECK(memcmp(refDepth, cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), n * sizeof(float)) == 0);
  double covered = 0.0;
  const float *img = (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
  for (size_t i = 0; i < n; ++i) covered += img[4 * i + 3] > 0.01f;
  printf("view (%g, %g) %s shade %d: %llu samples without skipping, %llu with (%.1f%%); %.0f%% of pixels covered\n",
         rx, ry, proj == CAVR_PROJECTION_PERSPECTIVE ? "perspective" : "ortho", shade,
         (unsigned long long)off.samples, (unsigned long long)on.samples, 100.0 * on.samples / off.samples,
         100.0 * covered / n);
  CHECK(covered > 0.05 * n);        /* the picture is not empty */
  CHECK(on.samples < off.samples);  /* and skipping skipped something */
  free(ref);
  free(refDepth);
}

int main(void) {
  Scene s = scene_new(96, 96);
  /* headsq (CT, uint16): air below 400 fully transparent; skin and bone visible. */
  scene_load_nrrd(&s, CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr");
  float t[4 * 512];
  for (int i = 0; i < 512; ++i) {
    double v = i * 4000.0 / 511.0;
    double a = v < 400 ? 0.0 : v < 900 ? 0.02 : 0.3;
    t[4 * i] = (float)(v < 900 ? 0.9 : 1.0);
    t[4 * i + 1] = (float)(v < 900 ? 0.6 : 1.0);
    t[4 * i + 2] = (float)(v < 900 ? 0.5 : 0.9);
    t[4 * i + 3] = (float)a;
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 512, 0.0, 4000.0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  compare(&s, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 0);
  compare(&s, -90, 30, CAVR_PROJECTION_PERSPECTIVE, 1);
  compare(&s, 37, 123, CAVR_PROJECTION_ORTHOGRAPHIC, 1);
  /* Bucky (uint8): a sparse molecule in empty space. */
  scene_load_nrrd(&s, CAVR_DATA_DIR "/bucky_32x32x32_uint8.nhdr");
  for (int i = 0; i < 512; ++i) t[4 * i + 3] = i < 200 ? 0.0f : 0.5f * (float)(i - 200) / 311.0f;
  for (int i = 0; i < 512; ++i) t[4 * i] = t[4 * i + 1] = t[4 * i + 2] = 1.0f;
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 512, 0.0, 255.0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  compare(&s, 20, 45, CAVR_PROJECTION_PERSPECTIVE, 0);
  scene_free(&s);
  return 0;
}

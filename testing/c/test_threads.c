// SPDX-License-Identifier: BSD-3-Clause
/* The image does not depend on the thread count: 1, 2, 3 and 8 threads give bit-identical planes. */
#include "test_util.h"
#include "cavr/cavr_io.h"

int main(void) {
  Scene s = scene_new(100, 75); /* not a multiple of the 16-pixel tile */
  CAVRVolumeFile f;
  char msg[512];
  if (cavrLoadNrrd(CAVR_DATA_DIR "/inia19_t1brain_168x206x128_float32.nhdr", &f, msg, sizeof msg)) {
    fprintf(stderr, "%s\n", msg);
    return 1;
  }
  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  CHECK_OK(cavrSetVolumeSpacing(s.vol, f.spacing));
  CHECK_OK(cavrCommitVolume(s.vol));
  cavrFreeVolumeFile(&f);
  float table[4 * 256];
  CHECK_OK(cavrTransferFunctionPreset("mri", table, 256, msg, sizeof msg));
  double range[2], bounds[6];
  CHECK_OK(cavrGetVolumeRange(s.vol, range));
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  CHECK(range[0] == 0.0 && range[1] > 380.0);
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0.0, 150.0)); /* brain tissue is below 150 */
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, -60, 25, 10, CAVR_PROJECTION_PERSPECTIVE, 100.0 / 75.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 0.5));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  size_t n = (size_t)s.w * s.h;
  float *ref = malloc(n * 4 * sizeof(float));
  uint64_t refSamples = 0;
  const int counts[4] = {1, 2, 3, 8};
  for (int i = 0; i < 4; ++i) {
    CAVRRenderStats st;
    CHECK_OK(cavrSetDeviceThreadCount(s.dev, counts[i]));
    CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
    const float *img = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F);
    printf("%d threads: %.2f ms, %llu samples\n", counts[i], st.milliseconds, (unsigned long long)st.samples);
    if (i == 0) {
      memcpy(ref, img, n * 4 * sizeof(float));
      refSamples = st.samples;
      double lit = 0;
      for (size_t k = 0; k < n; ++k) lit += img[4 * k + 3] > 0.05f;
      CHECK(lit > 0.05 * n); /* a real picture (the brain covers about 10% of the frame) */
    } else {
      CHECK(memcmp(ref, img, n * 4 * sizeof(float)) == 0);
      CHECK(st.samples == refSamples);
    }
  }
  CHECK_ERR(cavrSetDeviceThreadCount(s.dev, -1), CAVR_ERROR_INVALID_ARGUMENT);
  free(ref);
  scene_free(&s);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * A homogeneous slab of known extinction: the opacity of a ray through thickness L must be
 * 1 - exp(-tau L), with tau = -ln(1 - a) / unit for table opacity a per unit distance, within 1e-3,
 * for several sample distances (this is what opacity correction is for).
 */
#include "test_util.h"

static double render_center_alpha(Scene *s, double sampleDistance, int correction, double unit) {
  CHECK_OK(cavrSetRenderSampleDistance(s->set, sampleDistance));
  CHECK_OK(cavrSetRenderEarlyTermination(s->set, 1.0));
  CHECK_OK(cavrSetRenderOpacityCorrection(s->set, correction, unit));
  CHECK_OK(cavrCommitRenderSettings(s->set));
  CAVRRenderStats st;
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &st));
  CHECK(st.backend == CAVR_BACKEND_CPU);
  CHECK(st.samples > 0);
  return pixel(s, s->w / 2, s->h / 2)[3];
}

static void run(double spacingZ, int skipping) {
  Scene s = scene_new(16, 16);
  int dims[3] = {8, 8, 33};
  unsigned char vox[8 * 8 * 33];
  memset(vox, 200, sizeof vox);
  double spacing[3] = {1.0, 1.0, spacingZ};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, sizeof vox));
  CHECK_OK(cavrSetVolumeSpacing(s.vol, spacing));
  CHECK_OK(cavrCommitVolume(s.vol));
  const double a = 0.05, unit = 1.0;
  tf_constant(s.tf, 1, 1, 1, (float)a, 0.0, 255.0);
  double bounds[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(s.set, skipping));
  double L = 32.0 * spacingZ, tau = -log(1.0 - a) / unit, expected = 1.0 - exp(-tau * L);
  const double distances[] = {0.1, 0.25, 0.5, 0.7, 1.0, 1.3, 3.0};
  for (size_t i = 0; i < sizeof distances / sizeof distances[0]; ++i) {
    double got = render_center_alpha(&s, distances[i], 1, unit);
    printf("spacing z %.1f, sample distance %.2f voxels: opacity %.6f, expected %.6f\n", spacingZ, distances[i], got,
           expected);
    CHECK_NEAR(got, expected, 1e-3);
  }
  /* Without correction the opacity depends on the sample distance: the test can tell the difference. */
  double coarse = render_center_alpha(&s, 3.0, 0, unit), fine = render_center_alpha(&s, 0.25, 0, unit);
  CHECK(fabs(coarse - expected) > 1e-2 || fabs(fine - expected) > 1e-2);
  /* A colour of 1 means premultiplied colour equals opacity. */
  CHECK_NEAR(pixel(&s, 8, 8)[0], pixel(&s, 8, 8)[3], 1e-6);
  scene_free(&s);
}

int main(void) {
  run(1.0, 1);
  run(1.0, 0);
  run(2.0, 1); /* anisotropic: the slab is 64 world units thick */
  return 0;
}

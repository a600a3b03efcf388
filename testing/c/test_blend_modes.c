// SPDX-License-Identifier: BSD-3-Clause
/*
 * Each blend mode on an analytic volume: a ramp s = z / 40 along z (float32, 16 x 16 x 41 voxels),
 * viewed down -z, so every ray crosses s from 1 to 0. MIP, MinIP and average are the transfer function
 * at the ray's max, min and mean; composite is compared with the emission-absorption integral computed
 * here independently with 200000 steps.
 */
#include "test_util.h"

static void tf_rgba(double s, double out[4]) {
  out[0] = s;
  out[1] = 1.0 - s;
  out[2] = 0.5;
  out[3] = 0.2 + 0.6 * s;
}

static void render(Scene *s, CAVRBlendMode mode, CAVRInterpolation interp) {
  CHECK_OK(cavrSetRenderBlendMode(s->set, mode));
  CHECK_OK(cavrSetRenderInterpolation(s->set, interp));
  CHECK_OK(cavrCommitRenderSettings(s->set));
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
}

static void check_pixel(const Scene *s, const double expect[4], double tol, const char *what) {
  const int xs[3] = {s->w / 2, s->w / 2 - 3, s->w / 2 + 2};
  for (int i = 0; i < 3; ++i) {
    const float *p = pixel(s, xs[i], xs[i]);
    printf("%s pixel (%d,%d): %.5f %.5f %.5f %.5f, expected %.5f %.5f %.5f %.5f\n", what, xs[i], xs[i], p[0], p[1],
           p[2], p[3], expect[0], expect[1], expect[2], expect[3]);
    for (int c = 0; c < 4; ++c) CHECK_NEAR(p[c], expect[c], tol);
  }
  const float *corner = pixel(s, 0, 0); /* misses the volume */
  CHECK(corner[0] == 0.0f && corner[3] == 0.0f);
  CHECK(((const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH))[0] == 1.0f);
}

static void premultiplied(double s, double out[4]) {
  tf_rgba(s, out);
  for (int c = 0; c < 3; ++c) out[c] *= out[3];
}

int main(void) {
  Scene s = scene_new(48, 48);
  int dims[3] = {16, 16, 41};
  static float vox[16 * 16 * 41];
  for (int z = 0; z < 41; ++z)
    for (int i = 0; i < 256; ++i) vox[z * 256 + i] = (float)z / 40.0f;
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_FLOAT32, dims, vox, sizeof vox));
  CHECK_OK(cavrCommitVolume(s.vol));
  float table[4 * 1024];
  for (int i = 0; i < 1024; ++i) {
    double e[4];
    tf_rgba(i / 1023.0, e);
    for (int c = 0; c < 4; ++c) table[4 * i + c] = (float)e[c];
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 1024, 0.0, 1.0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double bounds[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  /* Narrow orthographic view so the middle pixels see the volume's interior. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  const double d = 0.25;
  CHECK_OK(cavrSetRenderSampleDistance(s.set, d));
  CHECK_OK(cavrSetRenderEarlyTermination(s.set, 1.0));
  CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.0));

  double e[4];
  /* Samples sit at segment midpoints, so the extreme samples are within d/2 voxels of the faces. */
  const double edge = 0.5 * d / 40.0;
  render(&s, CAVR_BLEND_MAXIMUM_INTENSITY, CAVR_INTERPOLATION_TRILINEAR);
  premultiplied(1.0 - edge, e);
  check_pixel(&s, e, 2.0 * edge, "MIP");
  render(&s, CAVR_BLEND_MINIMUM_INTENSITY, CAVR_INTERPOLATION_TRILINEAR);
  premultiplied(edge, e);
  check_pixel(&s, e, 2.0 * edge, "MinIP");
  render(&s, CAVR_BLEND_AVERAGE_INTENSITY, CAVR_INTERPOLATION_TRILINEAR);
  premultiplied(0.5, e);
  check_pixel(&s, e, 1e-4, "average");
  /* Nearest interpolation reaches the end voxels exactly. */
  render(&s, CAVR_BLEND_MAXIMUM_INTENSITY, CAVR_INTERPOLATION_NEAREST);
  premultiplied(1.0, e);
  check_pixel(&s, e, 1e-5, "MIP nearest");

  /* Composite: C = int c(s) sigma(s) T dt, A = 1 - T(L), sigma = -ln(1 - a) per unit length. */
  double C[3] = {0, 0, 0}, T = 1.0;
  const int steps = 200000;
  const double L = 40.0, dt = L / steps;
  for (int i = 0; i < steps; ++i) {
    double z = L - (i + 0.5) * dt, rgba[4];
    tf_rgba(z / 40.0, rgba);
    double sigma = -log(1.0 - rgba[3]);
    double absorbed = T * (1.0 - exp(-sigma * dt));
    for (int c = 0; c < 3; ++c) C[c] += rgba[c] * absorbed;
    T *= exp(-sigma * dt);
  }
  double expect[4] = {C[0], C[1], C[2], 1.0 - T};
  render(&s, CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_TRILINEAR);
  check_pixel(&s, expect, 2e-3, "composite");
  /* Early ray termination at 0.95 stops the ray: opacity ends between 0.95 and the full value. */
  CHECK_OK(cavrSetRenderEarlyTermination(s.set, 0.95));
  render(&s, CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_TRILINEAR);
  const float *p = pixel(&s, 24, 24);
  printf("composite with early termination at 0.95: opacity %.5f\n", p[3]);
  CHECK(p[3] >= 0.95f && p[3] < 0.95f + 0.2f * 0.8f * (float)d);
  scene_free(&s);
  return 0;
}

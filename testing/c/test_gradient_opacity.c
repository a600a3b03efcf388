// SPDX-License-Identifier: BSD-3-Clause
/*
 * Gradient opacity (cavrSetTransferFunctionGradientOpacity) on the CPU:
 * - refused tables (NaN, infinite, negative magnitude, magnitudes not increasing, opacity outside [0, 1], too many
 *   points, NULL points) stage nothing; a staged function needs a commit before the render;
 * - a constant factor of 1 changes no pixel (scalar caster against the packets, shaded and unshaded, headsq);
 * - a constant factor of 0.5 with opacity correction off equals the table with halved opacities, bit for bit;
 * - magnitudes are in scalar units per world unit: a ramp of 4 per voxel at spacing 2 (2 per world unit) is hidden by
 *   a function that is 0 up to 2.5 and shown at spacing 1 (4 per world unit);
 * - on a volume half flat, half ramp the flat half fades to nothing and the ramp half keeps its pixels;
 * - on headsq (data/) a rising function lowers the image's total opacity (shaded and not), the packets give the
 *   scalar caster's image bit for bit, and the CPU cost is printed as a ratio against no gradient opacity in the
 *   same run.
 */
#include <time.h>

#include "test_util.h"
#include "cpu_raycast.h" /* cavr_cpu_allow_packets */

static const float *render(Scene *s) {
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

static void set_go(Scene *s, const double *pts, int n) {
  CHECK_OK(cavrSetTransferFunctionGradientOpacity(s->tf, pts, n));
  CHECK_OK(cavrCommitTransferFunction(s->tf));
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void test_errors(void) {
  Scene s = scene_new(8, 8);
  tf_constant(s.tf, 1, 1, 1, 0.5f, 0, 1);
  const double nan2[4] = {0, 0, NAN, 1}, inf2[4] = {0, 0, INFINITY, 1}, neg[4] = {-1, 0, 1, 1};
  const double flat[4] = {1, 0, 1, 1}, down[4] = {2, 0, 1, 1}, big[4] = {0, 0, 1, 1.5}, low[4] = {0, -0.1, 1, 1};
  const double nanY[4] = {0, 0, 1, NAN};
  double many[2 * (CAVR_MAX_GRADIENT_OPACITY_POINTS + 1)];
  for (int i = 0; i <= CAVR_MAX_GRADIENT_OPACITY_POINTS; ++i) {
    many[2 * i] = i;
    many[2 * i + 1] = 1;
  }
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(NULL, flat, 2), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, NULL, 2), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, flat, -1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, many, CAVR_MAX_GRADIENT_OPACITY_POINTS + 1),
            CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, nan2, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, inf2, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, neg, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, flat, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, down, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, big, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, low, 2), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetTransferFunctionGradientOpacity(s.tf, nanY, 2), CAVR_ERROR_INVALID_DATA);
  const char *msg = NULL;
  cavrGetDeviceError(s.dev, &msg); /* clear */
  /* Refused calls staged nothing: the object is still committed. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, (const double[6]){0, 1, 0, 1, 0, 1}, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1));
  CHECK_OK(cavrCommitCamera(s.cam));
  int dims[3] = {2, 2, 2};
  unsigned char vox[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, sizeof vox));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  /* Stage then commit: a staged function makes the object dirty; count 0 (NULL points) is accepted (off). */
  CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, many, CAVR_MAX_GRADIENT_OPACITY_POINTS));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  cavrGetDeviceError(s.dev, &msg);
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, NULL, 0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  scene_free(&s);
}

/* headsq: factor 1 changes nothing; halving equals the halved table; a rising function lowers total opacity. */
static void test_headsq(void) {
  Scene s = scene_new(160, 160);
  scene_load_named(&s, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5);
  float table[4 * 256], half[4 * 256];
  char msg[256];
  CHECK_OK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg));
  memcpy(half, table, sizeof table);
  for (int i = 0; i < 256; ++i) half[4 * i + 3] = 0.5f * table[4 * i + 3];
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -60, 25, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  const size_t px = (size_t)s.w * s.h;
  float *ref = malloc(px * 16);
  CHECK(ref);
  for (int shade = 0; shade <= 1; ++shade) {
    CHECK_OK(cavrSetRenderShading(s.set, shade, 0.1, 0.7, 0.2, 10));
    CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
    set_go(&s, NULL, 0);
    memcpy(ref, render(&s), px * 16);
    const double one[2] = {0.0, 1.0};
    set_go(&s, one, 1);
    double p = psnr_rgba(render(&s), ref, px);
    printf("headsq shade %d: constant factor 1 against none: %.2f dB (expected identical)\n", shade, p);
    CHECK(p == INFINITY);
    /* Opacity correction off: factor 0.5 is the table with halved opacities (both exact halvings). */
    CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 0, 1.0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    CHECK_OK(cavrSetTransferFunctionTable(s.tf, half, 256, 0, 4000));
    set_go(&s, NULL, 0);
    memcpy(ref, render(&s), px * 16);
    const double halfPts[2] = {0.0, 0.5};
    CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
    set_go(&s, halfPts, 1);
    p = psnr_rgba(render(&s), ref, px);
    printf("headsq shade %d: constant factor 0.5 against the halved table: %.2f dB (expected identical)\n", shade, p);
    CHECK(p == INFINITY);
  }
  /* A rising function (0 at 0, 1 from 200 scalar units per world unit): flat tissue fades, total opacity drops. */
  const double rise[4] = {0.0, 0.0, 200.0, 1.0};
  CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.0));
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
  for (int shade = 0; shade <= 1; ++shade) {
    CHECK_OK(cavrSetRenderShading(s.set, shade, 0.1, 0.7, 0.2, 10));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    set_go(&s, NULL, 0);
    memcpy(ref, render(&s), px * 16);
    set_go(&s, rise, 2);
    const float *img = render(&s);
    double sumOff = 0.0, sumOn = 0.0;
    int lower = 0, higher = 0;
    for (size_t i = 0; i < px; ++i) {
      sumOff += ref[4 * i + 3];
      sumOn += img[4 * i + 3];
      lower += img[4 * i + 3] < ref[4 * i + 3] - 1e-3f;
      higher += img[4 * i + 3] > ref[4 * i + 3] + 0.0101f;
    }
    printf("headsq shade %d, gradient opacity 0..200 -> 0..1: total opacity %.1f -> %.1f, %d pixels lower, %d higher "
           "by more than early termination's 0.01\n", shade, sumOff, sumOn, lower, higher);
    CHECK(sumOn < 0.9 * sumOff);
    CHECK(lower > (int)(px / 20));
    CHECK(higher == 0); /* a factor <= 1 adds no opacity, up to what early termination (0.99) left out */
    /* The packets against the scalar caster: the same image, bit for bit. */
    memcpy(ref, img, px * 16);
    cavr_cpu_allow_packets(0);
    const double p = psnr_rgba(render(&s), ref, px);
    cavr_cpu_allow_packets(1);
    printf("headsq shade %d, gradient opacity: packets against the scalar caster %.2f dB (expected identical)\n",
           shade, p);
    CHECK(p == INFINITY);
  }
  /* CPU cost, same run: median of 5 frames, without and with gradient opacity, unshaded and shaded. */
  for (int shade = 0; shade <= 1; ++shade) {
    CHECK_OK(cavrSetRenderShading(s.set, shade, 0.1, 0.7, 0.2, 10));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    double ms[2];
    for (int go = 0; go <= 1; ++go) {
      set_go(&s, go ? rise : NULL, go ? 2 : 0);
      render(&s);
      double t[5];
      for (int i = 0; i < 5; ++i) {
        const double t0 = now_ms();
        render(&s);
        t[i] = now_ms() - t0;
      }
      for (int i = 0; i < 5; ++i) /* sort (5 values) for the median */
        for (int j = i + 1; j < 5; ++j)
          if (t[j] < t[i]) {
            const double x = t[i];
            t[i] = t[j];
            t[j] = x;
          }
      ms[go] = t[2];
    }
    printf("CPU cost, headsq 160x160 shade %d: %.2f ms without, %.2f ms with gradient opacity (%.2fx)\n", shade, ms[0],
           ms[1], ms[1] / ms[0]);
  }
  free(ref);
  scene_free(&s);
}

/* A 32^3 float volume: value 100 where x < 16 (flat), else 100 + slope (x - 15) (a ramp of `slope` per voxel). */
static void ramp_volume(Scene *s, double spacing, float slope) {
  enum { N = 32 };
  static float v[N * N * N];
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) v[(z * N + y) * N + x] = x < 16 ? 100.0f : 100.0f + slope * (float)(x - 15);
  const int dims[3] = {N, N, N};
  const double sp[3] = {spacing, spacing, spacing};
  CHECK_OK(cavrSetVolumeData(s->vol, CAVR_FLOAT32, dims, v, sizeof v));
  CHECK_OK(cavrSetVolumeSpacing(s->vol, sp));
  CHECK_OK(cavrCommitVolume(s->vol));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(cavrSetCameraOrbit(s->cam, b, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s->cam));
}

/* The mean opacity of the image columns [x0, x1) over the middle rows. */
static double column_alpha(const Scene *s, int x0, int x1) {
  double sum = 0.0;
  int n = 0;
  for (int y = s->h / 4; y < 3 * s->h / 4; ++y)
    for (int x = x0; x < x1; ++x, ++n) sum += pixel(s, x, y)[3];
  return sum / n;
}

static void test_flat_and_units(void) {
  Scene s = scene_new(64, 64);
  tf_constant(s.tf, 1, 1, 1, 0.05f, 0.0, 300.0);
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(s.set, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  /* Flat half against ramp half (2 per voxel, spacing 1): the function is 0 at 0 and 1 from 1 per world unit. */
  ramp_volume(&s, 1.0, 2.0f);
  render(&s);
  const double flatOff = column_alpha(&s, 17, 28), rampOff = column_alpha(&s, 38, 48);
  const double step[4] = {0.0, 0.0, 1.0, 1.0};
  set_go(&s, step, 2);
  render(&s);
  const double flatOn = column_alpha(&s, 17, 28), rampOn = column_alpha(&s, 38, 48);
  printf("flat half: opacity %.4f -> %.4f; ramp half: %.4f -> %.4f\n", flatOff, flatOn, rampOff, rampOn);
  CHECK(flatOff > 0.5);
  CHECK(flatOn == 0.0);                     /* a zero gradient gives factor 0: nothing */
  CHECK(fabs(rampOn - rampOff) < 1e-6);     /* gradient 2 > 1: factor 1 */
  /* Units: 4 per voxel at spacing 2 is 2 per world unit (factor 0 below 2.5); at spacing 1 it is 4 (factor 1). */
  const double units[6] = {0.0, 0.0, 2.5, 0.0, 3.0, 1.0};
  set_go(&s, units, 3);
  ramp_volume(&s, 2.0, 4.0f);
  render(&s);
  const double ramp2 = column_alpha(&s, 38, 48);
  ramp_volume(&s, 1.0, 4.0f);
  render(&s);
  const double ramp1 = column_alpha(&s, 38, 48);
  printf("ramp of 4 per voxel: spacing 2 (2 per world unit) opacity %.4f, spacing 1 (4 per world unit) %.4f\n", ramp2,
         ramp1);
  CHECK(ramp2 == 0.0);
  CHECK(ramp1 > 0.5);
  scene_free(&s);
}

int main(void) {
  test_errors();
  test_flat_and_units();
  test_headsq();
  printf("PASS\n");
  return 0;
}

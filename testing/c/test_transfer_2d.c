// SPDX-License-Identifier: BSD-3-Clause
/*
 * 2-D transfer functions (cavrSetTransferFunction2D) on the CPU, against references:
 * - refused tables (sizes, NULL, ranges, NaN or out-of-range entries) stage nothing; a staged table needs a commit;
 *   rgba NULL with size 0 x 0 turns it off, and the 1-D image comes back bit for bit;
 * - a 2-D table whose every row is the 1-D table gives the 1-D table's image bit for bit (headsq, shaded and not: the
 *   same column position, the same interpolation, the same gradient for shading);
 * - a separable table, rows = the 1-D table's opacity times k(row), against the 1-D table with the gradient-opacity
 *   function k (opacity correction off, where both are the product a(s) k(|g|)): equal up to float rounding, >= 60 dB;
 * - gradient magnitudes are in scalar units per world unit: a ramp of 4 per voxel is hidden at spacing 2 (2 per world
 *   unit) by a table transparent up to 2 and opaque from 3, and shown at spacing 1 (4 per world unit);
 * - the AVX2/AVX-512 packets give the scalar caster's image bit for bit;
 * - empty-space skipping by the table's column maxima changes no pixel (skipping off against on, bit for bit).
 * The CPU cost of the 2-D table against the 1-D table alone and with the equivalent gradient-opacity function is
 * printed, measured in the same run.
 */
#include <time.h>

#include "test_util.h"
#include "cpu_raycast.h" /* cavr_cpu_allow_packets */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Median of 5 renders (after one warm-up), milliseconds. */
static double median_ms(Scene *s) {
  double t[5];
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  for (int i = 0; i < 5; ++i) {
    const double t0 = now_ms();
    CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
    t[i] = now_ms() - t0;
  }
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j)
      if (t[j] < t[i]) {
        const double x = t[i];
        t[i] = t[j];
        t[j] = x;
      }
  return t[2];
}

static const float *render(Scene *s) {
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

static void set_2d(Scene *s, const float *rgba, int w, int h, double s0, double s1, double g0, double g1) {
  CHECK_OK(cavrSetTransferFunction2D(s->tf, rgba, w, h, s0, s1, g0, g1));
  CHECK_OK(cavrCommitTransferFunction(s->tf));
}

static void test_errors(void) {
  Scene s = scene_new(8, 8);
  tf_constant(s.tf, 1, 1, 1, 0.5f, 0, 1);
  float t[4 * 4 * 3];
  for (int i = 0; i < 48; ++i) t[i] = 0.5f;
  CHECK_ERR(cavrSetTransferFunction2D(NULL, t, 4, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, NULL, 4, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 0, 0, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 1, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 1, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, CAVR_TF2D_MAX_ENTRIES + 1, 2, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 2048, 1024, 0, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT); /* > total */
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 1, 1, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, NAN, 0, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 2, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, -1, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 0, INFINITY), CAVR_ERROR_INVALID_ARGUMENT);
  t[17] = NAN;
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_DATA);
  t[17] = 1.5f;
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_DATA);
  t[17] = -0.1f;
  CHECK_ERR(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 0, 1), CAVR_ERROR_INVALID_DATA);
  t[17] = 0.5f;
  const char *msg = NULL;
  cavrGetDeviceError(s.dev, &msg); /* clear */
  /* Refused calls staged nothing: the object is still committed and renders. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, (const double[6]){0, 1, 0, 1, 0, 1}, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1));
  CHECK_OK(cavrCommitCamera(s.cam));
  int dims[3] = {2, 2, 2};
  unsigned char vox[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, sizeof vox));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  /* Stage then commit; off (NULL, 0 x 0) is accepted and staged too. */
  CHECK_OK(cavrSetTransferFunction2D(s.tf, t, 4, 3, 0, 1, 0, 1));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  cavrGetDeviceError(s.dev, &msg);
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  CHECK_OK(cavrSetTransferFunction2D(s.tf, NULL, 0, 0, 0, 0, 0, 0));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  cavrGetDeviceError(s.dev, &msg);
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  scene_free(&s);
}

/* headsq: rows equal to the 1-D table give its image; a separable table equals the 1-D table with gradient opacity. */
static void test_headsq(void) {
  enum { W = 256, H = 16 };
  Scene s = scene_new(160, 160);
  scene_load_named(&s, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5);
  float table[4 * W];
  char msg[256];
  CHECK_OK(cavrTransferFunctionPreset("ct-skin", table, W, msg, sizeof msg));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -60, 25, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  const size_t px = (size_t)s.w * s.h;
  float *ref = malloc(px * 16), *t2 = malloc(sizeof(float) * 4 * W * H);
  CHECK(ref && t2);
  /* The gradient-opacity function k: 0 at 0, 1 at 300 scalar units per world unit (rows j at 20 j, 0..300). */
  const double gmax = 300.0, kPts[4] = {0.0, 0.0, gmax, 1.0};
  for (int shade = 0; shade <= 1; ++shade) {
    CHECK_OK(cavrSetRenderShading(s.set, shade, 0.1, 0.7, 0.2, 10));
    CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, W, 0, 4000));
    CHECK_OK(cavrCommitTransferFunction(s.tf));
    memcpy(ref, render(&s), px * 16);
    for (int j = 0; j < H; ++j) memcpy(t2 + 4 * W * j, table, sizeof table);
    set_2d(&s, t2, W, H, 0, 4000, 0, gmax);
    double p = psnr_rgba(render(&s), ref, px);
    printf("headsq shade %d: 2-D table of rows equal to the 1-D table against the 1-D table: %.2f dB (expected "
           "identical)\n", shade, p);
    CHECK(p == INFINITY);
    set_2d(&s, NULL, 0, 0, 0, 0, 0, 0);
    p = psnr_rgba(render(&s), ref, px);
    printf("headsq shade %d: 2-D table off again: %.2f dB (expected identical)\n", shade, p);
    CHECK(p == INFINITY);
    /* Separable: entry (i, j) = the 1-D entry with opacity times k(20 j) = j / 15; opacity correction off. */
    CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 0, 1.0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, kPts, 2));
    CHECK_OK(cavrCommitTransferFunction(s.tf));
    memcpy(ref, render(&s), px * 16);
    CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, NULL, 0));
    for (int j = 0; j < H; ++j)
      for (int i = 0; i < W; ++i) {
        memcpy(t2 + 4 * (W * j + i), table + 4 * i, 3 * sizeof(float));
        t2[4 * (W * j + i) + 3] = table[4 * i + 3] * (float)j / (float)(H - 1);
      }
    set_2d(&s, t2, W, H, 0, 4000, 0, gmax);
    const float *img = render(&s);
    p = psnr_rgba(img, ref, px);
    double sum = 0.0;
    for (size_t i = 0; i < px; ++i) sum += img[4 * i + 3];
    printf("headsq shade %d: separable 2-D table against the 1-D table with gradient opacity: %.2f dB (>= 60; mean "
           "opacity %.3f)\n", shade, p, sum / px);
    CHECK(p >= 60.0);
    CHECK(sum / px > 0.05); /* not an empty picture on both sides */
    /* The packets against the scalar caster: the same image, bit for bit. */
    memcpy(ref, img, px * 16);
    cavr_cpu_allow_packets(0);
    p = psnr_rgba(render(&s), ref, px);
    cavr_cpu_allow_packets(1);
    printf("headsq shade %d: 2-D table, packets against the scalar caster: %.2f dB (expected identical)\n", shade, p);
    CHECK(p == INFINITY);
    /* Skipping by the column maxima: off against on, bit for bit. */
    CHECK_OK(cavrSetRenderEmptySpaceSkipping(s.set, 0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    p = psnr_rgba(render(&s), ref, px);
    CHECK_OK(cavrSetRenderEmptySpaceSkipping(s.set, 1));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    printf("headsq shade %d: 2-D table, skipping off against on: %.2f dB (expected identical)\n", shade, p);
    CHECK(p == INFINITY);
    /* CPU cost, same run: the 1-D table against the separable 2-D table, opacity corrected; packets where the CPU
       has them. */
    CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.0));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    const double ms2 = median_ms(&s);
    set_2d(&s, NULL, 0, 0, 0, 0, 0, 0);
    const double ms1 = median_ms(&s);
    /* The same picture's work through the 1-D table and the gradient-opacity function k, on the packets and on the
       scalar caster: what the 2-D look-up costs beyond the gradient. */
    CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, kPts, 2));
    CHECK_OK(cavrCommitTransferFunction(s.tf));
    const double msGo = median_ms(&s);
    cavr_cpu_allow_packets(0);
    const double msGoScalar = median_ms(&s);
    cavr_cpu_allow_packets(1);
    CHECK_OK(cavrSetTransferFunctionGradientOpacity(s.tf, NULL, 0));
    CHECK_OK(cavrCommitTransferFunction(s.tf));
    printf("CPU cost, headsq 160x160 shade %d: 1-D table %.2f ms; 1-D table x gradient opacity %.2f ms (packets), "
           "%.2f ms (scalar caster); the separable 2-D table %.2f ms (%.2fx the 1-D table)\n", shade, ms1,
           msGo, msGoScalar, ms2, ms2 / ms1);
  }
  free(ref);
  free(t2);
  scene_free(&s);
}

/* A 32^3 float ramp of `slope` per voxel along x at spacing `spacing`, seen orthographically down z. */
static void ramp_volume(Scene *s, double spacing, float slope) {
  enum { N = 32 };
  static float v[N * N * N];
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) v[(z * N + y) * N + x] = 100.0f + slope * (float)x;
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

static void test_units(void) {
  Scene s = scene_new(64, 64);
  tf_constant(s.tf, 1, 1, 1, 0.0f, 0.0, 300.0);
  /* Rows at magnitudes 0, 1, ..., 5: transparent through 2, white with opacity 0.2 from 3. */
  enum { W = 2, H = 6 };
  float t2[4 * W * H];
  for (int j = 0; j < H; ++j)
    for (int i = 0; i < W; ++i)
      for (int c = 0; c < 4; ++c) t2[4 * (W * j + i) + c] = j >= 3 ? (c == 3 ? 0.2f : 1.0f) : 0.0f;
  set_2d(&s, t2, W, H, 0.0, 300.0, 0.0, 5.0);
  double mean[2];
  for (int k = 0; k < 2; ++k) {
    ramp_volume(&s, k == 0 ? 2.0 : 1.0, 4.0f); /* 2, then 4 scalar units per world unit */
    const float *img = render(&s);
    double sum = 0.0;
    for (int y = 16; y < 48; ++y)
      for (int x = 16; x < 48; ++x) sum += img[4 * ((size_t)y * s.w + x) + 3];
    mean[k] = sum / (32 * 32);
  }
  printf("ramp of 4 per voxel: mean opacity %.4f at spacing 2 (|g| = 2, expected below 1e-4), %.4f at spacing 1 "
         "(|g| = 4, expected > 0.5)\n", mean[0], mean[1]);
  CHECK(mean[0] < 1e-4); /* up to the rounding of |g| = 2 */
  CHECK(mean[1] > 0.5);
  scene_free(&s);
}

int main(void) {
  test_errors();
  test_headsq();
  test_units();
  printf("PASS\n");
  return 0;
}

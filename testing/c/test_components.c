// SPDX-License-Identifier: BSD-3-Clause
/*
 * Dependent components (cavrSetVolumeComponentData, cavrSetTransferFunctionColorRange) on the CPU, on the headsq CT of
 * data/ (uint16, s its voxels, u = (s - lo) / (hi - lo) over its range [lo, hi]). The reference is the one-component
 * renderer with a table made so that the expected colour of every sample is the table's colour at s, so any mix-up of
 * components, ranges or filters shows:
 * - refused calls: 3 components, 0, a byte count for the wrong component count, a NaN colour component (float data),
 *   a colour range that is empty, NaN or too narrow; a non-composite blend mode at render time; the components read
 *   back (2, 4, then 1 after cavrSetVolumeData);
 * - 2 components (s, s) with the default colour range equal the one-component volume s bit for bit (colour from
 *   component 0 through the table's RGB, opacity from component 1), shaded and not, trilinear and nearest;
 * - 2 components (hi + lo - s, s) over a grey-ramp table read the ramp at the mirrored value: the image equals the
 *   one-component volume over the mirrored ramp's table (1 - u) within float rounding (>= 60 dB); with the table's
 *   range widened to twice the data's and the colour range set to the data's, the same image (the colour range is
 *   what reads the colour, the table's range what reads the opacity);
 * - 4 components (hi + lo - s, s, 7, s): red 1 - u, green u, blue 0 (a constant component rescales to 0), opacity
 *   from component 3, equal the one-component volume over a table of colour (1 - u, u, 0) within float rounding
 *   (>= 60 dB); the same with the components stored as float (each rescaled from its own range);
 * - the packets are off for such volumes (the scalar caster renders them), so allowing packets changes no pixel;
 *   the cubic filter renders (its colour trilinear) and differs from trilinear only a little (> 30 dB);
 * - the CPU cost of the RGBA volume against the one-component volume is printed (not checked).
 */
#include <time.h>

#include "test_util.h"
#include "cpu_raycast.h" /* cavr_cpu_allow_packets */

enum { W = 128, H = 128 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static const float *render(Scene *s) {
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

/* A table of n entries over [lo, hi]: colour (r0 + r1 u, g0 + g1 u, b0 + b1 u) at entry position u in [0, 1], the
   opacity of the ct-skin preset. */
static void ramp_table(CAVRTransferFunction tf, const float c0[3], const float c1[3], double lo, double hi) {
  enum { N = 256 };
  float t[4 * N];
  char msg[256];
  CHECK(cavrTransferFunctionPreset("ct-skin", t, N, msg, sizeof msg) == CAVR_ERROR_NONE);
  for (int i = 0; i < N; ++i) {
    const float u = (float)i / (N - 1);
    for (int c = 0; c < 3; ++c) t[4 * i + c] = c0[c] + c1[c] * u;
  }
  CHECK_OK(cavrSetTransferFunctionTable(tf, t, N, lo, hi));
  CHECK_OK(cavrCommitTransferFunction(tf));
}

static void view(Scene *s, double rx, double ry, int shade, CAVRInterpolation interp) {
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(cavrSetCameraOrbit(s->cam, b, rx, ry, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s->cam));
  CHECK_OK(cavrSetRenderShading(s->set, shade, 0.2, 0.7, 0.3, 16));
  CHECK_OK(cavrSetRenderInterpolation(s->set, interp));
  CHECK_OK(cavrCommitRenderSettings(s->set));
}

/* The voxels of data/headsq as a uint16 array and their range. */
static uint16_t *headsq(int dims[3], double spacing[3], double range[2]) {
  CAVRVolumeFile f;
  char path[1024], msg[512];
  snprintf(path, sizeof path, "%s/headsq_64x64x93_uint16.nhdr", CAVR_DATA_DIR);
  if (cavrLoadNrrd(path, &f, msg, sizeof msg)) {
    fprintf(stderr, "%s\n", msg);
    exit(1);
  }
  CHECK(f.type == CAVR_UINT16);
  memcpy(dims, f.dims, sizeof f.dims);
  memcpy(spacing, f.spacing, sizeof f.spacing);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2];
  uint16_t *v = (uint16_t *)malloc(n * 2);
  CHECK(v);
  memcpy(v, f.data, n * 2);
  cavrFreeVolumeFile(&f);
  range[0] = range[1] = v[0];
  for (size_t i = 0; i < n; ++i) {
    range[0] = v[i] < range[0] ? v[i] : range[0];
    range[1] = v[i] > range[1] ? v[i] : range[1];
  }
  return v;
}

/* Interleave `components` arrays of n uint16 values (NULL: the constant 7). */
static uint16_t *interleave(const uint16_t *const *comp, int components, size_t n) {
  uint16_t *out = (uint16_t *)malloc(n * (size_t)components * 2);
  CHECK(out);
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < components; ++c) out[i * components + c] = comp[c] ? comp[c][i] : 7;
  return out;
}

static void test_errors(void) {
  Scene s = scene_new(8, 8);
  tf_constant(s.tf, 1, 1, 1, 0.5f, 0, 1);
  const int dims[3] = {2, 2, 2};
  uint8_t v4[32] = {0};
  float f2[16];
  for (int i = 0; i < 16; ++i) f2[i] = (float)i;
  const char *msg = NULL;
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_UINT8, 3, dims, v4, 24), CAVR_ERROR_UNSUPPORTED);
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_UINT8, 0, dims, v4, 0), CAVR_ERROR_UNSUPPORTED);
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_UINT8, 5, dims, v4, 40), CAVR_ERROR_UNSUPPORTED);
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_UINT8, 4, dims, v4, 16), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetVolumeComponentData(NULL, CAVR_UINT8, 4, dims, v4, 32), CAVR_ERROR_INVALID_ARGUMENT);
  f2[6] = NAN; /* the colour component of voxel 3 */
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_FLOAT32, 2, dims, f2, sizeof f2), CAVR_ERROR_INVALID_DATA);
  f2[6] = 6.0f;
  f2[7] = INFINITY; /* the scalar of voxel 3: refused by cavrSetVolumeData's check */
  CHECK_ERR(cavrSetVolumeComponentData(s.vol, CAVR_FLOAT32, 2, dims, f2, sizeof f2), CAVR_ERROR_INVALID_DATA);
  f2[7] = 7.0f;
  CHECK_ERR(cavrSetTransferFunctionColorRange(s.tf, 1.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionColorRange(s.tf, 2.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionColorRange(s.tf, NAN, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionColorRange(NULL, 0.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(s.dev, &msg);
  int comps = 0;
  CHECK_OK(cavrSetVolumeComponentData(s.vol, CAVR_FLOAT32, 2, dims, f2, sizeof f2));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrGetVolumeComponents(s.vol, &comps));
  CHECK(comps == 2);
  CHECK_OK(cavrSetVolumeComponentData(s.vol, CAVR_UINT8, 4, dims, v4, sizeof v4));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrGetVolumeComponents(s.vol, &comps));
  CHECK(comps == 4);
  CHECK_OK(cavrSetCameraOrbit(s.cam, (const double[6]){0, 1, 0, 1, 0, 1}, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  for (int mode = CAVR_BLEND_MAXIMUM_INTENSITY; mode <= CAVR_BLEND_AVERAGE_INTENSITY; ++mode) {
    CHECK_OK(cavrSetRenderBlendMode(s.set, (CAVRBlendMode)mode));
    CHECK_OK(cavrCommitRenderSettings(s.set));
    CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_UNSUPPORTED);
    CHECK(cavrGetDeviceError(s.dev, &msg) == CAVR_ERROR_UNSUPPORTED && strstr(msg, "composite"));
  }
  /* One component again: every blend mode renders. */
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, v4, 8));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrGetVolumeComponents(s.vol, &comps));
  CHECK(comps == 1);
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  /* A staged colour range needs a commit. */
  CHECK_OK(cavrSetTransferFunctionColorRange(s.tf, 0.0, 2.0));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  cavrGetDeviceError(s.dev, &msg);
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  scene_free(&s);
}

/* Render scene a (the components) and scene b (the one-component reference) at the same views, filters and shading;
   returns the worst PSNR and counts pixels a leaves transparent that b does not (a wrong opacity component). */
static double compare(Scene *a, Scene *b, const char *what, double threshold) {
  const double views[3][2] = {{-60, 25}, {-90, 0}, {20, 140}};
  double worst = INFINITY;
  for (int v = 0; v < 3; ++v)
    for (int shade = 0; shade <= 1; ++shade)
      for (int interp = CAVR_INTERPOLATION_NEAREST; interp <= CAVR_INTERPOLATION_TRILINEAR; ++interp) {
        view(a, views[v][0], views[v][1], shade, (CAVRInterpolation)interp);
        view(b, views[v][0], views[v][1], shade, (CAVRInterpolation)interp);
        float *ref = (float *)malloc(sizeof(float) * 4 * W * H);
        CHECK(ref);
        memcpy(ref, render(b), sizeof(float) * 4 * W * H);
        const float *img = render(a);
        double opaque = 0.0;
        for (int i = 0; i < W * H; ++i) opaque += ref[4 * i + 3];
        CHECK(opaque > 0.05 * W * H); /* the reference shows something */
        const double p = psnr_rgba(img, ref, (size_t)W * H);
        if (p < worst) worst = p;
        if (p < threshold) {
          int worstI = 0;
          for (int i = 0; i < 4 * W * H; ++i)
            if (fabsf(img[i] - ref[i]) > fabsf(img[worstI] - ref[worstI])) worstI = i;
          const int q = worstI / 4 * 4;
          fprintf(stderr, "pixel %d: %g %g %g %g against %g %g %g %g\n", q / 4, img[q], img[q + 1], img[q + 2],
                  img[q + 3], ref[q], ref[q + 1], ref[q + 2], ref[q + 3]);
        }
        if (p < threshold)
          fprintf(stderr, "%s: view %d shade %d interpolation %d: %.2f dB (threshold %.0f)\n", what, v, shade, interp,
                  p, threshold);
        CHECK(p >= threshold);
        free(ref);
      }
  printf("%s: worst %.2f dB against the one-component reference (threshold %.0f)\n", what, worst, threshold);
  return worst;
}

static void test_images(void) {
  int dims[3];
  double spacing[3], r[2];
  uint16_t *s = headsq(dims, spacing, r);
  const size_t n = (size_t)dims[0] * dims[1] * dims[2];
  uint16_t *mirror = (uint16_t *)malloc(n * 2);
  CHECK(mirror);
  for (size_t i = 0; i < n; ++i) mirror[i] = (uint16_t)(r[0] + r[1] - s[i]);
  Scene a = scene_new(W, H), b = scene_new(W, H);
  CHECK_OK(cavrSetVolumeData(b.vol, CAVR_UINT16, dims, s, n * 2));
  CHECK_OK(cavrSetVolumeSpacing(b.vol, spacing));
  CHECK_OK(cavrCommitVolume(b.vol));
  CHECK_OK(cavrSetVolumeSpacing(a.vol, spacing));
  const float grey0[3] = {0, 0, 0}, grey1[3] = {1, 1, 1}, inv0[3] = {1, 1, 1}, inv1[3] = {-1, -1, -1};
  const float rgb0[3] = {1, 0, 0}, rgb1[3] = {-1, 1, 0};

  /* 2 components (s, s): the one-component volume bit for bit. */
  {
    const uint16_t *c[2] = {s, s};
    uint16_t *v = interleave(c, 2, n);
    CHECK_OK(cavrSetVolumeComponentData(a.vol, CAVR_UINT16, 2, dims, v, n * 4));
    CHECK_OK(cavrCommitVolume(a.vol));
    free(v);
    const float c0[3] = {0.1f, 0.9f, 0.3f}, c1[3] = {0.8f, -0.7f, 0.5f};
    ramp_table(a.tf, c0, c1, r[0], r[1]);
    ramp_table(b.tf, c0, c1, r[0], r[1]);
    CHECK(compare(&a, &b, "2 components (s, s)", 1000.0) == INFINITY);
  }
  /* 2 components (mirror, s): the colour read at the mirrored value. */
  {
    const uint16_t *c[2] = {mirror, s};
    uint16_t *v = interleave(c, 2, n);
    CHECK_OK(cavrSetVolumeComponentData(a.vol, CAVR_UINT16, 2, dims, v, n * 4));
    CHECK_OK(cavrCommitVolume(a.vol));
    free(v);
    ramp_table(a.tf, grey0, grey1, r[0], r[1]);
    ramp_table(b.tf, inv0, inv1, r[0], r[1]);
    compare(&a, &b, "2 components (mirror, s)", 60.0);
    /* Opacity over a table twice as wide: the colour still over the data's range through the colour range. */
    const double lo = r[0] - 0.5 * (r[1] - r[0]), hi = r[1] + 0.5 * (r[1] - r[0]);
    enum { N = 512 };
    float t[4 * N], tb[4 * N];
    char msg[256];
    CHECK(cavrTransferFunctionPreset("ct-skin", tb, N / 2, msg, sizeof msg) == CAVR_ERROR_NONE);
    /* the preset's opacity over [r0, r1] in the middle half of the wide table, 0 outside; colour a ramp over the
       colour range (the table's entries: grey at entry position over [r0, r1]) */
    for (int i = 0; i < N; ++i) {
      const int j = i - N / 4;
      const float u = (float)i / (N - 1);
      t[4 * i] = t[4 * i + 1] = t[4 * i + 2] = u;
      t[4 * i + 3] = j >= 0 && j < N / 2 ? tb[4 * j + 3] : 0.0f;
    }
    CHECK_OK(cavrSetTransferFunctionTable(a.tf, t, N, lo, hi));
    CHECK_OK(cavrSetTransferFunctionColorRange(a.tf, r[0], r[1]));
    CHECK_OK(cavrCommitTransferFunction(a.tf));
    /* the reference: 1 - u at the value of entry i, u = -0.5 + 2 i / (N - 1) over [lo, hi] (clamped to [0, 1]
       outside the data's range, where no voxel lies) */
    for (int i = 0; i < N; ++i) {
      const float g = 1.5f - 2.0f * (float)i / (N - 1);
      t[4 * i] = t[4 * i + 1] = t[4 * i + 2] = g < 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
    }
    CHECK_OK(cavrSetTransferFunctionTable(b.tf, t, N, lo, hi));
    CHECK_OK(cavrCommitTransferFunction(b.tf));
    compare(&a, &b, "2 components (mirror, s), colour range", 40.0);
    CHECK_OK(cavrSetTransferFunctionColorRange(a.tf, 0.0, 0.0));
    CHECK_OK(cavrCommitTransferFunction(a.tf));
  }
  /* 4 components (mirror, s, 7, s): RGB (1 - u, u, 0), opacity from component 3. */
  {
    const uint16_t *c[4] = {mirror, s, NULL, s};
    uint16_t *v = interleave(c, 4, n);
    CHECK_OK(cavrSetVolumeComponentData(a.vol, CAVR_UINT16, 4, dims, v, n * 8));
    CHECK_OK(cavrCommitVolume(a.vol));
    ramp_table(a.tf, grey0, grey0, r[0], r[1]); /* its colour is not used */
    ramp_table(b.tf, rgb0, rgb1, r[0], r[1]);
    compare(&a, &b, "4 components uint16 (mirror, s, 7, s)", 60.0);
    /* Packets are not used for such a volume: allowing them changes no pixel. */
    view(&a, -60, 25, 1, CAVR_INTERPOLATION_TRILINEAR);
    cavr_cpu_allow_packets(0);
    float *scalar = (float *)malloc(sizeof(float) * 4 * W * H);
    CHECK(scalar);
    memcpy(scalar, render(&a), sizeof(float) * 4 * W * H);
    cavr_cpu_allow_packets(1);
    CHECK(psnr_rgba(render(&a), scalar, (size_t)W * H) == INFINITY);
    /* The cubic filter renders; its colour is trilinear, its opacity cubic: close to trilinear, not equal. */
    CHECK_OK(cavrSetRenderInterpolation(a.set, CAVR_INTERPOLATION_CUBIC));
    CHECK_OK(cavrCommitRenderSettings(a.set));
    const double pc = psnr_rgba(render(&a), scalar, (size_t)W * H);
    printf("4 components, cubic against trilinear: %.2f dB\n", pc);
    CHECK(pc > 30.0 && pc < INFINITY);
    free(scalar);
    /* Cost (printed, not checked): the RGBA volume against the one-component volume, trilinear, shaded, medians of 5
       frames; the one-component volume with the scalar caster and with the packets (the components take the scalar
       caster). */
    CHECK_OK(cavrSetRenderInterpolation(a.set, CAVR_INTERPOLATION_TRILINEAR));
    CHECK_OK(cavrCommitRenderSettings(a.set));
    view(&b, -60, 25, 1, CAVR_INTERPOLATION_TRILINEAR);
    double ms[3];
    for (int k = 0; k < 3; ++k) {
      cavr_cpu_allow_packets(k == 2);
      double t[5];
      for (int i = 0; i < 5; ++i) {
        const double t0 = now_ms();
        render(k == 0 ? &a : &b);
        t[i] = now_ms() - t0;
      }
      for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j)
          if (t[j] < t[i]) {
            const double x = t[i];
            t[i] = t[j];
            t[j] = x;
          }
      ms[k] = t[2];
    }
    cavr_cpu_allow_packets(1);
    printf("cost, %dx%d shaded: 4 components %.1f ms, one component %.1f ms (scalar caster, %.2fx), %.1f ms "
           "(packets, %.2fx)\n", W, H, ms[0], ms[1], ms[0] / ms[1], ms[2], ms[0] / ms[2]);
    /* As float: the same classification (each colour component rescaled from its own range). */
    float *fv = (float *)malloc(n * 16);
    CHECK(fv);
    for (size_t i = 0; i < 4 * n; ++i) fv[i] = (float)v[i] * 0.25f - 3.0f;
    CHECK_OK(cavrSetVolumeComponentData(a.vol, CAVR_FLOAT32, 4, dims, fv, n * 16));
    CHECK_OK(cavrCommitVolume(a.vol));
    ramp_table(a.tf, grey0, grey0, r[0] * 0.25 - 3.0, r[1] * 0.25 - 3.0);
    compare(&a, &b, "4 components float (mirror, s, 7, s)", 60.0);
    free(fv);
    free(v);
  }
  scene_free(&a);
  scene_free(&b);
  free(mirror);
  free(s);
}

int main(void) {
  test_errors();
  test_images();
  printf("test_components: ok\n");
  return 0;
}

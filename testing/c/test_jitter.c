// SPDX-License-Identifier: BSD-3-Clause
/*
 * Jittered ray starts (cavrSetRenderJitter) on the CPU:
 * - off by default (a new settings object renders as with jitter off), stage-then-commit;
 * - reproducible: the same view renders the same image twice, bit for bit, and the image does not depend on the
 *   thread count; the packets and the scalar caster still agree bit for bit;
 * - the wood-grain rings go: a sphere with a sharp shell in the transfer function (a band narrower than the sample
 *   distance, the default 0.5 voxels), perspective, unshaded and shaded; the error against a reference at 0.02 voxels
 *   is averaged over 1-pixel annuli about the sphere's centre on screen and detrended (ring_energy): concentric rings
 *   survive that average, pixel noise does not. Jitter must cut that ring energy to at most a quarter. The test
 *   prints PSNRs against the reference with and without jitter (on the sphere and on headsq from data/), the error
 *   left after 9x9 box averages (the bias of point sampling, which jitter keeps) and the CPU time ratio.
 */
#include <time.h>

#include "test_util.h"
#include "cpu_raycast.h" /* cavr_cpu_allow_packets */

static const float *render(Scene *s) {
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void settings(Scene *s, double distance, int jitter) {
  CHECK_OK(cavrSetRenderSampleDistance(s->set, distance));
  CHECK_OK(cavrSetRenderJitter(s->set, jitter));
  CHECK_OK(cavrCommitRenderSettings(s->set));
}

/* Energy (mean square, per pixel, alpha and colour) of the error img - ref averaged over (2R+1)^2-pixel boxes (the
   smooth error: rings, which run on over many pixels), and in *rest the energy of what the average leaves (pixel
   noise). */
static double smooth_energy(const float *img, const float *ref, int w, int h, int R, double *rest) {
  double e = 0.0, r = 0.0;
  int n = 0;
  for (int y = R; y < h - R; ++y)
    for (int x = R; x < w - R; ++x, ++n)
      for (int c = 0; c < 4; ++c) {
        double m = 0.0;
        for (int dy = -R; dy <= R; ++dy)
          for (int dx = -R; dx <= R; ++dx) {
            const size_t i = 4 * ((size_t)(y + dy) * w + (x + dx)) + c;
            m += (double)img[i] - ref[i];
          }
        m /= (2 * R + 1) * (2 * R + 1);
        const size_t i = 4 * ((size_t)y * w + x) + c;
        const double d = (double)img[i] - ref[i] - m;
        e += m * m;
        r += d * d;
      }
  *rest = r / (4.0 * n);
  return e / (4.0 * n);
}

/* Ring energy: the error img - ref (all channels) averaged over 1-pixel-wide annuli about the image's centre of
   opacity (ref's alpha-weighted centroid: the sphere's centre on screen), giving a radial profile P(r); then P minus
   its own average over r +- 4 (the smooth trend: the bias of point sampling, which jitter keeps); the mean square of
   that over r. Concentric rings survive the annulus average; pixel noise is averaged over 2 pi r pixels. */
static double ring_energy(const float *img, const float *ref, int w, int h) {
  double cx = 0.0, cy = 0.0, wsum = 0.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double a = ref[4 * ((size_t)y * w + x) + 3];
      cx += a * x;
      cy += a * y;
      wsum += a;
    }
  CHECK(wsum > 0.0);
  cx /= wsum;
  cy /= wsum;
  enum { RMAX = 512 };
  static double sum[RMAX], cnt[RMAX], prof[RMAX];
  memset(sum, 0, sizeof sum);
  memset(cnt, 0, sizeof cnt);
  int rmax = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = 4 * ((size_t)y * w + x);
      if (!(ref[i + 3] > 0.01f)) continue; /* the sphere's disc */
      const int r = (int)sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
      if (r >= RMAX) continue;
      for (int c = 0; c < 4; ++c) sum[r] += (double)img[i + c] - ref[i + c];
      cnt[r] += 4;
      rmax = r > rmax ? r : rmax;
    }
  for (int r = 0; r <= rmax; ++r) prof[r] = cnt[r] > 0 ? sum[r] / cnt[r] : 0.0;
  double e = 0.0;
  int n = 0;
  for (int r = 4; r <= rmax - 4; ++r) { /* away from the centre (few pixels) and the rim */
    double m = 0.0;
    for (int d = -4; d <= 4; ++d) m += prof[r + d];
    const double v = prof[r] - m / 9.0;
    e += v * v;
    ++n;
  }
  return n ? e / n : 0.0;
}

/* A float sphere of radius 40 voxels in a 96^3 volume: value = 40 - distance from the centre (voxels). */
static void sphere(Scene *s) {
  enum { N = 96 };
  float *v = malloc(sizeof(float) * N * N * N);
  CHECK(v);
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) {
        const double dx = x - 47.5, dy = y - 47.5, dz = z - 47.5;
        v[((size_t)z * N + y) * N + x] = (float)(40.0 - sqrt(dx * dx + dy * dy + dz * dz));
      }
  const int dims[3] = {N, N, N};
  CHECK_OK(cavrSetVolumeData(s->vol, CAVR_FLOAT32, dims, v, sizeof(float) * N * N * N));
  CHECK_OK(cavrCommitVolume(s->vol));
  free(v);
  /* A shell: opacity 0.6 per unit distance for values in [0, 0.3] (0.3 voxels thick, under the 0.5-voxel step). */
  enum { T = 1024 };
  static float t[4 * T];
  for (int i = 0; i < T; ++i) {
    const double val = -4.0 + 8.0 * i / (T - 1);
    t[4 * i] = 1.0f;
    t[4 * i + 1] = 0.8f;
    t[4 * i + 2] = 0.6f;
    t[4 * i + 3] = val >= 0.0 && val <= 0.3 ? 0.6f : 0.0f;
  }
  CHECK_OK(cavrSetTransferFunctionTable(s->tf, t, T, -4.0, 4.0));
  CHECK_OK(cavrCommitTransferFunction(s->tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(cavrSetCameraOrbit(s->cam, b, -20, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s->cam));
}

/* The reference at 0.02 voxels and the default 0.5 with and without jitter: PSNRs, smooth-error energies. */
static void measure(Scene *s, const char *name, double *ringOff, double *ringOn, double *psnrOff, double *psnrOn) {
  const size_t px = (size_t)s->w * s->h;
  float *ref = malloc(px * 16), *off = malloc(px * 16);
  CHECK(ref && off);
  settings(s, 0.02, 0);
  memcpy(ref, render(s), px * 16);
  settings(s, 0.5, 0);
  memcpy(off, render(s), px * 16);
  settings(s, 0.5, 1);
  const float *on = render(s);
  const char *dump = getenv("CAVR_TEST_DUMP"); /* a folder: the three images as PNG (docs, inspection) */
  if (dump) {
    const float *planes[3] = {ref, off, on};
    const char *tag[3] = {"ref", "off", "on"};
    unsigned char *rgba = malloc(px * 4);
    CHECK(rgba);
    for (int k = 0; k < 3; ++k) {
      for (size_t i = 0; i < 4 * px; ++i) { /* over black, opaque, top row first */
        const size_t y = i / (4 * (size_t)s->w), rest = i % (4 * (size_t)s->w);
        const float v = planes[k][4 * ((size_t)(s->h - 1 - y) * s->w) + rest];
        rgba[i] = (i % 4 == 3) ? 255 : (unsigned char)(v * 255.0f + 0.5f);
      }
      char path[1024], msg[256];
      snprintf(path, sizeof path, "%s/jitter_%s_%s.png", dump, name, tag[k]);
      for (char *c = path + strlen(dump) + 1; *c; ++c)
        if (*c == ' ' || *c == ',') *c = '_';
      CHECK_OK(cavrWritePng(path, rgba, s->w, s->h, msg, sizeof msg));
    }
    free(rgba);
  }
  double restOff, restOn;
  const double boxOff = smooth_energy(off, ref, s->w, s->h, 4, &restOff);
  const double boxOn = smooth_energy(on, ref, s->w, s->h, 4, &restOn);
  *ringOff = ring_energy(off, ref, s->w, s->h);
  *ringOn = ring_energy(on, ref, s->w, s->h);
  *psnrOff = psnr_rgba(off, ref, px);
  *psnrOn = psnr_rgba(on, ref, px);
  printf("%s, sample distance 0.5 against 0.02: PSNR %.2f dB without jitter, %.2f dB with; ring (radial-profile) "
         "energy %.3g -> %.3g (%.3fx); error averaged over 9x9 boxes %.3g -> %.3g, the rest (pixel noise) %.3g -> "
         "%.3g\n",
         name, *psnrOff, *psnrOn, *ringOff, *ringOn, *ringOn / *ringOff, boxOff, boxOn, restOff, restOn);
  free(ref);
  free(off);
}

static void test_defaults_and_reproducible(Scene *s) {
  const size_t px = (size_t)s->w * s->h;
  float *a = malloc(px * 16);
  CHECK(a);
  CAVRRenderSettings fresh = cavrNewRenderSettings(s->dev);
  CHECK(fresh);
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, fresh, NULL));
  memcpy(a, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), px * 16);
  settings(s, 0.5, 0);
  CHECK(psnr_rgba(render(s), a, px) == INFINITY); /* default: off */
  /* Stage then commit. */
  CHECK_OK(cavrSetRenderJitter(s->set, 1));
  CHECK_ERR(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL), CAVR_ERROR_NOT_COMMITTED);
  const char *m;
  cavrGetDeviceError(s->dev, &m);
  CHECK_ERR(cavrSetRenderJitter(NULL, 1), CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(s->dev, &m);
  settings(s, 0.5, 1);
  memcpy(a, render(s), px * 16);
  CHECK(psnr_rgba(render(s), a, px) == INFINITY); /* same view, same image */
  for (int threads = 1; threads <= 3; threads += 2) {
    CHECK_OK(cavrSetDeviceThreadCount(s->dev, threads));
    CHECK(psnr_rgba(render(s), a, px) == INFINITY);
  }
  CHECK_OK(cavrSetDeviceThreadCount(s->dev, 0));
  cavr_cpu_allow_packets(0);
  const double scalar = psnr_rgba(render(s), a, px);
  cavr_cpu_allow_packets(1);
  printf("jitter: scalar caster against the packets: %.2f dB (expected identical)\n", scalar);
  CHECK(scalar == INFINITY);
  /* Shaded, and the other blend modes that march: jitter changes the image and stays reproducible. */
  for (int blend = CAVR_BLEND_COMPOSITE; blend <= CAVR_BLEND_ISOSURFACE; ++blend) {
    CHECK_OK(cavrSetRenderBlendMode(s->set, (CAVRBlendMode)blend));
    CHECK_OK(cavrSetRenderShading(s->set, 1, 0.1, 0.7, 0.2, 10));
    const double iso = 0.1;
    CHECK_OK(cavrSetRenderIsoValues(s->set, 1, &iso));
    settings(s, 0.5, 0);
    memcpy(a, render(s), px * 16);
    settings(s, 0.5, 1);
    const double changed = psnr_rgba(render(s), a, px);
    memcpy(a, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), px * 16);
    const double again = psnr_rgba(render(s), a, px);
    printf("blend %d shaded: jitter against none %.2f dB; twice with jitter %.2f dB\n", blend, changed, again);
    /* The minimum lies beyond the table's range (transparent) on every ray: an empty image either way. */
    if (blend != CAVR_BLEND_MINIMUM_INTENSITY) CHECK(changed < INFINITY);
    CHECK(again == INFINITY);
  }
  CHECK_OK(cavrSetRenderBlendMode(s->set, CAVR_BLEND_COMPOSITE));
  CHECK_OK(cavrSetRenderShading(s->set, 0, 0.1, 0.7, 0.2, 10));
  settings(s, 0.5, 0);
  free(a);
  cavrReleaseRenderSettings(fresh);
}

int main(void) {
  Scene s = scene_new(192, 192);
  sphere(&s);
  test_defaults_and_reproducible(&s);
  double ringOff, ringOn, psnrOff, psnrOn;
  measure(&s, "sphere shell", &ringOff, &ringOn, &psnrOff, &psnrOn);
  CHECK(ringOff > 0.0);
  CHECK(ringOn <= 0.25 * ringOff);
  /* Shaded sphere: rings of the shading too. */
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  double sOff, sOn, spOff, spOn;
  measure(&s, "sphere shell, shaded", &sOff, &sOn, &spOff, &spOn);
  CHECK(sOn <= 0.25 * sOff);
  CHECK_OK(cavrSetRenderShading(s.set, 0, 0.1, 0.7, 0.2, 10));
  /* CPU cost of jitter (a hash and an add per ray): medians of 7 frames each, taken alternately. */
  double t[2][7], ms[2];
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 2; ++j) {
      settings(&s, 0.5, j);
      render(&s);
      const double t0 = now_ms();
      render(&s);
      t[j][i] = now_ms() - t0;
    }
  for (int j = 0; j < 2; ++j) {
    for (int a = 0; a < 7; ++a)
      for (int b = a + 1; b < 7; ++b)
        if (t[j][b] < t[j][a]) {
          const double x = t[j][a];
          t[j][a] = t[j][b];
          t[j][b] = x;
        }
    ms[j] = t[j][3];
  }
  printf("CPU cost, sphere 192x192: %.2f ms without jitter, %.2f ms with (%.2fx)\n", ms[0], ms[1], ms[1] / ms[0]);
  scene_free(&s);
  /* Real data: headsq with its CT preset, shaded, for the record (no threshold: a smooth transfer function has few
     rings to remove). */
  Scene h = scene_new(192, 192);
  scene_load_named(&h, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5);
  float table[4 * 256];
  char msg[256];
  CHECK_OK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg));
  CHECK_OK(cavrSetTransferFunctionTable(h.tf, table, 256, 0, 4000));
  CHECK_OK(cavrCommitTransferFunction(h.tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(h.vol, b));
  CHECK_OK(cavrSetCameraOrbit(h.cam, b, -60, 25, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(h.cam));
  CHECK_OK(cavrSetRenderShading(h.set, 1, 0.1, 0.7, 0.2, 10));
  double hOff, hOn, hpOff, hpOn;
  measure(&h, "headsq ct-skin, shaded", &hOff, &hOn, &hpOff, &hpOn);
  scene_free(&h);
  printf("PASS\n");
  return 0;
}

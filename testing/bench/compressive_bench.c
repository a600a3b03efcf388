// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-compressive-bench - quality and speed of compressive rendering (SPEC 4; issue 4 items 6-8).
 *
 *   cavr-compressive-bench --volume FILE.nhdr|FILE.raw [--dims X,Y,Z --type uint8 --spacing SX,SY,SZ]
 *       --tf PRESET [--range LO:HI] [--backend cpu|cuda] [--size N | --width W --height H] [--resample N]
 *       [--repeat R] [--name NAME]
 *       [--mode sweep|solve|bound] [--csv FILE] [--shade 0|1|both] [--fractions 0.1,0.2,...]
 *       [--methods global,local,adaptive,refine,refine-nohint,refine-nofloor] [--threads N] [--clock wall|cpu]
 *       [--lambda L] [--tolerance T] [--iterations N] [--filter definition|thesis]
 *       [--interpolation linear|cubic] [--supersample 1|4|5|9|16]   (issue 12 item 6: expensive rays)
 *       [--dump DIR]   (the full render and each reconstruction as raw float RGBA files, for offline study)
 *
 * sweep: a full render (the reference) and, at each sample fraction, the global, local, adaptive and refine
 *   (CPU back end only; refine-nohint: without the pilot's depth hint, cavr_refine_allow_hint; refine-nofloor:
 *   the last level spends its whole budget, cavr_refine_allow_key_floor) reconstructions
 *   (--methods picks some): PSNR and SSIM against the full render, rays cast, iterations, and the frame time (median
 *   of R; GPU frames leave the image in device memory, as ParaView's interactive renders would not, so the
 *   timing counts render + reconstruct, not the PCIe copy) against the full render's. At 25% and 11.1% also
 *   what VTK/ParaView do with the same rays: one ray per 2x2 / 3x3 pixels, then bilinear upscaling.
 * solve: reconstruction time alone (stats.solveMilliseconds, median of R) at 512^2, 1024^2 and 2048^2 for
 *   25% and 60% of the rays, global and local.
 * bound: what an oracle would need (issue 13 item 3): the pixels of the 2x2 rays + bilinear image with the
 *   largest errors made exact, largest first, until it gains 3, 5 and 10 dB; printed as a fraction of the
 *   object's pixels (alpha > 0.002 in the full render; rays off the object cost little, so the fraction of the
 *   object's pixels with rays approximates the samples taken), beside the 25% the 2x2 rays already spend there.
 * Every row is printed and appended to the CSV:
 *   volume,backend,size,shade,fraction,method,psnr,ssim,rays,iterations,kernel_ms,solve_ms,frame_ms,full_ms,ratio,work,height
 * (size: the image's width). The bilinear2/bilinear3 rows time their control (coarse_frame): the full frame at
 * W/2 x H/2 (W/3 x H/3) with the same camera, the floor of what those rays cost without a solve.
 * work: the samples taken (all passes) over the full render's, a measure of cost that does not depend on the load.
 * Frame times of the methods are taken in pairs with a full render (full, method, full, method, ...: both see the
 * same load on a shared machine); full_ms is then the median of those full renders and ratio the median of the
 * per-pair ratios. --clock cpu times those pairs by the process's CPU time instead of the wall clock (on a shared
 * machine, with --threads 1, a measure of the work that other processes' load does not stretch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#include "compressive.h" /* cavr_refine_allow_hint */
#include "objects.h"     /* the frame buffer's sampling mask */

#define BENCH_NAME "cavr-compressive-bench"
#include "bench_util.h" /* DIE, bench_cmp_double */
#include "bench_resample.h"

typedef struct Bench {
  CAVRDevice dev;
  CAVRVolume vol;
  CAVRTransferFunction tf;
  CAVRCamera cam;
  CAVRRenderSettings set, fullSet;
  CAVRFrameBuffer fb;
  int width, height, repeat; /* the image, pixels */
  FILE *csv;
  const char *name, *backend;
} Bench;

static void check(Bench *b, CAVRError e, const char *what) {
  if (!e) return;
  const char *m = "";
  cavrGetDeviceError(b->dev, &m);
  DIE("%s: %s: %s", what, cavrGetErrorString(e), m);
}

static double psnr(const float *a, const float *b, size_t px) {
  double se = 0.0;
  for (size_t i = 0; i < 4 * px; ++i) se += (double)(a[i] - b[i]) * (a[i] - b[i]);
  return se == 0.0 ? 99.0 : 10.0 * log10(1.0 / (se / (4.0 * px)));
}

/* Mean SSIM (Wang et al. 2004) over 8x8 windows at a stride of 4, per RGBA channel, values in [0,1]. */
static double ssim(const float *a, const float *b, int w, int h) {
  const double C1 = 0.01 * 0.01, C2 = 0.03 * 0.03;
  double total = 0.0;
  long count = 0;
  for (int c = 0; c < 4; ++c)
    for (int y = 0; y + 8 <= h; y += 4)
      for (int x = 0; x + 8 <= w; x += 4) {
        double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
        for (int v = y; v < y + 8; ++v)
          for (int u = x; u < x + 8; ++u) {
            double p = a[4 * ((size_t)v * w + u) + c], q = b[4 * ((size_t)v * w + u) + c];
            sa += p, sb += q, saa += p * p, sbb += q * q, sab += p * q;
          }
        double ma = sa / 64, mb = sb / 64, va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
        total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
        ++count;
      }
  return count ? total / count : 1.0;
}

/* One ray per n x n pixels (at multiples of n), bilinear in between, edges clamped to the last ray. */
static void subsample_bilinear(const float *full, int w, int h, int n, float *out) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int x0 = x / n * n, y0 = y / n * n, x1 = x0 + n < w ? x0 + n : x0, y1 = y0 + n < h ? y0 + n : y0;
      float fx = x1 > x0 ? (float)(x - x0) / n : 0.0f, fy = y1 > y0 ? (float)(y - y0) / n : 0.0f;
      for (int c = 0; c < 4; ++c) {
        float a = full[4 * ((size_t)y0 * w + x0) + c], b = full[4 * ((size_t)y0 * w + x1) + c];
        float d = full[4 * ((size_t)y1 * w + x0) + c], e = full[4 * ((size_t)y1 * w + x1) + c];
        float top = a + fx * (b - a), bottom = d + fx * (e - d);
        out[4 * ((size_t)y * w + x) + c] = top + fy * (bottom - top);
      }
    }
}

/* Render R times with the current settings; median wall time (ms) and the last stats. */
static double timed(Bench *b, CAVRRenderStats *st, int hostCopy) {
  double t[64];
  int r = b->repeat < 64 ? b->repeat : 64;
  check(b, cavrSetFrameBufferHostCopy(b->fb, hostCopy), "host copy");
  for (int i = 0; i < r; ++i) {
    check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->set, st), "cavrRender");
    t[i] = st->milliseconds;
  }
  qsort(t, (size_t)r, sizeof(double), bench_cmp_double);
  return r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
}

static int cpuClock = 0; /* --clock cpu: paired frames timed by the process's CPU time */

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* R pairs of renders, the full frame (b->fullSet) then the current settings, alternating so that both see the
   same load: medians of each and the median of the per-pair ratios. */
static double paired(Bench *b, CAVRRenderStats *st, double *frameMs, double *fullMs) {
  double t[64], f[64], q[64];
  int r = b->repeat < 64 ? b->repeat : 64;
  CAVRRenderStats fs;
  check(b, cavrSetFrameBufferHostCopy(b->fb, 0), "host copy");
  for (int i = 0; i < r; ++i) {
    const double c0 = cpu_ms();
    check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->fullSet, &fs), "cavrRender");
    const double c1 = cpu_ms();
    check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->set, st), "cavrRender");
    const double c2 = cpu_ms();
    f[i] = cpuClock ? c1 - c0 : fs.milliseconds, t[i] = cpuClock ? c2 - c1 : st->milliseconds, q[i] = t[i] / f[i];
  }
  qsort(t, (size_t)r, sizeof(double), bench_cmp_double);
  qsort(f, (size_t)r, sizeof(double), bench_cmp_double);
  qsort(q, (size_t)r, sizeof(double), bench_cmp_double);
  *frameMs = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
  *fullMs = r % 2 ? f[r / 2] : 0.5 * (f[r / 2 - 1] + f[r / 2]);
  return r % 2 ? q[r / 2] : 0.5 * (q[r / 2 - 1] + q[r / 2]);
}

/* The control for a fraction of 1/n^2: the same camera's full frame at ceil(W/n) x ceil(H/n) (the rays of "n x n
   rays + bilinear", cast as one coherent image: what those rays cost at best, without a solve), timed as the
   median of R renders alternating with the full frame. Returns its ms; *kernel its kernel ms, *fullMs the full
   frame's median. The bilinear upscaling itself is not timed. */
static double coarse_frame(Bench *b, int n, double *kernel, double *fullMs) {
  double t[64], f[64];
  int r = b->repeat < 64 ? b->repeat : 64;
  CAVRFrameBuffer small = cavrNewFrameBuffer(b->dev, (b->width + n - 1) / n, (b->height + n - 1) / n);
  if (!small) DIE("no %dx%d frame buffer", (b->width + n - 1) / n, (b->height + n - 1) / n);
  check(b, cavrSetFrameBufferHostCopy(small, 0), "host copy");
  check(b, cavrSetFrameBufferHostCopy(b->fb, 0), "host copy");
  CAVRRenderStats st, fs;
  check(b, cavrRender(small, b->vol, b->tf, b->cam, b->fullSet, &st), "cavrRender"); /* warm-up */
  for (int i = 0; i < r; ++i) {
    check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->fullSet, &fs), "cavrRender");
    check(b, cavrRender(small, b->vol, b->tf, b->cam, b->fullSet, &st), "cavrRender");
    f[i] = fs.milliseconds, t[i] = st.milliseconds;
  }
  *kernel = st.kernelMilliseconds;
  cavrReleaseFrameBuffer(small);
  qsort(t, (size_t)r, sizeof(double), bench_cmp_double);
  qsort(f, (size_t)r, sizeof(double), bench_cmp_double);
  *fullMs = r % 2 ? f[r / 2] : 0.5 * (f[r / 2 - 1] + f[r / 2]);
  return r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
}

/* "W" for a square image, else "WxH" (a static buffer: one row at a time). */
static const char *image_size(const Bench *b) {
  static char text[32];
  if (b->width == b->height) snprintf(text, sizeof text, "%d", b->width);
  else snprintf(text, sizeof text, "%dx%d", b->width, b->height);
  return text;
}

static void row(Bench *b, int shade, double fraction, const char *method, double p, double s,
                unsigned long long rays, int it, double kernel, double solve, double frame, double full, double ratio,
                double work) {
  if (ratio < 0.0) ratio = full > 0 ? frame / full : 0.0;
  printf("%-28s %-4s %9s %5d %6.3f %-9s %7.2f %7.4f %9llu %5d %9.3f %9.3f %9.3f %9.3f %6.3f %6.3f\n", b->name,
         b->backend, image_size(b), shade, fraction, method, p, s, rays, it, kernel, solve, frame, full, ratio, work);
  if (b->csv)
    fprintf(b->csv, "%s,%s,%d,%d,%.4f,%s,%.3f,%.5f,%llu,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d\n", b->name, b->backend,
            b->width, shade, fraction, method, p, s, rays, it, kernel, solve, frame, full, ratio, work, b->height);
}

static const char *methodFilter = "global,local,adaptive,refine";
static const char *dumpDir = NULL; /* --dump DIR */

/* Whether `name` is in the comma-separated --methods list. */
static int wanted(const char *name) {
  const size_t n = strlen(name);
  for (const char *p = methodFilter; (p = strstr(p, name)) != NULL; p += n)
    if ((p == methodFilter || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

static int cmp_desc_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return x < y ? 1 : (x > y ? -1 : 0);
}

/* --mode bound (see the top). */
static void bound(Bench *b, int shade) {
  const int W = b->width, H = b->height;
  const size_t px = (size_t)W * H;
  float *full = malloc(16 * px), *img = malloc(16 * px), *err = malloc(sizeof(float) * px);
  if (!full || !img || !err) DIE("out of memory");
  check(b, cavrSetRenderShading(b->set, shade, 0.1, 0.7, 0.2, 10), "shading");
  check(b, cavrSetRenderCompressive(b->set, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0), "fraction");
  check(b, cavrCommitRenderSettings(b->set), "commit");
  CAVRRenderStats st;
  check(b, cavrSetFrameBufferHostCopy(b->fb, 1), "host copy");
  check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->set, &st), "cavrRender");
  memcpy(full, cavrGetFrameBufferData(b->fb, CAVR_FB_COLOR_RGBA32F), 16 * px);
  subsample_bilinear(full, W, H, 2, img);
  double total = 0.0;
  size_t object = 0;
  for (size_t p = 0; p < px; ++p) {
    double e = 0.0;
    for (int c = 0; c < 4; ++c) e += (double)(img[4 * p + c] - full[4 * p + c]) * (img[4 * p + c] - full[4 * p + c]);
    err[p] = (float)e;
    total += e;
    object += full[4 * p + 3] > 0.002f;
  }
  /* What a renderer can see instead: the spread (max - min over RGBA) of the rays a pixel's bilinear value comes
     from (2 or 4 of the 2x2 grid), as REFINE's last pass scores. score[2 k] = spread, score[2 k + 1] = error. */
  float *score = malloc(sizeof(float) * 2 * px);
  if (!score) DIE("out of memory");
  size_t cand = 0;
  for (int y = 0; y + 2 < H; ++y)
    for (int x = 0; x + 2 < W; ++x) {
      if (!((x | y) & 1)) continue;
      const int x0 = x & ~1, y0 = y & ~1, x1 = x & 1 ? x0 + 2 : x0, y1 = y & 1 ? y0 + 2 : y0;
      const size_t q[4] = {(size_t)y0 * W + x0, (size_t)y0 * W + x1, (size_t)y1 * W + x0, (size_t)y1 * W + x1};
      float spread = 0.0f;
      for (int c = 0; c < 4; ++c) {
        float lo = full[4 * q[0] + c], hi = lo;
        for (int k = 1; k < 4; ++k) lo = fminf(lo, full[4 * q[k] + c]), hi = fmaxf(hi, full[4 * q[k] + c]);
        spread = fmaxf(spread, hi - lo);
      }
      score[2 * cand] = spread;
      score[2 * cand + 1] = err[(size_t)y * W + x];
      ++cand;
    }
  qsort(score, cand, 2 * sizeof(float), cmp_desc_float); /* by spread (the first float of a pair) */
  qsort(err, px, sizeof(float), cmp_desc_float);
  static const double gains[3] = {3.0, 5.0, 10.0};
  double need[3] = {-1, -1, -1}, left = total;
  for (size_t p = 0, g = 0; p < px && g < 3; ++p) {
    left -= err[p];
    while (g < 3 && left <= total * pow(10.0, -gains[g] / 10.0))
      need[g++] = (double)(p + 1) / (double)(object ? object : 1);
  }
  /* The same count as the oracle's +5 dB, chosen by spread. */
  const size_t k5 = need[1] > 0 ? (size_t)llround(need[1] * (double)object) : 0;
  double seen = 0.0;
  for (size_t k = 0; k < k5 && k < cand; ++k) seen += score[2 * k + 1];
  printf("%s shade %d %dx%d: object %.3f of the image; 2x2 + bilinear %.2f dB; oracle: exact pixels for +3 dB %.3f, "
         "+5 dB %.3f, +10 dB %.3f of the object's (beside the 2x2 rays' 0.25); the +5 dB count chosen by the spread "
         "of their rays: %+.2f dB\n", b->name, shade, W, H, (double)object / (double)px, psnr(img, full, px), need[0],
         need[1], need[2], seen < total ? 10.0 * log10(total / (total - seen)) : 99.0);
  free(score);
  free(full);
  free(img);
  free(err);
}

static void sweep(Bench *b, int shade, const double *fractions, int nf) {
  const int W = b->width, H = b->height;
  const size_t px = (size_t)W * H;
  float *full = malloc(16 * px), *img = malloc(16 * px);
  if (!full || !img) DIE("out of memory");
  check(b, cavrSetRenderShading(b->set, shade, 0.1, 0.7, 0.2, 10), "shading");
  check(b, cavrSetRenderCompressive(b->set, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0), "fraction");
  check(b, cavrCommitRenderSettings(b->set), "commit");
  CAVRRenderStats st;
  const double fullMs = timed(b, &st, 0);
  const double fullKernel = st.kernelMilliseconds, fullSamples = (double)st.samples;
  check(b, cavrSetFrameBufferHostCopy(b->fb, 1), "host copy");
  check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->set, &st), "cavrRender");
  memcpy(full, cavrGetFrameBufferData(b->fb, CAVR_FB_COLOR_RGBA32F), 16 * px);
  row(b, shade, 1.0, "full", 99.0, 1.0, (unsigned long long)st.raysCast, 0, fullKernel, 0.0, fullMs, fullMs, 1.0, 1.0);
  check(b, cavrSetRenderShading(b->fullSet, shade, 0.1, 0.7, 0.2, 10), "shading");
  check(b, cavrCommitRenderSettings(b->fullSet), "commit");
  static const struct { CAVRReconstruction rec; int adaptive, hint, floor; const char *name; } methods[] = {
      {CAVR_RECONSTRUCTION_GLOBAL, 0, 1, 1, "global"}, {CAVR_RECONSTRUCTION_LOCAL, 0, 1, 1, "local"},
      {CAVR_RECONSTRUCTION_LOCAL, 1, 1, 1, "adaptive"}, {CAVR_RECONSTRUCTION_REFINE, 0, 1, 1, "refine"},
      {CAVR_RECONSTRUCTION_REFINE, 0, 0, 1, "refine-nohint"}, {CAVR_RECONSTRUCTION_REFINE, 0, 1, 0, "refine-nofloor"}};
  for (int k = 0; k < nf; ++k) {
    for (int m = 0; m < (int)(sizeof methods / sizeof methods[0]); ++m) {
      if (!wanted(methods[m].name)) continue;
      if (methods[m].rec == CAVR_RECONSTRUCTION_REFINE && strcmp(b->backend, "cpu") != 0) continue; /* CPU only */
      check(b, cavrSetRenderCompressive(b->set, fractions[k], methods[m].rec, methods[m].adaptive), "fraction");
      check(b, cavrCommitRenderSettings(b->set), "commit");
      cavr_refine_allow_hint(methods[m].hint);
      cavr_refine_allow_key_floor(methods[m].floor);
      double ms, pairFull;
      const double ratio = paired(b, &st, &ms, &pairFull);
      double kernel = st.kernelMilliseconds, solve = st.solveMilliseconds;
      check(b, cavrSetFrameBufferHostCopy(b->fb, 1), "host copy");
      check(b, cavrRender(b->fb, b->vol, b->tf, b->cam, b->set, &st), "cavrRender");
      const float *out = cavrGetFrameBufferData(b->fb, CAVR_FB_COLOR_RGBA32F);
      if (dumpDir) { /* --dump DIR: the full render and each reconstruction as raw float RGBA, W x H */
        char path[1024];
        snprintf(path, sizeof path, "%s/%s_%s_%d_full.f32", dumpDir, b->name, image_size(b), shade);
        FILE *fd = fopen(path, "wb");
        if (fd) fwrite(full, 16, px, fd), fclose(fd);
        snprintf(path, sizeof path, "%s/%s_%s_%d_%s_%.3f.f32", dumpDir, b->name, image_size(b), shade, methods[m].name,
                 fractions[k]);
        fd = fopen(path, "wb");
        if (fd) fwrite(out, 16, px, fd), fclose(fd);
      }
      row(b, shade, fractions[k], methods[m].name, psnr(out, full, px), ssim(out, full, W, H),
          (unsigned long long)st.raysCast, st.iterations, kernel, solve, ms, pairFull, ratio,
          fullSamples > 0.0 ? (double)st.samples / fullSamples : 0.0);
      if (methods[m].rec == CAVR_RECONSTRUCTION_REFINE && b->fb->sampleMask) { /* cast pixels against the full frame */
        size_t cast = 0, off = 0;
        float worst = 0.0f;
        for (size_t q = 0; q < px; ++q) {
          if (!b->fb->sampleMask[q]) continue;
          float d = 0.0f;
          for (int c = 0; c < 4; ++c) d = fmaxf(d, fabsf(out[4 * q + c] - full[4 * q + c]));
          ++cast, off += d > 1.0f / 255.0f, worst = fmaxf(worst, d);
        }
        printf("  %s: %zu of %zu cast pixels differ from the full frame's by more than 1/255 (%.2f%%), at most %.3f\n",
               methods[m].name, off, cast, 100.0 * (double)off / (double)(cast ? cast : 1), worst);
      }
    }
    for (int n = 2; n <= 3; ++n)
      if (fabs(fractions[k] - 1.0 / (n * n)) < 0.02) {
        subsample_bilinear(full, W, H, n, img);
        char name[32];
        snprintf(name, sizeof name, "bilinear%d", n);
        double kernel, pairFull;
        const double small = coarse_frame(b, n, &kernel, &pairFull);
        row(b, shade, 1.0 / (n * n), name, psnr(img, full, px), ssim(img, full, W, H),
            (unsigned long long)((W + n - 1) / n) * (unsigned long long)((H + n - 1) / n), 0, kernel, 0.0, small, pairFull,
            -1.0, 0.0);
      }
  }
  free(full);
  free(img);
}

int main(int argc, char **argv) {
  const char *volume = NULL, *tfName = "ramp", *mode = "sweep", *csvPath = NULL, *backendName = "cpu", *name = NULL,
             *shadeArg = "both", *fractionArg = "0.1,0.2,0.25,0.3,0.4,0.5,0.6,0.8";
  int dims[3] = {0, 0, 0}, width = 1024, height = 1024, resampleTo = 0, repeat = 3, haveRange = 0, filter = 1, iterations = 30, threads = 0, cubic = 0, rays = 1;
  double lambda = -1.0, tolerance = -1.0;
  double spacing[3] = {1, 1, 1}, range[2] = {0, 0};
  CAVRScalarType type = CAVR_UINT8;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--volume") && v) volume = argv[++i];
    else if (!strcmp(a, "--dims") && v) sscanf(argv[++i], "%d,%d,%d", &dims[0], &dims[1], &dims[2]);
    else if (!strcmp(a, "--spacing") && v) sscanf(argv[++i], "%lf,%lf,%lf", &spacing[0], &spacing[1], &spacing[2]);
    else if (!strcmp(a, "--type") && v) {
      ++i;
      type = !strcmp(v, "uint16") ? CAVR_UINT16 : !strcmp(v, "int16") ? CAVR_INT16 : !strcmp(v, "float32") ? CAVR_FLOAT32 : CAVR_UINT8;
    } else if (!strcmp(a, "--tf") && v) tfName = argv[++i];
    else if (!strcmp(a, "--range") && v) haveRange = sscanf(argv[++i], "%lf:%lf", &range[0], &range[1]) == 2;
    else if (!strcmp(a, "--backend") && v) backendName = argv[++i];
    else if (!strcmp(a, "--size") && v) width = height = atoi(argv[++i]);
    else if (!strcmp(a, "--width") && v) width = atoi(argv[++i]);
    else if (!strcmp(a, "--height") && v) height = atoi(argv[++i]);
    else if (!strcmp(a, "--resample") && v) resampleTo = atoi(argv[++i]);
    else if (!strcmp(a, "--repeat") && v) repeat = atoi(argv[++i]);
    else if (!strcmp(a, "--name") && v) name = argv[++i];
    else if (!strcmp(a, "--mode") && v) mode = argv[++i];
    else if (!strcmp(a, "--csv") && v) csvPath = argv[++i];
    else if (!strcmp(a, "--shade") && v) shadeArg = argv[++i];
    else if (!strcmp(a, "--fractions") && v) fractionArg = argv[++i];
    else if (!strcmp(a, "--methods") && v) methodFilter = argv[++i];
    else if (!strcmp(a, "--dump") && v) dumpDir = argv[++i];
    else if (!strcmp(a, "--threads") && v) threads = atoi(argv[++i]);
    else if (!strcmp(a, "--clock") && v) cpuClock = !strcmp(argv[++i], "cpu");
    else if (!strcmp(a, "--lambda") && v) lambda = atof(argv[++i]);
    else if (!strcmp(a, "--tolerance") && v) tolerance = atof(argv[++i]);
    else if (!strcmp(a, "--iterations") && v) iterations = atoi(argv[++i]);
    else if (!strcmp(a, "--filter") && v) filter = strcmp(argv[++i], "definition") != 0;
    else if (!strcmp(a, "--interpolation") && v) cubic = !strcmp(argv[++i], "cubic");
    else if (!strcmp(a, "--supersample") && v) rays = atoi(argv[++i]);
    else DIE("unknown argument %s (see the comment at the top of compressive_bench.c)", a);
  }
  if (!volume) DIE("--volume is required");
  if (width < 16 || width > 4096 || height < 16 || height > 4096 || repeat < 1)
    DIE("--size, --width and --height must be in [16, 4096], --repeat >= 1");
  if (resampleTo != 0 && (resampleTo < 2 || resampleTo > 4096)) DIE("--resample must be in [2, 4096]");
  double fractions[32];
  int nf = 0;
  for (const char *p = fractionArg; *p && nf < 32;) {
    fractions[nf++] = strtod(p, NULL);
    const char *c = strchr(p, ',');
    if (!c) break;
    p = c + 1;
  }
  CAVRVolumeFile f;
  char msg[600];
  size_t len = strlen(volume);
  CAVRError e = len > 4 && !strcmp(volume + len - 4, ".raw") ? cavrLoadRaw(volume, type, dims, spacing, &f, msg, sizeof msg)
                                                               : cavrLoadNrrd(volume, &f, msg, sizeof msg);
  if (e) DIE("%s: %s", volume, msg);
  Bench b;
  memset(&b, 0, sizeof b);
  b.dev = cavrNewDevice(!strcmp(backendName, "cuda") ? CAVR_BACKEND_CUDA : CAVR_BACKEND_CPU);
  if (!b.dev) {
    const char *m = "";
    cavrGetDeviceError(NULL, &m);
    DIE("no %s device: %s", backendName, m);
  }
  b.backend = cavrGetDeviceBackend(b.dev) == CAVR_BACKEND_CUDA ? "cuda" : "cpu";
  if (threads > 0) check(&b, cavrSetDeviceThreadCount(b.dev, threads), "threads");
  b.vol = cavrNewVolume(b.dev);
  b.tf = cavrNewTransferFunction(b.dev);
  b.cam = cavrNewCamera(b.dev);
  b.set = cavrNewRenderSettings(b.dev);
  b.fullSet = cavrNewRenderSettings(b.dev);
  b.repeat = repeat;
  b.width = width;
  b.height = height;
  const char *slash = strrchr(volume, '/');
  b.name = name ? name : (slash ? slash + 1 : volume);
  if (resampleTo) { /* --resample N: the volume resampled to N^3 (uint8), e.g. the CT at 2048^3; same extent */
    if (f.type != CAVR_UINT8) DIE("--resample needs a uint8 volume");
    uint8_t *r = bench_resample((const uint8_t *)f.data, f.dims, resampleTo);
    const int rd[3] = {resampleTo, resampleTo, resampleTo};
    double rs[3];
    for (int a = 0; a < 3; ++a) rs[a] = f.spacing[a] * (f.dims[a] - 1) / (resampleTo - 1);
    check(&b, cavrSetVolumeData(b.vol, CAVR_UINT8, rd, r, (size_t)resampleTo * resampleTo * resampleTo), "volume");
    check(&b, cavrSetVolumeSpacing(b.vol, rs), "spacing");
    check(&b, cavrCommitVolume(b.vol), "commit volume");
    free(r);
  } else {
    check(&b, cavrSetVolumeData(b.vol, f.type, f.dims, f.data, f.bytes), "volume");
    check(&b, cavrSetVolumeSpacing(b.vol, f.spacing), "spacing");
    check(&b, cavrCommitVolume(b.vol), "commit volume");
  }
  double dataRange[2];
  check(&b, cavrGetVolumeRange(b.vol, dataRange), "range");
  if (!haveRange) range[0] = dataRange[0], range[1] = dataRange[1];
  cavrFreeVolumeFile(&f);
  float table[4 * 1024];
  if (cavrTransferFunctionPreset(tfName, table, 1024, msg, sizeof msg)) DIE("%s", msg);
  check(&b, cavrSetTransferFunctionTable(b.tf, table, 1024, range[0], range[1]), "tf");
  check(&b, cavrCommitTransferFunction(b.tf), "commit tf");
  double bounds[6];
  check(&b, cavrGetVolumeBounds(b.vol, bounds), "bounds");
  check(&b, cavrSetCameraOrbit(b.cam, bounds, -60, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0), "camera");
  check(&b, cavrCommitCamera(b.cam), "commit camera");
  check(&b, cavrSetRenderInterpolation(b.set, cubic ? CAVR_INTERPOLATION_CUBIC : CAVR_INTERPOLATION_TRILINEAR),
        "interpolation");
  check(&b, cavrSetRenderSupersampling(b.set, rays), "supersampling");
  /* The paired full frame casts the same rays (filter and rays per pixel), only every pixel of them. */
  check(&b, cavrSetRenderInterpolation(b.fullSet, cubic ? CAVR_INTERPOLATION_CUBIC : CAVR_INTERPOLATION_TRILINEAR),
        "interpolation");
  check(&b, cavrSetRenderSupersampling(b.fullSet, rays), "supersampling");
  if (lambda > 0.0 || tolerance >= 0.0 || filter != 1 || iterations != 30)
    check(&b, cavrSetRenderReconstructionSolver(b.set, iterations, tolerance >= 0.0 ? tolerance : 1e-4,
                                                lambda > 0.0 ? lambda : 0.01, (CAVRGramFilter)filter), "solver");
  if (csvPath) {
    FILE *probe = fopen(csvPath, "r");
    int fresh = !probe;
    if (probe) fclose(probe);
    b.csv = fopen(csvPath, "a");
    if (!b.csv) DIE("cannot write %s", csvPath);
    if (fresh) fprintf(b.csv, "volume,backend,size,shade,fraction,method,psnr,ssim,rays,iterations,kernel_ms,solve_ms,frame_ms,full_ms,ratio,work,height\n");
  }
  printf("%-28s %-4s %9s %5s %6s %-9s %7s %7s %9s %5s %9s %9s %9s %9s %6s %6s\n", "volume", "be", "size", "shade", "frac",
         "method", "PSNR", "SSIM", "rays", "iter", "kernel_ms", "solve_ms", "frame_ms", "full_ms", "ratio", "work");
  if (!strcmp(mode, "solve")) {
    static const int sizes[3] = {512, 1024, 2048};
    for (int k = 0; k < 3; ++k) {
      b.width = b.height = sizes[k];
      b.fb = cavrNewFrameBuffer(b.dev, sizes[k], sizes[k]);
      if (!b.fb) DIE("no %dx%d frame buffer", sizes[k], sizes[k]);
      check(&b, cavrSetCameraOrbit(b.cam, bounds, -60, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0), "camera");
      check(&b, cavrCommitCamera(b.cam), "commit camera");
      for (int q = 0; q < 2; ++q)
        for (int m = 0; m < 2; ++m) {
          const double frac = q ? 0.6 : 0.25;
          check(&b, cavrSetRenderCompressive(b.set, frac, m ? CAVR_RECONSTRUCTION_LOCAL : CAVR_RECONSTRUCTION_GLOBAL, 0), "fraction");
          check(&b, cavrCommitRenderSettings(b.set), "commit");
          double t[64];
          CAVRRenderStats st;
          int r = repeat < 64 ? repeat : 64;
          check(&b, cavrSetFrameBufferHostCopy(b.fb, 0), "host copy");
          for (int i = 0; i < r; ++i) {
            check(&b, cavrRender(b.fb, b.vol, b.tf, b.cam, b.set, &st), "cavrRender");
            t[i] = st.solveMilliseconds;
          }
          qsort(t, (size_t)r, sizeof(double), bench_cmp_double);
          row(&b, 0, frac, m ? "local" : "global", 0.0, 0.0, (unsigned long long)st.raysCast, st.iterations,
              st.kernelMilliseconds, t[r / 2], st.milliseconds, 0.0, 0.0, 0.0);
        }
      cavrReleaseFrameBuffer(b.fb);
    }
  } else {
    b.fb = cavrNewFrameBuffer(b.dev, width, height);
    if (!b.fb) DIE("no frame buffer");
    for (int shade = 0; shade < 2; ++shade)
      if (!strcmp(shadeArg, "both") || atoi(shadeArg) == shade) {
        if (!strcmp(mode, "bound")) bound(&b, shade);
        else sweep(&b, shade, fractions, nf);
      }
    cavrReleaseFrameBuffer(b.fb);
  }
  if (b.csv) fclose(b.csv);
  cavr_refine_allow_hint(1);
  cavr_refine_allow_key_floor(1);
  cavrReleaseRenderSettings(b.set);
  cavrReleaseRenderSettings(b.fullSet);
  cavrReleaseCamera(b.cam);
  cavrReleaseTransferFunction(b.tf);
  cavrReleaseVolume(b.vol);
  cavrReleaseDevice(b.dev);
  return 0;
}

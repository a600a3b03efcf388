// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-bench - the GPU benchmark of issue 3 (SPEC 3). Builds with nvcc + cmake alone.
 *
 *   cavr-bench --raw VOLUME.raw --dims X,Y,Z [--type uint8] [--out DIR] [--size 1024] [--quick]
 *
 * Volumes: the given real volume resampled (trilinear) to 1024^3 uint8, and the same at native size.
 * For each: camera sweeps theta_y = 0..359 (1 degree) and theta_x, theta_z = 0..355 (5 degrees), strategies
 * standard (16x16 blocks, no rotation), shaped (all four shaping switches, no rotation) and auto (the
 * measured-best switches plus in-place rotation), all in the same run: ms per frame (kernel, CUDA events,
 * median of 3 after a warm-up). Also: the rotation kernel's time and GB/s against a measured device-to-
 * device copy, samples per second at the worst angle against a measured cache-resident texture-fetch rate,
 * and peak device memory against the padded volume plus image buffers. Then the whole frame against its parts:
 * at theta_y = 0 with AUTO, for each choice of host planes (none, RGBA8, RGBA8 + depth, all), the median over 11
 * frames of the render call's wall time, the kernel time and the device-to-host copy time (transfer_ms).
 * Writes DIR/bench.csv (one row per frame), DIR/frame.csv (one row per volume and host planes) and
 * DIR/summary.txt; testing/bench/plot_bench.py draws the figures.
 *
 * Issue 11, item 3 (the default run): AUTO's tables measured first (cavrTuneDevice, printed), then the sweeps on
 * the probe's dense field at --big^3 (uint8, uint16, float32; orthographic), the CT resampled to --big^3 with a
 * near-transparent and a bone transfer function and the CT at native size (perspective), strategies standard,
 * shaped (all four switches), dynamic + transposed + max block, 1x256 and 2x256 transposed blocks, in-place rotation
 * alone, and AUTO (measured table); --volumes picks some. --tune: the tables only. --big-volume N / --aniso X,Y,Z
 * (item 5): commit, AUTO frames and forced rotation of an N^3 / X x Y x Z uint8 volume (DIR/big_summary.txt).
 *
 * --lean (issue 11, item 2): the workload of ../shared/perf/lean_probe.cu (its synthetic n^3 uint8 volume and
 * table, orthographic about y at 0..90 degrees, step 0.5 voxel, 1024^2) for the probe's six block shapes
 * (CAVR_RAYCAST_BLOCK), with and without empty-space skipping and with in-place rotation, divided by the probe's
 * times read from its output (--probe-ms); the GPU image against the CPU back end's; then real volumes (--raw:
 * native and resampled; --raw2) with a dense transfer function: worst-angle samples per second against the cached
 * trilinear fetch rate. Writes DIR/lean.csv, DIR/lean_vs_probe.csv, DIR/lean_summary.txt and two PPM images.
 */
#define _DEFAULT_SOURCE 1 /* setenv */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#include "../../kernels/cavr_kernels.h"
#include "gpu_tune.h" /* the table's candidate shapes */

#define BENCH_NAME "cavr-bench"
#include "bench_util.h"
#include "bench_resample.h"

static size_t used_bytes(void) {
  size_t f = 0, t = 0;
  cudaMemGetInfo(&f, &t);
  return t - f;
}

typedef struct Stat {
  double mean, median, min, max;
} Stat;

static Stat stat(double *v, int n) {
  Stat s = {0, 0, 1e30, 0};
  for (int i = 0; i < n; ++i) {
    s.mean += v[i] / n;
    s.min = v[i] < s.min ? v[i] : s.min;
    s.max = v[i] > s.max ? v[i] : s.max;
  }
  qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

/* ---- Issue 11, item 2: the lean per-sample loop, against ../shared/perf/lean_probe.cu (a yardstick that is not
   part of cavr: the device run compiles it separately and hands its output over with --probe-ms). ---- */

/* The probe's volume: fill() of lean_probe.cu (a sphere of radius 0.45 filled with a product of sines), on the
   host, with the multiply-adds the GPU contracts written as fmaf (sinf may still differ in the last bit). */
typedef struct ProbeFill {
  uint8_t *v;
  const float *sx, *sy, *sz;
  int n, z0, z1;
} ProbeFill;

static void *probe_fill_part(void *arg) {
  const ProbeFill *f = (const ProbeFill *)arg;
  const int N = f->n;
  for (int z = f->z0; z < f->z1; ++z) {
    const float fz = (z + .5f) / N - .5f;
    for (int y = 0; y < N; ++y) {
      const float fy = (y + .5f) / N - .5f;
      uint8_t *row = f->v + ((size_t)z * N + y) * N;
      for (int x = 0; x < N; ++x) {
        const float fx = (x + .5f) / N - .5f;
        const float r = sqrtf(fmaf(fz, fz, fmaf(fy, fy, fx * fx)));
        const float s = fmaf(0.5f * f->sx[x] * f->sy[y], f->sz[z], 0.5f);
        const float val = r < 0.45f ? fmaf(0.5f * s, 1.f - r, 0.25f) : 0.f;
        row[x] = (uint8_t)(255.f * fminf(1.f, val));
      }
    }
  }
  return NULL;
}

static uint8_t *probe_volume(int n) {
  uint8_t *v = (uint8_t *)malloc((size_t)n * n * n);
  float *s = (float *)malloc(sizeof(float) * 3 * n);
  if (!v || !s) DIE("out of host memory for the %d^3 probe volume", n);
  for (int i = 0; i < n; ++i) {
    const float fi = (i + .5f) / n - .5f;
    s[i] = sinf(40.f * fi);
    s[n + i] = sinf(37.f * fi);
    s[2 * n + i] = sinf(43.f * fi);
  }
  enum { T = 16 };
  pthread_t th[T];
  ProbeFill parts[T];
  for (int t = 0; t < T; ++t) {
    parts[t] = (ProbeFill){v, s, s + n, s + 2 * n, n, n * t / T, n * (t + 1) / T};
    pthread_create(&th[t], NULL, probe_fill_part, &parts[t]);
  }
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  free(s);
  return v;
}

/* The probe's camera in voxel units (spacing 1, origin 0: its [-0.5, 0.5]^3 is voxels [-0.5, n - 0.5]): orthographic,
   looking along d = R_y(theta) (0, 0, 1) with screen x along (cos, 0, -sin) and y up, 1.5 n wide. Screen x then
   follows d x y, a mirror of OpenGL's eye space: the view matrix has determinant -1 (cavr only needs it invertible). */
static void probe_camera(double thetaDeg, int n, double view[16], double proj[16]) {
  const double th = thetaDeg * M_PI / 180.0, ct = cos(th), st = sin(th), c = 0.5 * n - 0.5, dist = 2.0 * n;
  const double ex[3] = {ct, 0, -st}, ey[3] = {0, 1, 0}, d[3] = {st, 0, ct};
  const double eye[3] = {c - dist * d[0], c - dist * d[1], c - dist * d[2]};
  memset(view, 0, 16 * sizeof(double));
  memset(proj, 0, 16 * sizeof(double));
  for (int a = 0; a < 3; ++a) {
    view[4 * a] = ex[a];
    view[4 * a + 1] = ey[a];
    view[4 * a + 2] = -d[a];
    view[12] -= ex[a] * eye[a];
    view[13] -= ey[a] * eye[a];
    view[14] += d[a] * eye[a];
  }
  view[15] = 1.0;
  const double h = 0.75 * n, zn = 0.5 * n, zf = 3.5 * n;
  proj[0] = proj[5] = 1.0 / h;
  proj[10] = -2.0 / (zf - zn);
  proj[14] = -(zf + zn) / (zf - zn);
  proj[15] = 1.0;
}

/* A 256-entry table over [0, 255] from control points (value, r, g, b, a), linear between them. */
static void table_from_points(const float (*pt)[5], int np, float table[4 * 256]) {
  for (int i = 0; i < 256; ++i) {
    int k = 0;
    while (k + 2 < np && pt[k + 1][0] < i) ++k;
    const float t = fminf(fmaxf((i - pt[k][0]) / (pt[k + 1][0] - pt[k][0]), 0.0f), 1.0f);
    for (int c = 0; c < 4; ++c) table[4 * i + c] = pt[k][c + 1] + t * (pt[k + 1][c + 1] - pt[k][c + 1]);
  }
}

static double psnr_planes(const float *a, const float *b, size_t n) {
  double se = 0.0;
  for (size_t i = 0; i < 4 * n; ++i) se += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
  return se > 0.0 ? 10.0 * log10(4.0 * n / se) : INFINITY;
}

/* Premultiplied RGB over black, top row first. */
static void write_ppm(const char *path, const uint8_t *rgba, int w, int h) {
  FILE *f = fopen(path, "wb");
  if (!f) DIE("cannot write %s", path);
  fprintf(f, "P6\n%d %d\n255\n", w, h);
  for (int y = h - 1; y >= 0; --y)
    for (int x = 0; x < w; ++x) fwrite(rgba + 4 * ((size_t)y * w + x), 1, 3, f);
  fclose(f);
}

/* One benchmark variant: the settings it runs with. */
typedef struct LeanVariant {
  const char *name;
  int skip;          /* empty-space skipping */
  int rotation;      /* in-place rotation allowed (strategy SHAPED, no shaping switch) */
} LeanVariant;

/* The launch shape: `block` through the device parameter CAVR_RAYCAST_BLOCK (kernels/raycast.cu), NULL: the view
   policy's; the register-capped kernels. */
static void lean_env(CAVRDevice dev, const char *block) {
  cavrSetDeviceParam(dev, "CAVR_RAYCAST_REGCAP", NULL);
  cavrSetDeviceParam(dev, "CAVR_RAYCAST_BLOCK", block);
}

/* Median kernel ms of `reps` frames after one warm-up (which also does any rotation). */
static double lean_time(CAVRDevice dev, CAVRFrameBuffer fb, CAVRVolume vol, CAVRTransferFunction tf, CAVRCamera cam,
                        CAVRRenderSettings set, int reps, uint64_t *samples) {
  CAVRRenderStats st;
  double t[16];
  OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
  for (int r = 0; r < reps; ++r) {
    OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
    t[r] = st.kernelMilliseconds;
  }
  *samples = st.samples;
  return stat(t, reps).median;
}

enum { LEAN_SHAPES = 6, LEAN_ANGLES = 7 };
static const char *const leanShapes[LEAN_SHAPES] = {"16x16", "32x8", "8x32", "1x256", "2x256T", "32x16"};
static const char *const leanEnvShapes[LEAN_SHAPES] = {"16x16", "32x8", "8x32", "1x256", "2x256t", "32x16"};

/* lean_probe's output: one line per block shape and data orientation, ms at 0, 15, ..., 90 degrees. */
static int read_probe(const char *path, double ms[LEAN_SHAPES][2][LEAN_ANGLES]) {
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f) return 0;
  char line[512];
  int got = 0;
  while (fgets(line, sizeof line, f)) {
    char name[32], data[32];
    double v[LEAN_ANGLES];
    if (sscanf(line, "%31s %31s %lf %lf %lf %lf %lf %lf %lf", name, data, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               &v[6]) != 9)
      continue;
    for (int s = 0; s < LEAN_SHAPES; ++s)
      if (!strcmp(name, leanShapes[s])) {
        memcpy(ms[s][strcmp(data, "orig") ? 1 : 0], v, sizeof v);
        ++got;
      }
  }
  fclose(f);
  return got;
}

/* Render settings of the probe workload: step 0.5 voxel, termination at 0.99, the table's opacities as given
   (no correction: the probe has none), composite, trilinear, no shading. */
static void probe_settings(CAVRDevice dev, CAVRRenderSettings set, const LeanVariant *v) {
  OK(dev, cavrSetRenderSampleDistance(set, 0.5));
  OK(dev, cavrSetRenderEarlyTermination(set, 0.99));
  OK(dev, cavrSetRenderOpacityCorrection(set, 0, 0.5));
  OK(dev, cavrSetRenderEmptySpaceSkipping(set, v->skip));
  OK(dev, cavrSetRenderStrategy(set, v->rotation ? CAVR_STRATEGY_SHAPED : CAVR_STRATEGY_STANDARD, 0, v->rotation));
  OK(dev, cavrCommitRenderSettings(set));
}

/* The dense, near-transparent transfer function of ../shared/perf/dense.tf as a 256-entry table over 0..255. */
static void dense_table(float table[4 * 256]) {
  static const float dense[4][5] = {{0, 0, 0, 0, 0}, {20, 0.6f, 0.5f, 0.4f, 0}, {21, 0.6f, 0.5f, 0.4f, 0.01f},
                                    {255, 1, 1, 1, 0.02f}};
  table_from_points(dense, 4, table);
}

/* A real volume with the dense transfer function (../shared/perf/dense.tf), perspective orbit, y sweep 0..345 in
   15-degree steps, AUTO strategy: ms per frame, and samples per second at the slowest view against the cached
   trilinear fetch rate. */
static void lean_real(CAVRDevice dev, const char *vname, const uint8_t *data, const int vd[3], int size,
                      double fetchRate, const LeanVariant *vars, int nv, FILE *csv, FILE *sum) {
  float table[4 * 256];
  dense_table(table);
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
  OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, vd, data, (size_t)vd[0] * vd[1] * vd[2]));
  OK(dev, cavrCommitVolume(vol));
  OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
  OK(dev, cavrCommitTransferFunction(tf));
  OK(dev, cavrSetFrameBufferHostChannels(fb, 0u));
  double bounds[6];
  OK(dev, cavrGetVolumeBounds(vol, bounds));
  printf("\n== %s %dx%dx%d, dense transfer function, %dx%d, perspective y sweep 0..345 (15-degree steps), auto ==\n",
         vname, vd[0], vd[1], vd[2], size, size);
  printf("  %-14s %8s %8s %8s %9s %12s %10s\n", "variant", "mean ms", "min", "max", "worst at", "samples/s",
         "of ceiling");
  for (int k = 0; k < nv; ++k) {
    lean_env(dev, NULL);
    OK(dev, cavrSetRenderEmptySpaceSkipping(set, vars[k].skip));
    OK(dev, cavrSetRenderStrategy(set, CAVR_STRATEGY_AUTO, 0, 1));
    OK(dev, cavrCommitRenderSettings(set));
    double ms[24], worst = 0, mean = 0, mn = 1e30, worstAngle = 0;
    uint64_t worstSamples = 0;
    for (int a = 0; a < 24; ++a) {
      OK(dev, cavrSetCameraOrbit(cam, bounds, 0, 15.0 * a, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
      OK(dev, cavrCommitCamera(cam));
      uint64_t samples = 0;
      ms[a] = lean_time(dev, fb, vol, tf, cam, set, 5, &samples);
      fprintf(csv, "real,%s,%s,auto,%g,%.5f,%llu,%.5g\n", vname, vars[k].name, 15.0 * a, ms[a],
              (unsigned long long)samples, samples / (ms[a] * 1e-3));
      mean += ms[a] / 24;
      mn = ms[a] < mn ? ms[a] : mn;
      if (ms[a] > worst) {
        worst = ms[a];
        worstSamples = samples;
        worstAngle = 15.0 * a;
      }
    }
    const double rate = worstSamples / (worst * 1e-3);
    printf("  %-14s %8.3f %8.3f %8.3f %8.0f° %12.4g %9.1f%%\n", vars[k].name, mean, mn, worst, worstAngle, rate,
           100.0 * rate / fetchRate);
    fprintf(sum, "real %s %s mean_ms %.4f min_ms %.4f max_ms %.4f worst_angle %g worst_samples %llu samples_per_s %.4g "
                 "fraction_of_ceiling %.4f\n",
            vname, vars[k].name, mean, mn, worst, worstAngle, (unsigned long long)worstSamples, rate, rate / fetchRate);
  }
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
}

/*
 * --lean: the probe workload (n^3 uint8, the probe's table with alphaScale, orthographic about y, 0..90 degrees in
 * 15-degree steps, 1024^2, the probe's six block shapes through CAVR_RAYCAST_BLOCK) for each variant, against
 * lean_probe's times (--probe-ms FILE: its output); then real volumes with a dense transfer function. --lean-profile
 * probe|ct|ct1024: two frames of one workload only (for ncu: the second is the one to profile).
 */
static int lean_main(CAVRDevice dev, const char *out, int size, int n, float alphaScale, const char *probeMs,
                     const CAVRVolumeFile *file, const CAVRVolumeFile *file2, const char *profile, int big) {
  char path[1024], msg[600];
  /* cavr as it renders (skipping empty space), without skipping (the probe's samples), and with in-place rotation. */
  static const LeanVariant vars[] = {{"cavr", 1, 0}, {"cavr-noskip", 0, 0}, {"cavr-noskip-rot", 0, 1}};
  const int nvProbe = 3;
  double fetchRate = 0.0;
  if (cavr_cuda_texture_ceiling(&fetchRate, msg, sizeof msg)) DIE("%s", msg);
  printf("cached trilinear fetch ceiling: %.1f G/s\n", fetchRate / 1e9);

  if (profile && (!strcmp(profile, "ct") || !strcmp(profile, "ct1024"))) {
    if (!file->data) DIE("--lean-profile ct needs --raw");
    uint8_t *res = NULL;
    int rd[3] = {file->dims[0], file->dims[1], file->dims[2]};
    if (!strcmp(profile, "ct1024")) {
      res = bench_resample((const uint8_t *)file->data, file->dims, big);
      rd[0] = rd[1] = rd[2] = big;
    }
    float table[4 * 256];
    dense_table(table);
    CAVRVolume vol = cavrNewVolume(dev);
    CAVRTransferFunction tf = cavrNewTransferFunction(dev);
    CAVRCamera cam = cavrNewCamera(dev);
    CAVRRenderSettings set = cavrNewRenderSettings(dev);
    CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
    OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, rd, res ? res : file->data, (size_t)rd[0] * rd[1] * rd[2]));
    OK(dev, cavrCommitVolume(vol));
    free(res);
    OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
    OK(dev, cavrCommitTransferFunction(tf));
    OK(dev, cavrSetFrameBufferHostChannels(fb, 0u));
    double b[6];
    OK(dev, cavrGetVolumeBounds(vol, b));
    OK(dev, cavrSetCameraOrbit(cam, b, 0, 90, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
    OK(dev, cavrCommitCamera(cam));
    CAVRRenderStats st;
    for (int r = 0; r < 2; ++r) OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
    printf("profile %s theta_y 90: %.3f ms, %llu samples\n", profile, st.kernelMilliseconds,
           (unsigned long long)st.samples);
    return 0;
  }

  /* The probe workload. */
  float table[4 * 256];
  for (int k = 0; k < 256; ++k) {
    const float a = k / 255.f;
    table[4 * k] = a;
    table[4 * k + 1] = a * a;
    table[4 * k + 2] = 1.f - a;
    table[4 * k + 3] = a > 0.2f ? a * alphaScale : 0.f;
  }
  uint8_t *data = probe_volume(n);
  const int dims[3] = {n, n, n};
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
  OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, dims, data, (size_t)n * n * n));
  OK(dev, cavrCommitVolume(vol));
  OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
  OK(dev, cavrCommitTransferFunction(tf));
  OK(dev, cavrSetFrameBufferHostChannels(fb, 0u));
  double view[16], proj[16];

  if (profile) { /* "probe": 16x16 blocks at 90 degrees, no skipping (the probe's samples), default kernel */
    lean_env(dev, "16x16");
    probe_settings(dev, set, &vars[1]);
    probe_camera(90, n, view, proj);
    OK(dev, cavrSetCameraMatrices(cam, view, proj));
    OK(dev, cavrCommitCamera(cam));
    CAVRRenderStats st;
    for (int r = 0; r < 2; ++r) OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
    printf("profile probe 16x16 theta 90: %.3f ms, %llu samples\n", st.kernelMilliseconds,
           (unsigned long long)st.samples);
    return 0;
  }

  snprintf(path, sizeof path, "%s/lean.csv", out);
  FILE *csv = fopen(path, "w");
  snprintf(path, sizeof path, "%s/lean_summary.txt", out);
  FILE *sum = fopen(path, "w");
  snprintf(path, sizeof path, "%s/lean_vs_probe.csv", out);
  FILE *cmp = fopen(path, "w");
  if (!csv || !sum || !cmp) DIE("cannot write into %s", out);
  fprintf(csv, "section,volume,variant,block,angle,ms,samples,samples_per_s\n");
  fprintf(sum, "device: %s\ntexture_fetches_per_s %.4g\nprobe volume %d^3 image %d alphaScale %g\n",
          cavrGetDeviceName(dev), fetchRate, n, size, alphaScale);

  double ms[16][LEAN_SHAPES][LEAN_ANGLES];
  uint64_t smp[16][LEAN_SHAPES][LEAN_ANGLES];
  printf("\n== probe workload: %d^3 uint8, %dx%d, orthographic about y, step 0.5 voxel, kernel ms (median of 5) ==\n",
         n, size, size);
  for (int k = 0; k < nvProbe; ++k) {
    probe_settings(dev, set, &vars[k]);
    for (int s = 0; s < LEAN_SHAPES; ++s) {
      lean_env(dev, leanEnvShapes[s]);
      printf("  %-18s %-7s", vars[k].name, leanShapes[s]);
      for (int a = 0; a < LEAN_ANGLES; ++a) {
        probe_camera(15.0 * a, n, view, proj);
        OK(dev, cavrSetCameraMatrices(cam, view, proj));
        OK(dev, cavrCommitCamera(cam));
        ms[k][s][a] = lean_time(dev, fb, vol, tf, cam, set, 5, &smp[k][s][a]);
        printf(" %7.3f", ms[k][s][a]);
        fprintf(csv, "probe,synthetic,%s,%s,%d,%.5f,%llu,%.5g\n", vars[k].name, leanShapes[s], 15 * a, ms[k][s][a],
                (unsigned long long)smp[k][s][a], smp[k][s][a] / (ms[k][s][a] * 1e-3));
      }
      printf("\n");
    }
  }
  lean_env(dev, NULL);
  printf("  samples per frame (cavr-noskip, 16x16):");
  for (int a = 0; a < LEAN_ANGLES; ++a) printf(" %.4g", (double)smp[1][0][a]);
  printf("\n  samples per frame (cavr, 16x16):       ");
  for (int a = 0; a < LEAN_ANGLES; ++a) printf(" %.4g", (double)smp[0][0][a]);
  printf("\n");

  /* Against the probe, block shape for block shape and angle for angle. */
  double probe[LEAN_SHAPES][2][LEAN_ANGLES];
  memset(probe, 0, sizeof probe);
  if (read_probe(probeMs, probe)) {
    /* Rows: kernel variants over the probe's time at the same block shape and angle (rotation: over the faster of
       the probe's original and rotated data). */
    enum { NQ = 3 };
    const int show[NQ] = {1, 0, 2};
    fprintf(cmp, "block,angle,probe_ms,probe_rotated_ms");
    for (int q = 0; q < NQ; ++q) fprintf(cmp, ",%s_ms,%s_ratio", vars[show[q]].name, vars[show[q]].name);
    fprintf(cmp, "\n");
    printf("\n== cavr / probe (kernel ms ratio; <= 1.15 is the goal; noskip variants take the probe's samples) ==\n");
    printf("  %-7s %-18s", "block", "variant");
    for (int a = 0; a < LEAN_ANGLES; ++a) printf(" %6d", 15 * a);
    printf(" %7s\n", "worst");
    double worstAll = 0.0, worstBest = 0.0;
    for (int s = 0; s < LEAN_SHAPES; ++s) {
      for (int q = 0; q < NQ; ++q) {
        printf("  %-7s %-18s", leanShapes[s], vars[show[q]].name);
        double worst = 0.0;
        for (int a = 0; a < LEAN_ANGLES; ++a) {
          double ref = probe[s][0][a];
          if (show[q] == 2 && probe[s][1][a] > 0 && probe[s][1][a] < ref) ref = probe[s][1][a];
          const double r = ref > 0 ? ms[show[q]][s][a] / ref : 0.0;
          worst = r > worst ? r : worst;
          printf(" %6.3f", r);
        }
        printf(" %7.3f\n", worst);
        if (q == 0) worstAll = worst > worstAll ? worst : worstAll;
      }
      for (int a = 0; a < LEAN_ANGLES; ++a) {
        const double r = probe[s][0][a] > 0 ? ms[0][s][a] / probe[s][0][a] : 0.0; /* with skipping */
        worstBest = r > worstBest ? r : worstBest;
        fprintf(cmp, "%s,%d,%.4f,%.4f", leanShapes[s], 15 * a, probe[s][0][a], probe[s][1][a]);
        for (int q = 0; q < NQ; ++q) {
          double ref = probe[s][0][a];
          if (show[q] == 2 && probe[s][1][a] > 0 && probe[s][1][a] < ref) ref = probe[s][1][a];
          fprintf(cmp, ",%.5f,%.4f", ms[show[q]][s][a], ref > 0 ? ms[show[q]][s][a] / ref : 0.0);
        }
        fprintf(cmp, "\n");
      }
    }
    printf("  worst over all shapes and angles: cavr-noskip / probe %.3f, cavr (skipping) / probe %.3f\n", worstAll,
           worstBest);
    fprintf(sum, "worst_noskip_vs_probe %.4f worst_skip_vs_probe %.4f\n", worstAll, worstBest);
  } else {
    printf("(no probe times: --probe-ms FILE not given or unreadable)\n");
  }
  for (int k = 0; k < nvProbe; ++k)
    for (int s = 0; s < LEAN_SHAPES; ++s) {
      fprintf(sum, "probe %s %s ms", vars[k].name, leanShapes[s]);
      for (int a = 0; a < LEAN_ANGLES; ++a) fprintf(sum, " %.4f", ms[k][s][a]);
      fprintf(sum, "\n");
    }

  /* Images: the GPU's (16x16, skipping on and off) against the CPU back end's render of the same frame. */
  {
    const double angle = 30.0;
    const size_t px = (size_t)size * size;
    float *gpuImg[2] = {(float *)malloc(px * 16), (float *)malloc(px * 16)};
    if (!gpuImg[0] || !gpuImg[1]) DIE("out of host memory");
    probe_camera(angle, n, view, proj);
    OK(dev, cavrSetCameraMatrices(cam, view, proj));
    OK(dev, cavrCommitCamera(cam));
    OK(dev, cavrSetFrameBufferHostChannels(fb, CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_RGBA32F));
    for (int k = 0; k < 2; ++k) {
      lean_env(dev, "16x16");
      probe_settings(dev, set, &vars[k]);
      CAVRRenderStats st;
      OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
      memcpy(gpuImg[k], cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA32F), px * 16);
      if (k == 0) {
        snprintf(path, sizeof path, "%s/probe_gpu_t30.ppm", out);
        write_ppm(path, (const uint8_t *)cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA8), size, size);
      }
    }
    lean_env(dev, NULL);
    CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
    if (!cpu) DIE("no CPU device");
    CAVRVolume cvol = cavrNewVolume(cpu);
    CAVRTransferFunction ctf = cavrNewTransferFunction(cpu);
    CAVRCamera ccam = cavrNewCamera(cpu);
    CAVRRenderSettings cset = cavrNewRenderSettings(cpu);
    CAVRFrameBuffer cfb = cavrNewFrameBuffer(cpu, size, size);
    OK(cpu, cavrSetVolumeData(cvol, CAVR_UINT8, dims, data, (size_t)n * n * n));
    OK(cpu, cavrCommitVolume(cvol));
    OK(cpu, cavrSetTransferFunctionTable(ctf, table, 256, 0.0, 255.0));
    OK(cpu, cavrCommitTransferFunction(ctf));
    OK(cpu, cavrSetCameraMatrices(ccam, view, proj));
    OK(cpu, cavrCommitCamera(ccam));
    probe_settings(cpu, cset, &vars[0]);
    CAVRRenderStats cs;
    OK(cpu, cavrRender(cfb, cvol, ctf, ccam, cset, &cs));
    const float *cimg = (const float *)cavrGetFrameBufferData(cfb, CAVR_FB_COLOR_RGBA32F);
    size_t covered = 0;
    for (size_t i = 0; i < px; ++i) covered += cimg[4 * i + 3] > 0.5f;
    const double p0 = psnr_planes(gpuImg[0], cimg, px), p1 = psnr_planes(gpuImg[1], cimg, px);
    printf("\nimage check, probe workload at %g degrees, 16x16: GPU (skipping) vs CPU back end PSNR %.2f dB, GPU (no "
           "skipping) vs CPU %.2f dB; CPU %.0f ms, %llu samples; %.1f%% of pixels with alpha > 0.5\n",
           angle, p0, p1, cs.milliseconds, (unsigned long long)cs.samples, 100.0 * covered / px);
    fprintf(sum, "image_psnr_gpu_vs_cpu skip %.3f noskip %.3f covered_alpha_gt_0.5 %.4f\n", p0, p1,
            (double)covered / px);
    snprintf(path, sizeof path, "%s/probe_cpu_t30.ppm", out);
    write_ppm(path, (const uint8_t *)cavrGetFrameBufferData(cfb, CAVR_FB_COLOR_RGBA8), size, size);
    cavrReleaseFrameBuffer(cfb);
    cavrReleaseRenderSettings(cset);
    cavrReleaseCamera(ccam);
    cavrReleaseTransferFunction(ctf);
    cavrReleaseVolume(cvol);
    cavrReleaseDevice(cpu);
    free(gpuImg[0]);
    free(gpuImg[1]);
    OK(dev, cavrSetFrameBufferHostChannels(fb, 0u));
  }
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
  free(data);

  /* Real volumes, dense transfer function, as cavr renders them (AUTO, empty-space skipping). */
  const LeanVariant *real = vars;
  const int nr = 1;
  if (file->data) {
    lean_real(dev, "ct-native", (const uint8_t *)file->data, file->dims, size, fetchRate, real, nr, csv, sum);
    uint8_t *r = bench_resample((const uint8_t *)file->data, file->dims, big);
    const int bd[3] = {big, big, big};
    lean_real(dev, "ct-resampled", r, bd, size, fetchRate, real, nr, csv, sum);
    free(r);
  }
  if (file2->data)
    lean_real(dev, "colin27", (const uint8_t *)file2->data, file2->dims, size, fetchRate, real, nr, csv, sum);
  fclose(csv);
  fclose(sum);
  fclose(cmp);
  return 0;
}

/* 1 when the comma-separated list holds `name` as one of its items. */
static int has_token(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    const size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

static double psnr_rgba8(const uint8_t *a, const uint8_t *b, size_t pixels) {
  double se = 0.0;
  for (size_t i = 0; i < 4 * pixels; ++i) se += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
  return se > 0.0 ? 10.0 * log10(255.0 * 255.0 * 4.0 * pixels / se) : INFINITY;
}

/* Issue 11, item 5: a big volume (n^3 uint8, e.g. 3584^3 = 42.9 GiB, >= 55% of an H100) and an anisotropic one with
   more than 2048 voxels on an axis: commit time and GB/s, device bytes, AUTO frames at 0, 45 and 90 degrees, and
   rotation forced (SHAPED, rotation on) at 90 degrees against the same view unrotated (PSNR of the RGBA8 images). */
static void big_one(CAVRDevice dev, const int vd[3], int size, FILE *sum) {
  const size_t n = (size_t)vd[0] * vd[1] * vd[2];
  printf("\n== big volume %dx%dx%d uint8 (%.2f GiB), %dx%d image ==\n", vd[0], vd[1], vd[2], n / 1073741824.0, size, size);
  uint8_t *data = (uint8_t *)malloc(n);
  if (!data) DIE("out of host memory for %zu bytes", n);
  /* A sphere of sines, filled on all cores (the probe's field stretched to the box). */
  {
    int m = vd[0] > vd[1] ? vd[0] : vd[1];
    m = m > vd[2] ? m : vd[2];
    uint8_t *slice = probe_volume(256);
    for (int z = 0; z < vd[2]; ++z) {
      const int sz = (int)((z + 0.5) * 256 / vd[2]);
      for (int y = 0; y < vd[1]; ++y) {
        const int sy = (int)((y + 0.5) * 256 / vd[1]);
        uint8_t *row = data + ((size_t)z * vd[1] + y) * vd[0];
        const uint8_t *src = slice + ((size_t)sz * 256 + sy) * 256;
        for (int x = 0; x < vd[0]; ++x) row[x] = src[(x * 256) / vd[0]];
      }
    }
    free(slice);
  }
  size_t before = used_bytes();
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, vd, data, n));
  OK(dev, cavrCommitVolume(vol));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(data);
  CAVRVolumeCommitStats cs;
  OK(dev, cavrGetVolumeCommitStats(vol, &cs));
  const double setCommitMs = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("  set + commit %.1f ms (upload %.1f ms = %.1f GB/s); device bytes / voxel bytes %.4f; device memory used "
         "%.1f MiB; on the %s\n", setCommitMs, cs.uploadMilliseconds, cs.uploadGBps,
         (double)cs.deviceBytes / (double)n, (used_bytes() - before) / 1048576.0,
         cs.deviceBytes ? "GPU" : "CPU (fallback)");
  fprintf(sum, "big %dx%dx%d set_commit_ms %.2f upload_ms %.2f upload_GBps %.2f device_over_voxels %.4f\n", vd[0], vd[1],
          vd[2], setCommitMs, cs.uploadMilliseconds, cs.uploadGBps, (double)cs.deviceBytes / (double)n);
  float table[4 * 256];
  for (int i = 0; i < 256; ++i) {
    const float v = i / 255.0f;
    table[4 * i] = v, table[4 * i + 1] = v * v, table[4 * i + 2] = 1.0f - v;
    table[4 * i + 3] = v > 0.2f ? 0.02f * v : 0.0f;
  }
  OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
  OK(dev, cavrCommitTransferFunction(tf));
  OK(dev, cavrSetFrameBufferHostChannels(fb, CAVR_FB_HOST_RGBA8));
  double b[6];
  OK(dev, cavrGetVolumeBounds(vol, b));
  uint8_t *img[2] = {(uint8_t *)malloc((size_t)size * size * 4), (uint8_t *)malloc((size_t)size * size * 4)};
  const double angles[3] = {0, 45, 90};
  for (int k = 0; k < 5; ++k) {
    /* k 0-2: AUTO at 0/45/90; 3: standard (no rotation) at 90; 4: SHAPED with rotation forced, no shaping, at 90 */
    const double ang = k < 3 ? angles[k] : 90.0;
    OK(dev, cavrSetCameraOrbit(cam, b, 0, ang, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
    OK(dev, cavrCommitCamera(cam));
    OK(dev, cavrSetRenderStrategy(set, k < 3 ? CAVR_STRATEGY_AUTO : k == 3 ? CAVR_STRATEGY_STANDARD : CAVR_STRATEGY_SHAPED,
                                  0u, 1));
    OK(dev, cavrCommitRenderSettings(set));
    CAVRRenderStats st;
    OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
    const double rotMs = st.rotationMilliseconds;
    double fr[5], ke[5];
    for (int r = 0; r < 5; ++r) {
      OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
      fr[r] = st.milliseconds;
      ke[r] = st.kernelMilliseconds;
    }
    Stat f = stat(fr, 5), kk = stat(ke, 5);
    const char *what = k < 3 ? "auto" : k == 3 ? "standard" : "rotation forced";
    printf("  %-16s theta_y %3.0f: frame %.3f ms, kernel %.3f ms, rotation %d (%.2f ms), block %dx%d, backend %s, "
           "device memory used %.1f MiB\n", what, ang, f.median, kk.median, st.rotation, rotMs, st.blockWidth,
           st.blockHeight, st.backend == CAVR_BACKEND_CUDA ? "cuda" : "cpu", (used_bytes() - before) / 1048576.0);
    fprintf(sum, "big %dx%dx%d %s theta %.0f frame_ms %.4f kernel_ms %.4f rotation %d rotation_ms %.3f\n", vd[0], vd[1],
            vd[2], what, ang, f.median, kk.median, st.rotation, rotMs);
    if (k >= 3) memcpy(img[k - 3], cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA8), (size_t)size * size * 4);
  }
  const double p = psnr_rgba8(img[0], img[1], (size_t)size * size);
  printf("  rotated vs unrotated image at 90 degrees: PSNR %.2f dB (>= 45 expected)\n", p);
  fprintf(sum, "big %dx%dx%d rotated_vs_unrotated_psnr %.3f\n", vd[0], vd[1], vd[2], p);
  free(img[0]);
  free(img[1]);
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
}

/* Issue 11, item 4: measure AUTO's table for each storage type (cavrTuneDevice, as `cavr-bench --tune`) and print,
   per class of view, the cheapest shape and its cost against the standard 16x16 block. */
static void tune_all(CAVRDevice dev, FILE *sum) {
  const CAVRScalarType types[3] = {CAVR_UINT8, CAVR_UINT16, CAVR_FLOAT32};
  for (int k = 0; k < 3; ++k) {
    char path[1024];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    OK(dev, cavrTuneDevice(dev, types[k], path, sizeof path));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("\nAUTO table for %s measured in %.2f s: %s\n", types[k] == CAVR_UINT8 ? "uint8" : types[k] == CAVR_UINT16 ?
           "uint16" : "float32", secs, path);
    if (sum) fprintf(sum, "tune %d seconds %.3f path %s\n", (int)types[k], secs, path);
    FILE *f = fopen(path, "r");
    if (!f) DIE("cannot read %s", path);
    char line[512];
    printf("  %-10s %-8s %10s %12s\n", "class", "best", "ns/sample", "16x16/best");
    while (fgets(line, sizeof line, f)) {
      char axis;
      int row, group, used = 0;
      if (sscanf(line, "class %d %c %d%n", &row, &axis, &group, &used) != 3 || row != 1) continue; /* the 768^3 row */
      double c[CAVR_TUNE_SHAPES];
      const char *p = line + used;
      int best = -1;
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
        char *end;
        c[s] = strtod(p, &end);
        p = end;
        if (c[s] > 0 && (best < 0 || c[s] < c[best])) best = s;
      }
      if (best < 0) continue;
      printf("  %c %-8d %-8s %10.4f %11.2fx\n", axis, group, cavr_block_shapes[best].name, c[best], c[0] / c[best]);
      if (sum)
        fprintf(sum, "tune %d class %c %d best %s ns %.5f vs16x16 %.4f\n", (int)types[k], axis, group,
                cavr_block_shapes[best].name, c[best], c[0] / c[best]);
    }
    fclose(f);
  }
}

/* Issue 11, item 3: the in-place rotation kernels (cavr_cuda_volume_rotate_variant) on an n^3 cube resampled from
   the volume, uint8, uint16 and float32, all in one run: median of 8 quarter turns (alternating planes) each, as GB/s
   (each voxel read and written once) and as a fraction of the device-to-device copy bandwidth (linear memory), of
   the driver's copy of the same 3-D array (cudaMemcpy3D array to array; n/a when two do not fit) and of the control
   (variant 6: the same words written back in place). Rows in the summary: rotation_v<variant>_<type>. */
static void rotation_bench(int n, const CAVRVolumeFile *file, double copyGBs, FILE *sum) {
  enum { NV = 10 };
  static const char *names[NV] = {"default",
                                  "one value per thread",
                                  "16-byte words",
                                  "16-byte words + prefetch",
                                  "16-byte words + prefetch, k = 64",
                                  "64x64 tiles + prefetch",
                                  "control: in place",
                                  "2 slices a step",
                                  "2 slices a step + prefetch",
                                  "4 slices a step"};
  static const char *types[3] = {"uint8", "uint16", "float32"};
  char msg[600];
  CAVRGpuContext *ctx = NULL;
  if (cavr_cuda_context_create(&ctx, msg, sizeof msg)) DIE("%s", msg);
  int d3[3] = {n, n, n};
  uint8_t *data8 = file && file->data ? bench_resample((const uint8_t *)file->data, file->dims, n) : NULL;
  printf("\nrotation kernels, %d^3, quarter turns in place (linear copy ceiling %.1f GB/s)\n", n, copyGBs);
  printf("%-8s %-34s %9s %9s %8s %10s %10s\n", "type", "kernel", "ms", "GB/s", "of copy", "of 3D copy", "of control");
  for (int storage = 0; storage < 3; ++storage) {
    const size_t es = storage == 0 ? 1 : storage == 1 ? 2 : 4, nv = (size_t)n * n * n;
    CAVRGpuVolume *gv = NULL;
    /* Values only matter for the control's bit patterns: the resampled CT (or a ramp) widened to the type. */
    void *vox = malloc(nv * es);
    if (!vox) DIE("out of memory");
    for (size_t i = 0; i < nv; ++i) {
      const uint8_t b = data8 ? data8[i] : (uint8_t)(i * 7);
      if (storage == 0) ((uint8_t *)vox)[i] = b;
      else if (storage == 1) ((uint16_t *)vox)[i] = (uint16_t)(b * 257);
      else ((float *)vox)[i] = b / 255.0f;
    }
    if (cavr_cuda_volume_create(ctx, vox, storage, d3, n, &gv, msg, sizeof msg)) DIE("%s", msg);
    free(vox);
    double arrayGBs = 0, control = 0;
    if (cavr_cuda_array_copy_bandwidth(ctx, gv, &arrayGBs, msg, sizeof msg)) arrayGBs = 0;
    printf("%-8s %-34s %9s %9.1f %7.1f%% %10s\n", types[storage], "cudaMemcpy3D array to array", "",
           arrayGBs, 100.0 * arrayGBs / copyGBs, arrayGBs > 0 ? "100.0%" : "n/a");
    if (sum) fprintf(sum, "array_copy_%s %d GBps %.3f fraction_of_copy %.4f\n", types[storage], n, arrayGBs, arrayGBs / copyGBs);
    static const int order[NV] = {6, 0, 1, 2, 3, 4, 5, 7, 8, 9}; /* the control first: every row is shown against it */
    for (int o = 0; o < NV; ++o) {
      const int variant = order[o];
      double t[8];
      int ok = 1;
      for (int i = 0; i < 8 && ok; ++i) {
        float ms = 0;
        ok = cavr_cuda_volume_rotate_variant(ctx, gv, 1 + (i & 1), 1, variant, &ms, msg, sizeof msg) == 0;
        t[i] = ms;
      }
      if (!ok) continue; /* does not apply (64x64 tiles or 4 slices of float32) */
      Stat st = stat(t, 8);
      const double gbs = 2.0 * nv * es / (st.median * 1e-3) / 1e9;
      if (variant == 6) control = gbs;
      char of3d[16] = "n/a";
      if (arrayGBs > 0) snprintf(of3d, sizeof of3d, "%.1f%%", 100.0 * gbs / arrayGBs);
      printf("%-8s %-34s %9.3f %9.1f %7.1f%% %10s %9.1f%%\n", types[storage], names[variant], st.median, gbs,
             100.0 * gbs / copyGBs, of3d, 100.0 * gbs / control);
      if (sum)
        fprintf(sum, "rotation_v%d_%s %d ms %.4f GBps %.3f fraction_of_copy %.4f fraction_of_array_copy %.4f "
                "fraction_of_control %.4f\n", variant, types[storage], n, st.median, gbs, gbs / copyGBs,
                arrayGBs > 0 ? gbs / arrayGBs : 0.0, gbs / control);
    }
    cavr_cuda_volume_destroy(gv);
  }
  free(data8);
  cavr_cuda_context_destroy(ctx);
}

int main(int argc, char **argv) {
  const char *raw = NULL, *out = ".", *raw2 = NULL, *probeMs = NULL, *leanProfile = NULL;
  int dims[3] = {0, 0, 0}, dims2[3] = {0, 0, 0}, size = 1024, quick = 0, big = 1024, profile = 0, lean = 0;
  int probeN = 1024, tuneOnly = 0, bigCube = 0, aniso[3] = {0, 0, 0}, rotationOnly = 0;
  float probeAlpha = 0.02f;
  const char *volumes = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--raw") && i + 1 < argc) raw = argv[++i];
    else if (!strcmp(argv[i], "--lean")) lean = 1;
    else if (!strcmp(argv[i], "--lean-profile") && i + 1 < argc) lean = 1, leanProfile = argv[++i];
    else if (!strcmp(argv[i], "--probe-ms") && i + 1 < argc) probeMs = argv[++i];
    else if (!strcmp(argv[i], "--probe-n") && i + 1 < argc) probeN = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--probe-alpha") && i + 1 < argc) probeAlpha = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "--raw2") && i + 1 < argc) raw2 = argv[++i];
    else if (!strcmp(argv[i], "--dims2") && i + 1 < argc)
      sscanf(argv[++i], "%d,%d,%d", &dims2[0], &dims2[1], &dims2[2]);
    else if (!strcmp(argv[i], "--dims") && i + 1 < argc) sscanf(argv[++i], "%d,%d,%d", &dims[0], &dims[1], &dims[2]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) size = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--big") && i + 1 < argc) big = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--profile")) profile = 1;
    else if (!strcmp(argv[i], "--tune")) tuneOnly = 1;
    else if (!strcmp(argv[i], "--volumes") && i + 1 < argc) volumes = argv[++i];
    else if (!strcmp(argv[i], "--big-volume") && i + 1 < argc) bigCube = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--aniso") && i + 1 < argc) sscanf(argv[++i], "%d,%d,%d", &aniso[0], &aniso[1], &aniso[2]);
    else if (!strcmp(argv[i], "--rotation") && i + 1 < argc) rotationOnly = atoi(argv[++i]);
    else DIE("usage: cavr-bench --raw VOLUME.raw --dims X,Y,Z [--out DIR] [--size 1024] [--big 1024] [--quick]\n"
             "       cavr-bench --lean [--probe-ms PROBE_OUTPUT] [--probe-n 1024] [--probe-alpha 0.02] "
             "[--raw VOLUME.raw --dims X,Y,Z] [--raw2 VOLUME.raw --dims2 X,Y,Z] [--out DIR] [--size 1024] "
             "[--big 1024]\n"
             "       cavr-bench --lean-profile probe|ct|ct1024 [--raw VOLUME.raw --dims X,Y,Z]\n"
             "       cavr-bench --tune                     (measure AUTO's tables for uint8, uint16, float32)\n"
             "       cavr-bench --big-volume N [--aniso X,Y,Z] [--out DIR] [--size 1024]\n"
             "       cavr-bench --rotation N [--raw VOLUME.raw --dims X,Y,Z] [--out DIR]   (rotation kernels only)\n"
             "       (sweeps: --volumes probe,ct-dense,ct-bone,probe-u16,probe-f32,native selects volumes)");
  }
  if (rotationOnly > 0) {
    char msg[600], path[1024];
    CAVRVolumeFile f;
    memset(&f, 0, sizeof f);
    double sp[3] = {1, 1, 1}, copyGBs = 0;
    if (raw && cavrLoadRaw(raw, CAVR_UINT8, dims, sp, &f, msg, sizeof msg)) DIE("%s", msg);
    if (cavr_cuda_copy_bandwidth((size_t)1 << 30, &copyGBs, msg, sizeof msg)) DIE("%s", msg);
    snprintf(path, sizeof path, "%s/rotation_summary.txt", out);
    FILE *sum = fopen(path, "w");
    if (!sum) DIE("cannot write %s", path);
    fprintf(sum, "copy_GBps %.2f\n", copyGBs);
    rotation_bench(rotationOnly, raw ? &f : NULL, copyGBs, sum);
    fclose(sum);
    if (f.data) cavrFreeVolumeFile(&f);
    return 0;
  }
  if (tuneOnly || bigCube || aniso[0]) {
    CAVRDevice d = cavrNewDevice(CAVR_BACKEND_CUDA);
    if (!d) {
      const char *m;
      cavrGetDeviceError(NULL, &m);
      DIE("no CUDA device: %s", m);
    }
    printf("device: %s\n", cavrGetDeviceName(d));
    char path[1024];
    snprintf(path, sizeof path, "%s/big_summary.txt", out);
    FILE *sum = fopen(path, tuneOnly ? "r" : "w");
    if (tuneOnly) {
      if (sum) fclose(sum);
      tune_all(d, NULL);
    } else {
      if (!sum) DIE("cannot write %s", path);
      if (bigCube) {
        const int vd[3] = {bigCube, bigCube, bigCube};
        big_one(d, vd, size, sum);
      }
      if (aniso[0]) big_one(d, aniso, size, sum);
      fclose(sum);
    }
    cavrReleaseDevice(d);
    return 0;
  }
  if (!raw && !lean) DIE("--raw is required");
  char msg[600];
  CAVRVolumeFile file, file2;
  memset(&file, 0, sizeof file);
  memset(&file2, 0, sizeof file2);
  double spacing[3] = {1, 1, 1};
  if (raw && cavrLoadRaw(raw, CAVR_UINT8, dims, spacing, &file, msg, sizeof msg)) DIE("%s", msg);
  if (raw2 && cavrLoadRaw(raw2, CAVR_UINT8, dims2, spacing, &file2, msg, sizeof msg)) DIE("%s", msg);

  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!dev) {
    const char *m;
    cavrGetDeviceError(NULL, &m);
    DIE("no CUDA device: %s", m);
  }
  printf("device: %s\n", cavrGetDeviceName(dev));
  if (lean) {
    int rc = lean_main(dev, out, size, probeN, probeAlpha, probeMs, &file, &file2, leanProfile, big);
    if (file.data) cavrFreeVolumeFile(&file);
    if (file2.data) cavrFreeVolumeFile(&file2);
    cavrReleaseDevice(dev);
    return rc;
  }

  /* Ceilings. */
  double copyGBs = 0, fetchRate = 0;
  if (cavr_cuda_copy_bandwidth((size_t)1 << 30, &copyGBs, msg, sizeof msg)) DIE("%s", msg);
  if (cavr_cuda_texture_ceiling(&fetchRate, msg, sizeof msg)) DIE("%s", msg);
  printf("ceilings: device-to-device copy %.1f GB/s (read + write); cached trilinear fetches %.1f G/s\n", copyGBs,
         fetchRate / 1e9);

  char path[1024];
  snprintf(path, sizeof path, "%s/bench.csv", out);
  FILE *csv = fopen(path, "w");
  snprintf(path, sizeof path, "%s/summary.txt", out);
  FILE *sum = fopen(path, "w");
  snprintf(path, sizeof path, "%s/frame.csv", out);
  FILE *frameCsv = fopen(path, "w");
  if (!csv || !sum || !frameCsv) DIE("cannot write into %s", out);
  fprintf(frameCsv, "volume,host_planes,frame_ms,kernel_ms,transfer_ms\n");
  fprintf(csv, "volume,sweep,angle,strategy,ms,samples,block_w,block_h,warp_w,warp_h,rotation,rotation_ms\n");
  fprintf(sum, "device: %s\ncopy_GBps %.2f\ntexture_fetches_per_s %.4g\n", cavrGetDeviceName(dev), copyGBs, fetchRate);

  /* AUTO's tables, measured afresh for the three storage types (issue 11, item 4), then printed. */
  tune_all(dev, sum);

  /* Transfer functions: near-transparent (SPEC 3's measurement: rays cross most of the volume), the probe's, bone. */
  float dense[4 * 256], probeTf[4 * 256], bone[4 * 256];
  for (int i = 0; i < 256; ++i) {
    float v = i / 255.0f;
    dense[4 * i] = dense[4 * i + 1] = dense[4 * i + 2] = v;
    dense[4 * i + 3] = i < 30 ? 0.0f : 0.004f * v;
    probeTf[4 * i] = v, probeTf[4 * i + 1] = v * v, probeTf[4 * i + 2] = 1.0f - v;
    probeTf[4 * i + 3] = v > 0.2f ? 0.02f * v : 0.0f;
    bone[4 * i] = 1.0f, bone[4 * i + 1] = 0.95f, bone[4 * i + 2] = 0.85f;
    bone[4 * i + 3] = i < 110 ? 0.0f : i > 200 ? 0.6f : 0.6f * (i - 110) / 90.0f;
  }
  /* Issue 11, item 3: the cache-aware methods with the lean loop, all in the same run. */
  enum { NS = 7 };
  const struct {
    const char *name;
    CAVRStrategy s;
    unsigned flags;
    int rotation;
    const char *block; /* CAVR_RAYCAST_BLOCK, or NULL */
  } strategies[NS] = {{"standard", CAVR_STRATEGY_STANDARD, 0, 0, NULL},
                      {"shaped", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_ALL, 0, NULL},
                      {"dyn+transp+max", CAVR_STRATEGY_SHAPED,
                       CAVR_SHAPING_DYNAMIC_BLOCK | CAVR_SHAPING_TRANSPOSED | CAVR_SHAPING_MAX_BLOCK, 0, NULL},
                      {"1x256", CAVR_STRATEGY_STANDARD, 0, 0, "1x256"},
                      {"2x256t", CAVR_STRATEGY_STANDARD, 0, 0, "2x256t"},
                      {"rotation", CAVR_STRATEGY_SHAPED, 0, 1, NULL},
                      {"auto", CAVR_STRATEGY_AUTO, 0, 1, NULL}};
  const char *sweeps[3] = {"y", "x", "z"};

  if (profile) {
    /* For ncu: the native volume at theta_y = 0, 30, 90, strategies standard and auto, two frames each. */
    CAVRVolume vol = cavrNewVolume(dev);
    CAVRTransferFunction tf = cavrNewTransferFunction(dev);
    CAVRCamera cam = cavrNewCamera(dev);
    CAVRRenderSettings set = cavrNewRenderSettings(dev);
    CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
    OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, file.dims, file.data, file.bytes));
    OK(dev, cavrCommitVolume(vol));
    OK(dev, cavrSetTransferFunctionTable(tf, dense, 256, 0.0, 255.0));
    OK(dev, cavrCommitTransferFunction(tf));
    double b[6];
    OK(dev, cavrGetVolumeBounds(vol, b));
    const double angles[3] = {0, 30, 90};
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < NS; k += NS - 1) {
        OK(dev, cavrSetCameraOrbit(cam, b, 0, angles[a], 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
        OK(dev, cavrCommitCamera(cam));
        OK(dev, cavrSetRenderStrategy(set, strategies[k].s, strategies[k].flags, strategies[k].rotation));
        OK(dev, cavrCommitRenderSettings(set));
        CAVRRenderStats st;
        for (int r = 0; r < 2; ++r) OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
        printf("profile theta_y %g %s: %.3f ms, block %dx%d, rotation %d\n", angles[a], strategies[k].name,
               st.kernelMilliseconds, st.blockWidth, st.blockHeight, st.rotation);
      }
    return 0;
  }

  /* The volumes: the probe's dense field (uint8, and the same as uint16 and float32: 2 and 4 bytes per voxel), the
     CT resampled to big^3 with the near-transparent and the bone transfer functions, the CT at native size. */
  enum { NV = 6 };
  const char *vnames[NV] = {"probe", "ct-dense", "ct-bone", "probe-u16", "probe-f32", "native"};
  for (int which = 0; which < NV; ++which) {
    if (volumes && !has_token(volumes, vnames[which])) continue;
    const char *vname = vnames[which];
    void *data = NULL;
    int vd[3] = {big, big, big}, ortho = which == 0 || which == 3 || which == 4;
    CAVRScalarType type = CAVR_UINT8;
    size_t es = 1;
    double tfMax = 255.0;
    const float *table = which == 2 ? bone : ortho ? probeTf : dense;
    if (ortho) {
      uint8_t *u8 = probe_volume(big);
      size_t n = (size_t)big * big * big;
      if (which == 0) data = u8;
      else if (which == 3) {
        uint16_t *u16 = (uint16_t *)malloc(n * 2);
        if (!u16) DIE("out of host memory");
        for (size_t i = 0; i < n; ++i) u16[i] = (uint16_t)(u8[i] * 257u);
        free(u8);
        data = u16, type = CAVR_UINT16, es = 2, tfMax = 65535.0;
      } else {
        float *f32 = (float *)malloc(n * 4);
        if (!f32) DIE("out of host memory");
        for (size_t i = 0; i < n; ++i) f32[i] = u8[i] / 255.0f;
        free(u8);
        data = f32, type = CAVR_FLOAT32, es = 4, tfMax = 1.0;
      }
    } else if (which < 5) {
      data = bench_resample((const uint8_t *)file.data, file.dims, big);
    } else {
      data = file.data;
      memcpy(vd, file.dims, sizeof vd);
    }
    size_t before = used_bytes();
    CAVRVolume vol = cavrNewVolume(dev);
    CAVRTransferFunction tf = cavrNewTransferFunction(dev);
    CAVRCamera cam = cavrNewCamera(dev);
    CAVRRenderSettings set = cavrNewRenderSettings(dev);
    CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
    const double voxelBytes = (double)vd[0] * vd[1] * vd[2] * es;
    OK(dev, cavrSetVolumeData(vol, type, vd, data, (size_t)voxelBytes));
    OK(dev, cavrCommitVolume(vol));
    if (data != file.data) free(data);
    OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, tfMax));
    OK(dev, cavrCommitTransferFunction(tf));
    OK(dev, cavrSetFrameBufferHostCopy(fb, 0));
    double bounds[6];
    OK(dev, cavrGetVolumeBounds(vol, bounds));
    const CAVRProjection proj = ortho ? CAVR_PROJECTION_ORTHOGRAPHIC : CAVR_PROJECTION_PERSPECTIVE;
    printf("\n== %s volume %dx%dx%d, %zu byte(s) per voxel, %s, %dx%d image ==\n", vname, vd[0], vd[1], vd[2], es,
           ortho ? "orthographic" : "perspective", size, size);
    fprintf(sum, "\nvolume %s %dx%dx%d bytes %zu\n", vname, vd[0], vd[1], vd[2], es);

    size_t peak = 0;
    double worstMs[NS] = {0};
    uint64_t worstSamples[NS] = {0};
    for (int sw = 0; sw < 3; ++sw) {
      int stepDeg = sw == 0 ? (quick ? 15 : 3) : (quick ? 30 : 10);
      int count = 360 / stepDeg;
      double *ms[NS];
      for (int k = 0; k < NS; ++k) ms[k] = (double *)malloc(sizeof(double) * count);
      for (int a = 0; a < count; ++a) {
        double ang = a * stepDeg;
        for (int k = 0; k < NS; ++k) {
          double rx = sw == 1 ? ang : 0, ry = sw == 0 ? ang : 0, rz = sw == 2 ? ang : 0;
          OK(dev, cavrSetCameraOrbit(cam, bounds, rx, ry, rz, proj, 1.0));
          OK(dev, cavrCommitCamera(cam));
          OK(dev, cavrSetRenderStrategy(set, strategies[k].s, strategies[k].flags, strategies[k].rotation));
          OK(dev, cavrCommitRenderSettings(set));
          CAVRRenderStats st;
          double t[3], rotMs = 0;
          cavrSetDeviceParam(dev, "CAVR_RAYCAST_BLOCK", strategies[k].block);
          OK(dev, cavrRender(fb, vol, tf, cam, set, &st)); /* warm-up (and rotation, if any) */
          rotMs = st.rotationMilliseconds;
          for (int r = 0; r < 3; ++r) {
            OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
            t[r] = st.kernelMilliseconds;
          }
          qsort(t, 3, sizeof(double), bench_cmp_double);
          ms[k][a] = t[1];
          size_t u = used_bytes();
          peak = u > peak ? u : peak;
          if (t[1] > worstMs[k]) {
            worstMs[k] = t[1];
            worstSamples[k] = st.samples;
          }
          fprintf(csv, "%s,%s,%g,%s,%.5f,%llu,%d,%d,%d,%d,%d,%.5f\n", vname, sweeps[sw], ang, strategies[k].name, t[1],
                  (unsigned long long)st.samples, st.blockWidth, st.blockHeight, st.warpWidth, st.warpHeight, st.rotation,
                  rotMs);
        }
      }
      cavrSetDeviceParam(dev, "CAVR_RAYCAST_BLOCK", NULL);
      printf("%s-sweep (%d-degree steps, %d views):\n", sweeps[sw], stepDeg, count);
      printf("  %-15s %9s %9s %9s %9s %8s %12s\n", "strategy", "mean ms", "median", "min", "max", "max/min", "mean speedup");
      double meanStd = 0;
      for (int k = 0; k < NS; ++k) {
        Stat s = stat(ms[k], count);
        if (k == 0) meanStd = s.mean;
        printf("  %-15s %9.3f %9.3f %9.3f %9.3f %8.3f %11.2fx\n", strategies[k].name, s.mean, s.median, s.min, s.max,
               s.max / s.min, meanStd / s.mean);
        fprintf(sum, "%s %s-sweep %s mean %.4f median %.4f min %.4f max %.4f max/min %.4f speedup %.4f\n", vname,
                sweeps[sw], strategies[k].name, s.mean, s.median, s.min, s.max, s.max / s.min, meanStd / s.mean);
        free(ms[k]);
      }
    }
    for (int k = 0; k < NS; ++k) {
      double rate = worstSamples[k] / (worstMs[k] * 1e-3);
      printf("  worst frame %-15s %.3f ms, %.3g samples/s = %.1f%% of the cached texture-fetch rate\n",
             strategies[k].name, worstMs[k], rate, 100.0 * rate / fetchRate);
      fprintf(sum, "%s worst %s ms %.4f samples_per_s %.4g fraction_of_ceiling %.4f\n", vname, strategies[k].name,
              worstMs[k], rate, rate / fetchRate);
    }
    double images = (double)size * size * (4 + 16 + 4 + 4); /* RGBA8, RGBA32F, depth, opaque depth */
    double used = (double)(peak - before);
    printf("  peak device memory for this volume: %.1f MiB; volume %.1f MiB + image buffers %.1f MiB = %.1f MiB "
           "(+1%%: %.1f MiB) -> %s\n", used / 1048576, voxelBytes / 1048576, images / 1048576,
           (voxelBytes + images) / 1048576, 1.01 * (voxelBytes + images) / 1048576,
           used <= 1.01 * (voxelBytes + images) ? "within" : "OVER");
    fprintf(sum, "%s peak_used %.0f volume %.0f images %.0f within %d\n", vname, used, voxelBytes, images,
            used <= 1.01 * (voxelBytes + images));

    /* Frame = kernel + copy back + host work: the render call's wall time against the kernel and the transfer,
       for each choice of host planes (cavrSetFrameBufferHostChannels). */
    if (which == 1 || which == 5) {
      const struct {
        const char *name;
        unsigned mask;
      } planes[4] = {{"none", 0u},
                     {"rgba8", CAVR_FB_HOST_RGBA8},
                     {"rgba8+depth", CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH},
                     {"all", CAVR_FB_HOST_ALL}};
      OK(dev, cavrSetCameraOrbit(cam, bounds, 0, 0, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
      OK(dev, cavrCommitCamera(cam));
      OK(dev, cavrSetRenderStrategy(set, CAVR_STRATEGY_AUTO, 0, 1));
      OK(dev, cavrCommitRenderSettings(set));
      printf("  frame vs kernel vs transfer (theta_y 0, auto, median of 11 frames):\n");
      printf("  %-12s %9s %9s %11s %9s\n", "host planes", "frame ms", "kernel", "transfer", "other");
      for (int k = 0; k < 4; ++k) {
        enum { R = 11 };
        double fr[R], ke[R], tr[R];
        CAVRRenderStats st;
        OK(dev, cavrSetFrameBufferHostChannels(fb, planes[k].mask));
        OK(dev, cavrRender(fb, vol, tf, cam, set, &st)); /* warm-up: page-locks the planes once */
        for (int r = 0; r < R; ++r) {
          OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
          fr[r] = st.milliseconds;
          ke[r] = st.kernelMilliseconds;
          tr[r] = st.transferMilliseconds;
        }
        Stat f = stat(fr, R), kk = stat(ke, R), t = stat(tr, R);
        printf("  %-12s %9.3f %9.3f %11.3f %9.3f\n", planes[k].name, f.median, kk.median, t.median,
               f.median - kk.median - t.median);
        fprintf(frameCsv, "%s,%s,%.5f,%.5f,%.5f\n", vname, planes[k].name, f.median, kk.median, t.median);
        fprintf(sum, "%s frame host_planes %s frame_ms %.4f kernel_ms %.4f transfer_ms %.4f\n", vname, planes[k].name,
                f.median, kk.median, t.median);
      }
      OK(dev, cavrSetFrameBufferHostChannels(fb, 0u));
    }
    cavrReleaseFrameBuffer(fb);
    cavrReleaseRenderSettings(set);
    cavrReleaseCamera(cam);
    cavrReleaseTransferFunction(tf);
    cavrReleaseVolume(vol);
  }

  /* The rotation kernel alone: a quarter turn of the 1024^3 (or --big) volume, against the copy ceiling. */
  rotation_bench(big, &file, copyGBs, sum);
  fclose(csv);
  fclose(frameCsv);
  fclose(sum);
  cavrFreeVolumeFile(&file);
  cavrReleaseDevice(dev);
  return 0;
}

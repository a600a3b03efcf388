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
 * and peak device memory against the padded volume plus image buffers. Writes DIR/bench.csv (one row per
 * frame) and DIR/summary.txt; testing/bench/plot_bench.py draws the figures.
 */
#define _DEFAULT_SOURCE 1 /* setenv */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#include "../../kernels/cavr_kernels.h"

#define DIE(...)                                                                                                   \
  do {                                                                                                             \
    fprintf(stderr, "cavr-bench: " __VA_ARGS__);                                                                   \
    fprintf(stderr, "\n");                                                                                         \
    exit(1);                                                                                                       \
  } while (0)
#define OK(dev, call)                                                                                              \
  do {                                                                                                             \
    CAVRError e_ = (call);                                                                                         \
    if (e_) {                                                                                                      \
      const char *m_ = "";                                                                                         \
      cavrGetDeviceError(dev, &m_);                                                                                \
      DIE("%s: %s: %s", #call, cavrGetErrorString(e_), m_);                                                        \
    }                                                                                                              \
  } while (0)

typedef struct Resample {
  const uint8_t *src;
  int sd[3];
  uint8_t *dst;
  int n, z0, z1;
} Resample;

static void *resample_part(void *arg) {
  Resample *r = (Resample *)arg;
  for (int z = r->z0; z < r->z1; ++z) {
    double fz = (double)z * (r->sd[2] - 1) / (r->n - 1);
    int iz = (int)fz < r->sd[2] - 1 ? (int)fz : r->sd[2] - 2;
    double wz = fz - iz;
    for (int y = 0; y < r->n; ++y) {
      double fy = (double)y * (r->sd[1] - 1) / (r->n - 1);
      int iy = (int)fy < r->sd[1] - 1 ? (int)fy : r->sd[1] - 2;
      double wy = fy - iy;
      for (int x = 0; x < r->n; ++x) {
        double fx = (double)x * (r->sd[0] - 1) / (r->n - 1);
        int ix = (int)fx < r->sd[0] - 1 ? (int)fx : r->sd[0] - 2;
        double wx = fx - ix;
        const uint8_t *b = r->src + ((size_t)iz * r->sd[1] + iy) * r->sd[0] + ix;
        size_t sy = (size_t)r->sd[0], sz = (size_t)r->sd[0] * r->sd[1];
        double c00 = b[0] + wx * (b[1] - b[0]), c10 = b[sy] + wx * (b[sy + 1] - b[sy]);
        double c01 = b[sz] + wx * (b[sz + 1] - b[sz]), c11 = b[sz + sy] + wx * (b[sz + sy + 1] - b[sz + sy]);
        double c0 = c00 + wy * (c10 - c00), c1 = c01 + wy * (c11 - c01);
        r->dst[((size_t)z * r->n + y) * r->n + x] = (uint8_t)(c0 + wz * (c1 - c0) + 0.5);
      }
    }
  }
  return NULL;
}

/* Trilinear resampling to n^3 on all cores. */
static uint8_t *resample(const uint8_t *src, const int sd[3], int n) {
  uint8_t *dst = (uint8_t *)malloc((size_t)n * n * n);
  if (!dst) DIE("out of host memory for the %d^3 volume", n);
  enum { T = 16 };
  pthread_t th[T];
  Resample parts[T];
  for (int t = 0; t < T; ++t) {
    parts[t] = (Resample){src, {sd[0], sd[1], sd[2]}, dst, n, n * t / T, n * (t + 1) / T};
    pthread_create(&th[t], NULL, resample_part, &parts[t]);
  }
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  return dst;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

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
  qsort(v, (size_t)n, sizeof(double), cmp);
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

int main(int argc, char **argv) {
  const char *raw = NULL, *out = ".";
  int dims[3] = {0, 0, 0}, size = 1024, quick = 0, big = 1024, profile = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--raw") && i + 1 < argc) raw = argv[++i];
    else if (!strcmp(argv[i], "--dims") && i + 1 < argc) sscanf(argv[++i], "%d,%d,%d", &dims[0], &dims[1], &dims[2]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) size = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--big") && i + 1 < argc) big = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--profile")) profile = 1;
    else DIE("usage: cavr-bench --raw VOLUME.raw --dims X,Y,Z [--out DIR] [--size 1024] [--big 1024] [--quick]");
  }
  if (!raw) DIE("--raw is required");
  char msg[600];
  CAVRVolumeFile file;
  double spacing[3] = {1, 1, 1};
  if (cavrLoadRaw(raw, CAVR_UINT8, dims, spacing, &file, msg, sizeof msg)) DIE("%s", msg);

  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!dev) {
    const char *m;
    cavrGetDeviceError(NULL, &m);
    DIE("no CUDA device: %s", m);
  }
  printf("device: %s\n", cavrGetDeviceName(dev));

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
  if (!csv || !sum) DIE("cannot write into %s", out);
  fprintf(csv, "volume,sweep,angle,strategy,ms,samples,block_w,block_h,warp_w,warp_h,rotation,rotation_ms\n");
  fprintf(sum, "device: %s\ncopy_GBps %.2f\ntexture_fetches_per_s %.4g\n", cavrGetDeviceName(dev), copyGBs, fetchRate);

  /* Near-transparent transfer function (as in SPEC 3's measurement): rays cross most of the volume. */
  float table[4 * 256];
  for (int i = 0; i < 256; ++i) {
    float v = i / 255.0f;
    table[4 * i] = table[4 * i + 1] = table[4 * i + 2] = v;
    table[4 * i + 3] = i < 30 ? 0.0f : 0.004f * v;
  }
  /* Every switch alone, all together, rotation alone, and auto: the evidence for auto's choice. The y
     sweep runs all of them; the x and z sweeps the first three and auto. */
  enum { NS = 9 };
  const struct {
    const char *name;
    CAVRStrategy s;
    unsigned flags;
    int rotation;
  } strategies[NS] = {{"standard", CAVR_STRATEGY_STANDARD, 0, 0},
                      {"shaped", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_ALL, 0},
                      {"rotation", CAVR_STRATEGY_SHAPED, 0, 1},
                      {"auto", CAVR_STRATEGY_AUTO, 0, 1},
                      {"dynamic", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_DYNAMIC_BLOCK, 0},
                      {"dyn+transposed", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_DYNAMIC_BLOCK | CAVR_SHAPING_TRANSPOSED, 0},
                      {"max-block", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_MAX_BLOCK, 0},
                      {"sync", CAVR_STRATEGY_SHAPED, CAVR_SHAPING_SYNC_PROPAGATION, 0},
                      {"standard-uncapped", CAVR_STRATEGY_STANDARD, 0, 0}};
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
    OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
    OK(dev, cavrCommitTransferFunction(tf));
    double b[6];
    OK(dev, cavrGetVolumeBounds(vol, b));
    const double angles[3] = {0, 30, 90};
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 4; k += 3) {
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

  for (int which = 0; which < 2; ++which) {
    uint8_t *data = NULL;
    int vd[3];
    const char *vname;
    if (which == 0) {
      data = resample((const uint8_t *)file.data, file.dims, big);
      vd[0] = vd[1] = vd[2] = big;
      vname = "resampled";
    } else {
      data = (uint8_t *)file.data;
      memcpy(vd, file.dims, sizeof vd);
      vname = "native";
    }
    size_t before = used_bytes();
    CAVRVolume vol = cavrNewVolume(dev);
    CAVRTransferFunction tf = cavrNewTransferFunction(dev);
    CAVRCamera cam = cavrNewCamera(dev);
    CAVRRenderSettings set = cavrNewRenderSettings(dev);
    CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
    OK(dev, cavrSetVolumeData(vol, CAVR_UINT8, vd, data, (size_t)vd[0] * vd[1] * vd[2]));
    OK(dev, cavrCommitVolume(vol));
    if (which == 0) free(data);
    OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, 255.0));
    OK(dev, cavrCommitTransferFunction(tf));
    OK(dev, cavrSetFrameBufferHostCopy(fb, 0));
    double bounds[6];
    OK(dev, cavrGetVolumeBounds(vol, bounds));
    int side = vd[0] > vd[1] ? vd[0] : vd[1];
    side = side > vd[2] ? side : vd[2];
    side = (side + 63) / 64 * 64;
    double paddedBytes = (double)side * side * side;
    printf("\n== %s volume %dx%dx%d (padded %d^3 on the GPU), %dx%d image ==\n", vname, vd[0], vd[1], vd[2], side, size,
           size);
    fprintf(sum, "\nvolume %s %dx%dx%d padded %d\n", vname, vd[0], vd[1], vd[2], side);

    size_t peak = 0;
    double worstMs[NS] = {0};
    uint64_t worstSamples[NS] = {0};
    for (int sw = 0; sw < 3; ++sw) {
      int stepDeg = sw == 0 ? (quick ? 15 : 1) : (quick ? 30 : 5);
      int count = 360 / stepDeg, ns = sw == 0 ? NS : 4;
      double *ms[NS];
      for (int k = 0; k < ns; ++k) ms[k] = (double *)malloc(sizeof(double) * count);
      for (int a = 0; a < count; ++a) {
        double ang = a * stepDeg;
        for (int k = 0; k < ns; ++k) {
          double rx = sw == 1 ? ang : 0, ry = sw == 0 ? ang : 0, rz = sw == 2 ? ang : 0;
          OK(dev, cavrSetCameraOrbit(cam, bounds, rx, ry, rz, CAVR_PROJECTION_PERSPECTIVE, 1.0));
          OK(dev, cavrCommitCamera(cam));
          OK(dev, cavrSetRenderStrategy(set, strategies[k].s, strategies[k].flags, strategies[k].rotation));
          OK(dev, cavrCommitRenderSettings(set));
          CAVRRenderStats st;
          double t[3], rotMs = 0;
          if (!strcmp(strategies[k].name, "standard-uncapped")) setenv("CAVR_RAYCAST_REGCAP", "0", 1);
          else unsetenv("CAVR_RAYCAST_REGCAP");
          OK(dev, cavrRender(fb, vol, tf, cam, set, &st)); /* warm-up (and rotation, if any) */
          rotMs = st.rotationMilliseconds;
          for (int r = 0; r < 3; ++r) {
            OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
            t[r] = st.kernelMilliseconds;
          }
          qsort(t, 3, sizeof(double), cmp);
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
      printf("%s-sweep (%d-degree steps, %d views):\n", sweeps[sw], stepDeg, count);
      printf("  %-15s %9s %9s %9s %9s %8s %12s\n", "strategy", "mean ms", "median", "min", "max", "max/min", "mean speedup");
      double meanStd = 0;
      for (int k = 0; k < ns; ++k) {
        Stat s = stat(ms[k], count);
        if (k == 0) meanStd = s.mean;
        printf("  %-15s %9.3f %9.3f %9.3f %9.3f %8.3f %11.2fx\n", strategies[k].name, s.mean, s.median, s.min, s.max,
               s.max / s.min, meanStd / s.mean);
        fprintf(sum, "%s %s-sweep %s mean %.4f median %.4f min %.4f max %.4f max/min %.4f speedup %.4f\n", vname,
                sweeps[sw], strategies[k].name, s.mean, s.median, s.min, s.max, s.max / s.min, meanStd / s.mean);
        free(ms[k]);
      }
    }
    for (int k = 0; k < 4; ++k) {
      double rate = worstSamples[k] / (worstMs[k] * 1e-3);
      printf("  worst frame %-15s %.3f ms, %.3g samples/s = %.1f%% of the cached texture-fetch rate\n",
             strategies[k].name, worstMs[k], rate, 100.0 * rate / fetchRate);
      fprintf(sum, "%s worst %s ms %.4f samples_per_s %.4g fraction_of_ceiling %.4f\n", vname, strategies[k].name,
              worstMs[k], rate, rate / fetchRate);
    }
    double images = (double)size * size * (4 + 16 + 4 + 4); /* RGBA8, RGBA32F, depth, opaque depth */
    double used = (double)(peak - before);
    printf("  peak device memory for this volume: %.1f MiB; padded volume %.1f MiB + image buffers %.1f MiB = %.1f "
           "MiB (+1%%: %.1f MiB) -> %s\n",
           used / 1048576, paddedBytes / 1048576, images / 1048576, (paddedBytes + images) / 1048576,
           1.01 * (paddedBytes + images) / 1048576, used <= 1.01 * (paddedBytes + images) ? "within" : "OVER");
    fprintf(sum, "%s peak_used %.0f padded %.0f images %.0f within %d\n", vname, used, paddedBytes, images,
            used <= 1.01 * (paddedBytes + images));
    cavrReleaseFrameBuffer(fb);
    cavrReleaseRenderSettings(set);
    cavrReleaseCamera(cam);
    cavrReleaseTransferFunction(tf);
    cavrReleaseVolume(vol);
  }

  /* The rotation kernel alone: a quarter turn of the 1024^3 (or --big) volume, against the copy ceiling. */
  {
    CAVRGpuContext *ctx = NULL;
    if (cavr_cuda_context_create(&ctx, msg, sizeof msg)) DIE("%s", msg);
    int n = big, d3[3] = {big, big, big};
    uint8_t *data = resample((const uint8_t *)file.data, file.dims, n);
    CAVRGpuVolume *gv = NULL;
    if (cavr_cuda_volume_create(ctx, data, 0, d3, n, &gv, msg, sizeof msg)) DIE("%s", msg);
    free(data);
    /* The default uint8 kernel (16-byte words) and the 4-byte-word kernel, in the same run. */
    for (int variant = 0; variant < 2; ++variant) {
      if (variant == 1) setenv("CAVR_ROTATE_WORD", "4", 1);
      else unsetenv("CAVR_ROTATE_WORD");
      double t[8];
      for (int i = 0; i < 8; ++i) {
        float ms = 0;
        if (cavr_cuda_volume_rotate(ctx, gv, 1 + (i & 1), 1, &ms, msg, sizeof msg)) DIE("%s", msg);
        t[i] = ms;
      }
      Stat s = stat(t, 8);
      double bytes = 2.0 * n * n * (double)n; /* each voxel read once and written once */
      const char *name = variant == 0 ? "16-byte words" : "4-byte words";
      printf("\nrotation kernel (%s), %d^3 uint8: median %.3f ms per quarter turn = %.1f GB/s = %.1f%% of the copy "
             "bandwidth\n", name, n, s.median, bytes / (s.median * 1e-3) / 1e9,
             100.0 * bytes / (s.median * 1e-3) / 1e9 / copyGBs);
      fprintf(sum, "rotation%s %d ms %.4f GBps %.3f fraction_of_copy %.4f\n", variant == 0 ? "" : "_w4", n, s.median,
              bytes / (s.median * 1e-3) / 1e9, bytes / (s.median * 1e-3) / 1e9 / copyGBs);
    }
    unsetenv("CAVR_ROTATE_WORD");
    cavr_cuda_volume_destroy(gv);
    cavr_cuda_context_destroy(ctx);
  }
  fclose(csv);
  fclose(sum);
  cavrFreeVolumeFile(&file);
  cavrReleaseDevice(dev);
  return 0;
}

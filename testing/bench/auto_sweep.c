// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-auto-sweep - AUTO against every fixed strategy on big volumes, view by view (GPU; the device machine).
 *
 *   cavr-auto-sweep [--size 1024] [--frames 5] [--step 15] [--out DIR] [--no-tune] VOLUME...
 *     VOLUME: XxYxZ[:u8|:u16], e.g. 3584x3584x3584 512x512x4096:u16
 *
 * First AUTO's tables are measured for uint8 and uint16 (cavrTuneDevice, timed; saved under DIR/tune via
 * CAVR_TUNE_DIR; --no-tune keeps what is there). Then for each volume (a sphere of sines filling the box, the field
 * of ../shared/perf/lean_probe.cu stretched to the extent; a near-transparent dense transfer function, so rays run
 * through the volume; orthographic, 1 ray a pixel, sample distance 1 voxel): orbits of 0..90 degrees in --step
 * steps about y and then about x, each strategy through the whole orbit in order (as a user turns the view):
 *   standard   16x16 blocks, no rotation
 *   shaped     view-dependent thread-block shaping (Sugimoto 2013), every switch, no rotation
 *   rotation   shaping plus in-place rotation (Misaki 2017; SHAPED's rule: turn when x is within 45 degrees of the
 *              rays)
 *   rot16      in-place rotation with 16x16 blocks
 *   auto       AUTO: the measured table's rows around the volume's size, checked on the volume
 * At each view: 4 warm-up frames (AUTO's checks on the volume happen in them; a turn's cost is printed), then the
 * median of --frames frames: the whole frame (cavrRender to image in hand, ms) and the kernel. "best" is the least of
 * the fixed strategies at that view; AUTO / best is the figure AUTO is judged by (steady state: after its turns).
 * Writes DIR/auto_sweep.csv (one row per volume, axis, angle, strategy) and prints a table per volume and axis and a
 * summary line per volume: the worst AUTO / best and AUTO's max/min frame over the sweeps.
 */
#define _DEFAULT_SOURCE 1
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavr/cavr.h"

#define BENCH_NAME "cavr-auto-sweep"
#include "bench_util.h"

enum { NSTRAT = 5, MAXANG = 91, WARM = 4 };
static const char *strategyName[NSTRAT] = {"standard", "shaped", "rotation", "rot16", "auto"};

/* The base field: lean_probe.cu's sphere of sines on a 256^3 grid, uint8. */
static uint8_t *base_field(int n) {
  uint8_t *v = (uint8_t *)malloc((size_t)n * n * n);
  if (!v) DIE("out of host memory");
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const float fx = (x + .5f) / n - .5f, fy = (y + .5f) / n - .5f, fz = (z + .5f) / n - .5f;
        const float r = sqrtf(fx * fx + fy * fy + fz * fz);
        const float s = 0.5f * sinf(40.f * fx) * sinf(37.f * fy) * sinf(43.f * fz) + 0.5f;
        const float val = r < 0.45f ? 0.5f * s * (1.f - r) + 0.25f : 0.f;
        v[((size_t)z * n + y) * n + x] = (uint8_t)(255.f * fminf(1.f, val));
      }
  return v;
}

typedef struct Fill {
  const uint8_t *base;
  int bn, dims[3], es, z0, z1;
  void *out;
} Fill;

static void *fill_part(void *arg) {
  const Fill *f = (const Fill *)arg;
  const int X = f->dims[0], Y = f->dims[1], Z = f->dims[2], B = f->bn;
  int *xi = (int *)malloc(sizeof(int) * (size_t)X);
  if (!xi) return NULL;
  for (int x = 0; x < X; ++x) xi[x] = (int)((long long)x * B / X);
  for (int z = f->z0; z < f->z1; ++z) {
    const int bz = (int)((long long)z * B / Z);
    for (int y = 0; y < Y; ++y) {
      const int by = (int)((long long)y * B / Y);
      const uint8_t *src = f->base + ((size_t)bz * B + by) * B;
      const size_t o = ((size_t)z * Y + y) * X;
      if (f->es == 1) {
        uint8_t *row = (uint8_t *)f->out + o;
        for (int x = 0; x < X; ++x) row[x] = src[xi[x]];
      } else {
        uint16_t *row = (uint16_t *)f->out + o;
        for (int x = 0; x < X; ++x) row[x] = (uint16_t)(src[xi[x]] * 257);
      }
    }
  }
  free(xi);
  return NULL;
}

static void *make_volume(const int dims[3], int es) {
  const size_t n = (size_t)dims[0] * dims[1] * dims[2];
  void *v = malloc(n * (size_t)es);
  if (!v) DIE("out of host memory for %zu voxels", n);
  uint8_t *base = base_field(256);
  enum { T = 32 };
  pthread_t th[T];
  Fill parts[T];
  for (int t = 0; t < T; ++t) {
    parts[t] = (Fill){base, 256, {dims[0], dims[1], dims[2]}, es, dims[2] * t / T, dims[2] * (t + 1) / T, v};
    pthread_create(&th[t], NULL, fill_part, &parts[t]);
  }
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  free(base);
  return v;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

typedef struct Cell {
  double frameMs, kernelMs, turnMs;
  int rotation, blockW, blockH;
} Cell;

static void set_strategy(CAVRDevice dev, CAVRRenderSettings set, int k) {
  static const CAVRStrategy st[NSTRAT] = {CAVR_STRATEGY_STANDARD, CAVR_STRATEGY_SHAPED, CAVR_STRATEGY_SHAPED,
                                          CAVR_STRATEGY_SHAPED, CAVR_STRATEGY_AUTO};
  static const unsigned flags[NSTRAT] = {0u, CAVR_SHAPING_ALL, CAVR_SHAPING_ALL, 0u, 0u};
  static const int rot[NSTRAT] = {0, 0, 1, 1, 1};
  OK(dev, cavrSetRenderStrategy(set, st[k], flags[k], rot[k]));
  OK(dev, cavrCommitRenderSettings(set));
}

static void sweep_volume(CAVRDevice dev, const int dims[3], int es, int size, int frames, int step, FILE *csv) {
  const size_t n = (size_t)dims[0] * dims[1] * dims[2];
  const char *tname = es == 1 ? "uint8" : "uint16";
  printf("\n== %dx%dx%d %s (%.2f GiB), %dx%d image ==\n", dims[0], dims[1], dims[2], tname,
         (double)n * es / 1073741824.0, size, size);
  double t0 = now_ms();
  void *data = make_volume(dims, es);
  const double fillMs = now_ms() - t0;
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
  t0 = now_ms();
  OK(dev, cavrSetVolumeData(vol, es == 1 ? CAVR_UINT8 : CAVR_UINT16, dims, data, n * (size_t)es));
  OK(dev, cavrCommitVolume(vol));
  const double commitMs = now_ms() - t0;
  free(data);
  CAVRVolumeCommitStats cs;
  OK(dev, cavrGetVolumeCommitStats(vol, &cs));
  printf("  filled in %.0f ms, committed in %.0f ms (%.1f GB/s), on the %s\n", fillMs, commitMs, cs.uploadGBps,
         cs.deviceBytes ? "GPU" : "CPU (fallback)");
  if (!cs.deviceBytes) DIE("the volume fell back to the CPU: nothing to sweep");
  float table[4 * 256];
  for (int i = 0; i < 256; ++i) { /* near-transparent and dense: rays run through the sphere */
    const float v = i / 255.0f;
    table[4 * i] = v, table[4 * i + 1] = v * v, table[4 * i + 2] = 1.0f - v;
    table[4 * i + 3] = v > 0.2f ? 0.02f * v : 0.0f;
  }
  OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0.0, es == 1 ? 255.0 : 65535.0));
  OK(dev, cavrCommitTransferFunction(tf));
  OK(dev, cavrSetFrameBufferHostChannels(fb, CAVR_FB_HOST_RGBA8));
  OK(dev, cavrSetRenderSampleDistance(set, 1.0f));
  double b[6];
  OK(dev, cavrGetVolumeBounds(vol, b));
  const int nang = 90 / step + 1;
  static Cell cell[2][NSTRAT][MAXANG];
  double autoMin = 1e30, autoMax = 0.0, worst = 0.0;
  for (int axis = 0; axis < 2; ++axis) { /* 0: about y, 1: about x */
    for (int k = 0; k < NSTRAT; ++k) {
      set_strategy(dev, set, k);
      for (int a = 0; a < nang; ++a) {
        const double ang = a * step;
        OK(dev, cavrSetCameraOrbit(cam, b, axis ? ang : 0.0, axis ? 0.0 : ang, 0.0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
        OK(dev, cavrCommitCamera(cam));
        CAVRRenderStats st;
        double turn = 0.0, fr[64], ke[64];
        for (int w = 0; w < WARM; ++w) {
          OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
          turn += st.rotationMilliseconds;
        }
        for (int r = 0; r < frames; ++r) {
          OK(dev, cavrRender(fb, vol, tf, cam, set, &st));
          fr[r] = st.milliseconds;
          ke[r] = st.kernelMilliseconds;
          turn += st.rotationMilliseconds;
        }
        Cell *c = &cell[axis][k][a];
        c->frameMs = median(fr, frames);
        c->kernelMs = median(ke, frames);
        c->turnMs = turn;
        c->rotation = st.rotation;
        c->blockW = st.blockWidth;
        c->blockH = st.blockHeight;
        fprintf(csv, "%dx%dx%d,%s,%c,%g,%s,%.4f,%.4f,%d,%dx%d,%.2f\n", dims[0], dims[1], dims[2], tname,
                axis ? 'x' : 'y', ang, strategyName[k], c->frameMs, c->kernelMs, c->rotation, c->blockW, c->blockH,
                c->turnMs);
        fflush(csv);
      }
    }
    printf("  about %c  %8s %8s %8s %8s %8s  %8s %8s  %s\n", axis ? 'x' : 'y', "standard", "shaped", "rotation",
           "rot16", "auto", "best", "auto/bst", "auto's choice (rotation, block; turn ms in warm-up)");
    for (int a = 0; a < nang; ++a) {
      double best = 1e30;
      for (int k = 0; k < NSTRAT - 1; ++k) best = fmin(best, cell[axis][k][a].frameMs);
      const Cell *au = &cell[axis][NSTRAT - 1][a];
      const double ratio = au->frameMs / best;
      worst = fmax(worst, ratio);
      autoMin = fmin(autoMin, au->frameMs);
      autoMax = fmax(autoMax, au->frameMs);
      printf("  %3d deg  ", a * step);
      for (int k = 0; k < NSTRAT; ++k) printf(" %8.3f", cell[axis][k][a].frameMs);
      printf("  %8.3f %8.3f  rot %d, %dx%d%s", best, ratio, au->rotation, au->blockW, au->blockH, ratio > 1.05 ? "  *" : "");
      if (au->turnMs > 0) printf(" (turned: %.1f ms)", au->turnMs);
      printf("\n");
    }
  }
  printf("  summary %dx%dx%d %s: AUTO / best at worst %.3f; AUTO max/min over the sweeps %.2f (%.3f / %.3f ms)\n",
         dims[0], dims[1], dims[2], tname, worst, autoMax / autoMin, autoMax, autoMin);
  fprintf(csv, "# summary %dx%dx%d %s worst_auto_over_best %.4f auto_max_over_min %.4f\n", dims[0], dims[1], dims[2],
          tname, worst, autoMax / autoMin);
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
}

int main(int argc, char **argv) {
  const char *out = ".";
  int size = 1024, frames = 5, step = 15, tune = 1;
  char path[1200];
  int first = argc;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) size = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--step") && i + 1 < argc) step = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--no-tune")) tune = 0;
    else if (argv[i][0] == '-') DIE("usage: cavr-auto-sweep [--size 1024] [--frames 5] [--step 15] [--out DIR] "
                                    "[--no-tune] XxYxZ[:u8|:u16]...");
    else if (first == argc) first = i;
  }
  if (frames < 1 || frames > 64 || step < 1 || step > 90 || size < 16) DIE("bad --frames, --step or --size");
  snprintf(path, sizeof path, "%s/tune", out);
  setenv("CAVR_TUNE_DIR", path, 1);
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!dev) {
    const char *m;
    cavrGetDeviceError(NULL, &m);
    DIE("no CUDA device: %s", m);
  }
  printf("device: %s\n", cavrGetDeviceName(dev));
  for (int k = 0; k < 2 && tune; ++k) {
    char where[1024];
    const double t0 = now_ms();
    OK(dev, cavrTuneDevice(dev, k ? CAVR_UINT16 : CAVR_UINT8, where, sizeof where));
    printf("AUTO's table for %s measured in %.1f s: %s\n", k ? "uint16" : "uint8", (now_ms() - t0) / 1e3, where);
  }
  snprintf(path, sizeof path, "%s/auto_sweep.csv", out);
  FILE *csv = fopen(path, "w");
  if (!csv) DIE("cannot write %s", path);
  fprintf(csv, "volume,type,axis,angle,strategy,frame_ms,kernel_ms,rotation,block,turn_ms\n");
  for (int i = first; i < argc; ++i) {
    if (argv[i][0] == '-') {
      if (strcmp(argv[i], "--no-tune")) ++i; /* an option's value */
      continue;
    }
    int dims[3] = {0, 0, 0};
    char type[8] = "u8";
    if (sscanf(argv[i], "%dx%dx%d:%7s", &dims[0], &dims[1], &dims[2], type) < 3 || dims[0] < 2 || dims[1] < 2 ||
        dims[2] < 2 || (strcmp(type, "u8") && strcmp(type, "u16")))
      DIE("bad volume '%s' (XxYxZ[:u8|:u16])", argv[i]);
    sweep_volume(dev, dims, strcmp(type, "u16") ? 1 : 2, size, frames, step, csv);
  }
  fclose(csv);
  cavrReleaseDevice(dev);
  return 0;
}

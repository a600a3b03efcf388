// SPDX-License-Identifier: BSD-3-Clause
/* gpu_util.h - shared by the GPU tests: skip without a GPU, load real volumes (NRRD, or raw where the
   machine has no teem), scenes on a given back end, PSNR. */
#ifndef CAVR_GPU_UTIL_H
#define CAVR_GPU_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#include "../common/check.h"

#define SKIP_CODE 77
#define CHECK_OK(dev, call)                                                                                        \
  do {                                                                                                             \
    CAVRError e_ = (call);                                                                                         \
    if (e_) {                                                                                                      \
      const char *m_ = "";                                                                                         \
      cavrGetDeviceError(dev, &m_);                                                                                \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, cavrGetErrorString(e_), m_);             \
      CAVR_TEST_FAIL();                                                                                            \
    }                                                                                                              \
  } while (0)

/* The real volumes of data/ the GPU tests render: name (file stem), type, dims, spacing, the stored range the
   transfer function spans, and its preset. */
typedef struct TestVolume {
  const char *name;
  CAVRScalarType type;
  int nx, ny, nz;
  double sx, sy, sz, lo, hi;
  const char *preset;
} TestVolume;
static const TestVolume TEST_VOLUMES[3] = {
    {"headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5, 0, 4000, "ct-skin"},
    {"inia19_t1brain_168x206x128_float32", CAVR_FLOAT32, 168, 206, 128, 0.5, 0.5, 0.5, 0, 150, "mri"},
    {"colin27_ch2better_301x370x316_uint8", CAVR_UINT8, 301, 370, 316, 0.5, 0.5, 0.5, 0, 130, "mri"}};

/* The objects of one render on one device. */
typedef struct Scene {
  CAVRDevice dev;
  CAVRVolume vol;
  CAVRTransferFunction tf;
  CAVRCamera cam;
  CAVRRenderSettings set;
  CAVRFrameBuffer fb;
} Scene;

/* Release a scene's objects (not the device). */
static inline void release(Scene *s) {
  cavrReleaseFrameBuffer(s->fb);
  cavrReleaseRenderSettings(s->set);
  cavrReleaseCamera(s->cam);
  cavrReleaseTransferFunction(s->tf);
  cavrReleaseVolume(s->vol);
}

/* Release a CPU scene and a GPU scene whose transfer functions were swapped for a second pair during the test:
   `own` (the ones the scenes were made with) goes back into them and is released with them, `extra` is released. */
static inline void release_pair(Scene *c, Scene *g, CAVRTransferFunction own[2], CAVRTransferFunction extra[2]) {
  c->tf = own[0];
  g->tf = own[1];
  cavrReleaseTransferFunction(extra[0]);
  cavrReleaseTransferFunction(extra[1]);
  release(c);
  release(g);
}

/* The end of a CPU-against-GPU test: release both devices, say how many cases failed and exit 1 when any did. */
static inline void finish_cpu_gpu(CAVRDevice cpu, CAVRDevice gpu, int failures) {
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  if (failures) printf("%d cases below threshold\n", failures);
  CHECK(failures == 0);
}

/* A scene on dev with f's voxels and spacing, an n-entry table over [lo, hi], a size x size frame buffer whose
   RGBA32F plane comes back to the host (the plane the comparisons read). */
static inline Scene gpu_scene(CAVRDevice dev, const CAVRVolumeFile *f, const float *table, int n, double lo, double hi,
                              int size) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, size, size)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, n, lo, hi));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_RGBA32F));
  return s;
}

/* Stage the view most GPU tests compare at: the orbit camera (view[0], view[1] degrees about the volume's bounds,
   perspective), Phong shading on or off (ambient 0.1, diffuse 0.7, specular 0.2, power 10) and the strategy (SHAPED
   with every shaping; a turn of the volume allowed where rotation is 1). The caller stages its own settings after it
   and renders with scene_render. */
static inline void scene_view(Scene *s, const double view[2], int shade, CAVRStrategy strategy, int rotation) {
  double b[6];
  CHECK_OK(s->dev, cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(s->dev, cavrSetCameraOrbit(s->cam, b, view[0], view[1], 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(s->dev, cavrCommitCamera(s->cam));
  CHECK_OK(s->dev, cavrSetRenderShading(s->set, shade, 0.1, 0.7, 0.2, 10));
  CHECK_OK(s->dev, cavrSetRenderStrategy(s->set, strategy, strategy == CAVR_STRATEGY_SHAPED ? CAVR_SHAPING_ALL : 0u,
                                         rotation));
}

/* Commit s's settings, render, and return the frame's RGBA32F plane (size x size x 4 floats, host memory owned by
   the frame buffer until its next render); the frame's statistics into *stats where it is not NULL. */
static inline const float *scene_render(Scene *s, CAVRRenderStats *stats) {
  CHECK_OK(s->dev, cavrCommitRenderSettings(s->set));
  CHECK_OK(s->dev, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, stats));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

/* A CUDA device, or exit with SKIP_CODE (ctest reports SKIP) when there is no usable GPU. CAVR_TEST_GPU_STANDIN=cpu
   gives a CPU device in the GPU's place: a check of a test's own logic on a machine without a GPU (every comparison is
   then the CPU against itself); never set by ctest. */
static inline CAVRDevice gpu_device_or_skip(void) {
  const char *standin = getenv("CAVR_TEST_GPU_STANDIN");
  const int cpu = standin && strcmp(standin, "cpu") == 0;
  CAVRDevice d = cavrNewDevice(cpu ? CAVR_BACKEND_CPU : CAVR_BACKEND_CUDA);
  if (cpu) printf("CAVR_TEST_GPU_STANDIN=cpu: a CPU device in the GPU's place\n");
  if (!d) {
    const char *m = "";
    CAVRError e = cavrGetDeviceError(NULL, &m);
    printf("SKIP: no usable GPU (%s: %s)\n", cavrGetErrorString(e), m);
    exit(SKIP_CODE);
  }
  printf("GPU: %s\n", cavrGetDeviceName(d));
  return d;
}

/* data/NAME.nhdr through teem, or RAWDIR/NAME.raw (decompressed) where teem is missing. */
static inline void load_volume(const char *name, CAVRScalarType type, int nx, int ny, int nz, double sx, double sy,
                               double sz, CAVRVolumeFile *f) {
  char path[1024], msg[600];
  snprintf(path, sizeof path, "%s/%s.nhdr", CAVR_DATA_DIR, name);
  CAVRError e = cavrLoadNrrd(path, f, msg, sizeof msg);
  if (e == CAVR_ERROR_UNSUPPORTED) {
    const char *raw = getenv("CAVR_RAW_DIR");
    int dims[3] = {nx, ny, nz};
    double spacing[3] = {sx, sy, sz};
    snprintf(path, sizeof path, "%s/%s.raw", raw ? raw : ".", name);
    e = cavrLoadRaw(path, type, dims, spacing, f, msg, sizeof msg);
  }
  if (e) {
    fprintf(stderr, "cannot load %s: %s\n", name, msg);
    exit(1);
  }
}

/* One of TEST_VOLUMES loaded (load_volume) with its preset transfer function sampled into `table` (entries x RGBA,
   4 * entries floats); exits with a message when either fails. */
static inline void load_test_volume(const TestVolume *tv, CAVRVolumeFile *f, float *table, int entries) {
  load_volume(tv->name, tv->type, tv->nx, tv->ny, tv->nz, tv->sx, tv->sy, tv->sz, f);
  char msg[400];
  if (cavrTransferFunctionPreset(tv->preset, table, entries, msg, sizeof msg) != CAVR_ERROR_NONE) {
    fprintf(stderr, "transfer-function preset of %s: %s\n", tv->name, msg);
    exit(1);
  }
}

/* Monotonic wall clock, ms. */
static inline double gpu_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline int gpu_cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of n values (sorts them in place). */
static inline double gpu_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), gpu_cmp_double);
  return v[n / 2];
}

/* A z slab of an 8-bit volume as one rank of a distributed render holds it: voxel planes z0..z1 (inclusive, ghost
   planes included), its origin at plane z0 of the whole, rays limited to `extent` (voxels, within the slab). The
   other arguments as gpu_scene's. */
static inline Scene gpu_slab_scene(CAVRDevice dev, const CAVRVolumeFile *f, int z0, int z1, const int extent[6],
                                   const float *table, int n, double lo, double hi, int size) {
  CAVRVolumeFile sub = *f;
  const size_t slice = (size_t)f->dims[0] * f->dims[1];
  sub.dims[2] = z1 - z0 + 1;
  sub.data = (unsigned char *)f->data + (size_t)z0 * slice;
  sub.bytes = slice * (size_t)sub.dims[2];
  Scene s = gpu_scene(dev, &sub, table, n, lo, hi, size);
  const double origin[3] = {0.0, 0.0, z0 * f->spacing[2]};
  CHECK_OK(dev, cavrSetVolumeOrigin(s.vol, origin));
  CHECK_OK(dev, cavrSetVolumeRenderExtent(s.vol, extent));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  return s;
}

/* The view of the piece tests (test_gpu_two, test_gpu_mpi): the orbit camera (rx, ry) around the whole volume's
   bounds, perspective; shaded, sample distance 0.25, early ray termination off (pieces composite exactly only
   without it). */
static inline void pieces_view(Scene *s, const double bounds[6], double rx, double ry) {
  CHECK_OK(s->dev, cavrSetCameraOrbit(s->cam, bounds, rx, ry, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(s->dev, cavrCommitCamera(s->cam));
  CHECK_OK(s->dev, cavrSetRenderShading(s->set, 1, 0.1, 0.7, 0.3, 12));
  CHECK_OK(s->dev, cavrSetRenderEarlyTermination(s->set, 1.0));
  CHECK_OK(s->dev, cavrSetRenderSampleDistance(s->set, 0.25));
  CHECK_OK(s->dev, cavrCommitRenderSettings(s->set));
}

static inline double psnr_rgba(const float *a, const float *b, size_t pixels, double *maxErr) {
  double se = 0.0, mx = 0.0;
  for (size_t i = 0; i < 4 * pixels; ++i) {
    double d = (double)a[i] - b[i];
    se += d * d;
    mx = fabs(d) > mx ? fabs(d) : mx;
  }
  if (maxErr) *maxErr = mx;
  return se == 0.0 ? INFINITY : 10.0 * log10(1.0 / (se / (4.0 * pixels)));
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* test_util.h - assertions and a small scene for the C tests. Each test is its own executable (ctest). */
#ifndef CAVR_TEST_UTIL_H
#define CAVR_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#include "../common/check.h"

static CAVRDevice g_dev;

#define CHECK_OK(call)                                                                                             \
  do {                                                                                                             \
    CAVRError e_ = (call);                                                                                         \
    if (e_ != CAVR_ERROR_NONE) {                                                                                   \
      const char *m_ = "";                                                                                         \
      if (g_dev) cavrGetDeviceError(g_dev, &m_);                                                                   \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, cavrGetErrorString(e_), m_);       \
      exit(1);                                                                                                     \
    }                                                                                                              \
  } while (0)

#define CHECK_ERR(call, code)                                                                                      \
  do {                                                                                                             \
    CAVRError e_ = (call);                                                                                         \
    if (e_ != (code)) {                                                                                            \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, cavrGetErrorString(e_),   \
              cavrGetErrorString(code));                                                                           \
      exit(1);                                                                                                     \
    }                                                                                                              \
  } while (0)

typedef struct Scene {
  CAVRDevice dev;
  CAVRVolume vol;
  CAVRTransferFunction tf;
  CAVRCamera cam;
  CAVRRenderSettings set;
  CAVRFrameBuffer fb;
  int w, h;
} Scene;

static inline Scene scene_new(int w, int h) {
  Scene s;
  s.w = w;
  s.h = h;
  s.dev = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(s.dev);
  g_dev = s.dev;
  s.vol = cavrNewVolume(s.dev);
  s.tf = cavrNewTransferFunction(s.dev);
  s.cam = cavrNewCamera(s.dev);
  s.set = cavrNewRenderSettings(s.dev);
  s.fb = cavrNewFrameBuffer(s.dev, w, h);
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  return s;
}

static inline void scene_free(Scene *s) {
  cavrReleaseFrameBuffer(s->fb);
  cavrReleaseRenderSettings(s->set);
  cavrReleaseCamera(s->cam);
  cavrReleaseTransferFunction(s->tf);
  cavrReleaseVolume(s->vol);
  cavrReleaseDevice(s->dev);
  g_dev = NULL;
}

/* The scene's volume from a loaded file (voxels and spacing), committed; frees the file's voxels. */
static inline void scene_take_file(Scene *s, CAVRVolumeFile *f) {
  CHECK_OK(cavrSetVolumeData(s->vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(cavrSetVolumeSpacing(s->vol, f->spacing));
  CHECK_OK(cavrCommitVolume(s->vol));
  cavrFreeVolumeFile(f);
}

/* Load a NRRD file into the scene's volume (voxels and spacing) and commit it; exits with the message on error. */
static inline void scene_load_nrrd(Scene *s, const char *path) {
  CAVRVolumeFile f;
  char msg[512];
  if (cavrLoadNrrd(path, &f, msg, sizeof msg)) {
    fprintf(stderr, "%s\n", msg);
    exit(1);
  }
  scene_take_file(s, &f);
}

/* data/NAME.nhdr, or where this cavr was built without teem (the GPU machines) $CAVR_RAW_DIR/NAME.raw (the data
   file decompressed) with the dims, type and spacing given here; exits with the message on error. */
static inline void scene_load_named(Scene *s, const char *name, CAVRScalarType type, int nx, int ny, int nz, double sx,
                                    double sy, double sz) {
  CAVRVolumeFile f;
  char path[1024], msg[1100];
  snprintf(path, sizeof path, "%s/%s.nhdr", CAVR_DATA_DIR, name);
  CAVRError e = cavrLoadNrrd(path, &f, msg, sizeof msg);
  if (e == CAVR_ERROR_UNSUPPORTED) {
    const char *raw = getenv("CAVR_RAW_DIR");
    const int dims[3] = {nx, ny, nz};
    const double spacing[3] = {sx, sy, sz};
    snprintf(path, sizeof path, "%s/%s.raw", raw ? raw : ".", name);
    e = cavrLoadRaw(path, type, dims, spacing, &f, msg, sizeof msg);
  }
  if (e) {
    fprintf(stderr, "cannot load %s: %s\n", name, msg);
    exit(1);
  }
  scene_take_file(s, &f);
}

/* A constant-colour table: every entry (r,g,b,a). */
static inline void tf_constant(CAVRTransferFunction tf, float r, float g, float b, float a, double lo, double hi) {
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    t[4 * i] = r;
    t[4 * i + 1] = g;
    t[4 * i + 2] = b;
    t[4 * i + 3] = a;
  }
  CHECK_OK(cavrSetTransferFunctionTable(tf, t, 256, lo, hi));
  CHECK_OK(cavrCommitTransferFunction(tf));
}

static inline const float *pixel(const Scene *s, int x, int y) {
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F) + 4 * ((size_t)y * s->w + x);
}

/* PSNR (dB) of two float RGBA images in [0,1] over all channels; INFINITY when identical. */
static inline double psnr_rgba(const float *a, const float *b, size_t pixels) {
  double se = 0.0;
  for (size_t i = 0; i < 4 * pixels; ++i) se += (double)(a[i] - b[i]) * (a[i] - b[i]);
  if (se == 0.0) return INFINITY;
  return 10.0 * log10(1.0 / (se / (4.0 * pixels)));
}

#endif

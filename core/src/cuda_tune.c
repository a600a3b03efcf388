// SPDX-License-Identifier: BSD-3-Clause
/*
 * cuda_tune.c - the calibration run behind AUTO's table: render a dense synthetic volume of one
 * storage type from views of every class, with every candidate thread-block shape, and keep the kernel time per
 * sample. Runs on the caller's CUDA device with objects of its own (the volume committed as cavrCommitVolume does; a
 * transfer function, camera, settings with a forced block shape and a frame buffer without host planes as plain
 * structs), rendering through the back end's table; its errors are captured (objects.h) and returned, never sent to
 * the user's error callback. The same views also price the two isosurface methods (one thread per ray, warp
 * marching) per class.
 */
#define _DEFAULT_SOURCE 1 /* M_PI */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gpu_tune.h"
#include "objects.h"
#include "view_policy.h"
#include "../../kernels/cavr_kernels.h"

#if CAVR_WITH_CUDA

/* Calibration volumes: N^3 voxels, one cube per row of the table (cavr_tune_sides: 256, 768 - or 512 / 384 where free
   device memory is short - and 1536, each where it fits), rendered into an S x S
   image as large as a typical view (1024^2: the block shapes' wave and tail behaviour depends on the number of
   blocks, and their cache behaviour on rays per voxel, here about 1.3 as for a 1024^3 volume at 1024^2), with
   empty-space skipping on (the kernel a render uses). Each view and shape: one warm-up and REPS timed frames (the
   median kept). 36 views x 8 shapes x 4 frames a row, of about 1 ms at 768^3 and 2-4 ms at 1536^3. */
enum { S = 1024, REPS = 3, ROLLS = 6 };

/* A field like ../shared/perf/lean_probe.cu's (a sphere of radius 0.45 of the box holding a product of sines), in
   [0, 1]: dense, no empty space inside the sphere, so every shape casts the same samples. sx, sy, sz: the sines. */
static float field(int N, int x, int y, int z, const float *sx, const float *sy, const float *sz) {
  const float fx = (x + .5f) / N - .5f, fy = (y + .5f) / N - .5f, fz = (z + .5f) / N - .5f;
  const float r = sqrtf(fx * fx + fy * fy + fz * fz);
  const float s = 0.5f * sx[x] * sy[y] * sz[z] + 0.5f;
  const float v = r < 0.45f ? 0.5f * s * (1.0f - r) + 0.25f : 0.0f;
  return v < 1.0f ? v : 1.0f;
}

static void *make_voxels(int N, int storage, CAVRScalarType *type) {
  const size_t n = (size_t)N * N * N;
  const size_t es = storage == CAVR_STORE_U8 ? 1 : storage == CAVR_STORE_U16 ? 2 : 4;
  unsigned char *v = (unsigned char *)malloc(n * es);
  if (!v) return NULL;
  *type = storage == CAVR_STORE_U8 ? CAVR_UINT8 : storage == CAVR_STORE_U16 ? CAVR_UINT16 : CAVR_FLOAT32;
  float *sx = (float *)malloc(3 * sizeof(float) * (size_t)N), *sy = sx + N, *sz = sx + 2 * N;
  if (!sx) {
    free(v);
    return NULL;
  }
  for (int i = 0; i < N; ++i) {
    const float f = (i + .5f) / N - .5f;
    sx[i] = sinf(37.0f * f);
    sy[i] = sinf(23.0f * f);
    sz[i] = sinf(29.0f * f);
  }
  size_t i = 0;
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x, ++i) {
        const float f = field(N, x, y, z, sx, sy, sz);
        if (storage == CAVR_STORE_U8) v[i] = (unsigned char)(255.0f * f + 0.5f);
        else if (storage == CAVR_STORE_U16) ((unsigned short *)v)[i] = (unsigned short)(65535.0f * f + 0.5f);
        else ((float *)v)[i] = f;
      }
  free(sx);
  return v;
}

/* An N^3 cube of the same field from the base cube of side B (nearest voxel; element size es): the other rows' cubes,
   made in about a byte copy per voxel (the field itself costs a square root and sines per voxel). */
static void *resize_voxels(const unsigned char *base, int B, int N, size_t es) {
  unsigned char *v = (unsigned char *)malloc((size_t)N * N * N * es);
  int *xi = (int *)malloc(sizeof(int) * (size_t)N);
  if (!v || !xi) {
    free(v);
    free(xi);
    return NULL;
  }
  for (int x = 0; x < N; ++x) xi[x] = (int)((long long)x * B / N);
  const size_t row = (size_t)N * es, slice = row * (size_t)N;
  for (int z = 0, prevZ = -1; z < N; ++z) {
    const int bz = (int)((long long)z * B / N);
    unsigned char *outSlice = v + (size_t)z * slice;
    if (bz == prevZ) { /* the same source slice as the slice before */
      memcpy(outSlice, outSlice - slice, slice);
      continue;
    }
    prevZ = bz;
    for (int y = 0, prev = -1; y < N; ++y) {
      const int by = (int)((long long)y * B / N);
      unsigned char *out = outSlice + (size_t)y * row;
      if (by == prev) { /* the same source row as the row before */
        memcpy(out, out - row, row);
        continue;
      }
      prev = by;
      const unsigned char *src = base + ((size_t)bz * B + by) * B * es;
      if (es == 1)
        for (int x = 0; x < N; ++x) out[x] = src[xi[x]];
      else if (es == 2)
        for (int x = 0; x < N; ++x) ((unsigned short *)out)[x] = ((const unsigned short *)src)[xi[x]];
      else
        for (int x = 0; x < N; ++x) ((float *)out)[x] = ((const float *)src)[xi[x]];
    }
  }
  free(xi);
  return v;
}

/* Orthographic view of the volume's centre along `d` (unit), screen right and up turned by `rollDeg` about d. */
static void view_matrices(int N, const double d[3], double rollDeg, double view[16], double proj[16], double rightOut[3],
                          double upOut[3]) {
  /* A right vector perpendicular to d: from the world axis least parallel to d. */
  const double ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int k = 0;
  for (int a = 1; a < 3; ++a)
    if (fabs(d[a]) < fabs(d[k])) k = a;
  const double *w = ax[k];
  double r0[3] = {d[1] * w[2] - d[2] * w[1], d[2] * w[0] - d[0] * w[2], d[0] * w[1] - d[1] * w[0]};
  double l = sqrt(r0[0] * r0[0] + r0[1] * r0[1] + r0[2] * r0[2]);
  for (int a = 0; a < 3; ++a) r0[a] /= l;
  double u0[3] = {r0[1] * d[2] - r0[2] * d[1], r0[2] * d[0] - r0[0] * d[2], r0[0] * d[1] - r0[1] * d[0]};
  const double c = cos(rollDeg * M_PI / 180.0), s = sin(rollDeg * M_PI / 180.0);
  double r[3], u[3];
  for (int a = 0; a < 3; ++a) {
    r[a] = c * r0[a] + s * u0[a];
    u[a] = -s * r0[a] + c * u0[a];
  }
  const double centre = 0.5 * N - 0.5, dist = 2.0 * N;
  const double eye[3] = {centre - dist * d[0], centre - dist * d[1], centre - dist * d[2]};
  memset(view, 0, 16 * sizeof(double));
  memset(proj, 0, 16 * sizeof(double));
  for (int a = 0; a < 3; ++a) { /* rows: right, up, -d (OpenGL eye space looks down -z) */
    view[4 * a] = r[a];
    view[4 * a + 1] = u[a];
    view[4 * a + 2] = -d[a];
    view[12] -= r[a] * eye[a];
    view[13] -= u[a] * eye[a];
    view[14] += d[a] * eye[a];
  }
  view[15] = 1.0;
  const double h = 0.5 * N, zn = 0.5 * N, zf = 3.5 * N; /* the sphere (radius 0.45 N) fills the image */
  proj[0] = proj[5] = 1.0 / h;
  proj[10] = -2.0 / (zf - zn);
  proj[14] = -(zf + zn) / (zf - zn);
  proj[15] = 1.0;
  memcpy(rightOut, r, sizeof r);
  memcpy(upOut, u, sizeof u);
}

static int cmpf(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The calibration's scene: the volume committed through the library's own commit, the other objects as plain
   structs the back end reads (no handles, no device references), rendered by the back end's table directly. */
typedef struct Rig {
  CAVRDevice dev;
  CAVRVolume vol;
  struct CAVRTransferFunctionImpl tf;
  struct CAVRCameraImpl cam;
  struct CAVRFrameBufferImpl fb;
  CAVRSettingsDesc set;
  float table[4 * 256];
} Rig;

/* Fill the rig for an N^3 volume of `storage` (voxels: N^3 values of that type, copied). */
static CAVRError rig_make(Rig *r, CAVRDevice dev, int N, int storage, CAVRScalarType type, const void *voxels) {
  const double maxValue = storage == CAVR_STORE_U8 ? 255.0 : storage == CAVR_STORE_U16 ? 65535.0 : 1.0;
  const size_t es = storage == CAVR_STORE_U8 ? 1 : storage == CAVR_STORE_U16 ? 2 : 4;
  r->dev = dev;
  r->vol = cavrNewVolume(dev);
  const int dims[3] = {N, N, N};
  CAVRError e = r->vol ? CAVR_ERROR_NONE : CAVR_ERROR_OUT_OF_MEMORY;
  if (!e) e = cavrSetVolumeData(r->vol, type, dims, voxels, (size_t)N * N * N * es);
  if (!e) e = cavrCommitVolume(r->vol);
  if (!e && r->vol->cpuFallback) /* the GPU could not hold it: do not calibrate the CPU */
    e = cavr_set_error(dev, CAVR_ERROR_CUDA_OUT_OF_MEMORY, "the %d^3 calibration volume does not fit in GPU memory", N);
  /* A dense, near-transparent table (the probe's: opacity 0.02 a above a = 0.2), so rays run through the sphere. */
  for (int i = 0; i < 256; ++i) {
    const float a = i / 255.0f;
    r->table[4 * i] = a;
    r->table[4 * i + 1] = a * a;
    r->table[4 * i + 2] = 1.0f - a;
    r->table[4 * i + 3] = a > 0.2f ? 0.02f * a : 0.0f;
  }
  r->tf.device = dev;
  r->tf.table = r->table;
  r->tf.count = 256;
  r->tf.range[0] = 0.0;
  r->tf.range[1] = maxValue;
  r->tf.version = 1;
  r->tf.committed = 1;
  r->cam.device = dev;
  r->cam.committed = 1;
  r->fb.device = dev;
  r->fb.width = r->fb.height = S;
  r->fb.hostChannels = 0u; /* nothing is copied back: only the kernel times count */
  cavr_settings_default(&r->set);
  r->set.sampleDistance = 0.5f;
  r->set.opacityCorrection = 0;
  r->set.unitDistance = 1.0f;
  r->set.emptySpaceSkipping = 1;
  r->set.strategy = CAVR_STRATEGY_SHAPED;
  r->set.shapingFlags = 0u;
  r->set.rotation = 0;
  return e;
}

static void rig_free(Rig *r) {
  if (r->dev->ops->releaseFrameBuffer) r->dev->ops->releaseFrameBuffer(r->dev, &r->fb);
  cavrReleaseVolume(r->vol);
}

/* The camera of the rig: view and projection (column-major), their product and its inverse. */
static CAVRError rig_camera(Rig *r, const double view[16], const double proj[16]) {
  memcpy(r->cam.view, view, sizeof r->cam.view);
  memcpy(r->cam.proj, proj, sizeof r->cam.proj);
  cavr_mat4_mul(r->cam.proj, r->cam.view, r->cam.viewProj);
  if (!cavr_mat4_invert(r->cam.viewProj, r->cam.invViewProj))
    return cavr_set_error(r->dev, CAVR_ERROR_INVALID_ARGUMENT, "calibration camera: projection * view is singular");
  return CAVR_ERROR_NONE;
}

/* One frame of the rig through the back end (a full frame: no ray list, no compressive rendering, one ray a pixel). */
static CAVRError rig_render(Rig *r, CAVRRenderStats *st) {
  memset(st, 0, sizeof *st);
  CAVRRenderJob job = {r->vol, &r->tf, &r->cam, &r->set, &r->fb, NULL, 0, NULL, NULL, NULL};
  return r->dev->ops->render(r->dev, &job, st);
}

/* The median over REPS frames (after one warm-up) of the kernel time per sample (perRay 0) or per pixel (1), ns. */
static CAVRError median_ns(Rig *r, int perRay, float *out) {
  float ns[REPS];
  for (int k = -1; k < REPS; ++k) {
    CAVRRenderStats st;
    CAVRError e = rig_render(r, &st);
    if (e) return e;
    if (k >= 0)
      ns[k] = perRay ? (float)(st.kernelMilliseconds * 1e6 / ((double)S * S))
                     : st.samples ? (float)(st.kernelMilliseconds * 1e6 / (double)st.samples) : 0.0f;
  }
  qsort(ns, REPS, sizeof(float), cmpf);
  *out = ns[REPS / 2];
  return CAVR_ERROR_NONE;
}

/* One view: every candidate shape (ns per sample into sum[s]), then (iso 1) both isosurface methods (ns per ray into
   isoSum[m]; an iso-value inside the sphere's range: every ray that enters the sphere marches to it). */
static CAVRError measure_view(Rig *r, double maxValue, int iso, double sum[CAVR_TUNE_SHAPES], double isoSum[2]) {
  CAVRError e = CAVR_ERROR_NONE;
  for (int s = 0; s < CAVR_TUNE_SHAPES && !e; ++s) {
    r->set.blockShape = s + 1;
    float ns = 0.0f;
    e = median_ns(r, 0, &ns);
    sum[s] += ns;
  }
  r->set.blockShape = 0;
  if (!iso) return e;
  r->set.blendMode = CAVR_BLEND_ISOSURFACE;
  r->set.isoCount = 1;
  r->set.isoValues[0] = (float)(0.6 * maxValue);
  for (int m = 0; m < 2 && !e; ++m) {
    r->set.isoMethod = m ? CAVR_ISO_WARP_MARCHING : CAVR_ISO_STANDARD;
    float ns = 0.0f;
    e = median_ns(r, 1, &ns);
    isoSum[m] += ns;
  }
  r->set.blendMode = CAVR_BLEND_COMPOSITE;
  return e;
}

/* Measure one row: the cube of side N (voxels, copied) from the 36 views; isosurface costs too when `iso`. */
static CAVRError measure_row(CAVRDevice dev, int N, int storage, CAVRScalarType type, const void *voxels, int iso,
                             float cost[CAVR_TUNE_CLASSES][CAVR_TUNE_SHAPES], float isoCost[CAVR_TUNE_CLASSES][2]) {
  Rig *r = (Rig *)calloc(1, sizeof *r);
  CAVRError e = r ? rig_make(r, dev, N, storage, type, voxels) : CAVR_ERROR_OUT_OF_MEMORY;
  const double maxValue = storage == CAVR_STORE_U8 ? 255.0 : storage == CAVR_STORE_U16 ? 65535.0 : 1.0;
  /* Views: rays near z (tilted 0 and 30 degrees towards x), near x (60 and 90 degrees), near y (60 and 90 degrees
     from z towards y), each rolled so that the primary axis falls in the middle of each 15-degree group. */
  static const double tilt[6][2] = {{0, 0}, {30, 0}, {60, 0}, {90, 0}, {0, 60}, {0, 90}};
  double sum[CAVR_TUNE_CLASSES][CAVR_TUNE_SHAPES], isoSum[CAVR_TUNE_CLASSES][2];
  int count[CAVR_TUNE_CLASSES];
  memset(sum, 0, sizeof sum);
  memset(isoSum, 0, sizeof isoSum);
  memset(count, 0, sizeof count);
  for (int v = 0; v < 6 && !e; ++v) {
    const double ty = tilt[v][0] * M_PI / 180.0, tx = tilt[v][1] * M_PI / 180.0;
    /* d = R_x(tx) R_y(ty) (0, 0, 1), made a little oblique so no component is exactly 0 */
    double d[3] = {sin(ty), -sin(tx) * cos(ty), cos(tx) * cos(ty)};
    d[0] += 0.02;
    d[1] += 0.03;
    const double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int a = 0; a < 3; ++a) d[a] /= l;
    for (int roll = 0; roll < ROLLS && !e; ++roll) {
      double view[16], proj[16], right[3], up[3];
      view_matrices(N, d, 7.5 + 15.0 * roll, view, proj, right, up);
      const int cls = cavr_tune_class(d, right, up);
      e = rig_camera(r, view, proj);
      if (!e) e = measure_view(r, maxValue, iso, sum[cls], isoSum[cls]);
      ++count[cls];
    }
  }
  if (!e)
    for (int c = 0; c < CAVR_TUNE_CLASSES; ++c) {
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) cost[c][s] = count[c] ? (float)(sum[c][s] / count[c]) : 0.0f;
      for (int m = 0; m < 2 && iso; ++m) isoCost[c][m] = count[c] ? (float)(isoSum[c][m] / count[c]) : 0.0f;
    }
  if (r) rig_free(r);
  free(r);
  return e;
}

int cavr_cuda_measure_table(CAVRDevice dev, int storage, unsigned rows, CAVRTuneTable *t, char *msg, size_t msgSize) {
  CAVRScalarType type;
  const size_t es = storage == CAVR_STORE_U8 ? 1 : storage == CAVR_STORE_U16 ? 2 : 4;
  size_t freeB = 0, totalB = 0;
  {
    char why[200];
    if (cavr_cuda_memory_info(&freeB, &totalB, why, sizeof why)) freeB = 0;
  }
  /* Room for a cube: the volume, its macro cells and the image buffers, with room to spare. */
#define CAVR_TUNE_FITS(n) ((double)(n) * (n) * (n) * es * 2.0 + 64e6 <= (double)freeB)
  int B = cavr_tune_sides[1]; /* the middle row's cube: the field itself; the others are resized from it */
  while (B > 384 && !CAVR_TUNE_FITS(B)) B -= 128;
  void *base = make_voxels(B, storage, &type);
  if (!base) {
    snprintf(msg, msgSize, "out of host memory for the %d^3 calibration volume", B);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  /* The calibration's errors and notes stay here: the caller reports the outcome (cavrTuneDevice's error, or AUTO's
     note that it uses its default). */
  CAVRErrorCapture cap;
  cavr_capture_errors(dev, &cap);
  CAVRError e = CAVR_ERROR_NONE;
  for (int row = 0; row < CAVR_TUNE_SIZES && !e; ++row) {
    if (!(rows & (1u << row))) continue; /* not asked: left as it is */
    const int N = row == 1 ? B : cavr_tune_sides[row];
    t->rowSide[row] = N;
    t->rowBytes[row] = 0.0;
    if (row != 1 && !CAVR_TUNE_FITS(N)) continue; /* not measured: no room */
    void *vox = row == 1 ? base : resize_voxels((const unsigned char *)base, B, N, es);
    if (!vox) continue; /* no host memory for this row: not measured */
    CAVRError er = measure_row(dev, N, storage, type, vox, row == 1, t->cost[row], t->isoCost);
    if (vox != base) free(vox);
    if (er && row != 1) continue; /* a larger or smaller cube that could not be measured: the row stays empty */
    e = er;
    if (!e) t->rowBytes[row] = (double)N * N * N * (double)es;
  }
#undef CAVR_TUNE_FITS
  free(base);
  if (e) {
    snprintf(msg, msgSize, "%s", cap.message[0] ? cap.message : cavrGetErrorString(e));
  } else {
    t->storage = storage;
    t->version = CAVR_VERSION;
  }
  cavr_capture_end(&cap);
  return e;
}

#endif

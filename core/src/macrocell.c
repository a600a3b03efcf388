// SPDX-License-Identifier: BSD-3-Clause
/*
 * macrocell.c - min/max of the stored values over 8^3-voxel macro cells, for empty-space skipping, and the
 * volume's value range from them. Cell c covers voxel coordinates [c*B, (c+1)*B] on each axis, both ends
 * included, so every voxel a trilinear or nearest sample inside the cell can touch is counted.
 *
 * Separable and threaded: for each row of cells of a slab, the element-wise min/max over its
 * (B+1)^2 voxel rows (contiguous, vectorised), then over x per cell; threads take slabs of cells along z. Every
 * voxel row is read at most 4 times (shared faces), in memory order. 512^3 uint8: 23 ms on one core of the
 * 2-core build VM (the cell-by-cell loop it replaces: 180 ms, plus a range pass in cavrSetVolumeData), 2.9 ms on
 * 16 cores of the H200 machine. The CUDA back end computes the same cells on the GPU (kernels/volume.cu,
 * cell_minmax); this is its reference and the CPU back end's path.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

void cavr_macrocell_grid(const int dims[3], CAVRMacroGridDesc *grid) {
  const int B = CAVR_MACROCELL_SIZE;
  for (int a = 0; a < 3; ++a) grid->cells[a] = (dims[a] - 1 + B - 1) / B;
}

typedef struct CellJob {
  const CAVRVoxels *voxels;
  int g[3];
  int cz0, cz1;          /* cell slabs of this thread */
  float *out;
  float lo, hi;          /* range of the voxels this thread read */
  int failed;
} CellJob;

/* One slab of cells (cz): for each row of cells (cy), the element-wise min/max over the rows y in [cy B, min(cy B + B,
   d1-1)] of the slices z in [cz B, min(cz B + B, d2-1)] (contiguous, vectorised), then the min/max over x in
   [cx B, min(cx B + B, d0-1)] of that for each cell. lo, hi: the range over the slab's cells. */
#define CELL_SLAB(T)                                                                                               \
  do {                                                                                                             \
    T *mn = (T *)rowbuf, *mx = mn + d[0];                                                                          \
    const T *v = (const T *)j->voxels->data;                                                                       \
    for (int cy = 0; cy < g[1]; ++cy) {                                                                            \
      const int y1 = (cy + 1) * B < d[1] - 1 ? (cy + 1) * B : d[1] - 1;                                            \
      memcpy(mn, v + ((size_t)z0 * d[1] + (size_t)cy * B) * d[0], sizeof(T) * d[0]);                               \
      memcpy(mx, mn, sizeof(T) * d[0]);                                                                            \
      for (int z = z0; z <= z1; ++z)                                                                               \
        for (int y = cy * B; y <= y1; ++y) {                                                                       \
          const T *row = v + ((size_t)z * d[1] + y) * d[0];                                                        \
          for (int x = 0; x < d[0]; ++x) {                                                                         \
            const T s = row[x];                                                                                    \
            mn[x] = s < mn[x] ? s : mn[x];                                                                         \
            mx[x] = s > mx[x] ? s : mx[x];                                                                         \
          }                                                                                                        \
        }                                                                                                          \
      float *cell = out + 2 * (size_t)cy * g[0];                                                                   \
      for (int cx = 0; cx < g[0]; ++cx) {                                                                          \
        const int x0 = cx * B, x1 = x0 + B < d[0] - 1 ? x0 + B : d[0] - 1;                                         \
        T a = mn[x0], b = mx[x0];                                                                                  \
        for (int x = x0 + 1; x <= x1; ++x) {                                                                       \
          a = mn[x] < a ? mn[x] : a;                                                                               \
          b = mx[x] > b ? mx[x] : b;                                                                               \
        }                                                                                                          \
        cell[2 * cx] = (float)a;                                                                                   \
        cell[2 * cx + 1] = (float)b;                                                                               \
        lo = (float)a < lo ? (float)a : lo;                                                                        \
        hi = (float)b > hi ? (float)b : hi;                                                                        \
      }                                                                                                            \
    }                                                                                                              \
  } while (0)

static void *cell_slabs(void *arg) {
  CellJob *j = (CellJob *)arg;
  const int B = CAVR_MACROCELL_SIZE;
  const int *d = j->voxels->dims, *g = j->g;
  void *rowbuf = malloc(2 * sizeof(float) * (size_t)d[0]);
  if (!rowbuf) {
    j->failed = 1;
    return NULL;
  }
  float lo = 3.4e38f, hi = -3.4e38f;
  for (int cz = j->cz0; cz < j->cz1; ++cz) {
    float *out = j->out + 2 * (size_t)g[0] * g[1] * cz;
    const int z0 = cz * B, z1 = (cz + 1) * B < d[2] - 1 ? (cz + 1) * B : d[2] - 1;
    switch (j->voxels->storage) {
    case CAVR_STORE_U8: CELL_SLAB(uint8_t); break;
    case CAVR_STORE_U16: CELL_SLAB(uint16_t); break;
    default: CELL_SLAB(float); break;
    }
  }
  free(rowbuf);
  j->lo = lo;
  j->hi = hi;
  return NULL;
}

CAVRError cavr_compute_macrocells(const CAVRVoxels *voxels, const CAVRMacroGridDesc *grid, int threads, float *minmax,
                                  double range[2]) {
  const int *g = grid->cells;
  int n = threads < 1 ? 1 : threads;
  if (n > g[2]) n = g[2];
  /* At least 4 MiB of voxels per thread: starting a thread costs more than reducing a small volume. */
  const size_t bytes = (size_t)voxels->dims[0] * voxels->dims[1] * voxels->dims[2] *
                       (voxels->storage == CAVR_STORE_U8 ? 1u : voxels->storage == CAVR_STORE_U16 ? 2u : 4u);
  if ((size_t)n > 1 + bytes / ((size_t)4 << 20)) n = (int)(1 + bytes / ((size_t)4 << 20));
  CellJob *jobs = (CellJob *)calloc((size_t)n, sizeof(CellJob));
  pthread_t *ids = (pthread_t *)calloc((size_t)n, sizeof(pthread_t));
  int *started = (int *)calloc((size_t)n, sizeof(int));
  if (!jobs || !ids || !started) {
    free(jobs);
    free(ids);
    free(started);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  for (int t = 0; t < n; ++t) {
    jobs[t] = (CellJob){voxels, {g[0], g[1], g[2]}, (int)((long)g[2] * t / n), (int)((long)g[2] * (t + 1) / n),
                        minmax, 0.0f, 0.0f, 0};
    if (t > 0) started[t] = pthread_create(&ids[t], NULL, cell_slabs, &jobs[t]) == 0;
  }
  cell_slabs(&jobs[0]);
  for (int t = 1; t < n; ++t) {
    if (started[t]) pthread_join(ids[t], NULL);
    else cell_slabs(&jobs[t]); /* the system refused a thread: do its slabs here */
  }
  CAVRError e = CAVR_ERROR_NONE;
  float lo = jobs[0].lo, hi = jobs[0].hi;
  for (int t = 0; t < n; ++t) {
    if (jobs[t].failed) e = CAVR_ERROR_OUT_OF_MEMORY;
    lo = jobs[t].lo < lo ? jobs[t].lo : lo;
    hi = jobs[t].hi > hi ? jobs[t].hi : hi;
  }
  range[0] = lo;
  range[1] = hi;
  free(jobs);
  free(ids);
  free(started);
  return e;
}

void cavr_classify_cells(const CAVRVolume vol, const float *rgba, int count, float idxScale, float idxBias,
                         uint8_t *out) {
  int *prefix = (int *)malloc(sizeof(int) * (size_t)(count + 1));
  size_t n = (size_t)vol->grid.cells[0] * vol->grid.cells[1] * vol->grid.cells[2];
  if (!prefix) { /* no memory for the prefix sums: treat every cell as visible (never wrong, only slower) */
    for (size_t c = 0; c < n; ++c) out[c] = 1;
    return;
  }
  prefix[0] = 0;
  for (int i = 0; i < count; ++i) prefix[i + 1] = prefix[i] + (rgba[4 * i + 3] > 0.0f);
  for (size_t c = 0; c < n; ++c) {
    float lo = vol->cellMinMax[2 * c] * idxScale + idxBias, hi = vol->cellMinMax[2 * c + 1] * idxScale + idxBias;
    lo = lo < 0.0f ? 0.0f : lo > (float)(count - 1) ? (float)(count - 1) : lo;
    hi = hi < 0.0f ? 0.0f : hi > (float)(count - 1) ? (float)(count - 1) : hi;
    int i0 = (int)floorf(lo), i1 = (int)ceilf(hi);
    out[c] = (uint8_t)(prefix[i1 + 1] - prefix[i0] > 0);
  }
  free(prefix);
}

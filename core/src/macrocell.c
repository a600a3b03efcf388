/*
 * macrocell.c - min/max of the stored values over 8^3-voxel macro cells, for empty-space skipping.
 * Cell c covers voxel coordinates [c*B, (c+1)*B] on each axis, both ends included, so every voxel a
 * trilinear or nearest sample inside the cell can touch is counted.
 */
#include <math.h>
#include <stdlib.h>

#include "backend.h"

#define CELL_MINMAX(T)                                                                                             \
  do {                                                                                                             \
    const T *v = (const T *)voxels->data;                                                                          \
    for (int cz = 0; cz < g[2]; ++cz)                                                                              \
      for (int cy = 0; cy < g[1]; ++cy)                                                                            \
        for (int cx = 0; cx < g[0]; ++cx) {                                                                        \
          float mn = 3.4e38f, mx = -3.4e38f;                                                                       \
          int z1 = (cz + 1) * B < d[2] - 1 ? (cz + 1) * B : d[2] - 1;                                              \
          int y1 = (cy + 1) * B < d[1] - 1 ? (cy + 1) * B : d[1] - 1;                                              \
          int x1 = (cx + 1) * B < d[0] - 1 ? (cx + 1) * B : d[0] - 1;                                              \
          for (int z = cz * B; z <= z1; ++z)                                                                       \
            for (int y = cy * B; y <= y1; ++y) {                                                                   \
              const T *row = v + ((size_t)z * d[1] + y) * d[0];                                                    \
              for (int x = cx * B; x <= x1; ++x) {                                                                 \
                float s = (float)row[x];                                                                           \
                mn = s < mn ? s : mn;                                                                              \
                mx = s > mx ? s : mx;                                                                              \
              }                                                                                                    \
            }                                                                                                      \
          size_t c = ((size_t)cz * g[1] + cy) * g[0] + cx;                                                         \
          out[2 * c] = mn;                                                                                         \
          out[2 * c + 1] = mx;                                                                                     \
        }                                                                                                          \
  } while (0)

CAVRError cavr_build_macrocells(const CAVRVoxels *voxels, CAVRMacroGridDesc *grid, float **minmax) {
  const int B = CAVR_MACROCELL_SIZE;
  const int *d = voxels->dims;
  int g[3];
  for (int a = 0; a < 3; ++a) g[a] = (d[a] - 1 + B - 1) / B;
  size_t cells = (size_t)g[0] * g[1] * g[2];
  float *out = (float *)malloc(cells * 2 * sizeof(float));
  if (!out) return CAVR_ERROR_OUT_OF_MEMORY;
  switch (voxels->storage) {
  case CAVR_STORE_U8: CELL_MINMAX(uint8_t); break;
  case CAVR_STORE_U16: CELL_MINMAX(uint16_t); break;
  default: CELL_MINMAX(float); break;
  }
  for (int a = 0; a < 3; ++a) grid->cells[a] = g[a];
  *minmax = out;
  return CAVR_ERROR_NONE;
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

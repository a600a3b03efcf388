// SPDX-License-Identifier: BSD-3-Clause
/*
 * Macro-cell min/max (empty-space skipping) and the value range, computed separably on several threads
 * (core/src/macrocell.c), equal the cell-by-cell definition exactly: random volumes of every stored type with
 * odd and even sizes (the last cell of an axis partial or whole), 1 to 5 threads. Through the API, the range
 * of a committed volume is the data's (int8 and int16 offsets included), a geometry-only commit keeps it and
 * does not recompute the cells, time steps of one size (their buffers recycled) each get their own range, and
 * cavrGetVolumeCommitStats reports a CPU commit (no upload, no GPU copy).
 */
#include <string.h>

#include "backend.h"
#include "cavr/cavr.h"
#include "../common/check.h"

/* The definition (the loop macrocell.c had before it was made separable): every cell visits its (B+1)^3 voxels. */
#define NAIVE(T)                                                                                                   \
  do {                                                                                                             \
    const T *v = (const T *)vox->data;                                                                             \
    for (int cz = 0; cz < g[2]; ++cz)                                                                              \
      for (int cy = 0; cy < g[1]; ++cy)                                                                            \
        for (int cx = 0; cx < g[0]; ++cx) {                                                                        \
          float mn = 3.4e38f, mx = -3.4e38f;                                                                       \
          for (int z = cz * B; z <= (cz + 1) * B && z < d[2]; ++z)                                                 \
            for (int y = cy * B; y <= (cy + 1) * B && y < d[1]; ++y)                                               \
              for (int x = cx * B; x <= (cx + 1) * B && x < d[0]; ++x) {                                           \
                float s = (float)v[((size_t)z * d[1] + y) * d[0] + x];                                             \
                mn = s < mn ? s : mn;                                                                              \
                mx = s > mx ? s : mx;                                                                              \
              }                                                                                                    \
          size_t c = ((size_t)cz * g[1] + cy) * g[0] + cx;                                                         \
          out[2 * c] = mn;                                                                                         \
          out[2 * c + 1] = mx;                                                                                     \
        }                                                                                                          \
  } while (0)

static void naive(const CAVRVoxels *vox, const int g[3], float *out) {
  const int B = CAVR_MACROCELL_SIZE, *d = vox->dims;
  switch (vox->storage) {
  case CAVR_STORE_U8: NAIVE(uint8_t); break;
  case CAVR_STORE_U16: NAIVE(uint16_t); break;
  default: NAIVE(float); break;
  }
}

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void check_random(int storage, const int d[3], int threads) {
  size_t n = (size_t)d[0] * d[1] * d[2], es = storage == 0 ? 1 : storage == 1 ? 2 : 4;
  CAVRVoxels vox;
  memset(&vox, 0, sizeof vox);
  vox.data = malloc(n * es);
  memcpy(vox.dims, d, sizeof vox.dims);
  vox.storage = (CAVRStorage)storage;
  for (size_t i = 0; i < n; ++i) {
    uint32_t r = next();
    /* Smooth regions with sparse spikes, so cells differ and the extremes sit anywhere (faces included). */
    if (storage == 0) ((uint8_t *)vox.data)[i] = (uint8_t)(r % 7 == 0 ? r : 60 + (i / 97) % 40);
    else if (storage == 1) ((uint16_t *)vox.data)[i] = (uint16_t)(r % 5 == 0 ? r : 1000 + (i / 31) % 500);
    else ((float *)vox.data)[i] = r % 3 == 0 ? (float)(int)(r % 20001) * 0.37f - 3700.0f : (float)(i % 113) - 50.0f;
  }
  CAVRMacroGridDesc grid;
  cavr_macrocell_grid(d, &grid);
  const int *g = grid.cells;
  for (int a = 0; a < 3; ++a) CHECK(g[a] == (d[a] - 1 + CAVR_MACROCELL_SIZE - 1) / CAVR_MACROCELL_SIZE);
  size_t cells = (size_t)g[0] * g[1] * g[2];
  float *got = malloc(cells * 2 * sizeof(float)), *ref = malloc(cells * 2 * sizeof(float));
  double range[2];
  CHECK(cavr_compute_macrocells(&vox, &grid, threads, got, range) == CAVR_ERROR_NONE);
  naive(&vox, g, ref);
  for (size_t c = 0; c < 2 * cells; ++c) CHECK(got[c] == ref[c]);
  float lo = ref[0], hi = ref[1];
  for (size_t c = 0; c < cells; ++c) {
    lo = ref[2 * c] < lo ? ref[2 * c] : lo;
    hi = ref[2 * c + 1] > hi ? ref[2 * c + 1] : hi;
  }
  CHECK(range[0] == lo && range[1] == hi);
  free(got);
  free(ref);
  free(vox.data);
}

int main(void) {
  /* The last is large enough (9-36 MB) for several threads (each takes at least 4 MiB of voxels). */
  const int sizes[][3] = {{2, 2, 2}, {9, 9, 9}, {8, 17, 3}, {33, 16, 25}, {64, 64, 93}, {17, 40, 9}, {41, 2, 65},
                          {200, 150, 301}};
  int cases = 0;
  for (int s = 0; s < 3; ++s)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
      for (int t = 1; t <= 5; t += 2) {
        check_random(s, sizes[k], t);
        ++cases;
      }
  printf("macro cells equal the definition in %d cases (3 types, %zu sizes, 1/3/5 threads)\n", cases,
         sizeof sizes / sizeof sizes[0]);

  /* Through the API: ranges in original units, and the commit statistics of the CPU back end. */
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(dev);
  CAVRVolume vol = cavrNewVolume(dev);
  int dims[3] = {19, 12, 30};
  size_t n = (size_t)dims[0] * dims[1] * dims[2];
  int8_t *s8 = malloc(n);
  int16_t *s16 = malloc(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s8[i] = (int8_t)((int)(i % 200) - 90);
    s16[i] = (int16_t)((int)(i % 3000) * 7 - 9000);
  }
  double range[2];
  CHECK(cavrSetVolumeData(vol, CAVR_INT8, dims, s8, n) == CAVR_ERROR_NONE);
  CHECK(cavrCommitVolume(vol) == CAVR_ERROR_NONE);
  CHECK(cavrGetVolumeRange(vol, range) == CAVR_ERROR_NONE);
  CHECK(range[0] == -90.0 && range[1] == 109.0);
  CAVRVolumeCommitStats cs;
  CHECK(cavrGetVolumeCommitStats(vol, &cs) == CAVR_ERROR_NONE);
  CHECK(cs.milliseconds >= cs.cellMilliseconds && cs.cellMilliseconds >= 0.0 && cs.voxelBytes == n);
  CHECK(cs.uploadBytes == 0 && cs.uploadMilliseconds == 0.0 && cs.uploadGBps == 0.0 && cs.deviceAllocations == 0);
  CHECK(cs.deviceDims[0] == 0 && cs.deviceBytes == 0 && cs.reusedAllocation == 0);
  CHECK(cavrSetVolumeData(vol, CAVR_INT16, dims, s16, n * 2) == CAVR_ERROR_NONE);
  CHECK(cavrCommitVolume(vol) == CAVR_ERROR_NONE);
  CHECK(cavrGetVolumeRange(vol, range) == CAVR_ERROR_NONE);
  CHECK(range[0] == -9000.0 && range[1] == 2999.0 * 7 - 9000);
  CHECK(cavrGetVolumeCommitStats(vol, &cs) == CAVR_ERROR_NONE && cs.voxelBytes == 2 * n);
  const double spacing[3] = {1, 2, 3};
  CHECK(cavrSetVolumeSpacing(vol, spacing) == CAVR_ERROR_NONE);
  CHECK(cavrCommitVolume(vol) == CAVR_ERROR_NONE); /* geometry only: cells and range stay */
  CHECK(cavrGetVolumeRange(vol, range) == CAVR_ERROR_NONE && range[0] == -9000.0);
  CHECK(cavrGetVolumeCommitStats(vol, &cs) == CAVR_ERROR_NONE && cs.cellMilliseconds == 0.0);
  /* Time steps of one size: from the third on, cavrSetVolumeData fills the buffer of the step before last. */
  uint8_t *u8 = malloc(n);
  for (int t = 0; t < 4; ++t) {
    for (size_t i = 0; i < n; ++i) u8[i] = (uint8_t)(10 * t + i % 50);
    CHECK(cavrSetVolumeData(vol, CAVR_UINT8, dims, u8, n) == CAVR_ERROR_NONE);
    CHECK(cavrCommitVolume(vol) == CAVR_ERROR_NONE);
    CHECK(cavrGetVolumeRange(vol, range) == CAVR_ERROR_NONE);
    CHECK(range[0] == 10.0 * t && range[1] == 10.0 * t + 49);
  }
  free(u8);
  CHECK(cavrGetVolumeCommitStats(vol, NULL) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrGetVolumeCommitStats(NULL, &cs) == CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(dev, NULL);
  free(s8);
  free(s16);
  cavrReleaseVolume(vol);
  cavrReleaseDevice(dev);
  return 0;
}

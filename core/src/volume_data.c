/*
 * volume_data.c - validating and converting caller voxels into the stored layout.
 * uint8/uint16/float32 are copied; int8/int16 are stored offset by 128/32768 (exact);
 * uint32/int32/float64 become float32 (documented precision loss).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "volume_data.h"

size_t cavr_scalar_size(CAVRScalarType type) {
  switch (type) {
  case CAVR_UINT8: case CAVR_INT8: return 1;
  case CAVR_UINT16: case CAVR_INT16: return 2;
  case CAVR_FLOAT32: case CAVR_UINT32: case CAVR_INT32: return 4;
  case CAVR_FLOAT64: return 8;
  }
  return 0;
}

#define CONVERT_LOOP(SRC_T, DST_T, EXPR)                                                                           \
  do {                                                                                                             \
    const SRC_T *src = (const SRC_T *)data;                                                                        \
    DST_T *dst = (DST_T *)out->data;                                                                               \
    for (size_t i = 0; i < n; ++i) {                                                                               \
      SRC_T v = src[i];                                                                                            \
      dst[i] = (DST_T)(EXPR);                                                                                      \
    }                                                                                                              \
  } while (0)

CAVRError cavr_convert_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes,
                              CAVRVoxels *out, char *msg, size_t msgSize) {
  memset(out, 0, sizeof *out);
  size_t vsize = cavr_scalar_size(type);
  if (vsize == 0) {
    snprintf(msg, msgSize, "unsupported scalar type %d", (int)type);
    return CAVR_ERROR_UNSUPPORTED;
  }
  if (!dims || !data) {
    snprintf(msg, msgSize, "dims and data must not be NULL");
    return CAVR_ERROR_INVALID_ARGUMENT;
  }
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 2) {
      snprintf(msg, msgSize, "volume dimensions %d x %d x %d: every axis needs at least 2 voxels (2-D or empty data is not a volume)",
               dims[0], dims[1], dims[2]);
      return CAVR_ERROR_INVALID_DATA;
    }
    if (dims[a] > CAVR_MAX_VOLUME_DIM) {
      snprintf(msg, msgSize, "volume dimensions %d x %d x %d: an axis exceeds the limit of %d voxels", dims[0], dims[1],
               dims[2], CAVR_MAX_VOLUME_DIM);
      return CAVR_ERROR_INVALID_DATA;
    }
  }
  size_t n = (size_t)dims[0];
  if (n > SIZE_MAX / (size_t)dims[1] || n * (size_t)dims[1] > SIZE_MAX / (size_t)dims[2]) {
    snprintf(msg, msgSize, "volume dimensions %d x %d x %d overflow the voxel count", dims[0], dims[1], dims[2]);
    return CAVR_ERROR_INVALID_DATA;
  }
  n *= (size_t)dims[1];
  n *= (size_t)dims[2];
  if (n > SIZE_MAX / 8) {
    snprintf(msg, msgSize, "volume of %zu voxels is too large", n);
    return CAVR_ERROR_INVALID_DATA;
  }
  if (bytes != n * vsize) {
    snprintf(msg, msgSize, "data size %zu bytes does not match %d x %d x %d voxels of %zu bytes (%zu bytes)", bytes,
             dims[0], dims[1], dims[2], vsize, n * vsize);
    return CAVR_ERROR_INVALID_ARGUMENT;
  }

  CAVRStorage storage;
  size_t ssize;
  switch (type) {
  case CAVR_UINT8: case CAVR_INT8: storage = CAVR_STORE_U8; ssize = 1; break;
  case CAVR_UINT16: case CAVR_INT16: storage = CAVR_STORE_U16; ssize = 2; break;
  default: storage = CAVR_STORE_F32; ssize = 4; break;
  }
  out->data = malloc(n * ssize);
  if (!out->data) {
    snprintf(msg, msgSize, "out of host memory allocating %zu bytes for the volume", n * ssize);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  out->storage = storage;
  memcpy(out->dims, dims, sizeof out->dims);

  switch (type) {
  case CAVR_UINT8: memcpy(out->data, data, n); out->valueOffset = 0.0f; break;
  case CAVR_INT8: CONVERT_LOOP(int8_t, uint8_t, (int)v + 128); out->valueOffset = -128.0f; break;
  case CAVR_UINT16: memcpy(out->data, data, n * 2); out->valueOffset = 0.0f; break;
  case CAVR_INT16: CONVERT_LOOP(int16_t, uint16_t, (int32_t)v + 32768); out->valueOffset = -32768.0f; break;
  case CAVR_FLOAT32: memcpy(out->data, data, n * 4); break;
  case CAVR_UINT32: CONVERT_LOOP(uint32_t, float, v); break;
  case CAVR_INT32: CONVERT_LOOP(int32_t, float, v); break;
  case CAVR_FLOAT64: CONVERT_LOOP(double, float, v); break;
  }

  /* Range (and, for floating point, NaN/Inf: no sensible colour exists for them). */
  double lo = INFINITY, hi = -INFINITY;
  if (storage == CAVR_STORE_F32) {
    const float *f = (const float *)out->data;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
      float v = f[i];
      if (!isfinite(v)) {
        if (bad++ == 0) first = i;
        continue;
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (bad) {
      size_t x = first % (size_t)dims[0], y = (first / (size_t)dims[0]) % (size_t)dims[1],
             z = first / ((size_t)dims[0] * (size_t)dims[1]);
      snprintf(msg, msgSize,
               "volume contains %zu NaN or infinite voxel%s (first at x=%zu y=%zu z=%zu); replace them (e.g. by the "
               "data minimum) before rendering",
               bad, bad == 1 ? "" : "s", x, y, z);
      free(out->data);
      memset(out, 0, sizeof *out);
      return CAVR_ERROR_INVALID_DATA;
    }
  } else if (storage == CAVR_STORE_U8) {
    const uint8_t *u = (const uint8_t *)out->data;
    int mn = 255, mx = 0;
    for (size_t i = 0; i < n; ++i) {
      if (u[i] < mn) mn = u[i];
      if (u[i] > mx) mx = u[i];
    }
    lo = mn + out->valueOffset;
    hi = mx + out->valueOffset;
  } else {
    const uint16_t *u = (const uint16_t *)out->data;
    int mn = 65535, mx = 0;
    for (size_t i = 0; i < n; ++i) {
      if (u[i] < mn) mn = u[i];
      if (u[i] > mx) mx = u[i];
    }
    lo = mn + out->valueOffset;
    hi = mx + out->valueOffset;
  }
  out->range[0] = lo;
  out->range[1] = hi;
  return CAVR_ERROR_NONE;
}

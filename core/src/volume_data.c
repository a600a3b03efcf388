// SPDX-License-Identifier: BSD-3-Clause
/*
 * volume_data.c - validating and converting caller voxels into the stored layout (plain copies on several
 * threads, into the buffer of a replaced time step of the same size when there is one), or taking the caller's
 * buffer as it is (shared voxels of a type stored as is).
 * uint8/uint16/float32 are copied; int8/int16 are stored offset by 128/32768 (exact);
 * uint32/int32/float64 become float32 (documented precision loss).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_memory.h"
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

typedef struct CopyPart {
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes;
} CopyPart;

static void *copy_part(void *arg) {
  CopyPart *p = (CopyPart *)arg;
  memcpy(p->dst, p->src, p->bytes);
  return NULL;
}

/* memcpy on up to `threads` threads, at least 16 MiB each (one core copies about 10 GB/s; a large volume's
   copy is bound by memory bandwidth, which takes several). */
static void parallel_copy(void *dst, const void *src, size_t bytes, int threads) {
  enum { MAX_PARTS = 32 };
  size_t parts = bytes / ((size_t)16 << 20);
  if (parts > (size_t)threads) parts = (size_t)threads;
  if (parts > MAX_PARTS) parts = MAX_PARTS;
  if (parts < 2) {
    memcpy(dst, src, bytes);
    return;
  }
  CopyPart part[MAX_PARTS];
  pthread_t ids[MAX_PARTS];
  int started[MAX_PARTS];
  for (size_t i = 0; i < parts; ++i) {
    size_t a = bytes * i / parts, b = bytes * (i + 1) / parts;
    part[i] = (CopyPart){(unsigned char *)dst + a, (const unsigned char *)src + a, b - a};
    started[i] = i > 0 && pthread_create(&ids[i], NULL, copy_part, &part[i]) == 0;
  }
  copy_part(&part[0]);
  for (size_t i = 1; i < parts; ++i) {
    if (started[i]) pthread_join(ids[i], NULL);
    else copy_part(&part[i]);
  }
}

/* How voxels of `type` are stored (see CAVRScalarType). */
static CAVRStorage storage_of(CAVRScalarType type) {
  switch (type) {
  case CAVR_UINT8: case CAVR_INT8: return CAVR_STORE_U8;
  case CAVR_UINT16: case CAVR_INT16: return CAVR_STORE_U16;
  default: return CAVR_STORE_F32;
  }
}

/* The caller's arguments: a known type, 2..CAVR_MAX_VOLUME_DIM voxels per axis, `bytes` matching; the voxel count
   into *count. */
static CAVRError check_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes, size_t *count,
                              char *msg, size_t msgSize) {
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
  *count = n;
  return CAVR_ERROR_NONE;
}

/* Floating-point voxels (n of them, dims as given): none may be NaN or infinite (no sensible colour exists for
   them); else CAVR_ERROR_INVALID_DATA with the count and the first one's position. */
static CAVRError check_finite(const float *f, size_t n, const int dims[3], char *msg, size_t msgSize) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!isfinite(f[i])) {
      if (bad++ == 0) first = i;
    }
  }
  if (!bad) return CAVR_ERROR_NONE;
  size_t x = first % (size_t)dims[0], y = (first / (size_t)dims[0]) % (size_t)dims[1],
         z = first / ((size_t)dims[0] * (size_t)dims[1]);
  snprintf(msg, msgSize,
           "volume contains %zu NaN or infinite voxel%s (first at x=%zu y=%zu z=%zu); replace them (e.g. by the "
           "data minimum) before rendering",
           bad, bad == 1 ? "" : "s", x, y, z);
  return CAVR_ERROR_INVALID_DATA;
}

CAVRError cavr_convert_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes, void **spare,
                              size_t *spareBytes, int threads, CAVRVoxels *out, char *msg, size_t msgSize) {
  memset(out, 0, sizeof *out);
  size_t n = 0;
  CAVRError e = check_voxels(type, dims, data, bytes, &n, msg, msgSize);
  if (e != CAVR_ERROR_NONE) return e;
  const CAVRStorage storage = storage_of(type);
  const size_t ssize = storage == CAVR_STORE_U8 ? 1 : storage == CAVR_STORE_U16 ? 2 : 4;
  if (spare && *spare && *spareBytes == n * ssize) { /* a new time step of this size: the buffer of an old one */
    out->data = *spare;
    *spare = NULL;
    *spareBytes = 0;
  } else {
    out->data = cavr_host_alloc(n * ssize);
  }
  if (!out->data) {
    snprintf(msg, msgSize, "out of host memory allocating %zu bytes for the volume", n * ssize);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  out->storage = storage;
  memcpy(out->dims, dims, sizeof out->dims);

  switch (type) {
  case CAVR_UINT8: parallel_copy(out->data, data, n, threads); out->valueOffset = 0.0f; break;
  case CAVR_INT8: CONVERT_LOOP(int8_t, uint8_t, (int)v + 128); out->valueOffset = -128.0f; break;
  case CAVR_UINT16: parallel_copy(out->data, data, n * 2, threads); out->valueOffset = 0.0f; break;
  case CAVR_INT16: CONVERT_LOOP(int16_t, uint16_t, (int32_t)v + 32768); out->valueOffset = -32768.0f; break;
  case CAVR_FLOAT32: parallel_copy(out->data, data, n * 4, threads); break;
  case CAVR_UINT32: CONVERT_LOOP(uint32_t, float, v); break;
  case CAVR_INT32: CONVERT_LOOP(int32_t, float, v); break;
  case CAVR_FLOAT64: CONVERT_LOOP(double, float, v); break;
  }

  /* The value range is computed at commit, with the macro cells (on the GPU for the CUDA back end): no pass over the
     voxels here but the floating-point check. */
  if (storage == CAVR_STORE_F32) {
    e = check_finite((const float *)out->data, n, dims, msg, msgSize);
    if (e != CAVR_ERROR_NONE) {
      cavr_host_free(out->data, n * ssize);
      memset(out, 0, sizeof *out);
      return e;
    }
  }
  return CAVR_ERROR_NONE;
}

int cavr_stores_as_is(CAVRScalarType type) {
  return type == CAVR_UINT8 || type == CAVR_UINT16 || type == CAVR_FLOAT32;
}

CAVRError cavr_share_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes, CAVRVoxels *out,
                            char *msg, size_t msgSize) {
  memset(out, 0, sizeof *out);
  size_t n = 0;
  CAVRError e = check_voxels(type, dims, data, bytes, &n, msg, msgSize);
  if (e != CAVR_ERROR_NONE) return e;
  if (type == CAVR_FLOAT32 && (e = check_finite((const float *)data, n, dims, msg, msgSize)) != CAVR_ERROR_NONE)
    return e;
  out->data = (void *)data; /* the caller's: never written, never freed by cavr */
  out->shared = 1;
  out->storage = storage_of(type);
  memcpy(out->dims, dims, sizeof out->dims);
  return CAVR_ERROR_NONE;
}

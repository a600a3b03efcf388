/*
 * nrrd_io.c - volume files: NRRD through teem (the reference NRRD implementation), headerless raw.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CAVR_NO_IO_LIBS
#include <teem/nrrd.h>
#endif

#include "cavr/cavr_io.h"
#include "cavr/cavr_volume.h"

static size_t type_size(CAVRScalarType t) {
  switch (t) {
  case CAVR_UINT8: case CAVR_INT8: return 1;
  case CAVR_UINT16: case CAVR_INT16: return 2;
  case CAVR_FLOAT32: case CAVR_UINT32: case CAVR_INT32: return 4;
  case CAVR_FLOAT64: return 8;
  }
  return 0;
}

static CAVRError check_dims(const int dims[3], const char *path, char *msg, size_t msgSize) {
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 2 || dims[a] > CAVR_MAX_VOLUME_DIM) {
      snprintf(msg, msgSize, "%s: dimensions %d x %d x %d: each must be in [2, %d]", path, dims[0], dims[1], dims[2],
               CAVR_MAX_VOLUME_DIM);
      return CAVR_ERROR_INVALID_DATA;
    }
  return CAVR_ERROR_NONE;
}

void cavrFreeVolumeFile(CAVRVolumeFile *file) {
  if (!file) return;
  free(file->data);
  file->data = NULL;
  file->bytes = 0;
}

static void init_file(CAVRVolumeFile *out) {
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; ++a) out->spacing[a] = 1.0;
}

#ifndef CAVR_NO_IO_LIBS
CAVRError cavrLoadNrrd(const char *path, CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  fclose(probe);

  Nrrd *nin = nrrdNew();
  if (nrrdLoad(nin, path, NULL)) {
    char *err = biffGetDone(NRRD);
    /* teem reports short data as "... read only N of M bytes" or a failed gzip/fread; missing data files as fopen. */
    CAVRError code = CAVR_ERROR_FILE_FORMAT;
    if (err && (strstr(err, "expected") || strstr(err, "only") || strstr(err, "short") || strstr(err, "EOF") ||
                strstr(err, "eof")))
      code = CAVR_ERROR_FILE_TRUNCATED;
    if (err && (strstr(err, "fopen") || strstr(err, "couldn't open")))
      code = CAVR_ERROR_IO;
    /* Keep the innermost (last) line of teem's error stack, the most specific one. */
    const char *last = err ? err : "unknown error";
    if (err) {
      size_t len = strlen(err);
      while (len > 0 && (err[len - 1] == '\n' || err[len - 1] == ' ')) err[--len] = '\0';
      const char *nl = strrchr(err, '\n');
      if (nl) last = nl + 1;
    }
    snprintf(msg, msgSize, "%s: cannot read NRRD: %s", path, last);
    free(err);
    nrrdNuke(nin);
    return code;
  }
  CAVRError code = CAVR_ERROR_NONE;
  CAVRScalarType type = (CAVRScalarType)0;
  switch (nin->type) {
  case nrrdTypeUChar: type = CAVR_UINT8; break;
  case nrrdTypeChar: type = CAVR_INT8; break;
  case nrrdTypeUShort: type = CAVR_UINT16; break;
  case nrrdTypeShort: type = CAVR_INT16; break;
  case nrrdTypeUInt: type = CAVR_UINT32; break;
  case nrrdTypeInt: type = CAVR_INT32; break;
  case nrrdTypeFloat: type = CAVR_FLOAT32; break;
  case nrrdTypeDouble: type = CAVR_FLOAT64; break;
  default:
    snprintf(msg, msgSize, "%s: NRRD type '%s' is not supported (use 8/16/32-bit integers, float or double)", path,
             airEnumStr(nrrdType, nin->type));
    code = CAVR_ERROR_FILE_FORMAT;
  }
  if (code == CAVR_ERROR_NONE && nin->dim != 3) {
    snprintf(msg, msgSize, "%s: NRRD has %u axes; a scalar volume needs 3 (2-D images and multi-component data are not "
             "supported)", path, nin->dim);
    code = nin->dim < 3 ? CAVR_ERROR_INVALID_DATA : CAVR_ERROR_FILE_FORMAT;
  }
  if (code == CAVR_ERROR_NONE) {
    for (int a = 0; a < 3; ++a) {
      size_t sz = nin->axis[a].size;
      out->dims[a] = sz > (size_t)CAVR_MAX_VOLUME_DIM ? CAVR_MAX_VOLUME_DIM + 1 : (int)sz;
      double sp = nin->axis[a].spacing;
      if (!(sp > 0.0) || !isfinite(sp)) {
        double n = 0.0;
        for (unsigned s = 0; s < nin->spaceDim; ++s) n += nin->axis[a].spaceDirection[s] * nin->axis[a].spaceDirection[s];
        sp = (n > 0.0 && isfinite(n)) ? sqrt(n) : 1.0;
      }
      out->spacing[a] = sp;
      out->origin[a] = (nin->spaceDim == 3 && isfinite(nin->spaceOrigin[a])) ? nin->spaceOrigin[a] : 0.0;
    }
    code = check_dims(out->dims, path, msg, msgSize);
  }
  if (code == CAVR_ERROR_NONE) {
    out->type = type;
    out->bytes = nrrdElementNumber(nin) * nrrdElementSize(nin);
    out->data = nin->data; /* take ownership */
    nin->data = NULL;
  }
  nrrdNuke(nin);
  if (code != CAVR_ERROR_NONE) init_file(out);
  return code;
}

#else
CAVRError cavrLoadNrrd(const char *path, CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  snprintf(msg, msgSize, "%s: this cavr was built without teem: NRRD files cannot be read (use raw input)", path);
  return CAVR_ERROR_UNSUPPORTED;
}
#endif

CAVRError cavrLoadRaw(const char *path, CAVRScalarType type, const int dims[3], const double spacing[3],
                      CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !dims || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  size_t vs = type_size(type);
  if (!vs) {
    snprintf(msg, msgSize, "%s: unsupported scalar type %d", path, (int)type);
    return CAVR_ERROR_UNSUPPORTED;
  }
  CAVRError code = check_dims(dims, path, msg, msgSize);
  if (code != CAVR_ERROR_NONE) return code;
  size_t bytes = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2] * vs; /* <= 16384^3 * 8: fits in 64 bits */
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  void *data = malloc(bytes ? bytes : 1);
  if (!data) {
    fclose(f);
    snprintf(msg, msgSize, "%s: out of memory for %zu bytes", path, bytes);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != bytes) {
    free(data);
    snprintf(msg, msgSize, "%s: truncated: %zu of %zu bytes for %d x %d x %d voxels", path, got, bytes, dims[0], dims[1],
             dims[2]);
    return CAVR_ERROR_FILE_TRUNCATED;
  }
  if (extra) {
    free(data);
    snprintf(msg, msgSize, "%s: file is longer than %zu bytes (%d x %d x %d voxels): wrong dims or type?", path, bytes,
             dims[0], dims[1], dims[2]);
    return CAVR_ERROR_FILE_FORMAT;
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (size_t i = 0; vs > 1 && i < bytes; i += vs)
    for (size_t j = 0; j < vs / 2; ++j) {
      unsigned char *b = (unsigned char *)data + i, t = b[j];
      b[j] = b[vs - 1 - j];
      b[vs - 1 - j] = t;
    }
#endif
  out->type = type;
  memcpy(out->dims, dims, sizeof out->dims);
  if (spacing) memcpy(out->spacing, spacing, sizeof out->spacing);
  out->data = data;
  out->bytes = bytes;
  return CAVR_ERROR_NONE;
}

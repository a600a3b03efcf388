// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_io.h - reading volumes and writing images for the command-line tools and tests.
 * Part of the separate `cavr_io` library (links teem for NRRD and libpng for PNG); the rendering
 * core does not depend on it.
 */
#ifndef CAVR_IO_H
#define CAVR_IO_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A volume read from a file. `data` holds dims[0]*dims[1]*dims[2] values of `type`, x fastest, host order. */
typedef struct CAVRVolumeFile {
  CAVRScalarType type;
  int dims[3];         /**< voxels */
  double spacing[3];   /**< world units per voxel (1 where the file gives none) */
  double origin[3];    /**< world position of voxel (0,0,0) (0 where the file gives none) */
  void *data;          /**< owned; free with cavrFreeVolumeFile */
  size_t bytes;
} CAVRVolumeFile;

/**
 * Read a NRRD file (.nrrd, or a detached .nhdr header with raw/gzip/bzip2/ascii/hex data in one or more data
 * files: single, LIST or numbered "FORMAT MIN MAX STEP") through teem.
 * Accepts 3-D scalar data of type (u)int8, (u)int16, (u)int32, float, double; spacing from "spacings" or
 * the norms of "space directions"; origin from "space origin".
 * The header is read and checked before any data: the file must start with a NRRD magic line (NRRD0001 to
 * NRRD0006; other formats that teem reads, such as PNM, PNG, VTK or text, are refused), every data file must
 * be a regular file (not "-", standard input, nor a pipe or device), and the files must be able to hold the
 * voxels the header declares (compressed data is decompressed and counted first, in constant memory), so no
 * more is allocated than the file holds.
 * Errors (message written to msg, at most msgSize bytes, naming the file): CAVR_ERROR_IO (missing/unreadable
 * file or data file, or not a regular file), CAVR_ERROR_FILE_FORMAT (no NRRD magic, malformed header, data
 * file "-", not 3-D, unsupported type such as 64-bit integers or block, unsupported encoding (zrl)),
 * CAVR_ERROR_FILE_TRUNCATED (data shorter than the header says), CAVR_ERROR_INVALID_DATA (a dimension
 * below 2 or above CAVR_MAX_VOLUME_DIM, fewer than 3 axes), CAVR_ERROR_OUT_OF_MEMORY, CAVR_ERROR_INVALID_ARGUMENT (NULL
 * path, out or msg, msgSize 0: no message), CAVR_ERROR_UNSUPPORTED (cavr_io built without teem). On an error *out is
 * zeroed. Thread safe.
 */
CAVR_API CAVRError cavrLoadNrrd(const char *path, CAVRVolumeFile *out, char *msg, size_t msgSize);

/**
 * Read a headerless raw file of dims[0]*dims[1]*dims[2] little-endian values of `type`, x fastest.
 * `spacing` (world units per voxel) may be NULL (1,1,1); the origin is 0. Errors (message in msg): CAVR_ERROR_IO,
 * CAVR_ERROR_FILE_TRUNCATED (file shorter than the dims say), CAVR_ERROR_FILE_FORMAT (file longer),
 * CAVR_ERROR_INVALID_DATA (dims), CAVR_ERROR_UNSUPPORTED (type), CAVR_ERROR_OUT_OF_MEMORY,
 * CAVR_ERROR_INVALID_ARGUMENT (NULL path, out, dims or msg, msgSize 0: no message). Thread safe.
 */
CAVR_API CAVRError cavrLoadRaw(const char *path, CAVRScalarType type, const int dims[3], const double spacing[3],
                               CAVRVolumeFile *out, char *msg, size_t msgSize);

/** Free what a load allocated (data NULL, bytes 0; dims, spacing and origin kept); safe on NULL, a zeroed or an
    already freed struct. Cannot fail. */
CAVR_API void cavrFreeVolumeFile(CAVRVolumeFile *file);

/**
 * Write a width x height premultiplied RGBA8 image (rows bottom to top, as a frame buffer holds it) as an
 * 8-bit RGB PNG composited over a black background (top row first, as PNG viewers expect).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, a side < 1, msgSize 0), CAVR_ERROR_IO (libpng's reason in msg),
 * CAVR_ERROR_OUT_OF_MEMORY, CAVR_ERROR_UNSUPPORTED (cavr_io built without libpng). Thread safe.
 */
CAVR_API CAVRError cavrWritePng(const char *path, const uint8_t *rgba, int width, int height, char *msg,
                                size_t msgSize);

/**
 * Fill `rgba` (count x RGBA floats, count >= 2) with a named preset over the normalised domain [0,1]
 * (entry 0 = the low end of the chosen scalar range). Presets: "ramp" (grey, opacity rising linearly),
 * "ct-skin" (soft tissue translucent, bone opaque), "ct-bone" (bone only), "mri" (brain tissue).
 * Opacities are per unit distance (see cavrSetRenderOpacityCorrection).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (unknown name: the message lists the presets; NULL, count < 2, msgSize 0).
 */
CAVR_API CAVRError cavrTransferFunctionPreset(const char *name, float *rgba, int count, char *msg, size_t msgSize);

/**
 * Read a transfer-function text file and sample it into `rgba` (count x RGBA). Format, one item per line,
 * '#' starts a comment:
 *     domain scalar|normalized        (optional; default scalar)
 *     VALUE R G B A                   (control points, VALUE strictly increasing, R G B A in [0,1])
 * At least two points. Between points the table is linear; `range` receives the scalar range the table
 * spans: the first and last VALUE for `scalar`, or `normalizedRange` (e.g. the data range) for
 * `normalized`, whose VALUEs are in [0,1].
 * Errors: CAVR_ERROR_IO, CAVR_ERROR_FILE_FORMAT (with the line number; also for values spanning more than
 * a double holds, e.g. +-1e308, for normalized values outside [0,1], and for points too close together for the
 * table's index arithmetic), CAVR_ERROR_INVALID_ARGUMENT (NULL path, rgba, range or msg, count < 2, msgSize 0).
 * normalizedRange may be NULL for a `scalar` file. At most 1024 points. Thread safe.
 */
CAVR_API CAVRError cavrLoadTransferFunctionFile(const char *path, const double normalizedRange[2], float *rgba,
                                                int count, double range[2], char *msg, size_t msgSize);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_IO_H */

// SPDX-License-Identifier: BSD-3-Clause
/* volume_data.h - converting caller voxels to the stored layout (see CAVRScalarType). */
#ifndef CAVR_VOLUME_DATA_H
#define CAVR_VOLUME_DATA_H

#include "objects.h"

/** Size in bytes of one value of a scalar type, 0 for an unknown type. */
size_t cavr_scalar_size(CAVRScalarType type);

/**
 * Validate dims/bytes and copy/convert `data` into `out` (allocating out->data). When *spare (a buffer of
 * *spareBytes from an earlier volume of this size) has exactly the stored size it becomes out->data (*spare is
 * set to NULL) instead of a new allocation. Plain copies of large volumes use up to `threads` threads. On
 * failure returns the code and writes a message into msg (msgSize bytes); out is left empty (a spare it took
 * is freed).
 */
CAVRError cavr_convert_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes, void **spare,
                              size_t *spareBytes, int threads, CAVRVoxels *out, char *msg, size_t msgSize);

/** 1 when voxels of `type` are stored as given (UINT8, UINT16, FLOAT32), so that the caller's buffer can be shared. */
int cavr_stores_as_is(CAVRScalarType type);

/**
 * Validate dims/bytes (and, for FLOAT32, that every voxel is finite) and make `out` refer to the caller's `data`
 * (out->shared = 1: cavr neither writes nor frees it). Only for a type cavr_stores_as_is accepts (the caller
 * copies the others with cavr_convert_voxels). On failure returns the code and writes a message into msg; out is left empty.
 */
CAVRError cavr_share_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes, CAVRVoxels *out,
                            char *msg, size_t msgSize);

#endif

/* volume_data.h - converting caller voxels to the stored layout (see CAVRScalarType). */
#ifndef CAVR_VOLUME_DATA_H
#define CAVR_VOLUME_DATA_H

#include "objects.h"

/** Size in bytes of one value of a scalar type, 0 for an unknown type. */
size_t cavr_scalar_size(CAVRScalarType type);

/**
 * Validate dims/bytes and copy/convert `data` into `out` (allocating out->data). On failure returns the
 * code and writes a message into msg (msgSize bytes); out is left empty.
 */
CAVRError cavr_convert_voxels(CAVRScalarType type, const int dims[3], const void *data, size_t bytes,
                              CAVRVoxels *out, char *msg, size_t msgSize);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_transfer_function.h - 1-D RGBA transfer function (a lookup table over a scalar range).
 */
#ifndef CAVR_TRANSFER_FUNCTION_H
#define CAVR_TRANSFER_FUNCTION_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Accepted table sizes (entries). */
#define CAVR_TF_MIN_ENTRIES 2
#define CAVR_TF_MAX_ENTRIES 4096

/** Create a transfer function (count 1; retains the device). NULL on failure. */
CAVR_API CAVRTransferFunction cavrNewTransferFunction(CAVRDevice device);
/** Add a reference (thread safe). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrRetainTransferFunction(CAVRTransferFunction tf);
/** Drop a reference; the last frees the table and releases the device. NULL is a no-op. */
CAVR_API void cavrReleaseTransferFunction(CAVRTransferFunction tf);

/**
 * Stage the table. `rgba` holds `count` entries of 4 floats (R, G, B, A), not premultiplied; colour in
 * [0,1] linear RGB; A is the opacity of a segment of length `unit distance` (see
 * cavrSetRenderOpacityUnitDistance), in [0,1]. Entry 0 maps scalar `minValue`, entry count-1 maps
 * `maxValue`; values in between are interpolated linearly between entries, values outside clamp to the
 * end entries. We recommend at least 256 entries (the CLI and plugin use 1024). The table is copied.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL rgba, count outside [CAVR_TF_MIN_ENTRIES,
 * CAVR_TF_MAX_ENTRIES] - an empty table is an error -, minValue >= maxValue, non-finite range, a range so narrow
 * for its distance from 0 that (count - 1) / (maxValue - minValue) times |minValue| or |maxValue| reaches 1e28),
 * CAVR_ERROR_INVALID_DATA (an entry outside [0,1] or NaN), CAVR_ERROR_OUT_OF_MEMORY.
 */
CAVR_API CAVRError cavrSetTransferFunctionTable(CAVRTransferFunction tf, const float *rgba, int count,
                                                double minValue, double maxValue);

/** Publish the staged table. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL), CAVR_ERROR_NOT_COMMITTED (no table was
    ever set). */
CAVR_API CAVRError cavrCommitTransferFunction(CAVRTransferFunction tf);

/**
 * Sample the committed table at a scalar value, as the renderers do (linear between entries, clamped).
 * rgba receives 4 floats, not premultiplied. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, NaN value),
 * CAVR_ERROR_NOT_COMMITTED.
 */
CAVR_API CAVRError cavrSampleTransferFunction(CAVRTransferFunction tf, double value, float rgba[4]);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_TRANSFER_FUNCTION_H */

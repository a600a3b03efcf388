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

/** Most points a gradient-opacity function takes (cavrSetTransferFunctionGradientOpacity). */
#define CAVR_MAX_GRADIENT_OPACITY_POINTS 32

/**
 * Stage a gradient-opacity function, as vtkVolumeProperty::SetGradientOpacity: a piecewise-linear function of the
 * scalar's gradient magnitude that multiplies each composite sample's opacity, so that flat regions fade and
 * boundaries stay. `points` holds `count` pairs (magnitude, opacity), x first: magnitudes in scalar units per world
 * unit (the central-difference gradient of the interpolated scalar, the gradient that shading uses: with spacing 1 the
 * difference per voxel), finite, >= 0 and strictly increasing; opacities in [0, 1]. Between points the factor is
 * interpolated linearly; below the first point it is the first opacity, above the last the last (VTK's clamping).
 * count 0 (points may be NULL) turns it off (the default: every factor 1).
 * The factor multiplies the opacity after the sample-distance correction of cavrSetRenderOpacityCorrection (as VTK's
 * ray casters apply it) and applies in CAVR_BLEND_COMPOSITE only (the other blend modes ignore it). It costs the
 * gradient's 6 extra samples per visible sample when shading is off (shading computes the same gradient). Both back
 * ends, the CPU's packets included (core/shared/cavr_ray.h: cavr_gradient_opacity). Copied; published by
 * cavrCommitTransferFunction with the table.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL handle, count outside [0, CAVR_MAX_GRADIENT_OPACITY_POINTS], NULL points
 * with count > 0), CAVR_ERROR_INVALID_DATA (a NaN or infinite value, a negative magnitude, magnitudes not strictly
 * increasing, an opacity outside [0, 1]). On error nothing is staged.
 */
CAVR_API CAVRError cavrSetTransferFunctionGradientOpacity(CAVRTransferFunction tf, const double *points, int count);

/**
 * Stage the scalar range {minValue, maxValue} over which the table's colours (R, G, B) are read for the colour
 * component of a 2-component volume (cavrSetVolumeComponentData): entry 0's colour maps minValue, entry count-1's
 * maxValue, values outside clamp; the opacity (A) is still read at the table's range (cavrSetTransferFunctionTable)
 * from the scalar component. This is ParaView's separate colour map of component 0 beside the opacity function of
 * component 1. minValue == maxValue == 0 (the default) reads the colours at the table's range. Ignored for
 * one-component and 4-component volumes. Copied; published by cavrCommitTransferFunction.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL handle; a range that is not finite with minValue < maxValue, other than
 * 0, 0; a range too narrow for its distance from 0, as for cavrSetTransferFunctionTable with CAVR_TF_MAX_ENTRIES entries).
 */
CAVR_API CAVRError cavrSetTransferFunctionColorRange(CAVRTransferFunction tf, double minValue, double maxValue);

/** Publish the staged table and gradient-opacity function. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL),
    CAVR_ERROR_NOT_COMMITTED (no table was ever set). */
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

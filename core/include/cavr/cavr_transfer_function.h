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

/** Entries a 2-D table (cavrSetTransferFunction2D) takes per axis, and in all. */
#define CAVR_TF2D_MIN_ENTRIES 2
#define CAVR_TF2D_MAX_ENTRIES 4096
#define CAVR_TF2D_MAX_TOTAL (1 << 20)

/**
 * Stage a 2-D transfer function, as vtkVolumeProperty::SetTransferFunction2D (TransferFunctionMode TF_2D) with the
 * gradient magnitude on its second axis (Kniss et al. 2002, "Multidimensional transfer functions for interactive volume
 * rendering"): colour and opacity of a composite sample from its scalar value and its gradient magnitude. `rgba` holds
 * width x height entries of 4 floats (R, G, B, A), x fastest: entry (i, j) at rgba[4 (i + width j)], not premultiplied,
 * every component in [0, 1]; colour linear RGB; A the opacity of a segment of length `unit distance`
 * (cavrSetRenderOpacityCorrection), corrected for the sample distance as the 1-D table's. Column i holds scalar
 * scalarMin + i (scalarMax - scalarMin) / (width - 1) (scalar units); row j gradient magnitude gradientMin + j
 * (gradientMax - gradientMin) / (height - 1), in scalar units per world unit: the length of the central-difference
 * gradient that shading and gradient opacity use (with spacing 1 the difference per voxel). In between the entries are
 * interpolated bilinearly; outside, clamped to the border entries (as a texture with clamp-to-edge). A table whose
 * texels cover [a, b] as a texture's do (entry centres at a + (i + 0.5) (b - a) / width) is this table with
 * scalarMin = a + 0.5 (b - a) / width, scalarMax = b - 0.5 (b - a) / width (and so for the gradient axis).
 * rgba NULL with width = height = 0 turns the 2-D table off (the default): the 1-D table colours again.
 * While a 2-D table is set, composite samples take colour and opacity from it alone (the 1-D table and the gradient-
 * opacity function are ignored, as VTK's GPU ray caster ignores them in TF_2D mode); shading shades its colour; the
 * other blend modes (maximum, minimum, average, isosurface, slice) keep the 1-D table. Every visible sample costs the
 * gradient's 6 extra samples. Empty-space skipping classifies a macro cell by the largest opacity of the table's
 * columns its value range covers. Both back ends, the CPU's AVX2/AVX-512 packets included (core/shared/cavr_ray.h:
 * cavr_tf2d_sample). The table is copied; published by cavrCommitTransferFunction.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL handle; NULL rgba with a size, or a size outside [CAVR_TF2D_MIN_ENTRIES,
 * CAVR_TF2D_MAX_ENTRIES] per axis or above CAVR_TF2D_MAX_TOTAL entries; a range not finite, min >= max, gradientMin < 0,
 * or so narrow for its distance from 0 that (n - 1) / (max - min) times |min| or |max| reaches 1e28),
 * CAVR_ERROR_INVALID_DATA (an entry outside [0, 1] or NaN), CAVR_ERROR_OUT_OF_MEMORY. On error nothing is staged.
 */
CAVR_API CAVRError cavrSetTransferFunction2D(CAVRTransferFunction tf, const float *rgba, int width, int height,
                                             double scalarMin, double scalarMax, double gradientMin,
                                             double gradientMax);

/** Publish the staged table, gradient-opacity function, 2-D table and colour range. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL),
    CAVR_ERROR_NOT_COMMITTED (no table was ever set), CAVR_ERROR_OUT_OF_MEMORY (the 2-D table's column maxima). */
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

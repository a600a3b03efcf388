// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_common.h - handles, error codes and enumerations shared by every cavr header.
 *
 * Conventions used by the whole API:
 *  - Volumes are stored x fastest, then y, then z (voxel (x,y,z) at index x + Nx*(y + Ny*z)).
 *  - Voxels are vertex-centred (VTK point data): voxel (i,j,k) sits at origin + (i,j,k)*spacing and the
 *    volume occupies the box [origin, origin + (dims-1)*spacing] in world units.
 *  - Matrices are 4x4 float, column-major (OpenGL order: element (row r, column c) at [c*4 + r]).
 *  - Images are stored row by row, row 0 is the BOTTOM row (OpenGL/VTK convention), pixel (x,y) at
 *    index x + width*y.
 *  - Colours are linear RGB in [0,1]; frame-buffer colours are premultiplied by alpha.
 *  - Angles are in degrees, times in milliseconds, sample distances in voxels.
 */
#ifndef CAVR_COMMON_H
#define CAVR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "cavr/cavr_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle types: distinct incomplete structs so a volume cannot be passed as a camera. */
typedef struct CAVRDeviceImpl *CAVRDevice;
typedef struct CAVRVolumeImpl *CAVRVolume;
typedef struct CAVRTransferFunctionImpl *CAVRTransferFunction;
typedef struct CAVRCameraImpl *CAVRCamera;
typedef struct CAVRRenderSettingsImpl *CAVRRenderSettings;
typedef struct CAVRFrameBufferImpl *CAVRFrameBuffer;

/**
 * Error codes. 0 is success; 1-99 are caller errors; 1000 and above are back-end errors
 * (CUDA, file I/O). Every fallible call returns one of these; constructors return NULL instead and
 * leave the code and message on the device (cavrGetDeviceError).
 */
typedef enum CAVRError {
  CAVR_ERROR_NONE = 0,
  CAVR_ERROR_INVALID_ARGUMENT = 1,   /**< NULL handle, out-of-range value, mismatched devices */
  CAVR_ERROR_INVALID_OPERATION = 2,  /**< e.g. an object changed since its last commit is used */
  CAVR_ERROR_OUT_OF_MEMORY = 3,      /**< host allocation failed */
  CAVR_ERROR_UNSUPPORTED = 4,        /**< scalar type, back end or feature not available */
  CAVR_ERROR_INVALID_DATA = 5,       /**< NaN/Inf voxels, 2-D data, absurd dimensions */
  CAVR_ERROR_NOT_COMMITTED = 6,      /**< object was never committed, or staged changes not committed */

  CAVR_ERROR_CUDA = 1000,            /**< a CUDA runtime error; the message names the call or kernel */
  CAVR_ERROR_CUDA_OUT_OF_MEMORY = 1001,
  CAVR_ERROR_NO_GPU = 1002,          /**< the CUDA back end was requested and no usable GPU exists */
  CAVR_ERROR_IO = 1100,              /**< file could not be opened or read */
  CAVR_ERROR_FILE_FORMAT = 1101,     /**< malformed header or unsupported file content */
  CAVR_ERROR_FILE_TRUNCATED = 1102   /**< data file shorter than the header says */
} CAVRError;

/** Rendering back ends. AUTO picks CUDA when a usable GPU exists, the CPU otherwise. */
typedef enum CAVRBackend {
  CAVR_BACKEND_AUTO = 0,
  CAVR_BACKEND_CPU = 1,
  CAVR_BACKEND_CUDA = 2
} CAVRBackend;

/**
 * Scalar types accepted by cavrSetVolumeData. UINT8, INT8, UINT16, INT16 and FLOAT32 are stored as
 * given (signed 8/16-bit values are stored with an offset of 128/32768, which is exact). UINT32, INT32,
 * FLOAT64 are converted to FLOAT32 on upload: integers above 2^24 in magnitude lose precision and
 * doubles are rounded to the nearest float.
 */
typedef enum CAVRScalarType {
  CAVR_UINT8 = 1,
  CAVR_INT8 = 2,
  CAVR_UINT16 = 3,
  CAVR_INT16 = 4,
  CAVR_FLOAT32 = 5,
  CAVR_UINT32 = 10,
  CAVR_INT32 = 11,
  CAVR_FLOAT64 = 12
} CAVRScalarType;

/** Ray-casting blend modes (the ones ParaView/VTK users know). */
typedef enum CAVRBlendMode {
  CAVR_BLEND_COMPOSITE = 0,          /**< front-to-back emission-absorption (Sugimoto 2013, eq. 1) */
  CAVR_BLEND_MAXIMUM_INTENSITY = 1,  /**< MIP: the largest scalar on the ray, mapped by the transfer function */
  CAVR_BLEND_MINIMUM_INTENSITY = 2,  /**< MinIP: the smallest scalar on the ray */
  CAVR_BLEND_AVERAGE_INTENSITY = 3,  /**< the length-weighted mean scalar on the ray */
  CAVR_BLEND_ISOSURFACE = 4,         /**< the first crossing of any iso-value (cavrSetRenderIsoValues), shaded */
  CAVR_BLEND_SLICE = 5               /**< one sample per ray where it meets a plane (cavrSetRenderSlicePlane), as VTK's
                                          vtkVolumeMapper::SLICE_BLEND */
} CAVRBlendMode;

/** Most iso-values of the isosurface blend mode. */
#define CAVR_MAX_ISO_VALUES 8

/**
 * How the GPU finds the first iso crossing of a ray (Wang et al. 2014). STANDARD: one thread per ray.
 * WARP_MARCHING: one warp per ray, its 32 lanes take 32 consecutive samples, a vote finds the first crossing
 * (three kernels: ray-box intersection, marching, shading). AUTO: chosen per view (see cavrSetRenderIsoMethod).
 * The CPU back end ignores the method. Images do not depend on it.
 */
typedef enum CAVRIsoMethod {
  CAVR_ISO_STANDARD = 0,
  CAVR_ISO_WARP_MARCHING = 1,
  CAVR_ISO_AUTO = 2
} CAVRIsoMethod;

/** Reconstruction of the scalar between voxels. */
typedef enum CAVRInterpolation {
  CAVR_INTERPOLATION_NEAREST = 0,
  CAVR_INTERPOLATION_TRILINEAR = 1,
  CAVR_INTERPOLATION_CUBIC = 2       /**< cubic B-spline (approximating, C2) from 8 trilinear fetches (Sigg and
                                          Hadwiger 2005, GPU Gems 2 ch. 20); gradients are its central differences */
} CAVRInterpolation;

/**
 * GPU ray-casting strategies. STANDARD: one thread per ray in 16x16 blocks, the volume as uploaded (the
 * papers' baseline). SHAPED: thread-block shaping (Sugimoto et al. 2013) with the CAVR_SHAPING_* switches
 * given, and in-place rotation (Misaki et al. 2017) if enabled. AUTO: block shape and rotation per view from the
 * table measured on this GPU (cavrTuneDevice); 16x16 blocks without rotation when there is none. The CPU back end
 * ignores the strategy.
 */
typedef enum CAVRStrategy {
  CAVR_STRATEGY_STANDARD = 0,
  CAVR_STRATEGY_SHAPED = 1,
  CAVR_STRATEGY_AUTO = 2
} CAVRStrategy;

/** Thread-block shaping switches (Sugimoto 2013, sec. 5), combined with |. */
#define CAVR_SHAPING_DYNAMIC_BLOCK 0x1u    /**< warp shape follows the primary axis on screen (Table 2) */
#define CAVR_SHAPING_TRANSPOSED 0x2u       /**< column-major block order when the primary axis is vertical */
#define CAVR_SHAPING_MAX_BLOCK 0x4u        /**< 512-thread blocks when x is along the rays */
#define CAVR_SHAPING_SYNC_PROPAGATION 0x8u /**< all rays of a block step together when z is along the rays */
#define CAVR_SHAPING_ALL 0xFu

/**
 * How compressive rendering rebuilds the pixels without rays (Rabbani 2018 thesis). GLOBAL:
 * conjugate gradients over the whole image (thesis ch. 3). LOCAL: 16x16 pixel blocks solved independently,
 * each with a ghost ring of 3 pixels (the 7x7 filter's half width) from its neighbours (thesis ch. 4).
 * REFINE (CPU back end only): adaptive by itself, in three passes: a grid of one ray per 4x4 pixels
 * (the pilot), then, pixel by pixel, the points on every second row and column whose two (edge) or four
 * (centre) pilot neighbours differ most, then the other pixels whose nearest lattice values differ most
 * (Levoy 1990's adaptive image-space refinement, in the spirit of the thesis's adaptive sampling, sec. 4.3);
 * the pixels left get the bilinear interpolation of the 2x2 sub-cell around them, whose corners are rendered
 * or interpolated in turn. The sample fraction caps the rays and sets the work: the frame takes at most about
 * 1.36 x sampleFraction of the full frame's samples (34% at 0.25; all of them from 0.74 up; 16 x the pilot's
 * estimate them), so a larger fraction gives a better image for more time. No solve: faster than LOCAL.
 * Deterministic: the same inputs give the same rays and image, whatever the thread count.
 */
typedef enum CAVRReconstruction {
  CAVR_RECONSTRUCTION_GLOBAL = 0,
  CAVR_RECONSTRUCTION_LOCAL = 1,
  CAVR_RECONSTRUCTION_REFINE = 2
} CAVRReconstruction;

/**
 * The 7x7 Gram filter H of the reconstruction. DEFINITION: derived in exact arithmetic from the
 * interpolating cubic B-spline's Beppo-Levi semi-inner product (centre 36998/2835; scripts/gen_gram_filter.py).
 * THESIS: the table printed in the thesis (centre 3158/135), which reproduces when the Dirac-squared terms
 * of beta_I'' are dropped.
 */
typedef enum CAVRGramFilter {
  CAVR_GRAM_FILTER_DEFINITION = 0,
  CAVR_GRAM_FILTER_THESIS = 1
} CAVRGramFilter;

/** Camera projections. */
typedef enum CAVRProjection {
  CAVR_PROJECTION_ORTHOGRAPHIC = 0,
  CAVR_PROJECTION_PERSPECTIVE = 1
} CAVRProjection;

/** Name of an error code, e.g. "CAVR_ERROR_INVALID_ARGUMENT"; "CAVR_ERROR_UNKNOWN" for a value that is none.
    Never NULL (a static string); thread safe. */
CAVR_API const char *cavrGetErrorString(CAVRError code);

/** Library version as a number (major*10000 + minor*100 + patch), same as CAVR_VERSION. Cannot fail; thread safe. */
CAVR_API int cavrGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_COMMON_H */

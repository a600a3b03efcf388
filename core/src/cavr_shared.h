// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_shared.h - plain-data descriptions shared by host code and kernels. Compiles as C11 and as CUDA C++.
 * No pointers to host-only types, no functions: just the numbers a back end needs for one frame.
 */
#ifndef CAVR_SHARED_H
#define CAVR_SHARED_H

#include <stdint.h>

#include "cavr/cavr_settings.h" /* CAVRLight */
#include "../shared/cavr_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CAVR_MACROCELL_SIZE, the edge of an empty-space-skipping macro cell: core/shared/cavr_frame.h (the kernels read it). */

/** How voxels are stored after upload. Signed 8/16-bit data is stored offset (exactly) as unsigned. */
typedef enum CAVRStorage { CAVR_STORE_U8 = 0, CAVR_STORE_U16 = 1, CAVR_STORE_F32 = 2 } CAVRStorage;

/** A committed volume. Scalar value = stored value + valueOffset. */
typedef struct CAVRVolumeDesc {
  int dims[3];          /**< voxels */
  int storage;          /**< CAVRStorage */
  float valueOffset;    /**< added to a stored value to give the scalar (-128, -32768 or 0) */
  double spacing[3];    /**< world units per voxel */
  double origin[3];     /**< world position of voxel (0,0,0) */
  int renderLo[3];      /**< rays integrate over voxel coordinates [renderLo, renderHi] */
  int renderHi[3];
} CAVRVolumeDesc;

/** Min/max grid over macro cells; cell c covers voxel coordinates [c*B, (c+1)*B] on each axis. */
typedef struct CAVRMacroGridDesc {
  int cells[3];         /**< macro cells per axis: ceil((dims-1)/B) */
} CAVRMacroGridDesc;

/** The committed render settings (see cavr_settings.h for meaning and units). */
typedef struct CAVRSettingsDesc {
  float sampleDistance;     /**< voxels of the finest axis */
  float earlyTermination;   /**< opacity threshold */
  int opacityCorrection;    /**< 0/1 */
  float unitDistance;       /**< world units */
  CAVRBlendMode blendMode;
  CAVRInterpolation interpolation;
  int shade;                /**< 0/1 */
  float ambient, diffuse, specular, specularPower;
  int emptySpaceSkipping;   /**< 0/1 */
  int strategy;             /**< CAVRStrategy */
  unsigned shapingFlags;    /**< CAVR_SHAPING_* */
  int rotation;             /**< 0/1: in-place rotation allowed */
  int blockShape;           /**< internal, never set through the API: 1 + index into cavr_block_shapes (gpu_tune.h)
                                 forced by the AUTO calibration run with no rotation; 0 = the strategy decides */
  float sampleFraction;     /**< compressive rendering: fraction of pixels with rays, (0, 1] */
  int reconstruction;       /**< CAVRReconstruction */
  int adaptive;             /**< 0/1 */
  int maxIterations;        /**< solver iteration limit */
  float tolerance;          /**< relative residual */
  float lambda;             /**< smoothness weight */
  int gramFilter;           /**< CAVRGramFilter */
  int crop;                 /**< 0/1: cropBox in effect */
  double cropBox[6];        /**< world units: xmin, xmax, ymin, ymax, zmin, zmax */
  int isoCount;             /**< isosurface blend mode: iso-values in use, 1..CAVR_MAX_ISO_VALUES */
  float isoValues[8];       /**< scalar units (CAVR_MAX_ISO_VALUES) */
  int isoMethod;            /**< CAVRIsoMethod */
  int supersample;          /**< rays per pixel: 1, 4 (2x2), 5 (centre + 4, the thesis), 9 (3x3), 16 (4x4) */
  double sliceOrigin[3];    /**< slice blend mode: a point of the plane, world units */
  double sliceNormal[3];    /**< its normal, unit length */
  int lightCount;           /**< cavrSetRenderLights: 0 = the default headlight */
  int twoSided;             /**< 0/1: normals flipped to face the viewer */
  CAVRLight lights[CAVR_MAX_LIGHTS];
  int jitter;               /**< 0/1: jittered ray starts (cavrSetRenderJitter) */
  float scatterBlend;       /**< cavrSetRenderScattering: VolumetricScatteringBlending, [0, 2]; 0 = off */
  float scatterReach;       /**< GlobalIlluminationReach, [0, 1] */
  float scatterAnisotropy;  /**< Henyey-Greenstein g, [-1, 1] */
} CAVRSettingsDesc;

#ifdef __cplusplus
}
#endif

#endif /* CAVR_SHARED_H */

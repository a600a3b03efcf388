// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_frame.h - the per-frame description both back ends read: camera, volume geometry, sample lattice, transfer-
 * function mapping, blend mode and its parameters, shading. Plain data, no pointers; compiles as C11 (core/src) and as
 * CUDA C++ (kernels/, passed by value into every ray-casting kernel). frame_constants.c fills it from a render job
 * (cavr_ray_frame); the CPU caster keeps it in its Prep, the kernels in their Frame.
 */
#ifndef CAVR_FRAME_H
#define CAVR_FRAME_H

#include "cavr/cavr_common.h" /* CAVRBlendMode, CAVRInterpolation, CAVR_MAX_ISO_VALUES */
#include "cavr_lighting.h"
#include "cavr_scatter.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Edge of an empty-space-skipping macro cell, in voxels: cell c covers voxel coordinates [c B, (c + 1) B]. */
#define CAVR_MACROCELL_SIZE 8

/** Most gradient-opacity points a frame holds (CAVR_MAX_GRADIENT_OPACITY_POINTS of cavr_transfer_function.h). */
#define CAVR_FRAME_GO_POINTS 32

/** One frame of ray casting. World units unless said; voxel coordinates: voxel (i, j, k) at (i, j, k), x fastest. */
typedef struct CAVRRayFrame {
  double invVP[16], VP[16];  /**< inverse and forward view-projection, column-major (OpenGL) */
  double eye[3];             /**< camera position (a point of the eye plane for orthographic views): the sample
                                  lattice is measured from it */
  double origin[3];          /**< world position of voxel (0, 0, 0) */
  double invSpacing[3];      /**< voxels per world unit */
  float maxCoord[3];         /**< dims - 1: samples are clamped to [0, maxCoord] */
  float boxLo[3], boxHi[3];  /**< where rays integrate, voxel coordinates: the render extent, cropped */
  float step;                /**< sample distance */
  float invStep;             /**< 1 / step */
  int width, height;         /**< pixels */
  int count;                 /**< transfer-function entries */
  float idxScale, idxBias;   /**< table position = stored value * idxScale + idxBias */
  int correction;            /**< 0/1: opacity corrected for the step (and for clipped segments) */
  CAVRBlendMode blend;
  int shade;                 /**< 0/1: shading in effect (composite, isosurface, slice) */
  CAVRInterpolation interpolation;
  int skip;                  /**< 0/1: empty-space skipping in effect */
  float ert;                 /**< early ray termination opacity */
  float ka, kd, ks, kp;      /**< headlight: ambient, diffuse, specular, specular power */
  int cells[3];              /**< macro cells per axis (CAVR_MACROCELL_SIZE voxels each) */
  /* The CUDA back end's launch (its policy fills these; the CPU caster ignores them): */
  int rotation;              /**< the volume's in-place rotation: 0 none, 1 quarter turn about y, 2 about z */
  int cube;                  /**< side of the rotated cube (voxels) */
  int blockW, blockH, warpW, warpH, transposed, syncPropagation; /**< launch shape (view_policy.c) */
  int isoCount;              /**< isosurface blend mode: iso-values in use (0 in the other modes) */
  float iso[CAVR_MAX_ISO_VALUES]; /**< the iso-values, stored units */
  int isoMethod;             /**< CUDA: CAVRIsoMethod, resolved: 0 standard, 1 warp marching (Wang 2014) */
  float isoSlack;            /**< CUDA: bound on |hardware trilinear - exact trilinear|, stored units */
  double sliceOrigin[3];     /**< slice blend mode: a point of the plane */
  double sliceNormal[3];     /**< its normal, unit length */
  CAVRLighting light;        /**< cavrSetRenderLights' lights (count 0: the headlight of ka, kd, ks, kp) */
  int cellDilation;          /**< cells the skipping classification is widened by (host side only) */
  int jitter;                /**< 0/1: each pixel's lattice moved by cavr_jitter(px, py) x step (cavr_world_ray) */
  int goCount;               /**< composite: gradient-opacity points in use (0: off) */
  float go[2 * CAVR_FRAME_GO_POINTS]; /**< their (magnitude, opacity) pairs: scalar units per world unit, [0, 1] */
  int tf2dW, tf2dH;          /**< composite: the 2-D table's entries along scalar and gradient magnitude (0: none;
                                  cavrSetTransferFunction2D; the table itself is the back end's, cavr_tf2d_sample) */
  float tf2dScale[2], tf2dBias[2]; /**< its column = stored value * [0] + [0], row = |gradient| * [1] + [1] */
  int components;            /**< composite: 1, or the volume's dependent components (cavrSetVolumeComponentData): 2
                                  colour through the table's RGB, 4 RGB as given; the scalar gives the opacity */
  float colorScale, colorBias; /**< 2 components: table position of the colour = colour value * colorScale + colorBias */
  CAVRScatter scatter;       /**< composite: VTK's volumetric scattering (cavrSetRenderScattering; on 0: off) */
} CAVRRayFrame;

#ifdef __cplusplus
}
#endif

#endif /* CAVR_FRAME_H */

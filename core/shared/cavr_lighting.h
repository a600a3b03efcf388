// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_lighting.h - shading with a list of lights, VTK's ray casters' model (cavrSetRenderLights), as one
 * definition for the CPU back end (core/src/cpu_raycast.h) and the kernels (raycast.cu, iso.cu). Plain data and
 * one inline function; compiles as C11 and as CUDA C++ (the function is __host__ __device__ there).
 *
 * Source: VTK's vtkEncodedGradientShader::BuildShadingTable (the shading of one normal by one light, summed over
 * the renderer's lights) and vtkFixedPointVolumeRayCastMapper's gradients (normal = -gradient / |gradient|): the
 * composite model (cavr_lighting_apply). Single-sample hits (isosurface and slice modes, which VTK renders only with
 * its GPU ray caster) take that caster's model instead (cavr_lighting_surface; vtkVolumeShaderComposer.h,
 * computeLighting, as ParaView 5.11's VTK builds it).
 */
#ifndef CAVR_LIGHTING_H
#define CAVR_LIGHTING_H

#ifndef __CUDACC__
#include <math.h>
#endif

#ifdef __CUDACC__
#define CAVR_LIGHTING_FN static __host__ __device__ __forceinline__
#else
#define CAVR_LIGHTING_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The gradient floor, as a fraction of the transfer function's value range per voxel: a gradient shorter than
 * CAVR_GRADIENT_FLOOR x (range) / (largest spacing) (stored units per world unit) has no direction, and its sample is
 * shaded as a zero gradient (ambient only, as VTK's ray casters shade a zero-magnitude gradient). Where the volume is
 * flat the gradient is exactly zero on one back end and, a float rounding of the sample position away, the data's
 * second difference times that offset on the other, in an arbitrary direction: fully lit there, ambient here. On the
 * plane x = 150 of Colin27 (uint8, table over 0..130) one float step off (1.5e-5 voxel) gives the zero gradients at
 * most 1.0e-3 stored units per voxel, 7.7e-6 of the range: the floor is 13 times that, 1/39 of one step of a 256-entry
 * table over a voxel, and below it lie 0.04% of the plane's nonzero gradients (0.34% below 1e-3).
 */
#define CAVR_GRADIENT_FLOOR 1e-4

/** Lights of one frame, world units in the volume's space (frame_constants.c fills it; count 0: the headlight of
    ka, kd, ks, kp instead, which uses gradientFloor2 alone). */
typedef struct CAVRLighting {
  int count;            /**< lights, 0..8 (CAVR_MAX_LIGHTS) */
  int twoSided;         /**< 0/1: flip normals that face away from the viewer */
  float power;          /**< specular power */
  float view[3];        /**< unit view direction, camera towards the scene */
  float ambient[3];     /**< sum of ambient x intensity x ambient colour */
  float dir[8][3];      /**< unit direction towards each light */
  float half[8][3];     /**< unit half vector normalize(dir - view) */
  float diffuse[8][3];  /**< diffuse x intensity x diffuse colour */
  float specular[8][3]; /**< specular x intensity x specular colour */
  float gradientFloor2; /**< squared gradient floor ((stored units per world unit)^2, CAVR_GRADIENT_FLOOR): a gradient
                             whose squared length is not above it shades as zero, in every lighting model (the
                             headlight of count 0 too) on both back ends */
  int surface;          /**< single-sample hits (isosurface, slice) with lights: 0 the composite model above;
                             CAVR_SURFACE_HEADLIGHT or CAVR_SURFACE_LIGHTS: VTK's GPU ray caster's
                             (cavr_lighting_surface) */
  float distort[9];     /**< CAVR_SURFACE_LIGHTS: the symmetric world matrix that turns the gradient into that caster's
                             normal (row-major, largest entry about 1; see frame_constants.c) */
} CAVRLighting;

/** CAVRLighting::surface: VTK's GPU ray caster's "light complexity" 1 (one headlight of intensity 1: a light at the
    camera, Ambient x colour) and 2 (any other set of lights: directional, each light's ambient colour). */
#define CAVR_SURFACE_HEADLIGHT 1
#define CAVR_SURFACE_LIGHTS 2

/**
 * The squared gradient floor of a frame (CAVRLighting::gradientFloor2) for a transfer function over [lo, hi] (stored
 * or scalar units: only the width counts) and the volume's spacing (world units).
 */
CAVR_LIGHTING_FN float cavr_gradient_floor2(double lo, double hi, const double spacing[3]) {
  double s = spacing[0];
  if (spacing[1] > s) s = spacing[1];
  if (spacing[2] > s) s = spacing[2];
  const double f = CAVR_GRADIENT_FLOOR * fabs(hi - lo) / s;
  return (float)(f * f);
}

/**
 * Shade colour rgb (not premultiplied) in place from the scalar's world gradient g: rgb = rgb D + S with D and S
 * of cavrSetRenderLights. A gradient at or below the floor (or NaN) gets the ambient sum only, as VTK's zero-normal
 * entry.
 */
CAVR_LIGHTING_FN void cavr_lighting_apply(const CAVRLighting *L, const float g[3], float rgb[3]) {
  float d[3] = {L->ambient[0], L->ambient[1], L->ambient[2]}, s[3] = {0.0f, 0.0f, 0.0f};
  const float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  if (len2 > L->gradientFloor2) {
    float k = -1.0f / sqrtf(len2); /* VTK's normal points down the gradient */
    if (L->twoSided && k * (g[0] * L->view[0] + g[1] * L->view[1] + g[2] * L->view[2]) > 0.0f) k = -k;
    const float n[3] = {g[0] * k, g[1] * k, g[2] * k};
    for (int i = 0; i < L->count; ++i) {
      const float nl = n[0] * L->dir[i][0] + n[1] * L->dir[i][1] + n[2] * L->dir[i][2];
      if (!(nl > 0.0f)) continue;
      const float nh = n[0] * L->half[i][0] + n[1] * L->half[i][1] + n[2] * L->half[i][2];
      const float sp = nh > 0.001f ? powf(nh, L->power) : 0.0f;
      for (int c = 0; c < 3; ++c) {
        d[c] += L->diffuse[i][c] * nl;
        s[c] += L->specular[i][c] * sp;
      }
    }
  }
  for (int c = 0; c < 3; ++c) rgb[c] = rgb[c] * d[c] + s[c];
}

/**
 * Shade colour rgb (not premultiplied) of a single-sample hit in place, as VTK's GPU ray caster shades it
 * (vtkOpenGLGPUVolumeRayCastMapper, computeLighting of vtkVolumeShaderComposer.h; ParaView 5.11): g the scalar's
 * world gradient, toEye the unit vector from the hit towards the camera's position, ka the Ambient coefficient. Its
 * normal n points up the gradient and each light is taken by the direction it travels, Lt (towards the scene):
 *   nl = n.Lt, made |n.Lt| with two-sided lighting (each light separately: a light behind a surface lights it too);
 *   nl > 0: diffuse += nl Cd_i, r = normalize(2 nl' n - Lt), specular += Cs_i (r.(-toEye))^power where positive;
 *   rgb = A + diffuse rgb + specular (cavr_lighting_surface then clamps it to [0, 1]).
 * CAVR_SURFACE_LIGHTS ("light complexity" 2): Lt = -dir[i], nl' = nl after the flip, A = the ambient sum (not
 * multiplied by the colour), and n = normalize(distort g): that caster turns the gradient to eye space with its
 * texture-to-eye matrix, which scales eye axis k by the volume's extent along data axis k (distort: frame_constants.c).
 * CAVR_SURFACE_HEADLIGHT (one headlight of intensity 1, "complexity" 1): the light sits at the camera, Lt = -toEye,
 * nl' = nl before the flip, n = normalize(g), A = ka rgb. A gradient at or below the floor (or NaN): A alone.
 * This function leaves rgb unclamped (the scattering blend of cavr_scatter.h clamps after it); cavr_lighting_surface
 * clamps.
 */
CAVR_LIGHTING_FN void cavr_lighting_surface_unclamped(const CAVRLighting *L, float ka, const float g[3],
                                                      const float toEye[3], float rgb[3]) {
  const int head = L->surface == CAVR_SURFACE_HEADLIGHT;
  float d[3] = {0.0f, 0.0f, 0.0f}, s[3] = {0.0f, 0.0f, 0.0f};
  const float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  float m[3] = {g[0], g[1], g[2]};
  if (!head)
    for (int a = 0; a < 3; ++a)
      m[a] = L->distort[3 * a] * g[0] + L->distort[3 * a + 1] * g[1] + L->distort[3 * a + 2] * g[2];
  const float mlen2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
  if (len2 > L->gradientFloor2 && mlen2 > 0.0f) {
    const float k = 1.0f / sqrtf(mlen2);
    const float n[3] = {m[0] * k, m[1] * k, m[2] * k};
    const int count = head ? 1 : L->count;
    for (int i = 0; i < count; ++i) {
      const float lt[3] = {head ? -toEye[0] : -L->dir[i][0], head ? -toEye[1] : -L->dir[i][1],
                           head ? -toEye[2] : -L->dir[i][2]};
      float nl = n[0] * lt[0] + n[1] * lt[1] + n[2] * lt[2];
      const float signedNl = nl;
      if (nl < 0.0f && L->twoSided) nl = -nl;
      if (!(nl > 0.0f)) continue;
      const float nr = head ? signedNl : nl;
      float r[3] = {2.0f * nr * n[0] - lt[0], 2.0f * nr * n[1] - lt[1], 2.0f * nr * n[2] - lt[2]};
      const float rlen2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      const float rv = rlen2 > 0.0f ? -(r[0] * toEye[0] + r[1] * toEye[1] + r[2] * toEye[2]) / sqrtf(rlen2) : 0.0f;
      const float sp = rv > 0.0f ? powf(rv, L->power) : 0.0f;
      for (int c = 0; c < 3; ++c) {
        d[c] += L->diffuse[i][c] * nl;
        s[c] += L->specular[i][c] * sp;
      }
    }
  }
  for (int c = 0; c < 3; ++c) rgb[c] = (head ? ka * rgb[c] : L->ambient[c]) + d[c] * rgb[c] + s[c];
}

/** cavr_lighting_surface_unclamped, then each channel clamped to [0, 1] (VTK's computeColor clamps). */
CAVR_LIGHTING_FN void cavr_lighting_surface(const CAVRLighting *L, float ka, const float g[3], const float toEye[3],
                                            float rgb[3]) {
  cavr_lighting_surface_unclamped(L, ka, g, toEye, rgb);
  for (int c = 0; c < 3; ++c) {
    const float v = rgb[c];
    rgb[c] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; /* NaN stays NaN: the pixel encoding makes it 0 */
  }
}

#ifdef __cplusplus
}
#endif

#endif /* CAVR_LIGHTING_H */

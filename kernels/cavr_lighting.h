/*
 * cavr_lighting.h - shading with a list of lights, VTK's ray casters' model (cavrSetRenderLights), as one
 * definition for the CPU back end (core/src/cpu_raycast.h) and the kernels (raycast.cu, iso.cu). Plain data and
 * one inline function; compiles as C11 and as CUDA C++ (the function is __host__ __device__ there).
 *
 * Source: VTK's vtkEncodedGradientShader::BuildShadingTable (the shading of one normal by one light, summed over
 * the renderer's lights) and vtkFixedPointVolumeRayCastMapper's gradients (normal = -gradient / |gradient|).
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

/** Lights of one frame, world units in the volume's space (frame_constants.c fills it; count 0: not in use). */
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
} CAVRLighting;

/**
 * Shade colour rgb (not premultiplied) in place from the scalar's world gradient g: rgb = rgb D + S with D and S
 * of cavrSetRenderLights. A zero (or NaN) gradient gets the ambient sum only, as VTK's zero-normal entry.
 */
CAVR_LIGHTING_FN void cavr_lighting_apply(const CAVRLighting *L, const float g[3], float rgb[3]) {
  float d[3] = {L->ambient[0], L->ambient[1], L->ambient[2]}, s[3] = {0.0f, 0.0f, 0.0f};
  const float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  if (len2 > 0.0f) {
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

#ifdef __cplusplus
}
#endif

#endif /* CAVR_LIGHTING_H */

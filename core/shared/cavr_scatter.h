// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_scatter.h - VTK's volumetric scattering model (cavrSetRenderScattering) as one definition for the CPU's scalar
 * caster (core/src/cpu_raycast.h) and the composite kernel (kernels/raycast.cu): the frame's scattering constants,
 * the Henyey-Greenstein phase function, the secondary (shadow) ray towards a light, and the blend of the shadowed
 * ("secondary") contribution with gradient shading. The back ends only take the shadow rays' samples (their fetch
 * and transfer-function table differ) in a three-line loop over what cavr_shadow_ray sets up.
 *
 * Source: vtkOpenGLGPUVolumeRayCastMapper as ParaView 5.11 builds it (VTK 9.2.20230111; the shader text read from
 * ParaView 5.11's libvtkRenderingVolumeOpenGL2, the same as VTK's Rendering/VolumeOpenGL2/vtkVolumeShaderComposer.h:
 * PhaseFunctionDeclaration, ComputeVolumetricShadowDec, ComputeLightingDeclaration; the reach's uniform in_giReach from
 * vtkOpenGLGPUVolumeRayCastMapper.cxx, SetLightingShaderParameters). That shader measures the shadow rays in texture
 * coordinates, [0, 1] per axis over the texture (a texel centre at (i + 0.5) / dims), and so does this file.
 */
#ifndef CAVR_SCATTER_H
#define CAVR_SCATTER_H

#include "cavr_hd.h"
#include "cavr_lighting.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The frame's scattering constants (frame_constants.c fills them; on 0: scattering off, nothing else read). */
typedef struct CAVRScatter {
  int on;                 /**< 0/1: composite with shading and a blending > 0 */
  int headlight;          /**< 1: VTK's "default lighting" (one headlight of intensity 1, or cavr's own headlight):
                               one light at the camera's position; 0: each light of CAVRLighting directional */
  float blend;            /**< VolumetricScatteringBlending, (0, 2] */
  float reach;            /**< the shadow rays' longest length, texture units (VTK's in_giReach) */
  float g;                /**< Henyey-Greenstein anisotropy in [-1, 1]; |g| < 0.01 is isotropic (phase 1) */
  float dims[3];          /**< voxels per texture unit along each axis: voxel x = t dims - 0.5 */
  float invExtent[3];     /**< 1 / ((dims - 1) spacing): a world vector to texture units, as VTK's eye-to-texture
                               matrix takes it (without the half-texel cell-to-point shift) */
  float eyeTex[3];        /**< the camera's position in those units (headlight: where the shadow rays go) */
  float gradScale;        /**< 2 / (the volume's value range): a world gradient (stored units per world unit) to
                               the length of VTK's shading gradient (scaled values' central differences / spacing) */
  float lightTex[8][3];   /**< unit texture-space direction towards each light (CAVRLighting::dir through
                               invExtent, normalised) */
  float cutoff;           /**< a secondary ray stops once its transmittance is at or below this: 1 / (4096 x the
                               phase function's largest value), so what it leaves out is below 1/4096 of full scale
                               per light (an eighth of an 8-bit step); VTK marches on */
} CAVRScatter;

/** Henyey-Greenstein's phase function normalised to 4 pi (1 when isotropic), as VTK's phase_function:
    (1 - g^2) / (1 + g^2 - 2 g cos)^(3/2); g with |g| < 0.01 gives 1 exactly. */
CAVR_HD float cavr_scatter_phase(const CAVRScatter *s, float cosAngle) {
  const float g = s->g;
  if (fabsf(g) < 0.01f) return 1.0f;
  const float g2 = g * g, d = 1.0f + g2 - 2.0f * g * cosAngle;
  return (1.0f - g2) / (d * sqrtf(d));
}

/**
 * VTK's weight of the scattered contribution ("vol_coef") for a sample of opacity a whose shading gradient has length
 * gmag (VTK's units, CAVRScatter::gradScale). The shader's formula is chosen by the blending b (b < 1 or not) but
 * evaluated with the uniform u = b / 2 (vtkOpenGLGPUVolumeRayCastMapper::vtkInternal::SetVolumeShaderParameters divides
 * by 2.0: read from ParaView 5.11's library, and measured: ParaView's images at b = 0.25, 0.5, 0.75 are
 * (1 - b) shaded + b scattered to +-0.02 per pixel): b < 1: 2 u exp(-2 u gmag a) = b exp(-b gmag a); b >= 1:
 * 2 (1 - u) exp(-2 u gmag a) + 2 u - 1 = (2 - b) exp(-b gmag a) + b - 1 (1 at b = 2: scattering only). The colour is
 * (1 - coef) shaded + coef scattered.
 */
CAVR_HD float cavr_scatter_coef(const CAVRScatter *s, float gmag, float a) {
  const float b = s->blend, e = expf(-b * gmag * a);
  return b < 1.0f ? b * e : (2.0f - b) * e + b - 1.0f;
}

/** A secondary ray: n samples at voxel coordinates start + k step (k = 0 .. n - 1); n = 0: no shadow. */
typedef struct CavrShadowRay {
  float start[3], step[3];
  int n;
} CavrShadowRay;

/**
 * The secondary ray from the sample at voxel coordinates v towards light i (ignored for the headlight), whose primary
 * ray has unit world direction dw and sample distance `stepWorld` (world units), as VTK's volumeShadow sets it up in
 * texture coordinates: the step L is the primary step's length there; the direction is the light's (directional) or
 * towards the camera (headlight, VTK's is_Pos); the ray starts one step L from the sample; it ends where it leaves the
 * texture box [0, 1]^3, at the camera (headlight), or at the reach, whichever is first; no shadow when the ray misses
 * the box, when less than L remains to the box's face, or when that length is below 0.001 (VTK's EPSILON). Samples at
 * 0, L, 2L, ... from the start while below that length: n = ceil(length / L) (VTK's loop without jitter). VTK nudges
 * direction components below 0.001 for its box test only; here the slab test divides exactly.
 */
CAVR_HD void cavr_shadow_ray(const CAVRScatter *s, int i, const float v[3], const float dw[3],
                             const double invSpacing[3], float stepWorld, CavrShadowRay *r) {
  r->n = 0;
  float t[3], n[3], Lv = 0.0f;
  for (int a = 0; a < 3; ++a) {
    t[a] = (v[a] + 0.5f) / s->dims[a];
    const float d = stepWorld * dw[a] * (float)invSpacing[a] / s->dims[a];
    Lv += d * d;
  }
  const float L = sqrtf(Lv);
  float len = 0.0f;
  for (int a = 0; a < 3; ++a) {
    n[a] = s->headlight ? s->eyeTex[a] - t[a] : s->lightTex[i][a];
    len += n[a] * n[a];
  }
  if (!(len > 0.0f) || !(L > 0.0f)) return;
  len = 1.0f / sqrtf(len);
  float o[3], toLight = 0.0f;
  for (int a = 0; a < 3; ++a) {
    n[a] *= len;
    o[a] = t[a] + L * n[a];
    const float e = s->eyeTex[a] - o[a];
    toLight += e * e;
  }
  float t0 = -3.0e38f, t1 = 3.0e38f;
  for (int a = 0; a < 3; ++a) {
    if (n[a] == 0.0f) {
      if (o[a] < 0.0f || o[a] > 1.0f) return;
      continue;
    }
    float ta = (0.0f - o[a]) / n[a], tb = (1.0f - o[a]) / n[a];
    if (ta > tb) {
      const float x = ta;
      ta = tb;
      tb = x;
    }
    t0 = cavr_maxf(t0, ta);
    t1 = cavr_minf(t1, tb);
  }
  if (!(t1 > cavr_maxf(t0, 0.0f)) || t1 < L) return;
  float maxDist = cavr_minf(t1, s->reach);
  if (s->headlight) maxDist = cavr_minf(maxDist, sqrtf(toLight));
  if (maxDist < 0.001f) return;
  r->n = (int)ceilf(maxDist / L);
  for (int a = 0; a < 3; ++a) {
    r->start[a] = o[a] * s->dims[a] - 0.5f;
    r->step[a] = L * n[a] * s->dims[a];
  }
}

/**
 * Shade colour rgb (not premultiplied) of a composite sample with scattering, as VTK's computeLighting and
 * computeColor: the gradient shading of VTK's GPU ray caster (cavr_lighting_surface, unclamped), the scattered
 * contribution sum_i shadow[i] phase_i rgb Cd_i + the lights' ambient sum (CAVRLighting::diffuse and ::ambient; the
 * headlight's phase at an angle of pi; a directional light's at the angle between the direction it travels and the
 * direction to the camera, both in texture units), blended by cavr_scatter_coef(|g| gradScale, a), clamped to [0, 1].
 * g: the world gradient; toEye: unit vector from the sample to the camera's position; a: the sample's opacity from
 * the table.
 */
CAVR_HD void cavr_scatter_shade(const CAVRScatter *s, const CAVRLighting *L, float ka, const float g[3],
                                const float toEye[3], float a, const float shadow[8], float rgb[3]) {
  float surf[3] = {rgb[0], rgb[1], rgb[2]};
  cavr_lighting_surface_unclamped(L, ka, g, toEye, surf);
  float sec[3] = {L->ambient[0], L->ambient[1], L->ambient[2]};
  if (s->headlight) {
    const float ph = cavr_scatter_phase(s, -1.0f) * shadow[0];
    for (int c = 0; c < 3; ++c) sec[c] += ph * rgb[c] * L->diffuse[0][c];
  } else {
    float vt[3], vl = 0.0f;
    for (int a3 = 0; a3 < 3; ++a3) {
      vt[a3] = toEye[a3] * s->invExtent[a3];
      vl += vt[a3] * vt[a3];
    }
    vl = vl > 0.0f ? 1.0f / sqrtf(vl) : 0.0f;
    for (int i = 0; i < L->count; ++i) {
      const float *lt = s->lightTex[i];
      const float cosAngle = -(lt[0] * vt[0] + lt[1] * vt[1] + lt[2] * vt[2]) * vl;
      const float ph = cavr_scatter_phase(s, cosAngle) * shadow[i];
      for (int c = 0; c < 3; ++c) sec[c] += ph * rgb[c] * L->diffuse[i][c];
    }
  }
  const float gl = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const float k = cavr_scatter_coef(s, gl * s->gradScale, a);
  for (int c = 0; c < 3; ++c) {
    const float x = (1.0f - k) * surf[c] + k * sec[c];
    rgb[c] = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
  }
}

#ifdef __cplusplus
}
#endif

#endif /* CAVR_SCATTER_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * frame_constants.c - the per-frame description both back ends read (CAVRRayFrame, core/shared/cavr_frame.h),
 * derived from a render job in one place so CPU and GPU images agree: the eye the sample lattice starts from, the
 * step, the transfer-function index mapping, the modes in effect, the render box, the lights.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "../shared/cavr_frame.h"

/* v scaled to unit length (left alone when it has none). */
static void normalize3(double v[3]) {
  const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0.0)
    for (int a = 0; a < 3; ++a) v[a] /= n;
}

/* cavrSetRenderLights' lights for this camera (invView: eye -> world), as vtkEncodedGradientShader::
   UpdateShadingTable takes them: every light directional, from its position towards its focal point; the view
   direction is the camera's, one for the image. Eye and camera-light frames share their axes (x right, y up, +z
   towards the viewer), so camera lights and the headlight turn to world with the inverse view's linear part. */
static void lighting(const CAVRSettingsDesc *s, const double invView[16], CAVRLighting *L) {
  memset(L, 0, sizeof *L);
  if (!s->lightCount) return;
  double view[3] = {-invView[8], -invView[9], -invView[10]}; /* eye -z in world */
  normalize3(view);
  L->count = s->lightCount;
  L->twoSided = s->twoSided;
  L->power = s->specularPower;
  for (int a = 0; a < 3; ++a) L->view[a] = (float)view[a];
  double ambient[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < s->lightCount; ++i) {
    const CAVRLight *l = &s->lights[i];
    double d[3] = {0.0, 0.0, 1.0}, h[3];
    if (l->kind != CAVR_LIGHT_HEADLIGHT)
      for (int a = 0; a < 3; ++a) d[a] = l->position[a] - l->focalPoint[a];
    if (l->kind != CAVR_LIGHT_SCENE) {
      const double e[3] = {d[0], d[1], d[2]};
      for (int a = 0; a < 3; ++a) d[a] = invView[a] * e[0] + invView[4 + a] * e[1] + invView[8 + a] * e[2];
    }
    normalize3(d);
    for (int a = 0; a < 3; ++a) h[a] = d[a] - view[a];
    normalize3(h);
    for (int a = 0; a < 3; ++a) {
      L->dir[i][a] = (float)d[a];
      L->half[i][a] = (float)h[a];
      L->diffuse[i][a] = (float)(s->diffuse * l->intensity * l->diffuseColor[a]);
      L->specular[i][a] = (float)(s->specular * l->intensity * l->specularColor[a]);
      ambient[a] += s->ambient * l->intensity * l->ambientColor[a];
    }
  }
  for (int a = 0; a < 3; ++a) L->ambient[a] = (float)ambient[a];
}

/* Volumetric scattering in effect (cavrSetRenderScattering): composite, shaded, a blending above 0. */
static int scattering_on(const CAVRSettingsDesc *s) {
  return s->scatterBlend > 0.0f && s->shade && s->blendMode == CAVR_BLEND_COMPOSITE;
}

/* cavr's own headlight (no cavrSetRenderLights) as the light list of VTK's default lighting when scattering is on:
   one white headlight of intensity 1 with ambient colour 0 (vtkLight's defaults), Ambient, Diffuse, Specular and
   Specular Power of cavrSetRenderShading. */
static void scatter_headlight(const CAVRSettingsDesc *s, const double invView[16], CAVRLighting *L) {
  double view[3] = {-invView[8], -invView[9], -invView[10]};
  normalize3(view);
  L->count = 1;
  L->twoSided = 1;
  L->power = s->specularPower;
  for (int a = 0; a < 3; ++a) {
    L->view[a] = (float)view[a];
    L->dir[0][a] = (float)-view[a];
    L->half[0][a] = (float)-view[a];
    L->diffuse[0][a] = s->diffuse;
    L->specular[0][a] = s->specular;
    L->ambient[a] = 0.0f;
  }
}

/* The frame's scattering constants (core/shared/cavr_scatter.h): texture units of the volume (its piece), the
   reach's uniform as vtkOpenGLGPUVolumeRayCastMapper::vtkInternal::SetLightingShaderParameters maps it, the lights'
   directions and the camera in texture units, the gradient's scale (VTK scales values to the volume's value range). */
static void scattering(const CAVRRenderJob *job, const CAVRRayFrame *f, CAVRScatter *sc) {
  const CAVRSettingsDesc *s = job->settings;
  const CAVRVolume vol = job->volume;
  memset(sc, 0, sizeof *sc);
  if (!scattering_on(s)) return;
  sc->on = 1;
  sc->headlight = f->light.surface == CAVR_SURFACE_HEADLIGHT;
  sc->blend = s->scatterBlend;
  sc->g = s->scatterAnisotropy;
  const double ag = fabs(sc->g) < 0.01f ? 0.0 : fabs(sc->g); /* the phase's maximum: (1 + |g|) / (1 - |g|)^2 */
  sc->cutoff = ag < 1.0 ? (float)((1.0 - ag) * (1.0 - ag) / ((1.0 + ag) * 4096.0)) : 0.0f;
  double emax = 0.0, e[3];
  for (int a = 0; a < 3; ++a) {
    e[a] = (vol->desc.dims[a] - 1) * vol->desc.spacing[a];
    if (!(e[a] > 0.0)) e[a] = vol->desc.spacing[a]; /* one slice thick */
    emax = fmax(emax, e[a]);
    sc->dims[a] = (float)vol->desc.dims[a];
    sc->invExtent[a] = (float)(1.0 / e[a]);
    sc->eyeTex[a] = (float)((f->eye[a] - vol->desc.origin[a]) / e[a]);
  }
  const double m = f->step / emax, top = 1.73205;
  sc->reach = (float)((m - top) * pow(1.0 - s->scatterReach, 0.33) + top);
  const double width = vol->voxels.range[1] - vol->voxels.range[0];
  sc->gradScale = (float)(2.0 / (width > 0.0 ? width : 1.0));
  for (int i = 0; i < f->light.count; ++i) {
    double d[3], n = 0.0;
    for (int a = 0; a < 3; ++a) {
      d[a] = f->light.dir[i][a] / e[a];
      n += d[a] * d[a];
    }
    n = n > 0.0 ? 1.0 / sqrt(n) : 0.0;
    for (int a = 0; a < 3; ++a) sc->lightTex[i][a] = (float)(d[a] * n);
  }
}

/* Which model shades the single-sample hits of the isosurface and slice modes, and its normal matrix. VTK renders
   those modes with its GPU ray caster only, so they take its model (cavr_lighting_surface); composite keeps the
   fixed-point caster's. Its light complexity: 1 for one headlight of intensity exactly 1 that is not positional, else
   2 (vtkOpenGLGPUVolumeRayCastMapper::ReplaceShaderValues; positional lights, its complexity 3, are shaded as
   directional here). In complexity 2 its shader turns the gradient g (data axes) to eye space with in_textureToEye,
   uploaded so that the shader multiplies by diag(extent) after the view's rotation R: n_eye ~ E R g, E = diag of the
   volume's extent (dims - 1) x spacing per data axis, applied to the eye axes (measured on an analytic sphere in a
   96 x 96 x 48 box: this fits ParaView 5.11's image within 0.003 rms, the undistorted normal 0.08). In world terms
   n = R^T n_eye ~ (R^T E R) g: distort = R^T E R / max(E) (R: the view's rotation, world -> eye; the plugin's
   camera carries the volume's matrix, so this is VTK's for a volume without a transform). */
static void surface_lighting(const CAVRRenderJob *job, const double view[16], CAVRLighting *L) {
  const CAVRSettingsDesc *s = job->settings;
  const CAVRVolume vol = job->volume;
  L->surface = 0;
  const int scatter = scattering_on(s);
  if (!s->lightCount && scatter) { /* cavr's own headlight: VTK's default lighting (scatter_headlight) */
    L->surface = CAVR_SURFACE_HEADLIGHT;
    return;
  }
  if (!s->lightCount || (s->blendMode != CAVR_BLEND_ISOSURFACE && s->blendMode != CAVR_BLEND_SLICE && !scatter)) return;
  const CAVRLight *l = &s->lights[0];
  if (s->lightCount == 1 && l->kind == CAVR_LIGHT_HEADLIGHT && l->intensity == 1.0 && !l->positional) {
    L->surface = CAVR_SURFACE_HEADLIGHT;
    return;
  }
  L->surface = CAVR_SURFACE_LIGHTS;
  double e[3], emax = 0.0;
  for (int a = 0; a < 3; ++a) {
    e[a] = (vol->desc.dims[a] - 1) * vol->desc.spacing[a];
    if (!(e[a] > 0.0)) e[a] = vol->desc.spacing[a]; /* one slice thick */
    emax = fmax(emax, e[a]);
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double m = 0.0;
      for (int k = 0; k < 3; ++k) m += view[4 * i + k] * e[k] * view[4 * j + k]; /* R[k][i] E[k] R[k][j] */
      L->distort[3 * i + j] = (float)(m / emax);
    }
}

/* The eye, lights, step, table mapping, modes in effect, iso-values and render box of a frame. */
static void derived(const CAVRRenderJob *job, CAVRRayFrame *out) {
  const CAVRVolume vol = job->volume;
  const CAVRTransferFunction tf = job->tf;
  const CAVRSettingsDesc *s = job->settings;
  double invView[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const double zero[3] = {0.0, 0.0, 0.0};
  if (!cavr_mat4_invert(job->camera->view, invView) || !cavr_mat4_project(invView, zero, out->eye))
    out->eye[0] = out->eye[1] = out->eye[2] = 0.0;
  lighting(s, invView, &out->light);
  if (!s->lightCount && scattering_on(s)) scatter_headlight(s, invView, &out->light);
  surface_lighting(job, job->camera->view, &out->light);
  out->light.gradientFloor2 = cavr_gradient_floor2(tf->range[0], tf->range[1], vol->desc.spacing);
  double minSpacing = INFINITY;
  for (int a = 0; a < 3; ++a) minSpacing = fmin(minSpacing, vol->desc.spacing[a]);
  out->step = (float)(s->sampleDistance * minSpacing);
  double sc = (tf->count - 1) / (tf->range[1] - tf->range[0]);
  out->idxScale = (float)sc;
  out->idxBias = (float)((vol->desc.valueOffset - tf->range[0]) * sc);
  const int iso = s->blendMode == CAVR_BLEND_ISOSURFACE;
  out->shade = s->shade && (s->blendMode == CAVR_BLEND_COMPOSITE || iso || s->blendMode == CAVR_BLEND_SLICE);
  /* Iso skipping is exact only while consecutive samples lie in the same or neighbouring macro cells. */
  out->skip = s->emptySpaceSkipping && (s->blendMode == CAVR_BLEND_COMPOSITE || (iso && s->sampleDistance <= 8.0f));
  out->isoCount = iso ? s->isoCount : 0;
  for (int i = 0; i < out->isoCount; ++i) out->iso[i] = (float)((double)s->isoValues[i] - vol->desc.valueOffset);
  out->cellDilation = iso ? (s->interpolation == CAVR_INTERPOLATION_CUBIC ? 2 : 1)
                          : (s->interpolation == CAVR_INTERPOLATION_CUBIC ? 1 : 0);
  /* The render extent (a piece, without ghost layers), intersected with the crop box (world -> voxel
     coordinates; spacing > 0). An empty intersection becomes a box far outside every ray's reach on that axis
     (an inverted box would not do: the slab test orders its ends). */
  int empty = 0;
  for (int a = 0; a < 3; ++a) {
    double lo = vol->desc.renderLo[a], hi = vol->desc.renderHi[a];
    if (s->crop) {
      lo = fmax(lo, (s->cropBox[2 * a] - vol->desc.origin[a]) / vol->desc.spacing[a]);
      hi = fmin(hi, (s->cropBox[2 * a + 1] - vol->desc.origin[a]) / vol->desc.spacing[a]);
    }
    empty |= !(lo <= hi);
    out->boxLo[a] = (float)lo;
    out->boxHi[a] = (float)hi;
  }
  if (empty)
    for (int a = 0; a < 3; ++a) out->boxLo[a] = out->boxHi[a] = -1e20f;
}

void cavr_ray_frame(const CAVRRenderJob *job, CAVRRayFrame *out) {
  const CAVRVolume vol = job->volume;
  const CAVRSettingsDesc *s = job->settings;
  memset(out, 0, sizeof *out);
  memcpy(out->invVP, job->camera->invViewProj, sizeof out->invVP);
  memcpy(out->VP, job->camera->viewProj, sizeof out->VP);
  derived(job, out);
  for (int a = 0; a < 3; ++a) {
    out->origin[a] = vol->desc.origin[a];
    out->invSpacing[a] = 1.0 / vol->desc.spacing[a];
    out->maxCoord[a] = (float)(vol->desc.dims[a] - 1);
    out->cells[a] = vol->grid.cells[a];
  }
  out->width = job->fb->width;
  out->height = job->fb->height;
  out->count = job->tf->count;
  out->correction = s->opacityCorrection;
  out->blend = (CAVRBlendMode)s->blendMode;
  out->interpolation = (CAVRInterpolation)s->interpolation;
  out->ert = s->earlyTermination;
  out->ka = s->ambient;
  out->kd = s->diffuse;
  out->ks = s->specular;
  out->kp = s->specularPower;
  memcpy(out->sliceOrigin, s->sliceOrigin, sizeof out->sliceOrigin);
  memcpy(out->sliceNormal, s->sliceNormal, sizeof out->sliceNormal);
  out->invStep = 1.0f / out->step;
  out->isoSlack = (float)(3.5 / 256.0 * (vol->voxels.range[1] - vol->voxels.range[0]));
  out->jitter = s->jitter != 0 && s->blendMode != CAVR_BLEND_SLICE;
  /* Gradient opacity: composite only (cavrSetTransferFunctionGradientOpacity). */
  const CAVRTransferFunction tf = job->tf;
  out->goCount = s->blendMode == CAVR_BLEND_COMPOSITE ? tf->goCount : 0;
  memcpy(out->go, tf->go, sizeof(float) * 2 * (size_t)out->goCount);
  /* The 2-D table: composite only, in place of the 1-D table and the gradient-opacity function
     (cavrSetTransferFunction2D). Stored value v is scalar v + valueOffset. */
  if (s->blendMode == CAVR_BLEND_COMPOSITE && tf->t2) {
    const double *r = tf->t2Range;
    const double sx = (tf->t2Size[0] - 1) / (r[1] - r[0]), sy = (tf->t2Size[1] - 1) / (r[3] - r[2]);
    out->tf2dW = tf->t2Size[0];
    out->tf2dH = tf->t2Size[1];
    out->tf2dScale[0] = (float)sx;
    out->tf2dBias[0] = (float)((vol->desc.valueOffset - r[0]) * sx);
    out->tf2dScale[1] = (float)sy;
    out->tf2dBias[1] = (float)(-r[2] * sy);
    out->goCount = 0;
  }
  /* Dependent components (cavrSetVolumeComponentData; composite only, cavrRender refuses the other modes): the colour
     component of a 2-component volume is read in the table's RGB at the colour range (cavrSetTransferFunctionColorRange,
     0, 0: the table's range). The colour keeps its original units (no storage offset). */
  out->components = vol->components > 1 && vol->color ? vol->components : 1;
  const double *cr = tf->colorRange[0] < tf->colorRange[1] ? tf->colorRange : tf->range;
  const double csc = (tf->count - 1) / (cr[1] - cr[0]);
  out->colorScale = (float)csc;
  out->colorBias = (float)(-cr[0] * csc);
  scattering(job, out, &out->scatter);
}

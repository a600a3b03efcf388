// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_ray.h - the ray arithmetic both back ends run, written once: the cubic B-spline's weights, the transfer-
 * function position, the opacity of a clipped segment, the headlight, the shading of a single-sample hit, the
 * isosurface crossing, the slice plane's ray distance and the pixel encoding. Included by the CPU casters
 * (core/src/cpu_raycast.h, cpu_backend.c, the packets' per-lane code in cpu_packet_body.h) and the kernels
 * (kernels/raycast_frame.cuh, raycast.cu, iso.cu).
 *
 * Each function is the arithmetic of both back ends in one spelling: the CPU compiles it with -ffp-contract=off
 * (a * b + c rounded twice, core/CMakeLists.txt), nvcc with its default contraction (fused), as each did before, so
 * the CPU images are bit for bit those of the earlier twins and the GPU's code is what it was. What is not here, and
 * why: the fetch itself (texture unit on the GPU, memory and vector gathers on the CPU), the gradient (built on the
 * fetch) and the composite step (the GPU writes it with explicit FMAs; the CPU's unfused (1 - A) a is a different
 * rounding, and either spelling would change one back end's images).
 */
#ifndef CAVR_RAY_H
#define CAVR_RAY_H

#include "cavr_hd.h"
#include "cavr_frame.h"

/**
 * One axis of the cubic B-spline as two linear fetches (Sigg and Hadwiger 2005, GPU Gems 2 ch. 20): at x the 4
 * weights of the samples i-1..i+2 (i = floor x) pair up as g0 at h0 in [i-1, i] and g1 = 1 - g0 at h1 in [i+1, i+2],
 * with the positions offset by `first` + 1 (-1 for voxel coordinates, where sample i is at i; -0.5 for texel
 * coordinates with x - 0.5 given, where texel i's centre is at i + 0.5).
 */
CAVR_HD void cavr_bspline_axis(float x, float first, float *h0, float *h1, float *g0) {
  const float i = floorf(x), f = x - i, f2 = f * f, f3 = f2 * f, m = 1.0f - f;
  const float w0 = (1.0f / 6.0f) * m * m * m;
  const float w1 = (1.0f / 6.0f) * (3.0f * f3 - 6.0f * f2 + 4.0f);
  const float w3 = (1.0f / 6.0f) * f3;
  const float w2 = 1.0f - w0 - w1 - w3;
  *g0 = w0 + w1;
  *h0 = i + first + w1 / (w0 + w1);
  *h1 = i + (first + 2.0f) + w3 / (w2 + w3);
}

/**
 * Table position of stored value s: entry *i0 (0 .. count - 2) and the weight *f of entry i0 + 1, the position
 * s * idxScale + idxBias clamped to [0, count - 1] (NaN gives 0). count >= 2.
 */
CAVR_HD void cavr_tf_index(const CAVRRayFrame *p, float s, int *i0, float *f) {
  float fi = s * p->idxScale + p->idxBias;
  fi = cavr_clampf(fi, 0.0f, (float)(p->count - 1));
  int i = (int)fi;
  if (i > p->count - 2) i = p->count - 2;
  *i0 = i;
  *f = fi - (float)i;
}

/**
 * The opacity of a clipped segment that covers `fraction` (length / step, in (0, 1)) of a full step whose opacity
 * is a (already corrected for the full step): 1 - (1 - a)^fraction, so the parts of a segment cut by a piece
 * boundary multiply to exactly the full step; a >= 1 stays 1.
 */
CAVR_HD float cavr_clipped_opacity(float a, float fraction) {
  return a >= 1.0f ? 1.0f : 1.0f - powf(1.0f - a, fraction);
}

/** The headlight's specular term ks ndotl^kp (0 when ks or ndotl is not positive). */
CAVR_HD float cavr_specular(float ks, float kp, float ndotl) {
  return (ks > 0.0f && ndotl > 0.0f) ? ks * powf(ndotl, kp) : 0.0f;
}

/**
 * Phong with the headlight (L = V = H = -ray direction dw, unit length) from the sample's world gradient g (stored
 * units per world unit): rgb = min(rgb (ka + kd |n.l|) + ks |n.l|^kp, 1) in place. A gradient whose squared length
 * is not above the frame's floor (CAVRLighting::gradientFloor2) has no direction: ambient only.
 */
CAVR_HD void cavr_headlight(const CAVRRayFrame *p, const float g[3], const float dw[3], float rgb[3]) {
  const float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  const float ndotl =
      len2 > p->light.gradientFloor2 ? fabsf(g[0] * dw[0] + g[1] * dw[1] + g[2] * dw[2]) / sqrtf(len2) : 0.0f;
  const float diff = p->ka + p->kd * ndotl;
  const float spec = cavr_specular(p->ks, p->kp, ndotl);
  for (int c = 0; c < 3; ++c) rgb[c] = CAVR_MIN_NN(rgb[c] * diff + spec, 1.0f);
}

/**
 * Shade rgb in place from the world gradient g: the frame's lights (cavrSetRenderLights, cavr_lighting_apply) or
 * the headlight (cavr_headlight).
 */
CAVR_HD void cavr_shade_gradient(const CAVRRayFrame *p, const float g[3], const float dw[3], float rgb[3]) {
  if (p->light.count) {
    cavr_lighting_apply(&p->light, g, rgb);
    return;
  }
  cavr_headlight(p, g, dw, rgb);
}

/**
 * Shade rgb in place for a single-sample hit (an isosurface crossing, a slice sample) at voxel position v with world
 * gradient g: VTK's GPU ray caster's model (cavr_lighting_surface; the light and view directions from the hit to the
 * camera's position) when the frame's lights ask for it (CAVRLighting::surface), else cavr_shade_gradient.
 */
/** The unit vector from voxel position v towards the camera's position (the eye; dw when v is at the eye): the view
    vector of VTK's GPU ray caster's lighting. */
CAVR_HD void cavr_to_eye(const CAVRRayFrame *p, const float v[3], const float dw[3], float toEye[3]) {
  double e[3], len = 0.0;
  for (int a = 0; a < 3; ++a) {
    e[a] = p->eye[a] - (p->origin[a] + (double)v[a] / p->invSpacing[a]);
    len += e[a] * e[a];
  }
  len = sqrt(len);
  for (int a = 0; a < 3; ++a) toEye[a] = dw[a]; /* the hit at the eye: along the ray */
  if (len > 0.0)
    for (int a = 0; a < 3; ++a) toEye[a] = (float)(e[a] / len);
}

CAVR_HD void cavr_shade_hit(const CAVRRayFrame *p, const float g[3], const float v[3], const float dw[3],
                           float rgb[3]) {
  if (!p->light.surface) {
    cavr_shade_gradient(p, g, dw, rgb);
    return;
  }
  float toEye[3];
  cavr_to_eye(p, v, dw, toEye);
  cavr_lighting_surface(&p->light, p->ka, g, toEye, rgb);
}

/**
 * The colour rgb of a composite sample at voxel position v with scattering on (CAVRScatter::on): cavr_scatter_shade
 * (core/shared/cavr_scatter.h) with the world gradient g, the sample's table opacity a and the transmittance of each
 * light's secondary ray, shadow[i] (cavr_shadow_ray; the back end takes its samples). dw: the ray's unit world
 * direction.
 */
CAVR_HD void cavr_scatter_sample(const CAVRRayFrame *p, const float g[3], const float v[3], const float dw[3],
                                 float a, const float shadow[8], float rgb[3]) {
  float toEye[3];
  cavr_to_eye(p, v, dw, toEye);
  cavr_scatter_shade(&p->scatter, &p->light, p->ka, g, toEye, a, shadow, rgb);
}

/**
 * The isosurface crossing between sample j - 1 (value a; prevValid 0 when it was not taken) and sample j (value
 * b): the index of the frame's iso-value met first (the smallest interpolated fraction of the way from a to b; a
 * sample equal to a value meets it at fraction 1), with that fraction in *frac (2 when none), or -1.
 */
CAVR_HD int cavr_iso_crossing(const CAVRRayFrame *p, float a, float b, int prevValid, float *frac) {
  int best = -1;
  float bestF = 2.0f;
  for (int i = 0; i < p->isoCount; ++i) {
    const float v = p->iso[i];
    float f;
    if (b == v) f = 1.0f;
    else if (prevValid && (a < v) != (b < v)) f = (v - a) / (b - a);
    else continue;
    if (f < bestF) {
      bestF = f;
      best = i;
    }
  }
  *frac = bestF;
  return best;
}

/**
 * Refinement of an isosurface crossing between samples ja and jb (ray positions in sample units, values sa and sb on
 * either side of iso or sb equal to it): each bisection step samples the midpoint (cavr_iso_bisect_mid) and keeps
 * the half that still brackets iso (cavr_iso_bisect_step); cavr_iso_bisect_end interpolates linearly in the last
 * bracket (jb when its values are equal). The caller takes the samples (4 steps on both back ends).
 */
typedef struct CavrIsoBracket {
  float ja, jb, sa, sb, iso;
} CavrIsoBracket;

CAVR_HD float cavr_iso_bisect_mid(const CavrIsoBracket *b) { return 0.5f * (b->ja + b->jb); }

CAVR_HD void cavr_iso_bisect_step(CavrIsoBracket *b, float jm, float sm) {
  if ((b->sa < b->iso) != (sm < b->iso) || sm == b->iso) {
    b->jb = jm;
    b->sb = sm;
  } else {
    b->ja = jm;
    b->sa = sm;
  }
}

CAVR_HD float cavr_iso_bisect_end(const CavrIsoBracket *b) {
  return b->sb != b->sa ? b->ja + (b->iso - b->sa) / (b->sb - b->sa) * (b->jb - b->ja) : b->jb;
}

/**
 * The ray distance at which the world ray nearW + t dirW (dirW unit length) meets the frame's slice plane, into *t;
 * returns 0 when the ray is parallel to it (|normal . dirW| <= 1e-12).
 */
CAVR_HD int cavr_slice_distance(const CAVRRayFrame *p, const double nearW[3], const double dirW[3], double *t) {
  const double *n = p->sliceNormal, *o = p->sliceOrigin;
  const double denom = n[0] * dirW[0] + n[1] * dirW[1] + n[2] * dirW[2];
  if (!(fabs(denom) > 1e-12)) return 0;
  *t = ((o[0] - nearW[0]) * n[0] + (o[1] - nearW[1]) * n[1] + (o[2] - nearW[2]) * n[2]) / denom;
  return 1;
}

/**
 * A pixel's stored values from its premultiplied RGBA `out`: each channel clamped to [0, 1] into v (NaN gives 0)
 * and rounded to 8 bits into b.
 */
CAVR_HD void cavr_pixel_encode(const float out[4], float v[4], unsigned char b[4]) {
  for (int c = 0; c < 4; ++c) {
    v[c] = cavr_clampf(out[c], 0.0f, 1.0f);
    b[c] = (unsigned char)(v[c] * 255.0f + 0.5f);
  }
}

/** The premultiplied RGBA of a classified sample: the table entries e0, e1 (RGBA each) weighted 1 - f, f. */
CAVR_HD float cavr_tf_lerp(const float e0[4], const float e1[4], float f, float rgb[3]) {
  for (int c = 0; c < 3; ++c) rgb[c] = e0[c] + f * (e1[c] - e0[c]);
  return e0[3] + f * (e1[3] - e0[3]);
}

/**
 * Dependent components (cavrSetVolumeComponentData; VTK's vtkVolumeShaderComposer ComputeColor for
 * !independentComponents): the colour of a composite sample whose opacity came from its scalar component. `c` holds
 * the colour components interpolated at the sample: 2 components: c[0], the colour component (original units), read
 * in the table's RGB (`table`: count entries of R, G, B, A, A unused here) at position c[0] * colorScale + colorBias,
 * clamped to the ends, linear between entries (cavr_tf_index's arithmetic); 4 components: c[0..2], red, green, blue
 * already rescaled to [0, 1], clamped to [0, 1]. The one classification of both back ends (the CPU's scalar caster,
 * the kernels' COLOR instantiations).
 */
CAVR_HD void cavr_component_rgb(const CAVRRayFrame *p, const float *table, const float c[3], float rgb[3]) {
  if (p->components == 4) {
    for (int k = 0; k < 3; ++k) rgb[k] = cavr_clampf(c[k], 0.0f, 1.0f);
    return;
  }
  float fi = c[0] * p->colorScale + p->colorBias;
  fi = cavr_clampf(fi, 0.0f, (float)(p->count - 1));
  int i = (int)fi;
  if (i > p->count - 2) i = p->count - 2;
  const float f = fi - (float)i;
  const float *e0 = table + 4 * i, *e1 = e0 + 4;
  for (int k = 0; k < 3; ++k) rgb[k] = e0[k] + f * (e1[k] - e0[k]);
}

/* Double-precision min / max as each back end spells them: fmin/fmax on the GPU, glibc's x86-64 semantics inline on
   the CPU (minsd/maxsd, and the other operand when one is NaN: the same value wherever a result is used). Double
   divisions below: the CPU divides; the GPU multiplies by the correctly rounded reciprocal (__drcp_rn), computed once
   per divisor, as its kernels always did: a double division's out-of-line slow path would set the kernel's register
   count, and with it the occupancy of the hot loop. */
#ifdef __CUDA_ARCH__
#define CAVR_DMIN(a, b) fmin(a, b)
#define CAVR_DMAX(a, b) fmax(a, b)
#else
CAVR_HD double cavr_fmin(double x, double y) { return y != y ? x : (x < y ? x : y); }
CAVR_HD double cavr_fmax(double x, double y) { return y != y ? x : (x > y ? x : y); }
#define CAVR_DMIN(a, b) cavr_fmin(a, b)
#define CAVR_DMAX(a, b) cavr_fmax(a, b)
#endif

/**
 * out = m * (in, 1) divided by w, m a column-major 4x4 matrix (exactly: no division when w is 1, as for orthographic
 * cameras). Returns 0 when w is 0.
 */
CAVR_HD int cavr_project(const double m[16], const double in[3], double out[3]) {
  double v[4];
  for (int r = 0; r < 4; ++r) v[r] = m[r] * in[0] + m[4 + r] * in[1] + m[8 + r] * in[2] + m[12 + r];
  if (v[3] == 0.0) return 0;
  if (v[3] == 1.0) {
    for (int r = 0; r < 3; ++r) out[r] = v[r];
  } else {
#ifdef __CUDA_ARCH__
    const double iw = __drcp_rn(v[3]);
    for (int r = 0; r < 3; ++r) out[r] = v[r] * iw;
#else
    for (int r = 0; r < 3; ++r) out[r] = v[r] / v[3];
#endif
  }
  return 1;
}

/**
 * The jitter of pixel (px, py), in [0, 1) (cavrSetRenderJitter): white noise from an integer hash of the pixel (its
 * coordinates mixed into 32 bits, then the "lowbias32" finaliser of C. Wellons' hash-prospector: xor-shift and
 * multiply, twice), its top 24 bits as a float. Exact integer arithmetic, so every back end takes the same value bit
 * for bit. A hash, not a low-discrepancy sequence: the R2 sequence (a linear phase ramp over the image, modulo 1) was
 * tried and turned the rings into moire fringes instead of noise.
 */
CAVR_HD float cavr_jitter(int px, int py) {
  unsigned h = (unsigned)px * 0x9E3779B1u ^ ((unsigned)py + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/**
 * The gradient-opacity factor of a sample whose world gradient is g (stored units, which differ from scalar units
 * only by an offset, per world unit): the frame's piecewise-linear function (go pairs of magnitude and opacity,
 * goCount of them, magnitudes increasing) at |g|, clamped to the end points' opacities; 1 when goCount is 0
 * (cavrSetTransferFunctionGradientOpacity). The CPU's scalar caster and the kernels call it on the gradient they
 * shade with.
 */
CAVR_HD float cavr_gradient_opacity(const CAVRRayFrame *p, const float g[3]) {
  const int n = p->goCount;
  if (n <= 0) return 1.0f;
  const float m = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const float *q = p->go;
  if (!(m > q[0])) return q[1];
  for (int i = 1; i < n; ++i) {
    const float x0 = q[2 * i - 2], x1 = q[2 * i];
    if (m < x1) {
      const float t = (m - x0) / (x1 - x0);
      return q[2 * i - 1] + t * (q[2 * i + 1] - q[2 * i - 1]);
    }
  }
  return q[2 * n - 1];
}

/**
 * Whether a sample of stored value s may be visible under the 2-D table whatever its gradient: the largest opacities of
 * the two columns its look-up interpolates between (row p->tf2dH of `table`, cavr_tf2d_sample's layout), not both 0.
 * Exact: the bilinear opacity is at most their maximum. The casters skip the gradient of a sample it rules out.
 */
CAVR_HD int cavr_tf2d_may_show(const CAVRRayFrame *p, const float *table, float s) {
  const int W = p->tf2dW;
  const float fx = cavr_clampf(s * p->tf2dScale[0] + p->tf2dBias[0], 0.0f, (float)(W - 1));
  int ix = (int)fx;
  if (ix > W - 2) ix = W - 2;
  const float *m = table + 4 * ((size_t)p->tf2dH * (size_t)W + (size_t)ix);
  return m[3] > 0.0f || m[7] > 0.0f;
}

/**
 * The 2-D transfer function (cavrSetTransferFunction2D) at stored value s and world gradient g (stored units per world
 * unit): the opacity, returned, and the colour into rgb (not premultiplied), bilinear in `table` (p->tf2dW x p->tf2dH
 * RGBA, x fastest, the opacity corrected for a full step as the 1-D table's, then a row of the columns' largest
 * opacities: cavr_tf2d_may_show) at column s tf2dScale[0] + tf2dBias[0]
 * and row |g| tf2dScale[1] + tf2dBias[1], each clamped to the table (NaN gives 0). The CPU's scalar caster and the
 * kernels call it on the gradient they shade with.
 */
CAVR_HD float cavr_tf2d_sample(const CAVRRayFrame *p, const float *table, float s, const float g[3], float rgb[3]) {
  const int W = p->tf2dW, H = p->tf2dH;
  const float m = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const float fx = cavr_clampf(s * p->tf2dScale[0] + p->tf2dBias[0], 0.0f, (float)(W - 1));
  const float fy = cavr_clampf(m * p->tf2dScale[1] + p->tf2dBias[1], 0.0f, (float)(H - 1));
  int ix = (int)fx, iy = (int)fy;
  if (ix > W - 2) ix = W - 2;
  if (iy > H - 2) iy = H - 2;
  const float wx = fx - (float)ix, wy = fy - (float)iy;
  const float *e00 = table + 4 * ((size_t)iy * (size_t)W + (size_t)ix), *e01 = e00 + 4 * (size_t)W;
  float out[4];
  for (int c = 0; c < 4; ++c) {
    const float lo = e00[c] + wx * (e00[4 + c] - e00[c]), hi = e01[c] + wx * (e01[4 + c] - e01[c]);
    out[c] = lo + wy * (hi - lo);
  }
  rgb[0] = out[0];
  rgb[1] = out[1];
  rgb[2] = out[2];
  return out[3];
}

/**
 * The world ray of pixel (px, py) (pixel centres, y up): nearW on the eye plane (t = 0 at the eye, so the sample
 * lattice does not depend on the clipping range, which differs between MPI ranks and between frames), unit
 * direction dirW, and [*t0, *t1] from the near to the far plane, *t1 cut where the ray meets opaque geometry
 * (opaque: width x height window depths, NULL for none; a depth below 1 counts). With the frame's jitter on, the ray's
 * origin lies cavr_jitter(px, py) x step behind the eye plane (t0, t1 grow by that much). Returns 0 when a projection fails
 * or the ray has no length (nearW, dirW then undefined).
 */
CAVR_HD int cavr_world_ray(const CAVRRayFrame *p, int px, int py, const float *opaque, double nearW[3],
                           double dirW[3], double *t0, double *t1) {
  double ndc[3] = {(px + 0.5) / p->width * 2.0 - 1.0, (py + 0.5) / p->height * 2.0 - 1.0, -1.0}, farW[3];
  int ok = cavr_project(p->invVP, ndc, nearW);
  ndc[2] = 1.0;
  ok = ok && cavr_project(p->invVP, ndc, farW);
  if (!ok) return 0;
  double len = 0.0;
  for (int a = 0; a < 3; ++a) {
    dirW[a] = farW[a] - nearW[a];
    len += dirW[a] * dirW[a];
  }
  len = sqrt(len);
  if (!(len > 0.0)) return 0;
#ifdef __CUDA_ARCH__
  const double il = __drcp_rn(len);
  for (int a = 0; a < 3; ++a) dirW[a] *= il;
#else
  for (int a = 0; a < 3; ++a) dirW[a] /= len;
#endif
  double tEye = 0.0;
  for (int a = 0; a < 3; ++a) tEye += (nearW[a] - p->eye[a]) * dirW[a];
  /* Jittered starts: the ray's origin (t = 0) moves back from the eye plane by j step, so this pixel's lattice
     segments [k step, (k + 1) step] lie j step nearer the eye than the unjittered lattice's. */
  if (p->jitter) tEye += (double)cavr_jitter(px, py) * (double)p->step;
  for (int a = 0; a < 3; ++a) nearW[a] -= tEye * dirW[a];
  *t0 = 0.0 + tEye;
  *t1 = len + tEye;
  const float od = opaque ? opaque[(size_t)py * p->width + px] : 1.0f;
  if (od < 1.0f) {
    double pz[3];
    ndc[2] = 2.0 * od - 1.0;
    if (cavr_project(p->invVP, ndc, pz)) {
      double tz = 0.0;
      for (int a = 0; a < 3; ++a) tz += (pz[a] - nearW[a]) * dirW[a];
      *t1 = CAVR_DMIN(*t1, tz);
    }
  }
  return 1;
}

/**
 * Clip [*t0, *t1] of the world ray nearW + t dirW to the frame's render box (voxel coordinates [boxLo, boxHi]).
 * Returns 1 when the ray crosses it (t0 < t1 after the clip).
 */
CAVR_HD int cavr_box_clip(const CAVRRayFrame *p, const double nearW[3], const double dirW[3], double *t0,
                          double *t1) {
  if (!(*t0 < *t1)) return 0;
  for (int a = 0; a < 3; ++a) {
    const double oa = (nearW[a] - p->origin[a]) * p->invSpacing[a], da = dirW[a] * p->invSpacing[a];
    if (fabs(da) < 1e-12) {
      if (oa < p->boxLo[a] || oa > p->boxHi[a]) return 0;
      continue;
    }
#ifdef __CUDA_ARCH__
    const double ida = __drcp_rn(da);
    double ta = (p->boxLo[a] - oa) * ida, tb = (p->boxHi[a] - oa) * ida;
#else
    double ta = (p->boxLo[a] - oa) / da, tb = (p->boxHi[a] - oa) / da;
#endif
    if (ta > tb) {
      const double t = ta;
      ta = tb;
      tb = t;
    }
    *t0 = CAVR_DMAX(*t0, ta);
    *t1 = CAVR_DMIN(*t1, tb);
  }
  return *t0 < *t1;
}

#endif /* CAVR_RAY_H */

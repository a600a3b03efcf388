// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_raycast.h - what the CPU ray casters share: the per-frame constants (Prep), the scalar sampling helpers,
 * the per-ray setup, the pixel write and the queue of pixels a worker takes its rays from.
 *
 * Two casters use them and give the same image bit for bit: the scalar one (cpu_backend.c, every blend mode,
 * every CPU) and the packets of cpu_packet_body.h (composite; 8 rays with AVX2 and FMA, 16 with AVX-512 where asked
 * for, chosen at run time by cpu_packet.c). So every helper here is the one definition of its arithmetic; both files are compiled with
 * -ffp-contract=off (core/CMakeLists.txt) so a * b + c is rounded twice in both, as ISO C says. The arithmetic the
 * GPU shares (ray set-up, B-spline weights, transfer-function position, shading, pixel encoding) is in
 * core/shared/cavr_ray.h; the frame's description (Prep.f) in core/shared/cavr_frame.h.
 */
#ifndef CAVR_CPU_RAYCAST_H
#define CAVR_CPU_RAYCAST_H

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "../shared/cavr_ray.h"
#include "sampling_mask.h"

#define CAVR_ALWAYS_INLINE static inline __attribute__((always_inline))

/** Macro cells per edge of a skipping block (and of its 8 sub-blocks, half as wide): a block or sub-block whose
    cells are all transparent is jumped in one step, one whose cells all may hold opacity is crossed without a check. */
#define CAVR_CPU_BLOCK 4
#define CAVR_CPU_SUB (CAVR_CPU_BLOCK / 2)

typedef struct Prep {
  CAVRRayFrame f;                /* what both back ends read (core/shared/cavr_frame.h) */
  double spacing[3];             /* world units per voxel */
  int dims[3];
  size_t sy, sz;
  const void *voxels;
  int storage;                   /* CAVRStorage */
  /* transfer function */
  const float *rgba;            /* count x RGBA, as given */
  float *table;                 /* count x (R, G, B, opacity corrected for a full step) */
  float *table2d;               /* f.tf2dW x (f.tf2dH + 1) x (R, G, B, corrected opacity), or NULL: cavr_tf2d_sample */
  float invUnit;                /* 1 / unit distance */
  /* empty-space skipping */
  uint8_t *cellVisible;
  int blocks[3];                 /* blocks of CAVR_CPU_BLOCK^3 macro cells per axis */
  uint8_t *blockVisible;         /* 0: every macro cell of the block is transparent, 2: none is, 1: some are */
  int subs[3];                   /* sub-blocks of CAVR_CPU_SUB^3 macro cells per axis */
  uint8_t *subVisible;           /* the same for sub-blocks */
  double visLo[3], visHi[3];     /* voxel box of the macro cells that may hold opacity, 1 voxel wider; empty when
                                    visLo > visHi (nothing visible) */
  const float *opaqueDepth;
  int hitX0, hitX1, hitY0, hitY1; /* pixels outside [hitX0, hitX1] x [hitY0, hitY1] miss the render box */
  /* outputs */
  uint8_t *rgba8;
  float *rgbaf, *depth;
  uint32_t *raySamples;          /* not NULL: each cast pixel's samples (REFINE's sparse frames) */
  float *rayFirst;               /* composite, not NULL (REFINE's pilot): each cast pixel's first visible sample,
                                    ray distance t (+inf: none) */
  const float *rayHint;          /* composite, not NULL (REFINE's later passes): the pilot's rayFirst, read only;
                                    rays start at cavr_refine_hint_k */
  int refineCells[2];            /* with rayHint: cavr_refine_cells_per_axis of W and H */
  const float *color;            /* f.components > 1: the volume's colour part (objects.h), dims, unpadded, x fastest */
} Prep;

/* min/max/clamp: core/shared/cavr_hd.h. */

CAVR_ALWAYS_INLINE float cavr_fetch(const Prep *p, int storage, size_t i) {
  switch (storage) {
  case CAVR_STORE_U8: return (float)((const uint8_t *)p->voxels)[i];
  case CAVR_STORE_U16: return (float)((const uint16_t *)p->voxels)[i];
  default: return ((const float *)p->voxels)[i];
  }
}

/* cavr_fmin, cavr_fmax, cavr_project: core/shared/cavr_ray.h. */

/* The stored value at voxel coordinates (x,y,z), clamped to the volume (nearest or trilinear). */
CAVR_ALWAYS_INLINE float cavr_sample_basic(const Prep *p, int storage, int interp, float x, float y, float z) {
  x = cavr_clampf(x, 0.0f, p->f.maxCoord[0]);
  y = cavr_clampf(y, 0.0f, p->f.maxCoord[1]);
  z = cavr_clampf(z, 0.0f, p->f.maxCoord[2]);
  if (interp == CAVR_INTERPOLATION_NEAREST) {
    size_t i = (size_t)(int)(x + 0.5f) + (size_t)(int)(y + 0.5f) * p->sy + (size_t)(int)(z + 0.5f) * p->sz;
    return cavr_fetch(p, storage, i);
  }
  int ix = (int)x, iy = (int)y, iz = (int)z;
  if (ix > p->dims[0] - 2) ix = p->dims[0] - 2;
  if (iy > p->dims[1] - 2) iy = p->dims[1] - 2;
  if (iz > p->dims[2] - 2) iz = p->dims[2] - 2;
  float fx = x - (float)ix, fy = y - (float)iy, fz = z - (float)iz;
  size_t b = (size_t)ix + (size_t)iy * p->sy + (size_t)iz * p->sz;
  float c000 = cavr_fetch(p, storage, b), c100 = cavr_fetch(p, storage, b + 1);
  float c010 = cavr_fetch(p, storage, b + p->sy), c110 = cavr_fetch(p, storage, b + p->sy + 1);
  float c001 = cavr_fetch(p, storage, b + p->sz), c101 = cavr_fetch(p, storage, b + p->sz + 1);
  float c011 = cavr_fetch(p, storage, b + p->sz + p->sy), c111 = cavr_fetch(p, storage, b + p->sz + p->sy + 1);
  float c00 = c000 + fx * (c100 - c000), c10 = c010 + fx * (c110 - c010);
  float c01 = c001 + fx * (c101 - c001), c11 = c011 + fx * (c111 - c011);
  float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
  return c0 + fz * (c1 - c0);
}

/* The cubic B-spline of the voxels at (x, y, z), clamped to the volume (voxels past a face repeat the face): 8
   trilinear samples weighted by g0/g1 per axis. */
CAVR_ALWAYS_INLINE float cavr_sample_cubic(const Prep *p, int storage, float x, float y, float z) {
  x = cavr_clampf(x, 0.0f, p->f.maxCoord[0]);
  y = cavr_clampf(y, 0.0f, p->f.maxCoord[1]);
  z = cavr_clampf(z, 0.0f, p->f.maxCoord[2]);
  float hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz;
  cavr_bspline_axis(x, -1.0f, &hx0, &hx1, &gx); /* core/shared/cavr_ray.h, voxel coordinates */
  cavr_bspline_axis(y, -1.0f, &hy0, &hy1, &gy);
  cavr_bspline_axis(z, -1.0f, &hz0, &hz1, &gz);
  const int L = CAVR_INTERPOLATION_TRILINEAR;
  const float a00 = cavr_sample_basic(p, storage, L, hx0, hy0, hz0), a10 = cavr_sample_basic(p, storage, L, hx1, hy0, hz0);
  const float a01 = cavr_sample_basic(p, storage, L, hx0, hy1, hz0), a11 = cavr_sample_basic(p, storage, L, hx1, hy1, hz0);
  const float b00 = cavr_sample_basic(p, storage, L, hx0, hy0, hz1), b10 = cavr_sample_basic(p, storage, L, hx1, hy0, hz1);
  const float b01 = cavr_sample_basic(p, storage, L, hx0, hy1, hz1), b11 = cavr_sample_basic(p, storage, L, hx1, hy1, hz1);
  const float a0 = a10 + gx * (a00 - a10), a1 = a11 + gx * (a01 - a11);
  const float b0 = b10 + gx * (b00 - b10), b1 = b11 + gx * (b01 - b11);
  const float a = a1 + gy * (a0 - a1), b = b1 + gy * (b0 - b1);
  return b + gz * (a - b);
}

/* The stored value at voxel coordinates (x,y,z), clamped to the volume, with the filter `interp`. */
CAVR_ALWAYS_INLINE float cavr_sample(const Prep *p, int storage, int interp, float x, float y, float z) {
  if (interp == CAVR_INTERPOLATION_CUBIC) return cavr_sample_cubic(p, storage, x, y, z);
  return cavr_sample_basic(p, storage, interp, x, y, z);
}

/* The colour components of a dependent-component volume (f.components 2: 1 float a voxel; 4: 4 floats, R, G, B and a
   0) at voxel coordinates v, clamped to the volume, into c (c[0] only for 2 components): the nearest voxel, or
   trilinear (also under the cubic filter, which shapes the scalar only), in the arithmetic of cavr_sample_basic. */
CAVR_ALWAYS_INLINE void cavr_sample_color(const Prep *p, int interp, const float v[3], float c[3]) {
  const int ch = p->f.components == 4 ? 4 : 1, n = p->f.components == 4 ? 3 : 1;
  const size_t sy = (size_t)p->dims[0] * ch, sz = sy * (size_t)p->dims[1];
  const float x = cavr_clampf(v[0], 0.0f, p->f.maxCoord[0]), y = cavr_clampf(v[1], 0.0f, p->f.maxCoord[1]),
              z = cavr_clampf(v[2], 0.0f, p->f.maxCoord[2]);
  const float *q = p->color;
  if (interp == CAVR_INTERPOLATION_NEAREST) {
    const size_t i = (size_t)(int)(x + 0.5f) * ch + (size_t)(int)(y + 0.5f) * sy + (size_t)(int)(z + 0.5f) * sz;
    for (int k = 0; k < n; ++k) c[k] = q[i + k];
    return;
  }
  int ix = (int)x, iy = (int)y, iz = (int)z;
  if (ix > p->dims[0] - 2) ix = p->dims[0] - 2;
  if (iy > p->dims[1] - 2) iy = p->dims[1] - 2;
  if (iz > p->dims[2] - 2) iz = p->dims[2] - 2;
  const float fx = x - (float)ix, fy = y - (float)iy, fz = z - (float)iz;
  const size_t b = (size_t)ix * ch + (size_t)iy * sy + (size_t)iz * sz, dx = (size_t)ch;
  for (int k = 0; k < n; ++k) {
    const float *w = q + b + k;
    const float c00 = w[0] + fx * (w[dx] - w[0]), c10 = w[sy] + fx * (w[sy + dx] - w[sy]);
    const float c01 = w[sz] + fx * (w[sz + dx] - w[sz]), c11 = w[sz + sy] + fx * (w[sz + sy + dx] - w[sz + sy]);
    const float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
    c[k] = c0 + fz * (c1 - c0);
  }
}

CAVR_ALWAYS_INLINE float cavr_window_depth(const Prep *p, const double nearW[3], const double dirW[3], float t) {
  double w[3] = {nearW[0] + t * dirW[0], nearW[1] + t * dirW[1], nearW[2] + t * dirW[2]}, c[3];
  if (!cavr_project(p->f.VP, w, c)) return 1.0f;
  double d = 0.5 * c[2] + 0.5;
  return (float)(d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d);
}

/* The world gradient at voxel position (x, y, z) (stored units per world unit) into g: the central differences of
   shading, turned from voxel to world units; 6 samples. At the volume's faces (and so at
   the faces of an MPI piece) the step is clamped inside and the difference divided by the clamped distance:
   one-sided there. */
CAVR_ALWAYS_INLINE void cavr_world_gradient(const Prep *p, int storage, int interp, float x, float y, float z,
                                            float g[3], uint64_t *samples) {
  const float c[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    float lo = cavr_maxf(c[a] - 1.0f, 0.0f), hi = cavr_minf(c[a] + 1.0f, p->f.maxCoord[a]);
    float pl[3] = {x, y, z}, ph[3] = {x, y, z};
    pl[a] = lo;
    ph[a] = hi;
    g[a] = hi > lo ? (cavr_sample(p, storage, interp, ph[0], ph[1], ph[2]) -
                      cavr_sample(p, storage, interp, pl[0], pl[1], pl[2])) /
                         (hi - lo)
                   : 0.0f;
  }
  *samples += 6;
  for (int a = 0; a < 3; ++a) g[a] *= (float)p->f.invSpacing[a];
}

/* The transmittance of light i's secondary ray from voxel position v (scattering; cavr_shadow_ray of
   core/shared/cavr_scatter.h sets the ray up): the product of 1 - opacity over its samples, each the table's opacity
   (corrected for a full step) of the filtered value there, times its gradient-opacity factor when the frame has one.
   Stops once the transmittance is at or below the frame's cutoff (CAVRScatter::cutoff). The kernels' twin is
   shadow() in kernels/raycast.cu. */
CAVR_ALWAYS_INLINE float cavr_shadow(const Prep *p, int storage, int interp, int i, const float v[3],
                                     const float dirW[3], uint64_t *samples) {
  CavrShadowRay sr;
  cavr_shadow_ray(&p->f.scatter, i, v, dirW, p->f.invSpacing, p->f.step, &sr);
  float shadow = 1.0f;
  for (int k = 0; k < sr.n && shadow > p->f.scatter.cutoff; ++k) {
    const float x[3] = {sr.start[0] + (float)k * sr.step[0], sr.start[1] + (float)k * sr.step[1],
                        sr.start[2] + (float)k * sr.step[2]};
    const float sv = cavr_sample(p, storage, interp, x[0], x[1], x[2]);
    ++*samples;
    int i0;
    float f;
    cavr_tf_index(&p->f, sv, &i0, &f);
    const float *e0 = p->table + 4 * i0;
    float a = e0[3] + f * (e0[7] - e0[3]);
    if (p->f.goCount) {
      float g[3];
      cavr_world_gradient(p, storage, interp, x[0], x[1], x[2], g, samples);
      a *= cavr_gradient_opacity(&p->f, g);
    }
    shadow *= 1.0f - a;
  }
  return shadow;
}

/* A composite sample's gradient work when shading or gradient opacity is on: its opacity *a times the gradient-
   opacity factor (cavr_gradient_opacity, core/shared/cavr_ray.h) and, with shading, its colour rgb shaded; the same
   gradient for both. With scattering (p->f.scatter.on) the shading is cavr_scatter_sample's, from the opacity as it
   came (VTK weighs the blend by the table's opacity, before gradient opacity) and each light's cavr_shadow. Returns 0
   when the opacity is no longer positive (rgb then not shaded). */
CAVR_ALWAYS_INLINE int cavr_gradient_sample(const Prep *p, int storage, int interp, const float v[3],
                                            const float dirW[3], float rgb[3], float *a, uint64_t *samples) {
  float g[3];
  const float a0 = *a;
  cavr_world_gradient(p, storage, interp, v[0], v[1], v[2], g, samples);
  if (p->f.goCount) {
    *a *= cavr_gradient_opacity(&p->f, g);
    if (!(*a > 0.0f)) return 0;
  }
  if (p->f.scatter.on) {
    float shadow[8];
    for (int i = 0; i < p->f.light.count; ++i) shadow[i] = cavr_shadow(p, storage, interp, i, v, dirW, samples);
    cavr_scatter_sample(&p->f, g, v, dirW, a0, shadow, rgb);
    return 1;
  }
  if (p->f.shade) cavr_shade_gradient(&p->f, g, dirW, rgb);
  return 1;
}

/* A composite sample's colour (rgb) and opacity (*a) from the 1-D table at its stored value s: the opacity of a full
   step, and for a clipped part of length len 1 - (1 - a_step)^(len / step), so the parts of a segment cut by a piece
   boundary multiply to exactly the full step; then the gradient's work (cavr_gradient_sample) when shading or
   gradient opacity is on. Returns 0 when the sample is transparent. */
CAVR_ALWAYS_INLINE int cavr_tf1d_composite_sample(const Prep *p, int storage, int interp, float s, const float v[3],
                                                  const float dirW[3], float len, float rgb[3], float *pa,
                                                  uint64_t *samples) {
  int i0;
  float f;
  cavr_tf_index(&p->f, s, &i0, &f);
  const float *e0 = p->table + 4 * i0, *e1 = e0 + 4;
  float a = e0[3] + f * (e1[3] - e0[3]);
  if (!(a > 0.0f)) return 0;
  if (len != p->f.step && p->f.correction) a = cavr_clipped_opacity(a, len / p->f.step);
  for (int c = 0; c < 3; ++c) rgb[c] = e0[c] + f * (e1[c] - e0[c]);
  if (p->f.components > 1) { /* dependent components: the colour from the colour part (core/shared/cavr_ray.h) */
    float c[3];
    cavr_sample_color(p, interp, v, c);
    cavr_component_rgb(&p->f, p->table, c, rgb);
  }
  *pa = a;
  if ((p->f.shade || p->f.goCount) && !cavr_gradient_sample(p, storage, interp, v, dirW, rgb, pa, samples)) return 0;
  return 1;
}

/* A composite sample's colour (rgb) and opacity, returned, from the 2-D table (cavr_tf2d_sample, core/shared/
   cavr_ray.h) at its stored value s and world gradient, and with shading its colour shaded from the same gradient; the
   opacity corrected for a clipped segment of length len. Returns 0 (rgb then not shaded) when the sample is transparent. */
CAVR_ALWAYS_INLINE float cavr_tf2d_composite_sample(const Prep *p, int storage, int interp, float s, const float v[3],
                                                    const float dirW[3], float len, float rgb[3], uint64_t *samples) {
  if (!cavr_tf2d_may_show(&p->f, p->table2d, s)) return 0.0f; /* transparent whatever its gradient */
  float g[3];
  cavr_world_gradient(p, storage, interp, v[0], v[1], v[2], g, samples);
  float a = cavr_tf2d_sample(&p->f, p->table2d, s, g, rgb);
  if (!(a > 0.0f)) return 0.0f;
  if (len != p->f.step && p->f.correction) a = cavr_clipped_opacity(a, len / p->f.step);
  if (p->f.shade) cavr_shade_gradient(&p->f, g, dirW, rgb);
  return a;
}

/* Phong factor for a sample: colour rgb shaded in place from its world gradient (cavr_world_gradient) by
   cavr_shade_gradient (core/shared/cavr_ray.h: cavrSetRenderLights' lights, or the headlight L = V = H = -ray
   direction). */
CAVR_ALWAYS_INLINE void cavr_shade_sample(const Prep *p, int storage, int interp, float x, float y, float z,
                                          const float dirW[3], float rgb[3], uint64_t *samples) {
  float g[3];
  cavr_world_gradient(p, storage, interp, x, y, z, g, samples);
  cavr_shade_gradient(&p->f, g, dirW, rgb);
}

/* The shading of a single-sample hit (isosurface crossing, slice sample) at voxel position v: cavr_shade_hit
   (core/shared/cavr_ray.h) of the world gradient. */
CAVR_ALWAYS_INLINE void cavr_shade_hit_sample(const Prep *p, int storage, int interp, const float v[3],
                                              const float dirW[3], float rgb[3], uint64_t *samples) {
  float g[3];
  cavr_world_gradient(p, storage, interp, v[0], v[1], v[2], g, samples);
  cavr_shade_hit(&p->f, g, v, dirW, rgb);
}

CAVR_ALWAYS_INLINE int cavr_inside_data(const Prep *p, const float v[3]) {
  return v[0] >= 0.0f && v[1] >= 0.0f && v[2] >= 0.0f && v[0] <= p->f.maxCoord[0] && v[1] <= p->f.maxCoord[1] &&
         v[2] <= p->f.maxCoord[2];
}

/*
 * Empty-space skipping at a sample position v (inside the data): returns 1 when its macro cell may hold
 * opacity, 0 when it is transparent, and in lo/hi the voxel box of the largest of its block of CAVR_CPU_BLOCK^3
 * cells, its sub-block of CAVR_CPU_SUB^3 cells and the cell itself whose cells are all alike: the ray leaves a
 * transparent one in one jump and crosses one that may hold opacity without a check. A box spans voxel
 * coordinates [lo, hi]; every voxel a sample inside it can touch lies in it.
 */
CAVR_ALWAYS_INLINE int cavr_skip_region(const Prep *p, const float v[3], int lo[3], int hi[3]) {
  const int B = CAVR_MACROCELL_SIZE;
  int c[3];
  for (int a = 0; a < 3; ++a) {
    int ci = (int)(cavr_maxf(v[a], 0.0f) * (1.0f / B));
    c[a] = ci < p->f.cells[a] ? ci : p->f.cells[a] - 1;
  }
  /* The three levels' states, loaded independently (c >= 0: unsigned division is a shift). */
  const unsigned bx = (unsigned)c[0] / CAVR_CPU_BLOCK, by = (unsigned)c[1] / CAVR_CPU_BLOCK, bz = (unsigned)c[2] / CAVR_CPU_BLOCK;
  const unsigned sx = (unsigned)c[0] / CAVR_CPU_SUB, sy = (unsigned)c[1] / CAVR_CPU_SUB, sz = (unsigned)c[2] / CAVR_CPU_SUB;
  const int blockState = p->blockVisible[((size_t)bz * p->blocks[1] + by) * p->blocks[0] + bx];
  const int subState = p->subVisible[((size_t)sz * p->subs[1] + sy) * p->subs[0] + sx];
  const int cellState = 2 * p->cellVisible[((size_t)c[2] * p->f.cells[1] + c[1]) * p->f.cells[0] + c[0]];
  int state, K, b[3];
  if (blockState != 1) {
    state = blockState;
    K = CAVR_CPU_BLOCK;
    b[0] = (int)bx, b[1] = (int)by, b[2] = (int)bz;
  } else if (subState != 1) {
    state = subState;
    K = CAVR_CPU_SUB;
    b[0] = (int)sx, b[1] = (int)sy, b[2] = (int)sz;
  } else {
    state = cellState;
    K = 1;
    b[0] = c[0], b[1] = c[1], b[2] = c[2];
  }
  for (int a = 0; a < 3; ++a) {
    lo[a] = b[a] * K * B;
    hi[a] = ((b[a] + 1) * K < p->f.cells[a] ? (b[a] + 1) * K : p->f.cells[a]) * B;
  }
  return state == 2;
}

/* Where the ray o + t d leaves the box [lo, hi] it is in (t of the nearest exit face), with inv = 1 / d. The axes'
   candidates are independent (a short dependency chain: the empty-space walk is latency-bound). */
CAVR_ALWAYS_INLINE double cavr_region_exit(const int lo[3], const int hi[3], const double o[3], const float d[3],
                                           const double inv[3]) {
  double t[3];
  for (int a = 0; a < 3; ++a)
    t[a] = d[a] != 0.0f ? ((double)(d[a] > 0.0f ? hi[a] : lo[a]) - o[a]) * inv[a] : INFINITY;
  const double t01 = t[0] < t[1] ? t[0] : t[1];
  return t01 < t[2] ? t01 : t[2];
}

/* The first segment a jump out of a transparent region ending at texit may land on: every segment before it
   has its midpoint before texit (floor(texit / step), or one more when texit / step is just below an integer,
   whose skipped segment's midpoint is then still before texit). */
CAVR_ALWAYS_INLINE long cavr_jump_target(double texit, double invStep) { return (long)floor(texit * invStep); }

/* One ray: its pixel, world ray (from the eye plane) and voxel-space ray, and the part [t0, t1] inside the
   render box and in front of opaque geometry. */
typedef struct CavrRay {
  size_t pix;
  double nearW[3], dirW[3];
  double o[3], d[3];             /* voxel coordinates at t = 0 and per world unit */
  float df[3], dw[3];            /* d and dirW in float */
  double inv[3];                 /* 1 / df (0 where df is 0) */
  double t0, t1;
} CavrRay;

/* Set up the ray of pixel (px, py): the world ray and its clip to the render box (cavr_world_ray, cavr_box_clip:
   core/shared/cavr_ray.h), then the voxel-space ray. Returns 1 when it crosses the render box (t0 < t1). Sample
   positions are computed in double: pieces of a split volume then agree to ~1e-7 voxels. */
CAVR_ALWAYS_INLINE int cavr_ray_setup(const Prep *p, int px, int py, CavrRay *r) {
  size_t pix = (size_t)py * p->f.width + px;
  r->pix = pix;
  if (px < p->hitX0 || px > p->hitX1 || py < p->hitY0 || py > p->hitY1) return 0; /* outside the box's footprint */
  double t0, t1;
  if (!cavr_world_ray(&p->f, px, py, p->opaqueDepth, r->nearW, r->dirW, &t0, &t1) ||
      !cavr_box_clip(&p->f, r->nearW, r->dirW, &t0, &t1))
    return 0;
  for (int a = 0; a < 3; ++a) {
    r->o[a] = (r->nearW[a] - p->f.origin[a]) * p->f.invSpacing[a];
    r->d[a] = r->dirW[a] * p->f.invSpacing[a];
    r->df[a] = (float)r->d[a];
    r->dw[a] = (float)r->dirW[a];
    r->inv[a] = r->df[a] != 0.0f ? 1.0 / (double)r->df[a] : 0.0;
  }
  r->t0 = t0;
  r->t1 = t1;
  return 1;
}

/*
 * REFINE's depth hint: a ray of a refinement pass (cavr_refine_mask's levels, after the pilot)
 * starts CAVR_REFINE_HINT_STEPS samples before the nearest first visible sample of the pilot rays at its cell's
 * four corners (CAVR_REFINE_CELL pixels apart; the pilot's rayFirst, as p->rayHint), skipping what lies in front:
 * the empty-space walk and the transparent samples before the surface, which those rays spend most of their
 * macro-cell steps on. Returns that lattice index (samples at k * step .. (k + 1) * step of ray distance), or
 * LONG_MIN where no corner saw anything (or the index is outside the casters' range).
 * Not exact: a feature nearer than every corner's first visible sample and narrower than the corners' spacing is
 * missed at that ray (as the interpolation from the corners misses it at the pixels without rays). Measured on the
 * four volumes of docs/history/benchmarks-2026-11.md ("REFINE's depth hint"): the same frame 5-17% faster, +0.1..+0.8
 * dB at the same work; cast pixels that differ from the full frame's by more than 1/255: 1.4% on the CT shoulder
 * (isolated bright specks), 0.6% on the foot, none on cthead and colin27; wider neighbourhoods missed fewer and gave
 * back most of the gain. The passes that read the hints write none (the pilot's pass records them), so no line of them
 * moves between cores while they are read.
 */
#define CAVR_REFINE_HINT_STEPS 4
CAVR_ALWAYS_INLINE long cavr_refine_hint_k(const Prep *p, size_t pix) {
  const int px = (int)(pix % (size_t)p->f.width), py = (int)(pix / (size_t)p->f.width);
  const int cx = p->refineCells[0], cy = p->refineCells[1];
  const int i = px / CAVR_REFINE_CELL < cx ? px / CAVR_REFINE_CELL : cx - 1;
  const int j = py / CAVR_REFINE_CELL < cy ? py / CAVR_REFINE_CELL : cy - 1;
  const size_t x0 = (size_t)cavr_refine_line(i, p->f.width), x1 = (size_t)cavr_refine_line(i + 1, p->f.width);
  const size_t y0 = (size_t)cavr_refine_line(j, p->f.height) * p->f.width, y1 = (size_t)cavr_refine_line(j + 1, p->f.height) * p->f.width;
  const float *f = p->rayHint;
  const float t = cavr_minf(cavr_minf(f[y0 + x0], f[y0 + x1]), cavr_minf(f[y1 + x0], f[y1 + x1]));
  const double k = floor((double)t / (double)p->f.step) - CAVR_REFINE_HINT_STEPS;
  /* +inf (nothing seen), NaN or out of the casters' range (the packets' lattice indices stay below 2^30): no hint */
  return k > -1073741824.0 && k < 1073741824.0 ? (long)k : LONG_MIN;
}

/* The composite march of a ray in lattice terms: segments k of [k step, (k+1) step]; kFull0..kFull1 lie wholly
   inside [t0, t1]. Sample positions are float offsets from the first lattice midpoint (the anchor), computed
   in double: pieces of a split volume agree to ~1e-6 voxels without per-sample double arithmetic. */
typedef struct CavrLattice {
  float ft0, ft1;
  long k0, kFull0, kFull1;
  long kBegin, kEnd;             /* with skipping: the segments that can meet a cell that may hold opacity */
  double mAnchor;
  float of[3];
} CavrLattice;

CAVR_ALWAYS_INLINE void cavr_lattice(const Prep *p, const CavrRay *r, CavrLattice *l) {
  const float step = p->f.step;
  l->ft0 = (float)r->t0;
  l->ft1 = (float)r->t1;
  l->k0 = (long)floorf(l->ft0 / step);
  l->kFull0 = (long)ceilf(l->ft0 / step);
  l->kFull1 = (long)floorf(l->ft1 / step) - 1;
  l->mAnchor = ((double)l->k0 + 0.5) * step;
  for (int a = 0; a < 3; ++a) l->of[a] = (float)(r->o[a] + l->mAnchor * r->d[a]);
  /* Empty-space skipping, first step: every sample outside the box of the cells that may hold opacity lies in a
     transparent cell, so the march starts and ends at that box (a segment early and late: the lattice, its
     anchor and the samples taken inside are those of the whole ray). */
  l->kBegin = l->k0;
  l->kEnd = LONG_MAX;
  if (p->rayHint) { /* REFINE's depth hint: start later, on the same lattice */
    const long kh = cavr_refine_hint_k(p, r->pix);
    if (kh > l->kBegin) l->kBegin = kh;
  }
  if (!p->f.skip) return;
  /* With the reciprocals of the float direction: within a few ulps of the box, which the segment of margin covers. */
  double tv0 = -INFINITY, tv1 = INFINITY;
  for (int a = 0; a < 3; ++a) {
    if (r->df[a] == 0.0f) {
      if (r->o[a] < p->visLo[a] || r->o[a] > p->visHi[a]) tv1 = -INFINITY;
      continue;
    }
    double ta = (p->visLo[a] - r->o[a]) * r->inv[a], tb = (p->visHi[a] - r->o[a]) * r->inv[a];
    if (ta > tb) {
      double t = ta;
      ta = tb;
      tb = t;
    }
    tv0 = cavr_fmax(tv0, ta);
    tv1 = cavr_fmin(tv1, tb);
  }
  if (!(tv0 < tv1)) { /* the ray meets no such cell: no sample */
    l->kEnd = l->kBegin - 1;
    return;
  }
  const double b = floor(tv0 / step) - 1.0, e = ceil(tv1 / step) + 1.0;
  if (b > (double)l->kBegin && b < 1e15) l->kBegin = (long)b;
  if (e < 1e15) l->kEnd = (long)e;
}

/* The scalar composite march of a ray that crosses the render box: premultiplied RGBA into out, the window
   depth of its first visible sample into *depth and its ray distance into *first (both left as they are when
   there is none). Each segment is clipped to [t0, t1], sampled at the midpoint of the whole lattice segment and
   its opacity corrected for the clipped length; empty-space skipping jumps only over whole segments whose
   midpoints lie in transparent macro cells. */
CAVR_ALWAYS_INLINE void cavr_composite_march(const Prep *p, int storage, int interp, const CavrRay *r, float out[4],
                                            float *depth, float *first, uint64_t *samples) {
  CavrLattice l;
  cavr_lattice(p, r, &l);
  const float step = p->f.step, ft0 = l.ft0, ft1 = l.ft1;
  const long k0 = l.k0, kFull0 = l.kFull0, kFull1 = l.kFull1;
  const double mAnchor = l.mAnchor;
  const float *of = l.of, *df = r->df;
  long k = l.kBegin;
  float A = 0.0f, C[3] = {0.0f, 0.0f, 0.0f};
  double visibleUntil = -1.0; /* the current macro cell is known visible for midpoints before this t */
  const double invStep = 1.0 / step;
  for (;;) {
    if (k > l.kEnd) break;
    float len = step;
    if (k < kFull0 || k > kFull1) {
      float ts = cavr_maxf((float)k * step, ft0), te = cavr_minf((float)(k + 1) * step, ft1);
      if (!(ts < te)) break;
      len = te - ts;
    }
    const float rel = (float)(k - k0) * step;
    const double md = mAnchor + rel;
    float v[3] = {of[0] + rel * df[0], of[1] + rel * df[1], of[2] + rel * df[2]};
    if (p->f.skip && md >= visibleUntil && cavr_inside_data(p, v)) {
      /* Entering a new macro cell: jump over it (or its block) if transparent, else remember where it ends. */
      int lo[3], hi[3];
      const int visible = cavr_skip_region(p, v, lo, hi);
      const double texit = cavr_region_exit(lo, hi, r->o, df, r->inv);
      if (!visible) {
        long kn = cavr_jump_target(texit, invStep);
        k = kn > k + 1 ? kn : k + 1;
        continue;
      }
      visibleUntil = (float)texit;
    }
    ++k;
    float s = cavr_sample(p, storage, interp, v[0], v[1], v[2]);
    ++*samples;
    float a, rgb[3];
    if (p->table2d) { /* the 2-D table (cavrSetTransferFunction2D) */
      a = cavr_tf2d_composite_sample(p, storage, interp, s, v, r->dw, len, rgb, samples);
      if (!(a > 0.0f)) continue;
    } else if (!cavr_tf1d_composite_sample(p, storage, interp, s, v, r->dw, len, rgb, &a, samples)) {
      continue;
    }
    if (A == 0.0f) {
      *depth = cavr_window_depth(p, r->nearW, r->dirW, (float)md);
      *first = (float)md;
    }
    float w = (1.0f - A) * a;
    C[0] += w * rgb[0];
    C[1] += w * rgb[1];
    C[2] += w * rgb[2];
    A += w;
    if (A >= p->f.ert) break;
  }
  out[0] = C[0];
  out[1] = C[1];
  out[2] = C[2];
  out[3] = A;
}

/* The pixels whose rays may reach the render box: the screen rectangle of its 8 projected corners, 2 pixels
   wider on every side (rays are computed to ~1e-12 of a pixel); the whole image when a corner is not in front of
   the eye. */
static inline void cavr_hit_rectangle(Prep *p) {
  p->hitX0 = p->hitY0 = 0;
  p->hitX1 = p->f.width - 1;
  p->hitY1 = p->f.height - 1;
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int c = 0; c < 8; ++c) {
    double w[3], clip[4];
    for (int a = 0; a < 3; ++a) w[a] = p->f.origin[a] + p->spacing[a] * ((c >> a & 1) ? p->f.boxHi[a] : p->f.boxLo[a]);
    for (int r = 0; r < 4; ++r) clip[r] = p->f.VP[r] * w[0] + p->f.VP[4 + r] * w[1] + p->f.VP[8 + r] * w[2] + p->f.VP[12 + r];
    if (!(clip[3] > 1e-9 * (fabs(clip[0]) + fabs(clip[1]) + fabs(clip[2])) && clip[3] > 0.0)) return;
    for (int a = 0; a < 2; ++a) {
      double ndc = clip[a] / clip[3];
      lo[a] = ndc < lo[a] ? ndc : lo[a];
      hi[a] = ndc > hi[a] ? ndc : hi[a];
    }
  }
  /* Pixel centre (px + 0.5) / W * 2 - 1 = ndc: px = (ndc + 1) W / 2 - 0.5. */
  const double size[2] = {p->f.width, p->f.height};
  double x0 = (lo[0] + 1.0) * 0.5 * size[0] - 2.5, x1 = (hi[0] + 1.0) * 0.5 * size[0] + 1.5;
  double y0 = (lo[1] + 1.0) * 0.5 * size[1] - 2.5, y1 = (hi[1] + 1.0) * 0.5 * size[1] + 1.5;
  if (!(x0 < 1e9 && x1 > -1e9 && y0 < 1e9 && y1 > -1e9)) return; /* not finite: keep every pixel */
  p->hitX0 = x0 > 0.0 ? (int)floor(x0) : 0;
  p->hitX1 = x1 < size[0] - 1 ? (int)ceil(x1) : p->f.width - 1;
  p->hitY0 = y0 > 0.0 ? (int)floor(y0) : 0;
  p->hitY1 = y1 < size[1] - 1 ? (int)ceil(y1) : p->f.height - 1;
}

/* Clamp and store a pixel's premultiplied RGBA (float and 8-bit) and its depth. */
CAVR_ALWAYS_INLINE void cavr_write_pixel(const Prep *p, size_t pix, const float out[4], float depth) {
  float v[4];
  unsigned char b[4];
  cavr_pixel_encode(out, v, b); /* core/shared/cavr_ray.h */
  for (int c = 0; c < 4; ++c) {
    p->rgbaf[4 * pix + c] = v[c];
    p->rgba8[4 * pix + c] = b[c];
  }
  p->depth[pix] = depth;
}

/* The work of one frame: 16x16-pixel tiles (or the ray list's tiles) handed out by an atomic counter. */
typedef struct CavrFrameWork {
  const Prep *prep;
  const CAVRRayList *list;
  int tileW, tileH;              /* pixels of a rectangle tile (a ray list's tiles are CAVR_RAY_TILE square) */
  int tilesX, tiles;
  atomic_int next;
} CavrFrameWork;

/* A worker's view of it: the pixels of its current tile, then of the next tile it takes. */
typedef struct CavrPixelQueue {
  CavrFrameWork *work;
  int x0, x1, y1, x, y;          /* rectangle tile: next pixel (x, y) */
  const uint32_t *list;          /* list tile: next n pixels */
  size_t n;
} CavrPixelQueue;

CAVR_ALWAYS_INLINE void cavr_queue_init(CavrPixelQueue *q, CavrFrameWork *w) {
  q->work = w;
  q->x0 = q->x1 = q->y1 = q->x = q->y = 0;
  q->list = NULL;
  q->n = 0;
}

/* Take a tile: returns 0 when the frame has none left. */
CAVR_ALWAYS_INLINE int cavr_queue_take_tile(CavrPixelQueue *q) {
  CavrFrameWork *w = q->work;
  for (;;) {
    int t = atomic_fetch_add(&w->next, 1);
    if (t >= w->tiles) return 0;
    if (w->list) {
      const uint32_t *start = w->list->tileStart;
      if (start[t + 1] == start[t]) continue;
      q->list = w->list->pixels + start[t];
      q->n = start[t + 1] - start[t];
      return 1;
    }
    q->x0 = q->x = (t % w->tilesX) * w->tileW;
    q->y = (t / w->tilesX) * w->tileH;
    q->x1 = q->x0 + w->tileW < w->prep->f.width ? q->x0 + w->tileW : w->prep->f.width;
    q->y1 = q->y + w->tileH < w->prep->f.height ? q->y + w->tileH : w->prep->f.height;
    return 1;
  }
}

/* The next pixel of the current tile: returns 0 when the tile is done. */
CAVR_ALWAYS_INLINE int cavr_queue_next_in_tile(CavrPixelQueue *q, int *px, int *py) {
  if (q->work->list) {
    if (q->n == 0) return 0;
    uint32_t i = *q->list++;
    --q->n;
    *px = (int)(i % (uint32_t)q->work->prep->f.width);
    *py = (int)(i / (uint32_t)q->work->prep->f.width);
    return 1;
  }
  if (q->y >= q->y1) return 0;
  *px = q->x;
  *py = q->y;
  if (++q->x >= q->x1) {
    q->x = q->x0;
    ++q->y;
  }
  return 1;
}

/* The next pixel, taking new tiles as needed: returns 0 when the frame is done. */
CAVR_ALWAYS_INLINE int cavr_queue_next(CavrPixelQueue *q, int *px, int *py) {
  while (!cavr_queue_next_in_tile(q, px, py))
    if (!cavr_queue_take_tile(q)) return 0;
  return 1;
}

/** Let composite frames use the packet caster (1, the default) or not (0: the scalar caster; for tests). */
void cavr_cpu_allow_packets(int allowed);
/** Let renders read the CPU device's padded copy of a volume (1, the default) or its own voxels (0; for tests). */
void cavr_cpu_allow_padded(int allowed);
/** A packet caster: casts every ray the queue hands out (composite blend); adds the samples taken and the rays
    that hit. */
typedef void (*CavrPacketWorker)(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays);
/** The packet caster for this frame on this CPU (cpu_packet.c): the widest allowed, or NULL (the scalar caster). */
CavrPacketWorker cavr_cpu_packet_caster(const Prep *p);
/** Cap the packets' width at `lanes` (16: AVX-512 where the CPU has it, 8: AVX2 at most, 0: none; for tests and
    benchmarks). Until called, the cap is CAVR_CPU_PACKET_LANES from the environment, else 8 (16 lanes measured no
    faster: cpu_packet.c). Thread-safe. */

/** The lanes a composite packet has on this CPU under the cap: 16 (AVX-512), 8 (AVX2 and FMA) or 0 (scalar). */
int cavr_cpu_packet_lanes(void);
/** Whether this CPU (and build) runs the 8-lane AVX2 caster (cpu_packet_avx2.c) and the 16-lane AVX-512 one
    (cpu_packet_avx512.c); their workers do nothing in a build without them. */
int cavr_cpu_packet_has8(void);
int cavr_cpu_packet_has16(void);
void cavr_cpu_packet_worker8(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays);
void cavr_cpu_packet_worker16(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays);

#endif /* CAVR_CPU_RAYCAST_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_packet_body.h - the composite CPU ray caster in packets of LANES rays, one per lane of a vector register
 * (packet ray casting), written once for every width. Included by cpu_packet_avx2.c (8 lanes) and cpu_packet_avx512.c
 * (16 lanes) after each defines what differs between the ISAs: LANES, VALIGN (bytes), VPFX (the intrinsics'
 * prefix, _mm256_ or _mm512_), the types VF (LANES floats), VI (LANES int32) and VM (a lane mask: a vector for
 * AVX2, a mask register for AVX-512), the operations whose intrinsics differ (masks, gathers, whole-register
 * integer loads), vx_transpose (LANES 4-float rows to 4 vectors) and PACKET_WORKER, the name of the worker this
 * body defines. The operations spelled alike in both ISAs are defined here from VPFX: each is one instruction,
 * IEEE single precision, round to nearest. Both files are compiled with -ffp-contract=off (core/CMakeLists.txt).
 *
 * Same image as the scalar caster, bit for bit, at every width: every lane does the scalar arithmetic of
 * cpu_raycast.h in the same order (a * b + c rounded twice, no FMA; clamps as max/min, equal to the scalar
 * comparisons for the finite values they see), and whatever is not per-sample work runs per lane through the
 * very same scalar helpers: the ray setup, the clipped first and last segments (length and opacity correction),
 * entering a macro cell (skip it or note where it ends), the depth of the first visible sample, the pixel write.
 *
 * Lanes are independent rays, each at its own sample: a lane whose ray ends (leaves the box, reaches the
 * early-termination opacity, or has nothing left but transparent cells) writes its pixel and takes the next
 * pixel of its worker's queue, across tile boundaries, so all lanes stay busy until the frame's last rays.
 *
 * Per sample and lane the vector loop does the position (float offset from the ray's double anchor), the
 * trilinear fetch (per lane one scalar load per corner row, which holds that row's x pair: 32 bits for 8- and
 * 16-bit voxels, 64 for float; then a transpose in registers: hardware gathers cost more on the machines
 * measured, docs/design.md), the transfer-function lookup (entries i0 and i0 + 1 of a lane are 8 adjacent
 * floats: two 4-float rows per lane, transposed), shading when asked (the 6 gradient fetches in the vector, the
 * Phong power per lane through powf), compositing and the early-termination test. Nearest interpolation
 * fetches one voxel per lane with a gather. For sparse rays (a compressive frame's ray list) the lines of the sample
 * CAVR_PREFETCH_AHEAD steps further along are prefetched before each fetch (prefetch_ahead). 8-bit trilinear
 * shading takes its gradient from 12 shared corner rows (gradient_u8_rows) where it can, in every frame.
 *
 * The scalar part of the march (lane_advance) runs when a lane reaches a clipped segment or the end of the
 * cells known to be visible: a vector compare of each lane's lattice index with its next check index.
 */
#include <limits.h>
#include <string.h>

#define INLINE CAVR_ALWAYS_INLINE
#define VCAT_(a, b) a##b
#define VCAT(a, b) VCAT_(a, b)
#define VOP(name) VCAT(VPFX, name) /* VOP(add_ps): _mm256_add_ps or _mm512_add_ps */

INLINE VF vf_set1(float v) { return VOP(set1_ps)(v); }
INLINE VF vf_zero(void) { return VOP(setzero_ps)(); }
INLINE VF vf_add(VF a, VF b) { return VOP(add_ps)(a, b); }
INLINE VF vf_sub(VF a, VF b) { return VOP(sub_ps)(a, b); }
INLINE VF vf_mul(VF a, VF b) { return VOP(mul_ps)(a, b); }
INLINE VF vf_div(VF a, VF b) { return VOP(div_ps)(a, b); }
INLINE VF vf_min(VF a, VF b) { return VOP(min_ps)(a, b); }
INLINE VF vf_max(VF a, VF b) { return VOP(max_ps)(a, b); }
INLINE VF vf_sqrt(VF a) { return VOP(sqrt_ps)(a); }
INLINE VF vf_from_vi(VI a) { return VOP(cvtepi32_ps)(a); }
INLINE VF vf_loadu(const float *p) { return VOP(loadu_ps)(p); }
INLINE VF vf_load(const float *p) { return VOP(load_ps)(p); }
INLINE void vf_storeu(float *p, VF a) { VOP(storeu_ps)(p, a); }
INLINE void vf_store(float *p, VF a) { VOP(store_ps)(p, a); }
INLINE VI vi_set1(int v) { return VOP(set1_epi32)(v); }
INLINE VI vi_add(VI a, VI b) { return VOP(add_epi32)(a, b); }
INLINE VI vi_sub(VI a, VI b) { return VOP(sub_epi32)(a, b); }
INLINE VI vi_mullo(VI a, VI b) { return VOP(mullo_epi32)(a, b); }
INLINE VI vi_min(VI a, VI b) { return VOP(min_epi32)(a, b); }
INLINE VI vi_srlv(VI a, VI n) { return VOP(srlv_epi32)(a, n); }
INLINE VI vi_trunc(VF a) { return VOP(cvttps_epi32)(a); }
#define vi_srli(a, n) VOP(srli_epi32)(a, n) /* immediate counts */
#define vi_slli(a, n) VOP(slli_epi32)(a, n)

#ifndef VX_OWN_ROWS4 /* a layer may bring its own (cpu_packet_avx512.c) */
/* Four dwords per lane, at byte offsets off[i] + d0..d3 of base, as 4 vectors (one per offset): scalar loads
   and a transpose (cheaper than 4 hardware gathers on the machines measured). */
INLINE void vx_rows4(const unsigned char *base, VI off, ptrdiff_t d0, ptrdiff_t d1, ptrdiff_t d2, ptrdiff_t d3, VI *r0,
                     VI *r1, VI *r2, VI *r3) {
  int32_t o[LANES] __attribute__((aligned(VALIGN)));
  vi_store(o, off);
  __m128 x[LANES];
  for (int i = 0; i < LANES; ++i) {
    const unsigned char *q = base + o[i];
    int32_t v0, v1, v2, v3;
    memcpy(&v0, q + d0, 4);
    memcpy(&v1, q + d1, 4);
    memcpy(&v2, q + d2, 4);
    memcpy(&v3, q + d3, 4);
    x[i] = _mm_castsi128_ps(_mm_setr_epi32(v0, v1, v2, v3));
  }
  VF f0, f1, f2, f3;
  vx_transpose(x, &f0, &f1, &f2, &f3);
  *r0 = vi_cast(f0);
  *r1 = vi_cast(f1);
  *r2 = vi_cast(f2);
  *r3 = vi_cast(f3);
}
#endif

/* The 8 trilinear corners of float voxels at voxel index b of each lane (strides sy, sz in voxels): per lane
   the x pair of each corner row (2 adjacent floats), two rows per 4-float vector, transposed. */
INLINE void vx_pairs_f32(const float *v, VI b, ptrdiff_t sy, ptrdiff_t sz, VF *c000, VF *c100, VF *c010, VF *c110,
                         VF *c001, VF *c101, VF *c011, VF *c111) {
  int32_t o[LANES] __attribute__((aligned(VALIGN)));
  vi_store(o, b);
  __m128 lo[LANES], hi[LANES];
  for (int i = 0; i < LANES; ++i) {
    const float *q = v + o[i];
    long long r0, r1, r2, r3; /* 2 floats each (4-byte aligned only: memcpy) */
    memcpy(&r0, q, 8);
    memcpy(&r1, q + sy, 8);
    memcpy(&r2, q + sz, 8);
    memcpy(&r3, q + sz + sy, 8);
    lo[i] = _mm_castsi128_ps(_mm_set_epi64x(r1, r0));
    hi[i] = _mm_castsi128_ps(_mm_set_epi64x(r3, r2));
  }
  vx_transpose(lo, c000, c100, c010, c110);
  vx_transpose(hi, c001, c101, c011, c111);
}

/* Transfer-function entries i0 and i0 + 1 of every lane (RGBA each), as 8 vectors: two 4-float rows per lane
   loaded and transposed in registers (8 gathers cost 4 times as much on the machines measured). */
INLINE void vx_tf_rows(const float *table, VI i0, VF *r0, VF *g0, VF *b0, VF *a0, VF *r1, VF *g1, VF *b1, VF *a1) {
  int32_t ix[LANES] __attribute__((aligned(VALIGN)));
  vi_store(ix, vi_slli(i0, 2));
  __m128 e0[LANES], e1[LANES];
  for (int i = 0; i < LANES; ++i) {
    e0[i] = _mm_loadu_ps(table + ix[i]);
    e1[i] = _mm_loadu_ps(table + ix[i] + 4);
  }
  vx_transpose(e0, r0, g0, b0, a0);
  vx_transpose(e1, r1, g1, b1, a1);
}

/* Broadcast constants of a frame. */
typedef struct Consts {
  VF maxX, maxY, maxZ;       /* maxCoord */
  VI dm2x, dm2y, dm2z;       /* dims - 2 (trilinear base clamps) */
  VI sy, sz, last4, last2;   /* strides (voxels); N - 4, N - 2 (nearest: last whole dword) */
  VF step, idxScale, idxBias, cm1;
  VI cm2;                    /* count - 2 */
  VF ert;
  const void *vox;
  const float *table;
  int syS, szS;              /* strides (voxels) */
} Consts;

/* Per-lane scalar state: the ray, its lattice and the bookkeeping the vector loop does not do. */
typedef struct Lane {
  CavrRay r;
  CavrLattice l;
  double visibleUntil;       /* the macro cell is known visible for midpoints before this t */
  float depth;
  float first;               /* ray distance of the first visible sample (+inf: none yet) */
  float len;                 /* length of the current (clipped) segment */
} Lane;

/* The lanes' vector state, spilled here when lanes change (a ray ends or a cell is entered). */
typedef struct Packet {
  int32_t k[LANES], kc[LANES], k0[LANES];
  float ofx[LANES], ofy[LANES], ofz[LANES], dfx[LANES], dfy[LANES], dfz[LANES];
  float dwx[LANES], dwy[LANES], dwz[LANES]; /* world ray direction (shading) */
  float A[LANES], Cr[LANES], Cg[LANES], Cb[LANES];
  float ns[LANES]; /* the ray's samples so far where p->raySamples asks for them (exact below 2^24) */
  Lane lane[LANES];
} Packet;

INLINE VF clampv(VF v, VF hi) { return vf_min(vf_max(v, vf_zero()), hi); }
INLINE VF lerpv(VF a, VF b, VF f) { return vf_add(a, vf_mul(f, vf_sub(b, a))); }

/* The stored value at (x, y, z) for every lane: cavr_sample's arithmetic. */
INLINE VF samplev(const Consts *c, int storage, int interp, VF x, VF y, VF z) {
  x = clampv(x, c->maxX);
  y = clampv(y, c->maxY);
  z = clampv(z, c->maxZ);
  if (interp == CAVR_INTERPOLATION_NEAREST) {
    const VF h = vf_set1(0.5f);
    VI ix = vi_trunc(vf_add(x, h)), iy = vi_trunc(vf_add(y, h)), iz = vi_trunc(vf_add(z, h));
    VI i = vi_add(vi_add(ix, vi_mullo(iy, c->sy)), vi_mullo(iz, c->sz));
    if (storage == CAVR_STORE_F32) return vf_gather4((const float *)c->vox, i);
    /* A dword ending at or before the last voxel, shifted down to voxel i. */
    if (storage == CAVR_STORE_U8) {
      VI j = vi_min(i, c->last4);
      VI g = vi_gather1(c->vox, j);
      g = vi_srlv(g, vi_slli(vi_sub(i, j), 3));
      return vf_from_vi(vi_and(g, vi_set1(0xff)));
    }
    VI j = vi_min(i, c->last2);
    VI g = vi_gather2(c->vox, j);
    g = vi_srlv(g, vi_slli(vi_sub(i, j), 4));
    return vf_from_vi(vi_and(g, vi_set1(0xffff)));
  }
  VI ix = vi_min(vi_trunc(x), c->dm2x);
  VI iy = vi_min(vi_trunc(y), c->dm2y);
  VI iz = vi_min(vi_trunc(z), c->dm2z);
  VF fx = vf_sub(x, vf_from_vi(ix)), fy = vf_sub(y, vf_from_vi(iy)), fz = vf_sub(z, vf_from_vi(iz));
  VI b = vi_add(vi_add(ix, vi_mullo(iy, c->sy)), vi_mullo(iz, c->sz));
  VF c000, c100, c010, c110, c001, c101, c011, c111;
  if (storage == CAVR_STORE_U8) {
    /* One dword per corner row holds the x pair; the last row's is read 2 bytes early (never past the end). */
    const VI m = vi_set1(0xff);
    const ptrdiff_t sy = (ptrdiff_t)c->syS, sz = (ptrdiff_t)c->szS;
    VI g0, g1, g2, g3;
    vx_rows4((const unsigned char *)c->vox, b, 0, sy, sz, sy + sz - 2, &g0, &g1, &g2, &g3);
    c000 = vf_from_vi(vi_and(g0, m));
    c100 = vf_from_vi(vi_and(vi_srli(g0, 8), m));
    c010 = vf_from_vi(vi_and(g1, m));
    c110 = vf_from_vi(vi_and(vi_srli(g1, 8), m));
    c001 = vf_from_vi(vi_and(g2, m));
    c101 = vf_from_vi(vi_and(vi_srli(g2, 8), m));
    c011 = vf_from_vi(vi_and(vi_srli(g3, 16), m));
    c111 = vf_from_vi(vi_srli(g3, 24));
  } else if (storage == CAVR_STORE_U16) {
    const VI m = vi_set1(0xffff);
    const ptrdiff_t sy = 2 * (ptrdiff_t)c->syS, sz = 2 * (ptrdiff_t)c->szS;
    VI g0, g1, g2, g3;
    vx_rows4((const unsigned char *)c->vox, vi_add(b, b), 0, sy, sz, sy + sz, &g0, &g1, &g2, &g3);
    c000 = vf_from_vi(vi_and(g0, m));
    c100 = vf_from_vi(vi_srli(g0, 16));
    c010 = vf_from_vi(vi_and(g1, m));
    c110 = vf_from_vi(vi_srli(g1, 16));
    c001 = vf_from_vi(vi_and(g2, m));
    c101 = vf_from_vi(vi_srli(g2, 16));
    c011 = vf_from_vi(vi_and(g3, m));
    c111 = vf_from_vi(vi_srli(g3, 16));
  } else {
    /* Per lane the x pair of each corner row (2 floats, adjacent), transposed. */
    vx_pairs_f32((const float *)c->vox, b, (ptrdiff_t)c->syS, (ptrdiff_t)c->szS, &c000, &c100, &c010, &c110, &c001,
                 &c101, &c011, &c111);
  }
  VF c00 = lerpv(c000, c100, fx), c10 = lerpv(c010, c110, fx);
  VF c01 = lerpv(c001, c101, fx), c11 = lerpv(c011, c111, fx);
  VF c0 = lerpv(c00, c10, fy), c1 = lerpv(c01, c11, fy);
  return lerpv(c0, c1, fz);
}

/*
 * Software prefetch for sparse rays: the cache lines each lane's trilinear fetch will read CAVR_PREFETCH_AHEAD
 * lattice steps ahead (the 4 corner rows' x pairs; one voxel for nearest), at (x, y, z) + (ax, ay, az), clamped into
 * the data. A compressive frame's rays (a ray list over at most half the pixels: REFINE's passes, the shuffled
 * masks) no longer have neighbours that bring those lines into the cache, and each step's 8 lanes x 4 rows of
 * loads, transposes and table lookups fill the out-of-order window before the next step's misses issue: on the
 * 118 MB CT shoulder they spent 1.5-1.9x a full frame's time per sample; prefetched about the same as a full frame
 * (docs/history/benchmarks-2026-11.md, 2026-11-25; 2 to 6 steps ahead within 3%, 4 best). Full frames do not prefetch:
 * their neighbouring rays share the lines, and on the CT's axis-aligned 1024^2 views the prefetch cost 1-5% (it gained
 * 10-15% on the oblique (-60, 30) view at 512^2). Shaded sparse frames (grad) also prefetch the 8 further rows of the
 * gradient's 6 fetches: shaded REFINE at 25%, 512^2, 1 thread CPU time, 0.42-0.43 -> 0.36-0.38x on the CT shoulder,
 * 0.39-0.42 -> 0.36-0.38x on colin27, 0.34 -> 0.32x on the foot, cthead within noise (its 6.5 MB stay in the L3); full
 * frames' code is unchanged (an earlier try on every frame made the cthead full frame 2-3% slower). A prefetch never
 * faults and changes no value.
 */
#ifndef CAVR_PREFETCH_AHEAD
#define CAVR_PREFETCH_AHEAD 4
#endif
#ifndef CAVR_GRADIENT_ROWS
#define CAVR_GRADIENT_ROWS 1
#endif
INLINE void prefetch_ahead(const Consts *c, int storage, int interp, int grad, VF x, VF y, VF z, VF ax, VF ay,
                           VF az) {
  const VI ix = vi_trunc(clampv(vf_add(x, ax), c->maxX)), iy = vi_trunc(clampv(vf_add(y, ay), c->maxY)),
           iz = vi_trunc(clampv(vf_add(z, az), c->maxZ));
  const int shift = storage == CAVR_STORE_F32 ? 2 : storage == CAVR_STORE_U16 ? 1 : 0;
  int32_t o[LANES] __attribute__((aligned(VALIGN)));
  vi_store(o, vi_add(vi_add(ix, vi_mullo(iy, c->sy)), vi_mullo(iz, c->sz)));
  /* Integer addresses: the last rows' lines may lie past the voxels (a prefetch never faults; no pointer leaves its
     object). */
  const uintptr_t v = (uintptr_t)c->vox, sy = (uintptr_t)c->syS << shift, sz = (uintptr_t)c->szS << shift;
  for (int i = 0; i < LANES; ++i) {
    const uintptr_t q = v + ((uintptr_t)(uint32_t)o[i] << shift);
    __builtin_prefetch((const void *)q);
    if (interp == CAVR_INTERPOLATION_NEAREST) continue;
    __builtin_prefetch((const void *)(q + sy));
    __builtin_prefetch((const void *)(q + sz));
    __builtin_prefetch((const void *)(q + sy + sz));
  }
  if (!grad) return;
  /* A shaded sample's gradient (6 more trilinear fetches at +-1 voxel along each axis) reads 8 rows besides
     these: y - 1 and y + 2 in the planes z and z + 1, z - 1 and z + 2 in the rows y and y + 1 (x +- 1 stays on
     the same rows). Prefetched after the sample's own rows, in the same step. */
  for (int i = 0; i < LANES; ++i) {
    const uintptr_t q = v + ((uintptr_t)(uint32_t)o[i] << shift);
    if (interp == CAVR_INTERPOLATION_NEAREST) {
      __builtin_prefetch((const void *)(q - sy));
      __builtin_prefetch((const void *)(q + sy));
      __builtin_prefetch((const void *)(q - sz));
      __builtin_prefetch((const void *)(q + sz));
      continue;
    }
    __builtin_prefetch((const void *)(q - sy));
    __builtin_prefetch((const void *)(q + 2 * sy));
    __builtin_prefetch((const void *)(q + sz - sy));
    __builtin_prefetch((const void *)(q + sz + 2 * sy));
    __builtin_prefetch((const void *)(q - sz));
    __builtin_prefetch((const void *)(q - sz + sy));
    __builtin_prefetch((const void *)(q + 2 * sz));
    __builtin_prefetch((const void *)(q + 2 * sz + sy));
  }
}

/* md(k) = mAnchor + (float)(k - k0) * step: the double midpoint the scalar caster compares with visibleUntil. */
INLINE double midpoint(const Lane *L, float step, long k) { return L->l.mAnchor + (float)(k - L->l.k0) * step; }

/* The first lattice index after k whose midpoint reaches visibleUntil (md is non-decreasing in k). */
INLINE long first_k_reaching(const Lane *L, float step, double invStep, long k) {
  const double vu = L->visibleUntil;
  double est = (vu - L->l.mAnchor) * invStep + (double)L->l.k0;
  if (!(est < (double)(INT_MAX / 2))) return INT_MAX; /* not within reach (or infinite, or NaN) */
  long kk = (long)est;
  if (kk < k + 1) kk = k + 1;
  while (kk > k + 1 && midpoint(L, step, kk - 1) >= vu) --kk;
  while (midpoint(L, step, kk) < vu) ++kk;
  return kk;
}

INLINE int lane_skip_region(const Prep *p, const Lane *L, const float v[3], double *texit) {
  int lo[3], hi[3];
  const int visible = cavr_skip_region(p, v, lo, hi);
  *texit = cavr_region_exit(lo, hi, L->r.o, L->r.df, L->r.inv);
  return visible;
}

/*
 * The scalar part of the march for a lane at lattice index *k: what the scalar caster does before it samples.
 * Returns 1 with *k the segment to sample (its clipped length in L->len) and *kc the next index at which this
 * must run again (a clipped segment, or a midpoint past the known-visible cells); 0 when the ray has ended.
 * After a visible cell it looks ahead: the checks the scalar caster will make at the next cell entries (same
 * position, same visibleUntil, so the same answers) are made now while they find visible cells, up to 4.
 */
static int lane_advance(const Prep *p, Lane *L, long *k, int32_t *kc) {
  const float step = p->f.step;
  const double invStep = 1.0 / step;
  const CavrLattice *l = &L->l;
  const float *df = L->r.df;
  long kk = *k;
  for (;;) {
    if (kk > l->kEnd) return 0;
    float len = step;
    if (kk < l->kFull0 || kk > l->kFull1) {
      float ts = cavr_maxf((float)kk * step, l->ft0), te = cavr_minf((float)(kk + 1) * step, l->ft1);
      if (!(ts < te)) return 0;
      len = te - ts;
    }
    const float rel = (float)(kk - l->k0) * step;
    const double md = l->mAnchor + rel;
    float v[3] = {l->of[0] + rel * df[0], l->of[1] + rel * df[1], l->of[2] + rel * df[2]};
    long kv = INT_MAX;
    if (p->f.skip) {
      if (md >= L->visibleUntil) {
        if (!cavr_inside_data(p, v)) {
          kv = kk + 1; /* outside the data: the scalar caster checks again at the next sample */
        } else {
          double texit;
          if (!lane_skip_region(p, L, v, &texit)) {
            long kn = cavr_jump_target(texit, invStep);
            kk = kn > kk + 1 ? kn : kk + 1;
            continue;
          }
          L->visibleUntil = (float)texit;
          kv = first_k_reaching(L, step, invStep, kk);
          for (int ahead = 0; ahead < 4 && kv <= l->kFull1; ++ahead) {
            const float r2 = (float)(kv - l->k0) * step;
            const float v2[3] = {l->of[0] + r2 * df[0], l->of[1] + r2 * df[1], l->of[2] + r2 * df[2]};
            double t2;
            if (!cavr_inside_data(p, v2) || !lane_skip_region(p, L, v2, &t2)) break;
            L->visibleUntil = (float)t2;
            kv = first_k_reaching(L, step, invStep, kv);
          }
        }
      } else {
        kv = first_k_reaching(L, step, invStep, kk);
      }
    }
    L->len = len;
    *k = kk;
    const long lim = (l->kFull1 < l->kEnd ? l->kFull1 : l->kEnd) + 1; /* past the last whole segment, or the end */
    *kc = (int32_t)(kv < lim ? kv : lim);
    return 1;
  }
}

/*
 * Put the next ray of the queue that has a sample into lane i (rays that miss the box, or whose every
 * segment is skipped, are written here at once; a ray whose lattice indices do not fit the lanes' 32 bits
 * is cast by the scalar march). Returns 0 when the queue is empty: the lane stays idle.
 */
static int lane_start(const Prep *p, CavrPixelQueue *q, Packet *P, int i, uint64_t *samples, uint64_t *rays) {
  Lane *L = &P->lane[i];
  int px, py;
  while (cavr_queue_next(q, &px, &py)) {
    float out[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (p->raySamples) p->raySamples[(size_t)py * p->f.width + px] = 0;
    if (p->rayFirst) p->rayFirst[(size_t)py * p->f.width + px] = INFINITY;
    if (!cavr_ray_setup(p, px, py, &L->r)) {
      cavr_write_pixel(p, L->r.pix, out, 1.0f);
      continue;
    }
    ++*rays;
    cavr_lattice(p, &L->r, &L->l);
    if (!(L->l.k0 > -(1L << 30) && L->l.kFull1 < (1L << 30))) {
      float depth = 1.0f, first = INFINITY;
      const uint64_t before = *samples;
      cavr_composite_march(p, p->storage, p->f.interpolation, &L->r, out, &depth, &first, samples);
      if (p->raySamples) p->raySamples[L->r.pix] = (uint32_t)(*samples - before);
      if (p->rayFirst) p->rayFirst[L->r.pix] = first;
      cavr_write_pixel(p, L->r.pix, out, depth);
      continue;
    }
    L->visibleUntil = -1.0;
    L->depth = 1.0f;
    L->first = INFINITY;
    if (p->raySamples) P->ns[i] = 0.0f;
    long k = L->l.kBegin;
    int32_t kc;
    if (!lane_advance(p, L, &k, &kc)) {
      cavr_write_pixel(p, L->r.pix, out, 1.0f);
      continue;
    }
    P->k[i] = (int32_t)k;
    P->kc[i] = kc;
    P->k0[i] = (int32_t)L->l.k0;
    P->ofx[i] = L->l.of[0];
    P->ofy[i] = L->l.of[1];
    P->ofz[i] = L->l.of[2];
    P->dfx[i] = L->r.df[0];
    P->dfy[i] = L->r.df[1];
    P->dfz[i] = L->r.df[2];
    P->dwx[i] = L->r.dw[0];
    P->dwy[i] = L->r.dw[1];
    P->dwz[i] = L->r.dw[2];
    P->A[i] = P->Cr[i] = P->Cg[i] = P->Cb[i] = 0.0f;
    return 1;
  }
  /* Idle: a harmless position (voxel 0) that never reaches a check. */
  P->k[i] = P->k0[i] = 0;
  P->kc[i] = INT_MAX;
  P->ofx[i] = P->ofy[i] = P->ofz[i] = P->dfx[i] = P->dfy[i] = P->dfz[i] = 0.0f;
  P->dwx[i] = P->dwy[i] = P->dwz[i] = 0.0f;
  P->lane[i].len = p->f.step;
  P->A[i] = P->Cr[i] = P->Cg[i] = P->Cb[i] = 0.0f;
  return 0;
}

INLINE void lane_finish(const Prep *p, Packet *P, int i) {
  const float out[4] = {P->Cr[i], P->Cg[i], P->Cb[i], P->A[i]};
  if (p->rayFirst) p->rayFirst[P->lane[i].r.pix] = P->lane[i].first;
  cavr_write_pixel(p, P->lane[i].r.pix, out, P->lane[i].depth);
}

/* One gradient component: cavr_shade_sample's clamped central difference along an axis. */
INLINE VF gradient_axis(const Consts *c, int storage, int interp, VF x, VF y, VF z, int axis) {
  const VF one = vf_set1(1.0f), zero = vf_zero();
  const VF v = axis == 0 ? x : axis == 1 ? y : z;
  const VF hiLimit = axis == 0 ? c->maxX : axis == 1 ? c->maxY : c->maxZ;
  const VF lo = vf_max(vf_sub(v, one), zero), hi = vf_min(vf_add(v, one), hiLimit);
  VF sh, sl;
  if (axis == 0) {
    sh = samplev(c, storage, interp, hi, y, z);
    sl = samplev(c, storage, interp, lo, y, z);
  } else if (axis == 1) {
    sh = samplev(c, storage, interp, x, hi, z);
    sl = samplev(c, storage, interp, x, lo, z);
  } else {
    sh = samplev(c, storage, interp, x, y, hi);
    sl = samplev(c, storage, interp, x, y, lo);
  }
  const VF span = vf_sub(hi, lo);
  return vf_keep(vf_div(vf_sub(sh, sl), span), vf_gt(hi, lo));
}

/* samplev's trilinear arithmetic on 8-bit corners: rows r0 (y, z), r1 (y + 1, z), r2 (y, z + 1), r3 (y + 1, z + 1),
   each a dword whose bytes sh / 8 and sh / 8 + 1 hold the x pair. */
INLINE VF tri_u8(VI r0, VI r1, VI r2, VI r3, int sh, VF fx, VF fy, VF fz) {
  const VI m = vi_set1(0xff);
#define BYTE_(r, n) vf_from_vi(vi_and(vi_srli(r, n), m))
  VF c000 = BYTE_(r0, sh), c100 = BYTE_(r0, sh + 8), c010 = BYTE_(r1, sh), c110 = BYTE_(r1, sh + 8);
  VF c001 = BYTE_(r2, sh), c101 = BYTE_(r2, sh + 8), c011 = BYTE_(r3, sh), c111 = BYTE_(r3, sh + 8);
#undef BYTE_
  VF c00 = lerpv(c000, c100, fx), c10 = lerpv(c010, c110, fx);
  VF c01 = lerpv(c001, c101, fx), c11 = lerpv(c011, c111, fx);
  VF c0 = lerpv(c00, c10, fy), c1 = lerpv(c01, c11, fy);
  return lerpv(c0, c1, fz);
}

/*
 * Full and sparse frames. Shaded REFINE at 25%, 512^2, 1 thread CPU time, with the gradient prefetch, used in sparse
 * frames only: 0.37-0.38 -> 0.32-0.33x (CT shoulder), 0.33 -> 0.29-0.30x (foot), 0.39 -> 0.32x (cthead), 0.36-0.38
 * -> 0.30x (colin27); in full frames too, the shaded (-60, 30) 512^2 full frames are 5-12% faster (CT 395-405 ->
 * 354-361 ms, colin27 231 -> 203 ms, cthead 261 -> 231 ms) and the same ratios 0.30-0.37x: the same images either
 * way (test_cpu_packets; docs/history/benchmarks-2026-11.md).
 * The shading gradient of 8-bit trilinear data (gradient_axis for the 3 axes) from 12 corner rows instead of 24:
 * where, for every lane in vis, the 6 samples at +-1 voxel lie one cell from the sample's own cell on their axis
 * (no clamp, no rounding across a voxel), their corners are the bytes ix - 1 .. ix + 2 of the rows y - 1 .. y + 2
 * (in the planes z, z + 1) and z - 1 .. z + 2 (in the rows y, y + 1): one dword per row. Every lane's coordinates,
 * fractions and arithmetic are gradient_axis's and samplev's, so the values are the same bit for bit. Returns 0
 * (nothing written) when a lane in vis is not in that case: the caller then takes gradient_axis.
 */
INLINE int gradient_u8_rows(const Consts *c, int vis, VF x, VF y, VF z, VF *gx, VF *gy, VF *gz) {
  const VF one = vf_set1(1.0f), zero = vf_zero();
  const VI onei = vi_set1(1);
  /* The sample's own coordinates (samplev's clamps). */
  const VF xc = clampv(x, c->maxX), yc = clampv(y, c->maxY), zc = clampv(z, c->maxZ);
  const VI ix = vi_min(vi_trunc(xc), c->dm2x), iy = vi_min(vi_trunc(yc), c->dm2y), iz = vi_min(vi_trunc(zc), c->dm2z);
  /* gradient_axis's +-1 coordinates, then samplev's clamps. */
  const VF xh = clampv(vf_min(vf_add(x, one), c->maxX), c->maxX), xl = clampv(vf_max(vf_sub(x, one), zero), c->maxX);
  const VF yh = clampv(vf_min(vf_add(y, one), c->maxY), c->maxY), yl = clampv(vf_max(vf_sub(y, one), zero), c->maxY);
  const VF zh = clampv(vf_min(vf_add(z, one), c->maxZ), c->maxZ), zl = clampv(vf_max(vf_sub(z, one), zero), c->maxZ);
  const VI ixh = vi_min(vi_trunc(xh), c->dm2x), ixl = vi_min(vi_trunc(xl), c->dm2x);
  const VI iyh = vi_min(vi_trunc(yh), c->dm2y), iyl = vi_min(vi_trunc(yl), c->dm2y);
  const VI izh = vi_min(vi_trunc(zh), c->dm2z), izl = vi_min(vi_trunc(zl), c->dm2z);
  /* Each difference must be exactly 1: > 0 and not > 1. */
  const VI d[6] = {vi_sub(ixh, ix), vi_sub(ix, ixl), vi_sub(iyh, iy), vi_sub(iy, iyl), vi_sub(izh, iz), vi_sub(iz, izl)};
  int ok = vis;
  for (int a = 0; a < 6; ++a) ok &= vm_bits(vi_gt(d[a], vi_set1(0))) & ~vm_bits(vi_gt(d[a], onei));
  if (ok != vis || !vis) return 0;
  const int safe = __builtin_ctz((unsigned)vis);
  const ptrdiff_t sy = (ptrdiff_t)c->syS, sz = (ptrdiff_t)c->szS;
  /* Byte offset of voxel (ix - 1, iy, iz): inside the data for every lane in vis (ix >= 1, iy - 1 >= 0, ...). */
  /* Lanes outside vis read lane `safe`'s rows (their own may lie outside the data). */
  int32_t o[LANES] __attribute__((aligned(VALIGN)));
  vi_store(o, vi_add(vi_add(vi_sub(ix, onei), vi_mullo(iy, c->sy)), vi_mullo(iz, c->sz)));
  for (int i = 0; i < LANES; ++i)
    if (!(vis >> i & 1)) o[i] = o[safe];
  const VI b = vi_loadu(o);
  const unsigned char *v = (const unsigned char *)c->vox;
  VI C00, C10, C01, C11, Ym0, Y20, Ym1, Y21, Z0m, Z1m, Z02, Z12; /* row (dy, dz): C, or Y / Z for the extra rows */
  vx_rows4(v, b, 0, sy, sz, sy + sz, &C00, &C10, &C01, &C11);
  vx_rows4(v, b, -sy, 2 * sy, sz - sy, sz + 2 * sy, &Ym0, &Y20, &Ym1, &Y21);
  vx_rows4(v, b, -sz, sy - sz, 2 * sz, sy + 2 * sz, &Z0m, &Z1m, &Z02, &Z12);
  /* samplev's fractions of each sample. */
  const VF fx = vf_sub(xc, vf_from_vi(ix)), fy = vf_sub(yc, vf_from_vi(iy)), fz = vf_sub(zc, vf_from_vi(iz));
  const VF fxh = vf_sub(xh, vf_from_vi(ixh)), fxl = vf_sub(xl, vf_from_vi(ixl));
  const VF fyh = vf_sub(yh, vf_from_vi(iyh)), fyl = vf_sub(yl, vf_from_vi(iyl));
  const VF fzh = vf_sub(zh, vf_from_vi(izh)), fzl = vf_sub(zl, vf_from_vi(izl));
  /* x: the pairs at ix + 1 (bytes 2, 3) and ix - 1 (bytes 0, 1) of the sample's rows. */
  const VF sxh = tri_u8(C00, C10, C01, C11, 16, fxh, fy, fz), sxl = tri_u8(C00, C10, C01, C11, 0, fxl, fy, fz);
  /* y: rows y + 1, y + 2 and y - 1, y at the pair ix (bytes 1, 2). */
  const VF syh = tri_u8(C10, Y20, C11, Y21, 8, fx, fyh, fz), syl = tri_u8(Ym0, C00, Ym1, C01, 8, fx, fyl, fz);
  /* z: planes z + 1, z + 2 and z - 1, z. */
  const VF szh = tri_u8(C01, C11, Z02, Z12, 8, fx, fy, fzh), szl = tri_u8(Z0m, Z1m, C00, C10, 8, fx, fy, fzl);
  /* gradient_axis's span and quotient (hi, lo before samplev's clamps: the same values, they are in range). */
  const VF hx = vf_min(vf_add(x, one), c->maxX), lx = vf_max(vf_sub(x, one), zero);
  const VF hy = vf_min(vf_add(y, one), c->maxY), ly = vf_max(vf_sub(y, one), zero);
  const VF hz = vf_min(vf_add(z, one), c->maxZ), lz = vf_max(vf_sub(z, one), zero);
  *gx = vf_keep(vf_div(vf_sub(sxh, sxl), vf_sub(hx, lx)), vf_gt(hx, lx));
  *gy = vf_keep(vf_div(vf_sub(syh, syl), vf_sub(hy, ly)), vf_gt(hy, ly));
  *gz = vf_keep(vf_div(vf_sub(szh, szl), vf_sub(hz, lz)), vf_gt(hz, lz));
  return 1;
}

/* The frame's constants broadcast to every lane. */
INLINE void consts_init(const Prep *p, Consts *cp) {
  Consts c;
  c.maxX = vf_set1(p->f.maxCoord[0]);
  c.maxY = vf_set1(p->f.maxCoord[1]);
  c.maxZ = vf_set1(p->f.maxCoord[2]);
  c.dm2x = vi_set1(p->dims[0] - 2);
  c.dm2y = vi_set1(p->dims[1] - 2);
  c.dm2z = vi_set1(p->dims[2] - 2);
  c.sy = vi_set1((int)p->sy);
  c.sz = vi_set1((int)p->sz);
  const int nvox = (int)(p->sz * (size_t)p->dims[2]);
  c.last4 = vi_set1(nvox - 4);
  c.last2 = vi_set1(nvox - 2);
  c.step = vf_set1(p->f.step);
  c.idxScale = vf_set1(p->f.idxScale);
  c.idxBias = vf_set1(p->f.idxBias);
  c.cm1 = vf_set1((float)(p->f.count - 1));
  c.cm2 = vi_set1(p->f.count - 2);
  c.ert = vf_set1(p->f.ert);
  c.vox = p->voxels;
  c.syS = (int)p->sy;
  c.szS = (int)p->sz;
  c.table = p->table;
  *cp = c;
}

/*
 * The world gradients (gx, gy, gz) of the visible lanes (vis) at (x, y, z): gradient_u8_rows where it applies, else
 * gradient_axis per axis, to world units (the scalar caster's cavr_world_gradient, bit for bit).
 */
INLINE void gradient_lanes(const Prep *p, const Consts *c, int storage, int interp, int vis, VF x, VF y, VF z,
                           VF *pgx, VF *pgy, VF *pgz) {
  VF g0, g1, g2;
  if (CAVR_GRADIENT_ROWS && storage == CAVR_STORE_U8 && interp == CAVR_INTERPOLATION_TRILINEAR &&
      gradient_u8_rows(c, vis, x, y, z, &g0, &g1, &g2)) {
    *pgx = vf_mul(g0, vf_set1((float)p->f.invSpacing[0]));
    *pgy = vf_mul(g1, vf_set1((float)p->f.invSpacing[1]));
    *pgz = vf_mul(g2, vf_set1((float)p->f.invSpacing[2]));
  } else {
    *pgx = vf_mul(gradient_axis(c, storage, interp, x, y, z, 0), vf_set1((float)p->f.invSpacing[0]));
    *pgy = vf_mul(gradient_axis(c, storage, interp, x, y, z, 1), vf_set1((float)p->f.invSpacing[1]));
    *pgz = vf_mul(gradient_axis(c, storage, interp, x, y, z, 2), vf_set1((float)p->f.invSpacing[2]));
  }
}

/* Opacities a of the visible lanes (vis) times their gradient-opacity factors (cavr_gradient_opacity,
   core/shared/cavr_ray.h, per lane: the scalar caster's arithmetic); the other lanes' left as they are. */
INLINE VF gradient_opacity_lanes(const Prep *p, int vis, VF gx, VF gy, VF gz, VF a) {
  float v[4][LANES] __attribute__((aligned(VALIGN)));
  vf_store(v[0], gx);
  vf_store(v[1], gy);
  vf_store(v[2], gz);
  vf_store(v[3], a);
  for (int i = 0; i < LANES; ++i)
    if (vis >> i & 1) {
      const float gl[3] = {v[0][i], v[1][i], v[2][i]};
      v[3][i] *= cavr_gradient_opacity(&p->f, gl);
    }
  return vf_load(v[3]);
}

/* The lanes (of live) whose stored value s may be visible under the 2-D table whatever the gradient
   (cavr_tf2d_may_show, core/shared/cavr_ray.h, per lane). */
INLINE int tf2d_may_show_lanes(const Prep *p, int live, VF s) {
  float v[LANES] __attribute__((aligned(VALIGN)));
  vf_store(v, s);
  int bits = 0;
  for (int i = 0; i < LANES; ++i)
    if ((live >> i & 1) && cavr_tf2d_may_show(&p->f, p->table2d, v[i])) bits |= 1 << i;
  return bits;
}

/* The 2-D table's colour (r, g, b) and opacity (a) of the visible lanes (vis) at stored values s and world gradients
   (gx, gy, gz), the opacity of the lanes in `clipped` then corrected for their segment's length, per lane as the
   scalar caster's cavr_tf2d_composite_sample (cavr_tf2d_sample, cavr_clipped_opacity); the other lanes' left as
   they are. */
INLINE void tf2d_lanes(const Prep *p, const Packet *P, int vis, int clipped, VF s, VF gx, VF gy, VF gz, VF *pa, VF *pr,
                       VF *pg, VF *pb) {
  float v[8][LANES] __attribute__((aligned(VALIGN)));
  vf_store(v[0], s);
  vf_store(v[1], gx);
  vf_store(v[2], gy);
  vf_store(v[3], gz);
  vf_store(v[4], *pa);
  vf_store(v[5], *pr);
  vf_store(v[6], *pg);
  vf_store(v[7], *pb);
  for (int i = 0; i < LANES; ++i)
    if (vis >> i & 1) {
      const float gl[3] = {v[1][i], v[2][i], v[3][i]};
      float rgb[3];
      float a = cavr_tf2d_sample(&p->f, p->table2d, v[0][i], gl, rgb);
      if (a > 0.0f && (clipped >> i & 1) && p->f.correction) a = cavr_clipped_opacity(a, P->lane[i].len / p->f.step);
      v[4][i] = a;
      v[5][i] = rgb[0];
      v[6][i] = rgb[1];
      v[7][i] = rgb[2];
    }
  *pa = vf_load(v[4]);
  *pr = vf_load(v[5]);
  *pg = vf_load(v[6]);
  *pb = vf_load(v[7]);
}

/*
 * Shade the colours r, g, b of the visible lanes (vis) from their world gradients (gx, gy, gz: gradient_lanes):
 * cavrSetRenderLights' lights per visible lane through cavr_lighting_apply, or the headlight in the vector
 * (cavr_headlight's arithmetic, the specular power per lane through cavr_specular).
 */
INLINE void shade_lanes(const Prep *p, const Packet *P, int vis, VF gx, VF gy, VF gz, VF *pr, VF *pg, VF *pb) {
  const VF zero = vf_zero(), one = vf_set1(1.0f);
  VF r = *pr, g = *pg, b = *pb;
  if (p->f.light.count) { /* cavrSetRenderLights: the scalar caster's cavr_lighting_apply per visible lane */
    float v[6][LANES] __attribute__((aligned(VALIGN)));
    vf_store(v[0], gx);
    vf_store(v[1], gy);
    vf_store(v[2], gz);
    vf_store(v[3], r);
    vf_store(v[4], g);
    vf_store(v[5], b);
    for (int i = 0; i < LANES; ++i)
      if (vis >> i & 1) {
        const float gl[3] = {v[0][i], v[1][i], v[2][i]};
        float c3[3] = {v[3][i], v[4][i], v[5][i]};
        cavr_lighting_apply(&p->f.light, gl, c3);
        v[3][i] = c3[0];
        v[4][i] = c3[1];
        v[5][i] = c3[2];
      }
    *pr = vf_load(v[3]);
    *pg = vf_load(v[4]);
    *pb = vf_load(v[5]);
    return;
  }
  const VF len2 = vf_add(vf_add(vf_mul(gx, gx), vf_mul(gy, gy)), vf_mul(gz, gz));
  const VF dwx = vf_loadu(P->dwx), dwy = vf_loadu(P->dwy), dwz = vf_loadu(P->dwz);
  const VF dot = vf_add(vf_add(vf_mul(gx, dwx), vf_mul(gy, dwy)), vf_mul(gz, dwz));
  const VF ndotl = vf_keep(vf_div(vf_abs(dot), vf_sqrt(len2)), vf_gt(len2, vf_set1(p->f.light.gradientFloor2)));
  const VF diff = vf_add(vf_set1(p->f.ka), vf_mul(vf_set1(p->f.kd), ndotl));
  VF spec = zero;
  if (p->f.ks > 0.0f) {
    float nl[LANES] __attribute__((aligned(VALIGN))), sp[LANES] __attribute__((aligned(VALIGN)));
    vf_store(nl, ndotl);
    for (int i = 0; i < LANES; ++i) sp[i] = (vis >> i & 1) ? cavr_specular(p->f.ks, p->f.kp, nl[i]) : 0.0f;
    spec = vf_load(sp);
  }
  *pr = vf_min(vf_add(vf_mul(r, diff), spec), one);
  *pg = vf_min(vf_add(vf_mul(g, diff), spec), one);
  *pb = vf_min(vf_add(vf_mul(b, diff), spec), one);
}

/* The march, for one storage and interpolation, with or without prefetch_ahead (constants: the compiler drops the
   other branches). Sparse frames (prefetch) also count each ray's samples where p->raySamples asks for them. */
INLINE void packet_march(CavrPixelQueue *q, uint64_t *samplesOut, uint64_t *raysOut, int storage, int interp,
                         int prefetch) {
  const Prep *p = q->work->prep;
  Consts c;
  consts_init(p, &c);
  const float step = p->f.step;
  const VF zero = vf_zero(), one = vf_set1(1.0f);
  const VI onei = vi_set1(1);
  const int record = prefetch && p->raySamples;

  uint64_t samples = 0, rays = 0;
  Packet P __attribute__((aligned(VALIGN)));
  int live = 0, clipped = 0; /* lanes with a ray; lanes whose next segment is clipped */
  for (int i = 0; i < LANES; ++i)
    if (lane_start(p, q, &P, i, &samples, &rays)) {
      live |= 1 << i;
      if (P.lane[i].len != step) clipped |= 1 << i;
    }

  while (live) {
    VI k = vi_loadu(P.k);
    const VI kc = vi_loadu(P.kc), k0 = vi_loadu(P.k0);
    const VF ofx = vf_loadu(P.ofx), ofy = vf_loadu(P.ofy), ofz = vf_loadu(P.ofz);
    const VF dfx = vf_loadu(P.dfx), dfy = vf_loadu(P.dfy), dfz = vf_loadu(P.dfz);
    VF A = vf_loadu(P.A), Cr = vf_loadu(P.Cr), Cg = vf_loadu(P.Cg), Cb = vf_loadu(P.Cb);
    /* prefetch_ahead's offset: CAVR_PREFETCH_AHEAD lattice steps along each lane's ray. */
    const VF ahead = vf_mul(vf_set1((float)CAVR_PREFETCH_AHEAD), c.step);
    const VF ax = vf_mul(ahead, dfx), ay = vf_mul(ahead, dfy), az = vf_mul(ahead, dfz);
    int done, check;
    VF ns = record ? vf_loadu(P.ns) : zero;
    for (;;) {
      /* Position: the float offset from the lane's anchor, as the scalar caster computes it. */
      const VF rel = vf_mul(vf_from_vi(vi_sub(k, k0)), c.step);
      const VF x = vf_add(ofx, vf_mul(rel, dfx)), y = vf_add(ofy, vf_mul(rel, dfy)), z = vf_add(ofz, vf_mul(rel, dfz));
      if (prefetch)
        prefetch_ahead(&c, storage, interp, p->f.shade || p->f.goCount || p->table2d, x, y, z, ax, ay, az);
      const VF s = samplev(&c, storage, interp, x, y, z);
      samples += (uint64_t)__builtin_popcount((unsigned)live);
      if (record) ns = vf_add(ns, one); /* idle lanes too: reset when they start a ray */
      /* Transfer function: index, weight, opacity; entries i0 and i0 + 1 of every lane (R, G, B, A of each). */
      const VF fi = clampv(vf_add(vf_mul(s, c.idxScale), c.idxBias), c.cm1);
      const VI i0 = vi_min(vi_trunc(fi), c.cm2);
      const VF f = vf_sub(fi, vf_from_vi(i0));
      VF r0, g0, b0, a0, r1, g1, b1, a1;
      vx_tf_rows(c.table, i0, &r0, &g0, &b0, &a0, &r1, &g1, &b1, &a1);
      VF a = lerpv(a0, a1, f);
      /* Visible: opacity > 0 before the clipped-length correction (which may round it to 0), as in the scalar caster.
         With a 2-D table: the lanes whose value may be visible at any gradient; its opacity comes with the gradient. */
      int vis = p->table2d ? tf2d_may_show_lanes(p, live, s) : live & vm_bits(vf_gt(a, zero));
      const int clippedHere = clipped;
      if (clipped && p->table2d) {
        clipped = 0; /* corrected after the 2-D look-up (tf2d_lanes) */
      } else if (clipped) {
        if (p->f.correction && (clipped & vis)) { /* per lane, through powf, as the scalar caster does */
          float av[LANES] __attribute__((aligned(VALIGN)));
          vf_store(av, a);
          for (int i = 0; i < LANES; ++i)
            if (clipped & vis & (1 << i))
              av[i] = cavr_clipped_opacity(av[i], P.lane[i].len / step); /* core/shared/cavr_ray.h */
          a = vf_load(av);
        }
        clipped = 0;
      }
      done = 0;
      if (vis) {
        VM vm = vm_from_bits(vis);
        VF r = lerpv(r0, r1, f), g = lerpv(g0, g1, f), b = lerpv(b0, b1, f);
        if (p->f.shade || p->f.goCount || p->table2d) { /* the gradient: shading, gradient opacity, 2-D table */
          samples += 6 * (uint64_t)__builtin_popcount((unsigned)vis);
          if (record) ns = vf_add(ns, vf_keep(vf_set1(6.0f), vm));
          VF gx, gy, gz;
          gradient_lanes(p, &c, storage, interp, vis, x, y, z, &gx, &gy, &gz);
          if (p->table2d) { /* colour and opacity from the 2-D table; lanes it makes transparent drop out */
            tf2d_lanes(p, &P, vis, clippedHere, s, gx, gy, gz, &a, &r, &g, &b);
            vis &= vm_bits(vf_gt(a, zero));
            vm = vm_from_bits(vis);
          }
          if (p->f.goCount) { /* lanes the factor makes transparent drop out, as the scalar caster skips them */
            a = gradient_opacity_lanes(p, vis, gx, gy, gz, a);
            vis &= vm_bits(vf_gt(a, zero));
            vm = vm_from_bits(vis);
          }
          if (p->f.shade) shade_lanes(p, &P, vis, gx, gy, gz, &r, &g, &b);
        }
        /* Depth of a ray's first visible sample. */
        const int first = vis & vm_bits(vf_eq(A, zero));
        if (first) {
          int32_t kv[LANES] __attribute__((aligned(VALIGN)));
          vi_store(kv, k);
          for (int i = 0; i < LANES; ++i)
            if (first >> i & 1) {
              Lane *L = &P.lane[i];
              L->first = (float)midpoint(L, step, kv[i]);
              L->depth = cavr_window_depth(p, L->r.nearW, L->r.dirW, L->first);
            }
        }
        const VF w = vf_mul(vf_sub(one, A), a);
        Cr = vf_blend(Cr, vf_add(Cr, vf_mul(w, r)), vm);
        Cg = vf_blend(Cg, vf_add(Cg, vf_mul(w, g)), vm);
        Cb = vf_blend(Cb, vf_add(Cb, vf_mul(w, b)), vm);
        A = vf_blend(A, vf_add(A, w), vm);
        done = vis & vm_bits(vf_ge(A, c.ert));
      }
      k = vi_add(k, onei);
      /* Lanes at a clipped segment or a macro-cell boundary: their scalar part runs before the next sample. */
      check = live & ~done & ~vm_bits(vi_gt(kc, k));
      if (done | check) break;
    }
    vi_storeu(P.k, k);
    vf_storeu(P.A, A);
    vf_storeu(P.Cr, Cr);
    vf_storeu(P.Cg, Cg);
    vf_storeu(P.Cb, Cb);
    if (record) vf_storeu(P.ns, ns);
    for (int i = 0; i < LANES; ++i) {
      const int bit = 1 << i;
      if (!((done | check) & bit)) continue;
      if (check & bit) {
        long kk = P.k[i];
        int32_t kcNew;
        if (lane_advance(p, &P.lane[i], &kk, &kcNew)) {
          P.k[i] = (int32_t)kk;
          P.kc[i] = kcNew;
          if (P.lane[i].len != step) clipped |= bit;
          continue;
        }
      }
      if (record) p->raySamples[P.lane[i].r.pix] = (uint32_t)P.ns[i];
      lane_finish(p, &P, i); /* early termination, or the end of the ray */
      if (lane_start(p, q, &P, i, &samples, &rays)) {
        if (P.lane[i].len != step) clipped |= bit;
      } else {
        live &= ~bit;
      }
    }
  }
  *samplesOut += samples;
  *raysOut += rays;
}

/* march_X (full frames) and sparse_X (prefetch_ahead) for one storage and interpolation. */
#define DEFINE_MARCH(X, STORAGE, INTERP)                                                                           \
  static void march_##X(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {                                   \
    packet_march(q, samples, rays, STORAGE, INTERP, 0);                                                            \
  }                                                                                                                \
  static void sparse_##X(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {                                  \
    packet_march(q, samples, rays, STORAGE, INTERP, 1);                                                            \
  }
DEFINE_MARCH(u8_nearest, CAVR_STORE_U8, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(u8_linear, CAVR_STORE_U8, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_MARCH(u16_nearest, CAVR_STORE_U16, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(u16_linear, CAVR_STORE_U16, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_MARCH(f32_nearest, CAVR_STORE_F32, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(f32_linear, CAVR_STORE_F32, CAVR_INTERPOLATION_TRILINEAR)

/* Sparse: a ray list over at most half the pixels (prefetch_ahead), or one whose rays' samples are asked for. */
void PACKET_WORKER(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {
  static void (*const fns[2][3][2])(CavrPixelQueue *, uint64_t *, uint64_t *) = {
      {{march_u8_nearest, march_u8_linear},
       {march_u16_nearest, march_u16_linear},
       {march_f32_nearest, march_f32_linear}},
      {{sparse_u8_nearest, sparse_u8_linear},
       {sparse_u16_nearest, sparse_u16_linear},
       {sparse_f32_nearest, sparse_f32_linear}}};
  const Prep *p = q->work->prep;
  const CAVRRayList *list = q->work->list;
  const int sparse = list && (2 * list->count <= (size_t)p->f.width * (size_t)p->f.height || p->raySamples);
  fns[sparse][p->storage][p->f.interpolation == CAVR_INTERPOLATION_TRILINEAR](q, samples, rays);
}

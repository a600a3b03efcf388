/*
 * cpu_packet_avx2.c - the composite CPU ray caster in packets of 8 rays, one per lane of an AVX2 register
 * (issue 13). Compiled with -mavx2 -mfma -ffp-contract=off (core/CMakeLists.txt) and entered only after
 * __builtin_cpu_supports says the CPU has both; elsewhere the scalar caster of cpu_backend.c runs.
 *
 * Same image as the scalar caster, bit for bit: every lane does the scalar arithmetic of cpu_raycast.h in the
 * same order (a * b + c rounded twice, no FMA; clamps as max/min, equal to the scalar comparisons for the
 * finite values they see), and whatever is not per-sample work runs per lane through the very same scalar
 * helpers: the ray setup, the clipped first and last segments (length and opacity correction), entering a
 * macro cell (skip it or note where it ends), the depth of the first visible sample, the pixel write.
 *
 * Lanes are independent rays, each at its own sample: a lane whose ray ends (leaves the box, reaches the
 * early-termination opacity, or has nothing left but transparent cells) writes its pixel and takes the next
 * pixel of its worker's queue, across tile boundaries, so all 8 lanes stay busy until the frame's last rays.
 *
 * Per sample and lane the vector loop does the position (float offset from the ray's double anchor), the
 * trilinear fetch (per lane one scalar load per corner row, which holds that row's x pair: 32 bits for 8- and
 * 16-bit voxels, 64 for float; then a transpose in registers: hardware gathers cost more on the machines
 * measured, docs/design.md), the transfer-function lookup (entries i0 and i0 + 1 of a lane are 8 adjacent
 * floats: two 4-float rows per lane, transposed), shading when asked (the 6 gradient fetches in the vector, the
 * Phong power per lane through powf), compositing and the early-termination test. Nearest interpolation
 * fetches one voxel per lane with a gather.
 *
 * The scalar part of the march (lane_advance) runs when a lane reaches a clipped segment or the end of the
 * cells known to be visible: a vector compare of each lane's lattice index with its next check index.
 */
#include "cpu_raycast.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <limits.h>
#include <string.h>

#define INLINE CAVR_ALWAYS_INLINE
#define LANES 8

int cavr_cpu_packet_usable(const Prep *p) {
  if (p->blend != CAVR_BLEND_COMPOSITE || p->interp == CAVR_INTERPOLATION_CUBIC) return 0; /* the scalar caster */
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
  /* Gathers take 32-bit indices (of voxels): the volume must have fewer than 2^31 - 8 voxels. */
  const double n = (double)p->sz * p->dims[2]; /* voxels in memory, padding included */
  return n < 2147483640.0 && p->count >= 2 && p->count < (1 << 28);
}

/* Broadcast constants of a frame. */
typedef struct Consts {
  __m256 maxX, maxY, maxZ;       /* maxCoord */
  __m256i dm2x, dm2y, dm2z;      /* dims - 2 (trilinear base clamps) */
  __m256i sy, sz, last4, last2;  /* strides (voxels); N - 4, N - 2 (nearest: last whole dword) */
  __m256 step, idxScale, idxBias, cm1;
  __m256i cm2;                   /* count - 2 */
  __m256 ert;
  const void *vox;
  const float *table;
  int syS, szS;                  /* strides (voxels) */
} Consts;

/* Per-lane scalar state: the ray, its lattice and the bookkeeping the vector loop does not do. */
typedef struct Lane {
  CavrRay r;
  CavrLattice l;
  double visibleUntil;           /* the macro cell is known visible for midpoints before this t */
  float depth;
  float len;                     /* length of the current (clipped) segment */
} Lane;

/* The lanes' vector state, spilled here when lanes change (a ray ends or a cell is entered). */
typedef struct Packet {
  int32_t k[LANES], kc[LANES], k0[LANES];
  float ofx[LANES], ofy[LANES], ofz[LANES], dfx[LANES], dfy[LANES], dfz[LANES];
  float dwx[LANES], dwy[LANES], dwz[LANES]; /* world ray direction (shading) */
  float A[LANES], Cr[LANES], Cg[LANES], Cb[LANES];
  Lane lane[LANES];
} Packet;

INLINE __m256 clampv(__m256 v, __m256 hi) { return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), hi); }
INLINE __m256 lerpv(__m256 a, __m256 b, __m256 f) { return _mm256_add_ps(a, _mm256_mul_ps(f, _mm256_sub_ps(b, a))); }

/* Four dwords per lane, at byte offsets off[i] + d0..d3 of base, as 4 vectors (one per offset): scalar loads
   and a transpose (cheaper than 4 hardware gathers on the machines measured). */
INLINE void load_rows(const unsigned char *base, __m256i off, ptrdiff_t d0, ptrdiff_t d1, ptrdiff_t d2, ptrdiff_t d3,
                      __m256i *r0, __m256i *r1, __m256i *r2, __m256i *r3) {
  int32_t o[LANES] __attribute__((aligned(32)));
  _mm256_store_si256((__m256i *)o, off);
  __m128i x[LANES];
  for (int i = 0; i < LANES; ++i) {
    const unsigned char *q = base + o[i];
    int32_t v0, v1, v2, v3;
    memcpy(&v0, q + d0, 4);
    memcpy(&v1, q + d1, 4);
    memcpy(&v2, q + d2, 4);
    memcpy(&v3, q + d3, 4);
    x[i] = _mm_setr_epi32(v0, v1, v2, v3);
  }
  const __m256 t0 = _mm256_castsi256_ps(_mm256_setr_m128i(x[0], x[4])), t1 = _mm256_castsi256_ps(_mm256_setr_m128i(x[1], x[5]));
  const __m256 t2 = _mm256_castsi256_ps(_mm256_setr_m128i(x[2], x[6])), t3 = _mm256_castsi256_ps(_mm256_setr_m128i(x[3], x[7]));
  const __m256 u0 = _mm256_unpacklo_ps(t0, t1), u1 = _mm256_unpackhi_ps(t0, t1);
  const __m256 u2 = _mm256_unpacklo_ps(t2, t3), u3 = _mm256_unpackhi_ps(t2, t3);
  *r0 = _mm256_castps_si256(_mm256_shuffle_ps(u0, u2, 0x44));
  *r1 = _mm256_castps_si256(_mm256_shuffle_ps(u0, u2, 0xEE));
  *r2 = _mm256_castps_si256(_mm256_shuffle_ps(u1, u3, 0x44));
  *r3 = _mm256_castps_si256(_mm256_shuffle_ps(u1, u3, 0xEE));
}

/* Four 4-float rows per 128-bit half (lane j low, lane j + 4 high) to 4 vectors of element 0..3 of each lane. */
INLINE void transpose_rows(__m256 t0, __m256 t1, __m256 t2, __m256 t3, __m256 *r, __m256 *g, __m256 *b, __m256 *a) {
  const __m256 u0 = _mm256_unpacklo_ps(t0, t1), u1 = _mm256_unpackhi_ps(t0, t1);
  const __m256 u2 = _mm256_unpacklo_ps(t2, t3), u3 = _mm256_unpackhi_ps(t2, t3);
  *r = _mm256_shuffle_ps(u0, u2, 0x44);
  *g = _mm256_shuffle_ps(u0, u2, 0xEE);
  *b = _mm256_shuffle_ps(u1, u3, 0x44);
  *a = _mm256_shuffle_ps(u1, u3, 0xEE);
}

/* The stored value at (x, y, z) for 8 lanes: cavr_sample's arithmetic. */
INLINE __m256 sample8(const Consts *c, int storage, int interp, __m256 x, __m256 y, __m256 z) {
  x = clampv(x, c->maxX);
  y = clampv(y, c->maxY);
  z = clampv(z, c->maxZ);
  if (interp == CAVR_INTERPOLATION_NEAREST) {
    const __m256 h = _mm256_set1_ps(0.5f);
    __m256i ix = _mm256_cvttps_epi32(_mm256_add_ps(x, h)), iy = _mm256_cvttps_epi32(_mm256_add_ps(y, h)),
            iz = _mm256_cvttps_epi32(_mm256_add_ps(z, h));
    __m256i i = _mm256_add_epi32(_mm256_add_epi32(ix, _mm256_mullo_epi32(iy, c->sy)), _mm256_mullo_epi32(iz, c->sz));
    if (storage == CAVR_STORE_F32) return _mm256_i32gather_ps((const float *)c->vox, i, 4);
    /* A dword ending at or before the last voxel, shifted down to voxel i. */
    if (storage == CAVR_STORE_U8) {
      __m256i j = _mm256_min_epi32(i, c->last4);
      __m256i g = _mm256_i32gather_epi32((const int *)c->vox, j, 1);
      g = _mm256_srlv_epi32(g, _mm256_slli_epi32(_mm256_sub_epi32(i, j), 3));
      return _mm256_cvtepi32_ps(_mm256_and_si256(g, _mm256_set1_epi32(0xff)));
    }
    __m256i j = _mm256_min_epi32(i, c->last2);
    __m256i g = _mm256_i32gather_epi32((const int *)c->vox, j, 2);
    g = _mm256_srlv_epi32(g, _mm256_slli_epi32(_mm256_sub_epi32(i, j), 4));
    return _mm256_cvtepi32_ps(_mm256_and_si256(g, _mm256_set1_epi32(0xffff)));
  }
  __m256i ix = _mm256_min_epi32(_mm256_cvttps_epi32(x), c->dm2x);
  __m256i iy = _mm256_min_epi32(_mm256_cvttps_epi32(y), c->dm2y);
  __m256i iz = _mm256_min_epi32(_mm256_cvttps_epi32(z), c->dm2z);
  __m256 fx = _mm256_sub_ps(x, _mm256_cvtepi32_ps(ix)), fy = _mm256_sub_ps(y, _mm256_cvtepi32_ps(iy)),
         fz = _mm256_sub_ps(z, _mm256_cvtepi32_ps(iz));
  __m256i b = _mm256_add_epi32(_mm256_add_epi32(ix, _mm256_mullo_epi32(iy, c->sy)), _mm256_mullo_epi32(iz, c->sz));
  __m256 c000, c100, c010, c110, c001, c101, c011, c111;
  if (storage == CAVR_STORE_U8) {
    /* One dword per corner row holds the x pair; the last row's is read 2 bytes early (never past the end). */
    const __m256i m = _mm256_set1_epi32(0xff);
    const ptrdiff_t sy = (ptrdiff_t)c->syS, sz = (ptrdiff_t)c->szS;
    __m256i g0, g1, g2, g3;
    load_rows((const unsigned char *)c->vox, b, 0, sy, sz, sy + sz - 2, &g0, &g1, &g2, &g3);
    c000 = _mm256_cvtepi32_ps(_mm256_and_si256(g0, m));
    c100 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g0, 8), m));
    c010 = _mm256_cvtepi32_ps(_mm256_and_si256(g1, m));
    c110 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g1, 8), m));
    c001 = _mm256_cvtepi32_ps(_mm256_and_si256(g2, m));
    c101 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g2, 8), m));
    c011 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(g3, 16), m));
    c111 = _mm256_cvtepi32_ps(_mm256_srli_epi32(g3, 24));
  } else if (storage == CAVR_STORE_U16) {
    const __m256i m = _mm256_set1_epi32(0xffff);
    const ptrdiff_t sy = 2 * (ptrdiff_t)c->syS, sz = 2 * (ptrdiff_t)c->szS;
    __m256i g0, g1, g2, g3;
    load_rows((const unsigned char *)c->vox, _mm256_add_epi32(b, b), 0, sy, sz, sy + sz, &g0, &g1, &g2, &g3);
    c000 = _mm256_cvtepi32_ps(_mm256_and_si256(g0, m));
    c100 = _mm256_cvtepi32_ps(_mm256_srli_epi32(g0, 16));
    c010 = _mm256_cvtepi32_ps(_mm256_and_si256(g1, m));
    c110 = _mm256_cvtepi32_ps(_mm256_srli_epi32(g1, 16));
    c001 = _mm256_cvtepi32_ps(_mm256_and_si256(g2, m));
    c101 = _mm256_cvtepi32_ps(_mm256_srli_epi32(g2, 16));
    c011 = _mm256_cvtepi32_ps(_mm256_and_si256(g3, m));
    c111 = _mm256_cvtepi32_ps(_mm256_srli_epi32(g3, 16));
  } else {
    /* Per lane the x pair of each corner row (2 floats, adjacent), two rows per 4-float vector, transposed. */
    const float *v = (const float *)c->vox;
    const ptrdiff_t sy = (ptrdiff_t)c->syS, sz = (ptrdiff_t)c->szS;
    int32_t o[LANES] __attribute__((aligned(32)));
    _mm256_store_si256((__m256i *)o, b);
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
    transpose_rows(_mm256_setr_m128(lo[0], lo[4]), _mm256_setr_m128(lo[1], lo[5]), _mm256_setr_m128(lo[2], lo[6]),
                   _mm256_setr_m128(lo[3], lo[7]), &c000, &c100, &c010, &c110);
    transpose_rows(_mm256_setr_m128(hi[0], hi[4]), _mm256_setr_m128(hi[1], hi[5]), _mm256_setr_m128(hi[2], hi[6]),
                   _mm256_setr_m128(hi[3], hi[7]), &c001, &c101, &c011, &c111);
  }
  __m256 c00 = lerpv(c000, c100, fx), c10 = lerpv(c010, c110, fx);
  __m256 c01 = lerpv(c001, c101, fx), c11 = lerpv(c011, c111, fx);
  __m256 c0 = lerpv(c00, c10, fy), c1 = lerpv(c01, c11, fy);
  return lerpv(c0, c1, fz);
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
  const float step = p->step;
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
    if (p->skip) {
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
    if (!cavr_ray_setup(p, px, py, &L->r)) {
      cavr_write_pixel(p, L->r.pix, out, 1.0f);
      continue;
    }
    ++*rays;
    cavr_lattice(p, &L->r, &L->l);
    if (!(L->l.k0 > -(1L << 30) && L->l.kFull1 < (1L << 30))) {
      float depth = 1.0f;
      cavr_composite_march(p, p->storage, p->interp, &L->r, out, &depth, samples);
      cavr_write_pixel(p, L->r.pix, out, depth);
      continue;
    }
    L->visibleUntil = -1.0;
    L->depth = 1.0f;
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
  P->lane[i].len = p->step;
  P->A[i] = P->Cr[i] = P->Cg[i] = P->Cb[i] = 0.0f;
  return 0;
}

INLINE void lane_finish(const Prep *p, Packet *P, int i) {
  const float out[4] = {P->Cr[i], P->Cg[i], P->Cb[i], P->A[i]};
  cavr_write_pixel(p, P->lane[i].r.pix, out, P->lane[i].depth);
}

INLINE __m256i mask_of(int bits) {
  const __m256i b = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(bits), b), b);
}

INLINE int movemask(__m256 m) { return _mm256_movemask_ps(m); }

/* Transfer-function entries i0 and i0 + 1 of 8 lanes, as 8 vectors (R, G, B, A of each): two 4-float rows per
   lane loaded and transposed in registers (8 gathers cost 4 times as much on the machines measured). */
typedef struct Entries {
  __m256 r0, g0, b0, a0, r1, g1, b1, a1;
} Entries;


INLINE void tf_entries(const float *table, __m256i i0, Entries *e) {
  int32_t ix[LANES] __attribute__((aligned(32)));
  _mm256_store_si256((__m256i *)ix, _mm256_slli_epi32(i0, 2));
  const float *q0 = table + ix[0], *q1 = table + ix[1], *q2 = table + ix[2], *q3 = table + ix[3];
  const float *q4 = table + ix[4], *q5 = table + ix[5], *q6 = table + ix[6], *q7 = table + ix[7];
  /* Row j holds lane j in its low half and lane j + 4 in its high half. */
  transpose_rows(_mm256_loadu2_m128(q4, q0), _mm256_loadu2_m128(q5, q1), _mm256_loadu2_m128(q6, q2),
                 _mm256_loadu2_m128(q7, q3), &e->r0, &e->g0, &e->b0, &e->a0);
  transpose_rows(_mm256_loadu2_m128(q4 + 4, q0 + 4), _mm256_loadu2_m128(q5 + 4, q1 + 4),
                 _mm256_loadu2_m128(q6 + 4, q2 + 4), _mm256_loadu2_m128(q7 + 4, q3 + 4), &e->r1, &e->g1, &e->b1,
                 &e->a1);
}

/* One gradient component: cavr_shade_sample's clamped central difference along an axis. */
INLINE __m256 gradient_axis(const Consts *c, int storage, int interp, __m256 x, __m256 y, __m256 z, int axis) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  const __m256 v = axis == 0 ? x : axis == 1 ? y : z;
  const __m256 hiLimit = axis == 0 ? c->maxX : axis == 1 ? c->maxY : c->maxZ;
  const __m256 lo = _mm256_max_ps(_mm256_sub_ps(v, one), zero), hi = _mm256_min_ps(_mm256_add_ps(v, one), hiLimit);
  __m256 sh, sl;
  if (axis == 0) {
    sh = sample8(c, storage, interp, hi, y, z);
    sl = sample8(c, storage, interp, lo, y, z);
  } else if (axis == 1) {
    sh = sample8(c, storage, interp, x, hi, z);
    sl = sample8(c, storage, interp, x, lo, z);
  } else {
    sh = sample8(c, storage, interp, x, y, hi);
    sl = sample8(c, storage, interp, x, y, lo);
  }
  const __m256 span = _mm256_sub_ps(hi, lo);
  return _mm256_and_ps(_mm256_div_ps(_mm256_sub_ps(sh, sl), span), _mm256_cmp_ps(hi, lo, _CMP_GT_OQ));
}

/* The march, for one storage and interpolation (constants: the compiler drops the other branches). */
INLINE void packet_march(CavrPixelQueue *q, uint64_t *samplesOut, uint64_t *raysOut, int storage, int interp) {
  const Prep *p = q->work->prep;
  Consts c;
  c.maxX = _mm256_set1_ps(p->maxCoord[0]);
  c.maxY = _mm256_set1_ps(p->maxCoord[1]);
  c.maxZ = _mm256_set1_ps(p->maxCoord[2]);
  c.dm2x = _mm256_set1_epi32(p->dims[0] - 2);
  c.dm2y = _mm256_set1_epi32(p->dims[1] - 2);
  c.dm2z = _mm256_set1_epi32(p->dims[2] - 2);
  c.sy = _mm256_set1_epi32((int)p->sy);
  c.sz = _mm256_set1_epi32((int)p->sz);
  const int nvox = (int)(p->sz * (size_t)p->dims[2]);
  c.last4 = _mm256_set1_epi32(nvox - 4);
  c.last2 = _mm256_set1_epi32(nvox - 2);
  c.step = _mm256_set1_ps(p->step);
  c.idxScale = _mm256_set1_ps(p->idxScale);
  c.idxBias = _mm256_set1_ps(p->idxBias);
  c.cm1 = _mm256_set1_ps((float)(p->count - 1));
  c.cm2 = _mm256_set1_epi32(p->count - 2);
  c.ert = _mm256_set1_ps(p->ert);
  c.vox = p->voxels;
  c.syS = (int)p->sy;
  c.szS = (int)p->sz;
  c.table = p->table;
  const float step = p->step;
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  const __m256i onei = _mm256_set1_epi32(1);

  uint64_t samples = 0, rays = 0;
  Packet P __attribute__((aligned(32)));
  int live = 0, clipped = 0; /* lanes with a ray; lanes whose next segment is clipped */
  for (int i = 0; i < LANES; ++i)
    if (lane_start(p, q, &P, i, &samples, &rays)) {
      live |= 1 << i;
      if (P.lane[i].len != step) clipped |= 1 << i;
    }

  while (live) {
    __m256i k = _mm256_loadu_si256((const __m256i *)P.k);
    const __m256i kc = _mm256_loadu_si256((const __m256i *)P.kc), k0 = _mm256_loadu_si256((const __m256i *)P.k0);
    const __m256 ofx = _mm256_loadu_ps(P.ofx), ofy = _mm256_loadu_ps(P.ofy), ofz = _mm256_loadu_ps(P.ofz);
    const __m256 dfx = _mm256_loadu_ps(P.dfx), dfy = _mm256_loadu_ps(P.dfy), dfz = _mm256_loadu_ps(P.dfz);
    __m256 A = _mm256_loadu_ps(P.A), Cr = _mm256_loadu_ps(P.Cr), Cg = _mm256_loadu_ps(P.Cg), Cb = _mm256_loadu_ps(P.Cb);
    int done, check;
    for (;;) {
      /* Position: the float offset from the lane's anchor, as the scalar caster computes it. */
      const __m256 rel = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(k, k0)), c.step);
      const __m256 x = _mm256_add_ps(ofx, _mm256_mul_ps(rel, dfx)), y = _mm256_add_ps(ofy, _mm256_mul_ps(rel, dfy)),
                   z = _mm256_add_ps(ofz, _mm256_mul_ps(rel, dfz));
      const __m256 s = sample8(&c, storage, interp, x, y, z);
      samples += (uint64_t)__builtin_popcount((unsigned)live);
      /* Transfer function: index, weight, opacity. */
      const __m256 fi = clampv(_mm256_add_ps(_mm256_mul_ps(s, c.idxScale), c.idxBias), c.cm1);
      const __m256i i0 = _mm256_min_epi32(_mm256_cvttps_epi32(fi), c.cm2);
      const __m256 f = _mm256_sub_ps(fi, _mm256_cvtepi32_ps(i0));
      Entries e;
      tf_entries(c.table, i0, &e);
      __m256 a = lerpv(e.a0, e.a1, f);
      /* Visible: opacity > 0 before the clipped-length correction (which may round it to 0), as in the scalar caster. */
      const int vis = live & movemask(_mm256_cmp_ps(a, zero, _CMP_GT_OQ));
      if (clipped) {
        if (p->correction && (clipped & vis)) { /* per lane, through powf, as the scalar caster does */
          float av[LANES] __attribute__((aligned(32)));
          _mm256_store_ps(av, a);
          for (int i = 0; i < LANES; ++i)
            if (clipped & vis & (1 << i))
              av[i] = av[i] >= 1.0f ? 1.0f : 1.0f - powf(1.0f - av[i], P.lane[i].len / step);
          a = _mm256_load_ps(av);
        }
        clipped = 0;
      }
      done = 0;
      if (vis) {
        const __m256 vm = _mm256_castsi256_ps(mask_of(vis));
        __m256 r = lerpv(e.r0, e.r1, f), g = lerpv(e.g0, e.g1, f), b = lerpv(e.b0, e.b1, f);
        if (p->shade) {
          samples += 6 * (uint64_t)__builtin_popcount((unsigned)vis);
          /* cavr_phong's arithmetic (its gradient floor too); the specular power per lane through powf. */
          const __m256 gx = _mm256_mul_ps(gradient_axis(&c, storage, interp, x, y, z, 0), _mm256_set1_ps((float)p->invSpacing[0]));
          const __m256 gy = _mm256_mul_ps(gradient_axis(&c, storage, interp, x, y, z, 1), _mm256_set1_ps((float)p->invSpacing[1]));
          const __m256 gz = _mm256_mul_ps(gradient_axis(&c, storage, interp, x, y, z, 2), _mm256_set1_ps((float)p->invSpacing[2]));
          if (p->light.count) { /* cavrSetRenderLights: the scalar caster's cavr_lighting_apply per visible lane */
            float v[6][LANES] __attribute__((aligned(32)));
            _mm256_store_ps(v[0], gx);
            _mm256_store_ps(v[1], gy);
            _mm256_store_ps(v[2], gz);
            _mm256_store_ps(v[3], r);
            _mm256_store_ps(v[4], g);
            _mm256_store_ps(v[5], b);
            for (int i = 0; i < LANES; ++i)
              if (vis >> i & 1) {
                const float gl[3] = {v[0][i], v[1][i], v[2][i]};
                float c3[3] = {v[3][i], v[4][i], v[5][i]};
                cavr_lighting_apply(&p->light, gl, c3);
                v[3][i] = c3[0];
                v[4][i] = c3[1];
                v[5][i] = c3[2];
              }
            r = _mm256_load_ps(v[3]);
            g = _mm256_load_ps(v[4]);
            b = _mm256_load_ps(v[5]);
          } else {
            const __m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(gx, gx), _mm256_mul_ps(gy, gy)), _mm256_mul_ps(gz, gz));
            const __m256 dwx = _mm256_loadu_ps(P.dwx), dwy = _mm256_loadu_ps(P.dwy), dwz = _mm256_loadu_ps(P.dwz);
            const __m256 dot = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(gx, dwx), _mm256_mul_ps(gy, dwy)), _mm256_mul_ps(gz, dwz));
            const __m256 absDot = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), dot);
            const __m256 ndotl = _mm256_and_ps(_mm256_div_ps(absDot, _mm256_sqrt_ps(len2)), _mm256_cmp_ps(len2, _mm256_set1_ps(p->light.gradientFloor2), _CMP_GT_OQ));
            const __m256 diff = _mm256_add_ps(_mm256_set1_ps(p->ka), _mm256_mul_ps(_mm256_set1_ps(p->kd), ndotl));
            __m256 spec = zero;
            if (p->ks > 0.0f) {
              float nl[LANES] __attribute__((aligned(32))), sp[LANES] __attribute__((aligned(32)));
              _mm256_store_ps(nl, ndotl);
              for (int i = 0; i < LANES; ++i) sp[i] = ((vis >> i & 1) && nl[i] > 0.0f) ? p->ks * powf(nl[i], p->kp) : 0.0f;
              spec = _mm256_load_ps(sp);
            }
            r = _mm256_min_ps(_mm256_add_ps(_mm256_mul_ps(r, diff), spec), one);
            g = _mm256_min_ps(_mm256_add_ps(_mm256_mul_ps(g, diff), spec), one);
            b = _mm256_min_ps(_mm256_add_ps(_mm256_mul_ps(b, diff), spec), one);
          }
        }
        /* Depth of a ray's first visible sample. */
        const int first = vis & movemask(_mm256_cmp_ps(A, zero, _CMP_EQ_OQ));
        if (first) {
          int32_t kv[LANES] __attribute__((aligned(32)));
          _mm256_store_si256((__m256i *)kv, k);
          for (int i = 0; i < LANES; ++i)
            if (first >> i & 1) {
              Lane *L = &P.lane[i];
              L->depth = cavr_window_depth(p, L->r.nearW, L->r.dirW, (float)midpoint(L, step, kv[i]));
            }
        }
        const __m256 w = _mm256_mul_ps(_mm256_sub_ps(one, A), a);
        Cr = _mm256_blendv_ps(Cr, _mm256_add_ps(Cr, _mm256_mul_ps(w, r)), vm);
        Cg = _mm256_blendv_ps(Cg, _mm256_add_ps(Cg, _mm256_mul_ps(w, g)), vm);
        Cb = _mm256_blendv_ps(Cb, _mm256_add_ps(Cb, _mm256_mul_ps(w, b)), vm);
        A = _mm256_blendv_ps(A, _mm256_add_ps(A, w), vm);
        done = vis & movemask(_mm256_cmp_ps(A, c.ert, _CMP_GE_OQ));
      }
      k = _mm256_add_epi32(k, onei);
      /* Lanes at a clipped segment or a macro-cell boundary: their scalar part runs before the next sample. */
      check = live & ~done & ~movemask(_mm256_castsi256_ps(_mm256_cmpgt_epi32(kc, k)));
      if (done | check) break;
    }
    _mm256_storeu_si256((__m256i *)P.k, k);
    _mm256_storeu_ps(P.A, A);
    _mm256_storeu_ps(P.Cr, Cr);
    _mm256_storeu_ps(P.Cg, Cg);
    _mm256_storeu_ps(P.Cb, Cb);
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

#define DEFINE_MARCH(NAME, STORAGE, INTERP)                                                                        \
  static void NAME(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {                                        \
    packet_march(q, samples, rays, STORAGE, INTERP);                                                               \
  }
DEFINE_MARCH(march_u8_nearest, CAVR_STORE_U8, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(march_u8_linear, CAVR_STORE_U8, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_MARCH(march_u16_nearest, CAVR_STORE_U16, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(march_u16_linear, CAVR_STORE_U16, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_MARCH(march_f32_nearest, CAVR_STORE_F32, CAVR_INTERPOLATION_NEAREST)
DEFINE_MARCH(march_f32_linear, CAVR_STORE_F32, CAVR_INTERPOLATION_TRILINEAR)

void cavr_cpu_packet_worker(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {
  static void (*const fns[3][2])(CavrPixelQueue *, uint64_t *, uint64_t *) = {
      {march_u8_nearest, march_u8_linear}, {march_u16_nearest, march_u16_linear}, {march_f32_nearest, march_f32_linear}};
  const Prep *p = q->work->prep;
  fns[p->storage][p->interp == CAVR_INTERPOLATION_TRILINEAR](q, samples, rays);
}

#else /* no AVX2 at compile time: the scalar caster does everything */

int cavr_cpu_packet_usable(const Prep *p) {
  (void)p;
  return 0;
}

void cavr_cpu_packet_worker(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {
  (void)q;
  (void)samples;
  (void)rays;
}

#endif

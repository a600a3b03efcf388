// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_packet_avx512.c - the composite CPU ray caster in packets of 16 rays, one per lane of an AVX-512 register
 * (packet ray casting): what AVX-512 spells its own way under cpu_packet_body.h, which holds the caster itself (the
 * same source as the 8-lane AVX2 caster, and the same image as the scalar caster bit for bit). AVX-512F instructions
 * only, lane masks in mask registers; compiled with -mavx512f -mavx2 -mfma -ffp-contract=off (core/CMakeLists.txt) and
 * entered only where __builtin_cpu_supports says the CPU (and the OS, for the zmm state) has all three; cpu_packet.c
 * chooses the width.
 */
#include "cpu_raycast.h"

#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <string.h>

#define LANES 16
#define VALIGN 64
#define VPFX _mm512_
#define PACKET_WORKER cavr_cpu_packet_worker16

typedef __m512 VF;
typedef __m512i VI;
typedef __mmask16 VM; /* bit i: lane i */

#define VL static inline __attribute__((always_inline))
VL VF vf_abs(VF a) { return _mm512_abs_ps(a); }
VL VF vf_gather4(const float *base, VI i) { return _mm512_i32gather_ps(i, base, 4); }
VL VM vf_gt(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
VL VM vf_ge(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
VL VM vf_eq(VF a, VF b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
VL VF vf_keep(VF a, VM m) { return _mm512_maskz_mov_ps(m, a); }          /* a where m, else 0 */
VL VF vf_blend(VF a, VF b, VM m) { return _mm512_mask_blend_ps(m, a, b); } /* b where m, else a */
VL VI vi_and(VI a, VI b) { return _mm512_and_si512(a, b); }
#ifndef CAVR_PACKET512_GATHER
VL VI vi_cast(VF a) { return _mm512_castps_si512(a); }
#endif
VL VI vi_loadu(const int32_t *p) { return _mm512_loadu_si512(p); }
VL void vi_storeu(int32_t *p, VI a) { _mm512_storeu_si512(p, a); }
VL void vi_store(int32_t *p, VI a) { _mm512_store_si512(p, a); }
VL VI vi_gather1(const void *base, VI i) { return _mm512_i32gather_epi32(i, base, 1); }
VL VI vi_gather2(const void *base, VI i) { return _mm512_i32gather_epi32(i, base, 2); }
VL VM vi_gt(VI a, VI b) { return _mm512_cmpgt_epi32_mask(a, b); }
VL int vm_bits(VM m) { return (int)m; }
VL VM vm_from_bits(int bits) { return (VM)bits; }

/* Four 128-bit rows as one vector: row j in 128-bit block j. */
VL __m512 join4(__m128 a, __m128 b, __m128 c, __m128 d) {
  return _mm512_insertf32x4(_mm512_insertf32x4(_mm512_insertf32x4(_mm512_castps128_ps512(a), b, 1), c, 2), d, 3);
}

/* 16 lanes' 4-float rows x[i] to 4 vectors, vector e holding element e of every lane: lanes j, j + 4, j + 8,
   j + 12 in the 128-bit blocks of row vector j, then a 4x4 transpose in each block. */
VL void vx_transpose(const __m128 *x, VF *e0, VF *e1, VF *e2, VF *e3) {
  const __m512 t0 = join4(x[0], x[4], x[8], x[12]), t1 = join4(x[1], x[5], x[9], x[13]);
  const __m512 t2 = join4(x[2], x[6], x[10], x[14]), t3 = join4(x[3], x[7], x[11], x[15]);
  const __m512 u0 = _mm512_unpacklo_ps(t0, t1), u1 = _mm512_unpackhi_ps(t0, t1);
  const __m512 u2 = _mm512_unpacklo_ps(t2, t3), u3 = _mm512_unpackhi_ps(t2, t3);
  *e0 = _mm512_shuffle_ps(u0, u2, 0x44);
  *e1 = _mm512_shuffle_ps(u0, u2, 0xEE);
  *e2 = _mm512_shuffle_ps(u1, u3, 0x44);
  *e3 = _mm512_shuffle_ps(u1, u3, 0xEE);
}

#ifdef CAVR_PACKET512_GATHER
/* Measured alternative (CAVR_PACKET512_GATHER defined at build time): the 4 corner rows of the 8- and 16-bit
   voxels by hardware gathers, one per row, instead of 64 scalar loads and the transpose. */
#define VX_OWN_ROWS4 1
VL void vx_rows4(const unsigned char *base, VI off, ptrdiff_t d0, ptrdiff_t d1, ptrdiff_t d2, ptrdiff_t d3, VI *r0,
                 VI *r1, VI *r2, VI *r3) {
  *r0 = _mm512_i32gather_epi32(_mm512_add_epi32(off, _mm512_set1_epi32((int)d0)), base, 1);
  *r1 = _mm512_i32gather_epi32(_mm512_add_epi32(off, _mm512_set1_epi32((int)d1)), base, 1);
  *r2 = _mm512_i32gather_epi32(_mm512_add_epi32(off, _mm512_set1_epi32((int)d2)), base, 1);
  *r3 = _mm512_i32gather_epi32(_mm512_add_epi32(off, _mm512_set1_epi32((int)d3)), base, 1);
}
#endif

#include "cpu_packet_body.h"

int cavr_cpu_packet_has16(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#else /* no AVX-512 at compile time */

int cavr_cpu_packet_has16(void) { return 0; }

void cavr_cpu_packet_worker16(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {
  (void)q;
  (void)samples;
  (void)rays;
}

#endif

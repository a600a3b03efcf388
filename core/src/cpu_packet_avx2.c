// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_packet_avx2.c - the composite CPU ray caster in packets of 8 rays, one per lane of an AVX2 register
 * (packet ray casting): what AVX2 spells its own way under cpu_packet_body.h, which holds the caster itself (and says
 * how it matches the scalar caster bit for bit). Compiled with -mavx2 -mfma -ffp-contract=off (core/CMakeLists.txt) and
 * entered only where __builtin_cpu_supports says the CPU has both (cpu_packet.c chooses the width).
 */
#include "cpu_raycast.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <string.h>

#define LANES 8
#define VALIGN 32
#define VPFX _mm256_
#define PACKET_WORKER cavr_cpu_packet_worker8

typedef __m256 VF;
typedef __m256i VI;
typedef __m256 VM; /* all-ones lanes */

#define VL static inline __attribute__((always_inline))
VL VF vf_abs(VF a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
VL VF vf_gather4(const float *base, VI i) { return _mm256_i32gather_ps(base, i, 4); }
VL VM vf_gt(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
VL VM vf_ge(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
VL VM vf_eq(VF a, VF b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
VL VF vf_keep(VF a, VM m) { return _mm256_and_ps(a, m); }              /* a where m, else 0 */
VL VF vf_blend(VF a, VF b, VM m) { return _mm256_blendv_ps(a, b, m); } /* b where m, else a */
VL VI vi_and(VI a, VI b) { return _mm256_and_si256(a, b); }
VL VI vi_cast(VF a) { return _mm256_castps_si256(a); }
VL VI vi_loadu(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
VL void vi_storeu(int32_t *p, VI a) { _mm256_storeu_si256((__m256i *)p, a); }
VL void vi_store(int32_t *p, VI a) { _mm256_store_si256((__m256i *)p, a); }
VL VI vi_gather1(const void *base, VI i) { return _mm256_i32gather_epi32((const int *)base, i, 1); }
VL VI vi_gather2(const void *base, VI i) { return _mm256_i32gather_epi32((const int *)base, i, 2); }
VL VM vi_gt(VI a, VI b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }
VL int vm_bits(VM m) { return _mm256_movemask_ps(m); }
VL VM vm_from_bits(int bits) {
  const __m256i b = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(bits), b), b));
}

/* 8 lanes' 4-float rows x[i] to 4 vectors, vector e holding element e of every lane: lane j in the low 128 bits
   and lane j + 4 in the high ones of row vector j, then a 4x4 transpose in each half. */
VL void vx_transpose(const __m128 *x, VF *e0, VF *e1, VF *e2, VF *e3) {
  const __m256 t0 = _mm256_setr_m128(x[0], x[4]), t1 = _mm256_setr_m128(x[1], x[5]);
  const __m256 t2 = _mm256_setr_m128(x[2], x[6]), t3 = _mm256_setr_m128(x[3], x[7]);
  const __m256 u0 = _mm256_unpacklo_ps(t0, t1), u1 = _mm256_unpackhi_ps(t0, t1);
  const __m256 u2 = _mm256_unpacklo_ps(t2, t3), u3 = _mm256_unpackhi_ps(t2, t3);
  *e0 = _mm256_shuffle_ps(u0, u2, 0x44);
  *e1 = _mm256_shuffle_ps(u0, u2, 0xEE);
  *e2 = _mm256_shuffle_ps(u1, u3, 0x44);
  *e3 = _mm256_shuffle_ps(u1, u3, 0xEE);
}

#include "cpu_packet_body.h"

int cavr_cpu_packet_has8(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

#else /* no AVX2 at compile time */

int cavr_cpu_packet_has8(void) { return 0; }

void cavr_cpu_packet_worker8(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {
  (void)q;
  (void)samples;
  (void)rays;
}

#endif

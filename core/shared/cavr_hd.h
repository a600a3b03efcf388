// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_hd.h - what lets one definition serve both back ends: CAVR_HD marks a function that compiles as C11 for the
 * CPU back end (core/src) and as __host__ __device__ CUDA C++ for the kernels (kernels/), and the few operations
 * whose best spelling differs between the two while the value does not.
 */
#ifndef CAVR_HD_H
#define CAVR_HD_H

#if defined(__CUDACC__)
/* The kernels' helpers were __forceinline__: keep them so (register counts, occupancy). */
#define CAVR_HD static __host__ __device__ __forceinline__
#elif defined(__GNUC__)
/* The CPU casters inline every per-sample helper (cpu_raycast.h: CAVR_ALWAYS_INLINE). */
#define CAVR_HD static inline __attribute__((always_inline))
#else
#define CAVR_HD static inline
#endif

#ifndef __CUDACC__
#include <math.h>
#endif

/* min / max / clamp of floats as comparisons (gcc calls libm for fminf/fmaxf unless NaN semantics are relaxed).
   cavr_clampf: NaN gives lo (a NaN must never reach an integer conversion). */
CAVR_HD float cavr_minf(float a, float b) { return a < b ? a : b; }
CAVR_HD float cavr_maxf(float a, float b) { return a > b ? a : b; }
CAVR_HD float cavr_clampf(float v, float lo, float hi) { return v > lo ? (v < hi ? v : hi) : lo; }

/* min(a, b) and max(a, b) for a b that is never NaN: fminf/fmaxf on the GPU (one instruction), the comparisons on
   the CPU; the same value for every a (a NaN a gives b in both). */
#ifdef __CUDA_ARCH__
#define CAVR_MIN_NN(a, b) fminf(a, b)
#define CAVR_MAX_NN(a, b) fmaxf(a, b)
#else
#define CAVR_MIN_NN(a, b) cavr_minf(a, b)
#define CAVR_MAX_NN(a, b) cavr_maxf(a, b)
#endif

#endif /* CAVR_HD_H */

// SPDX-License-Identifier: BSD-3-Clause
/* bench_util.h - shared by the benchmarks: DIE (message on stderr, exit 1), OK (a cavr call that must succeed,
   else DIE with the device's error) and bench_cmp_double (qsort of doubles, ascending). BENCH_NAME names the
   program in messages. */
#ifndef CAVR_BENCH_UTIL_H
#define CAVR_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "cavr/cavr.h"

#define DIE(...)                                                                                                   \
  do {                                                                                                             \
    fprintf(stderr, BENCH_NAME ": " __VA_ARGS__);                                                                  \
    fprintf(stderr, "\n");                                                                                         \
    exit(1);                                                                                                       \
  } while (0)
#define OK(dev, call)                                                                                              \
  do {                                                                                                             \
    CAVRError e_ = (call);                                                                                         \
    if (e_) {                                                                                                      \
      const char *m_ = "";                                                                                         \
      cavrGetDeviceError(dev, &m_);                                                                                \
      DIE("%s: %s: %s", #call, cavrGetErrorString(e_), m_);                                                        \
    }                                                                                                              \
  } while (0)

static inline int bench_cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif

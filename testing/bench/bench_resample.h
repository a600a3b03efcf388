// SPDX-License-Identifier: BSD-3-Clause
/* bench_resample.h - shared by the benchmarks: a uint8 volume resampled (trilinear, corner to corner) to n^3 on 16
   threads, for the big volumes made from a real one (the CT at 1024^3, 2048^3). Include after bench_util.h (DIE). */
#ifndef CAVR_BENCH_RESAMPLE_H
#define CAVR_BENCH_RESAMPLE_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct BenchResample {
  const uint8_t *src;
  int sd[3];
  uint8_t *dst;
  int n, z0, z1;
} BenchResample;

static void *bench_resample_part(void *arg) {
  BenchResample *r = (BenchResample *)arg;
  for (int z = r->z0; z < r->z1; ++z) {
    double fz = (double)z * (r->sd[2] - 1) / (r->n - 1);
    int iz = (int)fz < r->sd[2] - 1 ? (int)fz : r->sd[2] - 2;
    double wz = fz - iz;
    for (int y = 0; y < r->n; ++y) {
      double fy = (double)y * (r->sd[1] - 1) / (r->n - 1);
      int iy = (int)fy < r->sd[1] - 1 ? (int)fy : r->sd[1] - 2;
      double wy = fy - iy;
      for (int x = 0; x < r->n; ++x) {
        double fx = (double)x * (r->sd[0] - 1) / (r->n - 1);
        int ix = (int)fx < r->sd[0] - 1 ? (int)fx : r->sd[0] - 2;
        double wx = fx - ix;
        const uint8_t *b = r->src + ((size_t)iz * r->sd[1] + iy) * r->sd[0] + ix;
        size_t sy = (size_t)r->sd[0], sz = (size_t)r->sd[0] * r->sd[1];
        double c00 = b[0] + wx * (b[1] - b[0]), c10 = b[sy] + wx * (b[sy + 1] - b[sy]);
        double c01 = b[sz] + wx * (b[sz + 1] - b[sz]), c11 = b[sz + sy] + wx * (b[sz + sy + 1] - b[sz + sy]);
        double c0 = c00 + wy * (c10 - c00), c1 = c01 + wy * (c11 - c01);
        r->dst[((size_t)z * r->n + y) * r->n + x] = (uint8_t)(c0 + wz * (c1 - c0) + 0.5);
      }
    }
  }
  return NULL;
}

/* src: sd[0] x sd[1] x sd[2] uint8, x fastest (each side >= 2); returns n^3 uint8 (malloc'd), or DIEs. */
static uint8_t *bench_resample(const uint8_t *src, const int sd[3], int n) {
  uint8_t *dst = (uint8_t *)malloc((size_t)n * n * n);
  if (!dst) DIE("out of host memory for the %d^3 volume", n);
  enum { T = 16 };
  pthread_t th[T];
  BenchResample parts[T];
  for (int t = 0; t < T; ++t) {
    parts[t] = (BenchResample){src, {sd[0], sd[1], sd[2]}, dst, n, n * t / T, n * (t + 1) / T};
    pthread_create(&th[t], NULL, bench_resample_part, &parts[t]);
  }
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  return dst;
}

#endif

/*
 * reconstruct.c - global conjugate gradients for compressive rendering (see reconstruct.h). Double
 * precision accumulators; the 7x7 stencil is applied directly (49 multiply-adds per pixel).
 */
#include <math.h>
#include <stdlib.h>

#include "reconstruct.h"

/* Half-sample even reflection (Neumann boundary): ..., 1, 0 | 0, 1, ..., n-1 | n-1, n-2, ... */
static inline int reflect(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }

/* out = (diag(mask) + lambda H) in. With a symmetric filter and even reflection the operator is symmetric,
   positive semi-definite (diagonalised by the DCT-II; its eigenvalues are the filter's symbol, >= 0) and
   annihilates constants, so it does not pull the image's border towards zero as zero padding would. */
static void apply(int w, int h, const uint8_t *mask, double lambda, const double *f, const double *in, double *out) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0.0;
      for (int i = -3; i <= 3; ++i) {
        const double *row = in + (size_t)reflect(y + i, h) * w, *fr = f + (i + 3) * 7 + 3;
        for (int j = -3; j <= 3; ++j) acc += fr[j] * row[reflect(x + j, w)];
      }
      size_t p = (size_t)y * w + x;
      out[p] = lambda * acc + (mask[p] ? in[p] : 0.0);
    }
}

static double dot(const double *a, const double *b, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

int cavr_cg_global(int width, int height, const uint8_t *mask, const float *y, double lambda, const double *filter,
                   int maxIterations, double tolerance, float *x, double *relResidual) {
  if (width < 4 || height < 4 || !mask || !y || !filter || !x || !(lambda >= 0.0) || maxIterations < 0) return -1;
  size_t n = (size_t)width * height;
  double *xv = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double)), *p = malloc(n * sizeof(double)),
         *q = malloc(n * sizeof(double));
  if (!xv || !r || !p || !q) {
    free(xv), free(r), free(p), free(q);
    return -1;
  }
  double bnorm2 = 0.0;
  for (size_t i = 0; i < n; ++i) {
    xv[i] = x[i];
    bnorm2 += mask[i] ? (double)y[i] * y[i] : 0.0;
  }
  apply(width, height, mask, lambda, filter, xv, q);
  for (size_t i = 0; i < n; ++i) {
    r[i] = (mask[i] ? (double)y[i] : 0.0) - q[i];
    p[i] = r[i];
  }
  double rr = dot(r, r, n), stop = tolerance * tolerance * (bnorm2 > 0.0 ? bnorm2 : 1.0);
  int it = 0;
  while (it < maxIterations && rr > stop) {
    apply(width, height, mask, lambda, filter, p, q);
    double pq = dot(p, q, n);
    if (!(pq > 0.0)) break; /* A p = 0: nothing more to gain (empty mask) */
    double alpha = rr / pq;
    for (size_t i = 0; i < n; ++i) {
      xv[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rrNew = dot(r, r, n), beta = rrNew / rr;
    rr = rrNew;
    for (size_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    ++it;
  }
  for (size_t i = 0; i < n; ++i) x[i] = (float)xv[i];
  if (relResidual) *relResidual = sqrt(rr / (bnorm2 > 0.0 ? bnorm2 : 1.0));
  free(xv), free(r), free(p), free(q);
  return it;
}

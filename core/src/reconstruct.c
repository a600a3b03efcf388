// SPDX-License-Identifier: BSD-3-Clause
/*
 * reconstruct.c - conjugate gradients for compressive rendering (see reconstruct.h). The 7x7 stencil is
 * applied directly to a copy of the preconditioned residual padded by reflection, four channels per pixel;
 * dot products are accumulated in double. Chronopoulos-Gear recurrences: one operator application and one set
 * of dot products per iteration.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gram_filter_table.h"
#include "reconstruct.h"
#include "sampling_mask.h"

#define G CAVR_GHOST

void cavr_solver_init(CAVRSolver *s, int gramFilter, float lambda, int maxIterations, float tolerance) {
  const double *f = gramFilter == 1 ? cavr_gram_thesis : cavr_gram_definition;
  for (int i = 0; i < 49; ++i) s->filter[i] = (float)f[i];
  s->lambda = lambda;
  s->maxIterations = maxIterations;
  s->tolerance = tolerance;
}

size_t cavr_solve_scratch_floats(int w, int h) {
  size_t n = (size_t)w * h, np = (size_t)(w + 2 * G) * (h + 2 * G);
  /* x, r, p, s, w, padded u (4 channels each), a folded row and a row of sums for apply, 1/diagonal, mask bytes */
  return 4 * (5 * n + np) + 4 * (size_t)(2 * w + 2 * G) + n + (n + 3) / 4;
}

/* Half-sample even reflection into [0, n). */
static inline int reflect(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }

/* Fill the ring of width G around the w x h interior of P (row length w + 2G, 4 floats per pixel). */
static void pad(float *P, int w, int h) {
  const int pw = w + 2 * G;
  for (int y = 0; y < h; ++y) {
    float *row = P + 4 * (size_t)(y + G) * pw;
    for (int k = 1; k <= G; ++k) {
      memcpy(row + 4 * (G - k), row + 4 * (G + reflect(-k, w)), 4 * sizeof(float));
      memcpy(row + 4 * (G + w - 1 + k), row + 4 * (G + reflect(w - 1 + k, w)), 4 * sizeof(float));
    }
  }
  for (int k = 1; k <= G; ++k) {
    memcpy(P + 4 * (size_t)(G - k) * pw, P + 4 * (size_t)(G + reflect(-k, h)) * pw, 4 * sizeof(float) * pw);
    memcpy(P + 4 * (size_t)(G + h - 1 + k) * pw, P + 4 * (size_t)(G + reflect(h - 1 + k, h)) * pw,
           4 * sizeof(float) * pw);
  }
}

/*
 * q = (diag(m) + lambda H) p for the interior of the padded P (padded here first). H is symmetric about its
 * centre row and column (both filters are), so rows i and 6-i are added first (fold, pw x 4 floats) and each
 * row's taps j and 6-j share a product: 4 products per row and channel instead of 7 x 7 in all.
 */
static void apply(const CAVRSolver *s, const uint8_t *m, int w, int h, float *P, float *q, float *fold, float *acc) {
  const int pw = w + 2 * G;
  pad(P, w, h);
  for (int y = 0; y < h; ++y) {
    for (size_t k = 0; k < 4 * (size_t)w; ++k) acc[k] = 0.0f;
    for (int i = 0; i <= G; ++i) {
      const float *src = P + 4 * (size_t)(y + i) * pw;
      if (i < G) {
        const float *other = P + 4 * (size_t)(y + 6 - i) * pw;
        for (size_t k = 0; k < 4 * (size_t)pw; ++k) fold[k] = src[k] + other[k];
        src = fold;
      }
      const float f0 = s->filter[7 * i], f1 = s->filter[7 * i + 1], f2 = s->filter[7 * i + 2], f3 = s->filter[7 * i + 3];
      for (int x = 0; x < w; ++x) {
        const float *r = src + 4 * (size_t)x;
        float *a = acc + 4 * (size_t)x;
        for (int c = 0; c < 4; ++c)
          a[c] += f0 * (r[c] + r[24 + c]) + f1 * (r[4 + c] + r[20 + c]) + f2 * (r[8 + c] + r[16 + c]) + f3 * r[12 + c];
      }
    }
    for (int x = 0; x < w; ++x) {
      const float *centre = P + 4 * ((size_t)(y + G) * pw + x + G);
      float *out = q + 4 * ((size_t)y * w + x);
      const float mk = m[(size_t)y * w + x] ? 1.0f : 0.0f;
      for (int c = 0; c < 4; ++c) out[c] = s->lambda * acc[4 * (size_t)x + c] + mk * centre[c];
    }
  }
}

/* u = dinv r into the interior of the padded U. */
static void precondition(const float *r, const float *dinv, int w, int h, float *U) {
  const int pw = w + 2 * G;
  for (int y = 0; y < h; ++y)
    for (int xx = 0; xx < w; ++xx) {
      const size_t p = (size_t)y * w + xx;
      float *u = U + 4 * ((size_t)(y + G) * pw + xx + G);
      for (int c = 0; c < 4; ++c) u[c] = dinv[p] * r[4 * p + c];
    }
}

/* (r, u), (w, u) and (r, r) per channel, in double: dots[0..3], [4..7], [8..11]. */
static void dots3(const float *r, const float *U, const float *wv, int w, int h, double dots[12]) {
  const int pw = w + 2 * G;
  for (int i = 0; i < 12; ++i) dots[i] = 0.0;
  for (int y = 0; y < h; ++y)
    for (int xx = 0; xx < w; ++xx) {
      const size_t p = (size_t)y * w + xx;
      const float *u = U + 4 * ((size_t)(y + G) * pw + xx + G);
      for (int c = 0; c < 4; ++c) {
        dots[c] += (double)r[4 * p + c] * u[c];
        dots[4 + c] += (double)wv[4 * p + c] * u[c];
        dots[8 + c] += (double)r[4 * p + c] * r[4 * p + c];
      }
    }
}

/*
 * The Chronopoulos-Gear form of preconditioned conjugate gradients (Chronopoulos & Gear 1989; Ghysels &
 * Vanroose 2014, alg. 2): s = A p is carried by a recurrence, so an iteration applies the operator once and
 * needs the three dot products (r,u), (w,u), (r,r) at one point, which on the GPU is one block reduction.
 * Per channel: gamma = (r,u), alpha = gamma / ((w,u) - beta gamma / alpha_prev), beta = gamma / gamma_prev;
 * a channel whose RMS residual met the tolerance keeps alpha = 0 (kernels/reconstruct.cu does the same).
 */
void cavr_cg_coefficients(const double dots[12], const double stop[4], double gamma[4], float alpha[4],
                          float beta[4], int first) {
  for (int c = 0; c < 4; ++c) {
    const double g = dots[c], d = dots[4 + c], rr = dots[8 + c];
    double b = 0.0, den = d;
    if (!first && alpha[c] > 0.0f && gamma[c] > 0.0) {
      b = g / gamma[c];
      den = d - b * g / (double)alpha[c];
    }
    beta[c] = (float)b;
    alpha[c] = rr > stop[c] && den > 0.0 && g > 0.0 ? (float)(g / den) : 0.0f;
    gamma[c] = g;
  }
}

int cavr_solve_window(const CAVRSolver *s, const float *img, const uint8_t *mask, int W, int wx0, int wy0, int ww,
                      int wh, int ox0, int oy0, int ox1, int oy1, float *out, float *scratch, double *relResidual) {
  const size_t n = (size_t)ww * wh;
  const int pw = ww + 2 * G;
  float *x = scratch, *r = x + 4 * n, *p = r + 4 * n, *sv = p + 4 * n, *wv = sv + 4 * n, *U = wv + 4 * n,
        *fold = U + 4 * (size_t)pw * (wh + 2 * G), *acc = fold + 4 * (size_t)pw, *dinv = acc + 4 * (size_t)ww;
  const uint8_t *mrow = mask + (size_t)wy0 * W + wx0;
#define M(xx, yy) (mrow[(size_t)(yy) * W + (xx)])
  const float centre = s->filter[24] * s->lambda;
  /* A window whose rendered values are all 0 (transparent background) has the guess 0, the residual 0 and the
     solution 0 exactly: written without iterating (the GPU's local_kernel does the same). */
  int lit = 0;
  for (int y = 0; y < wh && !lit; ++y)
    for (int xx = 0; xx < ww && !lit; ++xx) {
      const float *src = img + 4 * ((size_t)(wy0 + y) * W + wx0 + xx);
      lit = M(xx, y) && (src[0] != 0.0f || src[1] != 0.0f || src[2] != 0.0f || src[3] != 0.0f);
    }
  if (!lit) {
    for (int y = oy0; y < oy1; ++y)
      for (int xx = ox0; xx < ox1; ++xx)
        if (!mask[(size_t)y * W + xx]) memset(out + 4 * ((size_t)y * W + xx), 0, 4 * sizeof(float));
    if (relResidual) *relResidual = 0.0;
    return 0;
  }
  /* Initial guess and right-hand side. */
  for (int y = 0; y < wh; ++y)
    for (int xx = 0; xx < ww; ++xx) {
      float *xv = x + 4 * ((size_t)y * ww + xx);
      const float *src = img + 4 * ((size_t)(wy0 + y) * W + wx0 + xx);
      dinv[(size_t)y * ww + xx] = 1.0f / ((M(xx, y) ? 1.0f : 0.0f) + centre);
      if (M(xx, y)) {
        memcpy(xv, src, 4 * sizeof(float));
        continue;
      }
      float acc[4] = {0, 0, 0, 0}, wsum = 0.0f;
      for (int dy = -G; dy <= G; ++dy)
        for (int dx = -G; dx <= G; ++dx) {
          int u = xx + dx, v = y + dy;
          if (u < 0 || v < 0 || u >= ww || v >= wh || !M(u, v)) continue;
          float wgt = 1.0f / (float)(dx * dx + dy * dy);
          const float *o = img + 4 * ((size_t)(wy0 + v) * W + wx0 + u);
          for (int c = 0; c < 4; ++c) acc[c] += wgt * o[c];
          wsum += wgt;
        }
      for (int c = 0; c < 4; ++c) xv[c] = wsum > 0.0f ? acc[c] / wsum : 0.0f;
    }
  /* diag(m) in apply reads the window's mask bytes contiguously: a copy after dinv in the scratch. */
  uint8_t *mcopy = (uint8_t *)(dinv + n);
  for (int y = 0; y < wh; ++y) memcpy(mcopy + (size_t)y * ww, mrow + (size_t)y * W, (size_t)ww);
  const uint8_t *mw = mcopy;
  /* r = b - A x */
  for (int y = 0; y < wh; ++y) memcpy(U + 4 * ((size_t)(y + G) * pw + G), x + 4 * (size_t)y * ww, 16 * (size_t)ww);
  apply(s, mw, ww, wh, U, wv, fold, acc);
  for (size_t q = 0; q < n; ++q) {
    const float *src = img + 4 * ((size_t)(wy0 + q / ww) * W + wx0 + q % ww);
    for (int c = 0; c < 4; ++c) r[4 * q + c] = (mw[q] ? src[c] : 0.0f) - wv[4 * q + c];
  }
  /* u = dinv r, w = A u; p = u, s = w. */
  precondition(r, dinv, ww, wh, U);
  apply(s, mw, ww, wh, U, wv, fold, acc);
  double stop[4], dots[12], gamma[4] = {0, 0, 0, 0};
  float alpha[4] = {0, 0, 0, 0}, beta[4];
  /* RMS residual per pixel <= tolerance (colour units): the same test for a 22x22 window and a whole image. */
  for (int c = 0; c < 4; ++c) stop[c] = (double)s->tolerance * s->tolerance * (double)n;
  dots3(r, U, wv, ww, wh, dots);
  cavr_cg_coefficients(dots, stop, gamma, alpha, beta, 1);
  for (int y = 0; y < wh; ++y)
    for (int xx = 0; xx < ww; ++xx) {
      const size_t q = (size_t)y * ww + xx;
      memcpy(p + 4 * q, U + 4 * ((size_t)(y + G) * pw + xx + G), 4 * sizeof(float));
    }
  memcpy(sv, wv, 16 * n);
  int it = 0;
  for (; it < s->maxIterations; ++it) {
    if (dots[8] <= stop[0] && dots[9] <= stop[1] && dots[10] <= stop[2] && dots[11] <= stop[3]) break;
    for (size_t q = 0; q < 4 * n; ++q) {
      x[q] += alpha[q & 3] * p[q];
      r[q] -= alpha[q & 3] * sv[q];
    }
    precondition(r, dinv, ww, wh, U);
    apply(s, mw, ww, wh, U, wv, fold, acc);
    dots3(r, U, wv, ww, wh, dots);
    cavr_cg_coefficients(dots, stop, gamma, alpha, beta, 0);
    for (int y = 0; y < wh; ++y)
      for (int xx = 0; xx < ww; ++xx) {
        const size_t q = (size_t)y * ww + xx;
        const float *u = U + 4 * ((size_t)(y + G) * pw + xx + G);
        for (int c = 0; c < 4; ++c) {
          p[4 * q + c] = u[c] + beta[c] * p[4 * q + c];
          sv[4 * q + c] = wv[4 * q + c] + beta[c] * sv[4 * q + c];
        }
      }
  }
  if (relResidual) {
    double worst = 0.0;
    for (int c = 0; c < 4; ++c) {
      double v = sqrt(dots[8 + c] / (double)n);
      if (v > worst) worst = v;
    }
    *relResidual = worst;
  }
  for (int y = oy0; y < oy1; ++y)
    for (int xx = ox0; xx < ox1; ++xx) {
      if (mask[(size_t)y * W + xx]) continue;
      const float *src = x + 4 * ((size_t)(y - wy0) * ww + (xx - wx0));
      memcpy(out + 4 * ((size_t)y * W + xx), src, 4 * sizeof(float));
    }
#undef M
  return it;
}

void cavr_fill_depth(const uint8_t *mask, int W, int H, int y0, int y1, float *depth) {
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < W; ++x) {
      if (mask[(size_t)y * W + x]) continue;
      float best = 1.0f;
      for (int v = y - G; v <= y + G; ++v) {
        if (v < 0 || v >= H) continue;
        for (int u = x - G; u <= x + G; ++u)
          if (u >= 0 && u < W && mask[(size_t)v * W + u] && depth[(size_t)v * W + u] < best) best = depth[(size_t)v * W + u];
      }
      depth[(size_t)y * W + x] = best;
    }
}

/* RGBA clamped to [0, 1] (NaN: 0) and its 8-bit values (round to nearest). */
static inline void quantize(const float v[4], float c[4], uint8_t b[4]) {
  for (int k = 0; k < 4; ++k) c[k] = v[k] > 0.0f ? (v[k] < 1.0f ? v[k] : 1.0f) : 0.0f;
  for (int k = 0; k < 4; ++k) b[k] = (uint8_t)(int)(c[k] * 255.0f + 0.5f);
}

static inline void put(size_t p, const float v[4], float d, float *rgbaf, uint8_t *rgba8, float *depth) {
  float c[4];
  uint8_t b[4];
  quantize(v, c, b);
  memcpy(rgbaf + 4 * p, c, sizeof c);
  memcpy(rgba8 + 4 * p, b, sizeof b);
  depth[p] = d;
}

/* The outer taps' weight of the cubic convolution at a lattice cell's midpoint (the inner taps get 1/2 - it):
   Catmull-Rom's -1/16, by measured PSNR on the four volumes of docs/history/benchmarks-2026-11.md
   ("Shaded REFINE: a ray's set-up counted as work"): against -1/20, colin27 shaded +0.08 dB (the row nearest its +5 dB
   target), the CT shoulder and the foot -0.05 dB, cthead 0.00; -0.075 and -0.09 gave colin27 little more and the others
   less. */
#define REFINE_CUBIC_OUTER (-0.0625f)

static inline float minf(float a, float b) { return a < b ? a : b; }
static inline float maxf(float a, float b) { return a > b ? a : b; }
/* The taps of coordinate v on an axis of n pixels over the lattice of every second line (a lattice line: itself; else
   v - 1 and v + 1, and v - 3 and v + 3 where both lie in the image) and their weights. Returns the number of taps (1,
   2 or 4), the inner ones first. */
static int axis_taps(int v, int onLattice, int n, int pos[4], float w[4]) {
  if (onLattice) {
    pos[0] = v, w[0] = 1.0f;
    return 1;
  }
  pos[0] = v - 1, pos[1] = v + 1, w[0] = w[1] = 0.5f;
  if (v < 3 || v + 3 > n - 1) return 2;
  pos[2] = v - 3, pos[3] = v + 3, w[0] = w[1] = 0.5f - REFINE_CUBIC_OUTER, w[2] = w[3] = REFINE_CUBIC_OUTER;
  return 4;
}

/* Pass 1 for the pixel rows [r0, r1): every pixel off the lattice without a ray, outside flat cells, row by row. The
   lattice (every second line and the last) has its values from pass 0. Separable: the unclamped horizontal cubic of
   each lattice row at every odd column (hx) first, then per pixel the vertical taps of the lattice values (even
   columns) or of hx (odd columns), clamped per channel to the range of the inner taps' lattice values; depth the
   nearest of the 2x2 sub-cell's lattice corners. `flat` holds the flat cells of the cell rows these pixel rows meet
   (row j - jFirst, cx columns); hx has room for 4 W floats per lattice row from r0 - 3 to r1 + 3. */
static void interpolate_rows(const uint8_t *mask, int W, int H, int r0, int r1, int jFirst, const uint8_t *flat,
                             int cx, float *hx, float *rgbaf, uint8_t *rgba8, float *depth) {
  const int cy = cavr_refine_cells_per_axis(H);
  const int l0 = r0 - 3 > 0 ? r0 - 3 : 0, l1 = r1 + 3 < H - 1 ? r1 + 3 : H - 1; /* lattice rows needed */
  const float wIn = 0.5f - REFINE_CUBIC_OUTER, wOut = REFINE_CUBIC_OUTER;
  /* hx rows: lattice row v at slot (v - l0) (odd v other than H - 1 are not lattice rows and stay unset). */
  for (int v = l0; v <= l1; ++v) {
    if (v % 2 && v != H - 1) continue;
    float *h = hx + (size_t)(v - l0) * 4 * W;
    const float *row = rgbaf + (size_t)v * 4 * W;
    for (int x = 1; x < W - 1; x += 2) { /* axis_taps' weights, inner taps first */
      const float *a = row + 4 * (x - 1), *b = row + 4 * (x + 1);
      float *o = h + 4 * x;
      if (x >= 3 && x + 3 <= W - 1) {
        const float *c = row + 4 * (x - 3), *d = row + 4 * (x + 3);
        for (int k = 0; k < 4; ++k) o[k] = wIn * a[k] + wIn * b[k] + wOut * c[k] + wOut * d[k];
      } else {
        for (int k = 0; k < 4; ++k) o[k] = 0.5f * a[k] + 0.5f * b[k];
      }
    }
  }
  for (int y = r0; y < r1; ++y) {
    const int onY = !(y % 2) || y == H - 1;
    int j = y / CAVR_REFINE_CELL;
    if (j > cy - 1) j = cy - 1;
    const uint8_t *fl = flat + (size_t)(j - jFirst) * cx;
    int py[4];
    float wy[4];
    const int my = axis_taps(y, onY, H, py, wy);
    for (int t = my; t < 4; ++t) py[t] = py[0], wy[t] = 0.0f; /* 4 taps always (the added ones weigh 0) */
    const float *ry[4], *hy[4]; /* the taps' rows: lattice values, their horizontal cubic */
    for (int t = 0; t < 4; ++t)
      ry[t] = rgbaf + (size_t)py[t] * 4 * W, hy[t] = hx + (size_t)(py[t] - l0) * 4 * W;
    /* The sub-cell's lattice rows (depth): y's lattice line at or below it, and the next. */
    int ya = onY ? y : y - 1;
    if (ya == H - 1) ya = ya - 2 > 0 ? (ya % 2 ? ya - 1 : ya - 2) : 0;
    const int yb = ya + 2 < H - 1 ? ya + 2 : H - 1;
    for (int i = 0; i < cx; ++i) {
      if (fl[i]) continue; /* filled in pass 0 */
      const int xEnd = i + 1 == cx ? W : cavr_refine_line(i + 1, W);
      for (int x = cavr_refine_line(i, W) + (onY ? 1 : 0); x < xEnd; x += onY ? 2 : 1) {
        const int onX = !(x % 2) || x == W - 1;
        if (onX && onY) continue;
        const size_t p = (size_t)y * W + x;
        if (mask[p]) continue;
        float v[4], lo[4], hi[4];
        if (onY) { /* on a lattice row, between two lattice columns */
          const float *a = rgbaf + 4 * (p - 1), *b = rgbaf + 4 * (p + 1), *h = hx + (size_t)(y - l0) * 4 * W + 4 * x;
          for (int k = 0; k < 4; ++k) v[k] = h[k], lo[k] = minf(a[k], b[k]), hi[k] = maxf(a[k], b[k]);
        } else if (onX) { /* on a lattice column, between two lattice rows */
          const float *a = rgbaf + 4 * (p - (size_t)W), *b = rgbaf + 4 * (p + (size_t)W);
          for (int k = 0; k < 4; ++k) {
            v[k] = wy[0] * ry[0][4 * x + k] + wy[1] * ry[1][4 * x + k] + wy[2] * ry[2][4 * x + k] +
                   wy[3] * ry[3][4 * x + k];
            lo[k] = minf(a[k], b[k]), hi[k] = maxf(a[k], b[k]);
          }
        } else { /* inside a 2x2 sub-cell: the vertical taps of the rows' horizontal cubic */
          const float *c00 = rgbaf + 4 * (p - (size_t)W - 1), *c01 = c00 + 8, *c10 = rgbaf + 4 * (p + (size_t)W - 1),
                      *c11 = c10 + 8;
          for (int k = 0; k < 4; ++k) {
            v[k] = wy[0] * hy[0][4 * x + k] + wy[1] * hy[1][4 * x + k] + wy[2] * hy[2][4 * x + k] +
                   wy[3] * hy[3][4 * x + k];
            lo[k] = minf(minf(c00[k], c01[k]), minf(c10[k], c11[k]));
            hi[k] = maxf(maxf(c00[k], c01[k]), maxf(c10[k], c11[k]));
          }
        }
        for (int k = 0; k < 4; ++k) v[k] = minf(maxf(v[k], lo[k]), hi[k]);
        int xa = onX ? x : x - 1;
        if (xa == W - 1) xa = xa % 2 ? xa - 1 : xa - 2;
        const int xb = xa + 2 < W - 1 ? xa + 2 : W - 1;
        const float d0 = minf(depth[(size_t)ya * W + xa], depth[(size_t)ya * W + xb]),
                    d1 = minf(depth[(size_t)yb * W + xa], depth[(size_t)yb * W + xb]);
        put(p, v, minf(d0, d1), rgbaf, rgba8, depth);
      }
    }
  }
}

/* Pass 1's scratch for a band of cellRows cell rows: hx's rows (the band's pixel rows and 3 lattice rows either
   side, at most H), then the band's flat-cell flags. */
static int scratch_rows(int H, int cellRows) {
  const int rows = cellRows * CAVR_REFINE_CELL + 8;
  return rows < H ? rows : H;
}

size_t cavr_refine_scratch_bytes(int W, int H, int cellRows) {
  return sizeof(float) * 4 * (size_t)W * (size_t)scratch_rows(H, cellRows) +
         (size_t)cellRows * (size_t)cavr_refine_cells_per_axis(W);
}

void cavr_refine_interpolate(const uint8_t *mask, int W, int H, int cy0, int cy1, int pass, float *rgbaf,
                             uint8_t *rgba8, float *depth, void *scratch) {
  const int cx = cavr_refine_cells_per_axis(W), cy = cavr_refine_cells_per_axis(H);
  if (cy1 > cy) cy1 = cy;
  if (cy0 >= cy1) return;
  if (pass) {
    const int r0 = cavr_refine_line(cy0, H), r1 = cy1 == cy ? H : cavr_refine_line(cy1, H);
    void *own = scratch ? NULL : malloc(cavr_refine_scratch_bytes(W, H, cy1 - cy0));
    float *hx = (float *)(scratch ? scratch : own);
    uint8_t *flat = hx ? (uint8_t *)(hx + 4 * (size_t)W * (size_t)scratch_rows(H, cy1 - cy0)) : NULL;
    if (hx) {
      for (int j = cy0; j < cy1; ++j) {
        const int y0 = cavr_refine_line(j, H), y1 = cavr_refine_line(j + 1, H);
        for (int i = 0; i < cx; ++i) {
          const int x0 = cavr_refine_line(i, W), x1 = cavr_refine_line(i + 1, W);
          flat[(size_t)(j - cy0) * cx + i] = (uint8_t)cavr_refine_flat_cell(rgbaf, mask, W, x0, x1, y0, y1);
        }
      }
      interpolate_rows(mask, W, H, r0, r1, cy0, flat, cx, hx, rgbaf, rgba8, depth);
    }
    free(own); /* out of memory (no scratch): these pixels keep what they hold */
    return;
  }
  for (int j = cy0; j < cy1; ++j) {
    const int y0 = cavr_refine_line(j, H), y1 = cavr_refine_line(j + 1, H), yEnd = j + 1 == cy ? y1 + 1 : y1;
    for (int i = 0; i < cx; ++i) {
      const int x0 = cavr_refine_line(i, W), x1 = cavr_refine_line(i + 1, W), xEnd = i + 1 == cx ? x1 + 1 : x1;
      if (cavr_refine_flat_cell(rgbaf, mask, W, x0, x1, y0, y1)) {
        /* One value (the background, mostly): every pixel without a ray gets it, and the corners' nearest depth. */
        const size_t c[4] = {(size_t)y0 * W + x0, (size_t)y0 * W + x1, (size_t)y1 * W + x0, (size_t)y1 * W + x1};
        float d = depth[c[0]];
        for (int k = 1; k < 4; ++k) d = depth[c[k]] < d ? depth[c[k]] : d;
        float bf[4];
        uint8_t b8[4];
        quantize(rgbaf + 4 * c[0], bf, b8); /* once, copied to each pixel */
        for (int y = y0; y < yEnd; ++y)
          for (int x = x0; x < xEnd; ++x) {
            const size_t p = (size_t)y * W + x;
            if (mask[p]) continue;
            memcpy(rgbaf + 4 * p, bf, sizeof bf);
            memcpy(rgba8 + 4 * p, b8, sizeof b8);
            depth[p] = d;
          }
        continue;
      }
      /* the lattice points without rays: their lattice values */
      int sx[3], sy[3];
      float value[3][3][4], near[3][3];
      const int n = cavr_refine_lattice(rgbaf, depth, mask, W, H, i, j, sx, sy, value, near), nx = n % 4, ny = n / 4;
      for (int b = 0; b < ny; ++b)
        for (int a = 0; a < nx; ++a) {
          const size_t p = (size_t)sy[b] * W + sx[a];
          if (!mask[p] && sy[b] < yEnd && sx[a] < xEnd) put(p, value[b][a], near[b][a], rgbaf, rgba8, depth);
        }
    }
  }
}

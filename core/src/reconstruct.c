/*
 * reconstruct.c - conjugate gradients for compressive rendering (see reconstruct.h). The 7x7 stencil is
 * applied directly to a copy of the search direction padded by reflection, four channels per pixel;
 * dot products are accumulated in double.
 */
#include <math.h>
#include <string.h>

#include "gram_filter_table.h"
#include "reconstruct.h"

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
  return 4 * (3 * n + np) + n + (n + 3) / 4; /* x, r, q, padded p (4 channels each), 1/diagonal, mask bytes */
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

/* q = (diag(m) + lambda H) p for the interior of the padded P. */
static void apply(const CAVRSolver *s, const uint8_t *m, int w, int h, const float *P, float *q) {
  const int pw = w + 2 * G;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int i = 0; i < 7; ++i) {
        const float *row = P + 4 * ((size_t)(y + i) * pw + x), *f = s->filter + 7 * i;
        for (int j = 0; j < 7; ++j)
          for (int c = 0; c < 4; ++c) acc[c] += f[j] * row[4 * j + c];
      }
      const float *centre = P + 4 * ((size_t)(y + G) * pw + x + G);
      float *out = q + 4 * ((size_t)y * w + x);
      const float mk = m[(size_t)y * w + x] ? 1.0f : 0.0f;
      for (int c = 0; c < 4; ++c) out[c] = s->lambda * acc[c] + mk * centre[c];
    }
}

int cavr_solve_window(const CAVRSolver *s, const float *img, const uint8_t *mask, int W, int wx0, int wy0, int ww,
                      int wh, int ox0, int oy0, int ox1, int oy1, float *out, float *scratch, double *relResidual) {
  const size_t n = (size_t)ww * wh;
  const int pw = ww + 2 * G;
  float *x = scratch, *r = x + 4 * n, *q = r + 4 * n, *P = q + 4 * n, *dinv = P + 4 * (size_t)pw * (wh + 2 * G);
  const uint8_t *mrow = mask + (size_t)wy0 * W + wx0;
#define M(xx, yy) (mrow[(size_t)(yy) * W + (xx)])
  const float centre = s->filter[24] * s->lambda;
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
  /* r = b - A x */
  for (int y = 0; y < wh; ++y) memcpy(P + 4 * ((size_t)(y + G) * pw + G), x + 4 * (size_t)y * ww, 16 * (size_t)ww);
  pad(P, ww, wh);
  /* diag(m) in apply reads the window's mask bytes contiguously: a copy after dinv in the scratch. */
  uint8_t *mcopy = (uint8_t *)(dinv + n);
  for (int y = 0; y < wh; ++y) memcpy(mcopy + (size_t)y * ww, mrow + (size_t)y * W, (size_t)ww);
  const uint8_t *mw = mcopy;
  apply(s, mw, ww, wh, P, q);
  double rz[4] = {0, 0, 0, 0}, rr[4] = {0, 0, 0, 0};
  for (size_t p = 0; p < n; ++p) {
    const float *src = img + 4 * ((size_t)(wy0 + p / ww) * W + wx0 + p % ww);
    float *rv = r + 4 * p;
    for (int c = 0; c < 4; ++c) {
      rv[c] = (mw[p] ? src[c] : 0.0f) - q[4 * p + c];
      rr[c] += (double)rv[c] * rv[c];
      rz[c] += (double)rv[c] * rv[c] * dinv[p];
    }
  }
  /* p = z = dinv r */
  for (int y = 0; y < wh; ++y)
    for (int xx = 0; xx < ww; ++xx) {
      size_t p = (size_t)y * ww + xx;
      float *pv = P + 4 * ((size_t)(y + G) * pw + xx + G);
      for (int c = 0; c < 4; ++c) pv[c] = dinv[p] * r[4 * p + c];
    }
  double stop[4];
  /* RMS residual per pixel <= tolerance (colour units): the same test for a 22x22 window and a whole image. */
  for (int c = 0; c < 4; ++c) stop[c] = (double)s->tolerance * s->tolerance * (double)n;
  int it = 0;
  for (; it < s->maxIterations; ++it) {
    if (rr[0] <= stop[0] && rr[1] <= stop[1] && rr[2] <= stop[2] && rr[3] <= stop[3]) break;
    pad(P, ww, wh);
    apply(s, mw, ww, wh, P, q);
    double pq[4] = {0, 0, 0, 0};
    for (int y = 0; y < wh; ++y)
      for (int xx = 0; xx < ww; ++xx) {
        const float *pv = P + 4 * ((size_t)(y + G) * pw + xx + G), *qv = q + 4 * ((size_t)y * ww + xx);
        for (int c = 0; c < 4; ++c) pq[c] += (double)pv[c] * qv[c];
      }
    float alpha[4];
    for (int c = 0; c < 4; ++c) alpha[c] = pq[c] > 0.0 && rr[c] > stop[c] ? (float)(rz[c] / pq[c]) : 0.0f;
    double rzNew[4] = {0, 0, 0, 0};
    for (int c = 0; c < 4; ++c) rr[c] = 0.0;
    for (int y = 0; y < wh; ++y)
      for (int xx = 0; xx < ww; ++xx) {
        size_t p = (size_t)y * ww + xx;
        const float *pv = P + 4 * ((size_t)(y + G) * pw + xx + G);
        for (int c = 0; c < 4; ++c) {
          x[4 * p + c] += alpha[c] * pv[c];
          float rv = r[4 * p + c] -= alpha[c] * q[4 * p + c];
          rr[c] += (double)rv * rv;
          rzNew[c] += (double)rv * rv * dinv[p];
        }
      }
    float beta[4];
    for (int c = 0; c < 4; ++c) {
      beta[c] = rz[c] > 0.0 ? (float)(rzNew[c] / rz[c]) : 0.0f;
      rz[c] = rzNew[c];
    }
    for (int y = 0; y < wh; ++y)
      for (int xx = 0; xx < ww; ++xx) {
        size_t p = (size_t)y * ww + xx;
        float *pv = P + 4 * ((size_t)(y + G) * pw + xx + G);
        for (int c = 0; c < 4; ++c) pv[c] = dinv[p] * r[4 * p + c] + beta[c] * pv[c];
      }
  }
  if (relResidual) {
    double worst = 0.0;
    for (int c = 0; c < 4; ++c) {
      double v = sqrt(rr[c] / (double)n);
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

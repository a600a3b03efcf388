/*
 * reconstruct.c - conjugate gradients for compressive rendering (see reconstruct.h). The 7x7 stencil is
 * applied directly to a copy of the preconditioned residual padded by reflection, four channels per pixel;
 * dot products are accumulated in double. Chronopoulos-Gear recurrences: one operator application and one set
 * of dot products per iteration.
 */
#include <math.h>
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

static inline void put(size_t p, const float v[4], float d, float *rgbaf, uint8_t *rgba8, float *depth) {
  for (int k = 0; k < 4; ++k) {
    const float c = v[k] < 0.0f ? 0.0f : (v[k] > 1.0f ? 1.0f : v[k]);
    rgbaf[4 * p + k] = c;
    rgba8[4 * p + k] = (uint8_t)(c * 255.0f + 0.5f);
  }
  depth[p] = d;
}

/* The outer taps' weight of the cubic convolution at a lattice cell's midpoint (the inner taps get 1/2 - it): -1/20,
   between linear (0) and Catmull-Rom (-1/16), by measured PSNR on the four volumes of docs/benchmarks.md ("Shaded
   REFINE: cubic interpolation"): Catmull-Rom gives colin27 shaded 0.1 dB more and the CT shoulder 0.04-0.1 dB less. */
#define REFINE_CUBIC_OUTER (-0.05f)

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

void cavr_refine_interpolate(const uint8_t *mask, int W, int H, int cy0, int cy1, int pass, float *rgbaf,
                             uint8_t *rgba8, float *depth) {
  const int cx = cavr_refine_cells_per_axis(W), cy = cavr_refine_cells_per_axis(H);
  for (int j = cy0; j < cy1; ++j) {
    const int y0 = cavr_refine_line(j, H), y1 = cavr_refine_line(j + 1, H), yEnd = j + 1 == cy ? y1 + 1 : y1;
    for (int i = 0; i < cx; ++i) {
      const int x0 = cavr_refine_line(i, W), x1 = cavr_refine_line(i + 1, W), xEnd = i + 1 == cx ? x1 + 1 : x1;
      if (cavr_refine_flat_cell(rgbaf, mask, W, x0, x1, y0, y1)) {
        if (pass) continue;
        /* One value (the background, mostly): every pixel without a ray gets it, and the corners' nearest depth. */
        const size_t c[4] = {(size_t)y0 * W + x0, (size_t)y0 * W + x1, (size_t)y1 * W + x0, (size_t)y1 * W + x1};
        float v[4], d = depth[c[0]];
        for (int k = 1; k < 4; ++k) d = depth[c[k]] < d ? depth[c[k]] : d;
        memcpy(v, rgbaf + 4 * c[0], sizeof v);
        for (int y = y0; y < yEnd; ++y)
          for (int x = x0; x < xEnd; ++x)
            if (!mask[(size_t)y * W + x]) put((size_t)y * W + x, v, d, rgbaf, rgba8, depth);
        continue;
      }
      int sx[3], sy[3];
      if (!pass) { /* the lattice points without rays: their lattice values */
        float value[3][3][4], near[3][3];
        const int n = cavr_refine_lattice(rgbaf, depth, mask, W, H, i, j, sx, sy, value, near), nx = n % 4, ny = n / 4;
        for (int b = 0; b < ny; ++b)
          for (int a = 0; a < nx; ++a) {
            const size_t p = (size_t)sy[b] * W + sx[a];
            if (!mask[p] && sy[b] < yEnd && sx[a] < xEnd) put(p, value[b][a], near[b][a], rgbaf, rgba8, depth);
          }
        continue;
      }
      /* The other pixels: separable cubic convolution over the lattice (every lattice point has its value now, in
         this cell or its neighbours), clamped per channel to the range of the inner taps (the bilinear's sources: no
         overshoot at edges); depth the nearest of the 2x2 sub-cell's corners. */
      float value[3][3][4], near[3][3];
      const int n = cavr_refine_lattice(rgbaf, depth, mask, W, H, i, j, sx, sy, value, near), nx = n % 4, ny = n / 4;
      for (int y = y0, b = 0; y < yEnd; ++y) {
        while (b + 2 < ny && y >= sy[b + 1]) ++b;
        int py[4];
        float wy[4];
        const int onY = y == sy[b] || y == sy[b + 1], my = axis_taps(y, onY, H, py, wy), inY = my < 2 ? my : 2;
        for (int x = x0, a = 0; x < xEnd; ++x) {
          while (a + 2 < nx && x >= sx[a + 1]) ++a;
          const size_t p = (size_t)y * W + x;
          const int onX = x == sx[a] || x == sx[a + 1];
          if (mask[p] || (onX && onY)) continue;
          int px[4];
          float wx[4];
          const int mx = axis_taps(x, onX, W, px, wx), inX = mx < 2 ? mx : 2;
          float v[4] = {0.0f, 0.0f, 0.0f, 0.0f}, lo[4], hi[4];
          for (int k = 0; k < 4; ++k) lo[k] = 1e30f, hi[k] = -1e30f;
          for (int t = 0; t < my; ++t)
            for (int u = 0; u < mx; ++u) {
              const float *c = rgbaf + 4 * ((size_t)py[t] * W + px[u]), w = wx[u] * wy[t];
              for (int k = 0; k < 4; ++k) v[k] += w * c[k];
              if (t < inY && u < inX)
                for (int k = 0; k < 4; ++k) lo[k] = minf(lo[k], c[k]), hi[k] = maxf(hi[k], c[k]);
            }
          for (int k = 0; k < 4; ++k) v[k] = minf(maxf(v[k], lo[k]), hi[k]);
          const float d0 = near[b][a] < near[b][a + 1] ? near[b][a] : near[b][a + 1],
                      d1 = near[b + 1][a] < near[b + 1][a + 1] ? near[b + 1][a] : near[b + 1][a + 1];
          put(p, v, d0 < d1 ? d0 : d1, rgbaf, rgba8, depth);
        }
      }
    }
  }
}

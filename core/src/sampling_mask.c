/*
 * sampling_mask.c - linear pixel shuffling (Anderson 1993; see sampling_mask.h).
 *
 * With N = G_n, the visiting order enumerates (x, y) row by row and maps it to pixel
 *     i = (G_(-n+1) x + G_(n-3) y) mod N,   j = (G_(-n) x + G_(n-2) y) mod N,
 * a bijection of the N x N square (its determinant is a unit mod N); pixels outside the image are
 * skipped. G with negative subscripts follows from running the recurrence backwards: G_(k-3) = G_k - G_(k-1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sampling_mask.h"

/* Branch-free min / max (fminf / fmaxf are library calls without -ffast-math; no NaNs reach here). */
static inline float mn(float a, float b) { return a < b ? a : b; }
static inline float mx(float a, float b) { return a > b ? a : b; }

/* G_k for -limit <= k <= limit, stored at g[k + limit]. */
static void sequence(int limit, long long *g) {
  long long *G = g + limit;
  G[0] = 0;
  G[1] = 1;
  G[2] = 1;
  for (int k = 3; k <= limit; ++k) G[k] = G[k - 1] + G[k - 3];
  for (int k = -1; k >= -limit; --k) G[k] = G[k + 3] - G[k + 2];
}

int cavr_lps_side(int width, int height, int *n) {
  int target = width > height ? width : height;
  long long a = 0, b = 1, c = 1; /* G_(k-2), G_(k-1), G_k */
  int k = 2;
  while (c < target) {
    long long next = c + a;
    a = b;
    b = c;
    c = next;
    ++k;
    if (c > 0x7fffffff) return 0;
  }
  if (n) *n = k;
  return (int)c;
}

/* Visit the pixels of a width x height image in linear-pixel-shuffling order, calling visit(p) with
   p = x + width*y until it returns 0 or every pixel was visited. Returns -1 for bad arguments. */
static int lps_walk(int width, int height, int (*visit)(void *, size_t), void *user) {
  if (width < 1 || height < 1) return -1;
  int n = 0, N = cavr_lps_side(width, height, &n);
  if (!N) return -1;
  /* Only G_(-n) .. G_n are needed (n <= 57 while G_n fits in int): going further would overflow. */
  enum { LIMIT = 64 };
  long long gbuf[2 * LIMIT + 1];
  if (n + 1 > LIMIT) return -1;
  sequence(n + 1, gbuf + (LIMIT - (n + 1)));
  const long long *G = gbuf + LIMIT;
  /* Coefficients reduced into [0, N). */
  long long a = ((G[-n + 1] % N) + N) % N, b = ((G[n - 3] % N) + N) % N;
  long long c = ((G[-n] % N) + N) % N, d = ((G[n - 2] % N) + N) % N;
  for (long long x = 0; x < N; ++x)
    for (long long y = 0; y < N; ++y) {
      long long i = (a * x + b * y) % N, j = (c * x + d * y) % N;
      if (i < width && j < height && !visit(user, (size_t)j * width + (size_t)i)) return 0;
    }
  return 0;
}

typedef struct MaskWalk { uint8_t *mask; long want, marked; } MaskWalk;
static int mark(void *user, size_t p) {
  MaskWalk *m = (MaskWalk *)user;
  m->mask[p] = 1;
  return ++m->marked < m->want;
}

long cavr_lps_mask(int width, int height, double fraction, uint8_t *mask) {
  if (width < 1 || height < 1 || !mask || !(fraction > 0.0 && fraction <= 1.0)) return -1;
  size_t total = (size_t)width * height;
  MaskWalk m = {mask, (long)llround(fraction * (double)total), 0};
  if (m.want < 1) m.want = 1;
  for (size_t p = 0; p < total; ++p) mask[p] = 0;
  if (lps_walk(width, height, mark, &m) != 0) return -1;
  return m.marked;
}

typedef struct OrderWalk { uint32_t *order; size_t n; } OrderWalk;
static int append(void *user, size_t p) {
  OrderWalk *o = (OrderWalk *)user;
  o->order[o->n++] = (uint32_t)p;
  return 1;
}

int cavr_lps_order(int width, int height, uint32_t *order) {
  if (!order || (size_t)width * (size_t)height > 0xffffffffu) return -1;
  OrderWalk o = {order, 0};
  return lps_walk(width, height, append, &o);
}

long cavr_block_mask_list(int width, int height, const uint32_t *blockOrder, const uint16_t *first,
                          const uint16_t *count, uint8_t *mask, uint32_t *list, uint32_t *blockStart) {
  if (width < 1 || height < 1 || !blockOrder || !first || !count || !mask) return -1;
  const int B = CAVR_MASK_BLOCK, bx = (width + B - 1) / B, by = (height + B - 1) / B;
  long marked = 0;
  for (int j = 0; j < by; ++j)
    for (int i = 0; i < bx; ++i) {
      const int b = j * bx + i;
      if (blockStart) blockStart[b] = (uint32_t)marked;
      int seen = 0;
      for (int k = 0; k < B * B && seen < first[b] + count[b]; ++k) {
        int x = i * B + (int)(blockOrder[k] % B), y = j * B + (int)(blockOrder[k] / B);
        if (x >= width || y >= height) continue;
        if (seen++ >= first[b]) {
          const size_t p = (size_t)y * width + x;
          mask[p] = 1;
          if (list) list[marked] = (uint32_t)p;
          ++marked;
        }
      }
    }
  if (blockStart) blockStart[bx * by] = (uint32_t)marked;
  return marked;
}

long cavr_block_mask(int width, int height, const uint32_t *blockOrder, const uint16_t *first, const uint16_t *count,
                     uint8_t *mask) {
  return cavr_block_mask_list(width, height, blockOrder, first, count, mask, NULL, NULL);
}

int cavr_refine_cells_per_axis(int n) {
  const int c = (n - 1 + CAVR_REFINE_CELL - 1) / CAVR_REFINE_CELL;
  return c > 0 ? c : 1;
}


long cavr_refine_pilot_mask(int width, int height, uint8_t *mask, uint32_t *list) {
  if (width < 2 || height < 2 || !mask) return -1;
  const int cx = cavr_refine_cells_per_axis(width), cy = cavr_refine_cells_per_axis(height);
  memset(mask, 0, (size_t)width * height);
  long n = 0;
  for (int j = 0; j <= cy; ++j)
    for (int i = 0; i <= cx; ++i) {
      const size_t p = (size_t)cavr_refine_line(j, height) * width + cavr_refine_line(i, width);
      mask[p] = 1;
      if (list) list[n] = (uint32_t)p;
      ++n;
    }
  return n;
}

/* The lines a refined cell [a, b] is cut at: a, a + 2, ... below b, and b. Returns how many (2 or 3). */
static int sub_lines(int a, int b, int *out) {
  int n = 0;
  for (int v = a; v < b; v += 2) out[n++] = v;
  out[n++] = b;
  return n;
}

/* The rectangle of unit u: a cell (level 1) or a sub-cell (level 2: u = 4 cell + 2 row + column). Returns 0 when
   the cell has no such sub-cell. */
static int unit_rect(int level, size_t u, int width, int height, int cx, int r[4]) {
  const size_t cell = level == 1 ? u : u / 4;
  const int i = (int)(cell % (size_t)cx), j = (int)(cell / (size_t)cx);
  r[0] = cavr_refine_line(i, width), r[1] = cavr_refine_line(i + 1, width);
  r[2] = cavr_refine_line(j, height), r[3] = cavr_refine_line(j + 1, height);
  if (level == 1) return 1;
  int sx[3], sy[3];
  const int nx = sub_lines(r[0], r[1], sx), ny = sub_lines(r[2], r[3], sy), a = (int)(u % 2), b = (int)(u / 2 % 2);
  if (a + 1 >= nx || b + 1 >= ny) return 0;
  r[0] = sx[a], r[1] = sx[a + 1], r[2] = sy[b], r[3] = sy[b + 1];
  return 1;
}

long cavr_refine_active(const float *rgbaf, int width, int height, double density) {
  if (width < 2 || height < 2 || !rgbaf || !(density >= 0.0)) return -1;
  const int cx = cavr_refine_cells_per_axis(width), cy = cavr_refine_cells_per_axis(height);
  long area = 0, grid = 0;
  for (int j = 0; j < cy; ++j) {
    const int y0 = cavr_refine_line(j, height), y1 = cavr_refine_line(j + 1, height), h = (j + 1 == cy ? y1 + 1 : y1) - y0;
    for (int i = 0; i < cx; ++i) {
      const int x0 = cavr_refine_line(i, width), x1 = cavr_refine_line(i + 1, width), w = (i + 1 == cx ? x1 + 1 : x1) - x0;
      const size_t corner[4] = {(size_t)y0 * width + x0, (size_t)y0 * width + x1, (size_t)y1 * width + x0,
                                (size_t)y1 * width + x1};
      float lo = 1e30f, hi = -1e30f, alpha = 0.0f;
      for (int k = 0; k < 4; ++k) {
        for (int c = 0; c < 4; ++c) lo = mn(lo, rgbaf[4 * corner[k] + c]), hi = mx(hi, rgbaf[4 * corner[k] + c]);
        alpha = mx(alpha, rgbaf[4 * corner[k] + 3]);
      }
      if (alpha > 0.0f || hi > lo) area += (long)w * h, grid += (long)((i + 1 == cx) + 1) * ((j + 1 == cy) + 1);
    }
  }
  const long budget = (long)llround(density * (double)area) - grid;
  return budget > 0 ? budget : 0;
}

long cavr_refine_mask(const float *rgbaf, int width, int height, int level, float threshold, long budget, uint8_t *mask,
                      uint32_t *list, float *scratch, uint32_t *order) {
  if (width < 2 || height < 2 || !rgbaf || !mask || !scratch || !order || (level != 1 && level != 2) || budget < 0)
    return -1;
  const int cx = cavr_refine_cells_per_axis(width), cy = cavr_refine_cells_per_axis(height);
  const size_t cells = (size_t)cx * cy, units = level == 1 ? cells : 4 * cells;
  float *score = scratch;
  for (size_t u = 0; u < units; ++u) {
    int r[4];
    score[u] = 0.0f;
    if (!unit_rect(level, u, width, height, cx, r)) continue;
    const size_t corner[4] = {(size_t)r[2] * width + r[0], (size_t)r[2] * width + r[1], (size_t)r[3] * width + r[0],
                              (size_t)r[3] * width + r[1]};
    /* Level 2 refines the sub-cells of refined cells only: their corners were all rendered. */
    if (level == 2 && !(mask[corner[0]] && mask[corner[1]] && mask[corner[2]] && mask[corner[3]])) continue;
    if (level == 2 && (r[1] - r[0] < 2 && r[3] - r[2] < 2)) continue; /* no pixel inside */
    float sc = 0.0f;
    for (int k = 0; k < 4; ++k) {
      const float a = rgbaf[4 * corner[0] + k], b = rgbaf[4 * corner[1] + k], c = rgbaf[4 * corner[2] + k],
                  d = rgbaf[4 * corner[3] + k];
      sc = mx(sc, mx(mx(a, b), mx(c, d)) - mn(mn(a, b), mn(c, d)));
    }
    score[u] = sc;
  }
  /* Highest scores first: a counting sort of the units by score in 1/4096 bins (scores are in [0, 1] for
     colours in [0, 1]; larger ones share the top bin), stable, so equal bins keep their index order. */
  enum { BINS = 4096 };
  uint32_t first[BINS + 1];
  for (int b = 0; b <= BINS; ++b) first[b] = 0;
  for (size_t u = 0; u < units; ++u) {
    const float sc = score[u];
    const int b = sc >= 1.0f ? BINS - 1 : (sc > 0.0f ? (int)(sc * (float)(BINS - 1)) : 0); /* NaN: bin 0 */
    ++first[BINS - 1 - b + 1]; /* descending bins */
  }
  for (int b = 1; b <= BINS; ++b) first[b] += first[b - 1];
  int lastBin = (int)(threshold * (float)(BINS - 1)); /* units in bins <= lastBin are never refined */
  if (lastBin < 0) lastBin = 0;
  if (lastBin > BINS - 1) lastBin = BINS - 1;
  const uint32_t stop = first[BINS - 1 - lastBin];
  for (size_t u = 0; u < units; ++u) {
    const float sc = score[u];
    const int b = sc >= 1.0f ? BINS - 1 : (sc > 0.0f ? (int)(sc * (float)(BINS - 1)) : 0); /* NaN: bin 0 */
    order[first[BINS - 1 - b]++] = (uint32_t)u;
  }
  long marked = 0;
  for (uint32_t n = 0; n < stop && marked < budget; ++n) {
    int r[4];
    unit_rect(level, order[n], width, height, cx, r);
    int xs[3], ys[3], nx = 0, ny = 0;
    if (level == 1) nx = sub_lines(r[0], r[1], xs), ny = sub_lines(r[2], r[3], ys);
    long fresh = 0;
    if (level == 1) {
      for (int b = 0; b < ny; ++b)
        for (int a = 0; a < nx; ++a) fresh += !mask[(size_t)ys[b] * width + xs[a]];
    } else {
      for (int y = r[2]; y <= r[3]; ++y)
        for (int x = r[0]; x <= r[1]; ++x) fresh += !mask[(size_t)y * width + x];
    }
    if (marked + fresh > budget) continue;
    if (level == 1) {
      for (int b = 0; b < ny; ++b)
        for (int a = 0; a < nx; ++a)
          if (!mask[(size_t)ys[b] * width + xs[a]]) {
            mask[(size_t)ys[b] * width + xs[a]] = 1;
            if (list) list[marked++] = (uint32_t)((size_t)ys[b] * width + xs[a]);
          }
    } else {
      for (int y = r[2]; y <= r[3]; ++y)
        for (int x = r[0]; x <= r[1]; ++x)
          if (!mask[(size_t)y * width + x]) {
            mask[(size_t)y * width + x] = 1;
            if (list) list[marked++] = (uint32_t)((size_t)y * width + x);
          }
    }
    if (!list) marked += fresh;
  }
  return marked;
}

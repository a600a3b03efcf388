// SPDX-License-Identifier: BSD-3-Clause
/*
 * sampling_mask.c - linear pixel shuffling (Anderson 1993; see sampling_mask.h).
 *
 * With N = G_n, the visiting order enumerates (x, y) row by row and maps it to pixel
 *     i = (G_(-n+1) x + G_(n-3) y) mod N,   j = (G_(-n) x + G_(n-2) y) mod N,
 * a bijection of the N x N square (its determinant is a unit mod N); pixels outside the image are
 * skipped. G with negative subscripts follows from running the recurrence backwards: G_(k-3) = G_k - G_(k-1).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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

int cavr_refine_lattice(const float *rgbaf, const float *depth, const uint8_t *mask, int width, int height, int i,
                        int j, int sx[3], int sy[3], float value[3][3][4], float near[3][3]) {
  const int x0 = cavr_refine_line(i, width), x1 = cavr_refine_line(i + 1, width);
  const int y0 = cavr_refine_line(j, height), y1 = cavr_refine_line(j + 1, height);
  const int nx = sub_lines(x0, x1, sx), ny = sub_lines(y0, y1, sy);
  /* The corners first (pilot points: always rendered), then the edges' midpoints, then the centre. */
  for (int pass = 0; pass < 3; ++pass)
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) {
        const int midX = a > 0 && a + 1 < nx, midY = b > 0 && b + 1 < ny;
        if (midX + midY != pass) continue;
        const size_t p = (size_t)sy[b] * width + sx[a];
        if (mask[p] || pass == 0) {
          for (int c = 0; c < 4; ++c) value[b][a][c] = rgbaf[4 * p + c];
          if (near) near[b][a] = depth[p];
          continue;
        }
        /* Parents: the two corners of the edge, or (the centre) the four corners of the cell. */
        const int ax[2] = {midX ? 0 : a, midX ? nx - 1 : a}, by[2] = {midY ? 0 : b, midY ? ny - 1 : b};
        float d = 1.0f;
        for (int c = 0; c < 4; ++c) {
          float sum = 0.0f;
          for (int v = 0; v < 2; ++v)
            for (int u = 0; u < 2; ++u) sum += value[by[v]][ax[u]][c];
          value[b][a][c] = 0.25f * sum;
        }
        for (int v = 0; v < 2 && near; ++v)
          for (int u = 0; u < 2; ++u) d = mn(d, near[by[v]][ax[u]]);
        if (near) near[b][a] = d;
      }
  return nx + 4 * ny;
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

/* 1 when cell [x0, x1] x [y0, y1] has four equal corners and no other point of its lattice rendered: then its
   whole lattice holds the corners' value (cavr_refine_lattice). */
int cavr_refine_flat_cell(const float *rgbaf, const uint8_t *mask, int width, int x0, int x1, int y0, int y1) {
  const float *a = rgbaf + 4 * ((size_t)y0 * width + x0), *b = rgbaf + 4 * ((size_t)y0 * width + x1),
              *c = rgbaf + 4 * ((size_t)y1 * width + x0), *d = rgbaf + 4 * ((size_t)y1 * width + x1);
  for (int k = 0; k < 4; ++k)
    if (a[k] != b[k] || a[k] != c[k] || a[k] != d[k]) return 0;
  int sx[3], sy[3];
  const int nx = sub_lines(x0, x1, sx), ny = sub_lines(y0, y1, sy);
  for (int v = 0; v < ny; ++v)
    for (int u = 0; u < nx; ++u) {
      const int corner = (u == 0 || u == nx - 1) && (v == 0 || v == ny - 1);
      if (!corner && mask[(size_t)sy[v] * width + sx[u]]) return 0;
    }
  return 1;
}

/* Level 2's rank keys in bins of the float's bits: 128 per octave (0.5% apart) from 2^-32 to 2^4 (smaller keys
   share bin 0, larger ones the top bin). Positive floats' bits grow with their value. */
enum { KEY_BINS = 36 * 128 };
static int key_bin(float key) {
  uint32_t bits;
  memcpy(&bits, &key, sizeof bits);
  const int b = (int)(bits >> 16) - ((127 - 32) << 7);
  return b < 0 ? 0 : (b >= KEY_BINS ? KEY_BINS - 1 : b);
}

/* Level 2, the candidates' scores in scratch, their costs after the residuals: highest keys first while the rays
   and the work last (whole bins, then the cut bin in candidate order until the work is reached), none in a bin
   below keyFloor's. */
static long take_by_cost(const float *key, const float *cost, const uint32_t *order, size_t n, long budget,
                         double work, float keyFloor, uint8_t *mask, uint32_t *list) {
  uint32_t count[KEY_BINS];
  double spend[KEY_BINS];
  memset(count, 0, sizeof count);
  memset(spend, 0, sizeof spend);
  for (size_t k = 0; k < n; ++k) {
    const int b = key_bin(key[k]);
    ++count[b];
    spend[b] += cost[k];
  }
  long rays = 0;
  double spent = 0.0;
  int cut = KEY_BINS - 1;
  const int floorBin = keyFloor > 0.0f ? key_bin(keyFloor) : 0;
  for (; cut >= floorBin && rays + (long)count[cut] <= budget && spent + spend[cut] <= work; --cut)
    rays += (long)count[cut], spent += spend[cut];
  long marked = 0;
  for (size_t k = 0; k < n; ++k) {
    const int b = key_bin(key[k]);
    if (b < cut || b < floorBin) continue;
    if (b == cut) {
      if (rays >= budget || !(spent < work)) continue;
      ++rays, spent += cost[k];
    }
    mask[order[k]] = 1;
    if (list) list[marked] = order[k];
    ++marked;
  }
  return marked;
}

/* What cavr_refine_mask's candidate search reads and writes (see there). */
typedef struct Gather {
  const float *rgbaf, *hmax;
  const uint32_t *raySamples;
  const uint8_t *mask;
  float *scratch, *cost;
  uint32_t *order;
  float threshold, rayCost;
  int width, height, level, lastBin, cx, cy;
} Gather;

enum { SCORE_BINS = 4096 }; /* level 1's scores in 1/4096 bins (larger ones share the top bin) */
static int score_bin(float sc) { /* NaN: bin 0 */
  return sc >= 1.0f ? SCORE_BINS - 1 : (sc > 0.0f ? (int)(sc * (float)(SCORE_BINS - 1)) : 0);
}

/* The candidates of the cell rows [j0, j1), written from index n0 on (returns the index after the last), cell by
   cell (rows of cells, then a cell's pixels row by row): every pixel without a ray, at level 1 on the cells' finer
   lattice (every second row and column), at level 2 off it, whose score (the range of the values its interpolation
   comes from: the two ends of its edge or the four corners around it, rendered pixels or their own interpolation,
   cavr_refine_lattice) falls in a bin above lastBin (level 1) or exceeds the threshold (level 2: its rank key in
   scratch, its cost in cost). */
static size_t gather(const Gather *g, int j0, int j1, size_t n0) {
  const float *rgbaf = g->rgbaf, *hmax = g->hmax, threshold = g->threshold, rayCost = g->rayCost;
  const uint32_t *raySamples = g->raySamples;
  const uint8_t *mask = g->mask;
  float *scratch = g->scratch, *cost = g->cost;
  uint32_t *order = g->order;
  const int width = g->width, height = g->height, level = g->level, lastBin = g->lastBin, cx = g->cx, cy = g->cy;
  enum { BINS = SCORE_BINS };
  size_t n = n0;
  for (int j = j0; j < j1; ++j) {
    const int y0 = cavr_refine_line(j, height), y1 = cavr_refine_line(j + 1, height), yEnd = j + 1 == cy ? y1 + 1 : y1;
    for (int i = 0; i < cx; ++i) {
      const int x0 = cavr_refine_line(i, width), x1 = cavr_refine_line(i + 1, width), xEnd = i + 1 == cx ? x1 + 1 : x1;
      if (cavr_refine_flat_cell(rgbaf, mask, width, x0, x1, y0, y1)) continue;
      int sx[3], sy[3];
      float value[3][3][4];
      const int nn = cavr_refine_lattice(rgbaf, NULL, mask, width, height, i, j, sx, sy, value, NULL), nx = nn % 4,
                ny = nn / 4;
      /* No score in a cell exceeds the range of its lattice: flat cells (the background) are skipped. */
      float cell = 0.0f;
      for (int c = 0; c < 4; ++c) {
        float lo = value[0][0][c], hi = lo;
        for (int b = 0; b < ny; ++b)
          for (int a = 0; a < nx; ++a) lo = mn(lo, value[b][a][c]), hi = mx(hi, value[b][a][c]);
        cell = mx(cell, hi - lo);
      }
      if (level == 1 ? !(cell * (float)(BINS - 1) >= (float)(lastBin + 1)) : !(cell > threshold)) continue;
      /* Level 2: the samples of each lattice point's ray, or its parents' mean (the corners': always rendered). */
      float samples[3][3] = {{0.0f}};
      for (int b = 0; b < ny && level == 2 && raySamples; ++b)
        for (int a = 0; a < nx; ++a) {
          const int midX = a > 0 && a + 1 < nx, midY = b > 0 && b + 1 < ny;
          const size_t p = (size_t)sy[b] * width + sx[a];
          if (mask[p] || !(midX || midY)) {
            samples[b][a] = (float)raySamples[p];
            continue;
          }
          const int a0 = midX ? 0 : a, a1 = midX ? nx - 1 : a, b0 = midY ? 0 : b, b1 = midY ? ny - 1 : b;
          samples[b][a] = 0.25f * ((float)raySamples[(size_t)sy[b0] * width + sx[a0]] +
                                   (float)raySamples[(size_t)sy[b0] * width + sx[a1]] +
                                   (float)raySamples[(size_t)sy[b1] * width + sx[a0]] +
                                   (float)raySamples[(size_t)sy[b1] * width + sx[a1]]);
        }
      for (int y = y0, b = 0; y < yEnd; ++y) {
        while (b + 2 < ny && y >= sy[b + 1]) ++b;
        const int onY = y == sy[b] ? b : (y == sy[b + 1] ? b + 1 : -1);
        if (level == 1 && onY < 0) continue;
        for (int x = x0, a = 0; x < xEnd; ++x) {
          while (a + 2 < nx && x >= sx[a + 1]) ++a;
          const size_t p = (size_t)y * width + x;
          if (mask[p]) continue;
          const int onX = x == sx[a] ? a : (x == sx[a + 1] ? a + 1 : -1);
          if ((level == 1) != (onX >= 0 && onY >= 0)) continue; /* level 1: the lattice; level 2: the rest */
          const float *v[4];
          int u[4][2] = {{0}}; /* level 2: v's lattice indices (b, a) */
          if (level == 1) { /* the two corners of its edge, or the cell's four corners for the centre */
            const int midX = onX > 0 && onX + 1 < nx, midY = onY > 0 && onY + 1 < ny;
            const int ax0 = midX ? 0 : onX, ax1 = midX ? nx - 1 : onX, by0 = midY ? 0 : onY, by1 = midY ? ny - 1 : onY;
            v[0] = value[by0][ax0], v[1] = value[by0][ax1], v[2] = value[by1][ax0], v[3] = value[by1][ax1];
          } else {
            /* on a horizontal edge of its 2x2 sub-cell: the two ends; on a vertical one likewise; else the corners */
            const int a0 = onX >= 0 ? onX : a, a1 = onX >= 0 ? onX : a + 1, b0 = onY >= 0 ? onY : b,
                      b1 = onY >= 0 ? onY : b + 1;
            const int at[4][2] = {{b0, a0}, {b0, a1}, {b1, a0}, {b1, a1}};
            for (int t = 0; t < 4; ++t) v[t] = value[at[t][0]][at[t][1]], u[t][0] = at[t][0], u[t][1] = at[t][1];
          }
          float sc = 0.0f;
          for (int c = 0; c < 4; ++c) {
            const float hi = mx(mx(v[0][c], v[1][c]), mx(v[2][c], v[3][c]));
            sc = mx(sc, hi - mn(mn(v[0][c], v[1][c]), mn(v[2][c], v[3][c])));
          }
          if (level == 2) { /* (the range + the largest residual of the lattice points within 2 pixels)^2 / cost */
            if (!(sc > threshold)) continue;
            const int w0 = y - 2 > 0 ? y - 2 : 0, w1 = y + 2 < height - 1 ? y + 2 : height - 1;
            float e = 0.0f;
            for (int v = w0; v <= w1; ++v)
              if (!(v % 2) || v == height - 1) e = mx(e, hmax[(size_t)((v + 1) / 2) * width + x]);
            float s = 0.0f;
            for (int t = 0; t < 4; ++t) s += samples[u[t][0]][u[t][1]];
            cost[n] = rayCost + 0.25f * s;
            order[n] = (uint32_t)p;
            scratch[n] = (sc + e) * (sc + e) / cost[n];
            ++n;
            continue;
          }
          if (score_bin(sc) <= lastBin) continue;
          order[n] = (uint32_t)p;
          scratch[n++] = sc;
        }
      }
    }
  }
  return n;
}

/* Bands of 4 cell rows on up to `threads` threads (the caller one of them), taken in turn: fn(ctx, band, j0, j1)
   for the cell rows [j0, j1) of each band; a band's work must not depend on which thread does it. */
typedef struct BandTask {
  void (*fn)(void *ctx, int band, int j0, int j1);
  void *ctx;
  int bands, cy;
  atomic_int next;
} BandTask;

static void *band_worker(void *arg) {
  BandTask *t = (BandTask *)arg;
  for (int b; (b = atomic_fetch_add(&t->next, 1)) < t->bands;)
    t->fn(t->ctx, b, 4 * b, 4 * b + 4 < t->cy ? 4 * b + 4 : t->cy);
  return NULL;
}

static void run_bands(void (*fn)(void *, int, int, int), void *ctx, int cy, int threads) {
  BandTask t;
  t.fn = fn;
  t.ctx = ctx;
  t.cy = cy;
  t.bands = (cy + 3) / 4;
  atomic_init(&t.next, 0);
  if (threads > t.bands) threads = t.bands;
  pthread_t *ids = threads > 1 ? (pthread_t *)malloc(sizeof(pthread_t) * (size_t)threads) : NULL;
  int started = 0;
  for (int i = 1; ids && i < threads; ++i) { /* fewer threads if the system refuses (or no memory for ids) */
    if (pthread_create(&ids[i], NULL, band_worker, &t) != 0) break;
    started = i;
  }
  band_worker(&t);
  for (int i = 1; i <= started; ++i) pthread_join(ids[i], NULL);
  free(ids);
}

/* The candidate search's bands: each band's candidates written from its first pixel's index on (a band never has
   more candidates than pixels), end[band] = the index after its last. */
typedef struct GatherBands {
  const Gather *g;
  size_t *end;
} GatherBands;

static void gather_band(void *ctx, int band, int j0, int j1) {
  GatherBands *b = (GatherBands *)ctx;
  b->end[band] = gather(b->g, j0, j1, (size_t)cavr_refine_line(j0, b->g->height) * (size_t)b->g->width);
}

/* The candidates of the whole image in cell order on up to `threads` threads: the bands' lists joined in order, so
   the list is the one thread's whatever the count. Returns their number. */
static size_t gather_all(const Gather *g, int threads) {
  const int bands = (g->cy + 3) / 4;
  size_t *end = threads > 1 && bands > 1 ? (size_t *)malloc(sizeof(size_t) * (size_t)bands) : NULL;
  if (!end) return gather(g, 0, g->cy, 0); /* one thread (or no memory for more) */
  GatherBands gb = {g, end};
  run_bands(gather_band, &gb, g->cy, threads);
  size_t n = 0;
  for (int b = 0; b < bands; ++b) {
    const size_t first = (size_t)cavr_refine_line(4 * b, g->height) * (size_t)g->width, k = end[b] - first;
    if (k && first != n) {
      memmove(g->order + n, g->order + first, sizeof(uint32_t) * k);
      memmove(g->scratch + n, g->scratch + first, sizeof(float) * k);
      if (g->level == 2) memmove(g->cost + n, g->cost + first, sizeof(float) * k);
    }
    n += k;
  }
  free(end);
  return n;
}

/* Level 2's neighbourhood residuals, for the cell rows [j0, j1) (see cavr_refine_mask): the residual of each
   rendered lattice point that is not a corner (max over RGBA of |value - the mean of its parents|, 0 elsewhere) on
   the lattice's grid (index (x + 1) / 2 per axis), then per lattice row and pixel column x the largest residual of
   that row's lattice points within 2 pixels of x. A band writes only its own lattice rows: those of its cells but
   their last (the next band's first), which the image's last cell row keeps. */
typedef struct Residuals {
  const float *rgbaf;
  const uint8_t *mask;
  float *residual, *hmax;
  int width, height, cx, cy;
} Residuals;

static void residual_band(void *ctx, int band, int j0, int j1) {
  (void)band;
  const Residuals *r = (const Residuals *)ctx;
  const int width = r->width, height = r->height, lw = width / 2 + 1;
  const float *rgbaf = r->rgbaf;
  const uint8_t *mask = r->mask;
  /* The band's lattice rows [g0, g1): the even pixel rows from its first line, and the image's last row in the last
     band. */
  const int g0 = cavr_refine_line(j0, height) / 2, g1 = j1 == r->cy ? height / 2 + 1 : cavr_refine_line(j1, height) / 2;
  memset(r->residual + (size_t)g0 * lw, 0, sizeof(float) * (size_t)lw * (size_t)(g1 - g0));
  for (int j = j0; j < j1; ++j)
    for (int i = 0; i < r->cx; ++i) {
      int sx[3], sy[3];
      const int nx = sub_lines(cavr_refine_line(i, width), cavr_refine_line(i + 1, width), sx),
                ny = sub_lines(cavr_refine_line(j, height), cavr_refine_line(j + 1, height), sy);
      const float *corner[4] = {rgbaf + 4 * ((size_t)sy[0] * width + sx[0]),
                                rgbaf + 4 * ((size_t)sy[0] * width + sx[nx - 1]),
                                rgbaf + 4 * ((size_t)sy[ny - 1] * width + sx[0]),
                                rgbaf + 4 * ((size_t)sy[ny - 1] * width + sx[nx - 1])};
      const int rows = j + 1 == r->cy ? ny : ny - 1;
      for (int b = 0; b < rows; ++b)
        for (int a = 0; a < nx; ++a) {
          const int midX = a > 0 && a + 1 < nx, midY = b > 0 && b + 1 < ny;
          const size_t p = (size_t)sy[b] * width + sx[a];
          if (!(midX || midY) || !mask[p]) continue;
          /* Parents: the two corners of its edge, or the four corners for the centre. */
          const int u0 = midX ? 0 : (a ? 1 : 0), u1 = midX ? 1 : u0, v0 = midY ? 0 : (b ? 1 : 0), v1 = midY ? 1 : v0;
          float e = 0.0f;
          for (int c = 0; c < 4; ++c) {
            const float mean = 0.25f * (corner[2 * v0 + u0][c] + corner[2 * v0 + u1][c] + corner[2 * v1 + u0][c] +
                                        corner[2 * v1 + u1][c]);
            e = mx(e, fabsf(rgbaf[4 * p + c] - mean));
          }
          r->residual[(size_t)((sy[b] + 1) / 2) * lw + (sx[a] + 1) / 2] = e;
        }
    }
  for (int g = g0; g < g1; ++g) {
    const float *res = r->residual + (size_t)g * lw;
    float *out = r->hmax + (size_t)g * width;
    for (int x = 0; x < width; ++x) {
      if (x >= 2 && x + 3 < width) { /* inside: the lattice columns x - 2, x, x + 2 (x even) or x - 1, x + 1 */
        out[x] = x % 2 ? mx(res[x / 2], res[x / 2 + 1]) : mx(mx(res[x / 2 - 1], res[x / 2]), res[x / 2 + 1]);
        continue;
      }
      const int u0 = x - 2 > 0 ? x - 2 : 0, u1 = x + 2 < width - 1 ? x + 2 : width - 1;
      float e = 0.0f;
      for (int u = u0; u <= u1; ++u)
        if (!(u % 2) || u == width - 1) e = mx(e, res[(u + 1) / 2]);
      out[x] = e;
    }
  }
}

long cavr_refine_mask(const float *rgbaf, int width, int height, int level, float threshold, long budget,
                      const uint32_t *raySamples, float rayCost, double work, float keyFloor, uint8_t *mask,
                      uint32_t *list, float *scratch, uint32_t *order, int threads) {
  if (width < 2 || height < 2 || !rgbaf || !mask || !scratch || !order || (level != 1 && level != 2) || budget < 0 ||
      !(rayCost >= 1.0f) || !(keyFloor >= 0.0f))
    return -1;
  const int cx = cavr_refine_cells_per_axis(width), cy = cavr_refine_cells_per_axis(height);
  /* Scores in 1/4096 bins (scores are in [0, 1] for colours in [0, 1]; larger ones share the top bin). */
  enum { BINS = SCORE_BINS };
  int lastBin = (int)(threshold * (float)(BINS - 1)); /* units in bins <= lastBin are never refined */
  if (lastBin < 0) lastBin = 0;
  if (lastBin > BINS - 1) lastBin = BINS - 1;
  /* Level 2: the residuals of the rendered lattice points and their per-row maxima (residual_band), on the
     lattice's grid after the candidates' scores and costs in scratch. */
  const int lw = width / 2 + 1;
  float *residual = scratch + (size_t)width * height, *cost = residual + (size_t)lw * (size_t)(height / 2 + 1);
  float *hmax = cost + (size_t)width * height;
  if (level == 2) {
    Residuals r = {rgbaf, mask, residual, hmax, width, height, cx, cy};
    run_bands(residual_band, &r, cy, threads);
  }
  const Gather g = {rgbaf, hmax, raySamples, mask, scratch, cost, order, threshold, rayCost,
                   width, height, level, lastBin, cx, cy};
  const size_t n = gather_all(&g, threads);
  if (level == 2) return take_by_cost(scratch, cost, order, n, budget, work, keyFloor, mask, list);
  uint32_t count[BINS]; /* level 1: candidates per score bin */
  memset(count, 0, sizeof count);
  for (size_t k = 0; k < n; ++k) ++count[score_bin(scratch[k])];
  /* Highest bins first, within budget: every candidate of the bins above the cut, then those of the cut's bin in
     candidate order while the budget lasts. */
  long total = 0;
  int cut = BINS - 1;
  for (; cut > lastBin && total + (long)count[cut] <= budget; --cut) total += (long)count[cut];
  long room = budget - total, marked = 0;
  for (size_t k = 0; k < n; ++k) {
    const float sc = scratch[k];
    const int bin = score_bin(sc);
    if (bin < cut || bin <= lastBin) continue;
    if (bin == cut) {
      if (room <= 0) continue;
      --room;
    }
    mask[order[k]] = 1;
    if (list) list[marked] = order[k];
    ++marked;
  }
  return marked;
}

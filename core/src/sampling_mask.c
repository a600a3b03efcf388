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

#include "sampling_mask.h"

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

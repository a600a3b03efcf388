// SPDX-License-Identifier: BSD-3-Clause
/*
 * Sampling masks by linear pixel shuffling (Anderson 1993): the order visits every pixel once, the
 * fraction is exact, and the pattern is well spread: the largest empty square at 25% of the pixels is
 * small and smaller than for a random mask with the same count. Refinement sampling (REFINE): the
 * pilot grid, the cells and sub-cells refined on synthetic images, budgets, and the interpolation of a ramp.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "reconstruct.h"
#include "sampling_mask.h"

/* Side of the largest square with no marked pixel (dynamic programming). */
static int largest_empty_square(const uint8_t *m, int w, int h) {
  int *dp = calloc((size_t)(w + 1) * (h + 1), sizeof(int)), best = 0;
  for (int y = 1; y <= h; ++y)
    for (int x = 1; x <= w; ++x) {
      if (m[(size_t)(y - 1) * w + (x - 1)]) continue;
      int up = dp[(size_t)(y - 1) * (w + 1) + x], left = dp[(size_t)y * (w + 1) + x - 1],
          diag = dp[(size_t)(y - 1) * (w + 1) + x - 1];
      int v = 1 + (up < left ? (up < diag ? up : diag) : (left < diag ? left : diag));
      dp[(size_t)y * (w + 1) + x] = v;
      best = v > best ? v : best;
    }
  free(dp);
  return best;
}

/* Refinement sampling (CAVR_RECONSTRUCTION_REFINE) on synthetic images, where the answer is known. */
static void refinement(void) {
  /* Grid lines: multiples of 4 and the last pixel; 2 pixels at least. */
  CHECK(cavr_refine_cells_per_axis(2) == 1 && cavr_refine_cells_per_axis(5) == 1 && cavr_refine_cells_per_axis(6) == 2);
  CHECK(cavr_refine_cells_per_axis(512) == 128 && cavr_refine_line(128, 512) == 511 && cavr_refine_line(3, 512) == 12);
  const int W = 37, H = 23, N = W * H; /* odd sizes: narrow last cells */
  uint8_t *mask = malloc(N);
  uint32_t *list = malloc(sizeof(uint32_t) * N), *order = malloc(sizeof(uint32_t) * N); /* candidates: pixels */
  float *img = malloc(sizeof(float) * 4 * N), *scratch = malloc(sizeof(float) * cavr_refine_mask_scratch_floats(W, H));
  CHECK(cavr_refine_pilot_mask(1, 5, mask, list) == -1);
  const long pilot = cavr_refine_pilot_mask(W, H, mask, list);
  CHECK(pilot == (long)(cavr_refine_cells_per_axis(W) + 1) * (cavr_refine_cells_per_axis(H) + 1));
  long set = 0;
  for (int p = 0; p < N; ++p) {
    const int x = p % W, y = p / W, onX = x % 4 == 0 || x == W - 1, onY = y % 4 == 0 || y == H - 1;
    CHECK(mask[p] == (onX && onY));
    set += mask[p];
  }
  CHECK(set == pilot);
  /* A linear ramp: with budget 0 nothing is refined, and the bilinear interpolation of the pilot reproduces
     the ramp in every pixel (clamped to [0, 1], 8-bit plane consistent, depth the nearest corner's). */
  float *depth = malloc(sizeof(float) * N);
  uint8_t *rgba8 = malloc(4 * (size_t)N);
  for (int p = 0; p < N; ++p) {
    const int x = p % W, y = p / W;
    for (int c = 0; c < 4; ++c) img[4 * p + c] = mask[p] ? 0.01f * x + 0.02f * y * (c + 1) / 4.0f : -1.0f;
    depth[p] = mask[p] ? 0.5f + 0.001f * x : -1.0f;
  }
  CHECK(cavr_refine_mask(img, W, H, 1, 0.0f, 0, NULL, 1.0f, 0, 0.0f, mask, list, scratch, order, 1) == 0);
  for (int pass = 0; pass < 2; ++pass)
    cavr_refine_interpolate(mask, W, H, 0, cavr_refine_cells_per_axis(H), pass, img, rgba8, depth, NULL);
  for (int p = 0; p < N; ++p) {
    const int x = p % W, y = p / W;
    for (int c = 0; c < 4; ++c) {
      CHECK(fabsf(img[4 * p + c] - (0.01f * x + 0.02f * y * (c + 1) / 4.0f)) < 1e-5f);
      CHECK(mask[p] || rgba8[4 * p + c] == (uint8_t)(img[4 * p + c] * 255.0f + 0.5f));
    }
    CHECK(depth[p] >= 0.5f && depth[p] <= 0.5f + 0.001f * x + 1e-6f); /* the nearest corner's */
  }
  /* A step (0 left of x = 10, 1 from x = 10 on) at the grid points: only the cells across it differ (x in
     [8, 12]); level 1 marks their points on every second row and column (x = 8, 10, 12), level 2 then the 2x2
     sub-cells across the step (x in [8, 10]); nothing else, and every new pixel is listed once. */
  cavr_refine_pilot_mask(W, H, mask, list);
  for (int p = 0; p < N; ++p)
    for (int c = 0; c < 4; ++c) img[4 * p + c] = mask[p] ? (p % W >= 10 ? 1.0f : 0.0f) : -1.0f;
  const long l1 = cavr_refine_mask(img, W, H, 1, 2.0f / 255.0f, N, NULL, 1.0f, N, 0.0f, mask, list, scratch, order, 1);
  CHECK(l1 > 0);
  for (long k = 0; k < l1; ++k) {
    const int x = (int)(list[k] % W), y = (int)(list[k] / W);
    CHECK(x >= 8 && x <= 12 && (x % 2 == 0 || x == W - 1) && (y % 2 == 0 || y == H - 1) && mask[list[k]] == 1);
    for (long j = 0; j < k; ++j) CHECK(list[j] != list[k]);
  }
  for (int p = 0; p < N; ++p) /* the level-1 points now rendered */
    if (mask[p])
      for (int c = 0; c < 4; ++c) img[4 * p + c] = p % W >= 10 ? 1.0f : 0.0f;
  const long l2 = cavr_refine_mask(img, W, H, 2, 2.0f / 255.0f, N, NULL, 1.0f, N, 0.0f, mask, list, scratch, order, 1);
  CHECK(l2 > 0);
  for (long k = 0; k < l2; ++k) CHECK((int)(list[k] % W) >= 8 && (int)(list[k] % W) <= 10);
  /* A budget is never exceeded. */
  cavr_refine_pilot_mask(W, H, mask, list);
  CHECK(cavr_refine_mask(img, W, H, 1, 2.0f / 255.0f, 7, NULL, 1.0f, 7, 0.0f, mask, list, scratch, order, 1) <= 7);
  CHECK(cavr_refine_mask(img, W, H, 3, 0.0f, 7, NULL, 1.0f, 7, 0.0f, mask, list, scratch, order, 1) == -1);
  free(mask), free(list), free(order), free(img), free(scratch), free(depth), free(rgba8);
}

/* The candidate search on several threads gives the one thread's marks and list (bands of cell rows joined in order):
   a textured image over 9 bands, both levels, with samples per ray, budgets that cut inside a bin. */
static void threads_agree(void) {
  const int W = 93, H = 141, N = W * H;
  float *img = malloc(sizeof(float) * 4 * N), *scratch = malloc(sizeof(float) * cavr_refine_mask_scratch_floats(W, H));
  uint8_t *m1 = malloc(N), *m3 = malloc(N);
  uint32_t *l1 = malloc(sizeof(uint32_t) * N), *l3 = malloc(sizeof(uint32_t) * N), *order = malloc(sizeof(uint32_t) * N),
           *samples = malloc(sizeof(uint32_t) * N);
  uint32_t seed = 12345u;
  for (int p = 0; p < N; ++p) {
    for (int c = 0; c < 4; ++c) {
      seed = seed * 1664525u + 1013904223u;
      img[4 * p + c] = (float)(seed >> 8) / 16777216.0f * (p % W < W / 3 ? 0.0f : 1.0f); /* flat on the left */
    }
    samples[p] = (uint32_t)(p % 97);
  }
  cavr_refine_pilot_mask(W, H, m1, l1);
  cavr_refine_pilot_mask(W, H, m3, l3);
  for (int level = 1; level <= 2; ++level) {
    const long budget = level == 1 ? 900 : 2000;
    const float t = 2.0f / 255.0f;
    const double work = 40000.0;
    const long a = cavr_refine_mask(img, W, H, level, t, budget, samples, 12.0f, work, 0.0f, m1, l1, scratch, order, 1);
    const long b = cavr_refine_mask(img, W, H, level, t, budget, samples, 12.0f, work, 0.0f, m3, l3, scratch, order, 3);
    CHECK(a > 100 && a == b && a <= budget);
    CHECK(memcmp(l1, l3, sizeof(uint32_t) * (size_t)a) == 0 && memcmp(m1, m3, (size_t)N) == 0);
  }
  free(img), free(scratch), free(m1), free(m3), free(l1), free(l3), free(order), free(samples);
}

/* Level 2's key floor: a higher floor marks a subset of a lower one's pixels (the work and the budget do not bind
   here), a floor above every key marks none, some floor in between marks some but not all, a floor below the keys
   the work reaches changes nothing (the work cuts inside a bin above it), and a negative floor is refused. Textured
   image, samples per ray, level 1 first. */
static void key_floor(void) {
  const int W = 93, H = 141, N = W * H;
  float *img = malloc(sizeof(float) * 4 * N), *scratch = malloc(sizeof(float) * cavr_refine_mask_scratch_floats(W, H));
  uint8_t *base = malloc(N), *lo = malloc(N), *hi = malloc(N);
  uint32_t *list = malloc(sizeof(uint32_t) * N), *order = malloc(sizeof(uint32_t) * N),
           *samples = malloc(sizeof(uint32_t) * N);
  uint32_t seed = 777u;
  for (int p = 0; p < N; ++p) {
    for (int c = 0; c < 4; ++c) {
      seed = seed * 1664525u + 1013904223u;
      img[4 * p + c] = (float)(seed >> 8) / 16777216.0f * (float)(p % W) / (float)W; /* grows to the right */
    }
    samples[p] = 20u + (uint32_t)(p % 181);
  }
  cavr_refine_pilot_mask(W, H, base, list);
  const float t = 2.0f / 255.0f;
  CHECK(cavr_refine_mask(img, W, H, 1, t, N, samples, 12.0f, 1e12, 0.0f, base, list, scratch, order, 1) > 0);
  const float floors[] = {0.0f, 1e-6f, 1e-5f, 3e-5f, 1e-4f, 3e-4f, 1e-3f, 1e9f};
  enum { F = sizeof floors / sizeof floors[0] };
  long counts[F];
  int between = 0;
  for (int f = 0; f < F; ++f) {
    memcpy(hi, base, (size_t)N);
    counts[f] = cavr_refine_mask(img, W, H, 2, t, N, samples, 12.0f, 1e12, floors[f], hi, list, scratch, order, 1);
    CHECK(counts[f] >= 0);
    if (f > 0) {
      CHECK(counts[f] <= counts[f - 1]);
      for (int p = 0; p < N; ++p) CHECK(!hi[p] || lo[p]); /* marked above the floor: marked below it too */
    }
    between |= counts[f] > 0 && counts[f] < counts[0];
    memcpy(lo, hi, (size_t)N);
  }
  CHECK(counts[0] > 100 && counts[F - 1] == 0 && between);
  /* Little work: the cut lies high, far above a floor of 1e-6, which then marks exactly what no floor marks. */
  memcpy(lo, base, (size_t)N);
  memcpy(hi, base, (size_t)N);
  const long none = cavr_refine_mask(img, W, H, 2, t, N, samples, 12.0f, 3000.0, 0.0f, lo, list, scratch, order, 1);
  const long low = cavr_refine_mask(img, W, H, 2, t, N, samples, 12.0f, 3000.0, 1e-6f, hi, list, scratch, order, 1);
  CHECK(none > 0 && none < counts[0] / 4 && low == none && memcmp(lo, hi, (size_t)N) == 0);
  CHECK(cavr_refine_mask(img, W, H, 2, t, N, samples, 12.0f, 1e12, -1.0f, base, list, scratch, order, 1) == -1);
  free(img), free(scratch), free(base), free(lo), free(hi), free(list), free(order), free(samples);
}

int main(void) {
  refinement();
  threads_agree();
  key_floor();
  /* Anderson's sequence 0 1 1 1 2 3 4 6 9 13 19 28 41 60 88 ...: the side is the first term >= the size. */
  int n;
  CHECK(cavr_lps_side(88, 10, &n) == 88 && n == 14);
  CHECK(cavr_lps_side(89, 89, NULL) == 129);
  CHECK(cavr_lps_side(1024, 768, NULL) == 1278);
  /* The order is a bijection: at fraction 1 every pixel of the padded square (and of any image) is marked. */
  const int sizes[4][2] = {{88, 88}, {129, 129}, {100, 37}, {1, 1}};
  for (int s = 0; s < 4; ++s) {
    int w = sizes[s][0], h = sizes[s][1];
    uint8_t *m = malloc((size_t)w * h);
    CHECK(cavr_lps_mask(w, h, 1.0, m) == (long)w * h);
    for (int i = 0; i < w * h; ++i) CHECK(m[i] == 1);
    free(m);
  }
  /* Exact fractions, deterministic. */
  const int W = 256, H = 256;
  uint8_t *m = malloc((size_t)W * H), *m2 = malloc((size_t)W * H), *r = malloc((size_t)W * H);
  const double fractions[6] = {0.1, 0.2, 0.25, 0.3, 0.5, 0.8};
  for (int k = 0; k < 6; ++k) {
    long count = cavr_lps_mask(W, H, fractions[k], m);
    long marked = 0;
    for (int i = 0; i < W * H; ++i) marked += m[i];
    CHECK(count == marked && count == (long)llround(fractions[k] * W * H));
    CHECK(cavr_lps_mask(W, H, fractions[k], m2) == count && memcmp(m, m2, (size_t)W * H) == 0);
  }
  /* Spread at 25%: compare with a pseudo-random mask of the same count. */
  long count = cavr_lps_mask(W, H, 0.25, m);
  memset(r, 0, (size_t)W * H);
  unsigned long long state = 12345;
  for (long placed = 0; placed < count;) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t p = (size_t)(state >> 33) % ((size_t)W * H);
    if (!r[p]) {
      r[p] = 1;
      ++placed;
    }
  }
  int lps = largest_empty_square(m, W, H), rnd = largest_empty_square(r, W, H);
  printf("25%% of 256x256: largest empty square %d (linear pixel shuffling) vs %d (random)\n", lps, rnd);
  CHECK(lps <= 4); /* at 1 ray per 4 pixels, a perfect grid leaves 1x1 holes; well spread means a few */
  CHECK(lps < rnd);
  CHECK(cavr_lps_mask(0, 5, 0.5, m) == -1 && cavr_lps_mask(5, 5, 0.0, m) == -1 && cavr_lps_mask(5, 5, 1.5, m) == -1);

  /* The whole order is a bijection of the image; its prefix is the mask. */
  {
    const int w = 37, h = 23;
    uint32_t order[37 * 23];
    uint8_t seen[37 * 23] = {0}, pre[37 * 23];
    CHECK(cavr_lps_order(w, h, order) == 0);
    for (int i = 0; i < w * h; ++i) {
      CHECK(order[i] < (uint32_t)(w * h) && !seen[order[i]]);
      seen[order[i]] = 1;
    }
    long k = cavr_lps_mask(w, h, 0.3, pre);
    for (long i = 0; i < w * h; ++i) CHECK(pre[order[i]] == (i < k));
  }
  /* Per-block masks (adaptive sampling): exact counts per block, partial blocks at the edges, and a second
     call adds the next rays of the same order without touching the first ones. */
  {
    const int w = 40, h = 20, bx = 3, by = 2; /* blocks of 16: 16+16+8 by 16+4 */
    uint32_t order[CAVR_MASK_BLOCK * CAVR_MASK_BLOCK];
    CHECK(cavr_lps_order(CAVR_MASK_BLOCK, CAVR_MASK_BLOCK, order) == 0);
    uint16_t first[6] = {0}, count[6] = {5, 32, 40, 3, 1000, 0};
    uint8_t mask[40 * 20] = {0};
    long n = cavr_block_mask(w, h, order, first, count, mask);
    const int inside[6] = {256, 256, 128, 64, 64, 32};
    long want = 0;
    for (int b = 0; b < bx * by; ++b) {
      int expect = count[b] < inside[b] ? count[b] : inside[b], got = 0;
      for (int y = (b / bx) * 16; y < (b / bx) * 16 + 16 && y < h; ++y)
        for (int x = (b % bx) * 16; x < (b % bx) * 16 + 16 && x < w; ++x) got += mask[y * w + x];
      CHECK(got == expect);
      want += expect;
      first[b] = count[b];
      count[b] = 7;
    }
    CHECK(n == want);
    uint8_t more[40 * 20] = {0};
    long added = cavr_block_mask(w, h, order, first, count, more);
    CHECK(added > 0);
    for (int p = 0; p < w * h; ++p) CHECK(!(more[p] && mask[p])); /* new rays only */
  }
  free(m);
  free(m2);
  free(r);
  return 0;
}

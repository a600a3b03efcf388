/*
 * compressive.c - compressive rendering's policy (see compressive.h).
 *
 * Non-adaptive: the first round(f W H) pixels of the linear-pixel-shuffling order of the whole image
 * (Anderson 1993), cached in the frame buffer while the size and fraction stay. Adaptive (thesis sec. 4.3):
 * every 16x16 block first casts min(32, f*256) rays (12.5%), taken in the shuffling order of a 16x16 block;
 * then the rest of the budget goes to the blocks in proportion to the standard deviation of their rendered
 * RGBA (capped by the pixels a block has left), and those rays are cast; then the local solve. The ghost
 * ring of a block is its neighbours' rendered pixels (no extra rays: the thesis's fully rendered ring alone
 * would cost 105 of every 361 pixels, 29%, more than the 25% budget; docs/design.md).
 * Rays are listed tile by tile (CAVR_RAY_TILE) so that a GPU warp takes neighbouring pixels.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compressive.h"
#include "sampling_mask.h"

#if CAVR_RAY_TILE != CAVR_MASK_BLOCK
#error "adaptive sampling lists its rays block by block: ray tiles and mask blocks must coincide"
#endif

static atomic_uint_fast64_t nextStamp = 1;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

void cavr_compressive_free(CAVRFrameBuffer fb) {
  free(fb->sampleMask);
  free(fb->rayPixels);
  free(fb->tileStart);
  fb->sampleMask = NULL;
  fb->rayPixels = fb->tileStart = NULL;
  fb->maskFraction = 0.0f;
}

/* The pixels with mask[p] != 0, tile by tile, into fb->rayPixels / tileStart; returns the count. */
static size_t build_list(CAVRFrameBuffer fb, const uint8_t *mask) {
  const int W = fb->width, H = fb->height, T = CAVR_RAY_TILE, tx = (W + T - 1) / T, ty = (H + T - 1) / T;
  size_t n = 0;
  for (int j = 0; j < ty; ++j)
    for (int i = 0; i < tx; ++i) {
      fb->tileStart[j * tx + i] = (uint32_t)n;
      for (int y = j * T; y < (j + 1) * T && y < H; ++y)
        for (int x = i * T; x < (i + 1) * T && x < W; ++x)
          if (mask[(size_t)y * W + x]) fb->rayPixels[n++] = (uint32_t)((size_t)y * W + x);
    }
  fb->tileStart[tx * ty] = (uint32_t)n;
  return n;
}

typedef struct Ranked {
  double weight;
  int block;
} Ranked;

/* Most varied first; ties by block index, so the order is the same everywhere. */
static int by_weight_desc(const void *a, const void *b) {
  const Ranked *x = (const Ranked *)a, *y = (const Ranked *)b;
  return x->weight < y->weight ? 1 : (x->weight > y->weight ? -1 : x->block - y->block);
}

/* Extra rays per block: `budget` shared in proportion to weight, capped by cap[b]. */
static void share_budget(int blocks, const double *weight, const int *cap, long budget, uint16_t *extra,
                         Ranked *rank) {
  for (int b = 0; b < blocks; ++b) extra[b] = 0;
  for (int round = 0; round < 4 && budget > 0; ++round) {
    double total = 0.0;
    for (int b = 0; b < blocks; ++b)
      if (extra[b] < cap[b]) total += weight[b];
    if (!(total > 0.0)) break;
    long given = 0;
    for (int b = 0; b < blocks; ++b) {
      if (extra[b] >= cap[b]) continue;
      long g = (long)floor((double)budget * weight[b] / total), room = cap[b] - extra[b];
      if (g > room) g = room;
      extra[b] = (uint16_t)(extra[b] + g);
      given += g;
    }
    budget -= given;
    if (!given) break;
  }
  /* What is left: one ray at a time, most varied blocks first, then any block with room. */
  for (int b = 0; b < blocks; ++b) rank[b] = (Ranked){weight[b], b};
  qsort(rank, (size_t)blocks, sizeof(Ranked), by_weight_desc);
  while (budget > 0) {
    long before = budget;
    for (int k = 0; k < blocks && budget > 0; ++k)
      if (extra[rank[k].block] < cap[rank[k].block]) {
        ++extra[rank[k].block];
        --budget;
      }
    if (budget == before) break;
  }
}

void cavr_block_deviation(const float *rgbaf, const uint8_t *mask, int W, int H, double *weight) {
  const int B = CAVR_MASK_BLOCK, bx = (W + B - 1) / B, by = (H + B - 1) / B;
  for (int b = 0; b < bx * by; ++b) {
    int x0 = (b % bx) * B, y0 = (b / bx) * B, n = 0;
    double sum[4] = {0, 0, 0, 0}, sq[4] = {0, 0, 0, 0};
    for (int y = y0; y < y0 + B && y < H; ++y)
      for (int x = x0; x < x0 + B && x < W; ++x) {
        size_t p = (size_t)y * W + x;
        if (!mask[p]) continue;
        ++n;
        for (int c = 0; c < 4; ++c) {
          double v = rgbaf[4 * p + c];
          sum[c] += v;
          sq[c] += v * v;
        }
      }
    double var = 0.0;
    for (int c = 0; c < 4 && n > 0; ++c) var += fmax(0.0, sq[c] / n - (sum[c] / n) * (sum[c] / n));
    weight[b] = sqrt(var);
  }
}

CAVRError cavr_render_compressive(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job0,
                                  CAVRRenderStats *stats) {
  CAVRFrameBuffer fb = job0->fb;
  const CAVRSettingsDesc *s = job0->settings;
  const int W = fb->width, H = fb->height, T = CAVR_RAY_TILE;
  const size_t N = (size_t)W * H;
  if (W < 4 || H < 4) {
    CAVRError e = ops->render(dev, job0, stats);
    stats->raysCast = N;
    return e;
  }
  const int tiles = ((W + T - 1) / T) * ((H + T - 1) / T);
  if (!fb->sampleMask) {
    fb->sampleMask = (uint8_t *)malloc(N);
    fb->rayPixels = (uint32_t *)malloc(sizeof(uint32_t) * N);
    fb->tileStart = (uint32_t *)malloc(sizeof(uint32_t) * (tiles + 1));
    fb->maskFraction = 0.0f;
    if (!fb->sampleMask || !fb->rayPixels || !fb->tileStart) {
      cavr_compressive_free(fb);
      return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for the sampling mask");
    }
  }
  CAVRRenderJob job = *job0;
  CAVRRayList list = {fb->rayPixels, fb->tileStart, 0, 0};
  job.rays = &list;
  job.deviceOnly = 1;
  CAVRError e = CAVR_ERROR_NONE;
  if (!s->adaptive) {
    if (fb->maskFraction != s->sampleFraction || fb->maskAdaptive) {
      if (cavr_lps_mask(W, H, s->sampleFraction, fb->sampleMask) < 0)
        return cavr_set_error(dev, CAVR_ERROR_INVALID_ARGUMENT, "cavrRender: no sampling mask for %dx%d", W, H);
      fb->rayCount = build_list(fb, fb->sampleMask);
      fb->maskFraction = s->sampleFraction;
      fb->maskAdaptive = 0;
      fb->maskStamp = atomic_fetch_add(&nextStamp, 1);
    }
    list.count = fb->rayCount;
    list.stamp = fb->maskStamp;
    e = ops->render(dev, &job, stats);
    stats->raysCast = list.count;
  } else {
    const int B = CAVR_MASK_BLOCK, bx = (W + B - 1) / B, by = (H + B - 1) / B, blocks = bx * by;
    uint32_t order[CAVR_MASK_BLOCK * CAVR_MASK_BLOCK];
    uint16_t *first = (uint16_t *)calloc((size_t)blocks, sizeof(uint16_t)),
             *count = (uint16_t *)calloc((size_t)blocks, sizeof(uint16_t));
    double *weight = (double *)calloc((size_t)blocks, sizeof(double));
    int *cap = (int *)calloc((size_t)blocks, sizeof(int));
    Ranked *rank = (Ranked *)calloc((size_t)blocks, sizeof(Ranked));
    if (!first || !count || !weight || !cap || !rank || cavr_lps_order(B, B, order) != 0) {
      e = cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for adaptive sampling");
      goto adaptive_done;
    }
    const long budget = lround((double)s->sampleFraction * (double)N);
    int k0 = (int)fmin(32.0, round(s->sampleFraction * B * B));
    if (k0 < 1) k0 = 1;
    memset(fb->sampleMask, 0, N);
    for (int b = 0; b < blocks; ++b) count[b] = (uint16_t)k0;
    /* Blocks and ray tiles coincide (both 16 pixels), so the block offsets are the tile offsets. */
    long cast = cavr_block_mask_list(W, H, order, first, count, fb->sampleMask, fb->rayPixels, fb->tileStart);
    list.count = (size_t)cast;
    list.stamp = atomic_fetch_add(&nextStamp, 1);
    /* The block statistics on the back end when it can (the GPU: no image copy), else on the host. */
    job.deviceOnly = ops->blockDeviation ? 1 : 2;
    e = ops->render(dev, &job, stats);
    if (e) goto adaptive_done;
    const uint64_t firstStamp = atomic_fetch_add(&nextStamp, 1);
    if (ops->blockDeviation) {
      e = ops->blockDeviation(dev, &job, fb->sampleMask, firstStamp, weight);
      if (e) goto adaptive_done;
    } else {
      cavr_block_deviation(fb->rgbaf, fb->sampleMask, W, H, weight);
    }
    for (int b = 0; b < blocks; ++b) {
      const int x0 = (b % bx) * B, y0 = (b / bx) * B;
      const int inside = (W - x0 < B ? W - x0 : B) * (H - y0 < B ? H - y0 : B);
      cap[b] = inside - (inside < k0 ? inside : k0);
      first[b] = (uint16_t)k0;
    }
    if (budget > cast) {
      share_budget(blocks, weight, cap, budget - cast, count, rank);
      /* The second pass's rays, marked straight into the mask (which becomes the union of both passes). */
      long more = cavr_block_mask_list(W, H, order, first, count, fb->sampleMask, fb->rayPixels, fb->tileStart);
      if (more > 0) {
        list.count = (size_t)more;
        list.stamp = atomic_fetch_add(&nextStamp, 1);
        job.deviceOnly = 1;
        e = ops->render(dev, &job, stats);
        cast += more;
      }
    }
    stats->raysCast = (uint64_t)cast;
    fb->maskFraction = s->sampleFraction;
    fb->maskAdaptive = 1;
    fb->maskStamp = atomic_fetch_add(&nextStamp, 1);
  adaptive_done:
    free(first), free(count), free(weight), free(cap), free(rank);
  }
  if (e) return e;
  double t0 = now_ms();
  stats->solveMilliseconds = 0.0;
  e = ops->reconstruct(dev, &job, fb->sampleMask, fb->maskStamp, stats);
  if (stats->solveMilliseconds == 0.0) stats->solveMilliseconds = now_ms() - t0;
  return e;
}

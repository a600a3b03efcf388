// SPDX-License-Identifier: BSD-3-Clause
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
  free(fb->refineScratch);
  free(fb->raySamples);
  free(fb->rayFirst);
  fb->refineScratch = NULL;
  fb->raySamples = NULL;
  fb->rayFirst = NULL;
  fb->refineScratchBytes = 0;
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

/* n pixel indices (any order) grouped by CAVR_RAY_TILE tiles into fb->rayPixels / tileStart, keeping their order
   within a tile (a counting sort: work in proportion to n and the tiles, not the image). */
static void list_by_tile(CAVRFrameBuffer fb, const uint32_t *pixels, size_t n) {
  const int W = fb->width, H = fb->height, T = CAVR_RAY_TILE, tx = (W + T - 1) / T, tiles = tx * ((H + T - 1) / T);
  uint32_t *start = fb->tileStart;
  memset(start, 0, sizeof(uint32_t) * (size_t)(tiles + 1));
  for (size_t k = 0; k < n; ++k) ++start[(pixels[k] / (uint32_t)W / T) * tx + pixels[k] % (uint32_t)W / T + 1];
  for (int t = 1; t <= tiles; ++t) start[t] += start[t - 1];
  for (size_t k = 0; k < n; ++k) fb->rayPixels[start[(pixels[k] / (uint32_t)W / T) * tx + pixels[k] % (uint32_t)W / T]++] = pixels[k];
  for (int t = tiles; t > 0; --t) start[t] = start[t - 1];
  start[0] = 0;
}

/* Refinement sampling's constants, chosen by measured PSNR, samples and frame time on the four volumes of
   docs/history/benchmarks-2026-11.md: a pixel gets a ray when the values its interpolation comes from differ
   by more than 2/255 in a channel; the cells where the pilot saw something get at most REFINE_DENSITY x the
   sample fraction of their pixels (the pilot's included); the frame takes at most about REFINE_WORK of the full
   frame's work at a sample fraction of 0.25, in proportion to the fraction otherwise (at most all of it: a
   larger fraction buys a better image; with a fixed share, fractions above 0.25 gave the 0.25 image); level 1
   gets at most REFINE_LEVEL1_SHARE of the rays and of the work left after the pilot, level 2 the rest (0.55 and
   0.34: +5.2 dB over 2x2 rays + bilinear on the CT shoulder, unshaded, at 0.33 of the samples; 0.75 and 0.35
   before the per-pixel levels). Work counts samples plus REFINE_RAY_COST per ray that meets the volume box: a
   ray's set-up and empty-space skipping, which a frame of short rays (the foot: 38 samples a ray against 160-215
   on the other three) spends most of its time on; fitted from the passes' times it is 28-42 samples (foot, CT
   shoulder), and 12 gives each volume about the same frame time per unit of work (docs/history/benchmarks-2026-11.md).
   Shaded frames (their error is the shading's texture, everywhere on the object) take 0.5/255, density 4 and 0.44 of
   the work; unshaded, 0.5/255 lost 0.8 dB on cthead and gained at most 0.02 elsewhere. Level 2 casts no ray whose rank
   key, (score + residual)^2 / cost, is below REFINE_KEY_FLOOR / (the pilot's mean cost of a ray), times (0.25 /
   fraction)^2 above a fraction of 0.25 (so that a larger fraction still buys a better image; below 0.25 the floor
   stays, and the smaller budget binds first): in units of an average ray, a ray must be expected to remove (score +
   residual)^2 >= 0.008 (about 23/255 for the range of its sources and the residual nearby together). Where the image is
   already good the frame stops there instead of spending the rest of the work on rays that change little: cthead shaded
   0.442 -> 0.408 of the work (+6.15 -> +5.56 dB over 2x2 rays + bilinear), unshaded cthead and colin27 0.36-0.37 ->
   0.27-0.29 (still +13.6 dB); the other rows spend their work before any key falls that low (unchanged images). 0.006
   changed nothing, 0.010 left cthead shaded +5.10 dB (docs/history/benchmarks-2026-11.md). */
#define REFINE_THRESHOLD (2.0f / 255.0f)
#define REFINE_THRESHOLD_SHADED (0.5f / 255.0f)
#define REFINE_DENSITY 2.0
#define REFINE_DENSITY_SHADED 4.0
#define REFINE_LEVEL1_SHARE 0.55
#define REFINE_WORK 0.34
#define REFINE_WORK_SHADED 0.44
#define REFINE_RAY_COST 12.0
#define REFINE_KEY_FLOOR 0.008

static atomic_int refineHint = 1;
void cavr_refine_allow_hint(int allowed) { atomic_store(&refineHint, allowed != 0); }
static atomic_int refineKeyFloor = 1;
void cavr_refine_allow_key_floor(int allowed) { atomic_store(&refineKeyFloor, allowed != 0); }

/*
 * CAVR_RECONSTRUCTION_REFINE: the pilot grid (one ray per CAVR_REFINE_CELL^2 pixels), then the points of the
 * cells' finer lattice (every second row and column) whose parents disagree most, then the other pixels whose
 * interpolation's sources disagree most (cavr_refine_mask, pixel by pixel), within the ray budget; the back end
 * interpolates what is left (cavr_refine_interpolate). The levels' rays start at the pilot's depth hint
 * (cavr_refine_hint_k, cpu_raycast.h).
 * job->rays points at `list`, whose arrays are the frame buffer's.
 */
static CAVRError render_refine(CAVRDevice dev, const CAVRBackendOps *ops, CAVRRenderJob *job, CAVRRayList *list,
                               CAVRRenderStats *stats) {
  CAVRFrameBuffer fb = job->fb;
  const CAVRSettingsDesc *s = job->settings;
  const int W = fb->width, H = fb->height;
  const size_t N = (size_t)W * H;
  if (ops->kind != CAVR_BACKEND_CPU)
    return cavr_set_error(dev, CAVR_ERROR_UNSUPPORTED,
                          "cavrRender: the REFINE reconstruction runs on the CPU back end only (use LOCAL on the GPU)");
  /* Scratch kept in the frame buffer (no page faults every frame): candidates' scores, the lattice's residuals,
     the candidates' costs and pixels (N at most each), the new pixels of a pass. */
  const size_t maskFloats = cavr_refine_mask_scratch_floats(W, H);
  const size_t bytes = sizeof(float) * maskFloats + sizeof(uint32_t) * (2 * N);
  if (fb->refineScratchBytes < bytes) {
    free(fb->refineScratch);
    free(fb->raySamples);
    free(fb->rayFirst);
    fb->refineScratch = malloc(bytes);
    /* Cache-line aligned: where the width is a multiple of 16 (512, 1024, ...) a 16-pixel tile's row of them is one
       line, never shared with the neighbouring tile's (which another thread may be writing at the same time). */
    fb->raySamples = (uint32_t *)aligned_alloc(64, (sizeof(uint32_t) * N + 63) / 64 * 64);
    fb->rayFirst = (float *)aligned_alloc(64, (sizeof(float) * N + 63) / 64 * 64);
    fb->refineScratchBytes = fb->refineScratch && fb->raySamples && fb->rayFirst ? bytes : 0;
    if (!fb->refineScratchBytes)
      return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for refinement");
  }
  job->raySamples = fb->raySamples; /* each ray's samples: the last pass's costs */
  job->rayFirst = fb->rayFirst;     /* the pilot's first visible samples: the later passes' depth hint */
  job->rayHint = NULL;
  float *scratch = (float *)fb->refineScratch;
  uint32_t *order = (uint32_t *)(scratch + maskFloats), *fresh = order + N;
  long cast = cavr_refine_pilot_mask(W, H, fb->sampleMask, fresh);
  list_by_tile(fb, fresh, (size_t)cast);
  list->count = (size_t)cast;
  list->stamp = atomic_fetch_add(&nextStamp, 1);
  job->deviceOnly = 2;
  CAVRError e = ops->render(dev, job, stats);
  const long total = lround((double)s->sampleFraction * (double)N);
  const double density = s->shade ? REFINE_DENSITY_SHADED : REFINE_DENSITY;
  long active = e ? 0 : cavr_refine_active(fb->rgbaf, W, H, density * s->sampleFraction);
  if (active > total - cast) active = total - cast;
  const long active0 = active;
  /* The work budget: the pilot is a uniform 1/16 of the pixels, so 16 x its work estimates the full frame's. */
  const double pilotWork = (double)stats->samples + REFINE_RAY_COST * (double)stats->rays,
               fullWork = pilotWork * (double)N / (double)cast;
  const double share = (s->shade ? REFINE_WORK_SHADED : REFINE_WORK) * (double)s->sampleFraction / 0.25;
  double work = (share < 1.0 ? share : 1.0) * fullWork - pilotWork;
  /* Level 1's rays cross structure: priced at twice the pilot's samples per ray that hit the volume box (1.8x on
     the CT shoulder) plus a ray's cost. Level 2 prices each candidate by the samples of the rays its interpolation
     comes from plus a ray's cost and spends the work left (cavr_refine_mask). */
  const int hint = atomic_load(&refineHint); /* one setting for the frame's levels */
  const double pilotPerRay = (double)stats->samples / (double)(stats->rays > 0 ? stats->rays : 1);
  const double perRay = 2.0 * pilotPerRay + REFINE_RAY_COST;
  /* Above 0.25 a larger fraction buys rays of smaller gain too; below it the floor stays. */
  const double scale = s->sampleFraction > 0.25f ? 0.25 / (double)s->sampleFraction : 1.0;
  const float keyFloor = atomic_load(&refineKeyFloor)
                             ? (float)(REFINE_KEY_FLOOR * scale * scale / (pilotPerRay + REFINE_RAY_COST))
                             : 0.0f;
  for (int level = 1; level <= 2 && !e && active > 0 && work > 0.0; ++level) {
    long budget = level == 1 ? lround(REFINE_LEVEL1_SHARE * (double)active0) : active;
    const double byWork = REFINE_LEVEL1_SHARE * work / (perRay > 1.0 ? perRay : 1.0);
    if (level == 1 && (double)budget > byWork) budget = (long)byWork;
    const float threshold = s->shade ? REFINE_THRESHOLD_SHADED : REFINE_THRESHOLD;
    const long more = cavr_refine_mask(fb->rgbaf, W, H, level, threshold, budget, fb->raySamples,
                                       (float)REFINE_RAY_COST, work, keyFloor, fb->sampleMask, fresh, scratch, order,
                                       cavr_cpu_threads(dev));
    if (more <= 0) continue;
    list_by_tile(fb, fresh, (size_t)more);
    list->count = (size_t)more;
    list->stamp = atomic_fetch_add(&nextStamp, 1);
    job->deviceOnly = level == 1 ? 2 : 1;
    job->rayFirst = NULL; /* read, not written, from here on */
    job->rayHint = hint ? fb->rayFirst : NULL;
    const uint64_t before = stats->samples, beforeRays = stats->rays;
    e = ops->render(dev, job, stats);
    work -= (double)(stats->samples - before) + REFINE_RAY_COST * (double)(stats->rays - beforeRays);
    cast += more;
    active -= more;
  }
  stats->raysCast = (uint64_t)cast;
  fb->maskFraction = s->sampleFraction;
  fb->maskAdaptive = 1;
  fb->maskStamp = atomic_fetch_add(&nextStamp, 1);
  return e;
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
  if (W < 4 || H < 4) /* cavr_plan_compressive renders those in full */
    return cavr_set_error(dev, CAVR_ERROR_INVALID_ARGUMENT, "cavrRender: no sampling pattern for %dx%d", W, H);
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
  if (s->reconstruction == CAVR_RECONSTRUCTION_REFINE) {
    e = render_refine(dev, ops, &job, &list, stats);
  } else if (!s->adaptive) {
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

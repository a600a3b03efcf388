// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_reconstruct.c - the CPU back end's compressive reconstruction: the frame buffer's float
 * plane holds the rendered pixels; solve for the others (reconstruct.c), then fill the 8-bit and depth
 * planes. LOCAL: the 16x16 blocks are shared out over the threads, each solved on its window of the block
 * plus a ghost ring of CAVR_GHOST pixels (thesis ch. 4). GLOBAL: one window, the whole image, one thread.
 * REFINE: the cells' lattice values, then cubic convolution over the lattice for the other pixels, bands of cell rows.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "reconstruct.h"
#include "sampling_mask.h"

typedef struct Task {
  const CAVRSolver *solver;
  CAVRFrameBuffer fb;
  const uint8_t *mask;
  int local, refine, pass, blocksX, blocks, rowTasks;
  atomic_int next, maxIterations, failed;
} Task;

static void to_rgba8(CAVRFrameBuffer fb, const uint8_t *mask, int x0, int y0, int x1, int y1) {
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      size_t p = (size_t)y * fb->width + x;
      if (mask[p]) continue;
      for (int c = 0; c < 4; ++c) {
        float v = fb->rgbaf[4 * p + c];
        v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
        fb->rgbaf[4 * p + c] = v;
        fb->rgba8[4 * p + c] = (uint8_t)(v * 255.0f + 0.5f);
      }
    }
}

static void *worker(void *arg) {
  Task *t = (Task *)arg;
  const int W = t->fb->width, H = t->fb->height, B = CAVR_SOLVE_BLOCK;
  float *scratch = NULL;
  if (t->local) {
    scratch = (float *)malloc(sizeof(float) * cavr_solve_scratch_floats(B + 2 * CAVR_GHOST, B + 2 * CAVR_GHOST));
    if (!scratch) atomic_store(&t->failed, 1);
  } else if (t->refine && t->pass) {
    scratch = (float *)malloc(cavr_refine_scratch_bytes(W, H, 4));
    if (!scratch) atomic_store(&t->failed, 1);
  }
  for (;;) {
    int k = atomic_fetch_add(&t->next, 1);
    if (k >= t->blocks + t->rowTasks) break;
    if (k < t->blocks) { /* solve one block */
      if (!scratch) continue;
      int x0 = (k % t->blocksX) * B, y0 = (k / t->blocksX) * B;
      int x1 = x0 + B < W ? x0 + B : W, y1 = y0 + B < H ? y0 + B : H;
      int wx0 = x0 - CAVR_GHOST > 0 ? x0 - CAVR_GHOST : 0, wy0 = y0 - CAVR_GHOST > 0 ? y0 - CAVR_GHOST : 0;
      int wx1 = x1 + CAVR_GHOST < W ? x1 + CAVR_GHOST : W, wy1 = y1 + CAVR_GHOST < H ? y1 + CAVR_GHOST : H;
      int it = cavr_solve_window(t->solver, t->fb->rgbaf, t->mask, W, wx0, wy0, wx1 - wx0, wy1 - wy0, x0, y0, x1, y1,
                                 t->fb->rgbaf, scratch, NULL);
      if (it < 0) atomic_store(&t->failed, 1);
      int seen = atomic_load(&t->maxIterations);
      while (it > seen && !atomic_compare_exchange_weak(&t->maxIterations, &seen, it)) {
      }
      to_rgba8(t->fb, t->mask, x0, y0, x1, y1);
    } else if (t->refine) { /* REFINE: one pass of the interpolation in a band of 4 cell rows (16 pixel rows) */
      const int cy = cavr_refine_cells_per_axis(H), j0 = (k - t->blocks) * 4, j1 = j0 + 4 < cy ? j0 + 4 : cy;
      if (t->pass && !scratch) continue;
      cavr_refine_interpolate(t->mask, W, H, j0, j1, t->pass, t->fb->rgbaf, t->fb->rgba8, t->fb->depth, scratch);
    } else { /* depth (and, for GLOBAL, the 8-bit plane) of a band of rows */
      int y0 = (k - t->blocks) * B, y1 = y0 + B < H ? y0 + B : H;
      cavr_fill_depth(t->mask, W, H, y0, y1, t->fb->depth);
      if (!t->local) to_rgba8(t->fb, t->mask, 0, y0, W, y1);
    }
  }
  free(scratch);
  return NULL;
}

CAVRError cavr_cpu_reconstruct(CAVRDevice dev, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                               CAVRRenderStats *stats) {
  (void)maskStamp;
  const CAVRSettingsDesc *s = job->settings;
  CAVRFrameBuffer fb = job->fb;
  const int W = fb->width, H = fb->height, B = CAVR_SOLVE_BLOCK;
  CAVRSolver solver;
  cavr_solver_init(&solver, s->gramFilter, s->lambda, s->maxIterations, s->tolerance);
  Task t;
  memset(&t, 0, sizeof t);
  t.solver = &solver;
  t.fb = fb;
  t.mask = mask;
  t.local = s->reconstruction == CAVR_RECONSTRUCTION_LOCAL;
  t.refine = s->reconstruction == CAVR_RECONSTRUCTION_REFINE;
  t.blocksX = (W + B - 1) / B;
  t.rowTasks = t.refine ? (cavr_refine_cells_per_axis(H) + 3) / 4 : (H + B - 1) / B;
  t.blocks = t.local ? t.blocksX * t.rowTasks : 0;
  atomic_init(&t.next, 0);
  atomic_init(&t.maxIterations, 0);
  atomic_init(&t.failed, 0);
  if (!t.local && !t.refine) {
    float *scratch = (float *)malloc(sizeof(float) * cavr_solve_scratch_floats(W, H));
    int it = scratch ? cavr_solve_window(&solver, fb->rgbaf, mask, W, 0, 0, W, H, 0, 0, W, H, fb->rgbaf, scratch, NULL) : -1;
    free(scratch);
    if (it < 0) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for the global reconstruction");
    atomic_store(&t.maxIterations, it);
  }
  int n = cavr_cpu_threads(dev);
  if (n > t.blocks + t.rowTasks) n = t.blocks + t.rowTasks;
  pthread_t *ids = (pthread_t *)calloc((size_t)n, sizeof(pthread_t));
  /* REFINE's second pass reads the lattice values its first pass wrote in the neighbouring bands: all the threads
     join between the passes. */
  for (t.pass = 0; t.pass < (t.refine ? 2 : 1); ++t.pass) {
    atomic_store(&t.next, 0);
    int started = 0;
    if (ids)
      for (int i = 1; i < n; ++i) {
        if (pthread_create(&ids[i], NULL, worker, &t) != 0) break;
        started = i;
      }
    worker(&t);
    for (int i = 1; i <= started; ++i) pthread_join(ids[i], NULL);
  }
  free(ids);
  if (atomic_load(&t.failed))
    return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for the reconstruction");
  stats->iterations = atomic_load(&t.maxIterations);
  return CAVR_ERROR_NONE;
}

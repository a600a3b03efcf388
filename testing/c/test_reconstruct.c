// SPDX-License-Identifier: BSD-3-Clause
/*
 * Compressive rendering on the CPU.
 * 1. The solver (reconstruct.c): a smooth analytic RGBA image rebuilt from 25% of its pixels (linear pixel
 *    shuffling) converges to the tolerance, keeps the rendered pixels and comes back at high PSNR, with both
 *    Gram filters, as one global window and as 16x16 blocks with a ghost ring.
 * 2. Through cavrRender on a real CT volume (headsq, shaded): sample fraction 1 is the normal path bit for
 *    bit; at 25% the rays cast are exactly 25%, the pixels with rays equal the full render's, and the
 *    global, local and adaptive reconstructions reach a stated PSNR against the full render. The 2x2 rays +
 *    bilinear baseline (VTK's ImageSampleDistance 2) at the same budget is reported beside them.
 */
#include "test_util.h"
#include "cavr/cavr_io.h"
#include "objects.h"
#include "reconstruct.h"
#include "sampling_mask.h"

/* One ray per 2x2 pixels at the even pixels, bilinear in between (edge pixels clamp to the last ray). */
static void bilinear_2x2(int w, int h, const float *full, float *out) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int x0 = x & ~1, y0 = y & ~1, x1 = x0 + 2 < w ? x0 + 2 : x0, y1 = y0 + 2 < h ? y0 + 2 : y0;
      float fx = (x - x0) * 0.5f, fy = (y - y0) * 0.5f;
      for (int c = 0; c < 4; ++c) {
        float a = full[4 * (y0 * w + x0) + c] + fx * (full[4 * (y0 * w + x1) + c] - full[4 * (y0 * w + x0) + c]);
        float b = full[4 * (y1 * w + x0) + c] + fx * (full[4 * (y1 * w + x1) + c] - full[4 * (y1 * w + x0) + c]);
        out[4 * (y * w + x) + c] = a + fy * (b - a);
      }
    }
}

static void solver_on_analytic(void) {
  const int W = 128, H = 96;
  const size_t n = (size_t)W * H;
  uint8_t *mask = malloc(n);
  CHECK(cavr_lps_mask(W, H, 0.25, mask) == (long)llround(0.25 * n));
  float *truth = malloc(16 * n), *img = malloc(16 * n);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c)
        truth[4 * (y * W + x) + c] = 0.5f + 0.25f * sinf(x / (7.0f + c)) * cosf(y / (11.0f - c)) + 0.1f * x / W;
  for (int filter = 0; filter < 2; ++filter) {
    CAVRSolver s;
    cavr_solver_init(&s, filter, 0.01f, 5000, 1e-5f);
    /* Global: one window over the whole image. Pixels without rays start from garbage. */
    for (size_t i = 0; i < 4 * n; ++i) img[i] = mask[i / 4] ? truth[i] : 123.0f;
    float *scratch = malloc(sizeof(float) * cavr_solve_scratch_floats(W, H));
    double rel = 1.0;
    int it = cavr_solve_window(&s, img, mask, W, 0, 0, W, H, 0, 0, W, H, img, scratch, &rel);
    free(scratch);
    CHECK(it > 0 && it < 5000 && rel <= 1e-5);
    for (size_t i = 0; i < 4 * n; ++i)
      if (mask[i / 4]) CHECK(img[i] == truth[i]); /* rendered pixels are kept */
    double pg = psnr_rgba(img, truth, n);
    /* Local: 16x16 blocks, each on its window with the ghost ring. */
    for (size_t i = 0; i < 4 * n; ++i) img[i] = mask[i / 4] ? truth[i] : 123.0f;
    scratch = malloc(sizeof(float) * cavr_solve_scratch_floats(22, 22));
    int most = 0;
    for (int by = 0; by < H; by += 16)
      for (int bx = 0; bx < W; bx += 16) {
        int wx0 = bx > 3 ? bx - 3 : 0, wy0 = by > 3 ? by - 3 : 0;
        int wx1 = bx + 19 < W ? bx + 19 : W, wy1 = by + 19 < H ? by + 19 : H;
        int k = cavr_solve_window(&s, img, mask, W, wx0, wy0, wx1 - wx0, wy1 - wy0, bx, by, bx + 16, by + 16, img,
                                  scratch, &rel);
        CHECK(k > 0 && rel <= 1e-5);
        most = k > most ? k : most;
      }
    free(scratch);
    double pl = psnr_rgba(img, truth, n);
    printf("analytic RGBA %dx%d, 25%% of the pixels, %s filter: global %.2f dB (%d iterations), local %.2f dB (at "
           "most %d per block)\n", W, H, filter ? "thesis" : "definition", pg, it, pl, most);
    CHECK(pg > 50.0); /* measured 60.1 and 60.8 dB */
    CHECK(pl > 50.0); /* measured 60.0 and 60.6 dB */
  }
  free(truth);
  free(img);
  free(mask);
}

/* A window whose rendered pixels are all transparent (0 in every channel) is solved to 0 without iterating; one lit
   pixel in it and the solver iterates (the early exit keys on the rendered values, not on the mask). */
static void solver_on_transparent(void) {
  const int W = 64, H = 48;
  const size_t n = (size_t)W * H;
  uint8_t *mask = malloc(n);
  CHECK(cavr_lps_mask(W, H, 0.25, mask) > 0);
  float *img = malloc(16 * n), *scratch = malloc(sizeof(float) * cavr_solve_scratch_floats(22, 22));
  CAVRSolver s;
  cavr_solver_init(&s, 1, 0.01f, 100, 1e-4f);
  for (int lit = 0; lit < 2; ++lit) {
    for (size_t i = 0; i < 4 * n; ++i) img[i] = mask[i / 4] ? 0.0f : 7.0f; /* 7: what the solve must overwrite */
    size_t p = 0;
    while (!mask[p] || p % W < 24 || p % W >= 40 || p / W < 16 || p / W >= 32) ++p; /* a rendered pixel in the block */
    if (lit) img[4 * p + 3] = 0.5f;
    double rel = 1.0;
    const int it = cavr_solve_window(&s, img, mask, W, 21, 13, 22, 22, 24, 16, 40, 32, img, scratch, &rel);
    int zeros = 0, moved = 0;
    for (size_t q = 0; q < n; ++q) {
      const float *v = img + 4 * q;
      const int x = (int)(q % W), y = (int)(q / W), inBlock = x >= 24 && x < 40 && y >= 16 && y < 32;
      const float want = mask[q] ? (q == p && lit ? 0.5f : 0.0f) : 7.0f; /* alpha outside the block: untouched */
      if (inBlock) zeros += v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f && v[3] == 0.0f;
      else moved += v[3] != want;
    }
    printf("transparent window, %s: %d iterations, %d of 256 pixels 0\n", lit ? "one lit pixel" : "all 0", it, zeros);
    CHECK(moved == 0);
    if (!lit) CHECK(it == 0 && rel == 0.0 && zeros == 256);
    else CHECK(it > 0 && zeros < 256);
  }
  free(scratch);
  free(img);
  free(mask);
}

int main(void) {
  solver_on_analytic();
  solver_on_transparent();

  const int W = 256, H = 256;
  const size_t n = (size_t)W * H;
  Scene s = scene_new(W, H);
  CAVRVolumeFile f;
  char msg[512];
  CHECK(cavrLoadNrrd(CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr", &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  CHECK_OK(cavrSetVolumeSpacing(s.vol, f.spacing));
  CHECK_OK(cavrCommitVolume(s.vol));
  cavrFreeVolumeFile(&f);
  float table[4 * 256];
  CHECK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -90, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CAVRRenderStats st;
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
  CHECK(st.raysCast == n && st.solveMilliseconds == 0.0);
  const uint64_t fullSamples = st.samples;
  float *full = malloc(16 * n), *fullDepth = malloc(4 * n), *up = malloc(16 * n);
  uint8_t *full8 = malloc(4 * n);
  memcpy(full, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F), 16 * n);
  memcpy(full8, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8), 4 * n);
  memcpy(fullDepth, cavrGetFrameBufferData(s.fb, CAVR_FB_DEPTH), 4 * n);

  /* Bad arguments. */
  CHECK_ERR(cavrSetRenderCompressive(s.set, 0.0, CAVR_RECONSTRUCTION_LOCAL, 0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressive(s.set, 1.5, CAVR_RECONSTRUCTION_LOCAL, 0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressive(s.set, NAN, CAVR_RECONSTRUCTION_LOCAL, 0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressive(s.set, 0.5, (CAVRReconstruction)7, 0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressive(s.set, 0.5, (CAVRReconstruction)-1, 0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCompressive(s.set, 0.5, CAVR_RECONSTRUCTION_GLOBAL, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderReconstructionSolver(s.set, 0, 1e-3, 0.01, CAVR_GRAM_FILTER_DEFINITION), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderReconstructionSolver(s.set, 30, 1e-3, -1.0, CAVR_GRAM_FILTER_DEFINITION), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderReconstructionSolver(s.set, 30, 1e-3, INFINITY, CAVR_GRAM_FILTER_DEFINITION), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderReconstructionSolver(s.set, 30, 1e-3, 0.01, (CAVRGramFilter)3), CAVR_ERROR_INVALID_ARGUMENT);

  /* Fraction 1 is the normal path. */
  CHECK_OK(cavrSetRenderCompressive(s.set, 1.0, CAVR_RECONSTRUCTION_LOCAL, 1));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
  CHECK(memcmp(full8, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8), 4 * n) == 0);

  struct { CAVRReconstruction rec; int adaptive; const char *name; double floor; } runs[] = {
      {CAVR_RECONSTRUCTION_GLOBAL, 0, "global", 33.0},
      {CAVR_RECONSTRUCTION_LOCAL, 0, "local", 33.0},
      {CAVR_RECONSTRUCTION_LOCAL, 1, "adaptive", 33.0},
  };
  for (int filter = 0; filter < 2; ++filter)
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
      CHECK_OK(cavrSetRenderCompressive(s.set, 0.25, runs[r].rec, runs[r].adaptive));
      CHECK_OK(cavrSetRenderReconstructionSolver(s.set, 100, 1e-3, 0.01, (CAVRGramFilter)filter));
      CHECK_OK(cavrCommitRenderSettings(s.set));
      CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
      const float *rgba = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F);
      const uint8_t *rgba8 = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8);
      const float *depth = cavrGetFrameBufferData(s.fb, CAVR_FB_DEPTH);
      CHECK(st.raysCast == (uint64_t)llround(0.25 * n)); /* exact, adaptive too */
      CHECK(st.iterations > 0 && st.iterations <= 100);
      size_t same = 0, sameDepth = 0;
      for (size_t p = 0; p < n; ++p) {
        int equal = memcmp(rgba + 4 * p, full + 4 * p, 16) == 0;
        same += equal;
        sameDepth += depth[p] == fullDepth[p];
        for (int c = 0; c < 4; ++c) {
          CHECK(rgba[4 * p + c] >= 0.0f && rgba[4 * p + c] <= 1.0f);
          CHECK(rgba8[4 * p + c] == (uint8_t)(rgba[4 * p + c] * 255.0f + 0.5f));
        }
      }
      CHECK(same >= st.raysCast && sameDepth >= st.raysCast); /* every pixel with a ray is the full render's */
      double p = psnr_rgba(rgba, full, n);
      printf("headsq shaded %dx%d, 25%% of the rays, %s filter, %s: PSNR %.2f dB, %d iterations, solve %.1f ms\n", W,
             H, filter ? "thesis" : "definition", runs[r].name, p, st.iterations, st.solveMilliseconds);
      CHECK(p > runs[r].floor);
    }
  bilinear_2x2(W, H, full, up);
  const double baseline = psnr_rgba(up, full, n);
  printf("headsq shaded %dx%d, 25%% of the rays: 2x2 rays + bilinear (ImageSampleDistance 2): PSNR %.2f dB\n", W, H,
         baseline);

  /* REFINE: a pilot grid, then rays where it disagrees, cubic elsewhere. At most the ray
     budget and about 44% of the full frame's work (samples, and 12 a ray), shaded (60% of the samples allowed: the
     full frame's are estimated from the pilot; measured 42%), the pixels with rays the full render's but for at most
     1% of them off by more than 1/255 (the depth hint's misses, cavr_refine_hint_k; measured 0), interpolated
     pixels within [0, 1] and their 8-bit plane consistent, and at least 5 dB over 2x2 rays + bilinear on this real
     render (measured +6.47 dB: shaded, the head's skin texture is everywhere; docs/history/benchmarks-2026-11.md);
     adaptive with REFINE is refused. */
  CHECK_ERR(cavrSetRenderCompressive(s.set, 0.5, CAVR_RECONSTRUCTION_REFINE, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetRenderCompressive(s.set, 0.25, CAVR_RECONSTRUCTION_REFINE, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  for (int again = 0; again < 2; ++again) { /* the second frame reuses the frame buffer's scratch */
    CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
    const float *rgba = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F);
    const uint8_t *rgba8 = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8);
    const float *depth = cavrGetFrameBufferData(s.fb, CAVR_FB_DEPTH);
    CHECK(st.raysCast >= (uint64_t)(65 * 65) && st.raysCast <= (uint64_t)llround(0.25 * n));
    size_t cast = 0, off = 0;
    for (size_t p = 0; p < n; ++p) {
      if (s.fb->sampleMask[p]) {
        float d = 0.0f;
        for (int c = 0; c < 4; ++c) d = fmaxf(d, fabsf(rgba[4 * p + c] - full[4 * p + c]));
        ++cast, off += d > 1.0f / 255.0f;
      }
      CHECK(depth[p] >= 0.0f && depth[p] <= 1.0f);
      for (int c = 0; c < 4; ++c) {
        CHECK(rgba[4 * p + c] >= 0.0f && rgba[4 * p + c] <= 1.0f);
        CHECK(rgba8[4 * p + c] == (uint8_t)(rgba[4 * p + c] * 255.0f + 0.5f));
      }
    }
    CHECK(cast == st.raysCast && off * 100 <= cast);
    const double p = psnr_rgba(rgba, full, n), work = (double)st.samples / (double)fullSamples;
    printf("headsq shaded %dx%d, at most 25%% of the rays, refine: PSNR %.2f dB with %llu rays (%.1f%%), %.2f of the "
           "full frame's samples, %.1f ms\n", W, H, p, (unsigned long long)st.raysCast,
           100.0 * (double)st.raysCast / (double)n, work, st.milliseconds);
    CHECK(p >= baseline + 5.0);
    CHECK(work > 0.3 && work <= 0.6);
  }
  free(full), free(full8), free(fullDepth), free(up);
  scene_free(&s);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * supersample.c - super-sampling by a larger frame: the camera maps pixel (x, y) of a G W x G H frame to the
 * sub-pixel ((x + 0.5) / G, (y + 0.5) / G) of the W x H one, so the G x G grid of rays of a pixel (offsets
 * (i + 0.5) / G) is exactly the G x G block of the larger frame, cast by the back end's own kernels unchanged.
 * The CUDA back end averages on the device (kernels/supersample.cu): the larger frame is not copied back.
 */
#include <stdlib.h>
#include <string.h>

#include "supersample.h"

CAVRError cavr_render_supersampled(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job,
                                   CAVRRenderStats *stats, CavrRenderFn render) {
  CAVRFrameBuffer fb = job->fb;
  const int n = job->settings->supersample, G = n == 16 ? 4 : n == 9 ? 3 : 2, W = fb->width, H = fb->height;
  if ((long)G * W > CAVR_MAX_IMAGE_SIZE || (long)G * H > CAVR_MAX_IMAGE_SIZE)
    return cavr_set_error(dev, CAVR_ERROR_UNSUPPORTED, "cavrRender: %d rays per pixel need a %d x %d frame (at most %d)",
                          n, G * W, G * H, CAVR_MAX_IMAGE_SIZE);
  CAVRFrameBuffer big = fb->superFb;
  if (big && (big->width != G * W || big->height != G * H)) {
    cavrReleaseFrameBuffer(big);
    big = fb->superFb = NULL;
  }
  if (!big) { /* the library's own frame buffer: made without raising an error; the render's error says why */
    big = cavr_frame_buffer_new(dev, G * W, G * H);
    if (!big) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: no memory for the super-sampled frame");
    fb->superFb = big;
  }
  /* On a back end that reduces on the device (CUDA) the larger frame never leaves it: only the W x H result is
     copied back. Otherwise its float colour and depth come to the host and are averaged here. */
  const int onDevice = ops->supersampleReduce != NULL;
  big->hostChannels = onDevice ? 0u : CAVR_FB_HOST_RGBA32F | CAVR_FB_HOST_DEPTH;
  CAVRError e = CAVR_ERROR_NONE;
  if (fb->opaqueDepth) {
    big->opaqueDepth = cavr_opaque_store(big);
    if (!big->opaqueDepth) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: no memory for opaque depth");
    for (int y = 0; y < G * H; ++y)
      for (int x = 0; x < G * W; ++x) big->opaqueDepth[(size_t)y * G * W + x] = fb->opaqueDepth[(size_t)(y / G) * W + x / G];
  } else {
    big->opaqueDepth = NULL; /* its store stays for the next frame with opaque depth */
  }
  if (onDevice && n == 5) { /* the centre rays first, kept on the device before the larger frame replaces them */
    const unsigned keep = fb->hostChannels;
    fb->hostChannels = 0u;
    CAVRRenderJob centre = *job;
    centre.deviceOnly = 1;
    e = render(dev, ops, &centre, stats);
    fb->hostChannels = keep;
    if (!e) e = ops->supersampleKeepCentre(dev, job);
    if (e) return e;
  }
  CAVRRenderJob sub = *job;
  sub.fb = big;
  sub.deviceOnly = onDevice;
  if ((e = render(dev, ops, &sub, stats))) return e;
  if (onDevice) return ops->supersampleReduce(dev, job, G, n, stats);
  /* The 5-ray pattern: the 2 x 2 grid and the centre, which the normal frame casts. */
  if (n == 5) {
    const unsigned keep = fb->hostChannels;
    fb->hostChannels = CAVR_FB_HOST_ALL;
    CAVRRenderJob centre = *job;
    centre.deviceOnly = 0;
    e = render(dev, ops, &centre, stats);
    fb->hostChannels = keep;
    if (e) return e;
  }
  const float *rgba = big->rgbaf, *depth = big->depth;
  const float inv = 1.0f / (float)n;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const size_t pix = (size_t)y * W + x;
      float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f}, d = 1.0f;
      if (n == 5) {
        for (int c = 0; c < 4; ++c) sum[c] = fb->rgbaf[4 * pix + c];
        d = fb->depth[pix];
      }
      for (int j = 0; j < G; ++j)
        for (int i = 0; i < G; ++i) {
          const size_t q = (size_t)(G * y + j) * G * W + G * x + i;
          for (int c = 0; c < 4; ++c) sum[c] += rgba[4 * q + c];
          d = depth[q] < d ? depth[q] : d;
        }
      for (int c = 0; c < 4; ++c) {
        float v = sum[c] * inv;
        v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        fb->rgbaf[4 * pix + c] = v;
        fb->rgba8[4 * pix + c] = (uint8_t)(v * 255.0f + 0.5f);
      }
      fb->depth[pix] = d;
    }
  fb->devicePlanes[0] = fb->devicePlanes[1] = fb->devicePlanes[2] = NULL;
  return CAVR_ERROR_NONE;
}

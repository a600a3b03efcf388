// SPDX-License-Identifier: BSD-3-Clause
// supersample.cu - super-sampling's reduction on the device: the G x G rays of each pixel, in the
// G W x G H frame the ray caster just left in the context's planes, averaged (premultiplied RGBA, clamped) with
// their nearest depth, plus the centre ray of the 5-ray pattern kept from the frame rendered before; only the W x H
// result is copied to the host. The same arithmetic, in the same order, as core/src/supersample.c's host loop.
#include "cuda_util.cuh"

namespace {
__global__ void __launch_bounds__(256) reduce_kernel(const float4 *__restrict__ big, const float *__restrict__ bigDepth,
                                                     const float4 *__restrict__ centre,
                                                     const float *__restrict__ centreDepth, int W, int H, int G,
                                                     float inv, uchar4 *out8, float4 *outF, float *outD) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t pix = (size_t)y * W + x;
  float s[4] = {0.0f, 0.0f, 0.0f, 0.0f}, d = 1.0f;
  if (centre) {
    const float4 c = centre[pix];
    s[0] = c.x, s[1] = c.y, s[2] = c.z, s[3] = c.w;
    d = centreDepth[pix];
  }
  for (int j = 0; j < G; ++j)
    for (int i = 0; i < G; ++i) {
      const size_t q = (size_t)(G * y + j) * G * W + G * x + i;
      const float4 v = big[q];
      s[0] += v.x, s[1] += v.y, s[2] += v.z, s[3] += v.w;
      d = bigDepth[q] < d ? bigDepth[q] : d;
    }
  float o[4];
  for (int c = 0; c < 4; ++c) {
    const float v = s[c] * inv;
    o[c] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
  }
  outF[pix] = make_float4(o[0], o[1], o[2], o[3]);
  out8[pix] = make_uchar4((unsigned char)(o[0] * 255.0f + 0.5f), (unsigned char)(o[1] * 255.0f + 0.5f),
                          (unsigned char)(o[2] * 255.0f + 0.5f), (unsigned char)(o[3] * 255.0f + 0.5f));
  outD[pix] = d;
}

// Grow a device buffer to at least `bytes` (contents not kept).
template <typename T> int grow(T **p, size_t *cap, size_t bytes, const char *what, char *msg, size_t msgSize) {
  if (*p && *cap >= bytes) return 0;
  cudaFree(*p);
  *p = nullptr;
  *cap = 0;
  CAVR_CUDA_CHECK(cudaMalloc(p, bytes), what);
  *cap = bytes;
  return 0;
}
} // namespace

extern "C" int cavr_cuda_supersample_keep_centre(CAVRGpuContext *ctx, int W, int H, char *msg, size_t msgSize) {
  const size_t px = (size_t)W * H;
  int code = grow(&ctx->ssCentre, &ctx->ssCentreCap, px * sizeof(float4), "cudaMalloc (super-sampling centre)", msg, msgSize);
  if (!code) code = grow(&ctx->ssCentreDepth, &ctx->ssCentreDepthCap, px * sizeof(float), "cudaMalloc (super-sampling centre depth)", msg, msgSize);
  if (code) return code;
  CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->ssCentre, ctx->rgbaf, px * sizeof(float4), cudaMemcpyDeviceToDevice, ctx->stream),
                  "cudaMemcpyAsync (super-sampling centre)");
  CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->ssCentreDepth, ctx->depth, px * sizeof(float), cudaMemcpyDeviceToDevice, ctx->stream),
                  "cudaMemcpyAsync (super-sampling centre depth)");
  return 0;
}

extern "C" int cavr_cuda_supersample_reduce(CAVRGpuContext *ctx, int W, int H, int G, int n, int withCentre,
                                            unsigned char *hostRGBA8, float *hostRGBAF, float *hostDepth,
                                            float *kernelMs, float *transferMs, void *devicePlanes[3], char *msg,
                                            size_t msgSize) {
  const size_t px = (size_t)W * H;
  int code = grow(&ctx->ss8, &ctx->ss8Cap, px * sizeof(uchar4), "cudaMalloc (super-sampled RGBA8)", msg, msgSize);
  if (!code) code = grow(&ctx->ssF, &ctx->ssFCap, px * sizeof(float4), "cudaMalloc (super-sampled RGBA32F)", msg, msgSize);
  if (!code) code = grow(&ctx->ssD, &ctx->ssDCap, px * sizeof(float), "cudaMalloc (super-sampled depth)", msg, msgSize);
  if (!code) code = cavr_cuda_copy_resources(ctx, msg, msgSize);
  if (code) return code;
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  const dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
  reduce_kernel<<<grid, block, 0, ctx->stream>>>(ctx->rgbaf, ctx->depth, withCentre ? ctx->ssCentre : nullptr,
                                                 withCentre ? ctx->ssCentreDepth : nullptr, W, H, G, 1.0f / (float)n,
                                                 ctx->ss8, ctx->ssF, ctx->ssD);
  CAVR_CUDA_CHECK(cudaGetLastError(), "supersample reduce_kernel launch");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  const void *src[3] = {ctx->ss8, ctx->ssF, ctx->ssD};
  void *dst[3] = {hostRGBA8, hostRGBAF, hostDepth};
  const size_t bytes[3] = {px * sizeof(uchar4), px * sizeof(float4), px * sizeof(float)};
  for (int c = 0; c < 3; ++c)
    if (dst[c])
      CAVR_CUDA_CHECK(cudaMemcpyAsync(dst[c], src[c], bytes[c], cudaMemcpyDeviceToHost, ctx->stream),
                      "cudaMemcpyAsync (super-sampled plane)");
  CAVR_CUDA_CHECK(cavr_cuda_queue_share(ctx, ctx->ss8, ctx->ssD, px), "cudaMemcpyAsync (into shared memory)");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->copied, ctx->stream), "cudaEventRecord (copy back)");
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->copied), "supersample reduce_kernel (or the copy back after it)");
  float ms = 0.0f, copyMs = 0.0f;
  cudaEventElapsedTime(&ms, ctx->start, ctx->stop);
  cudaEventElapsedTime(&copyMs, ctx->stop, ctx->copied);
  if (kernelMs) *kernelMs = ms;
  if (transferMs) *transferMs = copyMs;
  devicePlanes[0] = ctx->ss8;
  devicePlanes[1] = ctx->ssF;
  devicePlanes[2] = ctx->ssD;
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// bench_kernels.cu - the two ceilings the benchmark compares against: device-to-device copy bandwidth and
// the rate of trilinear texture fetches that all hit the cache.
#include "cuda_util.cuh"

namespace {
__global__ void fetch_ceiling(cudaTextureObject_t tex, float *out, int iterations) {
  // Every thread walks a small 16^3 volume (4 KB: always cached) with trilinear fetches.
  float acc = 0.0f, x = (threadIdx.x & 7) + 0.25f, y = (threadIdx.x >> 3 & 7) + 0.5f, z = (blockIdx.x & 7) + 0.75f;
  for (int i = 0; i < iterations; ++i) {
    acc += tex3D<float>(tex, x, y, z);
    x += 0.37f;
    if (x > 14.0f) x -= 13.0f;
    z += 0.11f;
    if (z > 14.0f) z -= 13.0f;
  }
  if (acc == -1.0f) out[0] = acc; // keep the loop
}
} // namespace

extern "C" int cavr_cuda_copy_bandwidth(size_t bytes, double *gbPerSecond, char *msg, size_t msgSize) {
  void *a = nullptr, *b = nullptr;
  CAVR_CUDA_CHECK(cudaMalloc(&a, bytes), "cudaMalloc (copy bandwidth)");
  cudaError_t e = cudaMalloc(&b, bytes);
  if (e != cudaSuccess) {
    cudaFree(a);
    return cavr_cuda_fail(e, "cudaMalloc (copy bandwidth)", msg, msgSize);
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t s, t;
  cudaEventCreate(&s);
  cudaEventCreate(&t);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  float best = 1e30f;
  for (int i = 0; i < 10; ++i) {
    cudaEventRecord(s);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(t);
    cudaEventSynchronize(t);
    float ms;
    cudaEventElapsedTime(&ms, s, t);
    best = ms < best ? ms : best;
  }
  e = cudaGetLastError();
  cudaEventDestroy(s);
  cudaEventDestroy(t);
  cudaFree(a);
  cudaFree(b);
  if (e != cudaSuccess) return cavr_cuda_fail(e, "copy bandwidth", msg, msgSize);
  *gbPerSecond = 2.0 * bytes / (best * 1e-3) / 1e9;
  return 0;
}

extern "C" int cavr_cuda_texture_ceiling(double *fetchesPerSecond, char *msg, size_t msgSize) {
  const int n = 16;
  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t arr;
  CAVR_CUDA_CHECK(cudaMalloc3DArray(&arr, &fmt, make_cudaExtent(n, n, n)), "cudaMalloc3DArray (ceiling)");
  unsigned char host[n * n * n];
  for (int i = 0; i < n * n * n; ++i) host[i] = (unsigned char)(i * 37);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host, n, n, n);
  p.dstArray = arr;
  p.extent = make_cudaExtent(n, n, n);
  p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t tex;
  cudaCreateTextureObject(&tex, &res, &td, nullptr);
  float *out;
  cudaMalloc(&out, sizeof(float));
  int dev, sms;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int blocks = sms * 16, threads = 256, iterations = 4096;
  cudaEvent_t s, t;
  cudaEventCreate(&s);
  cudaEventCreate(&t);
  fetch_ceiling<<<blocks, threads>>>(tex, out, 64);
  cudaEventRecord(s);
  fetch_ceiling<<<blocks, threads>>>(tex, out, iterations);
  cudaEventRecord(t);
  cudaEventSynchronize(t);
  float ms;
  cudaEventElapsedTime(&ms, s, t);
  cudaError_t e = cudaGetLastError();
  cudaEventDestroy(s);
  cudaEventDestroy(t);
  cudaDestroyTextureObject(tex);
  cudaFreeArray(arr);
  cudaFree(out);
  if (e != cudaSuccess) return cavr_cuda_fail(e, "fetch_ceiling", msg, msgSize);
  *fetchesPerSecond = (double)blocks * threads * iterations / (ms * 1e-3);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// device_probe.cu - which CUDA devices exist; the per-device context (volumes: volume.cu).
#include <cstdio>
#include <cstring>
#include <new>

#include "cuda_util.cuh"

extern "C" int cavr_cuda_device_count(int *count, char *msg, size_t msgSize) {
  *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) {
    *count = 0;
    return cavr_cuda_fail(e, "cudaGetDeviceCount", msg, msgSize);
  }
  return 0;
}

extern "C" int cavr_cuda_device_info(int device, char *name, size_t nameSize, size_t *totalBytes, char *msg,
                                     size_t msgSize) {
  cudaDeviceProp prop;
  CAVR_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::snprintf(name, nameSize, "%s", prop.name);
  *totalBytes = prop.totalGlobalMem;
  return 0;
}

extern "C" int cavr_cuda_memory_info(size_t *freeBytes, size_t *totalBytes, char *msg, size_t msgSize) {
  CAVR_CUDA_CHECK(cudaMemGetInfo(freeBytes, totalBytes), "cudaMemGetInfo");
  return 0;
}

extern "C" int cavr_cuda_context_create_on(CAVRGpuContext **out, int device, char *msg, size_t msgSize) {
  *out = nullptr;
  CAVRGpuContext *c = new (std::nothrow) CAVRGpuContext();
  if (!c) {
    std::snprintf(msg, msgSize, "out of host memory for the CUDA context");
    return 3;
  }
  std::memset(c, 0, sizeof *c);
  c->device = device;
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreate(&c->start);
  if (e == cudaSuccess) e = cudaEventCreate(&c->stop);
  if (e == cudaSuccess) e = cudaMalloc(&c->samples, sizeof(unsigned long long));
  if (e != cudaSuccess) {
    int code = cavr_cuda_fail(e, "creating the CUDA context (stream, events)", msg, msgSize);
    cavr_cuda_context_destroy(c);
    return code;
  }
  *out = c;
  return 0;
}

extern "C" void cavr_cuda_context_configure(CAVRGpuContext *ctx, const CAVRGpuConfig *config) {
  if (ctx && config) ctx->config = *config;
}

extern "C" int cavr_cuda_context_create(CAVRGpuContext **out, char *msg, size_t msgSize) {
  return cavr_cuda_context_create_on(out, 0, msg, msgSize);
}

extern "C" int cavr_cuda_context_make_current(CAVRGpuContext *ctx, char *msg, size_t msgSize) {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now == ctx->device) return 0;
  CAVR_CUDA_CHECK(cudaSetDevice(ctx->device), "cudaSetDevice");
  return 0;
}

extern "C" void cavr_cuda_context_destroy(CAVRGpuContext *c) {
  if (!c) return;
  cudaFree(c->table);
  cudaFree(c->table2d);
  cudaFree(c->cells);
  cudaFree(c->opaque);
  cudaFree(c->rgba8);
  cudaFree(c->rgbaf);
  cudaFree(c->depth);
  cudaFree(c->samples);
  cudaFree(c->rays);
  cudaFree(c->mask);
  cudaFree(c->work);
  cudaFree(c->iterations);
  cudaFree(c->iso);
  cudaFree(c->rays2);
  cudaFree(c->mask2);
  cudaFree(c->ssCentre);
  cudaFree(c->ssCentreDepth);
  cudaFree(c->ss8);
  cudaFree(c->ssF);
  cudaFree(c->ssD);
  if (c->hostScalars) cudaFreeHost(c->hostScalars);
  if (c->copied) cudaEventDestroy(c->copied);
  if (c->start) cudaEventDestroy(c->start);
  if (c->stop) cudaEventDestroy(c->stop);
  cavr_cuda_uploader_destroy(c->uploader);
  if (c->stream) cudaStreamDestroy(c->stream);
  delete c;
}

extern "C" void cavr_cuda_frame_device_pointers(CAVRGpuContext *c, void **rgba8, void **rgbaf, void **depth) {
  *rgba8 = c ? c->rgba8 : nullptr;
  *rgbaf = c ? c->rgbaf : nullptr;
  *depth = c ? c->depth : nullptr;
}

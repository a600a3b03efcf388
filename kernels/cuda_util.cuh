// cuda_util.cuh - internal to kernels/: the context and volume structs and CUDA error mapping.
#ifndef CAVR_CUDA_UTIL_CUH
#define CAVR_CUDA_UTIL_CUH

#include <cstdio>

#include <cuda_runtime.h>

#include "cavr_kernels.h"

// Map a CUDA error to a CAVRError code with "what: name (text)" in msg.
static inline int cavr_cuda_fail(cudaError_t e, const char *what, char *msg, size_t msgSize) {
  std::snprintf(msg, msgSize, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? 1001 : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? 1002 : 1000);
}

#define CAVR_CUDA_CHECK(call, what)                                                                                \
  do {                                                                                                             \
    cudaError_t e_ = (call);                                                                                       \
    if (e_ != cudaSuccess) return cavr_cuda_fail(e_, what, msg, msgSize);                                          \
  } while (0)

struct CAVRGpuContext {
  cudaStream_t stream;
  cudaEvent_t start, stop;
  float4 *table;         size_t tableCap;
  unsigned char *cells;  size_t cellsCap;
  float *opaque;         size_t pixelCap;
  uchar4 *rgba8;
  float4 *rgbaf;
  float *depth;
  unsigned long long *samples;
  uint64_t cellsStamp;   // stamp of the macro cells in `cells` (0: none)
  // compressive rendering
  unsigned *rays;        size_t raysCap;  uint64_t raysStamp;   // ray list (pixel indices)
  unsigned char *mask;   size_t maskCap;  uint64_t maskStamp;   // sampling mask
  float4 *work;          size_t workCap;                        // global solver vectors
  int *iterations;                                              // local solver: most iterations of a block
};

struct CAVRGpuVolume {
  cudaArray_t array;
  cudaTextureObject_t linear, point;
  cudaSurfaceObject_t surface;
  int storage;           // 0 uint8, 1 uint16, 2 float
  int dims[3];
  int cube;
  float scale;           // normalised read -> stored units
};

#endif

// device_probe.cu - asks the CUDA runtime which devices exist.
#include <cstdio>

#include <cuda_runtime.h>

#include "cavr_kernels.h"

extern "C" int cavr_cuda_device_count(int *count, char *msg, size_t msgSize) {
  *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) {
    std::snprintf(msg, msgSize, "cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    *count = 0;
    return 1002; /* CAVR_ERROR_NO_GPU */
  }
  return 0;
}

/*
 * cuda_backend.c - the CUDA back end's host side. The ray-casting kernels arrive with the CUDA back end
 * (issue 3); until then a present GPU is detected and reported, and rendering stays on the CPU.
 */
#include <stdio.h>

#include "backend.h"

#if CAVR_WITH_CUDA
#include "../../kernels/cavr_kernels.h"

const CAVRBackendOps *cavr_cuda_backend(char *msg, size_t msgSize, CAVRError *err) {
  int count = 0;
  char why[256] = "";
  if (cavr_cuda_device_count(&count, why, sizeof why) != 0 || count == 0) {
    snprintf(msg, msgSize, "no CUDA device%s%s", why[0] ? ": " : "", why);
    *err = CAVR_ERROR_NO_GPU;
    return NULL;
  }
  snprintf(msg, msgSize, "%d CUDA device(s) found, but this version renders on the CPU only", count);
  *err = CAVR_ERROR_UNSUPPORTED;
  return NULL;
}
#else
typedef int cavr_cuda_backend_unused; /* keep the translation unit non-empty */
#endif

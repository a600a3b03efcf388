/*
 * cavr_kernels.h - plain-C launch interface of the CUDA kernels (no CUDA syntax here).
 * Each function returns 0 on success, or a non-zero CAVRError code with a message naming the CUDA call.
 */
#ifndef CAVR_KERNELS_H
#define CAVR_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of usable CUDA devices in *count (0 when the driver or runtime reports none). */
int cavr_cuda_device_count(int *count, char *msg, size_t msgSize);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_KERNELS_H */

/*
 * cavr_kernels.h - plain-C launch interface of the CUDA kernels (no CUDA syntax here).
 * Every function returns 0 on success or a CAVRError code (1000 CUDA, 1001 CUDA out of memory, 1002 no
 * GPU) and writes a message naming the CUDA call or kernel and the CUDA error into msg.
 */
#ifndef CAVR_KERNELS_H
#define CAVR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of usable CUDA devices in *count (0 when the driver or runtime reports none). */
int cavr_cuda_device_count(int *count, char *msg, size_t msgSize);
/** Name and memory (bytes) of device 0. */
int cavr_cuda_device_info(char *name, size_t nameSize, size_t *totalBytes, char *msg, size_t msgSize);

typedef struct CAVRGpuContext CAVRGpuContext;
typedef struct CAVRGpuVolume CAVRGpuVolume;

/** A stream, timing events and reusable device buffers for one cavr device. */
int cavr_cuda_context_create(CAVRGpuContext **out, char *msg, size_t msgSize);
void cavr_cuda_context_destroy(CAVRGpuContext *ctx);

/**
 * Upload voxels (dims[0] x dims[1] x dims[2], x fastest; storage 0 uint8, 1 uint16, 2 float32) into a
 * 3-D CUDA array of side `cube` on every axis (cube >= each dim, a multiple of 64), padded with zeros, bound
 * to a texture object with hardware trilinear filtering (and one with point sampling; integers are read
 * normalised and scaled back to stored units) and to a surface object for in-place rotation.
 */
int cavr_cuda_volume_create(CAVRGpuContext *ctx, const void *voxels, int storage, const int dims[3], int cube,
                            CAVRGpuVolume **out, char *msg, size_t msgSize);
void cavr_cuda_volume_destroy(CAVRGpuVolume *vol);
/** Bytes of the CUDA array (the padded volume). */
size_t cavr_cuda_volume_bytes(const CAVRGpuVolume *vol);

/**
 * Rotate the volume in place by a quarter turn (Misaki et al. 2017, Algorithm 1): plane 1 = xz (about y),
 * 2 = xy (about z); direction +1: new(a', b') = old(a, b) with a' = cube-1-b, b' = a; -1 the inverse.
 * t x t x k tiles (t = 32, k = 16), one thread block per cycle of four tiles, staged in shared memory, read
 * and written through the surface object: no second copy. *ms receives the kernel time.
 */
int cavr_cuda_volume_rotate(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms,
                            char *msg, size_t msgSize);
/** Copy the whole padded array back (cube^3 values of the storage type) for tests. */
int cavr_cuda_volume_download(CAVRGpuContext *ctx, CAVRGpuVolume *vol, void *host, char *msg, size_t msgSize);

/** Everything the ray-casting kernel needs for one frame (filled by core/src/cuda_backend.c). */
typedef struct CAVRGpuRenderParams {
  double invVP[16], VP[16], eye[3];
  double origin[3], invSpacing[3];
  float maxCoord[3], boxLo[3], boxHi[3];
  float step, invStep;
  int width, height;
  int count;                 /* transfer-function entries */
  float idxScale, idxBias;
  int correction, blend, shade, interpolation, skip;
  float ert, ka, kd, ks, kp;
  int cells[3];
  int rotation;              /* 0 none, 1 quarter turn about y, 2 about z (direction +1) */
  int cube;
  /* launch shape */
  int blockW, blockH, warpW, warpH, transposed, syncPropagation;
} CAVRGpuRenderParams;

/**
 * Ray-cast one frame. `table` is count x (R, G, B, opacity corrected for a full step), `cells` one byte per
 * macro cell (1 = may be visible), uploaded only when `cellsStamp` differs from the last upload (the caller
 * takes a new stamp whenever it reclassifies cells), `rays` NULL for every pixel or rayCount pixel indices
 * x + width*y (compressive rendering: only those pixels are written; one thread each, 1-D blocks of 256;
 * uploaded only when raysStamp changes), `opaqueDepth` width*height window
 * depths or NULL. When hostRGBA8/hostRGBAF/hostDepth are not NULL the image is copied back into them; the
 * device copies stay available through cavr_cuda_frame_device_pointers. *kernelMs is the kernel's time
 * (events), *samples the samples taken.
 */
int cavr_cuda_render(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const CAVRGpuRenderParams *p, const float *table,
                     const uint8_t *cells, size_t cellCount, uint64_t cellsStamp, const uint32_t *rays,
                     size_t rayCount, uint64_t raysStamp, const float *opaqueDepth,
                     uint8_t *hostRGBA8, float *hostRGBAF, float *hostDepth, float *kernelMs, uint64_t *samples,
                     char *msg, size_t msgSize);
/** Device pointers of the last frame: uchar4 premultiplied RGBA, float4 RGBA, float depth. */
void cavr_cuda_frame_device_pointers(CAVRGpuContext *ctx, void **rgba8, void **rgbaf, void **depth);

/**
 * Compressive rendering's reconstruction on the frame left in device memory by cavr_cuda_render (SPEC 4;
 * Rabbani 2018 thesis): mask (width*height bytes, 1 = rendered; uploaded when maskStamp changes) selects the
 * rendered pixels; the others are solved from (S^T S + lambda H) x = S^T y, all four channels, with Jacobi-
 * preconditioned conjugate gradients in the Chronopoulos-Gear form, as core/src/reconstruct.c (filter: 49 floats,
 * row-major, left-right symmetric; otherwise an error). local = 1: one thread block per 16x16
 * pixel block, its window with a ghost ring of 3 pixels in shared memory, block reductions (CUB), its own
 * convergence test (thesis ch. 4); 0: global CG over the image, stencil kernels and CUB block reductions
 * (thesis ch. 3). Then the 8-bit plane and the depth of the solved pixels (nearest rendered depth within 3
 * pixels) are filled and the planes copied to the non-NULL host pointers. *ms: solver kernels' time;
 * *iterations: the most iterations (local: of any block).
 */
int cavr_cuda_reconstruct(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask, uint64_t maskStamp,
                          int local, const float *filter, float lambda, int maxIterations, float tolerance,
                          uint8_t *hostRGBA8, float *hostRGBAF, float *hostDepth, float *ms, int *iterations,
                          char *msg, size_t msgSize);

/**
 * Adaptive sampling's block statistics (SPEC 4; Rabbani 2018 thesis sec. 4.3) on the frame left in device
 * memory by cavr_cuda_render: for each 16x16 pixel block b (row-major, ceil(width/16) per row),
 * weight[b] = sqrt(sum over RGBA of the variance of the rendered values), over the pixels with mask = 1
 * (width*height bytes; uploaded when maskStamp changes); 0 for a block without any. weight: host array of
 * blocks doubles. Sums in double, as the CPU's cavr_block_deviation.
 */
int cavr_cuda_block_deviation(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask, uint64_t maskStamp,
                              double *weight, char *msg, size_t msgSize);

/**
 * Ceilings for the benchmark: device-to-device copy bandwidth (GB/s, bytes read + written) of `bytes`,
 * and trilinear texture fetches per second when every fetch hits the cache (a small volume sampled by
 * every thread).
 */
int cavr_cuda_copy_bandwidth(size_t bytes, double *gbPerSecond, char *msg, size_t msgSize);
int cavr_cuda_texture_ceiling(double *fetchesPerSecond, char *msg, size_t msgSize);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_KERNELS_H */

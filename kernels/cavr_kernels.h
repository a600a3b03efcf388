// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_kernels.h - plain-C launch interface of the CUDA kernels (no CUDA syntax here).
 * Every function returns 0 on success or a CAVRError code (1000 CUDA, 1001 CUDA out of memory, 1002 no
 * GPU) and writes a message naming the CUDA call or kernel and the CUDA error into msg.
 */
#ifndef CAVR_KERNELS_H
#define CAVR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/shared/cavr_frame.h" /* CAVRRayFrame */

#ifdef __cplusplus
extern "C" {
#endif

/** Number of usable CUDA devices in *count (0 when the driver or runtime reports none). */
int cavr_cuda_device_count(int *count, char *msg, size_t msgSize);
/** Name and memory (bytes) of CUDA device `device` (0 .. count - 1). */
int cavr_cuda_device_info(int device, char *name, size_t nameSize, size_t *totalBytes, char *msg, size_t msgSize);
/** Free and total memory (bytes) of the current device now. */
int cavr_cuda_memory_info(size_t *freeBytes, size_t *totalBytes, char *msg, size_t msgSize);

typedef struct CAVRGpuContext CAVRGpuContext;
typedef struct CAVRGpuVolume CAVRGpuVolume;

/**
 * A context's settings from the environment, which the core reads once when it makes a device (core/src/env.c) and
 * hands over with cavr_cuda_context_configure; all zero: the defaults. The kernels never read the environment.
 */
typedef struct CAVRGpuConfig {
  int raycastBlockW, raycastBlockH; /* CAVR_RAYCAST_BLOCK=WxH[t]: the ray caster's block for every launch (benchmarks);
                                       0: the strategy's */
  int raycastTransposed;            /* ... with 't': blocks launched in transposed order */
  int raycastUncapped;              /* CAVR_RAYCAST_REGCAP=0: the kernels built without the 64-register cap */
  size_t uploadChunkBytes;          /* CAVR_UPLOAD_CHUNK_MIB (1-256): staging chunk of a volume upload; 0: 2 MiB */
  int uploadThreads;                /* CAVR_UPLOAD_THREADS (1-16): host threads of an upload; 0: every core, <= 16 */
  int maxTexture3D;                 /* CAVR_CUDA_MAX_TEXTURE3D: a lower 3-D texture limit per axis (tests); 0: the GPU's */
} CAVRGpuConfig;

/** A stream, timing events and reusable device buffers for one cavr device, on CUDA device 0. */
int cavr_cuda_context_create(CAVRGpuContext **out, char *msg, size_t msgSize);
/** The same on CUDA device `device` (0 .. count - 1), which becomes the calling thread's current device. */
int cavr_cuda_context_create_on(CAVRGpuContext **out, int device, char *msg, size_t msgSize);
/** Make the context's CUDA device current on the calling thread (a no-op when it is): before work from a thread
    other than the one that made the context. */
int cavr_cuda_context_make_current(CAVRGpuContext *ctx, char *msg, size_t msgSize);
void cavr_cuda_context_destroy(CAVRGpuContext *ctx);
/** Set the context's settings (copied); before the first upload or render. */
void cavr_cuda_context_configure(CAVRGpuContext *ctx, const CAVRGpuConfig *config);

/**
 * A 3-D CUDA array for dims[0] x dims[1] x dims[2] voxels (x fastest; storage 0 uint8, 1 uint16, 2 float32):
 * cube 0 gives an array of exactly the volume's extent (no padding: device memory = the voxels, plus the
 * driver's tiling); cube > 0 (>= each dim; a multiple of 64 for cavr_cuda_volume_rotate) a cube of that side,
 * zeroed, the voxels in its corner. Bound to a texture object with hardware trilinear filtering, one with point
 * sampling (integers read normalised and scaled back to stored units), one with point sampling of the stored
 * values themselves, and a surface object (in-place rotation). voxels != NULL: uploaded as by
 * cavr_cuda_volume_upload; NULL: allocate only. Returns 4 (CAVR_ERROR_UNSUPPORTED) when an axis of the array
 * exceeds the device's 3-D texture or surface limit (16384 on Hopper; CAVR_CUDA_MAX_TEXTURE3D lowers it, for
 * tests) and 1001 when device memory is short: the caller renders on the CPU instead.
 */
int cavr_cuda_volume_create(CAVRGpuContext *ctx, const void *voxels, int storage, const int dims[3], int cube,
                            CAVRGpuVolume **out, char *msg, size_t msgSize);
void cavr_cuda_volume_destroy(CAVRGpuVolume *vol);
/**
 * Copy new voxels (the volume's dims and storage, x fastest) into the corner of its array, reusing the array
 * (a new time step). Chunks of whole z-slices (or of rows, when a slice is larger) of 2 MiB
 * (CAVR_UPLOAD_CHUNK_MIB) go through two page-locked staging buffers per host thread (every core, at most 16;
 * CAVR_UPLOAD_THREADS), made by cavr_cuda_upload_prepare or at the first upload and kept in the context: each
 * thread copies a chunk into one buffer while the DMA engine copies its other buffer into the array
 * (cudaMemcpy3DAsync on the context's stream, an event per buffer). A volume of one chunk is copied from pageable
 * memory. Blocking; the rotation state is the caller's (rotate back first). *ms (may be NULL): wall time of the
 * upload, milliseconds.
 */
int cavr_cuda_volume_upload(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const void *voxels, float *ms, char *msg,
                            size_t msgSize);
/**
 * Start making the upload's page-locked staging buffers (2 per host thread, 64 MiB on 16 cores; about 40 ms)
 * on a background thread, so that the first upload does not wait for them; the first use of the upload state
 * joins it. Failures are silent (the upload makes what is missing, or copies from pageable memory).
 */
void cavr_cuda_upload_prepare(CAVRGpuContext *ctx);
/**
 * Move the volume into a zeroed cube array of side `cube` (>= each dim, a multiple of 64), voxels in the corner,
 * by a device-to-device copy from its current array, which is then freed (both exist during the copy). The handle
 * stays valid; its texture and surface objects change. No-op when the array already is that cube. *ms: wall time.
 * The library does not call it (cuda_backend.c's rotate_volume turns a non-cubic volume by a copy into an array of
 * the permuted extent); test_gpu_volume and test_gpu_rotation do.
 */
int cavr_cuda_volume_pad_to_cube(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int cube, float *ms, char *msg,
                                 size_t msgSize);
/**
 * Macro-cell min/max of the voxels as uploaded (unrotated), on the device: cell c = (cx, cy, cz) of cells[0] x
 * cells[1] x cells[2] (x fastest) covers voxels [8c, min(8c + 8, dim - 1)] on each axis, both ends included;
 * minmax[2c], minmax[2c + 1] receive its smallest and largest stored value as float (the same values as
 * cavr_compute_macrocells in core/src/macrocell.c); range the smallest and largest stored value of the volume.
 * *ms (may be NULL): wall time including the copy back.
 */
int cavr_cuda_volume_macrocells(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const int cells[3], float *minmax,
                                float range[2], float *ms, char *msg, size_t msgSize);
/** Bytes of the CUDA array (its extent times the bytes per value). */
size_t cavr_cuda_volume_bytes(const CAVRGpuVolume *vol);
/** Extent of the CUDA array (the volume's dims, or cube^3 when padded); returns the cube side, 0 when not a cube. */
int cavr_cuda_volume_extent(const CAVRGpuVolume *vol, int extent[3]);

/**
 * Rotate the volume in place by a quarter turn (Misaki et al. 2017, Algorithm 1): plane 1 = xz (about y),
 * 2 = xy (about z); direction +1: new(a', b') = old(a, b) with a' = cube-1-b, b' = a; -1 the inverse.
 * t x t x k tiles (t = 32, k = 16), one thread block per cycle of four tiles, staged in shared memory, read
 * and written through the surface object in 16-byte words, two slices a step: no second copy. *ms receives the
 * kernel time.
 */
int cavr_cuda_volume_rotate(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms,
                            char *msg, size_t msgSize);
/**
 * cavr_cuda_volume_rotate with a chosen in-place kernel, for the benchmark and the tests (the same map; cubes whose
 * side is a multiple of 64 only, others turn by a copy whatever the variant): 0 the default, 1 one value per thread,
 * 2 16-byte words, 3 16-byte words with the next slice prefetched, 4 as 3 with k = 64, 5 as 3 with 64 x 64 tiles
 * (side a multiple of 128; uint8 and uint16), 6 a control that is not a rotation: every word written back in place
 * by the same grid (four slices a step, the next step loaded before this one is stored, no barriers), 7 two slices
 * per step (the default), 8 two slices per step with prefetch, 9 four slices per step (uint8 and uint16). Returns 4
 * when the variant does not apply to the volume.
 */
int cavr_cuda_volume_rotate_variant(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, int variant,
                                    float *ms, char *msg, size_t msgSize);
/**
 * The driver's device-to-device copy of the volume's array into a new array of the same extent and format
 * (cudaMemcpy3D), best of 5 after a warm-up, as GB/s read + written (bytes of the array x 2 / time). Needs a second
 * array's memory for the call; returns 1001 when it does not fit.
 */
int cavr_cuda_array_copy_bandwidth(CAVRGpuContext *ctx, CAVRGpuVolume *vol, double *gbPerSecond, char *msg,
                                   size_t msgSize);
/**
 * Super-sampling on the device (core/src/supersample.c): keep the W x H float RGBA and depth of
 * the frame just rendered (the 5-ray pattern's centre rays) in buffers of the context, before the larger frame
 * replaces the context's planes.
 */
int cavr_cuda_supersample_keep_centre(CAVRGpuContext *ctx, int W, int H, char *msg, size_t msgSize);
/**
 * Reduce the G W x G H frame just rendered (the context's float RGBA and depth planes) to W x H: each pixel's
 * premultiplied RGBA is the mean of its G x G rays (and the kept centre ray when withCentre; n rays in all),
 * clamped to [0, 1], RGBA8 from it, depth the nearest. The non-NULL host planes (W x H uchar4 / float4 / float)
 * receive the result; devicePlanes[0..2] the device copies (valid until the next call). *kernelMs, *transferMs:
 * the reduction and the copy back, ms.
 */
int cavr_cuda_supersample_reduce(CAVRGpuContext *ctx, int W, int H, int G, int n, int withCentre,
                                 unsigned char *hostRGBA8, float *hostRGBAF, float *hostDepth, float *kernelMs,
                                 float *transferMs, void *devicePlanes[3], char *msg, size_t msgSize);
/**
 * Copy the whole array back for tests: extent[0] x extent[1] x extent[2] values of the storage type, x fastest
 * (cavr_cuda_volume_extent; the volume's dims, or cube^3 when padded). Blocking.
 */
int cavr_cuda_volume_download(CAVRGpuContext *ctx, CAVRGpuVolume *vol, void *host, char *msg, size_t msgSize);

/**
 * The colour part of a volume of dependent components (cavrSetVolumeComponentData; kernels/components.cu): a 3-D
 * CUDA array of dims[0] x dims[1] x dims[2] values of `channels` floats (1: the colour component; 4: R, G, B in
 * [0, 1] and a 0), x fastest, copied from host memory `color` (blocking), with a trilinear and a point-sampling
 * texture object at the scalar texture's texel coordinates. Returns 1001 when device memory is short (the caller
 * renders on the CPU).
 */
typedef struct CAVRGpuColor CAVRGpuColor;
int cavr_cuda_color_create(CAVRGpuContext *ctx, const float *color, int channels, const int dims[3], CAVRGpuColor **out,
                           char *msg, size_t msgSize);
/** Free the array and its textures; NULL is a no-op. */
void cavr_cuda_color_destroy(CAVRGpuColor *color);
/** Bytes of the colour array (0 for NULL). */
size_t cavr_cuda_color_bytes(const CAVRGpuColor *color);

/**
 * Slices with nearest-voxel sampling (both back ends: core/src/cpu_backend.c slice_sample, kernels/iso.cu
 * slice_kernel) take the voxel nearest to the sample moved by this much (voxels) towards the origin on every axis:
 * a plane through voxel boundaries (the centre of an even extent) is a tie at every pixel, which the two back ends'
 * different rounding of the sample position (~1e-5 voxel) would break differently; this way both pick the lower
 * voxel. Elsewhere it moves the choice by at most 1e-3 voxel.
 */
#define CAVR_SLICE_NEAREST_TIE 1e-3f

/**
 * One frame for cavr_cuda_render: the frame's description (CAVRRayFrame, core/shared/cavr_frame.h; its launch
 * fields filled by the CUDA back end's policy) and the host data it reads and writes.
 */
typedef struct CAVRGpuFrameJob {
  CAVRRayFrame frame;
  const float *table;        /**< count x (R, G, B, opacity corrected for a full step), then the count raw entries
                                  (2 x count float4) */
  uint64_t tableStamp;       /**< uploaded only when this differs from the last upload (0: every time) */
  const float *table2d;      /**< composite with frame.tf2dW > 0: the 2-D table, frame.tf2dW x (frame.tf2dH + 1) x (R,
                                  G, B, opacity corrected for a full step), x fastest, the last row the columns' largest
                                  opacities (cavr_tf2d_sample, cavrSetTransferFunction2D); else NULL */
  uint64_t table2dStamp;     /**< uploaded only when this differs from the last upload (0: every time) */
  const uint8_t *cells;      /**< one byte per macro cell (1 = may be visible), or NULL (no skipping) */
  size_t cellCount;
  uint64_t cellsStamp;       /**< uploaded only when this differs from the last upload */
  const uint32_t *rays;      /**< NULL: every pixel; else rayCount pixel indices x + width*y (compressive rendering:
                                  only those pixels are written; one thread each, 1-D blocks of 256) */
  size_t rayCount;
  uint64_t raysStamp;        /**< uploaded only when this changes */
  const float *opaqueDepth;  /**< width*height window depths (host) or NULL */
  const float *opaqueDepthDevice; /**< the same in device memory, read in place (not NULL: opaqueDepth is ignored) */
  uint8_t *hostRGBA8;        /**< each not NULL receives its plane (width*height pixels, the frame buffer's layout) */
  float *hostRGBAF;
  float *hostDepth;
  const CAVRGpuColor *color; /**< frame.components > 1: the volume's colour part (composite), else NULL */
} CAVRGpuFrameJob;

/** What cavr_cuda_render measured: kernel and copy-back times (ms, CUDA events) and the samples taken. */
typedef struct CAVRGpuFrameResult {
  float kernelMs, transferMs;
  uint64_t samples;
} CAVRGpuFrameResult;

/**
 * Ray-cast one frame. Composite, maximum, minimum and average run raycast_kernel; the isosurface blend mode
 * kernels/iso.cu's kernels (frame.isoMethod), the slice blend mode its slice_kernel (one sample per ray on the
 * plane); CAVR_INTERPOLATION_CUBIC the kernels' cubic instantiations. The kernel writes all three device planes;
 * the job's host planes that are not NULL receive theirs by cudaMemcpyAsync on the context's stream after the
 * kernel, together with the sample count (into page-locked memory), and the call synchronises once, after the last
 * copy: page-locked host planes (cavr_cuda_host_register) are written by DMA, pageable ones through the driver's
 * staging. The device copies stay available through cavr_cuda_frame_device_pointers. `result` may be NULL.
 */
int cavr_cuda_render(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const CAVRGpuFrameJob *job, CAVRGpuFrameResult *result,
                     char *msg, size_t msgSize);
/**
 * Page-lock `bytes` of host memory at `host` (cudaHostRegister) so that copies into it are direct DMA; it must
 * stay allocated until cavr_cuda_host_unregister(host). Ranges must not share pages with another registered
 * range. A refusal leaves no CUDA error pending (the caller may keep copying into pageable memory).
 */
int cavr_cuda_host_register(void *host, size_t bytes, char *msg, size_t msgSize);
/** Undo cavr_cuda_host_register; NULL is a no-op. */
void cavr_cuda_host_unregister(void *host);
/** Device pointers of the last frame: uchar4 premultiplied RGBA, float4 RGBA, float depth. */
void cavr_cuda_frame_device_pointers(CAVRGpuContext *ctx, void **rgba8, void **rgbaf, void **depth);

/**
 * Compressive rendering's reconstruction on the frame left in device memory by cavr_cuda_render (Rabbani 2018
 * thesis): mask (width*height bytes, 1 = rendered; uploaded when maskStamp changes) selects the
 * rendered pixels; the others are solved from (S^T S + lambda H) x = S^T y, all four channels, with Jacobi-
 * preconditioned conjugate gradients in the Chronopoulos-Gear form, as core/src/reconstruct.c (filter: 49 floats,
 * row-major, left-right symmetric; otherwise an error). local = 1: one thread block per 16x16
 * pixel block, its window with a ghost ring of 3 pixels in shared memory, block reductions (CUB), its own
 * convergence test (thesis ch. 4); 0: global CG over the image, stencil kernels and CUB block reductions
 * (thesis ch. 3). Then the 8-bit plane and the depth of the solved pixels (nearest rendered depth within 3
 * pixels) are filled and the planes copied to the non-NULL host pointers, as cavr_cuda_render copies them
 * (asynchronous, one synchronisation after the last copy). *ms: solver kernels' time; *transferMs: the copies'
 * (CUDA events; either may be NULL); *iterations: the most iterations (local: of any block).
 */
int cavr_cuda_reconstruct(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask, uint64_t maskStamp,
                          int local, const float *filter, float lambda, int maxIterations, float tolerance,
                          uint8_t *hostRGBA8, float *hostRGBAF, float *hostDepth, float *ms, float *transferMs,
                          int *iterations, char *msg, size_t msgSize);

/**
 * Adaptive sampling's block statistics (compressive rendering; Rabbani 2018 thesis sec. 4.3) on the frame left in
 * device memory by cavr_cuda_render: for each 16x16 pixel block b (row-major, ceil(width/16) per row), weight[b] =
 * sqrt(sum over RGBA of the variance of the rendered values), over the pixels with mask = 1 (width*height bytes;
 * uploaded when maskStamp changes); 0 for a block without any. weight: host array of blocks doubles. Sums in double, as
 * the CPU's cavr_block_deviation.
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

/*
 * CUDA-OpenGL interop (kernels/gl_interop.cu): the frame's planes into OpenGL textures without a
 * trip through host memory. All need the OpenGL context that owns the textures current on the calling thread.
 */
/** *same = 1 when the current OpenGL context runs on the current CUDA device (cudaGLGetDevices), else 0 with the
    reason in msg (no context current, another GPU); returns non-zero only for a failing CUDA runtime. */
int cavr_cuda_gl_same_device(int *same, char *msg, size_t msgSize);
/** Register GL_TEXTURE_2D `texture` for writing (cudaGraphicsGLRegisterImage, write-discard); *resource receives the
    registration. Returns 4 (CAVR_ERROR_UNSUPPORTED) when CUDA refuses the texture (unknown name, a format it does not
    map: RGBA8, RGBA32F and R32F are mapped). */
int cavr_cuda_gl_register_texture(unsigned int texture, void **resource, char *msg, size_t msgSize);
/** Drop a registration (cudaGraphicsUnregisterResource); NULL is a no-op; failures (context gone) are ignored. */
void cavr_cuda_gl_unregister(void *resource);
/** Copy, for each of `count` (1 to 3) registered textures, `height` rows of rowBytes[i] from device memory srcs[i] into
    resources[i] (one map of all, cudaMemcpy2DToArrayAsync each, one unmap, on the context's stream; the unmap orders GL's
    later reads after the copies; the host does not wait). */
int cavr_cuda_gl_copy_to_textures(CAVRGpuContext *ctx, int count, void *const *resources, const void *const *srcs,
                                  const size_t *rowBytes, int height, char *msg, size_t msgSize);
/** Register OpenGL buffer object `buffer` for reading (cudaGraphicsGLRegisterBuffer, read-only); *resource receives
    the registration. Returns 4 (CAVR_ERROR_UNSUPPORTED) when CUDA refuses the buffer. */
int cavr_cuda_gl_register_buffer(unsigned int buffer, void **resource, char *msg, size_t msgSize);
/** Copy the first `bytes` of a registered buffer into device memory *dst (reallocated by cudaMalloc when *dstCap, its
    size in bytes, is smaller), on the context's stream under one map and unmap (the host does not wait). Returns 2
    (CAVR_ERROR_INVALID_ARGUMENT) when the buffer is smaller than `bytes`. */
int cavr_cuda_gl_copy_from_buffer(CAVRGpuContext *ctx, void *resource, void **dst, size_t *dstCap, size_t bytes,
                                  char *msg, size_t msgSize);
/*
 * Memory shared with another graphics API (kernels/shared_planes.cu): device memory made with the
 * driver's virtual memory API and exported as a POSIX file descriptor (OpenGL: GL_EXT_memory_object_fd).
 */
typedef struct CAVRGpuShared CAVRGpuShared;
/** At least `bytes` of memory on the context's device, exported: *out the allocation (cavr_cuda_share_free), *ptr its
    device address, *size its size in bytes (a multiple of the driver's granularity: import with this size), *fd a new
    file descriptor the importer owns. Returns 4 (CAVR_ERROR_UNSUPPORTED) where the driver or device cannot export
    memory (entry points missing: a driver older than CUDA 12), 1001 out of device memory, 1000 another CUDA error. */
int cavr_cuda_share_alloc(CAVRGpuContext *ctx, size_t bytes, CAVRGpuShared **out, void **ptr, unsigned long long *size,
                          int *fd, char *msg, size_t msgSize);
/** Release cavr's reference (unmap, free the address range, release the handle); an importer keeps its own. */
void cavr_cuda_share_free(CAVRGpuShared *shared);
/** The shared memory the next renders on the context copy their RGBA8 and depth planes into (NULL: none); bytes: the
    size of each (planes larger than that are not copied). */
void cavr_cuda_set_share(CAVRGpuContext *ctx, void *color, void *depth, size_t bytes);
/** Copy `bytes` of device memory to the host on the context's stream and wait for it. */
int cavr_cuda_download(CAVRGpuContext *ctx, void *host, const void *device, size_t bytes, char *msg, size_t msgSize);
/** cudaFree, errors ignored (a context already torn down); NULL is a no-op. */
void cavr_cuda_free_device(void *device);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_KERNELS_H */

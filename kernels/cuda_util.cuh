// SPDX-License-Identifier: BSD-3-Clause
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

// A texture object over a whole 3-D array as the kernels read one: clamped at the faces, addressed in voxels
// (unnormalised coordinates), `filter` linear (trilinear) or point (nearest voxel), `mode` as cudaTextureDesc.readMode.
static inline cudaError_t cavr_array_texture(cudaArray_t array, cudaTextureFilterMode filter, cudaTextureReadMode mode,
                                             cudaTextureObject_t *out) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  for (int a = 0; a < 3; ++a) td.addressMode[a] = cudaAddressModeClamp;
  td.filterMode = filter;
  td.readMode = mode;
  td.normalizedCoords = 0;
  return cudaCreateTextureObject(out, &res, &td, nullptr);
}

struct CAVRGpuUploader; // volume.cu: page-locked staging buffers of volume uploads, macro-cell buffers
extern "C" void cavr_cuda_uploader_destroy(CAVRGpuUploader *u);

struct CAVRGpuContext {
  int device;            // CUDA device index the context's stream and buffers live on
  cudaStream_t stream;
  CAVRGpuUploader *uploader; // made at the first volume upload that needs it
  cudaEvent_t start, stop;
  float4 *table;         size_t tableCap;
  uint64_t tableStamp;   // stamp of the transfer-function table in `table` (0: none; cavr_cuda_render)
  float4 *table2d;       size_t table2dCap;  uint64_t table2dStamp; // the 2-D table (cavrSetTransferFunction2D), likewise
  unsigned char *cells;  size_t cellsCap;
  float *opaque;         size_t pixelCap;
  uchar4 *rgba8;
  float4 *rgbaf;
  float *depth;
  unsigned long long *samples;
  uint64_t cellsStamp;   // stamp of the macro cells in `cells` (0: none)
  // compressive rendering
  unsigned *rays;        size_t raysCap;  uint64_t raysStamp;   // ray list (pixel indices)
  unsigned *rays2;       size_t raysCap2; uint64_t raysStamp2;  // the list before it (cavr_cuda_two_slots)
  unsigned char *mask;   size_t maskCap;  uint64_t maskStamp;   // sampling mask
  unsigned char *mask2;  size_t maskCap2; uint64_t maskStamp2;  // the mask before it
  float4 *work;          size_t workCap;                        // global solver vectors
  int *iterations;                                              // local solver: most iterations of a block
  float4 *iso;           size_t isoCap;                         // warp marching: rays and hits (kernels/iso.cu)
  float4 *ssCentre;      size_t ssCentreCap;                    // super-sampling (supersample.cu): the centre rays,
  float *ssCentreDepth;  size_t ssCentreDepthCap;               // and the W x H result planes
  uchar4 *ss8;           size_t ss8Cap;
  float4 *ssF;           size_t ssFCap;
  float *ssD;            size_t ssDCap;
  // Copies back to the host (cavr_cuda_queue_copies): an event after the last copy, and page-locked scalars read
  // back with the image ([0] sample count, [1] iterations), so that no read-back forces its own synchronisation.
  cudaEvent_t copied;
  // Memory shared with another graphics API (shared_planes.cu), set for each render by the core: when not NULL, every
  // read-back (cavr_cuda_queue_copies, the super-sampled reduce) also copies the RGBA8 and depth planes there.
  void *shareColor, *shareDepth;
  size_t shareBytes;
  unsigned long long *hostScalars;                              // cudaMallocHost, 2 values
  CAVRGpuConfig config;                                         // settings from the environment (all zero: defaults)
};

// Two cached uploads of one kind (ray lists, sampling masks), so that two frame buffers rendered in turn (super-
// sampling's centre and larger frame, both compressive) do not re-upload theirs every frame: the current one is
// (*p, *cap, *stamp), the one before it (*p2, *cap2, *stamp2). Returns true when `stamp` is cached (it becomes the
// current one); false when the caller must upload into the current slot, which then holds the older of the two
// (the one just used moves to the second slot).
template <typename T>
static inline bool cavr_cuda_two_slots(T **p, size_t *cap, uint64_t *stamp, T **p2, size_t *cap2, uint64_t *stamp2,
                                       uint64_t want, size_t bytes) {
  if (*stamp == want && *cap >= bytes) return true;
  T *tp = *p;
  *p = *p2, *p2 = tp;
  size_t tc = *cap;
  *cap = *cap2, *cap2 = tc;
  uint64_t ts = *stamp;
  *stamp = *stamp2, *stamp2 = ts;
  return *stamp == want && *cap >= bytes;
}

// The copy event and the page-locked scalars, made at first use (freed by cavr_cuda_context_destroy).
static inline int cavr_cuda_copy_resources(CAVRGpuContext *ctx, char *msg, size_t msgSize) {
  if (!ctx->copied) CAVR_CUDA_CHECK(cudaEventCreate(&ctx->copied), "cudaEventCreate (copy back)");
  if (!ctx->hostScalars)
    CAVR_CUDA_CHECK(cudaMallocHost(&ctx->hostScalars, 2 * sizeof(unsigned long long)), "cudaMallocHost (read-back scalars)");
  return 0;
}

// The RGBA8 and depth planes (pixels each) into the memory shared with another graphics API, when the render's frame
// buffer shares it (ctx->shareColor): device to device, on the stream, before the read-back's event.
static inline cudaError_t cavr_cuda_queue_share(CAVRGpuContext *ctx, const void *rgba8, const void *depth,
                                                size_t pixels) {
  if (!ctx->shareColor || ctx->shareBytes < pixels * 4) return cudaSuccess;
  cudaError_t e = cudaMemcpyAsync(ctx->shareColor, rgba8, pixels * 4, cudaMemcpyDeviceToDevice, ctx->stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(ctx->shareDepth, depth, pixels * 4, cudaMemcpyDeviceToDevice, ctx->stream);
  return e;
}

// Queue, on the context's stream after the work already queued (`after` names it for messages), the copies of the
// frame's planes into the non-NULL host pointers (width*height pixels: uchar4, float4, float), then record
// ctx->copied (with the copies into shared memory first, cavr_cuda_queue_share). Page-locked destinations are written by DMA and the calls return at once; pageable ones are copied
// through the driver's staging before the call returns. The caller synchronises once, on ctx->copied.
static inline int cavr_cuda_queue_copies(CAVRGpuContext *ctx, size_t pixels, void *rgba8, void *rgbaf, void *depth,
                                         const char *after, char *msg, size_t msgSize) {
  const void *src[3] = {ctx->rgba8, ctx->rgbaf, ctx->depth};
  void *dst[3] = {rgba8, rgbaf, depth};
  const size_t bytes[3] = {pixels * sizeof(uchar4), pixels * sizeof(float4), pixels * sizeof(float)};
  static const char *const names[3] = {"RGBA8 plane", "RGBA32F plane", "depth plane"};
  for (int c = 0; c < 3; ++c) {
    if (!dst[c]) continue;
    cudaError_t e = cudaMemcpyAsync(dst[c], src[c], bytes[c], cudaMemcpyDeviceToHost, ctx->stream);
    if (e != cudaSuccess) {
      char what[160];
      std::snprintf(what, sizeof what, "cudaMemcpyAsync (%s, after %s)", names[c], after);
      return cavr_cuda_fail(e, what, msg, msgSize);
    }
  }
  CAVR_CUDA_CHECK(cavr_cuda_queue_share(ctx, ctx->rgba8, ctx->depth, pixels), "cudaMemcpyAsync (into shared memory)");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->copied, ctx->stream), "cudaEventRecord (copy back)");
  return 0;
}

struct CAVRGpuVolume {
  cudaArray_t array;
  cudaTextureObject_t linear, point;
  cudaTextureObject_t raw;  // point sampling, element type: exact stored values (macro cells)
  cudaSurfaceObject_t surface;
  int storage;           // 0 uint8, 1 uint16, 2 float
  int dims[3];           // voxels of the volume, in the corner of the array
  int extent[3];         // the CUDA array: dims, or cube^3 once padded for in-place rotation
  int cube;              // extent's side when the array is a cube, else 0
  float scale;           // normalised read -> stored units
};

// The colour part of a volume of dependent components (components.cu; cavr_kernels.h: cavr_cuda_color_create).
struct CAVRGpuColor {
  cudaArray_t array;
  cudaTextureObject_t linear, point; // float or float4 texels, read as stored (no normalisation)
  int channels;                      // 1 or 4
  size_t bytes;
};

// v takes over c's array, texture and surface objects and extent (v's own are freed); c is deleted. (volume.cu)
void cavr_cuda_volume_adopt(CAVRGpuVolume *v, CAVRGpuVolume *c);

#endif

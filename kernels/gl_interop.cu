// SPDX-License-Identifier: BSD-3-Clause
// gl_interop.cu - the frame's planes into OpenGL textures on the GPU (CUDA-OpenGL interop), for a display that
// does not go through host memory. No GL header is needed: the names below are GL's values.
#include <cstdio>

#include "cuda_util.cuh"

// cuda_gl_interop.h includes <GL/gl.h>, which the GPU machines lack; these are its declarations with GLuint and
// GLenum spelled as the unsigned int they are (the functions are in the CUDA runtime, static or shared).
extern "C" {
cudaError_t CUDARTAPI cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, unsigned int image,
                                                  unsigned int target, unsigned int flags);
cudaError_t CUDARTAPI cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource, unsigned int buffer,
                                                   unsigned int flags);
cudaError_t CUDARTAPI cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices, unsigned int cudaDeviceCount,
                                       int deviceList);
}

namespace {
constexpr unsigned int kGLTexture2D = 0x0DE1; // GL_TEXTURE_2D
constexpr int kGLDeviceListAll = 1;           // cudaGLDeviceListAll
} // namespace

extern "C" int cavr_cuda_gl_same_device(int *same, char *msg, size_t msgSize) {
  *same = 0;
  int current = 0;
  CAVR_CUDA_CHECK(cudaGetDevice(&current), "cudaGetDevice");
  unsigned int count = 0;
  int devices[16];
  cudaError_t e = cudaGLGetDevices(&count, devices, 16, kGLDeviceListAll);
  if (e != cudaSuccess) {
    cudaGetLastError(); // not sticky: no GL context current, or it runs on no CUDA device
    std::snprintf(msg, msgSize, "cudaGLGetDevices: %s (%s): no OpenGL context of this GPU is current",
                  cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
  }
  for (unsigned int i = 0; i < count && i < 16; ++i)
    if (devices[i] == current) *same = 1;
  if (!*same)
    std::snprintf(msg, msgSize, "the current OpenGL context runs on %u other CUDA device(s), not device %d", count,
                  current);
  return 0;
}

// A registration CUDA refuses (unknown name, a format it does not map) is the caller's to fix or to display another
// way (4, CAVR_ERROR_UNSUPPORTED); only a failing driver is a CUDA error.
static int refused_or_failed(cudaError_t e, const char *what, char *msg, size_t msgSize) {
  cudaGetLastError();
  const int code = cavr_cuda_fail(e, what, msg, msgSize);
  return e == cudaErrorInvalidValue || e == cudaErrorInvalidGraphicsContext || e == cudaErrorNotSupported ||
                 e == cudaErrorUnknown || e == cudaErrorOperatingSystem || e == cudaErrorInvalidResourceHandle
             ? 4
             : code;
}

extern "C" int cavr_cuda_gl_register_buffer(unsigned int buffer, void **resource, char *msg, size_t msgSize) {
  *resource = nullptr;
  cudaGraphicsResource *r = nullptr;
  cudaError_t e = cudaGraphicsGLRegisterBuffer(&r, buffer, cudaGraphicsRegisterFlagsReadOnly);
  if (e != cudaSuccess) {
    char what[96];
    std::snprintf(what, sizeof what, "cudaGraphicsGLRegisterBuffer (buffer %u)", buffer);
    return refused_or_failed(e, what, msg, msgSize);
  }
  *resource = r;
  return 0;
}

extern "C" int cavr_cuda_gl_copy_from_buffer(CAVRGpuContext *ctx, void *resource, void **dst, size_t *dstCap,
                                             size_t bytes, char *msg, size_t msgSize) {
  if (*dstCap < bytes) {
    cudaFree(*dst);
    *dst = nullptr;
    *dstCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(dst, bytes), "cudaMalloc (opaque depth)");
    *dstCap = bytes;
  }
  cudaGraphicsResource *r = static_cast<cudaGraphicsResource *>(resource);
  CAVR_CUDA_CHECK(cudaGraphicsMapResources(1, &r, ctx->stream), "cudaGraphicsMapResources");
  void *src = nullptr;
  size_t size = 0;
  cudaError_t e = cudaGraphicsResourceGetMappedPointer(&src, &size, r);
  int code = 0;
  if (e != cudaSuccess) {
    code = cavr_cuda_fail(e, "cudaGraphicsResourceGetMappedPointer", msg, msgSize);
  } else if (size < bytes) {
    std::snprintf(msg, msgSize, "the OpenGL buffer holds %zu bytes, the frame's depth needs %zu", size, bytes);
    code = 2; // CAVR_ERROR_INVALID_ARGUMENT
  } else {
    e = cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyDeviceToDevice, ctx->stream);
    if (e != cudaSuccess) code = cavr_cuda_fail(e, "copying the opaque depth from an OpenGL buffer", msg, msgSize);
  }
  // The unmap orders OpenGL's later writes to the buffer after the copy; renders on the stream follow it.
  const cudaError_t u = cudaGraphicsUnmapResources(1, &r, ctx->stream);
  if (!code && u != cudaSuccess) code = cavr_cuda_fail(u, "cudaGraphicsUnmapResources", msg, msgSize);
  return code;
}

extern "C" int cavr_cuda_download(CAVRGpuContext *ctx, void *host, const void *device, size_t bytes, char *msg,
                                  size_t msgSize) {
  CAVR_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, ctx->stream), "cudaMemcpy (to host)");
  CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
  return 0;
}

extern "C" void cavr_cuda_free_device(void *device) {
  if (device && cudaFree(device) != cudaSuccess) cudaGetLastError();
}

extern "C" int cavr_cuda_gl_register_texture(unsigned int texture, void **resource, char *msg, size_t msgSize) {
  *resource = nullptr;
  cudaGraphicsResource *r = nullptr;
  cudaError_t e = cudaGraphicsGLRegisterImage(&r, texture, kGLTexture2D, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    char what[96];
    std::snprintf(what, sizeof what, "cudaGraphicsGLRegisterImage (texture %u)", texture);
    return refused_or_failed(e, what, msg, msgSize);
  }
  *resource = r;
  return 0;
}

extern "C" void cavr_cuda_gl_unregister(void *resource) {
  if (!resource) return;
  if (cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource *>(resource)) != cudaSuccess)
    cudaGetLastError(); // the context (or the texture) went first: nothing left to free on our side
}

extern "C" int cavr_cuda_gl_copy_to_textures(CAVRGpuContext *ctx, int count, void *const *resources,
                                             const void *const *srcs, const size_t *rowBytes, int height, char *msg,
                                             size_t msgSize) {
  if (count < 1 || count > 3) {
    std::snprintf(msg, msgSize, "cavr_cuda_gl_copy_to_textures: %d textures (1 to 3)", count);
    return 2;
  }
  cudaGraphicsResource *r[3];
  for (int i = 0; i < count; ++i) r[i] = static_cast<cudaGraphicsResource *>(resources[i]);
  // One map and one unmap for all the planes: each is a synchronisation between OpenGL and CUDA.
  CAVR_CUDA_CHECK(cudaGraphicsMapResources(count, r, ctx->stream), "cudaGraphicsMapResources");
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < count && e == cudaSuccess; ++i) {
    cudaArray_t array = nullptr;
    e = cudaGraphicsSubResourceGetMappedArray(&array, r[i], 0, 0);
    if (e == cudaSuccess)
      e = cudaMemcpy2DToArrayAsync(array, 0, 0, srcs[i], rowBytes[i], rowBytes[i], (size_t)height,
                                   cudaMemcpyDeviceToDevice, ctx->stream);
  }
  // Unmapping orders GL's later use of the textures after the copies on the stream; the host does not wait.
  const cudaError_t u = cudaGraphicsUnmapResources(count, r, ctx->stream);
  if (e != cudaSuccess) return cavr_cuda_fail(e, "copying a plane into an OpenGL texture", msg, msgSize);
  if (u != cudaSuccess) return cavr_cuda_fail(u, "cudaGraphicsUnmapResources", msg, msgSize);
  return 0;
}

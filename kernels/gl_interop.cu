// gl_interop.cu - the frame's planes into OpenGL textures on the GPU (CUDA-OpenGL interop), for a display that
// does not go through host memory (issue 14, item 3). No GL header is needed: the names below are GL's values.
#include <cstdio>

#include "cuda_util.cuh"

// cuda_gl_interop.h includes <GL/gl.h>, which the GPU machines lack; these are its declarations with GLuint and
// GLenum spelled as the unsigned int they are (the functions are in the CUDA runtime, static or shared).
extern "C" {
cudaError_t CUDARTAPI cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, unsigned int image,
                                                  unsigned int target, unsigned int flags);
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

extern "C" int cavr_cuda_gl_register_texture(unsigned int texture, void **resource, char *msg, size_t msgSize) {
  *resource = nullptr;
  cudaGraphicsResource *r = nullptr;
  cudaError_t e = cudaGraphicsGLRegisterImage(&r, texture, kGLTexture2D, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    cudaGetLastError();
    char what[96];
    std::snprintf(what, sizeof what, "cudaGraphicsGLRegisterImage (texture %u)", texture);
    const int code = cavr_cuda_fail(e, what, msg, msgSize);
    // A texture that cannot be registered (unknown name, a format CUDA does not map) is the caller's to fix or to
    // display another way; only a failing driver is a CUDA error.
    return e == cudaErrorInvalidValue || e == cudaErrorInvalidGraphicsContext || e == cudaErrorNotSupported ||
                   e == cudaErrorUnknown || e == cudaErrorOperatingSystem
               ? 4
               : code;
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

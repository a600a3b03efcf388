// SPDX-License-Identifier: BSD-3-Clause
// components.cu - the colour part of a volume of dependent components (cavrSetVolumeComponentData): a 3-D CUDA
// array of float (the colour component of a 2-component volume) or float4 (R, G, B rescaled to [0, 1] and a 0, of a
// 4-component volume) of the volume's dims, with a trilinear and a point-sampling texture object in unnormalised
// texel coordinates (texel i's centre at i + 0.5, as the scalar texture), read by raycast.cu's COLOR kernels at the
// scalar's own stored texture coordinates (such a volume is never rotated).
#include <cstring>
#include <new>

#include "cuda_util.cuh"

extern "C" void cavr_cuda_color_destroy(CAVRGpuColor *c) {
  if (!c) return;
  if (c->linear) cudaDestroyTextureObject(c->linear);
  if (c->point) cudaDestroyTextureObject(c->point);
  if (c->array) cudaFreeArray(c->array);
  delete c;
}

extern "C" int cavr_cuda_color_create(CAVRGpuContext *ctx, const float *color, int channels, const int dims[3],
                                      CAVRGpuColor **out, char *msg, size_t msgSize) {
  *out = nullptr;
  if (channels != 1 && channels != 4) {
    std::snprintf(msg, msgSize, "cavr_cuda_color_create: %d channels (1 or 4)", channels);
    return 2;
  }
  CAVRGpuColor *c = new (std::nothrow) CAVRGpuColor();
  if (!c) {
    std::snprintf(msg, msgSize, "out of host memory for the colour texture");
    return 3;
  }
  c->channels = channels;
  const cudaChannelFormatDesc fmt = channels == 4 ? cudaCreateChannelDesc<float4>() : cudaCreateChannelDesc<float>();
  const cudaExtent ext = make_cudaExtent(dims[0], dims[1], dims[2]);
  cudaError_t e = cudaMalloc3DArray(&c->array, &fmt, ext, 0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    cavr_cuda_color_destroy(c);
    return cavr_cuda_fail(e, "cudaMalloc3DArray (colour components)", msg, msgSize);
  }
  c->bytes = (size_t)dims[0] * dims[1] * dims[2] * sizeof(float) * channels;
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr((void *)color, (size_t)dims[0] * sizeof(float) * channels, dims[0], dims[1]);
  cp.dstArray = c->array;
  cp.extent = ext;
  cp.kind = cudaMemcpyHostToDevice;
  e = cudaMemcpy3DAsync(&cp, ctx->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
  if (e == cudaSuccess) e = cavr_array_texture(c->array, cudaFilterModeLinear, cudaReadModeElementType, &c->linear);
  if (e == cudaSuccess) e = cavr_array_texture(c->array, cudaFilterModePoint, cudaReadModeElementType, &c->point);
  if (e != cudaSuccess) {
    cavr_cuda_color_destroy(c);
    return cavr_cuda_fail(e, "uploading the colour components", msg, msgSize);
  }
  *out = c;
  return 0;
}

extern "C" size_t cavr_cuda_color_bytes(const CAVRGpuColor *c) { return c ? c->bytes : 0; }

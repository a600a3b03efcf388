// device_probe.cu - which CUDA devices exist; the per-device context; volumes in 3-D CUDA arrays.
#include <cstdio>
#include <cstring>
#include <new>

#include "cuda_util.cuh"

extern "C" int cavr_cuda_device_count(int *count, char *msg, size_t msgSize) {
  *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) {
    *count = 0;
    return cavr_cuda_fail(e, "cudaGetDeviceCount", msg, msgSize);
  }
  return 0;
}

extern "C" int cavr_cuda_device_info(char *name, size_t nameSize, size_t *totalBytes, char *msg, size_t msgSize) {
  cudaDeviceProp prop;
  CAVR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::snprintf(name, nameSize, "%s", prop.name);
  *totalBytes = prop.totalGlobalMem;
  return 0;
}

extern "C" int cavr_cuda_context_create(CAVRGpuContext **out, char *msg, size_t msgSize) {
  *out = nullptr;
  CAVRGpuContext *c = new (std::nothrow) CAVRGpuContext();
  if (!c) {
    std::snprintf(msg, msgSize, "out of host memory for the CUDA context");
    return 3;
  }
  std::memset(c, 0, sizeof *c);
  cudaError_t e = cudaSetDevice(0);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreate(&c->start);
  if (e == cudaSuccess) e = cudaEventCreate(&c->stop);
  if (e == cudaSuccess) e = cudaMalloc(&c->samples, sizeof(unsigned long long));
  if (e != cudaSuccess) {
    int code = cavr_cuda_fail(e, "creating the CUDA context (stream, events)", msg, msgSize);
    cavr_cuda_context_destroy(c);
    return code;
  }
  *out = c;
  return 0;
}

extern "C" void cavr_cuda_context_destroy(CAVRGpuContext *c) {
  if (!c) return;
  cudaFree(c->table);
  cudaFree(c->cells);
  cudaFree(c->opaque);
  cudaFree(c->rgba8);
  cudaFree(c->rgbaf);
  cudaFree(c->depth);
  cudaFree(c->samples);
  cudaFree(c->rays);
  cudaFree(c->mask);
  cudaFree(c->work);
  cudaFree(c->iterations);
  if (c->start) cudaEventDestroy(c->start);
  if (c->stop) cudaEventDestroy(c->stop);
  if (c->stream) cudaStreamDestroy(c->stream);
  delete c;
}

extern "C" void cavr_cuda_frame_device_pointers(CAVRGpuContext *c, void **rgba8, void **rgbaf, void **depth) {
  *rgba8 = c ? c->rgba8 : nullptr;
  *rgbaf = c ? c->rgbaf : nullptr;
  *depth = c ? c->depth : nullptr;
}

static size_t storage_size(int storage) { return storage == 0 ? 1 : storage == 1 ? 2 : 4; }

extern "C" int cavr_cuda_volume_create(CAVRGpuContext *ctx, const void *voxels, int storage, const int dims[3],
                                       int cube, CAVRGpuVolume **out, char *msg, size_t msgSize) {
  *out = nullptr;
  CAVRGpuVolume *v = new (std::nothrow) CAVRGpuVolume();
  if (!v) {
    std::snprintf(msg, msgSize, "out of host memory");
    return 3;
  }
  std::memset(v, 0, sizeof *v);
  v->storage = storage;
  v->cube = cube;
  std::memcpy(v->dims, dims, sizeof v->dims);
  cudaChannelFormatDesc fmt = storage == 0   ? cudaCreateChannelDesc<unsigned char>()
                              : storage == 1 ? cudaCreateChannelDesc<unsigned short>()
                                             : cudaCreateChannelDesc<float>();
  v->scale = storage == 0 ? 255.0f : storage == 1 ? 65535.0f : 1.0f;
  cudaExtent ext = make_cudaExtent(cube, cube, cube);
  cudaError_t e = cudaMalloc3DArray(&v->array, &fmt, ext, cudaArraySurfaceLoadStore);
  if (e != cudaSuccess) {
    int code = cavr_cuda_fail(e, "cudaMalloc3DArray (volume)", msg, msgSize);
    delete v;
    return code;
  }
  int code = 0;
  size_t es = storage_size(storage);
  // Zero the padding, then copy the voxels into the corner of the cube.
  if (cube != dims[0] || cube != dims[1] || cube != dims[2]) {
    size_t slice = (size_t)cube * cube * es;
    void *zero = nullptr;
    e = cudaMalloc(&zero, slice);
    if (e == cudaSuccess) e = cudaMemset(zero, 0, slice);
    for (int z = 0; e == cudaSuccess && z < cube; ++z) {
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(zero, (size_t)cube * es, cube, cube);
      p.dstArray = v->array;
      p.dstPos = make_cudaPos(0, 0, z);
      p.extent = make_cudaExtent(cube, cube, 1);
      p.kind = cudaMemcpyDeviceToDevice;
      e = cudaMemcpy3D(&p);
    }
    cudaFree(zero);
    if (e != cudaSuccess) code = cavr_cuda_fail(e, "zeroing the volume padding", msg, msgSize);
  }
  if (!code) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void *>(voxels), (size_t)dims[0] * es, dims[0], dims[1]);
    p.dstArray = v->array;
    p.extent = make_cudaExtent(dims[0], dims[1], dims[2]);
    p.kind = cudaMemcpyHostToDevice;
    e = cudaMemcpy3D(&p);
    if (e != cudaSuccess) code = cavr_cuda_fail(e, "cudaMemcpy3D (volume upload)", msg, msgSize);
  }
  if (!code) {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = v->array;
    cudaTextureDesc td = {};
    for (int a = 0; a < 3; ++a) td.addressMode[a] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = storage == 2 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    e = cudaCreateTextureObject(&v->linear, &res, &td, nullptr);
    td.filterMode = cudaFilterModePoint;
    if (e == cudaSuccess) e = cudaCreateTextureObject(&v->point, &res, &td, nullptr);
    if (e == cudaSuccess) e = cudaCreateSurfaceObject(&v->surface, &res);
    if (e != cudaSuccess) code = cavr_cuda_fail(e, "creating the texture/surface objects", msg, msgSize);
  }
  if (code) {
    cavr_cuda_volume_destroy(v);
    return code;
  }
  *out = v;
  return 0;
}

extern "C" void cavr_cuda_volume_destroy(CAVRGpuVolume *v) {
  if (!v) return;
  if (v->linear) cudaDestroyTextureObject(v->linear);
  if (v->point) cudaDestroyTextureObject(v->point);
  if (v->surface) cudaDestroySurfaceObject(v->surface);
  if (v->array) cudaFreeArray(v->array);
  delete v;
}

extern "C" size_t cavr_cuda_volume_bytes(const CAVRGpuVolume *v) {
  return v ? (size_t)v->cube * v->cube * v->cube * storage_size(v->storage) : 0;
}

extern "C" int cavr_cuda_volume_download(CAVRGpuContext *ctx, CAVRGpuVolume *v, void *host, char *msg,
                                         size_t msgSize) {
  (void)ctx;
  size_t es = storage_size(v->storage);
  cudaMemcpy3DParms p = {};
  p.srcArray = v->array;
  p.dstPtr = make_cudaPitchedPtr(host, (size_t)v->cube * es, v->cube, v->cube);
  p.extent = make_cudaExtent(v->cube, v->cube, v->cube);
  p.kind = cudaMemcpyDeviceToHost;
  CAVR_CUDA_CHECK(cudaMemcpy3D(&p), "cudaMemcpy3D (volume download)");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// shared_planes.cu - device memory another graphics API imports: the display planes handed to
// OpenGL with no map, no unmap and no copy on the OpenGL side. The memory is made with the driver's virtual memory
// management API (cuMemCreate with a POSIX file descriptor handle), the only kind CUDA exports: OpenGL imports it with
// GL_EXT_memory_object_fd, Vulkan with VK_KHR_external_memory_fd. cavr links the CUDA runtime statically and not
// libcuda, so the driver's entry points are looked up at run time (cudaGetDriverEntryPointByVersion).
// Control: testing/lab/probes/probe_gl_handover.cu (docs/history/benchmarks-2026-11.md).
#include <cstdio>
#include <new>

#include <cuda.h>

#include "cuda_util.cuh"

namespace {
struct Vmm {
  CUresult (*getGranularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
  CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
  CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*setAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
  CUresult (*exportHandle)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
  CUresult (*unmap)(CUdeviceptr, size_t);
  CUresult (*addressFree)(CUdeviceptr, size_t);
  CUresult (*release)(CUmemGenericAllocationHandle);
  CUresult (*errorString)(CUresult, const char **);
};

// One entry point of the driver (CUDA 12.5 and later look it up by the ABI version they were written against).
bool entry_point(const char *name, void **fn) {
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found);
#elif CUDART_VERSION >= 12000
  const cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &found);
#else // CUDA 11.3-11.8
  const cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault);
  found = cudaDriverEntryPointSuccess;
#endif
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !*fn) {
    cudaGetLastError();
    *fn = nullptr;
    return false;
  }
  return true;
}

struct VmmTable {
  Vmm f;
  const char *missing; // the first entry point not found (nullptr: all found)
};

VmmTable load_vmm() {
  VmmTable t = {};
  struct {
    const char *name;
    void **fn;
  } names[] = {{"cuMemGetAllocationGranularity", (void **)&t.f.getGranularity},
               {"cuMemCreate", (void **)&t.f.create},
               {"cuMemAddressReserve", (void **)&t.f.reserve},
               {"cuMemMap", (void **)&t.f.map},
               {"cuMemSetAccess", (void **)&t.f.setAccess},
               {"cuMemExportToShareableHandle", (void **)&t.f.exportHandle},
               {"cuMemUnmap", (void **)&t.f.unmap},
               {"cuMemAddressFree", (void **)&t.f.addressFree},
               {"cuMemRelease", (void **)&t.f.release},
               {"cuGetErrorString", (void **)&t.f.errorString}};
  for (auto &n : names)
    if (!entry_point(n.name, n.fn)) {
      t.missing = n.name;
      break;
    }
  return t;
}

// The entry points, looked up once (a function-local static: initialised once, thread safe); nullptr with the reason
// in msg when one is missing (a driver older than CUDA 12's).
const Vmm *vmm(char *msg, size_t msgSize) {
  static const VmmTable table = load_vmm();
  if (table.missing) {
    std::snprintf(msg, msgSize, "the CUDA driver has no %s", table.missing);
    return nullptr;
  }
  return &table.f;
}

// A driver error as cavr's code: 4 (CAVR_ERROR_UNSUPPORTED) where the device or driver cannot export memory,
// 1001 out of device memory, else 1000.
int vmm_fail(const Vmm *f, CUresult r, const char *what, char *msg, size_t msgSize) {
  const char *s = "";
  if (f->errorString(r, &s) != CUDA_SUCCESS || !s) s = "unknown";
  std::snprintf(msg, msgSize, "%s: %s (CUresult %d)", what, s, (int)r);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return 1001;
  return r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_NOT_PERMITTED ? 4 : 1000;
}
} // namespace

struct CAVRGpuShared {
  CUmemGenericAllocationHandle handle;
  CUdeviceptr ptr;
  size_t size;
  bool mapped, reserved;
};

extern "C" void cavr_cuda_share_free(CAVRGpuShared *s) {
  if (!s) return;
  char msg[8] = "";
  const Vmm *f = vmm(msg, sizeof msg);
  if (f) {
    if (s->mapped) f->unmap(s->ptr, s->size);
    if (s->reserved) f->addressFree(s->ptr, s->size);
    if (s->handle) f->release(s->handle); // an importer's reference keeps the memory until it lets go
  }
  delete s;
}

extern "C" int cavr_cuda_share_alloc(CAVRGpuContext *ctx, size_t bytes, CAVRGpuShared **out, void **ptr,
                                     unsigned long long *size, int *fd, char *msg, size_t msgSize) {
  *out = nullptr;
  *ptr = nullptr;
  *size = 0;
  *fd = -1;
  msg[0] = 0;
  const Vmm *f = vmm(msg, msgSize);
  if (!f) return 4;
  CAVRGpuShared *s = new (std::nothrow) CAVRGpuShared();
  if (!s) {
    std::snprintf(msg, msgSize, "out of host memory");
    return 3;
  }
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ctx->device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  CUresult r = f->getGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  int code = 0;
  const char *what = "cuMemGetAllocationGranularity";
  if (r == CUDA_SUCCESS) {
    s->size = (bytes + granularity - 1) / granularity * granularity;
    what = "cuMemCreate (memory to share with OpenGL)";
    r = f->create(&s->handle, s->size, &prop, 0);
  }
  if (r == CUDA_SUCCESS) {
    what = "cuMemAddressReserve";
    r = f->reserve(&s->ptr, s->size, 0, 0, 0);
    s->reserved = r == CUDA_SUCCESS;
  }
  if (r == CUDA_SUCCESS) {
    what = "cuMemMap";
    r = f->map(s->ptr, s->size, 0, s->handle, 0);
    s->mapped = r == CUDA_SUCCESS;
  }
  if (r == CUDA_SUCCESS) {
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    what = "cuMemSetAccess";
    r = f->setAccess(s->ptr, s->size, &access, 1);
  }
  if (r == CUDA_SUCCESS) {
    what = "cuMemExportToShareableHandle (a POSIX file descriptor)";
    r = f->exportHandle(fd, s->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  }
  if (r != CUDA_SUCCESS) {
    code = vmm_fail(f, r, what, msg, msgSize);
    *fd = -1;
    cavr_cuda_share_free(s);
    return code;
  }
  *out = s;
  *ptr = reinterpret_cast<void *>(s->ptr);
  *size = s->size;
  return 0;
}

extern "C" void cavr_cuda_set_share(CAVRGpuContext *ctx, void *color, void *depth, size_t bytes) {
  ctx->shareColor = color;
  ctx->shareDepth = depth;
  ctx->shareBytes = bytes;
}

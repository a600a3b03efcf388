// shared_planes.cu - device memory another graphics API imports (issue 14, item 3): the display planes handed to
// OpenGL with no map, no unmap and no copy on the OpenGL side. The memory is made with the driver's virtual memory
// management API (cuMemCreate with a POSIX file descriptor handle), the only kind CUDA exports: OpenGL imports it with
// GL_EXT_memory_object_fd, Vulkan with VK_KHR_external_memory_fd. cavr links the CUDA runtime statically and not
// libcuda, so the driver's entry points are looked up at run time (cudaGetDriverEntryPointByVersion).
// Control: testing/bench/probe_gl_handover.cu (docs/benchmarks.md).
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

// The entry points, looked up once (0: not yet, 1: found, -1: missing: a driver older than CUDA 12's).
const Vmm *vmm(char *msg, size_t msgSize) {
  static Vmm f;
  static int state = 0;
  if (state == 0) {
    struct {
      const char *name;
      void **fn;
    } names[] = {{"cuMemGetAllocationGranularity", (void **)&f.getGranularity},
                 {"cuMemCreate", (void **)&f.create},
                 {"cuMemAddressReserve", (void **)&f.reserve},
                 {"cuMemMap", (void **)&f.map},
                 {"cuMemSetAccess", (void **)&f.setAccess},
                 {"cuMemExportToShareableHandle", (void **)&f.exportHandle},
                 {"cuMemUnmap", (void **)&f.unmap},
                 {"cuMemAddressFree", (void **)&f.addressFree},
                 {"cuMemRelease", (void **)&f.release},
                 {"cuGetErrorString", (void **)&f.errorString}};
    state = 1;
    for (auto &n : names) {
      cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(n.name, n.fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
          found != cudaDriverEntryPointSuccess || !*n.fn) {
        cudaGetLastError();
        std::snprintf(msg, msgSize, "the CUDA driver has no %s", n.name);
        state = -1;
        break;
      }
    }
  }
  if (state < 0 && msg[0] == 0) std::snprintf(msg, msgSize, "the CUDA driver cannot export memory");
  return state > 0 ? &f : nullptr;
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

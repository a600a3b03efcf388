// SPDX-License-Identifier: BSD-3-Clause
// volume.cu - volumes on the GPU: a 3-D CUDA array of the volume's own extent (rotation turns a cube in place and
// copies any other extent into a second array of the permuted extent, cuda_backend.c's rotate_volume), filled through
// page-locked staging buffers by several host threads while the DMA engine copies the previous chunks, and the
// macro-cell min/max computed on the device.
//
// Why the old commit was slow: one cudaMemcpy3D from pageable memory (the driver stages it through its own small
// page-locked buffers: 4-8 GB/s), into a cube of the largest side rounded up to 64 (zeroed by one synchronous copy
// per slice), and above all the host work around it: the macro-cell min/max built cell by cell on one core and
// a value-range pass. Measured (docs/history/benchmarks-2026-11.md, 2026-11-23): page-locked H2D 54.8-55.3 GB/s; one
// host thread copies 10 GB/s into page-locked memory, 16 threads 46 GB/s; staged 2-4 MiB chunks straight into the array
// beat a linear device buffer plus a device-side copy (50.9 vs 42.7 GB/s) and non-temporal stores into the staging (52
// vs 38 GB/s).
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "cuda_util.cuh"

namespace {

constexpr int kMaxWorkers = 16;                 // host threads of one upload, at most
constexpr size_t kDefaultChunk = 2u << 20;      // bytes per staging buffer (measured: 1, 2, 4, 8, 16 MiB)
constexpr int kCell = 8;                        // CAVR_MACROCELL_SIZE (core/src/cavr_shared.h)

size_t storage_size(int storage) { return storage == 0 ? 1 : storage == 1 ? 2 : 4; }

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Staging chunk size: the context's (CAVR_UPLOAD_CHUNK_MIB, for the benchmark), else 2 MiB.
size_t chunk_bytes(const CAVRGpuContext *ctx) {
  return ctx->config.uploadChunkBytes ? ctx->config.uploadChunkBytes : kDefaultChunk;
}

// Host threads of an upload: the context's (CAVR_UPLOAD_THREADS, 1-16), else every core, at most 16. The copies into the
// staging buffers are bound by host memory bandwidth (each byte is read, written, and read again by the DMA
// engine), which differs between machines: 1 GiB, 8 threads x 4 MiB, was 26 GB/s on one H100 host and 52 GB/s
// on an H200 host; 16 threads x 2 MiB 36 and 50 GB/s (2026-11-23, docs/history/benchmarks-2026-11.md).
int upload_workers(const CAVRGpuContext *ctx) {
  const int n = ctx->config.uploadThreads;
  if (n >= 1) return std::min(n, kMaxWorkers);
  unsigned hw = std::thread::hardware_concurrency();
  return (int)std::max(1u, std::min((unsigned)kMaxWorkers, hw));
}

// The device's 3-D texture (and surface) limits per axis; the context's maxTexture3D (CAVR_CUDA_MAX_TEXTURE3D) lowers
// them (fault injection for the CPU-fallback test).
int extent_limits(const CAVRGpuContext *ctx, int limit[3], char *msg, size_t msgSize) {
  int dev = 0;
  CAVR_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice");
  const cudaDeviceAttr tex[3] = {cudaDevAttrMaxTexture3DWidth, cudaDevAttrMaxTexture3DHeight, cudaDevAttrMaxTexture3DDepth};
  const cudaDeviceAttr surf[3] = {cudaDevAttrMaxSurface3DWidth, cudaDevAttrMaxSurface3DHeight, cudaDevAttrMaxSurface3DDepth};
  const int cap = ctx->config.maxTexture3D;
  for (int a = 0; a < 3; ++a) {
    int t = 0, s = 0;
    CAVR_CUDA_CHECK(cudaDeviceGetAttribute(&t, tex[a], dev), "cudaDeviceGetAttribute (max 3-D texture)");
    CAVR_CUDA_CHECK(cudaDeviceGetAttribute(&s, surf[a], dev), "cudaDeviceGetAttribute (max 3-D surface)");
    limit[a] = std::min(t, s);
    if (cap > 0) limit[a] = std::min(limit[a], cap);
  }
  return 0;
}

// Zero a cube array through its surface, 16 bytes per thread (rows are a multiple of 16 bytes: side % 64 == 0,
// or any side for 16-byte-aligned rows; a partial last word is written element by element).
template <typename V>
__global__ void zero_array(cudaSurfaceObject_t s, int width, int height, int depth) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < width && y < height && z < depth) surf3Dwrite(V{}, s, x * (int)sizeof(V), y, z);
}

// Macro cell c covers voxels [c*B, min((c+1)*B, d-1)] on each axis (both ends included), as core/src/macrocell.c:
// its min and max in stored units, read exactly through the point-sampled, element-type texture `raw`, in the same
// order and with the same comparisons as the host (so the same floats). One thread per cell; each warp also folds
// its cells into the volume's range (order-preserving unsigned keys, atomicMin/atomicMax).
__device__ __forceinline__ unsigned order_key(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

template <typename T>
__global__ void __launch_bounds__(256) cell_minmax(cudaTextureObject_t raw, int dx, int dy, int dz, int gx, int gy,
                                                   int gz, float2 *out, unsigned *range) {
  const int cx = blockIdx.x * blockDim.x + threadIdx.x, cy = blockIdx.y * blockDim.y + threadIdx.y, cz = blockIdx.z;
  float mn = FLT_MAX, mx = -FLT_MAX;
  if (cx < gx && cy < gy && cz < gz) {
    const int x1 = min((cx + 1) * kCell, dx - 1), y1 = min((cy + 1) * kCell, dy - 1), z1 = min((cz + 1) * kCell, dz - 1);
    float lo = 3.4e38f, hi = -3.4e38f;
    for (int z = cz * kCell; z <= z1; ++z)
      for (int y = cy * kCell; y <= y1; ++y)
        for (int x = cx * kCell; x <= x1; ++x) {
          const float s = (float)tex3D<T>(raw, x + 0.5f, y + 0.5f, z + 0.5f);
          lo = s < lo ? s : lo;
          hi = s > hi ? s : hi;
        }
    out[((size_t)cz * gy + cy) * gx + cx] = make_float2(lo, hi);
    mn = lo;
    mx = hi;
  }
  for (int o = 16; o > 0; o >>= 1) {
    mn = fminf(mn, __shfl_down_sync(0xffffffffu, mn, o));
    mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, o));
  }
  const int lane = (threadIdx.y * blockDim.x + threadIdx.x) & 31;
  if (lane == 0 && mn <= mx) {
    atomicMin(&range[0], order_key(mn));
    atomicMax(&range[1], order_key(mx));
  }
}

float from_key(unsigned k) { // inverse of order_key, on the host
  const unsigned u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The array, its texture objects and its surface for `extent` voxels of `storage`.
int make_array(CAVRGpuVolume *v, const int extent[3], char *msg, size_t msgSize) {
  cudaChannelFormatDesc fmt = v->storage == 0   ? cudaCreateChannelDesc<unsigned char>()
                              : v->storage == 1 ? cudaCreateChannelDesc<unsigned short>()
                                                : cudaCreateChannelDesc<float>();
  cudaExtent ext = make_cudaExtent(extent[0], extent[1], extent[2]);
  CAVR_CUDA_CHECK(cudaMalloc3DArray(&v->array, &fmt, ext, cudaArraySurfaceLoadStore), "cudaMalloc3DArray (volume)");
  std::memcpy(v->extent, extent, sizeof v->extent);
  const cudaTextureReadMode mode = v->storage == 2 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  cudaError_t e = cavr_array_texture(v->array, cudaFilterModeLinear, mode, &v->linear);
  if (e == cudaSuccess) e = cavr_array_texture(v->array, cudaFilterModePoint, mode, &v->point);
  if (e == cudaSuccess) e = cavr_array_texture(v->array, cudaFilterModePoint, cudaReadModeElementType, &v->raw);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = v->array;
  if (e == cudaSuccess) e = cudaCreateSurfaceObject(&v->surface, &res);
  if (e != cudaSuccess) return cavr_cuda_fail(e, "creating the texture/surface objects", msg, msgSize);
  return 0;
}

void free_array(CAVRGpuVolume *v) {
  if (v->linear) cudaDestroyTextureObject(v->linear);
  if (v->point) cudaDestroyTextureObject(v->point);
  if (v->raw) cudaDestroyTextureObject(v->raw);
  if (v->surface) cudaDestroySurfaceObject(v->surface);
  if (v->array) cudaFreeArray(v->array);
  v->linear = v->point = v->raw = 0;
  v->surface = 0;
  v->array = nullptr;
}

int cube_side(const int e[3]) { return e[0] == e[1] && e[1] == e[2] ? e[0] : 0; }

// Zero the whole array (a padded cube: the padding must read as zero), 16-byte words where rows allow.
int zero(CAVRGpuContext *ctx, CAVRGpuVolume *v, char *msg, size_t msgSize) {
  const size_t rowBytes = (size_t)v->extent[0] * storage_size(v->storage);
  dim3 block(128);
  if (rowBytes % 16 == 0) {
    const int words = (int)(rowBytes / 16);
    zero_array<uint4><<<dim3((words + 127) / 128, v->extent[1], v->extent[2]), block, 0, ctx->stream>>>(
        v->surface, words, v->extent[1], v->extent[2]);
  } else {
    const int n = v->extent[0];
    dim3 grid((n + 127) / 128, v->extent[1], v->extent[2]);
    if (v->storage == 0) zero_array<unsigned char><<<grid, block, 0, ctx->stream>>>(v->surface, n, v->extent[1], v->extent[2]);
    else if (v->storage == 1) zero_array<unsigned short><<<grid, block, 0, ctx->stream>>>(v->surface, n, v->extent[1], v->extent[2]);
    else zero_array<float><<<grid, block, 0, ctx->stream>>>(v->surface, n, v->extent[1], v->extent[2]);
  }
  CAVR_CUDA_CHECK(cudaGetLastError(), "zero_array launch");
  return 0;
}

} // namespace

// Per context: the staging ring of uploads (worker w owns buffers 2w and 2w+1) and the macro-cell buffers. The
// staging buffers are made in the background when the cavr device starts (cavr_cuda_upload_prepare: page-locking
// 64 MiB takes about 40 ms), else by each worker at its first chunk.
struct CAVRGpuUploader {
  unsigned char *stage[2 * kMaxWorkers] = {};
  cudaEvent_t done[2 * kMaxWorkers] = {};   // recorded after the DMA out of that buffer
  size_t stageBytes = 0;                    // size of each buffer (0: none made yet)
  std::thread prepare;                      // making the buffers in the background (joined before any use)
  float2 *cells = nullptr;
  size_t cellsCap = 0;
  unsigned *range = nullptr;                // 2 order keys
};

static void free_stages(CAVRGpuUploader *u) {
  for (int i = 0; i < 2 * kMaxWorkers; ++i) {
    if (u->stage[i]) cudaFreeHost(u->stage[i]);
    if (u->done[i]) cudaEventDestroy(u->done[i]);
    u->stage[i] = nullptr;
    u->done[i] = nullptr;
  }
  u->stageBytes = 0;
}

// Buffer b of `bytes` and its event, unless it exists; false when page-locked memory is refused.
static bool make_stage(CAVRGpuUploader *u, int b, size_t bytes) {
  if (u->stage[b]) return true;
  cudaError_t e = cudaHostAlloc(reinterpret_cast<void **>(&u->stage[b]), bytes, cudaHostAllocDefault);
  if (e == cudaSuccess && !u->done[b]) e = cudaEventCreateWithFlags(&u->done[b], cudaEventDisableTiming);
  if (e != cudaSuccess) {
    if (u->stage[b]) cudaFreeHost(u->stage[b]);
    u->stage[b] = nullptr;
    cudaGetLastError(); // not sticky: the upload copies from pageable memory instead
    return false;
  }
  return true;
}

static void join_prepare(CAVRGpuUploader *u) {
  if (u->prepare.joinable()) u->prepare.join();
}

extern "C" void cavr_cuda_uploader_destroy(CAVRGpuUploader *u) {
  if (!u) return;
  join_prepare(u);
  free_stages(u);
  cudaFree(u->cells);
  cudaFree(u->range);
  delete u;
}

// The context's upload state; `staging`: the staging buffers will be used (wait for their preparation).
static int uploader(CAVRGpuContext *ctx, CAVRGpuUploader **out, bool staging, char *msg, size_t msgSize) {
  if (!ctx->uploader) {
    ctx->uploader = new (std::nothrow) CAVRGpuUploader();
    if (!ctx->uploader) {
      std::snprintf(msg, msgSize, "out of host memory for the upload state");
      return 3;
    }
  }
  if (staging) join_prepare(ctx->uploader);
  *out = ctx->uploader;
  return 0;
}

extern "C" void cavr_cuda_upload_prepare(CAVRGpuContext *ctx) {
  char msg[200];
  CAVRGpuUploader *u = nullptr;
  int device = 0;
  if (uploader(ctx, &u, true, msg, sizeof msg) != 0 || u->stageBytes || cudaGetDevice(&device) != cudaSuccess) return;
  const size_t chunk = chunk_bytes(ctx);
  const int buffers = 2 * upload_workers(ctx);
  u->stageBytes = chunk;
  try {
    u->prepare = std::thread([u, chunk, buffers, device] {
      if (cudaSetDevice(device) != cudaSuccess) return;
      for (int b = 0; b < buffers; ++b)
        if (!make_stage(u, b, chunk)) return;
    });
  } catch (...) { // no thread: the first upload makes them
  }
}

extern "C" int cavr_cuda_volume_create(CAVRGpuContext *ctx, const void *voxels, int storage, const int dims[3],
                                       int cube, CAVRGpuVolume **out, char *msg, size_t msgSize) {
  *out = nullptr;
  int ext[3] = {dims[0], dims[1], dims[2]};
  if (cube > 0) ext[0] = ext[1] = ext[2] = cube;
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 1 || ext[a] < dims[a]) {
      std::snprintf(msg, msgSize, "cavr_cuda_volume_create: dims %d x %d x %d do not fit a cube of side %d", dims[0],
                    dims[1], dims[2], cube);
      return 1;
    }
  int limit[3];
  int code = extent_limits(ctx, limit, msg, msgSize);
  if (code) return code;
  static const char axis[3] = {'x', 'y', 'z'};
  for (int a = 0; a < 3; ++a)
    if (ext[a] > limit[a]) {
      std::snprintf(msg, msgSize, "a CUDA array of %d x %d x %d voxels exceeds this GPU's 3-D texture limit of %d x %d x %d "
                    "(maxTexture3D) along %c", ext[0], ext[1], ext[2], limit[0], limit[1], limit[2], axis[a]);
      return 4; // CAVR_ERROR_UNSUPPORTED: the caller falls back to the CPU
    }
  CAVRGpuVolume *v = new (std::nothrow) CAVRGpuVolume();
  if (!v) {
    std::snprintf(msg, msgSize, "out of host memory");
    return 3;
  }
  std::memset(v, 0, sizeof *v);
  v->storage = storage;
  std::memcpy(v->dims, dims, sizeof v->dims);
  v->scale = storage == 0 ? 255.0f : storage == 1 ? 65535.0f : 1.0f;
  code = make_array(v, ext, msg, msgSize);
  v->cube = cube_side(v->extent);
  if (!code && (ext[0] != dims[0] || ext[1] != dims[1] || ext[2] != dims[2])) {
    code = zero(ctx, v, msg, msgSize);
    cudaError_t e = code ? cudaSuccess : cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) code = cavr_cuda_fail(e, "zero_array", msg, msgSize);
  }
  if (!code && voxels) code = cavr_cuda_volume_upload(ctx, v, voxels, nullptr, msg, msgSize);
  if (code) {
    cavr_cuda_volume_destroy(v);
    return code;
  }
  *out = v;
  return 0;
}

extern "C" int cavr_cuda_volume_upload(CAVRGpuContext *ctx, CAVRGpuVolume *v, const void *voxels, float *ms,
                                       char *msg, size_t msgSize) {
  const double t0 = now_ms();
  const size_t es = storage_size(v->storage), rowBytes = (size_t)v->dims[0] * es,
               sliceBytes = rowBytes * v->dims[1], total = sliceBytes * v->dims[2];
  const size_t chunk = chunk_bytes(ctx);
  const unsigned char *src = static_cast<const unsigned char *>(voxels);
  // Chunks in memory order: slabs of whole z-slices, or bands of rows of one slice when a slice is larger.
  const int k = sliceBytes <= chunk ? (int)(chunk / sliceBytes) : 0;
  const int rows = k ? v->dims[1] : (int)std::max<size_t>(1, chunk / rowBytes);
  const int bands = k ? 1 : (v->dims[1] + rows - 1) / rows;
  const long nchunks = k ? (v->dims[2] + k - 1) / k : (long)v->dims[2] * bands;
  int workers = (int)std::min<long>(upload_workers(ctx), (nchunks + 1) / 2);
  CAVRGpuUploader *u = nullptr;
  bool staged = total > chunk && nchunks > 1;
  if (staged) {
    int code = uploader(ctx, &u, true, msg, msgSize);
    if (code) return code;
    if (u->stageBytes != chunk) { // first upload, or another chunk size asked for: new buffers
      CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize (before the upload)");
      free_stages(u);
      u->stageBytes = chunk;
    }
  }
  if (staged) {
    std::atomic<bool> failed{false}, noStaging{false};
    std::mutex lock;
    cudaError_t firstError = cudaSuccess;
    const char *firstWhat = "";
    auto fail = [&](cudaError_t e, const char *what) {
      std::lock_guard<std::mutex> g(lock);
      if (firstError == cudaSuccess) {
        firstError = e;
        firstWhat = what;
      }
      failed = true;
    };
    auto work = [&](int w) {
      int it = 0;
      for (long c = w; c < nchunks && !failed; c += workers, ++it) {
        const int b = 2 * w + (it & 1);
        if (!make_stage(u, b, chunk)) { // no page-locked memory: the whole volume goes the pageable way below
          noStaging = true;
          failed = true;
          return;
        }
        int z0, nz, y0, ny;
        if (k) {
          z0 = (int)(c * k);
          nz = std::min(k, v->dims[2] - z0);
          y0 = 0;
          ny = v->dims[1];
        } else {
          z0 = (int)(c / bands);
          nz = 1;
          y0 = (int)(c % bands) * rows;
          ny = std::min(rows, v->dims[1] - y0);
        }
        cudaError_t e = cudaEventSynchronize(u->done[b]); // the DMA out of this buffer is done
        if (e != cudaSuccess) return fail(e, "cudaEventSynchronize (staging buffer)");
        std::memcpy(u->stage[b], src + ((size_t)z0 * v->dims[1] + y0) * rowBytes, (size_t)nz * ny * rowBytes);
        cudaMemcpy3DParms p = {};
        p.srcPtr = make_cudaPitchedPtr(u->stage[b], rowBytes, v->dims[0], ny);
        p.dstArray = v->array;
        p.dstPos = make_cudaPos(0, y0, z0);
        p.extent = make_cudaExtent(v->dims[0], ny, nz);
        p.kind = cudaMemcpyHostToDevice;
        e = cudaMemcpy3DAsync(&p, ctx->stream);
        if (e == cudaSuccess) e = cudaEventRecord(u->done[b], ctx->stream);
        if (e != cudaSuccess) return fail(e, "cudaMemcpy3DAsync (volume upload)");
      }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) {
      try {
        threads.emplace_back(work, w);
      } catch (...) { // no thread: this one does that worker's chunks too
        work(w);
      }
    }
    work(0);
    for (auto &t : threads) t.join();
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    if (firstError != cudaSuccess) return cavr_cuda_fail(firstError, firstWhat, msg, msgSize);
    if (e != cudaSuccess) return cavr_cuda_fail(e, "volume upload", msg, msgSize);
    staged = !noStaging;
  }
  if (!staged) { // small volumes (one chunk), or no page-locked memory: the driver stages from pageable memory
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(const_cast<void *>(voxels), rowBytes, v->dims[0], v->dims[1]);
    p.dstArray = v->array;
    p.extent = make_cudaExtent(v->dims[0], v->dims[1], v->dims[2]);
    p.kind = cudaMemcpyHostToDevice;
    CAVR_CUDA_CHECK(cudaMemcpy3DAsync(&p, ctx->stream), "cudaMemcpy3DAsync (volume upload)");
    CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "volume upload");
  }
  if (ms) *ms = (float)(now_ms() - t0);
  return 0;
}

extern "C" int cavr_cuda_volume_pad_to_cube(CAVRGpuContext *ctx, CAVRGpuVolume *v, int cube, float *ms, char *msg,
                                            size_t msgSize) {
  const double t0 = now_ms();
  if (v->cube == cube) {
    if (ms) *ms = 0.0f;
    return 0;
  }
  CAVRGpuVolume *c = nullptr;
  int code = cavr_cuda_volume_create(ctx, nullptr, v->storage, v->dims, cube, &c, msg, msgSize);
  if (code) return code;
  cudaMemcpy3DParms p = {};
  p.srcArray = v->array;
  p.dstArray = c->array;
  p.extent = make_cudaExtent(v->dims[0], v->dims[1], v->dims[2]);
  p.kind = cudaMemcpyDeviceToDevice;
  cudaError_t e = cudaMemcpy3DAsync(&p, ctx->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    cavr_cuda_volume_destroy(c);
    return cavr_cuda_fail(e, "cudaMemcpy3DAsync (volume into the padded cube)", msg, msgSize);
  }
  cavr_cuda_volume_adopt(v, c); // the volume takes over the cube's array and objects
  if (ms) *ms = (float)(now_ms() - t0);
  return 0;
}

void cavr_cuda_volume_adopt(CAVRGpuVolume *v, CAVRGpuVolume *c) {
  free_array(v);
  v->array = c->array;
  v->linear = c->linear;
  v->point = c->point;
  v->raw = c->raw;
  v->surface = c->surface;
  std::memcpy(v->extent, c->extent, sizeof v->extent);
  v->cube = c->cube;
  delete c;
}

extern "C" int cavr_cuda_volume_macrocells(CAVRGpuContext *ctx, CAVRGpuVolume *v, const int cells[3], float *minmax,
                                           float range[2], float *ms, char *msg, size_t msgSize) {
  const double t0 = now_ms();
  CAVRGpuUploader *u = nullptr;
  int code = uploader(ctx, &u, false, msg, msgSize); // the cell buffers only: no need to wait for the staging
  if (code) return code;
  const size_t n = (size_t)cells[0] * cells[1] * cells[2];
  if (u->cellsCap < n) {
    cudaFree(u->cells);
    u->cells = nullptr;
    u->cellsCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(&u->cells, n * sizeof(float2)), "cudaMalloc (macro cells)");
    u->cellsCap = n;
  }
  if (!u->range) CAVR_CUDA_CHECK(cudaMalloc(&u->range, 2 * sizeof(unsigned)), "cudaMalloc (value range)");
  CAVR_CUDA_CHECK(cudaMemsetAsync(u->range, 0xff, sizeof(unsigned), ctx->stream), "cudaMemsetAsync (value range)");
  CAVR_CUDA_CHECK(cudaMemsetAsync(u->range + 1, 0, sizeof(unsigned), ctx->stream), "cudaMemsetAsync (value range)");
  dim3 block(32, 8), grid((cells[0] + 31) / 32, (cells[1] + 7) / 8, cells[2]);
  if (v->storage == 0)
    cell_minmax<unsigned char><<<grid, block, 0, ctx->stream>>>(v->raw, v->dims[0], v->dims[1], v->dims[2], cells[0],
                                                                cells[1], cells[2], u->cells, u->range);
  else if (v->storage == 1)
    cell_minmax<unsigned short><<<grid, block, 0, ctx->stream>>>(v->raw, v->dims[0], v->dims[1], v->dims[2], cells[0],
                                                                 cells[1], cells[2], u->cells, u->range);
  else
    cell_minmax<float><<<grid, block, 0, ctx->stream>>>(v->raw, v->dims[0], v->dims[1], v->dims[2], cells[0], cells[1],
                                                        cells[2], u->cells, u->range);
  CAVR_CUDA_CHECK(cudaGetLastError(), "cell_minmax launch");
  unsigned keys[2] = {0u, 0u};
  CAVR_CUDA_CHECK(cudaMemcpyAsync(minmax, u->cells, n * sizeof(float2), cudaMemcpyDeviceToHost, ctx->stream),
                  "cudaMemcpyAsync (macro cells)");
  CAVR_CUDA_CHECK(cudaMemcpyAsync(keys, u->range, sizeof keys, cudaMemcpyDeviceToHost, ctx->stream),
                  "cudaMemcpyAsync (value range)");
  CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "cell_minmax");
  range[0] = from_key(keys[0]);
  range[1] = from_key(keys[1]);
  if (ms) *ms = (float)(now_ms() - t0);
  return 0;
}

extern "C" void cavr_cuda_volume_destroy(CAVRGpuVolume *v) {
  if (!v) return;
  free_array(v);
  delete v;
}

extern "C" size_t cavr_cuda_volume_bytes(const CAVRGpuVolume *v) {
  return v ? (size_t)v->extent[0] * v->extent[1] * v->extent[2] * storage_size(v->storage) : 0;
}

extern "C" int cavr_cuda_volume_extent(const CAVRGpuVolume *v, int extent[3]) {
  for (int a = 0; a < 3; ++a) extent[a] = v ? v->extent[a] : 0;
  return v ? v->cube : 0;
}

extern "C" int cavr_cuda_volume_download(CAVRGpuContext *ctx, CAVRGpuVolume *v, void *host, char *msg,
                                         size_t msgSize) {
  const size_t es = storage_size(v->storage);
  cudaMemcpy3DParms p = {};
  p.srcArray = v->array;
  p.dstPtr = make_cudaPitchedPtr(host, (size_t)v->extent[0] * es, v->extent[0], v->extent[1]);
  p.extent = make_cudaExtent(v->extent[0], v->extent[1], v->extent[2]);
  p.kind = cudaMemcpyDeviceToHost;
  CAVR_CUDA_CHECK(cudaMemcpy3DAsync(&p, ctx->stream), "cudaMemcpy3DAsync (volume download)");
  CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "volume download");
  return 0;
}

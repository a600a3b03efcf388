// SPDX-License-Identifier: BSD-3-Clause
// rotate.cu - in-place quarter-turn rotation of the volume (Misaki et al. 2017, sec. 3.2, Algorithm 1).
#include <cstdlib>

#include "cuda_util.cuh"

namespace {
constexpr int T = 32; // tile side t (voxels)
constexpr int K = 16; // tile depth k (slices along the rotation axis)

// Plane (a, b) is (x, z) for plane 1 (about y) and (x, y) for plane 2 (about z); c is the third axis.
template <typename V>
__device__ __forceinline__ V load(cudaSurfaceObject_t s, int plane, int a, int b, int c) {
  V v;
  if (plane == 1) surf3Dread(&v, s, a * (int)sizeof(V), c, b);
  else surf3Dread(&v, s, a * (int)sizeof(V), b, c);
  return v;
}
template <typename V>
__device__ __forceinline__ void store(cudaSurfaceObject_t s, int plane, int a, int b, int c, V v) {
  if (plane == 1) surf3Dwrite(v, s, a * (int)sizeof(V), c, b);
  else surf3Dwrite(v, s, a * (int)sizeof(V), b, c);
}

// The four tiles of one cycle, starting at T(i, j): T(i,j) -> T(n-1-j, i) -> T(n-1-i, n-1-j) -> T(j, n-1-i) for
// direction +1, the reverse cycle for -1 (n tiles per side).
__device__ __forceinline__ void cycle(int i, int j, int n, int direction, int ti[4], int tj[4]) {
  ti[0] = i;
  tj[0] = j;
  for (int q = 1; q < 4; ++q) {
    if (direction > 0) {
      ti[q] = n - 1 - tj[q - 1];
      tj[q] = ti[q - 1];
    } else {
      ti[q] = tj[q - 1];
      tj[q] = n - 1 - ti[q - 1];
    }
  }
}

// One block per cycle of four tiles T(i,j) -> T(n-1-j, i) -> T(n-1-i, n-1-j) -> T(j, n-1-i) (direction +1;
// the reverse cycle for -1), for K slices. The four tiles of a slice are staged in shared memory, then each
// is written to where its successor was: new(a', b') = old(a, b), a' = N-1-b, b' = a (+1).
template <typename V>
__global__ void __launch_bounds__(256) rotate_tiles(cudaSurfaceObject_t s, int plane, int N, int direction) {
  __shared__ V tile[4][T][T + 1];
  const int n = N / T, i = blockIdx.x, j = blockIdx.y, c0 = blockIdx.z * K;
  int ti[4], tj[4];
  cycle(i, j, n, direction, ti, tj);
  for (int c = c0; c < c0 + K && c < N; ++c) {
    for (int q = 0; q < 4; ++q)
      for (int w = threadIdx.y; w < T; w += blockDim.y)
        tile[q][w][threadIdx.x] = load<V>(s, plane, ti[q] * T + threadIdx.x, tj[q] * T + w, c);
    __syncthreads();
    // Tile q moves into tile q+1: new(a', b') = old(a, b). Threads run along a' of the destination so the
    // writes are coalesced; the source element is read transposed from shared memory (padded rows).
    for (int q = 0; q < 4; ++q) {
      const int d = (q + 1) & 3;
      for (int w2 = threadIdx.y; w2 < T; w2 += blockDim.y) {
        const int u2 = threadIdx.x;
        // +1: u' = T-1-w, w' = u  ->  u = w', w = T-1-u'.   -1: u' = w, w' = T-1-u  ->  u = T-1-w', w = u'.
        const int u = direction > 0 ? w2 : T - 1 - w2, w = direction > 0 ? T - 1 - u2 : u2;
        store<V>(s, plane, ti[d] * T + u2, tj[d] * T + w2, c, tile[q][w][u]);
      }
    }
    __syncthreads();
  }
}
// Any storage type with 16-byte words: one slice of the four tiles is 4 x TT rows of
// TT * sizeof(V) / 16 words; SL slices per step, PER = SL x that / 256 words per thread (uint8 at TT = 32, SL = 1:
// 1, uint16: 2, float: 4). Each thread loads its words with 16-byte surface reads into shared memory, then gathers
// the 16 / sizeof(V) values of one destination word from the transposed tile and writes it with one 16-byte
// surface store. PREFETCH: the next step's words are loaded into registers before this step's gather and stores,
// so that loads stay in flight across the barrier. IDENTITY (a control for the benchmark, not a rotation): every
// word is written back where it was read, the next step's loads issued before this step's stores, no shared memory
// and no barriers: the surface-access ceiling of this kernel's traffic.
template <typename V, int TT, int KK, int SL, bool PREFETCH, bool IDENTITY>
__global__ void __launch_bounds__(256) rotate_tiles_w16(cudaSurfaceObject_t s, int plane, int N, int direction) {
  constexpr int E = 16 / (int)sizeof(V), WPR = TT / E, WORDS = 4 * TT * WPR, PER = SL * WORDS / 256;
  static_assert((SL * WORDS) % 256 == 0, "a step must be a whole number of words per thread");
  constexpr int PAD = 4 / (int)sizeof(V) > 0 ? 4 / (int)sizeof(V) : 1; // rows stay 4-byte aligned
  __shared__ __align__(16) V tile[IDENTITY ? 1 : SL][4][TT][TT + PAD];
  const int n = N / TT, c0 = blockIdx.z * KK, cEnd = min(c0 + KK, N);
  int ti[4], tj[4];
  cycle(blockIdx.x, blockIdx.y, n, direction, ti, tj);
  union Word {
    uint4 w;
    V e[E];
  };
  // Word k of a step: slice sl = k / WORDS, tile q, row, word within the row.
  struct Where {
    int sl, q, row, word;
  };
  auto where = [&](int p) {
    const int k = threadIdx.x + 256 * p, kk = k % WORDS;
    return Where{k / WORDS, kk / (TT * WPR), (kk / WPR) % TT, kk % WPR};
  };
  auto loadStep = [&](int c, Word *dst) {
#pragma unroll
    for (int p = 0; p < PER; ++p) {
      const Where w = where(p);
      if (c + w.sl < cEnd) dst[p].w = load<uint4>(s, plane, ti[w.q] * WPR + w.word, tj[w.q] * TT + w.row, c + w.sl);
    }
  };
  Word cur[PER];
  loadStep(c0, cur);
  for (int c = c0; c < cEnd; c += SL) {
    if (IDENTITY) {
      Word next[PER];
      if (c + SL < cEnd) loadStep(c + SL, next);
#pragma unroll
      for (int p = 0; p < PER; ++p) {
        const Where w = where(p);
        if (c + w.sl < cEnd) store<uint4>(s, plane, ti[w.q] * WPR + w.word, tj[w.q] * TT + w.row, c + w.sl, cur[p].w);
        cur[p] = next[p];
      }
    } else {
#pragma unroll
      for (int p = 0; p < PER; ++p) {
        const Where w = where(p);
        unsigned *dst = reinterpret_cast<unsigned *>(&tile[IDENTITY ? 0 : w.sl][w.q][w.row][E * w.word]);
        dst[0] = cur[p].w.x, dst[1] = cur[p].w.y, dst[2] = cur[p].w.z, dst[3] = cur[p].w.w;
      }
      __syncthreads();
      if (PREFETCH && c + SL < cEnd) loadStep(c + SL, cur);
#pragma unroll
      for (int p = 0; p < PER; ++p) {
        // Word `word` of row w2 of destination tile d = q + 1, gathered from tile q: new(u', w') = old(u, w) with
        // +1: u = w', w = TT-1-u';  -1: u = TT-1-w', w = u'.
        const Where w = where(p);
        const int d = (w.q + 1) & 3, w2 = w.row, u = direction > 0 ? w2 : TT - 1 - w2;
        Word out;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int u2 = E * w.word + e, ww = direction > 0 ? TT - 1 - u2 : u2;
          out.e[e] = tile[IDENTITY ? 0 : w.sl][w.q][ww][u];
        }
        if (c + w.sl < cEnd) store<uint4>(s, plane, ti[d] * WPR + w.word, tj[d] * TT + w2, c + w.sl, out.w);
      }
      __syncthreads();
      if (!PREFETCH && c + SL < cEnd) loadStep(c + SL, cur);
    }
  }
}
// Rectangular arrays: the quarter turn into a second array of the permuted extent. Source extent
// (Ea, Eb, Ec) along the plane's (a, b) and the third axis c; +1: dst(a', b', c) = src(a, b, c) with a' = Eb-1-b,
// b' = a (the in-place map with the cube's side replaced by Eb); -1: a' = b, b' = Ea-1-a. 32 x 32 tiles of (a, b)
// staged in shared memory so that reads run along src a and writes along dst a'.
template <typename V>
__global__ void __launch_bounds__(256) rotate_copy(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int plane, int Ea,
                                                   int Eb, int direction) {
  __shared__ V tile[T][T + 1];
  const int a0 = blockIdx.x * T, b0 = blockIdx.y * T, c = blockIdx.z;
  for (int w = threadIdx.y; w < T; w += blockDim.y)
    if (a0 + (int)threadIdx.x < Ea && b0 + w < Eb) tile[w][threadIdx.x] = load<V>(src, plane, a0 + threadIdx.x, b0 + w, c);
  __syncthreads();
  for (int w = threadIdx.y; w < T; w += blockDim.y) {
    // Thread x writes destination a' = (first a' of the tile) + x, row b' = (a or Ea-1-a) for a = a0 + w.
    if (direction > 0) { // a' = Eb-1-b runs over [Eb-b0-T, Eb-1-b0]; b' = a
      const int b = b0 + T - 1 - (int)threadIdx.x, a = a0 + w;
      if (b >= b0 && b < Eb && a < Ea) store<V>(dst, plane, Eb - 1 - b, a, c, tile[b - b0][w]);
    } else { // a' = b, b' = Ea-1-a
      const int b = b0 + (int)threadIdx.x, a = a0 + w;
      if (b < Eb && a < Ea) store<V>(dst, plane, b, Ea - 1 - a, c, tile[threadIdx.x][w]);
    }
  }
}
} // namespace

// The rectangular case: a new array of the permuted extent, the copy, then the volume adopts it (peak device memory:
// two copies of the volume, for the length of the copy).
static int rotate_rectangular(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms, char *msg,
                              size_t msgSize) {
  const int *e = vol->extent;
  // (a, b, c) = (x, z, y) about y, (x, y, z) about z; the new extent swaps a and b.
  const int Ea = e[0], Eb = plane == 1 ? e[2] : e[1], Ec = plane == 1 ? e[1] : e[2];
  const int ext[3] = {Eb, plane == 1 ? Ec : Ea, plane == 1 ? Ea : Ec};
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  CAVRGpuVolume *c = nullptr;
  int code = cavr_cuda_volume_create(ctx, nullptr, vol->storage, ext, 0, &c, msg, msgSize);
  if (code) return code;
  dim3 grid((Ea + T - 1) / T, (Eb + T - 1) / T, Ec), block(T, 8);
  if (vol->storage == 0) rotate_copy<unsigned char><<<grid, block, 0, ctx->stream>>>(vol->surface, c->surface, plane, Ea, Eb, direction);
  else if (vol->storage == 1) rotate_copy<unsigned short><<<grid, block, 0, ctx->stream>>>(vol->surface, c->surface, plane, Ea, Eb, direction);
  else rotate_copy<float><<<grid, block, 0, ctx->stream>>>(vol->surface, c->surface, plane, Ea, Eb, direction);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaEventRecord(ctx->stop, ctx->stream);
  if (err == cudaSuccess) err = cudaEventSynchronize(ctx->stop);
  if (err != cudaSuccess) {
    cavr_cuda_volume_destroy(c);
    return cavr_cuda_fail(err, "rotate_copy", msg, msgSize);
  }
  float t = 0.0f;
  cudaEventElapsedTime(&t, ctx->start, ctx->stop);
  cavr_cuda_volume_adopt(vol, c);
  if (ms) *ms = t;
  return 0;
}

// The in-place kernels, by number (cavr_cuda_volume_rotate_variant): 0 the default (7: the fastest on an H100 at
// 1024^3 and 2048^3 for all three types, 76-84% of the linear copy bandwidth), 1 one value per thread (the first
// kernel), 2 16-byte words, 3 16-byte words with prefetch (k = 16), 4 the same with k = 64, 5 64 x 64 tiles (side a
// multiple of 128; uint8 and uint16), 6 the identity control (4 slices a step), 7 two slices per step without
// prefetch, 8 two slices per step with prefetch, 9 four slices per step (uint8 and uint16: float's tiles would
// not fit in 48 KiB of shared memory).
template <typename V>
static bool launch_in_place(int variant, dim3 grid32, int N, cudaSurfaceObject_t s, int plane, int direction,
                            cudaStream_t st) {
  dim3 g = grid32;
  if (variant == 0) variant = 7;
  switch (variant) {
  case 1: rotate_tiles<V><<<g, dim3(T, 8), 0, st>>>(s, plane, N, direction); return true;
  case 2: rotate_tiles_w16<V, T, K, 1, false, false><<<g, 256, 0, st>>>(s, plane, N, direction); return true;
  case 3: rotate_tiles_w16<V, T, K, 1, true, false><<<g, 256, 0, st>>>(s, plane, N, direction); return true;
  case 4:
    g.z = (N + 63) / 64;
    rotate_tiles_w16<V, T, 64, 1, true, false><<<g, 256, 0, st>>>(s, plane, N, direction);
    return true;
  case 5:
    if (sizeof(V) == 4 || N % 128) return false;
    g.x = g.y = N / 128;
    rotate_tiles_w16<V, (sizeof(V) == 4 ? T : 64), K, 1, true, false><<<g, 256, 0, st>>>(s, plane, N, direction);
    return true;
  case 6: rotate_tiles_w16<V, T, K, 4, true, true><<<g, 256, 0, st>>>(s, plane, N, direction); return true;
  case 7: rotate_tiles_w16<V, T, K, 2, false, false><<<g, 256, 0, st>>>(s, plane, N, direction); return true;
  case 8: rotate_tiles_w16<V, T, K, 2, true, false><<<g, 256, 0, st>>>(s, plane, N, direction); return true;
  case 9:
    if (sizeof(V) == 4) return false;
    rotate_tiles_w16<V, T, K, (sizeof(V) == 4 ? 1 : 4), false, false><<<g, 256, 0, st>>>(s, plane, N, direction);
    return true;
  default: return false;
  }
}

// Device-to-device copy of the volume's array into a second array of the same extent and format (cudaMemcpy3D,
// the driver's copy of this layout), best of 5, as GB/s read + written: the benchmark's second ceiling.
extern "C" int cavr_cuda_array_copy_bandwidth(CAVRGpuContext *ctx, CAVRGpuVolume *vol, double *gbPerSecond, char *msg,
                                              size_t msgSize) {
  cudaChannelFormatDesc fmt;
  cudaExtent ext;
  unsigned flags;
  CAVR_CUDA_CHECK(cudaArrayGetInfo(&fmt, &ext, &flags, vol->array), "cudaArrayGetInfo");
  cudaArray_t b = nullptr;
  CAVR_CUDA_CHECK(cudaMalloc3DArray(&b, &fmt, ext, flags), "cudaMalloc3DArray (array copy)");
  cudaMemcpy3DParms p = {};
  p.srcArray = vol->array;
  p.dstArray = b;
  p.extent = ext;
  p.kind = cudaMemcpyDeviceToDevice;
  float best = 1e30f;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 6 && e == cudaSuccess; ++i) {
    e = cudaEventRecord(ctx->start, ctx->stream);
    if (e == cudaSuccess) e = cudaMemcpy3DAsync(&p, ctx->stream);
    if (e == cudaSuccess) e = cudaEventRecord(ctx->stop, ctx->stream);
    if (e == cudaSuccess) e = cudaEventSynchronize(ctx->stop);
    float ms = 0.0f;
    if (e == cudaSuccess && i > 0 && cudaEventElapsedTime(&ms, ctx->start, ctx->stop) == cudaSuccess) best = fminf(best, ms);
  }
  cudaFreeArray(b);
  if (e != cudaSuccess) return cavr_cuda_fail(e, "array copy", msg, msgSize);
  *gbPerSecond = 2.0 * cavr_cuda_volume_bytes(vol) / (best * 1e-3) / 1e9;
  return 0;
}

extern "C" int cavr_cuda_volume_rotate_variant(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction,
                                               int variant, float *ms, char *msg, size_t msgSize) {
  const int N = vol->cube;
  if (plane != 1 && plane != 2) {
    std::snprintf(msg, msgSize, "rotate_tiles: bad plane %d", plane);
    return 1;
  }
  if (N <= 0 || N % (2 * T) != 0) return rotate_rectangular(ctx, vol, plane, direction, ms, msg, msgSize);
  dim3 grid(N / T / 2, N / T / 2, (N + K - 1) / K);
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  bool ok = vol->storage == 0   ? launch_in_place<unsigned char>(variant, grid, N, vol->surface, plane, direction, ctx->stream)
            : vol->storage == 1 ? launch_in_place<unsigned short>(variant, grid, N, vol->surface, plane, direction, ctx->stream)
                                : launch_in_place<float>(variant, grid, N, vol->surface, plane, direction, ctx->stream);
  if (!ok) {
    std::snprintf(msg, msgSize, "rotate_tiles: variant %d does not apply to this volume", variant);
    return 4;
  }
  CAVR_CUDA_CHECK(cudaGetLastError(), "rotate_tiles launch");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->stop), "rotate_tiles");
  float t = 0.0f;
  cudaEventElapsedTime(&t, ctx->start, ctx->stop);
  if (ms) *ms = t;
  return 0;
}

extern "C" int cavr_cuda_volume_rotate(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms,
                                       char *msg, size_t msgSize) {
  return cavr_cuda_volume_rotate_variant(ctx, vol, plane, direction, 0, ms, msg, msgSize);
}

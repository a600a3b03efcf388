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
// uint8 volumes: the same cycle, but global traffic in 4-byte words (a 32-voxel tile row is 8 words; one
// thread per word), the quarter turn done byte by byte in shared memory.
__global__ void __launch_bounds__(256) rotate_tiles_u8(cudaSurfaceObject_t s, int plane, int N, int direction) {
  __shared__ unsigned char tile[4][T][T + 4];
  const int n = N / T, i = blockIdx.x, j = blockIdx.y, c0 = blockIdx.z * K;
  const int word = threadIdx.x & 7, row = threadIdx.x >> 3; // 8 words x 32 rows per tile
  int ti[4], tj[4];
  cycle(i, j, n, direction, ti, tj);
  for (int c = c0; c < c0 + K && c < N; ++c) {
    for (int q = 0; q < 4; ++q) {
      unsigned v = load<unsigned>(s, plane, (ti[q] * T) / 4 + word, tj[q] * T + row, c);
      // load<unsigned> scales a by sizeof(unsigned): the word's byte offset is (ti*T + 4*word).
      tile[q][row][4 * word + 0] = (unsigned char)(v & 0xff);
      tile[q][row][4 * word + 1] = (unsigned char)(v >> 8 & 0xff);
      tile[q][row][4 * word + 2] = (unsigned char)(v >> 16 & 0xff);
      tile[q][row][4 * word + 3] = (unsigned char)(v >> 24);
    }
    __syncthreads();
    for (int q = 0; q < 4; ++q) {
      const int d = (q + 1) & 3, w2 = row;
      unsigned v = 0;
      for (int b = 0; b < 4; ++b) {
        const int u2 = 4 * word + b;
        const int u = direction > 0 ? w2 : T - 1 - w2, w = direction > 0 ? T - 1 - u2 : u2;
        v |= (unsigned)tile[q][w][u] << (8 * b);
      }
      store<unsigned>(s, plane, (ti[d] * T) / 4 + word, tj[d] * T + w2, c, v);
    }
    __syncthreads();
  }
}
// uint8 with 16-byte words: a 32-voxel tile row is 2 uint4 words, so one slice of the four tiles is exactly
// 256 words, one per thread: one 16-byte surface load and one 16-byte store per thread and slice.
__global__ void __launch_bounds__(256) rotate_tiles_u8x16(cudaSurfaceObject_t s, int plane, int N, int direction) {
  __shared__ unsigned char tile[4][T][T + 4];
  const int n = N / T, i = blockIdx.x, j = blockIdx.y, c0 = blockIdx.z * K;
  const int word = threadIdx.x & 1, row = (threadIdx.x >> 1) & (T - 1), q = threadIdx.x >> 6;
  int ti[4], tj[4];
  cycle(i, j, n, direction, ti, tj);
  const int d = (q + 1) & 3;
  for (int c = c0; c < c0 + K && c < N; ++c) {
    // load<uint4> scales a by 16: the word's byte offset is ti*T + 16*word.
    uint4 v = load<uint4>(s, plane, (ti[q] * T) / 16 + word, tj[q] * T + row, c);
    unsigned *dst = reinterpret_cast<unsigned *>(&tile[q][row][16 * word]);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
    __syncthreads();
    // This thread writes word `word` of row `row` of destination tile d, gathered from tile q.
    unsigned out[4] = {0u, 0u, 0u, 0u};
    const int w2 = row;
    for (int b = 0; b < 16; ++b) {
      const int u2 = 16 * word + b;
      const int u = direction > 0 ? w2 : T - 1 - w2, w = direction > 0 ? T - 1 - u2 : u2;
      out[b >> 2] |= (unsigned)tile[q][w][u] << (8 * (b & 3));
    }
    store<uint4>(s, plane, (ti[d] * T) / 16 + word, tj[d] * T + w2, c, make_uint4(out[0], out[1], out[2], out[3]));
    __syncthreads();
  }
}
// Rectangular arrays (issue 11, item 5): the quarter turn into a second array of the permuted extent. Source extent
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

extern "C" int cavr_cuda_volume_rotate(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms,
                                       char *msg, size_t msgSize) {
  const int N = vol->cube;
  if (plane != 1 && plane != 2) {
    std::snprintf(msg, msgSize, "rotate_tiles: bad plane %d", plane);
    return 1;
  }
  if (N <= 0 || N % (2 * T) != 0) return rotate_rectangular(ctx, vol, plane, direction, ms, msg, msgSize);
  dim3 grid(N / T / 2, N / T / 2, (N + K - 1) / K), block(T, 8);
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  const char *wordEnv = getenv("CAVR_ROTATE_WORD");
  // uint8: 16-byte words (measured 69% of copy bandwidth on an H200); CAVR_ROTATE_WORD=4 selects the 4-byte
  // kernel (58%), kept for cavr-bench's comparison in the same run.
  if (vol->storage == 0 && wordEnv && wordEnv[0] == '4')
    rotate_tiles_u8<<<grid, 256, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  else if (vol->storage == 0)
    rotate_tiles_u8x16<<<grid, 256, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  else if (vol->storage == 1) rotate_tiles<unsigned short><<<grid, block, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  else rotate_tiles<float><<<grid, block, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  CAVR_CUDA_CHECK(cudaGetLastError(), "rotate_tiles launch");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->stop), "rotate_tiles");
  float t = 0.0f;
  cudaEventElapsedTime(&t, ctx->start, ctx->stop);
  if (ms) *ms = t;
  return 0;
}

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

// One block per cycle of four tiles T(i,j) -> T(n-1-j, i) -> T(n-1-i, n-1-j) -> T(j, n-1-i) (direction +1;
// the reverse cycle for -1), for K slices. The four tiles of a slice are staged in shared memory, then each
// is written to where its successor was: new(a', b') = old(a, b), a' = N-1-b, b' = a (+1).
template <typename V>
__global__ void __launch_bounds__(256) rotate_tiles(cudaSurfaceObject_t s, int plane, int N, int direction) {
  __shared__ V tile[4][T][T + 1];
  const int n = N / T, i = blockIdx.x, j = blockIdx.y, c0 = blockIdx.z * K;
  int ti[4], tj[4];
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
  ti[0] = i;
  tj[0] = j;
  for (int k = 1; k < 4; ++k) {
    if (direction > 0) {
      ti[k] = n - 1 - tj[k - 1];
      tj[k] = ti[k - 1];
    } else {
      ti[k] = tj[k - 1];
      tj[k] = n - 1 - ti[k - 1];
    }
  }
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
// uint8, four slices per step: 16-byte loads (four in flight per thread), then each thread builds 4 rows x
// 16 bytes of a destination tile from 16 source words with 4x4 byte transposes in registers (__byte_perm),
// and stores them as four 16-byte words.
__device__ __forceinline__ unsigned gather_byte(unsigned a, unsigned b, unsigned c, unsigned d, unsigned e) {
  const unsigned sel = e | ((e + 4) << 4);
  return __byte_perm(__byte_perm(a, b, sel), __byte_perm(c, d, sel), 0x5410);
}

__global__ void __launch_bounds__(256) rotate_tiles_u8_t4(cudaSurfaceObject_t s, int plane, int N, int direction) {
  __shared__ __align__(16) unsigned char tile[4][4][T][T + 4]; // [slice][tile][row][byte], rows 4-aligned
  const int n = N / T, i = blockIdx.x, j = blockIdx.y, c0 = blockIdx.z * K;
  int ti[4], tj[4];
  ti[0] = i;
  tj[0] = j;
  for (int k = 1; k < 4; ++k) {
    if (direction > 0) {
      ti[k] = n - 1 - tj[k - 1];
      tj[k] = ti[k - 1];
    } else {
      ti[k] = tj[k - 1];
      tj[k] = n - 1 - ti[k - 1];
    }
  }
  const int t = threadIdx.x;
  // load: word (2 per row), row, tile
  const int lw = t & 1, lrow = (t >> 1) & (T - 1), lq = t >> 6;
  // write: word of 16 bytes, group of 4 destination rows, source tile, slice
  const int ww = t & 1, wg = (t >> 1) & 7, wq = (t >> 4) & 3, ws = t >> 6, wd = (wq + 1) & 3;
  for (int c = c0; c < c0 + K && c < N; c += 4) {
    uint4 v[4];
    for (int sl = 0; sl < 4; ++sl)
      if (c + sl < N) v[sl] = load<uint4>(s, plane, (ti[lq] * T) / 16 + lw, tj[lq] * T + lrow, c + sl);
    // Rows are 36 bytes (9 words: conflict-free column reads below), so store the 16 bytes as 4 words.
    for (int sl = 0; sl < 4; ++sl)
      if (c + sl < N) {
        unsigned *dst = reinterpret_cast<unsigned *>(&tile[sl][lq][lrow][16 * lw]);
        dst[0] = v[sl].x;
        dst[1] = v[sl].y;
        dst[2] = v[sl].z;
        dst[3] = v[sl].w;
      }
    __syncthreads();
    if (c + ws < N) {
      // Source words S_b (b = 0..15): +1: row T-1-(16*ww+b), bytes 4*wg..+3, dest row r takes byte r;
      //                               -1: row 16*ww+b, bytes T-4-4*wg..+3, dest row r takes byte 3-r.
      unsigned S[16];
      const int col = direction > 0 ? 4 * wg : T - 4 - 4 * wg;
      for (int b = 0; b < 16; ++b) {
        const int row = direction > 0 ? T - 1 - (16 * ww + b) : 16 * ww + b;
        S[b] = *reinterpret_cast<const unsigned *>(&tile[ws][wq][row][col]);
      }
      for (int r = 0; r < 4; ++r) {
        const unsigned e = direction > 0 ? (unsigned)r : 3u - (unsigned)r;
        uint4 o;
        o.x = gather_byte(S[0], S[1], S[2], S[3], e);
        o.y = gather_byte(S[4], S[5], S[6], S[7], e);
        o.z = gather_byte(S[8], S[9], S[10], S[11], e);
        o.w = gather_byte(S[12], S[13], S[14], S[15], e);
        store<uint4>(s, plane, (ti[wd] * T) / 16 + ww, tj[wd] * T + 4 * wg + r, c + ws, o);
      }
    }
    __syncthreads();
  }
}
} // namespace

extern "C" int cavr_cuda_volume_rotate(CAVRGpuContext *ctx, CAVRGpuVolume *vol, int plane, int direction, float *ms,
                                       char *msg, size_t msgSize) {
  const int N = vol->cube;
  if (N % (2 * T) != 0 || (plane != 1 && plane != 2)) {
    std::snprintf(msg, msgSize, "rotate_tiles: cube side %d is not a multiple of %d (or bad plane %d)", N, 2 * T, plane);
    return 1;
  }
  dim3 grid(N / T / 2, N / T / 2, (N + K - 1) / K), block(T, 8);
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  const char *wordEnv = getenv("CAVR_ROTATE_WORD");
  // CAVR_ROTATE_WORD=4 / 16 select the earlier uint8 kernels (kept for comparison in the benchmark).
  if (vol->storage == 0 && wordEnv && wordEnv[0] == '4')
    rotate_tiles_u8<<<grid, 256, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  else if (vol->storage == 0 && wordEnv && wordEnv[0] == '1')
    rotate_tiles_u8x16<<<grid, 256, 0, ctx->stream>>>(vol->surface, plane, N, direction);
  else if (vol->storage == 0)
    rotate_tiles_u8_t4<<<grid, 256, 0, ctx->stream>>>(vol->surface, plane, N, direction);
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

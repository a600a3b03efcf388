// SPDX-License-Identifier: BSD-3-Clause
// reconstruct.cu - compressive rendering's reconstruction on the GPU (Rabbani 2018 thesis ch. 3-4):
// Jacobi-preconditioned conjugate gradients for (S^T S + lambda H) x = S^T y in the Chronopoulos-Gear form
// (one operator application and one fused set of dot products per iteration), all four channels at once, the
// same arithmetic as core/src/reconstruct.c (its CPU reference). Local: one thread block per 16x16 pixel
// block, its window (block + ghost ring of 3) in shared memory, each thread one channel of a column of 6
// pixels in registers (register-blocked 7x7 stencil, the filter's left-right symmetry used), one CUB warp
// reduction + one barrier per iteration, its own convergence test, no global synchronisation; a window whose
// rendered values are all 0 writes 0 without a guess or an iteration. Global: the whole image, a 7x7 stencil
// kernel, CUB block reductions into per-block partials summed in double by one block; the host checks
// convergence.
#include <cstring>

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include "cuda_util.cuh"

namespace {

constexpr int B = 16, G = 3, WMAX = B + 2 * G;

struct Filter {
  float f[49];
  float lambda, tol2;
  int maxIterations;
};

// (r,u), (w,u), (r,r) per channel.
struct F12 {
  float4 a, b, c;
};
struct Add12 {
  __device__ __forceinline__ F12 operator()(const F12 &u, const F12 &v) const {
    F12 o;
    o.a = make_float4(u.a.x + v.a.x, u.a.y + v.a.y, u.a.z + v.a.z, u.a.w + v.a.w);
    o.b = make_float4(u.b.x + v.b.x, u.b.y + v.b.y, u.b.z + v.b.z, u.b.w + v.b.w);
    o.c = make_float4(u.c.x + v.c.x, u.c.y + v.c.y, u.c.z + v.c.z, u.c.w + v.c.w);
    return o;
  }
};

__device__ __forceinline__ int reflect(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }
__device__ __forceinline__ float4 f4(float v) { return make_float4(v, v, v, v); }
__device__ __forceinline__ float4 operator-(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
__device__ __forceinline__ float4 operator*(float4 a, float4 b) { return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); }
__device__ __forceinline__ float4 operator*(float s, float4 b) { return make_float4(s * b.x, s * b.y, s * b.z, s * b.w); }
__device__ __forceinline__ float4 fma4(float4 a, float4 b, float4 c) {
  return make_float4(fmaf(a.x, b.x, c.x), fmaf(a.y, b.y, c.y), fmaf(a.z, b.z, c.z), fmaf(a.w, b.w, c.w));
}
__device__ __forceinline__ float4 clamp01(float4 v) {
  return make_float4(fminf(fmaxf(v.x, 0.f), 1.f), fminf(fmaxf(v.y, 0.f), 1.f), fminf(fmaxf(v.z, 0.f), 1.f),
                     fminf(fmaxf(v.w, 0.f), 1.f));
}

// Clamped colour into the float and 8-bit planes.
__device__ __forceinline__ void store_colour(size_t p, float4 v, float4 *rgbaf, uchar4 *rgba8) {
  v = clamp01(v);
  rgbaf[p] = v;
  rgba8[p] = make_uchar4((unsigned char)(v.x * 255.0f + 0.5f), (unsigned char)(v.y * 255.0f + 0.5f),
                         (unsigned char)(v.z * 255.0f + 0.5f), (unsigned char)(v.w * 255.0f + 0.5f));
}

// Write a solved pixel of the global solver: colour, and the nearest rendered depth within G pixels.
__device__ void finish_pixel(int x, int y, int W, int H, float4 v, const unsigned char *mask, float4 *rgbaf,
                             uchar4 *rgba8, float *depth) {
  const size_t p = (size_t)y * W + x;
  store_colour(p, v, rgbaf, rgba8);
  float best = 1.0f;
  for (int v2 = y - G; v2 <= y + G; ++v2) {
    if (v2 < 0 || v2 >= H) continue;
    for (int u = x - G; u <= x + G; ++u)
      if (u >= 0 && u < W && mask[(size_t)v2 * W + u]) best = fminf(best, depth[(size_t)v2 * W + u]);
  }
  depth[p] = best;
}

// One Chronopoulos-Gear step's scalars for channel c: as cavr_cg_coefficients (core/src/reconstruct.c).
template <typename T>
__device__ __forceinline__ void cg_coefficients(T g, T d, T rr, T stop, T &gamma, float &alpha, float &beta, bool first) {
  T b = 0, den = d;
  if (!first && alpha > 0.0f && gamma > 0) {
    b = g / gamma;
    den = d - b * g / (T)alpha;
  }
  beta = (float)b;
  alpha = rr > stop && den > 0 && g > 0 ? (float)(g / den) : 0.0f;
  gamma = g;
}

// ------------------------------------------------------------------------------------------- local solver
//
// One thread block per 16x16 pixel block and one thread per (channel, column strip of 6 window pixels): four
// channel groups of 96 threads (88 own a strip of the 22x22 window), so a thread keeps its 6 pixels' x, r, p, s
// and w of one channel in registers (~70 registers: 24 warps per SM) and the stencil's loads are 32-bit, from
// one channel plane of the padded u in shared memory.

constexpr int STRIP = 6;                           // pixels per thread, a column
constexpr int NSTRIP = (WMAX + STRIP - 1) / STRIP; // 4 strips of 6 rows (the last has 2 rows past the window)
constexpr int GROUP = 96;                          // threads per channel (3 warps)
constexpr int LTHREADS = 4 * GROUP;
constexpr int LWARPS = LTHREADS / 32;
constexpr int UPITCH = 41;                         // floats per row: strip k starts at bank 22 k mod 32, no conflicts
constexpr int UROWS = NSTRIP * STRIP + 2 * G;      // 30
constexpr int UPLANE = UROWS * UPITCH;
constexpr int MPITCH = WMAX + 2 * G;               // 28: window + ring, for the mask and depth planes

// Store window pixel (u, v)'s value into the padded plane U and, near the window's edges, its half-sample
// reflections in the ring.
__device__ __forceinline__ void put(float *U, int u, int v, int ww, int wh, float val) {
  U[(v + G) * UPITCH + u + G] = val;
  if (u >= G && u < ww - G && v >= G && v < wh - G) return;
  const int xs[3] = {u + G, G - 1 - u, G + 2 * ww - 1 - u}, ys[3] = {v + G, G - 1 - v, G + 2 * wh - 1 - v};
  const bool xo[3] = {true, u < G, u >= ww - G}, yo[3] = {true, v < G, v >= wh - G};
#pragma unroll
  for (int a = 0; a < 3; ++a)
#pragma unroll
    for (int b = 0; b < 3; ++b)
      if ((a || b) && yo[a] && xo[b]) U[ys[a] * UPITCH + xs[b]] = val;
}

// out[k] = lambda (H * U)(col, row0 + k) for the strip: 12 rows of 7 loads for 6 outputs, the filter's
// left-right symmetry (f[i][j] = f[i][6-j], checked by the host) folding each row's 7 taps to 4.
__device__ __forceinline__ void strip_stencil(const Filter &F, const float *U, int col, int row0, float out[STRIP]) {
#pragma unroll
  for (int k = 0; k < STRIP; ++k) out[k] = 0.0f;
#pragma unroll
  for (int j = 0; j < STRIP + 6; ++j) {
    const float *row = U + (row0 + j) * UPITCH + col;
    const float a0 = row[0] + row[6], a1 = row[1] + row[5], a2 = row[2] + row[4], a3 = row[3];
#pragma unroll
    for (int k = 0; k < STRIP; ++k) {
      const int i = j - k;
      if (i < 0 || i > 6) continue;
      out[k] = fmaf(F.f[7 * i + 0], a0, out[k]);
      out[k] = fmaf(F.f[7 * i + 1], a1, out[k]);
      out[k] = fmaf(F.f[7 * i + 2], a2, out[k]);
      out[k] = fmaf(F.f[7 * i + 3], a3, out[k]);
    }
  }
#pragma unroll
  for (int k = 0; k < STRIP; ++k) out[k] *= F.lambda;
}

struct F3 {
  float g, d, rr; // (r,u), (w,u), (r,r)
};
struct Add3 {
  __device__ __forceinline__ F3 operator()(const F3 &a, const F3 &b) const { return {a.g + b.g, a.d + b.d, a.rr + b.rr}; }
};

// The block's window (its B x B pixels and a ring of G around them, clipped to the image) into shared memory: the
// mask Mk and the rendered depths D (a zero ring around them, so the 7x7 gathers need no bounds checks), per channel
// the rendered values in Us's planes (0 where no ray), and the initial guess X0 per channel: the rendered value, or
// the inverse-distance-weighted mean of the rendered pixels within G. Every thread of the block calls it. Returns 0,
// with no guess made, when every rendered value of the window is 0 (transparent background): then the guess is 0,
// the residual 0 and the solution 0 exactly, which local_kernel writes without iterating.
__device__ __forceinline__ int load_window(int W, const unsigned char *__restrict__ mask, const float4 *rgbaf,
                                           const float *depth, int wx0, int wy0, int ww, int wh, float *Us,
                                           unsigned char *Mk, float *D, float (*X0)[WMAX * WMAX]) {
  const int tid = threadIdx.x;
  const float *rgbafl = reinterpret_cast<const float *>(rgbaf);
  // Zero rings, so that the 7x7 gathers below need no bounds checks (constant divisors throughout).
  for (int i = tid; i < 4 * UPLANE; i += LTHREADS) Us[i] = 0.0f;
  for (int i = tid; i < MPITCH * MPITCH; i += LTHREADS) Mk[i] = 0;
  __syncthreads();
  int lit = 0;
  for (int i = tid; i < 4 * WMAX * WMAX; i += LTHREADS) {
    const int c = i / (WMAX * WMAX), j = i - c * (WMAX * WMAX), v = j / WMAX, u = j - v * WMAX;
    if (u >= ww || v >= wh) continue;
    const size_t gp = (size_t)(wy0 + v) * W + wx0 + u;
    const unsigned char m = mask[gp];
    if (c == 0) {
      Mk[(v + G) * MPITCH + u + G] = m;
      D[(v + G) * MPITCH + u + G] = m ? depth[gp] : 1.0f;
    }
    const float val = m ? rgbafl[4 * gp + c] : 0.0f;
    Us[c * UPLANE + (v + G) * UPITCH + u + G] = val;
    lit |= val != 0.0f;
  }
  if (!__syncthreads_or(lit)) return 0;
  // Initial guess, one pixel per thread, all channels: the rendered value, or the inverse-distance-weighted
  // mean of the rendered pixels within G (U holds 0 where there is none, so the sums need no branches).
  for (int j = tid; j < WMAX * WMAX; j += LTHREADS) {
    const int v = j / WMAX, u = j - v * WMAX;
    if (u >= ww || v >= wh) continue;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, wsum = 0.0f;
    if (Mk[(v + G) * MPITCH + u + G]) {
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[c] = Us[c * UPLANE + (v + G) * UPITCH + u + G];
      wsum = 1.0f;
    } else {
#pragma unroll
      for (int a = 0; a < 7; ++a)
#pragma unroll
        for (int b = 0; b < 7; ++b) {
          if (a == G && b == G) continue;
          const float wgt = 1.0f / (float)((a - G) * (a - G) + (b - G) * (b - G));
          wsum = fmaf(wgt, (float)Mk[(v + a) * MPITCH + u + b], wsum);
#pragma unroll
          for (int c = 0; c < 4; ++c) acc[c] = fmaf(wgt, Us[c * UPLANE + (v + a) * UPITCH + u + b], acc[c]);
        }
    }
    const float inv = wsum > 0.0f ? 1.0f / wsum : 0.0f;
#pragma unroll
    for (int c = 0; c < 4; ++c) X0[c][j] = acc[c] * inv;
  }
  __syncthreads();
  return 1;
}

// The depth of the block's pixels without rays, a pixel per thread: the nearest rendered depth within G pixels.
__device__ __forceinline__ void fill_depth(int W, int x0, int y0, int x1, int y1, int wx0, int wy0,
                                           const unsigned char *Mk, const float *D, float *depth) {
  const int tid = threadIdx.x;
  for (int i = tid; i < B * B; i += LTHREADS) {
    const int gx = x0 + i % B, gy = y0 + i / B, u = gx - wx0, v = gy - wy0;
    if (gx >= x1 || gy >= y1 || Mk[(v + G) * MPITCH + u + G]) continue;
    float best = 1.0f;
#pragma unroll
    for (int a = 0; a < 7; ++a)
#pragma unroll
      for (int b = 0; b < 7; ++b) {
        const int o = (v + a) * MPITCH + u + b;
        if (Mk[o]) best = fminf(best, D[o]);
      }
    depth[(size_t)gy * W + gx] = best;
  }
}

// Three blocks per SM cap the registers at 56 (a few spills on sm_90; 36 warps per SM): measured 1.15x faster
// on an H100 than two blocks (80 registers, no spills), docs/history/benchmarks-2026-11.md. Turing holds 1024
// threads per SM.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define CAVR_LOCAL_MIN_BLOCKS 2
#else
#define CAVR_LOCAL_MIN_BLOCKS 3
#endif
__global__ void __launch_bounds__(LTHREADS, CAVR_LOCAL_MIN_BLOCKS) local_kernel(Filter F, int W, int H, const unsigned char *__restrict__ mask,
                                                         float4 *rgbaf, uchar4 *rgba8, float *depth, int *iterations) {
  __shared__ float Us[4 * UPLANE];           // per channel: the vector the operator is applied to, padded
  __shared__ unsigned char Mk[MPITCH * MPITCH]; // the window's sampling mask, 0 in a ring of G around it
  __shared__ float D[MPITCH * MPITCH];          // the window's rendered depths (same layout)
  __shared__ float X0[4][WMAX * WMAX];          // the initial guess, per channel
  __shared__ F3 partial[2][LWARPS];          // per-warp dot products, double-buffered by iteration
  typedef cub::WarpReduce<F3> WarpReduce;
  __shared__ typename WarpReduce::TempStorage wtemp[LWARPS];

  const int x0 = blockIdx.x * B, y0 = blockIdx.y * B;
  const int x1 = min(x0 + B, W), y1 = min(y0 + B, H);
  const int wx0 = max(x0 - G, 0), wy0 = max(y0 - G, 0), ww = min(x1 + G, W) - wx0, wh = min(y1 + G, H) - wy0;
  const int n = ww * wh, tid = threadIdx.x, warp = tid >> 5;
  const int ch = tid / GROUP, t = tid % GROUP, col = t % WMAX, strip = t / WMAX;
  const bool owner = strip < NSTRIP;
  const int row0 = (owner ? strip : 0) * STRIP;
  float *U = Us + ch * UPLANE;
  if (!load_window(W, mask, rgbaf, depth, wx0, wy0, ww, wh, Us, Mk, D, X0)) { // transparent: 0, no iteration
    for (int i = tid; i < B * B; i += LTHREADS) {
      const int gx = x0 + i % B, gy = y0 + i / B;
      if (gx >= x1 || gy >= y1 || Mk[(gy - wy0 + G) * MPITCH + gx - wx0 + G]) continue;
      const size_t gp = (size_t)gy * W + gx;
      rgbaf[gp] = f4(0.0f);
      rgba8[gp] = make_uchar4(0, 0, 0, 0);
    }
    fill_depth(W, x0, y0, x1, y1, wx0, wy0, Mk, D, depth);
    return;
  }
  const float centre = F.f[24] * F.lambda;
  bool valid[STRIP], mk[STRIP];
  float dinv[STRIP], x[STRIP], r[STRIP], p[STRIP], s[STRIP], q[STRIP];
  // r <- b (the rendered values).
#pragma unroll
  for (int k = 0; k < STRIP; ++k) {
    const int v = row0 + k;
    valid[k] = owner && col < ww && v < wh;
    mk[k] = valid[k] && Mk[(v + G) * MPITCH + col + G];
    dinv[k] = 1.0f / ((mk[k] ? 1.0f : 0.0f) + centre);
    x[k] = valid[k] ? X0[ch][v * WMAX + col] : 0.0f;
    r[k] = mk[k] ? x[k] : 0.0f;
  }
  __syncthreads(); // everyone has read the rendered values
#pragma unroll
  for (int k = 0; k < STRIP; ++k)
    if (valid[k]) put(U, col, row0 + k, ww, wh, x[k]);
  __syncthreads();
  // r = b - A x
  if (owner) strip_stencil(F, U, col, row0, q);
#pragma unroll
  for (int k = 0; k < STRIP; ++k) r[k] -= mk[k] ? q[k] + x[k] : q[k];
  __syncthreads(); // everyone has read x from U
  // Dot products of this channel's r, u = dinv r and w = A u (in q), summed over the channel's three warps;
  // allDone: every channel's (r,r) is within its stopping threshold.
  const float stop = F.tol2 * (float)n; // RMS residual per pixel <= tolerance, as on the CPU
  bool allDone = false;
  auto reduce = [&](int parity, const float u[STRIP]) -> F3 {
    F3 d = {0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int k = 0; k < STRIP; ++k) {
      if (!valid[k]) continue;
      d.g = fmaf(r[k], u[k], d.g);
      d.d = fmaf(q[k], u[k], d.d);
      d.rr = fmaf(r[k], r[k], d.rr);
    }
    d = WarpReduce(wtemp[warp]).Reduce(d, Add3());
    if ((tid & 31) == 0) partial[parity][warp] = d;
    __syncthreads();
    constexpr int PER = GROUP / 32;
    F3 tot = partial[parity][ch * PER];
#pragma unroll
    for (int w = 1; w < PER; ++w) tot = Add3()(tot, partial[parity][ch * PER + w]);
    allDone = true;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      float rr = partial[parity][c * PER].rr;
#pragma unroll
      for (int w = 1; w < PER; ++w) rr += partial[parity][c * PER + w].rr;
      allDone = allDone && rr <= stop;
    }
    return tot;
  };
  float u[STRIP];
#pragma unroll
  for (int k = 0; k < STRIP; ++k) {
    u[k] = dinv[k] * r[k];
    if (valid[k]) put(U, col, row0 + k, ww, wh, u[k]);
  }
  __syncthreads();
  if (owner) strip_stencil(F, U, col, row0, q);
#pragma unroll
  for (int k = 0; k < STRIP; ++k)
    if (mk[k]) q[k] += u[k];
  F3 d = reduce(0, u);
  float gamma = 0.0f, alpha = 0.0f, beta;
  cg_coefficients<float>(d.g, d.d, d.rr, stop, gamma, alpha, beta, true);
#pragma unroll
  for (int k = 0; k < STRIP; ++k) {
    p[k] = u[k];
    s[k] = q[k];
  }
  int it = 0;
  for (; it < F.maxIterations && !allDone; ++it) {
#pragma unroll
    for (int k = 0; k < STRIP; ++k) {
      x[k] = fmaf(alpha, p[k], x[k]);
      r[k] = fmaf(-alpha, s[k], r[k]);
      u[k] = dinv[k] * r[k];
      if (valid[k]) put(U, col, row0 + k, ww, wh, u[k]); // the last reads of U were before reduce's barrier
    }
    __syncthreads();
    if (owner) strip_stencil(F, U, col, row0, q);
#pragma unroll
    for (int k = 0; k < STRIP; ++k)
      if (mk[k]) q[k] += u[k];
    d = reduce((it + 1) & 1, u);
    cg_coefficients<float>(d.g, d.d, d.rr, stop, gamma, alpha, beta, false);
#pragma unroll
    for (int k = 0; k < STRIP; ++k) {
      p[k] = fmaf(beta, p[k], u[k]);
      s[k] = fmaf(beta, s[k], q[k]);
    }
  }
  if (tid == 0) atomicMax(iterations, it);
  // Write the block's pixels without rays, one channel per thread.
#pragma unroll
  for (int k = 0; k < STRIP; ++k) {
    const int gx = wx0 + col, gy = wy0 + row0 + k;
    if (!valid[k] || mk[k] || gx < x0 || gx >= x1 || gy < y0 || gy >= y1) continue;
    const size_t gp = (size_t)gy * W + gx;
    const float val = fminf(fmaxf(x[k], 0.0f), 1.0f);
    reinterpret_cast<float *>(rgbaf)[4 * gp + ch] = val;
    reinterpret_cast<unsigned char *>(rgba8)[4 * gp + ch] = (unsigned char)(val * 255.0f + 0.5f);
  }
  fill_depth(W, x0, y0, x1, y1, wx0, wy0, Mk, D, depth);
}

// ------------------------------------------------------------------------------------------- global solver

struct GlobalState {
  double gamma[4], rr[4], stop[4];
  float alpha[4], beta[4];
};

struct Vectors {
  float4 *x, *r, *p, *s, *w, *U; // U: (W + 2G) x (H + 2G)
  F12 *partials;
  GlobalState *state;
};

__device__ __forceinline__ float4 load4(const float a[4]) { return make_float4(a[0], a[1], a[2], a[3]); }
__device__ __forceinline__ float dinv_of(const Filter &F, bool m) { return 1.0f / ((m ? 1.0f : 0.0f) + F.f[24] * F.lambda); }

// Sum one F12 per thread over the 16x16 block into partials[block].
__device__ __forceinline__ void block_partial(F12 v, F12 *partials) {
  typedef cub::BlockReduce<F12, 16, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 16> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  F12 t = Reduce(temp).Reduce(v, Add12());
  if (threadIdx.x == 0 && threadIdx.y == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = t;
}

// Initial guess x and U interior (= x).
__global__ void global_guess(int W, int H, const unsigned char *mask, const float4 *rgbaf, Vectors v) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  float4 g = f4(0.0f);
  if (mask[p]) {
    g = rgbaf[p];
  } else {
    float4 acc = f4(0.0f);
    float wsum = 0.0f;
    for (int dy = -G; dy <= G; ++dy)
      for (int dx = -G; dx <= G; ++dx) {
        const int u = x + dx, w = y + dy;
        if (u < 0 || w < 0 || u >= W || w >= H || !mask[(size_t)w * W + u]) continue;
        const float wgt = 1.0f / (float)(dx * dx + dy * dy);
        acc = fma4(f4(wgt), rgbaf[(size_t)w * W + u], acc);
        wsum += wgt;
      }
    if (wsum > 0.0f) g = (1.0f / wsum) * acc;
  }
  v.x[p] = g;
  v.U[(size_t)(y + G) * (W + 2 * G) + x + G] = g;
}

__global__ void global_pad(int W, int H, Vectors v) {
  const int pw = W + 2 * G;
  const int i = blockIdx.x * blockDim.x + threadIdx.x, ring = 2 * G * pw + 2 * G * H;
  if (i >= ring) return;
  int pu, pv;
  if (i < 2 * G * pw) { // top and bottom rows
    pu = i % pw;
    pv = i / pw;
    if (pv >= G) pv += H;
  } else { // left and right columns of the interior rows
    const int j = i - 2 * G * pw;
    pv = G + j / (2 * G);
    const int c = j % (2 * G);
    pu = c < G ? c : W + c;
  }
  v.U[(size_t)pv * pw + pu] = v.U[(size_t)(reflect(pv - G, H) + G) * pw + reflect(pu - G, W) + G];
}

__device__ __forceinline__ float4 stencil(const Filter &F, const float4 *P, int pw, int x, int y) {
  float4 acc = f4(0.0f);
#pragma unroll
  for (int a = 0; a < 7; ++a)
#pragma unroll
    for (int b = 0; b < 7; ++b) acc = fma4(f4(F.f[7 * a + b]), P[(size_t)(y + a) * pw + x + b], acc);
  return acc;
}

// mode 0 (first): r = b - A x. mode 1: w = A u; partials ((r,u), (w,u), (r,r)).
__global__ void global_apply(Filter F, int W, int H, const unsigned char *mask, const float4 *rgbaf, Vectors v,
                             int mode) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  const bool in = x < W && y < H;
  const int pw = W + 2 * G;
  F12 out;
  out.a = out.b = out.c = f4(0.0f);
  if (in) {
    const size_t p = (size_t)y * W + x;
    const float4 c = v.U[(size_t)(y + G) * pw + x + G];
    const bool m = mask[p] != 0;
    const float4 q = fma4(f4(F.lambda), stencil(F, v.U, pw, x, y), m ? c : f4(0.0f));
    if (mode == 0) {
      v.r[p] = (m ? rgbaf[p] : f4(0.0f)) - q;
    } else {
      const float4 r = v.r[p];
      v.w[p] = q;
      out.a = r * c;
      out.b = q * c;
      out.c = r * r;
    }
  }
  if (mode == 1) block_partial(out, v.partials);
}

// After the first residual: U interior = dinv r (a separate pass: global_apply read U's neighbours).
__global__ void global_first_direction(Filter F, int W, int H, const unsigned char *mask, Vectors v) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  v.U[(size_t)(y + G) * (W + 2 * G) + x + G] = dinv_of(F, mask[p] != 0) * v.r[p];
}

// p = u + beta p, s = w + beta s (first: p = u, s = w); x += alpha p; r -= alpha s; U interior = dinv r.
__global__ void global_step(Filter F, int W, int H, const unsigned char *mask, Vectors v, int first) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  float4 &u = v.U[(size_t)(y + G) * (W + 2 * G) + x + G];
  const float4 be = load4(v.state->beta), al = load4(v.state->alpha);
  const float4 pv = first ? u : fma4(be, v.p[p], u), sv = first ? v.w[p] : fma4(be, v.s[p], v.w[p]);
  v.p[p] = pv;
  v.s[p] = sv;
  v.x[p] = fma4(al, pv, v.x[p]);
  const float4 r = v.r[p] - al * sv;
  v.r[p] = r;
  u = dinv_of(F, mask[p] != 0) * r;
}

// Sum the partials in double (one block) and update the scalars as cavr_cg_coefficients does.
__global__ void global_finalize(int count, const F12 *partials, GlobalState *s, float tol2, double pixels, int first) {
  double acc[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = threadIdx.x; i < count; i += 256) {
    const F12 t = partials[i];
    acc[0] += t.a.x, acc[1] += t.a.y, acc[2] += t.a.z, acc[3] += t.a.w;
    acc[4] += t.b.x, acc[5] += t.b.y, acc[6] += t.b.z, acc[7] += t.b.w;
    acc[8] += t.c.x, acc[9] += t.c.y, acc[10] += t.c.z, acc[11] += t.c.w;
  }
  typedef cub::BlockReduce<double, 256> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ double total[12];
  for (int c = 0; c < 12; ++c) {
    const double t = Reduce(temp).Sum(acc[c]);
    if (threadIdx.x == 0) total[c] = t;
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  for (int c = 0; c < 4; ++c) {
    if (first) {
      s->stop[c] = tol2 * pixels; // RMS residual per pixel <= tolerance, as on the CPU
      s->gamma[c] = 0.0;
      s->alpha[c] = 0.0f;
    }
    s->rr[c] = total[8 + c];
    cg_coefficients<double>(total[c], total[4 + c], total[8 + c], s->stop[c], s->gamma[c], s->alpha[c], s->beta[c],
                            first != 0);
  }
}

__global__ void global_finish(int W, int H, const unsigned char *mask, Vectors v, float4 *rgbaf, uchar4 *rgba8,
                              float *depth) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  if (!mask[p]) finish_pixel(x, y, W, H, v.x[p], mask, rgbaf, rgba8, depth);
}

// ------------------------------------------------------------------------------------------- adaptive sampling

struct Moments {
  double n, sum[4], sq[4];
};
struct AddMoments {
  __device__ __forceinline__ Moments operator()(const Moments &a, const Moments &b) const {
    Moments o;
    o.n = a.n + b.n;
    for (int c = 0; c < 4; ++c) {
      o.sum[c] = a.sum[c] + b.sum[c];
      o.sq[c] = a.sq[c] + b.sq[c];
    }
    return o;
  }
};

// One thread block per 16x16 pixel block, a pixel per thread.
__global__ void block_deviation_kernel(int W, int H, const unsigned char *mask, const float4 *rgbaf, double *weight) {
  const int x = blockIdx.x * 16 + threadIdx.x % 16, y = blockIdx.y * 16 + threadIdx.x / 16;
  Moments m;
  m.n = 0.0;
  for (int c = 0; c < 4; ++c) m.sum[c] = m.sq[c] = 0.0;
  if (x < W && y < H && mask[(size_t)y * W + x]) {
    const float4 v = rgbaf[(size_t)y * W + x];
    const double d[4] = {v.x, v.y, v.z, v.w};
    m.n = 1.0;
    for (int c = 0; c < 4; ++c) {
      m.sum[c] = d[c];
      m.sq[c] = d[c] * d[c];
    }
  }
  typedef cub::BlockReduce<Moments, 256> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  const Moments t = Reduce(temp).Reduce(m, AddMoments());
  if (threadIdx.x != 0) return;
  double var = 0.0;
  for (int c = 0; c < 4 && t.n > 0.0; ++c) var += fmax(0.0, t.sq[c] / t.n - (t.sum[c] / t.n) * (t.sum[c] / t.n));
  weight[blockIdx.y * gridDim.x + blockIdx.x] = sqrt(var);
}

} // namespace

// Upload the sampling mask when its stamp changed.
static int upload_mask(CAVRGpuContext *ctx, size_t pixels, const uint8_t *mask, uint64_t maskStamp, char *msg,
                       size_t msgSize) {
  if (cavr_cuda_two_slots(&ctx->mask, &ctx->maskCap, &ctx->maskStamp, &ctx->mask2, &ctx->maskCap2, &ctx->maskStamp2,
                          maskStamp, pixels))
    return 0;
  if (ctx->maskCap < pixels) {
    cudaFree(ctx->mask);
    ctx->mask = nullptr;
    ctx->maskCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->mask, pixels), "cudaMalloc (sampling mask)");
    ctx->maskCap = pixels;
  }
  ctx->maskStamp = 0;
  CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->mask, mask, pixels, cudaMemcpyHostToDevice, ctx->stream), "cudaMemcpy (sampling mask)");
  ctx->maskStamp = maskStamp;
  return 0;
}

extern "C" int cavr_cuda_block_deviation(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask,
                                         uint64_t maskStamp, double *weight, char *msg, size_t msgSize) {
  const size_t pixels = (size_t)width * height;
  if (!ctx->rgbaf || ctx->pixelCap < pixels * sizeof(float4)) {
    std::snprintf(msg, msgSize, "cavr_cuda_block_deviation: no frame of %dx%d on the device", width, height);
    return 1;
  }
  int code = upload_mask(ctx, pixels, mask, maskStamp, msg, msgSize);
  if (code) return code;
  const dim3 blocks((width + 15) / 16, (height + 15) / 16);
  const size_t bytes = sizeof(double) * blocks.x * blocks.y;
  if (ctx->workCap < bytes) {
    cudaFree(ctx->work);
    ctx->work = nullptr;
    ctx->workCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->work, bytes), "cudaMalloc (block deviation)");
    ctx->workCap = bytes;
  }
  double *dw = reinterpret_cast<double *>(ctx->work);
  block_deviation_kernel<<<blocks, 256, 0, ctx->stream>>>(width, height, ctx->mask, ctx->rgbaf, dw);
  CAVR_CUDA_CHECK(cudaGetLastError(), "block_deviation_kernel launch");
  CAVR_CUDA_CHECK(cudaMemcpyAsync(weight, dw, bytes, cudaMemcpyDeviceToHost, ctx->stream), "cudaMemcpy (block deviation)");
  CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "block_deviation_kernel");
  return 0;
}

extern "C" int cavr_cuda_reconstruct(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask,
                                     uint64_t maskStamp, int local, const float *filter, float lambda,
                                     int maxIterations, float tolerance, uint8_t *hostRGBA8, float *hostRGBAF,
                                     float *hostDepth, float *ms, float *transferMs, int *iterations, char *msg,
                                     size_t msgSize) {
  const size_t pixels = (size_t)width * height;
  if (!ctx->rgbaf || ctx->pixelCap < pixels * sizeof(float4)) {
    std::snprintf(msg, msgSize, "cavr_cuda_reconstruct: no frame of %dx%d on the device", width, height);
    return 1;
  }
  int code = cavr_cuda_copy_resources(ctx, msg, msgSize);
  if (code) return code;
  code = upload_mask(ctx, pixels, mask, maskStamp, msg, msgSize);
  if (code) return code;
  if (!ctx->iterations) CAVR_CUDA_CHECK(cudaMalloc(&ctx->iterations, sizeof(int)), "cudaMalloc");
  Filter F;
  for (int i = 0; i < 49; ++i) F.f[i] = filter[i];
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j)
      if (filter[7 * i + j] != filter[7 * i + 6 - j]) { // strip_stencil folds the taps
        std::snprintf(msg, msgSize, "cavr_cuda_reconstruct: the filter is not left-right symmetric");
        return 1;
      }
  F.lambda = lambda;
  F.tol2 = tolerance * tolerance;
  F.maxIterations = maxIterations;
  int it = 0;
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  const dim3 blocks((width + 15) / 16, (height + 15) / 16), threads2(16, 16);
  if (local) {
    CAVR_CUDA_CHECK(cudaMemsetAsync(ctx->iterations, 0, sizeof(int), ctx->stream), "cudaMemset");
    local_kernel<<<blocks, LTHREADS, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, ctx->rgba8, ctx->depth,
                                                      ctx->iterations);
    CAVR_CUDA_CHECK(cudaGetLastError(), "local_kernel launch");
  } else {
    // x, r, p, s, w, U (padded), partials, state.
    const size_t padded = (size_t)(width + 2 * G) * (height + 2 * G), nblocks = (size_t)blocks.x * blocks.y;
    const size_t bytes = sizeof(float4) * (5 * pixels + padded) + sizeof(F12) * nblocks + sizeof(GlobalState) + 256;
    if (ctx->workCap < bytes) {
      cudaFree(ctx->work);
      ctx->work = nullptr;
      ctx->workCap = 0;
      CAVR_CUDA_CHECK(cudaMalloc(&ctx->work, bytes), "cudaMalloc (global reconstruction)");
      ctx->workCap = bytes;
    }
    Vectors v;
    v.x = ctx->work;
    v.r = v.x + pixels;
    v.p = v.r + pixels;
    v.s = v.p + pixels;
    v.w = v.s + pixels;
    v.U = v.w + pixels;
    v.partials = reinterpret_cast<F12 *>(v.U + padded);
    v.state = reinterpret_cast<GlobalState *>(v.partials + nblocks);
    const int ringThreads = 2 * G * (width + 2 * G) + 2 * G * height;
    global_guess<<<blocks, threads2, 0, ctx->stream>>>(width, height, ctx->mask, ctx->rgbaf, v);
    global_pad<<<(ringThreads + 255) / 256, 256, 0, ctx->stream>>>(width, height, v);
    global_apply<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, v, 0);
    global_first_direction<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, v);
    global_pad<<<(ringThreads + 255) / 256, 256, 0, ctx->stream>>>(width, height, v);
    global_apply<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, v, 1);
    global_finalize<<<1, 256, 0, ctx->stream>>>((int)nblocks, v.partials, v.state, F.tol2, (double)pixels, 1);
    CAVR_CUDA_CHECK(cudaGetLastError(), "global solver launch");
    GlobalState hs;
    for (; it < maxIterations; ++it) {
      CAVR_CUDA_CHECK(cudaMemcpyAsync(&hs, v.state, sizeof hs, cudaMemcpyDeviceToHost, ctx->stream), "cudaMemcpy (solver state)");
      CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "global solver");
      if (hs.rr[0] <= hs.stop[0] && hs.rr[1] <= hs.stop[1] && hs.rr[2] <= hs.stop[2] && hs.rr[3] <= hs.stop[3]) break;
      global_step<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, v, it == 0);
      global_pad<<<(ringThreads + 255) / 256, 256, 0, ctx->stream>>>(width, height, v);
      global_apply<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, v, 1);
      global_finalize<<<1, 256, 0, ctx->stream>>>((int)nblocks, v.partials, v.state, F.tol2, (double)pixels, 0);
      CAVR_CUDA_CHECK(cudaGetLastError(), "global solver launch");
    }
    global_finish<<<blocks, threads2, 0, ctx->stream>>>(width, height, ctx->mask, v, ctx->rgbaf, ctx->rgba8, ctx->depth);
    CAVR_CUDA_CHECK(cudaGetLastError(), "global_finish launch");
  }
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  // Read-back as in cavr_cuda_render: the iteration count (page-locked) and the requested planes, queued behind the
  // solver, one synchronisation after the last copy.
  const char *solver = local ? "local_kernel" : "global solver";
  if (local)
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->hostScalars + 1, ctx->iterations, sizeof(int), cudaMemcpyDeviceToHost,
                                    ctx->stream), "cudaMemcpyAsync (iterations, after local_kernel)");
  if ((code = cavr_cuda_queue_copies(ctx, pixels, hostRGBA8, hostRGBAF, hostDepth, solver, msg, msgSize))) return code;
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->copied), local ? "local_kernel (or the copy back after it)"
                                                          : "global solver (or the copy back after it)");
  float t = 0.0f, copyMs = 0.0f;
  cudaEventElapsedTime(&t, ctx->start, ctx->stop);
  cudaEventElapsedTime(&copyMs, ctx->stop, ctx->copied);
  if (ms) *ms = t;
  if (transferMs) *transferMs = copyMs;
  if (local) std::memcpy(&it, ctx->hostScalars + 1, sizeof(int));
  if (iterations) *iterations = it;
  return 0;
}

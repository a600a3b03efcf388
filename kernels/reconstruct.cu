// reconstruct.cu - compressive rendering's reconstruction on the GPU (SPEC 4; Rabbani 2018 thesis ch. 3-4):
// Jacobi-preconditioned conjugate gradients for (S^T S + lambda H) x = S^T y, all four channels at once, the
// same arithmetic as core/src/reconstruct.c (its CPU reference). Local: one thread block per 16x16 pixel block,
// its window (block + ghost ring of 3) in shared memory and registers, CUB block reductions, its own
// convergence test, no global synchronisation. Global: the whole image, a 7x7 stencil kernel, CUB block
// reductions into per-block partials summed in double by one block; the host checks convergence.
#include <cub/block/block_reduce.cuh>

#include "cuda_util.cuh"

namespace {

constexpr int B = 16, G = 3, WMAX = B + 2 * G, PMAX = WMAX + 2 * G, THREADS = 256;
constexpr int WPIX = WMAX * WMAX;          // 484 window pixels
constexpr int PER_THREAD = (WPIX + THREADS - 1) / THREADS;

struct Filter {
  float f[49];
  float lambda, tol2;
  int maxIterations;
};

struct F8 {
  float4 a, b;
};
struct Add8 {
  __device__ __forceinline__ F8 operator()(const F8 &u, const F8 &v) const {
    F8 o;
    o.a = make_float4(u.a.x + v.a.x, u.a.y + v.a.y, u.a.z + v.a.z, u.a.w + v.a.w);
    o.b = make_float4(u.b.x + v.b.x, u.b.y + v.b.y, u.b.z + v.b.z, u.b.w + v.b.w);
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

// Write a solved pixel: clamped colour, 8-bit colour, and the nearest rendered depth within G pixels.
__device__ void finish_pixel(int x, int y, int W, int H, float4 v, const unsigned char *mask, float4 *rgbaf,
                             uchar4 *rgba8, float *depth) {
  const size_t p = (size_t)y * W + x;
  v = clamp01(v);
  rgbaf[p] = v;
  rgba8[p] = make_uchar4((unsigned char)(v.x * 255.0f + 0.5f), (unsigned char)(v.y * 255.0f + 0.5f),
                         (unsigned char)(v.z * 255.0f + 0.5f), (unsigned char)(v.w * 255.0f + 0.5f));
  float best = 1.0f;
  for (int v2 = y - G; v2 <= y + G; ++v2) {
    if (v2 < 0 || v2 >= H) continue;
    for (int u = x - G; u <= x + G; ++u)
      if (u >= 0 && u < W && mask[(size_t)v2 * W + u]) best = fminf(best, depth[(size_t)v2 * W + u]);
  }
  depth[p] = best;
}

// ------------------------------------------------------------------------------------------- local solver

__global__ void __launch_bounds__(THREADS) local_kernel(Filter F, int W, int H, const unsigned char *__restrict__ mask,
                                                        float4 *rgbaf, uchar4 *rgba8, float *depth, int *iterations) {
  __shared__ float4 Y[WPIX];         // rendered values of the window (0 elsewhere)
  __shared__ float4 P[PMAX * PMAX];  // search direction, padded by reflection
  __shared__ unsigned char Mk[WPIX];
  __shared__ F8 result;
  typedef cub::BlockReduce<F8, THREADS> Reduce;
  __shared__ typename Reduce::TempStorage temp;

  const int x0 = blockIdx.x * B, y0 = blockIdx.y * B;
  const int x1 = min(x0 + B, W), y1 = min(y0 + B, H);
  const int wx0 = max(x0 - G, 0), wy0 = max(y0 - G, 0), ww = min(x1 + G, W) - wx0, wh = min(y1 + G, H) - wy0;
  const int n = ww * wh, pw = ww + 2 * G, tid = threadIdx.x;
  for (int i = tid; i < n; i += THREADS) {
    const int u = i % ww, v = i / ww;
    const size_t gp = (size_t)(wy0 + v) * W + wx0 + u;
    const unsigned char m = mask[gp];
    Mk[i] = m;
    Y[i] = m ? rgbaf[gp] : f4(0.0f);
  }
  __syncthreads();
  const float centre = F.f[24] * F.lambda;
  float4 x[PER_THREAD], r[PER_THREAD], q[PER_THREAD];
  float dinv[PER_THREAD];
  // Initial guess: inverse-distance-weighted mean of the rendered pixels within G.
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = tid + k * THREADS;
    x[k] = f4(0.0f);
    dinv[k] = 0.0f;
    if (i >= n) continue;
    const int u = i % ww, v = i / ww;
    dinv[k] = 1.0f / ((Mk[i] ? 1.0f : 0.0f) + centre);
    if (Mk[i]) {
      x[k] = Y[i];
      continue;
    }
    float4 acc = f4(0.0f);
    float wsum = 0.0f;
    for (int dy = -G; dy <= G; ++dy)
      for (int dx = -G; dx <= G; ++dx) {
        const int uu = u + dx, vv = v + dy;
        if (uu < 0 || vv < 0 || uu >= ww || vv >= wh || !Mk[vv * ww + uu]) continue;
        const float wgt = 1.0f / (float)(dx * dx + dy * dy);
        acc = fma4(f4(wgt), Y[vv * ww + uu], acc);
        wsum += wgt;
      }
    x[k] = wsum > 0.0f ? (1.0f / wsum) * acc : f4(0.0f);
  }
  // P <- values[k]; reflect the ring; q <- A P for owned pixels.
  auto pad_ring = [&]() {
    const int ph = wh + 2 * G, ring = pw * ph;
    for (int j = tid; j < ring; j += THREADS) {
      const int pu = j % pw, pv = j / pw;
      const int u = pu - G, v = pv - G;
      if (u >= 0 && u < ww && v >= 0 && v < wh) continue;
      P[j] = P[(reflect(v, wh) + G) * pw + reflect(u, ww) + G];
    }
  };
  auto apply = [&](int k) -> float4 {
    const int i = tid + k * THREADS, u = i % ww, v = i / ww;
    float4 acc = f4(0.0f);
#pragma unroll
    for (int a = 0; a < 7; ++a)
#pragma unroll
      for (int b = 0; b < 7; ++b) acc = fma4(f4(F.f[7 * a + b]), P[(v + a) * pw + u + b], acc);
    const float4 c = P[(v + G) * pw + u + G];
    return fma4(f4(F.lambda), acc, Mk[i] ? c : f4(0.0f));
  };
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = tid + k * THREADS;
    if (i < n) P[(i / ww + G) * pw + i % ww + G] = x[k];
  }
  __syncthreads();
  pad_ring();
  __syncthreads();
  F8 acc8;
  acc8.a = f4(0.0f); // rr
  acc8.b = f4(0.0f); // rz
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = tid + k * THREADS;
    r[k] = f4(0.0f);
    if (i >= n) continue;
    q[k] = apply(k);
    r[k] = Y[i] - q[k];
    acc8.a = fma4(r[k], r[k], acc8.a);
    acc8.b = fma4(dinv[k] * r[k], r[k], acc8.b);
  }
  __syncthreads(); // everyone has read P
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = tid + k * THREADS;
    if (i < n) P[(i / ww + G) * pw + i % ww + G] = dinv[k] * r[k];
  }
  {
    F8 t = Reduce(temp).Reduce(acc8, Add8());
    if (tid == 0) result = t;
    __syncthreads();
    acc8 = result;
  }
  float4 rr = acc8.a, rz = acc8.b;
  const float4 stop = f4(F.tol2 * (float)n); // RMS residual per pixel <= tolerance, as on the CPU
  int it = 0;
  for (; it < F.maxIterations; ++it) {
    if (rr.x <= stop.x && rr.y <= stop.y && rr.z <= stop.z && rr.w <= stop.w) break;
    __syncthreads();
    pad_ring();
    __syncthreads();
    F8 pq;
    pq.a = f4(0.0f);
    pq.b = f4(0.0f);
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = tid + k * THREADS;
      if (i >= n) continue;
      q[k] = apply(k);
      pq.a = fma4(P[(i / ww + G) * pw + i % ww + G], q[k], pq.a);
    }
    F8 t = Reduce(temp).Reduce(pq, Add8());
    if (tid == 0) result = t;
    __syncthreads();
    const float4 d = result.a;
    __syncthreads();
    const float4 alpha = make_float4(d.x > 0.f && rr.x > stop.x ? rz.x / d.x : 0.f, d.y > 0.f && rr.y > stop.y ? rz.y / d.y : 0.f,
                                     d.z > 0.f && rr.z > stop.z ? rz.z / d.z : 0.f, d.w > 0.f && rr.w > stop.w ? rz.w / d.w : 0.f);
    F8 s;
    s.a = f4(0.0f);
    s.b = f4(0.0f);
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = tid + k * THREADS;
      if (i >= n) continue;
      x[k] = fma4(alpha, P[(i / ww + G) * pw + i % ww + G], x[k]);
      r[k] = r[k] - alpha * q[k];
      s.a = fma4(r[k], r[k], s.a);
      s.b = fma4(dinv[k] * r[k], r[k], s.b);
    }
    t = Reduce(temp).Reduce(s, Add8());
    if (tid == 0) result = t;
    __syncthreads();
    s = result;
    const float4 beta = make_float4(rz.x > 0.f ? s.b.x / rz.x : 0.f, rz.y > 0.f ? s.b.y / rz.y : 0.f,
                                    rz.z > 0.f ? s.b.z / rz.z : 0.f, rz.w > 0.f ? s.b.w / rz.w : 0.f);
    rr = s.a;
    rz = s.b;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = tid + k * THREADS;
      if (i >= n) continue;
      float4 &pv = P[(i / ww + G) * pw + i % ww + G];
      pv = fma4(beta, pv, dinv[k] * r[k]);
    }
  }
  if (tid == 0) atomicMax(iterations, it);
  // Write the block's pixels without rays.
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = tid + k * THREADS;
    if (i >= n || Mk[i]) continue;
    const int gx = wx0 + i % ww, gy = wy0 + i / ww;
    if (gx < x0 || gx >= x1 || gy < y0 || gy >= y1) continue;
    finish_pixel(gx, gy, W, H, x[k], mask, rgbaf, rgba8, depth);
  }
}

// ------------------------------------------------------------------------------------------- global solver

struct GlobalState {
  double rr[4], rz[4], stop[4];
  float alpha[4], beta[4];
};

struct Vectors {
  float4 *x, *r, *q, *P; // P: (W + 2G) x (H + 2G)
  F8 *partials;
  GlobalState *state;
};

__device__ __forceinline__ float4 load4(const float a[4]) { return make_float4(a[0], a[1], a[2], a[3]); }

// Sum one F8 per thread over the block into partials[block].
__device__ __forceinline__ void block_partial(F8 v, F8 *partials) {
  typedef cub::BlockReduce<F8, 16, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 16> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  F8 t = Reduce(temp).Reduce(v, Add8());
  if (threadIdx.x == 0 && threadIdx.y == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = t;
}

// Initial guess x and P interior (= x).
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
  v.P[(size_t)(y + G) * (W + 2 * G) + x + G] = g;
}

__global__ void global_pad(int W, int H, Vectors v) {
  const int pw = W + 2 * G, ph = H + 2 * G;
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
  (void)ph;
  v.P[(size_t)pv * pw + pu] = v.P[(size_t)(reflect(pv - G, H) + G) * pw + reflect(pu - G, W) + G];
}

__device__ __forceinline__ float4 stencil(const Filter &F, const float4 *P, int pw, int x, int y) {
  float4 acc = f4(0.0f);
#pragma unroll
  for (int a = 0; a < 7; ++a)
#pragma unroll
    for (int b = 0; b < 7; ++b) acc = fma4(f4(F.f[7 * a + b]), P[(size_t)(y + a) * pw + x + b], acc);
  return acc;
}

// mode 0 (first): r = b - A x; partials (rr, rz).
// mode 1: q = A P; partials (p.q, 0).
__global__ void global_apply(Filter F, int W, int H, const unsigned char *mask, const float4 *rgbaf, Vectors v,
                             int mode) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  const bool in = x < W && y < H;
  const int pw = W + 2 * G;
  F8 out;
  out.a = f4(0.0f);
  out.b = f4(0.0f);
  if (in) {
    const size_t p = (size_t)y * W + x;
    const float4 c = v.P[(size_t)(y + G) * pw + x + G];
    const bool m = mask[p] != 0;
    const float4 q = fma4(f4(F.lambda), stencil(F, v.P, pw, x, y), m ? c : f4(0.0f));
    if (mode == 0) {
      const float4 b = m ? rgbaf[p] : f4(0.0f);
      const float4 r = b - q;
      const float dinv = 1.0f / ((m ? 1.0f : 0.0f) + F.f[24] * F.lambda);
      v.r[p] = r;
      out.a = r * r;
      out.b = dinv * (r * r);
    } else {
      v.q[p] = q;
      out.a = c * q;
    }
  }
  block_partial(out, v.partials);
}

// After the first residual, P interior = dinv r (separate pass: global_apply read P's neighbours).
__global__ void global_first_direction(Filter F, int W, int H, const unsigned char *mask, Vectors v) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  const float dinv = 1.0f / ((mask[p] ? 1.0f : 0.0f) + F.f[24] * F.lambda);
  v.P[(size_t)(y + G) * (W + 2 * G) + x + G] = dinv * v.r[p];
}

// x += alpha P, r -= alpha q; partials (rr, rz).
__global__ void global_update(Filter F, int W, int H, const unsigned char *mask, Vectors v) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  F8 out;
  out.a = f4(0.0f);
  out.b = f4(0.0f);
  if (x < W && y < H) {
    const size_t p = (size_t)y * W + x;
    const float4 alpha = load4(v.state->alpha);
    const float4 pv = v.P[(size_t)(y + G) * (W + 2 * G) + x + G];
    v.x[p] = fma4(alpha, pv, v.x[p]);
    const float4 r = v.r[p] - alpha * v.q[p];
    v.r[p] = r;
    const float dinv = 1.0f / ((mask[p] ? 1.0f : 0.0f) + F.f[24] * F.lambda);
    out.a = r * r;
    out.b = dinv * (r * r);
  }
  block_partial(out, v.partials);
}

// P = dinv r + beta P.
__global__ void global_direction(Filter F, int W, int H, const unsigned char *mask, Vectors v) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  const float dinv = 1.0f / ((mask[p] ? 1.0f : 0.0f) + F.f[24] * F.lambda);
  float4 &pv = v.P[(size_t)(y + G) * (W + 2 * G) + x + G];
  pv = fma4(load4(v.state->beta), pv, dinv * v.r[p]);
}

// Sum the partials in double (one block) and update the scalars. mode 0: start (rr, rz, stopping threshold);
// 1: alpha from p.q; 2: beta and the new rr, rz.
__global__ void global_finalize(int count, const F8 *partials, GlobalState *s, float tol2,
                                double pixels, int mode) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = threadIdx.x; i < count; i += 256) {
    const F8 t = partials[i];
    acc[0] += t.a.x, acc[1] += t.a.y, acc[2] += t.a.z, acc[3] += t.a.w;
    acc[4] += t.b.x, acc[5] += t.b.y, acc[6] += t.b.z, acc[7] += t.b.w;
  }
  typedef cub::BlockReduce<double, 256> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ double total[8];
  for (int c = 0; c < 8; ++c) {
    const double t = Reduce(temp).Sum(acc[c]);
    if (threadIdx.x == 0) total[c] = t;
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  for (int c = 0; c < 4; ++c) {
    if (mode == 0) {
      s->rr[c] = total[c];
      s->rz[c] = total[4 + c];
      s->stop[c] = tol2 * pixels; // RMS residual per pixel <= tolerance, as on the CPU
    } else if (mode == 1) {
      const double pq = total[c];
      s->alpha[c] = pq > 0.0 && s->rr[c] > s->stop[c] ? (float)(s->rz[c] / pq) : 0.0f;
    } else {
      s->beta[c] = s->rz[c] > 0.0 ? (float)(total[4 + c] / s->rz[c]) : 0.0f;
      s->rr[c] = total[c];
      s->rz[c] = total[4 + c];
    }
  }
}

__global__ void global_finish(int W, int H, const unsigned char *mask, Vectors v, float4 *rgbaf, uchar4 *rgba8,
                              float *depth) {
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= W || y >= H) return;
  const size_t p = (size_t)y * W + x;
  if (!mask[p]) finish_pixel(x, y, W, H, v.x[p], mask, rgbaf, rgba8, depth);
}

} // namespace

extern "C" int cavr_cuda_reconstruct(CAVRGpuContext *ctx, int width, int height, const uint8_t *mask,
                                     uint64_t maskStamp, int local, const float *filter, float lambda,
                                     int maxIterations, float tolerance, uint8_t *hostRGBA8, float *hostRGBAF,
                                     float *hostDepth, float *ms, int *iterations, char *msg, size_t msgSize) {
  const size_t pixels = (size_t)width * height;
  if (!ctx->rgbaf || ctx->pixelCap < pixels * sizeof(float4)) {
    std::snprintf(msg, msgSize, "cavr_cuda_reconstruct: no frame of %dx%d on the device", width, height);
    return 1;
  }
  if (maskStamp != ctx->maskStamp || ctx->maskCap < pixels) {
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
  }
  if (!ctx->iterations) CAVR_CUDA_CHECK(cudaMalloc(&ctx->iterations, sizeof(int)), "cudaMalloc");
  Filter F;
  for (int i = 0; i < 49; ++i) F.f[i] = filter[i];
  F.lambda = lambda;
  F.tol2 = tolerance * tolerance;
  F.maxIterations = maxIterations;
  int it = 0;
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  const dim3 blocks((width + 15) / 16, (height + 15) / 16), threads2(16, 16);
  if (local) {
    CAVR_CUDA_CHECK(cudaMemsetAsync(ctx->iterations, 0, sizeof(int), ctx->stream), "cudaMemset");
    local_kernel<<<blocks, THREADS, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, ctx->rgba8, ctx->depth,
                                                      ctx->iterations);
    CAVR_CUDA_CHECK(cudaGetLastError(), "local_kernel launch");
  } else {
    // x, r, q, P (padded), partials x 2, state.
    const size_t padded = (size_t)(width + 2 * G) * (height + 2 * G), nblocks = (size_t)blocks.x * blocks.y;
    const size_t bytes = sizeof(float4) * (3 * pixels + padded) + sizeof(F8) * nblocks + sizeof(GlobalState) + 256;
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
    v.q = v.r + pixels;
    v.P = v.q + pixels;
    v.partials = reinterpret_cast<F8 *>(v.P + padded);
    v.state = reinterpret_cast<GlobalState *>(v.partials + nblocks);
    const int ringThreads = 2 * G * (width + 2 * G) + 2 * G * height;
    global_guess<<<blocks, threads2, 0, ctx->stream>>>(width, height, ctx->mask, ctx->rgbaf, v);
    global_pad<<<(ringThreads + 255) / 256, 256, 0, ctx->stream>>>(width, height, v);
    global_apply<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, v, 0);
    global_first_direction<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, v);
    global_finalize<<<1, 256, 0, ctx->stream>>>((int)nblocks, v.partials, v.state, F.tol2, (double)pixels, 0);
    CAVR_CUDA_CHECK(cudaGetLastError(), "global solver launch");
    GlobalState hs;
    for (; it < maxIterations; ++it) {
      CAVR_CUDA_CHECK(cudaMemcpyAsync(&hs, v.state, sizeof hs, cudaMemcpyDeviceToHost, ctx->stream), "cudaMemcpy (solver state)");
      CAVR_CUDA_CHECK(cudaStreamSynchronize(ctx->stream), "global solver");
      if (hs.rr[0] <= hs.stop[0] && hs.rr[1] <= hs.stop[1] && hs.rr[2] <= hs.stop[2] && hs.rr[3] <= hs.stop[3]) break;
      global_pad<<<(ringThreads + 255) / 256, 256, 0, ctx->stream>>>(width, height, v);
      global_apply<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, ctx->rgbaf, v, 1);
      global_finalize<<<1, 256, 0, ctx->stream>>>((int)nblocks, v.partials, v.state, F.tol2, (double)pixels, 1);
      global_update<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, v);
      global_finalize<<<1, 256, 0, ctx->stream>>>((int)nblocks, v.partials, v.state, F.tol2, (double)pixels, 2);
      global_direction<<<blocks, threads2, 0, ctx->stream>>>(F, width, height, ctx->mask, v);
      CAVR_CUDA_CHECK(cudaGetLastError(), "global solver launch");
    }
    global_finish<<<blocks, threads2, 0, ctx->stream>>>(width, height, ctx->mask, v, ctx->rgbaf, ctx->rgba8, ctx->depth);
    CAVR_CUDA_CHECK(cudaGetLastError(), "global_finish launch");
  }
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->stop), local ? "local_kernel" : "global solver");
  float t = 0.0f;
  cudaEventElapsedTime(&t, ctx->start, ctx->stop);
  if (ms) *ms = t;
  if (local) CAVR_CUDA_CHECK(cudaMemcpy(&it, ctx->iterations, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy (iterations)");
  if (iterations) *iterations = it;
  if (hostRGBA8) CAVR_CUDA_CHECK(cudaMemcpy(hostRGBA8, ctx->rgba8, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (image)");
  if (hostRGBAF) CAVR_CUDA_CHECK(cudaMemcpy(hostRGBAF, ctx->rgbaf, pixels * 16, cudaMemcpyDeviceToHost), "cudaMemcpy (image)");
  if (hostDepth) CAVR_CUDA_CHECK(cudaMemcpy(hostDepth, ctx->depth, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (depth)");
  return 0;
}

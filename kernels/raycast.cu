// raycast.cu - the ray-casting kernel: one thread per ray, the same sample lattice, opacity correction,
// empty-space skipping and blend modes as the CPU back end (core/src/cpu_backend.c), with hardware
// trilinear filtering from a 3-D texture and the transfer-function table in shared memory (SPEC 2, 3).
// The launch shape (warp shape, block size, block order, lockstep stepping) comes from the view policy in
// core/ (Sugimoto et al. 2013); the sample position is mapped through the in-place rotation (Misaki 2017).
#include <cfloat>
#include <cstdlib>

#include "cuda_util.cuh"

namespace {

struct Frame {
  CAVRGpuRenderParams p;
  cudaTextureObject_t tex;
  float scale;
  float rot[12];  // stored texture coordinates = rot * (x, y, z, 1): rotation state and the +0.5 texel centre
  const unsigned char *cells;
  const float *opaque;
  uchar4 *rgba8;
  float4 *rgbaf;
  float *depth;
  unsigned long long *samples;
  const unsigned *rays;   // compressive rendering: rayCount pixel indices (one thread each), else NULL
  unsigned rayCount;
};

__device__ __forceinline__ float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

__device__ __forceinline__ bool project(const double m[16], const double in[3], double out[3]) {
  double v[4];
  for (int r = 0; r < 4; ++r) v[r] = m[r] * in[0] + m[4 + r] * in[1] + m[8 + r] * in[2] + m[12 + r];
  if (v[3] == 0.0) return false;
  for (int r = 0; r < 3; ++r) out[r] = v[r] / v[3];
  return true;
}

// The stored value at original voxel coordinates (x, y, z), clamped to the volume, through the rotation.
// Branch-free: the rotation is a per-frame affine map (rows of f.rot), and nearest interpolation comes from
// the point-filtered texture object itself (texel floor(x + 0.5) = the nearest voxel).
__device__ __forceinline__ float sample(const Frame &f, float x, float y, float z) {
  const CAVRGpuRenderParams &p = f.p;
  x = clampf(x, 0.0f, p.maxCoord[0]);
  y = clampf(y, 0.0f, p.maxCoord[1]);
  z = clampf(z, 0.0f, p.maxCoord[2]);
  const float *m = f.rot;
  const float sx = fmaf(m[0], x, fmaf(m[1], y, fmaf(m[2], z, m[3])));
  const float sy = fmaf(m[4], x, fmaf(m[5], y, fmaf(m[6], z, m[7])));
  const float sz = fmaf(m[8], x, fmaf(m[9], y, fmaf(m[10], z, m[11])));
  return tex3D<float>(f.tex, sx, sy, sz) * f.scale;
}

__device__ __forceinline__ float window_depth(const Frame &f, const double nearW[3], const double dirW[3], double t) {
  double w[3] = {nearW[0] + t * dirW[0], nearW[1] + t * dirW[1], nearW[2] + t * dirW[2]}, c[3];
  if (!project(f.p.VP, w, c)) return 1.0f;
  double d = 0.5 * c[2] + 0.5;
  return (float)(d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d);
}

struct Ray {
  double nearW[3], dirW[3], o[3], d[3];
  float dw[3];
  float of[3], df[3]; // float position at lattice midpoint mAnchor and direction: v = of + (m - mAnchor) df
  float idf[3];       // 1 / df (0 where df is 0): macro-cell exits without divisions
  double mAnchor;
  int k0;             // lattice index of the anchor segment
  float ft0, ft1;
  int k, kFull0, kFull1;  // lattice segment indices (32-bit: 64-bit conversions are slow on the GPU)
  float visibleUntil;     // relative to the anchor: the current macro cell is visible before this
  float A, C[3], depth;
  float best, sum, total, bestT;
  unsigned samples;
};

// Set up the ray of pixel (px, py); false when it misses the render box.
__device__ bool setup(const Frame &f, int px, int py, Ray &r) {
  const CAVRGpuRenderParams &p = f.p;
  double ndc[3] = {(px + 0.5) / p.width * 2.0 - 1.0, (py + 0.5) / p.height * 2.0 - 1.0, -1.0}, farW[3];
  bool ok = project(p.invVP, ndc, r.nearW);
  ndc[2] = 1.0;
  ok = ok && project(p.invVP, ndc, farW);
  double len = 0.0;
  for (int a = 0; a < 3; ++a) {
    r.dirW[a] = farW[a] - r.nearW[a];
    len += r.dirW[a] * r.dirW[a];
  }
  len = sqrt(len);
  if (!ok || !(len > 0.0)) return false;
  double t0 = 0.0, t1 = len;
  for (int a = 0; a < 3; ++a) r.dirW[a] /= len;
  double tEye = 0.0;
  for (int a = 0; a < 3; ++a) tEye += (r.nearW[a] - p.eye[a]) * r.dirW[a];
  for (int a = 0; a < 3; ++a) r.nearW[a] -= tEye * r.dirW[a];
  t0 += tEye;
  t1 += tEye;
  if (f.opaque) {
    float od = f.opaque[(size_t)py * p.width + px];
    if (od < 1.0f) {
      double pz[3];
      ndc[2] = 2.0 * od - 1.0;
      if (project(p.invVP, ndc, pz)) {
        double tz = 0.0;
        for (int a = 0; a < 3; ++a) tz += (pz[a] - r.nearW[a]) * r.dirW[a];
        t1 = fmin(t1, tz);
      }
    }
  }
  for (int a = 0; a < 3; ++a) {
    double oa = (r.nearW[a] - p.origin[a]) * p.invSpacing[a], da = r.dirW[a] * p.invSpacing[a];
    r.o[a] = oa;
    r.d[a] = da;
    r.dw[a] = (float)r.dirW[a];
    if (fabs(da) < 1e-12) {
      if (oa < p.boxLo[a] || oa > p.boxHi[a]) return false;
      continue;
    }
    double ta = (p.boxLo[a] - oa) / da, tb = (p.boxHi[a] - oa) / da;
    if (ta > tb) {
      double t = ta;
      ta = tb;
      tb = t;
    }
    t0 = fmax(t0, ta);
    t1 = fmin(t1, tb);
  }
  if (!(t0 < t1)) return false;
  r.ft0 = (float)t0;
  r.ft1 = (float)t1;
  r.k = (int)floorf(r.ft0 / p.step);
  r.k0 = r.k;
  // Positions in float relative to the first sample (double per sample would dominate the loop).
  r.mAnchor = ((double)r.k + 0.5) * p.step;
  for (int a = 0; a < 3; ++a) {
    r.of[a] = (float)(r.o[a] + r.mAnchor * r.d[a]);
    r.df[a] = (float)r.d[a];
    r.idf[a] = r.df[a] != 0.0f ? 1.0f / r.df[a] : 0.0f;
  }
  r.kFull0 = (int)ceilf(r.ft0 / p.step);
  r.kFull1 = (int)floorf(r.ft1 / p.step) - 1;
  r.visibleUntil = -1.0f;
  r.A = 0.0f;
  r.C[0] = r.C[1] = r.C[2] = 0.0f;
  r.depth = 1.0f;
  r.best = p.blend == 2 ? FLT_MAX : -FLT_MAX;
  r.sum = r.total = r.bestT = 0.0f;
  r.samples = 0;
  return true;
}

__device__ __forceinline__ void tf_index(const CAVRGpuRenderParams &p, float s, int &i0, float &w) {
  float fi = clampf(s * p.idxScale + p.idxBias, 0.0f, (float)(p.count - 1));
  int i = (int)fi;
  if (i > p.count - 2) i = p.count - 2;
  i0 = i;
  w = fi - (float)i;
}

// One lattice segment of the ray; false when the ray is done.
__device__ bool step(const Frame &f, const float4 *table, Ray &r) {
  const CAVRGpuRenderParams &p = f.p;
  const float st = p.step;
  float len = st, ts = 0.0f, te = 0.0f;
  if (r.k < r.kFull0 || r.k > r.kFull1) {
    ts = fmaxf((float)r.k * st, r.ft0);
    te = fminf((float)(r.k + 1) * st, r.ft1);
    if (!(ts < te)) return false;
    len = te - ts;
  }
  const float rel = (float)(r.k - r.k0) * st; // this segment's midpoint, relative to the anchor
  float v[3] = {r.of[0] + rel * r.df[0], r.of[1] + rel * r.df[1], r.of[2] + rel * r.df[2]};
  if (p.blend != 0) { // maximum, minimum, average intensity
    ++r.k;
    float s = sample(f, v[0], v[1], v[2]);
    ++r.samples;
    if (p.blend == 1 ? s > r.best : (p.blend == 2 ? s < r.best : false)) {
      r.best = s;
      r.bestT = (float)(r.mAnchor + rel);
    }
    float l = (r.k - 1 < r.kFull0 || r.k - 1 > r.kFull1) ? te - ts : st;
    r.sum += s * l;
    r.total += l;
    return true;
  }
  if (p.skip && rel >= r.visibleUntil && v[0] >= 0.0f && v[1] >= 0.0f && v[2] >= 0.0f && v[0] <= p.maxCoord[0] &&
      v[1] <= p.maxCoord[1] && v[2] <= p.maxCoord[2]) {
    const int B = 8;
    int c[3];
    for (int a = 0; a < 3; ++a) {
      int ci = (int)(fmaxf(v[a], 0.0f) * (1.0f / B));
      c[a] = ci < p.cells[a] ? ci : p.cells[a] - 1;
    }
    // Where the ray leaves the cell, relative to the anchor (float: skipped segments keep a half-step margin).
    float texit = FLT_MAX;
    for (int a = 0; a < 3; ++a) {
      float da = r.df[a];
      if (da > 0.0f) texit = fminf(texit, ((float)((c[a] + 1) * B) - r.of[a]) * r.idf[a]);
      else if (da < 0.0f) texit = fminf(texit, ((float)(c[a] * B) - r.of[a]) * r.idf[a]);
    }
    if (!f.cells[((size_t)c[2] * p.cells[1] + c[1]) * p.cells[0] + c[0]]) {
      int kn = r.k0 + (int)floorf(0.5f + texit * p.invStep);
      r.k = kn > r.k + 1 ? kn : r.k + 1;
      return true;
    }
    r.visibleUntil = texit;
  }
  ++r.k;
  float s = sample(f, v[0], v[1], v[2]);
  ++r.samples;
  int i0;
  float w;
  tf_index(p, s, i0, w);
  float4 e0 = table[i0], e1 = table[i0 + 1];
  float a = e0.w + w * (e1.w - e0.w);
  if (!(a > 0.0f)) return true;
  if (len != st && p.correction) a = a >= 1.0f ? 1.0f : 1.0f - powf(1.0f - a, len * p.invStep);
  float rgb[3] = {e0.x + w * (e1.x - e0.x), e0.y + w * (e1.y - e0.y), e0.z + w * (e1.z - e0.z)};
  if (p.shade) {
    const float c3[3] = {v[0], v[1], v[2]};
    float g[3];
    for (int ax = 0; ax < 3; ++ax) {
      float lo = fmaxf(c3[ax] - 1.0f, 0.0f), hi = fminf(c3[ax] + 1.0f, p.maxCoord[ax]);
      float pl[3] = {v[0], v[1], v[2]}, ph[3] = {v[0], v[1], v[2]};
      pl[ax] = lo;
      ph[ax] = hi;
      g[ax] = hi > lo ? (sample(f, ph[0], ph[1], ph[2]) - sample(f, pl[0], pl[1], pl[2])) / (hi - lo) : 0.0f;
      g[ax] *= (float)p.invSpacing[ax];
    }
    r.samples += 6;
    float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    float ndotl = len2 > 0.0f ? fabsf(g[0] * r.dw[0] + g[1] * r.dw[1] + g[2] * r.dw[2]) / sqrtf(len2) : 0.0f;
    float diff = p.ka + p.kd * ndotl;
    float spec = (p.ks > 0.0f && ndotl > 0.0f) ? p.ks * powf(ndotl, p.kp) : 0.0f;
    for (int c = 0; c < 3; ++c) rgb[c] = fminf(rgb[c] * diff + spec, 1.0f);
  }
  if (r.A == 0.0f) r.depth = window_depth(f, r.nearW, r.dirW, r.mAnchor + rel);
  float wgt = (1.0f - r.A) * a;
  r.C[0] += wgt * rgb[0];
  r.C[1] += wgt * rgb[1];
  r.C[2] += wgt * rgb[2];
  r.A += wgt;
  return r.A < p.ert;
}

// The transfer-function table arrives in global memory; each block copies it to shared memory, where
// look-ups do not disturb the texture cache (Sugimoto 2013 and Misaki 2017 do the same).
// MIN_BLOCKS > 1 caps registers (launch bounds) so more warps fit on an SM; cavr-bench measures both.
template <int MIN_BLOCKS>
__global__ void __launch_bounds__(512, MIN_BLOCKS) raycast_kernel(Frame f, const float4 *__restrict__ gtable) {
  extern __shared__ float4 table[];
  const CAVRGpuRenderParams &p = f.p;
  for (int i = threadIdx.x; i < 2 * p.count; i += blockDim.x) table[i] = gtable[i];
  __syncthreads();
  // Pixel of this thread: warps of warpW x warpH pixels tile the blockW x blockH block; with transposed
  // indexing consecutive blocks run down the columns.
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warpsPerRow = p.blockW / p.warpW;
  const int lx = (warp % warpsPerRow) * p.warpW + lane % p.warpW;
  const int ly = (warp / warpsPerRow) * p.warpH + lane / p.warpW;
  const int bx = p.transposed ? blockIdx.y : blockIdx.x, by = p.transposed ? blockIdx.x : blockIdx.y;
  int px = bx * p.blockW + lx, py = by * p.blockH + ly;
  bool inside = px < p.width && py < p.height;
  if (f.rays) { // a list of rays, tile by tile: consecutive threads take neighbouring pixels
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    inside = i < f.rayCount;
    const unsigned pix = inside ? f.rays[i] : 0u;
    px = (int)(pix % (unsigned)p.width);
    py = (int)(pix / (unsigned)p.width);
  }
  Ray r;
  const bool hit = inside && setup(f, px, py, r);
  bool active = hit;
  if (p.syncPropagation) {
    // Synchronous ray propagation: the block's rays advance one segment per step together.
    while (__syncthreads_or(active))
      if (active) active = step(f, table, r);
  } else {
    while (active) active = step(f, table, r);
  }
  unsigned long long n = hit ? r.samples : 0ull;
  for (int o = 16; o > 0; o >>= 1) n += __shfl_down_sync(0xffffffffu, n, o);
  if (lane == 0 && n) atomicAdd(f.samples, n);
  if (!inside) return;
  float out[4] = {0.0f, 0.0f, 0.0f, 0.0f}, depth = 1.0f;
  if (hit && p.blend == 0) {
    out[0] = r.C[0];
    out[1] = r.C[1];
    out[2] = r.C[2];
    out[3] = r.A;
    depth = r.depth;
  } else if (hit && r.total > 0.0f) {
    float s = p.blend == 3 ? r.sum / r.total : r.best;
    float t = p.blend == 3 ? 0.5f * (r.ft0 + r.ft1) : r.bestT;
    int i0;
    float w;
    tf_index(p, s, i0, w);
    // Maximum/minimum/average use the table's opacity as given: the renderer passes the raw table here.
    float4 e0 = table[p.count + i0], e1 = table[p.count + i0 + 1];
    float a = e0.w + w * (e1.w - e0.w);
    out[0] = a * (e0.x + w * (e1.x - e0.x));
    out[1] = a * (e0.y + w * (e1.y - e0.y));
    out[2] = a * (e0.z + w * (e1.z - e0.z));
    out[3] = a;
    if (a > 0.0f) depth = window_depth(f, r.nearW, r.dirW, t);
  }
  const size_t pix = (size_t)py * p.width + px;
  float4 v;
  v.x = clampf(out[0], 0.0f, 1.0f);
  v.y = clampf(out[1], 0.0f, 1.0f);
  v.z = clampf(out[2], 0.0f, 1.0f);
  v.w = clampf(out[3], 0.0f, 1.0f);
  f.rgbaf[pix] = v;
  f.rgba8[pix] = make_uchar4((unsigned char)(v.x * 255.0f + 0.5f), (unsigned char)(v.y * 255.0f + 0.5f),
                             (unsigned char)(v.z * 255.0f + 0.5f), (unsigned char)(v.w * 255.0f + 0.5f));
  f.depth[pix] = depth;
}

template <typename T> int ensure(T **ptr, size_t *cap, size_t bytes, const char *what, char *msg, size_t msgSize) {
  if (*cap >= bytes && *ptr) return 0;
  cudaFree(*ptr);
  *ptr = nullptr;
  *cap = 0;
  cudaError_t e = cudaMalloc(ptr, bytes);
  if (e != cudaSuccess) return cavr_cuda_fail(e, what, msg, msgSize);
  *cap = bytes;
  return 0;
}

} // namespace

extern "C" int cavr_cuda_render(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const CAVRGpuRenderParams *p,
                                const float *table, const uint8_t *cells, size_t cellCount, uint64_t cellsStamp,
                                const uint32_t *rays, size_t rayCount, uint64_t raysStamp,
                                const float *opaqueDepth, uint8_t *hostRGBA8, float *hostRGBAF, float *hostDepth,
                                float *kernelMs, uint64_t *samples, char *msg, size_t msgSize) {
  const size_t pixels = (size_t)p->width * p->height;
  int code;
  // table: count entries for composite (corrected opacity) followed by count raw entries (other modes).
  size_t tableBytes = sizeof(float4) * 2 * (size_t)p->count;
  if ((code = ensure(&ctx->table, &ctx->tableCap, tableBytes, "cudaMalloc (transfer function)", msg, msgSize))) return code;
  if (pixels * sizeof(float4) > ctx->pixelCap || !ctx->rgba8) {
    cudaFree(ctx->rgba8);
    cudaFree(ctx->rgbaf);
    cudaFree(ctx->depth);
    cudaFree(ctx->opaque);
    ctx->rgba8 = nullptr;
    ctx->rgbaf = nullptr;
    ctx->depth = nullptr;
    ctx->opaque = nullptr;
    ctx->pixelCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->rgba8, pixels * sizeof(uchar4)), "cudaMalloc (frame buffer)");
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->rgbaf, pixels * sizeof(float4)), "cudaMalloc (frame buffer)");
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->depth, pixels * sizeof(float)), "cudaMalloc (frame buffer)");
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->opaque, pixels * sizeof(float)), "cudaMalloc (opaque depth)");
    ctx->pixelCap = pixels * sizeof(float4);
  }
  if (cells && (cellsStamp != ctx->cellsStamp || ctx->cellsCap < cellCount)) {
    if ((code = ensure(&ctx->cells, &ctx->cellsCap, cellCount, "cudaMalloc (macro cells)", msg, msgSize))) return code;
    ctx->cellsStamp = 0; /* invalid until the copy is issued */
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->cells, cells, cellCount, cudaMemcpyHostToDevice, ctx->stream), "cudaMemcpy (macro cells)");
    ctx->cellsStamp = cellsStamp;
  }
  if (rays && (raysStamp != ctx->raysStamp || ctx->raysCap < rayCount * sizeof(unsigned))) {
    if ((code = ensure(&ctx->rays, &ctx->raysCap, (rayCount > 0 ? rayCount : 1) * sizeof(unsigned), "cudaMalloc (ray list)", msg, msgSize))) return code;
    ctx->raysStamp = 0;
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->rays, rays, rayCount * sizeof(unsigned), cudaMemcpyHostToDevice, ctx->stream), "cudaMemcpy (ray list)");
    ctx->raysStamp = raysStamp;
  }
  CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->table, table, tableBytes, cudaMemcpyHostToDevice, ctx->stream), "cudaMemcpy (transfer function)");
  if (opaqueDepth)
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->opaque, opaqueDepth, pixels * sizeof(float), cudaMemcpyHostToDevice, ctx->stream),
                    "cudaMemcpy (opaque depth)");
  CAVR_CUDA_CHECK(cudaMemsetAsync(ctx->samples, 0, sizeof(unsigned long long), ctx->stream), "cudaMemset");
  Frame f;
  f.p = *p;
  f.tex = p->interpolation == 0 ? vol->point : vol->linear;
  f.scale = vol->scale;
  {
    // stored = original (none); stored(N-1-z, y, x) (about y); stored(N-1-y, x, z) (about z); + 0.5.
    const float last = (float)(p->cube - 1);
    const float none[12] = {1, 0, 0, 0.5f, 0, 1, 0, 0.5f, 0, 0, 1, 0.5f};
    const float aboutY[12] = {0, 0, -1, last + 0.5f, 0, 1, 0, 0.5f, 1, 0, 0, 0.5f};
    const float aboutZ[12] = {0, -1, 0, last + 0.5f, 1, 0, 0, 0.5f, 0, 0, 1, 0.5f};
    const float *m = p->rotation == 1 ? aboutY : p->rotation == 2 ? aboutZ : none;
    for (int i = 0; i < 12; ++i) f.rot[i] = m[i];
  }
  f.cells = ctx->cells;
  f.opaque = opaqueDepth ? ctx->opaque : nullptr;
  f.rgba8 = ctx->rgba8;
  f.rgbaf = ctx->rgbaf;
  f.depth = ctx->depth;
  f.samples = ctx->samples;
  f.rays = rays ? ctx->rays : nullptr;
  f.rayCount = (unsigned)rayCount;
  int threads = p->blockW * p->blockH;
  if (threads % 32 != 0 || threads > 512 || p->blockW % p->warpW != 0 || p->blockH % p->warpH != 0) {
    std::snprintf(msg, msgSize, "raycast_kernel: invalid block %dx%d with warp %dx%d", p->blockW, p->blockH, p->warpW, p->warpH);
    return 1;
  }
  unsigned gx = (p->width + p->blockW - 1) / p->blockW, gy = (p->height + p->blockH - 1) / p->blockH;
  dim3 grid = p->transposed ? dim3(gy, gx) : dim3(gx, gy);
  if (rays) { // 1-D launch over the list; the 2-D block shape no longer applies
    threads = 256;
    grid = dim3((unsigned)((rayCount + 255) / 256 > 0 ? (rayCount + 255) / 256 : 1), 1);
  }
  size_t shared = tableBytes;
  // The register-capped build (64 registers, 2 blocks of 512 per SM) is the default: measured 1.31x faster
  // on an H200 than the uncapped one (83 registers), whose occupancy was the limit (docs/benchmarks.md).
  // CAVR_RAYCAST_REGCAP=0 selects the uncapped build, for cavr-bench's comparison.
  const char *cap = getenv("CAVR_RAYCAST_REGCAP");
  // (A tighter cap, 3 blocks of 512 per SM, measured 0.78-0.90x: spills. Not kept.)
  void (*kernel)(Frame, const float4 *) = cap && cap[0] == '0' ? raycast_kernel<1> : raycast_kernel<2>;
  CAVR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared),
                  "cudaFuncSetAttribute (raycast_kernel shared memory)");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  kernel<<<grid, threads, shared, ctx->stream>>>(f, ctx->table);
  CAVR_CUDA_CHECK(cudaGetLastError(), "raycast_kernel launch");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->stop), "raycast_kernel");
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, ctx->start, ctx->stop);
  if (kernelMs) *kernelMs = ms;
  unsigned long long n = 0;
  CAVR_CUDA_CHECK(cudaMemcpy(&n, ctx->samples, sizeof n, cudaMemcpyDeviceToHost), "cudaMemcpy (sample count)");
  if (samples) *samples = n;
  if (hostRGBA8) CAVR_CUDA_CHECK(cudaMemcpy(hostRGBA8, ctx->rgba8, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (image)");
  if (hostRGBAF) CAVR_CUDA_CHECK(cudaMemcpy(hostRGBAF, ctx->rgbaf, pixels * 16, cudaMemcpyDeviceToHost), "cudaMemcpy (image)");
  if (hostDepth) CAVR_CUDA_CHECK(cudaMemcpy(hostDepth, ctx->depth, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (depth)");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// probe_warp_march.cu -- CONTROL for Wang 2014 "warp marching" (SPEC.md 3c), standalone, CUDA runtime only.
//
// Two kernels march the SAME volume, rays, samples and refinement: one thread per ray ("standard") and one warp per
// ray ("warp": 32 lanes take 32 consecutive samples, __ballot_sync + __ffs find the first crossing, next march
// starts on the last sample of this one). Each experiment varies one thing:
//
// Experiment 1, "cache" (exp=1): no empty-space skipping (rays march from the box entry); the one variable under
// control is the size of the L1/texture cache. The same kernels run with
//   default  : no carveout preference, no dynamic shared memory (what a renderer gets);
//   maxL1    : carveout 0 (prefer the largest L1);
//   halfL1   : carveout 50 %, dynamic smem so that ~half of the SM's shared capacity is allocated;
//   minL1    : carveout 100 %, dynamic smem so that (almost) all of the SM's shared capacity is allocated, leaving
//              L1 ~ unified - 228 KB = ~28 KB on H100 (cf. the GTX 680's 48 KB texture cache in Wang's paper).
// The dynamic smem per block is floor(frac * sharedMemPerMultiprocessor / B) - reservedSharedMemPerBlock, where B is
// the kernel's resident blocks/SM in the default config, lowered in 128-byte steps until B blocks still fit: the
// resident warps per SM stay the same, so the cache size is what changes (the table prints blocks/SM to prove it).
// The dynamic smem is never touched by the kernels; it only takes capacity away from L1.
// If warp marching's gain on Wang's GPU came from its small texture cache, "std/warp" should rise with minL1,
// most at theta=90 (rays along x, facing the zy plane).
//
// Experiment 2, "length" (exp=2): default cache config only, theta 0 and 90; the one variable is the march length
// (samples a ray takes before its crossing). It emulates empty-space skipping that lands a ray L voxels before the
// surface: a ray that hits the analytic iso sphere (the noise-free surface of the field below, same constants
// SPH_C/SPH_R as fillVolume; entry t_hit computed per ray on the device) starts at t0 = max(t_entry, t_hit - L)
// instead of the box entry and marches on from there until its crossing. A ray that misses the analytic sphere
// takes no sample (LEN_SKIP_MISSES; as if skipping had cleared its whole path): if misses marched through the box
// (~50% of the pixels, ~1024 samples each), they would be > 99% of the samples at L=4 and std/warp would just
// repeat the full march's ratio. L = 4 8 16 32 64 128 voxels, then "full" (L <= 0: today's march from the box
// entry, misses included = experiment 1's default row; L=128 is close to full for the hit rays, without misses).
// How to read it: std/warp against L (also smp/hit and ns/ray). If warp marching only pays for long marches,
// std/warp falls from its full value towards / below 1 as L shrinks (a warp spends >= 32 fetches, one ballot, ffs
// and two shuffles per ray however short the march; at L=4 the standard ray takes ~9 samples). The renderer's
// 30-60 samples before the crossing correspond to L ~ 16-32. If std/warp stays > 1 at small L, march length is
// not what makes warp marching lose in the renderer.
// Caveat (not emulation-exact): the noise (+-3/255 plus uint8 rounding, field slope 1/N per voxel) can move the
// crossing up to ~3.5N/255 voxels (~7 at N=512, mostly far less) radially outwards, and near the silhouette the
// start t_hit - L lies radially only ~(2sL + L^2)/(2R) outside the sphere (s = half chord). Such rays may hit on
// their first sample ("1st%": % of hit rays; depth = t0) or find a later crossing: "moved%" = % of the full
// march's hit pixels whose hit/miss differs or whose depth differs from the full march's by > 1 voxel (two
// refinements of the same crossing differ by < 2 steps = 1 voxel). The std-vs-warp check is unaffected.
//
// Volume: N^3 uint8, radial field 0.5 + (0.4N - r)/N (iso 0.5 = sphere of radius 0.4N about the centre, every voxel
// non-zero, ~0.03 at the corners) plus +-3/255 hash noise (fixed seed). 3-D cudaArray texture, hardware trilinear,
// normalized-float read, unnormalized coordinates (texel i centred at i+0.5), box [0,N]^3.
// Camera: orthographic, rotated about y by theta; image W x W covering N x N voxels; step 0.5 voxel.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o probe_warp_march testing/lab/probes/probe_warp_march.cu
// Run:   ./probe_warp_march [N=512] [W=1024] [out.csv=./probe_warp_march.csv] [exp=1|2|all (default all)]
// Output, experiment 1: per theta a check line (both kernels give the same depth image: same hit mask, max |diff|
// < 1e-3 voxel, exit 3 if not), samples per ray (standard: samples until the crossing; warp: texture fetches, incl.
// overlap and the lanes past the crossing), then one row per cache config: blocks/SM of each kernel, dynamic smem
// per block, the L1 left (L1~KB: unified - allocated smem rounded UP to a supported carveout size; CSV also has the
// bound), median ms of 7 timed launches after 2 warm-ups, std/warp (>1: warp marching faster), and ps per useful
// sample (frame time / samples the standard kernel takes; same denominator for both).
// Output, experiment 2: one row per (theta, L): hit% (of pixels), smp/hit (standard samples per hit ray), f/hit
// (warp fetches per hit ray), 1st%, moved%, median ms (as above), std/warp, ns per ray (frame time / W^2 rays, both
// kernels), check (same rule as experiment 1, on the count pass and on the timed kernels; exit 3 if not).
// The CSV holds every number of both, one row per (experiment, theta, config, L, method); L_voxels 0 = full.
// Expected at the defaults (from a host-side geometry model, noise ignored): ~50.3% of pixels hit the sphere;
// standard ~630 samples/ray at theta 0 and 90, ~534 at 30 and 60; warp ~658 / ~558 fetches/ray. Experiment 2,
// theta 0 and 90, per hit ray: standard ~9 17 33 65 128 207 241 samples, warp ~32 32 64 96 157 231 263 fetches
// for L = 4 8 16 32 64 128 full (L=16 puts the crossing on sample 32, just past the first warp march).
#include "probe_util.cuh"
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>

static constexpr float ISO = 0.5f, STEP = 0.5f;
static constexpr float SPH_C = 0.5f, SPH_R = 0.4f;  // noise-free iso sphere: centre SPH_C*N, radius SPH_R*N
static constexpr bool LEN_SKIP_MISSES = true;       // experiment 2: rays missing the analytic sphere take no sample
static constexpr uint32_t SEED = 0x2014u;
static constexpr unsigned FULL = 0xffffffffu;

// Counters of the count pass (one buffer, both kernels): standard samples (all rays, hit rays), hit rays, hits on
// the first sample; warp fetches (all rays, hit rays).
enum { C_STD_SMP, C_STD_HIT_SMP, C_STD_HITS, C_STD_FIRST, C_WARP_FETCH, C_WARP_HIT_FETCH, C_N };

__global__ void fillVolume(uint8_t* vol, int N) {
  const size_t total = (size_t)N * N * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    int x = (int)(i % N), y = (int)((i / N) % N), z = (int)(i / ((size_t)N * N));
    float c = SPH_C * N, dx = x + 0.5f - c, dy = y + 0.5f - c, dz = z + 0.5f - c;
    float f = ISO + (SPH_R * N - sqrtf(dx * dx + dy * dy + dz * dz)) / N;
    float noise = ((hash3(SEED, x, y, z) & 255u) / 255.f - 0.5f) * (6.f / 255.f);
    vol[i] = (uint8_t)(fminf(fmaxf(f + noise, 0.f), 1.f) * 255.f + 0.5f);
  }
}

// Entry t of the ray o + t d into the analytic iso sphere (fillVolume's field without noise: voxel x sits at x+0.5,
// as texel x does), or -1 if it misses. Closest-approach form (no b^2 - c cancellation); d is a unit vector.
__device__ __forceinline__ float sphereHit(const Cam& c, float3 o) {
  const float C = SPH_C * c.N, R = SPH_R * c.N;
  const float ox = o.x - C, oy = o.y - C, oz = o.z - C, b = ox * c.d.x + oy * c.d.y + oz * c.d.z;
  const float qx = ox - b * c.d.x, qy = oy - b * c.d.y, qz = oz - b * c.d.z;
  const float h = R * R - (qx * qx + qy * qy + qz * qz);
  return h >= 0.f ? -b - sqrtf(h) : -1.f;
}

// Shared by both kernels so that sample positions and depths are bit-identical. Returns the sample count; sample i
// is at t0 + i*STEP. L <= 0: t0 = box entry. L > 0 (experiment 2, emulated empty-space skipping): t0 = L voxels
// before the analytic sphere, never before the box entry; a ray missing the sphere takes no sample (LEN_SKIP_MISSES)
// or marches from the box entry.
__device__ __forceinline__ int setupRay(const Cam& c, float L, int px, int py, float3& o, float& t0) {
  o.x = fmaf(py + 0.5f, c.v.x, fmaf(px + 0.5f, c.u.x, c.o.x));
  o.y = fmaf(py + 0.5f, c.v.y, fmaf(px + 0.5f, c.u.y, c.o.y));
  o.z = fmaf(py + 0.5f, c.v.z, fmaf(px + 0.5f, c.u.z, c.o.z));
  float tn = 0.f, tf = 1e30f, oo[3] = {o.x, o.y, o.z}, dd[3] = {c.d.x, c.d.y, c.d.z};
  for (int a = 0; a < 3; ++a) {
    float inv = 1.f / dd[a], ta = (0.f - oo[a]) * inv, tb = (c.N - oo[a]) * inv;
    tn = fmaxf(tn, fminf(ta, tb)); tf = fminf(tf, fmaxf(ta, tb));
  }
  t0 = tn;
  if (L > 0.f) {
    const float th = sphereHit(c, o);
    if (th >= 0.f) t0 = fmaxf(tn, th - L);
    else if (LEN_SKIP_MISSES) return 0;
  }
  return tf > t0 ? (int)floorf((tf - t0) / STEP) + 1 : 0;
}
__device__ __forceinline__ float sampleAt(cudaTextureObject_t tex, const Cam& c, float3 o, float t0, int i) {
  float t = fmaf((float)i, STEP, t0);
  return tex3D<float>(tex, fmaf(t, c.d.x, o.x), fmaf(t, c.d.y, o.y), fmaf(t, c.d.z, o.z));
}
// Crossing between sample i-1 (sPrev < ISO) and i (s >= ISO); a hit on sample 0 is the start point.
__device__ __forceinline__ float refine(float t0, int i, float sPrev, float s) {
  if (i == 0) return t0;
  float f = (ISO - sPrev) / (s - sPrev);
  return fmaf((float)(i - 1) + f, STEP, t0);
}

template <bool COUNT>  // kernel A: one thread per ray, 16x16 blocks
__global__ void __launch_bounds__(256) isoStandard(cudaTextureObject_t tex, Cam c, float L, float* depth,
                                                   unsigned long long* count) {
  int px = blockIdx.x * 16 + threadIdx.x, py = blockIdx.y * 16 + threadIdx.y;
  if (px >= c.W || py >= c.W) return;
  float3 o; float t0; int n = setupRay(c, L, px, py, o, t0);
  float dep = -1.f, prev = 0.f; int i = 0;
  for (; i < n; ++i) {
    float s = sampleAt(tex, c, o, t0, i);
    if (s >= ISO) { dep = refine(t0, i, prev, s); break; }
    prev = s;
  }
  depth[(size_t)py * c.W + px] = dep;
  if (COUNT) {
    const unsigned long long k = i < n ? i + 1 : n;
    atomicAdd(count + C_STD_SMP, k);
    if (dep >= 0.f) {
      atomicAdd(count + C_STD_HIT_SMP, k); atomicAdd(count + C_STD_HITS, 1ull);
      if (i == 0) atomicAdd(count + C_STD_FIRST, 1ull);
    }
  }
}

template <bool COUNT>  // kernel B: one warp per ray (Wang 2014), 8 warps = 8 neighbouring pixels of a row per block
__global__ void __launch_bounds__(256) isoWarp(cudaTextureObject_t tex, Cam c, float L, float* depth,
                                               unsigned long long* count) {
  const int lane = threadIdx.x & 31;
  int px = blockIdx.x * 8 + (threadIdx.x >> 5), py = blockIdx.y;
  if (px >= c.W) return;  // warp-uniform
  float3 o; float t0; int n = setupRay(c, L, px, py, o, t0);
  float dep = -1.f; unsigned long long fetched = 0;
  for (int base = 0; base < n; base += 31) {  // lane 0 re-takes the previous march's lane 31 (one sample overlap)
    int i = base + lane;
    float s = i < n ? sampleAt(tex, c, o, t0, i) : -1.f;
    if (COUNT) fetched += (unsigned long long)min(32, n - base);
    unsigned hit = __ballot_sync(FULL, s >= ISO);
    if (hit) {  // l == 0 only when base == 0 (the overlap sample was below ISO): equality on the first sample hits
      int l = __ffs(hit) - 1;
      float sh = __shfl_sync(FULL, s, l), sp = __shfl_sync(FULL, s, l > 0 ? l - 1 : 0);
      dep = refine(t0, base + l, sp, sh);
      break;
    }
  }
  if (lane == 0) {
    depth[(size_t)py * c.W + px] = dep;
    if (COUNT) {
      atomicAdd(count + C_WARP_FETCH, fetched);
      if (dep >= 0.f) atomicAdd(count + C_WARP_HIT_FETCH, fetched);
    }
  }
}

static int unifiedL1KB(int major, int minor) {  // per-SM unified L1/texture/shared storage (NVIDIA tuning guides)
  if (major == 9 || major == 10) return 256;
  if (major == 8 && minor == 0) return 192;
  if (major == 7 && minor == 5) return 96;
  if (major == 7 || major == 8 || major == 12) return 128;
  return -1;
}

// Shared capacity the driver configures for `used` bytes of smem per SM: rounded up to a supported carveout
// (Hopper tuning guide: 0,8,16,32,64,100,132,164,196,228 KB). -1 where the list is not known (other GPUs).
static long carveoutKB(size_t used, int major) {
  static const long h[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  if (major != 9) return -1;
  for (long k : h) if ((size_t)k * 1024 >= used) return k;
  return -1;
}

struct KCfg { size_t dyn; int blocks; };
template <class K>
static KCfg configure(K k, int carve, double frac, int baseBlocks, const cudaDeviceProp& p) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
  size_t dyn = 0;
  if (frac > 0) {
    size_t per = (size_t)(frac * p.sharedMemPerMultiprocessor) / baseBlocks;
    dyn = per > p.reservedSharedMemPerBlock ? per - p.reservedSharedMemPerBlock : 0;
    dyn = std::min(dyn, p.sharedMemPerBlockOptin) & ~(size_t)127;
  }
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
  int nb = 0;
  for (;;) {
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 256, dyn));
    if (nb >= baseBlocks || dyn < 128) break;
    dyn -= 128;
  }
  return {dyn, nb};
}

// Everything both experiments share: device, sizes, texture, depth images (A: standard, B: warp), counters, CSV.
struct Ctx {
  cudaDeviceProp p; int N, W, l1KB; size_t npix;
  cudaTextureObject_t tex; float *dA, *dB; unsigned long long* cnt; FILE* csv;
  dim3 bA, gA, bB, gB; int baseA, baseB;  // launch shapes; resident blocks/SM in the default config
};
struct Counts { unsigned long long v[C_N]; };
struct Check { bool ok; float maxDiff; size_t mismatch, hits; };
struct L1Left { long upper, est; };

// Counting launches of both kernels (untimed) for march length L; their depth images are left in dA / dB.
static Counts countPass(const Ctx& x, const Cam& cam, float L) {
  CK(cudaMemset(x.cnt, 0, C_N * sizeof(unsigned long long)));
  isoStandard<true><<<x.gA, x.bA>>>(x.tex, cam, L, x.dA, x.cnt); CK(cudaGetLastError());
  isoWarp<true><<<x.gB, x.bB>>>(x.tex, cam, L, x.dB, x.cnt); CK(cudaGetLastError());
  Counts h; CK(cudaMemcpy(h.v, x.cnt, sizeof h.v, cudaMemcpyDeviceToHost));
  return h;
}

// Same hit mask and max |depth difference| over pixels where both hit. keepA (optional) gets the standard image.
static Check compareDepth(const Ctx& x, std::vector<float>* keepA = nullptr) {
  std::vector<float> a(x.npix), b(x.npix);
  CK(cudaMemcpy(a.data(), x.dA, x.npix * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), x.dB, x.npix * sizeof(float), cudaMemcpyDeviceToHost));
  Check c = {false, 0.f, 0, 0};
  for (size_t i = 0; i < x.npix; ++i) {
    bool ha = a[i] >= 0.f, hb = b[i] >= 0.f;
    if (ha != hb) ++c.mismatch;
    else if (ha) { ++c.hits; c.maxDiff = std::max(c.maxDiff, std::fabs(a[i] - b[i])); }
  }
  c.ok = c.mismatch == 0 && c.maxDiff < 1e-3f;
  if (keepA) keepA->swap(a);
  return c;
}

// Timed launches of both kernels (k[0]: standard, k[1]: warp) for march length L; the timed kernels must agree too.
static Check timePair(const Ctx& x, const Cam& cam, float L, const KCfg (&k)[2], Stat (&s)[2]) {
  s[0] = timeIt([&] { isoStandard<false><<<x.gA, x.bA, k[0].dyn>>>(x.tex, cam, L, x.dA, nullptr); });
  s[1] = timeIt([&] { isoWarp<false><<<x.gB, x.bB, k[1].dyn>>>(x.tex, cam, L, x.dB, nullptr); });
  return compareDepth(x);
}

// L1 left beside the larger of the two kernels' allocated smem per SM: upper bound and carveout-rounded estimate.
static L1Left l1Left(const Ctx& x, const KCfg (&k)[2]) {
  size_t used = 0;
  for (const KCfg& c : k) used = std::max(used, c.blocks * (c.dyn + x.p.reservedSharedMemPerBlock) * (c.dyn > 0));
  long up = x.l1KB < 0 ? -1 : x.l1KB - (long)(used / 1024), co = carveoutKB(used, x.p.major);
  return {up, (x.l1KB < 0 || co < 0) ? up : x.l1KB - co};
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

static void csvHeader(FILE* f) {
  fprintf(f, "experiment,gpu,N,W,theta,config,carveout_pct,L_voxels,method,dyn_smem_per_block,blocks_per_sm,"
             "warps_per_sm,l1_upper_kb,l1_est_kb,ms_median,ms_min,ms_max,useful_samples,fetches,"
             "ps_per_useful_sample,hit_rays,fetches_per_hit_ray,first_sample_hits,moved_pct,ns_per_ray,check_ok,"
             "max_diff\n");
}
// Two rows (standard, warp). useful_samples: the standard kernel's samples (the denominator of ps_per_useful_sample
// for both); fetches / fetches_per_hit_ray: the method's own samples; check: the timed kernels'.
static void csvRows(const Ctx& x, const char* experiment, int theta, const char* config, int carve, float L,
                    const KCfg (&k)[2], const Stat (&s)[2], const Counts& h, const Check& chk, double movedPct) {
  const L1Left l1 = l1Left(x, k);
  const unsigned long long hits = h.v[C_STD_HITS];
  for (int m = 0; m < 2; ++m) {
    const unsigned long long f = h.v[m ? C_WARP_FETCH : C_STD_SMP], fh = h.v[m ? C_WARP_HIT_FETCH : C_STD_HIT_SMP];
    fprintf(x.csv, "%s,\"%s\",%d,%d,%d,%s,%d,%d,%s,%zu,%d,%d,%ld,%ld,%.5f,%.5f,%.5f,%llu,%llu,%.5f,%llu,%.3f,%llu,"
                   "%.4f,%.4f,%d,%.3e\n",
            experiment, x.p.name, x.N, x.W, theta, config, carve, L > 0 ? (int)L : 0, m ? "warp" : "standard", k[m].dyn,
            k[m].blocks, k[m].blocks * 8, l1.upper, l1.est, s[m].med, s[m].mn, s[m].mx, h.v[C_STD_SMP], f,
            ratio(s[m].med * 1e9, (double)h.v[C_STD_SMP]), hits, ratio((double)fh, (double)hits), h.v[C_STD_FIRST],
            movedPct, s[m].med * 1e6 / x.npix, chk.ok ? 1 : 0, chk.maxDiff);
  }
}

// Experiment 1: cache configs at theta 0/30/60/90, full marches (L = 0). Returns false on a depth mismatch.
static bool runCacheExp(const Ctx& x) {
  struct Cfg { const char* name; int carve; double frac; };
  const Cfg cfgs[] = {{"default", -1, 0.0}, {"maxL1", 0, 0.0}, {"halfL1", 50, 0.5}, {"minL1", 100, 1.0}};
  const int thetas[] = {0, 30, 60, 90};
  bool allOk = true;
  printf("# experiment 1: cache configs (full marches from the box entry)\n");
  printf("%5s %-7s %5s %9s %9s %6s %8s %8s %8s %9s %9s %s\n", "theta", "config", "carve", "blk/SM", "smem/blk",
         "L1~KB", "std_ms", "warp_ms", "std/warp", "std_ps", "warp_ps", "check");
  for (int theta : thetas) {
    const Cam cam = makeCam(theta, x.N, x.W);
    const Counts h = countPass(x, cam, 0.f);
    const Check c = compareDepth(x);
    allOk &= c.ok;
    const unsigned long long hs = h.v[C_STD_SMP], hw = h.v[C_WARP_FETCH];
    printf("theta %d: %s (hit pixels %zu = %.1f%%, mask mismatches %zu, max |depth diff| %.2e voxel); "
           "samples/ray standard %.1f, warp fetches/ray %.1f (x%.2f)\n", theta, c.ok ? "CHECK OK" : "CHECK FAILED",
           c.hits, 100.0 * c.hits / x.npix, c.mismatch, c.maxDiff, (double)hs / x.npix, (double)hw / x.npix,
           ratio((double)hw, (double)hs));
    for (const Cfg& cf : cfgs) {
      const KCfg k[2] = {configure(isoStandard<false>, cf.carve, cf.frac, x.baseA, x.p),
                         configure(isoWarp<false>, cf.carve, cf.frac, x.baseB, x.p)};
      Stat s[2];
      const Check c2 = timePair(x, cam, 0.f, k, s);
      allOk &= c2.ok;
      const double psA = ratio(s[0].med * 1e9, (double)hs), psB = ratio(s[1].med * 1e9, (double)hs);
      printf("%5d %-7s %5d %4d/%-4d %4zu/%-4zu %6ld %8.3f %8.3f %8.2f %9.3f %9.3f %s\n", theta, cf.name, cf.carve,
             k[0].blocks, k[1].blocks, k[0].dyn / 1024, k[1].dyn / 1024, l1Left(x, k).est, s[0].med, s[1].med,
             s[0].med / s[1].med, psA, psB, c2.ok ? "ok" : "FAILED");
      csvRows(x, "1_cache", theta, cf.name, cf.carve, 0.f, k, s, h, c2, 0.0);
    }
  }
  printf("# std/warp > 1 means warp marching is faster. smem/blk in KB (A/B).\n");
  printf("# L1~KB = unified - allocated smem rounded up to a supported carveout (estimate; the driver's choice for\n"
         "# 'default' is not visible here: ncu metric launch__shared_mem_config_size shows the real one).\n");
  printf("# std_ps/warp_ps = picoseconds per useful sample (frame time / standard kernel's samples).\n");
  return allOk;
}

// Experiment 2: march length L (emulated empty-space skipping) at theta 0/90, default cache config. Returns false
// on a depth mismatch.
static bool runLengthExp(const Ctx& x) {
  const KCfg k[2] = {configure(isoStandard<false>, -1, 0.0, x.baseA, x.p),  // default again (experiment 1 leaves
                     configure(isoWarp<false>, -1, 0.0, x.baseB, x.p)};     // the minL1 attributes set)
  const int thetas[] = {0, 90};
  const float Ls[] = {4, 8, 16, 32, 64, 128, 0};  // voxels before the analytic surface; 0 = full
  bool allOk = true;
  printf("# experiment 2: march length (start L voxels before the analytic sphere; misses %s; default cache, "
         "blk/SM %d/%d)\n", LEN_SKIP_MISSES ? "take no sample" : "march from the box entry", k[0].blocks,
         k[1].blocks);
  printf("%5s %5s %6s %8s %8s %6s %7s %8s %8s %8s %8s %8s %s\n", "theta", "L", "hit%", "smp/hit", "f/hit", "1st%",
         "moved%", "std_ms", "warp_ms", "std/warp", "std_ns", "warp_ns", "check");
  for (int theta : thetas) {
    const Cam cam = makeCam(theta, x.N, x.W);
    std::vector<float> ref(x.npix);  // the full march's depth image, what moved% compares with
    isoStandard<false><<<x.gA, x.bA>>>(x.tex, cam, 0.f, x.dA, nullptr); CK(cudaGetLastError());
    CK(cudaMemcpy(ref.data(), x.dA, x.npix * sizeof(float), cudaMemcpyDeviceToHost));
    for (float L : Ls) {
      const Counts h = countPass(x, cam, L);
      std::vector<float> a;
      const Check c = compareDepth(x, &a);
      size_t refHits = 0, moved = 0;
      for (size_t i = 0; i < x.npix; ++i) {
        const bool hr = ref[i] >= 0.f, ha = a[i] >= 0.f;
        refHits += hr;
        moved += hr != ha || (hr && std::fabs(a[i] - ref[i]) > 1.f);
      }
      Stat s[2];
      const Check c2 = timePair(x, cam, L, k, s);
      allOk &= c.ok && c2.ok;
      const unsigned long long hits = h.v[C_STD_HITS];
      const double movedPct = 100.0 * ratio((double)moved, (double)refHits);
      char lName[16] = "full";
      if (L > 0) snprintf(lName, sizeof lName, "%.0f", L);
      printf("%5d %5s %6.1f %8.1f %8.1f %6.2f %7.2f %8.3f %8.3f %8.2f %8.3f %8.3f %s\n", theta, lName,
             100.0 * hits / x.npix, ratio((double)h.v[C_STD_HIT_SMP], (double)hits),
             ratio((double)h.v[C_WARP_HIT_FETCH], (double)hits), 100.0 * ratio((double)h.v[C_STD_FIRST], (double)hits),
             movedPct, s[0].med, s[1].med, s[0].med / s[1].med, s[0].med * 1e6 / x.npix, s[1].med * 1e6 / x.npix,
             c.ok && c2.ok ? "ok" : "FAILED");
      if (!c.ok || !c2.ok)
        printf("      CHECK FAILED: count pass mask mismatches %zu, max |diff| %.2e; timed %zu, %.2e\n", c.mismatch,
               c.maxDiff, c2.mismatch, c2.maxDiff);
      csvRows(x, "2_length", theta, "default", -1, L, k, s, h, c2, movedPct);
    }
  }
  printf("# smp/hit = standard samples per hit ray, f/hit = warp fetches per hit ray; 1st%% = hit rays whose first\n"
         "# sample is already >= iso (%% of hit rays); moved%% = full-march hit pixels whose hit/miss or depth (> 1\n"
         "# voxel) differs from the full march; std_ns/warp_ns = frame time / W^2 rays. std/warp > 1: warp faster.\n");
  return allOk;
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 512, W = argc > 2 ? atoi(argv[2]) : 1024;
  const char* csvPath = argc > 3 ? argv[3] : "./probe_warp_march.csv";
  const char* which = argc > 4 ? argv[4] : "all";
  if (!strncmp(which, "exp=", 4)) which += 4;
  const bool all = !strcmp(which, "all"), run1 = all || !strcmp(which, "1"), run2 = all || !strcmp(which, "2");
  if (N < 8 || W < 8 || !(run1 || run2)) {
    fprintf(stderr, "usage: %s [N>=8] [W>=8] [out.csv] [exp=1|2|all]\n", argv[0]);
    return 1;
  }
  Ctx x = {};
  x.N = N; x.W = W; x.npix = (size_t)W * W;
  cudaDeviceProp& p = x.p; CK(cudaGetDeviceProperties(&p, 0));
  x.l1KB = unifiedL1KB(p.major, p.minor);
  printf("# probe_warp_march  %s (sm_%d%d, %d SMs)  N=%d W=%d step=%.2f iso=%.2f\n", p.name, p.major, p.minor,
         p.multiProcessorCount, N, W, STEP, ISO);
  printf("# smem/SM %zu B, smem/block opt-in %zu B, reserved/block %zu B, max threads/SM %d, "
         "unified L1+smem/SM %s%d KB\n",
         p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
         p.maxThreadsPerMultiProcessor, x.l1KB < 0 ? "unknown " : "", x.l1KB < 0 ? 0 : x.l1KB);

  uint8_t* lin; const size_t nvox = (size_t)N * N * N;
  CK(cudaMalloc(&lin, nvox));
  fillVolume<<<4 * p.multiProcessorCount * 8, 256>>>(lin, N); CK(cudaGetLastError());
  cudaArray_t arr;
  x.tex = volumeTexture(lin, N, &arr);
  CK(cudaFree(lin));

  CK(cudaMalloc(&x.dA, x.npix * sizeof(float))); CK(cudaMalloc(&x.dB, x.npix * sizeof(float)));
  CK(cudaMalloc(&x.cnt, C_N * sizeof(unsigned long long)));
  x.bA = dim3(16, 16); x.gA = dim3((W + 15) / 16, (W + 15) / 16); x.bB = dim3(256); x.gB = dim3((W + 7) / 8, W);
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&x.baseA, isoStandard<false>, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&x.baseB, isoWarp<false>, 256, 0));

  x.csv = fopen(csvPath, "w");
  if (!x.csv) { fprintf(stderr, "cannot write %s\n", csvPath); return 1; }
  csvHeader(x.csv);
  bool allOk = true;
  if (run1) allOk &= runCacheExp(x);
  if (run1 && run2) printf("\n");
  if (run2) allOk &= runLengthExp(x);
  fclose(x.csv);
  printf("# CSV: %s\n", csvPath);
  CK(cudaDestroyTextureObject(x.tex)); CK(cudaFreeArray(arr));
  CK(cudaFree(x.dA)); CK(cudaFree(x.dB)); CK(cudaFree(x.cnt));
  if (!allOk) { fprintf(stderr, "CHECK FAILED: standard and warp marching depth images differ\n"); return 3; }
  return 0;
}

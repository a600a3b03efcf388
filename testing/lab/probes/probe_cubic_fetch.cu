// SPDX-License-Identifier: BSD-3-Clause
// probe_cubic_fetch.cu -- CONTROL for the cost of the tricubic B-spline filter (Sigg & Hadwiger 2005: one cubic
// sample = 8 hardware-trilinear fetches + weight arithmetic) against one trilinear fetch per sample.
// Standalone, CUDA runtime only.
//
// What it isolates: a ray caster stripped to the sampling loop. Every ray marches the whole box (step 0.5 voxel,
// no early termination) and adds its samples into one float per pixel (written out, so no fetch can be dropped).
// Only the per-sample filter changes:
//   (a) tri1     1 tex3D at the sample (hardware trilinear)
//   (b) cubic    B-spline via 8 tex3D at (hx{0,1}, hy{0,1}, hz{0,1}), combined with 7 lerps by g0 (the real filter)
//   (c) cubic8   the same 8 positions as (b), including the w/g/h arithmetic that produces them, but the 8 results
//                are just summed: (b)-(c) = the final weighting, (c) = fetch cost at the cubic footprint
//   (d) off8     8 tex3D at the sample +-1 texel on each axis, summed: same fetch count and the same 4x4x4 texels
//                (floor(p-0.5)-1 .. +2 per axis) as (b), no w/g/h arithmetic: (c)-(d) = the position arithmetic
//   (e) hot8     8 tex3D at the sample + k/1024 texel along x (k=0..7), summed: every fetch reads the same texels,
//                so this is the texture-unit issue/filter floor with near-perfect cache hits
// Fetches/s of (c)-(e) against (a) tell whether 8 fetches cost 8x one fetch (throughput-bound: the cubic floor is
// ~8x) or less (latency-bound single fetch). The nominal rate printed is SMs x 4 texture units x max clock, one
// filtered fetch per unit per clock -- an ASSUMPTION (Hopper: 4 texture units/SM); a 3-D trilinear fetch of 8-bit
// data may take 2 filter cycles, which would halve it.
//
// Volume: N^3 uint8, smooth field (sines) + hash noise, fixed seed; cudaArray, linear filter, normalized-float
// read, unnormalized coordinates (texel i centred at i+0.5). Orthographic camera rotated about y by theta in
// {0,45,90}, W x W image covering N x N voxels.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o probe_cubic_fetch testing/lab/probes/probe_cubic_fetch.cu
// Run:   ./probe_cubic_fetch [N=512] [W=1024] [out.csv=./probe_cubic_fetch.csv]
// Every variant runs twice: sample loop not unrolled (unroll 1: one sample's fetches in flight per thread, as in a
// caster with early termination) and unrolled by 4 (more fetches in flight); blk/SM = resident 256-thread blocks
// per SM (registers differ between variants, so occupancy may too).
// Output: per theta, unroll and variant: median ms of 7 timed launches after 2 warm-ups, samples and fetches per
// frame (G), fetches/s (G), % of the nominal rate, time ratio to (a), and mean pixel sum / mean of (a) (a sanity
// check: (b) should be ~1, (c)-(e) ~8). The CSV holds every number.
// Expected at the defaults: ~1.07 G samples per frame at theta 0 and 90, ~0.98 G at 45 (the image covers N x N).
#include "probe_util.cuh"
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>

static constexpr float STEP = 0.5f;
static constexpr uint32_t SEED = 0x2005u;
static constexpr int NVAR = 5;
static const char* VNAME[NVAR] = {"tri1", "cubic", "cubic8", "off8", "hot8"};
static const int VFETCH[NVAR] = {1, 8, 8, 8, 8};

__global__ void fillVolume(uint8_t* vol, int N) {
  const size_t total = (size_t)N * N * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    int x = (int)(i % N), y = (int)((i / N) % N), z = (int)(i / ((size_t)N * N));
    float fx = (x + 0.5f) / N, fy = (y + 0.5f) / N, fz = (z + 0.5f) / N;
    float f = 0.5f + 0.35f * sinf(23.f * fx) * sinf(19.f * fy) * sinf(29.f * fz);
    float noise = ((hash3(SEED, x, y, z) & 255u) / 255.f - 0.5f) * (16.f / 255.f);
    vol[i] = (uint8_t)(fminf(fmaxf(f + noise, 0.f), 1.f) * 255.f + 0.5f);
  }
}

__device__ __forceinline__ int setupRay(const Cam& c, int px, int py, float3& o, float& t0) {
  o.x = fmaf(py + 0.5f, c.v.x, fmaf(px + 0.5f, c.u.x, c.o.x));
  o.y = fmaf(py + 0.5f, c.v.y, fmaf(px + 0.5f, c.u.y, c.o.y));
  o.z = fmaf(py + 0.5f, c.v.z, fmaf(px + 0.5f, c.u.z, c.o.z));
  float tn = 0.f, tf = 1e30f, oo[3] = {o.x, o.y, o.z}, dd[3] = {c.d.x, c.d.y, c.d.z};
  for (int a = 0; a < 3; ++a) {
    float inv = 1.f / dd[a], ta = (0.f - oo[a]) * inv, tb = (c.N - oo[a]) * inv;
    tn = fmaxf(tn, fminf(ta, tb)); tf = fminf(tf, fmaxf(ta, tb));
  }
  t0 = tn;
  return tf > tn ? (int)floorf((tf - tn) / STEP) + 1 : 0;
}

// Sigg & Hadwiger per axis: x in texel coordinates (centres at i+0.5) -> two fetch positions h0,h1 and weight g0.
__device__ __forceinline__ void bspline(float x, float& h0, float& h1, float& g0) {
  float c = x - 0.5f, i = floorf(c), f = c - i, m = 1.f - f;
  float w0 = (1.f / 6.f) * m * m * m, w1 = 2.f / 3.f - 0.5f * f * f * (2.f - f);
  float w2 = 2.f / 3.f - 0.5f * m * m * (1.f + f), w3 = (1.f / 6.f) * f * f * f;
  g0 = w0 + w1;
  h0 = i - 0.5f + w1 / g0;          // between the centres of texels i-1 and i
  h1 = i + 1.5f + w3 / (w2 + w3);   // between the centres of texels i+1 and i+2
}
__device__ __forceinline__ float lerp(float a, float b, float t) { return fmaf(t, a - b, b); }  // t*a + (1-t)*b

template <int V>
__device__ __forceinline__ float filterSample(cudaTextureObject_t t, float x, float y, float z) {
  if constexpr (V == 0) {
    return tex3D<float>(t, x, y, z);
  } else if constexpr (V == 1 || V == 2) {
    float hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz;
    bspline(x, hx0, hx1, gx); bspline(y, hy0, hy1, gy); bspline(z, hz0, hz1, gz);
    float t000 = tex3D<float>(t, hx0, hy0, hz0), t100 = tex3D<float>(t, hx1, hy0, hz0);
    float t010 = tex3D<float>(t, hx0, hy1, hz0), t110 = tex3D<float>(t, hx1, hy1, hz0);
    float t001 = tex3D<float>(t, hx0, hy0, hz1), t101 = tex3D<float>(t, hx1, hy0, hz1);
    float t011 = tex3D<float>(t, hx0, hy1, hz1), t111 = tex3D<float>(t, hx1, hy1, hz1);
    if constexpr (V == 1)
      return lerp(lerp(lerp(t000, t100, gx), lerp(t010, t110, gx), gy),
                  lerp(lerp(t001, t101, gx), lerp(t011, t111, gx), gy), gz);
    else
      return ((t000 + t100) + (t010 + t110)) + ((t001 + t101) + (t011 + t111));
  } else if constexpr (V == 3) {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k)
      s += tex3D<float>(t, x + ((k & 1) ? 1.f : -1.f), y + ((k & 2) ? 1.f : -1.f), z + ((k & 4) ? 1.f : -1.f));
    return s;
  } else {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += tex3D<float>(t, x + k * (1.f / 1024.f), y, z);
    return s;
  }
}

// One thread per ray, 16x16 blocks, whole box, sum of samples per pixel. U = unroll of the sample loop: 1 = one
// sample's fetches in flight per thread (as in a real caster with early termination), 4 = up to 4 samples' worth.
template <int V, int U>
__global__ void __launch_bounds__(256) march(cudaTextureObject_t tex, Cam c, float* out) {
  int px = blockIdx.x * 16 + threadIdx.x, py = blockIdx.y * 16 + threadIdx.y;
  if (px >= c.W || py >= c.W) return;
  float3 o; float t0; int n = setupRay(c, px, py, o, t0);
  float acc = 0.f;
#pragma unroll U
  for (int i = 0; i < n; ++i) {
    float t = fmaf((float)i, STEP, t0);
    acc += filterSample<V>(tex, fmaf(t, c.d.x, o.x), fmaf(t, c.d.y, o.y), fmaf(t, c.d.z, o.z));
  }
  out[(size_t)py * c.W + px] = acc;
}

__global__ void countSamples(Cam c, unsigned long long* count) {
  int px = blockIdx.x * 16 + threadIdx.x, py = blockIdx.y * 16 + threadIdx.y;
  if (px >= c.W || py >= c.W) return;
  float3 o; float t0;
  atomicAdd(count, (unsigned long long)setupRay(c, px, py, o, t0));
}

using KFn = void (*)(cudaTextureObject_t, Cam, float*);
static const KFn KERN[2][NVAR] = {{march<0, 1>, march<1, 1>, march<2, 1>, march<3, 1>, march<4, 1>},
                                  {march<0, 4>, march<1, 4>, march<2, 4>, march<3, 4>, march<4, 4>}};
static const int UNROLL[2] = {1, 4};

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 512, W = argc > 2 ? atoi(argv[2]) : 1024;
  const char* csvPath = argc > 3 ? argv[3] : "./probe_cubic_fetch.csv";
  if (N < 8 || W < 8) { fprintf(stderr, "usage: %s [N>=8] [W>=8] [out.csv]\n", argv[0]); return 1; }
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  int clkKHz = 0;
  if (cudaDeviceGetAttribute(&clkKHz, cudaDevAttrClockRate, 0) != cudaSuccess) { clkKHz = 0; cudaGetLastError(); }
  const double nominal = clkKHz > 0 ? p.multiProcessorCount * 4.0 * clkKHz * 1e-6 : 0.0;  // G fetches/s
  printf("# probe_cubic_fetch  %s (sm_%d%d, %d SMs)  N=%d W=%d step=%.2f\n", p.name, p.major, p.minor,
         p.multiProcessorCount, N, W, STEP);
  if (nominal > 0)
    printf("# nominal texture rate %.0f G fetch/s = %d SMs x 4 tex units (assumed) x %.3f GHz (max clock); "
           "%.0f if 3-D trilinear takes 2 cycles\n", nominal, p.multiProcessorCount, clkKHz * 1e-6, nominal / 2);
  else printf("# nominal texture rate: unknown (clock rate not available)\n");

  uint8_t* lin; const size_t nvox = (size_t)N * N * N;
  CK(cudaMalloc(&lin, nvox));
  fillVolume<<<4 * p.multiProcessorCount * 8, 256>>>(lin, N); CK(cudaGetLastError());
  cudaArray_t arr;
  cudaTextureObject_t tex = volumeTexture(lin, N, &arr);
  CK(cudaFree(lin));

  const size_t npix = (size_t)W * W;
  float* out; unsigned long long* cnt;
  CK(cudaMalloc(&out, npix * sizeof(float))); CK(cudaMalloc(&cnt, sizeof(unsigned long long)));
  std::vector<float> host(npix);
  const dim3 b(16, 16), g((W + 15) / 16, (W + 15) / 16);

  FILE* csv = fopen(csvPath, "w");
  if (!csv) { fprintf(stderr, "cannot write %s\n", csvPath); return 1; }
  fprintf(csv, "gpu,N,W,theta,unroll,variant,fetches_per_sample,blocks_per_sm,ms_median,ms_min,ms_max,samples,fetches,"
               "gfetch_per_s,pct_nominal,time_ratio_to_tri1,mean_pixel_sum,nominal_gfetch_per_s\n");
  printf("%5s %6s %-7s %6s %8s %8s %8s %9s %8s %9s %9s\n", "theta", "unroll", "variant", "blk/SM", "ms", "Gsamp",
         "Gfetch", "Gfetch/s",
         "%nominal", "t/t(a)", "sum/(a)");
  const int thetas[] = {0, 45, 90};
  for (int theta : thetas) {
    const Cam cam = makeCam(theta, N, W);
    CK(cudaMemset(cnt, 0, sizeof(unsigned long long)));
    countSamples<<<g, b>>>(cam, cnt); CK(cudaGetLastError());
    unsigned long long samples; CK(cudaMemcpy(&samples, cnt, sizeof samples, cudaMemcpyDeviceToHost));
    for (int u = 0; u < 2; ++u) {
      double msA = 0, meanA = 0;
      for (int v = 0; v < NVAR; ++v) {
        const KFn k = KERN[u][v];
        int nb; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 256, 0));
        Stat s = timeIt([&] { k<<<g, b>>>(tex, cam, out); });
        CK(cudaMemcpy(host.data(), out, npix * sizeof(float), cudaMemcpyDeviceToHost));
        double mean = 0; for (float x : host) mean += x; mean /= npix;
        if (v == 0) { msA = s.med; meanA = mean; }
        double fetches = (double)samples * VFETCH[v], gfs = fetches / (s.med * 1e-3) * 1e-9;
        double pct = nominal > 0 ? 100.0 * gfs / nominal : -1.0;
        printf("%5d %6d %-7s %6d %8.3f %8.3f %8.3f %9.1f %8.1f %9.2f %9.3f\n", theta, UNROLL[u], VNAME[v], nb,
               s.med, samples * 1e-9, fetches * 1e-9, gfs, pct, s.med / msA, meanA != 0 ? mean / meanA : 0.0);
        fprintf(csv, "\"%s\",%d,%d,%d,%d,%s,%d,%d,%.5f,%.5f,%.5f,%llu,%.0f,%.3f,%.2f,%.4f,%.6g,%.1f\n", p.name, N,
                W, theta, UNROLL[u], VNAME[v], VFETCH[v], nb, s.med, s.mn, s.mx, samples, fetches, gfs, pct,
                s.med / msA, mean, nominal);
      }
    }
  }
  fclose(csv);
  printf("# %%nominal = -1 when the clock is unknown. sum/(a): mean pixel sum relative to (a); cubic ~1, 8-fetch "
         "sums ~8. CSV: %s\n", csvPath);
  CK(cudaDestroyTextureObject(tex)); CK(cudaFreeArray(arr)); CK(cudaFree(out)); CK(cudaFree(cnt));
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// probe_util.cuh - what the standalone control programs of testing/bench (probe_warp_march.cu, probe_cubic_fetch.cu)
// share: the CUDA error check, a hash for fixed-seed noise, the orthographic camera about y, the N^3 uint8 volume as
// a linearly filtered 3-D texture, and launch timing. Header-only, CUDA runtime only, so each probe still builds with
// one nvcc line.
#ifndef CAVR_PROBE_UTIL_CUH
#define CAVR_PROBE_UTIL_CUH

#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error '%s' at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #call); \
  exit(2); } } while (0)

// A 32-bit hash of a voxel index and a seed (fixed-seed noise in the probes' volumes).
__host__ __device__ inline uint32_t hash3(uint32_t seed, uint32_t x, uint32_t y, uint32_t z) {
  uint32_t h = seed ^ (x * 0x8da6b343u) ^ (y * 0xd8163841u) ^ (z * 0xcb1ab31fu);
  h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
  return h;
}

// Orthographic camera rotated about y by theta: ray (px, py) is o + (px + .5) u + (py + .5) v + t d, in texel units
// of an N^3 volume; the W x W image covers N x N voxels; theta 0: rays along z, 90: along x.
struct Cam { float3 o, u, v, d; float N; int W; };

static inline Cam makeCam(double thetaDeg, int N, int W) {
  const double th = thetaDeg * M_PI / 180.0, s = sin(th), co = cos(th), pix = (double)N / W, h = 0.5 * N;
  Cam c;
  c.d = make_float3((float)s, 0.f, (float)co);
  c.u = make_float3((float)(co * pix), 0.f, (float)(-s * pix));
  c.v = make_float3(0.f, (float)pix, 0.f);
  c.o = make_float3((float)(h - N * s - h * co), 0.f, (float)(h - N * co + h * s));
  c.N = (float)N; c.W = W;
  return c;
}

// The N^3 uint8 volume at device pointer lin (x fastest) copied into a 3-D array (*arr) and bound to a texture:
// linear filter, normalized-float read, unnormalized coordinates (texel i centred at i + 0.5), clamped.
static inline cudaTextureObject_t volumeTexture(const uint8_t* lin, int N, cudaArray_t* arr) {
  cudaChannelFormatDesc ch = cudaCreateChannelDesc<uint8_t>();
  CK(cudaMalloc3DArray(arr, &ch, make_cudaExtent(N, N, N)));
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(const_cast<uint8_t*>(lin), N, N, N); cp.dstArray = *arr;
  cp.extent = make_cudaExtent(N, N, N); cp.kind = cudaMemcpyDeviceToDevice;
  CK(cudaMemcpy3D(&cp)); CK(cudaDeviceSynchronize());
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = *arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeNormalizedFloat; td.normalizedCoords = 0;
  cudaTextureObject_t tex; CK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  return tex;
}

// Median, least and largest ms of 7 launches after 2 warm-ups (CUDA events).
struct Stat { float med, mn, mx; };
template <class F>
static Stat timeIt(F launch) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 9; ++r) {
    CK(cudaEventRecord(a)); launch(); CK(cudaGetLastError()); CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms);
  }
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
// iso.cu - the isosurface blend mode on the GPU: the first crossing of any iso-value along each ray, refined,
// shaded and written with its depth, exactly as the CPU's iso_march (core/src/cpu_backend.c) does it: the same
// samples (lattice midpoints from the last one at or before t0 to the first one at or past t1, clamped into the
// volume), the same crossing test (iso_crossing), 4 bisection steps and a linear interpolation, the transfer
// function's colour and raw opacity at the iso-value, Phong at the refined point.
//
// Two methods (Wang et al. 2014), chosen per frame by the host (CAVRRayFrame::isoMethod):
//  - standard: one thread per ray marches sample after sample (iso_standard_kernel);
//  - warp marching: three kernels. iso_rays_kernel intersects each ray with the volume and stores it;
//    iso_warp_kernel gives each ray a warp: lane l takes sample base + l, each lane tests the crossing between its
//    sample and lane l - 1's (__shfl_up_sync), __ballot_sync and __ffs find the first one; the next march starts
//    at base + 31 (one sample of overlap, so the pair (base + 30, base + 31) of one march and (base + 31, base + 32)
//    of the next are both tested) and the equality test of lane 0 is made on the first march only (later lane 0 is
//    the previous lane 31, already tested); iso_shade_kernel refines, shades and writes every pixel.
// Empty-space skipping in both: a sample whose macro cell (widened: core/src/iso_cells.c) cannot see a crossing is
// not taken and leaves its successor without a predecessor, which changes nothing; the standard kernel jumps to the
// cell's exit, the warp to the exit of its last lane's cell when no lane's cell can see one.
// Blend mode, shading, skipping and the filter are template parameters (one instantiation per combination).
//
// The slice blend mode (VTK's SLICE_BLEND) lives here too: slice_kernel takes, per ray, the one sample where the ray
// meets the plane (iso_setup<true> finds it) and writes it as an isosurface hit (write_hit), as the CPU's
// slice_sample does.
#include <cfloat>

#include "raycast_frame.cuh"

namespace {

using namespace cavr_gpu;

// A ray in lattice terms: stored texture coordinates of sample j = tc + j dtc (j = 0: the midpoint of the first
// lattice segment the ray touches, as composite), samples jStart..jStop, [jT0, jT1] the part inside the render box
// and in front of opaque geometry, in the same units; dw the world direction.
struct IsoRay {
  float tc[3], jStart;
  float dtc[3], jStop;
  float dw[3], jT0;
  float jT1, jSlice, pad[2]; // jSlice: the slice blend mode's sample (iso_setup<true>)
};

// The ray of pixel (px, py): raycast.cu's setup (double precision, once per ray). false when it misses the box; with
// SLICE also when it does not meet the slice plane inside [t0, t1], else jSlice is where it does (core/src/cpu_backend.c:
// slice_sample; a ray parallel to the plane misses).
template <bool SLICE = false> __device__ bool iso_setup(const Frame &f, int px, int py, IsoRay &r) {
  const CAVRRayFrame &p = f.p;
  // The world ray and its clip to the render box: core/shared/cavr_ray.h, as the CPU's cavr_ray_setup.
  double nearW[3], dirW[3], t0, t1;
  if (!cavr_world_ray(&p, px, py, f.opaque, nearW, dirW, &t0, &t1) || !cavr_box_clip(&p, nearW, dirW, &t0, &t1))
    return false;
  const float st = p.step, ft0 = (float)t0, ft1 = (float)t1;
  const int k0 = (int)floorf(ft0 / st);
  const int kStart = (int)floorf(ft0 / st - 0.5f), kStop = (int)ceilf(ft1 / st - 0.5f);
  const double mAnchor = ((double)k0 + 0.5) * st;
  for (int a = 0; a < 3; ++a) r.dw[a] = (float)dirW[a];
  stored_ray(f, nearW, dirW, mAnchor, st, r.tc, r.dtc);
  r.jStart = (float)(kStart - k0);
  r.jStop = (float)(kStop - k0);
  r.jT0 = (float)((t0 - mAnchor) / st);
  r.jT1 = (float)((t1 - mAnchor) / st);
  r.jSlice = 0.0f;
  r.pad[0] = r.pad[1] = 0.0f;
  if (SLICE) { // core/shared/cavr_ray.h, as the CPU's slice_sample
    double ts;
    if (!cavr_slice_distance(&p, nearW, dirW, &ts) || !(ts >= t0 && ts <= t1)) return false;
    r.jSlice = (float)((ts - mAnchor) / st);
  }
  return true;
}

// Voxel coordinates (original axes) of sample j, unclamped.
__device__ __forceinline__ void iso_voxel(const Frame &f, const IsoRay &r, float j, float v[3]) {
  const float s[3] = {fmaf(j, r.dtc[0], r.tc[0]), fmaf(j, r.dtc[1], r.tc[1]), fmaf(j, r.dtc[2], r.tc[2])};
  const float *m = f.inv;
  for (int b = 0; b < 3; ++b) v[b] = fmaf(m[4 * b], s[0], fmaf(m[4 * b + 1], s[1], fmaf(m[4 * b + 2], s[2], m[4 * b + 3])));
}

// The stored value at sample j (fractional between samples), its position clamped into the volume.
template <bool CUBIC> __device__ __forceinline__ float iso_sample(const Frame &f, const IsoRay &r, float j) {
  const float x = clampf(fmaf(j, r.dtc[0], r.tc[0]), f.lo[0], f.hi[0]);
  const float y = clampf(fmaf(j, r.dtc[1], r.tc[1]), f.lo[1], f.hi[1]);
  const float z = clampf(fmaf(j, r.dtc[2], r.tc[2]), f.lo[2], f.hi[2]);
  return fetch<CUBIC>(f, x, y, z) * f.scale;
}

// Sample j by trilinear interpolation in float of the 8 texels around it (fetch_trilinear_exact): the CPU's
// arithmetic, without the texture unit's 8-bit weights. Used where the crossing test and the refinement must decide
// as the CPU does (trilinear only; the cubic filter keeps its hardware fetches).
__device__ float iso_sample_exact(const Frame &f, const IsoRay &r, float j) {
  const float x = clampf(fmaf(j, r.dtc[0], r.tc[0]), f.lo[0], f.hi[0]);
  const float y = clampf(fmaf(j, r.dtc[1], r.tc[1]), f.lo[1], f.hi[1]);
  const float z = clampf(fmaf(j, r.dtc[2], r.tc[2]), f.lo[2], f.hi[2]);
  return fetch_trilinear_exact(f, x, y, z) * f.scale;
}

// Whether the texture filter's values need the exact re-evaluation: trilinear only (nearest reads the texel itself
// through a point-filtered texture; the cubic filter keeps its hardware fetches).
template <bool CUBIC> __device__ __forceinline__ bool iso_exact(const Frame &f) {
  return !CUBIC && f.p.interpolation == CAVR_INTERPOLATION_TRILINEAR;
}

// The value the crossing test and the refinement use at sample j: exact trilinear, the texel, or the cubic filter.
template <bool CUBIC> __device__ __forceinline__ float iso_sample_decide(const Frame &f, const IsoRay &r, float j) {
  return iso_exact<CUBIC>(f) ? iso_sample_exact(f, r, j) : iso_sample<CUBIC>(f, r, j);
}

// Whether sample j's macro cell can see a crossing (a sample outside the data always can), and in *jExit the j
// where the ray leaves that cell.
__device__ bool iso_cell_active(const Frame &f, const IsoRay &r, float j, float *jExit) {
  const CAVRRayFrame &p = f.p;
  float v[3];
  iso_voxel(f, r, j, v);
  int c[3];
  bool outside = false;
  for (int a = 0; a < 3; ++a) {
    outside = outside || !(v[a] >= 0.0f && v[a] <= p.maxCoord[a]);
    const int ci = (int)(fmaxf(v[a], 0.0f) * (1.0f / kCell));
    c[a] = ci < p.cells[a] ? ci : p.cells[a] - 1;
  }
  if (outside) {
    *jExit = j;
    return true;
  }
  if (cell_visible(f, c[0], c[1], c[2])) {
    *jExit = j;
    return true;
  }
  const float *m = f.inv;
  float e = FLT_MAX;
  for (int a = 0; a < 3; ++a) {
    const float dv = m[4 * a] * r.dtc[0] + m[4 * a + 1] * r.dtc[1] + m[4 * a + 2] * r.dtc[2];
    if (dv != 0.0f) e = fminf(e, ((float)((dv > 0.0f ? c[a] + 1 : c[a]) * kCell) - v[a]) / dv);
  }
  *jExit = j + e;
  return false;
}

// Whether sample b meets any iso-value after a (prevValid) or equals one: iso_crossing's test without its
// fractions (no division in the march). slack > 0: whether values within slack of a and b could (a superset, for
// samples from the texture filter whose error is at most slack); slack = 0 is the exact test.
__device__ __forceinline__ bool iso_crosses(const CAVRRayFrame &p, float a, float b, bool prevValid,
                                            float slack = 0.0f) {
  bool hit = false;
  const float lo = fminf(a, b), hi = fmaxf(a, b);
  for (int i = 0; i < p.isoCount; ++i) {
    const float v = p.iso[i];
    hit = hit || fabsf(b - v) <= slack || (prevValid && lo < v + slack && hi >= v - slack);
  }
  return hit;
}

// The march's decision at sample j (value s from the texture filter) after j - 1 (prev, prevValid): a pair that
// could cross is re-evaluated exactly (trilinear in float; nearest and cubic values are used as they are), and the exact values
// decide, so that the GPU finds the crossings the CPU finds. On return *a, *b hold the values to carry on with
// (exact where re-evaluated); n counts the samples taken.
template <bool CUBIC>
__device__ __forceinline__ bool iso_decide(const Frame &f, const IsoRay &r, float j, float s, bool prevValid, float *a,
                                           float *b, unsigned *n) {
  *b = s;
  const bool exact = iso_exact<CUBIC>(f);
  if (!iso_crosses(f.p, *a, s, prevValid, exact ? f.p.isoSlack : 0.0f)) return false;
  if (!exact) return true;
  *b = iso_sample_exact(f, r, j);
  if (prevValid) *a = iso_sample_exact(f, r, j - 1.0f);
  *n += prevValid ? 2 : 1;
  return iso_crosses(f.p, *a, *b, prevValid);
}

// Shading at voxel position v: central differences as the CPU's cavr_world_gradient, then cavr_shade_hit
// (core/shared/cavr_ray.h).
template <bool CUBIC, bool EXACT = false>
__device__ void iso_shade(const Frame &f, const float dw[3], const float v[3], float rgb[3]) {
  const CAVRRayFrame &p = f.p;
  float g[3];
  for (int ax = 0; ax < 3; ++ax) {
    const float lo = fmaxf(v[ax] - 1.0f, 0.0f), hi = fminf(v[ax] + 1.0f, p.maxCoord[ax]);
    float pl[3] = {v[0], v[1], v[2]}, ph[3] = {v[0], v[1], v[2]};
    pl[ax] = lo;
    ph[ax] = hi;
    const float sh = EXACT ? sample_exact(f, ph[0], ph[1], ph[2]) : sample<CUBIC>(f, ph[0], ph[1], ph[2]);
    const float sl = EXACT ? sample_exact(f, pl[0], pl[1], pl[2]) : sample<CUBIC>(f, pl[0], pl[1], pl[2]);
    g[ax] = hi > lo ? (sh - sl) / (hi - lo) : 0.0f;
    g[ax] *= (float)p.invSpacing[ax];
  }
  cavr_shade_hit(&p, g, v, dw, rgb); // core/shared/cavr_ray.h, as the CPU's cavr_shade_hit_sample
}

// Window depth of voxel position v.
__device__ float iso_depth(const Frame &f, const float v[3]) {
  const CAVRRayFrame &p = f.p;
  double w[3];
  for (int b = 0; b < 3; ++b) w[b] = p.origin[b] + (double)v[b] * f.spacing[b];
  double c[2];
  for (int q = 0; q < 2; ++q) c[q] = p.VP[2 + q] * w[0] + p.VP[6 + q] * w[1] + p.VP[10 + q] * w[2] + p.VP[14 + q];
  if (c[1] == 0.0) return 1.0f;
  const double d = 0.5 * c[0] * __drcp_rn(c[1]) + 0.5;
  return (float)(d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d);
}

// Write pixel pix from a single-sample hit at sample j with stored value `value` (an isosurface crossing, a slice
// sample): the transfer function's colour and raw opacity (the raw table: gtable[count..]), Phong at the hit's voxel
// position, premultiplied, and its window depth (hit false, or opacity 0: an empty pixel). Adds the shading's samples
// to *samples. core/src/cpu_backend.c: classify_raw.
template <bool SHADE, bool CUBIC, bool EXACT = false>
__device__ void write_hit(const Frame &f, const float4 *gtable, const IsoRay &r, bool hit, float value, float j,
                          size_t pix, unsigned *samples) {
  const CAVRRayFrame &p = f.p;
  float out[4] = {0.0f, 0.0f, 0.0f, 0.0f}, depth = 1.0f;
  if (hit) {
    int i0;
    float w;
    cavr_tf_index(&p, value, &i0, &w);
    const float4 e0 = gtable[p.count + i0], e1 = gtable[p.count + i0 + 1];
    const float a = e0.w + w * (e1.w - e0.w);
    if (a > 0.0f) {
      float rgb[3] = {e0.x + w * (e1.x - e0.x), e0.y + w * (e1.y - e0.y), e0.z + w * (e1.z - e0.z)};
      float v[3];
      iso_voxel(f, r, j, v);
      if (SHADE) {
        iso_shade<CUBIC, EXACT>(f, r.dw, v, rgb);
        *samples += 6;
      }
      for (int c = 0; c < 3; ++c) out[c] = a * rgb[c];
      out[3] = a;
      depth = iso_depth(f, v);
    }
  }
  write_pixel(f, pix, out, depth);
}

// Refine the crossing found between samples jHit - 1 (prev, prevValid) and jHit (cur), shade it and write the pixel
// (found false: an empty pixel). Adds the samples taken to *samples.
template <bool SHADE, bool CUBIC>
__device__ void iso_finish(const Frame &f, const float4 *gtable, const IsoRay &r, bool found, float jHit, float prev,
                           float cur, bool prevValid, size_t pix, unsigned *samples) {
  const CAVRRayFrame &p = f.p;
  float frac, iso = 0.0f;
  const int hit = found ? cavr_iso_crossing(&p, prev, cur, prevValid, &frac) : -1; // core/shared/cavr_ray.h
  if (hit >= 0) {
    iso = p.iso[hit];
    if (frac < 1.0f) {
      CavrIsoBracket b = {jHit - 1.0f, jHit, prev, cur, iso}; // core/shared/cavr_ray.h, as the CPU's iso_march
      for (int it = 0; it < 4; ++it) {
        const float jm = cavr_iso_bisect_mid(&b);
        cavr_iso_bisect_step(&b, jm, iso_sample_decide<CUBIC>(f, r, jm));
      }
      *samples += 4;
      jHit = cavr_iso_bisect_end(&b);
    }
  }
  write_hit<SHADE, CUBIC>(f, gtable, r, hit >= 0 && jHit <= r.jT1, iso, fmaxf(jHit, r.jT0), pix, samples);
}

// Ray i's pixel: the ray list's i-th, or pixels in 16 x 16 tiles (texture locality), row-major tile order.
__device__ __forceinline__ bool iso_pixel(const Frame &f, unsigned i, int &px, int &py) {
  const CAVRRayFrame &p = f.p;
  if (f.rays) {
    if (i >= f.rayCount) return false;
    const unsigned pix = f.rays[i];
    px = (int)(pix % (unsigned)p.width);
    py = (int)(pix / (unsigned)p.width);
    return true;
  }
  const unsigned tilesX = (p.width + 15) / 16, tile = i >> 8, in = i & 255u;
  px = (int)((tile % tilesX) * 16 + (in & 15u));
  py = (int)((tile / tilesX) * 16 + (in >> 4));
  return px < p.width && py < p.height;
}

__device__ __forceinline__ void add_samples(const Frame &f, unsigned n) {
  unsigned long long s = n;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0 && s) atomicAdd(f.samples, s);
}

// Standard: one thread per ray.
template <bool SHADE, bool SKIP, bool CUBIC>
__global__ void __launch_bounds__(256) iso_standard_kernel(Frame f, const float4 *__restrict__ gtable) {
  int px = 0, py = 0;
  const bool inside = iso_pixel(f, blockIdx.x * blockDim.x + threadIdx.x, px, py);
  IsoRay r;
  const bool ray = inside && iso_setup(f, px, py, r);
  float prev = 0.0f, cur = 0.0f, jHit = 0.0f;
  bool prevValid = false, found = false;
  unsigned n = 0;
  if (ray) {
    float j = r.jStart;
    while (j <= r.jStop) {
      if (SKIP) {
        float jExit;
        if (!iso_cell_active(f, r, j, &jExit)) {
          j = fmaxf(j + 1.0f, ceilf(jExit));
          prevValid = false;
          continue;
        }
      }
      float s;
      ++n;
      if (iso_decide<CUBIC>(f, r, j, iso_sample<CUBIC>(f, r, j), prevValid, &prev, &s, &n)) {
        found = true;
        jHit = j;
        cur = s;
        break;
      }
      prev = s;
      prevValid = true;
      j += 1.0f;
    }
  }
  if (inside) iso_finish<SHADE, CUBIC>(f, gtable, r, ray && found, jHit, prev, cur, prevValid,
                                       (size_t)py * f.p.width + px, &n);
  add_samples(f, n);
}

// Warp marching, kernel 1: ray-box intersection of every ray, stored (a ray that misses: jStart > jStop).
__global__ void __launch_bounds__(256) iso_rays_kernel(Frame f, unsigned count, float4 *__restrict__ rays) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int px = 0, py = 0;
  IsoRay r;
  if (!(iso_pixel(f, i, px, py) && iso_setup(f, px, py, r))) {
    r.jStart = 1.0f;
    r.jStop = 0.0f;
  }
  const float4 *src = reinterpret_cast<const float4 *>(&r);
  for (int q = 0; q < 4; ++q) rays[4 * (size_t)i + q] = src[q];
}

__device__ __forceinline__ IsoRay load_ray(const float4 *rays, unsigned i) {
  IsoRay r;
  float4 *dst = reinterpret_cast<float4 *>(&r);
  for (int q = 0; q < 4; ++q) dst[q] = __ldg(rays + 4 * (size_t)i + q);
  return r;
}

// Warp marching, kernel 2: one warp per ray. hits[i] = (jHit, prev, cur, prevValid) or w = -1 (no crossing).
template <bool SKIP, bool CUBIC>
__global__ void __launch_bounds__(256) iso_warp_kernel(Frame f, unsigned count, const float4 *__restrict__ rays,
                                                       float4 *__restrict__ hits) {
  const unsigned all = 0xffffffffu, lane = threadIdx.x & 31u;
  const unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (i >= count) return; // the whole warp
  const IsoRay r = load_ray(rays, i);
  const CAVRRayFrame &p = f.p;
  float base = r.jStart;
  bool first = true;
  float4 result = make_float4(0.0f, 0.0f, 0.0f, -1.0f);
  unsigned n = 0;
  while (base <= r.jStop) {
    const float j = base + (float)lane;
    bool valid = j <= r.jStop;
    float jExit = j;
    if (SKIP && valid) valid = iso_cell_active(f, r, j, &jExit);
    const float s = valid ? iso_sample<CUBIC>(f, r, j) : 0.0f;
    n += valid;
    const float sPrev = __shfl_up_sync(all, s, 1);
    const bool vPrev = __shfl_up_sync(all, (int)valid, 1) != 0 && lane > 0;
    // Pairs that could cross (within the filter's error; lane 0: equality on the first march only), then each
    // candidate in order, re-evaluated exactly by its lane (iso_decide), until one really crosses.
    const float slack = iso_exact<CUBIC>(f) ? p.isoSlack : 0.0f;
    bool pred;
    if (lane == 0) pred = first && valid && iso_crosses(p, 0.0f, s, false, slack);
    else pred = valid && iso_crosses(p, sPrev, s, vPrev, slack);
    unsigned m = __ballot_sync(all, pred);
    bool done = false;
    while (m) {
      const int L = __ffs(m) - 1;
      m &= m - 1u;
      float a = sPrev, b = s;
      bool hit = false;
      if (lane == (unsigned)L) hit = iso_decide<CUBIC>(f, r, j, s, vPrev, &a, &b, &n);
      if (__shfl_sync(all, (int)hit, L)) {
        const float cur = __shfl_sync(all, b, L), prev = __shfl_sync(all, a, L);
        const bool pv = __shfl_sync(all, (int)vPrev, L) != 0;
        result = make_float4(base + (float)L, prev, cur, pv ? 1.0f : 0.0f);
        done = true;
        break;
      }
    }
    if (done) break;
    float next = base + 31.0f;
    if (SKIP && __ballot_sync(all, valid) == 0) // no lane's cell can see a crossing: leave lane 31's cell
      next = fmaxf(next, ceilf(__shfl_sync(all, jExit, 31)));
    base = next;
    first = false;
  }
  if (lane == 0) hits[i] = result;
  add_samples(f, n);
}

// Warp marching, kernel 3: refine, shade and write every pixel.
template <bool SHADE, bool CUBIC>
__global__ void __launch_bounds__(256) iso_shade_kernel(Frame f, unsigned count, const float4 *__restrict__ rays,
                                                        const float4 *__restrict__ hits,
                                                        const float4 *__restrict__ gtable) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int px = 0, py = 0;
  const bool inside = i < count && iso_pixel(f, i, px, py);
  unsigned n = 0;
  if (inside) {
    const IsoRay r = load_ray(rays, i);
    const float4 h = hits[i];
    iso_finish<SHADE, CUBIC>(f, gtable, r, h.w >= 0.0f, h.x, h.y, h.z, h.w > 0.0f, (size_t)py * f.p.width + px, &n);
  }
  add_samples(f, n);
}

// Slice: one thread per ray, the one sample where it meets the plane (core/src/cpu_backend.c: slice_sample).
template <bool SHADE, bool CUBIC>
__global__ void __launch_bounds__(256) slice_kernel(Frame f, const float4 *__restrict__ gtable) {
  int px = 0, py = 0;
  const bool inside = iso_pixel(f, blockIdx.x * blockDim.x + threadIdx.x, px, py);
  IsoRay r;
  r.jSlice = 0.0f;
  const bool hit = inside && iso_setup<true>(f, px, py, r);
  unsigned n = hit ? 1u : 0u;
  // One sample a pixel: the filter without the texture unit's fixed-point arithmetic (fetch_exact), so that a slice,
  // which shows raw values (no compositing averages them), equals the CPU's; its gradient the same way.
  float s = 0.0f;
  if (hit && f.p.interpolation == CAVR_INTERPOLATION_NEAREST) { // nearest: ties to the lower voxel, in original voxel axes as the CPU
    float v[3];
    iso_voxel(f, r, r.jSlice, v);
    const float tie = CAVR_SLICE_NEAREST_TIE;
    s = sample_exact(f, v[0] - tie, v[1] - tie, v[2] - tie);
  } else if (hit) {
    const float x = clampf(fmaf(r.jSlice, r.dtc[0], r.tc[0]), f.lo[0], f.hi[0]);
    const float y = clampf(fmaf(r.jSlice, r.dtc[1], r.tc[1]), f.lo[1], f.hi[1]);
    const float z = clampf(fmaf(r.jSlice, r.dtc[2], r.tc[2]), f.lo[2], f.hi[2]);
    s = fetch_exact(f, x, y, z) * f.scale;
  }
  if (inside) write_hit<SHADE, CUBIC, true>(f, gtable, r, hit, s, r.jSlice, (size_t)py * f.p.width + px, &n);
  add_samples(f, n);
}

using StandardKernel = void (*)(Frame, const float4 *);
using WarpKernel = void (*)(Frame, unsigned, const float4 *, float4 *);
using ShadeKernel = void (*)(Frame, unsigned, const float4 *, const float4 *, const float4 *);

template <bool CUBIC> StandardKernel pick_standard(bool shade, bool skip) {
  return shade ? (skip ? iso_standard_kernel<true, true, CUBIC> : iso_standard_kernel<true, false, CUBIC>)
               : (skip ? iso_standard_kernel<false, true, CUBIC> : iso_standard_kernel<false, false, CUBIC>);
}

template <bool CUBIC> WarpKernel pick_warp(bool skip) {
  return skip ? iso_warp_kernel<true, CUBIC> : iso_warp_kernel<false, CUBIC>;
}

template <bool CUBIC> ShadeKernel pick_shade(bool shade) {
  return shade ? iso_shade_kernel<true, CUBIC> : iso_shade_kernel<false, CUBIC>;
}

} // namespace

int cavr_iso_launch(CAVRGpuContext *ctx, const Frame &f, const float4 *table, char *msg, size_t msgSize) {
  const CAVRRayFrame &p = f.p;
  const bool cubic = p.interpolation == CAVR_INTERPOLATION_CUBIC, shade = p.shade != 0, skip = p.skip != 0 && f.cells;
  const unsigned count =
      f.rays ? f.rayCount : ((p.width + 15) / 16) * ((p.height + 15) / 16) * 256u; // rays (tile-padded pixels)
  if (count == 0) return 0;
  const unsigned blocks = (count + 255) / 256;
  if (p.blend == CAVR_BLEND_SLICE) {
    StandardKernel k = cubic ? (shade ? slice_kernel<true, true> : slice_kernel<false, true>)
                             : (shade ? slice_kernel<true, false> : slice_kernel<false, false>);
    k<<<blocks, 256, 0, ctx->stream>>>(f, table);
    CAVR_CUDA_CHECK(cudaGetLastError(), "slice_kernel launch");
    return 0;
  }
  if (p.isoMethod != CAVR_ISO_WARP_MARCHING) {
    StandardKernel k = cubic ? pick_standard<true>(shade, skip) : pick_standard<false>(shade, skip);
    k<<<blocks, 256, 0, ctx->stream>>>(f, table);
    CAVR_CUDA_CHECK(cudaGetLastError(), "iso_standard_kernel launch");
    return 0;
  }
  // Warp marching: 4 float4 per ray, then 1 float4 of hit per ray.
  const size_t bytes = (size_t)count * 5 * sizeof(float4);
  if (ctx->isoCap < bytes || !ctx->iso) {
    cudaFree(ctx->iso);
    ctx->iso = nullptr;
    ctx->isoCap = 0;
    CAVR_CUDA_CHECK(cudaMalloc(&ctx->iso, bytes), "cudaMalloc (warp-marching rays)");
    ctx->isoCap = bytes;
  }
  float4 *rays = ctx->iso, *hits = ctx->iso + 4 * (size_t)count;
  iso_rays_kernel<<<blocks, 256, 0, ctx->stream>>>(f, count, rays);
  CAVR_CUDA_CHECK(cudaGetLastError(), "iso_rays_kernel launch");
  const unsigned warpBlocks = (unsigned)(((size_t)count * 32 + 255) / 256);
  WarpKernel w = cubic ? pick_warp<true>(skip) : pick_warp<false>(skip);
  w<<<warpBlocks, 256, 0, ctx->stream>>>(f, count, rays, hits);
  CAVR_CUDA_CHECK(cudaGetLastError(), "iso_warp_kernel launch");
  ShadeKernel s = cubic ? pick_shade<true>(shade) : pick_shade<false>(shade);
  s<<<blocks, 256, 0, ctx->stream>>>(f, count, rays, hits, table);
  CAVR_CUDA_CHECK(cudaGetLastError(), "iso_shade_kernel launch");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// raycast.cu - the ray-casting kernel: one thread per ray, the same sample lattice, opacity correction,
// empty-space skipping and blend modes as the CPU back end (core/src/cpu_backend.c), with hardware
// trilinear filtering from a 3-D texture and the transfer-function table in shared memory (view-dependent thread-block
// shaping, in-place rotation). The launch shape (warp shape, block size, block order, lockstep stepping) comes from the
// view policy in core/ (Sugimoto et al. 2013); the sample position is mapped through the in-place rotation (Misaki
// 2017).
//
// What is inactive costs nothing per sample. The blend mode, shading and empty-space skipping
// are template parameters, one instantiation per combination that can occur, picked once per launch on the host.
// The ray list, the opaque-geometry limit and the rotation only change a ray's setup: its pixel, its far end, and
// the affine map to stored texture coordinates, folded into the ray's start and step. The lattice logic runs per
// ray and per run of macro cells, not per sample: the clipped first and last segments are handled outside the
// loop; in between, a tight loop takes full steps (texture coordinate = start + j * step: no clamps, no lattice
// arithmetic, no branch but early ray termination) over a run of up to kRunCells visible macro cells found by a
// 3-D DDA over the cell grid, and a run of invisible cells is skipped with one jump.
#include <cfloat>
#include <cstdlib>

#include "raycast_frame.cuh"

namespace {

using namespace cavr_gpu;

constexpr int kRunCells = 16; // cells looked ahead per run: bounds the DDA's work past early ray termination (64
                              // measured 1.2-1.4x slower on real data, docs/history/benchmarks-2026-11.md)

// A ray in lattice terms. Segment k covers t in [k step, (k+1) step) (t from the eye) and is sampled at its
// midpoint; j = k - k0 counts segments from the first one the ray touches (k0), in float (exact below 2^24).
// Segments jFull0 (0 or 1) .. jFull1 lie wholly inside the ray's [t0, t1]; segment 0 before them and segment
// jFull1 + 1 after them are clipped (lengths lenFirst, lenLast; 0: none).
struct Lane {
  float tc[3], dtc[3];   // stored texture coordinates of segment 0's midpoint and their change per segment
  float dw[3];           // world direction (shading)
  float jMid;            // average intensity: the depth is taken at the middle of [t0, t1]
  float lenLast;
  float j, jc, jFull1;   // next segment; end of the current run (j < jc: inside it); last full segment
  float A, C[3], jDepth; // composite: opacity, colour, segment of the first contribution
  float best, jBest, sum, total; // maximum/minimum: value and segment; average: value x length, length
  unsigned samples;
};

// Composite one sample of opacity a (already corrected) and colour rgb; jDepth follows j until the first
// contribution.
__device__ __forceinline__ void blend(Lane &r, float j, float a, const float rgb[3]) {
  if (r.A == 0.0f) r.jDepth = j;
  const float wgt = fmaf(-r.A, a, a);
  r.C[0] = fmaf(wgt, rgb[0], r.C[0]);
  r.C[1] = fmaf(wgt, rgb[1], r.C[1]);
  r.C[2] = fmaf(wgt, rgb[2], r.C[2]);
  r.A += wgt;
}

// The gradient work of a composite sample at stored texture coordinates s, as the CPU's cavr_gradient_sample: the
// world gradient by central differences along the original voxel axes (one-sided at the faces); opacity a times the
// gradient-opacity factor (cavr_gradient_opacity) when the frame has one; with shading on, the Phong factor (headlight,
// or cavrSetRenderLights' lights) applied to rgb. The SHADE instantiations run it: shading or gradient opacity on.
// The world gradient at original voxel coordinates v by central differences (one-sided at the faces), as the CPU's
// cavr_world_gradient.
template <bool CUBIC = false>
__device__ __forceinline__ void world_gradient(const Frame &f, const float v[3], float g[3]) {
  const CAVRRayFrame &p = f.p;
  for (int ax = 0; ax < 3; ++ax) {
    float lo = fmaxf(v[ax] - 1.0f, 0.0f), hi = fminf(v[ax] + 1.0f, p.maxCoord[ax]);
    float pl[3] = {v[0], v[1], v[2]}, ph[3] = {v[0], v[1], v[2]};
    pl[ax] = lo;
    ph[ax] = hi;
    g[ax] = hi > lo ? (sample<CUBIC>(f, ph[0], ph[1], ph[2]) - sample<CUBIC>(f, pl[0], pl[1], pl[2])) / (hi - lo) : 0.0f;
    g[ax] *= (float)p.invSpacing[ax];
  }
}

// The original voxel coordinates v of stored texture coordinates s (the inverse of the rotation map, f.inv).
__device__ __forceinline__ void voxel_of(const Frame &f, const float s[3], float v[3]) {
  const float *m = f.inv;
  v[0] = fmaf(m[0], s[0], fmaf(m[1], s[1], fmaf(m[2], s[2], m[3])));
  v[1] = fmaf(m[4], s[0], fmaf(m[5], s[1], fmaf(m[6], s[2], m[7])));
  v[2] = fmaf(m[8], s[0], fmaf(m[9], s[1], fmaf(m[10], s[2], m[11])));
}

// Scattering: the transmittance of light i's secondary ray from original voxel coordinates v (cavr_shadow_ray,
// core/shared/cavr_scatter.h), as the CPU's cavr_shadow: the product of 1 - the table's opacity (times the
// gradient-opacity factor when set) over its samples. T: the composite table in shared memory (entry, difference).
template <bool CUBIC = false>
__device__ __noinline__ float shadow(const Frame &f, const float4 *T, int i, const float v[3], const float dw[3],
                                     unsigned &samples) {
  const CAVRRayFrame &p = f.p;
  CavrShadowRay sr;
  cavr_shadow_ray(&p.scatter, i, v, dw, p.invSpacing, p.step, &sr);
  float tr = 1.0f;
  for (int k = 0; k < sr.n && tr > p.scatter.cutoff; ++k) {
    const float x[3] = {fmaf((float)k, sr.step[0], sr.start[0]), fmaf((float)k, sr.step[1], sr.start[1]),
                        fmaf((float)k, sr.step[2], sr.start[2])};
    const float sv = sample<CUBIC>(f, x[0], x[1], x[2]);
    ++samples;
    int e;
    float w;
    tf_pos(f, fmaf(sv, f.uStored, f.uBias), e, w);
    float a = fmaf(w, T[2 * e + 1].w, T[2 * e].w);
    if (p.goCount) {
      float g[3];
      world_gradient<CUBIC>(f, x, g);
      samples += 6;
      a *= cavr_gradient_opacity(&p, g);
    }
    tr *= 1.0f - a;
  }
  return tr;
}

template <bool CUBIC = false>
__device__ __forceinline__ void shade(const Frame &f, const float4 *T, Lane &r, const float s[3], float rgb[3],
                                      float &a) {
  const CAVRRayFrame &p = f.p;
  float v[3], g[3];
  voxel_of(f, s, v);
  world_gradient<CUBIC>(f, v, g);
  const float a0 = a;
  if (p.goCount) a *= cavr_gradient_opacity(&p, g); // core/shared/cavr_ray.h
  if (p.scatter.on) { // volumetric scattering (core/shared/cavr_scatter.h), as the CPU's cavr_gradient_sample
    if (!(a > 0.0f)) return;
    float tr[8];
    for (int i = 0; i < p.light.count; ++i) tr[i] = shadow<CUBIC>(f, T, i, v, r.dw, r.samples);
    cavr_scatter_sample(&p, g, v, r.dw, a0, tr, rgb);
    return;
  }
  if (p.shade) cavr_shade_gradient(&p, g, r.dw, rgb); // core/shared/cavr_ray.h, as the CPU's cavr_shade_sample
}

// A composite sample's colour (rgb) and opacity, returned, from the 2-D table at stored value `value` and stored
// texture coordinates s, as the CPU's cavr_tf2d_composite_sample: the world gradient (world_gradient), the look-up
// (cavr_tf2d_sample, core/shared/cavr_ray.h) and with shading on the Phong factor from the same gradient (rgb left
// unshaded when the sample is transparent). The SHADE instantiations run it when the frame has a 2-D table.
template <bool CUBIC = false>
__device__ __forceinline__ float sample_2d(const Frame &f, const Lane &r, const float s[3], float value, float rgb[3]) {
  const CAVRRayFrame &p = f.p;
  float v[3], g[3];
  voxel_of(f, s, v);
  world_gradient<CUBIC>(f, v, g);
  const float a = cavr_tf2d_sample(&p, reinterpret_cast<const float *>(f.tf2d), value, g, rgb);
  if (a > 0.0f && p.shade) cavr_shade_gradient(&p, g, r.dw, rgb);
  return a;
}

// Dependent components (cavrSetVolumeComponentData; the COLOR instantiations): the colour of a composite sample at
// stored texture coordinates (x, y, z) from the volume's colour texture (never rotated: the scalar's coordinates),
// classified by cavr_component_rgb (core/shared/cavr_ray.h, the CPU's too) with the table's raw entries for 2
// components.
__device__ __forceinline__ void component_rgb(const Frame &f, float x, float y, float z, float rgb[3]) {
  float c[3] = {0.0f, 0.0f, 0.0f};
  if (f.p.components == 4) {
    const float4 t = tex3D<float4>(f.colorTex, x, y, z);
    c[0] = t.x;
    c[1] = t.y;
    c[2] = t.z;
  } else {
    c[0] = tex3D<float>(f.colorTex, x, y, z);
  }
  cavr_component_rgb(&f.p, f.gtable, c, rgb);
}

// Segment j clipped to length len: sample at the whole segment's midpoint clamped into the volume, opacity
// corrected for len. Off the hot loop: at most two per ray.
template <int BLEND, bool SHADE, bool CUBIC = false, bool COLOR = false>
__device__ __forceinline__ void clipped_segment(const Frame &f, const float4 *T, Lane &r, float j, float len) {
  const CAVRRayFrame &p = f.p;
  float s3[3];
  for (int a = 0; a < 3; ++a) s3[a] = fminf(fmaxf(fmaf(j, r.dtc[a], r.tc[a]), f.lo[a]), f.hi[a]);
  const float s = fetch<CUBIC>(f, s3[0], s3[1], s3[2]) * f.scale;
  ++r.samples;
  if (BLEND != CAVR_BLEND_COMPOSITE) {
    if (BLEND == CAVR_BLEND_MAXIMUM_INTENSITY ? s > r.best : (BLEND == CAVR_BLEND_MINIMUM_INTENSITY ? s < r.best : false)) {
      r.best = s;
      r.jBest = j;
    }
    r.sum += s * len;
    r.total += len;
    return;
  }
  if (SHADE && p.tf2dW) { // the 2-D table (cavrSetTransferFunction2D): the opacity corrected after the look-up
    if (!cavr_tf2d_may_show(&p, reinterpret_cast<const float *>(f.tf2d), s)) return;
    float rgb[3];
    float a = sample_2d<CUBIC>(f, r, s3, s, rgb);
    r.samples += 6;
    if (!(a > 0.0f)) return;
    if (len != p.step && p.correction) a = cavr_clipped_opacity(a, len * p.invStep);
    blend(r, j, a, rgb);
    return;
  }
  int i;
  float w;
  tf_pos(f, fmaf(s, f.uStored, f.uBias), i, w);
  const float4 e = T[2 * i], d = T[2 * i + 1];
  float a = fmaf(w, d.w, e.w);
  if (!(a > 0.0f)) return;
  if (len != p.step && p.correction) a = cavr_clipped_opacity(a, len * p.invStep);
  float rgb[3] = {fmaf(w, d.x, e.x), fmaf(w, d.y, e.y), fmaf(w, d.z, e.z)};
  if (COLOR) component_rgb(f, s3[0], s3[1], s3[2], rgb);
  if (SHADE) {
    shade<CUBIC>(f, T, r, s3, rgb, a);
    r.samples += 6;
  }
  blend(r, j, a, rgb);
}

// Set up the ray of pixel (px, py) and take its clipped first segment; false when it misses the render box.
// Double precision: once per ray.
template <int BLEND, bool SHADE, bool CUBIC = false, bool COLOR = false>
__device__ bool setup(const Frame &f, const float4 *T, int px, int py, Lane &r) {
  const CAVRRayFrame &p = f.p;
  // The world ray and its clip to the render box: core/shared/cavr_ray.h, as the CPU's cavr_ray_setup.
  double nearW[3], dirW[3], t0, t1;
  if (!cavr_world_ray(&p, px, py, f.opaque, nearW, dirW, &t0, &t1) || !cavr_box_clip(&p, nearW, dirW, &t0, &t1))
    return false;
  for (int a = 0; a < 3; ++a) r.dw[a] = (float)dirW[a];
  const float st = p.step, ft0 = (float)t0, ft1 = (float)t1;
  const int k0 = (int)floorf(ft0 / st), kFull0 = (int)ceilf(ft0 / st), kFull1 = (int)floorf(ft1 / st) - 1;
  // Positions in float relative to segment 0's midpoint (double per sample would dominate the loop); the
  // rotation is affine, so it folds into the start and the step of the texture coordinates.
  const double mAnchor = ((double)k0 + 0.5) * st;
  stored_ray(f, nearW, dirW, mAnchor, st, r.tc, r.dtc);
  r.jMid = (float)((double)(0.5f * (ft0 + ft1)) - mAnchor) / st;
  r.jFull1 = (float)(kFull1 - k0);
  {
    const int k = kFull1 + 1;
    const float ts = fmaxf((float)k * st, ft0), te = fminf((float)(k + 1) * st, ft1);
    r.lenLast = ts < te ? te - ts : 0.0f;
  }
  r.A = 0.0f;
  r.C[0] = r.C[1] = r.C[2] = 0.0f;
  r.jDepth = 0.0f;
  r.best = BLEND == CAVR_BLEND_MINIMUM_INTENSITY ? FLT_MAX : -FLT_MAX;
  r.jBest = 0.0f;
  r.sum = r.total = 0.0f;
  r.samples = 0;
  r.j = 0.0f;
  r.jc = 0.0f;
  if (k0 < kFull0) { // the first segment is clipped
    const float ts = fmaxf((float)k0 * st, ft0), te = fminf((float)(k0 + 1) * st, ft1);
    if (!(ts < te)) { // nothing to sample (as the CPU's loop, which stops at the first empty segment)
      r.jFull1 = -2.0f;
      r.lenLast = 0.0f;
      return true;
    }
    clipped_segment<BLEND, SHADE, CUBIC, COLOR>(f, T, r, 0.0f, te - ts);
    r.j = 1.0f;
    r.jc = 1.0f;
  }
  return true;
}

// Window depth of segment j's midpoint (once per ray), from its voxel position: the camera's double-precision
// ray is not kept through the loop (registers).
__device__ __forceinline__ float lane_depth(const Frame &f, const Lane &r, float j) {
  const CAVRRayFrame &p = f.p;
  const float *m = f.inv;
  const float s[3] = {fmaf(j, r.dtc[0], r.tc[0]), fmaf(j, r.dtc[1], r.tc[1]), fmaf(j, r.dtc[2], r.tc[2])};
  double w[3];
  for (int b = 0; b < 3; ++b) {
    const float v = fmaf(m[4 * b], s[0], fmaf(m[4 * b + 1], s[1], fmaf(m[4 * b + 2], s[2], m[4 * b + 3])));
    w[b] = p.origin[b] + (double)v * f.spacing[b];
  }
  double c[2];
  for (int q = 0; q < 2; ++q) c[q] = p.VP[2 + q] * w[0] + p.VP[6 + q] * w[1] + p.VP[10 + q] * w[2] + p.VP[14 + q];
  if (c[1] == 0.0) return 1.0f;
  const double d = 0.5 * c[0] * __drcp_rn(c[1]) + 0.5;
  return (float)(d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d);
}

// Empty-space skipping at full segment r.j: the macro cell of its midpoint and the cells after it along the ray
// (3-D DDA, at most kRunCells, up to the last full segment) while they are equally visible. Visible: sets the
// run end r.jc (the first segment whose midpoint lies past the run) and returns true. Invisible: moves r.j past
// the run and returns false. A midpoint outside the data (rounding at the box) is a run of one segment.
// Voxel coordinates come back from the texture coordinates through f.inv (a signed permutation: exact).
__device__ bool find_run(const Frame &f, Lane &r) {
  const CAVRRayFrame &p = f.p;
  const float *m = f.inv;
  int c[3];
  float jn[3], dj[3]; // segment (j units) where the ray leaves the current cell on each axis; its change per cell
  unsigned neg = 0u; // axes along which the ray runs backwards
  bool outside = false;
  for (int a = 0; a < 3; ++a) {
    const float *row = m + 4 * a;
    const float v0 = fmaf(row[0], r.tc[0], fmaf(row[1], r.tc[1], fmaf(row[2], r.tc[2], row[3])));
    const float dv = row[0] * r.dtc[0] + row[1] * r.dtc[1] + row[2] * r.dtc[2];
    const float v = fmaf(r.j, dv, v0);
    outside = outside || !(v >= 0.0f && v <= p.maxCoord[a]);
    const int ci = (int)(fmaxf(v, 0.0f) * (1.0f / kCell));
    c[a] = ci < p.cells[a] ? ci : p.cells[a] - 1;
    const float idv = __frcp_rn(dv);
    jn[a] = dv == 0.0f ? FLT_MAX : ((float)((dv > 0.0f ? c[a] + 1 : c[a]) * kCell) - v0) * idv;
    dj[a] = dv == 0.0f ? 0.0f : fabsf(kCell * idv);
    neg |= (dv < 0.0f ? 1u : 0u) << a;
  }
  if (outside) {
    r.jc = r.j + 1.0f;
    return true;
  }
  const bool visible = cell_visible(f, c[0], c[1], c[2]);
  float end = fminf(jn[0], fminf(jn[1], jn[2]));
  for (int n = 1; n < kRunCells && end <= r.jFull1; ++n) {
    // Step into the neighbour across the nearest exit face (no run-time array indices: registers only).
    const bool ax = jn[0] <= jn[1] && jn[0] <= jn[2], ay = !ax && jn[1] <= jn[2], az = !ax && !ay;
    const int nx = ax ? c[0] + (neg & 1u ? -1 : 1) : c[0], ny = ay ? c[1] + (neg & 2u ? -1 : 1) : c[1],
              nz = az ? c[2] + (neg & 4u ? -1 : 1) : c[2];
    if ((unsigned)nx >= (unsigned)p.cells[0] || (unsigned)ny >= (unsigned)p.cells[1] ||
        (unsigned)nz >= (unsigned)p.cells[2] || cell_visible(f, nx, ny, nz) != visible)
      break;
    c[0] = nx;
    c[1] = ny;
    c[2] = nz;
    jn[0] += ax ? dj[0] : 0.0f;
    jn[1] += ay ? dj[1] : 0.0f;
    jn[2] += az ? dj[2] : 0.0f;
    end = fminf(jn[0], fminf(jn[1], jn[2]));
  }
  // The first segment whose midpoint lies at or past the run's end.
  const float next = fmaxf(ceilf(fminf(end, r.jFull1 + 2.0f)), r.j + 1.0f);
  if (visible) {
    r.jc = fminf(next, r.jFull1 + 1.0f);
    return true;
  }
  r.j = next;
  return false;
}

// The entry pair (entry, difference to the next) at shared-memory byte address `addr`: two 16-byte loads, one
// address register (the compiler would otherwise rebuild the address from its parts for each).
__device__ __forceinline__ void table_pair(unsigned addr, float4 &e, float4 &d) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%8];\n\t"
               "ld.shared.v4.f32 {%4, %5, %6, %7}, [%8+16];"
               : "=f"(e.x), "=f"(e.y), "=f"(e.z), "=f"(e.w), "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
               : "r"(addr));
}

// Full segments r.j .. jEnd - 1: the hot loop. Returns true when the ray terminated early (composite).
// The next segment's texture fetch is issued before this one is composited (one fetch in flight while the warp
// computes; the one past the run's end is wasted: textures clamp and never fault).
template <int BLEND, bool SHADE, bool CUBIC = false, bool COLOR = false>
__device__ __forceinline__ bool full_segments(const Frame &f, const float4 *__restrict__ T, Lane &r, float jEnd) {
  const CAVRRayFrame &p = f.p;
  const float j0 = r.j;
  const float tx = r.tc[0], ty = r.tc[1], tz = r.tc[2], dx = r.dtc[0], dy = r.dtc[1], dz = r.dtc[2];
  float j = j0;
  bool done = false;
  if (BLEND == CAVR_BLEND_COMPOSITE) {
    float A = r.A, C0 = r.C[0], C1 = r.C[1], C2 = r.C[2];
    float jDepth1 = r.jDepth + 1.0f; // segment of the first contribution + 1 (j has advanced when it is taken)
    const float ert = p.ert, uScale = f.uTex, uBias = f.uBias, top = f.top;
    // Entry i = bits(fl) - 0x4B000000 (tf_pos) at byte 32 i of the table: bits(fl) * 32 + base, modulo 2^32.
    // The shuffle (of the lane's own value) only hides the constant from ptxas, which would add it per sample.
    const unsigned base = __shfl_sync(__activemask(), (unsigned)__cvta_generic_to_shared(T) - (0x4B000000u << 5),
                                      (int)(threadIdx.x & 31u));
    unsigned shaded = 0;
    float s = fetch<CUBIC>(f, fmaf(j, dx, tx), fmaf(j, dy, ty), fmaf(j, dz, tz));
    do {
      const float u = __saturatef(fmaf(s, uScale, uBias)); // tf_pos, with the address in one multiply-add
      const float sHere = s;                                // this segment's value (the 2-D table's column)
      j += 1.0f;
      s = fetch<CUBIC>(f, fmaf(j, dx, tx), fmaf(j, dy, ty), fmaf(j, dz, tz)); // the next segment
      const float fl = __fmaf_rd(u, top, 8388608.0f);
      const float w = fmaf(u, top, 8388608.0f - fl);
      float4 e, d;
      table_pair(__float_as_uint(fl) * 32u + base, e, d);
      float a = fmaf(w, d.w, e.w);
      float rgb[3] = {fmaf(w, d.x, e.x), fmaf(w, d.y, e.y), fmaf(w, d.z, e.z)};
      if (COLOR) {
        if (!(a > 0.0f)) continue;
        const float jj = j - 1.0f;
        component_rgb(f, fmaf(jj, dx, tx), fmaf(jj, dy, ty), fmaf(jj, dz, tz), rgb);
      }
      if (SHADE) {
        const float jj = j - 1.0f;
        const float s3[3] = {fmaf(jj, dx, tx), fmaf(jj, dy, ty), fmaf(jj, dz, tz)};
        if (p.tf2dW) { // the 2-D table (cavrSetTransferFunction2D) in place of the 1-D one
          const float value = sHere * f.scale;
          if (!cavr_tf2d_may_show(&p, reinterpret_cast<const float *>(f.tf2d), value)) continue;
          a = sample_2d<CUBIC>(f, r, s3, value, rgb);
          ++shaded;
          if (!(a > 0.0f)) continue;
        } else {
          if (!(a > 0.0f)) continue;
          shade<CUBIC>(f, T, r, s3, rgb, a);
          ++shaded;
        }
      }
      // A transparent sample (a = 0) adds nothing: no branch. The first contributing one gives the depth.
      jDepth1 = A == 0.0f ? j : jDepth1;
      const float wgt = fmaf(-A, a, a); // (1 - A) a
      C0 = fmaf(wgt, rgb[0], C0);
      C1 = fmaf(wgt, rgb[1], C1);
      C2 = fmaf(wgt, rgb[2], C2);
      A += wgt;
    } while (j < jEnd && A < ert);
    done = !(A < ert);
    r.A = A;
    r.C[0] = C0;
    r.C[1] = C1;
    r.C[2] = C2;
    r.jDepth = jDepth1 - 1.0f;
    r.samples += 6 * shaded;
  } else {
    const float scale = f.scale;
    float best = r.best, jBest = r.jBest, sum = 0.0f;
    do {
      const float s = fetch<CUBIC>(f, fmaf(j, dx, tx), fmaf(j, dy, ty), fmaf(j, dz, tz)) * scale;
      if (BLEND == CAVR_BLEND_AVERAGE_INTENSITY) {
        sum += s;
      } else if (BLEND == CAVR_BLEND_MAXIMUM_INTENSITY ? s > best : s < best) {
        best = s;
        jBest = j;
      }
      j += 1.0f;
    } while (j < jEnd);
    r.best = best;
    r.jBest = jBest;
    if (BLEND == CAVR_BLEND_AVERAGE_INTENSITY) r.sum += sum * p.step;
    r.total += (j - j0) * p.step;
  }
  r.samples += (unsigned)(j - j0);
  r.j = j;
  return done;
}

// Advance the ray by at most `budget` segments (a skipped run counts as one). false when the ray is done.
template <int BLEND, bool SHADE, bool SKIP, bool CUBIC = false, bool COLOR = false>
__device__ __forceinline__ bool march(const Frame &f, const float4 *T, Lane &r, float budget) {
  while (budget > 0.0f) {
    if (r.j >= r.jc) {
      if (r.j > r.jFull1) { // past the full segments: the clipped last one, if any, and done
        if (r.j == r.jFull1 + 1.0f && r.lenLast > 0.0f) clipped_segment<BLEND, SHADE, CUBIC, COLOR>(f, T, r, r.j, r.lenLast);
        return false;
      }
      if (SKIP) {
        if (!find_run(f, r)) {
          budget -= 1.0f;
          continue;
        }
      } else {
        r.jc = r.jFull1 + 1.0f;
      }
    }
    const float end = fminf(r.jc, r.j + budget);
    budget -= end - r.j;
    if (full_segments<BLEND, SHADE, CUBIC, COLOR>(f, T, r, end)) return false;
  }
  return true;
}

// The transfer-function table arrives in global memory (count entries for composite, then count raw entries for
// the other modes). Composite: each block keeps entry i and its difference to entry i + 1, side by side, in shared
// memory, where look-ups do not disturb the texture cache (Sugimoto 2013 and Misaki 2017 do the same); the other
// modes look the table up once per ray, from global memory.
// REG caps the registers per thread (0: no cap) so that more warps fit on an SM; cavr-bench measures the caps.
template <int BLEND, bool SHADE, bool SKIP, int REG, bool CUBIC = false, bool COLOR = false>
__global__ void __launch_bounds__(512) __maxnreg__(REG > 0 ? REG : 255)
    raycast_kernel(Frame f, const float4 *__restrict__ gtable) {
  extern __shared__ float4 table[];
  const CAVRRayFrame &p = f.p;
  if (BLEND == CAVR_BLEND_COMPOSITE) {
    for (int i = threadIdx.x; i < p.count; i += blockDim.x) {
      const float4 e = gtable[i], n = i + 1 < p.count ? gtable[i + 1] : e;
      table[2 * i] = e;
      table[2 * i + 1] = make_float4(n.x - e.x, n.y - e.y, n.z - e.z, n.w - e.w);
    }
    __syncthreads();
  }
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
  Lane r;
  const bool hit = inside && setup<BLEND, SHADE, CUBIC, COLOR>(f, table, px, py, r);
  if (p.syncPropagation) {
    // Synchronous ray propagation: the block's rays advance one segment per step together.
    bool active = hit && (BLEND != CAVR_BLEND_COMPOSITE || r.A < p.ert);
    while (__syncthreads_or(active))
      if (active) active = march<BLEND, SHADE, SKIP, CUBIC, COLOR>(f, table, r, 1.0f);
  } else if (hit && (BLEND != CAVR_BLEND_COMPOSITE || r.A < p.ert)) {
    march<BLEND, SHADE, SKIP, CUBIC, COLOR>(f, table, r, FLT_MAX);
  }
  unsigned long long n = hit ? r.samples : 0ull;
  for (int o = 16; o > 0; o >>= 1) n += __shfl_down_sync(0xffffffffu, n, o);
  if (lane == 0 && n) atomicAdd(f.samples, n);
  if (!inside) return;
  float out[4] = {0.0f, 0.0f, 0.0f, 0.0f}, depth = 1.0f;
  if (hit && BLEND == CAVR_BLEND_COMPOSITE) {
    out[0] = r.C[0];
    out[1] = r.C[1];
    out[2] = r.C[2];
    out[3] = r.A;
    if (r.A > 0.0f) depth = lane_depth(f, r, r.jDepth);
  } else if (hit && r.total > 0.0f) {
    float s = BLEND == CAVR_BLEND_AVERAGE_INTENSITY ? r.sum / r.total : r.best;
    int i0;
    float w;
    cavr_tf_index(&p, s, &i0, &w);
    // Maximum/minimum/average use the table's opacity as given: the renderer passes the raw table here.
    const float4 e0 = gtable[p.count + i0], e1 = gtable[p.count + i0 + 1];
    float a = e0.w + w * (e1.w - e0.w);
    out[0] = a * (e0.x + w * (e1.x - e0.x));
    out[1] = a * (e0.y + w * (e1.y - e0.y));
    out[2] = a * (e0.z + w * (e1.z - e0.z));
    out[3] = a;
    if (a > 0.0f) depth = lane_depth(f, r, BLEND == CAVR_BLEND_AVERAGE_INTENSITY ? r.jMid : r.jBest);
  }
  write_pixel(f, (size_t)py * p.width + px, out, depth);
}

using Kernel = void (*)(Frame, const float4 *);

// The instantiation for a frame: blend mode, shading and skipping as the frame constants allow them (shading and
// skipping only composite; core/src/frame_constants.c).
// Composite with dependent components (cavrSetVolumeComponentData): the COLOR instantiations, built with the default
// register cap only.
template <bool CUBIC> Kernel pick_color_kernel(bool shade, bool skip) {
  constexpr int C = CAVR_BLEND_COMPOSITE;
  return shade ? (skip ? raycast_kernel<C, true, true, 64, CUBIC, true> : raycast_kernel<C, true, false, 64, CUBIC, true>)
               : (skip ? raycast_kernel<C, false, true, 64, CUBIC, true> : raycast_kernel<C, false, false, 64, CUBIC, true>);
}

template <int REG, bool CUBIC> Kernel pick_kernel(int blend, bool shade, bool skip) {
  switch (blend) {
  case CAVR_BLEND_MAXIMUM_INTENSITY: return raycast_kernel<CAVR_BLEND_MAXIMUM_INTENSITY, false, false, REG, CUBIC>;
  case CAVR_BLEND_MINIMUM_INTENSITY: return raycast_kernel<CAVR_BLEND_MINIMUM_INTENSITY, false, false, REG, CUBIC>;
  case CAVR_BLEND_AVERAGE_INTENSITY: return raycast_kernel<CAVR_BLEND_AVERAGE_INTENSITY, false, false, REG, CUBIC>;
  default:
  { // composite
    constexpr int C = CAVR_BLEND_COMPOSITE;
    return shade ? (skip ? raycast_kernel<C, true, true, REG, CUBIC> : raycast_kernel<C, true, false, REG, CUBIC>)
                 : (skip ? raycast_kernel<C, false, true, REG, CUBIC> : raycast_kernel<C, false, false, REG, CUBIC>);
  }
  }
}

// The cubic B-spline filter (Sigg and Hadwiger 2005): the same kernels with 8 trilinear fetches per sample, built
// only with the default register cap.
template <int REG> Kernel pick_kernel(int blend, bool shade, bool skip, bool cubic) {
  return cubic ? pick_kernel<64, true>(blend, shade, skip) : pick_kernel<REG, false>(blend, shade, skip);
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

// The context's device buffers for the frame: the table (uploaded when its stamp changed), the three planes and the
// opaque-depth plane (grown when too small), the macro cells and the ray list (uploaded when their stamps changed), the
// host's opaque depth; all queued on the context's stream, the sample counter cleared.
int upload_frame(CAVRGpuContext *ctx, const CAVRGpuFrameJob *job, size_t pixels, size_t tableBytes, char *msg,
                 size_t msgSize) {
  int code;
  {
    const float4 *before = ctx->table;
    if ((code = ensure(&ctx->table, &ctx->tableCap, tableBytes, "cudaMalloc (transfer function)", msg, msgSize))) return code;
    if (ctx->table != before) ctx->tableStamp = 0; // new memory: the table is uploaded again
  }
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
  if (job->cells && (job->cellsStamp != ctx->cellsStamp || ctx->cellsCap < job->cellCount)) {
    if ((code = ensure(&ctx->cells, &ctx->cellsCap, job->cellCount, "cudaMalloc (macro cells)", msg, msgSize))) return code;
    ctx->cellsStamp = 0; /* invalid until the copy is issued */
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->cells, job->cells, job->cellCount, cudaMemcpyHostToDevice, ctx->stream),
                    "cudaMemcpy (macro cells)");
    ctx->cellsStamp = job->cellsStamp;
  }
  const size_t rayBytes = job->rayCount * sizeof(unsigned);
  if (job->rays && !cavr_cuda_two_slots(&ctx->rays, &ctx->raysCap, &ctx->raysStamp, &ctx->rays2, &ctx->raysCap2,
                                        &ctx->raysStamp2, job->raysStamp, rayBytes)) {
    if ((code = ensure(&ctx->rays, &ctx->raysCap, (job->rayCount > 0 ? job->rayCount : 1) * sizeof(unsigned),
                       "cudaMalloc (ray list)", msg, msgSize)))
      return code;
    ctx->raysStamp = 0;
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->rays, job->rays, rayBytes, cudaMemcpyHostToDevice, ctx->stream),
                    "cudaMemcpy (ray list)");
    ctx->raysStamp = job->raysStamp;
  }
  // The table only when it changed (tableStamp: the core's stamp of its contents; 0 always uploads).
  if (job->tableStamp == 0 || job->tableStamp != ctx->tableStamp) {
    ctx->tableStamp = 0; /* invalid until the copy is issued */
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->table, job->table, tableBytes, cudaMemcpyHostToDevice, ctx->stream),
                    "cudaMemcpy (transfer function)");
    ctx->tableStamp = job->tableStamp;
  }
  // The 2-D table likewise (cavrSetTransferFunction2D), when the frame has one.
  if (job->table2d && job->frame.tf2dW > 0) {
    const size_t bytes = sizeof(float4) * (size_t)job->frame.tf2dW * (size_t)(job->frame.tf2dH + 1);
    const float4 *before = ctx->table2d;
    if ((code = ensure(&ctx->table2d, &ctx->table2dCap, bytes, "cudaMalloc (2-D transfer function)", msg, msgSize)))
      return code;
    if (ctx->table2d != before) ctx->table2dStamp = 0;
    if (job->table2dStamp == 0 || job->table2dStamp != ctx->table2dStamp) {
      ctx->table2dStamp = 0;
      CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->table2d, job->table2d, bytes, cudaMemcpyHostToDevice, ctx->stream),
                      "cudaMemcpy (2-D transfer function)");
      ctx->table2dStamp = job->table2dStamp;
    }
  }
  if (job->opaqueDepth && !job->opaqueDepthDevice)
    CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->opaque, job->opaqueDepth, pixels * sizeof(float), cudaMemcpyHostToDevice,
                                    ctx->stream), "cudaMemcpy (opaque depth)");
  CAVR_CUDA_CHECK(cudaMemsetAsync(ctx->samples, 0, sizeof(unsigned long long), ctx->stream), "cudaMemset");
  return 0;
}

// The kernels' view of the frame: the job's description, the texture and value scale, the rotation map to stored
// texture coordinates and its inverse, the volume in stored coordinates, the table mapping, the device planes, and
// the context's launch-shape override (cavr-bench).
void make_frame(const CAVRGpuContext *ctx, const CAVRGpuVolume *vol, const CAVRGpuFrameJob *job, Frame &f) {
  const CAVRRayFrame *p = &job->frame;
  f.p = *p;
  f.tex = p->interpolation == CAVR_INTERPOLATION_NEAREST ? vol->point : vol->linear;
  // Dependent components: the colour texture with the frame's filter (trilinear under the cubic filter).
  f.colorTex = !job->color ? 0 : p->interpolation == CAVR_INTERPOLATION_NEAREST ? job->color->point : job->color->linear;
  f.gtable = reinterpret_cast<const float *>(ctx->table);
  if (!job->color) f.p.components = 1;
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
  f.opaque = job->opaqueDepthDevice ? job->opaqueDepthDevice : job->opaqueDepth ? ctx->opaque : nullptr;
  f.rgba8 = ctx->rgba8;
  f.rgbaf = ctx->rgbaf;
  f.depth = ctx->depth;
  f.samples = ctx->samples;
  f.rays = job->rays ? ctx->rays : nullptr;
  f.rayCount = (unsigned)job->rayCount;
  // The inverse of the rotation map (a signed permutation plus an offset) and the volume in stored coordinates.
  for (int b = 0; b < 3; ++b) {
    f.inv[4 * b + 3] = 0.0f;
    for (int a = 0; a < 3; ++a) {
      f.inv[4 * b + a] = f.rot[4 * a + b];
      f.inv[4 * b + 3] -= f.rot[4 * a + b] * f.rot[4 * a + 3];
    }
  }
  for (int a = 0; a < 3; ++a) {
    f.lo[a] = f.hi[a] = f.rot[4 * a + 3];
    for (int b = 0; b < 3; ++b) {
      const float e = f.rot[4 * a + b] * p->maxCoord[b];
      f.lo[a] += e < 0.0f ? e : 0.0f;
      f.hi[a] += e > 0.0f ? e : 0.0f;
    }
  }
  for (int a = 0; a < 3; ++a) f.spacing[a] = 1.0 / p->invSpacing[a];
  f.top = (float)(p->count - 1);
  f.uStored = p->idxScale / f.top;
  f.uTex = f.scale * f.uStored;
  f.uBias = p->idxBias / f.top;
  f.tf2d = p->tf2dW > 0 ? ctx->table2d : nullptr;
  // Benchmark override of the launch shape (cavr-bench, to compare with reference kernels block for block): the
  // context's CAVR_RAYCAST_BLOCK=WxH[t], warps of 32 consecutive threads in row-major order (min(W, 32) x
  // 32/min(W, 32) pixels), t: transposed block order. W must divide 32 or be a multiple of it.
  if (ctx->config.raycastBlockW > 0 && ctx->config.raycastBlockH > 0) {
    const int bw = ctx->config.raycastBlockW;
    f.p.blockW = bw;
    f.p.blockH = ctx->config.raycastBlockH;
    f.p.warpW = bw < 32 ? bw : 32;
    f.p.warpH = 32 / f.p.warpW;
    f.p.transposed = ctx->config.raycastTransposed != 0;
    f.p.syncPropagation = 0;
  }
}

// Launch the frame's kernels on the context's stream after its start event: iso.cu's for isosurfaces and slices,
// else the raycast_kernel instantiation for the blend mode, shading, skipping and filter, in the frame's launch shape
// (1-D over a ray list).
int launch_frame(CAVRGpuContext *ctx, const Frame &f, size_t tableBytes, char *msg, size_t msgSize) {
  const CAVRRayFrame &q = f.p;
  int threads = q.blockW * q.blockH;
  if (threads % 32 != 0 || threads > 512 || q.blockW % q.warpW != 0 || q.blockH % q.warpH != 0 ||
      q.warpW * q.warpH != 32) {
    std::snprintf(msg, msgSize, "raycast_kernel: invalid block %dx%d with warp %dx%d", q.blockW, q.blockH, q.warpW,
                  q.warpH);
    return 1;
  }
  unsigned gx = (q.width + q.blockW - 1) / q.blockW, gy = (q.height + q.blockH - 1) / q.blockH;
  dim3 grid = q.transposed ? dim3(gy, gx) : dim3(gx, gy);
  if (f.rays) { // 1-D launch over the list; the 2-D block shape no longer applies
    threads = 256;
    grid = dim3((unsigned)((f.rayCount + 255) / 256 > 0 ? (f.rayCount + 255) / 256 : 1), 1);
  }
  // Composite keeps the table and its differences in shared memory; the other modes read it once per ray.
  size_t shared = q.blend == CAVR_BLEND_COMPOSITE ? tableBytes : 0;
  // At most 64 registers per thread is the default (composite uses 48, 56 with skipping; caps of 48, 40 and 32
  // measured slower, docs/history/benchmarks-2026-11.md); the context's raycastUncapped (CAVR_RAYCAST_REGCAP=0) selects
  // the uncapped build, for cavr-bench.
  const bool uncapped = ctx->config.raycastUncapped != 0;
  // The shaded instantiations compute the gradient: for shading, gradient opacity or both.
  const bool skip = q.skip != 0 && f.cells, shade = q.shade != 0 || q.goCount > 0 || q.tf2dW > 0;
  const bool cubic = q.interpolation == CAVR_INTERPOLATION_CUBIC;
  if (q.blend == CAVR_BLEND_ISOSURFACE || q.blend == CAVR_BLEND_SLICE) { // iso.cu: their own kernels
    CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
    return cavr_iso_launch(ctx, f, ctx->table, msg, msgSize);
  }
  Kernel kernel = uncapped ? pick_kernel<0>(q.blend, shade, skip, cubic) : pick_kernel<64>(q.blend, shade, skip, cubic);
  if (q.components > 1 && q.blend == CAVR_BLEND_COMPOSITE)
    kernel = cubic ? pick_color_kernel<true>(shade, skip) : pick_color_kernel<false>(shade, skip);
  // Every frame: the limit is the kernel's, for the whole process (another device on this GPU may have set it).
  CAVR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared),
                  "cudaFuncSetAttribute (raycast_kernel shared memory)");
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->start, ctx->stream), "cudaEventRecord");
  kernel<<<grid, threads, shared, ctx->stream>>>(f, ctx->table);
  CAVR_CUDA_CHECK(cudaGetLastError(), "raycast_kernel launch");
  return 0;
}

} // namespace

extern "C" int cavr_cuda_render(CAVRGpuContext *ctx, CAVRGpuVolume *vol, const CAVRGpuFrameJob *job,
                                CAVRGpuFrameResult *result, char *msg, size_t msgSize) {
  const CAVRRayFrame *p = &job->frame;
  const size_t pixels = (size_t)p->width * p->height;
  int code;
  if ((code = cavr_cuda_copy_resources(ctx, msg, msgSize))) return code;
  // table: count entries for composite (corrected opacity) followed by count raw entries (other modes).
  const size_t tableBytes = sizeof(float4) * 2 * (size_t)p->count;
  if ((code = upload_frame(ctx, job, pixels, tableBytes, msg, msgSize))) return code;
  Frame f;
  make_frame(ctx, vol, job, f);
  if ((code = launch_frame(ctx, f, tableBytes, msg, msgSize))) return code;
  CAVR_CUDA_CHECK(cudaEventRecord(ctx->stop, ctx->stream), "cudaEventRecord");
  // Read-back, queued behind the kernel: the sample count into page-locked memory and only the planes the caller
  // asked for; one synchronisation, after the last copy (it reports a fault of the kernel too).
  CAVR_CUDA_CHECK(cudaMemcpyAsync(ctx->hostScalars, ctx->samples, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                  ctx->stream), "cudaMemcpyAsync (sample count, after raycast_kernel)");
  if ((code = cavr_cuda_queue_copies(ctx, pixels, job->hostRGBA8, job->hostRGBAF, job->hostDepth, "raycast_kernel",
                                     msg, msgSize)))
    return code;
  CAVR_CUDA_CHECK(cudaEventSynchronize(ctx->copied), "raycast_kernel (or the copy back after it)");
  float ms = 0.0f, copyMs = 0.0f;
  cudaEventElapsedTime(&ms, ctx->start, ctx->stop);
  cudaEventElapsedTime(&copyMs, ctx->stop, ctx->copied);
  if (result) {
    result->kernelMs = ms;
    result->transferMs = copyMs;
    result->samples = ctx->hostScalars[0];
  }
  return 0;
}

extern "C" int cavr_cuda_host_register(void *host, size_t bytes, char *msg, size_t msgSize) {
  cudaError_t e = cudaHostRegister(host, bytes, cudaHostRegisterDefault);
  if (e != cudaSuccess) {
    cudaGetLastError(); // not sticky: clear it, or the next launch check would report it
    return cavr_cuda_fail(e, "cudaHostRegister (frame-buffer plane)", msg, msgSize);
  }
  return 0;
}

extern "C" void cavr_cuda_host_unregister(void *host) {
  if (host && cudaHostUnregister(host) != cudaSuccess) cudaGetLastError();
}

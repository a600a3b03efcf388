// SPDX-License-Identifier: BSD-3-Clause
// raycast_frame.cuh - internal to kernels/: what the ray-casting kernels share (raycast.cu: composite, maximum,
// minimum, average; iso.cu: isosurfaces): the per-frame constants, sampling through the in-place rotation, the
// cubic B-spline fetch, transfer-function positions and macro-cell look-ups.
#ifndef CAVR_RAYCAST_FRAME_CUH
#define CAVR_RAYCAST_FRAME_CUH

#include "cuda_util.cuh"
#include "../core/shared/cavr_ray.h" // the arithmetic both back ends share

namespace cavr_gpu {

constexpr int kCell = CAVR_MACROCELL_SIZE; // core/shared/cavr_frame.h

struct Frame {
  CAVRRayFrame p;
  cudaTextureObject_t tex;
  float scale;
  float rot[12];    // stored texture coordinates = rot * (x, y, z, 1): rotation state and the +0.5 texel centre
  double spacing[3]; // world units per voxel (window depth from a sample's voxel position)
  float inv[12];    // its inverse: voxel coordinates = inv * (stored, 1)
  float lo[3], hi[3]; // the volume [0, maxCoord] in stored texture coordinates (clamps of clipped segments)
  float uTex, uStored, uBias; // table position / (count - 1) = texture value * uTex (stored value * uStored) + uBias
  float top;        // count - 1
  const float4 *tf2d; // composite with p.tf2dW > 0: the 2-D table (cavr_tf2d_sample), else NULL
  const unsigned char *cells;
  const float *opaque;
  uchar4 *rgba8;
  float4 *rgbaf;
  float *depth;
  unsigned long long *samples;
  const unsigned *rays;   // compressive rendering: rayCount pixel indices (one thread each), else NULL
  unsigned rayCount;
  cudaTextureObject_t colorTex; // p.components > 1: the colour part (CAVRGpuColor), else 0
  const float *gtable;    // the table in global memory: count x (R, G, B, corrected A) (colour look-ups)
};

__device__ __forceinline__ float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// One axis of the cubic B-spline as two linear fetches (Sigg and Hadwiger 2005): x in texel units (index + 0.5);
// the texel pairs (i-1, i) and (i+1, i+2) fetched at h0, h1 with weights g0, 1 - g0 (core/shared/cavr_ray.h:
// cavr_bspline_axis in texel coordinates).
__device__ __forceinline__ void bspline_axis(float x, float &h0, float &h1, float &g0) {
  cavr_bspline_axis(x - 0.5f, -0.5f, &h0, &h1, &g0);
}

// The 8 fetch positions of the cubic B-spline at stored texture coordinates (x, y, z): per axis h0, h1 with weights
// g0, 1 - g0 (bspline_axis), clamped to the volume (f.lo, f.hi) as the CPU clamps them.
__device__ __forceinline__ void cubic_positions(const Frame &f, float x, float y, float z, float &hx0, float &hx1,
                                                float &gx, float &hy0, float &hy1, float &gy, float &hz0, float &hz1,
                                                float &gz) {
  bspline_axis(x, hx0, hx1, gx);
  bspline_axis(y, hy0, hy1, gy);
  bspline_axis(z, hz0, hz1, gz);
  hx0 = clampf(hx0, f.lo[0], f.hi[0]);
  hx1 = clampf(hx1, f.lo[0], f.hi[0]);
  hy0 = clampf(hy0, f.lo[1], f.hi[1]);
  hy1 = clampf(hy1, f.lo[1], f.hi[1]);
  hz0 = clampf(hz0, f.lo[2], f.hi[2]);
  hz1 = clampf(hz1, f.lo[2], f.hi[2]);
}

// The B-spline from the 8 fetches at cubic_positions' points (a: z plane h0, b: h1; first index x, second y).
__device__ __forceinline__ float cubic_blend(float gx, float gy, float gz, float a00, float a10, float a01, float a11,
                                             float b00, float b10, float b01, float b11) {
  const float a0 = fmaf(gx, a00 - a10, a10), a1 = fmaf(gx, a01 - a11, a11);
  const float b0 = fmaf(gx, b00 - b10, b10), b1 = fmaf(gx, b01 - b11, b11);
  const float a = fmaf(gy, a0 - a1, a1), b = fmaf(gy, b0 - b1, b1);
  return fmaf(gz, a - b, b);
}

// The cubic B-spline of the stored values at stored texture coordinates (x, y, z) from 8 fetches of the linearly
// filtered texture (unscaled: the caller multiplies by the frame's scale). The fetch positions are clamped to the
// volume (f.lo, f.hi) as the CPU clamps them: past a face the B-spline repeats the face's voxels, never the zeros
// of a padded cube.
__device__ __forceinline__ float fetch_cubic(const Frame &f, float x, float y, float z) {
  float hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz;
  cubic_positions(f, x, y, z, hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz);
  const cudaTextureObject_t tex = f.tex;
  const float a00 = tex3D<float>(tex, hx0, hy0, hz0), a10 = tex3D<float>(tex, hx1, hy0, hz0);
  const float a01 = tex3D<float>(tex, hx0, hy1, hz0), a11 = tex3D<float>(tex, hx1, hy1, hz0);
  const float b00 = tex3D<float>(tex, hx0, hy0, hz1), b10 = tex3D<float>(tex, hx1, hy0, hz1);
  const float b01 = tex3D<float>(tex, hx0, hy1, hz1), b11 = tex3D<float>(tex, hx1, hy1, hz1);
  return cubic_blend(gx, gy, gz, a00, a10, a01, a11, b00, b10, b01, b11);
}

// A texture fetch at stored texture coordinates: the texture's own filter, or the cubic B-spline (CUBIC).
template <bool CUBIC> __device__ __forceinline__ float fetch(const Frame &f, float x, float y, float z) {
  return CUBIC ? fetch_cubic(f, x, y, z) : tex3D<float>(f.tex, x, y, z);
}

// Trilinear interpolation in float of the 8 texels around stored texture coordinates (x, y, z), each fetched at its
// centre (where the filter's weights are exactly 0 and 1): the CPU's arithmetic, without the texture unit's 8-bit
// weights (unscaled).
__device__ __forceinline__ float fetch_trilinear_exact(const Frame &f, float x, float y, float z) {
  x -= 0.5f, y -= 0.5f, z -= 0.5f;
  const float ix = floorf(x), iy = floorf(y), iz = floorf(z), fx = x - ix, fy = y - iy, fz = z - iz;
  const float x0 = ix + 0.5f, x1 = ix + 1.5f, y0 = iy + 0.5f, y1 = iy + 1.5f, z0 = iz + 0.5f, z1 = iz + 1.5f;
  const cudaTextureObject_t t = f.tex;
  const float a0 = fmaf(fx, tex3D<float>(t, x1, y0, z0) - tex3D<float>(t, x0, y0, z0), tex3D<float>(t, x0, y0, z0));
  const float a1 = fmaf(fx, tex3D<float>(t, x1, y1, z0) - tex3D<float>(t, x0, y1, z0), tex3D<float>(t, x0, y1, z0));
  const float b0 = fmaf(fx, tex3D<float>(t, x1, y0, z1) - tex3D<float>(t, x0, y0, z1), tex3D<float>(t, x0, y0, z1));
  const float b1 = fmaf(fx, tex3D<float>(t, x1, y1, z1) - tex3D<float>(t, x0, y1, z1), tex3D<float>(t, x0, y1, z1));
  const float a = fmaf(fy, a1 - a0, a0), b = fmaf(fy, b1 - b0, b0);
  return fmaf(fz, b - a, a);
}

// The frame's filter (p.interpolation) without the texture unit's fixed-point arithmetic, at stored texture
// coordinates (unscaled): nearest as the texel floor(x) picked in float and read at its centre (the texture
// unit picks it from a coordinate with 8 fractional bits, which moves voxel edges by up to 1/512), trilinear from 8
// texel centres, the cubic B-spline as fetch_cubic but with those exact trilinear fetches (64 texels). For single
// samples that must equal the CPU's (slices), not for marching.
__device__ inline float fetch_exact(const Frame &f, float x, float y, float z) {
  const int interp = f.p.interpolation;
  if (interp == CAVR_INTERPOLATION_NEAREST) return tex3D<float>(f.tex, floorf(x) + 0.5f, floorf(y) + 0.5f, floorf(z) + 0.5f);
  if (interp == CAVR_INTERPOLATION_TRILINEAR) return fetch_trilinear_exact(f, x, y, z);
  float hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz;
  cubic_positions(f, x, y, z, hx0, hx1, gx, hy0, hy1, gy, hz0, hz1, gz);
  const float a00 = fetch_trilinear_exact(f, hx0, hy0, hz0), a10 = fetch_trilinear_exact(f, hx1, hy0, hz0);
  const float a01 = fetch_trilinear_exact(f, hx0, hy1, hz0), a11 = fetch_trilinear_exact(f, hx1, hy1, hz0);
  const float b00 = fetch_trilinear_exact(f, hx0, hy0, hz1), b10 = fetch_trilinear_exact(f, hx1, hy0, hz1);
  const float b01 = fetch_trilinear_exact(f, hx0, hy1, hz1), b11 = fetch_trilinear_exact(f, hx1, hy1, hz1);
  return cubic_blend(gx, gy, gz, a00, a10, a01, a11, b00, b10, b01, b11);
}



// The stored value at original voxel coordinates (x, y, z), clamped to the volume, through the rotation.
// Branch-free: the rotation is a per-frame affine map (rows of f.rot), and nearest interpolation comes from
// the point-filtered texture object itself (texel floor(x + 0.5) = the nearest voxel). Gradients only.
template <bool CUBIC = false>
__device__ __forceinline__ float sample(const Frame &f, float x, float y, float z) {
  const CAVRRayFrame &p = f.p;
  x = clampf(x, 0.0f, p.maxCoord[0]);
  y = clampf(y, 0.0f, p.maxCoord[1]);
  z = clampf(z, 0.0f, p.maxCoord[2]);
  const float *m = f.rot;
  const float sx = fmaf(m[0], x, fmaf(m[1], y, fmaf(m[2], z, m[3])));
  const float sy = fmaf(m[4], x, fmaf(m[5], y, fmaf(m[6], z, m[7])));
  const float sz = fmaf(m[8], x, fmaf(m[9], y, fmaf(m[10], z, m[11])));
  return fetch<CUBIC>(f, sx, sy, sz) * f.scale;
}

// sample() through fetch_exact (slices: their gradients as the CPU takes them).
__device__ __forceinline__ float sample_exact(const Frame &f, float x, float y, float z) {
  const CAVRRayFrame &p = f.p;
  x = clampf(x, 0.0f, p.maxCoord[0]);
  y = clampf(y, 0.0f, p.maxCoord[1]);
  z = clampf(z, 0.0f, p.maxCoord[2]);
  const float *m = f.rot;
  const float sx = fmaf(m[0], x, fmaf(m[1], y, fmaf(m[2], z, m[3])));
  const float sy = fmaf(m[4], x, fmaf(m[5], y, fmaf(m[6], z, m[7])));
  const float sz = fmaf(m[8], x, fmaf(m[9], y, fmaf(m[10], z, m[11])));
  return fetch_exact(f, sx, sy, sz) * f.scale;
}


// Table position of u = table position / (count - 1), saturated to [0, 1]: entry i, weight w of entry i + 1.
// floor() as a multiply-add rounding down onto 2^23 (FMA pipe), the entry index from its bits.
__device__ __forceinline__ void tf_pos(const Frame &f, float u, int &i, float &w) {
  u = __saturatef(u);
  const float fl = __fmaf_rd(u, f.top, 8388608.0f);
  i = __float_as_int(fl) - 0x4B000000;
  w = fmaf(u, f.top, 8388608.0f - fl);
}

// Store a pixel's premultiplied RGBA, clamped to [0, 1] (float and 8-bit planes), and its window depth: every
// ray-casting kernel's last step (core/shared/cavr_ray.h: cavr_pixel_encode, as the CPU's cavr_write_pixel).
__device__ __forceinline__ void write_pixel(const Frame &f, size_t pix, const float out[4], float depth) {
  float v[4];
  unsigned char b[4];
  cavr_pixel_encode(out, v, b);
  f.rgbaf[pix] = make_float4(v[0], v[1], v[2], v[3]);
  f.rgba8[pix] = make_uchar4(b[0], b[1], b[2], b[3]);
  f.depth[pix] = depth;
}

// A ray in stored texture coordinates: tc at ray distance mAnchor (world units), dtc per step st. Positions in float
// relative to the anchor (double per sample would dominate the loop); the rotation is affine, so it folds into the
// start and the step.
__device__ __forceinline__ void stored_ray(const Frame &f, const double nearW[3], const double dirW[3], double mAnchor,
                                           float st, float tc[3], float dtc[3]) {
  const CAVRRayFrame &p = f.p;
  float of[3], df[3];
  for (int a = 0; a < 3; ++a) {
    const double oa = (nearW[a] - p.origin[a]) * p.invSpacing[a], da = dirW[a] * p.invSpacing[a];
    of[a] = (float)(oa + mAnchor * da);
    df[a] = (float)da;
  }
  const float *m = f.rot;
  for (int a = 0; a < 3; ++a) {
    const float *row = m + 4 * a;
    tc[a] = fmaf(row[0], of[0], fmaf(row[1], of[1], fmaf(row[2], of[2], row[3])));
    dtc[a] = (row[0] * df[0] + row[1] * df[1] + row[2] * df[2]) * st;
  }
}

__device__ __forceinline__ bool cell_visible(const Frame &f, int cx, int cy, int cz) {
  const CAVRRayFrame &p = f.p;
  return __ldg(f.cells + ((size_t)cz * p.cells[1] + cy) * p.cells[0] + cx) != 0;
}

} // namespace cavr_gpu

// The isosurface blend mode (iso.cu), launched by cavr_cuda_render on its stream between its timing events: the
// standard kernel (one thread per ray) or warp marching (Wang et al. 2014: ray set-up, one warp per ray, shading),
// as p.isoMethod says; for CAVR_BLEND_SLICE its slice kernel. Returns 0 or a CAVRError code with msg.
int cavr_iso_launch(CAVRGpuContext *ctx, const cavr_gpu::Frame &f, const float4 *table, char *msg, size_t msgSize);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * The cubic B-spline filter (Sigg and Hadwiger 2005) as the CPU caster evaluates it
 * (cavr_sample_cubic, 8 trilinear samples). The cubic B-spline reproduces polynomials up to degree 1 and maps a
 * quadratic f to f + laplacian(f) / 6 (each axis' B-spline has variance 1/3), so on a quadratic field, at points
 * at least 2 voxels inside (where no clamped voxel is read), it must give exactly that (float rounding), and its
 * central differences the exact gradient; trilinear interpolation must not (the test can fail). Then a cubic
 * render: the image of a linear ramp is the trilinear one (the B-spline reproduces linear fields).
 */
#include "test_util.h"

#include "cpu_raycast.h"

enum { N = 16 };
static float vox[N * N * N];

static double quad(double x, double y, double z) {
  return 0.5 * x * x - 0.3 * y * y + 0.2 * z * z + 0.25 * x * y - 0.1 * y * z + 2.0 * x - 1.0 * z + 5.0;
}

int main(void) {
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) vox[((size_t)z * N + y) * N + x] = (float)quad(x, y, z);
  Prep p;
  memset(&p, 0, sizeof p);
  for (int a = 0; a < 3; ++a) {
    p.dims[a] = N;
    p.f.maxCoord[a] = (float)(N - 1);
  }
  p.sy = N;
  p.sz = (size_t)N * N;
  p.voxels = vox;
  const double lap6 = 2.0 * (0.5 - 0.3 + 0.2) / 6.0;
  double worstCubic = 0.0, worstLinear = 0.0, worstGrad = 0.0;
  unsigned seed = 12345u;
  for (int i = 0; i < 2000; ++i) {
    float c[3];
    for (int a = 0; a < 3; ++a) {
      seed = seed * 1664525u + 1013904223u;
      c[a] = 2.0f + (float)(seed >> 8) / (float)(1u << 24) * (N - 5.0f); /* [2, N - 3] */
    }
    const double want = quad(c[0], c[1], c[2]) + lap6;
    const double got = cavr_sample_cubic(&p, CAVR_STORE_F32, c[0], c[1], c[2]);
    const double lin = cavr_sample(&p, CAVR_STORE_F32, CAVR_INTERPOLATION_TRILINEAR, c[0], c[1], c[2]);
    worstCubic = fmax(worstCubic, fabs(got - want));
    worstLinear = fmax(worstLinear, fabs(lin - quad(c[0], c[1], c[2])));
    /* Central differences of the cubic (h = 1): exact for its quadratic. */
    const double gx = 2 * 0.5 * c[0] + 0.25 * c[1] + 2.0, gy = -2 * 0.3 * c[1] + 0.25 * c[0] - 0.1 * c[2],
                 gz = 2 * 0.2 * c[2] - 0.1 * c[1] - 1.0;
    const double want3[3] = {gx, gy, gz};
    for (int a = 0; a < 3; ++a) {
      float hi[3] = {c[0], c[1], c[2]}, lo[3] = {c[0], c[1], c[2]};
      hi[a] += 1.0f;
      lo[a] -= 1.0f;
      const double d = 0.5 * (cavr_sample_cubic(&p, CAVR_STORE_F32, hi[0], hi[1], hi[2]) -
                              cavr_sample_cubic(&p, CAVR_STORE_F32, lo[0], lo[1], lo[2]));
      worstGrad = fmax(worstGrad, fabs(d - want3[a]));
    }
  }
  printf("quadratic field: cubic error %.2e, its gradient's %.2e, trilinear error %.2e\n", worstCubic, worstGrad,
         worstLinear);
  CHECK(worstCubic < 2e-4);  /* float rounding of values up to ~100 */
  CHECK(worstGrad < 2e-4);
  CHECK(worstLinear > 1e-2); /* trilinear interpolation does not reproduce it */

  /* Render: a linear ramp in x, cubic and trilinear give the same composite image (to rounding). */
  Scene s = scene_new(32, 32);
  static unsigned short ramp[32 * 32 * 32];
  for (int i = 0; i < 32 * 32 * 32; ++i) ramp[i] = (unsigned short)(1000 * (i % 32));
  const int dims[3] = {32, 32, 32};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT16, dims, ramp, sizeof ramp));
  CHECK_OK(cavrCommitVolume(s.vol));
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    t[4 * i] = i / 255.0f;
    t[4 * i + 1] = 1.0f - i / 255.0f;
    t[4 * i + 2] = 0.5f;
    t[4 * i + 3] = 0.05f * i / 255.0f;
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 256, 0, 31000));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double bounds[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 20, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  static float lin[4 * 32 * 32];
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  memcpy(lin, cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F), sizeof lin);
  CHECK_OK(cavrSetRenderInterpolation(s.set, CAVR_INTERPOLATION_CUBIC));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  const double ps = psnr_rgba(lin, (const float *)cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F), 32 * 32);
  printf("linear ramp: cubic vs trilinear image PSNR %.1f dB\n", ps);
  CHECK(ps > 60.0);
  scene_free(&s);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * The slice blend mode (VTK's SLICE_BLEND) on an analytic volume: a linear ramp
 * f(i, j, k) = kA . (i, j, k) + kB (float voxels; trilinear interpolation reproduces it exactly), cut by a tilted plane
 * and seen along -z by an orthographic camera. Each ray meets the plane once; the pixel must be the transfer
 * function of the analytic value there, premultiplied by its raw opacity (the table is linear in the value, so the
 * expected colour is exact), with the window depth of the analytic hit. Stated bounds: colour (RGBA, float) within
 * 1e-4, depth within 1e-6 (0.0002 world units of the 200 deep view); rays that meet the plane outside the volume,
 * outside the crop box or behind opaque geometry give an empty pixel (alpha 0, depth 1); a plane parallel to the rays
 * gives an empty image. Shading (diffuse only) of the constant gradient kA must give intensity |kA.z| / |kA|.
 *
 * Geometry as test_isosurface.c: view = identity, orthographic half size 32, near 0, far 200; pixel (px, py) of a
 * 64 x 64 image looks down from world (px - 31.5, py - 31.5) and window depth = -z / 200. Voxel (i, j, k) of the 64^3
 * volume (spacing 1) is at world (i - 32, j - 32, k - 150).
 */
#include "test_util.h"

enum { N = 64, W = 64 };
static const double kFar = 200.0, kOrigin[3] = {-32.0, -32.0, -150.0};
static const double kA[3] = {0.7, 0.4, 1.1}, kB = 3.0; /* f = kA . voxel + kB: 3 .. 140.1 */
static const double kLo = 0.0, kHi = 150.0;              /* the transfer function's range */
/* The plane: through world (1.5, -2.0, -118.0) (voxel (33.5, 30, 32)), normal (0.25, -0.35, 1) (unnormalised). */
static const double kPO[3] = {1.5, -2.0, -118.0}, kPN[3] = {0.25, -0.35, 1.0};

/* The table: r = u, g = 1 - u, b = 0.5, a = 0.2 + 0.6 u for u = (value - kLo) / (kHi - kLo): linear in the value, so
   its piecewise-linear interpolation is exact. */
static void tf(Scene *sc) {
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    const float u = (float)i / 255.0f;
    t[4 * i] = u;
    t[4 * i + 1] = 1.0f - u;
    t[4 * i + 2] = 0.5f;
    t[4 * i + 3] = 0.2f + 0.6f * u;
  }
  CHECK_OK(cavrSetTransferFunctionTable(sc->tf, t, 256, kLo, kHi));
  CHECK_OK(cavrCommitTransferFunction(sc->tf));
}

static void expected(double value, double out[4]) {
  const double u = (value - kLo) / (kHi - kLo), a = 0.2 + 0.6 * u;
  out[0] = a * u;
  out[1] = a * (1.0 - u);
  out[2] = a * 0.5;
  out[3] = a;
}

/* The analytic hit of pixel (px, py): world z of the plane there and the voxel coordinates of the hit. */
static void hit_of(int px, int py, double *zWorld, double v[3]) {
  const double x = px - 31.5, y = py - 31.5;
  *zWorld = kPO[2] - (kPN[0] * (x - kPO[0]) + kPN[1] * (y - kPO[1])) / kPN[2];
  v[0] = x - kOrigin[0];
  v[1] = y - kOrigin[1];
  v[2] = *zWorld - kOrigin[2];
}

/* Whether voxel position v lies inside [lo, hi] on every axis by more (inside 1) or less (outside 0) than 1e-3
   voxel; -1 on the border, where either is right. */
static int inside_box(const double v[3], const double lo[3], const double hi[3]) {
  int in = 1;
  for (int a = 0; a < 3; ++a) {
    if (v[a] < lo[a] - 1e-3 || v[a] > hi[a] + 1e-3) return 0;
    if (v[a] < lo[a] + 1e-3 || v[a] > hi[a] - 1e-3) in = -1;
  }
  return in;
}

/* Check the image against the analytic slice; `shadeFactor` multiplies the expected colour (1 unshaded); voxels
   outside [lo, hi] and pixels whose hit lies behind world z `zOpaque` must be empty. Returns the pixels checked. */
static int check_slice(Scene *sc, const double lo[3], const double hi[3], double shadeFactor, double zOpaque,
                       double *worstColour, double *worstDepth) {
  const float *depth = (const float *)cavrGetFrameBufferData(sc->fb, CAVR_FB_DEPTH);
  int checked = 0, empty = 0;
  for (int py = 0; py < W; ++py)
    for (int px = 0; px < W; ++px) {
      double z, v[3], e[4];
      hit_of(px, py, &z, v);
      const float *c = pixel(sc, px, py);
      const float d = depth[py * W + px];
      const int in = inside_box(v, lo, hi);
      if (in < 0 || fabs(z - zOpaque) < 1e-3) continue;
      if (!in || z < zOpaque) {
        if (!(c[0] == 0.0f && c[1] == 0.0f && c[2] == 0.0f && c[3] == 0.0f && d == 1.0f)) {
          fprintf(stderr, "pixel (%d,%d): expected empty (voxel %.3f %.3f %.3f), got %g %g %g %g depth %g\n", px, py,
                  v[0], v[1], v[2], c[0], c[1], c[2], c[3], d);
          exit(1);
        }
        ++empty;
        continue;
      }
      expected(kA[0] * v[0] + kA[1] * v[1] + kA[2] * v[2] + kB, e);
      for (int k = 0; k < 3; ++k) e[k] *= shadeFactor;
      double err = 0.0;
      for (int k = 0; k < 4; ++k) err = fmax(err, fabs(c[k] - e[k]));
      const double dErr = fabs(d - (-z / kFar));
      if (err > 1e-4 || dErr > 1e-6) {
        fprintf(stderr, "pixel (%d,%d): colour error %.3g (got %g %g %g %g, expected %g %g %g %g), depth error %.3g\n",
                px, py, err, c[0], c[1], c[2], c[3], e[0], e[1], e[2], e[3], dErr);
        exit(1);
      }
      *worstColour = fmax(*worstColour, err);
      *worstDepth = fmax(*worstDepth, dErr);
      ++checked;
    }
  CHECK(empty > 0 || zOpaque < -1e9);
  return checked;
}

static void render(Scene *sc) {
  CHECK_OK(cavrCommitRenderSettings(sc->set));
  CHECK_OK(cavrRender(sc->fb, sc->vol, sc->tf, sc->cam, sc->set, NULL));
}

int main(void) {
  Scene sc = scene_new(W, W);
  {
    static float vox[N * N * N];
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) vox[((size_t)k * N + j) * N + i] = (float)(kA[0] * i + kA[1] * j + kA[2] * k + kB);
    const int dims[3] = {N, N, N};
    CHECK_OK(cavrSetVolumeData(sc.vol, CAVR_FLOAT32, dims, vox, sizeof vox));
    CHECK_OK(cavrSetVolumeOrigin(sc.vol, kOrigin));
    CHECK_OK(cavrCommitVolume(sc.vol));
  }
  {
    double view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, proj[16] = {0};
    proj[0] = proj[5] = 1.0 / 32.0;
    proj[10] = -2.0 / kFar;
    proj[14] = -1.0;
    proj[15] = 1.0;
    CHECK_OK(cavrSetCameraMatrices(sc.cam, view, proj));
    CHECK_OK(cavrCommitCamera(sc.cam));
  }
  tf(&sc);
  CHECK_OK(cavrSetRenderBlendMode(sc.set, CAVR_BLEND_SLICE));
  CHECK_OK(cavrSetRenderSlicePlane(sc.set, kPO, kPN));
  const double lo[3] = {0, 0, 0}, hi[3] = {N - 1, N - 1, N - 1}, noOpaque = -1e10;
  double worstColour = 0.0, worstDepth = 0.0;

  /* The whole volume, trilinear and nearest (the hit's value is then a voxel's: checked trilinear only), and every
     sample distance (one sample per ray whatever it is). */
  const double distances[3] = {0.5, 0.13, 3.0};
  for (int k = 0; k < 3; ++k) {
    CHECK_OK(cavrSetRenderSampleDistance(sc.set, distances[k]));
    render(&sc);
    const int n = check_slice(&sc, lo, hi, 1.0, noOpaque, &worstColour, &worstDepth);
    CHECK(n > 1500);
    CAVRRenderStats st;
    CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, &st));
    CHECK(st.samples >= (uint64_t)n && st.samples <= (uint64_t)n + 200); /* one a ray (some hits are not checked) */
    printf("sample distance %.2f: %d pixels, %llu samples\n", distances[k], n, (unsigned long long)st.samples);
  }
  CHECK_OK(cavrSetRenderSampleDistance(sc.set, 0.5));

  /* Cropping: a box inside the volume; hits outside it are empty. */
  {
    const double box[6] = {-20.0, 15.5, -25.0, 10.0, -140.0, -100.0}; /* world */
    const double clo[3] = {box[0] - kOrigin[0], box[2] - kOrigin[1], box[4] - kOrigin[2]};
    const double chi[3] = {box[1] - kOrigin[0], box[3] - kOrigin[1], box[5] - kOrigin[2]};
    CHECK_OK(cavrSetRenderCropBox(sc.set, box));
    render(&sc);
    const int n = check_slice(&sc, clo, chi, 1.0, noOpaque, &worstColour, &worstDepth);
    printf("cropped: %d pixels\n", n);
    CHECK(n > 300);
    CHECK_OK(cavrSetRenderCropBox(sc.set, NULL));
  }

  /* Opaque geometry at world z = -118 (window depth 0.59): hits behind it are empty. */
  {
    static float opaque[W * W];
    for (int i = 0; i < W * W; ++i) opaque[i] = 118.0f / (float)kFar;
    CHECK_OK(cavrSetFrameBufferOpaqueDepth(sc.fb, opaque, W * W));
    render(&sc);
    const int n = check_slice(&sc, lo, hi, 1.0, -118.0, &worstColour, &worstDepth);
    printf("opaque geometry: %d pixels in front\n", n);
    CHECK(n > 300);
    CHECK_OK(cavrSetFrameBufferOpaqueDepth(sc.fb, NULL, 0));
  }

  /* Shading, diffuse only: the gradient is kA everywhere, the light along z: intensity |kA.z| / |kA|. */
  {
    CHECK_OK(cavrSetRenderShading(sc.set, 1, 0.0, 1.0, 0.0, 1.0));
    render(&sc);
    const double cosN = kA[2] / sqrt(kA[0] * kA[0] + kA[1] * kA[1] + kA[2] * kA[2]);
    double wc = 0.0, wd = 0.0;
    /* central differences at the faces are one-sided, still exact for a linear field */
    const int n = check_slice(&sc, lo, hi, cosN, noOpaque, &wc, &wd);
    printf("shaded: %d pixels, worst colour error %.3g\n", n, wc);
    CHECK(n > 1500);
    worstColour = fmax(worstColour, wc);
    CHECK_OK(cavrSetRenderShading(sc.set, 0, 0.1, 0.7, 0.2, 10.0));
  }

  /* A plane containing the view direction: every ray runs parallel to it, the image is empty. */
  {
    const double side[3] = {1.0, 0.0, 0.0};
    CHECK_OK(cavrSetRenderSlicePlane(sc.set, kPO, side));
    render(&sc);
    for (int i = 0; i < W * W; ++i) CHECK(pixel(&sc, i % W, i / W)[3] == 0.0f);
    CHECK_OK(cavrSetRenderSlicePlane(sc.set, kPO, kPN));
  }

  /* Nearest interpolation: the value of the voxel nearest the hit. The rays of this camera pass half-way between
     voxels in x and y, so there either neighbour is right: the pixel must match one of the candidates. */
  {
    CHECK_OK(cavrSetRenderInterpolation(sc.set, CAVR_INTERPOLATION_NEAREST));
    render(&sc);
    int n = 0;
    for (int py = 0; py < W; ++py)
      for (int px = 0; px < W; ++px) {
        double z, v[3];
        hit_of(px, py, &z, v);
        if (inside_box(v, lo, hi) != 1) continue;
        const float *c = pixel(&sc, px, py);
        int match = 0;
        for (int m = 0; m < 8 && !match; ++m) {
          double iv[3], e[4], err = 0.0;
          for (int a = 0; a < 3; ++a) {
            const int tie = fabs(v[a] - floor(v[a]) - 0.5) < 1e-3;
            iv[a] = tie ? floor(v[a]) + (m >> a & 1) : floor(v[a] + 0.5);
          }
          expected(kA[0] * iv[0] + kA[1] * iv[1] + kA[2] * iv[2] + kB, e);
          for (int k = 0; k < 4; ++k) err = fmax(err, fabs(c[k] - e[k]));
          match = err <= 1e-4;
        }
        CHECK(match);
        ++n;
      }
    printf("nearest: %d pixels\n", n);
    CHECK(n > 1500);
    CHECK_OK(cavrSetRenderInterpolation(sc.set, CAVR_INTERPOLATION_TRILINEAR));
  }
  printf("worst colour error %.3g (bound 1e-4), worst depth error %.3g (bound 1e-6)\n", worstColour, worstDepth);

  /* Errors. */
  const double nanv[3] = {NAN, 0, 0}, infv[3] = {0, INFINITY, 0}, zero[3] = {0, 0, 0};
  CHECK_ERR(cavrSetRenderSlicePlane(sc.set, NULL, kPN), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSlicePlane(sc.set, kPO, NULL), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSlicePlane(sc.set, nanv, kPN), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSlicePlane(sc.set, kPO, infv), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSlicePlane(sc.set, kPO, zero), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSlicePlane(NULL, kPO, kPN), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderBlendMode(sc.set, (CAVRBlendMode)6), CAVR_ERROR_INVALID_ARGUMENT);
  scene_free(&sc);
  return 0;
}

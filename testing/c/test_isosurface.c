// SPDX-License-Identifier: BSD-3-Clause
/*
 * The isosurface blend mode on analytic volumes with known surfaces: a sphere and a torus
 * (distance fields) and a tilted plane (a linear field), seen along -z by an orthographic camera. For every pixel
 * well inside the surface's silhouette the hit depth must be within 0.05 voxel of the analytic one and the shading
 * angle (diffuse only: intensity = |N.L|) within 2 degrees of the analytic normal's; pixels that miss must be
 * empty. Also: several iso-values (the first crossing wins), opaque geometry in front, empty-space skipping changes
 * no pixel (bit for bit), the cubic filter, and the setters' errors.
 *
 * Geometry: view = identity, orthographic with half size 32 and near 0, far 200, so pixel (px, py) of a 64 x 64
 * image looks down from (px - 31.5, py - 31.5) and window depth = -z / 200. The 64^3 volume (spacing 1) has its
 * voxel (0,0,0) at (-32, -32, -150): voxel (i, j, k) is at world (i - 32, j - 32, k - 150).
 */
#include "test_util.h"

enum { N = 64, W = 64 };
static const double kFar = 200.0, kOrigin[3] = {-32.0, -32.0, -150.0};

typedef enum { SPHERE, TORUS, PLANE } Shape;
static const double kC[3] = {31.3, 32.1, 30.7}; /* centre (voxels) of the sphere and torus */
static const double kR = 20.0, kTorusR = 18.0, kTorusr = 9.0, kPlane[3] = {0.3, 0.5, 0.8};

static double field(Shape s, double x, double y, double z) {
  const double dx = x - kC[0], dy = y - kC[1], dz = z - kC[2];
  switch (s) {
  case SPHERE: return sqrt(dx * dx + dy * dy + dz * dz);
  case TORUS: {
    const double q = sqrt(dx * dx + dy * dy) - kTorusR;
    return sqrt(q * q + dz * dz);
  }
  default: return kPlane[0] * x + kPlane[1] * y + kPlane[2] * z;
  }
}

static double iso_of(Shape s) { return s == SPHERE ? kR : s == TORUS ? kTorusr : kPlane[0] * 32 + kPlane[1] * 32 + kPlane[2] * 40; }

/* Analytic first hit (voxel z) and cos(angle between normal and view) of the ray at voxel (x, y); 0 when it misses
   or meets the surface within `margin` of grazing (cos below it). */
static int analytic(Shape s, double x, double y, double *zHit, double *cosN) {
  const double dx = x - kC[0], dy = y - kC[1], rho = sqrt(dx * dx + dy * dy);
  double h;
  switch (s) {
  case SPHERE:
    if (rho >= kR) return 0;
    h = sqrt(kR * kR - rho * rho);
    *zHit = kC[2] + h;
    *cosN = h / kR;
    break;
  case TORUS:
    if (fabs(rho - kTorusR) >= kTorusr) return 0;
    h = sqrt(kTorusr * kTorusr - (rho - kTorusR) * (rho - kTorusR));
    *zHit = kC[2] + h;
    *cosN = h / kTorusr;
    break;
  default:
    *zHit = (iso_of(PLANE) - kPlane[0] * x - kPlane[1] * y) / kPlane[2];
    *cosN = kPlane[2] / sqrt(kPlane[0] * kPlane[0] + kPlane[1] * kPlane[1] + kPlane[2] * kPlane[2]);
    if (*zHit < 3.0 || *zHit > N - 4.0 || x < 3.0 || x > N - 4.0 || y < 3.0 || y > N - 4.0) return 0; /* cubic: faces */
    break;
  }
  return 1;
}

static void load(Scene *sc, Shape s) {
  static float vox[N * N * N];
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) vox[((size_t)z * N + y) * N + x] = (float)field(s, x, y, z);
  const int dims[3] = {N, N, N};
  CHECK_OK(cavrSetVolumeData(sc->vol, CAVR_FLOAT32, dims, vox, sizeof vox));
  CHECK_OK(cavrSetVolumeOrigin(sc->vol, kOrigin));
  CHECK_OK(cavrCommitVolume(sc->vol));
}

/* Check every pixel against the analytic surface; returns the number of pixels checked. */
static int check_surface(Scene *sc, Shape s) {
  const float *depth = (const float *)cavrGetFrameBufferData(sc->fb, CAVR_FB_DEPTH);
  int checked = 0;
  double worstDepth = 0.0, worstAngle = 0.0;
  for (int py = 0; py < W; ++py)
    for (int px = 0; px < W; ++px) {
      const double x = px - 31.5 - kOrigin[0], y = py - 31.5 - kOrigin[1]; /* voxel coordinates of the ray */
      const float *c = pixel(sc, px, py);
      double zHit, cosN;
      const int hit = analytic(s, x, y, &zHit, &cosN);
      if (!hit) {
        /* Misses by more than a voxel are empty (within a voxel of the silhouette: either). */
        double z2, c2;
        const int nearHit = s == PLANE ? 1 : analytic(s, x + 1.0, y, &z2, &c2) || analytic(s, x - 1.0, y, &z2, &c2) ||
                                                 analytic(s, x, y + 1.0, &z2, &c2) || analytic(s, x, y - 1.0, &z2, &c2);
        if (!nearHit) CHECK(c[3] == 0.0f && depth[py * W + px] == 1.0f);
        continue;
      }
      if (cosN < 0.5) continue; /* near grazing the sample spacing, not the method, sets the error */
      CHECK(c[3] == 1.0f);
      const double zWorld = zHit + kOrigin[2], dist = depth[py * W + px] * kFar;
      const double dErr = fabs(dist - (-zWorld));
      /* diffuse only, white: intensity = |N.L|, so the angle of N to the view comes back as acos(intensity) */
      const double aErr = fabs(acos(fmin(1.0, fmax(c[0], c[1]))) - acos(cosN)) * 180.0 / M_PI;
      if (dErr > worstDepth) worstDepth = dErr;
      if (aErr > worstAngle) worstAngle = aErr;
      if (dErr > 0.05 || aErr > 2.0) {
        fprintf(stderr, "shape %d pixel (%d,%d): depth error %.4f voxel, angle error %.3f degrees\n", (int)s, px, py,
                dErr, aErr);
        exit(1);
      }
      ++checked;
    }
  printf("shape %d: %d pixels, worst depth error %.4f voxel, worst angle error %.3f degrees\n", (int)s, checked,
         worstDepth, worstAngle);
  return checked;
}

static void camera(Scene *sc) {
  double view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, proj[16] = {0};
  proj[0] = proj[5] = 1.0 / 32.0;
  proj[10] = -2.0 / kFar;
  proj[14] = -1.0;
  proj[15] = 1.0;
  CHECK_OK(cavrSetCameraMatrices(sc->cam, view, proj));
  CHECK_OK(cavrCommitCamera(sc->cam));
}

static void copy_image(Scene *sc, float *rgba, float *depth) {
  memcpy(rgba, cavrGetFrameBufferData(sc->fb, CAVR_FB_COLOR_RGBA32F), sizeof(float) * 4 * W * W);
  memcpy(depth, cavrGetFrameBufferData(sc->fb, CAVR_FB_DEPTH), sizeof(float) * W * W);
}

int main(void) {
  Scene sc = scene_new(W, W);
  camera(&sc);
  CHECK_OK(cavrSetRenderBlendMode(sc.set, CAVR_BLEND_ISOSURFACE));
  CHECK_OK(cavrSetRenderShading(sc.set, 1, 0.0, 1.0, 0.0, 1.0)); /* diffuse only */
  CHECK_OK(cavrSetRenderSampleDistance(sc.set, 0.5));
  static float ref[4 * W * W], refDepth[W * W];

  const Shape shapes[3] = {SPHERE, TORUS, PLANE};
  for (int k = 0; k < 3; ++k) {
    const Shape s = shapes[k];
    load(&sc, s);
    tf_constant(sc.tf, 1, 1, 1, 1, 0, 100);
    const double iso = iso_of(s);
    for (int interp = CAVR_INTERPOLATION_TRILINEAR; interp <= CAVR_INTERPOLATION_CUBIC; ++interp) {
      CHECK_OK(cavrSetRenderIsoValues(sc.set, 1, &iso));
      CHECK_OK(cavrSetRenderInterpolation(sc.set, (CAVRInterpolation)interp));
      CHECK_OK(cavrSetRenderEmptySpaceSkipping(sc.set, 1));
      CHECK_OK(cavrCommitRenderSettings(sc.set));
      CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, NULL));
      printf("%s: ", interp == CAVR_INTERPOLATION_CUBIC ? "cubic" : "trilinear");
      CHECK(check_surface(&sc, s) > (s == TORUS ? 500 : 800));
      /* Skipping (on above) changes no pixel. */
      copy_image(&sc, ref, refDepth);
      CHECK_OK(cavrSetRenderEmptySpaceSkipping(sc.set, 0));
      CHECK_OK(cavrCommitRenderSettings(sc.set));
      CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, NULL));
      CHECK(memcmp(ref, cavrGetFrameBufferData(sc.fb, CAVR_FB_COLOR_RGBA32F), sizeof ref) == 0);
      CHECK(memcmp(refDepth, cavrGetFrameBufferData(sc.fb, CAVR_FB_DEPTH), sizeof refDepth) == 0);
    }
  }
  CHECK_OK(cavrSetRenderInterpolation(sc.set, CAVR_INTERPOLATION_TRILINEAR));
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(sc.set, 1));

  /* Two iso-values of the sphere's field: the outer one (20) is met first, coloured by the table there
     (green above 15, red below), whatever the order given. Values that nothing reaches: an empty image. */
  load(&sc, SPHERE);
  {
    float t[4 * 256];
    for (int i = 0; i < 256; ++i) {
      const int green = 40.0 * i / 255.0 > 15.0;
      t[4 * i] = green ? 0.0f : 1.0f;
      t[4 * i + 1] = green ? 1.0f : 0.0f;
      t[4 * i + 2] = 0.0f;
      t[4 * i + 3] = 1.0f;
    }
    CHECK_OK(cavrSetTransferFunctionTable(sc.tf, t, 256, 0.0, 40.0));
    CHECK_OK(cavrCommitTransferFunction(sc.tf));
  }
  const double two[2] = {10.0, 20.0};
  CHECK_OK(cavrSetRenderIsoValues(sc.set, 2, two));
  CHECK_OK(cavrCommitRenderSettings(sc.set));
  CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, NULL));
  CHECK(check_surface(&sc, SPHERE) > 800);
  CHECK(pixel(&sc, 31, 32)[1] > 0.9f && pixel(&sc, 31, 32)[0] == 0.0f);
  const double none[1] = {500.0};
  CHECK_OK(cavrSetRenderIsoValues(sc.set, 1, none));
  CHECK_OK(cavrCommitRenderSettings(sc.set));
  CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, NULL));
  for (int py = 0; py < W; ++py)
    for (int px = 0; px < W; ++px) CHECK(pixel(&sc, px, py)[3] == 0.0f);

  /* Opaque geometry at z = -105 (window depth 0.525): the sphere shows only where it lies in front of it. */
  tf_constant(sc.tf, 1, 1, 1, 1, 0, 100);
  CHECK_OK(cavrSetRenderIsoValues(sc.set, 1, &kR));
  CHECK_OK(cavrCommitRenderSettings(sc.set));
  static float opaque[W * W];
  for (int i = 0; i < W * W; ++i) opaque[i] = 105.0f / (float)kFar;
  CHECK_OK(cavrSetFrameBufferOpaqueDepth(sc.fb, opaque, W * W));
  CHECK_OK(cavrRender(sc.fb, sc.vol, sc.tf, sc.cam, sc.set, NULL));
  int front = 0, hidden = 0;
  for (int py = 0; py < W; ++py)
    for (int px = 0; px < W; ++px) {
      double zHit, cosN;
      if (!analytic(SPHERE, px - 31.5 - kOrigin[0], py - 31.5 - kOrigin[1], &zHit, &cosN) || cosN < 0.5) continue;
      const double zWorld = zHit + kOrigin[2];
      if (zWorld > -104.9) {
        CHECK(pixel(&sc, px, py)[3] == 1.0f);
        ++front;
      } else if (zWorld < -105.1) {
        CHECK(pixel(&sc, px, py)[3] == 0.0f);
        ++hidden;
      }
    }
  CHECK(front > 100 && hidden > 100);
  CHECK_OK(cavrSetFrameBufferOpaqueDepth(sc.fb, NULL, 0));

  /* Errors. */
  const double bad[2] = {NAN, INFINITY}, nine[9] = {0};
  CHECK_ERR(cavrSetRenderIsoValues(sc.set, 0, two), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderIsoValues(sc.set, 9, nine), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderIsoValues(sc.set, 1, NULL), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderIsoValues(sc.set, 1, bad), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderIsoValues(sc.set, 1, bad + 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderIsoMethod(sc.set, (CAVRIsoMethod)3), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSupersampling(sc.set, 3), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderBlendMode(sc.set, (CAVRBlendMode)6), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderInterpolation(sc.set, (CAVRInterpolation)3), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetRenderIsoValues(sc.set, 8, nine));
  CHECK_OK(cavrSetRenderIsoMethod(sc.set, CAVR_ISO_WARP_MARCHING));
  scene_free(&sc);
  return 0;
}

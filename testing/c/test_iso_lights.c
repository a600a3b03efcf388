// SPDX-License-Identifier: BSD-3-Clause
/*
 * The isosurface mode's shading with lights (cavrSetRenderLights): VTK's GPU ray caster's model
 * (core/shared/cavr_lighting.h, cavr_lighting_surface), checked against its formula on an analytic sphere, whose
 * outward normal N is known at every pixel of an orthographic view down -z (eye axes = world axes):
 *  - one camera light from behind the sphere lights its front with |N.L| (two-sided, per light), where the
 *    composite model's normal, flipped to face the viewer, would leave it black;
 *  - in a box of extent 48 x 48 x 24 a camera light from the side shades with the normal E N / |E N|, E =
 *    diag(48, 48, 24) (that caster's texture-to-eye matrix), and not with N;
 *  - one headlight of intensity 1: Ambient x colour + Diffuse x colour x |N.V| with V towards the camera's position.
 * White (or grey) colour, opacity 1, Specular 0; pixels within 0.8 of the sphere's radius, within TOL.
 */
#include "test_util.h"

#define TOL 0.005

static const int W = 64, H = 64;
static const double S = 20.0; /* half height of the view, world units */
static double R = 16.0; /* sphere radius (the iso-value 100 - R) */

/* A float volume of dims nx x ny x nz, spacing 1, value 100 - distance from its centre. */
static void sphere_volume(Scene *s, int nx, int ny, int nz, double c[3]) {
  const int dims[3] = {nx, ny, nz};
  float *v = malloc(sizeof(float) * (size_t)nx * ny * nz);
  CHECK(v);
  c[0] = (nx - 1) / 2.0;
  c[1] = (ny - 1) / 2.0;
  c[2] = (nz - 1) / 2.0;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const double dx = x - c[0], dy = y - c[1], dz = z - c[2];
        v[((size_t)z * ny + y) * nx + x] = (float)(100.0 - sqrt(dx * dx + dy * dy + dz * dz));
      }
  CHECK_OK(cavrSetVolumeData(s->vol, CAVR_FLOAT32, dims, v, sizeof(float) * (size_t)nx * ny * nz));
  CHECK_OK(cavrCommitVolume(s->vol));
  free(v);
  /* Orthographic, looking down -z at the centre from 200 units away. */
  double view[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -c[0], -c[1], -(c[2] + 200.0), 1};
  const double n = 1.0, f = 400.0;
  double proj[16] = {1.0 / S, 0, 0, 0, 0, 1.0 / S, 0, 0, 0, 0, -2.0 / (f - n), 0, 0, 0, -(f + n) / (f - n), 1};
  CHECK_OK(cavrSetCameraMatrices(s->cam, view, proj));
  CHECK_OK(cavrCommitCamera(s->cam));
}

/* Largest error of the red channel over the pixels within 0.8 R, against expect(N, hit, user). */
typedef double (*Expect)(const double N[3], const double hit[3], const void *user);
static double worst_error(const Scene *s, Expect expect, const void *user) {
  double worst = 0.0;
  for (int py = 0; py < H; ++py)
    for (int px = 0; px < W; ++px) {
      const double x = ((px + 0.5) / W * 2.0 - 1.0) * S, y = ((py + 0.5) / H * 2.0 - 1.0) * S;
      if (x * x + y * y > 0.64 * R * R) continue;
      const double N[3] = {x / R, y / R, sqrt(R * R - x * x - y * y) / R};
      const double hit[3] = {x, y, N[2] * R}; /* relative to the centre */
      const double e = fabs(pixel(s, px, py)[0] - expect(N, hit, user));
      worst = e > worst ? e : worst;
    }
  return worst;
}

/* One light (direction towards it: d, unit; intensity I) of the lights model, normal E N / |E N|. */
typedef struct LightCase {
  double d[3], I, E[3];
} LightCase;

static double expect_light(const double N[3], const double hit[3], const void *user) {
  (void)hit;
  const LightCase *c = user;
  double n[3], len = 0.0, nl = 0.0;
  for (int a = 0; a < 3; ++a) {
    n[a] = c->E[a] * N[a];
    len += n[a] * n[a];
  }
  for (int a = 0; a < 3; ++a) nl += n[a] / sqrt(len) * c->d[a];
  return c->I * fabs(nl);
}

typedef struct HeadCase {
  double ka, kd, grey, eye[3];
} HeadCase;

static double expect_head(const double N[3], const double hit[3], const void *user) {
  const HeadCase *c = user;
  double v[3], len = 0.0, nv = 0.0;
  for (int a = 0; a < 3; ++a) {
    v[a] = c->eye[a] - hit[a];
    len += v[a] * v[a];
  }
  for (int a = 0; a < 3; ++a) nv += N[a] * v[a] / sqrt(len);
  return c->grey * (c->ka + c->kd * fabs(nv));
}

static CAVRLight camera_light(double x, double y, double z, double intensity) {
  CAVRLight l = {CAVR_LIGHT_CAMERA, 0, {x, y, z}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, intensity};
  return l;
}

int main(void) {
  Scene s = scene_new(W, H);
  double c[3], iso = 100.0 - R;
  CHECK_OK(cavrSetRenderBlendMode(s.set, CAVR_BLEND_ISOSURFACE));
  CHECK_OK(cavrSetRenderIsoValues(s.set, 1, &iso));
  CHECK_OK(cavrSetRenderSampleDistance(s.set, 0.25));
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.0, 1.0, 0.0, 10.0));
  tf_constant(s.tf, 1, 1, 1, 1, 0.0, 100.0);

  /* A light from behind, in a cube: |N.L|. */
  sphere_volume(&s, 49, 49, 49, c);
  CAVRLight back = camera_light(0.3, 0.0, -1.0, 0.5);
  CHECK_OK(cavrSetRenderLights(s.set, 1, &back, 1));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  const double k = 1.0 / sqrt(1.09);
  LightCase lc = {{0.3 * k, 0.0, -k}, 0.5, {1, 1, 1}};
  double e = worst_error(&s, expect_light, &lc);
  printf("light from behind, cube: worst error %.4f (|N.L| model)\n", e);
  CHECK(e < TOL);
  CHECK(pixel(&s, W / 2, H / 2)[0] > 0.1f); /* lit from behind */

  /* A light from the side, in a 48 x 48 x 24 box (a sphere of radius 10): the caster's normal E N. */
  sphere_volume(&s, 49, 49, 25, c);
  R = 10.0;
  iso = 100.0 - R;
  CHECK_OK(cavrSetRenderIsoValues(s.set, 1, &iso));
  CAVRLight side = camera_light(1.0, 0.0, 1.0, 0.5);
  CHECK_OK(cavrSetRenderLights(s.set, 1, &side, 1));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  const double h = sqrt(0.5);
  LightCase flat = {{h, 0.0, h}, 0.5, {48, 48, 24}}, plain = {{h, 0.0, h}, 0.5, {1, 1, 1}};
  e = worst_error(&s, expect_light, &flat);
  const double ePlain = worst_error(&s, expect_light, &plain);
  printf("light from the side, 48 x 48 x 24 box: worst error %.4f (E N normal), %.4f against N itself\n", e, ePlain);
  CHECK(e < TOL);
  CHECK(ePlain > 10 * TOL);

  /* One headlight of intensity 1, grey, Ambient 0.2: a light at the camera, Ambient x colour. */
  sphere_volume(&s, 49, 49, 49, c);
  R = 16.0;
  iso = 100.0 - R;
  CHECK_OK(cavrSetRenderIsoValues(s.set, 1, &iso));
  tf_constant(s.tf, 0.5f, 0.5f, 0.5f, 1, 0.0, 100.0);
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.2, 0.7, 0.0, 10.0));
  CAVRLight head = {CAVR_LIGHT_HEADLIGHT, 0, {0, 0, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1.0};
  CHECK_OK(cavrSetRenderLights(s.set, 1, &head, 1));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  HeadCase hc = {0.2, 0.7, 0.5, {0.0, 0.0, 200.0}};
  e = worst_error(&s, expect_head, &hc);
  printf("one headlight of intensity 1: worst error %.4f\n", e);
  CHECK(e < TOL);

  scene_free(&s);
  printf("PASS\n");
  return 0;
}

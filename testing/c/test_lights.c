// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavrSetRenderLights (VTK's ray casters' shading model): argument errors; a white headlight of intensity 1 with
 * ambient colour 1 gives the default headlight model's image under an orthographic camera (the two models agree
 * there: L = H = -V, two-sided; PSNR >= 60 dB, float rounding only); the same light given as a camera light at
 * (0,0,1) and as a scene light along the view gives that image bit for bit (the frames: eye -> world); a light
 * of intensity 0 leaves a black volume with the default image's opacity (VTK's no-light case); the light kit
 * changes the image and count 0 restores the default bit for bit.
 */
#include "test_util.h"
#include "../common/lights.h"

static float *grab(Scene *s) {
  size_t n = (size_t)s->w * s->h * 4;
  float *p = malloc(n * sizeof(float));
  CHECK(p);
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  memcpy(p, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), n * sizeof(float));
  return p;
}

static float *with_lights(Scene *s, int count, const CAVRLight *l) {
  CHECK_OK(cavrSetRenderLights(s->set, count, l, 1));
  CHECK_OK(cavrCommitRenderSettings(s->set));
  return grab(s);
}

int main(void) {
  Scene s = scene_new(96, 80);
  scene_load_nrrd(&s, CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr");
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    const double u = i / 255.0;
    t[4 * i] = (float)(0.4 + 0.6 * u);
    t[4 * i + 1] = (float)(0.9 - 0.4 * u);
    t[4 * i + 2] = (float)(0.3 + 0.2 * u);
    t[4 * i + 3] = u < 0.12 ? 0.0f : (float)(0.5 * (u - 0.12) / 0.88);
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 256, 0.0, 4000.0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -60, 35, 10, CAVR_PROJECTION_ORTHOGRAPHIC, (double)s.w / s.h));
  CHECK_OK(cavrCommitCamera(s.cam));

  /* Errors. */
  CAVRLight head = {CAVR_LIGHT_HEADLIGHT, 0, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1.0};
  CAVRLight bad = head;
  CHECK_ERR(cavrSetRenderLights(NULL, 1, &head, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderLights(s.set, -1, &head, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderLights(s.set, CAVR_MAX_LIGHTS + 1, &head, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderLights(s.set, 1, NULL, 1), CAVR_ERROR_INVALID_ARGUMENT);
  bad.kind = (CAVRLightKind)7;
  CHECK_ERR(cavrSetRenderLights(s.set, 1, &bad, 1), CAVR_ERROR_INVALID_ARGUMENT);
  bad = head;
  bad.intensity = -0.5;
  CHECK_ERR(cavrSetRenderLights(s.set, 1, &bad, 1), CAVR_ERROR_INVALID_ARGUMENT);
  bad = head;
  bad.diffuseColor[1] = NAN;
  CHECK_ERR(cavrSetRenderLights(s.set, 1, &bad, 1), CAVR_ERROR_INVALID_ARGUMENT);
  bad = head;
  bad.kind = CAVR_LIGHT_SCENE; /* focal point at the position: no direction */
  CHECK_ERR(cavrSetRenderLights(s.set, 1, &bad, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetRenderLights(s.set, 0, NULL, 1));

  /* The default headlight model. */
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  const size_t px = (size_t)s.w * s.h;
  float *def = grab(&s);
  size_t covered = 0;
  for (size_t i = 0; i < px; ++i) covered += def[4 * i + 3] > 0.05f;
  CHECK(covered > px / 10);

  float *hl = with_lights(&s, 1, &head);
  const double pHead = psnr_rgba(hl, def, px);
  printf("white headlight (lights model) vs the default headlight: %.2f dB\n", pHead);
  CHECK(pHead >= 60.0);

  CAVRLight cam = head;
  cam.kind = CAVR_LIGHT_CAMERA;
  cam.position[2] = 1.0;
  float *cl = with_lights(&s, 1, &cam);
  CHECK(memcmp(cl, hl, px * 4 * sizeof(float)) == 0);

  double origin[3], dir[3];
  CHECK_OK(cavrGetCameraRay(s.cam, s.w, s.h, 0.5 * s.w, 0.5 * s.h, origin, dir));
  CAVRLight scene = head;
  scene.kind = CAVR_LIGHT_SCENE;
  for (int a = 0; a < 3; ++a) scene.position[a] = -dir[a];
  float *sl = with_lights(&s, 1, &scene);
  const double pScene = psnr_rgba(sl, hl, px);
  printf("scene light along the view vs the headlight: %.2f dB\n", pScene);
  CHECK(pScene >= 80.0); /* the world direction is computed two ways: equal to float rounding */

  CAVRLight off = head;
  off.intensity = 0.0;
  float *dark = with_lights(&s, 1, &off);
  for (size_t i = 0; i < px; ++i) {
    CHECK(dark[4 * i] == 0.0f && dark[4 * i + 1] == 0.0f && dark[4 * i + 2] == 0.0f);
    CHECK(fabsf(dark[4 * i + 3] - def[4 * i + 3]) < 1e-6f);
  }

  CAVRLight kit[6];
  const int n = cavr_test_light_kit(kit, 1);
  float *lk = with_lights(&s, n, kit);
  const double pKit = psnr_rgba(lk, def, px);
  printf("light kit + scene light vs the default headlight: %.2f dB (must differ)\n", pKit);
  CHECK(pKit < 40.0);
  float *back = with_lights(&s, 0, NULL);
  CHECK(memcmp(back, def, px * 4 * sizeof(float)) == 0);

  free(def);
  free(hl);
  free(cl);
  free(sl);
  free(dark);
  free(lk);
  free(back);
  scene_free(&s);
  printf("PASS\n");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* lights.h - the lights the shading tests use: ParaView 5.11's default light kit as vtkLightKit makes it (a
   headlight and four camera lights, their directions, colours and intensities as read from a ParaView render
   view), and optionally a warm scene light from +x, above. */
#ifndef CAVR_TEST_LIGHTS_H
#define CAVR_TEST_LIGHTS_H

#include "cavr/cavr.h"

/* Fill out[] (room for 6) and return the count: 5, or 6 with the scene light. */
static inline int cavr_test_light_kit(CAVRLight *out, int withSceneLight) {
  static const struct {
    CAVRLightKind kind;
    double pos[3], color[3], intensity;
  } kit[6] = {{CAVR_LIGHT_HEADLIGHT, {0, 0, 1}, {1, 1, 1}, 0.25},
              {CAVR_LIGHT_CAMERA, {0.112, 0.766, 0.633}, {1.0, 0.972, 0.902}, 0.75},  /* key */
              {CAVR_LIGHT_CAMERA, {-0.045, -0.966, 0.255}, {0.908, 0.933, 1.0}, 0.25}, /* fill */
              {CAVR_LIGHT_CAMERA, {0.94, 0.0, -0.342}, {1, 1, 1}, 0.214},             /* back */
              {CAVR_LIGHT_CAMERA, {-0.94, 0.0, -0.342}, {1, 1, 1}, 0.214},            /* back */
              {CAVR_LIGHT_SCENE, {1.0, 0.3, 0.8}, {1.0, 0.75, 0.5}, 0.6}};
  const int n = withSceneLight ? 6 : 5;
  for (int i = 0; i < n; ++i) {
    CAVRLight l = {kit[i].kind, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, kit[i].intensity};
    for (int a = 0; a < 3; ++a) {
      l.position[a] = kit[i].pos[a];
      l.diffuseColor[a] = l.specularColor[a] = kit[i].color[a];
    }
    out[i] = l;
  }
  return n;
}

#endif /* CAVR_TEST_LIGHTS_H */

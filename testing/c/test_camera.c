// SPDX-License-Identifier: BSD-3-Clause
/* Camera ray generation: orbit helper directions, orthographic and perspective rays, bad matrices. */
#include "test_util.h"

static void check_dir(CAVRCamera cam, double x, double y, double z) {
  double o[3], d[3];
  CHECK_OK(cavrGetCameraRay(cam, 101, 101, 50, 50, o, d)); /* centre pixel */
  CHECK_NEAR(d[0], x, 1e-9);
  CHECK_NEAR(d[1], y, 1e-9);
  CHECK_NEAR(d[2], z, 1e-9);
}

int main(void) {
  Scene s = scene_new(4, 4);
  const double bounds[6] = {0, 10, 0, 20, 0, 30}; /* centre (5,10,15) */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, 0, 0, -1); /* unrotated: looking down -z */
  double o[3], d[3], o2[3], d2[3];
  CHECK_OK(cavrGetCameraRay(s.cam, 101, 101, 50, 50, o, d));
  CHECK_NEAR(o[0], 5.0, 1e-9); /* the centre ray passes through the centre of the bounds */
  CHECK_NEAR(o[1], 10.0, 1e-9);
  CHECK(o[2] > 30.0);
  /* Orthographic: parallel rays; +x in the image is +x in the world, +y is +y. */
  CHECK_OK(cavrGetCameraRay(s.cam, 101, 101, 100, 50, o2, d2));
  CHECK_NEAR(d2[2], -1.0, 1e-12);
  CHECK(o2[0] > o[0] && fabs(o2[1] - o[1]) < 1e-9);
  CHECK_OK(cavrGetCameraRay(s.cam, 101, 101, 50, 100, o2, d2));
  CHECK(o2[1] > o[1]);
  /* The bounding sphere (radius sqrt(5^2+10^2+15^2)) fills the image height. */
  double r = sqrt(25.0 + 100.0 + 225.0);
  CHECK_OK(cavrGetCameraRay(s.cam, 100, 100, -0.5, 49.5, o2, d2)); /* left image edge at centre height */
  CHECK_NEAR(o2[0], 5.0 - r, 1e-6);

  /* Rotations: x first, then y, then z, moving the camera about the centre. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 90, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, -1, 0, 0); /* camera on +x looking down -x */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, -90, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, 0, -1, 0); /* camera above (on +y) looking down -y */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 90, 90, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, 0, 1, 0); /* x: +z -> -y camera position; then y leaves it: looking +y */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 90, 90, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, 0, -1, 0); /* y: +z -> +x; then z: +x -> +y position: looking -y */

  /* Perspective: rays diverge from one eye; the top edge ray is 15 degrees off the axis. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  check_dir(s.cam, 0, 0, -1);
  CHECK_OK(cavrGetCameraRay(s.cam, 100, 100, 49.5, 99.5, o2, d2)); /* top edge, centre column */
  CHECK_NEAR(atan2(d2[1], -d2[2]) * 180.0 / 3.14159265358979, 15.0, 1e-6);
  CHECK_OK(cavrGetCameraRay(s.cam, 100, 100, 49.5, -0.5, o, d));
  CHECK_NEAR(d[1], -d2[1], 1e-12);
  /* Wide image: same vertical field of view; the narrow side decides the distance for tall images. */
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_PERSPECTIVE, 2.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrGetCameraRay(s.cam, 200, 100, 99.5, 99.5, o2, d2));
  CHECK_NEAR(atan2(d2[1], -d2[2]) * 180.0 / 3.14159265358979, 15.0, 1e-6);

  /* Explicit matrices: identity view and projection look along +z in NDC = world. */
  double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  CHECK_OK(cavrSetCameraMatrices(s.cam, I, I));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrGetCameraRay(s.cam, 2, 2, 0, 1, o, d));
  CHECK_NEAR(o[0], -0.5, 1e-12);
  CHECK_NEAR(o[1], 0.5, 1e-12);
  CHECK_NEAR(o[2], -1.0, 1e-12);
  CHECK_NEAR(d[2], 1.0, 1e-12);

  /* Bad input. */
  double Z[16] = {0};
  CHECK_ERR(cavrSetCameraMatrices(s.cam, I, Z), CAVR_ERROR_INVALID_ARGUMENT);
  double N[16] = {NAN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  CHECK_ERR(cavrSetCameraMatrices(s.cam, N, I), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_PERSPECTIVE, 0.0), CAVR_ERROR_INVALID_ARGUMENT);
  const double badBounds[6] = {1, 0, 0, 1, 0, 1};
  CHECK_ERR(cavrSetCameraOrbit(s.cam, badBounds, 0, 0, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, (CAVRProjection)7, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  scene_free(&s);
  return 0;
}

/*
 * View classification for thread-block shaping (Sugimoto 2013, Table 2) and the in-place rotation
 * choice with hysteresis (Misaki 2017, generalised), for known views.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "view_policy.h"
#include "../common/check.h"

static const double one[3] = {1, 1, 1};
static const unsigned ALL = CAVR_SHAPE_DYNAMIC_BLOCK | CAVR_SHAPE_TRANSPOSED | CAVR_SHAPE_MAX_BLOCK |
                            CAVR_SHAPE_SYNC_PROPAGATION;

/* Camera looking down -z, then rotated about y by `ry` and about z (the screen normal) by `roll` deg. */
static void view(double ry, double roll, double dir[3], double right[3], double up[3]) {
  double a = ry * M_PI / 180.0, r = roll * M_PI / 180.0;
  dir[0] = -sin(a); dir[1] = 0; dir[2] = -cos(a);
  double r0[3] = {cos(a), 0, -sin(a)}, u0[3] = {0, 1, 0};
  for (int i = 0; i < 3; ++i) {
    right[i] = cos(r) * r0[i] + sin(r) * u0[i];
    up[i] = -sin(r) * r0[i] + cos(r) * u0[i];
  }
}

int main(void) {
  double d[3], r[3], u[3];
  CAVRViewClass c;
  /* Front view: xy faces the screen, x horizontal: 32x1 warps in 32x8 blocks, z along the rays. */
  view(0, 0, d, r, u);
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.rayAxis == 2 && c.primaryAxis == 0 && fabs(c.screenAngleDeg) < 1e-9);
  CHECK(c.warpW == 32 && c.warpH == 1 && c.blockW == 32 && c.blockH == 8);
  CHECK(!c.transposed && c.syncPropagation);
  /* Without flags: the standard 16x16 block. */
  cavr_classify_view(d, r, u, one, 0, 512, &c);
  CHECK(c.blockW == 16 && c.blockH == 16 && c.warpW == 16 && c.warpH == 2 && !c.transposed && !c.syncPropagation);
  /* Rolling the screen turns x on screen: each 15-degree group picks the next warp shape (Table 2). */
  const int expectW[6] = {32, 16, 8, 4, 2, 1};
  for (int g = 0; g < 6; ++g) {
    view(0, 15.0 * g + 7.0, d, r, u);
    cavr_classify_view(d, r, u, one, ALL, 512, &c);
    CHECK(c.warpW == expectW[g] && c.warpW * c.warpH == 32 && c.blockW * c.blockH == 256);
    CHECK(c.transposed == (g >= 3)); /* primary axis vertical on screen: transposed block order */
  }
  view(0, 90, d, r, u); /* x vertical: 1x32 warps (8x32 blocks), transposed */
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.warpW == 1 && c.warpH == 32 && c.blockW == 8 && c.blockH == 32 && c.transposed);
  /* Side view (theta_y = 90): x along the rays, yz faces the screen, primary axis y (vertical): 512 threads. */
  view(90, 0, d, r, u);
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.rayAxis == 0 && c.primaryAxis == 1 && fabs(c.screenAngleDeg - 90.0) < 1e-9);
  CHECK(c.warpW == 1 && c.warpH == 32 && c.blockW * c.blockH == 512 && c.transposed && !c.syncPropagation);
  /* theta_y = 60: x still more along the rays than z; 30: z is. */
  view(60, 0, d, r, u);
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.rayAxis == 0);
  view(30, 0, d, r, u);
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.rayAxis == 2 && c.primaryAxis == 0 && c.warpW == 32);
  /* Anisotropic spacing changes which axis is "along the rays": 45 degrees with z voxels 2x thicker. */
  const double aniso[3] = {1, 1, 2};
  view(40, 0, d, r, u);
  cavr_classify_view(d, r, u, one, ALL, 512, &c);
  CHECK(c.rayAxis == 2);
  cavr_classify_view(d, r, u, aniso, ALL, 512, &c);
  CHECK(c.rayAxis == 0); /* |d_x| / 1 > |d_z| / 2 */

  /* Rotation: Misaki's range theta_y in [45, 135) and [225, 315). For these views y is exactly in the
     screen plane, so the rotation about z (new x = old y) puts x fully in the screen. */
  int state = CAVR_ROT_NONE;
  for (int deg = 0; deg < 360; ++deg) {
    double a = deg * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)};
    int next = cavr_choose_rotation(dir, CAVR_ROT_NONE, 0.0);
    int unfavourable = (deg > 45 && deg < 135) || (deg > 225 && deg < 315);
    if (deg % 45 != 0) CHECK((next != CAVR_ROT_NONE) == unfavourable); /* exact boundaries: either */
    CHECK(next == CAVR_ROT_NONE || next == CAVR_ROT_Z);
    state = cavr_choose_rotation(dir, state, 5.0);
  }
  /* Hysteresis: oscillating between 44 and 52 degrees rotates once, not every frame. */
  state = CAVR_ROT_NONE;
  int changes = 0;
  for (int i = 0; i < 20; ++i) {
    double deg = (i % 2) ? 52.0 : 44.0, a = deg * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)};
    int next = cavr_choose_rotation(dir, state, 5.0);
    changes += next != state;
    state = next;
  }
  CHECK(changes == 1 && state == CAVR_ROT_Z);
  {
    double a = 41.0 * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)};
    CHECK(cavr_choose_rotation(dir, CAVR_ROT_Z, 5.0) == CAVR_ROT_Z); /* inside the band: stay */
    a = 39.0 * M_PI / 180.0;
    double dir2[3] = {sin(a), 0, cos(a)};
    CHECK(cavr_choose_rotation(dir2, CAVR_ROT_Z, 5.0) == CAVR_ROT_NONE);
  }
  /* Any view direction with x along the rays: rotation about z when z is in the way (x-z plane). */
  double dz[3] = {1.0, 0.1, 0.6};
  CHECK(cavr_choose_rotation(dz, CAVR_ROT_NONE, 5.0) == CAVR_ROT_Z); /* y is in the screen: new x = old y */
  double dy[3] = {1.0, 0.6, 0.1};
  CHECK(cavr_choose_rotation(dy, CAVR_ROT_NONE, 5.0) == CAVR_ROT_Y); /* z is in the screen: new x = old z */
  CHECK(cavr_choose_rotation(dy, CAVR_ROT_Z, 5.0) == CAVR_ROT_Y);    /* clearly better: switch axis */
  double dtie[3] = {1.0, 0.35, 0.3};
  CHECK(cavr_choose_rotation(dtie, CAVR_ROT_Z, 5.0) == CAVR_ROT_Z);  /* nearly equal: keep the axis */
  printf("view policy: ok\n");
  return 0;
}

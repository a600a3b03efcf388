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

  /* Rotation: Misaki's range theta_y in [45, 135) and [225, 315). For an orbit about y the screen's right
     direction lies in the x-z plane, so the turn about y (new x = old z, rays along stored z) is the one that
     puts a warp's row of pixels along stored x. */
  int state = CAVR_ROT_NONE;
  for (int deg = 0; deg < 360; ++deg) {
    double a = deg * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)}, right[3] = {cos(a), 0, -sin(a)};
    int next = cavr_choose_rotation(dir, right, CAVR_ROT_NONE, 0.0);
    int unfavourable = (deg > 45 && deg < 135) || (deg > 225 && deg < 315);
    if (deg % 45 != 0) CHECK((next != CAVR_ROT_NONE) == unfavourable); /* exact boundaries: either */
    CHECK(next == CAVR_ROT_NONE || next == CAVR_ROT_Y);
    /* After the turn the rays run along stored z and the screen's right along stored x. */
    if (next == CAVR_ROT_Y) {
      double ds[3], rs[3];
      cavr_to_stored(dir, next, ds);
      cavr_to_stored(right, next, rs);
      CHECK(fabs(ds[2]) > fabs(ds[0]) && fabs(rs[0]) > fabs(rs[2]));
    }
    state = cavr_choose_rotation(dir, right, state, 5.0);
  }
  /* Hysteresis: oscillating between 44 and 52 degrees rotates once, not every frame. */
  state = CAVR_ROT_NONE;
  int changes = 0;
  for (int i = 0; i < 20; ++i) {
    double deg = (i % 2) ? 52.0 : 44.0, a = deg * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)},
           right[3] = {cos(a), 0, -sin(a)};
    int next = cavr_choose_rotation(dir, right, state, 5.0);
    changes += next != state;
    state = next;
  }
  CHECK(changes == 1 && state == CAVR_ROT_Y);
  {
    double a = 41.0 * M_PI / 180.0, dir[3] = {sin(a), 0, cos(a)}, right[3] = {cos(a), 0, -sin(a)};
    CHECK(cavr_choose_rotation(dir, right, CAVR_ROT_Y, 5.0) == CAVR_ROT_Y); /* inside the band: stay */
    a = 39.0 * M_PI / 180.0;
    double dir2[3] = {sin(a), 0, cos(a)}, right2[3] = {cos(a), 0, -sin(a)};
    CHECK(cavr_choose_rotation(dir2, right2, CAVR_ROT_Y, 5.0) == CAVR_ROT_NONE);
  }
  /* Rays along x with the screen's right along y (an orbit about z): the turn about z (new x = old y). */
  double dx[3] = {1.0, 0.1, 0.2}, ry[3] = {-0.1, 1.0, 0.0}, rz[3] = {0.0, 0.05, 1.0}, rtie[3] = {0.0, 0.8, 0.7};
  CHECK(cavr_choose_rotation(dx, ry, CAVR_ROT_NONE, 5.0) == CAVR_ROT_Z);
  CHECK(cavr_choose_rotation(dx, rz, CAVR_ROT_NONE, 5.0) == CAVR_ROT_Y);
  CHECK(cavr_choose_rotation(dx, rz, CAVR_ROT_Z, 5.0) == CAVR_ROT_Y);      /* clearly better: switch axis */
  CHECK(cavr_choose_rotation(dx, rtie, CAVR_ROT_Z, 5.0) == CAVR_ROT_Z);    /* nearly equal: keep the axis */
  CHECK(cavr_choose_rotation(dx, rtie, CAVR_ROT_Y, 5.0) == CAVR_ROT_Y);
  { /* cavr_to_stored is a rotation: lengths and the right-handedness of (x, y, z) are kept. */
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    for (int rot = 0; rot < 3; ++rot) {
      double X[3], Y[3], Z[3];
      cavr_to_stored(ex, rot, X);
      cavr_to_stored(ey, rot, Y);
      cavr_to_stored(ez, rot, Z);
      double det = X[0] * (Y[1] * Z[2] - Y[2] * Z[1]) - X[1] * (Y[0] * Z[2] - Y[2] * Z[0]) + X[2] * (Y[0] * Z[1] - Y[1] * Z[0]);
      CHECK(fabs(det - 1.0) < 1e-12);
    }
  }
  printf("view policy: ok\n");
  return 0;
}

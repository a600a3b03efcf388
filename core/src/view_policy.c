/*
 * view_policy.c - thread-block shaping (Sugimoto 2013) and in-place rotation choice (Misaki 2017).
 */
#include <math.h>

#include "view_policy.h"

#define CAVR_PI 3.14159265358979323846

void cavr_classify_view(const double dir[3], const double right[3], const double up[3], const double spacing[3],
                        unsigned flags, int maxThreads, CAVRViewClass *out) {
  /* Direction of the rays in index space (per index axis: world component / spacing). */
  double d[3];
  for (int a = 0; a < 3; ++a) d[a] = fabs(dir[a] / spacing[a]);
  int rayAxis = 0;
  for (int a = 1; a < 3; ++a)
    if (d[a] > d[rayAxis]) rayAxis = a;
  /* 2. The primary axis of the facing plane: x, then y, then z. */
  int primary = rayAxis == 0 ? 1 : 0;
  /* 3. Its on-screen direction (the axis is spacing[a] * e_a in the world). */
  double sx = right[primary] * spacing[primary], sy = up[primary] * spacing[primary];
  double angle = atan2(fabs(sy), fabs(sx)) * 180.0 / CAVR_PI;
  static const int shapes[6][2] = {{32, 1}, {16, 2}, {8, 4}, {4, 8}, {2, 16}, {1, 32}};
  int group = (int)(angle / 15.0);
  if (group > 5) group = 5;
  out->rayAxis = rayAxis;
  out->primaryAxis = primary;
  out->screenAngleDeg = angle;
  if (flags & CAVR_SHAPE_DYNAMIC_BLOCK) {
    out->warpW = shapes[group][0];
    out->warpH = shapes[group][1];
  } else {
    out->warpW = 16; /* a 16x16 block's warps are 16x2 */
    out->warpH = 2;
  }
  int threads = (flags & CAVR_SHAPE_MAX_BLOCK) && rayAxis == 0 ? maxThreads : 256;
  int k = threads / 32;
  /* Repeat the warp across the other direction (32x1 warps -> 32x8 blocks, the paper's best). */
  if (!(flags & CAVR_SHAPE_DYNAMIC_BLOCK)) {
    out->blockW = 16;
    out->blockH = threads / 16;
  } else if (out->warpW >= out->warpH) {
    out->blockW = out->warpW;
    out->blockH = out->warpH * k;
  } else {
    out->blockW = out->warpW * k;
    out->blockH = out->warpH;
  }
  out->transposed = (flags & CAVR_SHAPE_TRANSPOSED) && angle >= 45.0;
  out->syncPropagation = (flags & CAVR_SHAPE_SYNC_PROPAGATION) && rayAxis == 2;
}

int cavr_choose_rotation(const double dirIndex[3], const double rightIndex[3], int current, double hysteresisDeg) {
  double ax = fabs(dirIndex[0]), ay = fabs(dirIndex[1]), az = fabs(dirIndex[2]);
  double other = ay > az ? ay : az;
  double angle = atan2(ax, other) * 180.0 / CAVR_PI; /* 45: x as parallel to the rays as another axis */
  /* Which old axis becomes stored x: z under ROT_Y, y under ROT_Z. Pick the one nearest the screen's right
     direction, so a warp's row of pixels (32 threads side by side) walks along stored x, the fastest axis. */
  double ry = fabs(rightIndex[1]), rz = fabs(rightIndex[2]);
  int wanted = rz >= ry ? CAVR_ROT_Y : CAVR_ROT_Z;
  if (current == CAVR_ROT_NONE) return angle > 45.0 + hysteresisDeg ? wanted : CAVR_ROT_NONE;
  if (angle < 45.0 - hysteresisDeg) return CAVR_ROT_NONE;
  /* Stay rotated; change the axis only when the other clearly fits better (same hysteresis). */
  const double t = tan((45.0 + hysteresisDeg) * CAVR_PI / 180.0);
  if (current == CAVR_ROT_Y && ry > rz * t) return CAVR_ROT_Z;
  if (current == CAVR_ROT_Z && rz > ry * t) return CAVR_ROT_Y;
  return current;
}

void cavr_to_stored(const double in[3], int rotation, double out[3]) {
  if (rotation == CAVR_ROT_Y) { /* stored x = -original z, stored z = original x */
    out[0] = -in[2];
    out[1] = in[1];
    out[2] = in[0];
  } else if (rotation == CAVR_ROT_Z) { /* stored x = -original y, stored y = original x */
    out[0] = -in[1];
    out[1] = in[0];
    out[2] = in[2];
  } else {
    out[0] = in[0];
    out[1] = in[1];
    out[2] = in[2];
  }
}

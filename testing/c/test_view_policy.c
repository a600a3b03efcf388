// SPDX-License-Identifier: BSD-3-Clause
/*
 * The GPU's rendering policy on the CPU: view classification for thread-block shaping (Sugimoto 2013, Table 2), the
 * in-place rotation choice with hysteresis (Misaki 2017, generalised), and the frame plans (view_policy.h) made from
 * views and a table measured on an H100: quarter turns about x, y and z, block shapes from the table, rotation only
 * where the table (and then the volume) says it pays, no flip-flop at the boundary angle, the isosurface method, and
 * the compressive choice.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
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

/* ------------------------------------------------------------------------------------------------ the plan */

/* AUTO's table for uint8 voxels as the tuner wrote it (cavr-bench --tune, i.e. cavrTuneDevice) on an NVIDIA H100 80GB
   HBM3 on 2026-11-27 (one row: a 768^3 cube; the other rows were added to the format later, and the ninth shape, 16x32t, in format 4:
   its column is 0, not measured): kernel ns per sample per class (ray axis x, y, z; 15-degree group 0..5) and shape, and kernel
   ns per ray of the two isosurface methods. */
static const char *H100_U8_TABLE =
    "cavr-tune 4\n"
    "# AUTO's table: kernel ns per sample per class of view (ray axis, 15-degree group of the primary axis\n"
    "# on screen) and thread-block shape, measured by cavrTuneDevice on a dense synthetic volume.\n"
    "gpu NVIDIA H100 80GB HBM3\n"
    "memory_mib 81079\n"
    "storage uint8\n"
    "cavr_version 100\n"
    "shapes 16x16 32x8 64x4 8x32 4x64 2x128 1x256 2x256t 16x32t\n"
    "row 0 256 0\n"
    "row 1 768 452984832\n"
    "class 1 x 0 0.00317499 0.00325565 0.00329492 0.00312536 0.0031286 0.00350485 0.0042229 0.00385492 0\n"
    "class 1 x 1 0.0033799 0.00342693 0.00348974 0.00334659 0.00341985 0.00390191 0.00425037 0.00430205 0\n"
    "class 1 x 2 0.00365696 0.00370123 0.00374864 0.00361645 0.00368046 0.00382822 0.0041367 0.00424591 0\n"
    "class 1 x 3 0.00381263 0.00390482 0.00387941 0.00377749 0.00385493 0.00383561 0.00398173 0.0042695 0\n"
    "class 1 x 4 0.00395182 0.00401395 0.00405698 0.00396184 0.00399357 0.00398879 0.00385275 0.00439341 0\n"
    "class 1 x 5 0.00403399 0.00404405 0.00408911 0.00400342 0.00408238 0.00363348 0.00370405 0.00406746 0\n"
    "class 1 y 0 0.00330298 0.00338476 0.00342713 0.00330838 0.00335029 0.00370946 0.00450784 0.00415575 0\n"
    "class 1 y 1 0.00359275 0.00363249 0.00372183 0.00361258 0.00368375 0.00401592 0.00445169 0.00449438 0\n"
    "class 1 y 2 0.00390072 0.00393396 0.00397068 0.00390532 0.00392076 0.00399194 0.0043304 0.00447186 0\n"
    "class 1 y 3 0.00394046 0.00400164 0.00405448 0.00396141 0.0040009 0.00399979 0.00427927 0.00445976 0\n"
    "class 1 y 4 0.00406704 0.00413792 0.00420554 0.00406977 0.00412661 0.00404254 0.00403757 0.00446456 0\n"
    "class 1 y 5 0.00421716 0.00425514 0.00433106 0.00416063 0.00415106 0.00369721 0.00383889 0.00411733 0\n"
    "class 1 z 0 0.00375937 0.00380274 0.00385945 0.00378948 0.00382857 0.00389424 0.00435096 0.0043831 0\n"
    "class 1 z 1 0.00382447 0.00391091 0.00403677 0.00382735 0.0039177 0.00412057 0.00439337 0.00464199 0\n"
    "class 1 z 2 0.00388075 0.00398389 0.00407053 0.00389457 0.00395611 0.00416792 0.00437116 0.00466898 0\n"
    "class 1 z 3 0.00381842 0.00393245 0.00406629 0.00383383 0.00390928 0.0041477 0.00442645 0.00458712 0\n"
    "class 1 z 4 0.00375376 0.0038641 0.00398777 0.00370532 0.00378936 0.00400428 0.00441879 0.00446181 0\n"
    "class 1 z 5 0.00360373 0.00370134 0.00384408 0.00356572 0.00363227 0.003771 0.00426843 0.00415296 0\n"
    "row 2 1536 0\n"
    "# isosurfaces: kernel ns per ray, one thread per ray and warp marching, per class\n"
    "iso x 0 0.754547119 9.45509338\n"
    "iso x 1 0.756835938 8.87850952\n"
    "iso x 2 0.745407104 8.61288452\n"
    "iso x 3 0.741241455 8.58244324\n"
    "iso x 4 0.757293701 8.84396362\n"
    "iso x 5 0.76675415 9.41767883\n"
    "iso y 0 0.83480835 9.1206665\n"
    "iso y 1 0.807373047 8.68598938\n"
    "iso y 2 0.80418396 8.45530701\n"
    "iso y 3 0.800552368 8.4763031\n"
    "iso y 4 0.804885864 8.76463318\n"
    "iso y 5 0.812744141 9.31031799\n"
    "iso z 0 0.841140747 9.04878235\n"
    "iso z 1 0.844284058 8.61366272\n"
    "iso z 2 0.821502686 8.37950134\n"
    "iso z 3 0.805557251 8.4058075\n"
    "iso z 4 0.801345825 8.67617798\n"
    "iso z 5 0.795516968 9.239151\n"
;

/* The cheapest shape per class in that table (by reading it): 8x32 = 3, 1x256 = 6, 2x128 = 5, 16x16 = 0. */
static const int H100_U8_BEST[CAVR_TUNE_CLASSES] = {3, 3, 3, 3, 6, 5, 0, 0, 0, 0, 6, 5, 0, 0, 0, 0, 3, 3};

static void h100_table(CAVRTuneTable *t) {
  FILE *f = tmpfile();
  CHECK(f);
  fputs(H100_U8_TABLE, f);
  rewind(f);
  char msg[256];
  CHECK(cavr_tune_read(t, f, msg, sizeof msg) == 0);
  fclose(f);
  CHECK(t->storage == CAVR_STORE_U8 && !strcmp(t->gpu, "NVIDIA H100 80GB HBM3"));
}

/* The view matrix (column-major, OpenGL) of a camera orbiting about world axis `axis` (0 x, 1 y, 2 z) by `deg`
   degrees from the front view (rays along -z, right +x, up +y), then rolled about its rays by `roll` degrees. */
static void orbit_view(int axis, double deg, double roll, double V[16]) {
  const double a = deg * M_PI / 180.0, q = roll * M_PI / 180.0, c = cos(a), s = sin(a);
  double d[3] = {0, 0, -1}, r[3] = {1, 0, 0}, u[3] = {0, 1, 0};
  if (axis == 0) { /* about x: up and the rays turn in the y-z plane */
    d[1] = s, d[2] = -c, u[1] = c, u[2] = s;
  } else if (axis == 1) { /* about y: the rays and right turn in the x-z plane */
    d[0] = -s, d[2] = -c, r[0] = c, r[2] = -s;
  } else { /* about z: the screen turns */
    r[0] = c, r[1] = s, u[0] = -s, u[1] = c;
  }
  double rr[3], uu[3];
  for (int i = 0; i < 3; ++i) {
    rr[i] = cos(q) * r[i] + sin(q) * u[i];
    uu[i] = -sin(q) * r[i] + cos(q) * u[i];
  }
  memset(V, 0, 16 * sizeof(double));
  for (int i = 0; i < 3; ++i) {
    V[4 * i] = rr[i];
    V[4 * i + 1] = uu[i];
    V[4 * i + 2] = -d[i];
  }
  V[15] = 1.0;
}

static CAVRSettingsDesc settings(int strategy, int blend) {
  CAVRSettingsDesc s;
  memset(&s, 0, sizeof s);
  s.strategy = strategy;
  s.shapingFlags = CAVR_SHAPING_ALL;
  s.rotation = 1;
  s.blendMode = blend;
  s.isoMethod = CAVR_ISO_AUTO;
  s.sampleFraction = 1.0f;
  return s;
}

/* One frame as the CUDA back end runs it: plan, turn (to the plan's state unless `stuck`), complete the plan. The
   volume's state is *rotation; spacing: world units per voxel. */
/* The size of the volume the plans are for, bytes (the table's rows around it price the views). */
static double volumeBytes = 768.0 * 768.0 * 768.0;

static CAVRRenderPlan frame(const CAVRSettingsDesc *s, const double V[16], const double spacing[3],
                            const CAVRTuneTable *t, int *rotation, int noRotate, const CAVRPlanHistory *h) {
  double d[3], r[3], u[3];
  cavr_plan_view_index(V, spacing, d, r, u);
  const CAVRTuneTable *table = cavr_plan_needs_table(s, noRotate) ? t : NULL;
  CAVRRenderPlan p;
  cavr_plan_frame(s, d, r, u, table, volumeBytes, *rotation, noRotate, h, &p);
  *rotation = p.rotation;
  cavr_plan_launch(d, r, u, table, volumeBytes, *rotation, h, &p);
  return p;
}

static int block_is(const CAVRRenderPlan *p, int w, int h, int ww, int wh) {
  return p->blockW == w && p->blockH == h && p->warpW == ww && p->warpH == wh;
}

/* Quarter-turn classification and SHAPED's rotation: 0/45/90/180 degrees about x, y and z. */
static void test_shaped(void) {
  const double one[3] = {1, 1, 1};
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_SHAPED, CAVR_BLEND_COMPOSITE);
  static const int degs[4] = {0, 45, 90, 180};
  /* Expected rotation from the unrotated state: only rays along x turn (about y at 90 degrees); 45 is inside the
     hysteresis band (45 + 5), so it stays as it is. */
  static const int want[3][4] = {{0, 0, 0, 0}, {0, 0, CAVR_ROT_Y, 0}, {0, 0, 0, 0}};
  for (int axis = 0; axis < 3; ++axis)
    for (int k = 0; k < 4; ++k) {
      double V[16];
      orbit_view(axis, degs[k], 0, V);
      int rot = CAVR_ROT_NONE;
      CAVRRenderPlan p = frame(&s, V, one, NULL, &rot, 0, NULL);
      CHECK(p.rotation == want[axis][k] && !p.useTable && p.shape == -1 && p.forcedShape == -1);
      CHECK(p.flags == CAVR_SHAPING_ALL && p.viewClass == -1 && p.seenClass == -1 && p.isoClass == -1);
      if (degs[k] != 45 && (axis == 2 || degs[k] != 90 || axis == 1)) {
        /* Rays along stored z (after the turn at y 90), x horizontal on screen, or vertical about z at 90 degrees:
           Table 2's warp, 256 threads, lockstep along z. (45 degrees is a group boundary: either group.) */
        const int vertical = axis == 2 && degs[k] == 90;
        CHECK(vertical ? block_is(&p, 8, 32, 1, 32) : block_is(&p, 32, 8, 32, 1));
        CHECK(p.syncPropagation == 1 && p.transposed == vertical);
      }
    }
  /* 46 degrees about y: x is the ray axis, inside the hysteresis band (unturned); the primary axis y is vertical:
     1x32 warps, 512 threads (x along the rays), transposed. */
  double V[16];
  orbit_view(1, 46, 0, V);
  int rot = CAVR_ROT_NONE;
  CAVRRenderPlan p = frame(&s, V, one, NULL, &rot, 0, NULL);
  CHECK(p.rotation == CAVR_ROT_NONE && block_is(&p, 16, 32, 1, 32) && p.transposed && !p.syncPropagation);
  /* Rays along x with the screen's right along y (90 about y, rolled 90): the turn about z. */
  orbit_view(1, 90, 90, V);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, NULL, &rot, 0, NULL);
  CHECK(p.rotation == CAVR_ROT_Z && rot == CAVR_ROT_Z);
  /* Rotation switched off, or turning failed before (noRotate): never turned; a turned volume turns back. */
  orbit_view(1, 90, 0, V);
  s.rotation = 0;
  rot = CAVR_ROT_NONE;
  CHECK(frame(&s, V, one, NULL, &rot, 0, NULL).rotation == CAVR_ROT_NONE);
  s.rotation = 1;
  rot = CAVR_ROT_Y;
  CHECK(frame(&s, V, one, NULL, &rot, 1, NULL).rotation == CAVR_ROT_NONE);
  /* Anisotropic voxels: at 35 degrees about y with z voxels 2x thicker, x is along the rays in index space
     (atan(0.57 / (0.82 / 2)) = 54.5 degrees > 50: turned). */
  const double aniso[3] = {1, 1, 2};
  orbit_view(1, 60, 0, V);
  rot = CAVR_ROT_NONE;
  CHECK(frame(&s, V, one, NULL, &rot, 0, NULL).rotation == CAVR_ROT_Y); /* 60 > 50 */
  orbit_view(1, 35, 0, V);
  rot = CAVR_ROT_NONE;
  CHECK(frame(&s, V, one, NULL, &rot, 0, NULL).rotation == CAVR_ROT_NONE);
  CHECK(frame(&s, V, aniso, NULL, &rot, 0, NULL).rotation == CAVR_ROT_Y);
  /* STANDARD: the 16x16 block, never turned. */
  CAVRSettingsDesc st = settings(CAVR_STRATEGY_STANDARD, CAVR_BLEND_COMPOSITE);
  orbit_view(1, 90, 0, V);
  rot = CAVR_ROT_NONE;
  p = frame(&st, V, one, NULL, &rot, 0, NULL);
  CHECK(p.rotation == CAVR_ROT_NONE && block_is(&p, 16, 16, 16, 2) && !p.transposed && !p.syncPropagation);
}

/* Hysteresis: views that oscillate about the boundary angle (45 degrees about y) turn the volume once at most. */
static void test_hysteresis(void) {
  const double one[3] = {1, 1, 1};
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_SHAPED, CAVR_BLEND_COMPOSITE);
  for (int start = 0; start < 2; ++start) {
    int rot = start ? CAVR_ROT_Y : CAVR_ROT_NONE, changes = 0;
    for (int i = 0; i < 40; ++i) { /* 41 and 49 degrees: both inside 45 +- 5 */
      double V[16];
      orbit_view(1, i % 2 ? 49.0 : 41.0, 0, V);
      const int before = rot;
      frame(&s, V, one, NULL, &rot, 0, NULL);
      changes += rot != before;
    }
    CHECK(changes == 0 && rot == (start ? CAVR_ROT_Y : CAVR_ROT_NONE));
  }
  int rot = CAVR_ROT_NONE, changes = 0;
  for (int i = 0; i < 40; ++i) { /* 44 and 52 degrees: turns at the first 52, then stays */
    double V[16];
    orbit_view(1, i % 2 ? 52.0 : 44.0, 0, V);
    const int before = rot;
    frame(&s, V, one, NULL, &rot, 0, NULL);
    changes += rot != before;
  }
  CHECK(changes == 1 && rot == CAVR_ROT_Y);
}

/* AUTO's block-shape checks on the volume (table H100): the pair, its verdict, the re-check of a kept shape that runs
   dearer (CAVR_AUTO_SHAPE_FOLLOW) and of one made more than CAVR_AUTO_PAIR_SPAN_DEG of obliquity away. */
static void test_auto_shapes(void) {
  const double one[3] = {1, 1, 1};
  CAVRTuneTable t;
  h100_table(&t);
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  CAVRPlanHistory h;
  double V[16];
  int rot = CAVR_ROT_NONE;
  CAVRRenderPlan p;
  /* Block shapes are checked the same way: (z, 5)'s 8x32 first, then 16x16 once, then the cheaper. */
  memset(&h, 0, sizeof h);
  orbit_view(2, 90, 0, V);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 0, &h); /* a ray list: not recorded */
  CHECK(h.seen[p.seenClass][3] == 0.0f);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  CHECK(h.seen[p.seenClass][3] == 1000.0f && h.seenState[p.viewClass][0] == 0.0f); /* rays along z: no states */
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && block_is(&p, 16, 16, 16, 2));
  cavr_plan_record(&p, rot, 0.9, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && h.shapePaired[p.seenClass]); /* 900 < 1000: the standard block ran cheaper on this volume */
  /* Once paired, the pair's costs stay as measured and the kept shape's later frames make a running mean
     (CAVR_AUTO_SHAPE_FOLLOW): a 16x16 frame at 850 keeps the verdict; one at 1250 more makes the mean 1000, not
     dearer than 8x32's pair frame; one at 1400 makes it 1100 and the pair runs again (8x32 first), on new frames. */
  cavr_plan_record(&p, rot, 0.85, 1000, 25600.0, 1, &h);
  CHECK(h.seen[p.seenClass][0] == 900.0f && h.keptMean[p.seenClass] == 875.0f && h.keptCount[p.seenClass] == 2);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && !p.shapeRepair);
  cavr_plan_record(&p, rot, 1.25, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && !p.shapeRepair && h.keptMean[p.seenClass] == 1000.0f);
  cavr_plan_record(&p, rot, 1.4, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3 && p.shapeRepair);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  CHECK(!h.shapePaired[p.seenClass] && h.seen[p.seenClass][0] == 0.0f);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && !p.shapeRepair);
  cavr_plan_record(&p, rot, 1.05, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3 && h.shapePaired[p.seenClass]); /* a verdict from one frame each: 1000 < 1050 */
  /* ... undone when it was a noisy frame: 8x32 then runs at 1150 (mean 1075 > 1050), so the pair runs again. */
  cavr_plan_record(&p, rot, 1.15, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3 && p.shapeRepair);
  cavr_plan_record(&p, rot, 1.15, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  cavr_plan_record(&p, rot, 1.05, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && !p.shapeRepair);
  /* The mean is over the last CAVR_AUTO_SHAPE_FOLLOW frames. */
  for (int k = 0; k < 20; ++k) cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  CHECK(h.keptCount[p.seenClass] == CAVR_AUTO_SHAPE_FOLLOW && fabs(h.keptMean[p.seenClass] - 1000.0f) < 5.0f);
  /* A pair needs consecutive frames: 8x32 measured, then a frame of another class, then 16x16 is not a pair; the
     class measures 8x32 again, then 16x16 on the next frame. */
  memset(&h, 0, sizeof h);
  orbit_view(2, 90, 0, V);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  const int zc = p.seenClass;
  double V0[16];
  orbit_view(2, 0, 0, V0);
  CAVRRenderPlan q = frame(&s, V0, one, &t, &rot, 0, &h); /* class (z, 0): 16x16 is its table shape */
  cavr_plan_record(&q, rot, 1.0, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3 && !h.shapePaired[zc]);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0);
  cavr_plan_record(&p, rot, 1.2, 1000, 25600.0, 1, &h);
  CHECK(h.shapePaired[zc]);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3); /* 1000 < 1200 */
  /* A shape verdict holds within CAVR_AUTO_PAIR_SPAN_DEG of the obliquity it was made at: the same class seen 15
     degrees off its axis pairs again (the table's shape first, then 16x16), and a 16x16 win there is kept. */
  double V15[16];
  orbit_view(0, 15, 90, V15);
  p = frame(&s, V15, one, &t, &rot, 0, &h);
  CHECK(p.seenClass == zc && fabs(p.obliquity - 15.0) < 1e-6 && p.shapeRepair && p.shape == 3);
  cavr_plan_record(&p, rot, 1.0, 1000, 25600.0, 1, &h);
  CHECK(!h.shapePaired[zc]);
  p = frame(&s, V15, one, &t, &rot, 0, &h);
  CHECK(p.shape == 0 && !p.shapeRepair);
  cavr_plan_record(&p, rot, 0.8, 1000, 25600.0, 1, &h);
  CHECK(h.shapePaired[zc] && fabs(h.shapePairObliquity[zc] - 15.0) < 1e-4);
  CHECK(frame(&s, V15, one, &t, &rot, 0, &h).shape == 0);
  CHECK(frame(&s, V, one, &t, &rot, 0, &h).shapeRepair); /* back on the axis: 15 degrees away again */
}

/* AUTO with the measured H100 table: its shapes, no rotation where it does not pay, and the checks on the volume. */
static void test_auto(void) {
  const double one[3] = {1, 1, 1};
  CAVRTuneTable t;
  h100_table(&t);
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  CAVRPlanHistory h;
  memset(&h, 0, sizeof h);
  double V[16];
  /* Front view: class (z, 0), 16x16 cheapest; x vertical on screen (rolled 90 about z): (z, 5), 8x32. */
  int rot = CAVR_ROT_NONE;
  orbit_view(2, 0, 0, V);
  CAVRRenderPlan p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.useTable && p.flags == 0 && p.rotation == CAVR_ROT_NONE && p.shape == 0 && block_is(&p, 16, 16, 16, 2));
  CHECK(p.seenClass == 2 * CAVR_TUNE_GROUPS && p.viewClass == 2 * CAVR_TUNE_GROUPS);
  orbit_view(2, 90, 0, V);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3 && block_is(&p, 8, 32, 8, 4) && p.seenClass == 2 * CAVR_TUNE_GROUPS + 5);
  /* Every quarter-turn view: the table's shape for the class, and no turn: on this H100 a turn never pays (rays along
     x with y vertical, (x, 5), costs 0.00363 unturned with 2x128; turned about y (z, 0) 0.00376 with 16x16, about z
     (y, 5) 0.00370 with 2x128). */
  static const int degs[4] = {0, 45, 90, 180};
  for (int axis = 0; axis < 3; ++axis)
    for (int k = 0; k < 4; ++k) {
      memset(&h, 0, sizeof h);
      rot = CAVR_ROT_NONE;
      orbit_view(axis, degs[k], 0, V);
      p = frame(&s, V, one, &t, &rot, 0, &h);
      CHECK(p.rotation == CAVR_ROT_NONE && p.seenClass >= 0 && p.shape == H100_U8_BEST[p.seenClass]);
    }
  orbit_view(1, 90, 0, V);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.viewClass == 5 && p.seenClass == 5 && p.shape == 5 && block_is(&p, 2, 128, 2, 16));
  /* A GPU where rays along x cost 20% more (Misaki 2017's case): the table says turn, and of the two turns the one
     about z (into (y, 5) with 2x128, 0.00370; about y: (z, 0) with 16x16, 0.00376; unturned now 0.00436). */
  CAVRTuneTable slowX = t;
  for (int g = 0; g < CAVR_TUNE_GROUPS; ++g)
    for (int k = 0; k < CAVR_TUNE_SHAPES; ++k) slowX.cost[1][g][k] *= 1.2f;
  memset(&h, 0, sizeof h);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z && p.seenClass == 1 * CAVR_TUNE_GROUPS + 5 && p.shape == 5);
  /* ... checked on the volume, each state at its best block shape: turned with the table's 2x128 (frame 1), turned
     with 16x16 (frame 2: the turned class's shape pair; the state is priced at the cheaper), unturned (frame 3),
     then the cheaper state per sample is kept. */
  cavr_plan_record(&p, rot, 2.0, 1000, 25600.0, 1, &h); /* 2000 ns per sample turned */
  CHECK(h.seenState[5][CAVR_ROT_Z] == 2000.0f && h.seen[1 * CAVR_TUNE_GROUPS + 5][5] == 2000.0f);
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z && p.shape == 0);
  cavr_plan_record(&p, rot, 2.4, 1000, 25600.0, 1, &h); /* 2400 with 16x16 */
  CHECK(h.shapePaired[1 * CAVR_TUNE_GROUPS + 5] && h.seenState[5][CAVR_ROT_Z] == 2000.0f && !h.statePaired[5]);
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE && p.seenClass == 5);
  cavr_plan_record(&p, rot, 2.2, 1000, 25600.0, 1, &h); /* unturned: 2200 */
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z); /* 2000 * 1.05 < 2200: turn */
  /* Turned, it stays turned unless the unturned state is cheaper by more than the margin. */
  h.seenState[5][CAVR_ROT_NONE] = 1950.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z); /* 2000 <= 1950 * 1.05 */
  h.seenState[5][CAVR_ROT_NONE] = 1800.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE); /* 2000 > 1890 */
  /* Unturned, it turns only when turned is cheaper by more than the margin. */
  h.seenState[5][CAVR_ROT_NONE] = 2050.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE); /* 2000 * 1.05 >= 2050 */
  /* No table (CAVR_TUNE=0 or it failed): 16x16 blocks, no rotation, not reported as the table's. */
  orbit_view(1, 90, 0, V);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, NULL, &rot, 0, &h);
  CHECK(!p.useTable && p.rotation == CAVR_ROT_NONE && p.shape == -1 && block_is(&p, 16, 16, 16, 2));
  /* The calibration's forced shape: that block on the volume as uploaded, no table read. */
  s.blockShape = 1 + 6;
  CHECK(!cavr_plan_needs_table(&s, 0));
  rot = CAVR_ROT_Y;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE && p.shape == 6 && block_is(&p, 1, 256, 1, 32) && !p.useTable);
}

/* The frame after a turn into a class whose table shape is not 16x16: the turned state stays for its shape pair's
   16x16 frame (recorded at ms, dearer than the table's shape here), so the state is priced at its best shape. */
static void turned_shape_pair(const CAVRSettingsDesc *s, const double V[16], const CAVRTuneTable *t, int *rot,
                              CAVRPlanHistory *h, double ms) {
  const double one[3] = {1, 1, 1};
  const int before = *rot;
  CAVRRenderPlan p = frame(s, V, one, t, rot, 0, h);
  CHECK(before != CAVR_ROT_NONE && p.rotation == before && p.shape == 0);
  cavr_plan_record(&p, *rot, ms, 1000000, 25600.0, 1, h);
}

/* An unpriced volume whose first turn (`first`) lost its pair: the next frame starts the other turn's pair (its
   frames recorded at msTurned, a shape pair's second at msTurned + 0.5), then the unturned frame at msPlain. */
static void second_turn(const CAVRSettingsDesc *s, const double V[16], const CAVRTuneTable *t, int *rot,
                        CAVRPlanHistory *h, int first, double msTurned, double msPlain) {
  const double one[3] = {1, 1, 1};
  CAVRRenderPlan p = frame(s, V, one, t, rot, 0, h);
  const int other = p.rotation;
  CHECK(p.secondTurn && other != CAVR_ROT_NONE && other != first);
  cavr_plan_record(&p, *rot, msTurned, 1000000, 25600.0, 1, h);
  CHECK(!h->statePaired[p.viewClass]);
  p = frame(s, V, one, t, rot, 0, h);
  if (p.rotation == other) { /* its class's shape pair */
    CHECK(p.shape == 0 && !p.secondTurn);
    cavr_plan_record(&p, *rot, msTurned + 0.5, 1000000, 25600.0, 1, h);
    p = frame(s, V, one, t, rot, 0, h);
  }
  CHECK(p.rotation == CAVR_ROT_NONE && !p.secondTurn);
  cavr_plan_record(&p, *rot, msPlain, 1000000, 25600.0, 1, h);
  CHECK(h->statePaired[p.viewClass]);
}

/* AUTO on a big volume: the table's rows around the volume's size price the views (rays along x twice as dear on the
   big cube as on the middle one, as measured on the H100: a 3584^3 cube at 90 degrees 6.41 ms unturned, 2.87 ms
   turned), and a turn must pay for itself within the horizon. */
static void test_auto_big(void) {
  const double one[3] = {1, 1, 1};
  CAVRTuneTable t;
  h100_table(&t);
  /* A big row (1536^3) where every class along x costs twice its middle-row cost. */
  t.rowBytes[2] = 1536.0 * 1536.0 * 1536.0;
  t.rowSide[2] = 1536;
  memcpy(t.cost[2], t.cost[1], sizeof t.cost[1]);
  for (int g = 0; g < CAVR_TUNE_GROUPS; ++g)
    for (int k = 0; k < CAVR_TUNE_SHAPES; ++k) t.cost[2][g][k] *= 2.0f;
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  CAVRPlanHistory h;
  double V[16];
  orbit_view(1, 90, 0, V);
  /* The middle-sized volume stays unturned (the H100's 768^3 costs); a 3584^3 one turns (about z: (y, 5), 2x128). */
  memset(&h, 0, sizeof h);
  int rot = CAVR_ROT_NONE;
  volumeBytes = 768.0 * 768.0 * 768.0;
  CAVRRenderPlan p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE);
  volumeBytes = 3584.0 * 3584.0 * 3584.0;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z && p.shape == 5);
  /* Half way in log2(bytes) between the rows, x costs 1.5x: still a turn. */
  rot = CAVR_ROT_NONE;
  volumeBytes = sqrt(768.0 * 768.0 * 768.0 * 1536.0 * 1536.0 * 1536.0);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z);
  /* The turn's cost against what the table says it saves: 0.00727 ns a sample unturned (2x), 0.00370 turned: 0.00357
     ns saved a sample. At 1e9 samples a frame that is 3.57 ms, 114 ms over the 32-frame horizon, against 1 ms per GiB
     of the 42.9 GiB cube (43 ms): the turn is tried. At 1e8 samples (11.4 ms over the horizon): not even tried. */
  volumeBytes = 3584.0 * 3584.0 * 3584.0;
  memset(&h, 0, sizeof h);
  h.samples = 1e9;
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z);
  h.samples = 1e8;
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE);
  /* A measured turn of 5 ms (0.12 ms per GiB) pays within the horizon even at 1e8 samples. */
  cavr_plan_record_rotation(5.0, volumeBytes, &h);
  CHECK(fabs(h.rotationMsPerGiB - 5.0 * 1073741824.0 / volumeBytes) < 1e-9);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z);
  /* Turning back costs a turn too: turned, with the unturned state measured cheaper by 10% on this volume (0.0036
     against 0.0040 ns a sample), the volume turns back only when the saving pays for the 5 ms turn: at 1e9 samples
     (0.4 ms a frame, 12.8 ms over the horizon) it does; at 1e8 (1.28 ms) it stays turned. */
  h.seenState[5][CAVR_ROT_Z] = 0.0040f;
  h.seenState[5][CAVR_ROT_NONE] = 0.0036f;
  h.statePaired[5] = 1;
  h.pairLean[5] = 90.0f; /* paired at this view (rays along x) */
  h.samples = 1e9;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE);
  rot = CAVR_ROT_Z;
  h.samples = 1e8;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z);
  /* Recording: the last full frame's samples; a ray list's are not kept. */
  cavr_plan_record(&p, rot, 1.0, 12345, 25600.0, 0, &h);
  CHECK(h.samples == 1e8);
  cavr_plan_record(&p, rot, 1.0, 12345, 25600.0, 1, &h);
  CHECK(h.samples == 12345.0);
  /* Beyond twice the largest cube measured the table only extrapolates: where it says stay, the volume still tries
     its cheapest turn once (a pair: turned, then unturned on the next frame), then keeps what ran cheaper here. */
  CAVRTuneTable flat;
  h100_table(&flat);
  flat.rowBytes[2] = 1536.0 * 1536.0 * 1536.0;
  memcpy(flat.cost[2], flat.cost[1], sizeof flat.cost[1]);
  volumeBytes = 2.0 * 1536.0 * 1536.0 * 1536.0; /* within twice: the table's word (stay) */
  memset(&h, 0, sizeof h);
  rot = CAVR_ROT_NONE;
  CHECK(frame(&s, V, one, &flat, &rot, 0, &h).rotation == CAVR_ROT_NONE);
  volumeBytes = 3584.0 * 3584.0 * 3584.0;
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z && p.viewClass == 5); /* the cheaper turn by the table: (y, 5) 0.00370 */
  cavr_plan_record_rotation(5.0, volumeBytes, &h);        /* the turn took 5 ms */
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h); /* 2 ns a sample turned */
  turned_shape_pair(&s, V, &flat, &rot, &h, 2.5);
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE && !h.statePaired[5]);
  cavr_plan_record(&p, rot, 3.0, 1000000, 25600.0, 1, &h); /* 3 ns a sample unturned */
  CHECK(h.statePaired[5]);
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z); /* 1 ns a sample saved, 1e6 samples, 32 frames: 32 ms > the 5 ms turn */
  volumeBytes = 768.0 * 768.0 * 768.0;
}

/* AUTO on a volume with a long axis: the table's cube rows do not price it, so it pairs its turns on itself; verdicts
   are local to the view (CAVR_AUTO_PAIR_SPAN_DEG). */
static void test_auto_long_axis(void) {
  const double one[3] = {1, 1, 1};
  CAVRTuneTable flat;
  h100_table(&flat);
  flat.rowBytes[2] = 1536.0 * 1536.0 * 1536.0;
  memcpy(flat.cost[2], flat.cost[1], sizeof flat.cost[1]);
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  CAVRPlanHistory h;
  CAVRRenderPlan p;
  int rot;
  double V[16];
  orbit_view(1, 90, 0, V);
  /* A volume with a long axis (512x512x4096, 1 GiB: within the table's sizes) tries its cheapest turn likewise; the
     same bytes as a cube keep the table's word; and the pair's verdict stands when the turn ran dearer. */
  CHECK(cavr_plan_elongation((const int[3]){512, 512, 4096}) == 8.0);
  CHECK(cavr_plan_elongation((const int[3]){64, 64, 64}) == 1.0 && cavr_plan_elongation((const int[3]){0, 4, 4}) == 0.0);
  volumeBytes = 512.0 * 512.0 * 4096.0;
  memset(&h, 0, sizeof h);
  h.elongation = 2.0; /* a 1024^3-like box: the table's word */
  rot = CAVR_ROT_NONE;
  CHECK(frame(&s, V, one, &flat, &rot, 0, &h).rotation == CAVR_ROT_NONE);
  h.elongation = cavr_plan_elongation((const int[3]){512, 512, 4096});
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z && p.viewClass == 5);
  cavr_plan_record(&p, rot, 3.0, 1000000, 25600.0, 1, &h); /* 3 ns a sample turned */
  turned_shape_pair(&s, V, &flat, &rot, &h, 3.5);
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE);
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h); /* 2 ns a sample unturned */
  CHECK(h.statePaired[5]);
  /* The turn the table ranked first lost: the other turn (about y) gets its pair; dearer too, the volume stays. */
  second_turn(&s, V, &flat, &rot, &h, CAVR_ROT_Z, 2.6, 2.0);
  CHECK(h.statePaired[5] && h.seenState[5][CAVR_ROT_Y] > 0.0f && h.seenState[5][CAVR_ROT_Z] > 0.0f);
  CHECK(frame(&s, V, one, &flat, &rot, 0, &h).rotation == CAVR_ROT_NONE); /* stays unturned: it ran cheaper */
  /* A first turn that wins its pair by more than the margin but would not pay for its turn (0.1 ns a sample saved,
     1e6 samples, 32 frames: 3.2 ms against a 5 ms turn) is not kept either: the other turn gets its pair. */
  memset(&h, 0, sizeof h);
  h.elongation = 8.0;
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Z);
  cavr_plan_record_rotation(5.0, volumeBytes, &h);
  cavr_plan_record(&p, rot, 1.9, 1000000, 25600.0, 1, &h);
  turned_shape_pair(&s, V, &flat, &rot, &h, 2.5);
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h);
  second_turn(&s, V, &flat, &rot, &h, CAVR_ROT_Z, 2.6, 2.0);
  /* Where the other turn wins, it is kept. */
  memset(&h, 0, sizeof h);
  h.elongation = 8.0;
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  cavr_plan_record(&p, rot, 3.0, 1000000, 25600.0, 1, &h);
  turned_shape_pair(&s, V, &flat, &rot, &h, 3.5);
  p = frame(&s, V, one, &flat, &rot, 0, &h);
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h);
  second_turn(&s, V, &flat, &rot, &h, CAVR_ROT_Z, 1.5, 2.0);
  CHECK(frame(&s, V, one, &flat, &rot, 0, &h).rotation == CAVR_ROT_Y && h.statePaired[5]);
  /* A verdict holds within CAVR_AUTO_PAIR_SPAN_DEG of the rays' lean towards x where it was made, on the loser's side:
     the same long volume paired at 50 degrees about y (the turn ran no cheaper than the margin) is paired again at 65, where the rays lean
     15 degrees more towards x; there the turn runs cheaper and is kept; at 60 that verdict stands, at 50 it is stale. */
  memset(&h, 0, sizeof h);
  h.elongation = 8.0;
  rot = CAVR_ROT_NONE;
  double V50[16], V60[16], V65[16];
  orbit_view(1, 50, 0, V50);
  orbit_view(1, 60, 0, V60);
  orbit_view(1, 65, 0, V65);
  p = frame(&s, V50, one, &flat, &rot, 0, &h);
  const int vc50 = p.viewClass;
  CHECK(p.rotation != CAVR_ROT_NONE && vc50 >= 0 && vc50 < CAVR_TUNE_GROUPS && !p.repair);
  CHECK(fabs(p.xLean - 50.0) < 1e-9);
  cavr_plan_record(&p, rot, 1.98, 1000000, 25600.0, 1, &h); /* turned: 1.98 ns a sample, within the margin */
  turned_shape_pair(&s, V50, &flat, &rot, &h, 2.5);
  p = frame(&s, V50, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE);
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h); /* unturned: 2 */
  CHECK(h.statePaired[vc50] && fabs(h.pairLean[vc50] - 50.0) < 1e-4);
  second_turn(&s, V50, &flat, &rot, &h, CAVR_ROT_Z, 2.5, 2.0); /* the other turn: dearer */
  CHECK(frame(&s, V50, one, &flat, &rot, 0, &h).rotation == CAVR_ROT_NONE);
  p = frame(&s, V60, one, &flat, &rot, 0, &h); /* 10 degrees further: the verdict stands */
  CHECK(p.viewClass == vc50 && p.rotation == CAVR_ROT_NONE && !p.repair);
  p = frame(&s, V65, one, &flat, &rot, 0, &h); /* 15 degrees: paired again, the turn first */
  CHECK(p.viewClass == vc50 && p.rotation != CAVR_ROT_NONE && p.repair);
  cavr_plan_record(&p, rot, 1.0, 1000000, 25600.0, 1, &h); /* turned: 1 ns a sample */
  CHECK(!h.statePaired[vc50]);
  turned_shape_pair(&s, V65, &flat, &rot, &h, 1.5);
  p = frame(&s, V65, one, &flat, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE && !p.repair);
  cavr_plan_record(&p, rot, 2.0, 1000000, 25600.0, 1, &h); /* unturned: 2 */
  CHECK(h.statePaired[vc50] && fabs(h.pairLean[vc50] - 65.0) < 1e-4);
  p = frame(&s, V65, one, &flat, &rot, 0, &h);
  CHECK(p.rotation != CAVR_ROT_NONE && !p.repair); /* kept turned: it ran cheaper */
  p = frame(&s, V60, one, &flat, &rot, 0, &h); /* 5 degrees less towards x: the verdict stands */
  CHECK(p.rotation != CAVR_ROT_NONE && !p.repair);
  p = frame(&s, V50, one, &flat, &rot, 0, &h); /* 15 degrees less: stale, paired again (turned on this frame) */
  CHECK(p.rotation != CAVR_ROT_NONE && p.repair);
  volumeBytes = 768.0 * 768.0 * 768.0;
}

/* Isosurfaces: the requested method; AUTO alternates the two methods for two frames each (the table's cheaper first),
   then keeps the one that ran cheaper on this volume. */
static void test_iso(void) {
  const double one[3] = {1, 1, 1};
  CAVRTuneTable t;
  h100_table(&t);
  double V[16];
  orbit_view(1, 0, 0, V);
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_ISOSURFACE);
  int rot = CAVR_ROT_Y; /* isosurfaces read the volume as it lies: no turn of their own */
  s.isoMethod = CAVR_ISO_STANDARD;
  CAVRRenderPlan p = frame(&s, V, one, &t, &rot, 0, NULL);
  CHECK(p.ownKernels && p.isoMethod == CAVR_ISO_STANDARD && p.rotation == CAVR_ROT_Y && p.isoClass == -1);
  CHECK(!p.useTable && !cavr_plan_needs_table(&s, 0));
  s.isoMethod = CAVR_ISO_WARP_MARCHING;
  CHECK(frame(&s, V, one, &t, &rot, 0, NULL).isoMethod == CAVR_ISO_WARP_MARCHING);
  s.isoMethod = CAVR_ISO_AUTO;
  CHECK(cavr_plan_needs_table(&s, 0) && !cavr_plan_needs_table(&s, 1));
  CAVRPlanHistory h;
  memset(&h, 0, sizeof h);
  rot = CAVR_ROT_NONE;
  /* The H100 table prices one thread per ray cheaper on its synthetic volume (0.84 against 9.05 ns a ray, rays along
     z): standard first, then 1 0 1; then the method whose least time was lower on this volume (warp marching here,
     as test_gpu_auto measures on Colin27: methods 0 1 0 1 1 1). */
  static const int expect[6] = {0, 1, 0, 1, 1, 1};
  static const double ms[4] = {0.10, 0.08, 0.12, 0.09}; /* least: standard 0.10 ms, warp marching 0.08 */
  for (int f = 0; f < 6; ++f) {
    p = frame(&s, V, one, &t, &rot, 0, &h);
    CHECK(p.isoMethod == expect[f] && p.isoClass == 2 * CAVR_TUNE_GROUPS && !p.useTable);
    cavr_plan_record(&p, rot, f < 4 ? ms[f] : 0.2, 0, 25600.0, 1, &h);
  }
  CHECK(h.seenIsoCount[2 * CAVR_TUNE_GROUPS][0] == 2 && h.seenIsoCount[2 * CAVR_TUNE_GROUPS][1] == 4);
  CHECK(h.seenIso[2 * CAVR_TUNE_GROUPS][1] == (float)(0.08 * 1e6 / 25600.0)); /* the least, not the last */
  /* A GPU where warp marching is the cheaper (Wang 2014 on a GTX 680, rays along z): it goes first. */
  CAVRTuneTable w = t;
  for (int g = 0; g < CAVR_TUNE_GROUPS; ++g) w.isoCost[2 * CAVR_TUNE_GROUPS + g][1] = 0.5f * t.isoCost[2 * CAVR_TUNE_GROUPS + g][0];
  memset(&h, 0, sizeof h);
  for (int f = 0; f < 4; ++f) {
    p = frame(&s, V, one, &w, &rot, 0, &h);
    CHECK(p.isoMethod == (f % 2 ? 0 : 1));
    cavr_plan_record(&p, rot, 0.1, 0, 25600.0, 1, &h);
  }
  /* SHAPED: no table, standard first (test_gpu_auto's pattern 0 1 0 1, then the cheaper). */
  CAVRSettingsDesc sh = settings(CAVR_STRATEGY_SHAPED, CAVR_BLEND_ISOSURFACE);
  memset(&h, 0, sizeof h);
  CHECK(!cavr_plan_needs_table(&sh, 0));
  for (int f = 0; f < 4; ++f) {
    p = frame(&sh, V, one, &t, &rot, 0, &h);
    CHECK(p.isoMethod == f % 2);
    cavr_plan_record(&p, rot, 0.1, 0, 25600.0, 1, &h);
  }
  /* A volume that could not be turned: the plain requested method (standard for AUTO), nothing recorded. */
  p = frame(&s, V, one, &t, &rot, 1, &h);
  CHECK(p.isoMethod == CAVR_ISO_STANDARD && p.isoClass == -1);
  /* Slices: own kernels, no method, the volume as it lies. */
  CAVRSettingsDesc sl = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_SLICE);
  rot = CAVR_ROT_Z;
  p = frame(&sl, V, one, &t, &rot, 0, &h);
  CHECK(p.ownKernels && p.rotation == CAVR_ROT_Z && p.isoMethod == 0 && !p.useTable && !cavr_plan_needs_table(&sl, 0));
}

/* Compressive or every ray: sample fraction below 1 on images of at least 4 x 4 pixels. */
static void test_compressive(void) {
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  CHECK(!cavr_plan_compressive(&s, 512, 512));
  s.sampleFraction = 0.25f;
  CHECK(cavr_plan_compressive(&s, 512, 512) && cavr_plan_compressive(&s, 4, 4));
  CHECK(!cavr_plan_compressive(&s, 3, 512) && !cavr_plan_compressive(&s, 512, 3));
}

/* Compressive only where it pays (cavr_compressive_decide / _record): a frame buffer's measured costs decide. */
static int decide(CAVRCompressiveCost *c, uint64_t key, double f, double *pf, double *pc) {
  return cavr_compressive_decide(c, key, f, 1, pf, pc);
}

static void test_compressive_cost(void) {
  CAVRSettingsDesc s = settings(CAVR_STRATEGY_AUTO, CAVR_BLEND_COMPOSITE);
  const uint64_t key = cavr_compressive_key(&s, 512, 512, CAVR_BACKEND_CPU, 1);
  /* The key: the sample fraction is not in it; size, back end, volume and the settings that price a ray are. */
  CAVRSettingsDesc t = s;
  t.sampleFraction = 0.25f;
  CHECK(cavr_compressive_key(&t, 512, 512, CAVR_BACKEND_CPU, 1) == key);
  CHECK(cavr_compressive_key(&s, 512, 256, CAVR_BACKEND_CPU, 1) != key);
  CHECK(cavr_compressive_key(&s, 512, 512, CAVR_BACKEND_CUDA, 1) != key);
  CHECK(cavr_compressive_key(&s, 512, 512, CAVR_BACKEND_CPU, 2) != key);
  t = s; t.shade = 1;
  CHECK(cavr_compressive_key(&t, 512, 512, CAVR_BACKEND_CPU, 1) != key);
  t = s; t.interpolation = CAVR_INTERPOLATION_CUBIC;
  CHECK(cavr_compressive_key(&t, 512, 512, CAVR_BACKEND_CPU, 1) != key);
  t = s; t.supersample = 5;
  CHECK(cavr_compressive_key(&t, 512, 512, CAVR_BACKEND_CPU, 1) != key);
  t = s; t.blendMode = CAVR_BLEND_MAXIMUM_INTENSITY;
  CHECK(cavr_compressive_key(&t, 512, 512, CAVR_BACKEND_CPU, 1) != key);

  CAVRCompressiveCost c;
  memset(&c, 0, sizeof c);
  double pf, pc;
  /* ALWAYS: compressive whatever the costs. */
  CHECK(cavr_compressive_decide(&c, key, 0.25, 0, &pf, &pc) == CAVR_COMPRESSIVE_RENDERED && pf == 0.0 && pc == 0.0);
  /* AUTO with nothing measured: the frame asked for. */
  memset(&c, 0, sizeof c);
  CHECK(decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_RENDERED);

  /* Only the full frame measured (ParaView's still frames): compressive estimated at full * fraction. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
  CHECK(decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_RENDERED && pf == 100.0 && fabs(pc - 25.0) < 1e-9);

  /* Only a compressive frame measured (30 ms rays at 25%, 10 ms solve): full estimated at rays / fraction; the
     estimate favours compressive, so the full frame is measured at once (the estimate is rough: on the GPU a ray
     list casts rays less efficiently than a full frame). */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 1, 0.25, 40.0, 10.0);
  CHECK(decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_PROBE_FULL && fabs(pf - 120.0) < 1e-9 &&
        fabs(pc - 40.0) < 1e-9);
  /* At another fraction the ray part scales: 10 + 30 * 0.5 / 0.25. */
  CHECK(decide(&c, key, 0.5, &pf, &pc) == CAVR_COMPRESSIVE_PROBE_FULL && fabs(pc - 70.0) < 1e-9);
  /* Only the full frame measured and compressive estimated dearer (a tiny fraction's solve cannot be; use a full
     frame of 0 cost): compressive is measured at once. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 0.0, 0.0);
  CHECK(decide(&c, key, 0.99, &pf, &pc) == CAVR_COMPRESSIVE_PROBE);

  /* Both measured, compressive cheaper (40 < 0.9 * 100): compressive, and the full frame re-measured after
     CAVR_COMPRESSIVE_PROBE_MIN frames, then after a period twice as long while the choice holds. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
  cavr_compressive_record(&c, key, 1, 0.25, 40.0, 10.0);
  int probes[8], n = 0;
  for (int i = 1; i <= 40 && n < 8; ++i) {
    const int d = decide(&c, key, 0.25, &pf, &pc);
    CHECK(d == CAVR_COMPRESSIVE_RENDERED || d == CAVR_COMPRESSIVE_PROBE_FULL);
    if (d == CAVR_COMPRESSIVE_PROBE_FULL) {
      probes[n++] = i;
      cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
    } else {
      cavr_compressive_record(&c, key, 1, 0.25, 40.0, 10.0);
    }
  }
  CHECK(n == 3 && probes[0] == CAVR_COMPRESSIVE_PROBE_MIN + 1 && probes[1] == probes[0] + 2 * CAVR_COMPRESSIVE_PROBE_MIN + 1 &&
        probes[2] == probes[1] + 4 * CAVR_COMPRESSIVE_PROBE_MIN + 1);
  /* The period stops doubling at CAVR_COMPRESSIVE_PROBE_MAX. */
  for (int i = 0; i < 20 * CAVR_COMPRESSIVE_PROBE_MAX; ++i) decide(&c, key, 0.25, &pf, &pc);
  CHECK(c.period == CAVR_COMPRESSIVE_PROBE_MAX);

  /* Compressive dearer (as the GPU's 25% frames with ordinary rays, 1.2-1.8x): full frames, compressive re-measured
     (PROBE); within the margin (compressive 0.95 x full) is not cheaper enough. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 1.0, 0.0);
  cavr_compressive_record(&c, key, 1, 0.25, 1.8, 0.5);
  CHECK(decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_NOT_PAYING && fabs(pc - 1.8) < 1e-9 && pf == 1.0);
  n = 0;
  for (int i = 0; i < CAVR_COMPRESSIVE_PROBE_MIN + 1; ++i) n += decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_PROBE;
  CHECK(n == 1);
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
  cavr_compressive_record(&c, key, 1, 0.25, 95.0, 5.0);
  CHECK(decide(&c, key, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_NOT_PAYING);

  /* The decision follows a change: compressive gets dear (the probe measures it), then full frames win; the flip
     brings the re-measuring period back to the first. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
  cavr_compressive_record(&c, key, 1, 0.25, 40.0, 10.0);
  int sawFull = 0;
  for (int i = 0; i < 40; ++i) {
    const int d = decide(&c, key, 0.25, &pf, &pc);
    if (d == CAVR_COMPRESSIVE_RENDERED || d == CAVR_COMPRESSIVE_PROBE)
      cavr_compressive_record(&c, key, 1, 0.25, 300.0, 10.0); /* now 3x the full frame */
    else {
      cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
      sawFull += d == CAVR_COMPRESSIVE_NOT_PAYING;
    }
  }
  CHECK(sawFull > 20 && c.choice == 0);

  /* Smoothing: the newest measurement weighs CAVR_COMPRESSIVE_SMOOTHING. */
  memset(&c, 0, sizeof c);
  cavr_compressive_record(&c, key, 0, 1.0, 100.0, 0.0);
  cavr_compressive_record(&c, key, 0, 1.0, 200.0, 0.0);
  CHECK(fabs(c.fullMs - (100.0 + CAVR_COMPRESSIVE_SMOOTHING * 100.0)) < 1e-9);

  /* A key change (another size, shading, back end...) starts afresh: nothing measured, the frame asked for. */
  cavr_compressive_record(&c, key, 1, 0.25, 300.0, 10.0);
  const uint64_t key2 = cavr_compressive_key(&s, 256, 256, CAVR_BACKEND_CPU, 1);
  CHECK(decide(&c, key2, 0.25, &pf, &pc) == CAVR_COMPRESSIVE_RENDERED && pf == 0.0 && pc == 0.0 && c.key == key2);
  cavr_compressive_record(&c, key, 0, 1.0, 50.0, 0.0);
  CHECK(c.key == key && c.fullMs == 50.0 && c.fraction == 0.0);
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
  test_shaped();
  test_hysteresis();
  test_auto();
  test_auto_shapes();
  test_auto_big();
  test_auto_long_axis();
  test_iso();
  test_compressive();
  test_compressive_cost();
  printf("view policy: ok\n");
  return 0;
}

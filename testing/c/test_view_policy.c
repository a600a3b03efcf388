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

/* AUTO's table for uint8 voxels measured on an H100 80GB HBM3 (gpu_sweeps_2026-11-23_h100_auto_checked_summary.txt,
   the tuner's per-class summary): per class (ray axis x, y, z; 15-degree group 0..5) the cheapest shape, its cost
   and the standard 16x16 block's cost relative to it. The other shapes' costs are not in the summary (unmeasured: 0). */
static const struct { int best; double ns, vs16; } H100_U8[CAVR_TUNE_CLASSES] = {
    {3, 0.00313, 1.0105}, {0, 0.00336, 1.0}, {0, 0.00362, 1.0}, {3, 0.00380, 1.0052}, {6, 0.00384, 1.0263},
    {5, 0.00363, 1.1108}, {0, 0.00330, 1.0}, {3, 0.00358, 1.0113}, {3, 0.00385, 1.0003}, {0, 0.00392, 1.0},
    {5, 0.00402, 1.0088}, {5, 0.00374, 1.1174}, {0, 0.00373, 1.0}, {0, 0.00381, 1.0}, {0, 0.00385, 1.0},
    {0, 0.00379, 1.0}, {0, 0.00372, 1.0}, {3, 0.00354, 1.0145}};

static void h100_table(CAVRTuneTable *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->gpu, sizeof t->gpu, "NVIDIA H100 80GB HBM3");
  t->storage = CAVR_STORE_U8;
  for (int c = 0; c < CAVR_TUNE_CLASSES; ++c) {
    t->cost[c][0] = (float)(H100_U8[c].ns * H100_U8[c].vs16);
    t->cost[c][H100_U8[c].best] = (float)H100_U8[c].ns;
  }
  /* Isosurfaces, kernel ns per ray: Colin27 at 160^2 on the same H100 (test_gpu_auto's log of 2026-11-26: standard
     0.301 ms and warp marching 0.058 ms with rays along z, 0.258 and 0.053 ms along x). */
  for (int g = 0; g < CAVR_TUNE_GROUPS; ++g) {
    t->isoCost[2 * CAVR_TUNE_GROUPS + g][0] = 0.301e6f / 25600.0f;
    t->isoCost[2 * CAVR_TUNE_GROUPS + g][1] = 0.058e6f / 25600.0f;
    t->isoCost[0 * CAVR_TUNE_GROUPS + g][0] = 0.258e6f / 25600.0f;
    t->isoCost[0 * CAVR_TUNE_GROUPS + g][1] = 0.053e6f / 25600.0f;
  }
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
static CAVRRenderPlan frame(const CAVRSettingsDesc *s, const double V[16], const double spacing[3],
                            const CAVRTuneTable *t, int *rotation, int noRotate, const CAVRPlanHistory *h) {
  double d[3], r[3], u[3];
  cavr_plan_view_index(V, spacing, d, r, u);
  const CAVRTuneTable *table = cavr_plan_needs_table(s, noRotate) ? t : NULL;
  CAVRRenderPlan p;
  cavr_plan_frame(s, d, r, u, table, *rotation, noRotate, h, &p);
  *rotation = p.rotation;
  cavr_plan_launch(d, r, u, table, *rotation, h, &p);
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
     x with y vertical, (x, 5), cost 0.00363 unturned; turned about y (z, 0) 0.00373, about z (y, 5) 0.00374). */
  static const int degs[4] = {0, 45, 90, 180};
  for (int axis = 0; axis < 3; ++axis)
    for (int k = 0; k < 4; ++k) {
      memset(&h, 0, sizeof h);
      rot = CAVR_ROT_NONE;
      orbit_view(axis, degs[k], 0, V);
      p = frame(&s, V, one, &t, &rot, 0, &h);
      CHECK(p.rotation == CAVR_ROT_NONE && p.seenClass >= 0 && p.shape == H100_U8[p.seenClass].best);
    }
  orbit_view(1, 90, 0, V);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.viewClass == 5 && p.seenClass == 5 && p.shape == 5 && block_is(&p, 2, 128, 2, 16));
  /* A GPU where rays along x cost 20% more (Misaki 2017's case): the table says turn about y, into (z, 0). */
  CAVRTuneTable slowX = t;
  for (int g = 0; g < CAVR_TUNE_GROUPS; ++g)
    for (int k = 0; k < CAVR_TUNE_SHAPES; ++k) slowX.cost[g][k] *= 1.2f;
  memset(&h, 0, sizeof h);
  rot = CAVR_ROT_NONE;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Y && p.seenClass == 2 * CAVR_TUNE_GROUPS && p.shape == 0);
  /* ... checked on the volume: turned (frame 1), unturned (frame 2), then the cheaper state per sample is kept. */
  cavr_plan_record(&p, rot, 2.0, 1000, 25600.0, 1, &h); /* 2000 ns per sample turned */
  CHECK(h.seenState[5][CAVR_ROT_Y] == 2000.0f && h.seen[2 * CAVR_TUNE_GROUPS][0] == 2000.0f);
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE && p.seenClass == 5);
  cavr_plan_record(&p, rot, 2.2, 1000, 25600.0, 1, &h); /* unturned: 2200 */
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Y); /* 2000 * 1.05 < 2200: turn */
  /* Turned, it stays turned unless the unturned state is cheaper by more than the margin. */
  h.seenState[5][CAVR_ROT_NONE] = 1950.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_Y); /* 2000 <= 1950 * 1.05 */
  h.seenState[5][CAVR_ROT_NONE] = 1800.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE); /* 2000 > 1890 */
  /* Unturned, it turns only when turned is cheaper by more than the margin. */
  h.seenState[5][CAVR_ROT_NONE] = 2050.0f;
  p = frame(&s, V, one, &slowX, &rot, 0, &h);
  CHECK(p.rotation == CAVR_ROT_NONE); /* 2000 * 1.05 >= 2050 */
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
  CHECK(p.shape == 0); /* 900 < 1000: the standard block ran cheaper on this volume */
  cavr_plan_record(&p, rot, 1.3, 1000, 25600.0, 1, &h); /* running mean of two: (900 + 1300) / 2 */
  CHECK(h.seen[p.seenClass][0] == 1100.0f);
  p = frame(&s, V, one, &t, &rot, 0, &h);
  CHECK(p.shape == 3);
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

/* Isosurfaces: the requested method; AUTO alternates the two methods for two frames each, then keeps the cheaper. */
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
  /* The table prices warp marching cheaper for rays along z: it goes first; then 0 1 0; then the cheaper here. */
  static const int expect[6] = {1, 0, 1, 0, 0, 0};
  static const double ms[4] = {0.10, 0.08, 0.12, 0.09}; /* standard's least 0.08 ms < warp marching's 0.10 */
  for (int f = 0; f < 6; ++f) {
    p = frame(&s, V, one, &t, &rot, 0, &h);
    CHECK(p.isoMethod == expect[f] && p.isoClass == 2 * CAVR_TUNE_GROUPS && !p.useTable);
    cavr_plan_record(&p, rot, f < 4 ? ms[f] : 0.2, 0, 25600.0, 1, &h);
  }
  CHECK(h.seenIsoCount[2 * CAVR_TUNE_GROUPS][0] == 4 && h.seenIsoCount[2 * CAVR_TUNE_GROUPS][1] == 2);
  CHECK(h.seenIso[2 * CAVR_TUNE_GROUPS][1] == (float)(0.10 * 1e6 / 25600.0)); /* the least, not the last */
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
  test_iso();
  test_compressive();
  printf("view policy: ok\n");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * view_policy.c - the GPU back end's rendering policy, decided on the CPU: view classification for thread-block
 * shaping (Sugimoto 2013), the in-place rotation choice (Misaki 2017), AUTO's use of the measured table with its
 * checks on the volume rendered, the isosurface method, and whether a frame renders compressively. Pure functions
 * of their arguments; the back ends execute the plan.
 */
#include <math.h>
#include <string.h>

#include "backend.h" /* cavr_iso_method */
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
  const double angle = cavr_plan_x_lean(dirIndex); /* 45: x as parallel to the rays as another axis */
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

/* ------------------------------------------------------------------------------------------------ the plan */

void cavr_plan_view_index(const double view[16], const double spacing[3], double dir[3], double right[3],
                          double up[3]) {
  /* Camera axes from the view matrix's rows. */
  const double *V = view;
  const double dirW[3] = {-V[2], -V[6], -V[10]}, rightW[3] = {V[0], V[4], V[8]}, upW[3] = {V[1], V[5], V[9]};
  for (int a = 0; a < 3; ++a) {
    dir[a] = dirW[a] * (1.0 / spacing[a]);
    right[a] = rightW[a] * spacing[a];
    up[a] = upW[a] * spacing[a];
  }
}

static int own_kernels(const CAVRSettingsDesc *s) {
  return s->blendMode == CAVR_BLEND_ISOSURFACE || s->blendMode == CAVR_BLEND_SLICE;
}

int cavr_plan_needs_table(const CAVRSettingsDesc *s, int noRotate) {
  if (s->strategy != CAVR_STRATEGY_AUTO) return 0;
  if (!own_kernels(s)) return !s->blockShape;
  return s->blendMode == CAVR_BLEND_ISOSURFACE && s->isoMethod == CAVR_ISO_AUTO && !noRotate;
}

/* Whether turning from a state costing `now` to one costing `then` (ns per sample) pays for the turn over the horizon
   at the last frame's samples (1 when nothing is known to price it with). */
static int turn_pays(const CAVRPlanHistory *h, double bytes, double now, double then) {
  if (!(h->samples > 0.0) || !(now > 0.0) || !(then > 0.0)) return 1;
  const double savedMs = (now - then) * h->samples * 1e-6 * CAVR_AUTO_ROTATION_HORIZON;
  const double perGiB = h->rotationMsPerGiB > 0.0 ? h->rotationMsPerGiB : CAVR_AUTO_ROTATION_MS_PER_GIB;
  return savedMs > perGiB * bytes / 1073741824.0;
}

/* The block shape stored class sc's pair kept: the cheaper of the pair's two (16x16 on a tie), or -1 when unpaired. */
static int shape_kept(const CAVRPlanHistory *h, int sc) {
  if (!h->shapePaired[sc]) return -1;
  int k = 0;
  for (int i = 1; i < CAVR_TUNE_SHAPES; ++i)
    if (h->seen[sc][i] > 0.0f && h->seen[sc][i] < h->seen[sc][k]) k = i;
  return k;
}

/* Whether stored class sc's shape verdict is stale: made more than CAVR_AUTO_PAIR_SPAN_DEG of obliquity away, or the
   kept shape has since run dearer on average than the other's pair frame (CAVR_AUTO_SHAPE_FOLLOW). */
static int shape_pair_stale(const CAVRPlanHistory *h, int sc, double obliquity) {
  const int k = shape_kept(h, sc);
  if (k < 0) return 0;
  if (fabs(obliquity - h->shapePairObliquity[sc]) > CAVR_AUTO_PAIR_SPAN_DEG) return 1;
  for (int i = 0; i < CAVR_TUNE_SHAPES && h->keptCount[sc] >= 2; ++i)
    if (i != k && h->seen[sc][i] > 0.0f && h->keptMean[sc] > h->seen[sc][i]) return 1;
  return 0;
}

/* Whether the stored view (d, r, u)'s class still has its block shapes' pair to run: the table's shape is not 16x16
   and the class has no pair, or a stale one. */
static int shape_pair_open(const CAVRTuneTable *table, double bytes, const CAVRPlanHistory *h, const double d[3],
                           const double r[3], const double u[3]) {
  const int sc = cavr_tune_class(d, r, u);
  if (cavr_tune_best_shape(table, bytes, sc, NULL) <= 0) return 0;
  return !h->shapePaired[sc] || shape_pair_stale(h, sc, cavr_plan_obliquity(d));
}

/* AUTO with a table: the table's rotation state at the volume's size, checked on this volume as the shapes are: where
   it says turn (or, beyond the table's sizes, for its cheapest turn), the class's next two frames run turned and
   unturned (a pair), then the state that ran cheaper per sample is kept. A change of state must also pay for itself:
   the kernel time it saves per frame over the horizon against the turn's cost (a turn of a 42.9 GiB cube costs 33-41
   ms; at 90 degrees it saves 1.7-2.4 ms a frame on an H100). */
static int auto_rotation(const CAVRTuneTable *table, double bytes, const double dir[3], const double right[3],
                         const double up[3], int canRotate, int rotation, const CAVRPlanHistory *h, int *viewClass,
                         int *repair, int *secondTurn) {
  CAVRTuneChoice choice;
  cavr_tune_choose(table, bytes, dir, right, up, canRotate, rotation, CAVR_AUTO_ROTATION_MARGIN, &choice);
  int want = choice.rotation;
  const int vc = cavr_tune_class(dir, right, up);
  *viewClass = vc;
  if (!h) return want;
  const float *seen = h->seenState[vc];
  /* A pair's verdict is stale once the rays lean CAVR_AUTO_PAIR_SPAN_DEG further towards x than where it kept the
     volume unturned, or that much less than where it kept it turned: the class is paired again. */
  int paired = h->statePaired[vc];
  if (paired) {
    /* The state the volume is in is the one the verdict kept (within the margin the two may cost the same). */
    const int keptTurned = rotation != CAVR_ROT_NONE;
    const double lean = cavr_plan_x_lean(dir), at = h->pairLean[vc];
    if (keptTurned ? lean < at - CAVR_AUTO_PAIR_SPAN_DEG : lean > at + CAVR_AUTO_PAIR_SPAN_DEG) paired = 0;
  }
  /* The turned state to try: the table's choice, or where the table's cubes do not price the volume (beyond their
     sizes, or a volume with a long axis) its cheapest turn. */
  int turn = want;
  const int unpriced = bytes > CAVR_AUTO_EXPLORE_BEYOND * cavr_tune_max_bytes(table) ||
                       h->elongation >= CAVR_AUTO_EXPLORE_ELONGATION;
  if (turn == CAVR_ROT_NONE && unpriced) {
    const float y = choice.stateCost[CAVR_ROT_Y], z = choice.stateCost[CAVR_ROT_Z];
    turn = y > 0.0f && (z <= 0.0f || y <= z) ? CAVR_ROT_Y : z > 0.0f ? CAVR_ROT_Z : CAVR_ROT_NONE;
  } else if (turn != CAVR_ROT_NONE && rotation == CAVR_ROT_NONE && !paired &&
             !turn_pays(h, bytes, choice.stateCost[CAVR_ROT_NONE], choice.stateCost[turn])) {
    turn = CAVR_ROT_NONE; /* the table's saving would not pay for trying the turn */
  }
  if (turn != CAVR_ROT_NONE && !paired) {
    /* Not compared on this volume yet (or stale): the pair. The state measured on the last frame is followed by the
       other. */
    *repair = h->statePaired[vc];
    if (!*repair && h->frames && h->seenStateFrame[vc][rotation] == h->frames) { /* (a stale pair's are void) */
      /* Each state is priced at its best block shape: while the stored class's shape pair (the table's shape, then
         16x16) is open, the state stays (measured 2026-11-28: turned with the table's 2x128 lost to unturned at 60
         degrees on 512x512x4096, turned with 16x16 won by 1.23x). */
      double d[3], r[3], u[3];
      cavr_to_stored(dir, rotation, d);
      cavr_to_stored(right, rotation, r);
      cavr_to_stored(up, rotation, u);
      if (shape_pair_open(table, bytes, h, d, r, u)) return rotation;
      return rotation == CAVR_ROT_NONE ? turn : CAVR_ROT_NONE;
    }
    return rotation == CAVR_ROT_NONE ? turn : rotation;
  }
  if (paired) { /* the pair's verdict, with hysteresis: the cheaper turn measured against the unturned state */
    const int t = seen[CAVR_ROT_Y] > 0.0f && (seen[CAVR_ROT_Z] <= 0.0f || seen[CAVR_ROT_Y] <= seen[CAVR_ROT_Z])
                      ? CAVR_ROT_Y : CAVR_ROT_Z;
    const float turned = seen[t], plain = seen[CAVR_ROT_NONE];
    if (turned > 0.0f && plain > 0.0f)
      want = rotation == CAVR_ROT_NONE ? (turned * (1.0 + CAVR_AUTO_ROTATION_MARGIN) < plain ? t : CAVR_ROT_NONE)
                                       : (turned > plain * (1.0 + CAVR_AUTO_ROTATION_MARGIN) ? CAVR_ROT_NONE : t);
    /* Where the table does not price the volume and the turn it ranked first is not kept (it lost, or its saving
       would not pay for the turn), the other turn gets its own pair (measured 2026-11-28, 512x512x4096 at 60-90
       degrees about y, H200: the turn about z with 2x128 blocks was never kept, the turn about y with 16x16 blocks
       ran 1.23x faster than unturned). */
    const int other = t == CAVR_ROT_Y ? CAVR_ROT_Z : CAVR_ROT_Y;
    const int kept = want != CAVR_ROT_NONE && turned > 0.0f && plain > 0.0f && turn_pays(h, bytes, plain, turned);
    if (unpriced && canRotate && !kept && rotation == CAVR_ROT_NONE && seen[other] <= 0.0f &&
        choice.stateCost[other] > 0.0f) {
      *secondTurn = 1;
      return other;
    }
  }
  if (want != rotation && rotation >= 0 && rotation < 3) {
    /* A change must pay for the turn. Cost per sample of each state: measured on this volume, else the table's. */
    const double now = seen[rotation] > 0.0f ? seen[rotation] : choice.stateCost[rotation];
    const double then = seen[want] > 0.0f ? seen[want] : choice.stateCost[want];
    if (!turn_pays(h, bytes, now, then)) want = rotation;
  }
  return want;
}

/* Isosurfaces with the AUTO method, per view (Wang 2014's future work): the method the measured table prices cheaper
   for the view's class as stored, then checked on this volume: the first four frames of a class alternate the two
   methods (the table's first), after that the one with the lower least cost per ray here is kept. Two frames each,
   because a kernel's first launch in a process also pays its module loading (measured: a first standard frame of
   2.5x its cost made AUTO keep the slower warp marching). */
static int auto_iso_method(const CAVRTuneTable *table, const double dir[3], const double right[3], const double up[3],
                           int rotation, const CAVRPlanHistory *h, int *isoClass) {
  double d[3], r[3], u[3];
  cavr_to_stored(dir, rotation, d);
  cavr_to_stored(right, rotation, r);
  cavr_to_stored(up, rotation, u);
  *isoClass = cavr_tune_class(d, r, u);
  static const CAVRPlanHistory none;
  const CAVRPlanHistory *k = h ? h : &none;
  const float *seen = k->seenIso[*isoClass];
  const unsigned char *cnt = k->seenIsoCount[*isoClass];
  int m = cavr_tune_iso_method(table, *isoClass);
  if (cnt[m] < 2 || cnt[1 - m] < 2) m = cnt[m] <= cnt[1 - m] ? m : 1 - m;
  else m = seen[1] < seen[0] ? 1 : 0;
  return m;
}

double cavr_plan_obliquity(const double dir[3]) {
  const double ax = fabs(dir[0]), ay = fabs(dir[1]), az = fabs(dir[2]), n = sqrt(ax * ax + ay * ay + az * az);
  if (n == 0.0) return 0.0;
  const double c = fmax(ax, fmax(ay, az)) / n;
  return acos(c < 1.0 ? c : 1.0) * 180.0 / CAVR_PI;
}

double cavr_plan_x_lean(const double dir[3]) {
  const double ax = fabs(dir[0]), other = fmax(fabs(dir[1]), fabs(dir[2]));
  return ax == 0.0 && other == 0.0 ? 0.0 : atan2(ax, other) * 180.0 / CAVR_PI;
}

double cavr_plan_elongation(const int dims[3]) {
  int lo = dims[0], hi = dims[0];
  for (int a = 1; a < 3; ++a) {
    lo = dims[a] < lo ? dims[a] : lo;
    hi = dims[a] > hi ? dims[a] : hi;
  }
  return lo > 0 ? (double)hi / lo : 0.0;
}

void cavr_plan_frame(const CAVRSettingsDesc *s, const double dir[3], const double right[3], const double up[3],
                     const CAVRTuneTable *table, double volumeBytes, int rotation, int noRotate,
                     const CAVRPlanHistory *h, CAVRRenderPlan *plan) {
  memset(plan, 0, sizeof *plan);
  const int strategy = s->strategy, iso = s->blendMode == CAVR_BLEND_ISOSURFACE;
  plan->strategy = strategy;
  plan->ownKernels = own_kernels(s);
  plan->forcedShape = s->blockShape > 0 && s->blockShape <= CAVR_TUNE_SHAPES ? s->blockShape - 1 : -1;
  /* STANDARD: the 16x16 block; AUTO: no shaping of its own (the table's shapes replace it) */
  plan->flags = strategy == CAVR_STRATEGY_STANDARD || strategy == CAVR_STRATEGY_AUTO ? 0u : s->shapingFlags;
  plan->useTable = strategy == CAVR_STRATEGY_AUTO && !s->blockShape && !plan->ownKernels && table != NULL;
  plan->rotation = CAVR_ROT_NONE;
  plan->viewClass = plan->isoClass = plan->seenClass = -1;
  plan->shape = -1;
  if (plan->ownKernels) { /* they read the volume as it lies (iso.cu maps through the rotation) */
    plan->rotation = rotation;
    if (iso) plan->isoMethod = cavr_iso_method(s->isoMethod, dir);
    if (iso && s->isoMethod == CAVR_ISO_AUTO && !noRotate)
      plan->isoMethod = auto_iso_method(strategy == CAVR_STRATEGY_AUTO ? table : NULL, dir, right, up, rotation, h,
                                        &plan->isoClass);
  } else if (s->blockShape) {
    plan->rotation = CAVR_ROT_NONE; /* calibration: the volume as uploaded */
  } else if (plan->useTable) {
    plan->xLean = cavr_plan_x_lean(dir);
    plan->rotation = auto_rotation(table, volumeBytes, dir, right, up, s->rotation && !noRotate, rotation, h,
                                   &plan->viewClass, &plan->repair, &plan->secondTurn);
  } else if (strategy == CAVR_STRATEGY_SHAPED && s->rotation) {
    plan->rotation = cavr_choose_rotation(dir, right, rotation, CAVR_ROTATION_HYSTERESIS);
  }
  if (noRotate) plan->rotation = CAVR_ROT_NONE;
}

void cavr_plan_launch(const double dir[3], const double right[3], const double up[3], const CAVRTuneTable *table,
                      double volumeBytes, int rotation, const CAVRPlanHistory *h, CAVRRenderPlan *plan) {
  double d[3], r[3], u[3];
  static const double ones[3] = {1.0, 1.0, 1.0};
  cavr_to_stored(dir, rotation, d);
  cavr_to_stored(right, rotation, r);
  cavr_to_stored(up, rotation, u);
  CAVRViewClass vc;
  cavr_classify_view(d, r, u, ones, plan->flags, 512, &vc);
  plan->blockW = vc.blockW;
  plan->blockH = vc.blockH;
  plan->warpW = vc.warpW;
  plan->warpH = vc.warpH;
  plan->transposed = vc.transposed;
  plan->syncPropagation = vc.syncPropagation;
  int shape = plan->forcedShape;
  plan->seenClass = -1;
  if (plan->useTable && table) {
    /* The table's cheapest shape for the view's class as stored (after the rotation actually made), checked on this
       volume: the first frames of a class try it and the standard 16x16 block once each; then the one that ran
       cheaper per sample on this volume is kept. */
    const int sc = cavr_tune_class(d, r, u);
    plan->seenClass = sc;
    plan->obliquity = cavr_plan_obliquity(d);
    shape = cavr_tune_best_shape(table, volumeBytes, sc, NULL);
    if (shape < 0) shape = 0;
    if (h && shape != 0) {
      plan->shapeRepair = shape_pair_stale(h, sc, plan->obliquity); /* stale: the table's shape first, again */
      if (!plan->shapeRepair && h->shapePaired[sc]) shape = shape_kept(h, sc);
      else if (!plan->shapeRepair && h->frames && h->seenFrame[sc][shape] == h->frames) shape = 0; /* its 2nd frame */
    }
  }
  plan->shape = shape;
  if (shape >= 0) {
    const CAVRBlockShape *b = &cavr_block_shapes[shape];
    plan->blockW = b->blockW;
    plan->blockH = b->blockH;
    plan->warpW = b->warpW;
    plan->warpH = b->warpH;
    plan->transposed = b->transposed;
    plan->syncPropagation = 0;
  }
}

/* Record cost ns of plan k (of n: block shapes, or rotation states with x along the rays) measured on frame f of a
   class not yet paired; 1 when it completes a pair: plan 0 (16x16, unturned) and another measured on frame f - 1, in
   either order, or with `lastZero` only plan 0 after the other (a turned state's frames, then the unturned one). */
static int pair_record(float *cost, unsigned *frame, int n, int k, float ns, unsigned f, int lastZero) {
  cost[k] = ns;
  frame[k] = f;
  if (lastZero && k != 0) return 0;
  for (int o = 0; o < n; ++o)
    if (o != k && (o == 0 || k == 0) && frame[o] == f - 1 && cost[o] > 0.0f) return 1;
  return 0;
}

void cavr_plan_record(const CAVRRenderPlan *plan, int rotation, double kernelMs, uint64_t samples, double pixels,
                      int fullFrame, CAVRPlanHistory *h) {
  if (!fullFrame) return; /* a ray list's cost per sample differs */
  if (samples > 0) h->samples = (double)samples;
  if (plan->isoClass >= 0 && pixels > 0.0) {
    const float ns = (float)(kernelMs * 1e6 / pixels);
    float *seen = &h->seenIso[plan->isoClass][plan->isoMethod];
    unsigned char *cnt = &h->seenIsoCount[plan->isoClass][plan->isoMethod];
    *seen = *cnt == 0 || ns < *seen ? ns : *seen;
    if (*cnt < 255) ++*cnt;
  }
  if (plan->seenClass >= 0 && plan->shape >= 0 && samples > 0) {
    const float ns = (float)(kernelMs * 1e6 / (double)samples);
    const unsigned f = ++h->frames;
    const int sc = plan->seenClass, vc = plan->viewClass;
    if (plan->shapeRepair) { /* a stale shape pair runs again from this frame, on new measurements only */
      h->shapePaired[sc] = 0;
      memset(h->seen[sc], 0, sizeof h->seen[sc]);
      memset(h->seenFrame[sc], 0, sizeof h->seenFrame[sc]);
    }
    if (!h->shapePaired[sc]) {
      h->shapePaired[sc] = (unsigned char)pair_record(h->seen[sc], h->seenFrame[sc], CAVR_TUNE_SHAPES, plan->shape, ns, f, 0);
      if (h->shapePaired[sc]) {
        h->shapePairObliquity[sc] = (float)plan->obliquity;
        h->keptMean[sc] = h->seen[sc][shape_kept(h, sc)];
        h->keptCount[sc] = 1;
      }
    } else if (plan->shape == shape_kept(h, sc)) { /* the kept shape's later frames: its running mean */
      if (h->keptCount[sc] < CAVR_AUTO_SHAPE_FOLLOW) ++h->keptCount[sc];
      h->keptMean[sc] += (ns - h->keptMean[sc]) / (float)h->keptCount[sc];
    }
    if (vc >= 0 && plan->repair) { /* a stale pair runs again from this frame, on new measurements only */
      h->statePaired[vc] = 0;
      memset(h->seenState[vc], 0, sizeof h->seenState[vc]);
      memset(h->seenStateFrame[vc], 0, sizeof h->seenStateFrame[vc]);
    }
    if (vc >= 0 && plan->secondTurn) h->statePaired[vc] = 0; /* the other turn's pair (its costs add to the first's) */
    if (vc >= 0 && vc / CAVR_TUNE_GROUPS == 0 && !h->statePaired[vc] && rotation >= 0 && rotation < 3) {
      /* A state measured on consecutive frames (its block shapes' pair) is priced at the cheaper of them. */
      const float prev = h->seenState[vc][rotation];
      const float c = h->seenStateFrame[vc][rotation] == f - 1 && prev > 0.0f && prev < ns ? prev : ns;
      h->statePaired[vc] = (unsigned char)pair_record(h->seenState[vc], h->seenStateFrame[vc], 3, rotation, c, f, 1);
      if (h->statePaired[vc]) h->pairLean[vc] = (float)plan->xLean;
    }
  }
}

void cavr_plan_record_rotation(double ms, double bytes, CAVRPlanHistory *h) {
  if (ms > 0.0 && bytes > 0.0) h->rotationMsPerGiB = ms * 1073741824.0 / bytes;
}

int cavr_plan_compressive(const CAVRSettingsDesc *s, int width, int height) {
  return s->sampleFraction < 1.0f && width >= 4 && height >= 4;
}

/* ------------------------------------------------------------------------ compressive only where it pays */

static void cost_reset(CAVRCompressiveCost *c, uint64_t key) {
  memset(c, 0, sizeof *c);
  c->key = key;
  c->period = CAVR_COMPRESSIVE_PROBE_MIN;
  c->choice = -1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t cavr_compressive_key(const CAVRSettingsDesc *s, int width, int height, int backend, uintptr_t volume) {
  const int v[] = {width, height, backend, (int)s->blendMode, (int)s->interpolation, s->shade, s->supersample,
                   s->reconstruction, s->adaptive, s->maxIterations, s->emptySpaceSkipping, s->lightCount};
  uint64_t h = fnv(14695981039346656037ull, v, sizeof v);
  h = fnv(h, &s->sampleDistance, sizeof s->sampleDistance);
  h = fnv(h, &volume, sizeof volume);
  return h ? h : 1; /* 0 is a zeroed record's */
}

int cavr_compressive_decide(CAVRCompressiveCost *c, uint64_t key, double fraction, int autoMode, double *predFull,
                            double *predCompressive) {
  if (c->key != key) cost_reset(c, key);
  const int haveFull = c->fullMs > 0.0, haveComp = c->fraction > 0.0;
  const double pc = haveComp ? c->solveMs + c->rayMs * fraction / c->fraction : haveFull ? c->fullMs * fraction : 0.0;
  const double pf = haveFull ? c->fullMs : haveComp ? c->rayMs / c->fraction : 0.0;
  *predFull = pf;
  *predCompressive = pc;
  if (!autoMode) return CAVR_COMPRESSIVE_RENDERED;
  if (!haveFull && !haveComp) return CAVR_COMPRESSIVE_RENDERED; /* nothing known: the frame asked for */
  const int cheaper = pc < pf * CAVR_COMPRESSIVE_MARGIN;
  if (c->choice >= 0 && cheaper != c->choice) { /* the prediction flipped: re-measure soon */
    c->period = CAVR_COMPRESSIVE_PROBE_MIN;
    c->since = 0;
  }
  c->choice = cheaper;
  const int estimated = cheaper ? !haveFull : !haveComp; /* the other side is only an estimate: measure it now */
  if (estimated || ++c->since > c->period) { /* (re-)measure the other side */
    c->since = 0;
    if (!estimated)
      c->period = c->period * 2 > CAVR_COMPRESSIVE_PROBE_MAX ? CAVR_COMPRESSIVE_PROBE_MAX : c->period * 2;
    return cheaper ? CAVR_COMPRESSIVE_PROBE_FULL : CAVR_COMPRESSIVE_PROBE;
  }
  return cheaper ? CAVR_COMPRESSIVE_RENDERED : CAVR_COMPRESSIVE_NOT_PAYING;
}

static double smooth(double old, double x) {
  return old > 0.0 ? old + CAVR_COMPRESSIVE_SMOOTHING * (x - old) : x;
}

void cavr_compressive_record(CAVRCompressiveCost *c, uint64_t key, int compressive, double fraction, double frameMs,
                             double solveMs) {
  if (c->key != key) cost_reset(c, key);
  if (!(frameMs > 0.0)) frameMs = 1e-6; /* a timer that did not move: still a measurement */
  if (!compressive) {
    c->fullMs = smooth(c->fullMs, frameMs);
    return;
  }
  double ray = frameMs - solveMs;
  if (ray < 1e-6) ray = 1e-6;
  if (c->fraction > 0.0) ray *= c->fraction / fraction; /* kept at the fraction measured first */
  else c->fraction = fraction;
  c->rayMs = smooth(c->rayMs, ray);
  c->solveMs = c->solveMs > 0.0 ? smooth(c->solveMs, solveMs) : solveMs;
}

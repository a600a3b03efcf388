// SPDX-License-Identifier: BSD-3-Clause
/*
 * view_policy.h - per-frame rendering policy, decided on the CPU from the view, the settings, AUTO's table measured
 * on this GPU (gpu_tune.h) and what earlier frames of the volume cost: thread-block shaping (Sugimoto et al. 2013,
 * sec. 4-5, Table 2), when to rotate the volume in place (Misaki et al. 2017, sec. 3-4; any axis and non-cubic
 * volumes, with hysteresis), the isosurface method, and whether a frame renders compressively. The result is a plain
 * CAVRRenderPlan that the CUDA back end executes. Plain C, unit-tested on the CPU (testing/c/test_view_policy.c).
 */
#ifndef CAVR_VIEW_POLICY_H
#define CAVR_VIEW_POLICY_H

/** Thread-block shaping strategies that can be switched on one by one (bit flags). */
enum {
  CAVR_SHAPE_DYNAMIC_BLOCK = 1 << 0,   /**< warp shape follows the primary axis on screen (Table 2) */
  CAVR_SHAPE_TRANSPOSED = 1 << 1,      /**< column-major block order when the primary axis is vertical */
  CAVR_SHAPE_MAX_BLOCK = 1 << 2,       /**< 512-thread blocks when x is along the rays */
  CAVR_SHAPE_SYNC_PROPAGATION = 1 << 3 /**< __syncthreads() every step when z is along the rays */
};

typedef struct CAVRViewClass {
  int rayAxis;            /**< index axis (0 x, 1 y, 2 z) most parallel to the rays; the other two span the
                               volume plane most parallel to the screen */
  int primaryAxis;        /**< of that plane's two axes, x before y before z */
  double screenAngleDeg;  /**< on-screen direction of the primary axis, folded into [0, 90]; 0 = horizontal */
  int warpW, warpH;       /**< warp shape in pixels, 32x1 ... 1x32 (Table 2: 15-degree groups) */
  int blockW, blockH;     /**< thread block in pixels for the enabled flags */
  int transposed;         /**< 1: blocks are ordered column-major */
  int syncPropagation;    /**< 1: threads of a block step in lockstep */
} CAVRViewClass;

/**
 * Classify a view. `dir` is the viewing direction and `right`, `up` the screen axes, all in world units;
 * `spacing` the voxel spacing (index axis a is spacing[a] * e_a in the world). `flags` selects the
 * CAVR_SHAPE_* strategies: with none, the result is the standard 16x16 block. `maxThreads` is the block
 * size used with CAVR_SHAPE_MAX_BLOCK (512 in the paper), 256 otherwise.
 */
void cavr_classify_view(const double dir[3], const double right[3], const double up[3], const double spacing[3],
                        unsigned flags, int maxThreads, CAVRViewClass *out);

/** In-place rotation states of the volume on the GPU (one quarter turn or none). */
enum { CAVR_ROT_NONE = 0, CAVR_ROT_Y = 1, CAVR_ROT_Z = 2 };

/**
 * Which rotation state the volume should be in for viewing direction `dirIndex` (index space, any length) and
 * screen right direction `rightIndex` (index space: world right * spacing), given its current state. Rotate when
 * x is nearly parallel to the rays: the angle atan(|d_x| / max(|d_y|, |d_z|)) exceeds 45 degrees +
 * `hysteresisDeg`; return to unrotated when it falls below 45 - hysteresisDeg (so a view oscillating near the
 * boundary does not rotate every frame). Of the two quarter turns, the one that makes the old axis nearest the
 * screen's right direction the new (stored) x: about y when |r_z| >= |r_y| (the new x is the old z, and the rays
 * run along stored z), about z otherwise (the new x is the old y). Then a warp's row of pixels walks along the
 * fastest axis in memory, as in Misaki 2017 (sec. 3), which rotates about y for orbits about y; that is the
 * case |r_y| = 0 here. The axis changes only when the other fits clearly better (same hysteresis).
 */
int cavr_choose_rotation(const double dirIndex[3], const double rightIndex[3], int current, double hysteresisDeg);

/** A direction in index space of the volume as uploaded, expressed in the axes of the array as stored after
    `rotation` (CAVR_ROT_*). in and out may not alias. */
void cavr_to_stored(const double in[3], int rotation, double out[3]);

/* ------------------------------------------------------------------------------------------------ the plan */

#include <stdint.h>

#include "cavr_shared.h"
#include "gpu_tune.h"

/** Beyond this multiple of the largest cube the table was measured on, AUTO tries a turn on the volume itself. */
#define CAVR_AUTO_EXPLORE_BEYOND 2.0
/** A volume whose longest axis is at least this multiple of its shortest (in voxels) also tries its cheapest turn on
    itself: the table's rows are cubes, which do not price a long axis (measured 2026-11-28: on 512x512x4096, where
    the table never turned it, a turn with 16x16 blocks was 1.24x faster at 60-75 degrees about y, H100 and H200). */
#define CAVR_AUTO_EXPLORE_ELONGATION 4.0
/** Hysteresis of SHAPED's rotation decision (cavr_choose_rotation), degrees. */
#define CAVR_ROTATION_HYSTERESIS 5.0
/** AUTO keeps the current rotation state unless another is cheaper by more than this fraction. */
#define CAVR_AUTO_ROTATION_MARGIN 0.05
/** A rotation pair's verdict holds within this many degrees of the rays' lean towards x at which it was measured,
    on the side where the loser gains: a turn gains as the rays lean towards x (x along the rays: a warp's neighbours
    lie a row apart), so a pair that kept the volume unturned is run again once the rays lean this much more towards
    x, and one that kept it turned once they lean this much less (measured 2026-11-28 on 512x512x4096, H200: the
    pair at 45 degrees about y kept it unturned, where a turn lost 1.36x; at 60-75 degrees the turn was 1.22x faster
    and AUTO, with that verdict for the whole class, stayed 1.22x slower than the best). Each new pair costs at most
    two turns. A block shape's pair (no turn: one frame of the dearer shape) is likewise run again once the stored
    rays' obliquity moves this much either way (or CAVR_AUTO_SHAPE_FOLLOW). */
#define CAVR_AUTO_PAIR_SPAN_DEG 12.0
/** A block shape's pair is also run again once the kept shape's mean cost since its pair (its pair frame and the
    frames since, the last this many) exceeds the other shape's pair frame: a verdict from one frame each may come from
    a noisy frame (measured 2026-11-29 on 512x512x4096, H200, 90 degrees about x: 8x32 won its pair at 0.0106 against
    16x16's 0.0111 ns per sample, then ran at 0.0108-0.0146 for as long as AUTO kept it, 1.25x the best fixed
    strategy's frame). */
#define CAVR_AUTO_SHAPE_FOLLOW 8
/** AUTO turns the volume only when the kernel time a turn saves over this many frames exceeds the turn's own cost
    (the frames a view is expected to stay: about half a second of interaction at 60 frames/s, or one still frame
    followed by an orbit's first frames in ParaView). */
#define CAVR_AUTO_ROTATION_HORIZON 32
/** The cost of a quarter turn before one is measured on the volume, ms per GiB of voxels (measured: 34-42 ms for a
    42.9 GiB cube on an H100 and an H200). */
#define CAVR_AUTO_ROTATION_MS_PER_GIB 1.0

/**
 * What a volume has shown so far about the cost of the plans tried on it (filled by cavr_plan_record, read by
 * cavr_plan_frame and cavr_plan_launch): AUTO checks the measured table on the volume it renders, since the table
 * is measured on synthetic cubes and a class groups views of different obliquity. A check compares two plans on
 * consecutive frames (a pair: the same view, or nearly, as in an orbit), since the cost per sample changes from
 * view to view more than between the plans compared; once a class is paired its two costs are kept as measured
 * (later frames, of other views, would bias the comparison). Zero it for a new volume.
 */
typedef struct CAVRPlanHistory {
  float seen[CAVR_TUNE_CLASSES][CAVR_TUNE_SHAPES]; /**< kernel ns per sample per stored class and block shape, as
                                                        last measured (kept once the class is paired), 0 = not yet */
  unsigned seenFrame[CAVR_TUNE_CLASSES][CAVR_TUNE_SHAPES]; /**< the frame (h->frames) each was measured at */
  unsigned char shapePaired[CAVR_TUNE_CLASSES];    /**< 1: the table's shape and 16x16 compared on a pair */
  float keptMean[CAVR_TUNE_CLASSES];               /**< the kept shape's ns per sample since its pair: the mean of its
                                                        pair frame and the frames since, the last CAVR_AUTO_SHAPE_FOLLOW */
  unsigned char keptCount[CAVR_TUNE_CLASSES];      /**< frames in keptMean (saturating at CAVR_AUTO_SHAPE_FOLLOW) */
  float shapePairObliquity[CAVR_TUNE_CLASSES];     /**< the stored rays' obliquity (cavr_plan_obliquity, degrees) of
                                                        the frame that completed the class's shape pair */
  float seenState[CAVR_TUNE_CLASSES][3];           /**< the same per class of the view as uploaded (x along the
                                                        rays) and rotation state (CAVR_ROT_*) */
  unsigned seenStateFrame[CAVR_TUNE_CLASSES][3];   /**< the frame each was measured at */
  unsigned char statePaired[CAVR_TUNE_CLASSES];    /**< 1: a turned state and the unturned one compared on a pair */
  float pairLean[CAVR_TUNE_CLASSES];               /**< the rays' lean towards x (cavr_plan_x_lean, degrees) of the
                                                        frame that completed the class's pair */
  float seenIso[CAVR_TUNE_CLASSES][2];             /**< isosurfaces: least kernel ns per ray per stored class, one
                                                        thread per ray [0] and warp marching [1] */
  unsigned char seenIsoCount[CAVR_TUNE_CLASSES][2]; /**< and how many frames measured it (saturating at 255) */
  unsigned frames;                                 /**< full frames recorded */
  double samples;                                  /**< samples of the last full frame recorded (0 = none yet) */
  double rotationMsPerGiB;                         /**< the last quarter turn's cost, ms per GiB (0 = none yet) */
  double elongation;                               /**< the volume's longest axis over its shortest, voxels (set by
                                                        the back end; 0 or 1: a cube as far as AUTO is concerned) */
} CAVRPlanHistory;

/**
 * A GPU frame's plan: which kernels, the rotation state the volume should be in, the thread-block shape and the
 * isosurface method, and the observations the frame's cost is recorded under. Plain data, made on the CPU by
 * cavr_plan_frame (before the volume is turned) and cavr_plan_launch (after, from the state actually reached);
 * the CUDA back end executes it.
 */
typedef struct CAVRRenderPlan {
  int strategy;        /**< CAVRStrategy as requested (STANDARD, SHAPED, AUTO) */
  int ownKernels;      /**< 1: isosurface or slice blend mode, kernels/iso.cu's one-thread-per-ray kernels: no block
                            shape and no rotation of their own (they read the volume as it lies) */
  int forcedShape;     /**< index into cavr_block_shapes forced by the calibration run, else -1 */
  unsigned flags;      /**< CAVR_SHAPE_* strategies for cavr_classify_view (0 for STANDARD and AUTO) */
  int useTable;        /**< 1: block shape and rotation come from the measured table (AUTO with a table, not
                            ownKernels, no forced shape); stats report it as autoTable */
  int rotation;        /**< CAVR_ROT_* state wanted for this frame (cavr_plan_frame) */
  int viewClass;       /**< AUTO with a table: the class of the view as uploaded (its rotation states' costs are
                            recorded under it), else -1 */
  double xLean;        /**< AUTO with a table: the rays' lean towards x as uploaded, degrees (cavr_plan_x_lean) */
  int repair;          /**< 1: the class's rotation pair is stale at this view (CAVR_AUTO_PAIR_SPAN_DEG) and runs
                            again from this frame */
  int secondTurn;      /**< 1: the volume is not priced by the table and the turn tried first lost its pair: this
                            frame starts the other turn's pair */
  int isoMethod;       /**< isosurface blend mode: CAVR_ISO_STANDARD or CAVR_ISO_WARP_MARCHING; 0 otherwise */
  int isoClass;        /**< isosurfaces with the AUTO method: the stored class their cost is recorded under, else -1 */
  /* cavr_plan_launch: */
  int shape;           /**< index into cavr_block_shapes, or -1: the block from the view's classification */
  double obliquity;    /**< AUTO with a table: the stored rays' obliquity, degrees (cavr_plan_obliquity) */
  int shapeRepair;     /**< 1: the stored class's shape pair is stale at this view (CAVR_AUTO_PAIR_SPAN_DEG) and
                            runs again from this frame */
  int seenClass;       /**< AUTO with a table: the stored class the frame's cost per sample is recorded under, or -1 */
  int blockW, blockH, warpW, warpH; /**< thread block and warp, pixels */
  int transposed;      /**< 1: blocks launched column by column */
  int syncPropagation; /**< 1: threads of a block step in lockstep */
} CAVRRenderPlan;

/**
 * The view of camera matrix `view` (column-major 4x4 world-to-eye, OpenGL: the eye looks down -z) in voxel index
 * space of a volume with `spacing` (world units per voxel, > 0): dir = viewing direction / spacing, right and up =
 * the screen axes * spacing (index space as uploaded; lengths are not normalised).
 */
void cavr_plan_view_index(const double view[16], const double spacing[3], double dir[3], double right[3],
                          double up[3]);

/**
 * Whether this frame's plan reads AUTO's measured table (the back end loads it, or measures it, only then):
 * strategy AUTO and either a ray-casting blend mode without a forced shape, or the isosurface mode with the AUTO
 * method on a volume that may be rotated (`noRotate` 0).
 */
int cavr_plan_needs_table(const CAVRSettingsDesc *s, int noRotate);

/**
 * Plan a frame before the volume is turned. s: the settings; dir, right, up: the view in index space
 * (cavr_plan_view_index); table: AUTO's measured table when cavr_plan_needs_table says so and one is available,
 * else NULL; volumeBytes: the volume's size on the GPU, bytes (the table's rows around it price the view);
 * rotation: the volume's current CAVR_ROT_* state; noRotate: 1 when turning it failed before (out of memory or
 * texture size: the plan keeps it unrotated); h: what the volume has shown (may be NULL: nothing yet).
 * Decides: the rotation state (AUTO with a table: the table's cheapest state at this size, checked on this volume:
 * where it says turn, or where the volume is over twice the largest cube the table was measured on (its costs are
 * extrapolated there: every turn is tried) or its longest axis is CAVR_AUTO_EXPLORE_ELONGATION times its shortest
 * (h->elongation: the table's cubes do not price a long axis), the first frames of a class run turned and unturned once each (a pair),
 * then the cheaper state per sample is kept, with CAVR_AUTO_ROTATION_MARGIN of hysteresis; and a change of state
 * only when the kernel time it
 * saves per frame (cost per sample: measured on this volume where it was, else the table's; times the last frame's
 * samples) over CAVR_AUTO_ROTATION_HORIZON frames exceeds the turn's cost (the last turn's ms per GiB on this
 * volume, else CAVR_AUTO_ROTATION_MS_PER_GIB); SHAPED with rotation: cavr_choose_rotation with
 * CAVR_ROTATION_HYSTERESIS degrees; otherwise none; isosurfaces and slices keep the current state) and the
 * isosurface method (requested; AUTO: the table's cheaper method for the stored class, then the first four frames of
 * a class alternate the two, then the one with the lower least cost per ray on this volume is kept).
 */
/** The angle between rays along dir[3] and the index axis nearest them, degrees: 0 along an axis, at most 54.7. A
    block shape's pair verdict holds within CAVR_AUTO_PAIR_SPAN_DEG of the obliquity it was made at. */
double cavr_plan_obliquity(const double dir[3]);

/** The lean of rays along dir[3] (index space as uploaded) towards x, degrees: atan2(|x|, max(|y|, |z|)); 0 across x,
    45 when x is as parallel to the rays as another axis, 90 along x. */
double cavr_plan_x_lean(const double dir[3]);

/** The longest of dims[3] (voxels) over the shortest (1 for a cube; 0 when any is not positive): what
    CAVRPlanHistory.elongation holds. */
double cavr_plan_elongation(const int dims[3]);

void cavr_plan_frame(const CAVRSettingsDesc *s, const double dir[3], const double right[3], const double up[3],
                     const CAVRTuneTable *table, double volumeBytes, int rotation, int noRotate,
                     const CAVRPlanHistory *h, CAVRRenderPlan *plan);

/**
 * Complete the plan once the volume is in state `rotation` (CAVR_ROT_*; the plan's, or another when turning failed):
 * the thread block from the view's classification in the stored axes (cavr_classify_view, the plan's flags, 512
 * threads with CAVR_SHAPE_MAX_BLOCK), replaced by the forced shape, or with a table by the table's cheapest shape for
 * the stored class at volumeBytes, checked on this volume against the standard 16x16 block (the first two frames of
 * a class try each once, a pair; then the cheaper per sample is kept). table, volumeBytes: as for cavr_plan_frame; h may be
 * NULL.
 */
void cavr_plan_launch(const double dir[3], const double right[3], const double up[3], const CAVRTuneTable *table,
                      double volumeBytes, int rotation, const CAVRPlanHistory *h, CAVRRenderPlan *plan);

/** Record the cost of a quarter turn of the volume in h: `ms` for `bytes` bytes of voxels (both > 0). */
void cavr_plan_record_rotation(double ms, double bytes, CAVRPlanHistory *h);

/**
 * Record a frame's measured cost in h: kernelMs, the kernel time (ms) of a frame of `pixels` pixels that cast
 * `samples` samples with the volume in state `rotation`. Only full frames count (fullFrame 0: a ray list, whose
 * cost per sample differs: nothing is recorded).
 */
void cavr_plan_record(const CAVRRenderPlan *plan, int rotation, double kernelMs, uint64_t samples, double pixels,
                      int fullFrame, CAVRPlanHistory *h);

/**
 * Whether a frame of width x height pixels renders compressively (rays for a fraction of the pixels, the rest
 * reconstructed; compressive.c) or casts every ray: compressive when the settings' sample fraction is below 1 and the
 * image is at least 4 x 4 pixels (smaller images have no room for a sampling pattern).
 */
int cavr_plan_compressive(const CAVRSettingsDesc *s, int width, int height);

/* ------------------------------------------------------------------------ compressive only where it pays */

/** AUTO renders compressively only when its predicted cost is below the full frame's times this. */
#define CAVR_COMPRESSIVE_MARGIN 0.9
/** Weight of a new measurement in the smoothed costs (exponential smoothing). */
#define CAVR_COMPRESSIVE_SMOOTHING 0.5
/** Re-measuring the side not chosen: after this many frames at first, doubling after each re-measurement that
    confirms the choice up to CAVR_COMPRESSIVE_PROBE_MAX; back to the first period whenever the choice flips. */
#define CAVR_COMPRESSIVE_PROBE_MIN 4
#define CAVR_COMPRESSIVE_PROBE_MAX 64

/**
 * What the frames of one frame buffer have cost, full and compressive (whole frames as the caller waits: the render
 * call to the image, ms), for the cost model of CAVR_COMPRESSIVE_AUTO. Kept by the frame buffer: it is the object
 * that sees the consecutive frames of one view at one size (a ParaView view renders its volume into one; a volume or
 * a settings object may be shared by views of different sizes, whose costs differ). Valid for one key
 * (cavr_compressive_key: size, back end, volume, blend, shading, interpolation, sample distance, super-sampling,
 * reconstruction): a frame with another key starts it afresh. Zero it for a new frame buffer.
 */
typedef struct CAVRCompressiveCost {
  uint64_t key;
  double fullMs;     /**< smoothed whole-frame ms of full frames; 0 = none measured */
  double rayMs;      /**< compressive frames: smoothed whole-frame ms less the solve (rays, mask, copies) */
  double solveMs;    /**< compressive frames: smoothed solve ms */
  double fraction;   /**< sample fraction of the last compressive frame measured; 0 = none measured */
  int since;         /**< AUTO frames since the side not chosen was last rendered */
  int period;        /**< re-measure the side not chosen after this many frames */
  int choice;        /**< the last prediction: 1 compressive cheaper, 0 full cheaper, -1 none yet */
} CAVRCompressiveCost;

/** The key of a frame's costs: FNV-1a of the frame's size, the back end (CAVRBackend) and volume identity, and the
    settings that change the cost of a ray or of the solve (not the sample fraction: the model scales by it). */
uint64_t cavr_compressive_key(const CAVRSettingsDesc *s, int width, int height, int backend, uintptr_t volume);

/**
 * Decide a frame that asks for compressive rendering at `fraction` (0, 1) (cavr_plan_compressive is true), with the
 * costs in c for `key` (reset first when c holds another key). The rule: the predicted cost of the compressive frame
 * is solveMs + rayMs * fraction / c->fraction (its ray part scales with the rays cast), or with no compressive frame
 * measured yet fullMs * fraction; the full frame's is fullMs, or with none measured rayMs / c->fraction. With
 * `autoMode` 0 (CAVR_COMPRESSIVE_ALWAYS) the frame is compressive (CAVR_COMPRESSIVE_RENDERED). With AUTO: with
 * nothing measured, compressive (the frame the caller asked for); else compressive when predicted < full predicted *
 * CAVR_COMPRESSIVE_MARGIN (RENDERED), full otherwise (NOT_PAYING); but the other side is rendered instead
 * (PROBE_FULL, PROBE) when it has only been estimated (so that one frame measures it: the estimates are rough; a ray
 * list casts rays less efficiently than a full frame on the GPU) and once `period` frames have passed since it was
 * rendered, so that the choice follows changes of view and data. Returns a CAVRCompressiveDecision; predFull and predCompressive
 * (not NULL) receive the predictions, ms (0: nothing to predict from).
 */
int cavr_compressive_decide(CAVRCompressiveCost *c, uint64_t key, double fraction, int autoMode, double *predFull,
                            double *predCompressive);

/**
 * Record a rendered frame in c: `compressive` 1 for a compressive frame at `fraction` with whole-frame time frameMs
 * and solve time solveMs, 0 for a full frame (any sample fraction asked; frameMs). Resets c first when its key
 * differs. Failed frames are not recorded (the caller does not call this).
 */
void cavr_compressive_record(CAVRCompressiveCost *c, uint64_t key, int compressive, double fraction, double frameMs,
                             double solveMs);

#endif

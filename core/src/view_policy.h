/*
 * view_policy.h - per-frame rendering policy for the GPU back end, decided on the CPU from the view:
 * thread-block shaping (Sugimoto et al. 2013, sec. 4-5, Table 2) and when to rotate the volume in place
 * (Misaki et al. 2017, sec. 3-4), with the generalisations SPEC 3b asks for. Plain C, unit-tested.
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

#endif

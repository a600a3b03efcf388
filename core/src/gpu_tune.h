// SPDX-License-Identifier: BSD-3-Clause
/*
 * gpu_tune.h - what AUTO chooses from on a GPU: a table of measured costs per class of view and thread-block
 * shape, made for one GPU model and one voxel storage by a short calibration run and cached on disk. Plain C,
 * unit-tested on the CPU; the calibration itself is in cuda_tune.c, the decisions from it in view_policy.c.
 *
 * A view's class is that of thread-block shaping (Sugimoto et al. 2013, sec. 4-5, Table 2): the index axis most
 * parallel to the rays, and the on-screen direction of the primary axis of the facing plane in 15-degree groups.
 * The table holds, per class, the kernel time per sample of each candidate block shape on dense synthetic cubes of
 * several sizes (its rows: one cube about the size of the L2 cache, one of a few hundred MiB, one of several GiB),
 * so views with different sample counts compare, and a volume is priced by the rows around its own size (the cost
 * of a class depends on how much of the volume a wave of rays touches against the caches and the TLB: on an H100
 * rays along stored x cost about what rays along z cost on a 768^3 cube and 2.2x on a 3584^3 one). In-place
 * rotation (Misaki et al. 2017) turns one class into another (the volume's stored axes change, the view does not),
 * so the same table prices every rotation state and AUTO takes the cheapest state and shape for each view.
 */
#ifndef CAVR_GPU_TUNE_H
#define CAVR_GPU_TUNE_H

#include <stddef.h>
#include <stdio.h>

/** Version of the file format and of the candidate list: a table with another is stale. */
#define CAVR_TUNE_FORMAT 4
/** 15-degree groups of the primary axis's on-screen direction (Sugimoto 2013, Table 2). */
#define CAVR_TUNE_GROUPS 6
/** Classes of view: ray axis (x, y, z) x screen-direction group. */
#define CAVR_TUNE_CLASSES (3 * CAVR_TUNE_GROUPS)
/** Candidate thread-block shapes. */
#define CAVR_TUNE_SHAPES 9
/** Rows of the table: calibration cubes of different sizes (working sets). */
#define CAVR_TUNE_SIZES 3

/** The side (voxels) of each row's calibration cube: 256 (16 MiB of uint8, near the L2 cache of a Hopper GPU), 768
    (432 MiB), 1536 (3.4 GiB: rows of rays along x touch more pages than the TLB holds). */
extern const int cavr_tune_sides[CAVR_TUNE_SIZES];

/** A thread block of blockW x blockH pixels tiled by warps of warpW x warpH (row-major lanes); transposed: blocks
    are launched column by column. */
typedef struct CAVRBlockShape {
  const char *name;
  int blockW, blockH, warpW, warpH, transposed;
} CAVRBlockShape;

/** The candidates, index 0 being the standard 16x16 block (what AUTO uses without a table):
    16x16, 32x8, 64x4, 8x32, 4x64, 2x128, 1x256, 2x256 transposed, 16x32 transposed of 1x32 warps (format 4: the
    block SHAPED takes when the primary axis is vertical on screen, 512 threads). */
extern const CAVRBlockShape cavr_block_shapes[CAVR_TUNE_SHAPES];

typedef struct CAVRTuneTable {
  char gpu[96];      /**< the GPU's name as CUDA reports it */
  int memoryMiB;     /**< its memory, MiB (tells models with one name apart) */
  int storage;       /**< CAVRStorage the table was measured for */
  int version;       /**< CAVR_VERSION of the library that measured it */
  double rowBytes[CAVR_TUNE_SIZES]; /**< bytes of the cube each row was measured on; 0 = row not measured (the
                                         GPU could not hold that cube) */
  int rowSide[CAVR_TUNE_SIZES];     /**< the side of each row's cube as measured (the middle row falls back to 512 or
                                         384 when memory is short); 0 = not tried yet (AUTO measures the largest
                                         row only when a volume needs it) */
  float cost[CAVR_TUNE_SIZES][CAVR_TUNE_CLASSES][CAVR_TUNE_SHAPES]; /**< kernel ns per sample; 0 = not measured */
  /** Isosurfaces: kernel ns per ray of one-thread-per-ray marching [0] and warp marching [1]
      (Wang 2014), per class; 0 = not measured. */
  float isoCost[CAVR_TUNE_CLASSES][2];
} CAVRTuneTable;

/** The isosurface method (CAVR_ISO_STANDARD or CAVR_ISO_WARP_MARCHING) the table prices cheaper for class `cls`;
    standard when the table has no iso figures for it. */
int cavr_tune_iso_method(const CAVRTuneTable *t, int cls);

/** Class (0 .. CAVR_TUNE_CLASSES - 1) of a view given in stored index space with unit spacing: ray direction,
    screen right and up (any lengths). */
int cavr_tune_class(const double dir[3], const double right[3], const double up[3]);

/**
 * The table's cost (kernel ns per sample) of class `cls` and shape `shape` for a volume of `bytes` bytes: the
 * measured rows interpolated linearly in log2(bytes) between the two rows around it, the nearest row's value beyond
 * the smallest or largest measured row (rows measured with a 0 for this class and shape are skipped). 0 when no row
 * has it (or t is NULL, cls or shape out of range).
 */
float cavr_tune_cost(const CAVRTuneTable *t, double bytes, int cls, int shape);

/** The size of the largest cube the table was measured on, bytes (0 for NULL or an empty table). */
double cavr_tune_max_bytes(const CAVRTuneTable *t);

/** The cheapest shape of class `cls` for a volume of `bytes` bytes (cavr_tune_cost) and its cost (ns per sample);
    -1 when none is measured. */
int cavr_tune_best_shape(const CAVRTuneTable *t, double bytes, int cls, float *cost);

typedef struct CAVRTuneChoice {
  int rotation;        /**< CAVR_ROT_* */
  int shape;           /**< index into cavr_block_shapes */
  float cost;          /**< expected ns per sample; 0 when the table says nothing about this view */
  float stateCost[3];  /**< the cheapest shape's cost in each rotation state (CAVR_ROT_*), ns per sample; 0 = state
                            not available (rotation not allowed, not a view along x, or not measured) */
} CAVRTuneChoice;

/**
 * AUTO's choice for a view given in index space of the volume as uploaded (dir: world / spacing; right and up:
 * world * spacing) of a volume of `bytes` bytes: for each rotation state (none; about y and about z when `canRotate`
 * and x is the axis most parallel to the rays, as in Misaki 2017; a state that leaves x along the rays is skipped)
 * the view's class in the stored axes and its cheapest shape at that size (cavr_tune_best_shape); the cheapest state
 * wins, except that the `current` state is kept unless another is cheaper by more than `margin` (a fraction, e.g.
 * 0.05). With no measurement for the view's classes: no rotation and the standard 16x16 block (shape 0). The one-off
 * cost of turning the volume is weighed by the caller (view_policy.c).
 */
void cavr_tune_choose(const CAVRTuneTable *t, double bytes, const double dir[3], const double right[3],
                      const double up[3], int canRotate, int current, double margin, CAVRTuneChoice *out);

/** Write the table as text (one line per class). Returns 0, or -1 on a write error. */
int cavr_tune_write(const CAVRTuneTable *t, FILE *f);

/**
 * Read a table written by cavr_tune_write. Returns 0, or -1 with the reason in msg when the text is not such a
 * table (wrong format version, a malformed line, a value that is not a finite cost >= 0, a missing class).
 */
int cavr_tune_read(CAVRTuneTable *t, FILE *f, char *msg, size_t msgSize);

struct CAVREnv;

/**
 * Where the table for (gpu, storage) is kept: CAVR_TUNE_DIR, else XDG_CACHE_HOME/cavr, else HOME/.cache/cavr (as
 * the device's environment snapshot `env` has them, env.h), then a file name made of the GPU's name (letters and
 * digits kept, the rest '_') and the storage. Returns 0, or -1 when none of the variables is set or the path does
 * not fit in `size`.
 */
int cavr_tune_path(char *buf, size_t size, const struct CAVREnv *env, const char *gpu, int storage);

/**
 * The calibration run (cuda_tune.c, CUDA builds only): measures the rows of t whose bits are set in `rows` (bit r:
 * row r; the others are left as they are), setting their rowSide, rowBytes and cost, and t->storage and t->version,
 * for `storage`, by rendering dense synthetic cubes of each row's side (cavr_tune_sides; a row whose cube does not
 * fit in free device memory twice over, or fails to render, is left unmeasured with rowBytes 0; the middle row falls
 * back to 512^3 or 384^3) into a 1024^2 image, with empty-space skipping as renders have it, from 36 views (6
 * directions x 6 rolls, one per 15-degree group) with every candidate shape (one warm-up, median of 3 frames), and
 * t->isoCost from the middle row's views with both isosurface methods when row 1 is measured. Returns
 * CAVR_ERROR_NONE or the error (the middle row's), with the reason in msg; its errors are captured
 * (cavr_capture_errors): neither the user's error callback nor the device's error slot sees them.
 */
struct CAVRDeviceImpl;
int cavr_cuda_measure_table(struct CAVRDeviceImpl *dev, int storage, unsigned rows, CAVRTuneTable *t, char *msg,
                            size_t msgSize);

/** "uint8", "uint16", "float32" for a CAVRStorage value. */
const char *cavr_storage_name(int storage);

#endif

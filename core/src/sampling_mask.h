/*
 * sampling_mask.h - which pixels get rays in compressive rendering (SPEC 4): linear pixel shuffling
 * (P. G. Anderson, "Linear pixel shuffling for image processing: an introduction", J. Electronic Imaging
 * 2(2), 1993), so that the first M pixels of the order are spread evenly over the image for every M.
 */
#ifndef CAVR_SAMPLING_MASK_H
#define CAVR_SAMPLING_MASK_H

#include <stddef.h>
#include <stdint.h>

/**
 * Side of the shuffled square for an image of width x height pixels: the smallest G_n >= max(width,
 * height) of Anderson's sequence G_0 = 0, G_1 = G_2 = 1, G_n = G_(n-1) + G_(n-3). Returns 0 if none fits
 * in int.
 */
int cavr_lps_side(int width, int height, int *n);

/**
 * Mark the first round(fraction * width * height) pixels of the linear-pixel-shuffling order of a
 * width x height image: mask[x + width * y] = 1 for them, 0 for the others (row 0 first, x fastest).
 * fraction in (0, 1]. Deterministic. Returns the number of marked pixels, or -1 for bad arguments.
 */
long cavr_lps_mask(int width, int height, double fraction, uint8_t *mask);

/**
 * The whole linear-pixel-shuffling order of a width x height image: order[k] = x + width*y of the k-th
 * pixel, width*height entries. Returns 0, or -1 for bad arguments.
 */
int cavr_lps_order(int width, int height, uint32_t *order);

/** Side of the blocks of the per-block masks (the local solver's blocks), pixels. */
#define CAVR_MASK_BLOCK 16

/**
 * Per-block mask for the local solver and adaptive sampling (thesis sec. 4.2-4.3): the image is cut into
 * CAVR_MASK_BLOCK-pixel square blocks (row-major, partial blocks at the right and top); in block b, the
 * pixels first[b] .. first[b]+count[b]-1 of `blockOrder` (cavr_lps_order of a CAVR_MASK_BLOCK square; pixels
 * outside the image are skipped and not counted) are set to 1. Other mask bytes are left as they are, so
 * a second call adds rays. Returns the number of pixels set, or -1 for bad arguments.
 */
long cavr_block_mask(int width, int height, const uint32_t *blockOrder, const uint16_t *first, const uint16_t *count,
                     uint8_t *mask);

/**
 * cavr_block_mask that also lists the pixels it sets (indices x + width*y) in `list` (NULL: not listed),
 * block by block in row-major block order and in `blockOrder` order within a block, with blocks + 1
 * offsets into the list in `blockStart` (NULL: none). Work in proportion to the pixels set, not the image.
 */
long cavr_block_mask_list(int width, int height, const uint32_t *blockOrder, const uint16_t *first,
                          const uint16_t *count, uint8_t *mask, uint32_t *list, uint32_t *blockStart);

/** Side of the pilot grid's cells in refinement sampling (CAVR_RECONSTRUCTION_REFINE), pixels. */
#define CAVR_REFINE_CELL 4

/**
 * Refinement sampling's cells: grid lines at x = 0, C, 2C, ... and x = width - 1 (C = CAVR_REFINE_CELL; the same
 * in y), so cells per axis = ceil((n - 1) / C) (at least 1); cell i spans [i C, min((i + 1) C, n - 1)].
 */
int cavr_refine_cells_per_axis(int n);

/** The i-th grid line of refinement sampling on an axis of n pixels: min(i C, n - 1). */
static inline int cavr_refine_line(int i, int n) { return i * CAVR_REFINE_CELL < n - 1 ? i * CAVR_REFINE_CELL : n - 1; }

/**
 * The pilot pass of refinement sampling: mask[p] = 1 at the grid points (x and y both on grid lines, see
 * cavr_refine_cells_per_axis), 0 elsewhere; the grid points also listed (x + width y, row by row) in `list`
 * (NULL: not listed). width, height >= 2. Returns the number of grid points, or -1 for bad arguments.
 */
long cavr_refine_pilot_mask(int width, int height, uint8_t *mask, uint32_t *list);

/**
 * Refinement sampling's budget for the cells where the pilot saw something (a corner with opacity > 0, or
 * corners that differ): round(density x their pixels) less the grid points they own (cell [x0, x1) x [y0, y1),
 * closed at the last column and row), at least 0; or -1 for bad arguments. rgbaf: W x H x 4 floats.
 */
long cavr_refine_active(const float *rgbaf, int width, int height, double density);

/**
 * The second and third passes of refinement sampling ("rays where the rendered neighbours disagree", Levoy
 * 1990's adaptive image-space refinement, in the spirit of the thesis's adaptive sampling, sec. 4.3). Units:
 * level 1, the cells (their four corners rendered by the pilot); level 2, the 2x2-pixel sub-cells of cells
 * refined at level 1 (cells cut at every second pixel, 4 per cell, index 4 cell + 2 row + column). A unit's
 * score is max over RGBA of (max - min) of its four corner pixels in rgbaf (W x H x 4 floats). Units with
 * score > threshold, highest first (scores binned to 1/4096, equal bins in index order), are refined while
 * `budget` new pixels are not exceeded: level 1 marks the cell's points on every second row and column, level
 * 2 every pixel of the sub-cell's closed rectangle; new pixels (mask 0) get mask 1 and are appended to `list`
 * (indices x + width y, at most budget entries; NULL: not listed), unit by unit in score order. scratch: units
 * floats, order: units entries (units = cells, or 4 cells at level 2). Returns the pixels marked, or -1 for
 * bad arguments.
 */
long cavr_refine_mask(const float *rgbaf, int width, int height, int level, float threshold, long budget, uint8_t *mask,
                      uint32_t *list, float *scratch, uint32_t *order);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * sampling_mask.h - which pixels get rays in compressive rendering: linear pixel shuffling
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
 * The lattice of refinement cell (i, j) (0 <= i < cavr_refine_cells_per_axis(width), the same for j): its points on
 * every second row and column and on its far edges, x = sx[0..nx-1], y = sy[0..ny-1] (nx, ny in 2..3: 3 where the
 * cell is wider than 2 pixels). value[b][a] (RGBA) is the pixel's rgbaf (W x H x 4 floats) where mask is 1 and at
 * the cell's corners (the pilot's), else the mean of its parents' values: the two corners of its edge, or, at the
 * centre, the four corners. near[b][a] (NULL: not computed; depth W x H floats, read only then): the pixel's
 * depth where rendered, else the smallest of its parents'. Reads only the lattice's pixels. Returns nx + 4 ny.
 */
int cavr_refine_lattice(const float *rgbaf, const float *depth, const uint8_t *mask, int width, int height, int i,
                        int j, int sx[3], int sy[3], float value[3][3][4], float near[3][3]);

/**
 * 1 when refinement cell [x0, x1] x [y0, y1] (pixels; rgbaf W x H x 4 floats) has four bit-equal corners and no
 * other point of its lattice with mask 1, so that cavr_refine_lattice gives every lattice point the corners'
 * value; else 0.
 */
int cavr_refine_flat_cell(const float *rgbaf, const uint8_t *mask, int width, int x0, int x1, int y0, int y1);

/**
 * Refinement sampling's budget for the cells where the pilot saw something (a corner with opacity > 0, or
 * corners that differ): round(density x their pixels) less the grid points they own (cell [x0, x1) x [y0, y1),
 * closed at the last column and row), at least 0; or -1 for bad arguments. rgbaf: W x H x 4 floats.
 */
long cavr_refine_active(const float *rgbaf, int width, int height, double density);

/**
 * The second and third passes of refinement sampling ("rays where the rendered neighbours disagree", Levoy
 * 1990's adaptive image-space refinement, in the spirit of the thesis's adaptive sampling, sec. 4.3), pixel by
 * pixel. Candidates: the pixels with mask 0, at level 1 the points of the cells' lattice (cavr_refine_lattice:
 * every second row and column of a cell), at level 2 all others. A candidate's score is max over RGBA of
 * (max - min) of the lattice values its interpolation (cavr_refine_interpolate) comes from: at level 1 the two
 * corners of its cell edge, or the cell's four corners for the centre; at level 2 the two ends of its 2x2
 * sub-cell's edge, or the sub-cell's four corners. Candidates scoring above threshold (scores binned to 1/4096)
 * get a ray, highest bins first, at most `budget` of them (the last bin taken in candidate order: cell rows
 * top to bottom, cells left to right, pixels row by row): mask 1, and appended to `list` (indices x + width y,
 * in candidate order; NULL: not listed). At level 2 a candidate whose score exceeds threshold is ranked by
 * (score + e)^2 / c, expected error per expected cost: e the largest residual (max over RGBA of |value - the mean
 * of its parents|) of the rendered lattice points other than cell corners within 2 pixels (a neighbourhood whose
 * detail the lattice's interpolation missed), c = rayCost + the mean samples per ray of the lattice points its
 * interpolation comes from (raySamples of rendered points, their parents' mean for the others; NULL: 0, so c =
 * rayCost), in samples: rayCost (>= 1) is what a ray costs besides its samples (its set-up and empty-space skipping).
 * Level 2 takes candidates in that order (keys binned 0.5% apart, a bin in candidate order) until the sum of their
 * c reaches `work`, at most `budget` of them, and none whose key's bin lies below keyFloor's (>= 0, 0 for none): a
 * ray expected to remove less error per sample than that is not worth casting. Level 1 ignores raySamples, rayCost,
 * work and keyFloor. Cells whose lattice is flat are skipped. rgbaf: W x H x 4 floats; scratch:
 * cavr_refine_mask_scratch_floats(W, H) floats, order: W H entries (the candidates). The candidates are searched,
 * and level 2's residuals computed, on up to `threads` threads (bands of 4 cell rows, the candidates joined in cell
 * order: the result does not depend on the count).
 * Returns the pixels marked, or -1 for bad arguments.
 */
long cavr_refine_mask(const float *rgbaf, int width, int height, int level, float threshold, long budget,
                      const uint32_t *raySamples, float rayCost, double work, float keyFloor, uint8_t *mask,
                      uint32_t *list, float *scratch, uint32_t *order, int threads);

/** The floats of scratch cavr_refine_mask needs for a W x H image: 3 W H + (W / 2 + 1) (H / 2 + 1). */
static inline size_t cavr_refine_mask_scratch_floats(int width, int height) {
  return 3 * (size_t)width * (size_t)height + (size_t)(width / 2 + 1) * (size_t)(height / 2 + 1);
}

#endif

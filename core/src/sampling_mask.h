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

#endif

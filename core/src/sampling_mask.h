/*
 * sampling_mask.h - which pixels get rays in compressive rendering (SPEC 4): linear pixel shuffling
 * (P. G. Anderson, "Linear pixel shuffling for image processing: an introduction", J. Electronic Imaging
 * 2(2), 1993), so that the first M pixels of the order are spread evenly over the image for every M.
 * Groundwork for issue 4 (not yet used by the renderers).
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

#endif

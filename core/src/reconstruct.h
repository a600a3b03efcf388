// SPDX-License-Identifier: BSD-3-Clause
/*
 * reconstruct.h - compressive rendering's reconstruction (Rabbani 2018 thesis, eq. 3.9 and ch. 4,
 * after Liu & Alim 2015): solve (S^T S + lambda H) x = S^T y per RGBA channel with conjugate gradients,
 * H the 7x7 Gram filter (gram_filter_table.h) applied as a convolution. Pure numerics, no cavr objects:
 * the CPU back end (cpu_reconstruct.c) and the tests call it; the CUDA kernels (kernels/reconstruct.cu) do the
 * same arithmetic.
 */
#ifndef CAVR_RECONSTRUCT_H
#define CAVR_RECONSTRUCT_H

#include <stddef.h>
#include <stdint.h>

/* Defaults of cavrSetRenderReconstructionSolver. lambda: chosen by measured PSNR
   (docs/history/benchmarks-2026-11.md). */
#define CAVR_DEFAULT_MAX_ITERATIONS 30
#define CAVR_DEFAULT_TOLERANCE 1e-4f
#define CAVR_DEFAULT_LAMBDA 0.01f

/** Half width of the 7x7 filter: the local solver's ghost ring, pixels. */
#define CAVR_GHOST 3
/** Side of the local solver's blocks, pixels. */
#define CAVR_SOLVE_BLOCK 16

typedef struct CAVRSolver {
  float filter[49];   /**< H, row-major, symmetric, sums to zero */
  float lambda;       /**< smoothness weight, > 0 */
  int maxIterations;  /**< >= 0 */
  float tolerance;    /**< stop when the RMS residual per pixel, ||r|| / sqrt(pixels), <= tolerance in every channel */
} CAVRSolver;

/** Fill a solver with filter 0 (definition) or 1 (thesis) and the given parameters. */
void cavr_solver_init(CAVRSolver *s, int gramFilter, float lambda, int maxIterations, float tolerance);

/** Floats of scratch cavr_solve_window needs for a window of w x h pixels. */
size_t cavr_solve_scratch_floats(int w, int h);

/**
 * Jacobi-preconditioned conjugate gradients on one window of an image, all four channels at once, in the
 * Chronopoulos-Gear form (one operator application and one set of three dot products per iteration; see
 * cavr_cg_coefficients).
 * img: W x H pixels x 4 floats (RGBA, x fastest, rows of W pixels); mask[x + W*y] = 1 where img holds a
 * rendered value (only those are read). The unknowns are the ww x wh pixels of the window starting at
 * (wx0, wy0) (ww, wh >= 3, inside the image); the filter sees the window's border as a half-sample even
 * reflection (Neumann), so the operator stays symmetric positive semi-definite and annihilates constants.
 * The initial guess is the inverse-distance-weighted mean of the rendered pixels within CAVR_GHOST pixels.
 * The solution is written into out (same layout as img; may be img itself) for the pixels without rays in
 * [ox0, ox1) x [oy0, oy1) (a part of the window); pixels with rays keep their rendered value.
 * Stops after s->maxIterations or when the RMS residual per pixel is <= s->tolerance in every channel.
 * scratch: cavr_solve_scratch_floats(ww, wh) floats (no allocation inside). Returns the iterations done;
 * *relResidual (may be NULL) receives the largest RMS residual per pixel over the channels. A window whose rendered
 * values are all 0 in every channel (transparent background, or no ray at all) has the solution 0 exactly: written
 * with no iteration (0 returned, *relResidual = 0).
 */
int cavr_solve_window(const CAVRSolver *s, const float *img, const uint8_t *mask, int W, int wx0, int wy0, int ww,
                      int wh, int ox0, int oy0, int ox1, int oy1, float *out, float *scratch, double *relResidual);

/**
 * One Chronopoulos-Gear step's scalars per channel c (Chronopoulos & Gear 1989; Ghysels & Vanroose 2014,
 * alg. 2). dots: (r,u) in [c], (w,u) in [4+c], (r,r) in [8+c] with u = M^-1 r and w = A u; stop[c]: the
 * squared-residual threshold. first: the first step (beta = 0, alpha = (r,u)/(w,u)). gamma, alpha carry the
 * previous step's values in and this step's out; beta out. A channel with (r,r) <= stop[c] gets alpha 0.
 */
void cavr_cg_coefficients(const double dots[12], const double stop[4], double gamma[4], float alpha[4],
                          float beta[4], int first);

/**
 * Depth of the pixels without rays in rows [y0, y1): the smallest (nearest) depth of the rendered pixels
 * within CAVR_GHOST pixels, 1 where there is none. depth: W x H floats.
 */
void cavr_fill_depth(const uint8_t *mask, int W, int H, int y0, int y1, float *depth);

/**
 * CAVR_RECONSTRUCTION_REFINE's reconstruction of the cell rows [cy0, cy1) (cells: cavr_refine_cells_per_axis), in
 * two passes over the whole image, pass 1 after pass 0 is done everywhere. Every pixel with mask 0 of a cell's
 * half-open rectangle [x0, x1) x [y0, y1) (closed at the image's last column and row, so every pixel has one owner)
 * is written. Pass 0: the points of the cell's lattice (cavr_refine_lattice: every second row and column) get their
 * lattice value (the mean of their parents), and a flat cell (cavr_refine_flat_cell) all its pixels the corners'
 * value. Pass 1, the other pixels of the other cells: separable cubic convolution over the lattice (4 lattice points
 * a row where they exist, else the 2 around the pixel), clamped per channel to the range of the 2 or 4 lattice points
 * around it, so that with no ray but the pilot's a linear ramp is reproduced. RGBA clamped to [0, 1] into rgbaf
 * (W x H x 4 floats) and rgba8 (W x H x 4 bytes, round to nearest); depth (W x H floats) = the nearest (smallest) of
 * the pixel's 2x2 sub-cell corners' depths (a lattice point without a ray: its parents'). A pass writes only mask-0
 * pixels of these rows and reads only rendered pixels (pass 0) or lattice points (pass 1): bands of cell rows may
 * run in parallel within a pass. Pass 1 works row by row, separably (each lattice row's horizontal cubic once, then
 * the vertical taps), in `scratch`: cavr_refine_scratch_bytes(W, H, cy1 - cy0) bytes, or NULL to have it allocated
 * here (pass 1 then leaves the pixels as they are when the allocation fails).
 */
void cavr_refine_interpolate(const uint8_t *mask, int W, int H, int cy0, int cy1, int pass, float *rgbaf,
                             uint8_t *rgba8, float *depth, void *scratch);

/** Bytes of scratch cavr_refine_interpolate's pass 1 needs for a band of `cellRows` cell rows of a W x H image. */
size_t cavr_refine_scratch_bytes(int W, int H, int cellRows);

#endif

/*
 * reconstruct.h - compressive rendering's reconstruction on the CPU (SPEC 4; Rabbani 2018 thesis, eq. 3.9,
 * after Liu & Alim 2015): solve (S^T S + lambda H) x = S^T y for one image channel with conjugate gradients,
 * H the 7x7 Gram filter (gram_filter_table.h) applied as a convolution. Groundwork for issue 4 (not yet
 * wired into cavrRender).
 */
#ifndef CAVR_RECONSTRUCT_H
#define CAVR_RECONSTRUCT_H

#include <stdint.h>

/**
 * Global conjugate gradients over a width x height channel (x fastest). mask[p] = 1 where y[p] was rendered
 * (S^T S = diag(mask)); y is read only there. x holds the initial guess and receives the solution. The
 * filter (49 values, row-major, symmetric) is applied with half-sample even reflection at the image border
 * (Neumann): the operator stays symmetric positive semi-definite and annihilates constants, so
 * A = diag(mask) + lambda H is positive definite whenever the mask is non-empty. width, height >= 4.
 * Stops after maxIterations or when
 * ||r|| <= tolerance ||b||. Returns the iterations done (-1 for bad arguments or out of memory);
 * *relResidual (may be NULL) receives ||r|| / ||b||.
 */
int cavr_cg_global(int width, int height, const uint8_t *mask, const float *y, double lambda, const double *filter,
                   int maxIterations, double tolerance, float *x, double *relResidual);

#endif

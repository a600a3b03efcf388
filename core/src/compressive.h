// SPDX-License-Identifier: BSD-3-Clause
/*
 * compressive.h - compressive rendering (Rabbani 2018 thesis): which pixels get rays, the render of those rays
 * through a back end, and the back end's reconstruction of the rest.
 */
#ifndef CAVR_COMPRESSIVE_H
#define CAVR_COMPRESSIVE_H

#include "backend.h"

/**
 * Render job->fb with the settings' sample fraction (< 1): build (or reuse) the sampling mask, cast the
 * masked rays with ops->render, rebuild the other pixels with ops->reconstruct. Fills stats->raysCast,
 * solveMilliseconds and iterations besides what ops->render fills. Whether a frame renders this way is the
 * policy's choice (cavr_plan_compressive, view_policy.h); images smaller than 4x4 pixels are
 * CAVR_ERROR_INVALID_ARGUMENT here (the policy renders them in full).
 */
CAVRError cavr_render_compressive(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job,
                                  CAVRRenderStats *stats);

/**
 * Adaptive sampling's block statistics on the host (the CPU back end; the reference of the GPU's
 * cavr_cuda_block_deviation): weight[b] = sqrt(sum over RGBA of the variance of the rendered values) over the
 * pixels with mask = 1 of each CAVR_MASK_BLOCK block b (row-major), 0 for a block without any.
 * rgbaf: W x H x 4 floats; mask: W x H bytes; weight: ceil(W/16) * ceil(H/16) doubles.
 */
void cavr_block_deviation(const float *rgbaf, const uint8_t *mask, int W, int H, double *weight);

/** Let REFINE's levels start their rays at the pilot's depth hint (1, the default; cavr_refine_hint_k) or not (0:
    every cast pixel is the full frame's; for tests and benchmarks). Thread-safe; the next frame sees it. */
void cavr_refine_allow_hint(int allowed);

/** Let REFINE's last level stop at its key floor (1, the default; REFINE_KEY_FLOOR in compressive.c) or spend its
    whole work budget (0; for tests and benchmarks). Thread-safe; the next frame sees it. */
void cavr_refine_allow_key_floor(int allowed);

/** Free a frame buffer's mask and ray list. */
void cavr_compressive_free(CAVRFrameBuffer fb);

#endif

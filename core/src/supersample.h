// SPDX-License-Identifier: BSD-3-Clause
/*
 * supersample.h - several rays per pixel (Rabbani 2018 thesis: 4 sub-pixel rays and the centre, averaged; also
 * N x N grids), for every back end and blend mode, by rendering a frame N times larger.
 */
#ifndef CAVR_SUPERSAMPLE_H
#define CAVR_SUPERSAMPLE_H

#include "backend.h"

/** Renders one job into its frame buffer (api.c: compressive or not). */
typedef CAVRError (*CavrRenderFn)(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job,
                                  CAVRRenderStats *stats);

/**
 * Render job with settings->supersample rays per pixel: a G x G grid of sub-pixel rays (G = 2, 3, 4 for 4, 9, 16
 * rays; 2 and the pixel centre for 5) is a frame G times wider and higher of the same camera, rendered by `render`
 * into a frame buffer kept with job->fb (opaque depth replicated), then each pixel's premultiplied RGBA is the mean
 * of its rays and its depth the nearest. Fills job->fb's host planes; on a back end that reduces on the device
 * (ops->supersampleReduce: CUDA) the larger frame stays there and job->fb's device planes hold the result, else
 * the host averages and the device planes are unset.
 * Errors: CAVR_ERROR_UNSUPPORTED (the larger frame exceeds CAVR_MAX_IMAGE_SIZE), CAVR_ERROR_OUT_OF_MEMORY, and
 * those of `render`.
 */
CAVRError cavr_render_supersampled(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job,
                                   CAVRRenderStats *stats, CavrRenderFn render);

#endif

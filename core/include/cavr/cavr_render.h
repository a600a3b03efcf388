// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_render.h - the render call.
 */
#ifndef CAVR_RENDER_H
#define CAVR_RENDER_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Whether a frame rendered compressively (CAVRRenderStats.compressiveDecision); the rule is cavrSetRenderCompressiveMode's.
 */
typedef enum CAVRCompressiveDecision {
  CAVR_COMPRESSIVE_NOT_ASKED = 0,   /**< full frame as asked: sample fraction 1, or an image under 4 x 4 pixels */
  CAVR_COMPRESSIVE_RENDERED = 1,    /**< compressive: CAVR_COMPRESSIVE_ALWAYS, or AUTO predicted it cheaper */
  CAVR_COMPRESSIVE_NOT_PAYING = 2,  /**< AUTO: full frame, the compressive one was not predicted cheaper enough */
  CAVR_COMPRESSIVE_PROBE_FULL = 3,  /**< AUTO: full frame to measure it again, though compressive was predicted
                                         cheaper */
  CAVR_COMPRESSIVE_PROBE = 4        /**< AUTO: compressive frame to measure it again, though it was predicted dearer */
} CAVRCompressiveDecision;

/** What one render did. */
typedef struct CAVRRenderStats {
  double milliseconds;     /**< wall time of the render call, ms: the whole frame (host work, uploads, kernels,
                                solve and the copy back to the host) */
  uint64_t samples;        /**< scalar samples taken (transfer-function look-ups), all rays */
  uint64_t rays;           /**< rays that hit the volume box */
  uint64_t raysCast;       /**< rays launched: every pixel, or the sampled pixels in compressive rendering */
  double solveMilliseconds;/**< compressive rendering: time to rebuild the image, ms (0 otherwise) */
  int iterations;          /**< compressive rendering: solver iterations (LOCAL: the most any block took) */
  CAVRBackend backend;     /**< back end that rendered (CPU or CUDA) */
  /* CUDA back end only (zero on the CPU): */
  double kernelMilliseconds;   /**< ray-casting kernel time (CUDA events), ms (both passes of adaptive sampling) */
  double transferMilliseconds; /**< device-to-host copy of the planes requested by cavrSetFrameBufferHostChannels
                                    (CUDA events around the copies), ms; 0 when none is requested */
  double rotationMilliseconds; /**< rotation of the volume done for this frame, ms (0: none): in place for a cube of
                                    side a multiple of 64, else a copy into a permuted array (cavrCommitVolume) */
  CAVRStrategy strategy;       /**< strategy used */
  int blockWidth, blockHeight; /**< thread block in pixels */
  int warpWidth, warpHeight;   /**< warp shape in pixels */
  int rotation;                /**< volume orientation: 0 as uploaded, 1 a quarter turn about y, 2 about z */
  int autoTable;               /**< AUTO: 1 when block shape and rotation came from the table measured on this GPU
                                    (cavrTuneDevice), 0 when AUTO used its default (16x16 blocks, no rotation) */
  CAVRIsoMethod isoMethod;     /**< isosurface frames: the method that ran (CAVR_ISO_STANDARD or
                                    CAVR_ISO_WARP_MARCHING; the CPU back end: standard); other blend modes: standard */
  /* Compressive rendering (both back ends): */
  CAVRCompressiveDecision compressiveDecision; /**< full or compressive, and why (cavrSetRenderCompressiveMode) */
  double predictedFullMilliseconds;        /**< the cost model's prediction of a full frame, ms (whole frame, as
                                                milliseconds); 0: nothing to predict from, or no sample fraction < 1 */
  double predictedCompressiveMilliseconds; /**< and of the compressive frame at the asked fraction, ms (likewise) */
} CAVRRenderStats;

/**
 * Ray-cast `volume` into `fb`: one ray per pixel (or, with a sample fraction below 1, per sampled
 * pixel, the others rebuilt by compressive reconstruction: cavrSetRenderCompressive), emission-absorption front to back with early
 * ray termination and opacity correction (composite), or maximum/minimum/average intensity. Every
 * pixel of the frame buffer is written (on the host: the planes cavrSetFrameBufferHostChannels requests; the CPU
 * back end writes all of them); pixels whose rays miss the volume are (0,0,0,0) with depth 1.
 * All objects must come from the same device and be committed with no staged changes.
 * `stats` may be NULL. Blocking; not thread safe for the same device: render from one thread at a time per device
 * (frame buffers of different devices may render at once; the CUDA back end keeps one stream and its buffers per device).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, objects from different devices), CAVR_ERROR_NOT_COMMITTED
 * (an object never committed or changed since its commit; the message names it),
 * CAVR_ERROR_OUT_OF_MEMORY, back-end errors.
 */
CAVR_API CAVRError cavrRender(CAVRFrameBuffer fb, CAVRVolume volume, CAVRTransferFunction tf, CAVRCamera camera,
                              CAVRRenderSettings settings, CAVRRenderStats *stats);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_RENDER_H */

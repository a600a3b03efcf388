// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_camera.h - view and projection.
 */
#ifndef CAVR_CAMERA_H
#define CAVR_CAMERA_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Create a camera (count 1; retains the device). Its default is identity view and projection, staged: commit it
    before rendering. NULL on failure (CAVR_ERROR_INVALID_ARGUMENT for a NULL device, CAVR_ERROR_OUT_OF_MEMORY). */
CAVR_API CAVRCamera cavrNewCamera(CAVRDevice device);
/** Add a reference (thread safe). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrRetainCamera(CAVRCamera camera);
/** Drop a reference; the last frees the camera and releases the device. NULL is a no-op. */
CAVR_API void cavrReleaseCamera(CAVRCamera camera);

/**
 * Stage the matrices. `view` maps world coordinates to eye coordinates and `projection` maps eye
 * coordinates to clip coordinates, OpenGL conventions (the camera looks down -z in eye space; after the
 * divide, NDC x,y,z are in [-1,1], z = -1 at the near plane). Both are 4x4 column-major and copied.
 * Pixel (x,y) of a W x H frame buffer is hit by the ray through NDC ((x+0.5)/W*2-1, (y+0.5)/H*2-1).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, non-finite entries, projection*view not invertible).
 */
CAVR_API CAVRError cavrSetCameraMatrices(CAVRCamera camera, const double view[16], const double projection[16]);

/**
 * Stage an orbit view about the centre of `bounds` ({xmin,xmax,ymin,ymax,zmin,zmax}, world units).
 * The unrotated camera sits on the +z side looking down -z with +y up (x to the right: the view in
 * which volume slices xy face the screen). It is then rotated about the centre by rxDeg about x first,
 * then ryDeg about y, then rzDeg about z (degrees, right-handed, world axes). The distance and the
 * orthographic height are chosen so the bounding sphere fills the smaller image side (30 degree vertical
 * field of view in perspective). `aspect` = width / height of the image (> 0).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, non-finite bounds or a min above its max, non-finite angles, aspect
 * <= 0, unknown projection).
 */
CAVR_API CAVRError cavrSetCameraOrbit(CAVRCamera camera, const double bounds[6], double rxDeg, double ryDeg,
                                      double rzDeg, CAVRProjection projection, double aspect);

/** Publish staged matrices. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL; projection * view not invertible, which the
    setters already refuse). */
CAVR_API CAVRError cavrCommitCamera(CAVRCamera camera);

/**
 * The committed ray of pixel (px, py) in a width x height image (pixels, row 0 at the bottom; (0,0) is the first
 * pixel's centre): origin on the near plane and unit direction, 3 doubles each, world units. Used by tests and by
 * callers that need the rays the renderer casts. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, width or height < 1),
 * CAVR_ERROR_NOT_COMMITTED.
 */
CAVR_API CAVRError cavrGetCameraRay(CAVRCamera camera, int width, int height, double px, double py,
                                    double origin[3], double direction[3]);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_CAMERA_H */

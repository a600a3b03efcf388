// SPDX-License-Identifier: BSD-3-Clause
/* camera_math.h - look-at and orbit matrices (column-major, OpenGL conventions). */
#ifndef CAVR_CAMERA_MATH_H
#define CAVR_CAMERA_MATH_H

void cavr_look_at(const double eye[3], const double center[3], const double up[3], double view[16]);
/** View and projection for cavrSetCameraOrbit (see its documentation). */
void cavr_orbit_matrices(const double bounds[6], double rx, double ry, double rz, int perspective, double aspect,
                         double view[16], double proj[16]);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * camera_math.c - column-major 4x4 matrices and the orbit camera.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "camera_math.h"

#define CAVR_PI 3.14159265358979323846

#define M(m, r, c) (m)[(c)*4 + (r)]

void cavr_mat4_mul(const double a[16], const double b[16], double out[16]) {
  double t[16];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double s = 0.0;
      for (int k = 0; k < 4; ++k) s += M(a, r, k) * M(b, k, c);
      M(t, r, c) = s;
    }
  memcpy(out, t, sizeof t);
}

/* Gauss-Jordan with partial pivoting; returns 0 when singular. */
int cavr_mat4_invert(const double m[16], double out[16]) {
  double a[4][8];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      a[r][c] = M(m, r, c);
      a[r][c + 4] = (r == c) ? 1.0 : 0.0;
    }
  double scale = 0.0;
  for (int i = 0; i < 16; ++i) scale = fmax(scale, fabs(m[i]));
  if (!(scale > 0.0) || !isfinite(scale)) return 0;
  for (int col = 0; col < 4; ++col) {
    int piv = col;
    for (int r = col + 1; r < 4; ++r)
      if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
    if (fabs(a[piv][col]) <= 1e-14 * scale) return 0;
    if (piv != col)
      for (int c = 0; c < 8; ++c) {
        double t = a[col][c];
        a[col][c] = a[piv][c];
        a[piv][c] = t;
      }
    double inv = 1.0 / a[col][col];
    for (int c = 0; c < 8; ++c) a[col][c] *= inv;
    for (int r = 0; r < 4; ++r) {
      if (r == col) continue;
      double f = a[r][col];
      if (f != 0.0)
        for (int c = 0; c < 8; ++c) a[r][c] -= f * a[col][c];
    }
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) M(out, r, c) = a[r][c + 4];
  return 1;
}

int cavr_mat4_project(const double m[16], const double in[3], double out[3]) {
  double v[4];
  for (int r = 0; r < 4; ++r) v[r] = M(m, r, 0) * in[0] + M(m, r, 1) * in[1] + M(m, r, 2) * in[2] + M(m, r, 3);
  if (v[3] == 0.0) return 0;
  for (int r = 0; r < 3; ++r) out[r] = v[r] / v[3];
  return 1;
}

static void rotate(double v[3], int axis, double deg) {
  double a = deg * (CAVR_PI / 180.0), c = cos(a), s = sin(a);
  int i = (axis + 1) % 3, j = (axis + 2) % 3; /* x: (y,z); y: (z,x); z: (x,y) */
  double vi = v[i], vj = v[j];
  v[i] = c * vi - s * vj;
  v[j] = s * vi + c * vj;
}

void cavr_look_at(const double eye[3], const double center[3], const double up[3], double view[16]) {
  double f[3] = {center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]};
  double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (int i = 0; i < 3; ++i) f[i] /= fl;
  double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
  double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  for (int i = 0; i < 3; ++i) s[i] /= sl;
  double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
  memset(view, 0, 16 * sizeof(double));
  for (int i = 0; i < 3; ++i) {
    M(view, 0, i) = s[i];
    M(view, 1, i) = u[i];
    M(view, 2, i) = -f[i];
  }
  M(view, 0, 3) = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
  M(view, 1, 3) = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
  M(view, 2, 3) = (f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2]);
  M(view, 3, 3) = 1.0;
}

void cavr_orbit_matrices(const double bounds[6], double rx, double ry, double rz, int perspective, double aspect,
                         double view[16], double proj[16]) {
  double center[3], radius = 0.0;
  for (int i = 0; i < 3; ++i) {
    center[i] = 0.5 * (bounds[2 * i] + bounds[2 * i + 1]);
    double h = 0.5 * (bounds[2 * i + 1] - bounds[2 * i]);
    radius += h * h;
  }
  radius = sqrt(radius);
  if (radius <= 0.0) radius = 1.0;
  const double halfFov = 15.0 * (CAVR_PI / 180.0);
  /* Fit the bounding sphere into the smaller side of the image. */
  double fitHalf = radius;
  /* The narrower of the two fields of view must hold the sphere. */
  double fitFov = atan(fmin(1.0, aspect) * tan(halfFov));
  double dist = perspective ? radius / sin(fitFov) : 3.0 * radius;
  double offset[3] = {0.0, 0.0, dist}, up[3] = {0.0, 1.0, 0.0};
  const double angles[3] = {rx, ry, rz};
  for (int axis = 0; axis < 3; ++axis) {
    rotate(offset, axis, angles[axis]);
    rotate(up, axis, angles[axis]);
  }
  double eye[3] = {center[0] + offset[0], center[1] + offset[1], center[2] + offset[2]};
  cavr_look_at(eye, center, up, view);

  double n = fmax(dist - 2.0 * radius, 1e-3 * dist), f = dist + 2.0 * radius;
  memset(proj, 0, 16 * sizeof(double));
  if (perspective) {
    double t = 1.0 / tan(halfFov);
    M(proj, 0, 0) = t / aspect;
    M(proj, 1, 1) = t;
    M(proj, 2, 2) = -(f + n) / (f - n);
    M(proj, 2, 3) = -2.0 * f * n / (f - n);
    M(proj, 3, 2) = -1.0;
  } else {
    double hh = fitHalf * (aspect < 1.0 ? 1.0 / aspect : 1.0), hw = hh * aspect;
    M(proj, 0, 0) = 1.0 / hw;
    M(proj, 1, 1) = 1.0 / hh;
    M(proj, 2, 2) = -2.0 / (f - n);
    M(proj, 2, 3) = -(f + n) / (f - n);
    M(proj, 3, 3) = 1.0;
  }
}

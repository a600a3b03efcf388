// SPDX-License-Identifier: BSD-3-Clause
/*
 * tf2d.c - what the back ends make of a 2-D transfer function (cavrSetTransferFunction2D) per frame: the table with its
 * opacity corrected for the step, and the macro cells' classification by its column maxima. The per-sample look-up
 * is core/shared/cavr_ray.h's cavr_tf2d_sample.
 */
#include <math.h>

#include "backend.h"
#include "../shared/cavr_frame.h"

void cavr_classify_tf(const CAVRVolume vol, const CAVRTransferFunction tf, const CAVRRayFrame *frame, uint8_t *out) {
  /* A sample's opacity lies between the entries of the columns its value reaches, whatever its gradient: the
     column maxima (committed with the table) bound it, indexed as the look-up's columns. */
  if (frame->tf2dW > 0 && tf->t2Columns)
    cavr_classify_cells(vol, tf->t2Columns, frame->tf2dW, frame->tf2dScale[0], frame->tf2dBias[0], out);
  else
    cavr_classify_cells(vol, tf->table, tf->count, frame->idxScale, frame->idxBias, out);
}

void cavr_tf2d_corrected(const CAVRTransferFunction tf, int correction, float exponent, float *out) {
  const size_t w = (size_t)tf->t2Size[0], n = w * (size_t)tf->t2Size[1];
  for (size_t i = 0; i < n; ++i) {
    const float a = tf->t2[4 * i + 3];
    for (int c = 0; c < 3; ++c) out[4 * i + c] = tf->t2[4 * i + c];
    out[4 * i + 3] = (correction && a > 0.0f) ? 1.0f - powf(1.0f - a, exponent) : a;
  }
  /* The extra row: each column's largest corrected opacity (cavr_tf2d_may_show; the correction keeps the order). */
  for (size_t i = 0; i < w; ++i) {
    float m = 0.0f;
    for (size_t j = i; j < n; j += w) m = out[4 * j + 3] > m ? out[4 * j + 3] : m;
    out[4 * (n + i)] = out[4 * (n + i) + 1] = out[4 * (n + i) + 2] = 0.0f;
    out[4 * (n + i) + 3] = m;
  }
}

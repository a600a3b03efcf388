/*
 * frame_constants.c - the per-frame values both back ends must derive identically (so CPU and GPU images
 * agree): the eye the sample lattice starts from, the step, and the transfer-function index mapping.
 */
#include <math.h>

#include "backend.h"

void cavr_frame_constants(const CAVRRenderJob *job, CAVRFrameConstants *out) {
  const CAVRVolume vol = job->volume;
  const CAVRTransferFunction tf = job->tf;
  const CAVRSettingsDesc *s = job->settings;
  double invView[16];
  const double zero[3] = {0.0, 0.0, 0.0};
  if (!cavr_mat4_invert(job->camera->view, invView) || !cavr_mat4_project(invView, zero, out->eye))
    out->eye[0] = out->eye[1] = out->eye[2] = 0.0;
  out->minSpacing = INFINITY;
  for (int a = 0; a < 3; ++a) out->minSpacing = fmin(out->minSpacing, vol->desc.spacing[a]);
  out->step = (float)(s->sampleDistance * out->minSpacing);
  double sc = (tf->count - 1) / (tf->range[1] - tf->range[0]);
  out->idxScale = (float)sc;
  out->idxBias = (float)((vol->desc.valueOffset - tf->range[0]) * sc);
  const int iso = s->blendMode == CAVR_BLEND_ISOSURFACE;
  out->shade = s->shade && (s->blendMode == CAVR_BLEND_COMPOSITE || iso || s->blendMode == CAVR_BLEND_SLICE);
  /* Iso skipping is exact only while consecutive samples lie in the same or neighbouring macro cells. */
  out->skip = s->emptySpaceSkipping && (s->blendMode == CAVR_BLEND_COMPOSITE || (iso && s->sampleDistance <= 8.0f));
  out->isoCount = iso ? s->isoCount : 0;
  for (int i = 0; i < out->isoCount; ++i) out->isoStored[i] = (float)((double)s->isoValues[i] - vol->desc.valueOffset);
  out->cellDilation = iso ? (s->interpolation == CAVR_INTERPOLATION_CUBIC ? 2 : 1)
                          : (s->interpolation == CAVR_INTERPOLATION_CUBIC ? 1 : 0);
  /* The render extent (a piece, without ghost layers), intersected with the crop box (world -> voxel
     coordinates; spacing > 0). An empty intersection becomes a box far outside every ray's reach on that axis
     (an inverted box would not do: the slab test orders its ends). */
  int empty = 0;
  for (int a = 0; a < 3; ++a) {
    double lo = vol->desc.renderLo[a], hi = vol->desc.renderHi[a];
    if (s->crop) {
      lo = fmax(lo, (s->cropBox[2 * a] - vol->desc.origin[a]) / vol->desc.spacing[a]);
      hi = fmin(hi, (s->cropBox[2 * a + 1] - vol->desc.origin[a]) / vol->desc.spacing[a]);
    }
    empty |= !(lo <= hi);
    out->boxLo[a] = (float)lo;
    out->boxHi[a] = (float)hi;
  }
  if (empty)
    for (int a = 0; a < 3; ++a) out->boxLo[a] = out->boxHi[a] = -1e20f;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * iso_cells.c - macro-cell classifications that empty-space skipping needs beyond the composite one: the cells
 * that may hold an iso-value, and the widening by whole cells that the cubic filter and iso crossings need.
 *
 * Why widening makes skipping exact for isosurfaces: the scalar along the straight line between two consecutive
 * samples is continuous, so a crossing between them (or a sample equal to the value) is a point where the scalar
 * equals an iso-value. That point's value is a convex combination of voxels of its macro cell (trilinear, nearest)
 * or of its cell and the neighbours (the cubic B-spline's weights are >= 0 and reach 1 voxel past the cell), so
 * its cell, widened by 0 or 1, has the value in range. Both samples lie within one cell of that point when the
 * sample distance is at most a cell (8 voxels), so the classification widened once more marks both of them.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

void cavr_classify_iso_cells(const CAVRVolume vol, const float *isoStored, int count, int dilation, uint8_t *out) {
  const size_t n = (size_t)vol->grid.cells[0] * vol->grid.cells[1] * vol->grid.cells[2];
  for (size_t c = 0; c < n; ++c) {
    const float lo = vol->cellMinMax[2 * c], hi = vol->cellMinMax[2 * c + 1];
    uint8_t hit = 0;
    for (int i = 0; i < count; ++i) hit |= (uint8_t)(isoStored[i] >= lo && isoStored[i] <= hi);
    out[c] = hit;
  }
  cavr_dilate_cells(&vol->grid, dilation, out);
}

/* One axis of the widening: a running maximum over 2 radius + 1 cells along axis `a`. */
static void dilate_axis(const int n[3], int a, int radius, uint8_t *cells, uint8_t *line) {
  const size_t stride = a == 0 ? 1 : a == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
  const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2; /* the other two axes */
  const size_t sb = b == 0 ? 1 : (size_t)n[0], sc = c == 1 ? (size_t)n[0] : (size_t)n[0] * n[1];
  for (int j = 0; j < n[c]; ++j)
    for (int i = 0; i < n[b]; ++i) {
      uint8_t *row = cells + (size_t)i * sb + (size_t)j * sc;
      for (int k = 0; k < n[a]; ++k) line[k] = row[(size_t)k * stride];
      for (int k = 0; k < n[a]; ++k) {
        uint8_t v = 0;
        for (int d = -radius; d <= radius; ++d)
          if (k + d >= 0 && k + d < n[a]) v |= line[k + d];
        row[(size_t)k * stride] = v;
      }
    }
}

void cavr_dilate_cells(const CAVRMacroGridDesc *grid, int radius, uint8_t *cells) {
  if (radius <= 0) return;
  const int *n = grid->cells;
  int longest = n[0] > n[1] ? n[0] : n[1];
  longest = longest > n[2] ? longest : n[2];
  uint8_t *line = (uint8_t *)malloc((size_t)longest);
  if (!line) {
    memset(cells, 1, (size_t)n[0] * n[1] * n[2]);
    return;
  }
  for (int a = 0; a < 3; ++a) dilate_axis(n, a, radius, cells, line);
  free(line);
}

/*
 * AUTO's choice until the per-GPU measured table (gpu_tune.c) decides per view: STANDARD. Wang et al. (2014) found
 * warp marching 3.7-14x faster on a GTX 680 when rays run along z (strided slices, poor texture-cache reuse per
 * thread); one thread per ray is the safe default because it never does more work than the ray needs (warp marching
 * fetches up to 31 samples past the crossing and 1 in 31 twice) and occupies 32x fewer warps per ray. The view
 * direction is taken already so the table can key on it.
 */
int cavr_iso_method(int requested, const double dirIndex[3]) {
  (void)dirIndex;
  return requested == CAVR_ISO_WARP_MARCHING ? CAVR_ISO_WARP_MARCHING : CAVR_ISO_STANDARD;
}

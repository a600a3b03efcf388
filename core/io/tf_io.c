// SPDX-License-Identifier: BSD-3-Clause
/*
 * tf_io.c - transfer-function presets and the transfer-function text format (see cavr_io.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr_io.h"

typedef struct Point {
  double x, rgba[4];
} Point;

/* Sample piecewise-linear control points (x increasing, spanning [x0, x1]) into count entries. */
static void sample_points(const Point *pts, int n, float *rgba, int count) {
  double x0 = pts[0].x, x1 = pts[n - 1].x;
  int seg = 0;
  for (int i = 0; i < count; ++i) {
    double x = x0 + (x1 - x0) * i / (count - 1);
    while (seg < n - 2 && x > pts[seg + 1].x) ++seg;
    double w = (x - pts[seg].x) / (pts[seg + 1].x - pts[seg].x);
    w = w < 0.0 ? 0.0 : w > 1.0 ? 1.0 : w;
    for (int c = 0; c < 4; ++c) rgba[4 * i + c] = (float)(pts[seg].rgba[c] + w * (pts[seg + 1].rgba[c] - pts[seg].rgba[c]));
  }
}

static const Point rampPts[] = {{0.0, {0, 0, 0, 0}}, {1.0, {1, 1, 1, 0.2}}};
static const Point skinPts[] = {{0.0, {0, 0, 0, 0}},          {0.18, {0.55, 0.25, 0.15, 0}},
                                {0.28, {0.88, 0.60, 0.45, 0.02}}, {0.42, {0.95, 0.75, 0.62, 0.04}},
                                {0.55, {1.0, 0.95, 0.88, 0.5}},  {1.0, {1, 1, 1, 0.9}}};
static const Point bonePts[] = {{0.0, {0, 0, 0, 0}}, {0.42, {0.75, 0.65, 0.55, 0}}, {0.6, {0.95, 0.9, 0.82, 0.6}},
                                {1.0, {1, 1, 1, 0.95}}};
static const Point mriPts[] = {{0.0, {0, 0, 0, 0}},           {0.12, {0.3, 0.15, 0.1, 0}},
                               {0.35, {0.85, 0.6, 0.5, 0.03}},  {0.65, {1.0, 0.9, 0.8, 0.25}},
                               {1.0, {1, 1, 1, 0.6}}};

CAVRError cavrTransferFunctionPreset(const char *name, float *rgba, int count, char *msg, size_t msgSize) {
  if (!name || !rgba || count < 2 || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  const Point *p = NULL;
  int n = 0;
#define PRESET(NAME, ARR)                                                                                          \
  if (!strcmp(name, NAME)) {                                                                                       \
    p = ARR;                                                                                                       \
    n = (int)(sizeof ARR / sizeof ARR[0]);                                                                         \
  }
  PRESET("ramp", rampPts)
  PRESET("ct-skin", skinPts)
  PRESET("ct-bone", bonePts)
  PRESET("mri", mriPts)
#undef PRESET
  if (!p) {
    snprintf(msg, msgSize, "unknown transfer-function preset '%s' (presets: ramp, ct-skin, ct-bone, mri)", name);
    return CAVR_ERROR_INVALID_ARGUMENT;
  }
  sample_points(p, n, rgba, count);
  return CAVR_ERROR_NONE;
}

CAVRError cavrLoadTransferFunctionFile(const char *path, const double normalizedRange[2], float *rgba, int count,
                                       double range[2], char *msg, size_t msgSize) {
  if (!path || !rgba || count < 2 || !range || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  Point pts[1024];
  int n = 0, normalized = 0, lineNo = 0;
  char line[512];
  CAVRError code = CAVR_ERROR_NONE;
  while (code == CAVR_ERROR_NONE && fgets(line, sizeof line, f)) {
    ++lineNo;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char word[32];
    if (sscanf(line, " %31s", word) != 1) continue;
    if (!strcmp(word, "domain")) {
      char d[32] = ""; /* stays empty for a bare "domain" line (sscanf then writes nothing) */
      if (sscanf(line, " domain %31s", d) != 1 || (strcmp(d, "scalar") && strcmp(d, "normalized"))) {
        snprintf(msg, msgSize, "%s:%d: expected 'domain scalar' or 'domain normalized'", path, lineNo);
        code = CAVR_ERROR_FILE_FORMAT;
        continue;
      }
      normalized = !strcmp(d, "normalized");
      continue;
    }
    Point pt;
    char extra[8];
    if (sscanf(line, "%lf %lf %lf %lf %lf %7s", &pt.x, &pt.rgba[0], &pt.rgba[1], &pt.rgba[2], &pt.rgba[3], extra) != 5) {
      snprintf(msg, msgSize, "%s:%d: expected 'VALUE R G B A'", path, lineNo);
      code = CAVR_ERROR_FILE_FORMAT;
      break;
    }
    int bad = !isfinite(pt.x);
    for (int c = 0; c < 4; ++c) bad |= !(pt.rgba[c] >= 0.0 && pt.rgba[c] <= 1.0);
    if (bad || (n > 0 && !(pt.x > pts[n - 1].x)) || n == 1024) {
      snprintf(msg, msgSize, "%s:%d: %s", path, lineNo,
               n == 1024 ? "more than 1024 points"
                         : bad ? "colour and opacity must be in [0,1]" : "values must be strictly increasing");
      code = CAVR_ERROR_FILE_FORMAT;
      break;
    }
    pts[n++] = pt;
  }
  fclose(f);
  if (code == CAVR_ERROR_NONE && n < 2) {
    snprintf(msg, msgSize, "%s: a transfer function needs at least 2 points, found %d", path, n);
    code = CAVR_ERROR_FILE_FORMAT;
  }
  /* Finite points can still span more than a double holds (+-1e308: the span overflows to inf and the table
     to NaN); normalized points lie in [0,1]. */
  if (code == CAVR_ERROR_NONE && n >= 2 && !isfinite(pts[n - 1].x - pts[0].x)) {
    snprintf(msg, msgSize, "%s: the values span %g to %g, more than a double can hold: rescale them", path, pts[0].x,
             pts[n - 1].x);
    code = CAVR_ERROR_FILE_FORMAT;
  }
  if (code == CAVR_ERROR_NONE && normalized && !(pts[0].x >= 0.0 && pts[n - 1].x <= 1.0)) {
    snprintf(msg, msgSize, "%s: 'domain normalized' values must lie in [0,1] (found %g to %g)", path, pts[0].x,
             pts[n - 1].x);
    code = CAVR_ERROR_FILE_FORMAT;
  }
  if (code == CAVR_ERROR_NONE && normalized && (!normalizedRange || !(normalizedRange[0] < normalizedRange[1]))) {
    snprintf(msg, msgSize, "%s: a normalized transfer function needs a scalar range with min < max", path);
    code = CAVR_ERROR_FILE_FORMAT;
  }
  if (code != CAVR_ERROR_NONE) return code;
  sample_points(pts, n, rgba, count);
  for (int i = 0; i < 4 * count; ++i)
    if (!(rgba[i] >= 0.0f && rgba[i] <= 1.0f)) { /* cannot happen after the checks above; never hand out NaN */
      snprintf(msg, msgSize, "%s: the sampled table has a value outside [0,1] at entry %d", path, i / 4);
      return CAVR_ERROR_FILE_FORMAT;
    }
  if (normalized) {
    range[0] = normalizedRange[0] + pts[0].x * (normalizedRange[1] - normalizedRange[0]);
    range[1] = normalizedRange[0] + pts[n - 1].x * (normalizedRange[1] - normalizedRange[0]);
  } else {
    range[0] = pts[0].x;
    range[1] = pts[n - 1].x;
  }
  /* Points closer than the arithmetic can resolve (fuzzing: normalized 0 and 1.1e-319 collapse to one scalar;
     scalar points 1e-320 apart would make the table index scale overflow). */
  if (!(range[0] < range[1]) || !((count - 1) / (range[1] - range[0]) < 1e28)) {
    snprintf(msg, msgSize, "%s: the points span %g to %g, too narrow a range for a table of %d entries", path,
             range[0], range[1], count);
    return CAVR_ERROR_FILE_FORMAT;
  }
  return CAVR_ERROR_NONE;
}

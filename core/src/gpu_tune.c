// SPDX-License-Identifier: BSD-3-Clause
/*
 * gpu_tune.c - AUTO's measured table: view classes, the choice of rotation state and block shape, and the table's
 * text file in the user's cache directory.
 */
#define _DEFAULT_SOURCE 1
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cavr_shared.h"
#include "env.h"
#include "gpu_tune.h"
#include "view_policy.h"

const CAVRBlockShape cavr_block_shapes[CAVR_TUNE_SHAPES] = {
    {"16x16", 16, 16, 16, 2, 0}, {"32x8", 32, 8, 32, 1, 0},  {"64x4", 64, 4, 32, 1, 0},   {"8x32", 8, 32, 8, 4, 0},
    {"4x64", 4, 64, 4, 8, 0},    {"2x128", 2, 128, 2, 16, 0}, {"1x256", 1, 256, 1, 32, 0}, {"2x256t", 2, 256, 2, 16, 1},
    {"16x32t", 16, 32, 1, 32, 1}, /* SHAPED's block for a vertical primary axis (Sugimoto 2013, sec. 5: 1x32 warps) */
};

const char *cavr_storage_name(int storage) {
  return storage == CAVR_STORE_U8 ? "uint8" : storage == CAVR_STORE_U16 ? "uint16" : storage == CAVR_STORE_F32 ? "float32" : "unknown";
}

int cavr_tune_class(const double dir[3], const double right[3], const double up[3]) {
  static const double ones[3] = {1.0, 1.0, 1.0};
  CAVRViewClass vc;
  cavr_classify_view(dir, right, up, ones, CAVR_SHAPE_DYNAMIC_BLOCK, 256, &vc);
  int group = (int)(vc.screenAngleDeg / 15.0);
  if (group < 0) group = 0;
  if (group >= CAVR_TUNE_GROUPS) group = CAVR_TUNE_GROUPS - 1;
  return vc.rayAxis * CAVR_TUNE_GROUPS + group;
}

const int cavr_tune_sides[CAVR_TUNE_SIZES] = {256, 768, 1536};

float cavr_tune_cost(const CAVRTuneTable *t, double bytes, int cls, int shape) {
  if (!t || cls < 0 || cls >= CAVR_TUNE_CLASSES || shape < 0 || shape >= CAVR_TUNE_SHAPES) return 0.0f;
  /* The measured rows around `bytes` (rows are in increasing size). */
  int lo = -1, hi = -1;
  for (int r = 0; r < CAVR_TUNE_SIZES; ++r) {
    if (!(t->rowBytes[r] > 0.0) || !(t->cost[r][cls][shape] > 0.0f)) continue;
    if (t->rowBytes[r] <= bytes) lo = r;
    else if (hi < 0) hi = r;
  }
  if (lo < 0 && hi < 0) return 0.0f;
  if (lo < 0) return t->cost[hi][cls][shape];
  if (hi < 0) return t->cost[lo][cls][shape];
  const double a = log2(t->rowBytes[lo]), b = log2(t->rowBytes[hi]), x = log2(bytes > 1.0 ? bytes : 1.0);
  const double w = b > a ? (x - a) / (b - a) : 0.0;
  return (float)((1.0 - w) * t->cost[lo][cls][shape] + w * t->cost[hi][cls][shape]);
}

double cavr_tune_max_bytes(const CAVRTuneTable *t) {
  double m = 0.0;
  for (int r = 0; t && r < CAVR_TUNE_SIZES; ++r) m = t->rowBytes[r] > m ? t->rowBytes[r] : m;
  return m;
}

int cavr_tune_best_shape(const CAVRTuneTable *t, double bytes, int cls, float *cost) {
  int best = -1;
  float c = 0.0f;
  for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
    const float v = cavr_tune_cost(t, bytes, cls, s);
    if (v > 0.0f && (best < 0 || v < c)) {
      best = s;
      c = v;
    }
  }
  if (cost) *cost = best < 0 ? 0.0f : c;
  return best;
}

void cavr_tune_choose(const CAVRTuneTable *t, double bytes, const double dir[3], const double right[3],
                      const double up[3], int canRotate, int current, double margin, CAVRTuneChoice *out) {
  CAVRTuneChoice opt[3];
  /* Rotation is for views with x along the rays (Misaki 2017): a turn never helps rays along y or z, and a state
     that leaves the rays along stored x is no cure. */
  const int xAlongRays = cavr_tune_class(dir, right, up) / CAVR_TUNE_GROUPS == 0;
  int n = canRotate && xAlongRays ? 3 : 1;
  float stateCost[3] = {0.0f, 0.0f, 0.0f};
  for (int r = 0; r < n; ++r) {
    double d[3], rr[3], u[3];
    cavr_to_stored(dir, r, d);
    cavr_to_stored(right, r, rr);
    cavr_to_stored(up, r, u);
    opt[r].rotation = r;
    opt[r].cost = 0.0f;
    const int cls = cavr_tune_class(d, rr, u);
    opt[r].shape = r != CAVR_ROT_NONE && cls / CAVR_TUNE_GROUPS == 0 ? -1
                                                                     : cavr_tune_best_shape(t, bytes, cls, &opt[r].cost);
    if (opt[r].shape >= 0) stateCost[r] = opt[r].cost;
  }
  int best = -1;
  for (int r = 0; r < n; ++r)
    if (opt[r].shape >= 0 && (best < 0 || opt[r].cost < opt[best].cost)) best = r;
  if (best < 0) { /* nothing measured for this view */
    out->rotation = CAVR_ROT_NONE;
    out->shape = 0;
    out->cost = 0.0f;
    memcpy(out->stateCost, stateCost, sizeof stateCost);
    return;
  }
  if (current >= 0 && current < n && current != best && opt[current].shape >= 0 &&
      opt[current].cost <= opt[best].cost * (1.0 + margin))
    best = current;
  *out = opt[best];
  memcpy(out->stateCost, stateCost, sizeof stateCost);
}

int cavr_tune_iso_method(const CAVRTuneTable *t, int cls) {
  if (!t || cls < 0 || cls >= CAVR_TUNE_CLASSES) return 0;
  const float s = t->isoCost[cls][0], w = t->isoCost[cls][1];
  return s > 0.0f && w > 0.0f && w < s ? 1 : 0;
}

int cavr_tune_write(const CAVRTuneTable *t, FILE *f) {
  static const char axes[3] = {'x', 'y', 'z'};
  fprintf(f, "cavr-tune %d\n", CAVR_TUNE_FORMAT);
  fprintf(f, "# AUTO's table: kernel ns per sample per row (calibration cube), class of view (ray axis, 15-degree\n"
             "# group of the primary axis on screen) and thread-block shape, measured by cavrTuneDevice on dense\n"
             "# synthetic cubes; 'row R SIDE BYTES' gives each row's cube (BYTES 0: not measured).\n");
  fprintf(f, "gpu %s\nmemory_mib %d\nstorage %s\ncavr_version %d\nshapes", t->gpu, t->memoryMiB,
          cavr_storage_name(t->storage), t->version);
  for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) fprintf(f, " %s", cavr_block_shapes[s].name);
  fputc('\n', f);
  for (int r = 0; r < CAVR_TUNE_SIZES; ++r) {
    fprintf(f, "row %d %d %.0f\n", r, t->rowSide[r], t->rowBytes[r]);
    if (!(t->rowBytes[r] > 0.0)) continue;
    for (int c = 0; c < CAVR_TUNE_CLASSES; ++c) {
      fprintf(f, "class %d %c %d", r, axes[c / CAVR_TUNE_GROUPS], c % CAVR_TUNE_GROUPS);
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) fprintf(f, " %.6g", (double)t->cost[r][c][s]);
      fputc('\n', f);
    }
  }
  fprintf(f, "# isosurfaces: kernel ns per ray, one thread per ray and warp marching, per class\n");
  for (int c = 0; c < CAVR_TUNE_CLASSES; ++c)
    fprintf(f, "iso %c %d %.9g %.9g\n", axes[c / CAVR_TUNE_GROUPS], c % CAVR_TUNE_GROUPS, (double)t->isoCost[c][0],
            (double)t->isoCost[c][1]);
  return ferror(f) ? -1 : 0;
}

#define FAIL(...)                                                                                                  \
  do {                                                                                                             \
    snprintf(msg, msgSize, __VA_ARGS__);                                                                           \
    return -1;                                                                                                     \
  } while (0)

int cavr_tune_read(CAVRTuneTable *t, FILE *f, char *msg, size_t msgSize) {
  char line[512];
  int format = 0, haveGpu = 0, haveStorage = 0, haveShapes = 0, lineNo = 0;
  unsigned char seen[CAVR_TUNE_SIZES][CAVR_TUNE_CLASSES] = {{0}}, haveRow[CAVR_TUNE_SIZES] = {0};
  memset(t, 0, sizeof *t);
  t->storage = -1;
  while (fgets(line, sizeof line, f)) {
    ++lineNo;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') FAIL("line %d is too long", lineNo);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (!len || line[0] == '#') continue;
    if (lineNo == 1 || !format) {
      if (sscanf(line, "cavr-tune %d", &format) != 1) FAIL("not a cavr AUTO table (first line '%.40s')", line);
      if (format != CAVR_TUNE_FORMAT) FAIL("table format %d, this library reads %d", format, CAVR_TUNE_FORMAT);
      continue;
    }
    if (!strncmp(line, "gpu ", 4)) {
      snprintf(t->gpu, sizeof t->gpu, "%.95s", line + 4);
      haveGpu = 1;
    } else if (!strncmp(line, "memory_mib ", 11)) {
      t->memoryMiB = atoi(line + 11);
    } else if (!strncmp(line, "cavr_version ", 13)) {
      t->version = atoi(line + 13);
    } else if (!strncmp(line, "storage ", 8)) {
      for (int s = 0; s < 3; ++s)
        if (!strcmp(line + 8, cavr_storage_name(s))) t->storage = s;
      if (t->storage < 0) FAIL("line %d: unknown storage '%.20s'", lineNo, line + 8);
      haveStorage = 1;
    } else if (!strncmp(line, "shapes", 6)) {
      char *p = line + 6;
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
        char name[32];
        int used = 0;
        if (sscanf(p, " %31s%n", name, &used) != 1 || strcmp(name, cavr_block_shapes[s].name))
          FAIL("line %d: the candidate shapes differ from this library's", lineNo);
        p += used;
      }
      haveShapes = 1;
    } else if (!strncmp(line, "row ", 4)) {
      int r = -1, side = 0;
      double bytes = -1.0;
      if (sscanf(line + 4, "%d %d %lf", &r, &side, &bytes) != 3 || r < 0 || r >= CAVR_TUNE_SIZES || side < 0 ||
          side > 65536 || !isfinite(bytes) || bytes < 0.0 || bytes > 1e15 || (side == 0 && bytes > 0.0))
        FAIL("line %d: malformed row", lineNo);
      t->rowBytes[r] = bytes;
      t->rowSide[r] = side;
      haveRow[r] = 1;
    } else if (!strncmp(line, "class ", 6)) {
      char axis = 0;
      int r = -1, group = -1, used = 0;
      if (sscanf(line + 6, "%d %c %d%n", &r, &axis, &group, &used) != 3 || r < 0 || r >= CAVR_TUNE_SIZES ||
          !haveRow[r] || axis < 'x' || axis > 'z' || group < 0 || group >= CAVR_TUNE_GROUPS)
        FAIL("line %d: malformed class", lineNo);
      int c = (axis - 'x') * CAVR_TUNE_GROUPS + group;
      const char *p = line + 6 + used;
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || v < 0.0 || v > 1e6) FAIL("line %d: cost %d is not a finite value >= 0", lineNo, s + 1);
        t->cost[r][c][s] = (float)v;
        p = end;
      }
      seen[r][c] = 1;
    } else if (!strncmp(line, "iso ", 4)) {
      char axis = 0;
      int group = -1;
      double a = -1.0, b = -1.0;
      if (sscanf(line + 4, "%c %d %lf %lf", &axis, &group, &a, &b) != 4 || axis < 'x' || axis > 'z' || group < 0 ||
          group >= CAVR_TUNE_GROUPS || !isfinite(a) || !isfinite(b) || a < 0.0 || b < 0.0 || a > 1e9 || b > 1e9)
        FAIL("line %d: malformed iso costs", lineNo);
      const int c = (axis - 'x') * CAVR_TUNE_GROUPS + group;
      t->isoCost[c][0] = (float)a;
      t->isoCost[c][1] = (float)b;
    } else {
      FAIL("line %d: unknown entry '%.20s'", lineNo, line);
    }
  }
  if (!format) FAIL("empty file");
  if (!haveGpu || !haveStorage || !haveShapes) FAIL("the gpu, storage or shapes line is missing");
  int rows = 0;
  for (int r = 0; r < CAVR_TUNE_SIZES; ++r) {
    if (!haveRow[r]) FAIL("row %d is missing", r);
    if (!(t->rowBytes[r] > 0.0)) continue;
    ++rows;
    for (int c = 0; c < CAVR_TUNE_CLASSES; ++c)
      if (!seen[r][c]) FAIL("row %d: class %d is missing", r, c);
  }
  if (!rows) FAIL("no row was measured");
  return 0;
}

int cavr_tune_path(char *buf, size_t size, const struct CAVREnv *env, const char *gpu, int storage) {
  char base[1100];
  int n;
  if (env->tuneDir[0]) n = snprintf(base, sizeof base, "%s", env->tuneDir);
  else if (env->xdgCacheHome[0]) n = snprintf(base, sizeof base, "%s/cavr", env->xdgCacheHome);
  else if (env->home[0]) n = snprintf(base, sizeof base, "%s/.cache/cavr", env->home);
  else return -1;
  if (n < 0 || (size_t)n >= sizeof base) return -1;
  char name[128];
  size_t k = 0;
  for (const char *p = gpu; *p && k + 1 < sizeof name; ++p) {
    char c = *p;
    name[k++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_';
  }
  name[k] = '\0';
  n = snprintf(buf, size, "%s/auto-%s-%s.txt", base, name, cavr_storage_name(storage));
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-render - render a volume file to a PNG from the command line (see `cavr-render --help`).
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"

#define TF_SIZE 1024

static void usage(FILE *f) {
  fprintf(f,
          "usage: cavr-render INPUT [-o out.png] [--size WxH] [--rotate-x DEG] [--rotate-y DEG] [--rotate-z DEG]\n"
          "                   [--projection ortho|perspective] [--tf PRESET|FILE] [--range MIN:MAX]\n"
          "                   [--sample-distance VOXELS] [--blend composite|mip|minip|average|iso|slice] [--shade]\n"
          "                   [--scatter BLENDING,REACH,ANISOTROPY]\n"
          "                   [--iso V[,V...]] [--iso-method standard|warp|auto] [--supersample 1|4|5|9|16]\n"
          "                   [--slice-origin X,Y,Z] [--slice-normal X,Y,Z]\n"
          "                   [--interpolation nearest|linear|cubic] [--backend auto|cpu|cuda] [--threads N]\n"
          "                   [--strategy standard|shaped|auto] [--no-rotation]\n"
          "                   [--sample-fraction F] [--reconstruction global|local|refine] [--adaptive]\n"
          "                   [--host-planes rgba8[,rgba32f][,depth]|all] [--repeat N] [--json]\n"
          "       raw input also needs: --dims X,Y,Z --type uint8|int8|uint16|int16|float32|uint32|int32|float64\n"
          "                             [--spacing SX,SY,SZ]\n"
          "INPUT is a NRRD file (.nrrd or .nhdr, raw or gzip data) or a headerless raw file.\n"
          "Rotations orbit the camera about the volume centre: x first, then y, then z (degrees).\n"
          "Transfer-function presets: ramp (default), ct-skin, ct-bone, mri; they span --range (default: data range).\n"
          "A FILE holds lines 'VALUE R G B A' (and optionally 'domain normalized'); see docs/user-guide.md.\n"
          "--repeat N renders N times and reports the median; --json prints one JSON object on stdout.\n"
          "--strategy picks the GPU ray-casting strategy (default auto: thread-block shaping and in-place rotation);\n"
          "--no-rotation keeps the volume as uploaded. Both are ignored by the CPU back end.\n"
          "--sample-fraction F (0 < F <= 1, default 1) casts rays for that fraction of the pixels (linear pixel\n"
          "shuffling) and rebuilds the rest by conjugate gradients (compressive rendering), --reconstruction local\n"
          "(default: 16x16 blocks) or global; --adaptive spends the rays by the variance of each block (local only);\n"
          "refine (CPU only) casts a grid of one ray per 4x4 pixels, then rays where it disagrees, bilinear elsewhere.\n"
          "The JSON then reports rays (cast), solve_ms and iterations.\n"
          "--blend iso shows the first crossing of any of the --iso values (scalar units, at most 8; default the\n"
          "middle of the data range), coloured by the transfer function there; --iso-method picks the GPU's standard\n"
          "(one thread per ray) or warp-marching (one warp per ray) search. --supersample N casts N rays per pixel\n"
          "(4, 9, 16: N x N grids; 5: the centre and a 2x2 grid) and averages them. --interpolation cubic: B-spline.\n"
          "--blend slice shows one sample per ray where it meets the plane through --slice-origin (world units, default\n"
          "the volume's centre) with --slice-normal (default 0,0,1), coloured by the transfer function there.\n"
          "-o none writes no image (timings only).\n"
          "--host-planes names the frame-buffer planes a GPU render copies back to the host (default rgba8, which\n"
          "the PNG is written from; all = rgba8,rgba32f,depth); the JSON's transfer_ms is that copy's time.\n");
}

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "cavr-render: %s%s%s\n", what, msg && msg[0] ? ": " : "", msg ? msg : "");
  return 1;
}

static int parse_triple_int(const char *s, int v[3]) { return sscanf(s, "%d,%d,%d", &v[0], &v[1], &v[2]) == 3; }
static int parse_triple_double(const char *s, double v[3]) {
  return sscanf(s, "%lf,%lf,%lf", &v[0], &v[1], &v[2]) == 3;
}
static int parse_double(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*v);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m) return 0;
  for (size_t i = 0; i < m; ++i)
    if (tolower((unsigned char)s[n - m + i]) != suffix[i]) return 0;
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Notes from the library that are not errors (code CAVR_ERROR_NONE: AUTO measured its table, or uses its default;
   and fallbacks, e.g. to the CPU or to no rotation): one line each on stderr. Errors are reported where returned. */
static void print_note(void *user, CAVRError code, const char *message) {
  (void)user;
  if (code == CAVR_ERROR_NONE || code == CAVR_ERROR_CUDA_OUT_OF_MEMORY || code == CAVR_ERROR_UNSUPPORTED)
    fprintf(stderr, "cavr-render: %s\n", message);
}

/* Copy s into out with JSON string escapes. */
static void json_escape(const char *s, char *out, size_t n) {
  size_t j = 0;
  for (; *s && j + 7 < n; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[j++] = '\\';
      out[j++] = (char)c;
    } else if (c < 0x20) {
      j += (size_t)snprintf(out + j, n - j, "\\u%04x", c);
    } else {
      out[j++] = (char)c;
    }
  }
  out[j] = '\0';
}

static const char *backend_name(CAVRBackend b) { return b == CAVR_BACKEND_CUDA ? "cuda" : "cpu"; }

/* --host-planes: "all" or a comma list of rgba8, rgba32f, depth that includes rgba8. Names in canonical order. */
static int parse_host_planes(const char *s, unsigned *mask, char *names, size_t n) {
  static const struct { const char *name; unsigned bit; } planes[] = {
      {"rgba8", CAVR_FB_HOST_RGBA8}, {"rgba32f", CAVR_FB_HOST_RGBA32F}, {"depth", CAVR_FB_HOST_DEPTH}};
  unsigned m = 0;
  if (!strcmp(s, "all")) {
    m = CAVR_FB_HOST_ALL;
  } else {
    for (const char *p = s; *p;) {
      size_t len = strcspn(p, ",");
      unsigned bit = 0;
      for (size_t i = 0; i < sizeof planes / sizeof planes[0]; ++i)
        if (strlen(planes[i].name) == len && !strncmp(p, planes[i].name, len)) bit = planes[i].bit;
      if (!bit) return 0;
      m |= bit;
      p += len;
      if (*p == ',' && *++p == '\0') return 0;
    }
  }
  if (!(m & CAVR_FB_HOST_RGBA8)) return 0;
  names[0] = '\0';
  for (size_t i = 0; i < sizeof planes / sizeof planes[0]; ++i)
    if (m & planes[i].bit) snprintf(names + strlen(names), n - strlen(names), "%s%s", names[0] ? "," : "", planes[i].name);
  *mask = m;
  return 1;
}

/* What the command line asks for: option values as parsed, and the names resolved to the API's enums. */
typedef struct Options {
  const char *input, *out, *tfName, *type, *blend, *backend, *interp, *projection;
  int width, height, repeat, json, shade, threads, haveDims, haveRange, rotation, adaptive;
  CAVRStrategy strategy;
  double fraction;
  CAVRReconstruction reconstruction;
  double isoValues[CAVR_MAX_ISO_VALUES];
  int isoCount, supersample;
  CAVRIsoMethod isoMethod;
  unsigned hostPlanes;
  char hostPlaneNames[64];
  int dims[3], haveSliceOrigin;
  double sliceOrigin[3], sliceNormal[3];
  double scatter[3];             /* --scatter: blending, reach, anisotropy (cavrSetRenderScattering) */
  double rot[3], spacing[3], range[2], sampleDistance;
  CAVRBlendMode blendMode;
  CAVRBackend be;
  CAVRProjection proj;
  CAVRInterpolation interpolation;
} Options;

static void default_options(Options *o) {
  memset(o, 0, sizeof *o);
  o->out = "cavr.png";
  o->tfName = "ramp";
  o->blend = "composite";
  o->backend = "auto";
  o->interp = "linear";
  o->projection = "ortho";
  o->width = o->height = 1024;
  o->repeat = 1;
  o->rotation = 1;
  o->strategy = CAVR_STRATEGY_AUTO;
  o->fraction = 1.0;
  o->reconstruction = CAVR_RECONSTRUCTION_LOCAL;
  o->supersample = 1;
  o->isoMethod = CAVR_ISO_AUTO;
  o->hostPlanes = CAVR_FB_HOST_RGBA8; /* what the PNG needs */
  strcpy(o->hostPlaneNames, "rgba8");
  o->sliceNormal[2] = 1;
  for (int a = 0; a < 3; ++a) o->spacing[a] = 1;
  o->sampleDistance = 0.5;
}

enum { O_SIZE = 256, O_RX, O_RY, O_RZ, O_PROJ, O_TF, O_RANGE, O_SD, O_BLEND, O_SHADE, O_BACKEND, O_REPEAT, O_JSON,
       O_DIMS, O_TYPE, O_SPACING, O_INTERP, O_THREADS, O_STRATEGY, O_NOROT, O_FRACTION, O_RECON, O_ADAPTIVE,
       O_HOST_PLANES, O_ISO, O_ISO_METHOD, O_SUPERSAMPLE, O_SLICE_ORIGIN, O_SLICE_NORMAL, O_SCATTER };

/* Parsing returns CONTINUE, or the exit status of a run that ends there (help, a bad option). */
#define CONTINUE (-1)

/* --iso: 1 to CAVR_MAX_ISO_VALUES comma-separated finite values. */
static int parse_iso(const char *arg, Options *o) {
  const char *q = arg;
  o->isoCount = 0;
  for (;;) {
    char *end;
    double v = strtod(q, &end);
    if (end == q || !isfinite(v) || o->isoCount == CAVR_MAX_ISO_VALUES || (*end != ',' && *end != '\0'))
      return fail("--iso expects 1 to 8 comma-separated finite values", arg);
    o->isoValues[o->isoCount++] = v;
    if (*end == '\0') break;
    q = end + 1;
  }
  return CONTINUE;
}

/* The options that take a named choice or a count with a fixed set of values. */
static int parse_choice_option(int c, const char *arg, Options *o) {
  switch (c) {
  case O_STRATEGY:
    if (!strcmp(arg, "standard")) o->strategy = CAVR_STRATEGY_STANDARD;
    else if (!strcmp(arg, "shaped")) o->strategy = CAVR_STRATEGY_SHAPED;
    else if (!strcmp(arg, "auto")) o->strategy = CAVR_STRATEGY_AUTO;
    else return fail("--strategy expects standard, shaped or auto", arg);
    break;
  case O_RECON:
    if (!strcmp(arg, "global")) o->reconstruction = CAVR_RECONSTRUCTION_GLOBAL;
    else if (!strcmp(arg, "local")) o->reconstruction = CAVR_RECONSTRUCTION_LOCAL;
    else if (!strcmp(arg, "refine")) o->reconstruction = CAVR_RECONSTRUCTION_REFINE;
    else return fail("--reconstruction expects global, local or refine", arg);
    break;
  case O_ISO_METHOD:
    if (!strcmp(arg, "standard")) o->isoMethod = CAVR_ISO_STANDARD;
    else if (!strcmp(arg, "warp")) o->isoMethod = CAVR_ISO_WARP_MARCHING;
    else if (!strcmp(arg, "auto")) o->isoMethod = CAVR_ISO_AUTO;
    else return fail("--iso-method expects standard, warp or auto", arg);
    break;
  case O_SUPERSAMPLE: {
    char *end;
    long n = strtol(arg, &end, 10);
    if (*end || !(n == 1 || n == 4 || n == 5 || n == 9 || n == 16))
      return fail("--supersample expects 1, 4, 5, 9 or 16", arg);
    o->supersample = (int)n;
    break;
  }
  case O_HOST_PLANES:
    if (!parse_host_planes(arg, &o->hostPlanes, o->hostPlaneNames, sizeof o->hostPlaneNames))
      return fail("--host-planes expects a comma list of rgba8, rgba32f, depth including rgba8 (the PNG's), or all",
                  arg);
    break;
  }
  return CONTINUE;
}

/* One option of getopt_long: store its value in o. */
static int parse_option(int c, const char *arg, Options *o) {
  switch (c) {
  case 'o': o->out = arg; break;
  case O_SIZE:
    if (sscanf(arg, "%dx%d", &o->width, &o->height) != 2 || o->width < 1 || o->height < 1 ||
        o->width > CAVR_MAX_IMAGE_SIZE || o->height > CAVR_MAX_IMAGE_SIZE)
      return fail("--size expects WxH, each in [1, 16384]", arg);
    break;
  case O_RX: case O_RY: case O_RZ:
    if (!parse_double(arg, &o->rot[c - O_RX])) return fail("rotation expects degrees", arg);
    break;
  case O_PROJ: o->projection = arg; break;
  case O_TF: o->tfName = arg; break;
  case O_RANGE:
    if (sscanf(arg, "%lf:%lf", &o->range[0], &o->range[1]) != 2 || !(o->range[0] < o->range[1]))
      return fail("--range expects MIN:MAX with MIN < MAX", arg);
    o->haveRange = 1;
    break;
  case O_SD:
    if (!parse_double(arg, &o->sampleDistance)) return fail("--sample-distance expects voxels", arg);
    break;
  case O_BLEND: o->blend = arg; break;
  case O_SLICE_ORIGIN: case O_SLICE_NORMAL: {
    double *v = c == O_SLICE_ORIGIN ? o->sliceOrigin : o->sliceNormal;
    if (!parse_triple_double(arg, v) || !isfinite(v[0] + v[1] + v[2]))
      return fail(c == O_SLICE_ORIGIN ? "--slice-origin expects X,Y,Z" : "--slice-normal expects X,Y,Z", arg);
    o->haveSliceOrigin |= c == O_SLICE_ORIGIN;
    break;
  }
  case O_SHADE: o->shade = 1; break;
  case O_SCATTER:
    if (!parse_triple_double(arg, o->scatter) || !(o->scatter[0] >= 0.0 && o->scatter[0] <= 2.0) ||
        !(o->scatter[1] >= 0.0 && o->scatter[1] <= 1.0) || !(o->scatter[2] >= -1.0 && o->scatter[2] <= 1.0))
      return fail("--scatter expects BLENDING,REACH,ANISOTROPY in [0,2], [0,1], [-1,1]", arg);
    break;
  case O_BACKEND: o->backend = arg; break;
  case O_REPEAT:
    o->repeat = atoi(arg);
    if (o->repeat < 1 || o->repeat > 100000) return fail("--repeat expects a count >= 1", arg);
    break;
  case O_JSON: o->json = 1; break;
  case O_DIMS:
    if (!parse_triple_int(arg, o->dims)) return fail("--dims expects X,Y,Z", arg);
    o->haveDims = 1;
    break;
  case O_TYPE: o->type = arg; break;
  case O_SPACING:
    if (!parse_triple_double(arg, o->spacing)) return fail("--spacing expects SX,SY,SZ", arg);
    break;
  case O_INTERP: o->interp = arg; break;
  case O_THREADS:
    o->threads = atoi(arg);
    if (o->threads < 0) return fail("--threads expects a count >= 0", arg);
    break;
  case O_NOROT: o->rotation = 0; break;
  case O_FRACTION: {
    char *end = NULL;
    o->fraction = strtod(arg, &end);
    if (!end || *end || !(o->fraction > 0.0 && o->fraction <= 1.0)) return fail("--sample-fraction expects 0 < F <= 1", arg);
    break;
  }
  case O_ADAPTIVE: o->adaptive = 1; break;
  case O_ISO: return parse_iso(arg, o);
  case O_STRATEGY: case O_RECON: case O_ISO_METHOD: case O_SUPERSAMPLE: case O_HOST_PLANES:
    return parse_choice_option(c, arg, o);
  case 'h': usage(stdout); return 0;
  default: usage(stderr); return 2;
  }
  return CONTINUE;
}

/* The named choices that are checked after every option was read: blend mode, back end, projection, interpolation. */
static int resolve_names(Options *o) {
  if (!strcmp(o->blend, "composite")) o->blendMode = CAVR_BLEND_COMPOSITE;
  else if (!strcmp(o->blend, "mip")) o->blendMode = CAVR_BLEND_MAXIMUM_INTENSITY;
  else if (!strcmp(o->blend, "minip")) o->blendMode = CAVR_BLEND_MINIMUM_INTENSITY;
  else if (!strcmp(o->blend, "average")) o->blendMode = CAVR_BLEND_AVERAGE_INTENSITY;
  else if (!strcmp(o->blend, "iso")) o->blendMode = CAVR_BLEND_ISOSURFACE;
  else if (!strcmp(o->blend, "slice")) o->blendMode = CAVR_BLEND_SLICE;
  else return fail("--blend expects composite, mip, minip, average, iso or slice", o->blend);
  if (!strcmp(o->backend, "auto")) o->be = CAVR_BACKEND_AUTO;
  else if (!strcmp(o->backend, "cpu")) o->be = CAVR_BACKEND_CPU;
  else if (!strcmp(o->backend, "cuda")) o->be = CAVR_BACKEND_CUDA;
  else return fail("--backend expects auto, cpu or cuda", o->backend);
  if (!strcmp(o->projection, "ortho")) o->proj = CAVR_PROJECTION_ORTHOGRAPHIC;
  else if (!strcmp(o->projection, "perspective")) o->proj = CAVR_PROJECTION_PERSPECTIVE;
  else return fail("--projection expects ortho or perspective", o->projection);
  if (!strcmp(o->interp, "linear")) o->interpolation = CAVR_INTERPOLATION_TRILINEAR;
  else if (!strcmp(o->interp, "nearest")) o->interpolation = CAVR_INTERPOLATION_NEAREST;
  else if (!strcmp(o->interp, "cubic")) o->interpolation = CAVR_INTERPOLATION_CUBIC;
  else return fail("--interpolation expects nearest, linear or cubic", o->interp);
  return CONTINUE;
}

/* The whole command line: options in order (the first bad one ends the run), one INPUT, then the named choices. */
static int parse_args(int argc, char **argv, Options *o) {
  static const struct option opts[] = {
      {"output", required_argument, 0, 'o'},  {"size", required_argument, 0, O_SIZE},
      {"rotate-x", required_argument, 0, O_RX}, {"rotate-y", required_argument, 0, O_RY},
      {"rotate-z", required_argument, 0, O_RZ}, {"projection", required_argument, 0, O_PROJ},
      {"tf", required_argument, 0, O_TF},     {"range", required_argument, 0, O_RANGE},
      {"sample-distance", required_argument, 0, O_SD}, {"blend", required_argument, 0, O_BLEND},
      {"shade", no_argument, 0, O_SHADE},     {"backend", required_argument, 0, O_BACKEND},
      {"repeat", required_argument, 0, O_REPEAT}, {"json", no_argument, 0, O_JSON},
      {"dims", required_argument, 0, O_DIMS}, {"type", required_argument, 0, O_TYPE},
      {"spacing", required_argument, 0, O_SPACING}, {"interpolation", required_argument, 0, O_INTERP},
      {"threads", required_argument, 0, O_THREADS}, {"help", no_argument, 0, 'h'},
      {"strategy", required_argument, 0, O_STRATEGY}, {"no-rotation", no_argument, 0, O_NOROT},
      {"sample-fraction", required_argument, 0, O_FRACTION}, {"reconstruction", required_argument, 0, O_RECON},
      {"adaptive", no_argument, 0, O_ADAPTIVE}, {"host-planes", required_argument, 0, O_HOST_PLANES},
      {"iso", required_argument, 0, O_ISO}, {"iso-method", required_argument, 0, O_ISO_METHOD},
      {"supersample", required_argument, 0, O_SUPERSAMPLE},
      {"slice-origin", required_argument, 0, O_SLICE_ORIGIN}, {"slice-normal", required_argument, 0, O_SLICE_NORMAL},
      {"scatter", required_argument, 0, O_SCATTER}, {0, 0, 0, 0}};
  default_options(o);
  int c;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    int status = parse_option(c, optarg, o);
    if (status != CONTINUE) return status;
  }
  if (optind != argc - 1) {
    usage(stderr);
    return 2;
  }
  o->input = argv[optind];
  return resolve_names(o);
}

/* Read INPUT: NRRD by its extension, else headerless raw with --dims and --type. Returns 0 or the exit status. */
static int load_volume(const Options *o, CAVRVolumeFile *file, char *msg, size_t msgSize) {
  CAVRError e;
  if (ends_with(o->input, ".nrrd") || ends_with(o->input, ".nhdr")) {
    e = cavrLoadNrrd(o->input, file, msg, msgSize);
  } else {
    if (!o->haveDims || !o->type) return fail("raw input needs --dims X,Y,Z and --type", o->input);
    static const struct { const char *name; CAVRScalarType t; } types[] = {
        {"uint8", CAVR_UINT8}, {"int8", CAVR_INT8}, {"uint16", CAVR_UINT16}, {"int16", CAVR_INT16},
        {"float32", CAVR_FLOAT32}, {"uint32", CAVR_UINT32}, {"int32", CAVR_INT32}, {"float64", CAVR_FLOAT64}};
    CAVRScalarType t = (CAVRScalarType)0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
      if (!strcmp(types[i].name, o->type)) t = types[i].t;
    if (!t) return fail("--type expects uint8, int8, uint16, int16, float32, uint32, int32 or float64", o->type);
    e = cavrLoadRaw(o->input, t, o->dims, o->spacing, file, msg, msgSize);
  }
  if (e != CAVR_ERROR_NONE) return fail(cavrGetErrorString(e), msg);
  return 0;
}

/* The device's objects and what a run measures. */
typedef struct Scene {
  CAVRDevice dev;
  CAVRVolume vol;
  CAVRTransferFunction tf;
  CAVRCamera cam;
  CAVRRenderSettings set;
  CAVRFrameBuffer fb;
  double *times; /* per render, ms */
  float *table;  /* TF_SIZE RGBA entries */
  CAVRRenderStats stats;
  CAVRVolumeCommitStats commit; /* the volume's upload (JSON: commit_ms, commit_gbps, upload_*, cells_ms) */
  double dataRange[2], bounds[6], tfRange[2], median;
} Scene;

/* A step's result besides 0 (done) and 1 (failed, reported): the device holds the error, not yet reported. */
#define DEVICE_ERROR (-2)

/* Create the objects and upload the volume (the file's voxels are freed once committed). */
static int make_scene(const Options *o, CAVRVolumeFile *file, Scene *s) {
  s->vol = cavrNewVolume(s->dev);
  s->tf = cavrNewTransferFunction(s->dev);
  s->cam = cavrNewCamera(s->dev);
  s->set = cavrNewRenderSettings(s->dev);
  s->fb = cavrNewFrameBuffer(s->dev, o->width, o->height);
  s->times = (double *)calloc((size_t)o->repeat, sizeof(double));
  s->table = (float *)malloc(sizeof(float) * 4 * TF_SIZE);
  if (!s->vol || !s->tf || !s->cam || !s->set || !s->fb || !s->times || !s->table) return DEVICE_ERROR;
  if (cavrSetFrameBufferHostChannels(s->fb, o->hostPlanes)) return DEVICE_ERROR;
  if (cavrSetVolumeData(s->vol, file->type, file->dims, file->data, file->bytes) ||
      cavrSetVolumeSpacing(s->vol, file->spacing) || cavrSetVolumeOrigin(s->vol, file->origin) ||
      cavrCommitVolume(s->vol))
    return DEVICE_ERROR;
  cavrFreeVolumeFile(file);
  cavrGetVolumeCommitStats(s->vol, &s->commit);
  cavrGetVolumeRange(s->vol, s->dataRange);
  cavrGetVolumeBounds(s->vol, s->bounds);
  return 0;
}

/* Fill the transfer-function table from --tf (a preset over --range, or a file); defaults that need the data. */
static int make_table(Options *o, Scene *s, char *msg, size_t msgSize) {
  if (!o->haveRange) {
    o->range[0] = s->dataRange[0];
    o->range[1] = s->dataRange[1] > s->dataRange[0] ? s->dataRange[1] : s->dataRange[0] + 1.0;
  }
  if (cavrTransferFunctionPreset(o->tfName, s->table, TF_SIZE, msg, msgSize) == CAVR_ERROR_NONE) {
    s->tfRange[0] = o->range[0];
    s->tfRange[1] = o->range[1];
  } else if (strchr(o->tfName, '.') || strchr(o->tfName, '/')) {
    CAVRError e = cavrLoadTransferFunctionFile(o->tfName, o->range, s->table, TF_SIZE, s->tfRange, msg, msgSize);
    if (e != CAVR_ERROR_NONE) return fail(cavrGetErrorString(e), msg);
  } else {
    return fail("--tf", msg);
  }
  if (o->isoCount == 0) { /* default iso-value: the middle of the data range */
    o->isoValues[0] = 0.5 * (s->dataRange[0] + s->dataRange[1]);
    o->isoCount = 1;
  }
  if (!o->haveSliceOrigin) /* default slice plane: through the volume's centre */
    for (int a = 0; a < 3; ++a) o->sliceOrigin[a] = 0.5 * (s->bounds[2 * a] + s->bounds[2 * a + 1]);
  return 0;
}

/* Stage and commit the transfer function, the camera and the settings. */
static int configure(const Options *o, const double spacing[3], Scene *s) {
  double minSpacing = fmin(spacing[0], fmin(spacing[1], spacing[2]));
  CAVRRenderSettings set = s->set;
  if (cavrSetTransferFunctionTable(s->tf, s->table, TF_SIZE, s->tfRange[0], s->tfRange[1]) ||
      cavrCommitTransferFunction(s->tf) ||
      cavrSetCameraOrbit(s->cam, s->bounds, o->rot[0], o->rot[1], o->rot[2], o->proj, (double)o->width / o->height) ||
      cavrCommitCamera(s->cam) || cavrSetRenderSampleDistance(set, o->sampleDistance) ||
      cavrSetRenderBlendMode(set, o->blendMode) || cavrSetRenderInterpolation(set, o->interpolation) ||
      cavrSetRenderOpacityCorrection(set, 1, minSpacing) /* opacity is per voxel of the finest axis */ ||
      cavrSetRenderShading(set, o->shade, 0.1, 0.7, 0.2, 10.0) ||
      cavrSetRenderScattering(set, o->scatter[0], o->scatter[1], o->scatter[2]) ||
      cavrSetRenderStrategy(set, o->strategy, CAVR_SHAPING_ALL, o->rotation) ||
      cavrSetRenderCompressive(set, o->fraction, o->reconstruction, o->adaptive) ||
      cavrSetRenderIsoValues(set, o->isoCount, o->isoValues) || cavrSetRenderIsoMethod(set, o->isoMethod) ||
      cavrSetRenderSupersampling(set, o->supersample) || cavrSetRenderSlicePlane(set, o->sliceOrigin, o->sliceNormal) ||
      cavrCommitRenderSettings(set))
    return DEVICE_ERROR;
  return 0;
}

/* Render --repeat times; the median time. */
static int render(const Options *o, Scene *s) {
  for (int i = 0; i < o->repeat; ++i) {
    if (cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &s->stats)) return DEVICE_ERROR;
    s->times[i] = s->stats.milliseconds;
  }
  int n = o->repeat;
  qsort(s->times, (size_t)n, sizeof(double), cmp_double);
  s->median = n % 2 ? s->times[n / 2] : 0.5 * (s->times[n / 2 - 1] + s->times[n / 2]);
  return 0;
}

/* The JSON object of --json, one line on stdout. */
static void print_json(const Options *o, const Scene *s) {
  static const char *strategies[] = {"standard", "shaped", "auto"};
  const CAVRRenderStats *st = &s->stats;
  const CAVRVolumeCommitStats *cs = &s->commit;
  char device[400];
  json_escape(cavrGetDeviceName(s->dev), device, sizeof device);
  printf("{\"commit_ms\": %.4f, \"commit_gbps\": %.3f, \"upload_ms\": %.4f, \"upload_gbps\": %.3f, "
         "\"cells_ms\": %.4f, \"device_bytes\": %llu, ", cs->milliseconds,
         cs->milliseconds > 0 ? (double)cs->voxelBytes / (cs->milliseconds * 1e6) : 0.0,
         cs->uploadMilliseconds, cs->uploadGBps, cs->cellMilliseconds, (unsigned long long)cs->deviceBytes);
  printf("\"backend\": \"%s\", \"device\": \"%s\", \"strategy\": \"%s\", \"block\": \"%dx%d\", "
         "\"rotation\": %d, \"auto_table\": %d, \"iso_method\": \"%s\", \"kernel_ms\": %.4f, \"transfer_ms\": %.4f, \"host_planes\": \"%s\", "
         "\"width\": %d, \"height\": %d, \"repeat\": %d, "
         "\"ms_median\": %.4f, \"ms_min\": %.4f, \"samples\": %llu, \"rays\": %llu, \"rays_hit\": %llu, "
         "\"sample_fraction\": %g, \"reconstruction\": \"%s\", \"adaptive\": %d, \"solve_ms\": %.4f, "
         "\"iterations\": %d, \"output\": \"%s\"}\n",
         backend_name(st->backend), device, st->backend == CAVR_BACKEND_CUDA ? strategies[st->strategy] : "cpu",
         st->blockWidth, st->blockHeight, st->rotation, st->autoTable,
         st->isoMethod == CAVR_ISO_WARP_MARCHING ? "warp" : "standard", st->kernelMilliseconds,
         st->transferMilliseconds, o->hostPlaneNames, o->width, o->height, o->repeat, s->median,
         s->times[0], (unsigned long long)st->samples, (unsigned long long)st->raysCast,
         (unsigned long long)st->rays, o->fraction, o->fraction < 1.0 ? (o->reconstruction == CAVR_RECONSTRUCTION_REFINE ? "refine" : o->reconstruction ? "local" : "global") : "none",
         o->adaptive, st->solveMilliseconds, st->iterations, o->out);
}

/* Write the PNG (unless -o none) and report the run. */
static int write_output(const Options *o, Scene *s, char *msg, size_t msgSize) {
  CAVRError e = strcmp(o->out, "none") == 0 ? CAVR_ERROR_NONE /* timing only */
      : cavrWritePng(o->out, (const uint8_t *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA8), o->width, o->height,
                     msg, msgSize);
  if (e != CAVR_ERROR_NONE) return fail(cavrGetErrorString(e), msg);
  if (o->json)
    print_json(o, s);
  else
    printf("%s: %dx%d, %s back end, %.2f ms (median of %d), %llu samples; wrote %s\n", o->input, o->width, o->height,
           backend_name(s->stats.backend), s->median, o->repeat, (unsigned long long)s->stats.samples, o->out);
  return 0;
}

/* Everything after the device is made: returns 0, 1 (reported) or DEVICE_ERROR. */
static int run(Options *o, CAVRVolumeFile *file, Scene *s, char *msg, size_t msgSize) {
  int status = make_scene(o, file, s);
  if (status == 0) status = make_table(o, s, msg, msgSize);
  if (status == 0) status = configure(o, file->spacing, s);
  if (status == 0) status = render(o, s);
  if (status == 0) status = write_output(o, s, msg, msgSize);
  return status;
}

static void release_scene(Scene *s) {
  free(s->times);
  free(s->table);
  cavrReleaseFrameBuffer(s->fb);
  cavrReleaseRenderSettings(s->set);
  cavrReleaseCamera(s->cam);
  cavrReleaseTransferFunction(s->tf);
  cavrReleaseVolume(s->vol);
  cavrReleaseDevice(s->dev);
}

int main(int argc, char **argv) {
  Options o;
  int status = parse_args(argc, argv, &o);
  if (status != CONTINUE) return status;
  char msg[600];
  CAVRVolumeFile file;
  if ((status = load_volume(&o, &file, msg, sizeof msg)) != 0) return status;

  Scene s;
  memset(&s, 0, sizeof s);
  s.dev = cavrNewDevice(o.be);
  if (!s.dev) {
    const char *m;
    CAVRError e = cavrGetDeviceError(NULL, &m);
    cavrFreeVolumeFile(&file);
    return fail(cavrGetErrorString(e), m);
  }
  if (o.threads) cavrSetDeviceThreadCount(s.dev, o.threads);
  cavrSetDeviceErrorCallback(s.dev, print_note, NULL); /* notes (AUTO's table, fallbacks) on stderr */
  if (!o.json && cavrGetDeviceBackend(s.dev) == CAVR_BACKEND_CPU && o.be == CAVR_BACKEND_AUTO &&
      strcmp(cavrGetDeviceName(s.dev), "CPU") != 0)
    fprintf(stderr, "cavr-render: %s\n", cavrGetDeviceName(s.dev));

  status = run(&o, &file, &s, msg, sizeof msg);
  if (status == DEVICE_ERROR) {
    const char *m = "";
    CAVRError e = cavrGetDeviceError(s.dev, &m);
    status = fail(cavrGetErrorString(e), m);
  }
  cavrFreeVolumeFile(&file);
  release_scene(&s);
  return status;
}

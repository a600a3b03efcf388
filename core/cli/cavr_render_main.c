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

/* Copy s into out with JSON string escapes. */
/* Notes from the library that are not errors (code CAVR_ERROR_NONE: AUTO measured its table, or uses its default;
   and fallbacks, e.g. to the CPU or to no rotation): one line each on stderr. Errors are reported where returned. */
static void print_note(void *user, CAVRError code, const char *message) {
  (void)user;
  if (code == CAVR_ERROR_NONE || code == CAVR_ERROR_CUDA_OUT_OF_MEMORY || code == CAVR_ERROR_UNSUPPORTED)
    fprintf(stderr, "cavr-render: %s\n", message);
}

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

int main(int argc, char **argv) {
  const char *out = "cavr.png", *tfName = "ramp", *type = NULL, *blend = "composite", *backend = "auto",
             *interp = "linear", *projection = "ortho";
  int width = 1024, height = 1024, repeat = 1, json = 0, shade = 0, threads = 0, haveDims = 0, haveRange = 0;
  int rotation = 1;
  CAVRStrategy strategy = CAVR_STRATEGY_AUTO;
  double fraction = 1.0;
  CAVRReconstruction reconstruction = CAVR_RECONSTRUCTION_LOCAL;
  int adaptive = 0;
  double isoValues[CAVR_MAX_ISO_VALUES];
  int isoCount = 0, supersample = 1;
  CAVRIsoMethod isoMethod = CAVR_ISO_AUTO;
  unsigned hostPlanes = CAVR_FB_HOST_RGBA8; /* what the PNG needs */
  char hostPlaneNames[64] = "rgba8";
  int dims[3] = {0, 0, 0}, haveSliceOrigin = 0;
  double sliceOrigin[3] = {0, 0, 0}, sliceNormal[3] = {0, 0, 1};
  double rot[3] = {0, 0, 0}, spacing[3] = {1, 1, 1}, range[2] = {0, 0}, sampleDistance = 0.5;
  enum { O_SIZE = 256, O_RX, O_RY, O_RZ, O_PROJ, O_TF, O_RANGE, O_SD, O_BLEND, O_SHADE, O_BACKEND, O_REPEAT, O_JSON,
         O_DIMS, O_TYPE, O_SPACING, O_INTERP, O_THREADS, O_STRATEGY, O_NOROT, O_FRACTION, O_RECON, O_ADAPTIVE,
         O_HOST_PLANES, O_ISO, O_ISO_METHOD, O_SUPERSAMPLE, O_SLICE_ORIGIN, O_SLICE_NORMAL };
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
      {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case O_SIZE:
      if (sscanf(optarg, "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > CAVR_MAX_IMAGE_SIZE ||
          height > CAVR_MAX_IMAGE_SIZE)
        return fail("--size expects WxH, each in [1, 16384]", optarg);
      break;
    case O_RX: case O_RY: case O_RZ:
      if (!parse_double(optarg, &rot[c - O_RX])) return fail("rotation expects degrees", optarg);
      break;
    case O_PROJ: projection = optarg; break;
    case O_TF: tfName = optarg; break;
    case O_RANGE:
      if (sscanf(optarg, "%lf:%lf", &range[0], &range[1]) != 2 || !(range[0] < range[1]))
        return fail("--range expects MIN:MAX with MIN < MAX", optarg);
      haveRange = 1;
      break;
    case O_SD:
      if (!parse_double(optarg, &sampleDistance)) return fail("--sample-distance expects voxels", optarg);
      break;
    case O_BLEND: blend = optarg; break;
    case O_SLICE_ORIGIN: case O_SLICE_NORMAL: {
      double *v = c == O_SLICE_ORIGIN ? sliceOrigin : sliceNormal;
      if (!parse_triple_double(optarg, v) || !isfinite(v[0] + v[1] + v[2]))
        return fail(c == O_SLICE_ORIGIN ? "--slice-origin expects X,Y,Z" : "--slice-normal expects X,Y,Z", optarg);
      haveSliceOrigin |= c == O_SLICE_ORIGIN;
      break;
    }
    case O_SHADE: shade = 1; break;
    case O_BACKEND: backend = optarg; break;
    case O_REPEAT:
      repeat = atoi(optarg);
      if (repeat < 1 || repeat > 100000) return fail("--repeat expects a count >= 1", optarg);
      break;
    case O_JSON: json = 1; break;
    case O_DIMS:
      if (!parse_triple_int(optarg, dims)) return fail("--dims expects X,Y,Z", optarg);
      haveDims = 1;
      break;
    case O_TYPE: type = optarg; break;
    case O_SPACING:
      if (!parse_triple_double(optarg, spacing)) return fail("--spacing expects SX,SY,SZ", optarg);
      break;
    case O_INTERP: interp = optarg; break;
    case O_THREADS:
      threads = atoi(optarg);
      if (threads < 0) return fail("--threads expects a count >= 0", optarg);
      break;
    case O_STRATEGY:
      if (!strcmp(optarg, "standard")) strategy = CAVR_STRATEGY_STANDARD;
      else if (!strcmp(optarg, "shaped")) strategy = CAVR_STRATEGY_SHAPED;
      else if (!strcmp(optarg, "auto")) strategy = CAVR_STRATEGY_AUTO;
      else return fail("--strategy expects standard, shaped or auto", optarg);
      break;
    case O_NOROT: rotation = 0; break;
    case O_FRACTION: {
      char *end = NULL;
      fraction = strtod(optarg, &end);
      if (!end || *end || !(fraction > 0.0 && fraction <= 1.0)) return fail("--sample-fraction expects 0 < F <= 1", optarg);
      break;
    }
    case O_RECON:
      if (!strcmp(optarg, "global")) reconstruction = CAVR_RECONSTRUCTION_GLOBAL;
      else if (!strcmp(optarg, "local")) reconstruction = CAVR_RECONSTRUCTION_LOCAL;
      else if (!strcmp(optarg, "refine")) reconstruction = CAVR_RECONSTRUCTION_REFINE;
      else return fail("--reconstruction expects global, local or refine", optarg);
      break;
    case O_ADAPTIVE: adaptive = 1; break;
    case O_ISO: {
      const char *q = optarg;
      isoCount = 0;
      for (;;) {
        char *end;
        double v = strtod(q, &end);
        if (end == q || !isfinite(v) || isoCount == CAVR_MAX_ISO_VALUES || (*end != ',' && *end != '\0'))
          return fail("--iso expects 1 to 8 comma-separated finite values", optarg);
        isoValues[isoCount++] = v;
        if (*end == '\0') break;
        q = end + 1;
      }
      break;
    }
    case O_ISO_METHOD:
      if (!strcmp(optarg, "standard")) isoMethod = CAVR_ISO_STANDARD;
      else if (!strcmp(optarg, "warp")) isoMethod = CAVR_ISO_WARP_MARCHING;
      else if (!strcmp(optarg, "auto")) isoMethod = CAVR_ISO_AUTO;
      else return fail("--iso-method expects standard, warp or auto", optarg);
      break;
    case O_SUPERSAMPLE: {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || !(n == 1 || n == 4 || n == 5 || n == 9 || n == 16))
        return fail("--supersample expects 1, 4, 5, 9 or 16", optarg);
      supersample = (int)n;
      break;
    }
    case O_HOST_PLANES:
      if (!parse_host_planes(optarg, &hostPlanes, hostPlaneNames, sizeof hostPlaneNames))
        return fail("--host-planes expects a comma list of rgba8, rgba32f, depth including rgba8 (the PNG's), or all",
                    optarg);
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc - 1) {
    usage(stderr);
    return 2;
  }
  const char *input = argv[optind];

  CAVRBlendMode blendMode;
  if (!strcmp(blend, "composite")) blendMode = CAVR_BLEND_COMPOSITE;
  else if (!strcmp(blend, "mip")) blendMode = CAVR_BLEND_MAXIMUM_INTENSITY;
  else if (!strcmp(blend, "minip")) blendMode = CAVR_BLEND_MINIMUM_INTENSITY;
  else if (!strcmp(blend, "average")) blendMode = CAVR_BLEND_AVERAGE_INTENSITY;
  else if (!strcmp(blend, "iso")) blendMode = CAVR_BLEND_ISOSURFACE;
  else if (!strcmp(blend, "slice")) blendMode = CAVR_BLEND_SLICE;
  else return fail("--blend expects composite, mip, minip, average, iso or slice", blend);
  CAVRBackend be;
  if (!strcmp(backend, "auto")) be = CAVR_BACKEND_AUTO;
  else if (!strcmp(backend, "cpu")) be = CAVR_BACKEND_CPU;
  else if (!strcmp(backend, "cuda")) be = CAVR_BACKEND_CUDA;
  else return fail("--backend expects auto, cpu or cuda", backend);
  CAVRProjection proj;
  if (!strcmp(projection, "ortho")) proj = CAVR_PROJECTION_ORTHOGRAPHIC;
  else if (!strcmp(projection, "perspective")) proj = CAVR_PROJECTION_PERSPECTIVE;
  else return fail("--projection expects ortho or perspective", projection);
  CAVRInterpolation interpolation;
  if (!strcmp(interp, "linear")) interpolation = CAVR_INTERPOLATION_TRILINEAR;
  else if (!strcmp(interp, "nearest")) interpolation = CAVR_INTERPOLATION_NEAREST;
  else if (!strcmp(interp, "cubic")) interpolation = CAVR_INTERPOLATION_CUBIC;
  else return fail("--interpolation expects nearest, linear or cubic", interp);

  /* Load. */
  char msg[600];
  CAVRVolumeFile file;
  CAVRError e;
  if (ends_with(input, ".nrrd") || ends_with(input, ".nhdr")) {
    e = cavrLoadNrrd(input, &file, msg, sizeof msg);
  } else {
    if (!haveDims || !type) return fail("raw input needs --dims X,Y,Z and --type", input);
    static const struct { const char *name; CAVRScalarType t; } types[] = {
        {"uint8", CAVR_UINT8}, {"int8", CAVR_INT8}, {"uint16", CAVR_UINT16}, {"int16", CAVR_INT16},
        {"float32", CAVR_FLOAT32}, {"uint32", CAVR_UINT32}, {"int32", CAVR_INT32}, {"float64", CAVR_FLOAT64}};
    CAVRScalarType t = (CAVRScalarType)0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
      if (!strcmp(types[i].name, type)) t = types[i].t;
    if (!t) return fail("--type expects uint8, int8, uint16, int16, float32, uint32, int32 or float64", type);
    e = cavrLoadRaw(input, t, dims, spacing, &file, msg, sizeof msg);
  }
  if (e != CAVR_ERROR_NONE) return fail(cavrGetErrorString(e), msg);

  CAVRDevice dev = cavrNewDevice(be);
  if (!dev) {
    const char *m;
    e = cavrGetDeviceError(NULL, &m);
    cavrFreeVolumeFile(&file);
    return fail(cavrGetErrorString(e), m);
  }
  if (threads) cavrSetDeviceThreadCount(dev, threads);
  cavrSetDeviceErrorCallback(dev, print_note, NULL); /* notes (AUTO's table, fallbacks) on stderr */
  if (!json && cavrGetDeviceBackend(dev) == CAVR_BACKEND_CPU && be == CAVR_BACKEND_AUTO &&
      strcmp(cavrGetDeviceName(dev), "CPU") != 0)
    fprintf(stderr, "cavr-render: %s\n", cavrGetDeviceName(dev));

  int status = 0;
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, width, height);
  double *times = (double *)calloc((size_t)repeat, sizeof(double));
  float *table = (float *)malloc(sizeof(float) * 4 * TF_SIZE);
  CAVRRenderStats stats;
  memset(&stats, 0, sizeof stats);
  CAVRVolumeCommitStats commit; /* the volume's upload (JSON: commit_ms, commit_gbps, upload_*, cells_ms) */
  memset(&commit, 0, sizeof commit);
  double dataRange[2], bounds[6], tfRange[2];
  if (!vol || !tf || !cam || !set || !fb || !times || !table) goto device_error;
  if (cavrSetFrameBufferHostChannels(fb, hostPlanes)) goto device_error;
  if (cavrSetVolumeData(vol, file.type, file.dims, file.data, file.bytes) ||
      cavrSetVolumeSpacing(vol, file.spacing) || cavrSetVolumeOrigin(vol, file.origin) || cavrCommitVolume(vol))
    goto device_error;
  cavrFreeVolumeFile(&file);
  cavrGetVolumeCommitStats(vol, &commit);
  cavrGetVolumeRange(vol, dataRange);
  cavrGetVolumeBounds(vol, bounds);
  if (!haveRange) {
    range[0] = dataRange[0];
    range[1] = dataRange[1] > dataRange[0] ? dataRange[1] : dataRange[0] + 1.0;
  }
  if (cavrTransferFunctionPreset(tfName, table, TF_SIZE, msg, sizeof msg) == CAVR_ERROR_NONE) {
    tfRange[0] = range[0];
    tfRange[1] = range[1];
  } else if (strchr(tfName, '.') || strchr(tfName, '/')) {
    e = cavrLoadTransferFunctionFile(tfName, range, table, TF_SIZE, tfRange, msg, sizeof msg);
    if (e != CAVR_ERROR_NONE) {
      status = fail(cavrGetErrorString(e), msg);
      goto cleanup;
    }
  } else {
    status = fail("--tf", msg);
    goto cleanup;
  }
  if (isoCount == 0) { /* default iso-value: the middle of the data range */
    isoValues[0] = 0.5 * (dataRange[0] + dataRange[1]);
    isoCount = 1;
  }
  if (!haveSliceOrigin) /* default slice plane: through the volume's centre */
    for (int a = 0; a < 3; ++a) sliceOrigin[a] = 0.5 * (bounds[2 * a] + bounds[2 * a + 1]);
  double minSpacing = fmin(file.spacing[0], fmin(file.spacing[1], file.spacing[2]));
  if (cavrSetTransferFunctionTable(tf, table, TF_SIZE, tfRange[0], tfRange[1]) || cavrCommitTransferFunction(tf) ||
      cavrSetCameraOrbit(cam, bounds, rot[0], rot[1], rot[2], proj, (double)width / height) || cavrCommitCamera(cam) ||
      cavrSetRenderSampleDistance(set, sampleDistance) || cavrSetRenderBlendMode(set, blendMode) ||
      cavrSetRenderInterpolation(set, interpolation) ||
      cavrSetRenderOpacityCorrection(set, 1, minSpacing) /* opacity is per voxel of the finest axis */ ||
      cavrSetRenderShading(set, shade, 0.1, 0.7, 0.2, 10.0) ||
      cavrSetRenderStrategy(set, strategy, CAVR_SHAPING_ALL, rotation) ||
      cavrSetRenderCompressive(set, fraction, reconstruction, adaptive) ||
      cavrSetRenderIsoValues(set, isoCount, isoValues) || cavrSetRenderIsoMethod(set, isoMethod) ||
      cavrSetRenderSupersampling(set, supersample) || cavrSetRenderSlicePlane(set, sliceOrigin, sliceNormal) ||
      cavrCommitRenderSettings(set))
    goto device_error;
  for (int i = 0; i < repeat; ++i) {
    if (cavrRender(fb, vol, tf, cam, set, &stats)) goto device_error;
    times[i] = stats.milliseconds;
  }
  qsort(times, (size_t)repeat, sizeof(double), cmp_double);
  double median = repeat % 2 ? times[repeat / 2] : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
  e = strcmp(out, "none") == 0 ? CAVR_ERROR_NONE /* timing only */
      : cavrWritePng(out, (const uint8_t *)cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA8), width, height, msg, sizeof msg);
  if (e != CAVR_ERROR_NONE) {
    status = fail(cavrGetErrorString(e), msg);
    goto cleanup;
  }
  if (json) {
    static const char *strategies[] = {"standard", "shaped", "auto"};
    char device[400];
    json_escape(cavrGetDeviceName(dev), device, sizeof device);
    printf("{\"commit_ms\": %.4f, \"commit_gbps\": %.3f, \"upload_ms\": %.4f, \"upload_gbps\": %.3f, "
           "\"cells_ms\": %.4f, \"device_bytes\": %llu, ", commit.milliseconds,
           commit.milliseconds > 0 ? (double)commit.voxelBytes / (commit.milliseconds * 1e6) : 0.0,
           commit.uploadMilliseconds, commit.uploadGBps, commit.cellMilliseconds, (unsigned long long)commit.deviceBytes);
    printf("\"backend\": \"%s\", \"device\": \"%s\", \"strategy\": \"%s\", \"block\": \"%dx%d\", "
           "\"rotation\": %d, \"auto_table\": %d, \"iso_method\": \"%s\", \"kernel_ms\": %.4f, \"transfer_ms\": %.4f, \"host_planes\": \"%s\", "
           "\"width\": %d, \"height\": %d, \"repeat\": %d, "
           "\"ms_median\": %.4f, \"ms_min\": %.4f, \"samples\": %llu, \"rays\": %llu, \"rays_hit\": %llu, "
           "\"sample_fraction\": %g, \"reconstruction\": \"%s\", \"adaptive\": %d, \"solve_ms\": %.4f, "
           "\"iterations\": %d, \"output\": \"%s\"}\n",
           backend_name(stats.backend), device, stats.backend == CAVR_BACKEND_CUDA ? strategies[stats.strategy] : "cpu",
           stats.blockWidth, stats.blockHeight, stats.rotation, stats.autoTable,
           stats.isoMethod == CAVR_ISO_WARP_MARCHING ? "warp" : "standard", stats.kernelMilliseconds,
           stats.transferMilliseconds, hostPlaneNames, width, height, repeat, median,
           times[0], (unsigned long long)stats.samples, (unsigned long long)stats.raysCast,
           (unsigned long long)stats.rays, fraction, fraction < 1.0 ? (reconstruction == CAVR_RECONSTRUCTION_REFINE ? "refine" : reconstruction ? "local" : "global") : "none",
           adaptive, stats.solveMilliseconds, stats.iterations, out);
  } else {
    printf("%s: %dx%d, %s back end, %.2f ms (median of %d), %llu samples; wrote %s\n", input, width, height,
           backend_name(stats.backend), median, repeat, (unsigned long long)stats.samples, out);
  }
  goto cleanup;

device_error: {
  const char *m = "";
  e = cavrGetDeviceError(dev, &m);
  status = fail(cavrGetErrorString(e), m);
}
cleanup:
  cavrFreeVolumeFile(&file);
  free(times);
  free(table);
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
  cavrReleaseDevice(dev);
  return status;
}

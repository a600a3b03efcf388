// SPDX-License-Identifier: BSD-3-Clause
/*
 * The CPU's packet casters give the scalar caster's image bit for bit, at each width this CPU has: 8 rays (AVX2)
 * and 16 (AVX-512), each compared with the scalar render (a width the CPU lacks prints SKIP and is not compared).
 * Float colour, 8-bit colour and depth planes, and the same sample and ray counts, over real volumes of every
 * storage (uint8, uint16, int16 stored offset, float32), orthographic and perspective views (axis-aligned ones
 * too), shading, nearest and trilinear interpolation, opacity correction on and off, empty-space skipping on and
 * off, early ray termination on and off, several sample distances, opaque geometry, a render extent (an MPI
 * piece), compressive ray lists, and thread counts; and each from the volume's own voxels and from the CPU
 * device's copy with padded strides (headsq and bucky have one). On a CPU without AVX2 there is nothing to
 * compare: every render is the scalar caster's. Where teem is missing (the GPU machines) the volumes are read
 * raw from $CAVR_RAW_DIR (test_util.h).
 */
#include "test_util.h"
#include "cpu_raycast.h"
#include "objects.h"
#include "../common/lights.h"

static int g_cases;

/* A table over [lo, hi]: transparent below `cut` of the range, then rising opacity and a colour ramp. */
static void ramp_tf(Scene *s, double lo, double hi, double cut, float amax) {
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    double u = i / 255.0;
    t[4 * i] = (float)(0.3 + 0.7 * u);
    t[4 * i + 1] = (float)(0.8 - 0.5 * u);
    t[4 * i + 2] = (float)(0.2 + 0.3 * u * u);
    t[4 * i + 3] = u < cut ? 0.0f : (float)(amax * (u - cut) / (1.0 - cut));
  }
  CHECK_OK(cavrSetTransferFunctionTable(s->tf, t, 256, lo, hi));
  CHECK_OK(cavrCommitTransferFunction(s->tf));
}

typedef struct Planes {
  float *rgbaf, *depth;
  unsigned char *rgba8;
  float *first; /* REFINE: the pilot rays' first visible samples (the levels' depth hints), at the pilot's pixels */
  size_t nFirst;
  CAVRRenderStats st;
} Planes;

static void render(Scene *s, Planes *out) {
  size_t n = (size_t)s->w * s->h;
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, &out->st));
  out->rgbaf = malloc(n * 4 * sizeof(float));
  out->depth = malloc(n * sizeof(float));
  out->rgba8 = malloc(n * 4);
  memcpy(out->rgbaf, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), n * 4 * sizeof(float));
  memcpy(out->depth, cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), n * sizeof(float));
  memcpy(out->rgba8, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA8), n * 4);
  out->first = NULL;
  out->nFirst = 0;
  if (s->fb->rayFirst && s->fb->sampleMask) { /* the pilot's grid: cavr_refine_pilot_mask */
    const int cx = cavr_refine_cells_per_axis(s->w), cy = cavr_refine_cells_per_axis(s->h);
    out->first = malloc(sizeof(float) * (size_t)(cx + 1) * (size_t)(cy + 1));
    for (int j = 0; j <= cy; ++j)
      for (int i = 0; i <= cx; ++i)
        out->first[out->nFirst++] =
            s->fb->rayFirst[(size_t)cavr_refine_line(j, s->h) * s->w + cavr_refine_line(i, s->w)];
  }
}

static void planes_free(Planes *p) {
  free(p->rgbaf);
  free(p->depth);
  free(p->rgba8);
  free(p->first);
}

/* The packet widths compared with the scalar caster: those this CPU has (main fills it). */
static int g_widths[2], g_nwidths;

/* Render with the scalar caster from the volume's own voxels and with packets of each width from the padded copy
   (when the volume has one), then the other way round; every plane must match bit for bit. */
static void same_once(Scene *s, const char *what, const Planes *a, int lanes, int padPackets);

static void same(Scene *s, const char *what) {
  for (int pad = 0; pad < 2; ++pad) {
    Planes a;
    cavr_cpu_allow_packets(0);
    cavr_cpu_allow_padded(pad);
    render(s, &a);
    cavr_cpu_allow_packets(1);
    for (int w = 0; w < g_nwidths; ++w) same_once(s, what, &a, g_widths[w], !pad);
    cavr_cpu_allow_padded(1);
    planes_free(&a);
  }
}

static void same_once(Scene *s, const char *what, const Planes *pa, int lanes, int padPackets) {
  size_t n = (size_t)s->w * s->h;
  Planes b;
  const Planes a = *pa;
  cavr_cpu_packet_width(lanes);
  CHECK(cavr_cpu_packet_lanes() == lanes);
  cavr_cpu_allow_padded(padPackets);
  render(s, &b);
  size_t diff = 0, first = n;
  for (size_t i = 0; i < n; ++i)
    if (memcmp(a.rgbaf + 4 * i, b.rgbaf + 4 * i, 4 * sizeof(float)) || memcmp(&a.depth[i], &b.depth[i], sizeof(float))) {
      if (first == n) first = i;
      ++diff;
    }
  double lit = 0.0;
  for (size_t i = 0; i < n; ++i) lit += a.rgbaf[4 * i + 3] > 0.01f;
  /* REFINE: the hints the pilot recorded, bit for bit (the levels start their rays from them). */
  const int firstDiff = a.nFirst != b.nFirst || (a.nFirst && memcmp(a.first, b.first, sizeof(float) * a.nFirst));
  if (firstDiff) fprintf(stderr, "FAIL %s, %d lanes: the pilot's first-sample distances differ\n", what, lanes);
  CHECK(!firstDiff);
  if (diff || a.st.samples != b.st.samples || a.st.rays != b.st.rays) {
    fprintf(stderr, "FAIL %s, %d lanes: %zu pixels differ (first %zu: scalar %.9g %.9g %.9g %.9g depth %.9g, packets %.9g "
                    "%.9g %.9g %.9g depth %.9g); samples %llu vs %llu, rays %llu vs %llu\n",
            what, lanes, diff, first, first < n ? a.rgbaf[4 * first] : 0.0, first < n ? a.rgbaf[4 * first + 1] : 0.0,
            first < n ? a.rgbaf[4 * first + 2] : 0.0, first < n ? a.rgbaf[4 * first + 3] : 0.0,
            first < n ? a.depth[first] : 0.0, first < n ? b.rgbaf[4 * first] : 0.0,
            first < n ? b.rgbaf[4 * first + 1] : 0.0, first < n ? b.rgbaf[4 * first + 2] : 0.0,
            first < n ? b.rgbaf[4 * first + 3] : 0.0, first < n ? b.depth[first] : 0.0,
            (unsigned long long)a.st.samples, (unsigned long long)b.st.samples, (unsigned long long)a.st.rays,
            (unsigned long long)b.st.rays);
    exit(1);
  }
  CHECK(memcmp(a.rgba8, b.rgba8, n * 4) == 0);
  CHECK(lit > 0.02 * n); /* a real picture, not an empty frame */
  ++g_cases;
  planes_free(&b);
}

static void orbit(Scene *s, double rx, double ry, double rz, CAVRProjection proj) {
  double bounds[6];
  CHECK_OK(cavrGetVolumeBounds(s->vol, bounds));
  CHECK_OK(cavrSetCameraOrbit(s->cam, bounds, rx, ry, rz, proj, (double)s->w / s->h));
  CHECK_OK(cavrCommitCamera(s->cam));
}

static void settings(Scene *s, int shade, int interp, int correction, int skip, double ert, double sd, int lights) {
  CHECK_OK(cavrSetRenderShading(s->set, shade, 0.1, 0.7, 0.2, 10));
  CAVRLight kit[6];
  const int n = lights ? cavr_test_light_kit(kit, 1) : 0; /* cavrSetRenderLights: per lane in the packets */
  CHECK_OK(cavrSetRenderLights(s->set, n, n ? kit : NULL, 1));
  CHECK_OK(cavrSetRenderInterpolation(s->set, interp ? CAVR_INTERPOLATION_TRILINEAR : CAVR_INTERPOLATION_NEAREST));
  CHECK_OK(cavrSetRenderOpacityCorrection(s->set, correction, 1.0));
  CHECK_OK(cavrSetRenderEmptySpaceSkipping(s->set, skip));
  CHECK_OK(cavrSetRenderEarlyTermination(s->set, ert));
  CHECK_OK(cavrSetRenderSampleDistance(s->set, sd));
  CHECK_OK(cavrCommitRenderSettings(s->set));
}

/* Views and settings that exercise every path of the march. */
static void sweep(Scene *s, const char *name) {
  static const double views[][3] = {{0, 0, 0}, {-90, 0, 0}, {-90, 90, 0}, {-60, 25, 10}, {37, 123, -20}, {-45, 45, 0}};
  char what[256];
  for (int v = 0; v < 6; ++v)
    for (int proj = 0; proj < 2; ++proj) {
      orbit(s, views[v][0], views[v][1], views[v][2], proj ? CAVR_PROJECTION_PERSPECTIVE : CAVR_PROJECTION_ORTHOGRAPHIC);
      const int shade = (v + proj) % 2, interp = v != 3 || proj, correction = v != 4, skip = v != 5;
      const double ert = v == 2 ? 1.0 : 0.99, sd = v == 1 ? 0.37 : v == 4 ? 1.3 : 0.5;
      const int lights = shade && v >= 3; /* the light kit and a scene light (cavrSetRenderLights) */
      settings(s, shade, interp, correction, skip, ert, sd, lights);
      snprintf(what, sizeof what, "%s view (%g, %g, %g) %s shade %d interp %d correction %d skip %d ert %g sd %g lights %d",
               name, views[v][0], views[v][1], views[v][2], proj ? "perspective" : "ortho", shade, interp, correction,
               skip, ert, sd, lights);
      same(s, what);
    }
}

int main(void) {
  static const int widths[2] = {8, 16};
  static const char *isa[2] = {"AVX2 and FMA", "AVX-512F"};
  for (int w = 0; w < 2; ++w) {
    cavr_cpu_packet_width(widths[w]);
    if (cavr_cpu_packet_lanes() == widths[w]) {
      g_widths[g_nwidths++] = widths[w];
      printf("%d-lane packets (%s): compared with the scalar caster\n", widths[w], isa[w]);
    } else {
      printf("SKIP %d-lane packets: this CPU (or build) has no %s\n", widths[w], isa[w]);
    }
  }
  Scene s = scene_new(83, 61); /* not a multiple of the 16-pixel tile, nor of the 8 lanes */

  scene_load_named(&s, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5); /* CT, uint16, anisotropic spacing */
  ramp_tf(&s, 0.0, 4000.0, 0.1, 0.4);
  sweep(&s, "headsq");
  scene_load_named(&s, "bucky_32x32x32_uint8", CAVR_UINT8, 32, 32, 32, 1.0, 1.0, 1.0); /* uint8, sparse */
  ramp_tf(&s, 0.0, 255.0, 0.4, 0.6);
  sweep(&s, "bucky");
  scene_load_named(&s, "inia19_t1brain_168x206x128_float32", CAVR_FLOAT32, 168, 206, 128, 0.5, 0.5, 0.5); /* float32 MRI */
  ramp_tf(&s, 0.0, 150.0, 0.2, 0.2);
  sweep(&s, "inia19");

  /* int16 (stored offset by 32768), odd dimensions, negative values. */
  {
    const int dims[3] = {37, 29, 23};
    int16_t *v = malloc(sizeof(int16_t) * 37 * 29 * 23);
    for (int z = 0; z < 23; ++z)
      for (int y = 0; y < 29; ++y)
        for (int x = 0; x < 37; ++x) {
          double r = sqrt((x - 18.0) * (x - 18.0) + (y - 14.0) * (y - 14.0) + (z - 11.0) * (z - 11.0));
          v[(z * 29 + y) * 37 + x] = (int16_t)(1000.0 * cos(r * 0.5) - 200.0 + 13 * ((x * 7 + y * 3 + z) % 11));
        }
    const double sp[3] = {0.9, 1.1, 1.7};
    CHECK_OK(cavrSetVolumeData(s.vol, CAVR_INT16, dims, v, sizeof(int16_t) * 37 * 29 * 23));
    CHECK_OK(cavrSetVolumeSpacing(s.vol, sp));
    CHECK_OK(cavrCommitVolume(s.vol));
    free(v);
    ramp_tf(&s, -1300.0, 1200.0, 0.5, 0.5);
    sweep(&s, "int16 rings");
  }

  /* headsq again: opaque geometry, a render extent (an MPI piece), compressive ray lists, thread counts. */
  scene_load_named(&s, "headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5);
  ramp_tf(&s, 0.0, 4000.0, 0.1, 0.4);
  orbit(&s, -70, 35, 0, CAVR_PROJECTION_PERSPECTIVE);
  settings(&s, 1, 1, 1, 1, 0.99, 0.5, 0);
  {
    size_t n = (size_t)s.w * s.h;
    float *depth = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) depth[i] = (i % 7 == 0) ? 1.0f : 0.3f + 0.6f * (float)((i * 2654435761u) % 1000) / 1000.0f;
    CHECK_OK(cavrSetFrameBufferOpaqueDepth(s.fb, depth, n));
    same(&s, "headsq opaque depth");
    CHECK_OK(cavrSetFrameBufferOpaqueDepth(s.fb, NULL, 0));
    free(depth);
  }
  {
    const int extent[6] = {10, 50, 3, 40, 20, 70};
    CHECK_OK(cavrSetVolumeRenderExtent(s.vol, extent));
    CHECK_OK(cavrCommitVolume(s.vol));
    same(&s, "headsq render extent");
    CHECK_OK(cavrSetVolumeRenderExtent(s.vol, NULL));
    CHECK_OK(cavrCommitVolume(s.vol));
  }
  CHECK_OK(cavrSetRenderCompressive(s.set, 0.3, CAVR_RECONSTRUCTION_LOCAL, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  same(&s, "headsq compressive 30% local");
  CHECK_OK(cavrSetRenderCompressive(s.set, 0.25, CAVR_RECONSTRUCTION_LOCAL, 1));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  same(&s, "headsq compressive 25% adaptive");
  /* REFINE: its levels' rays start at the depth hint the pilot's rays recorded (cavr_refine_hint_k), in both. */
  CHECK_OK(cavrSetRenderCompressive(s.set, 0.25, CAVR_RECONSTRUCTION_REFINE, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  same(&s, "headsq compressive 25% refine");
  CHECK_OK(cavrSetRenderCompressive(s.set, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  for (int t = 1; t <= 3; ++t) {
    char what[64];
    CHECK_OK(cavrSetDeviceThreadCount(s.dev, t));
    snprintf(what, sizeof what, "headsq %d threads", t);
    same(&s, what);
  }
  scene_free(&s);
  printf("%d packet renders identical to the scalar caster's (widths:", g_cases);
  for (int w = 0; w < g_nwidths; ++w) printf(" %d", g_widths[w]);
  printf(")\n");
  return 0;
}

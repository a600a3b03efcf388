// SPDX-License-Identifier: BSD-3-Clause
/*
 * Isosurfaces, the cubic filter and super-sampling on the GPU against the CPU reference, on the
 * real volumes of data/ (uint16, float32, uint8) at favourable, unfavourable (x along the rays) and
 * oblique views: CPU vs GPU standard vs GPU warp marching >= 45 dB PSNR (shaded, also with the light kit of
 * cavrSetRenderLights and with one headlight of intensity 1; skipping on and off, cubic too),
 * warp marching = standard (the same samples and arithmetic: >= 60 dB), cubic composite CPU vs GPU >= 45 dB,
 * 4-, 5- and 9-ray super-sampling (averaged on the device) CPU vs GPU >= 45 dB, and compressive frames (the
 * ray-list path, also super-sampled) >= 35 dB. The GPU interpolates with 8-bit texture weights, so composite images
 * are close, not equal; isosurface crossings are decided and refined on exact trilinear values (iso.cu), so the
 * trilinear isosurfaces match the CPU's pixel for pixel (printed: pixels that differ by more than 0.1). The
 * comparisons run at 512^2, where ParaView views are. Isosurfaces use the
 * colour map with opacity 1 (the map's colour at the value), the other modes the preset as it is. --quick: one
 * volume and view (for compute-sanitizer).
 */
#include "gpu_util.h"
#include "../common/lights.h"

enum { SIZE = 512 };

static Scene make(CAVRDevice dev, const CAVRVolumeFile *f, const float *table, int n, double lo, double hi) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, SIZE, SIZE)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, n, lo, hi));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_ALL));
  return s;
}

typedef struct Case {
  int blend, interp, shade, skip, method, rays;
  double fraction;
} Case;

static void render(Scene *s, const Case *c, double iso, float *rgba, float *depth) {
  CAVRDevice d = s->dev;
  CHECK_OK(d, cavrSetRenderBlendMode(s->set, (CAVRBlendMode)c->blend));
  CHECK_OK(d, cavrSetRenderInterpolation(s->set, (CAVRInterpolation)c->interp));
  CHECK_OK(d, cavrSetRenderShading(s->set, c->shade != 0, 0.1, 0.7, 0.2, 10));
  /* shade 2: ParaView's light kit and a scene light; shade 3: one headlight of intensity 1 (cavrSetRenderLights; the
     isosurface takes VTK's GPU ray caster's model for each: core/shared/cavr_lighting.h, cavr_lighting_surface) */
  CAVRLight kit[6] = {{CAVR_LIGHT_HEADLIGHT, 0, {0, 0, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1.0}};
  const int lights = c->shade == 2 ? cavr_test_light_kit(kit, 1) : c->shade == 3 ? 1 : 0;
  CHECK_OK(d, cavrSetRenderLights(s->set, lights, lights ? kit : NULL, 1));
  CHECK_OK(d, cavrSetRenderEmptySpaceSkipping(s->set, c->skip));
  CHECK_OK(d, cavrSetRenderIsoValues(s->set, 1, &iso));
  CHECK_OK(d, cavrSetRenderIsoMethod(s->set, (CAVRIsoMethod)c->method));
  CHECK_OK(d, cavrSetRenderSupersampling(s->set, c->rays));
  CHECK_OK(d, cavrSetRenderCompressive(s->set, c->fraction, CAVR_RECONSTRUCTION_LOCAL, 0));
  CHECK_OK(d, cavrCommitRenderSettings(s->set));
  CHECK_OK(d, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  memcpy(rgba, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), sizeof(float) * 4 * SIZE * SIZE);
  memcpy(depth, cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), sizeof(float) * SIZE * SIZE);
}

/* Depth agreement where both have a surface: the largest difference (window depth). */
static double depth_diff(const float *a, const float *b, const float *ca, const float *cb) {
  double mx = 0.0;
  for (int i = 0; i < SIZE * SIZE; ++i)
    if (ca[4 * i + 3] > 0.0f && cb[4 * i + 3] > 0.0f) mx = fmax(mx, fabs((double)a[i] - b[i]));
  return mx;
}

int main(int argc, char **argv) {
  const int quick = argc > 1 && !strcmp(argv[1], "--quick");
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  static float cr[4 * SIZE * SIZE], cd[SIZE * SIZE], gr[4 * SIZE * SIZE], gd[SIZE * SIZE], wr[4 * SIZE * SIZE],
      wd[SIZE * SIZE];
  const double views[3][3] = {{0, 0, 0}, {0, 90, 0}, {-35, 40, 10}};
  int failures = 0;
  for (int v = 0; v < (quick ? 1 : 3); ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    float opaque[4 * 256];
    memcpy(opaque, table, sizeof opaque);
    for (int i = 0; i < 256; ++i) opaque[4 * i + 3] = 1.0f; /* isosurfaces: opaque, the colour map's colour */
    Scene c = make(cpu, &f, table, 256, tv->lo, tv->hi), g = make(gpu, &f, table, 256, tv->lo, tv->hi);
    CAVRTransferFunction isoTf[2] = {cavrNewTransferFunction(cpu), cavrNewTransferFunction(gpu)}, mapTf[2] = {c.tf, g.tf};
    for (int d = 0; d < 2; ++d) {
      CHECK(isoTf[d]);
      CHECK_OK(d ? gpu : cpu, cavrSetTransferFunctionTable(isoTf[d], opaque, 256, tv->lo, tv->hi));
      CHECK_OK(d ? gpu : cpu, cavrCommitTransferFunction(isoTf[d]));
    }
    cavrFreeVolumeFile(&f);
    const double iso = tv->lo + 0.35 * (tv->hi - tv->lo);
    double b[6];
    CHECK_OK(gpu, cavrGetVolumeBounds(g.vol, b));
    for (int k = 0; k < (quick ? 1 : 3); ++k) {
      CHECK_OK(cpu, cavrSetCameraOrbit(c.cam, b, views[k][0], views[k][1], views[k][2], CAVR_PROJECTION_PERSPECTIVE, 1));
      CHECK_OK(gpu, cavrSetCameraOrbit(g.cam, b, views[k][0], views[k][1], views[k][2], CAVR_PROJECTION_PERSPECTIVE, 1));
      CHECK_OK(cpu, cavrCommitCamera(c.cam));
      CHECK_OK(gpu, cavrCommitCamera(g.cam));
      const Case cases[] = {
          /* blend, interp, shade, skip, method, rays, fraction */
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 1, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 1, 0, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 0, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_CUBIC, 1, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_NEAREST, 1, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_CUBIC, 1, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_MAXIMUM_INTENSITY, CAVR_INTERPOLATION_CUBIC, 0, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 1, 1, CAVR_ISO_STANDARD, 5, 1.0},
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_TRILINEAR, 1, 1, CAVR_ISO_STANDARD, 5, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 1, 1, CAVR_ISO_STANDARD, 1, 0.25},
          /* the device-side reduction of super-sampling: 2x2 without the centre, 3x3, and with compressive frames */
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_TRILINEAR, 1, 1, CAVR_ISO_STANDARD, 4, 1.0},
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_TRILINEAR, 0, 1, CAVR_ISO_STANDARD, 9, 1.0},
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_CUBIC, 1, 1, CAVR_ISO_STANDARD, 5, 0.25},
          /* shade 2: the light kit and a scene light; shade 3: one headlight of intensity 1 (cavrSetRenderLights) */
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 2, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_ISOSURFACE, CAVR_INTERPOLATION_TRILINEAR, 3, 1, CAVR_ISO_STANDARD, 1, 1.0},
          {CAVR_BLEND_COMPOSITE, CAVR_INTERPOLATION_CUBIC, 2, 1, CAVR_ISO_STANDARD, 1, 1.0},
      };
      for (size_t q = 0; q < sizeof cases / sizeof cases[0]; ++q) {
        if (quick && q > 0 && cases[q].blend != CAVR_BLEND_ISOSURFACE) continue;
        Case cc = cases[q];
        const int isoMode = cc.blend == CAVR_BLEND_ISOSURFACE;
        c.tf = isoMode ? isoTf[0] : mapTf[0];
        g.tf = isoMode ? isoTf[1] : mapTf[1];
        render(&c, &cc, iso, cr, cd);
        render(&g, &cc, iso, gr, gd);
        const double need = cc.fraction < 1.0 ? 35.0 : 45.0;
        double mx;
        const double pCG = psnr_rgba(cr, gr, SIZE * SIZE, &mx);
        int covered = 0, differ = 0;
        for (int i = 0; i < SIZE * SIZE; ++i) {
          covered += cr[4 * i + 3] > 0.0f;
          int d = 0;
          for (int ch = 0; ch < 4; ++ch) d |= fabsf(cr[4 * i + ch] - gr[4 * i + ch]) > 0.1f;
          differ += d;
        }
        printf("%-34s view %d blend %d interp %d shade %d skip %d rays %2d fraction %.2f: CPU vs GPU standard %6.2f dB "
               "(max %.3f, %d of %d px differ > 0.1, depth %.2e)",
               tv->name, k, cc.blend, cc.interp, cc.shade, cc.skip, cc.rays, cc.fraction, pCG, mx, differ, covered,
               depth_diff(cd, gd, cr, gr));
        int ok = pCG >= need && covered > SIZE * SIZE / 50;
        if (cc.blend == CAVR_BLEND_ISOSURFACE) {
          cc.method = CAVR_ISO_WARP_MARCHING;
          render(&g, &cc, iso, wr, wd);
          const double pCW = psnr_rgba(cr, wr, SIZE * SIZE, NULL), pGW = psnr_rgba(gr, wr, SIZE * SIZE, NULL);
          printf(", warp %6.2f dB, warp vs standard %6.2f dB", pCW, pGW);
          ok = ok && pCW >= need && pGW >= 60.0;
        }
        printf("%s\n", ok ? "" : "  FAIL");
        failures += !ok;
      }
    }
    release_pair(&c, &g, mapTf, isoTf);
  }
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

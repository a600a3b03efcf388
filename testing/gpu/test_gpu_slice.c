// SPDX-License-Identifier: BSD-3-Clause
/*
 * The slice blend mode on the GPU against the CPU reference, on the real volumes of data/
 * (uint16, float32, uint8) at three views (favourable, x along the rays, oblique) and three planes through the
 * volume's centre (normal along z, along x, oblique): CPU vs GPU >= 45 dB PSNR (float RGBA) with trilinear, nearest and
 * cubic filtering, shaded and not, the colour map at opacity 1 and the preset's own (raw) opacity, a cropped box, and
 * after the volume was turned in place on the GPU (a composite frame with the shaped strategy and rotation at the view
 * along x: the slice kernel reads through the rotation); a compressive slice frame (the ray-list path) >= 35 dB.
 * Depths must agree where both images have a sample (printed). The GPU interpolates with 8-bit texture weights and
 * computes the sample position in float from the ray's anchor, so the images are close, not equal. Shaded cases also
 * count the ambient-only pixels of each side (shaded = ka x unshaded: a gradient without a direction), the control of
 * the gradient floor (core/shared/cavr_lighting.h: CAVR_GRADIENT_FLOOR). --quick: one volume, view and plane (for
 * compute-sanitizer); --volume NAME: the volumes whose name contains NAME.
 */
#include "gpu_util.h"

enum { SIZE = 512 };
#define KA 0.1f /* ambient coefficient of the shaded cases */

typedef struct Case {
  int interp, shade, opaque, crop, rotate;
  double fraction;
} Case;

static void render(Scene *s, const Case *c, const double origin[3], const double normal[3], const double box[6],
                   float *rgba, float *depth) {
  CAVRDevice d = s->dev;
  if (c->rotate) { /* turn the volume in place first: x runs along the rays at view 1 */
    CHECK_OK(d, cavrSetRenderBlendMode(s->set, CAVR_BLEND_COMPOSITE));
    CHECK_OK(d, cavrSetRenderStrategy(s->set, CAVR_STRATEGY_SHAPED, CAVR_SHAPING_ALL, 1));
    CHECK_OK(d, cavrCommitRenderSettings(s->set));
    CHECK_OK(d, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  }
  CHECK_OK(d, cavrSetRenderBlendMode(s->set, CAVR_BLEND_SLICE));
  CHECK_OK(d, cavrSetRenderSlicePlane(s->set, origin, normal));
  CHECK_OK(d, cavrSetRenderInterpolation(s->set, (CAVRInterpolation)c->interp));
  CHECK_OK(d, cavrSetRenderShading(s->set, c->shade, KA, 0.7, 0.2, 10));
  CHECK_OK(d, cavrSetRenderCropBox(s->set, c->crop ? box : NULL));
  CHECK_OK(d, cavrSetRenderCompressive(s->set, c->fraction, CAVR_RECONSTRUCTION_LOCAL, 0));
  CHECK_OK(d, cavrCommitRenderSettings(s->set));
  CHECK_OK(d, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  memcpy(rgba, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), sizeof(float) * 4 * SIZE * SIZE);
  memcpy(depth, cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), sizeof(float) * SIZE * SIZE);
  if (c->rotate) CHECK_OK(d, cavrSetRenderStrategy(s->set, CAVR_STRATEGY_AUTO, CAVR_SHAPING_ALL, 1));
}

int main(int argc, char **argv) {
  const int quick = argc > 1 && !strcmp(argv[1], "--quick");
  const char *only = argc > 2 && !strcmp(argv[1], "--volume") ? argv[2] : NULL; /* a part of one volume's name */
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  static float cr[4 * SIZE * SIZE], cd[SIZE * SIZE], gr[4 * SIZE * SIZE], gd[SIZE * SIZE];
  static float cu[4 * SIZE * SIZE], gu[4 * SIZE * SIZE], ud[SIZE * SIZE];
  const double views[3][3] = {{0, 0, 0}, {0, 90, 0}, {-35, 40, 10}};
  const double normals[3][3] = {{0, 0, 1}, {1, 0, 0}, {0.3, -0.5, 0.8}};
  int failures = 0;
  for (int v = 0; v < (quick ? 1 : 3); ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    if (only && !strstr(tv->name, only)) continue;
    CAVRVolumeFile f;
    float table[4 * 256], opaque[4 * 256];
    load_test_volume(tv, &f, table, 256);
    memcpy(opaque, table, sizeof opaque);
    for (int i = 0; i < 256; ++i) opaque[4 * i + 3] = 1.0f; /* the colour map's colour, opaque */
    Scene c = gpu_scene(cpu, &f, opaque, 256, tv->lo, tv->hi, SIZE), g = gpu_scene(gpu, &f, opaque, 256, tv->lo, tv->hi, SIZE);
    CHECK_OK(gpu, cavrSetFrameBufferHostChannels(g.fb, CAVR_FB_HOST_ALL));
    CAVRTransferFunction mapTf[2] = {cavrNewTransferFunction(cpu), cavrNewTransferFunction(gpu)}, opaqueTf[2] = {c.tf, g.tf};
    for (int d = 0; d < 2; ++d) {
      CHECK(mapTf[d]);
      CHECK_OK(d ? gpu : cpu, cavrSetTransferFunctionTable(mapTf[d], table, 256, tv->lo, tv->hi));
      CHECK_OK(d ? gpu : cpu, cavrCommitTransferFunction(mapTf[d]));
    }
    cavrFreeVolumeFile(&f);
    double b[6], centre[3], box[6];
    CHECK_OK(gpu, cavrGetVolumeBounds(g.vol, b));
    for (int a = 0; a < 3; ++a) {
      centre[a] = 0.5 * (b[2 * a] + b[2 * a + 1]);
      box[2 * a] = b[2 * a] + 0.2 * (b[2 * a + 1] - b[2 * a]);
      box[2 * a + 1] = b[2 * a] + 0.7 * (b[2 * a + 1] - b[2 * a]);
    }
    for (int k = 0; k < (quick ? 1 : 3); ++k) {
      CHECK_OK(cpu, cavrSetCameraOrbit(c.cam, b, views[k][0], views[k][1], views[k][2], CAVR_PROJECTION_PERSPECTIVE, 1));
      CHECK_OK(gpu, cavrSetCameraOrbit(g.cam, b, views[k][0], views[k][1], views[k][2], CAVR_PROJECTION_PERSPECTIVE, 1));
      CHECK_OK(cpu, cavrCommitCamera(c.cam));
      CHECK_OK(gpu, cavrCommitCamera(g.cam));
      for (int n = 0; n < (quick ? 1 : 3); ++n) {
        /* A plane seen edge-on is a line: skip the pairs whose rays run inside the plane (view 0 looks along z, view
           1 along x). */
        if ((k == 0 && n == 1) || (k == 1 && n == 0)) continue;
        const Case cases[] = {
            /* interp, shade, opaque, crop, rotate, fraction */
            {CAVR_INTERPOLATION_TRILINEAR, 0, 1, 0, 0, 1.0},
            {CAVR_INTERPOLATION_TRILINEAR, 1, 1, 0, 0, 1.0},
            {CAVR_INTERPOLATION_NEAREST, 0, 1, 0, 0, 1.0},
            {CAVR_INTERPOLATION_CUBIC, 1, 1, 0, 0, 1.0},
            {CAVR_INTERPOLATION_TRILINEAR, 0, 0, 0, 0, 1.0},
            {CAVR_INTERPOLATION_TRILINEAR, 1, 1, 1, 0, 1.0},
            {CAVR_INTERPOLATION_TRILINEAR, 1, 1, 0, 1, 1.0},
            {CAVR_INTERPOLATION_TRILINEAR, 0, 1, 0, 0, 0.25},
        };
        for (size_t q = 0; q < sizeof cases / sizeof cases[0]; ++q) {
          if (quick && q > 1) continue;
          const Case *cc = &cases[q];
          c.tf = cc->opaque ? opaqueTf[0] : mapTf[0];
          g.tf = cc->opaque ? opaqueTf[1] : mapTf[1];
          render(&c, cc, centre, normals[n], box, cr, cd);
          render(&g, cc, centre, normals[n], box, gr, gd);
          const double need = cc->fraction < 1.0 ? 35.0 : 45.0;
          /* Control of the shading: the same case unshaded on each side; an ambient-only pixel (shaded = ka x
             unshaded on every channel: n.l = 0, no diffuse, no specular) had a gradient without a direction. */
          int ambC = 0, ambG = 0, ambDiffer = 0;
          if (cc->shade) {
            Case u = *cc;
            u.shade = 0;
            render(&c, &u, centre, normals[n], box, cu, ud);
            render(&g, &u, centre, normals[n], box, gu, ud);
          }
          double mx, dmax = 0.0;
          const double p = psnr_rgba(cr, gr, SIZE * SIZE, &mx);
          int covered = 0, differ = 0, coverDiffer = 0;
          for (int i = 0; i < SIZE * SIZE; ++i) {
            const int hc = cd[i] < 1.0f, hg = gd[i] < 1.0f;
            covered += hc;
            coverDiffer += hc != hg;
            if (hc && hg) dmax = fmax(dmax, fabs((double)cd[i] - gd[i]));
            int d = 0;
            for (int ch = 0; ch < 4; ++ch) d |= fabsf(cr[4 * i + ch] - gr[4 * i + ch]) > 0.1f;
            differ += d;
            if (cc->shade && cr[4 * i + 3] > 0.0f) {
              int zc = 1, zg = 1;
              for (int ch = 0; ch < 3; ++ch) {
                zc &= fabsf(cr[4 * i + ch] - KA * cu[4 * i + ch]) <= 1e-6f;
                zg &= fabsf(gr[4 * i + ch] - KA * gu[4 * i + ch]) <= 1e-6f;
              }
              ambC += zc;
              ambG += zg;
              ambDiffer += d && zc;
            }
          }
          printf("%-34s view %d normal %d interp %d shade %d opaque %d crop %d rotate %d fraction %.2f: CPU vs GPU "
                 "%6.2f dB (max %.3f, %d px differ > 0.1, %d of %d covered px not covered by both, depth %.2e)",
                 tv->name, k, n, cc->interp, cc->shade, cc->opaque, cc->crop, cc->rotate, cc->fraction, p, mx, differ,
                 coverDiffer, covered, dmax);
          if (cc->shade) printf(" ambient-only px CPU %d GPU %d (%d of the differing)", ambC, ambG, ambDiffer);
          /* Depth: the same hit, its window depth within 1e-4 (the GPU's hit is float from the ray's anchor); with a
             fraction of the rays the rebuilt pixels take a neighbour's depth, not checked. */
          const int ok = p >= need && covered > SIZE * SIZE / 50 && (cc->fraction < 1.0 || dmax < 1e-4);
          printf("%s\n", ok ? "" : "  FAIL");
          failures += !ok;
        }
      }
    }
    release_pair(&c, &g, opaqueTf, mapTf);
  }
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

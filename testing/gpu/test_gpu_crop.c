// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cropping on the GPU equals cropping on the CPU, exit 77 (SKIP) without a GPU: the three real
 * volumes of data/, every blend mode, shaded and not, standard and shaped strategies (in-place rotation allowed, a
 * side view rotates), with a crop box halved along x, a box cut on all three axes between voxel planes, and a box
 * that misses the volume (empty on both). PSNR >= 45 dB, as test_gpu_render (8-bit texture weights on the GPU).
 */
#include "gpu_util.h"

static const float *render(Scene *s, const double view[2], const double *box, CAVRBlendMode blend, int shade,
                           CAVRStrategy strategy) {
  scene_view(s, view, shade, strategy, 1);
  CHECK_OK(s->dev, cavrSetRenderBlendMode(s->set, blend));
  CHECK_OK(s->dev, cavrSetRenderCropBox(s->set, box));
  return scene_render(s, NULL);
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 160;
  const size_t px = (size_t)size * size;
  float *ref = malloc(px * 16);
  CHECK(ref);
  double worst = INFINITY;
  const double views[2][2] = {{-60, 25}, {0, 90}}; /* oblique; side (x along the rays: rotation) */
  for (int v = 0; v < 3; ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    Scene g = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, size);
    Scene c = gpu_scene(cpu, &f, table, 256, tv->lo, tv->hi, size);
    double b[6];
    CHECK_OK(cpu, cavrGetVolumeBounds(c.vol, b));
    const double half[6] = {b[0], 0.5 * (b[0] + b[1]), b[2], b[3], b[4], b[5]};
    double cut[6];
    for (int a = 0; a < 3; ++a) { /* a quarter in from each side, between voxel planes */
      double w = b[2 * a + 1] - b[2 * a];
      cut[2 * a] = b[2 * a] + 0.23 * w;
      cut[2 * a + 1] = b[2 * a + 1] - 0.31 * w;
    }
    const double miss[6] = {b[1] + 1, b[1] + 2, b[2], b[3], b[4], b[5]};
    const double *boxes[3] = {half, cut, miss};
    for (int k = 0; k < 3; ++k)
      for (int vi = 0; vi < 2; ++vi)
        for (int blend = CAVR_BLEND_COMPOSITE; blend <= CAVR_BLEND_AVERAGE_INTENSITY; ++blend)
          for (int shade = 0; shade <= (blend == CAVR_BLEND_COMPOSITE); ++shade)
            for (int st = CAVR_STRATEGY_STANDARD; st <= CAVR_STRATEGY_SHAPED; ++st) {
              memcpy(ref, render(&c, views[vi], boxes[k], (CAVRBlendMode)blend, shade, CAVR_STRATEGY_STANDARD),
                     px * 16);
              const float *img = render(&g, views[vi], boxes[k], (CAVRBlendMode)blend, shade, (CAVRStrategy)st);
              double mx, p = psnr_rgba(img, ref, px, &mx);
              if (k == 2) CHECK(p == INFINITY); /* both empty */
              if (p < worst) worst = p;
              if (p < 45.0)
                printf("%s box %d view %d blend %d shade %d strategy %d: %.2f dB (max %.4f)\n", tv->name, k, vi,
                       blend, shade, st, p, mx);
              CHECK(p >= 45.0);
            }
    release(&g);
    release(&c);
    cavrFreeVolumeFile(&f);
  }
  printf("worst PSNR GPU vs CPU with cropping: %.2f dB (threshold 45)\n", worst);
  free(ref);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  return 0;
}

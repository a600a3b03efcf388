// SPDX-License-Identifier: BSD-3-Clause
/*
 * Volumetric scattering (cavrSetRenderScattering, core/shared/cavr_scatter.h) on the GPU equals the CPU's, exit 77
 * (SKIP) without a GPU: the three real volumes of data/, composite and shaded, standard and shaped strategies (a side
 * view rotates the volume in place), under cavr's headlight (VTK's default lighting: secondary rays towards the
 * camera) and under two directional lights, with blending 0.5 (blended with gradient shading), 1 (scattering only) and
 * 2, reach 0 and 0.5, anisotropy 0 and 0.5. PSNR >= 45 dB, as test_gpu_render (the GPU's texture filter has 8-bit
 * weights, also on the secondary rays). Scattering must also change the GPU's picture; blending 0 must not.
 */
#include "gpu_util.h"

typedef struct Case {
  double blend, reach, g;
  int lights; /* 0: cavr's headlight, 2: two directional lights */
} Case;

static const float *render(Scene *s, const double view[2], CAVRStrategy strategy, const Case *k) {
  scene_view(s, view, 1, strategy, 1);
  const CAVRLight l[2] = {{CAVR_LIGHT_CAMERA, 0, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0.75},
                          {CAVR_LIGHT_CAMERA, 0, {-1, 0.2, 0.5}, {0, 0, 0}, {0.1, 0.1, 0.1}, {1, 0.9, 0.8}, {1, 1, 1},
                           0.5}};
  CHECK_OK(s->dev, cavrSetRenderLights(s->set, k->lights, k->lights ? l : NULL, 1));
  CHECK_OK(s->dev, cavrSetRenderScattering(s->set, k->blend, k->reach, k->g));
  return scene_render(s, NULL);
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 128;
  const size_t px = (size_t)size * size;
  float *ref = malloc(px * 16), *plain = malloc(px * 16);
  CHECK(ref && plain);
  double worst = INFINITY;
  int failures = 0;
  const double views[2][2] = {{-60, 25}, {0, 90}}; /* oblique; side (x along the rays: rotation) */
  const Case cases[] = {{0.5, 0.0, 0.0, 0}, {1.0, 0.5, 0.5, 0}, {2.0, 0.5, 0.0, 2}, {1.0, 0.0, -0.5, 2},
                        {0.5, 0.5, 0.0, 2}};
  const int ncases = (int)(sizeof cases / sizeof cases[0]);
  for (int v = 0; v < 3; ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    Scene g = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, size);
    Scene c = gpu_scene(cpu, &f, table, 256, tv->lo, tv->hi, size);
    for (int vi = 0; vi < 2; ++vi)
      for (int st = CAVR_STRATEGY_STANDARD; st <= CAVR_STRATEGY_SHAPED; ++st)
        for (int k = 0; k < ncases; ++k) {
          const Case off = {0.0, cases[k].reach, cases[k].g, cases[k].lights};
          memcpy(plain, render(&g, views[vi], (CAVRStrategy)st, &off), px * 16);
          memcpy(ref, render(&c, views[vi], CAVR_STRATEGY_STANDARD, &cases[k]), px * 16);
          const float *img = render(&g, views[vi], (CAVRStrategy)st, &cases[k]);
          double mx, p = psnr_rgba(img, ref, px, &mx);
          const double changed = psnr_rgba(img, plain, px, NULL);
          if (p < worst) worst = p;
          if (p < 45.0 || changed == INFINITY) {
            printf("%s view %d strategy %d blending %g reach %g anisotropy %g lights %d: %.2f dB against the CPU "
                   "(max %.4f), %.2f dB against the GPU without scattering\n",
                   tv->name, vi, st, cases[k].blend, cases[k].reach, cases[k].g, cases[k].lights, p, mx, changed);
            ++failures;
          }
        }
    release(&g);
    release(&c);
    cavrFreeVolumeFile(&f);
  }
  printf("worst PSNR GPU vs CPU with scattering: %.2f dB (threshold 45)\n", worst);
  free(ref);
  free(plain);
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

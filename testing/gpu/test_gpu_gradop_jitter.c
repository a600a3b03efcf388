// SPDX-License-Identifier: BSD-3-Clause
/*
 * Gradient opacity (cavrSetTransferFunctionGradientOpacity) and jittered ray starts (cavrSetRenderJitter) on the GPU
 * equal the CPU's, exit 77 (SKIP) without a GPU: the three real volumes of data/, composite, shaded and not, standard
 * and shaped strategies (a side view rotates the volume in place), with gradient opacity alone, jitter alone and both.
 * PSNR >= 45 dB, as test_gpu_render (the GPU's texture filter has 8-bit weights; the gradient-opacity factor and the
 * jitter are core/shared/cavr_ray.h's on both). Each feature must also change the GPU's picture (it is applied).
 */
#include "gpu_util.h"

static const float *render(Scene *s, const double view[2], int shade, CAVRStrategy strategy, int go, int jitter,
                           const double *points) {
  scene_view(s, view, shade, strategy, 1);
  CHECK_OK(s->dev, cavrSetRenderJitter(s->set, jitter));
  CHECK_OK(s->dev, cavrSetTransferFunctionGradientOpacity(s->tf, go ? points : NULL, go ? 3 : 0));
  CHECK_OK(s->dev, cavrCommitTransferFunction(s->tf));
  return scene_render(s, NULL);
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 160;
  const size_t px = (size_t)size * size;
  float *ref = malloc(px * 16), *plain = malloc(px * 16);
  CHECK(ref && plain);
  double worst = INFINITY;
  int failures = 0;
  const double views[2][2] = {{-60, 25}, {0, 90}}; /* oblique; side (x along the rays: rotation) */
  for (int v = 0; v < 3; ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    /* 0 at magnitude 0, 1 from 5% of the table's range per finest voxel (scalar units per world unit). */
    const double minSp = fmin(tv->sx, fmin(tv->sy, tv->sz)), g1 = 0.05 * (tv->hi - tv->lo) / minSp;
    const double points[6] = {0.0, 0.0, 0.5 * g1, 0.3, g1, 1.0};
    Scene g = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, size);
    Scene c = gpu_scene(cpu, &f, table, 256, tv->lo, tv->hi, size);
    for (int vi = 0; vi < 2; ++vi)
      for (int shade = 0; shade <= 1; ++shade)
        for (int st = CAVR_STRATEGY_STANDARD; st <= CAVR_STRATEGY_SHAPED; ++st) {
          memcpy(plain, render(&g, views[vi], shade, (CAVRStrategy)st, 0, 0, points), px * 16);
          for (int mode = 1; mode <= 3; ++mode) { /* 1 gradient opacity, 2 jitter, 3 both */
            const int go = mode & 1, jit = (mode & 2) != 0;
            memcpy(ref, render(&c, views[vi], shade, CAVR_STRATEGY_STANDARD, go, jit, points), px * 16);
            const float *img = render(&g, views[vi], shade, (CAVRStrategy)st, go, jit, points);
            double mx, p = psnr_rgba(img, ref, px, &mx);
            const double changed = psnr_rgba(img, plain, px, NULL);
            if (p < worst) worst = p;
            if (p < 45.0 || changed == INFINITY) {
              printf("%s view %d shade %d strategy %d gradient opacity %d jitter %d: %.2f dB against the CPU (max "
                     "%.4f), %.2f dB against the GPU without them\n",
                     tv->name, vi, shade, st, go, jit, p, mx, changed);
              ++failures;
            }
          }
        }
    release(&g);
    release(&c);
    cavrFreeVolumeFile(&f);
  }
  printf("worst PSNR GPU vs CPU with gradient opacity and jitter: %.2f dB (threshold 45)\n", worst);
  free(ref);
  free(plain);
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

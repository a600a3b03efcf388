// SPDX-License-Identifier: BSD-3-Clause
/*
 * 2-D transfer functions (cavrSetTransferFunction2D) on the GPU equal the CPU's, exit 77 (SKIP) without a GPU: the
 * three real volumes of data/, composite, shaded and not, standard and shaped strategies (a side view rotates the
 * volume in place), skipping on and off, with a table of two soft-edged boxes over scalar x gradient magnitude (a
 * band of the preset's range at low gradient, another at high gradient, different colours). PSNR >= 45 dB, as
 * test_gpu_render (the GPU's texture filter has 8-bit weights; the look-up is core/shared/cavr_ray.h's
 * cavr_tf2d_sample on both).
 * The table must also change the GPU's picture (it is applied), and the picture must not be empty.
 */
#include "gpu_util.h"

enum { TW = 64, TH = 32 };

/* A box weight in [0, 1]: 1 inside [lo, hi], falling linearly to 0 over `soft` outside (0 and 1 not softened). */
static float box(float v, float lo, float hi, float soft) {
  const float a = lo > 0.0f ? (v - (lo - soft)) / soft : 1.0f, b = hi < 1.0f ? ((hi + soft) - v) / soft : 1.0f;
  const float w = a < b ? a : b;
  return w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
}

/* Two soft-edged boxes over [lo, hi] x [0, gmax] (as ParaView's 2-D editor draws boxes with a soft rim): scalars in
   the upper 60% at gradients below 30% of gmax (orange, opacity 0.3); scalars in the upper 80% at gradients above 50%
   (white, opacity 0.8); composited where they meet; the rest transparent. The rims (0.1 of an axis) keep the
   comparison on the look-up, not on the GPU's 8-bit filter weights at a hard edge. */
static void boxes(float *t) {
  for (int j = 0; j < TH; ++j)
    for (int i = 0; i < TW; ++i) {
      float *e = t + 4 * (TW * j + i);
      const float x = (float)i / (TW - 1), y = (float)j / (TH - 1);
      const float w1 = box(x, 0.4f, 1.0f, 0.1f) * box(y, 0.0f, 0.3f, 0.1f);
      const float w2 = box(x, 0.2f, 1.0f, 0.1f) * box(y, 0.5f, 1.0f, 0.1f);
      const float a1 = 0.3f * w1, a2 = 0.8f * w2, a = a2 + a1 * (1.0f - a2);
      const float c1[3] = {1.0f, 0.6f, 0.2f}, c2[3] = {1.0f, 1.0f, 1.0f};
      for (int c = 0; c < 3; ++c) {
        const float v = a > 0.0f ? (c2[c] * a2 + c1[c] * a1 * (1.0f - a2)) / a : 0.0f;
        e[c] = v < 1.0f ? v : 1.0f; /* rounding */
      }
      e[3] = a;
    }
}

static const float *render(Scene *s, const double view[2], int shade, CAVRStrategy strategy, int skip) {
  scene_view(s, view, shade, strategy, 1);
  CHECK_OK(s->dev, cavrSetRenderEmptySpaceSkipping(s->set, skip));
  return scene_render(s, NULL);
}

static void set_2d(Scene *s, const float *t, double lo, double hi, double gmax) {
  CHECK_OK(s->dev, cavrSetTransferFunction2D(s->tf, t, t ? TW : 0, t ? TH : 0, lo, hi, 0.0, gmax));
  CHECK_OK(s->dev, cavrCommitTransferFunction(s->tf));
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 160;
  const size_t px = (size_t)size * size;
  float *ref = malloc(px * 16), *plain = malloc(px * 16), *t2 = malloc(sizeof(float) * 4 * TW * TH);
  CHECK(ref && plain && t2);
  boxes(t2);
  double worst = INFINITY;
  int failures = 0;
  const double views[2][2] = {{-60, 25}, {0, 90}}; /* oblique; side (x along the rays: rotation) */
  for (int v = 0; v < 3; ++v) {
    const TestVolume *tv = &TEST_VOLUMES[v];
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    /* Gradient axis: 0 to 25% of the table's range per finest voxel (scalar units per world unit), as VTK's GPU ray
       caster normalises it (0.25 of the data range per average spacing). */
    const double minSp = fmin(tv->sx, fmin(tv->sy, tv->sz)), gmax = 0.25 * (tv->hi - tv->lo) / minSp;
    Scene g = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, size);
    Scene c = gpu_scene(cpu, &f, table, 256, tv->lo, tv->hi, size);
    for (int vi = 0; vi < 2; ++vi)
      for (int shade = 0; shade <= 1; ++shade)
        for (int st = CAVR_STRATEGY_STANDARD; st <= CAVR_STRATEGY_SHAPED; ++st)
          for (int skip = 0; skip <= 1; ++skip) {
            set_2d(&g, NULL, 0, 0, 0);
            memcpy(plain, render(&g, views[vi], shade, (CAVRStrategy)st, skip), px * 16);
            set_2d(&g, t2, tv->lo, tv->hi, gmax);
            set_2d(&c, t2, tv->lo, tv->hi, gmax);
            memcpy(ref, render(&c, views[vi], shade, CAVR_STRATEGY_STANDARD, skip), px * 16);
            const float *img = render(&g, views[vi], shade, (CAVRStrategy)st, skip);
            double mx, p = psnr_rgba(img, ref, px, &mx), sum = 0.0;
            const double changed = psnr_rgba(img, plain, px, NULL);
            for (size_t i = 0; i < px; ++i) sum += ref[4 * i + 3];
            if (p < worst) worst = p;
            if (p < 45.0 || changed == INFINITY || sum / px < 0.01) {
              printf("%s view %d shade %d strategy %d skip %d: %.2f dB against the CPU (max %.4f), %.2f dB against "
                     "the 1-D table, mean opacity %.4f\n", tv->name, vi, shade, st, skip, p, mx, changed, sum / px);
              ++failures;
            }
          }
    release(&g);
    release(&c);
    cavrFreeVolumeFile(&f);
  }
  printf("worst PSNR GPU vs CPU with a 2-D transfer function: %.2f dB (threshold 45)\n", worst);
  free(ref);
  free(plain);
  free(t2);
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

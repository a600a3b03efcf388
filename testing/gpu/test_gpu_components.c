// SPDX-License-Identifier: BSD-3-Clause
/*
 * Dependent components (cavrSetVolumeComponentData) on the GPU equal the CPU's, exit 77 (SKIP) without a GPU, on the
 * real volumes of data/:
 * - RGBA: the colour of each voxel from its scalar through a blue-green-red colour map, stored in the scalar's
 *   type (colin27: RGBA8, 0-255; headsq: uint16, 0-65535), the scalar itself as component 3 (opacity);
 * - 2 components: the gradient magnitude of the INIA19 MRI (central differences per voxel) as the colour component,
 *   read through the preset's colours over its own range (cavrSetTransferFunctionColorRange), the MRI as the opacity
 *   component (float32).
 * Composite, shaded and not, trilinear and nearest, standard and shaped strategies at an oblique view and a side view
 * (x along the rays, where the shaped strategy would turn a one-component volume: a volume with colour components is
 * never turned, stats.rotation 0). PSNR >= 45 dB against the CPU, as test_gpu_render (the texture filter's 8-bit
 * weights); each image must also differ from the GPU's one-component image of the scalar (the colours are applied).
 */
#include "gpu_util.h"

enum { SIZE = 160 };

static const float *render(Scene *s, const double view[2], int shade, CAVRInterpolation interp,
                           CAVRStrategy strategy, int *rotation) {
  CAVRRenderStats st;
  scene_view(s, view, shade, strategy, 1);
  CHECK_OK(s->dev, cavrSetRenderInterpolation(s->set, interp));
  const float *img = scene_render(s, &st);
  if (rotation) *rotation = st.rotation;
  return img;
}

/* The voxels of f as doubles. */
static double voxel(const CAVRVolumeFile *f, size_t i) {
  switch (f->type) {
  case CAVR_UINT8: return ((const unsigned char *)f->data)[i];
  case CAVR_UINT16: return ((const unsigned short *)f->data)[i];
  default: return ((const float *)f->data)[i];
  }
}

/* Interleaved dependent components of f: 4 (RGB of a blue-green-red colour map of the scalar over [lo, hi], scaled to
   the type's full range, then the scalar) or 2 (the gradient magnitude, then the scalar; float32 only); *bytes its size, gRange the magnitude's
   range (2 components). */
static void *components(const CAVRVolumeFile *f, int comps, double lo, double hi,
                        size_t *bytes, double gRange[2]) {
  const size_t nv = (size_t)f->dims[0] * f->dims[1] * f->dims[2], es = f->bytes / nv;
  unsigned char *out = malloc(nv * comps * es);
  CHECK(out);
  const double full = f->type == CAVR_UINT8 ? 255.0 : 65535.0;
  const int nx = f->dims[0], ny = f->dims[1], nz = f->dims[2];
  gRange[0] = INFINITY;
  gRange[1] = -INFINITY;
  for (size_t i = 0; i < nv; ++i) {
    const double s = voxel(f, i);
    if (comps == 4) {
      double u = (s - lo) / (hi - lo);
      u = u < 0 ? 0 : u > 1 ? 1 : u;
      const double rgb[3] = {u, 1.0 - fabs(2.0 * u - 1.0), 1.0 - u}; /* a blue-green-red map, not the table's */
      for (int c = 0; c < 3; ++c) {
        const double q = floor(rgb[c] * full + 0.5);
        if (es == 1) out[4 * i + c] = (unsigned char)q;
        else ((unsigned short *)out)[4 * i + c] = (unsigned short)q;
      }
      memcpy(out + (4 * i + 3) * es, (const unsigned char *)f->data + i * es, es);
      continue;
    }
    const int x = (int)(i % nx), y = (int)(i / nx % ny), z = (int)(i / ((size_t)nx * ny));
    const size_t sy = nx, sz = (size_t)nx * ny;
    const double gx = voxel(f, i + (x < nx - 1)) - voxel(f, i - (x > 0)),
                 gy = voxel(f, i + (y < ny - 1) * sy) - voxel(f, i - (y > 0) * sy),
                 gz = voxel(f, i + (z < nz - 1) * sz) - voxel(f, i - (z > 0) * sz);
    const float g = (float)sqrt(gx * gx + gy * gy + gz * gz);
    ((float *)out)[2 * i] = g;
    ((float *)out)[2 * i + 1] = (float)s;
    gRange[0] = fmin(gRange[0], g);
    gRange[1] = fmax(gRange[1], g);
  }
  *bytes = nv * comps * es;
  return out;
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const size_t px = (size_t)SIZE * SIZE;
  float *ref = malloc(px * 16), *plain = malloc(px * 16);
  CHECK(ref && plain);
  double worst = INFINITY;
  int failures = 0;
  const double views[2][2] = {{-60, 25}, {0, 90}};
  const struct {
    int volume, comps;
  } cases[3] = {{2, 4}, {0, 4}, {1, 2}}; /* colin27 RGBA8, headsq RGBA uint16, INIA19 2 components */
  for (int k = 0; k < 3; ++k) {
    const TestVolume *tv = &TEST_VOLUMES[cases[k].volume];
    const int comps = cases[k].comps;
    CAVRVolumeFile f;
    float table[4 * 256];
    load_test_volume(tv, &f, table, 256);
    size_t bytes;
    double gRange[2];
    void *data = components(&f, comps, tv->lo, tv->hi, &bytes, gRange);
    Scene g = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, SIZE);
    Scene c = gpu_scene(cpu, &f, table, 256, tv->lo, tv->hi, SIZE);
    Scene *both[2] = {&g, &c};
    for (int d = 0; d < 2; ++d) {
      CHECK_OK(both[d]->dev, cavrSetVolumeComponentData(both[d]->vol, f.type, comps, f.dims, data, bytes));
      CHECK_OK(both[d]->dev, cavrCommitVolume(both[d]->vol));
      if (comps == 2) {
        CHECK_OK(both[d]->dev, cavrSetTransferFunctionColorRange(both[d]->tf, gRange[0], 0.5 * gRange[1]));
        CHECK_OK(both[d]->dev, cavrCommitTransferFunction(both[d]->tf));
      }
    }
    Scene one = gpu_scene(gpu, &f, table, 256, tv->lo, tv->hi, SIZE);
    for (int vi = 0; vi < 2; ++vi)
      for (int shade = 0; shade <= 1; ++shade)
        for (int in = CAVR_INTERPOLATION_NEAREST; in <= CAVR_INTERPOLATION_TRILINEAR; ++in)
          for (int st = CAVR_STRATEGY_STANDARD; st <= CAVR_STRATEGY_SHAPED; ++st) {
            const CAVRInterpolation interp = (CAVRInterpolation)in;
            memcpy(plain, render(&one, views[vi], shade, interp, (CAVRStrategy)st, NULL), px * 16);
            memcpy(ref, render(&c, views[vi], shade, interp, CAVR_STRATEGY_STANDARD, NULL), px * 16);
            int rotation = -1;
            const float *img = render(&g, views[vi], shade, interp, (CAVRStrategy)st, &rotation);
            double mx, p = psnr_rgba(img, ref, px, &mx);
            const double changed = psnr_rgba(img, plain, px, NULL);
            if (p < worst) worst = p;
            if (p < 45.0 || changed > 40.0 || rotation != 0) {
              printf("%s, %d components, view %d shade %d interpolation %d strategy %d: %.2f dB against the CPU (max "
                     "%.4f), %.2f dB against one component, rotation %d\n",
                     tv->name, comps, vi, shade, in, st, p, mx, changed, rotation);
              ++failures;
            }
          }
    release(&one);
    release(&g);
    release(&c);
    free(data);
    cavrFreeVolumeFile(&f);
  }
  printf("worst PSNR GPU vs CPU with dependent components: %.2f dB (threshold 45)\n", worst);
  free(ref);
  free(plain);
  finish_cpu_gpu(cpu, gpu, failures);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * Compressive rendering on the GPU against its CPU reference: on three real volumes, shaded, 25% of
 * the rays, the GPU's global, local and adaptive reconstructions agree with the CPU's (PSNR >= 45 dB global
 * and local; >= 40 dB adaptive, whose ray allocation follows the rendered values and so may differ by a few
 * rays per block); sample fraction 1 is the normal path bit for bit; the rays cast are exactly the budget
 * and the samples taken fall with the fraction; REFINE (CPU only) is refused with CAVR_ERROR_UNSUPPORTED and the
 * device renders on. Measured on an H100: worst 68.79 dB. Exit 77 (SKIP) without a GPU.
 */
#include "gpu_util.h"

static Scene make(CAVRDevice dev, const CAVRVolumeFile *f, const float *table, int n, double lo, double hi, int size) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, size, size)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, n, lo, hi));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  double b[6];
  CHECK_OK(dev, cavrGetVolumeBounds(s.vol, b));
  CHECK_OK(dev, cavrSetCameraOrbit(s.cam, b, -60, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(dev, cavrCommitCamera(s.cam));
  CHECK_OK(dev, cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.2, 10));
  CHECK_OK(dev, cavrCommitRenderSettings(s.set));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_RGBA32F)); /* the plane the comparisons read */
  return s;
}

static const float *render(Scene *s, double fraction, CAVRReconstruction rec, int adaptive, CAVRRenderStats *st) {
  CHECK_OK(s->dev, cavrSetRenderCompressive(s->set, fraction, rec, adaptive));
  CHECK_OK(s->dev, cavrCommitRenderSettings(s->set));
  CHECK_OK(s->dev, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, st));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 256;
  const size_t px = (size_t)size * size;
  float *fullG = malloc(px * 16), *fullC = malloc(px * 16), *cpuImg = malloc(px * 16);
  const TestVolume *vols = TEST_VOLUMES;
  const struct {
    CAVRReconstruction rec;
    int adaptive;
    const char *name;
    double threshold;
  } runs[] = {{CAVR_RECONSTRUCTION_GLOBAL, 0, "global", 45.0},
              {CAVR_RECONSTRUCTION_LOCAL, 0, "local", 45.0},
              {CAVR_RECONSTRUCTION_LOCAL, 1, "adaptive", 40.0}};
  double worst[3] = {INFINITY, INFINITY, INFINITY};
  for (int v = 0; v < 3; ++v) {
    CAVRVolumeFile f;
    load_volume(vols[v].name, vols[v].type, vols[v].nx, vols[v].ny, vols[v].nz, vols[v].sx, vols[v].sy, vols[v].sz, &f);
    float table[4 * 1024];
    char msg[200];
    CHECK(cavrTransferFunctionPreset(vols[v].preset, table, 1024, msg, sizeof msg) == CAVR_ERROR_NONE);
    Scene c = make(cpu, &f, table, 1024, vols[v].lo, vols[v].hi, size);
    Scene g = make(gpu, &f, table, 1024, vols[v].lo, vols[v].hi, size);
    cavrFreeVolumeFile(&f);
    CAVRRenderStats gs, cs;
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &gs));
    memcpy(fullG, cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA32F), px * 16);
    const uint64_t fullSamples = gs.samples;
    CHECK_OK(cpu, cavrRender(c.fb, c.vol, c.tf, c.cam, c.set, &cs));
    memcpy(fullC, cavrGetFrameBufferData(c.fb, CAVR_FB_COLOR_RGBA32F), px * 16);
    /* Fraction 1: the normal path. */
    const float *one = render(&g, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0, &gs);
    CHECK(memcmp(one, fullG, px * 16) == 0 && gs.raysCast == px);
    for (int r = 0; r < 3; ++r) {
      memcpy(cpuImg, render(&c, 0.25, runs[r].rec, runs[r].adaptive, &cs), px * 16);
      const float *img = render(&g, 0.25, runs[r].rec, runs[r].adaptive, &gs);
      CHECK(gs.backend == CAVR_BACKEND_CUDA && cs.backend == CAVR_BACKEND_CPU);
      CHECK(gs.raysCast == (uint64_t)llround(0.25 * px) && cs.raysCast == gs.raysCast);
      CHECK(gs.iterations > 0 && gs.solveMilliseconds > 0.0);
      double mx, p = psnr_rgba(img, cpuImg, px, &mx);
      double pg = psnr_rgba(img, fullG, px, NULL), pc = psnr_rgba(cpuImg, fullC, px, NULL);
      printf("%-36s %-8s 25%%: GPU vs CPU %.2f dB (max %.3f); vs full render: GPU %.2f dB, CPU %.2f dB; iterations "
             "GPU %d CPU %d; solve GPU %.3f ms CPU %.1f ms; samples %.1f%% of the full render\n",
             vols[v].name, runs[r].name, p, mx, pg, pc, gs.iterations, cs.iterations, gs.solveMilliseconds,
             cs.solveMilliseconds, 100.0 * gs.samples / fullSamples);
      CHECK(p >= runs[r].threshold);
      CHECK(fabs(pg - pc) < 3.0); /* the same quality on both back ends */
      /* Uniform masks take a quarter of the samples; adaptive spends its rays on the blocks with structure,
         whose rays are the long ones, so it takes more, but still fewer than the full render. */
      CHECK(runs[r].adaptive ? gs.samples < fullSamples : gs.samples < 0.4 * fullSamples);
      worst[r] = p < worst[r] ? p : worst[r];
    }
    /* REFINE is the CPU back end's: the GPU refuses it with a clear error and renders on afterwards. */
    CHECK_OK(gpu, cavrSetRenderCompressive(g.set, 0.25, CAVR_RECONSTRUCTION_REFINE, 0));
    CHECK_OK(gpu, cavrCommitRenderSettings(g.set));
    cavrGetDeviceError(gpu, NULL); /* nothing else pending */
    CHECK(cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &gs) == CAVR_ERROR_UNSUPPORTED);
    const char *why = NULL;
    CHECK(cavrGetDeviceError(gpu, &why) == CAVR_ERROR_UNSUPPORTED && why && strstr(why, "REFINE"));
    CHECK(memcmp(render(&g, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0, &gs), fullG, px * 16) == 0);
    release(&c);
    release(&g);
  }
  printf("worst GPU vs CPU: global %.2f dB, local %.2f dB, adaptive %.2f dB\n", worst[0], worst[1], worst[2]);
  free(fullG), free(fullC), free(cpuImg);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  return 0;
}

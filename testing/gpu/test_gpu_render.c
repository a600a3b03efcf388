// SPDX-License-Identifier: BSD-3-Clause
/*
 * CPU and GPU images of real volumes agree: PSNR >= 45 dB for every blend mode, every strategy (standard,
 * shaped with each switch alone and all together, auto with in-place rotation), shaded and unshaded, at
 * views that are favourable, unfavourable (x along the rays: rotation happens) and oblique; composite also shaded
 * with ParaView's light kit and a scene light (cavrSetRenderLights). The GPU
 * interpolates with 8-bit texture weights, so the images are close, not equal. A render with rotation equals
 * the render without (PSNR >= 50 dB), and padding (non-cube volumes) is invisible because both agree
 * with the CPU, which has no padding. Host planes (cavrSetFrameBufferHostChannels): with only RGBA8 requested, the
 * RGBA8 plane equals that of a render that copies every plane, bit for bit (full and compressive renders), the
 * other host planes are left untouched, and the copy time is reported. Shared planes (cavrShareFrameBufferPlanes),
 * imported back into CUDA as external memory: every render's RGBA8 and depth planes, bit for bit (full, compressive
 * and super-sampled frames), and nothing after cavrUnshareFrameBufferPlanes.
 */
#include "gpu_util.h"
#include "../common/lights.h"
#ifdef CAVR_TEST_CUDA_RUNTIME
#include <cuda_runtime_api.h>
#endif

/* Shared planes (cavrShareFrameBufferPlanes): the file descriptors imported back into CUDA as external memory
   (cudaImportExternalMemory, as OpenGL or Vulkan would import them), read to the host for the comparisons. */
typedef struct Shared {
  void *ptr[2];
  void *ext[2];
  size_t bytes;
} Shared;
static int share_planes(CAVRDevice dev, CAVRFrameBuffer fb, size_t px, Shared *sh) {
  memset(sh, 0, sizeof *sh);
#ifdef CAVR_TEST_CUDA_RUNTIME
  int fds[2];
  unsigned long long bytes[2];
  CHECK_OK(dev, cavrShareFrameBufferPlanes(fb, fds, bytes));
  CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[0] != fds[1] && bytes[0] >= px * 4 && bytes[1] >= px * 4);
  for (int c = 0; c < 2; ++c) {
    struct cudaExternalMemoryHandleDesc d;
    memset(&d, 0, sizeof d);
    d.type = cudaExternalMemoryHandleTypeOpaqueFd;
    d.handle.fd = fds[c];
    d.size = bytes[c];
    cudaExternalMemory_t m;
    CHECK(cudaImportExternalMemory(&m, &d) == cudaSuccess); /* CUDA owns the descriptor now */
    struct cudaExternalMemoryBufferDesc b;
    memset(&b, 0, sizeof b);
    b.size = px * 4;
    CHECK(cudaExternalMemoryGetMappedBuffer(&sh->ptr[c], m, &b) == cudaSuccess);
    sh->ext[c] = m;
  }
  sh->bytes = px * 4;
  return 1;
#else
  (void)dev, (void)fb, (void)px;
  return 0;
#endif
}
/* The shared colour (c = 0) or depth (1) plane equals `host` (px * 4 bytes) bit for bit. */
static int shared_equals(const Shared *sh, int c, const void *host) {
#ifdef CAVR_TEST_CUDA_RUNTIME
  void *copy = malloc(sh->bytes);
  CHECK(copy);
  CHECK(cudaMemcpy(copy, sh->ptr[c], sh->bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  const int same = memcmp(copy, host, sh->bytes) == 0;
  free(copy);
  return same;
#else
  (void)sh, (void)c, (void)host;
  return 0;
#endif
}
static void unshare_planes(Shared *sh) {
#ifdef CAVR_TEST_CUDA_RUNTIME
  for (int c = 0; c < 2; ++c)
    if (sh->ext[c]) {
      cudaFree(sh->ptr[c]);
      cudaDestroyExternalMemory((cudaExternalMemory_t)sh->ext[c]);
    }
#endif
  memset(sh, 0, sizeof *sh);
}

static Scene make(CAVRDevice dev, const CAVRVolumeFile *f, const float *table, int n, double lo, double hi, int size) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, size, size)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, n, lo, hi));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_RGBA32F)); /* the plane the comparisons read */
  return s;
}

/* Poison the host planes (their memory is the caller's to read; overwritten here to see what a render copies). */
static void poison(Scene *s, size_t px) {
  memset((void *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA8), 0x5a, px * 4);
  memset((void *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), 0x5a, px * 16);
  memset((void *)cavrGetFrameBufferData(s->fb, CAVR_FB_DEPTH), 0x5a, px * 4);
}

static int untouched(const void *plane, size_t bytes) {
  const unsigned char *b = (const unsigned char *)plane;
  for (size_t i = 0; i < bytes; ++i)
    if (b[i] != 0x5a) return 0;
  return 1;
}

/* Only the requested planes come back, and the RGBA8 one is the image of a render that copies everything: the
   normal path and the three compressive paths (the copy at the end of the reconstruction). */
static void check_host_planes(CAVRDevice gpu) {
  CAVRVolumeFile f;
  load_volume("headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5, &f);
  float table[4 * 1024];
  char msg[200];
  CHECK(cavrTransferFunctionPreset("ct-skin", table, 1024, msg, sizeof msg) == CAVR_ERROR_NONE);
  const int size = 256;
  const size_t px = (size_t)size * size;
  Scene g = make(gpu, &f, table, 1024, 0, 4000, size);
  cavrFreeVolumeFile(&f);
  double b[6];
  CHECK_OK(gpu, cavrGetVolumeBounds(g.vol, b));
  CHECK_OK(gpu, cavrSetCameraOrbit(g.cam, b, -60, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(gpu, cavrCommitCamera(g.cam));
  CHECK_OK(gpu, cavrSetRenderShading(g.set, 1, 0.1, 0.7, 0.2, 10));
  uint8_t *full8 = malloc(px * 4);
  CHECK(full8);
  /* Planes shared with another graphics API hold every render's RGBA8 and depth planes. */
  Shared sh;
  const int shared = share_planes(gpu, g.fb, px, &sh);
  const struct {
    double fraction;
    CAVRReconstruction rec;
    int adaptive;
    const char *name;
  } runs[] = {{1.0, CAVR_RECONSTRUCTION_LOCAL, 0, "full"},
              {0.25, CAVR_RECONSTRUCTION_GLOBAL, 0, "25% global"},
              {0.25, CAVR_RECONSTRUCTION_LOCAL, 0, "25% local"},
              {0.25, CAVR_RECONSTRUCTION_LOCAL, 1, "25% adaptive"}};
  for (int r = 0; r < 4; ++r) {
    CHECK_OK(gpu, cavrSetRenderCompressive(g.set, runs[r].fraction, runs[r].rec, runs[r].adaptive));
    CHECK_OK(gpu, cavrCommitRenderSettings(g.set));
    CAVRRenderStats all, only8;
    CHECK_OK(gpu, cavrSetFrameBufferHostChannels(g.fb, CAVR_FB_HOST_ALL));
    poison(&g, px);
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &all));
    CHECK(all.backend == CAVR_BACKEND_CUDA);
    memcpy(full8, cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA8), px * 4);
    CHECK(!untouched(cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA32F), px * 16) &&
          !untouched(cavrGetFrameBufferData(g.fb, CAVR_FB_DEPTH), px * 4));
    size_t covered = 0;
    for (size_t i = 0; i < px; ++i) covered += full8[4 * i + 3] > 5;
    CHECK(covered > px / 50); /* a real image */
    CHECK(all.transferMilliseconds > 0.0); /* 1.5 MB copied */
    if (shared) {
      CHECK(shared_equals(&sh, 0, full8) && shared_equals(&sh, 1, cavrGetFrameBufferData(g.fb, CAVR_FB_DEPTH)));
      printf("shared planes, %-12s: RGBA8 and depth equal to the host planes\n", runs[r].name);
    }
    CHECK_OK(gpu, cavrSetFrameBufferHostChannels(g.fb, CAVR_FB_HOST_RGBA8));
    poison(&g, px);
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &only8));
    printf("host planes, %-12s: all planes %.3f ms (kernel %.3f, transfer %.3f); RGBA8 only %.3f ms (kernel %.3f, "
           "transfer %.3f)\n", runs[r].name, all.milliseconds, all.kernelMilliseconds, all.transferMilliseconds,
           only8.milliseconds, only8.kernelMilliseconds, only8.transferMilliseconds);
    CHECK(only8.transferMilliseconds >= 0.0 && only8.kernelMilliseconds > 0.0);
    CHECK(memcmp(cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA8), full8, px * 4) == 0);
    CHECK(untouched(cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA32F), px * 16)); /* not copied */
    CHECK(untouched(cavrGetFrameBufferData(g.fb, CAVR_FB_DEPTH), px * 4));
    CHECK(cavrGetFrameBufferDeviceData(g.fb, CAVR_FB_COLOR_RGBA32F) != NULL); /* still on the device */
    /* Nothing to the host: every host plane stays as it was. */
    CHECK_OK(gpu, cavrSetFrameBufferHostChannels(g.fb, 0));
    poison(&g, px);
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &only8));
    CHECK(untouched(cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA8), px * 4));
    if (shared) { /* still written with no host plane: poisoned first, then the picture again */
#ifdef CAVR_TEST_CUDA_RUNTIME
      CHECK(cudaMemset(sh.ptr[0], 0x5a, sh.bytes) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess);
      CHECK(!shared_equals(&sh, 0, full8));
#endif
      CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, &only8));
      CHECK(shared_equals(&sh, 0, full8));
    }
  }
  if (shared) {
    /* A super-sampled frame (reduced on the GPU) is shared too; after unsharing, renders leave the memory alone. */
    CHECK_OK(gpu, cavrSetRenderCompressive(g.set, 1.0, CAVR_RECONSTRUCTION_LOCAL, 0));
    CHECK_OK(gpu, cavrSetRenderSupersampling(g.set, 4));
    CHECK_OK(gpu, cavrCommitRenderSettings(g.set));
    CHECK_OK(gpu, cavrSetFrameBufferHostChannels(g.fb, CAVR_FB_HOST_ALL));
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, NULL));
    memcpy(full8, cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA8), px * 4);
    CHECK(shared_equals(&sh, 0, full8) && shared_equals(&sh, 1, cavrGetFrameBufferData(g.fb, CAVR_FB_DEPTH)));
    CHECK_OK(gpu, cavrUnshareFrameBufferPlanes(g.fb));
    CHECK_OK(gpu, cavrSetRenderSupersampling(g.set, 1));
    CHECK_OK(gpu, cavrSetCameraOrbit(g.cam, b, 20, 150, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
    CHECK_OK(gpu, cavrCommitCamera(g.cam));
    CHECK_OK(gpu, cavrCommitRenderSettings(g.set));
    CHECK_OK(gpu, cavrRender(g.fb, g.vol, g.tf, g.cam, g.set, NULL));
    CHECK(memcmp(cavrGetFrameBufferData(g.fb, CAVR_FB_COLOR_RGBA8), full8, px * 4) != 0); /* another picture */
    CHECK(shared_equals(&sh, 0, full8)); /* the memory (alive through the import) keeps the last shared frame */
    printf("shared planes: super-sampled frame equal; after unsharing, the memory is left alone\n");
    unshare_planes(&sh);
  }
  free(full8);
  release(&g);
}

static const float *render(Scene *s, double rx, double ry, CAVRBlendMode blend, int shade, CAVRStrategy strategy,
                           unsigned flags, int rotation, CAVRRenderStats *st) {
  double b[6];
  CHECK_OK(s->dev, cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(s->dev, cavrSetCameraOrbit(s->cam, b, rx, ry, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(s->dev, cavrCommitCamera(s->cam));
  CHECK_OK(s->dev, cavrSetRenderBlendMode(s->set, blend));
  CHECK_OK(s->dev, cavrSetRenderShading(s->set, shade != 0, 0.1, 0.7, 0.2, 10));
  CAVRLight kit[6]; /* shade 2: ParaView's light kit and a scene light (cavrSetRenderLights) */
  const int lights = shade == 2 ? cavr_test_light_kit(kit, 1) : 0;
  CHECK_OK(s->dev, cavrSetRenderLights(s->set, lights, lights ? kit : NULL, 1));
  CHECK_OK(s->dev, cavrSetRenderStrategy(s->set, strategy, flags, rotation));
  CHECK_OK(s->dev, cavrCommitRenderSettings(s->set));
  CHECK_OK(s->dev, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, st));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick"); /* fewer cases, for compute-sanitizer */
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  const int size = 160;
  const size_t px = (size_t)size * size;
  float *ref = malloc(px * 16), *norot = malloc(px * 16);
  double worst = INFINITY, worstRot = INFINITY;
  const TestVolume *vols = TEST_VOLUMES;
  /* front (z along the rays), side (x along the rays: rotation about z or y), oblique (x dominant). */
  const double views[3][2] = {{-90, 0}, {0, 90}, {-30, 57}};
  int rotatedFrames = 0;
  const struct {
    CAVRStrategy s;
    unsigned flags;
    int rot;
    const char *name;
  } strategies[] = {{CAVR_STRATEGY_STANDARD, 0, 0, "standard"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_DYNAMIC_BLOCK, 0, "shaped:dynamic"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_DYNAMIC_BLOCK | CAVR_SHAPING_TRANSPOSED, 0, "shaped:transposed"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_MAX_BLOCK, 0, "shaped:max-block"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_SYNC_PROPAGATION, 0, "shaped:sync"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_ALL, 0, "shaped:all"},
                    {CAVR_STRATEGY_SHAPED, CAVR_SHAPING_ALL, 1, "shaped+rotation"},
                    {CAVR_STRATEGY_AUTO, 0, 1, "auto"}};
  const int nstrat = quick ? 2 : (int)(sizeof strategies / sizeof strategies[0]);
  for (int v = 0; v < (quick ? 1 : 3); ++v) {
    CAVRVolumeFile f;
    load_volume(vols[v].name, vols[v].type, vols[v].nx, vols[v].ny, vols[v].nz, vols[v].sx, vols[v].sy, vols[v].sz, &f);
    float table[4 * 1024];
    char msg[200];
    CHECK(cavrTransferFunctionPreset(vols[v].preset, table, 1024, msg, sizeof msg) == CAVR_ERROR_NONE);
    Scene c = make(cpu, &f, table, 1024, vols[v].lo, vols[v].hi, size);
    Scene g = make(gpu, &f, table, 1024, vols[v].lo, vols[v].hi, size);
    cavrFreeVolumeFile(&f);
    for (int w = 0; w < (quick ? 2 : 3); ++w)
      for (int blend = 0; blend < 4; ++blend)
        for (int shade = 0; shade < (blend == 0 ? 3 : 1); ++shade) { /* 2: the light kit */
          CAVRRenderStats cs, gs;
          memcpy(ref, render(&c, views[w][0], views[w][1], (CAVRBlendMode)blend, shade, CAVR_STRATEGY_STANDARD, 0, 0, &cs),
                 px * 16);
          CHECK(cs.backend == CAVR_BACKEND_CPU);
          for (int k = 0; k < nstrat; ++k) {
            const float *img = render(&g, views[w][0], views[w][1], (CAVRBlendMode)blend, shade, strategies[k].s,
                                      strategies[k].flags, strategies[k].rot, &gs);
            CHECK(gs.backend == CAVR_BACKEND_CUDA);
            double mx, p = psnr_rgba(img, ref, px, &mx);
            double covered = 0;
            for (size_t i = 0; i < px; ++i) covered += ref[4 * i + 3] > 0.02f;
            printf("%-36s view (%4.0f,%4.0f) blend %d shade %d %-18s block %3dx%-3d rot %d: PSNR %6.2f dB (max %.3f), "
                   "%.0f%% covered, samples cpu %llu gpu %llu\n",
                   vols[v].name, views[w][0], views[w][1], blend, shade, strategies[k].name, gs.blockWidth,
                   gs.blockHeight, gs.rotation, p, mx, 100.0 * covered / px, (unsigned long long)cs.samples,
                   (unsigned long long)gs.samples);
            /* Composite and MIP must show the object; the minimum along a ray is often air (empty image). */
            if (blend <= 1) CHECK(covered > 0.02 * px);
            CHECK(p >= 45.0);
            worst = p < worst ? p : worst;
            rotatedFrames += gs.rotation != 0;
            if (k == nstrat - 2 && !quick) {
              /* The same frame with rotation off: equal to the rotated render. */
              memcpy(norot, img, px * 16);
              const float *plain = render(&g, views[w][0], views[w][1], (CAVRBlendMode)blend, shade, CAVR_STRATEGY_SHAPED,
                                          CAVR_SHAPING_ALL, 0, &gs);
              CHECK(gs.rotation == 0);
              double pr = psnr_rgba(norot, plain, px, &mx);
              printf("    rotation on vs off: PSNR %.2f dB (max %.4f)\n", pr, mx);
              CHECK(pr >= 50.0);
              worstRot = pr < worstRot ? pr : worstRot;
            }
          }
        }
    release(&c);
    release(&g);
  }
  /* The side and oblique views really rotated the volume (the rotation checks would be empty otherwise). */
  printf("frames rendered from a rotated volume: %d\n", rotatedFrames);
  if (!quick) CHECK(rotatedFrames > 0);
  printf("worst PSNR GPU vs CPU: %.2f dB (threshold 45); rotation on vs off: %.2f dB (threshold 50)\n", worst, worstRot);
  check_host_planes(gpu);
  free(ref);
  free(norot);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  return 0;
}

/*
 * CPU and GPU images of real volumes agree: PSNR >= 45 dB for every blend mode, every strategy (standard,
 * shaped with each switch alone and all together, auto with in-place rotation), shaded and unshaded, at
 * views that are favourable, unfavourable (x along the rays: rotation happens) and oblique. The GPU
 * interpolates with 8-bit texture weights, so the images are close, not equal. A render with rotation equals
 * the render without (PSNR >= 50 dB), and padding (non-cube volumes) is invisible because both agree
 * with the CPU, which has no padding.
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
  return s;
}

static const float *render(Scene *s, double rx, double ry, CAVRBlendMode blend, int shade, CAVRStrategy strategy,
                           unsigned flags, int rotation, CAVRRenderStats *st) {
  double b[6];
  CHECK_OK(s->dev, cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(s->dev, cavrSetCameraOrbit(s->cam, b, rx, ry, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(s->dev, cavrCommitCamera(s->cam));
  CHECK_OK(s->dev, cavrSetRenderBlendMode(s->set, blend));
  CHECK_OK(s->dev, cavrSetRenderShading(s->set, shade, 0.1, 0.7, 0.2, 10));
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
  struct {
    const char *name;
    CAVRScalarType type;
    int nx, ny, nz;
    double sx, sy, sz, lo, hi;
    const char *preset;
  } vols[] = {{"headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5, 0, 4000, "ct-skin"},
              {"inia19_t1brain_168x206x128_float32", CAVR_FLOAT32, 168, 206, 128, 0.5, 0.5, 0.5, 0, 150, "mri"},
              {"colin27_ch2better_301x370x316_uint8", CAVR_UINT8, 301, 370, 316, 0.5, 0.5, 0.5, 0, 130, "mri"}};
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
        for (int shade = 0; shade < (blend == 0 ? 2 : 1); ++shade) {
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
  free(ref);
  free(norot);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  return 0;
}

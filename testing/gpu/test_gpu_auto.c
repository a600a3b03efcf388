// SPDX-License-Identifier: BSD-3-Clause
/*
 * AUTO from a table measured on this GPU, and rotation of volumes that are not cubes:
 * - the first AUTO render of a storage type with no table measures one, says so once through the callback, saves it
 *   under CAVR_TUNE_DIR, and uses it (stats.autoTable); a second device reads it back without measuring;
 * - a corrupt or stale table with CAVR_TUNE=0 never fails a render: AUTO uses 16x16 blocks without rotation and says
 *   so once; cavrTuneDevice rewrites a valid table;
 * - every AUTO frame of an orbit about y and x on Colin27 (301 x 370 x 316, not a cube) equals the CPU back end's
 *   (>= 45 dB), rotated or not; SHAPED with rotation at 90 degrees turns the volume by a copy into an array of the
 *   permuted extent: device memory stays at the voxels' size, the image equals the CPU's;
 * - isosurfaces with AUTO try both methods per view class once, then keep the one that ran cheaper.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_util.h"

typedef struct Notes {
  int measured, fallback, other;
  char saved[700]; /* the path of the last "saved to" note */
} Notes;

static void on_note(void *user, CAVRError code, const char *message) {
  Notes *n = (Notes *)user;
  if (code != CAVR_ERROR_NONE) return;
  const char *to = strstr(message, "saved to ");
  if (to) snprintf(n->saved, sizeof n->saved, "%s", to + 9);
  if (strstr(message, "measured thread-block shapes")) ++n->measured;
  else if (strstr(message, "using 16x16")) ++n->fallback;
  else ++n->other;
  printf("note: %s\n", message);
}

static Scene make(CAVRDevice dev, const CAVRVolumeFile *f, const float *table, int size) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, size, size)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, 1024, 0, 130));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_RGBA32F));
  return s;
}

static const float *render(Scene *s, double rx, double ry, CAVRStrategy strategy, int rotation, CAVRRenderStats *st) {
  double b[6];
  CHECK_OK(s->dev, cavrGetVolumeBounds(s->vol, b));
  CHECK_OK(s->dev, cavrSetCameraOrbit(s->cam, b, rx, ry, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(s->dev, cavrCommitCamera(s->cam));
  CHECK_OK(s->dev, cavrSetRenderStrategy(s->set, strategy, 0u, rotation));
  CHECK_OK(s->dev, cavrCommitRenderSettings(s->set));
  CHECK_OK(s->dev, cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, st));
  return (const float *)cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

int main(void) {
  char dir[] = "/tmp/cavr-tune-XXXXXX";
  CHECK(mkdtemp(dir));
  setenv("CAVR_TUNE_DIR", dir, 1);
  unsetenv("CAVR_TUNE");
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  Notes notes = {0};
  cavrSetDeviceErrorCallback(gpu, on_note, &notes);
  const TestVolume *tv = &TEST_VOLUMES[2]; /* Colin27, uint8, not a cube */
  CAVRVolumeFile f;
  float table[4 * 1024];
  load_test_volume(tv, &f, table, 1024);
  const int size = 160;
  const size_t px = (size_t)size * size;
  Scene g = make(gpu, &f, table, size), c = make(cpu, &f, table, size);
  float *ref = malloc(px * 16);
  CHECK(ref);

  /* 1. First AUTO render: the table is measured once and saved. Then an orbit about y and one about x. */
  double worst = INFINITY;
  int rotated = 0, frames = 0;
  CAVRRenderStats st;
  for (int sweep = 0; sweep < 2; ++sweep)
    for (int a = 0; a < 360; a += 30) {
      const double rx = sweep ? a : 0, ry = sweep ? 0 : a;
      memcpy(ref, render(&c, rx, ry, CAVR_STRATEGY_AUTO, 1, &st), px * 16);
      const float *img = render(&g, rx, ry, CAVR_STRATEGY_AUTO, 1, &st);
      CHECK(st.backend == CAVR_BACKEND_CUDA && st.autoTable == 1);
      double p = psnr_rgba(ref, img, px, NULL);
      worst = p < worst ? p : worst;
      rotated += st.rotation != 0;
      ++frames;
    }
  printf("AUTO with a measured table: %d frames (%d from a rotated volume), worst PSNR vs CPU %.2f dB\n", frames,
         rotated, worst);
  CHECK(worst >= 45.0);
  CHECK(notes.measured == 1 && notes.fallback == 0); /* measured once, said once */
  char path[1024];
  snprintf(path, sizeof path, "%s", notes.saved);
  struct stat sb;
  CHECK(path[0] && stat(path, &sb) == 0 && sb.st_size > 100);

  /* 2. A second device reads the table back: no measurement, still the table. */
  CAVRDevice gpu2 = cavrNewDevice(CAVR_BACKEND_CUDA);
  CHECK(gpu2);
  Notes notes2 = {0};
  cavrSetDeviceErrorCallback(gpu2, on_note, &notes2);
  Scene g2 = make(gpu2, &f, table, size);
  render(&g2, 0, 90, CAVR_STRATEGY_AUTO, 1, &st);
  CHECK(st.autoTable == 1 && notes2.measured == 0 && notes2.fallback == 0);
  release(&g2);
  cavrReleaseDevice(gpu2);

  /* 3. A corrupt table with CAVR_TUNE=0: AUTO falls back, says so once, renders the same image. */
  FILE *w = fopen(path, "w");
  CHECK(w);
  fputs("cavr-tune 1\ngpu garbage\nclass q\n", w);
  fclose(w);
  setenv("CAVR_TUNE", "0", 1);
  CAVRDevice gpu3 = cavrNewDevice(CAVR_BACKEND_CUDA);
  CHECK(gpu3);
  Notes notes3 = {0};
  cavrSetDeviceErrorCallback(gpu3, on_note, &notes3);
  Scene g3 = make(gpu3, &f, table, size);
  for (int a = 0; a < 180; a += 45) {
    memcpy(ref, render(&c, 0, a, CAVR_STRATEGY_AUTO, 1, &st), px * 16);
    const float *img = render(&g3, 0, a, CAVR_STRATEGY_AUTO, 1, &st);
    CHECK(st.autoTable == 0 && st.rotation == 0 && st.blockWidth == 16 && st.blockHeight == 16);
    CHECK(psnr_rgba(ref, img, px, NULL) >= 45.0);
  }
  CHECK(notes3.fallback == 1 && notes3.measured == 0);
  const char *m = NULL;
  CHECK(cavrGetDeviceError(gpu3, &m) == CAVR_ERROR_NONE); /* a note, not an error */
  /* cavrTuneDevice writes a valid table again (and for another storage type). */
  char p8[1024], p16[1024];
  CHECK_OK(gpu3, cavrTuneDevice(gpu3, CAVR_UINT8, p8, sizeof p8));
  CHECK(!strcmp(p8, path));
  CHECK_OK(gpu3, cavrTuneDevice(gpu3, CAVR_INT16, p16, sizeof p16));
  CHECK(strstr(p16, "uint16.txt") && stat(p16, &sb) == 0);
  render(&g3, 0, 90, CAVR_STRATEGY_AUTO, 1, &st);
  CHECK(st.autoTable == 1); /* this device now uses the table it measured */
  release(&g3);
  cavrReleaseDevice(gpu3);
  unsetenv("CAVR_TUNE");

  /* 4. Rotation of a volume that is not a cube: by a copy into the permuted extent, no padding. */
  CAVRVolumeCommitStats cs;
  double worstRot = INFINITY;
  for (int a = 60; a <= 120; a += 30) {
    memcpy(ref, render(&c, 0, a, CAVR_STRATEGY_SHAPED, 1, &st), px * 16);
    const float *img = render(&g, 0, a, CAVR_STRATEGY_SHAPED, 1, &st);
    CHECK(st.rotation == 1); /* an orbit about y: the turn about y puts screen-right along stored x */
    CHECK_OK(gpu, cavrGetVolumeCommitStats(g.vol, &cs));
    CHECK(cs.deviceBytes == (uint64_t)f.bytes); /* the array holds the voxels, permuted, nothing more */
    CHECK(cs.deviceDims[0] == f.dims[2] && cs.deviceDims[1] == f.dims[1] && cs.deviceDims[2] == f.dims[0]);
    double p = psnr_rgba(ref, img, px, NULL);
    worstRot = p < worstRot ? p : worstRot;
  }
  render(&g, 0, 0, CAVR_STRATEGY_SHAPED, 1, &st); /* turned back */
  CHECK(st.rotation == 0);
  CHECK_OK(gpu, cavrGetVolumeCommitStats(g.vol, &cs));
  CHECK(cs.deviceDims[0] == f.dims[0] && cs.deviceDims[2] == f.dims[2]);
  printf("rotation by copy of a %dx%dx%d volume: worst PSNR vs CPU %.2f dB, device bytes = voxel bytes\n", f.dims[0],
         f.dims[1], f.dims[2], worstRot);
  CHECK(worstRot >= 45.0);

  /* 5. Isosurfaces with AUTO: per view class, the first four frames alternate the two methods (the
     table's first), then the one whose least time was lower is kept; every frame equals the CPU's (>= 45 dB). */
  const double isoValue = 80.0;
  for (int k = 0; k < 2; ++k) {
    Scene *s = k ? &c : &g;
    CHECK_OK(s->dev, cavrSetRenderBlendMode(s->set, CAVR_BLEND_ISOSURFACE));
    CHECK_OK(s->dev, cavrSetRenderIsoValues(s->set, 1, &isoValue));
    CHECK_OK(s->dev, cavrSetRenderIsoMethod(s->set, CAVR_ISO_AUTO));
  }
  double worstIso = INFINITY;
  for (int a = 0; a <= 90; a += 90) {
    int used[6];
    double ms[2] = {INFINITY, INFINITY};
    memcpy(ref, render(&c, 0, a, CAVR_STRATEGY_AUTO, 1, &st), px * 16);
    for (int fr = 0; fr < 6; ++fr) {
      const float *img = render(&g, 0, a, CAVR_STRATEGY_AUTO, 1, &st);
      used[fr] = st.isoMethod;
      if (fr < 4 && st.kernelMilliseconds < ms[st.isoMethod]) ms[st.isoMethod] = st.kernelMilliseconds;
      double p = psnr_rgba(ref, img, px, NULL);
      worstIso = p < worstIso ? p : worstIso;
    }
    printf("isosurface AUTO at theta_y %d: methods %d %d %d %d %d %d (least: standard %.3f ms, warp marching %.3f ms)\n",
           a, used[0], used[1], used[2], used[3], used[4], used[5], ms[0], ms[1]);
    CHECK(used[0] != used[1] && used[2] == used[0] && used[3] == used[1]); /* each method twice, alternating */
    CHECK(used[4] == (ms[1] < ms[0] ? 1 : 0) && used[5] == used[4]);       /* then the cheaper kept */
  }
  printf("isosurface AUTO: worst PSNR vs CPU %.2f dB\n", worstIso);
  CHECK(worstIso >= 45.0);

  free(ref);
  release(&g);
  release(&c);
  cavrFreeVolumeFile(&f);
  cavrReleaseDevice(gpu);
  cavrReleaseDevice(cpu);
  remove(path);
  remove(p16);
  rmdir(dir);
  printf("gpu auto: ok\n");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * One GPU per rank, on a machine with two GPUs: a volume split into two pieces along z (each
 * with two ghost planes beyond the split and a render extent up to it, as ParaView's ranks hold it) renders piece 0
 * on GPU 0 and piece 1 on GPU 1, from two host threads at once; the two premultiplied images composited "over" in
 * visibility order (what IceT does) equal the whole volume rendered on one GPU (>= 45 dB, shaded). Also: the
 * devices report GPUs 0 and 1, and the frame time of the two pieces (wall, both GPUs busy) against the whole on one.
 * SKIP with fewer than two GPUs.
 */
#include <pthread.h>

#include "gpu_util.h"

enum { SIZE = 1024, FRAMES = 7 };

typedef struct Piece {
  Scene s;
  int z0, z1;       /* voxel planes held, inclusive */
  int extent[6];    /* render extent within them */
  double ms;        /* last render's wall time */
} Piece;

static void make_piece(Piece *p, CAVRDevice dev, const CAVRVolumeFile *f, const float *table, const TestVolume *tv) {
  p->s = gpu_slab_scene(dev, f, p->z0, p->z1, p->extent, table, 1024, tv->lo, tv->hi, SIZE);
}

static void *render_piece(void *arg) {
  Piece *p = (Piece *)arg;
  const double t0 = gpu_now_ms();
  CHECK_OK(p->s.dev, cavrRender(p->s.fb, p->s.vol, p->s.tf, p->s.cam, p->s.set, NULL));
  p->ms = gpu_now_ms() - t0;
  return NULL;
}

int main(void) {
  CAVRDevice g0 = gpu_device_or_skip();
  CAVRDevice g1 = cavrNewDeviceOnGpu(CAVR_BACKEND_CUDA, 1);
  if (!g1) {
    const char *m = "";
    cavrGetDeviceError(NULL, &m);
    printf("SKIP: needs two GPUs (%s)\n", m);
    cavrReleaseDevice(g0);
    return SKIP_CODE;
  }
  printf("devices: %s | %s\n", cavrGetDeviceName(g0), cavrGetDeviceName(g1));
  CHECK(cavrGetDeviceGpu(g0) == 0 && cavrGetDeviceGpu(g1) == 1);
  CHECK(strstr(cavrGetDeviceName(g1), "GPU 1 of"));
  const TestVolume *tv = &TEST_VOLUMES[2]; /* Colin27, 301 x 370 x 316 uint8 */
  CAVRVolumeFile f;
  float table[4 * 1024];
  load_test_volume(tv, &f, table, 1024);
  Scene whole = gpu_scene(g0, &f, table, 1024, tv->lo, tv->hi, SIZE);
  /* Points z 0..158 with ghost planes 159, 160 on GPU 0; ghost planes 155, 156 with 157..315 on GPU 1. */
  const int nz = f.dims[2], mid = 158, X = f.dims[0] - 1, Y = f.dims[1] - 1;
  Piece pieces[2] = {{.z0 = 0, .z1 = mid + 2, .extent = {0, X, 0, Y, 0, mid}},
                     {.z0 = mid - 3, .z1 = nz - 1, .extent = {0, X, 0, Y, 3, nz - 1 - (mid - 3)}}};
  make_piece(&pieces[0], g0, &f, table, tv);
  make_piece(&pieces[1], g1, &f, table, tv);
  const double bounds[6] = {0, X * f.spacing[0], 0, Y * f.spacing[1], 0, (nz - 1) * f.spacing[2]};
  const size_t n = (size_t)SIZE * SIZE;
  float *out = malloc(n * 16);
  CHECK(out);
  const double views[3][2] = {{-60, 25}, {20, 150}, {0, 90}};
  double worst = INFINITY;
  for (int v = 0; v < 3; ++v) {
    pieces_view(&whole, bounds, views[v][0], views[v][1]);
    for (int k = 0; k < 2; ++k) pieces_view(&pieces[k].s, bounds, views[v][0], views[v][1]);
    double one[FRAMES], two[FRAMES], piece[2][FRAMES];
    for (int fr = 0; fr < FRAMES; ++fr) {
      double t0 = gpu_now_ms();
      CHECK_OK(g0, cavrRender(whole.fb, whole.vol, whole.tf, whole.cam, whole.set, NULL));
      one[fr] = gpu_now_ms() - t0;
      pthread_t th[2];
      t0 = gpu_now_ms();
      for (int k = 0; k < 2; ++k) CHECK(pthread_create(&th[k], NULL, render_piece, &pieces[k]) == 0);
      for (int k = 0; k < 2; ++k) pthread_join(th[k], NULL);
      two[fr] = gpu_now_ms() - t0;
      piece[0][fr] = pieces[0].ms, piece[1][fr] = pieces[1].ms;
    }
    /* Visibility order from the camera's central ray: the piece on the camera's side of the split is in front. */
    double o[3], d[3];
    CHECK_OK(g0, cavrGetCameraRay(whole.cam, SIZE, SIZE, SIZE / 2, SIZE / 2, o, d));
    const float *lo = cavrGetFrameBufferData(pieces[0].s.fb, CAVR_FB_COLOR_RGBA32F);
    const float *hi = cavrGetFrameBufferData(pieces[1].s.fb, CAVR_FB_COLOR_RGBA32F);
    const float *nearI = d[2] < 0 ? hi : lo, *farI = d[2] < 0 ? lo : hi;
    for (size_t i = 0; i < n; ++i) {
      const float a = nearI[4 * i + 3];
      for (int c = 0; c < 4; ++c) out[4 * i + c] = nearI[4 * i + c] + (1.0f - a) * farI[4 * i + c];
    }
    double maxErr = 0.0;
    const double p = psnr_rgba(cavrGetFrameBufferData(whole.fb, CAVR_FB_COLOR_RGBA32F), out, n, &maxErr);
    worst = p < worst ? p : worst;
    const double m1 = gpu_median(one, FRAMES), m2 = gpu_median(two, FRAMES);
    printf("view (%g, %g), %dx%d: two GPUs composited vs one GPU %.2f dB (max %.2g); frame ms (median of %d): "
           "one GPU %.3f, two GPUs %.3f (pieces %.3f and %.3f), %.2fx\n",
           views[v][0], views[v][1], SIZE, SIZE, p, maxErr, FRAMES, m1, m2, gpu_median(piece[0], FRAMES),
           gpu_median(piece[1], FRAMES), m1 / m2);
  }
  printf("worst PSNR, two GPUs composited vs one: %.2f dB (threshold 45)\n", worst);
  CHECK(worst >= 45.0);
  free(out);
  for (int k = 0; k < 2; ++k) release(&pieces[k].s);
  release(&whole);
  cavrFreeVolumeFile(&f);
  cavrReleaseDevice(g1);
  cavrReleaseDevice(g0);
  return 0;
}

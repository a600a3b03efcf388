// SPDX-License-Identifier: BSD-3-Clause
/*
 * Shared voxels (cavrSetVolumeSharedData) on the CPU back end, real data (colin27 uint8, headsq uint16, inia19
 * float32):
 * - the image equals the copied volume's exactly (max error 0), and cavr holds no host copy (hostBytes 0; a copied
 *   volume holds voxelBytes);
 * - the caller's buffer is what renders: changed in place and staged again, the image follows; a copied volume
 *   then keeps showing its own copy;
 * - a type stored converted (int16) is copied (hostBytes 2 bytes a voxel) and renders as cavrSetVolumeData does;
 * - errors as cavrSetVolumeData's (size mismatch, NaN in float voxels, NULL), the staged voxels kept;
 * - a copied time step after a shared one: the caller may free its buffer (AddressSanitizer in CI would see cavr
 *   read it), and the shared step kept no spare buffer while copied steps of the same size keep one.
 */
#include "test_util.h"

static void render(Scene *s, float *out) {
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  memcpy(out, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), sizeof(float) * 4 * (size_t)s->w * s->h);
}

static double max_error(const float *a, const float *b, size_t pixels) {
  double m = 0.0;
  for (size_t i = 0; i < 4 * pixels; ++i) m = fmax(m, fabs((double)a[i] - b[i]));
  return m;
}

static double coverage(const float *img, size_t pixels) {
  size_t c = 0;
  for (size_t i = 0; i < pixels; ++i) c += img[4 * i + 3] > 0.05f;
  return (double)c / (double)pixels;
}

static uint64_t host_bytes(CAVRVolume vol) {
  CAVRVolumeCommitStats cs;
  CHECK_OK(cavrGetVolumeCommitStats(vol, &cs));
  return cs.hostBytes;
}

/* One volume: copied against shared, then the buffer changed in place. */
static void check_volume(const char *name, double lo, double hi) {
  Scene s = scene_new(96, 96);
  CAVRVolumeFile f;
  char path[512], msg[512];
  snprintf(path, sizeof path, "%s/%s.nhdr", CAVR_DATA_DIR, name);
  CHECK(cavrLoadNrrd(path, &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    t[4 * i] = 1.0f;
    t[4 * i + 1] = 0.5f + 0.5f * i / 255.0f;
    t[4 * i + 2] = 0.3f;
    t[4 * i + 3] = i < 60 ? 0.0f : 0.05f + 0.3f * (i - 60) / 195.0f;
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 256, lo, hi));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.3, 12));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  double b[6];
  const size_t n = (size_t)f.dims[0] * f.dims[1] * f.dims[2], px = (size_t)s.w * s.h;
  for (int a = 0; a < 3; ++a) b[2 * a] = 0.0, b[2 * a + 1] = (f.dims[a] - 1) * f.spacing[a];
  CHECK_OK(cavrSetCameraOrbit(s.cam, b, -60, 25, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetVolumeSpacing(s.vol, f.spacing));
  float *copied = malloc(px * 16), *shared = malloc(px * 16), *changed = malloc(px * 16);

  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK(host_bytes(s.vol) == f.bytes);
  render(&s, copied);
  CHECK(coverage(copied, px) > 0.1);

  /* The caller's own buffer, shared. */
  void *mine = malloc(f.bytes);
  memcpy(mine, f.data, f.bytes);
  CHECK_OK(cavrSetVolumeSharedData(s.vol, f.type, f.dims, mine, f.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK(host_bytes(s.vol) == 0);
  render(&s, shared);
  const double err = max_error(copied, shared, px);
  printf("%s: shared vs copied max error %g, host bytes %llu (copied: %zu)\n", name, err,
         (unsigned long long)host_bytes(s.vol), f.bytes);
  CHECK(err == 0.0);

  /* Changed in place (the upper half of the slices to the lowest value) and staged again: the image follows. */
  const size_t half = n / 2, es = f.bytes / n;
  memset((unsigned char *)mine + half * es, 0, (n - half) * es);
  CHECK_OK(cavrSetVolumeSharedData(s.vol, f.type, f.dims, mine, f.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  render(&s, changed);
  const double moved = max_error(copied, changed, px);
  printf("%s: half the slices zeroed in the shared buffer: max change %.3f, coverage %.2f -> %.2f\n", name, moved,
         coverage(copied, px), coverage(changed, px));
  CHECK(moved > 0.1 && coverage(changed, px) < coverage(copied, px));

  /* Copied again (same size): the shared buffer may go at once; the copy renders the original. No spare was kept
     by the shared steps; a second copied step of this size keeps the first's buffer (at most 1 GiB). */
  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  free(mine);
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK(host_bytes(s.vol) == f.bytes);
  render(&s, shared);
  CHECK(max_error(copied, shared, px) == 0.0);
  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK(host_bytes(s.vol) == 2 * (uint64_t)f.bytes);

  /* Errors: as cavrSetVolumeData's (the first one's message kept on the device); the committed volume stays. */
  if (f.type == CAVR_FLOAT32) {
    float *bad = malloc(f.bytes);
    memcpy(bad, f.data, f.bytes);
    bad[n / 3] = NAN;
    CHECK_ERR(cavrSetVolumeSharedData(s.vol, f.type, f.dims, bad, f.bytes), CAVR_ERROR_INVALID_DATA);
    const char *m = "";
    cavrGetDeviceError(s.dev, &m);
    CHECK(strstr(m, "NaN") != NULL);
    free(bad);
  }
  CHECK_ERR(cavrSetVolumeSharedData(s.vol, f.type, f.dims, f.data, f.bytes - 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetVolumeSharedData(s.vol, f.type, f.dims, NULL, f.bytes), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetVolumeSharedData(NULL, f.type, f.dims, f.data, f.bytes), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetVolumeSharedData(s.vol, (CAVRScalarType)99, f.dims, f.data, f.bytes), CAVR_ERROR_UNSUPPORTED);
  render(&s, shared);
  CHECK(max_error(copied, shared, px) == 0.0);

  /* A type stored converted: int16 is copied (2 bytes a voxel held), the same image as cavrSetVolumeData's. */
  if (f.type == CAVR_UINT16) {
    int16_t *signedVox = malloc(n * 2);
    const uint16_t *u = f.data;
    for (size_t i = 0; i < n; ++i) signedVox[i] = (int16_t)(u[i] / 2);
    CHECK_OK(cavrSetVolumeData(s.vol, CAVR_INT16, f.dims, signedVox, n * 2));
    CHECK_OK(cavrCommitVolume(s.vol));
    render(&s, copied);
    CHECK_OK(cavrSetVolumeSharedData(s.vol, CAVR_INT16, f.dims, signedVox, n * 2));
    free(signedVox); /* copied: the caller's buffer is not needed */
    CHECK_OK(cavrCommitVolume(s.vol));
    CHECK(host_bytes(s.vol) >= 2 * (uint64_t)n);
    render(&s, shared);
    CHECK(max_error(copied, shared, px) == 0.0);
    printf("%s as int16: copied by cavrSetVolumeSharedData, the same image\n", name);
  }
  free(copied);
  free(shared);
  free(changed);
  cavrFreeVolumeFile(&f);
  scene_free(&s);
}

int main(void) {
  check_volume("colin27_ch2better_301x370x316_uint8", 0.0, 255.0);
  check_volume("headsq_64x64x93_uint16", 0.0, 4000.0);
  check_volume("inia19_t1brain_168x206x128_float32", 0.0, 100.0);
  printf("PASS\n");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* Object model: reference counts, stage-then-commit, first-error-kept with callback, device checks. */
#include "test_util.h"

static int calls;
static CAVRError lastCode;
static void on_error(void *user, CAVRError code, const char *message) {
  (void)message;
  ++*(int *)user;
  lastCode = code;
}

int main(void) {
  /* Release(NULL) is a no-op; Retain(NULL) an error. */
  cavrReleaseDevice(NULL);
  cavrReleaseVolume(NULL);
  cavrReleaseTransferFunction(NULL);
  cavrReleaseCamera(NULL);
  cavrReleaseRenderSettings(NULL);
  cavrReleaseFrameBuffer(NULL);
  CHECK_ERR(cavrRetainVolume(NULL), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrNewVolume(NULL) == NULL);
  CHECK(cavrGetDeviceError(NULL, NULL) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(cavrGetErrorString(CAVR_ERROR_FILE_TRUNCATED), "CAVR_ERROR_FILE_TRUNCATED") == 0);
  CHECK(strcmp(cavrGetErrorString((CAVRError)12345), "CAVR_ERROR_UNKNOWN") == 0);
  CHECK(cavrGetVersion() == CAVR_VERSION);

  /* The CUDA back end: without a GPU (or until it is built) the device is refused with a reason. */
  CAVRDevice cuda = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!cuda) {
    const char *m;
    CAVRError e = cavrGetDeviceError(NULL, &m);
    printf("CUDA device refused: %s: %s\n", cavrGetErrorString(e), m);
    CHECK(e == CAVR_ERROR_UNSUPPORTED || e == CAVR_ERROR_NO_GPU);
    CHECK(strlen(m) > 10);
  } else {
    CHECK(cavrGetDeviceBackend(cuda) == CAVR_BACKEND_CUDA);
    cavrReleaseDevice(cuda);
  }
  CHECK(cavrNewDevice((CAVRBackend)9) == NULL);
  CHECK(cavrGetDeviceError(NULL, NULL) == CAVR_ERROR_INVALID_ARGUMENT);
  CAVRDevice autoDev = cavrNewDevice(CAVR_BACKEND_AUTO);
  CHECK(autoDev);
  printf("auto device: %s\n", cavrGetDeviceName(autoDev));

  Scene s = scene_new(8, 8);
  CHECK_OK(cavrSetDeviceErrorCallback(s.dev, on_error, &calls));
  /* Never committed objects are refused by name. */
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  CHECK(calls == 1 && lastCode == CAVR_ERROR_NOT_COMMITTED);
  CHECK_ERR(cavrCommitVolume(s.vol), CAVR_ERROR_NOT_COMMITTED); /* no data yet */
  /* The first error is kept until read; later ones still reach the callback. */
  const char *m;
  CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_NOT_COMMITTED);
  CHECK(strstr(m, "volume") && strstr(m, "never been committed"));
  CHECK(calls == 2);
  CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_NONE);

  int dims[3] = {4, 4, 4};
  unsigned char vox[64];
  for (int i = 0; i < 64; ++i) vox[i] = (unsigned char)(i * 4);
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, 64));
  double bounds[6];
  CHECK_ERR(cavrGetVolumeBounds(s.vol, bounds), CAVR_ERROR_NOT_COMMITTED); /* staged only */
  CHECK_OK(cavrCommitVolume(s.vol));
  tf_constant(s.tf, 1, 1, 1, 0.5f, 0, 255);
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  CHECK(bounds[1] == 3.0 && bounds[5] == 3.0);
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 10, 20, 30, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL)); /* settings are committed at creation */
  /* Staged but not committed changes are refused, for every object. */
  double sp[3] = {1, 1, 2};
  CHECK_OK(cavrSetVolumeSpacing(s.vol, sp));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  CHECK_OK(cavrCommitVolume(s.vol)); /* re-commit without new data keeps the voxels */
  CHECK_OK(cavrGetVolumeBounds(s.vol, bounds));
  CHECK(bounds[5] == 6.0);
  CHECK_OK(cavrSetRenderBlendMode(s.set, CAVR_BLEND_MAXIMUM_INTENSITY));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  CHECK_OK(cavrCommitRenderSettings(s.set));
  CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, 0, 0, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  cavrGetDeviceError(s.dev, NULL);

  /* Host planes: RGBA8 and depth by default; a mask outside CAVR_FB_HOST_ALL or a NULL handle is refused and
     leaves the mask alone; cavrSetFrameBufferHostCopy is all or nothing. */
  unsigned mask = 0;
  CHECK_OK(cavrGetFrameBufferHostChannels(s.fb, &mask));
  CHECK(mask == CAVR_FB_HOST_DEFAULT && mask == (CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH));
  CHECK(CAVR_FB_HOST_RGBA8 == 1u << CAVR_FB_COLOR_RGBA8 && CAVR_FB_HOST_RGBA32F == 1u << CAVR_FB_COLOR_RGBA32F &&
        CAVR_FB_HOST_DEPTH == 1u << CAVR_FB_DEPTH);
  CHECK_ERR(cavrSetFrameBufferHostChannels(NULL, CAVR_FB_HOST_RGBA8), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetFrameBufferHostChannels(s.fb, 0x8u), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_INVALID_ARGUMENT && strstr(m, "cavrSetFrameBufferHostChannels"));
  CHECK_ERR(cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_ALL | 0x100u), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrGetFrameBufferHostChannels(NULL, &mask), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrGetFrameBufferHostChannels(s.fb, NULL), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrGetFrameBufferHostChannels(s.fb, &mask));
  CHECK(mask == CAVR_FB_HOST_DEFAULT);
  CHECK_ERR(cavrSetFrameBufferHostCopy(NULL, 1), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetFrameBufferHostCopy(s.fb, 0));
  CHECK_OK(cavrGetFrameBufferHostChannels(s.fb, &mask));
  CHECK(mask == 0u);
  CHECK_OK(cavrSetFrameBufferHostCopy(s.fb, 1));
  CHECK_OK(cavrGetFrameBufferHostChannels(s.fb, &mask));
  CHECK(mask == CAVR_FB_HOST_ALL);
  cavrGetDeviceError(s.dev, NULL);
  /* The GPU-only calls answer UNSUPPORTED on the CPU back end (and record why), refuse bad
     arguments, and releasing GL registrations that were never made is a no-op. */
  {
    const unsigned none[3] = {0u, 0u, 0u}, depth[3] = {0u, 0u, 1u};
    CHECK_ERR(cavrCopyFrameBufferToGLTextures(NULL, depth), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrCopyFrameBufferToGLTextures(s.fb, NULL), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrCopyFrameBufferToGLTextures(s.fb, none), CAVR_ERROR_INVALID_ARGUMENT);
    cavrGetDeviceError(s.dev, NULL);
    CHECK_ERR(cavrCopyFrameBufferToGLTextures(s.fb, depth), CAVR_ERROR_UNSUPPORTED);
    CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_UNSUPPORTED && strstr(m, "cavrCopyFrameBufferToGLTextures"));
  }
  CHECK_OK(cavrReleaseFrameBufferGLTextures(s.fb));
  CHECK_ERR(cavrReleaseFrameBufferGLTextures(NULL), CAVR_ERROR_INVALID_ARGUMENT);
  {
    /* Shared planes: refused on the CPU back end with the descriptors set to -1; unsharing nothing is a no-op. */
    int fds[2] = {7, 7};
    unsigned long long bytes[2] = {1, 1};
    CHECK_ERR(cavrShareFrameBufferPlanes(NULL, fds, bytes), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrShareFrameBufferPlanes(s.fb, NULL, bytes), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrShareFrameBufferPlanes(s.fb, fds, NULL), CAVR_ERROR_INVALID_ARGUMENT);
    cavrGetDeviceError(s.dev, NULL);
    CHECK_ERR(cavrShareFrameBufferPlanes(s.fb, fds, bytes), CAVR_ERROR_UNSUPPORTED);
    CHECK(fds[0] == -1 && fds[1] == -1 && bytes[0] == 0 && bytes[1] == 0);
    CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_UNSUPPORTED && strstr(m, "cavrShareFrameBufferPlanes"));
    CHECK_OK(cavrUnshareFrameBufferPlanes(s.fb));
    CHECK_ERR(cavrUnshareFrameBufferPlanes(NULL), CAVR_ERROR_INVALID_ARGUMENT);
  }
  {
    size_t freeBytes = 1, totalBytes = 1;
    CHECK_ERR(cavrGetDeviceMemoryInfo(NULL, &freeBytes, &totalBytes), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrGetDeviceMemoryInfo(s.dev, NULL, &totalBytes), CAVR_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(cavrGetDeviceMemoryInfo(s.dev, &freeBytes, &totalBytes), CAVR_ERROR_UNSUPPORTED);
    CHECK(freeBytes == 0 && totalBytes == 0);
    cavrGetDeviceError(s.dev, NULL);
  }
  /* The CPU back end writes every plane whatever the mask (so the requested ones always): poison the planes,
     render with each mask, compare with the render that copied everything. */
  {
    const size_t n = 8 * 8;
    uint8_t ref8[8 * 8 * 4];
    float reff[8 * 8 * 4], refd[8 * 8];
    uint8_t *p8 = (uint8_t *)cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA8);
    float *pf = (float *)cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F);
    float *pd = (float *)cavrGetFrameBufferData(s.fb, CAVR_FB_DEPTH);
    CHECK(p8 && pf && pd);
    CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
    memcpy(ref8, p8, sizeof ref8);
    memcpy(reff, pf, sizeof reff);
    memcpy(refd, pd, sizeof refd);
    int covered = 0;
    for (size_t i = 0; i < n; ++i) covered += ref8[4 * i + 3] > 0 && refd[i] < 1.0f;
    CHECK(covered > 0); /* the comparison below is about a real image */
    const unsigned masks[5] = {CAVR_FB_HOST_RGBA8, CAVR_FB_HOST_RGBA32F, CAVR_FB_HOST_DEPTH, CAVR_FB_HOST_DEFAULT, 0u};
    for (int k = 0; k < 5; ++k) {
      CHECK_OK(cavrSetFrameBufferHostChannels(s.fb, masks[k]));
      memset(p8, 0x5a, sizeof ref8);
      memset(pf, 0x5a, sizeof reff);
      memset(pd, 0x5a, sizeof refd);
      CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
      CHECK(memcmp(p8, ref8, sizeof ref8) == 0 && memcmp(pf, reff, sizeof reff) == 0 && memcmp(pd, refd, sizeof refd) == 0);
    }
    CAVRRenderStats st;
    CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, &st));
    CHECK(st.backend == CAVR_BACKEND_CPU && st.transferMilliseconds == 0.0 && st.kernelMilliseconds == 0.0);
    CHECK_OK(cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_DEFAULT));
  }

  /* Bad settings values are refused and leave the staged value alone. */
  CHECK_ERR(cavrSetRenderSampleDistance(s.set, 0.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderSampleDistance(s.set, NAN), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderEarlyTermination(s.set, 1.5), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderOpacityCorrection(s.set, 1, -1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderBlendMode(s.set, (CAVRBlendMode)17), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderInterpolation(s.set, (CAVRInterpolation)3), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderShading(s.set, 1, -0.1, 1, 1, 1), CAVR_ERROR_INVALID_ARGUMENT);
  double badSpacing[3] = {1, 0, 1};
  CHECK_ERR(cavrSetVolumeSpacing(s.vol, badSpacing), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrNewFrameBuffer(s.dev, 0, 10) == NULL);
  CHECK(cavrNewFrameBuffer(s.dev, 20000, 10) == NULL);
  CHECK(cavrGetDeviceError(s.dev, NULL) == CAVR_ERROR_INVALID_ARGUMENT);

  /* Objects from another device are refused. */
  CAVRFrameBuffer other = cavrNewFrameBuffer(autoDev, 8, 8);
  CHECK(other);
  CHECK(cavrRender(other, s.vol, s.tf, s.cam, s.set, NULL) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrGetDeviceError(autoDev, &m) == CAVR_ERROR_INVALID_ARGUMENT && strstr(m, "another device"));

  /* Reference counting: a retained object outlives its creator's release; objects keep the device. */
  CHECK_OK(cavrRetainVolume(s.vol));
  CAVRVolume keep = s.vol;
  cavrReleaseFrameBuffer(other);
  cavrReleaseDevice(autoDev); /* nothing left on it */
  scene_free(&s);             /* drops the scene's volume reference and the device reference */
  CHECK_OK(cavrGetVolumeBounds(keep, bounds)); /* still alive, device too */
  cavrReleaseVolume(keep);    /* last references: volume, then device */
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * GPU out of memory: a volume that does not fit (forced with the CAVR_CUDA_VOLUME_LIMIT fault-injection
 * limit) still commits, the error callback says it falls back to the CPU, and the render comes from the
 * CPU back end with the same image as a CPU device. The same for a volume with an axis beyond the GPU's 3-D
 * texture limit (forced with CAVR_CUDA_MAX_TEXTURE3D), reported as CAVR_ERROR_UNSUPPORTED.
 */
#define _DEFAULT_SOURCE 1 /* setenv */
#include "gpu_util.h"

static int ooms, tooLarge;
static char lastMessage[600];
static void on_error(void *user, CAVRError code, const char *message) {
  (void)user;
  if (code == CAVR_ERROR_CUDA_OUT_OF_MEMORY || code == CAVR_ERROR_UNSUPPORTED) {
    ooms += code == CAVR_ERROR_CUDA_OUT_OF_MEMORY;
    tooLarge += code == CAVR_ERROR_UNSUPPORTED;
    snprintf(lastMessage, sizeof lastMessage, "%s", message);
  }
}

static const float *render(CAVRDevice dev, const CAVRVolumeFile *f, CAVRRenderStats *st, float *copy) {
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, 96, 96);
  float table[4 * 256];
  char msg[200];
  CHECK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(dev, cavrSetVolumeData(vol, f->type, f->dims, f->data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(vol)); /* succeeds even when the GPU cannot hold it */
  CHECK_OK(dev, cavrSetTransferFunctionTable(tf, table, 256, 0, 4000));
  CHECK_OK(dev, cavrCommitTransferFunction(tf));
  double b[6];
  CHECK_OK(dev, cavrGetVolumeBounds(vol, b));
  CHECK_OK(dev, cavrSetCameraOrbit(cam, b, -90, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  CHECK_OK(dev, cavrCommitCamera(cam));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(fb, CAVR_FB_HOST_RGBA32F)); /* the plane copied out below */
  CHECK_OK(dev, cavrRender(fb, vol, tf, cam, set, st));
  memcpy(copy, cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA32F), 96 * 96 * 16);
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
  return copy;
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRVolumeFile f;
  load_volume("headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5, &f);
  static float a[96 * 96 * 4], c[96 * 96 * 4];
  CAVRRenderStats st;
  CHECK_OK(gpu, cavrSetDeviceErrorCallback(gpu, on_error, NULL));
  render(gpu, &f, &st, a);
  CHECK(st.backend == CAVR_BACKEND_CUDA && ooms == 0); /* fits: on the GPU */
  /* the 64 x 64 x 93 x 2-byte volume (761,856 bytes) does not fit under 500,000 bytes */
  CHECK_OK(gpu, cavrSetDeviceParam(gpu, "CAVR_CUDA_VOLUME_LIMIT", "500000"));
  render(gpu, &f, &st, a);
  CHECK_OK(gpu, cavrSetDeviceParam(gpu, "CAVR_CUDA_VOLUME_LIMIT", NULL));
  printf("fallback: backend %s, %d message(s): %s\n", st.backend == CAVR_BACKEND_CPU ? "CPU" : "CUDA", ooms, lastMessage);
  CHECK(st.backend == CAVR_BACKEND_CPU && ooms == 1 && strstr(lastMessage, "renders on the CPU"));
  CHECK(cavrGetDeviceError(gpu, NULL) == CAVR_ERROR_NONE); /* a fallback is not an error */
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  render(cpu, &f, &st, c);
  CHECK(memcmp(a, c, sizeof a) == 0); /* the same CPU renderer */
  CHECK_OK(gpu, cavrSetDeviceParam(gpu, "CAVR_CUDA_MAX_TEXTURE3D", "64")); /* z = 93 exceeds a 64-voxel limit */
  render(gpu, &f, &st, a);
  CHECK_OK(gpu, cavrSetDeviceParam(gpu, "CAVR_CUDA_MAX_TEXTURE3D", NULL));
  printf("too large: backend %s, %d message(s): %s\n", st.backend == CAVR_BACKEND_CPU ? "CPU" : "CUDA", tooLarge,
         lastMessage);
  CHECK(st.backend == CAVR_BACKEND_CPU && tooLarge == 1 && strstr(lastMessage, "texture") &&
        strstr(lastMessage, "renders on the CPU"));
  CHECK(cavrGetDeviceError(gpu, NULL) == CAVR_ERROR_NONE);
  CHECK(memcmp(a, c, sizeof a) == 0);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  cavrFreeVolumeFile(&f);
  return 0;
}

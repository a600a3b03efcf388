// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_render - the whole path a user's file takes: load (NRRD, attached data) -> set volume data -> commit ->
 * a small CPU render with options taken from the input. Input: 16 option bytes, then the NRRD file.
 * Option bytes: blend mode, shading and its coefficients, interpolation, sample distance, early-termination
 * threshold, orbit angles, projection, image size (4-19 pixels a side), transfer-function preset and range,
 * compressive sample fraction, thread count, a sub-extent, a crop box. Every call either succeeds or returns an error;
 * a rendered image is finite and in [0,1].
 */
#include <math.h>

#include "fuzz_util.h"
#include "cavr/cavr.h"
#include "cavr/cavr_io.h"

static CAVRDevice dev;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 16) return 0;
  const uint8_t *o = data;
  CAVRVolumeFile f;
  char msg[512];
  if (cavrLoadNrrd(fuzz_write("r.nrrd", data + 16, size - 16), &f, msg, sizeof msg) != CAVR_ERROR_NONE) return 0;
  if (!dev) dev = cavrNewDevice(CAVR_BACKEND_CPU);
  if (!dev) abort();
  int w = 4 + o[12] % 16, h = 4 + (o[12] >> 4);
  CAVRVolume vol = cavrNewVolume(dev);
  CAVRTransferFunction tf = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, w, h);
  if (!vol || !tf || !cam || !set || !fb) abort();
  cavrSetDeviceThreadCount(dev, 1 + o[15] % 3);
  int ok = cavrSetVolumeData(vol, f.type, f.dims, f.data, f.bytes) == CAVR_ERROR_NONE;
  cavrSetVolumeSpacing(vol, f.spacing); /* may be refused (zero, huge): the error is the point */
  cavrSetVolumeOrigin(vol, f.origin);
  if (o[14] & 1) {
    int ext[6] = {o[14] >> 1 & 3, f.dims[0] - 1 - (o[14] >> 3 & 3), 0, f.dims[1] - 1, o[14] >> 5 & 1, f.dims[2] - 1};
    cavrSetVolumeRenderExtent(vol, ext);
  }
  ok = ok && cavrCommitVolume(vol) == CAVR_ERROR_NONE;
  double range[2] = {0.0, 1.0};
  ok = ok && cavrGetVolumeRange(vol, range) == CAVR_ERROR_NONE;
  static const char *presets[] = {"ramp", "ct-skin", "ct-bone", "mri"};
  float table[4 * 256];
  if (cavrTransferFunctionPreset(presets[o[10] % 4], table, 256, msg, sizeof msg)) abort();
  double lo = range[0], hi = range[1];
  if (o[10] & 0x80) { /* a narrower or inverted-width window, possibly outside the data */
    lo = range[0] + (range[1] - range[0]) * (o[11] % 16) / 8.0 - (range[1] - range[0]);
    hi = lo + (range[1] - range[0]) * (1 + (o[11] >> 4)) / 16.0;
  }
  cavrSetTransferFunctionTable(tf, table, 256, lo, hi);
  ok = ok && cavrCommitTransferFunction(tf) == CAVR_ERROR_NONE;
  double b[6];
  ok = ok && cavrGetVolumeBounds(vol, b) == CAVR_ERROR_NONE;
  if (ok && cavrSetCameraOrbit(cam, b, o[6] * 360.0 / 256, o[7] * 360.0 / 256, o[8] * 360.0 / 256,
                               o[9] & 1 ? CAVR_PROJECTION_PERSPECTIVE : CAVR_PROJECTION_ORTHOGRAPHIC,
                               (double)w / h) == CAVR_ERROR_NONE)
    ok = cavrCommitCamera(cam) == CAVR_ERROR_NONE;
  else
    ok = 0;
  cavrSetRenderBlendMode(set, (CAVRBlendMode)(o[0] % 7)); /* 6 is out of range; 5 (slice): the default plane */
  cavrSetRenderShading(set, o[1] & 1, (o[1] >> 1 & 7) / 7.0, (o[1] >> 4 & 7) / 7.0, o[2] / 255.0, 1.0 + o[3]);
  cavrSetRenderInterpolation(set, o[4] & 1 ? CAVR_INTERPOLATION_TRILINEAR : CAVR_INTERPOLATION_NEAREST);
  cavrSetRenderSampleDistance(set, 0.25 + (o[4] >> 1) / 32.0);
  cavrSetRenderEarlyTermination(set, o[5] / 255.0);
  cavrSetRenderOpacityCorrection(set, o[5] & 1, 0.5 + o[9] / 64.0);
  cavrSetRenderEmptySpaceSkipping(set, o[9] >> 7);
  if (ok && (o[14] & 0xc0)) { /* a crop box: quarters of the bounds from o[15], or (bit 7 alone) one beside the volume */
    double box[6];
    for (int a = 0; a < 3; ++a) {
      double w = b[2 * a + 1] - b[2 * a];
      box[2 * a] = b[2 * a] + w * (o[15] >> (2 * a) & 1) / 4.0;
      box[2 * a + 1] = b[2 * a + 1] - w * (o[15] >> (2 * a + 1) & 1) / 4.0;
    }
    if ((o[14] & 0xc0) == 0x80) box[0] = box[1] = b[1] + 1.0, box[1] += 1.0;
    cavrSetRenderCropBox(set, box);
  }
  if (o[13] & 1) cavrSetRenderCompressive(set, (o[13] >> 1) / 127.0, o[13] & 0x80 ? CAVR_RECONSTRUCTION_LOCAL
                                                                                : CAVR_RECONSTRUCTION_GLOBAL, o[13] >> 6 & 1);
  ok = ok && cavrCommitRenderSettings(set) == CAVR_ERROR_NONE;
  if (ok && cavrRender(fb, vol, tf, cam, set, NULL) == CAVR_ERROR_NONE) {
    const float *px = cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA32F);
    if (!px) abort();
    for (int i = 0; i < 4 * w * h; ++i)
      if (!(px[i] >= 0.0f && px[i] <= 1.0f)) abort();
  }
  cavrGetDeviceError(dev, NULL); /* clear the first-error slot for the next input */
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(tf);
  cavrReleaseVolume(vol);
  cavrFreeVolumeFile(&f);
  return 0;
}

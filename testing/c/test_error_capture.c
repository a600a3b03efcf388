// SPDX-License-Identifier: BSD-3-Clause
/*
 * Errors of the library's own work (the AUTO calibration's renders, super-sampling's larger frame) stay with the
 * caller: while a thread captures a device's errors (cavr_capture_errors, objects.h) they reach neither the user's
 * error callback nor the device's first-error slot, and an error the user has not read yet survives them.
 */
#include <stdio.h>
#include <string.h>

#include "cavr/cavr.h"
#include "objects.h"
#include "../common/check.h"

typedef struct Calls {
  int count;
  CAVRError last;
} Calls;

static void on_error(void *user, CAVRError code, const char *message) {
  Calls *c = (Calls *)user;
  ++c->count;
  c->last = code;
  (void)message;
}

int main(void) {
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU), other = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(dev && other);
  Calls calls = {0, CAVR_ERROR_NONE}, otherCalls = {0, CAVR_ERROR_NONE};
  CHECK(cavrSetDeviceErrorCallback(dev, on_error, &calls) == CAVR_ERROR_NONE);
  CHECK(cavrSetDeviceErrorCallback(other, on_error, &otherCalls) == CAVR_ERROR_NONE);

  /* A user's error, not read yet. */
  CAVRRenderSettings s = cavrNewRenderSettings(dev);
  CHECK(s && cavrSetRenderSampleDistance(s, 1000.0) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(calls.count == 1 && calls.last == CAVR_ERROR_INVALID_ARGUMENT);

  /* Internal work: its errors and notes are captured, the first kept, the code returned; another device's are not. */
  CAVRErrorCapture cap;
  cavr_capture_errors(dev, &cap);
  CHECK(cavr_set_error(dev, CAVR_ERROR_CUDA_OUT_OF_MEMORY, "internal %d", 1) == CAVR_ERROR_CUDA_OUT_OF_MEMORY);
  CHECK(cavr_set_error(dev, CAVR_ERROR_CUDA, "internal %d", 2) == CAVR_ERROR_CUDA);
  cavr_note(dev, CAVR_ERROR_NONE, "a note");
  CHECK(cavr_set_error(other, CAVR_ERROR_IO, "other device") == CAVR_ERROR_IO);
  {
    CAVRErrorCapture inner; /* nested: the inner capture takes its own */
    cavr_capture_errors(dev, &inner);
    cavr_set_error(dev, CAVR_ERROR_INVALID_DATA, "inner");
    cavr_capture_end(&inner);
    CHECK(inner.error == CAVR_ERROR_INVALID_DATA && !strcmp(inner.message, "inner"));
  }
  cavr_capture_end(&cap);
  CHECK(cap.error == CAVR_ERROR_CUDA_OUT_OF_MEMORY && !strcmp(cap.message, "internal 1"));
  CHECK(calls.count == 1);                                       /* nothing reached the user's callback */
  CHECK(otherCalls.count == 1 && otherCalls.last == CAVR_ERROR_IO); /* the other device's did */
  const char *m = NULL;
  CHECK(cavrGetDeviceError(dev, &m) == CAVR_ERROR_INVALID_ARGUMENT && strstr(m, "cavrSetRenderSampleDistance"));
  CHECK(cavrGetDeviceError(other, &m) == CAVR_ERROR_IO);

  /* After the capture: errors and notes reach the user again. */
  cavr_note(dev, CAVR_ERROR_NONE, "a note");
  CHECK(calls.count == 2 && calls.last == CAVR_ERROR_NONE && cavrGetDeviceError(dev, NULL) == CAVR_ERROR_NONE);
  cavr_set_error(dev, CAVR_ERROR_CUDA, "after");
  CHECK(calls.count == 3 && cavrGetDeviceError(dev, NULL) == CAVR_ERROR_CUDA);

  /* The library's own frame buffer (super-sampling's larger frame) is made without raising anything. */
  CAVRFrameBuffer fb = cavr_frame_buffer_new(dev, 64, 48);
  CHECK(fb && fb->width == 64 && fb->height == 48 && calls.count == 3);
  cavrReleaseFrameBuffer(fb);
  CHECK(cavrNewFrameBuffer(NULL, 4, 4) == NULL && cavrGetDeviceError(NULL, NULL) == CAVR_ERROR_INVALID_ARGUMENT);

  cavrReleaseRenderSettings(s);
  cavrReleaseDevice(other);
  cavrReleaseDevice(dev);
  printf("error capture: ok\n");
  return 0;
}

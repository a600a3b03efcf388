// SPDX-License-Identifier: BSD-3-Clause
/*
 * Device parameters (core/src/env.c): a device takes the environment once, when it is made, and
 * cavrSetDeviceParam replaces one parameter on one device; names that are not parameters, the GPU choice (made at
 * creation) and values too long are refused with CAVR_ERROR_INVALID_ARGUMENT and a message; rendering goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "env.h"
#include "gpu_tune.h"
#include "objects.h"
#include "../common/check.h"

int main(void) {
  /* The snapshot: taken when the device is made, not changed by the environment afterwards. */
  setenv("CAVR_TUNE_DIR", "/first", 1);
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(dev);
  setenv("CAVR_TUNE_DIR", "/second", 1);
  char path[2048];
  CHECK(cavr_tune_path(path, sizeof path, &dev->env, "G", 0) == 0 && !strncmp(path, "/first/", 7));
  CAVRDevice dev2 = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(dev2 && cavr_tune_path(path, sizeof path, &dev2->env, "G", 0) == 0 && !strncmp(path, "/second/", 8));
  unsetenv("CAVR_TUNE_DIR");

  /* cavrSetDeviceParam: one device's parameter, set and unset. */
  CHECK(cavrSetDeviceParam(dev, "CAVR_TUNE_DIR", "/third") == CAVR_ERROR_NONE);
  CHECK(cavr_tune_path(path, sizeof path, &dev->env, "G", 0) == 0 && !strncmp(path, "/third/", 7));
  CHECK(cavr_tune_path(path, sizeof path, &dev2->env, "G", 0) == 0 && !strncmp(path, "/second/", 8));
  CHECK(cavrSetDeviceParam(dev, "CAVR_RAYCAST_BLOCK", "16x8") == CAVR_ERROR_NONE && !strcmp(dev->env.raycastBlock, "16x8"));
  CHECK(cavrSetDeviceParam(dev, "CAVR_RAYCAST_BLOCK", NULL) == CAVR_ERROR_NONE && dev->env.raycastBlock[0] == '\0');

  /* Refused: not a parameter, the GPU choice, too long a value, NULL arguments; the message names the name. */
  const char *msg = NULL;
  CHECK(cavrSetDeviceParam(dev, "CAVR_NO_SUCH_THING", "1") == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrGetDeviceError(dev, &msg) == CAVR_ERROR_INVALID_ARGUMENT && strstr(msg, "CAVR_NO_SUCH_THING"));
  CHECK(cavrSetDeviceParam(dev, "CAVR_GPU", "0") == CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(dev, NULL);
  char longValue[64];
  memset(longValue, '7', sizeof longValue - 1);
  longValue[sizeof longValue - 1] = '\0';
  CHECK(cavrSetDeviceParam(dev, "CAVR_CUDA_VOLUME_LIMIT", longValue) == CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(dev, NULL);
  CHECK(cavrSetDeviceParam(dev, NULL, "1") == CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(dev, NULL);
  CHECK(cavrSetDeviceParam(NULL, "CAVR_TUNE", "0") == CAVR_ERROR_INVALID_ARGUMENT);

  /* The CPU packets' width (process-wide) through the parameter: 0 = the scalar caster, the same image. */
  CHECK(cavrSetDeviceParam(dev, "CAVR_CPU_PACKET_LANES", "0") == CAVR_ERROR_NONE);
  CHECK(cavrSetDeviceParam(dev, "CAVR_CPU_PACKET_LANES", NULL) == CAVR_ERROR_NONE);

  cavrReleaseDevice(dev2);
  cavrReleaseDevice(dev);
  printf("PASS\n");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* Compile-only check: the public headers are strict C11 (built with -std=c11 -pedantic -Werror). */
#include "cavr/cavr.h"
#include "cavr/cavr_io.h"

int main(void) {
  /* Handles are distinct types: this must not compile if uncommented. */
  /* CAVRVolume v = (CAVRCamera)0; */
  CAVRVolume v = (CAVRVolume)0;
  cavrReleaseVolume(v);
  return cavrGetVersion() == CAVR_VERSION ? 0 : 1;
}

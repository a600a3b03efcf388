// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_tf - the transfer-function text parser (cavrLoadTransferFunctionFile), also built under
 * MemorySanitizer (it calls libc only). A loaded table is finite, in [0,1], and its range is ordered.
 */
#include <math.h>

#include "fuzz_util.h"
#include "cavr/cavr_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("t.tf", data, size);
  static const double dataRange[2] = {-100.0, 4000.0};
  float table[4 * 256];
  double range[2];
  char msg[512];
  for (int withRange = 0; withRange < 2; ++withRange) {
    CAVRError e = cavrLoadTransferFunctionFile(path, withRange ? dataRange : NULL, table, 256, range, msg, sizeof msg);
    if (e != CAVR_ERROR_NONE) {
      if (!strstr(msg, path)) abort();
      continue;
    }
    for (int i = 0; i < 4 * 256; ++i)
      if (!(table[i] >= 0.0f && table[i] <= 1.0f)) abort();
    if (!(isfinite(range[0]) && isfinite(range[1]) && range[0] < range[1])) abort();
  }
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_raw - cavrLoadRaw: the first 4 bytes choose the scalar type and the dimensions (2 to 17 voxels per
 * axis, or an out-of-range value), the rest is the file. Loads succeed exactly when the file has the size.
 */
#include "fuzz_util.h"
#include "cavr/cavr_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  static const CAVRScalarType types[] = {CAVR_UINT8, CAVR_INT8, CAVR_UINT16, CAVR_INT16,
                                         CAVR_UINT32, CAVR_INT32, CAVR_FLOAT32, CAVR_FLOAT64};
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 4, 8};
  int t = data[0] % 9; /* 8: an invalid type */
  CAVRScalarType type = t < 8 ? types[t] : (CAVRScalarType)99;
  int dims[3];
  for (int a = 0; a < 3; ++a) dims[a] = data[1 + a] == 255 ? 0 : data[1 + a] == 254 ? 1 << 20 : 2 + data[1 + a] % 16;
  double spacing[3] = {1.0, 0.5, 2.0};
  const char *path = fuzz_write("v.raw", data + 4, size - 4);
  CAVRVolumeFile f;
  char msg[512];
  CAVRError e = cavrLoadRaw(path, type, dims, data[0] & 0x80 ? spacing : NULL, &f, msg, sizeof msg);
  int fits = t < 8 && dims[0] >= 2 && dims[0] <= 17 && dims[1] >= 2 && dims[1] <= 17 && dims[2] >= 2 && dims[2] <= 17;
  size_t want = fits ? (size_t)dims[0] * dims[1] * dims[2] * sizes[t] : 0;
  if ((e == CAVR_ERROR_NONE) != (fits && size - 4 == want)) abort();
  if (e == CAVR_ERROR_NONE && (f.bytes != want || memcmp(f.data, data + 4, want))) abort(); /* little-endian host */
  if (e != CAVR_ERROR_NONE && f.data) abort();
  cavrFreeVolumeFile(&f);
  return 0;
}

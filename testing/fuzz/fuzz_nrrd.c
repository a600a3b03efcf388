// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_nrrd - cavrLoadNrrd on a NRRD file with attached data and on a detached header with data files.
 * Input: HEADER [ "\n@@d0\n" DATA0 [ "\n@@d1\n" DATA1 ] ]. The first part is written as a.nrrd and as
 * h.nhdr; DATA0 and DATA1 as the data files d0 and d1 (and d0 also as d0.gz, d0.bz2 names for corpora
 * that name them), so a header may say "data file: d0", "LIST" of d0 and d1, or "d%d 0 1 1".
 * Every load either succeeds with the voxels the header declares or fails with a message naming the file.
 */
#include "fuzz_util.h"
#include "cavr/cavr_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *d0, *d1;
  size_t n0, n1;
  size_t nh = fuzz_split(data, size, "\n@@d0\n", &d0, &n0);
  if (d0) n0 = fuzz_split(d0, n0, "\n@@d1\n", &d1, &n1);
  else d1 = NULL, n1 = 0;
  fuzz_write("d0", d0, d0 ? n0 : 0);
  fuzz_write("d1", d1, d1 ? n1 : 0);
  const char *paths[2] = {fuzz_write("a.nrrd", data, d0 ? nh : size), fuzz_write("h.nhdr", data, nh)};
  for (int i = 0; i < 2; ++i) {
    CAVRVolumeFile f;
    char msg[512];
    msg[0] = '\0';
    CAVRError e = cavrLoadNrrd(paths[i], &f, msg, sizeof msg);
    if (getenv("CAVR_FUZZ_VERBOSE")) fprintf(stderr, "%s: %s %s\n", paths[i], cavrGetErrorString(e), msg);
    if (e == CAVR_ERROR_NONE) {
      size_t vs = f.type == CAVR_FLOAT64 ? 8 : (f.type == CAVR_UINT8 || f.type == CAVR_INT8) ? 1
                : (f.type == CAVR_UINT16 || f.type == CAVR_INT16) ? 2 : 4;
      if (!f.data || f.bytes != (size_t)f.dims[0] * f.dims[1] * f.dims[2] * vs) abort();
      volatile uint8_t sum = 0; /* touch every byte: ASan checks the allocation's size */
      for (size_t b = 0; b < f.bytes; ++b) sum ^= ((const uint8_t *)f.data)[b];
      (void)sum;
    } else if (f.data || !strstr(msg, paths[i])) {
      abort();
    }
    cavrFreeVolumeFile(&f);
  }
  return 0;
}

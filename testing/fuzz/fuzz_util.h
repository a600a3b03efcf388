// SPDX-License-Identifier: BSD-3-Clause
/* fuzz_util.h - what the libFuzzer harnesses share: the loaders take paths, so each input is written to files
   in a private folder (one per process) first. */
#ifndef CAVR_FUZZ_UTIL_H
#define CAVR_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[256];

/* The private folder (created on first use, under $TMPDIR or /tmp) and a path inside it. */
static inline const char *fuzz_path(const char *name) {
  static char path[8][512];
  static int slot;
  if (!fuzz_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/cavr-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir)) abort();
  }
  char *p = path[slot++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", fuzz_dir, name);
  return p;
}

static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size) {
  const char *p = fuzz_path(name);
  FILE *f = fopen(p, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return p;
}

/* The part of data before the first occurrence of sep (all of it when absent); *rest points after sep. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **rest, size_t *restSize) {
  size_t n = strlen(sep);
  for (size_t i = 0; i + n <= size; ++i)
    if (!memcmp(data + i, sep, n)) {
      *rest = data + i + n;
      *restSize = size - i - n;
      return i;
    }
  *rest = NULL;
  *restSize = 0;
  return size;
}

#endif

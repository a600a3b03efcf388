// SPDX-License-Identifier: BSD-3-Clause
/* Diagnostic, not built: an LD_PRELOAD library that counts malloc/calloc/realloc calls of >= 256 KiB per call stack
   (6 frames) and prints them at exit, to find who makes the large heap blocks behind a soak's RSS swings (glibc raises
   its mmap threshold when a large mapped block is freed; later blocks up to that size then come from the heap).
   gcc -shared -fPIC -O1 -o /tmp/bigalloc.so testing/lab/probes/bigalloc_probe.c -ldl
   LD_PRELOAD=/tmp/bigalloc.so build-vtk/testing/vtk/cavr-vtk-mapper-check soak 2000 2>&1 | grep bigalloc
   Used for testing/bench/results/vtk_mapper_soak_bigalloc_probe_2026-11-25_h100.txt (issue 14 item 5). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
#define BIG (256u << 10)
static __thread int busy;
static volatile int lock;
typedef struct { void *f[6]; size_t count, bytes, maxb; } Rec;
static Rec recs[512];
static int nrec;
static void note(size_t n) {
  if (busy) return;
  busy = 1;
  void *bt[8];
  int k = backtrace(bt, 8);
  void *key[6] = {0};
  for (int i = 2; i < k && i < 8; ++i) key[i - 2] = bt[i];
  while (__sync_lock_test_and_set(&lock, 1)) {}
  int j = 0;
  for (; j < nrec; ++j) if (!memcmp(recs[j].f, key, sizeof key)) break;
  if (j == nrec && nrec < 512) { memcpy(recs[nrec].f, key, sizeof key); ++nrec; }
  if (j < 512) { recs[j].count++; recs[j].bytes += n; if (n > recs[j].maxb) recs[j].maxb = n; }
  __sync_lock_release(&lock);
  busy = 0;
}
void *malloc(size_t n) { void *p = __libc_malloc(n); if (n >= BIG) note(n); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); if (a * b >= BIG) note(a * b); return p; }
void *realloc(void *q, size_t n) { void *p = __libc_realloc(q, n); if (n >= BIG) note(n); return p; }
__attribute__((constructor)) static void init(void) { void *b[2]; busy = 1; backtrace(b, 2); busy = 0; }
__attribute__((destructor)) static void dump(void) {
  busy = 1;
  for (int j = 0; j < nrec; ++j) {
    fprintf(stderr, "bigalloc count %zu total %.1f MiB max %.2f MiB:", recs[j].count, recs[j].bytes / 1048576.0, recs[j].maxb / 1048576.0);
    for (int i = 0; i < 6 && recs[j].f[i]; ++i) {
      Dl_info d; 
      if (dladdr(recs[j].f[i], &d) && d.dli_fname) {
        const char *b = strrchr(d.dli_fname, '/');
        fprintf(stderr, " %s:%s+%#lx", b ? b + 1 : d.dli_fname, d.dli_sname ? d.dli_sname : "?", (unsigned long)((char *)recs[j].f[i] - (char *)(d.dli_sname ? d.dli_saddr : d.dli_fbase)));
      } else fprintf(stderr, " %p", recs[j].f[i]);
    }
    fprintf(stderr, "\n");
  }
}

// SPDX-License-Identifier: BSD-3-Clause
/* Large host buffers from the kernel's page allocator (host_memory.h says why). */
#define _DEFAULT_SOURCE
#include "host_memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__unix__)
#include <sys/mman.h>
#endif

/* Under AddressSanitizer the buffers come from the allocator it watches (page-aligned, zeroed), so that a read or
   write past a voxel copy or a plane is still reported: mapped pages have no red zones. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAVR_HOST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CAVR_HOST_ASAN 1
#endif
#if defined(__unix__) && defined(MAP_ANONYMOUS) && !defined(CAVR_HOST_ASAN)
#define CAVR_HOST_MMAP 1
#endif

static size_t page_round(size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  size_t align = page > 0 ? (size_t)page : 4096;
  return (bytes + align - 1) / align * align;
}

void *cavr_host_alloc(size_t bytes) {
  if (bytes == 0) return NULL;
  const size_t size = page_round(bytes);
  if (size < bytes) return NULL; /* overflow */
#ifdef CAVR_HOST_MMAP
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p; /* zero pages */
#else
  long page = sysconf(_SC_PAGESIZE);
  void *p = NULL;
  if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, size) != 0) return NULL;
  memset(p, 0, size);
  return p;
#endif
}

void cavr_host_free(void *p, size_t bytes) {
  if (!p) return;
#ifdef CAVR_HOST_MMAP
  munmap(p, page_round(bytes));
#else
  (void)bytes;
  free(p);
#endif
}

// SPDX-License-Identifier: BSD-3-Clause
/* Large host buffers: voxel copies, frame-buffer planes, opaque depth. */
#ifndef CAVR_HOST_MEMORY_H
#define CAVR_HOST_MEMORY_H

#include <stddef.h>

/* A zeroed buffer of `bytes` on whole pages of its own (page-aligned: the CUDA back end page-locks frame-buffer planes
   with cudaHostRegister, and two planes sharing a page could not both be registered), mapped from the kernel rather
   than taken from malloc. Released with cavr_host_free and the same byte count, it goes back to the system at once.
   Why not malloc: glibc raises its mmap threshold to the size of any mapped block that is freed (up to 32 MiB), after
   which blocks of that size come from the heap and stay there as free memory when released; a program that resizes its
   window or changes its volume then grows and shrinks by tens of MB between frames (the mapper's soak,
   docs/history/benchmarks-2026-11.md). Under AddressSanitizer they come from the allocator instead (red zones). NULL
   when out of memory; bytes 0 gives NULL. */
void *cavr_host_alloc(size_t bytes);

/* Give back a buffer of cavr_host_alloc; `bytes` as allocated. NULL is ignored. */
void cavr_host_free(void *p, size_t bytes);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_packet.c - which packet caster casts a composite frame: 16 rays per packet (AVX-512F,
 * cpu_packet_avx512.c) or 8 (AVX2 and FMA, cpu_packet_avx2.c), or none (the scalar caster of cpu_backend.c); the
 * same image bit for bit at every width. Chosen per frame from __builtin_cpu_supports under a cap: 8 by default,
 * because on the one AVX-512 CPU measured (Intel Xeon, model 207, 16 cores; docs/history/benchmarks-2026-11.md,
 * 2026-11-25) 16 lanes were no faster unshaded and 7-30% slower shaded; 16 where CAVR_CPU_PACKET_LANES=16 in the
 * environment (taken from the first device made with it set: cavr_cpu_packet_width_default) or after
 * cavr_cpu_packet_width(16) (tests).
 */
#include "cpu_raycast.h"

#include <stdlib.h>

/* The widest packet allowed (lanes); -1: not set yet (the default applies). */
#define CAVR_CPU_PACKET_DEFAULT_LANES 8
static atomic_int maxLanes = -1;

void cavr_cpu_packet_width(int lanes) { atomic_store(&maxLanes, lanes < 0 ? 0 : lanes); }

void cavr_cpu_packet_width_default(const char *lanes) {
  if (!lanes || !*lanes) return;
  const int want = atoi(lanes);
  int expected = -1;
  atomic_compare_exchange_strong(&maxLanes, &expected, want < 0 ? 0 : want);
}

int cavr_cpu_packet_lanes(void) {
  int cap = atomic_load(&maxLanes);
  if (cap < 0) cap = CAVR_CPU_PACKET_DEFAULT_LANES;
  if (cap >= 16 && cavr_cpu_packet_has16()) return 16;
  if (cap >= 8 && cavr_cpu_packet_has8()) return 8;
  return 0;
}

CavrPacketWorker cavr_cpu_packet_caster(const Prep *p) {
  if (p->f.blend != CAVR_BLEND_COMPOSITE || p->f.interpolation == CAVR_INTERPOLATION_CUBIC || p->f.components > 1)
    return NULL; /* the scalar caster (dependent components: its colour fetch, cavr_sample_color) */
  if (p->f.scatter.on) return NULL; /* scattering's secondary rays: the scalar caster (not vectorised yet) */
  /* Gathers take 32-bit indices (of voxels): the volume must have fewer than 2^31 - 8 voxels. */
  const double n = (double)p->sz * p->dims[2]; /* voxels in memory, padding included */
  if (!(n < 2147483640.0 && p->f.count >= 2 && p->f.count < (1 << 28))) return NULL;
  switch (cavr_cpu_packet_lanes()) {
  case 16: return cavr_cpu_packet_worker16;
  case 8: return cavr_cpu_packet_worker8;
  default: return NULL;
  }
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * gpu_select.c - which CUDA device a cavr device renders on: the caller's index, else $CAVR_GPU,
 * else the process's local MPI rank modulo the visible GPUs (one GPU per rank on a multi-GPU node), else 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "env.h"

/* A non-negative decimal integer, the whole string; -1 otherwise. */
static long parse_index(const char *s) {
  if (!s || *s < '0' || *s > '9') return -1;
  char *end = NULL;
  errno = 0;
  const long v = strtol(s, &end, 10);
  return errno || *end || v < 0 || v > 1000000 ? -1 : v;
}

int cavr_choose_gpu(int requested, int count, const CAVREnv *env, char *why, size_t whySize) {
  if (count <= 0) {
    snprintf(why, whySize, "no CUDA device is visible");
    return -1;
  }
  if (requested >= 0) {
    if (requested < count) {
      snprintf(why, whySize, "GPU %d as requested", requested);
      return requested;
    }
    snprintf(why, whySize, "GPU %d was requested but %d %s visible (0 .. %d)", requested, count,
             count == 1 ? "is" : "are", count - 1);
    return -1;
  }
  if (env->gpu[0]) {
    const long v = parse_index(env->gpu);
    if (v < 0 || v >= count) {
      snprintf(why, whySize, "CAVR_GPU='%.40s' is not a GPU index below %d", env->gpu, count);
      return -1;
    }
    snprintf(why, whySize, "GPU %ld from CAVR_GPU", v);
    return (int)v;
  }
  /* The launchers' local-rank variables: Open MPI, MVAPICH2, MPICH/Intel MPI (Hydra), Slurm, PMI. */
  for (int k = 0; k < CAVR_ENV_LOCAL_RANKS; ++k) {
    const long r = parse_index(env->localRank[k]);
    if (r >= 0) {
      snprintf(why, whySize, "GPU %ld: local rank %ld (%s) modulo %d visible", r % count, r,
               cavr_env_local_rank_names[k], count);
      return (int)(r % count);
    }
  }
  snprintf(why, whySize, "GPU 0 (no CAVR_GPU, no MPI local rank)");
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * env.h - every environment variable cavr reads, read in one place (env.c), once per device when it is made
 * (cavrNewDeviceOnGpu), into the device's CAVREnv. Nothing else in core/ or kernels/ reads the environment, and
 * nothing reads it per frame. The variables, their values and what they are for: docs/user-guide.md, "Environment
 * variables".
 */
#ifndef CAVR_ENV_H
#define CAVR_ENV_H

/** The launchers' local-rank variables, in the order they are tried: Open MPI, MVAPICH2, MPICH/Intel MPI (Hydra),
    Slurm, PMI. */
#define CAVR_ENV_LOCAL_RANKS 5
extern const char *const cavr_env_local_rank_names[CAVR_ENV_LOCAL_RANKS];

/** A snapshot of the environment (each value as set, "" when unset; longer values are cut to the field). */
typedef struct CAVREnv {
  char gpu[64];                                  /* CAVR_GPU: GPU index (gpu_select.c) */
  char localRank[CAVR_ENV_LOCAL_RANKS][32];      /* the launchers' local ranks, cavr_env_local_rank_names order */
  char tuneDir[1024], xdgCacheHome[1024], home[1024]; /* CAVR_TUNE_DIR, XDG_CACHE_HOME, HOME (gpu_tune.c) */
  char tune[16];                                 /* CAVR_TUNE: "0" or "off" = never measure AUTO's table */
  char cudaVolumeLimit[32];                      /* CAVR_CUDA_VOLUME_LIMIT: bytes (fault injection for tests) */
  char pinHost[8];                               /* CAVR_PIN_HOST: "0" = never page-lock host planes (a control) */
  char cpuPacketLanes[16];                       /* CAVR_CPU_PACKET_LANES: 0, 8 or 16 lanes at most */
  char raycastBlock[32];                         /* CAVR_RAYCAST_BLOCK: WxH[t] launch override (benchmarks) */
  char raycastRegcap[8];                         /* CAVR_RAYCAST_REGCAP: "0" = the uncapped kernels (benchmarks) */
  char uploadChunkMiB[16];                       /* CAVR_UPLOAD_CHUNK_MIB: staging chunk, 1-256 MiB */
  char uploadThreads[16];                        /* CAVR_UPLOAD_THREADS: host threads of an upload, 1-16 */
  char maxTexture3D[16];                         /* CAVR_CUDA_MAX_TEXTURE3D: lower 3-D texture limit (tests) */
  char autoTrace[8];                             /* CAVR_AUTO_TRACE: "1" = AUTO's plan and record, a line a frame
                                                    on stderr (cuda_backend.c; for sweeps) */
} CAVREnv;

/** Fill *env from the process environment. */
void cavr_env_read(CAVREnv *env);

/** Set the field of variable `name` to `value` (NULL: ""). Returns 0; -1 for a name that is not settable after a
    device is made (not in the list, or CAVR_GPU and the local ranks) or a value longer than its field. */
int cavr_env_set(CAVREnv *env, const char *name, const char *value);

#endif

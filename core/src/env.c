// SPDX-License-Identifier: BSD-3-Clause
/*
 * env.c - the one place that reads the environment (env.h).
 */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cavr_env_local_rank_names[CAVR_ENV_LOCAL_RANKS] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"};

#include <stddef.h>

/* The variables a device's parameters may replace (cavrSetDeviceParam), with their fields. */
static const struct {
  const char *name;
  size_t offset, size;
} settable[] = {
#define FIELD(n, f) {n, offsetof(CAVREnv, f), sizeof(((CAVREnv *)0)->f)}
    FIELD("CAVR_TUNE_DIR", tuneDir),          FIELD("CAVR_TUNE", tune),
    FIELD("CAVR_CUDA_VOLUME_LIMIT", cudaVolumeLimit), FIELD("CAVR_PIN_HOST", pinHost),
    FIELD("CAVR_CPU_PACKET_LANES", cpuPacketLanes), FIELD("CAVR_RAYCAST_BLOCK", raycastBlock),
    FIELD("CAVR_RAYCAST_REGCAP", raycastRegcap), FIELD("CAVR_UPLOAD_CHUNK_MIB", uploadChunkMiB),
    FIELD("CAVR_UPLOAD_THREADS", uploadThreads), FIELD("CAVR_CUDA_MAX_TEXTURE3D", maxTexture3D),
    FIELD("CAVR_AUTO_TRACE", autoTrace),
#undef FIELD
};

int cavr_env_set(CAVREnv *env, const char *name, const char *value) {
  if (!value) value = "";
  for (size_t k = 0; k < sizeof settable / sizeof settable[0]; ++k) {
    if (strcmp(name, settable[k].name)) continue;
    if (strlen(value) >= settable[k].size) return -1;
    memcpy((char *)env + settable[k].offset, value, strlen(value) + 1);
    return 0;
  }
  return -1;
}

static void copy(char *dst, size_t size, const char *name) {
  const char *v = getenv(name);
  snprintf(dst, size, "%s", v ? v : "");
}

void cavr_env_read(CAVREnv *env) {
  memset(env, 0, sizeof *env);
  copy(env->gpu, sizeof env->gpu, "CAVR_GPU");
  for (int k = 0; k < CAVR_ENV_LOCAL_RANKS; ++k)
    copy(env->localRank[k], sizeof env->localRank[k], cavr_env_local_rank_names[k]);
  copy(env->tuneDir, sizeof env->tuneDir, "CAVR_TUNE_DIR");
  copy(env->xdgCacheHome, sizeof env->xdgCacheHome, "XDG_CACHE_HOME");
  copy(env->home, sizeof env->home, "HOME");
  copy(env->tune, sizeof env->tune, "CAVR_TUNE");
  copy(env->cudaVolumeLimit, sizeof env->cudaVolumeLimit, "CAVR_CUDA_VOLUME_LIMIT");
  copy(env->pinHost, sizeof env->pinHost, "CAVR_PIN_HOST");
  copy(env->cpuPacketLanes, sizeof env->cpuPacketLanes, "CAVR_CPU_PACKET_LANES");
  copy(env->raycastBlock, sizeof env->raycastBlock, "CAVR_RAYCAST_BLOCK");
  copy(env->raycastRegcap, sizeof env->raycastRegcap, "CAVR_RAYCAST_REGCAP");
  copy(env->uploadChunkMiB, sizeof env->uploadChunkMiB, "CAVR_UPLOAD_CHUNK_MIB");
  copy(env->uploadThreads, sizeof env->uploadThreads, "CAVR_UPLOAD_THREADS");
  copy(env->maxTexture3D, sizeof env->maxTexture3D, "CAVR_CUDA_MAX_TEXTURE3D");
  copy(env->autoTrace, sizeof env->autoTrace, "CAVR_AUTO_TRACE");
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * Which GPU a device renders on (one GPU per MPI rank), on the CPU: an explicit index, $CAVR_GPU,
 * the MPI launchers' local-rank variables modulo the visible GPUs, and the refusals (an index or $CAVR_GPU that
 * names no visible GPU, no GPU at all), each with its reason; then the public calls on this machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "backend.h"
#include "env.h"
#include "../common/check.h"

static const char *RANKS[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                              "SLURM_LOCALID", "PMI_LOCAL_RANK"};

/* cavr_choose_gpu with the environment as a device made now would see it. */
static int choose(int requested, int count, char *why, size_t whySize) {
  CAVREnv env;
  cavr_env_read(&env);
  return cavr_choose_gpu(requested, count, &env, why, whySize);
}

static void clear_env(void) {
  unsetenv("CAVR_GPU");
  for (size_t k = 0; k < sizeof RANKS / sizeof RANKS[0]; ++k) unsetenv(RANKS[k]);
}

int main(void) {
  char why[256];
  clear_env();
  /* Nothing set: GPU 0; none visible: refused. */
  CHECK(choose(-1, 4, why, sizeof why) == 0 && strstr(why, "no MPI local rank"));
  CHECK(choose(-1, 0, why, sizeof why) == -1 && strstr(why, "no CUDA device"));
  /* An explicit index wins over everything, and must exist. */
  setenv("CAVR_GPU", "3", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  CHECK(choose(1, 2, why, sizeof why) == 1);
  CHECK(choose(2, 2, why, sizeof why) == -1 && strstr(why, "2 are visible"));
  /* $CAVR_GPU wins over the rank; out of range or not a number: refused, not wrapped. */
  CHECK(choose(-1, 4, why, sizeof why) == 3 && strstr(why, "CAVR_GPU"));
  CHECK(choose(-1, 2, why, sizeof why) == -1 && strstr(why, "CAVR_GPU='3'"));
  const char *badValues[] = {"x", "-1", "1x", " 1", "99999999999999999999"};
  for (size_t k = 0; k < sizeof badValues / sizeof badValues[0]; ++k) {
    setenv("CAVR_GPU", badValues[k], 1);
    CHECK(choose(-1, 8, why, sizeof why) == -1);
    printf("CAVR_GPU='%s': %s\n", badValues[k], why);
  }
  unsetenv("CAVR_GPU");
  /* Each launcher's local rank, modulo the visible GPUs; the first variable in the list decides. */
  for (size_t k = 0; k < sizeof RANKS / sizeof RANKS[0]; ++k) {
    clear_env();
    setenv(RANKS[k], "5", 1);
    CHECK(choose(-1, 2, why, sizeof why) == 1 && strstr(why, RANKS[k]));
    CHECK(choose(-1, 8, why, sizeof why) == 5);
  }
  clear_env();
  setenv("SLURM_LOCALID", "1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  CHECK(choose(-1, 4, why, sizeof why) == 2 && strstr(why, "OMPI"));
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "junk", 1); /* unusable: the next variable decides */
  CHECK(choose(-1, 4, why, sizeof why) == 1 && strstr(why, "SLURM_LOCALID"));
  clear_env();

  /* The public calls: the CPU back end ignores the index; CUDA with an index that names no GPU is refused with a
     message (or, where no GPU or no CUDA, refused for that reason). */
  CAVRDevice cpu = cavrNewDeviceOnGpu(CAVR_BACKEND_CPU, 3);
  CHECK(cpu && cavrGetDeviceGpu(cpu) == -1);
  cavrReleaseDevice(cpu);
  CHECK(cavrGetDeviceGpu(NULL) == -1);
  CAVRDevice bad = cavrNewDeviceOnGpu(CAVR_BACKEND_CUDA, 4096);
  CHECK(bad == NULL);
  const char *m = NULL;
  const CAVRError e = cavrGetDeviceError(NULL, &m);
  printf("CUDA on GPU 4096: %s (%s)\n", cavrGetErrorString(e), m);
  CHECK(e == CAVR_ERROR_INVALID_ARGUMENT || e == CAVR_ERROR_NO_GPU || e == CAVR_ERROR_UNSUPPORTED);
  CHECK(m && m[0]);
  /* AUTO with an unusable $CAVR_GPU still gives a device (the CPU when no GPU is usable), never NULL. */
  setenv("CAVR_GPU", "4096", 1);
  CAVRDevice any = cavrNewDevice(CAVR_BACKEND_AUTO);
  CHECK(any);
  printf("AUTO with CAVR_GPU=4096: %s\n", cavrGetDeviceName(any));
  CHECK(cavrGetDeviceGpu(any) == -1 && strstr(cavrGetDeviceName(any), "CPU"));
  cavrReleaseDevice(any);
  unsetenv("CAVR_GPU");
  printf("test_gpu_select: ok\n");
  return 0;
}

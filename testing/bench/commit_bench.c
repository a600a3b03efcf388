// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-commit-bench - how fast cavrCommitVolume puts a volume on the GPU (issue 11, item 5).
 *
 *   cavr-commit-bench [--out DIR] [--sizes 512,1024,2048] [--steps 3] [--ct]
 *
 * Synthetic uint8 volumes of N^3 (sizes that do not fit in host or device memory are skipped, with the reason):
 * the first commit on a fresh device (page-locked staging buffers made then), a new volume on the warm device,
 * and re-commits of new time steps of the same size (the same GPU allocation; median of --steps), copied
 * (cavrSetVolumeData: "set ms" is the host copy) and shared (cavrSetVolumeSharedData: no copy). Each row: the
 * commit's wall time, its upload and macro-cell parts (cavrGetVolumeCommitStats), GB/s of the upload and of the
 * whole commit, and the upload against the page-locked host-to-device bandwidth measured in the same run (the
 * ceiling: cudaMemcpy from cudaHostAlloc memory, 256 MiB, best of 5; pageable too). --ct adds the 512 x 512 x
 * 2000 CT shape (the cube it needed before: 2048^3) with its device memory, and the CPU back end's commit of
 * the 512^3 volume (macro cells on host threads). Prints a table; writes DIR/commit_bench.csv.
 */
#define _DEFAULT_SOURCE 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cavr/cavr.h"

#define BENCH_NAME "cavr-commit-bench"
#include "bench_util.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Page-locked (and pageable) host-to-device bandwidth, GB/s: best of 5 copies of `bytes`. */
static double h2d(size_t bytes, int pinned) {
  void *host = NULL, *dev = NULL;
  if (pinned ? cudaHostAlloc(&host, bytes, cudaHostAllocDefault) != cudaSuccess : !(host = malloc(bytes)))
    DIE("no host buffer for the bandwidth ceiling");
  if (cudaMalloc(&dev, bytes) != cudaSuccess) DIE("no device buffer for the bandwidth ceiling");
  memset(host, 1, bytes);
  double best = 1e30;
  for (int i = 0; i < 6; ++i) {
    double t = now_ms();
    if (cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) DIE("cudaMemcpy failed");
    t = now_ms() - t;
    if (i > 0 && t < best) best = t;
  }
  cudaFree(dev);
  if (pinned) cudaFreeHost(host);
  else free(host);
  return bytes / (best * 1e6);
}

typedef struct Fill {
  uint8_t *dst;
  size_t i0, i1;
  unsigned seed;
} Fill;
static void *fill_part(void *arg) {
  Fill *f = (Fill *)arg;
  for (size_t i = f->i0; i < f->i1; ++i) f->dst[i] = (uint8_t)(((i + f->seed) * 2654435761u) >> 24);
  return NULL;
}
/* A synthetic volume on every core (its contents only need to differ between time steps). */
static uint8_t *synthetic(size_t n, unsigned seed) {
  uint8_t *v = (uint8_t *)malloc(n);
  if (!v) return NULL;
  enum { T = 16 };
  pthread_t th[T];
  Fill parts[T];
  for (int t = 0; t < T; ++t) {
    parts[t] = (Fill){v, n * t / T, n * (t + 1) / T, seed};
    pthread_create(&th[t], NULL, fill_part, &parts[t]);
  }
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  return v;
}

typedef struct Row {
  char shape[40], what[40];
  double setMs, commitMs, uploadMs, cellMs, uploadGBps, commitGBps, deviceRatio;
  int reused;
} Row;

static FILE *csv;
static double pinnedGBps;
static void print_row(const Row *r) {
  printf("%-16s %-22s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7.1f%% %8.4f %6d\n", r->shape, r->what, r->setMs, r->commitMs,
         r->uploadMs, r->cellMs, r->uploadGBps, r->commitGBps, 100.0 * r->uploadGBps / pinnedGBps, r->deviceRatio,
         r->reused);
  fprintf(csv, "%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.5f,%d\n", r->shape, r->what, r->setMs, r->commitMs,
          r->uploadMs, r->cellMs, r->uploadGBps, r->commitGBps, pinnedGBps, r->uploadGBps / pinnedGBps, r->deviceRatio,
          r->reused);
  fflush(stdout);
  fflush(csv);
}

/* Set (copied, or shared: cavrSetVolumeSharedData) and commit `data` into vol; one row. */
static Row commit(CAVRDevice dev, CAVRVolume vol, const int d[3], const uint8_t *data, const char *shape, const char *what,
                  int shared) {
  size_t n = (size_t)d[0] * d[1] * d[2];
  Row r;
  memset(&r, 0, sizeof r);
  snprintf(r.shape, sizeof r.shape, "%s", shape);
  snprintf(r.what, sizeof r.what, "%s", what);
  double t = now_ms();
  OK(dev, (shared ? cavrSetVolumeSharedData : cavrSetVolumeData)(vol, CAVR_UINT8, d, data, n));
  r.setMs = now_ms() - t;
  OK(dev, cavrCommitVolume(vol));
  CAVRVolumeCommitStats cs;
  OK(dev, cavrGetVolumeCommitStats(vol, &cs));
  r.commitMs = cs.milliseconds;
  r.uploadMs = cs.uploadMilliseconds;
  r.cellMs = cs.cellMilliseconds;
  r.uploadGBps = cs.uploadGBps;
  r.commitGBps = (double)cs.voxelBytes / (cs.milliseconds * 1e6);
  r.deviceRatio = (double)cs.deviceBytes / (double)cs.voxelBytes;
  r.reused = cs.reusedAllocation;
  return r;
}

/* `steps` time steps of the same size (alternately a and b) into vol; the median set, commit and upload times. */
static Row time_steps(CAVRDevice dev, CAVRVolume vol, const int d[3], const uint8_t *a, const uint8_t *b,
                      const char *shape, int steps, int shared) {
  double *set = (double *)malloc(sizeof(double) * steps), *ms = (double *)malloc(sizeof(double) * steps),
         *up = (double *)malloc(sizeof(double) * steps);
  Row r, med;
  for (int i = 0; i < steps; ++i) {
    r = commit(dev, vol, d, i % 2 ? a : b, shape, "time step", shared);
    set[i] = r.setMs;
    ms[i] = r.commitMs;
    up[i] = r.uploadMs;
    if (i == 0) med = r;
  }
  qsort(set, (size_t)steps, sizeof(double), bench_cmp_double);
  qsort(ms, (size_t)steps, sizeof(double), bench_cmp_double);
  qsort(up, (size_t)steps, sizeof(double), bench_cmp_double);
  const double n = (double)d[0] * d[1] * d[2];
  snprintf(med.what, sizeof med.what, "time step%s (median %d)", shared ? ", shared" : "", steps);
  med.setMs = set[steps / 2];
  med.commitMs = ms[steps / 2];
  med.uploadMs = up[steps / 2];
  med.uploadGBps = n / (med.uploadMs * 1e6);
  med.commitGBps = n / (med.commitMs * 1e6);
  free(set);
  free(ms);
  free(up);
  return med;
}

int main(int argc, char **argv) {
  const char *out = ".";
  int sizes[8] = {512, 1024, 2048}, nsizes = 3, steps = 3, ct = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ct")) ct = 1;
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      nsizes = 0;
      for (char *p = strtok(argv[++i], ","); p && nsizes < 8; p = strtok(NULL, ",")) sizes[nsizes++] = atoi(p);
    } else DIE("usage: cavr-commit-bench [--out DIR] [--sizes 512,1024,2048] [--steps 3] [--ct]");
  }
  if (steps < 1) steps = 1;
  char path[1024];
  snprintf(path, sizeof path, "%s/commit_bench.csv", out);
  csv = fopen(path, "w");
  if (!csv) DIE("cannot write %s", path);
  fprintf(csv, "shape,case,set_ms,commit_ms,upload_ms,cells_ms,upload_gbps,commit_gbps,pinned_h2d_gbps,"
               "upload_fraction_of_pinned,device_bytes_per_voxel_byte,reused\n");
  CAVRDevice probe = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!probe) {
    const char *m;
    cavrGetDeviceError(NULL, &m);
    DIE("no CUDA device: %s", m);
  }
  printf("device: %s\n", cavrGetDeviceName(probe));
  pinnedGBps = h2d((size_t)256 << 20, 1);
  double pageable = h2d((size_t)256 << 20, 0);
  printf("ceiling: host-to-device %.1f GB/s from page-locked memory (cudaHostAlloc), %.1f GB/s from pageable\n",
         pinnedGBps, pageable);
  cavrReleaseDevice(probe);
  printf("\n%-16s %-22s %9s %9s %9s %9s %9s %9s %8s %8s %6s\n", "volume", "commit", "set ms", "commit ms", "upload",
         "cells ms", "upl GB/s", "all GB/s", "of pin", "dev/vox", "reused");
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  double hostBytes = (double)pages * pageSize;
  for (int s = 0; s < nsizes + ct; ++s) {
    int d[3];
    char shape[40];
    if (s < nsizes) d[0] = d[1] = d[2] = sizes[s];
    else {
      d[0] = d[1] = 512;
      d[2] = 2000;
    }
    snprintf(shape, sizeof shape, "%dx%dx%d", d[0], d[1], d[2]);
    size_t n = (size_t)d[0] * d[1] * d[2];
    size_t freeB = 0, totalB = 0;
    cudaMemGetInfo(&freeB, &totalB);
    /* Host: two time steps of ours, the staged and the committed copy inside cavr. Device: the array, twice (a new
       volume on the warm device while the first still exists). */
    if (4.2 * n > hostBytes || 2.1 * n > (double)freeB) {
      printf("%-16s skipped: needs %.1f GiB of host memory (have %.1f) and %.1f GiB on the GPU (free %.1f)\n", shape,
             4.2 * n / 1073741824.0, hostBytes / 1073741824.0, 2.1 * n / 1073741824.0, freeB / 1073741824.0);
      fprintf(csv, "%s,skipped,,,,,,,%.4f,,,\n", shape, pinnedGBps);
      continue;
    }
    uint8_t *a = synthetic(n, 1u), *b = synthetic(n, 7u);
    if (!a || !b) DIE("out of host memory for %s", shape);
    CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CUDA); /* fresh: no staging buffers yet */
    if (!dev) DIE("cavrNewDevice failed");
    CAVRVolume vol = cavrNewVolume(dev);
    Row r = commit(dev, vol, d, a, shape, "first (fresh device)", 0);
    print_row(&r);
    for (int shared = 0; shared < 2; ++shared) {
      Row med = time_steps(dev, vol, d, a, b, shape, steps, shared);
      print_row(&med);
    }
    CAVRVolume vol2 = cavrNewVolume(dev);
    r = commit(dev, vol2, d, a, shape, "new volume (warm)", 0);
    print_row(&r);
    cavrReleaseVolume(vol2);
    cavrReleaseVolume(vol);
    cavrReleaseDevice(dev);
    if (s == 0 || s == nsizes) { /* the CPU back end: macro cells and range on host threads, no upload */
      CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
      CAVRVolume cv = cavrNewVolume(cpu);
      r = commit(cpu, cv, d, a, shape, "cpu back end", 0);
      print_row(&r);
      cavrReleaseVolume(cv);
      cavrReleaseDevice(cpu);
    }
    free(a);
    free(b);
  }
  printf("\nupl GB/s: the upload (cudaMemcpy3DAsync through page-locked staging) over its wall time; all GB/s: the voxels\n"
         "over the whole commit (upload, macro cells, range); of pin: upload against the page-locked ceiling above;\n"
         "dev/vox: bytes of the CUDA array per byte of voxels (1: no padding).\n");
  fclose(csv);
  return 0;
}

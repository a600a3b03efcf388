// SPDX-License-Identifier: BSD-3-Clause
/*
 * Volumes on the GPU, exit 77 (SKIP) without a GPU:
 * - kernels: the staged, multi-threaded upload puts every voxel where it belongs (slabs of z-slices, bands of
 *   rows when a slice is larger than a chunk, the one-chunk pageable path; other thread counts and chunk sizes);
 *   the array has the volume's own extent; a padded cube is zero outside the voxels; the GPU's macro-cell
 *   min/max and range equal the host's (core/src/macrocell.c) exactly, for uint8, uint16 and float volumes;
 * - device memory of a 512 x 512 x 2000 uint8 volume (the CT that took a 2048^3 cube before) is at most 1.05x its
 *   voxels (cudaMemGetInfo, plus the macro-cell buffer);
 * - through the API, on the three real non-cubic volumes: the CUDA array's dims equal the volume's and the image
 *   equals the CPU back end's (PSNR >= 45 dB, as test_gpu_render: 8-bit texture weights); a second time step of
 *   the same size (different voxels) goes into the same allocation (reusedAllocation, deviceAllocations stay) and
 *   the image follows the new data (equal to the CPU's for the new voxels, different from the first step's); that
 *   step is shared (cavrSetVolumeSharedData): uploaded from the caller's buffer, no host copy (hostBytes 0);
 *   in-place rotation forced (SHAPED + rotation, side view) moves the volume into a padded cube once and still
 *   equals the CPU; a time step committed while rotated turns back and reuses the cube;
 * - a cube that does not fit (CAVR_CUDA_VOLUME_LIMIT between the volume and its cube) renders unrotated with a
 *   note through the error callback, and equals the CPU.
 */
#define _DEFAULT_SOURCE 1 /* setenv */
#include "gpu_util.h"
#ifdef CAVR_NO_KERNELS
int main(void) {
  printf("SKIP: cavr was built without CUDA\n");
  return SKIP_CODE;
}
#else
#include <cuda_runtime_api.h>

#include "../../kernels/cavr_kernels.h"
#include "backend.h" /* cavr_compute_macrocells: the host reference */

static size_t es_of(int storage) { return storage == 0 ? 1 : storage == 1 ? 2 : 4; }

/* Upload through the kernels' API, download, compare; then the GPU macro cells against the host's. */
static void check_upload(CAVRGpuContext *ctx, const void *data, int storage, const int d[3], const char *what) {
  char msg[400];
  const size_t es = es_of(storage), n = (size_t)d[0] * d[1] * d[2];
  CAVRGpuVolume *v = NULL;
  CHECK(cavr_cuda_volume_create(ctx, NULL, storage, d, 0, &v, msg, sizeof msg) == 0);
  int ext[3];
  int cube = cavr_cuda_volume_extent(v, ext);
  CHECK(ext[0] == d[0] && ext[1] == d[1] && ext[2] == d[2]);
  CHECK(cube == ((d[0] == d[1] && d[1] == d[2]) ? d[0] : 0));
  CHECK(cavr_cuda_volume_bytes(v) == n * es);
  float ms = 0;
  CHECK(cavr_cuda_volume_upload(ctx, v, data, &ms, msg, sizeof msg) == 0);
  unsigned char *got = malloc(n * es);
  memset(got, 0xA5, n * es);
  CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
  CHECK(memcmp(got, data, n * es) == 0);
  /* Macro cells: GPU == host, cell by cell (== on floats), and the range. */
  CAVRVoxels vox;
  memset(&vox, 0, sizeof vox);
  vox.data = (void *)data;
  memcpy(vox.dims, d, sizeof vox.dims);
  vox.storage = (CAVRStorage)storage;
  CAVRMacroGridDesc grid;
  cavr_macrocell_grid(d, &grid);
  size_t cells = (size_t)grid.cells[0] * grid.cells[1] * grid.cells[2];
  float *gpu = malloc(cells * 8), *host = malloc(cells * 8), range[2];
  double hostRange[2];
  float cellMs = 0;
  CHECK(cavr_cuda_volume_macrocells(ctx, v, grid.cells, gpu, range, &cellMs, msg, sizeof msg) == 0);
  CHECK(cavr_compute_macrocells(&vox, &grid, 4, host, hostRange) == CAVR_ERROR_NONE);
  size_t diff = 0;
  for (size_t c = 0; c < 2 * cells; ++c) diff += !(gpu[c] == host[c]);
  printf("%-40s %5d x %5d x %5d storage %d: upload %.2f ms (%.1f GB/s), download identical; macro cells %.3f ms, "
         "%zu of %zu differ from the host; range %g..%g\n", what, d[0], d[1], d[2], storage, ms, n * es / (ms * 1e6),
         cellMs, diff, 2 * cells, range[0], range[1]);
  CHECK(diff == 0 && range[0] == hostRange[0] && range[1] == hostRange[1]);
  free(gpu);
  free(host);
  free(got);
  cavr_cuda_volume_destroy(v);
}

static void kernel_checks(const CAVRVolumeFile *files, int count) {
  char msg[400];
  CAVRGpuContext *ctx = NULL;
  CHECK(cavr_cuda_context_create(&ctx, msg, sizeof msg) == 0);
  for (int i = 0; i < count; ++i) {
    int storage = files[i].type == CAVR_UINT8 ? 0 : files[i].type == CAVR_UINT16 ? 1 : 2;
    check_upload(ctx, files[i].data, storage, files[i].dims, "real volume");
  }
  /* Slabs of z-slices (16 slices of 256 KiB per 4 MiB chunk, partial last chunk). */
  int slab[3] = {512, 512, 203};
  size_t n = (size_t)slab[0] * slab[1] * slab[2];
  uint8_t *u8 = malloc(n);
  for (size_t i = 0; i < n; ++i) u8[i] = (uint8_t)((i * 2654435761u) >> 24);
  check_upload(ctx, u8, 0, slab, "slabs");
  /* Bands of rows: a float slice of 4100 x 600 is 9.8 MB > 4 MiB (3 bands per slice, the last partial). */
  int band[3] = {4100, 600, 3};
  n = (size_t)band[0] * band[1] * band[2];
  float *f = malloc(n * 4);
  for (size_t i = 0; i < n; ++i) f[i] = (float)((i * 2654435761u) >> 16) * 0.01f - 300.0f;
  check_upload(ctx, f, 2, band, "bands");
  /* Other thread counts and chunk sizes (new staging buffers), uint16. */
  CAVRGpuConfig config = {0};
  config.uploadThreads = 3;
  config.uploadChunkBytes = (size_t)1 << 20;
  cavr_cuda_context_configure(ctx, &config);
  int odd[3] = {333, 257, 71};
  n = (size_t)odd[0] * odd[1] * odd[2];
  uint16_t *u16 = malloc(n * 2);
  for (size_t i = 0; i < n; ++i) u16[i] = (uint16_t)((i * 2654435761u) >> 16);
  check_upload(ctx, u16, 1, odd, "3 threads, 1 MiB chunks");
  memset(&config, 0, sizeof config);
  cavr_cuda_context_configure(ctx, &config);
  check_upload(ctx, u16, 1, odd, "default threads and chunks again");
  /* A padded cube: voxels in the corner, zeros elsewhere. */
  CAVRGpuVolume *v = NULL;
  int small[3] = {70, 40, 20};
  CHECK(cavr_cuda_volume_create(ctx, u16, 1, small, 0, &v, msg, sizeof msg) == 0);
  float ms = 0;
  CHECK(cavr_cuda_volume_pad_to_cube(ctx, v, 128, &ms, msg, sizeof msg) == 0);
  int ext[3];
  CHECK(cavr_cuda_volume_extent(v, ext) == 128 && ext[0] == 128 && ext[1] == 128 && ext[2] == 128);
  uint16_t *cube = malloc((size_t)128 * 128 * 128 * 2);
  CHECK(cavr_cuda_volume_download(ctx, v, cube, msg, sizeof msg) == 0);
  size_t bad = 0;
  for (int z = 0; z < 128; ++z)
    for (int y = 0; y < 128; ++y)
      for (int x = 0; x < 128; ++x) {
        uint16_t want = x < small[0] && y < small[1] && z < small[2] ? u16[((size_t)z * small[1] + y) * small[0] + x] : 0;
        bad += cube[((size_t)z * 128 + y) * 128 + x] != want;
      }
  printf("padded into a 128^3 cube in %.2f ms: %zu wrong values\n", ms, bad);
  CHECK(bad == 0);
  cavr_cuda_volume_destroy(v);
  free(cube);
  /* Device memory of a long CT without padding: 512 x 512 x 2000 uint8 (500 MiB; the cube was 8 GiB). */
  int ct[3] = {512, 512, 2000};
  n = (size_t)ct[0] * ct[1] * ct[2];
  uint8_t *big = malloc(n);
  CHECK(big);
  for (size_t i = 0; i < n; ++i) big[i] = (uint8_t)(i % 251);
  size_t free0 = 0, free1 = 0, total = 0;
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free0, &total);
  CHECK(cavr_cuda_volume_create(ctx, big, 0, ct, 0, &v, msg, sizeof msg) == 0);
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free1, &total);
  double used = (double)free0 - (double)free1, ratio = used / (double)n;
  printf("512 x 512 x 2000 uint8: device memory %.1f MiB for %.1f MiB of voxels = %.4fx (limit 1.05x)\n", used / 1048576,
         n / 1048576.0, ratio);
  CHECK(ratio <= 1.05);
  cavr_cuda_volume_destroy(v);
  free(big);
  free(u8);
  free(f);
  free(u16);
  cavr_cuda_context_destroy(ctx);
}

/* ------------------------------------------------------------------------------------------------ through the API */

static int notes;
static CAVRError lastCode;
static char lastNote[600];
static void on_error(void *user, CAVRError code, const char *message) {
  (void)user;
  ++notes;
  lastCode = code;
  snprintf(lastNote, sizeof lastNote, "%s", message);
}

static Scene make(CAVRDevice dev, const CAVRVolumeFile *f, const void *data, const float *table, double lo, double hi,
                  int size) {
  Scene s = {dev, cavrNewVolume(dev), cavrNewTransferFunction(dev), cavrNewCamera(dev), cavrNewRenderSettings(dev),
             cavrNewFrameBuffer(dev, size, size)};
  CHECK(s.vol && s.tf && s.cam && s.set && s.fb);
  CHECK_OK(dev, cavrSetVolumeData(s.vol, f->type, f->dims, data, f->bytes));
  CHECK_OK(dev, cavrSetVolumeSpacing(s.vol, f->spacing));
  CHECK_OK(dev, cavrCommitVolume(s.vol));
  CHECK_OK(dev, cavrSetTransferFunctionTable(s.tf, table, 1024, lo, hi));
  CHECK_OK(dev, cavrCommitTransferFunction(s.tf));
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(s.fb, CAVR_FB_HOST_RGBA32F)); /* the plane compared */
  return s;
}

/* A new time step: the voxels copied, or shared (cavrSetVolumeSharedData: the caller's buffer is the host copy). */
static void step(Scene *s, const CAVRVolumeFile *f, const void *data, int shared) {
  CHECK_OK(s->dev, (shared ? cavrSetVolumeSharedData : cavrSetVolumeData)(s->vol, f->type, f->dims, data, f->bytes));
  CHECK_OK(s->dev, cavrCommitVolume(s->vol));
}

static const float *render(Scene *s, double rx, double ry, CAVRStrategy strategy, int rotation, CAVRRenderStats *st,
                           float *copy, size_t px) {
  const double view[2] = {rx, ry};
  scene_view(s, view, 1, strategy, rotation);
  memcpy(copy, scene_render(s, st), px * 16);
  return copy;
}

static double compare(const char *what, const float *g, const float *c, size_t px) {
  double mx, p = psnr_rgba(g, c, px, &mx);
  double covered = 0;
  for (size_t i = 0; i < px; ++i) covered += c[4 * i + 3] > 0.02f;
  printf("    %-52s PSNR %6.2f dB (max %.3f), %.0f%% covered\n", what, p, mx, 100.0 * covered / px);
  CHECK(covered > 0.02 * px);
  CHECK(p >= 45.0);
  return p;
}

/* A second time step: the volume averaged with its point mirror (voxel i with voxel n-1-i), so the picture differs. */
static void *next_step(const CAVRVolumeFile *f) {
  size_t n = (size_t)f->dims[0] * f->dims[1] * f->dims[2];
  void *out = malloc(f->bytes);
  if (f->type == CAVR_UINT8) {
    const uint8_t *a = f->data;
    uint8_t *b = out;
    for (size_t i = 0; i < n; ++i) b[i] = (uint8_t)(a[n - 1 - i] / 2 + a[i] / 2);
  } else if (f->type == CAVR_UINT16) {
    const uint16_t *a = f->data;
    uint16_t *b = out;
    for (size_t i = 0; i < n; ++i) b[i] = (uint16_t)(a[n - 1 - i] / 2 + a[i] / 2);
  } else {
    const float *a = f->data;
    float *b = out;
    for (size_t i = 0; i < n; ++i) b[i] = 0.5f * (a[n - 1 - i] + a[i]);
  }
  return out;
}

int main(void) {
  CAVRDevice gpu = gpu_device_or_skip();
  CAVRDevice cpu = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(cpu);
  CHECK_OK(gpu, cavrSetDeviceErrorCallback(gpu, on_error, NULL));
  const TestVolume *vols = TEST_VOLUMES;
  CAVRVolumeFile files[3];
  for (int v = 0; v < 3; ++v)
    load_volume(vols[v].name, vols[v].type, vols[v].nx, vols[v].ny, vols[v].nz, vols[v].sx, vols[v].sy, vols[v].sz,
                &files[v]);
  kernel_checks(files, 3);

  const int size = 160;
  const size_t px = (size_t)size * size;
  float *g = malloc(px * 16), *c = malloc(px * 16), *first = malloc(px * 16);
  double worst = INFINITY;
  for (int v = 0; v < 3; ++v) {
    const CAVRVolumeFile *f = &files[v];
    float table[4 * 1024];
    char msg[200];
    CHECK(cavrTransferFunctionPreset(vols[v].preset, table, 1024, msg, sizeof msg) == CAVR_ERROR_NONE);
    printf("%s\n", vols[v].name);
    Scene sc = make(cpu, f, f->data, table, vols[v].lo, vols[v].hi, size);
    Scene sg = make(gpu, f, f->data, table, vols[v].lo, vols[v].hi, size);
    CAVRVolumeCommitStats cs;
    CHECK_OK(gpu, cavrGetVolumeCommitStats(sg.vol, &cs));
    printf("    commit %.2f ms: upload %.2f ms (%.2f GB/s), macro cells %.2f ms; array %d x %d x %d, %llu bytes\n",
           cs.milliseconds, cs.uploadMilliseconds, cs.uploadGBps, cs.cellMilliseconds, cs.deviceDims[0],
           cs.deviceDims[1], cs.deviceDims[2], (unsigned long long)cs.deviceBytes);
    CHECK(cs.deviceDims[0] == f->dims[0] && cs.deviceDims[1] == f->dims[1] && cs.deviceDims[2] == f->dims[2]);
    CHECK(cs.deviceBytes == cs.voxelBytes && cs.uploadBytes == cs.voxelBytes && cs.uploadGBps > 0.0);
    CHECK(cs.deviceAllocations == 1 && cs.reusedAllocation == 0);
    double rg[2], rc[2];
    CHECK_OK(gpu, cavrGetVolumeRange(sg.vol, rg));
    CHECK_OK(cpu, cavrGetVolumeRange(sc.vol, rc));
    CHECK(rg[0] == rc[0] && rg[1] == rc[1]); /* the GPU's range equals the host's */
    CAVRRenderStats gs, st;
    /* Front view, standard strategy: the array of the volume's own extent. */
    render(&sc, -90, 0, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, -90, 0, CAVR_STRATEGY_STANDARD, 0, &gs, g, px);
    CHECK(gs.backend == CAVR_BACKEND_CUDA && gs.rotation == 0);
    double p = compare("step 1, front, no padding: GPU vs CPU", g, c, px);
    worst = p < worst ? p : worst;
    memcpy(first, g, px * 16);
    CHECK(cs.hostBytes == cs.voxelBytes); /* copied: cavr's host copy */
    /* Time step 2: same size and type, other voxels: the same allocation, the image follows. Shared on the GPU (no
       host copy: hostBytes 0, the copy of step 1 freed rather than kept for a next step), copied on the CPU. */
    void *data2 = next_step(f);
    step(&sc, f, data2, 0);
    step(&sg, f, data2, 1);
    CHECK_OK(gpu, cavrGetVolumeCommitStats(sg.vol, &cs));
    printf("    time step 2 (shared): commit %.2f ms, upload %.2f ms (%.2f GB/s), reused %d, allocations %d, host "
           "bytes %llu\n", cs.milliseconds, cs.uploadMilliseconds, cs.uploadGBps, cs.reusedAllocation,
           cs.deviceAllocations, (unsigned long long)cs.hostBytes);
    CHECK(cs.reusedAllocation == 1 && cs.deviceAllocations == 1 && cs.uploadBytes == cs.voxelBytes);
    CHECK(cs.hostBytes == 0);
    CHECK_OK(gpu, cavrGetVolumeRange(sg.vol, rg));
    CHECK_OK(cpu, cavrGetVolumeRange(sc.vol, rc));
    CHECK(rg[0] == rc[0] && rg[1] == rc[1]);
    render(&sc, -90, 0, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, -90, 0, CAVR_STRATEGY_STANDARD, 0, &gs, g, px);
    p = compare("step 2: GPU vs CPU", g, c, px);
    worst = p < worst ? p : worst;
    double mx, change = psnr_rgba(g, first, px, &mx);
    printf("    step 2 vs step 1 on the GPU: PSNR %.2f dB (max %.3f): the image follows the data\n", change, mx);
    CHECK(change < 35.0);
    /* Rotation forced on a non-cubic volume: side view (x along the rays). It turns by a copy into an array of the
       permuted extent (z, y, x): one more allocation, no padding. */
    notes = 0;
    render(&sc, 0, 90, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, 0, 90, CAVR_STRATEGY_SHAPED, 1, &gs, g, px);
    CHECK_OK(gpu, cavrGetVolumeCommitStats(sg.vol, &cs));
    printf("    rotation %d (%.2f ms, by copy): array %d x %d x %d, allocations %d\n", gs.rotation,
           gs.rotationMilliseconds, cs.deviceDims[0], cs.deviceDims[1], cs.deviceDims[2], cs.deviceAllocations);
    CHECK(gs.rotation == 1 && notes == 0);
    CHECK(cs.deviceDims[0] == f->dims[2] && cs.deviceDims[1] == f->dims[1] && cs.deviceDims[2] == f->dims[0] &&
          cs.deviceAllocations == 2 && cs.deviceBytes == cs.voxelBytes);
    p = compare("step 2, side view, rotated by copy: GPU vs CPU", g, c, px);
    worst = p < worst ? p : worst;
    /* Time step 3 (the first voxels again) while rotated: turned back (by copy), uploaded into that array. */
    step(&sc, f, f->data, 0);
    step(&sg, f, f->data, 0);
    CHECK_OK(gpu, cavrGetVolumeCommitStats(sg.vol, &cs));
    CHECK(cs.hostBytes == cs.voxelBytes); /* copied again: no spare kept from the shared step */
    CHECK(cs.reusedAllocation == 1 && cs.deviceAllocations == 3 && cs.deviceDims[0] == f->dims[0] &&
          cs.deviceDims[2] == f->dims[2]);
    render(&sc, 0, 90, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, 0, 90, CAVR_STRATEGY_SHAPED, 1, &gs, g, px);
    CHECK(gs.rotation != 0);
    p = compare("step 3, rotated: GPU vs CPU", g, c, px);
    worst = p < worst ? p : worst;
    render(&sc, -90, 0, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, -90, 0, CAVR_STRATEGY_STANDARD, 0, &gs, g, px);
    CHECK(gs.rotation == 0);
    p = compare("step 3, front, turned back: GPU vs CPU", g, c, px);
    worst = p < worst ? p : worst;
    free(data2);
    release(&sc);
    release(&sg);
  }

  /* The second copy a rotation needs does not fit: the render goes on without rotation, with a note, and equals the
     CPU. */
  {
    const CAVRVolumeFile *f = &files[0]; /* headsq: 761,856 bytes; its cube 128^3 x 2 = 4 MiB */
    float table[4 * 1024];
    char msg[200];
    CHECK(cavrTransferFunctionPreset("ct-skin", table, 1024, msg, sizeof msg) == CAVR_ERROR_NONE);
    CHECK(cavrSetDeviceParam(gpu, "CAVR_CUDA_VOLUME_LIMIT", "1000000") == CAVR_ERROR_NONE);
    notes = 0;
    Scene sc = make(cpu, f, f->data, table, 0, 4000, size);
    Scene sg = make(gpu, f, f->data, table, 0, 4000, size);
    CAVRRenderStats gs, st;
    render(&sc, 0, 90, CAVR_STRATEGY_STANDARD, 0, &st, c, px);
    render(&sg, 0, 90, CAVR_STRATEGY_SHAPED, 1, &gs, g, px);
    printf("rotated copy over the limit: backend %s, rotation %d, %d note(s): %s\n",
           gs.backend == CAVR_BACKEND_CUDA ? "CUDA" : "CPU", gs.rotation, notes, lastNote);
    CHECK(gs.backend == CAVR_BACKEND_CUDA && gs.rotation == 0 && notes == 1 && lastCode == CAVR_ERROR_CUDA_OUT_OF_MEMORY);
    CHECK(strstr(lastNote, "without rotation") != NULL);
    render(&sg, 0, 90, CAVR_STRATEGY_SHAPED, 1, &gs, g, px);
    CHECK(notes == 1); /* said once */
    compare("headsq, side view, no room for the rotated copy: GPU vs CPU", g, c, px);
    CHECK(cavrSetDeviceParam(gpu, "CAVR_CUDA_VOLUME_LIMIT", NULL) == CAVR_ERROR_NONE);
    CHECK(cavrGetDeviceError(gpu, NULL) == CAVR_ERROR_NONE);
    release(&sc);
    release(&sg);
  }
  printf("worst PSNR GPU vs CPU: %.2f dB (threshold 45)\n", worst);
  for (int v = 0; v < 3; ++v) cavrFreeVolumeFile(&files[v]);
  free(g);
  free(c);
  free(first);
  cavrReleaseDevice(cpu);
  cavrReleaseDevice(gpu);
  return 0;
}
#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * One GPU per rank under MPI: each rank of `mpiexec -n N test_gpu_mpi` makes its cavr device with
 * the default choice (no index, no CAVR_GPU: the launcher's local rank modulo the visible GPUs, gpu_select.c) and
 * renders its slab of Colin27 (the volume split along z into N pieces, each with its ghost planes and a render extent
 * up to its neighbours' split planes, as ParaView's ranks hold it). Rank 0 gathers the premultiplied images
 * (MPI_Gather), composites them "over" in visibility order (what IceT does in ParaView) and compares the picture with
 * the whole volume rendered by its own device: >= 45 dB over three views, shaded, early ray termination off.
 *
 * Also checked: every rank's device is on GPU (node-local rank from MPI_Comm_split_type) mod (visible GPUs), so where
 * a node has at least as many GPUs as ranks no two of its ranks share one. Timed (median of the frames, after a
 * warm-up): the whole volume on one GPU; the pieces' renders (slowest rank); the pieces' frame on rank 0 from the
 * barrier before the renders to the composited image in hand (renders + gather + compositing).
 *
 * Usage: test_gpu_mpi [--backend cuda|cpu] [--size PIXELS] [--frames F] [--image f32|u8] [--csv FILE]
 *   --backend cpu runs the same pieces and compositing on the CPU back end (no GPU needed; ctest's mpi.* test).
 *   --image u8: the ranks send their premultiplied RGBA8 planes (4 bytes a pixel, as IceT composites ParaView's
 *   ranks) instead of RGBA32F (16), composited in 8 bits (truncated at every layer, as IceT's ICET_UNDER_UBYTE)
 *   against the whole's RGBA8 plane, also >= 45 dB.
 * Exits 77 (ctest SKIP) on every rank when any rank has no usable device of the back end. A failed check aborts
 * the whole job (MPI_Abort), so no rank is left waiting in a collective.
 */
#include <mpi.h>
#include <stdint.h>

/* A failed check aborts the whole job: the other ranks would otherwise wait in their next collective. */
#define CAVR_TEST_FAIL() MPI_Abort(MPI_COMM_WORLD, 1)
#include "gpu_util.h"

enum { MAX_FRAMES = 64 };

/* The visible GPUs, read from a CUDA device's name (the public API has no count): it ends in "GPU i of n" when n > 1
   ("CUDA (NVIDIA H100 ..., GPU 1 of 2)") and names no index when one GPU is visible (cavrGetDeviceName). */
static int gpus_in_name(const char *name) {
  const char *p = strstr(name, "GPU ");
  p = p ? strstr(p, " of ") : NULL;
  return p ? atoi(p + 4) : 1;
}

/* The eye of a perspective camera: where the rays of two corner pixels meet (their origins lie on the near plane). */
static void eye_of(CAVRDevice dev, CAVRCamera cam, int size, double eye[3]) {
  double o1[3], d1[3], o2[3], d2[3], w[3];
  CHECK_OK(dev, cavrGetCameraRay(cam, size, size, 0, 0, o1, d1));
  CHECK_OK(dev, cavrGetCameraRay(cam, size, size, size - 1, size - 1, o2, d2));
  for (int k = 0; k < 3; ++k) w[k] = o1[k] - o2[k];
  double a = 0, b = 0, c = 0, d = 0, e = 0;
  for (int k = 0; k < 3; ++k) {
    a += d1[k] * d1[k], b += d1[k] * d2[k], c += d2[k] * d2[k];
    d += d1[k] * w[k], e += d2[k] * w[k];
  }
  const double t = (b * e - c * d) / (a * c - b * b); /* closest point of ray 1 to ray 2 */
  for (int k = 0; k < 3; ++k) eye[k] = o1[k] + t * d1[k];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1, local = 0, localRanks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &localRanks);

  CAVRBackend backend = CAVR_BACKEND_CUDA;
  int size = 1024, frames = 7;
  const char *csv = NULL;
  int u8 = 0;
  for (int i = 1; i < argc; ++i) {
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--backend") && (!strcmp(v, "cpu") || !strcmp(v, "cuda"))) {
      backend = !strcmp(argv[++i], "cpu") ? CAVR_BACKEND_CPU : CAVR_BACKEND_CUDA;
    } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      size = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
      frames = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--image") && (!strcmp(v, "u8") || !strcmp(v, "f32"))) {
      u8 = !strcmp(argv[++i], "u8");
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else {
      if (rank == 0)
        fprintf(stderr, "usage: %s [--backend cuda|cpu] [--size N] [--frames F] [--image f32|u8] [--csv FILE]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  CHECK(size >= 16 && size <= 4096 && frames >= 1 && frames <= MAX_FRAMES);

  /* Every rank has a device, or every rank skips. */
  CAVRDevice dev = cavrNewDevice(backend);
  int have = dev != NULL, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    const char *m = "";
    CAVRError e = cavrGetDeviceError(NULL, &m);
    if (!have) printf("SKIP: rank %d has no usable %s device (%s: %s)\n", rank,
                      backend == CAVR_BACKEND_CUDA ? "CUDA" : "CPU", cavrGetErrorString(e), m);
    if (dev) cavrReleaseDevice(dev);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return SKIP_CODE;
  }

  /* The GPU each rank chose by default, against the node-local rank MPI itself reports. */
  const int gpu = cavrGetDeviceGpu(dev), visible = gpus_in_name(cavrGetDeviceName(dev));
  int gpuFailures = 0;
  if (backend == CAVR_BACKEND_CUDA) {
    if (visible <= 0 || gpu != local % visible) {
      fprintf(stderr, "rank %d (local %d of %d): device on GPU %d, expected %d (%s)\n", rank, local, localRanks, gpu,
              visible > 0 ? local % visible : -1, cavrGetDeviceName(dev));
      gpuFailures = 1;
    }
  }
  char name[256];
  snprintf(name, sizeof name, "rank %d (local %d): %s", rank, local, cavrGetDeviceName(dev));
  char *names = rank == 0 ? malloc((size_t)ranks * sizeof name) : NULL;
  MPI_Gather(name, sizeof name, MPI_CHAR, names, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < ranks; ++r) printf("%s\n", names + (size_t)r * sizeof name);
    free(names);
  }

  const TestVolume *tv = &TEST_VOLUMES[2]; /* Colin27, 301 x 370 x 316 uint8 */
  CAVRVolumeFile f;
  float table[4 * 1024];
  load_test_volume(tv, &f, table, 1024);
  const int nz = f.dims[2], X = f.dims[0] - 1, Y = f.dims[1] - 1;
  CHECK(ranks <= nz / 8);
  /* Rank k renders planes split[k] .. split[k + 1] and holds 3 planes below and 2 above them (ghost planes: the
     trilinear and gradient stencils at its faces see the neighbours' voxels, as in test_pieces and test_gpu_two). */
  int *split = malloc(sizeof(int) * (ranks + 1));
  CHECK(split);
  for (int k = 0; k <= ranks; ++k) split[k] = (int)lround((double)k * (nz - 1) / ranks);
  const int z0 = split[rank] - 3 > 0 ? split[rank] - 3 : 0;
  const int z1 = split[rank + 1] + 2 < nz - 1 ? split[rank + 1] + 2 : nz - 1;
  const int extent[6] = {0, X, 0, Y, split[rank] - z0, split[rank + 1] - z0};
  Scene piece = gpu_slab_scene(dev, &f, z0, z1, extent, table, 1024, tv->lo, tv->hi, size);
  Scene whole = {0};
  if (rank == 0) whole = gpu_scene(dev, &f, table, 1024, tv->lo, tv->hi, size);
  const unsigned host = u8 ? CAVR_FB_HOST_RGBA8 : CAVR_FB_HOST_RGBA32F; /* the plane each frame must bring back */
  CHECK_OK(dev, cavrSetFrameBufferHostChannels(piece.fb, host));
  if (rank == 0) CHECK_OK(dev, cavrSetFrameBufferHostChannels(whole.fb, host));
  const CAVRFrameBufferChannel plane = u8 ? CAVR_FB_COLOR_RGBA8 : CAVR_FB_COLOR_RGBA32F;
  const size_t pixelBytes = u8 ? 4 : 16;

  const double bounds[6] = {0, X * f.spacing[0], 0, Y * f.spacing[1], 0, (nz - 1) * f.spacing[2]};
  const size_t n = (size_t)size * size;
  unsigned char *images = rank == 0 ? malloc(n * pixelBytes * (size_t)ranks) : NULL;
  float *out = rank == 0 ? malloc(n * 16) : NULL; /* the composited image, [0, 1] either way */
  uint8_t *out8 = rank == 0 && u8 ? malloc(n * 4) : NULL;
  float *ref8 = rank == 0 && u8 ? malloc(n * 16) : NULL; /* the whole's RGBA8 plane as [0, 1] floats */
  CHECK(rank != 0 || (images && out && (!u8 || (out8 && ref8))));
  int *order = malloc(sizeof(int) * ranks);
  double *dist = malloc(sizeof(double) * ranks);
  CHECK(order && dist);
  FILE *csvFile = rank == 0 && csv ? fopen(csv, "w") : NULL;
  if (rank == 0 && csv && !csvFile) {
    fprintf(stderr, "cannot write %s\n", csv);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (csvFile)
    fprintf(csvFile, "backend,image,ranks,gpus_visible,size,rx,ry,psnr_db,max_err,one_ms,pieces_render_ms,"
                     "pieces_frame_ms,gather_composite_ms\n");
  const double views[3][2] = {{-60, 25}, {20, 150}, {0, 90}};
  double worst = INFINITY;
  for (int v = 0; v < 3; ++v) {
    pieces_view(&piece, bounds, views[v][0], views[v][1]);
    if (rank == 0) pieces_view(&whole, bounds, views[v][0], views[v][1]);
    double one[MAX_FRAMES], rend[MAX_FRAMES], frame[MAX_FRAMES], comp[MAX_FRAMES];
    for (int fr = -1; fr < frames; ++fr) { /* frame -1: warm-up */
      double t0;
      if (rank == 0) {
        t0 = gpu_now_ms();
        CHECK_OK(dev, cavrRender(whole.fb, whole.vol, whole.tf, whole.cam, whole.set, NULL));
        if (fr >= 0) one[fr] = gpu_now_ms() - t0;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = gpu_now_ms();
      CHECK_OK(dev, cavrRender(piece.fb, piece.vol, piece.tf, piece.cam, piece.set, NULL));
      double mine = gpu_now_ms() - t0, slowest = 0.0;
      MPI_Gather(cavrGetFrameBufferData(piece.fb, plane), (int)(pixelBytes * n), MPI_BYTE, images,
                 (int)(pixelBytes * n), MPI_BYTE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        /* Visibility order: slabs along z by the distance from the eye's z to their nearer face, the slab holding
           it first (a ray from the eye crosses the slabs on its side of that plane in that order, and never those
           on the other side). */
        double eye[3];
        eye_of(dev, whole.cam, size, eye);
        for (int k = 0; k < ranks; ++k) {
          const double lo = split[k] * f.spacing[2], hi = split[k + 1] * f.spacing[2];
          order[k] = k;
          dist[k] = eye[2] < lo ? lo - eye[2] : (eye[2] > hi ? eye[2] - hi : 0.0);
        }
        for (int a = 1; a < ranks; ++a) /* insertion sort by distance */
          for (int b = a; b > 0 && dist[order[b]] < dist[order[b - 1]]; --b) {
            const int t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
          }
        if (u8) { /* 8-bit premultiplied "under" (front to back), truncated at each layer as IceT's ICET_UNDER_UBYTE */
          memcpy(out8, images + (size_t)order[0] * 4 * n, n * 4);
          for (int k = 1; k < ranks; ++k) {
            const uint8_t *back = images + (size_t)order[k] * 4 * n;
            for (size_t i = 0; i < n; ++i) {
              const unsigned t = 255u - out8[4 * i + 3];
              for (int c = 0; c < 4; ++c) {
                const unsigned v = out8[4 * i + c] + t * back[4 * i + c] / 255u;
                out8[4 * i + c] = (uint8_t)(v > 255u ? 255u : v);
              }
            }
          }
        } else {
          memcpy(out, images + (size_t)order[0] * 16 * n, n * 16);
          for (int k = 1; k < ranks; ++k) {
            const float *back = (const float *)(images + (size_t)order[k] * 16 * n);
            for (size_t i = 0; i < n; ++i) {
              const float t = 1.0f - out[4 * i + 3];
              for (int c = 0; c < 4; ++c) out[4 * i + c] += t * back[4 * i + c];
            }
          }
        }
        if (fr >= 0) frame[fr] = gpu_now_ms() - t0;
      }
      MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0 && fr >= 0) {
        rend[fr] = slowest;
        comp[fr] = frame[fr] - slowest; /* the gather and the compositing, after the slowest rank's render */
      }
    }
    if (rank == 0) {
      double maxErr = 0.0;
      const float *ref = cavrGetFrameBufferData(whole.fb, CAVR_FB_COLOR_RGBA32F);
      if (u8) { /* both 8-bit images as [0, 1] floats */
        const uint8_t *w8 = cavrGetFrameBufferData(whole.fb, CAVR_FB_COLOR_RGBA8);
        for (size_t i = 0; i < 4 * n; ++i) ref8[i] = w8[i] / 255.0f, out[i] = out8[i] / 255.0f;
        ref = ref8;
      }
      const double p = psnr_rgba(ref, out, n, &maxErr);
      worst = p < worst ? p : worst;
      const double o1 = gpu_median(one, frames), r = gpu_median(rend, frames), fm = gpu_median(frame, frames),
                   c = gpu_median(comp, frames);
      printf("view (%g, %g), %dx%d, %d ranks: composited vs one device %.2f dB (max %.2g); ms (median of %d): one %.3f,"
             " pieces' renders %.3f (%.2fx), pieces' frame %.3f (%.2fx; gather + composite %.3f)\n",
             views[v][0], views[v][1], size, size, ranks, p, maxErr, frames, o1, r, o1 / r, fm, o1 / fm, c);
      if (csvFile)
        fprintf(csvFile, "%s,%s,%d,%d,%d,%g,%g,%.3f,%.3g,%.4f,%.4f,%.4f,%.4f\n",
                backend == CAVR_BACKEND_CUDA ? "cuda" : "cpu", u8 ? "u8" : "f32", ranks, visible, size, views[v][0],
                views[v][1], p,
                maxErr, o1, r, fm, c);
    }
  }
  if (csvFile) fclose(csvFile);
  int failures = 0;
  MPI_Allreduce(&gpuFailures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    /* The 45 dB: the slabs composited in the wrong order give 23.6 dB; exact compositing gives >= 108 dB
       (float) and 8-bit compositing >= 64 dB (measured). */
    const double threshold = 45.0;
    printf("worst PSNR, %d pieces composited (%s) vs one device: %.2f dB (threshold %g); ranks on the wrong GPU: %d\n",
           ranks, u8 ? "RGBA8" : "RGBA32F", worst, threshold, failures);
    CHECK(worst >= threshold);
  }
  CHECK(failures == 0);
  free(order);
  free(dist);
  free(split);
  free(images);
  free(out);
  free(out8);
  free(ref8);
  release(&piece);
  if (rank == 0) release(&whole);
  cavrFreeVolumeFile(&f);
  cavrReleaseDevice(dev);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}

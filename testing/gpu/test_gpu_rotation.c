// SPDX-License-Identifier: BSD-3-Clause
/*
 * In-place rotation (Misaki 2017): four quarter turns give back the bit-identical volume (about y and about
 * z, both directions), one turn moves voxel (x, y, z) to (N-1-z, y, x) (about y), a turn and its inverse
 * are the identity, for uint8, uint16 and float data of a non-cube real volume padded to a cube. An array of the
 * volume's own extent (64 x 64 x 93), or a cube whose side is not a multiple of 64, turns by a copy into an array of
 * the permuted extent by the same map with the cube's side replaced by the extent, for every
 * storage type, both planes and both directions; padded into a cube later (cavr_cuda_volume_pad_to_cube) it turns
 * as one made as a cube. Every in-place kernel variant (the benchmark's) gives the default's array.
 */
#include "gpu_util.h"
#ifdef CAVR_NO_KERNELS
int main(void) {
  printf("SKIP: cavr was built without CUDA\n");
  return SKIP_CODE;
}
#else
#include "../../kernels/cavr_kernels.h"

static void check_type(CAVRGpuContext *ctx, const void *data, int storage, const int dims[3]) {
  char msg[400];
  const int cube = 128;
  size_t es = storage == 0 ? 1 : storage == 1 ? 2 : 4, n = (size_t)cube * cube * cube;
  CAVRGpuVolume *v = NULL;
  CHECK(cavr_cuda_volume_create(ctx, data, storage, dims, cube, &v, msg, sizeof msg) == 0);
  unsigned char *orig = malloc(n * es), *got = malloc(n * es);
  CHECK(cavr_cuda_volume_download(ctx, v, orig, msg, sizeof msg) == 0);
  /* Padding is zero; the data sits in the corner. */
  CHECK(memcmp(orig, data, (size_t)dims[0] * es) == 0);
  for (size_t i = (size_t)dims[0]; i < (size_t)cube; ++i)
    for (size_t b = 0; b < es; ++b) CHECK(orig[i * es + b] == 0);
  for (int plane = 1; plane <= 2; ++plane)
    for (int dir = -1; dir <= 1; dir += 2) {
      float ms = 0, total = 0;
      for (int t = 0; t < 4; ++t) {
        CHECK(cavr_cuda_volume_rotate(ctx, v, plane, dir, &ms, msg, sizeof msg) == 0);
        total += ms;
        CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
        int same = memcmp(orig, got, n * es) == 0;
        CHECK(same == (t == 3)); /* only the fourth turn gives the original back */
        if (t == 0 && plane == 1 && dir == 1) {
          /* new(a' = N-1-z, y, b' = x) = old(x, y, z) for a few voxels */
          int pts[4][3] = {{0, 0, 0}, {5, 7, 9}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}, {17, 3, 40}};
          for (int k = 0; k < 4; ++k) {
            int x = pts[k][0], y = pts[k][1], z = pts[k][2];
            size_t src = ((size_t)z * cube + y) * cube + x, dst = ((size_t)x * cube + y) * cube + (cube - 1 - z);
            CHECK(memcmp(orig + src * es, got + dst * es, es) == 0);
          }
        }
      }
      printf("storage %d plane %d direction %+d: four quarter turns identical, %.3f ms per turn\n", storage, plane, dir,
             total / 4);
    }
  CHECK(cavr_cuda_volume_rotate(ctx, v, 1, 1, NULL, msg, sizeof msg) == 0);
  CHECK(cavr_cuda_volume_rotate(ctx, v, 1, -1, NULL, msg, sizeof msg) == 0);
  CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
  CHECK(memcmp(orig, got, n * es) == 0);
  cavr_cuda_volume_destroy(v);
  free(orig);
  free(got);
}

/* Every in-place kernel of cavr_cuda_volume_rotate_variant gives the default's array, both planes and directions;
   the 64 x 64 tile and four-slice kernels refuse float (shared memory; 64 x 64 also needs a side % 128 == 0); the control (6) is the identity. */
static void check_variants(CAVRGpuContext *ctx, const void *data, int storage, const int dims[3]) {
  char msg[400];
  const int cube = 128;
  size_t es = storage == 0 ? 1 : storage == 1 ? 2 : 4, n = (size_t)cube * cube * cube;
  CAVRGpuVolume *v = NULL;
  CHECK(cavr_cuda_volume_create(ctx, data, storage, dims, cube, &v, msg, sizeof msg) == 0);
  unsigned char *orig = malloc(n * es), *want = malloc(n * es), *got = malloc(n * es);
  CHECK(cavr_cuda_volume_download(ctx, v, orig, msg, sizeof msg) == 0);
  int compared = 0;
  for (int plane = 1; plane <= 2; ++plane)
    for (int dir = -1; dir <= 1; dir += 2) {
      CHECK(cavr_cuda_volume_rotate(ctx, v, plane, dir, NULL, msg, sizeof msg) == 0);
      CHECK(cavr_cuda_volume_download(ctx, v, want, msg, sizeof msg) == 0);
      CHECK(memcmp(want, orig, n * es) != 0);
      CHECK(cavr_cuda_volume_rotate(ctx, v, plane, -dir, NULL, msg, sizeof msg) == 0);
      for (int variant = 1; variant <= 9; ++variant) {
        int rc = cavr_cuda_volume_rotate_variant(ctx, v, plane, dir, variant, NULL, msg, sizeof msg);
        if ((variant == 5 || variant == 9) && storage == 2) {
          CHECK(rc == 4);
          continue;
        }
        CHECK(rc == 0);
        CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
        CHECK(memcmp(got, variant == 6 ? orig : want, n * es) == 0);
        ++compared;
        if (variant != 6) CHECK(cavr_cuda_volume_rotate(ctx, v, plane, -dir, NULL, msg, sizeof msg) == 0);
      }
    }
  printf("storage %d: %d in-place kernel variants equal to the default's turn (or the identity for the control)\n",
         storage, compared);
  cavr_cuda_volume_destroy(v);
  free(orig);
  free(want);
  free(got);
}

/* Rectangular arrays: one turn moves (x, y, z) to (Nz-1-z, y, x) about y, (Ny-1-y, x, z) about z, with the extent
   permuted; four turns and a turn with its inverse give back the identical array. */
static void check_rect(CAVRGpuContext *ctx, const void *data, int storage, const int dims[3]) {
  char msg[400];
  size_t es = storage == 0 ? 1 : storage == 1 ? 2 : 4, n = (size_t)dims[0] * dims[1] * dims[2];
  CAVRGpuVolume *v = NULL;
  CHECK(cavr_cuda_volume_create(ctx, data, storage, dims, 0, &v, msg, sizeof msg) == 0);
  unsigned char *got = malloc(n * es);
  const unsigned char *orig = data;
  for (int plane = 1; plane <= 2; ++plane)
    for (int dir = -1; dir <= 1; dir += 2) {
      float ms = 0, total = 0;
      for (int t = 0; t < 4; ++t) {
        CHECK(cavr_cuda_volume_rotate(ctx, v, plane, dir, &ms, msg, sizeof msg) == 0);
        total += ms;
        int ext[3];
        cavr_cuda_volume_extent(v, ext);
        const int odd = t % 2 == 0; /* after turns 1 and 3 the plane's two axes are swapped */
        const int ea = plane == 1 ? 2 : 1; /* the axis swapped with x */
        CHECK(ext[0] == (odd ? dims[ea] : dims[0]) && ext[ea] == (odd ? dims[0] : dims[ea]));
        CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
        CHECK((memcmp(orig, got, n * es) == 0) == (t == 3));
        if (t == 0 && dir == 1) {
          int pts[4][3] = {{0, 0, 0}, {5, 7, 9}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}, {17, 3, 40}};
          for (int k = 0; k < 4; ++k) {
            int x = pts[k][0], y = pts[k][1], z = pts[k][2];
            size_t src = ((size_t)z * dims[1] + y) * dims[0] + x, dst;
            if (plane == 1) dst = ((size_t)x * ext[1] + y) * ext[0] + (dims[2] - 1 - z); /* (Nz-1-z, y, x) */
            else dst = ((size_t)z * ext[1] + x) * ext[0] + (dims[1] - 1 - y);              /* (Ny-1-y, x, z) */
            CHECK(memcmp(orig + src * es, got + dst * es, es) == 0);
          }
        }
      }
      printf("rectangular %dx%dx%d storage %d plane %d direction %+d: four quarter turns identical, %.3f ms per turn\n",
             dims[0], dims[1], dims[2], storage, plane, dir, total / 4);
    }
  CHECK(cavr_cuda_volume_rotate(ctx, v, 2, 1, NULL, msg, sizeof msg) == 0);
  CHECK(cavr_cuda_volume_rotate(ctx, v, 2, -1, NULL, msg, sizeof msg) == 0);
  CHECK(cavr_cuda_volume_download(ctx, v, got, msg, sizeof msg) == 0);
  CHECK(memcmp(orig, got, n * es) == 0);
  CHECK(cavr_cuda_volume_bytes(v) == n * es); /* no padding */
  cavr_cuda_volume_destroy(v);
  free(got);
}

int main(void) {
  CAVRDevice dev = gpu_device_or_skip();
  cavrReleaseDevice(dev);
  char msg[400];
  CAVRGpuContext *ctx = NULL;
  CHECK(cavr_cuda_context_create(&ctx, msg, sizeof msg) == 0);
  CAVRVolumeFile f;
  load_volume("headsq_64x64x93_uint16", CAVR_UINT16, 64, 64, 93, 3.2, 3.2, 1.5, &f);
  size_t n = (size_t)64 * 64 * 93;
  const uint16_t *u16 = f.data;
  uint8_t *u8 = malloc(n);
  float *f32 = malloc(n * 4);
  for (size_t i = 0; i < n; ++i) {
    u8[i] = (uint8_t)(u16[i] >> 4);
    f32[i] = (float)u16[i] * 0.25f;
  }
  check_type(ctx, u8, 0, f.dims);
  check_type(ctx, u16, 1, f.dims);
  check_type(ctx, f32, 2, f.dims);
  check_variants(ctx, u8, 0, f.dims);
  check_variants(ctx, u16, 1, f.dims);
  check_variants(ctx, f32, 2, f.dims);
  check_rect(ctx, u8, 0, f.dims);
  check_rect(ctx, u16, 1, f.dims);
  check_rect(ctx, f32, 2, f.dims);
  /* A cube whose side is not a multiple of 64 turns by the copy too (four turns: identity). */
  CAVRGpuVolume *v = NULL;
  {
    int d3[3] = {8, 8, 8};
    CHECK(cavr_cuda_volume_create(ctx, u8, 0, d3, 96, &v, msg, sizeof msg) == 0);
    size_t cn96 = (size_t)96 * 96 * 96;
    unsigned char *a0 = malloc(cn96), *a1 = malloc(cn96);
    CHECK(cavr_cuda_volume_download(ctx, v, a0, msg, sizeof msg) == 0);
    for (int t = 0; t < 4; ++t) CHECK(cavr_cuda_volume_rotate(ctx, v, 1, 1, NULL, msg, sizeof msg) == 0);
    CHECK(cavr_cuda_volume_download(ctx, v, a1, msg, sizeof msg) == 0);
    CHECK(memcmp(a0, a1, cn96) == 0);
    free(a0);
    free(a1);
    cavr_cuda_volume_destroy(v);
  }
  /* Padded into a cube after its creation, a volume turns exactly as one created as a cube. */
  CHECK(cavr_cuda_volume_create(ctx, u8, 0, f.dims, 0, &v, msg, sizeof msg) == 0);
  CHECK(cavr_cuda_volume_pad_to_cube(ctx, v, 128, NULL, msg, sizeof msg) == 0);
  CAVRGpuVolume *w = NULL;
  CHECK(cavr_cuda_volume_create(ctx, u8, 0, f.dims, 128, &w, msg, sizeof msg) == 0);
  size_t cn = (size_t)128 * 128 * 128;
  unsigned char *a = malloc(cn), *b = malloc(cn);
  for (int dir = -1; dir <= 1; dir += 2) {
    CHECK(cavr_cuda_volume_rotate(ctx, v, 2, dir, NULL, msg, sizeof msg) == 0);
    CHECK(cavr_cuda_volume_rotate(ctx, w, 2, dir, NULL, msg, sizeof msg) == 0);
    CHECK(cavr_cuda_volume_download(ctx, v, a, msg, sizeof msg) == 0);
    CHECK(cavr_cuda_volume_download(ctx, w, b, msg, sizeof msg) == 0);
    CHECK(memcmp(a, b, cn) == 0);
  }
  printf("padded later == created as a cube, after quarter turns\n");
  free(a);
  free(b);
  cavr_cuda_volume_destroy(v);
  cavr_cuda_volume_destroy(w);
  cavrFreeVolumeFile(&f);
  free(u8);
  free(f32);
  cavr_cuda_context_destroy(ctx);
  return 0;
}
#endif

// SPDX-License-Identifier: BSD-3-Clause
/*
 * Volume files and bad input: real NRRD files read through teem (detached header, gzip), and every
 * malformed, truncated, missing, unsupported, 2-D, absurd or NaN input gives a clear error, no crash.
 */
#include <unistd.h>

#include "test_util.h"
#include "cavr/cavr_io.h"

static char dir[256];

static const char *write_file(const char *name, const void *data, size_t n) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f);
  CHECK(fwrite(data, 1, n, f) == n);
  fclose(f);
  return path;
}

static const char *write_text(const char *name, const char *text) { return write_file(name, text, strlen(text)); }

static void expect_nrrd_error(const char *path, CAVRError code, const char *needle) {
  CAVRVolumeFile f;
  char msg[512] = "";
  CAVRError e = cavrLoadNrrd(path, &f, msg, sizeof msg);
  printf("%s -> %s: %s\n", path, cavrGetErrorString(e), msg);
  CHECK(e == code);
  CHECK(f.data == NULL);
  CHECK(strstr(msg, path) != NULL); /* the message names the file */
  if (needle) CHECK(strstr(msg, needle) != NULL);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/cavr-test-io-%d", (int)getpid());
  char cmd[300];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  CHECK(system(cmd) == 0);

  /* Real data: detached header + gzip (headsq), detached header + raw (bucky). */
  CAVRVolumeFile f;
  char msg[512];
  CHECK(cavrLoadNrrd(CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr", &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(f.type == CAVR_UINT16 && f.dims[0] == 64 && f.dims[1] == 64 && f.dims[2] == 93);
  CHECK_NEAR(f.spacing[0], 3.2, 1e-12);
  CHECK_NEAR(f.spacing[2], 1.5, 1e-12);
  CHECK(f.bytes == 64 * 64 * 93 * 2);
  Scene s = scene_new(4, 4);
  CHECK_OK(cavrSetVolumeData(s.vol, f.type, f.dims, f.data, f.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  double range[2];
  CHECK_OK(cavrGetVolumeRange(s.vol, range));
  CHECK(range[0] == 0.0 && range[1] == 3926.0); /* as teem-unu minmax reports (shared/data/README.md) */
  CAVRVolumeFile gz = f;
  CHECK(cavrLoadNrrd(CAVR_DATA_DIR "/bucky_32x32x32_uint8.nhdr", &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(f.type == CAVR_UINT8 && f.dims[2] == 32);
  cavrFreeVolumeFile(&f);
  cavrFreeVolumeFile(&f); /* twice is safe */

  /* Missing files. */
  expect_nrrd_error("/nonexistent/volume.nhdr", CAVR_ERROR_IO, "No such file");
  const char *hdr = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\ndata file: %s\n";
  char text[512];
  snprintf(text, sizeof text, hdr, "missing.raw");
  expect_nrrd_error(write_text("missing_data.nhdr", text), CAVR_ERROR_IO, NULL);
  /* Truncated raw data (10 of 64 bytes) and truncated gzip data. */
  unsigned char bytes[64] = {0};
  write_file("short.raw", bytes, 10);
  snprintf(text, sizeof text, hdr, "short.raw");
  expect_nrrd_error(write_text("short.nhdr", text), CAVR_ERROR_FILE_TRUNCATED, NULL);
  {
    FILE *in = fopen(CAVR_DATA_DIR "/headsq_64x64x93_uint16.raw.gz", "rb");
    CHECK(in);
    static unsigned char buf[20000];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    write_file("cut.raw.gz", buf, n);
    expect_nrrd_error(write_text("cut.nhdr", "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 64 64 93\n"
                                             "endian: little\nencoding: gzip\ndata file: cut.raw.gz\n"),
                      CAVR_ERROR_FILE_TRUNCATED, NULL);
  }
  /* Malformed header, unsupported types, 2-D data, multi-component data, a size of 1, absurd sizes. */
  expect_nrrd_error(write_text("bad.nhdr", "NRRD0004\ntype: banana\ndimension: 3\nsizes: 4 4 4\n"),
                    CAVR_ERROR_FILE_FORMAT, NULL);
  expect_nrrd_error(write_text("garbage.nrrd", "this is not a NRRD file\n"), CAVR_ERROR_FILE_FORMAT, NULL);
  write_file("data.raw", bytes, 64);
  expect_nrrd_error(write_text("int64.nhdr", "NRRD0004\ntype: int64\ndimension: 3\nsizes: 2 2 2\nendian: little\n"
                                             "encoding: raw\ndata file: data.raw\n"),
                    CAVR_ERROR_FILE_FORMAT, "not supported");
  expect_nrrd_error(write_text("flat.nhdr", "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 8 8\nencoding: raw\n"
                                            "data file: data.raw\n"),
                    CAVR_ERROR_INVALID_DATA, "2-D");
  expect_nrrd_error(write_text("rgb.nhdr", "NRRD0004\ntype: uint8\ndimension: 4\nsizes: 2 2 2 8\nencoding: raw\n"
                                           "data file: data.raw\n"),
                    CAVR_ERROR_FILE_FORMAT, "multi-component");
  expect_nrrd_error(write_text("thin.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 8 8 1\nencoding: raw\n"
                                            "data file: data.raw\n"),
                    CAVR_ERROR_INVALID_DATA, "[2, ");
  {
    CAVRVolumeFile g;
    CAVRError e = cavrLoadNrrd(write_text("huge.nhdr", "NRRD0004\ntype: float\ndimension: 3\n"
                                                       "sizes: 4000000000 4000000000 4000000000\nencoding: raw\n"
                                                       "data file: data.raw\n"),
                               &g, msg, sizeof msg);
    printf("huge sizes -> %s: %s\n", cavrGetErrorString(e), msg);
    CHECK(e != CAVR_ERROR_NONE && g.data == NULL);
  }

  /* Raw files with dims on the command line. */
  int d4[3] = {4, 4, 4}, dbad[3] = {4, 4, 1}, dbig[3] = {4, 4, 100000};
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), CAVR_UINT8, d4, NULL, &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(f.spacing[1] == 1.0 && f.bytes == 64);
  cavrFreeVolumeFile(&f);
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 63), CAVR_UINT8, d4, NULL, &f, msg, sizeof msg) == CAVR_ERROR_FILE_TRUNCATED);
  CHECK(strstr(msg, "63 of 64"));
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), CAVR_UINT16, d4, NULL, &f, msg, sizeof msg) == CAVR_ERROR_FILE_TRUNCATED);
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), CAVR_UINT8, (int[3]){2, 2, 2}, NULL, &f, msg, sizeof msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), CAVR_UINT8, dbad, NULL, &f, msg, sizeof msg) == CAVR_ERROR_INVALID_DATA);
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), CAVR_UINT8, dbig, NULL, &f, msg, sizeof msg) == CAVR_ERROR_INVALID_DATA);
  CHECK(cavrLoadRaw("/nonexistent.raw", CAVR_UINT8, d4, NULL, &f, msg, sizeof msg) == CAVR_ERROR_IO);
  CHECK(cavrLoadRaw(write_file("ok.raw", bytes, 64), (CAVRScalarType)99, d4, NULL, &f, msg, sizeof msg) == CAVR_ERROR_UNSUPPORTED);

  /* The core's own checks: sizes, overflow, types, NaN/Inf. */
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, d4, bytes, 63), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, dbad, bytes, 16), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, (int[3]){0, 0, 0}, bytes, 0), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, (int[3]){-5, 4, 4}, bytes, 64), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, (int[3]){1 << 30, 1 << 30, 1 << 30}, bytes, 64), CAVR_ERROR_INVALID_DATA);
  CHECK_ERR(cavrSetVolumeData(s.vol, (CAVRScalarType)42, d4, bytes, 64), CAVR_ERROR_UNSUPPORTED);
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, d4, NULL, 64), CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(s.dev, NULL);
  float fv[64];
  for (int i = 0; i < 64; ++i) fv[i] = (float)i;
  fv[21] = NAN;
  fv[40] = INFINITY;
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_FLOAT32, d4, fv, sizeof fv), CAVR_ERROR_INVALID_DATA);
  const char *m;
  CHECK(cavrGetDeviceError(s.dev, &m) == CAVR_ERROR_INVALID_DATA);
  printf("NaN volume: %s\n", m);
  CHECK(strstr(m, "2 NaN or infinite voxels") && strstr(m, "x=1 y=1 z=1"));
  double dv[8] = {0, 1, 2, 3, 4, 5, 6, 7e10};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_FLOAT64, (int[3]){2, 2, 2}, dv, sizeof dv)); /* converted to float */
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrGetVolumeRange(s.vol, range));
  CHECK(range[0] == 0.0 && range[1] == (double)(float)7e10);
  short sv[8] = {-32768, -1, 0, 1, 2, 3, 4, 32767};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_INT16, (int[3]){2, 2, 2}, sv, sizeof sv)); /* stored offset, exact */
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrGetVolumeRange(s.vol, range));
  CHECK(range[0] == -32768.0 && range[1] == 32767.0);
  /* The volume keeps its last good data after a rejected set. */
  CHECK_ERR(cavrSetVolumeData(s.vol, CAVR_UINT8, dbad, bytes, 16), CAVR_ERROR_INVALID_DATA);
  CHECK_OK(cavrGetVolumeRange(s.vol, range));
  CHECK(range[1] == 32767.0);

  /* Output and transfer-function files. */
  uint8_t px[16] = {255, 0, 0, 255};
  CHECK(cavrWritePng("/nonexistent/dir/out.png", px, 2, 2, msg, sizeof msg) == CAVR_ERROR_IO);
  snprintf(text, sizeof text, "%s/ok.png", dir);
  CHECK(cavrWritePng(text, px, 2, 2, msg, sizeof msg) == CAVR_ERROR_NONE);
  float table[4 * 64];
  double tr[2], dataRange[2] = {100, 200};
  CHECK(cavrLoadTransferFunctionFile(write_text("a.tf", "# comment\n0 0 0 0 0\n50 1 0.5 0 0.5 # mid\n100 1 1 1 1\n"),
                                     NULL, table, 64, tr, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(tr[0] == 0.0 && tr[1] == 100.0 && table[4 * 63 + 3] == 1.0f && table[3] == 0.0f);
  CHECK(cavrLoadTransferFunctionFile(write_text("n.tf", "domain normalized\n0.5 0 0 0 0\n1 1 1 1 1\n"), dataRange, table,
                                     64, tr, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(tr[0] == 150.0 && tr[1] == 200.0);
  CHECK(cavrLoadTransferFunctionFile(write_text("b.tf", "0 0 0 0 0\n10 1 1 1\n"), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(strstr(msg, ":2:"));
  CHECK(cavrLoadTransferFunctionFile(write_text("c.tf", "5 0 0 0 0\n5 1 1 1 1\n"), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(cavrLoadTransferFunctionFile(write_text("d.tf", "# empty\n"), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(cavrLoadTransferFunctionFile(write_text("e.tf", "0 0 0 0 0\n1 1 1 1 1.5\n"), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(cavrTransferFunctionPreset("nope", table, 64, msg, sizeof msg) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "ct-bone"));
  /* A bare "domain" line (fuzzing reproducer ZG9tYWlu): a format error, nothing read uninitialised. */
  CHECK(cavrLoadTransferFunctionFile(write_text("f.tf", "domain"), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(strstr(msg, "domain scalar"));

  /* Finite float voxels of +-3e38 (fuzzing reproducer): trilinear interpolation between them overflows to NaN;
     the render must map such samples to the table's first entry, not convert NaN to an integer (UBSan checks),
     and every pixel stays finite and in [0, 1]. */
  CAVRVolumeFile hv;
  CHECK(cavrLoadNrrd(write_text("huge.nrrd", "NRRD0004\ntype: float\ndimension: 3\nsizes: 2 2 2\nencoding: ascii\n\n"
                                             "3e38 -3e38 3e38 -3e38 3e38 -3e38 3e38 -3e38\n"),
                     &hv, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetVolumeData(s.vol, hv.type, hv.dims, hv.data, hv.bytes));
  CHECK_OK(cavrCommitVolume(s.vol));
  tf_constant(s.tf, 1.0f, 0.5f, 0.25f, 0.5f, -3e38, 3e38);
  const double hb[6] = {0, 1, 0, 1, 0, 1};
  CHECK_OK(cavrSetCameraOrbit(s.cam, hb, 30, 40, 0, CAVR_PROJECTION_ORTHOGRAPHIC, 1.0));
  CHECK_OK(cavrCommitCamera(s.cam));
  for (int mode = CAVR_BLEND_COMPOSITE; mode <= CAVR_BLEND_AVERAGE_INTENSITY; ++mode)
    for (int shade = 0; shade <= 1; ++shade) { /* every blend mode, the scalar and the packet paths */
      CHECK_OK(cavrSetRenderBlendMode(s.set, (CAVRBlendMode)mode));
      CHECK_OK(cavrSetRenderShading(s.set, shade, 0.2, 0.7, 0.3, 20.0));
      CHECK_OK(cavrCommitRenderSettings(s.set));
      CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
      const float *hp = cavrGetFrameBufferData(s.fb, CAVR_FB_COLOR_RGBA32F);
      int lit = 0;
      for (int i = 0; i < s.w * s.h * 4; ++i) {
        CHECK(hp[i] >= 0.0f && hp[i] <= 1.0f);
        lit += hp[i] > 0.0f;
      }
      CHECK(lit > 0);
    }
  CHECK_OK(cavrSetRenderBlendMode(s.set, CAVR_BLEND_COMPOSITE));
  CHECK_OK(cavrSetRenderShading(s.set, 0, 0.2, 0.7, 0.3, 20.0));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  cavrFreeVolumeFile(&hv);

  cavrFreeVolumeFile(&gz);
  scene_free(&s);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return 0;
}

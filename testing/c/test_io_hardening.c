// SPDX-License-Identifier: BSD-3-Clause
/*
 * The volume and transfer-function loaders against hostile input: the fuzzing reproducers
 * (base64, as reported), the header read and checked before any data (no allocation beyond what the file holds,
 * no standard input, no other format through teem's other readers), every encoding and data-file form still
 * loading the right voxels, and resident memory that stays flat over 10^4 loads of malformed files.
 */
#include <bzlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "test_util.h"

static char dir[256];

static const char *write_file(const char *name, const void *data, size_t n) {
  static char path[8][512];
  static int slot;
  char *p = path[slot++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  CHECK(f);
  CHECK(fwrite(data, 1, n, f) == n);
  fclose(f);
  return p;
}

static const char *write_text(const char *name, const char *text) { return write_file(name, text, strlen(text)); }

/* Decode standard base64 (the reproducers as the issue gives them). Returns the byte count. */
static size_t b64(const char *in, unsigned char *out) {
  static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = 0;
  unsigned acc = 0;
  int bits = 0;
  for (; *in && *in != '='; ++in) {
    const char *p = strchr(abc, *in);
    CHECK(p);
    acc = (acc << 6) | (unsigned)(p - abc);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (unsigned char)(acc >> bits);
    }
  }
  return n;
}

static CAVRError load(const char *path, CAVRVolumeFile *f, char *msg) {
  CAVRError e = cavrLoadNrrd(path, f, msg, 512);
  printf("%s -> %s%s%s\n", strrchr(path, '/') ? strrchr(path, '/') + 1 : path, cavrGetErrorString(e), e ? ": " : "",
         e ? msg : "");
  if (e) CHECK(f->data == NULL && strstr(msg, path));
  return e;
}

/* A 4x3x2 uint16 volume, value = index * 1000 + 7, little-endian bytes. */
enum { NV = 24 };
static unsigned char le16[2 * NV];
static void check_voxels(const char *path) {
  CAVRVolumeFile f;
  char msg[512];
  CHECK(load(path, &f, msg) == CAVR_ERROR_NONE);
  CHECK(f.type == CAVR_UINT16 && f.dims[0] == 4 && f.dims[1] == 3 && f.dims[2] == 2 && f.bytes == 2 * NV);
  for (int i = 0; i < NV; ++i) CHECK(((const unsigned short *)f.data)[i] == i * 1000 + 7);
  cavrFreeVolumeFile(&f);
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    fclose(f);
  }
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/cavr-test-io-hard-%d", (int)getpid());
  CHECK(mkdir(dir, 0700) == 0);
  CAVRVolumeFile f;
  char msg[512];
  unsigned char buf[4096];
  float table[4 * 64];
  double tr[2];

  /* Reproducer 1: +-3e38 float voxels (loads; test_io renders it in every blend mode). */
  size_t n = b64("TlJSRDAwMDQKdHlwZTogZmxvYXQKZGltZW5zaW9uOiAzCnNpemVzOiAyIDIgMgplbmNvZGluZzogYXNjaWkKCjNlMzggLTNlMzggM2Uz"
                 "OCAtM2UzOCAzZTM4IC0zZTM4IDNlMzggLTNlMzgK", buf);
  CHECK(load(write_file("nan.nrrd", buf, n), &f, msg) == CAVR_ERROR_NONE);
  CHECK(f.type == CAVR_FLOAT32 && ((float *)f.data)[1] == -3e38f);
  cavrFreeVolumeFile(&f);

  /* Reproducer 2: a bare 'domain' line in a transfer-function file. */
  n = b64("ZG9tYWlu", buf);
  CHECK(cavrLoadTransferFunctionFile(write_file("domain.tf", buf, n), NULL, table, 64, tr, msg, sizeof msg) ==
        CAVR_ERROR_FILE_FORMAT);

  /* Reproducer 3: a 79-byte header declaring 1024^3 voxels: refused as truncated before anything is allocated
     (teem used to allocate and zero 1 GiB first). Peak RSS must not move by anything near that. */
  n = b64("TlJSRDAwMDQKdHlwZTogdWNoYXIKZGltZW5zaW9uOiAzCnNpemVzOiAxMDI0IDEwMjQgMTAyNAplbmNvZGluZzogcmF3CgoxMjM0NTY3OA==",
          buf);
  CHECK(n == 79);
  struct rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  CHECK(load(write_file("gig.nrrd", buf, n), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
  getrusage(RUSAGE_SELF, &ru1);
  printf("peak RSS %ld -> %ld KiB\n", ru0.ru_maxrss, ru1.ru_maxrss);
  CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 64 * 1024);
  CHECK(strstr(msg, "1024 x 1024 x 1024"));

  /* 'data file: -' (teem would read standard input: a hang inside ParaView), device files, a FIFO, the header
     named "-": all refused before teem opens anything. */
  const char *hdr = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: raw\nline skip: 1\nbyte skip: 4\n"
                    "data file: %s\n";
  char text[1024];
  snprintf(text, sizeof text, hdr, "-");
  CHECK(load(write_text("stdin.nhdr", text), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "standard input"));
  snprintf(text, sizeof text, hdr, "/dev/stdin");
  CHECK(load(write_text("devstdin.nhdr", text), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "regular file"));
  snprintf(text, sizeof text, "%s/fifo", dir);
  CHECK(mkfifo(text, 0600) == 0);
  snprintf(text, sizeof text, hdr, "fifo");
  CHECK(load(write_text("fifo.nhdr", text), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "regular file"));
  snprintf(text, sizeof text, "%s/fifo", dir);
  CHECK(load(text, &f, msg) == CAVR_ERROR_IO);
  CHECK(cavrLoadNrrd("-", &f, msg, sizeof msg) == CAVR_ERROR_IO);
  CHECK(load(write_text("list-stdin.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n"
                                           "data file: LIST\n-\n"), &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_text("fmt.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n"
                                    "data file: %s%n 1 2 1\n"), &f, msg) == CAVR_ERROR_FILE_FORMAT);

  /* Other formats named .nrrd (teem's PNM, PNG, VTK and text readers): refused at the magic. */
  CHECK(load(write_file("pgm.nrrd", "P5\n2 2\n255\n\1\2\3\4", 15), &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(strstr(msg, "not a NRRD file"));
  uint8_t px[16] = {255, 0, 0, 255};
  snprintf(text, sizeof text, "%s/png.nrrd", dir);
  CHECK(cavrWritePng(text, px, 2, 2, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK(load(text, &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_text("vtk.nrrd", "# vtk DataFile Version 3.0\nx\nBINARY\nDATASET STRUCTURED_POINTS\n"
                                    "DIMENSIONS 2 2 2\nSPACING 1 1 1\nORIGIN 0 0 0\nPOINT_DATA 8\n"
                                    "SCALARS s unsigned_char\nLOOKUP_TABLE default\n\1\2\3\4\5\6\7\10"),
             &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_text("text.nrrd", "1 2 3\n4 5 6\n"), &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_text("empty.nrrd", ""), &f, msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_text("magic-only.nrrd", "NRRD0004"), &f, msg) == CAVR_ERROR_FILE_FORMAT);

  /* Found by fuzz_nrrd / fuzz_render (corpus found_*): per-axis fields or 'data file' before 'dimension' (teem's
     parsers leak there), a magic line with a NUL after it, a gzip stream corrupt after enough bytes. */
  CHECK(load(write_text("centers.nrrd", "NRRD0004\ntype: uint8\ncenters: : 3\nsizes: 4 4 4\nencoding: raw\n\n"), &f,
             msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "before 'dimension'"));
  CHECK(load(write_text("df.nhdr", "NRRD0004\ntype: uint8\ndata file: x.raw\ndimension: 3\nsizes: 2 2 2\n"), &f, msg) ==
        CAVR_ERROR_FILE_FORMAT);
  CHECK(load(write_file("nul.nrrd", "NRRD0004\0\0NRRD0004\nkinds: 0\ntype: uint8\n", 38), &f, msg) ==
        CAVR_ERROR_FILE_FORMAT);
  /* Found by fuzz_nrrd (2026-11-25, corpus found_list_nul_line): a LIST of data files whose second name line holds
     NUL bytes; teem's error message about it read past the line's buffer (heap overflow in teem 1.12). Refused
     before teem parses the header, and likewise a NUL inside an ordinary header line. */
  n = b64(
      "TlJSRDAwMDYKdHlwZTogdWludDE2CmRpbWVuc2lvbjogMwpzaXplczogNCAzIDIKZW5kaWFuOiBsaXR0bGUKZW5jb2Rpbmc6IHJh"
      "dwpkYXRhIGZpbGU6IExJU1QgMQpkMCAyCmQxIDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      "AAAACgpAQGQwCnh4BwDvA9cHvwunD48TdxdfG0cfLyMXJ/8qCkBAZDEK5y7PMrc2nzqHPm9CV0Y/SidOD1L3Vd9Z",
      buf);
  write_file("d0", "0123456789012345678901234567890123456789", 40); /* the listed data files exist */
  write_file("d1", "0123456789012345678901234567890123456789", 40);
  CHECK(load(write_file("list-nul.nhdr", buf, n), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "NUL byte"));
  /* Found by fuzz_nrrd (2026-11-25; corpus found_list_skip_eof): the LIST's last line, without a
     newline, has a byte skip that is not a number; teem's error message about it read past the line's buffer (heap
     overflow in teem 1.12). Refused in the header scan: after a LIST file name only one integer may follow. */
  n = b64(
      "TlJSRDAwMDYKdHlwZTogdWludDE2CmRpbWVuc2lvbjogMwpzaXplczogNCAzIDIKZW5kaWFuOiBsaXR0bGUKZW5jb2Rpbmc6IHJh"
      "dwpkYXRhIGZpbGU6IExJU1QgMQpkMCAyCmQxIJ86hz5vQldGP0onTg9S91XfWQ==",
      buf);
  CHECK(load(write_file("list-skip.nhdr", buf, n), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "byte skip"));
  /* Found by fuzz_render (2026-11-25; corpus render/found_magic_nul_text): a NUL inside the magic line
     ("NRRD0004\0t ..."); teem took the file for its plain-text format and leaked 8 KB on its error path. Refused
     as not a NRRD file before teem sees it. */
  n = b64(
      "TlJSRDAwMDQAdCBpbWVuc25jb25hbmRyczogM2UzLQogODNlM2luY2VudGVyczogM2UzLQogxsbGxsbGxsbGxsbGxsbGxsbGxsbG"
      "xsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsaeM2UzOCAzZTM4IC0zZTMglQFpbWVuc2lyczo=",
      buf);
  CHECK(load(write_file("magic-nul.nrrd", buf, n), &f, msg) == CAVR_ERROR_FILE_FORMAT &&
        strstr(msg, "not a NRRD file"));
  CHECK(load(write_file("field-nul.nrrd",
                        "NRRD0004\ntype: uint8\0x\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n\n12345678", 72),
             &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "NUL byte"));
  {
    unsigned char gzc[4096];
    FILE *in = fopen(CAVR_DATA_DIR "/../testing/fuzz/corpus/nrrd/found_gzip_corrupt_leak", "rb");
    CHECK(in);
    size_t gn = fread(gzc, 1, sizeof gzc, in);
    fclose(in);
    const unsigned char *sep = NULL;
    for (size_t i = 0; !sep && i + 6 <= gn; ++i)
      if (!memcmp(gzc + i, "\n@@d0\n", 6)) sep = gzc + i;
    CHECK(sep);
    write_file("d0", sep + 6, gn - (size_t)(sep + 6 - gzc));
    CHECK(load(write_file("gzc.nhdr", gzc, (size_t)(sep - gzc) + 1), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
  }

  /* Transfer functions with points at +-1e308 (the span overflows; the table was NaN) and normalized points
     outside [0,1]. */
  CHECK(cavrLoadTransferFunctionFile(write_text("big.tf", "-1e308 0 0 0 0\n1e308 1 1 1 1\n"), NULL, table, 64, tr, msg,
                                     sizeof msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(strstr(msg, "double"));
  double range[2] = {0, 1};
  CHECK(cavrLoadTransferFunctionFile(write_text("norm.tf", "domain normalized\n0 0 0 0 0\n2 1 1 1 1\n"), range, table,
                                     64, tr, msg, sizeof msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(cavrLoadTransferFunctionFile(write_text("wide.tf", "-1e307 0 0 0 0\n1e307 1 1 1 1\n"), NULL, table, 64, tr, msg,
                                     sizeof msg) == CAVR_ERROR_NONE);
  for (int i = 0; i < 4 * 64; ++i) CHECK(table[i] >= 0.0f && table[i] <= 1.0f);
  /* Found by fuzz_tf_msan (corpus tf/found_normalized_denormal): normalized points 0 and 1.1e-319 collapse to one
     scalar; scalar points 1e-320 apart overflow the table's index scale. Both refused; the core refuses such a
     range too. */
  double wide[2] = {-100, 4000};
  CHECK(cavrLoadTransferFunctionFile(write_text("denorm.tf", "domain normalized\n0. 0 0 0 0\n11e-320 1 1 1 1\n"), wide,
                                     table, 64, tr, msg, sizeof msg) == CAVR_ERROR_FILE_FORMAT);
  CHECK(strstr(msg, "too narrow"));
  CHECK(cavrLoadTransferFunctionFile(write_text("tiny.tf", "0 0 0 0 0\n1e-320 1 1 1 1\n"), NULL, table, 64, tr, msg,
                                     sizeof msg) == CAVR_ERROR_FILE_FORMAT);
  {
    CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU);
    CAVRTransferFunction tf = cavrNewTransferFunction(dev);
    CHECK(dev && tf);
    CHECK(cavrSetTransferFunctionTable(tf, table, 64, 0.0, 1e-30) == CAVR_ERROR_INVALID_ARGUMENT);
    CHECK(cavrSetTransferFunctionTable(tf, table, 64, -1e5, 1e5) == CAVR_ERROR_NONE);
    cavrReleaseTransferFunction(tf);
    cavrReleaseDevice(dev);
  }

  /* Every encoding and data-file form still reads the same voxels. */
  for (int i = 0; i < NV; ++i) {
    le16[2 * i] = (unsigned char)((i * 1000 + 7) & 255);
    le16[2 * i + 1] = (unsigned char)((i * 1000 + 7) >> 8);
  }
  const char *h16 = "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\n";
  write_file("v.raw", le16, sizeof le16);
  snprintf(text, sizeof text, "%sencoding: raw\ndata file: v.raw\n", h16);
  check_voxels(write_text("raw.nhdr", text));
  { /* attached raw, attached ascii, attached hex */
    size_t hl = (size_t)snprintf(text, sizeof text, "%sencoding: raw\n\n", h16);
    memcpy(text + hl, le16, sizeof le16);
    check_voxels(write_file("raw.nrrd", text, hl + sizeof le16));
    char *p = text + snprintf(text, sizeof text, "%sencoding: ascii\n\n", h16);
    for (int i = 0; i < NV; ++i) p += sprintf(p, "%d%c", i * 1000 + 7, i % 4 == 3 ? '\n' : ' ');
    check_voxels(write_text("ascii.nrrd", text));
    text[strlen(text) - 8] = '\0'; /* two values short */
    CHECK(load(write_text("ascii-short.nrrd", text), &f, msg) != CAVR_ERROR_NONE);
    p = text + snprintf(text, sizeof text, "%sencoding: hex\n\n", h16);
    for (size_t i = 0; i < sizeof le16; ++i) p += sprintf(p, "%02x%s", le16[i], i % 16 == 15 ? "\n" : "");
    check_voxels(write_text("hex.nrrd", text));
  }
  { /* gzip and bzip2, detached and attached; truncated copies are refused */
    static unsigned char gz[4096];
    snprintf(text, sizeof text, "%s/v.raw.gz", dir);
    gzFile g = gzopen(text, "wb");
    CHECK(g && gzwrite(g, le16, sizeof le16) == (int)sizeof le16);
    gzclose(g);
    FILE *in = fopen(text, "rb");
    size_t gzn = fread(gz, 1, sizeof gz, in);
    fclose(in);
    snprintf(text, sizeof text, "%sencoding: gzip\ndata file: v.raw.gz\n", h16);
    check_voxels(write_text("gz.nhdr", text));
    size_t hl = (size_t)snprintf(text, sizeof text, "%sencoding: gzip\n\n", h16);
    memcpy(text + hl, gz, gzn);
    check_voxels(write_file("gz.nrrd", text, hl + gzn));
    CHECK(load(write_file("gz-cut.nrrd", text, hl + gzn - 12), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
    unsigned int bzn = sizeof gz;
    CHECK(BZ2_bzBuffToBuffCompress((char *)gz, &bzn, (char *)le16, sizeof le16, 9, 0, 0) == BZ_OK);
    write_file("v.raw.bz2", gz, bzn);
    snprintf(text, sizeof text, "%sencoding: bzip2\ndata file: v.raw.bz2\n", h16);
    check_voxels(write_text("bz2.nhdr", text));
    write_file("cut.raw.bz2", gz, bzn / 2);
    snprintf(text, sizeof text, "%sencoding: bzip2\ndata file: cut.raw.bz2\n", h16);
    CHECK(load(write_text("bz2-cut.nhdr", text), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
  }
  /* Byte skip, line skip; LIST and numbered data files (one z slice each). */
  {
    unsigned char skipped[8 + 2 * NV];
    memcpy(skipped, "ab\ncdefg", 8);
    memcpy(skipped + 8, le16, sizeof le16);
    write_file("skip.raw", skipped, sizeof skipped);
    snprintf(text, sizeof text, "%sencoding: raw\nline skip: 1\nbyte skip: 5\ndata file: skip.raw\n", h16);
    check_voxels(write_text("lineskip.nhdr", text));
    snprintf(text, sizeof text, "%sencoding: raw\nbyte skip: -1\ndata file: skip.raw\n", h16);
    check_voxels(write_text("tailskip.nhdr", text));
    snprintf(text, sizeof text, "%sencoding: raw\nbyte skip: 9\ndata file: skip.raw\n", h16); /* one byte short */
    CHECK(load(write_text("overskip.nhdr", text), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
    write_file("slice1.raw", le16, NV);
    write_file("slice2.raw", le16 + NV, NV);
    snprintf(text, sizeof text, "%sencoding: raw\ndata file: LIST 2\nslice1.raw\nslice2.raw\n", h16);
    check_voxels(write_text("list.nhdr", text));
    snprintf(text, sizeof text, "%sencoding: raw\ndata file: slice%%d.raw 1 2 1 2\n", h16);
    check_voxels(write_text("numbered.nhdr", text));
    write_file("slice2.raw", le16 + NV, NV - 1);
    CHECK(load(write_text("numbered-short.nhdr", text), &f, msg) == CAVR_ERROR_FILE_TRUNCATED);
    snprintf(text, sizeof text, "%sencoding: raw\ndata file: slice%%d.raw 1 200000 1 2\n", h16);
    CHECK(load(write_text("numbered-many.nhdr", text), &f, msg) != CAVR_ERROR_NONE);
    snprintf(text, sizeof text, "NRRD0006\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: zrl\n\n\1\2");
    CHECK(load(write_text("zrl.nrrd", text), &f, msg) == CAVR_ERROR_FILE_FORMAT && strstr(msg, "zrl"));
  }

  /* 10^4 loads of malformed files: resident memory stays flat (nothing leaks per load). Measured after a
     warm-up, so that teem's and libc's one-time buffers are in; allowed growth 512 KiB (10^4 loads leaking even
     60 bytes each would exceed it). Under AddressSanitizer freed memory sits in a quarantine, so there the
     loads run (LeakSanitizer checks them at exit) but RSS is not compared. */
  const char *bad[16];
  int nb = 0;
  bad[nb++] = write_text("m-text.nrrd", "1 2 3\n4 5 6\n");
  bad[nb++] = write_file("m-pgm.nrrd", "P5\n2 2\n255\n\1\2\3\4", 15);
  bad[nb++] = write_text("m-type.nhdr", "NRRD0004\ntype: banana\ndimension: 3\nsizes: 4 4 4\n");
  bad[nb++] = write_text("m-sizes.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 x 4\nencoding: raw\n\n");
  bad[nb++] = write_text("m-nodata.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n");
  bad[nb++] = write_text("m-missing.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n"
                                           "data file: nowhere.raw\n");
  bad[nb++] = write_text("m-short.nhdr", "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\n"
                                         "encoding: raw\ndata file: slice1.raw\n");
  bad[nb++] = write_text("m-gzcut.nhdr", "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\n"
                                         "encoding: gzip\ndata file: gz-cut.nrrd\n");
  bad[nb++] = write_text("m-bzcut.nhdr", "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 4 3 2\nendian: little\n"
                                         "encoding: bzip2\ndata file: cut.raw.bz2\n");
  bad[nb++] = write_text("m-2d.nhdr", "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 4 4\nencoding: raw\n"
                                      "data file: v.raw\n");
  bad[nb++] = write_text("m-ascii.nrrd", "NRRD0004\ntype: float\ndimension: 3\nsizes: 2 2 2\nencoding: ascii\n\n"
                                         "1 2 3 x 5 6 7 8\n");
  bad[nb++] = write_text("m-kinds.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nkinds: a b c\n"
                                         "encoding: raw\n\n12345678");
  bad[nb++] = write_text("m-stdin.nhdr", "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n"
                                         "data file: -\n");
  long before = 0;
  for (int i = 0; i < 10000; ++i) {
    if (i == 1000) before = rss_kib();
    CAVRError e = cavrLoadNrrd(bad[i % nb], &f, msg, sizeof msg);
    CHECK(e != CAVR_ERROR_NONE && f.data == NULL);
    CHECK(cavrLoadTransferFunctionFile(bad[i % nb], NULL, table, 64, tr, msg, sizeof msg) != CAVR_ERROR_NONE);
  }
  long after = rss_kib();
  printf("RSS over 9000 malformed loads (%d kinds): %ld -> %ld KiB\n", nb, before, after);
#if defined(__SANITIZE_ADDRESS__)
  printf("(AddressSanitizer build: RSS not compared; LeakSanitizer checks at exit)\n");
#else
  CHECK(before > 0 && after - before <= 512);
#endif

  snprintf(text, sizeof text, "rm -rf %s", dir);
  CHECK(system(text) == 0);
  return 0;
}

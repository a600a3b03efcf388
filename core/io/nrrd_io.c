// SPDX-License-Identifier: BSD-3-Clause
/*
 * nrrd_io.c - volume files: NRRD through teem (the reference NRRD implementation), headerless raw.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CAVR_NO_IO_LIBS
#include <bzlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <teem/nrrd.h>
#include <zlib.h>
#endif

#include "cavr/cavr_io.h"
#include "cavr/cavr_volume.h"

static size_t type_size(CAVRScalarType t) {
  switch (t) {
  case CAVR_UINT8: case CAVR_INT8: return 1;
  case CAVR_UINT16: case CAVR_INT16: return 2;
  case CAVR_FLOAT32: case CAVR_UINT32: case CAVR_INT32: return 4;
  case CAVR_FLOAT64: return 8;
  }
  return 0;
}

static CAVRError check_dims(const int dims[3], const char *path, char *msg, size_t msgSize) {
  for (int a = 0; a < 3; ++a)
    if (dims[a] < 2 || dims[a] > CAVR_MAX_VOLUME_DIM) {
      snprintf(msg, msgSize, "%s: dimensions %d x %d x %d: each must be in [2, %d]", path, dims[0], dims[1], dims[2],
               CAVR_MAX_VOLUME_DIM);
      return CAVR_ERROR_INVALID_DATA;
    }
  return CAVR_ERROR_NONE;
}

void cavrFreeVolumeFile(CAVRVolumeFile *file) {
  if (!file) return;
  free(file->data);
  file->data = NULL;
  file->bytes = 0;
}

static void init_file(CAVRVolumeFile *out) {
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; ++a) out->spacing[a] = 1.0;
}

#ifndef CAVR_NO_IO_LIBS
/*
 * Reading a NRRD in two passes. teem reads a file in one call: it allocates and zeroes the whole array that
 * the header declares, then reads the data; a file whose first line is not a NRRD magic goes to teem's other
 * readers (PNM, PNG, VTK, text), and a data file of "-" is standard input. So we first read the header
 * ourselves (the magic, the data-file names: no "-", no FIFO or device, each a regular file), let teem parse
 * it with skipData (no allocation), and check that the files can hold what the header declares for its
 * encoding (compressed data is decompressed and counted, in constant memory). Only then does teem read.
 */
#define HEADER_MAX (1u << 20)   /* bytes of header (with a LIST of data files) we read before refusing */
#define MAX_DATA_FILES 16384    /* data files one header may name */

typedef struct DataFiles {
  int count;
  char (*name)[4096];  /* resolved paths */
  long long *size;     /* bytes of each */
} DataFiles;

static void free_files(DataFiles *df) {
  free(df->name);
  free(df->size);
  memset(df, 0, sizeof *df);
}

/* Append one data file (a name from the header, relative to the header's folder unless absolute). */
static CAVRError add_file(DataFiles *df, const char *path, const char *name, char *msg, size_t msgSize) {
  if (!strcmp(name, "-")) {
    snprintf(msg, msgSize, "%s: data file '-' (standard input) is not supported: name a file", path);
    return CAVR_ERROR_FILE_FORMAT;
  }
  if (df->count == MAX_DATA_FILES) {
    snprintf(msg, msgSize, "%s: more than %d data files", path, MAX_DATA_FILES);
    return CAVR_ERROR_FILE_FORMAT;
  }
  if (!df->name) {
    df->name = malloc(sizeof *df->name);
    df->size = malloc(sizeof *df->size);
  } else if ((df->count & (df->count - 1)) == 0) { /* grow at powers of two */
    void *n = realloc(df->name, 2 * (size_t)df->count * sizeof *df->name);
    if (n) df->name = n;
    void *z = realloc(df->size, 2 * (size_t)df->count * sizeof *df->size);
    if (z) df->size = z;
    if (!n || !z) df->count = -df->count - 1; /* mark failure below */
  }
  if (!df->name || !df->size || df->count < 0) {
    if (df->count < 0) df->count = -df->count - 1;
    snprintf(msg, msgSize, "%s: out of memory for the data-file list", path);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  char *dst = df->name[df->count];
  const char *slash = strrchr(path, '/');
  int n;
  if (name[0] == '/' || !slash)
    n = snprintf(dst, sizeof *df->name, "%s", name);
  else
    n = snprintf(dst, sizeof *df->name, "%.*s/%s", (int)(slash - path), path, name);
  if (n < 0 || (size_t)n >= sizeof *df->name) {
    snprintf(msg, msgSize, "%s: data file name too long", path);
    return CAVR_ERROR_FILE_FORMAT;
  }
  struct stat st;
  if (stat(dst, &st) != 0) {
    snprintf(msg, msgSize, "%s: cannot open data file %s: %s", path, dst, strerror(errno));
    return CAVR_ERROR_IO;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(msg, msgSize, "%s: data file %s is not a regular file (a pipe, device or folder)", path, dst);
    return CAVR_ERROR_FILE_FORMAT;
  }
  df->size[df->count++] = (long long)st.st_size;
  return CAVR_ERROR_NONE;
}

/* A printf format with exactly one conversion, an int ("%d", "%03d"), and no other '%'. */
static int int_format(const char *f) {
  int conv = 0;
  for (const char *c = f; *c; ++c) {
    if (*c != '%') continue;
    ++c;
    while (*c >= '0' && *c <= '9') ++c;
    if (*c != 'd') return 0;
    ++conv;
  }
  return conv == 1;
}

/* Read up to HEADER_MAX bytes of the file's start into a new NUL-terminated buffer: *buf (free it), *got bytes read,
   *cap bytes asked for. */
static CAVRError read_head(const char *path, long long fileSize, char **buf, size_t *got, size_t *cap, char *msg,
                           size_t msgSize) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  *cap = fileSize < (long long)HEADER_MAX ? (size_t)fileSize : HEADER_MAX;
  *buf = malloc(*cap + 1);
  if (!*buf) {
    fclose(f);
    snprintf(msg, msgSize, "%s: out of memory", path);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  *got = fread(*buf, 1, *cap, f);
  fclose(f);
  (*buf)[*got] = '\0';
  return CAVR_ERROR_NONE;
}

/* The first line must be a NRRD magic, alone on its line, with more after it. *eol receives its length. */
static CAVRError check_magic(const char *path, char *buf, size_t got, size_t *eol, char *msg, size_t msgSize) {
  static const char *magic[] = {"NRRD00.01", "NRRD0001", "NRRD0002", "NRRD0003", "NRRD0004", "NRRD0005", "NRRD0006"};
  /* Lines end at '\n' only; teem then reads each line as a C string (up to a NUL), and so do we. */
  const char *nl0 = memchr(buf, '\n', got);
  *eol = nl0 ? (size_t)(nl0 - buf) : got;
  buf[*eol] = '\0';
  size_t mlen = strlen(buf);
  const int nulInMagic = mlen != *eol;
  if (mlen > 0 && buf[mlen - 1] == '\r') buf[--mlen] = '\0';
  int isNrrd = 0;
  for (int i = 0; i < 7; ++i) isNrrd |= !strcmp(buf, magic[i]);
  /* A NUL inside the magic line: the magic matches up to it, but teem then takes the file for its plain-text format,
     whose error paths leak (teem 1.12, found by fuzz_render): not a NRRD file. */
  if (nulInMagic) isNrrd = 0;
  if (!isNrrd || *eol == got) {
    snprintf(msg, msgSize,
             "%s: not a NRRD file: it does not start with a NRRD magic line (NRRD0001 ... NRRD0006, alone on its line)",
             path);
    return CAVR_ERROR_FILE_FORMAT;
  }
  return CAVR_ERROR_NONE;
}

/* A line after "data file: LIST": a data file's name, optionally followed by a byte skip (NRRD0006). */
static CAVRError scan_list_line(const char *path, const char *line, size_t len, DataFiles *df, char *msg,
                                size_t msgSize) {
  char name[4096];
  int used = 0;
  if (len == 0 || sscanf(line, "%4095s%n", name, &used) != 1) return CAVR_ERROR_NONE;
  /* Anything after the name must be one integer: teem's error message for an unparsable byte skip reads past
     the line's buffer when the line is the file's last and has no newline (teem 1.12, found by fuzz_nrrd). */
  const char *p = line + used;
  while (*p == ' ' || *p == '\t') ++p;
  if (*p) {
    char *end;
    (void)strtoll(p, &end, 10);
    const char *digitsEnd = end;
    while (*end == ' ' || *end == '\t') ++end;
    if (digitsEnd == p || *end) {
      snprintf(msg, msgSize, "%s: LIST line for '%.200s': what follows the file name must be a byte skip (an integer)",
               path, name);
      return CAVR_ERROR_FILE_FORMAT;
    }
  }
  return add_file(df, path, name, msg, msgSize);
}

/* teem's parsers of per-axis and space fields return without freeing their scratch strings when the dimension (or
   space) is not yet known: refuse that order here (the format requires it anyway). `b` is the field's name, n long. */
static CAVRError check_field_order(const char *path, const char *b, size_t n, int seenDim, int seenSpace, char *msg,
                                   size_t msgSize) {
  static const char *perAxis[] = {"sizes", "spacings", "thicknesses", "axis mins", "axismins", "axis maxs",
                                  "axismaxs", "centers", "centerings", "kinds", "labels", "units"};
  static const char *perSpace[] = {"space directions", "space units", "space origin", "measurement frame"};
  for (size_t k = 0; k < sizeof perAxis / sizeof *perAxis; ++k)
    if (n == strlen(perAxis[k]) && !strncasecmp(b, perAxis[k], n) && !seenDim) {
      snprintf(msg, msgSize, "%s: field '%s' comes before 'dimension'", path, perAxis[k]);
      return CAVR_ERROR_FILE_FORMAT;
    }
  for (size_t k = 0; k < sizeof perSpace / sizeof *perSpace; ++k)
    if (n == strlen(perSpace[k]) && !strncasecmp(b, perSpace[k], n) && (!seenDim || !seenSpace)) {
      snprintf(msg, msgSize, "%s: field '%s' comes before 'dimension' and 'space' (or 'space dimension')", path,
               perSpace[k]);
      return CAVR_ERROR_FILE_FORMAT;
    }
  return CAVR_ERROR_NONE;
}

/* The value of a "data file" field (v, trailing blanks removed here): LIST (*list set: the lines that follow name
   the files), "FORMAT MIN MAX STEP [DIM]" (numbered files) or one file name. */
static CAVRError scan_data_file_field(const char *path, char *v, int *list, DataFiles *df, char *msg, size_t msgSize) {
  CAVRError code = CAVR_ERROR_NONE;
  while (*v == ' ' || *v == '\t') ++v;
  char *ve = v + strlen(v);
  while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) *--ve = '\0';
  char fmt[4096];
  int lo, hi, step, dim, nf = sscanf(v, "%4095s %d %d %d %d", fmt, &lo, &hi, &step, &dim);
  if (!strncmp(v, "LIST", 4) && (v[4] == '\0' || v[4] == ' ' || v[4] == '\t')) {
    *list = 1;
  } else if (nf >= 4) { /* "format min max step [dim]": numbered data files */
    if (!int_format(fmt) || step == 0 || (step > 0 ? lo > hi : lo < hi)) {
      snprintf(msg, msgSize, "%s: data file '%s': expected 'FORMAT MIN MAX STEP' with one %%d in FORMAT", path, v);
      code = CAVR_ERROR_FILE_FORMAT;
    }
    for (long long i = lo; code == CAVR_ERROR_NONE && (step > 0 ? i <= hi : i >= hi); i += step) {
      char name[4096 + 16];
      snprintf(name, sizeof name, fmt, (int)i);
      code = add_file(df, path, name, msg, msgSize);
    }
  } else if (nf == 1 && !strchr(v, ' ') && !strchr(v, '\t')) {
    code = add_file(df, path, v, msg, msgSize);
  } else {
    snprintf(msg, msgSize, "%s: cannot read the data file field '%s'", path, v);
    code = CAVR_ERROR_FILE_FORMAT;
  }
  return code;
}

/* Where scan_header is in the header. */
typedef struct HeaderScan {
  int list, seenDim, seenSpace; /* after "data file: LIST"; "dimension" and "space" (or "space dimension") seen */
} HeaderScan;

/* One "field: value" line (line[0] is not '#'; colon points into line): the field order, the data files. */
static CAVRError scan_field(const char *path, char *line, char *colon, HeaderScan *hs, DataFiles *df, char *msg,
                            size_t msgSize) {
  char *b = line, *e = colon;
  while (*b == ' ' || *b == '\t') ++b;
  while (e > b && (e[-1] == ' ' || e[-1] == '\t')) --e;
  size_t n = (size_t)(e - b);
  CAVRError code = check_field_order(path, b, n, hs->seenDim, hs->seenSpace, msg, msgSize);
  if (code != CAVR_ERROR_NONE) return code;
  hs->seenDim |= n == 9 && !strncasecmp(b, "dimension", 9) && colon[1] != '=';
  hs->seenSpace |= ((n == 5 && !strncasecmp(b, "space", 5)) || (n == 15 && !strncasecmp(b, "space dimension", 15))) &&
                   colon[1] != '=';
  if (!((n == 9 && !strncasecmp(b, "data file", 9)) || (n == 8 && !strncasecmp(b, "datafile", 8)))) return code;
  if (colon[1] == '=') return code; /* a key/value pair "data file:=...", not the field */
  if (!hs->seenDim) { /* teem's parser would leak here, as above */
    snprintf(msg, msgSize, "%s: field 'data file' comes before 'dimension'", path);
    return CAVR_ERROR_FILE_FORMAT;
  }
  return scan_data_file_field(path, colon + 1, &hs->list, df, msg, msgSize);
}

/* Read the header: check the magic, find the data files, measure them. headerLen receives the bytes before
   attached data (the header and its blank line); df stays empty for attached data. */
static CAVRError scan_header(const char *path, long long fileSize, size_t *headerLen, DataFiles *df, char *msg,
                             size_t msgSize) {
  char *buf;
  size_t got, cap, eol;
  CAVRError code = read_head(path, fileSize, &buf, &got, &cap, msg, msgSize);
  if (code != CAVR_ERROR_NONE) return code;
  code = check_magic(path, buf, got, &eol, msg, msgSize);
  if (code != CAVR_ERROR_NONE) {
    free(buf);
    return code;
  }
  *headerLen = 0;
  char *line = buf + eol + 1;
  HeaderScan hs = {0, 0, 0};
  while (code == CAVR_ERROR_NONE && line < buf + got) {
    const char *nl = memchr(line, '\n', (size_t)(buf + got - line));
    size_t len = nl ? (size_t)(nl - line) : (size_t)(buf + got - line);
    int atEnd = !nl;
    if (atEnd && got == cap && (long long)cap < fileSize && *headerLen == 0) {
      snprintf(msg, msgSize, "%s: header longer than %u bytes", path, HEADER_MAX);
      code = CAVR_ERROR_FILE_FORMAT;
      break;
    }
    char *next = line + len + (atEnd ? 0 : 1);
    if (memchr(line, '\0', len)) {
      /* teem reads header lines (and a LIST's file names) as C strings; one with a NUL byte inside makes its
         error message read past the line's buffer (teem 1.12, found by fuzz_nrrd). Refused here. */
      snprintf(msg, msgSize, "%s: a NUL byte inside a header line", path);
      code = CAVR_ERROR_FILE_FORMAT;
      break;
    }
    line[len] = '\0';
    int blank = len == 0 || (len == 1 && line[0] == '\r');
    len = strlen(line);
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (hs.list) { /* LIST: every further line names a data file (NRRD0006: "name [byte skip]") */
      code = scan_list_line(path, line, len, df, msg, msgSize);
    } else if (blank) { /* the blank line: attached data follows */
      *headerLen = (size_t)(next - buf);
      break;
    } else {
      char *colon = line[0] == '#' ? NULL : strchr(line, ':');
      if (colon) code = scan_field(path, line, colon, &hs, df, msg, msgSize);
    }
    line = next;
  }
  free(buf);
  return code;
}

/* Skip `lines` lines and `bytes` bytes of f (teem's "line skip" and, outside compression, "byte skip"). */
static int skip_prefix(FILE *f, long lines, long bytes) {
  for (long l = 0; l < lines; ++l) {
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
    }
    if (c == EOF) return -1;
  }
  return bytes > 0 ? fseek(f, bytes, SEEK_CUR) : 0;
}

/* Decompress f from its position (gzip, possibly several members, or bzip2) in constant memory and say
   whether it yields at least `want` bytes in streams that end cleanly (check sums included). The whole
   stream is decoded: teem's gzip reader checks the trailer when the data end there, and on that error path
   it does not free its stream (zlib state and buffers, about 56 KiB per load), so such files must not reach
   it. Garbage after a complete member is accepted when the complete members already hold `want`. */
static int holds_compressed(FILE *f, int bzip2, double want) {
  unsigned char in[1 << 16], out[1 << 16];
  double total = 0.0, complete = 0.0; /* bytes so far; bytes in members that ended cleanly */
  if (!bzip2) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return 0;
    for (;;) {
      if (z.avail_in == 0) {
        z.avail_in = (uInt)fread(in, 1, sizeof in, f);
        z.next_in = in;
        if (z.avail_in == 0) break; /* end of file */
      }
      z.next_out = out;
      z.avail_out = sizeof out;
      int r = inflate(&z, Z_NO_FLUSH);
      total += (double)(sizeof out - z.avail_out);
      if (r == Z_STREAM_END) { /* another gzip member may follow */
        complete = total;
        if (inflateReset(&z) != Z_OK) break;
      } else if (r != Z_OK) {
        break;
      }
    }
    inflateEnd(&z);
  } else {
    bz_stream b;
    memset(&b, 0, sizeof b);
    if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) return 0;
    for (;;) {
      if (b.avail_in == 0) {
        b.avail_in = (unsigned)fread(in, 1, sizeof in, f);
        b.next_in = (char *)in;
        if (b.avail_in == 0) break;
      }
      b.next_out = (char *)out;
      b.avail_out = sizeof out;
      int r = BZ2_bzDecompress(&b);
      total += (double)(sizeof out - b.avail_out);
      if (r == BZ_STREAM_END) complete = total;
      if (r != BZ_OK) break; /* the end of the stream (teem reads one), or an error */
    }
    BZ2_bzDecompressEnd(&b);
  }
  return complete >= want || want <= 0.0;
}

/* teem's error stack: keep the innermost (last) line, the most specific one; classify it. */
static CAVRError teem_error(const char *path, char *msg, size_t msgSize) {
  char *err = biffGetDone(NRRD);
  /* teem reports short data as "... read only N of M bytes" or a failed gzip/fread; missing data files as fopen. */
  CAVRError code = CAVR_ERROR_FILE_FORMAT;
  if (err && (strstr(err, "expected") || strstr(err, "only") || strstr(err, "short") || strstr(err, "EOF") ||
              strstr(err, "eof")))
    code = CAVR_ERROR_FILE_TRUNCATED;
  if (err && (strstr(err, "fopen") || strstr(err, "couldn't open")))
    code = CAVR_ERROR_IO;
  const char *last = err ? err : "unknown error";
  if (err) {
    size_t len = strlen(err);
    while (len > 0 && (err[len - 1] == '\n' || err[len - 1] == ' ')) err[--len] = '\0';
    const char *nl = strrchr(err, '\n');
    if (nl) last = nl + 1;
  }
  snprintf(msg, msgSize, "%s: cannot read NRRD: %s", path, last);
  free(err);
  return code;
}

/* The header as teem parsed it (no data): type, axes, encoding; then whether the files hold the data. */
static CAVRError check_header(const char *path, const Nrrd *nin, const NrrdIoState *nio, const DataFiles *df,
                              long long fileSize, size_t headerLen, CAVRVolumeFile *out, char *msg, size_t msgSize) {
  CAVRScalarType type = (CAVRScalarType)0;
  switch (nin->type) {
  case nrrdTypeUChar: type = CAVR_UINT8; break;
  case nrrdTypeChar: type = CAVR_INT8; break;
  case nrrdTypeUShort: type = CAVR_UINT16; break;
  case nrrdTypeShort: type = CAVR_INT16; break;
  case nrrdTypeUInt: type = CAVR_UINT32; break;
  case nrrdTypeInt: type = CAVR_INT32; break;
  case nrrdTypeFloat: type = CAVR_FLOAT32; break;
  case nrrdTypeDouble: type = CAVR_FLOAT64; break;
  default:
    snprintf(msg, msgSize, "%s: NRRD type '%s' is not supported (use 8/16/32-bit integers, float or double)", path,
             airEnumStr(nrrdType, nin->type));
    return CAVR_ERROR_FILE_FORMAT;
  }
  if (nin->dim != 3) {
    snprintf(msg, msgSize, "%s: NRRD has %u axes; a scalar volume needs 3 (2-D images and multi-component data are not "
             "supported)", path, nin->dim);
    return nin->dim < 3 ? CAVR_ERROR_INVALID_DATA : CAVR_ERROR_FILE_FORMAT;
  }
  for (int a = 0; a < 3; ++a) {
    size_t sz = nin->axis[a].size;
    out->dims[a] = sz > (size_t)CAVR_MAX_VOLUME_DIM ? CAVR_MAX_VOLUME_DIM + 1 : (int)sz;
    double sp = nin->axis[a].spacing;
    if (!(sp > 0.0) || !isfinite(sp)) {
      double n = 0.0;
      for (unsigned s = 0; s < nin->spaceDim && s < NRRD_SPACE_DIM_MAX; ++s)
        n += nin->axis[a].spaceDirection[s] * nin->axis[a].spaceDirection[s];
      sp = (n > 0.0 && isfinite(n)) ? sqrt(n) : 1.0;
    }
    out->spacing[a] = sp;
    out->origin[a] = (nin->spaceDim == 3 && isfinite(nin->spaceOrigin[a])) ? nin->spaceOrigin[a] : 0.0;
  }
  CAVRError code = check_dims(out->dims, path, msg, msgSize);
  if (code != CAVR_ERROR_NONE) return code;
  out->type = type;
  const NrrdEncoding *enc = nio->encoding;
  if (enc != nrrdEncodingRaw && enc != nrrdEncodingAscii && enc != nrrdEncodingHex && enc != nrrdEncodingGzip &&
      enc != nrrdEncodingBzip2) {
    snprintf(msg, msgSize, "%s: NRRD encoding '%s' is not supported (use raw, gzip, bzip2, ascii or hex)", path,
             enc ? enc->name : "unknown");
    return CAVR_ERROR_FILE_FORMAT;
  }
  /* The data files teem found must be the ones we measured. */
  unsigned teemFiles = nio->dataFNFormat ? 0u : nio->dataFNArr->len;
  if (nio->dataFNFormat)
    for (long long i = nio->dataFNMin; nio->dataFNStep > 0 ? i <= nio->dataFNMax : i >= nio->dataFNMax;
         i += nio->dataFNStep)
      if (++teemFiles > MAX_DATA_FILES || nio->dataFNStep == 0) break;
  int files = df->count ? df->count : 1;
  if ((unsigned)df->count != teemFiles) {
    snprintf(msg, msgSize, "%s: the header names %u data files; cavr counted %d", path, teemFiles, df->count);
    return CAVR_ERROR_FILE_FORMAT;
  }
  size_t elems = (size_t)out->dims[0] * (size_t)out->dims[1] * (size_t)out->dims[2];
  size_t esize = nrrdElementSize(nin);
  if (elems % (size_t)files) {
    snprintf(msg, msgSize, "%s: %zu voxels do not split evenly into %d data files", path, elems, files);
    return CAVR_ERROR_FILE_FORMAT;
  }
  double vals = (double)(elems / (size_t)files), need = vals * (double)esize;
  for (int i = 0; i < files; ++i) {
    const char *name = df->count ? df->name[i] : path;
    long skip = nio->dataFSkip ? nio->dataFSkip[i] : nio->byteSkip;
    double avail = (double)(df->count ? df->size[i] : fileSize - (long long)headerLen);
    int compressed = enc == nrrdEncodingGzip || enc == nrrdEncodingBzip2;
    int holds;
    if (compressed) {
      FILE *f = fopen(name, "rb");
      holds = f && fseek(f, df->count ? 0L : (long)headerLen, SEEK_SET) == 0 &&
              skip_prefix(f, (long)nio->lineSkip, 0) == 0 &&
              holds_compressed(f, enc == nrrdEncodingBzip2, need + (skip > 0 ? (double)skip : 0.0));
      if (f) fclose(f);
    } else {
      if (skip > 0) avail -= (double)skip;
      double bound = enc == nrrdEncodingRaw ? need : enc == nrrdEncodingHex ? 2.0 * need : 2.0 * vals - 1.0;
      holds = avail >= bound;
    }
    if (!holds) {
      snprintf(msg, msgSize, "%s: truncated: %s cannot hold the %d x %d x %d %s voxels (%.0f bytes) the header "
               "declares", path, name, out->dims[0], out->dims[1], out->dims[2], airEnumStr(nrrdType, nin->type),
               need * files);
      return CAVR_ERROR_FILE_TRUNCATED;
    }
  }
  return CAVR_ERROR_NONE;
}

CAVRError cavrLoadNrrd(const char *path, CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  const char *teemPath = strcmp(path, "-") ? path : "./-"; /* teem reads "-" from standard input */
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(msg, msgSize, "%s: not a regular file (a pipe, device or folder)", path);
    return CAVR_ERROR_IO;
  }
  /* 1. Our scan: the magic, the data files. */
  DataFiles df = {0, NULL, NULL};
  size_t headerLen = 0;
  CAVRError code = scan_header(path, (long long)st.st_size, &headerLen, &df, msg, msgSize);
  /* 2. teem parses the header without the data. */
  Nrrd *nin = NULL;
  NrrdIoState *nio = NULL;
  if (code == CAVR_ERROR_NONE) {
    nin = nrrdNew();
    nio = nrrdIoStateNew();
    nio->skipData = AIR_TRUE;
    if (nrrdLoad(nin, teemPath, nio))
      code = teem_error(path, msg, msgSize);
    else
      code = check_header(path, nin, nio, &df, (long long)st.st_size, headerLen, out, msg, msgSize);
    nrrdIoStateNix(nio);
    nrrdNuke(nin);
  }
  free_files(&df);
  /* 3. teem reads the data. */
  if (code == CAVR_ERROR_NONE) {
    nin = nrrdNew();
    if (nrrdLoad(nin, teemPath, NULL)) {
      code = teem_error(path, msg, msgSize);
    } else if (nrrdElementNumber(nin) != (size_t)out->dims[0] * out->dims[1] * out->dims[2] || !nin->data) {
      snprintf(msg, msgSize, "%s: the file changed while it was read", path);
      code = CAVR_ERROR_IO;
    } else {
      out->bytes = nrrdElementNumber(nin) * nrrdElementSize(nin);
      out->data = nin->data; /* take ownership */
      nin->data = NULL;
    }
    nrrdNuke(nin);
  }
  if (code != CAVR_ERROR_NONE) init_file(out);
  return code;
}

#else
CAVRError cavrLoadNrrd(const char *path, CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  snprintf(msg, msgSize, "%s: this cavr was built without teem: NRRD files cannot be read (use raw input)", path);
  return CAVR_ERROR_UNSUPPORTED;
}
#endif

CAVRError cavrLoadRaw(const char *path, CAVRScalarType type, const int dims[3], const double spacing[3],
                      CAVRVolumeFile *out, char *msg, size_t msgSize) {
  if (!path || !out || !dims || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
  init_file(out);
  size_t vs = type_size(type);
  if (!vs) {
    snprintf(msg, msgSize, "%s: unsupported scalar type %d", path, (int)type);
    return CAVR_ERROR_UNSUPPORTED;
  }
  CAVRError code = check_dims(dims, path, msg, msgSize);
  if (code != CAVR_ERROR_NONE) return code;
  size_t bytes = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2] * vs; /* <= 16384^3 * 8: fits in 64 bits */
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msgSize, "%s: cannot open: %s", path, strerror(errno));
    return CAVR_ERROR_IO;
  }
  void *data = malloc(bytes ? bytes : 1);
  if (!data) {
    fclose(f);
    snprintf(msg, msgSize, "%s: out of memory for %zu bytes", path, bytes);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != bytes) {
    free(data);
    snprintf(msg, msgSize, "%s: truncated: %zu of %zu bytes for %d x %d x %d voxels", path, got, bytes, dims[0], dims[1],
             dims[2]);
    return CAVR_ERROR_FILE_TRUNCATED;
  }
  if (extra) {
    free(data);
    snprintf(msg, msgSize, "%s: file is longer than %zu bytes (%d x %d x %d voxels): wrong dims or type?", path, bytes,
             dims[0], dims[1], dims[2]);
    return CAVR_ERROR_FILE_FORMAT;
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (size_t i = 0; vs > 1 && i < bytes; i += vs)
    for (size_t j = 0; j < vs / 2; ++j) {
      unsigned char *b = (unsigned char *)data + i, t = b[j];
      b[j] = b[vs - 1 - j];
      b[vs - 1 - j] = t;
    }
#endif
  out->type = type;
  memcpy(out->dims, dims, sizeof out->dims);
  if (spacing) memcpy(out->spacing, spacing, sizeof out->spacing);
  out->data = data;
  out->bytes = bytes;
  return CAVR_ERROR_NONE;
}

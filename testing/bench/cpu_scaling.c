// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr-cpu-scaling - the CPU back end's frame time against threads, image size and volume size (issue 13 item 4).
 *
 *   cavr-cpu-scaling --volume FILE.nhdr|FILE.raw [--dims X,Y,Z --type uint8 --spacing SX,SY,SZ] [--tf PRESET]
 *       [--threads 1,2,4,8,16] [--sizes 256,512,1024,2048] [--scales 0.25,0.5,0.75,1] [--size 1024]
 *       [--repeat R] [--shade 0|1] [--name NAME] [--csv FILE]
 *
 * Three sweeps, composite, orbit camera (-60, 30) perspective, sample distance 0.5 voxels of the finest axis:
 *   threads: --size^2 pixels, the volume as loaded, each thread count of --threads (counts above the machine's
 *            cores are skipped);
 *   image:   every --sizes^2 on all the machine's cores (the largest count of --threads that fits);
 *   volume:  the volume resampled (trilinear) to each --scales factor of its dims, spacing scaled so the world
 *            box stays (the image frames the same object; samples per ray grow with the factor), --size^2 pixels,
 *            all cores.
 * Times: median and minimum of R renders (stats.milliseconds) after one warm-up. Every row is printed and
 * appended to the CSV:
 *   volume,sweep,threads,image,dims_x,dims_y,dims_z,median_ms,min_ms,samples,ns_per_sample_thread,speedup
 * speedup: against 1 thread (threads sweep), else 0. ns_per_sample_thread = median ms * 1e6 * threads / samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"

#define BENCH_NAME "cavr-cpu-scaling"
#include "bench_util.h"

typedef struct Ctx {
  CAVRDevice dev;
  CAVRTransferFunction tf;
  CAVRCamera cam;
  CAVRRenderSettings set;
  int repeat;
  FILE *csv;
  const char *name;
} Ctx;

static int parse_list(const char *s, double *out, int max) {
  int n = 0;
  while (s && *s && n < max) {
    out[n++] = strtod(s, NULL);
    s = strchr(s, ',');
    if (s) ++s;
  }
  return n;
}

/* Trilinear resampling of a uint8/uint16/int16/float32 volume to dst dims (voxel centres mapped end to end). */
static void *resample(const CAVRVolumeFile *f, const int dd[3]) {
  const size_t bytes = f->type == CAVR_UINT8 ? 1 : (f->type == CAVR_FLOAT32 ? 4 : 2);
  unsigned char *out = malloc(bytes * (size_t)dd[0] * dd[1] * dd[2]);
  if (!out) DIE("out of memory resampling");
  const int *sd = f->dims;
  for (int z = 0; z < dd[2]; ++z)
    for (int y = 0; y < dd[1]; ++y)
      for (int x = 0; x < dd[0]; ++x) {
        const int d[3] = {x, y, z};
        int i0[3], i1[3];
        double w[3];
        for (int a = 0; a < 3; ++a) {
          double p = dd[a] > 1 ? (double)d[a] * (sd[a] - 1) / (dd[a] - 1) : 0.0;
          i0[a] = (int)p;
          i1[a] = i0[a] + 1 < sd[a] ? i0[a] + 1 : i0[a];
          w[a] = p - i0[a];
        }
        double v = 0.0;
        for (int k = 0; k < 8; ++k) {
          const int ix = k & 1 ? i1[0] : i0[0], iy = k & 2 ? i1[1] : i0[1], iz = k & 4 ? i1[2] : i0[2];
          const double wt = (k & 1 ? w[0] : 1 - w[0]) * (k & 2 ? w[1] : 1 - w[1]) * (k & 4 ? w[2] : 1 - w[2]);
          const size_t s = ((size_t)iz * sd[1] + iy) * sd[0] + ix;
          double val;
          switch (f->type) {
          case CAVR_UINT8: val = ((const uint8_t *)f->data)[s]; break;
          case CAVR_UINT16: val = ((const uint16_t *)f->data)[s]; break;
          case CAVR_INT16: val = ((const int16_t *)f->data)[s]; break;
          default: val = ((const float *)f->data)[s]; break;
          }
          v += wt * val;
        }
        const size_t o = ((size_t)z * dd[1] + y) * dd[0] + x;
        switch (f->type) {
        case CAVR_UINT8: ((uint8_t *)out)[o] = (uint8_t)(v + 0.5); break;
        case CAVR_UINT16: ((uint16_t *)out)[o] = (uint16_t)(v + 0.5); break;
        case CAVR_INT16: ((int16_t *)out)[o] = (int16_t)lround(v); break;
        default: ((float *)out)[o] = (float)v; break;
        }
      }
  return out;
}

static CAVRVolume make_volume(Ctx *c, const CAVRVolumeFile *f, const void *data, const int dims[3], const double sp[3]) {
  const size_t bytes = f->type == CAVR_UINT8 ? 1 : (f->type == CAVR_FLOAT32 ? 4 : 2);
  CAVRVolume v = cavrNewVolume(c->dev);
  OK(c->dev, cavrSetVolumeData(v, f->type, dims, data, bytes * (size_t)dims[0] * dims[1] * dims[2]));
  OK(c->dev, cavrSetVolumeSpacing(v, sp));
  OK(c->dev, cavrCommitVolume(v));
  double b[6];
  OK(c->dev, cavrGetVolumeBounds(v, b));
  OK(c->dev, cavrSetCameraOrbit(c->cam, b, -60, 30, 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
  OK(c->dev, cavrCommitCamera(c->cam));
  return v;
}

static double measure(Ctx *c, CAVRVolume v, const char *sweep, int threads, int size, const int dims[3], double base) {
  OK(c->dev, cavrSetDeviceThreadCount(c->dev, threads));
  CAVRFrameBuffer fb = cavrNewFrameBuffer(c->dev, size, size);
  if (!fb) DIE("no %dx%d frame buffer", size, size);
  OK(c->dev, cavrSetFrameBufferHostCopy(fb, 1));
  CAVRRenderStats st;
  OK(c->dev, cavrRender(fb, v, c->tf, c->cam, c->set, &st));
  double t[64];
  const int r = c->repeat < 64 ? c->repeat : 64;
  for (int i = 0; i < r; ++i) {
    OK(c->dev, cavrRender(fb, v, c->tf, c->cam, c->set, &st));
    t[i] = st.milliseconds;
  }
  qsort(t, (size_t)r, sizeof(double), bench_cmp_double);
  const double med = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
  const double ns = st.samples ? med * 1e6 * threads / (double)st.samples : 0.0;
  const double speedup = base > 0.0 ? base / med : (!strcmp(sweep, "threads") && threads == 1 ? 1.0 : 0.0);
  printf("%-14s %-7s %7d %6d %5dx%dx%d %10.2f %10.2f %12llu %8.2f %7.2f\n", c->name, sweep, threads, size, dims[0],
         dims[1], dims[2], med, t[0], (unsigned long long)st.samples, ns, speedup);
  fflush(stdout);
  if (c->csv)
    fprintf(c->csv, "%s,%s,%d,%d,%d,%d,%d,%.4f,%.4f,%llu,%.4f,%.4f\n", c->name, sweep, threads, size, dims[0], dims[1],
            dims[2], med, t[0], (unsigned long long)st.samples, ns, speedup);
  cavrReleaseFrameBuffer(fb);
  return med;
}

int main(int argc, char **argv) {
  const char *volume = NULL, *tfName = "ct-bone", *csvPath = NULL, *name = NULL;
  const char *threadArg = "1,2,4,8,16", *sizeArg = "256,512,1024,2048", *scaleArg = "0.25,0.5,0.75,1";
  int dims[3] = {0, 0, 0}, size = 1024, repeat = 3, shade = 0;
  double spacing[3] = {1, 1, 1};
  CAVRScalarType type = CAVR_UINT8;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--volume") && v) volume = argv[++i];
    else if (!strcmp(a, "--dims") && v) sscanf(argv[++i], "%d,%d,%d", &dims[0], &dims[1], &dims[2]);
    else if (!strcmp(a, "--spacing") && v) sscanf(argv[++i], "%lf,%lf,%lf", &spacing[0], &spacing[1], &spacing[2]);
    else if (!strcmp(a, "--type") && v) {
      ++i;
      type = !strcmp(v, "uint16") ? CAVR_UINT16 : !strcmp(v, "int16") ? CAVR_INT16 : !strcmp(v, "float32") ? CAVR_FLOAT32 : CAVR_UINT8;
    } else if (!strcmp(a, "--tf") && v) tfName = argv[++i];
    else if (!strcmp(a, "--threads") && v) threadArg = argv[++i];
    else if (!strcmp(a, "--sizes") && v) sizeArg = argv[++i];
    else if (!strcmp(a, "--scales") && v) scaleArg = argv[++i];
    else if (!strcmp(a, "--size") && v) size = atoi(argv[++i]);
    else if (!strcmp(a, "--repeat") && v) repeat = atoi(argv[++i]);
    else if (!strcmp(a, "--shade") && v) shade = atoi(argv[++i]);
    else if (!strcmp(a, "--name") && v) name = argv[++i];
    else if (!strcmp(a, "--csv") && v) csvPath = argv[++i];
    else DIE("unknown argument %s (see the comment at the top of cpu_scaling.c)", a);
  }
  if (!volume) DIE("--volume is required");
  if (size < 16 || size > 8192 || repeat < 1) DIE("--size must be in [16, 8192], --repeat >= 1");
  double threads[16], sizes[16], scales[16];
  const int nt = parse_list(threadArg, threads, 16), ns = parse_list(sizeArg, sizes, 16), nsc = parse_list(scaleArg, scales, 16);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int maxThreads = 1;
  for (int k = 0; k < nt; ++k)
    if (threads[k] <= cores && threads[k] > maxThreads) maxThreads = (int)threads[k];
  CAVRVolumeFile f;
  char msg[600];
  const size_t len = strlen(volume);
  CAVRError e = len > 4 && !strcmp(volume + len - 4, ".raw") ? cavrLoadRaw(volume, type, dims, spacing, &f, msg, sizeof msg)
                                                               : cavrLoadNrrd(volume, &f, msg, sizeof msg);
  if (e) DIE("%s: %s", volume, msg);
  Ctx c;
  memset(&c, 0, sizeof c);
  c.dev = cavrNewDevice(CAVR_BACKEND_CPU);
  if (!c.dev) DIE("no CPU device");
  c.repeat = repeat;
  const char *slash = strrchr(volume, '/');
  c.name = name ? name : (slash ? slash + 1 : volume);
  c.tf = cavrNewTransferFunction(c.dev);
  c.cam = cavrNewCamera(c.dev);
  c.set = cavrNewRenderSettings(c.dev);
  float table[4 * 1024];
  if (cavrTransferFunctionPreset(tfName, table, 1024, msg, sizeof msg)) DIE("%s", msg);
  OK(c.dev, cavrSetRenderShading(c.set, shade, 0.1, 0.7, 0.2, 10));
  OK(c.dev, cavrCommitRenderSettings(c.set));
  CAVRVolume vol = make_volume(&c, &f, f.data, f.dims, f.spacing);
  double range[2];
  OK(c.dev, cavrGetVolumeRange(vol, range));
  OK(c.dev, cavrSetTransferFunctionTable(c.tf, table, 1024, range[0], range[1]));
  OK(c.dev, cavrCommitTransferFunction(c.tf));
  if (csvPath) {
    FILE *probe = fopen(csvPath, "r");
    const int fresh = !probe;
    if (probe) fclose(probe);
    c.csv = fopen(csvPath, "a");
    if (!c.csv) DIE("cannot write %s", csvPath);
    if (fresh) fprintf(c.csv, "volume,sweep,threads,image,dims_x,dims_y,dims_z,median_ms,min_ms,samples,ns_per_sample_thread,speedup\n");
  }
  printf("# %ld cores online; composite, %s, shade %d, orbit (-60, 30) perspective, median of %d after a warm-up\n", cores,
         tfName, shade, repeat);
  printf("%-14s %-7s %7s %6s %13s %10s %10s %12s %8s %7s\n", "volume", "sweep", "threads", "image", "dims", "median_ms",
         "min_ms", "samples", "ns/s/thr", "speedup");
  double base = 0.0; /* the 1-thread time, when the list starts with 1 */
  for (int k = 0; k < nt; ++k) {
    const int n = (int)threads[k];
    if (n < 1 || n > cores) continue;
    const double ms = measure(&c, vol, "threads", n, size, f.dims, base);
    if (n == 1) base = ms;
  }
  for (int k = 0; k < ns; ++k) measure(&c, vol, "image", maxThreads, (int)sizes[k], f.dims, 0.0);
  for (int k = 0; k < nsc; ++k) {
    const double s = scales[k];
    int dd[3];
    double sp[3];
    for (int a = 0; a < 3; ++a) {
      dd[a] = (int)lround(f.dims[a] * s);
      if (dd[a] < 2) dd[a] = 2;
      sp[a] = f.spacing[a] * (f.dims[a] - 1) / (double)(dd[a] - 1);
    }
    void *data = s == 1.0 ? NULL : resample(&f, dd);
    CAVRVolume v = s == 1.0 ? vol : make_volume(&c, &f, data, dd, sp);
    measure(&c, v, "volume", maxThreads, size, dd, 0.0);
    if (v != vol) cavrReleaseVolume(v);
    free(data);
  }
  if (c.csv) fclose(c.csv);
  cavrReleaseVolume(vol);
  cavrFreeVolumeFile(&f);
  cavrReleaseRenderSettings(c.set);
  cavrReleaseCamera(c.cam);
  cavrReleaseTransferFunction(c.tf);
  cavrReleaseDevice(c.dev);
  return 0;
}

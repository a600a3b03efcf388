// SPDX-License-Identifier: BSD-3-Clause
/*
 * cuda_backend.c - the CUDA back end's host side: executes the frame's plan (view_policy.c: strategy, thread-block
 * shape, in-place rotation, isosurface method), keeps AUTO's measured tables, and calls into kernels/ (which only
 * execute).
 * Built only with CUDA; without it cavr_cuda_backend() answers "not built".
 */
#define _DEFAULT_SOURCE 1 /* mkdir, getpid */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#if CAVR_WITH_CUDA
#include "../../kernels/cavr_kernels.h"
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_tune.h"
#include "reconstruct.h"
#include "view_policy.h"

/*
 * AUTO's table: per view, the rotation state and thread-block shape that a table measured on this GPU for the
 * volume's storage type prices cheapest (gpu_tune.h; made by a calibration run at the first AUTO render of that
 * storage type and cached on disk; view_policy.c decides from it). Without a table (calibration switched off with
 * CAVR_TUNE=0, or it failed): 16x16 blocks on the volume as uploaded, said once through the error callback.
 */

/** The back end's device data: the GPU context and AUTO's tables, one per storage type. */
typedef struct CudaDevice {
  CAVRGpuContext *ctx;
  CAVRTuneTable table[3];
  int tableState[3];      /* 0 not looked for yet, 1 ready, 2 none (AUTO uses the default; said once) */
  char gpu[96];
  int memoryMiB;
  /* The last transfer-function table built for the kernels (cuda_render: tfCount corrected entries, then the
     transfer function's own; 8 floats an entry), the exponent and correction it was made with, and its stamp. */
  float *tfTable;
  size_t tfCount;
  float tfExponent;
  int tfCorrection;
  uint64_t tfStamp;
  /* The last 2-D table built (cavrSetTransferFunction2D): cavr_tf2d_corrected's (t2Entries + its width), then the
     t2Entries raw ones it was made from (compared by value), with t2Exponent and t2Correction, and its stamp. */
  float *t2Table;
  size_t t2Entries;
  float t2Exponent;
  int t2Correction;
  uint64_t t2Stamp;
} CudaDevice;

typedef struct CudaVolume {
  CAVRGpuVolume *gpu;
  unsigned version;       /* vol->version of the voxels on the GPU */
  int dims[3];            /* and their dims and storage: new voxels of the same go into the same array */
  int storage;
  int cube;               /* side of the array when it is a cube (rotated in place if a multiple of 64), else 0 */
  int noRotate;           /* a rotation by copy did not fit (memory or the 3-D texture limit): render unrotated */
  CAVRPlanHistory history; /* the policy's record of what plans cost on this volume (view_policy.h) */
  int rotation;           /* CAVR_ROT_* state of the array on the GPU */
  uint8_t *cells;         /* macro-cell visibility for (tfKey, tfVersion) */
  size_t cellCount;
  const void *tfKey;
  unsigned tfVersion, volVersion;
  float cellScale, cellBias;
  int cellDilation;       /* the classification's widening (cubic filter) */
  int isoCount;           /* > 0: the cells classify these iso-values (stored units), not (tfKey, tfVersion) */
  float iso[CAVR_MAX_ISO_VALUES];
  uint64_t cellsStamp;    /* process-wide unique stamp of the current classification */
  CAVRGpuColor *color;    /* dependent components (cavrSetVolumeComponentData): the colour part, else NULL */
} CudaVolume;

/* Stamps for macro-cell classifications: unique in the process, so the device buffer of a context is
   never mistaken for another volume's (or a freed volume's) cells. */
static _Atomic uint64_t nextCellsStamp = 1;
static _Atomic uint64_t nextTableStamp = 1;

static CAVRGpuContext *context(CAVRDevice dev) { return ((CudaDevice *)dev->backendData)->ctx; }

/* The kernels' settings from the device's environment snapshot (env.h); unset or unusable values: the defaults. */
static void gpu_config(const CAVREnv *env, CAVRGpuConfig *c) {
  memset(c, 0, sizeof *c);
  int bw = 0, bh = 0;
  char t = 0;
  if (env->raycastBlock[0] && sscanf(env->raycastBlock, "%dx%d%c", &bw, &bh, &t) >= 2 && bw > 0 && bh > 0) {
    c->raycastBlockW = bw;
    c->raycastBlockH = bh;
    c->raycastTransposed = t == 't';
  }
  c->raycastUncapped = env->raycastRegcap[0] == '0';
  const long mib = atol(env->uploadChunkMiB);
  c->uploadChunkBytes = mib >= 1 && mib <= 256 ? (size_t)mib << 20 : 0;
  const int threads = atoi(env->uploadThreads);
  c->uploadThreads = threads >= 1 ? threads : 0;
  const int texture = atoi(env->maxTexture3D);
  c->maxTexture3D = texture > 0 ? texture : 0;
}

static CAVRError cuda_init(CAVRDevice dev, char *msg, size_t msgSize) {
  CAVRGpuContext *ctx = NULL;
  int code = cavr_cuda_context_create_on(&ctx, dev->gpu, msg, msgSize);
  if (code) return (CAVRError)code;
  CudaDevice *cd = (CudaDevice *)calloc(1, sizeof *cd);
  if (!cd) {
    cavr_cuda_context_destroy(ctx);
    snprintf(msg, msgSize, "out of host memory");
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  cd->ctx = ctx;
  size_t bytes = 0;
  char why[256];
  if (cavr_cuda_device_info(dev->gpu, cd->gpu, sizeof cd->gpu, &bytes, why, sizeof why) != 0)
    snprintf(cd->gpu, sizeof cd->gpu, "unknown GPU");
  cd->memoryMiB = (int)(bytes >> 20);
  CAVRGpuConfig config;
  gpu_config(&dev->env, &config);
  cavr_cuda_context_configure(ctx, &config);
  cavr_cuda_upload_prepare(ctx); /* volume upload staging, made in the background */
  dev->backendData = cd;
  return CAVR_ERROR_NONE;
}

void cavr_cuda_configure(CAVRDevice dev) {
  if (!dev->backendData) return;
  CAVRGpuConfig config;
  gpu_config(&dev->env, &config);
  cavr_cuda_context_configure(context(dev), &config);
}

static void cuda_shutdown(CAVRDevice dev) {
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  cavr_cuda_context_destroy(cd->ctx);
  free(cd->tfTable);
  free(cd->t2Table);
  free(cd);
  dev->backendData = NULL;
}

/* A note for the error callback that is not an error (code CAVR_ERROR_NONE; the device error is left alone). */
static void note(CAVRDevice dev, const char *text) { cavr_note(dev, CAVR_ERROR_NONE, text); }

/* Measure the rows `rows` (bits, cavr_cuda_measure_table) of AUTO's table for `storage` (a fresh table when the
   middle row is among them, else added to the table in hand) and save it where cavr_tune_path says. 0 = measured
   (*saved: written). */
static CAVRError measure_and_save(CAVRDevice dev, int storage, unsigned rows, char *path, size_t pathSize, int *saved,
                                  char *msg, size_t msgSize) {
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  CAVRTuneTable *t = &cd->table[storage];
  if (rows & 2u) memset(t, 0, sizeof *t);
  CAVRError e = cavr_cuda_measure_table(dev, storage, rows, t, msg, msgSize);
  if (e) return e;
  snprintf(t->gpu, sizeof t->gpu, "%s", cd->gpu);
  t->memoryMiB = cd->memoryMiB;
  *saved = 0;
  path[0] = '\0';
  if (cavr_tune_path(path, pathSize, &dev->env, cd->gpu, storage) == 0) {
    /* mkdir -p of the directory part */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    for (char *q = dir + 1; *q; ++q)
      if (*q == '/') {
        *q = '\0';
        mkdir(dir, 0755);
        *q = '/';
      }
    mkdir(dir, 0755);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f) {
      int bad = cavr_tune_write(t, f);
      bad |= fclose(f) != 0;
      if (!bad && rename(tmp, path) == 0) *saved = 1;
      else remove(tmp);
    }
  }
  return CAVR_ERROR_NONE;
}

/* AUTO's table for `storage`, or NULL (then AUTO uses the default; the reason is said once per device). */
static const CAVRTuneTable *auto_table(CAVRDevice dev, int storage) {
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  if (storage < 0 || storage > 2) return NULL;
  if (cd->tableState[storage] == 1) return &cd->table[storage];
  if (cd->tableState[storage] == 2) return NULL;
  char path[1024], text[1400], why[400] = "";
  const char *sname = cavr_storage_name(storage);
  if (cavr_tune_path(path, sizeof path, &dev->env, cd->gpu, storage) == 0) {
    FILE *f = fopen(path, "r");
    if (f) {
      CAVRTuneTable t;
      int bad = cavr_tune_read(&t, f, why, sizeof why);
      fclose(f);
      if (!bad && (strcmp(t.gpu, cd->gpu) || t.memoryMiB != cd->memoryMiB || t.storage != storage))
        bad = 1, snprintf(why, sizeof why, "measured on another GPU (%s) or storage", t.gpu);
      else if (!bad && t.version != CAVR_VERSION)
        bad = 1, snprintf(why, sizeof why, "measured by cavr version %d, this is %d", t.version, CAVR_VERSION);
      if (!bad) {
        cd->table[storage] = t;
        cd->tableState[storage] = 1;
        return &cd->table[storage];
      }
    } else {
      snprintf(why, sizeof why, "no table yet");
    }
  } else {
    snprintf(why, sizeof why, "no cache directory (set CAVR_TUNE_DIR, XDG_CACHE_HOME or HOME)");
  }
  const char *off = dev->env.tune;
  if (!strcmp(off, "0") || !strcmp(off, "off")) {
    snprintf(text, sizeof text, "cavr AUTO: no measured table for %s voxels on this GPU (%s) and CAVR_TUNE=%s: "
             "using 16x16 thread blocks without rotation", sname, why, off);
    note(dev, text);
    cd->tableState[storage] = 2;
    return NULL;
  }
  char msg[400];
  int saved = 0;
  /* The first two rows now; the largest when a volume needs it (table_for_volume): small volumes never wait for it. */
  CAVRError e = measure_and_save(dev, storage, 3u, path, sizeof path, &saved, msg, sizeof msg);
  if (e) {
    snprintf(text, sizeof text, "cavr AUTO: measuring the table for %s voxels failed (%s): using 16x16 thread "
             "blocks without rotation", sname, msg);
    cd->tableState[storage] = 2;
    note(dev, text);
    return NULL;
  }
  snprintf(text, sizeof text, "cavr AUTO: measured thread-block shapes for %s voxels on %s (%s)%s%s", sname, cd->gpu,
           why, saved ? "; saved to " : "; could not save it (kept for this process)", saved ? path : "");
  note(dev, text);
  cd->tableState[storage] = 1;
  return &cd->table[storage];
}

/* AUTO's table for a volume of `bytes` bytes: auto_table's, with its largest row measured (once, then saved) the
   first time a volume over CAVR_AUTO_EXPLORE_BEYOND times the middle row's cube is rendered. */
static const CAVRTuneTable *table_for_volume(CAVRDevice dev, int storage, double bytes) {
  const CAVRTuneTable *t = auto_table(dev, storage);
  const int last = CAVR_TUNE_SIZES - 1;
  if (!t || t->rowSide[last] != 0 || !(bytes > CAVR_AUTO_EXPLORE_BEYOND * t->rowBytes[1])) return t;
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  char path[1024], msg[400], text[1600];
  int saved = 0;
  CAVRError e = measure_and_save(dev, storage, 1u << last, path, sizeof path, &saved, msg, sizeof msg);
  CAVRTuneTable *w = &cd->table[storage];
  if (e || w->rowSide[last] == 0) { /* tried: not again in this process */
    w->rowSide[last] = cavr_tune_sides[last];
    w->rowBytes[last] = 0.0;
  }
  snprintf(text, sizeof text, "cavr AUTO: %s the %d^3 row of the table for %s voxels for a %.1f GiB volume%s%s",
           w->rowBytes[last] > 0.0 ? "measured" : "could not measure", cavr_tune_sides[last],
           cavr_storage_name(storage), bytes / 1073741824.0, saved ? "; saved to " : "", saved ? path : "");
  note(dev, text);
  return w;
}

static CAVRError cuda_tune(CAVRDevice dev, int storage, char *path, size_t pathSize) {
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  char msg[400];
  int saved = 0;
  CAVRError e = measure_and_save(dev, storage, (1u << CAVR_TUNE_SIZES) - 1u, path, pathSize, &saved, msg, sizeof msg);
  if (e) {
    cd->tableState[storage] = 0;
    return cavr_set_error(dev, e, "cavrTuneDevice: %s", msg);
  }
  cd->tableState[storage] = 1;
  if (!saved) {
    path[0] = '\0';
    return cavr_set_error(dev, CAVR_ERROR_IO, "cavrTuneDevice: measured, but could not write the table to the cache "
                          "directory (CAVR_TUNE_DIR, XDG_CACHE_HOME or HOME)");
  }
  return CAVR_ERROR_NONE;
}

static void cuda_release_volume(CAVRDevice dev, CAVRVolume vol) {
  (void)dev;
  CudaVolume *cv = (CudaVolume *)vol->backendVolume;
  if (!cv) return;
  cavr_cuda_volume_destroy(cv->gpu);
  cavr_cuda_color_destroy(cv->color);
  free(cv->cells);
  free(cv);
  vol->backendVolume = NULL;
}

/* The GPU copy's extent and bytes in the volume's commit statistics (zeros when it is not on the GPU). */
static void device_stats(CAVRVolume vol, const CudaVolume *cv) {
  CAVRVolumeCommitStats *cs = &vol->commitStats;
  int ext[3] = {0, 0, 0};
  if (cv && cv->gpu) cavr_cuda_volume_extent(cv->gpu, ext);
  memcpy(cs->deviceDims, ext, sizeof ext);
  cs->deviceBytes = cv && cv->gpu ? (uint64_t)cavr_cuda_volume_bytes(cv->gpu) : 0u;
}

/* Fault injection for tests: CAVR_CUDA_VOLUME_LIMIT (bytes) makes larger arrays fail as out of memory. */
static int over_limit(CAVRDevice dev, double bytes) {
  const char *limit = dev->env.cudaVolumeLimit;
  return limit[0] && bytes > atof(limit);
}

/*
 * Dependent components (cavrSetVolumeComponentData): the colour part as a second texture, replaced with the voxels.
 * Returns 0 or the error (message in msg); *fellBack 1 when the colour did not fit (out of device memory or beyond the
 * texture limit): the volume then renders on the CPU, as for the voxels, said through the callback.
 */
static int commit_color(CAVRDevice dev, CAVRVolume vol, CudaVolume *cv, int *fellBack, char *msg, size_t msgSize) {
  cavr_cuda_color_destroy(cv->color);
  cv->color = NULL;
  *fellBack = 0;
  if (vol->components < 2 || !vol->color) return 0;
  const int code = cavr_cuda_color_create(context(dev), vol->color, vol->components == 4 ? 4 : 1, vol->voxels.dims,
                                          &cv->color, msg, msgSize);
  if (code != CAVR_ERROR_CUDA_OUT_OF_MEMORY && code != CAVR_ERROR_UNSUPPORTED) return code;
  cuda_release_volume(dev, vol);
  vol->cpuFallback = 1;
  *fellBack = 1;
  device_stats(vol, NULL);
  char text[600];
  snprintf(text, sizeof text, "cavrCommitVolume: the colour components do not fit on the GPU; the volume renders on "
           "the CPU (%s)", msg);
  cavr_note(dev, (CAVRError)code, text);
  return 0;
}

/*
 * Upload new voxels into a CUDA array of the volume's own extent (no padding), then compute the macro cells
 * and the value range on the GPU from it. New voxels of the same dims and storage (a new time step) go into
 * the array already there: no allocation, no texture objects rebuilt (a rotated array is turned back first).
 * Only a commit that changes nothing but geometry (same version) uploads nothing.
 */
static CAVRError cuda_commit_volume(CAVRDevice dev, CAVRVolume vol) {
  {
    char why[256];
    if (cavr_cuda_context_make_current(context(dev), why, sizeof why))
      return cavr_set_error(dev, CAVR_ERROR_CUDA, "%s", why);
  }
  CudaVolume *cv = (CudaVolume *)vol->backendVolume;
  if (cv && cv->version == vol->version) return CAVR_ERROR_NONE; /* geometry only: nothing to upload */
  CAVRGpuContext *ctx = context(dev);
  const CAVRVoxels *vx = &vol->voxels;
  CAVRVolumeCommitStats *cs = &vol->commitStats;
  char msg[400];
  float uploadMs = 0.0f;
  int code = 0;
  if (cv && cv->storage == (int)vx->storage && !memcmp(cv->dims, vx->dims, sizeof cv->dims)) {
    if (cv->rotation != CAVR_ROT_NONE) {
      code = cavr_cuda_volume_rotate(ctx, cv->gpu, cv->rotation, -1, NULL, msg, sizeof msg);
      if (!code) {
        cv->rotation = CAVR_ROT_NONE;
        if (!(cv->cube > 0 && cv->cube % 64 == 0)) ++cs->deviceAllocations; /* turned back by copy */
      }
    }
    if (!code) code = cavr_cuda_volume_upload(ctx, cv->gpu, vx->data, &uploadMs, msg, sizeof msg);
    if (code) {
      cuda_release_volume(dev, vol);
      device_stats(vol, NULL);
      return cavr_set_error(dev, (CAVRError)code, "cavrCommitVolume: %s", msg);
    }
    cs->reusedAllocation = 1;
  } else {
    cuda_release_volume(dev, vol);
    vol->cpuFallback = 0;
    cv = (CudaVolume *)calloc(1, sizeof *cv);
    if (!cv) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrCommitVolume: out of host memory");
    if (over_limit(dev, (double)cs->voxelBytes)) {
      code = CAVR_ERROR_CUDA_OUT_OF_MEMORY;
      snprintf(msg, sizeof msg, "CAVR_CUDA_VOLUME_LIMIT is %s bytes", dev->env.cudaVolumeLimit);
    } else {
      code = cavr_cuda_volume_create(ctx, NULL, (int)vx->storage, vx->dims, 0, &cv->gpu, msg, sizeof msg);
      if (!code) code = cavr_cuda_volume_upload(ctx, cv->gpu, vx->data, &uploadMs, msg, sizeof msg);
    }
    if (code == CAVR_ERROR_CUDA_OUT_OF_MEMORY || code == CAVR_ERROR_UNSUPPORTED) {
      /* Out of device memory, or an axis beyond the GPU's 3-D texture limit: render this volume on the CPU, say
         so through the callback, no error (api.c then builds the macro cells on the host). */
      cavr_cuda_volume_destroy(cv->gpu);
      free(cv);
      vol->cpuFallback = 1;
      device_stats(vol, NULL);
      {
        char text[600];
        const int es = vx->storage == CAVR_STORE_U8 ? 1 : vx->storage == CAVR_STORE_U16 ? 2 : 4;
        snprintf(text, sizeof text, "cavrCommitVolume: the volume (%d x %d x %d voxels of %d bytes) %s; it renders on "
                 "the CPU (%s)", vx->dims[0], vx->dims[1], vx->dims[2], es,
                 code == CAVR_ERROR_UNSUPPORTED ? "exceeds the GPU's 3-D texture size" : "does not fit in GPU memory", msg);
        cavr_note(dev, (CAVRError)code, text);
      }
      return CAVR_ERROR_NONE;
    }
    if (code) {
      cavr_cuda_volume_destroy(cv->gpu);
      free(cv);
      device_stats(vol, NULL);
      return cavr_set_error(dev, (CAVRError)code, "cavrCommitVolume: %s", msg);
    }
    ++cs->deviceAllocations;
    memcpy(cv->dims, vx->dims, sizeof cv->dims);
    cv->storage = (int)vx->storage;
    int ext[3];
    cv->cube = cavr_cuda_volume_extent(cv->gpu, ext);
    vol->backendVolume = cv;
  }
  cv->version = vol->version;
  int fellBack = 0;
  if ((code = commit_color(dev, vol, cv, &fellBack, msg, sizeof msg)))
    return cavr_set_error(dev, (CAVRError)code, "cavrCommitVolume: colour components: %s", msg);
  if (fellBack) return CAVR_ERROR_NONE;
  cs->uploadMilliseconds = uploadMs;
  cs->uploadBytes = cs->voxelBytes;
  cs->uploadGBps = uploadMs > 0.0f ? (double)cs->voxelBytes / (uploadMs * 1e6) : 0.0;
  device_stats(vol, cv);
  if (vol->cellsPending) {
    float range[2], cellMs = 0.0f;
    code = cavr_cuda_volume_macrocells(ctx, cv->gpu, vol->grid.cells, vol->cellMinMax, range, &cellMs, msg, sizeof msg);
    if (code && code != CAVR_ERROR_CUDA_OUT_OF_MEMORY) /* out of memory: api.c builds them on the host */
      return cavr_set_error(dev, (CAVRError)code, "cavrCommitVolume: %s", msg);
    if (!code) {
      vol->voxels.range[0] = range[0] + vx->valueOffset;
      vol->voxels.range[1] = range[1] + vx->valueOffset;
      vol->cellsPending = 0;
      cs->cellMilliseconds = cellMs;
    }
  }
  return CAVR_ERROR_NONE;
}

/*
 * The host plane `channel` of fb when a render must copy it back (its bit in `want`), else NULL.
 *
 * The copy back writes straight into the frame buffer's planes, page-locked once with cudaHostRegister at the
 * first render that copies them (api.c gives each plane whole pages of its own) and unlocked when the frame
 * buffer is released (cuda_release_frame_buffer; frame buffers are never resized): the DMA engine fills them at
 * PCIe rate while the host waits on one event. The alternative, page-locked staging buffers in the GPU context
 * and a memcpy into the planes afterwards, adds a second pass over the image on one host core every frame (up
 * to 24 MB at 1024^2), which is what the driver already does for pageable memory; it would only pay for callers
 * that make a new frame buffer for every frame, since registration costs time in proportion to the plane's size,
 * once per frame buffer (the plugin keeps its frame buffer until the viewport changes size). If registration is
 * refused (e.g. a page-locking limit), the plane is copied from pageable memory as before: slower, same image,
 * no error.
 */
static void *host_plane(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel, unsigned want) {
  if (!(want & (1u << channel))) return NULL;
  const size_t n = (size_t)fb->width * fb->height;
  void *plane = channel == CAVR_FB_COLOR_RGBA8 ? (void *)fb->rgba8
                : channel == CAVR_FB_COLOR_RGBA32F ? (void *)fb->rgbaf
                                                   : (void *)fb->depth;
  if (!fb->pinned[channel] && !fb->pinFailed[channel]) {
    /* CAVR_PIN_HOST "0": never page-lock (copies from pageable memory; a control) */
    if (!strcmp(fb->device->env.pinHost, "0")) {
      fb->pinFailed[channel] = 1;
      return plane;
    }
    char msg[400];
    if (cavr_cuda_host_register(plane, n * (channel == CAVR_FB_COLOR_RGBA32F ? 16 : 4), msg, sizeof msg) == 0)
      fb->pinned[channel] = plane;
    else
      fb->pinFailed[channel] = 1;
  }
  return plane;
}

static void cuda_release_gl(CAVRDevice dev, CAVRFrameBuffer fb) {
  char why[256];
  if (fb->glResource[0] || fb->glResource[1] || fb->glResource[2] || fb->glDepthResource)
    (void)cavr_cuda_context_make_current(context(dev), why, sizeof why); /* best effort: the registrations' GPU */
  for (int c = 0; c < 3; ++c) {
    cavr_cuda_gl_unregister(fb->glResource[c]);
    fb->glResource[c] = NULL;
    fb->glTexture[c] = 0;
  }
  cavr_cuda_gl_unregister(fb->glDepthResource);
  fb->glDepthResource = NULL;
  fb->glDepthBuffer = 0;
  fb->glChecked = 0;
}

static void cuda_unshare(CAVRDevice dev, CAVRFrameBuffer fb) {
  if (!fb->shared[0] && !fb->shared[1]) return;
  char why[256];
  (void)cavr_cuda_context_make_current(context(dev), why, sizeof why); /* best effort: the allocations' GPU */
  for (int c = 0; c < 2; ++c) {
    cavr_cuda_share_free((CAVRGpuShared *)fb->shared[c]);
    fb->shared[c] = fb->sharedPtr[c] = NULL;
  }
  fb->sharedBytes = 0;
}

/* Shared planes: new exported memory for the colour (RGBA8) and the depth, each width x height x 4
   bytes; the frame buffer's earlier shared memory is released first (an importer keeps its own reference). */
static CAVRError cuda_share(CAVRDevice dev, CAVRFrameBuffer fb, int fds[2], unsigned long long bytes[2]) {
  char msg[400] = "";
  cuda_unshare(dev, fb);
  fds[0] = fds[1] = -1;
  bytes[0] = bytes[1] = 0;
  int code = cavr_cuda_context_make_current(context(dev), msg, sizeof msg);
  const size_t plane = (size_t)fb->width * fb->height * 4;
  for (int c = 0; c < 2 && !code; ++c)
    code = cavr_cuda_share_alloc(context(dev), plane, (CAVRGpuShared **)&fb->shared[c], &fb->sharedPtr[c], &bytes[c],
                                 &fds[c], msg, sizeof msg);
  if (code) {
    if (fds[0] >= 0) close(fds[0]);
    fds[0] = fds[1] = -1;
    bytes[0] = bytes[1] = 0;
    cuda_unshare(dev, fb);
    return cavr_set_error(dev, (CAVRError)code, "cavrShareFrameBufferPlanes: %s", msg);
  }
  fb->sharedBytes = plane;
  return CAVR_ERROR_NONE;
}

/* Before each call that leaves planes on the context: where they are shared (NULL: nowhere). */
static void set_share(CAVRDevice dev, CAVRFrameBuffer fb, int deviceOnly) {
  const int on = fb && !deviceOnly && fb->sharedPtr[0];
  cavr_cuda_set_share(context(dev), on ? fb->sharedPtr[0] : NULL, on ? fb->sharedPtr[1] : NULL,
                      on ? fb->sharedBytes : 0);
}

static void cuda_release_frame_buffer(CAVRDevice dev, CAVRFrameBuffer fb) {
  cuda_unshare(dev, fb);
  for (int c = 0; c < 3; ++c) {
    cavr_cuda_host_unregister(fb->pinned[c]);
    fb->pinned[c] = NULL;
  }
  cuda_release_gl(dev, fb);
  cavr_cuda_free_device(fb->opaqueDevice);
  fb->opaqueDevice = NULL;
  fb->opaqueDeviceBytes = 0;
  fb->opaqueOnDevice = 0;
}

/* The current GL context on this device's GPU (checked once per frame buffer until releaseGL). `what` names the call. */
static CAVRError gl_context_here(CAVRDevice dev, CAVRFrameBuffer fb, const char *what) {
  char msg[400] = "";
  if (cavr_cuda_context_make_current(context(dev), msg, sizeof msg)) /* this device's GPU: cudaGLGetDevices compares */
    return cavr_set_error(dev, CAVR_ERROR_CUDA, "%s: %s", what, msg);
  if (fb->glChecked == 0) {
    int same = 0;
    int code = cavr_cuda_gl_same_device(&same, msg, sizeof msg);
    if (code) return cavr_set_error(dev, (CAVRError)code, "%s: %s", what, msg);
    fb->glChecked = same ? 1 : -1;
  }
  if (fb->glChecked < 0)
    return cavr_set_error(dev, CAVR_ERROR_UNSUPPORTED, "%s: the current OpenGL context is not on this device's GPU%s%s",
                          what, msg[0] ? ": " : "", msg);
  return CAVR_ERROR_NONE;
}

/* The opaque depth from a GL buffer object into the frame buffer's device copy (no host round trip). */
static CAVRError cuda_opaque_from_gl(CAVRDevice dev, CAVRFrameBuffer fb, unsigned buffer) {
  static const char *what = "cavrSetFrameBufferOpaqueDepthGLBuffer";
  CAVRError err = gl_context_here(dev, fb, what);
  if (err) return err;
  char msg[400] = "";
  if (fb->glDepthResource && fb->glDepthBuffer != buffer) {
    cavr_cuda_gl_unregister(fb->glDepthResource);
    fb->glDepthResource = NULL;
  }
  if (!fb->glDepthResource) {
    int code = cavr_cuda_gl_register_buffer(buffer, &fb->glDepthResource, msg, sizeof msg);
    if (code) return cavr_set_error(dev, (CAVRError)code, "%s: %s", what, msg);
    fb->glDepthBuffer = buffer;
  }
  int code = cavr_cuda_gl_copy_from_buffer(context(dev), fb->glDepthResource, &fb->opaqueDevice, &fb->opaqueDeviceBytes,
                                           sizeof(float) * (size_t)fb->width * fb->height, msg, sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "%s: %s", what, msg);
  fb->opaqueOnDevice = 1;
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_opaque_to_host(CAVRDevice dev, CAVRFrameBuffer fb) {
  const size_t bytes = sizeof(float) * (size_t)fb->width * fb->height;
  char msg[400] = "";
  fb->opaqueDepth = cavr_opaque_store(fb);
  if (!fb->opaqueDepth) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: no memory for the opaque depth");
  int code = cavr_cuda_context_make_current(context(dev), msg, sizeof msg);
  if (!code) code = cavr_cuda_download(context(dev), fb->opaqueDepth, fb->opaqueDevice, bytes, msg, sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: the opaque depth to the host: %s", msg);
  return CAVR_ERROR_NONE;
}

/* The device planes into GL textures (CUDA-OpenGL interop). The first copy checks that the current GL context runs on
   this GPU (else CAVR_ERROR_UNSUPPORTED until cavrReleaseFrameBufferGLTextures) and each new texture name of a plane
   is registered once; the copies are queued on the context's stream behind the render, all under one map. */
static CAVRError cuda_copy_to_gl(CAVRDevice dev, CAVRFrameBuffer fb, const unsigned textures[3]) {
  char msg[400] = "";
  CAVRError err = gl_context_here(dev, fb, "cavrCopyFrameBufferToGLTextures");
  if (err) return err;
  static const size_t pixelBytes[3] = {4, 16, 4};
  void *resources[3];
  const void *srcs[3];
  size_t rowBytes[3];
  int count = 0;
  for (int c = 0; c < 3; ++c) {
    if (!textures[c]) continue;
    if (fb->glResource[c] && fb->glTexture[c] != textures[c]) {
      cavr_cuda_gl_unregister(fb->glResource[c]);
      fb->glResource[c] = NULL;
    }
    if (!fb->glResource[c]) {
      int code = cavr_cuda_gl_register_texture(textures[c], &fb->glResource[c], msg, sizeof msg);
      if (code) return cavr_set_error(dev, (CAVRError)code, "cavrCopyFrameBufferToGLTextures: %s", msg);
      fb->glTexture[c] = textures[c];
    }
    resources[count] = fb->glResource[c];
    srcs[count] = fb->devicePlanes[c];
    rowBytes[count] = (size_t)fb->width * pixelBytes[c];
    ++count;
  }
  int code = cavr_cuda_gl_copy_to_textures(context(dev), count, resources, srcs, rowBytes, fb->height, msg, sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrCopyFrameBufferToGLTextures: %s", msg);
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_memory_info(CAVRDevice dev, size_t *freeBytes, size_t *totalBytes) {
  char msg[400];
  if (cavr_cuda_context_make_current(context(dev), msg, sizeof msg))
    return cavr_set_error(dev, CAVR_ERROR_CUDA, "cavrGetDeviceMemoryInfo: %s", msg);
  int code = cavr_cuda_memory_info(freeBytes, totalBytes, msg, sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrGetDeviceMemoryInfo: %s", msg);
  return CAVR_ERROR_NONE;
}

/*
 * Turn the volume on the GPU from its state cv->rotation into `want` (CAVR_ROT_*, the plan's). Out of device memory
 * (or CAVR_CUDA_VOLUME_LIMIT) and beyond the GPU's 3-D texture size are not errors: the volume stays unrotated from
 * then on (cv->noRotate), said once through the callback. Adds the turns' time to stats->rotationMilliseconds.
 */
static CAVRError rotate_volume(CAVRDevice dev, CAVRVolume vol, CudaVolume *cv, int want, CAVRRenderStats *stats) {
  CAVRGpuContext *ctx = context(dev);
  char msg[400];
  msg[0] = '\0';
  /* A cube whose side is a multiple of 64 turns in place (Misaki 2017); any other array by a copy into an array
     of the permuted extent (both exist during the copy). */
  float ms = 0.0f, ms2 = 0.0f;
  int code = 0;
  const int byCopy = !(cv->cube > 0 && cv->cube % 64 == 0);
  int turns = 0;
  if (cv->rotation != CAVR_ROT_NONE) {
    code = cavr_cuda_volume_rotate(ctx, cv->gpu, cv->rotation, -1, &ms, msg, sizeof msg);
    if (!code) cv->rotation = CAVR_ROT_NONE, ++turns;
  }
  if (!code && want != CAVR_ROT_NONE) {
    code = over_limit(dev, 2.0 * (double)cavr_cuda_volume_bytes(cv->gpu)) && !(cv->cube > 0 && cv->cube % 64 == 0)
               ? CAVR_ERROR_CUDA_OUT_OF_MEMORY
               : cavr_cuda_volume_rotate(ctx, cv->gpu, want, +1, &ms2, msg, sizeof msg);
    if (!code) cv->rotation = want, ++turns;
  }
  if (code == CAVR_ERROR_CUDA_OUT_OF_MEMORY || code == CAVR_ERROR_UNSUPPORTED) {
    /* Not an error: the frame renders unrotated. Said once, with the code, like the CPU fallback. */
    cv->noRotate = 1;
    char text[700];
    snprintf(text, sizeof text, "cavrRender: rotating the volume needs a second copy of it on the GPU, which %s; "
             "rendering without rotation (%s)", code == CAVR_ERROR_UNSUPPORTED ? "exceeds the GPU's 3-D texture size"
             : "does not fit in GPU memory", !msg[0] ? "CAVR_CUDA_VOLUME_LIMIT" : msg);
    cavr_note(dev, (CAVRError)code, text);
    code = 0;
  }
  if (byCopy) vol->commitStats.deviceAllocations += turns; /* each turn by copy makes a new array */
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: in-place rotation: %s", msg);
  stats->rotationMilliseconds = ms + ms2;
  if (turns) cavr_plan_record_rotation((ms + ms2) / turns, (double)cavr_cuda_volume_bytes(cv->gpu), &cv->history);
  device_stats(vol, cv);
  return CAVR_ERROR_NONE;
}

/* The frame's 2-D table for the kernels (cavrSetTransferFunction2D), corrected as the 1-D one, in cd->t2Table:
   rebuilt (a new stamp) only when the transfer function's 2-D entries, the exponent or the correction changed. */
static CAVRError table_2d(CAVRDevice dev, CudaDevice *cd, const CAVRTransferFunction tf, const CAVRRayFrame *p,
                          float exponent) {
  const size_t entries = (size_t)p->tf2dW * (size_t)p->tf2dH, made = entries + (size_t)p->tf2dW;
  if (cd->t2Table && cd->t2Entries == entries && cd->t2Exponent == exponent && cd->t2Correction == p->correction &&
      memcmp(cd->t2Table + 4 * made, tf->t2, sizeof(float) * 4 * entries) == 0)
    return CAVR_ERROR_NONE;
  if (cd->t2Entries != entries || !cd->t2Table) {
    free(cd->t2Table);
    cd->t2Table = (float *)malloc(sizeof(float) * 4 * (made + entries));
    cd->t2Entries = cd->t2Table ? entries : 0;
    if (!cd->t2Table) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory");
  }
  cavr_tf2d_corrected(tf, p->correction, exponent, cd->t2Table);
  memcpy(cd->t2Table + 4 * made, tf->t2, sizeof(float) * 4 * entries);
  cd->t2Exponent = exponent;
  cd->t2Correction = p->correction;
  cd->t2Stamp = atomic_fetch_add(&nextTableStamp, 1);
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_render(CAVRDevice dev, const CAVRRenderJob *job, CAVRRenderStats *stats) {
  {
    char why[256];
    if (cavr_cuda_context_make_current(context(dev), why, sizeof why))
      return cavr_set_error(dev, CAVR_ERROR_CUDA, "%s", why);
  }
  const CAVRVolume vol = job->volume;
  const CAVRTransferFunction tf = job->tf;
  const CAVRSettingsDesc *s = job->settings;
  const CAVRCamera cam = job->camera;
  CAVRFrameBuffer fb = job->fb;
  CudaVolume *cv = (CudaVolume *)vol->backendVolume;
  CAVRGpuContext *ctx = context(dev);
  char msg[400];
  if (!cv) return cavr_set_error(dev, CAVR_ERROR_NOT_COMMITTED, "cavrRender: the volume is not on the GPU");

  /* The frame both back ends read (frame_constants.c); the launch fields are the policy's, below. */
  CAVRRayFrame p;
  cavr_ray_frame(job, &p);
  const int iso = s->blendMode == CAVR_BLEND_ISOSURFACE;

  /* Policy (view_policy.c): the plan for this view and volume, the volume turned as it says, the launch shape. */
  CAVRRenderPlan plan;
  double dirI[3], rightI[3], upI[3];
  cavr_plan_view_index(cam->view, vol->desc.spacing, dirI, rightI, upI);
  const double volumeBytes = (double)cavr_cuda_volume_bytes(cv->gpu);
  cv->history.elongation = cavr_plan_elongation(vol->desc.dims);
  const CAVRTuneTable *tuned =
      cavr_plan_needs_table(s, cv->noRotate || cv->color != NULL) ? table_for_volume(dev, cv->storage, volumeBytes) : NULL;
  /* A volume with a colour part is never turned: its colour texture is read at the scalar's coordinates. */
  const int noRotate = cv->noRotate || cv->color != NULL;
  cavr_plan_frame(s, dirI, rightI, upI, tuned, volumeBytes, cv->rotation, noRotate, &cv->history, &plan);
  if (plan.rotation != cv->rotation) {
    CAVRError e = rotate_volume(dev, vol, cv, plan.rotation, stats);
    if (e) return e;
  }
  cavr_plan_launch(dirI, rightI, upI, tuned, volumeBytes, cv->rotation, &cv->history, &plan);
  p.rotation = cv->rotation;
  /* The rotation map's offset: the extent of the axis that becomes stored x (the cube's side for a cube). */
  p.cube = cv->rotation == CAVR_ROT_Y ? cv->dims[2] : cv->rotation == CAVR_ROT_Z ? cv->dims[1] : 0;
  p.blockW = plan.blockW;
  p.blockH = plan.blockH;
  p.warpW = plan.warpW;
  p.warpH = plan.warpH;
  p.transposed = plan.transposed;
  p.syncPropagation = plan.syncPropagation;
  p.isoMethod = plan.isoMethod;
  stats->autoTable = plan.useTable;
  stats->isoMethod = iso ? (CAVRIsoMethod)plan.isoMethod : CAVR_ISO_STANDARD;

  /* Tables: count entries with the opacity corrected for a full step, then the raw table; kept while the transfer
     function's entries (the raw half, compared by value), the step over the unit distance and the correction stay the
     same: no rebuild, no upload. */
  const size_t count = (size_t)tf->count;
  const float exponent = p.step * (1.0f / s->unitDistance);
  CudaDevice *cd = (CudaDevice *)dev->backendData;
  if (!(cd->tfTable && cd->tfCount == count && cd->tfExponent == exponent && cd->tfCorrection == p.correction &&
        memcmp(cd->tfTable + 4 * count, tf->table, sizeof(float) * 4 * count) == 0)) {
    if (cd->tfCount != count || !cd->tfTable) {
      free(cd->tfTable);
      cd->tfTable = (float *)malloc(sizeof(float) * 8 * count);
      cd->tfCount = cd->tfTable ? count : 0;
      if (!cd->tfTable) return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory");
    }
    float *table = cd->tfTable;
    for (size_t i = 0; i < count; ++i) {
      float a = tf->table[4 * i + 3];
      for (int c = 0; c < 3; ++c) table[4 * i + c] = tf->table[4 * i + c];
      table[4 * i + 3] = (p.correction && a > 0.0f) ? 1.0f - powf(1.0f - a, exponent) : a;
    }
    memcpy(table + 4 * count, tf->table, sizeof(float) * 4 * count);
    cd->tfExponent = exponent;
    cd->tfCorrection = p.correction;
    cd->tfStamp = atomic_fetch_add(&nextTableStamp, 1);
  }
  const float *table = cd->tfTable;
  if (p.tf2dW) {
    const CAVRError e = table_2d(dev, cd, tf, &p, exponent);
    if (e) return e;
  }
  /* Macro-cell visibility: recomputed when the transfer function, its mapping or the volume changed. */
  size_t cells = (size_t)p.cells[0] * p.cells[1] * p.cells[2];
  int isoSame = iso && cv->isoCount == p.isoCount && cv->volVersion == vol->version;
  for (int i = 0; isoSame && i < p.isoCount; ++i) isoSame = cv->iso[i] == p.iso[i];
  if (p.skip && ((iso && !isoSame) || (!iso && (cv->isoCount || cv->tfKey != (const void *)tf || cv->tfVersion != tf->version || cv->volVersion != vol->version ||
                 cv->cellScale != p.idxScale || cv->cellBias != p.idxBias || cv->cellDilation != p.cellDilation)) ||
                 cv->cellDilation != p.cellDilation || !cv->cells)) {
    if (cv->cellCount != cells) {
      free(cv->cells);
      cv->cells = (uint8_t *)malloc(cells);
      cv->cellCount = cv->cells ? cells : 0;
    }
    if (!cv->cells) {
      return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for macro cells");
    }
    if (iso) {
      cavr_classify_iso_cells(vol, p.iso, p.isoCount, p.cellDilation, cv->cells);
    } else {
      cavr_classify_tf(vol, tf, &p, cv->cells); /* the 1-D table, or the 2-D table's column maxima */
      cavr_dilate_cells(&vol->grid, p.cellDilation, cv->cells);
    }
    cv->cellDilation = p.cellDilation;
    cv->tfKey = iso ? NULL : tf;
    cv->isoCount = iso ? p.isoCount : 0;
    for (int i = 0; i < p.isoCount; ++i) cv->iso[i] = p.iso[i];
    cv->tfVersion = tf->version;
    cv->volVersion = vol->version;
    cv->cellScale = p.idxScale;
    cv->cellBias = p.idxBias;
    cv->cellsStamp = atomic_fetch_add(&nextCellsStamp, 1);
  }
  float kernelMs = 0.0f, transferMs = 0.0f;
  uint64_t samples = 0;
  /* Copy back: the planes the frame buffer asks for; none when a reconstruction follows on the device
     (deviceOnly 1); only the float colour when adaptive sampling reads it on the host (2). */
  const unsigned want = job->deviceOnly == 1 ? 0u : job->deviceOnly == 2 ? CAVR_FB_HOST_RGBA32F : fb->hostChannels;
  const CAVRRayList *rl = job->rays;
  set_share(dev, fb, job->deviceOnly);
  const CAVRGpuFrameJob gj = {p, table, cd->tfStamp, p.tf2dW ? cd->t2Table : NULL, cd->t2Stamp, p.skip ? cv->cells : NULL, cells, cv->cellsStamp,
                              rl ? rl->pixels : NULL, rl ? rl->count : 0, rl ? rl->stamp : 0,
                              fb->opaqueOnDevice ? NULL : fb->opaqueDepth,
                              fb->opaqueOnDevice ? (const float *)fb->opaqueDevice : NULL,
                              (uint8_t *)host_plane(fb, CAVR_FB_COLOR_RGBA8, want),
                              (float *)host_plane(fb, CAVR_FB_COLOR_RGBA32F, want),
                              (float *)host_plane(fb, CAVR_FB_DEPTH, want), cv->color};
  CAVRGpuFrameResult gr = {0.0f, 0.0f, 0};
  int code = cavr_cuda_render(ctx, cv->gpu, &gj, &gr, msg, sizeof msg);
  kernelMs = gr.kernelMs;
  transferMs = gr.transferMs;
  samples = gr.samples;
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: %s", msg);
  cavr_cuda_frame_device_pointers(ctx, &fb->devicePlanes[0], &fb->devicePlanes[1], &fb->devicePlanes[2]);
  stats->samples += samples;
  stats->kernelMilliseconds += kernelMs;
  /* The policy's record of what this plan cost on this volume (full frames only). */
  cavr_plan_record(&plan, cv->rotation, kernelMs, samples, (double)p.width * p.height, !rl, &cv->history);
  if (plan.useTable && dev->env.autoTrace[0] == '1') { /* CAVR_AUTO_TRACE=1: what AUTO planned and measured */
    const CAVRPlanHistory *h = &cv->history;
    const int vc = plan.viewClass >= 0 && plan.viewClass < CAVR_TUNE_CLASSES ? plan.viewClass : 0;
    fprintf(stderr, "cavr AUTO: frame %u class %d lean %.1f obliquity %.1f rotation %d shape %d repair %d second %d "
            "ns/sample %.5f; class %d paired %d at %.1f, unturned/y/z %.5f %.5f %.5f\n", h->frames, plan.viewClass,
            plan.xLean, plan.obliquity, cv->rotation, plan.shape, plan.repair, plan.secondTurn,
            samples ? kernelMs * 1e6 / (double)samples : 0.0, vc, h->statePaired[vc], h->pairLean[vc],
            h->seenState[vc][0], h->seenState[vc][1], h->seenState[vc][2]);
  }
  stats->transferMilliseconds += transferMs;
  stats->strategy = (CAVRStrategy)s->strategy;
  stats->blockWidth = p.blockW;
  stats->blockHeight = p.blockH;
  stats->warpWidth = p.warpW;
  stats->warpHeight = p.warpH;
  stats->rotation = cv->rotation;
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_reconstruct(CAVRDevice dev, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                                  CAVRRenderStats *stats) {
  const CAVRSettingsDesc *s = job->settings;
  CAVRFrameBuffer fb = job->fb;
  CAVRSolver solver;
  cavr_solver_init(&solver, s->gramFilter, s->lambda, s->maxIterations, s->tolerance);
  char msg[400];
  float ms = 0.0f, transferMs = 0.0f;
  int iterations = 0;
  const unsigned want = fb->hostChannels;
  set_share(dev, fb, 0);
  int code = cavr_cuda_reconstruct(context(dev), fb->width, fb->height, mask, maskStamp,
                                   s->reconstruction == CAVR_RECONSTRUCTION_LOCAL, solver.filter, solver.lambda,
                                   solver.maxIterations, solver.tolerance,
                                   (uint8_t *)host_plane(fb, CAVR_FB_COLOR_RGBA8, want),
                                   (float *)host_plane(fb, CAVR_FB_COLOR_RGBA32F, want),
                                   (float *)host_plane(fb, CAVR_FB_DEPTH, want), &ms, &transferMs, &iterations, msg,
                                   sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: %s", msg);
  cavr_cuda_frame_device_pointers(context(dev), &fb->devicePlanes[0], &fb->devicePlanes[1], &fb->devicePlanes[2]);
  stats->solveMilliseconds = ms;
  stats->transferMilliseconds += transferMs;
  stats->iterations = iterations;
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_block_deviation(CAVRDevice dev, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                                      double *weight) {
  char msg[400];
  int code = cavr_cuda_block_deviation(context(dev), job->fb->width, job->fb->height, mask, maskStamp, weight, msg,
                                       sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: %s", msg);
  return CAVR_ERROR_NONE;
}

static CAVRError cuda_supersample_keep_centre(CAVRDevice dev, const CAVRRenderJob *job) {
  char msg[400];
  int code = cavr_cuda_supersample_keep_centre(context(dev), job->fb->width, job->fb->height, msg, sizeof msg);
  return code ? cavr_set_error(dev, (CAVRError)code, "cavrRender: %s", msg) : CAVR_ERROR_NONE;
}

static CAVRError cuda_supersample_reduce(CAVRDevice dev, const CAVRRenderJob *job, int G, int n,
                                         CAVRRenderStats *stats) {
  CAVRFrameBuffer fb = job->fb;
  const unsigned want = fb->hostChannels;
  char msg[400];
  float ms = 0.0f, transferMs = 0.0f;
  set_share(dev, fb, 0);
  int code = cavr_cuda_supersample_reduce(context(dev), fb->width, fb->height, G, n, n == 5,
                                          (uint8_t *)host_plane(fb, CAVR_FB_COLOR_RGBA8, want),
                                          (float *)host_plane(fb, CAVR_FB_COLOR_RGBA32F, want),
                                          (float *)host_plane(fb, CAVR_FB_DEPTH, want), &ms, &transferMs,
                                          fb->devicePlanes, msg, sizeof msg);
  if (code) return cavr_set_error(dev, (CAVRError)code, "cavrRender: %s", msg);
  stats->kernelMilliseconds += ms;
  stats->transferMilliseconds += transferMs;
  return CAVR_ERROR_NONE;
}

static const CAVRBackendOps cudaOps = {CAVR_BACKEND_CUDA, cuda_init, cuda_commit_volume, cuda_release_volume,
                                       cuda_render, cuda_reconstruct, cuda_block_deviation, cuda_shutdown,
                                       cuda_release_frame_buffer, cuda_tune, cuda_supersample_keep_centre,
                                       cuda_supersample_reduce, cuda_copy_to_gl, cuda_opaque_from_gl,
                                       cuda_opaque_to_host, cuda_release_gl, cuda_memory_info, cuda_share,
                                       cuda_unshare};

const CAVRBackendOps *cavr_cuda_backend(const CAVREnv *env, char *msg, size_t msgSize, CAVRError *err, int *gpu) {
  int count = 0;
  char why[256] = "";
  if (cavr_cuda_device_count(&count, why, sizeof why) != 0 || count == 0) {
    snprintf(msg, msgSize, "no CUDA device%s%s", why[0] ? ": " : "", why);
    *err = CAVR_ERROR_NO_GPU;
    return NULL;
  }
  const int index = cavr_choose_gpu(*gpu, count, env, why, sizeof why);
  if (index < 0) {
    snprintf(msg, msgSize, "%s", why);
    *err = CAVR_ERROR_INVALID_ARGUMENT;
    return NULL;
  }
  *gpu = index;
  char name[128];
  size_t bytes = 0;
  if (cavr_cuda_device_info(index, name, sizeof name, &bytes, why, sizeof why) == 0) {
    if (count > 1) snprintf(msg, msgSize, "%s, %.0f GiB, GPU %d of %d", name, bytes / 1073741824.0, index, count);
    else snprintf(msg, msgSize, "%s, %.0f GiB", name, bytes / 1073741824.0);
  }
  return &cudaOps;
}
#else
const CAVRBackendOps *cavr_cuda_backend(const CAVREnv *env, char *msg, size_t msgSize, CAVRError *err, int *gpu) {
  (void)env;
  (void)gpu;
  snprintf(msg, msgSize, "this cavr library was built without CUDA");
  *err = CAVR_ERROR_UNSUPPORTED;
  return NULL;
}

void cavr_cuda_configure(CAVRDevice dev) { (void)dev; }
#endif

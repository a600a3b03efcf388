// SPDX-License-Identifier: BSD-3-Clause
/*
 * api.c - the only file that defines public cavr* functions. It validates handles and arguments,
 * keeps the stage-then-commit state and forwards rendering to the device's back-end table.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "compressive.h"
#include "host_memory.h"
#include "reconstruct.h"
#include "supersample.h"
#include "view_policy.h"
#include "camera_math.h"
#include "volume_data.h"


/* ------------------------------------------------------------------------------------------------ errors */

static _Thread_local CAVRError newDeviceError = CAVR_ERROR_NONE;
static _Thread_local char newDeviceMessage[512];

const char *cavrGetErrorString(CAVRError code) {
  switch (code) {
  case CAVR_ERROR_NONE: return "CAVR_ERROR_NONE";
  case CAVR_ERROR_INVALID_ARGUMENT: return "CAVR_ERROR_INVALID_ARGUMENT";
  case CAVR_ERROR_INVALID_OPERATION: return "CAVR_ERROR_INVALID_OPERATION";
  case CAVR_ERROR_OUT_OF_MEMORY: return "CAVR_ERROR_OUT_OF_MEMORY";
  case CAVR_ERROR_UNSUPPORTED: return "CAVR_ERROR_UNSUPPORTED";
  case CAVR_ERROR_INVALID_DATA: return "CAVR_ERROR_INVALID_DATA";
  case CAVR_ERROR_NOT_COMMITTED: return "CAVR_ERROR_NOT_COMMITTED";
  case CAVR_ERROR_CUDA: return "CAVR_ERROR_CUDA";
  case CAVR_ERROR_CUDA_OUT_OF_MEMORY: return "CAVR_ERROR_CUDA_OUT_OF_MEMORY";
  case CAVR_ERROR_NO_GPU: return "CAVR_ERROR_NO_GPU";
  case CAVR_ERROR_IO: return "CAVR_ERROR_IO";
  case CAVR_ERROR_FILE_FORMAT: return "CAVR_ERROR_FILE_FORMAT";
  case CAVR_ERROR_FILE_TRUNCATED: return "CAVR_ERROR_FILE_TRUNCATED";
  }
  return "CAVR_ERROR_UNKNOWN";
}

int cavrGetVersion(void) { return CAVR_VERSION; }

static _Thread_local CAVRErrorCapture *capture; /* the innermost capture of this thread (objects.h) */

void cavr_capture_errors(CAVRDevice device, CAVRErrorCapture *c) {
  c->device = device;
  c->error = CAVR_ERROR_NONE;
  c->message[0] = '\0';
  c->outer = capture;
  capture = c;
}

void cavr_capture_end(CAVRErrorCapture *c) { capture = c->outer; }

static CAVRErrorCapture *capturing(CAVRDevice device) {
  for (CAVRErrorCapture *c = capture; c; c = c->outer)
    if (c->device == device) return c;
  return NULL;
}

void cavr_note(CAVRDevice device, CAVRError code, const char *text) {
  if (!device || capturing(device)) return;
  pthread_mutex_lock(&device->lock);
  CAVRErrorCallback cb = device->callback;
  void *user = device->callbackUser;
  pthread_mutex_unlock(&device->lock);
  if (cb) cb(user, code, text);
}

CAVRError cavr_set_error(CAVRDevice device, CAVRError code, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  CAVRErrorCapture *c = device ? capturing(device) : NULL;
  if (c) {
    if (c->error == CAVR_ERROR_NONE) {
      c->error = code;
      snprintf(c->message, sizeof c->message, "%s", buf);
    }
    return code;
  }
  if (!device) {
    newDeviceError = code;
    snprintf(newDeviceMessage, sizeof newDeviceMessage, "%s", buf);
    return code;
  }
  CAVRErrorCallback cb;
  void *user;
  pthread_mutex_lock(&device->lock);
  if (device->error == CAVR_ERROR_NONE) {
    device->error = code;
    snprintf(device->message, sizeof device->message, "%s", buf);
  }
  cb = device->callback;
  user = device->callbackUser;
  pthread_mutex_unlock(&device->lock);
  if (cb) cb(user, code, buf);
  return code;
}

CAVRError cavrGetDeviceError(CAVRDevice device, const char **message) {
  CAVRError e;
  if (!device) {
    e = newDeviceError;
    if (message) *message = newDeviceMessage;
    newDeviceError = CAVR_ERROR_NONE;
    return e;
  }
  pthread_mutex_lock(&device->lock);
  e = device->error;
  memcpy(device->readMessage, device->message, sizeof device->readMessage);
  device->error = CAVR_ERROR_NONE;
  device->message[0] = '\0';
  pthread_mutex_unlock(&device->lock);
  if (message) *message = device->readMessage;
  return e;
}

CAVRError cavrSetDeviceErrorCallback(CAVRDevice device, CAVRErrorCallback callback, void *user) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&device->lock);
  device->callback = callback;
  device->callbackUser = user;
  pthread_mutex_unlock(&device->lock);
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetDeviceMemoryInfo(CAVRDevice device, size_t *freeBytes, size_t *totalBytes) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  if (!freeBytes || !totalBytes)
    return cavr_set_error(device, CAVR_ERROR_INVALID_ARGUMENT, "cavrGetDeviceMemoryInfo: NULL output");
  *freeBytes = *totalBytes = 0;
  if (!device->ops->memoryInfo)
    return cavr_set_error(device, CAVR_ERROR_UNSUPPORTED, "cavrGetDeviceMemoryInfo: the CPU back end has no device memory");
  return device->ops->memoryInfo(device, freeBytes, totalBytes);
}

CAVRError cavrTuneDevice(CAVRDevice device, CAVRScalarType type, char *path, size_t pathSize) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  int storage;
  switch (type) {
  case CAVR_UINT8:
  case CAVR_INT8: storage = CAVR_STORE_U8; break;
  case CAVR_UINT16:
  case CAVR_INT16: storage = CAVR_STORE_U16; break;
  case CAVR_FLOAT32:
  case CAVR_UINT32:
  case CAVR_INT32:
  case CAVR_FLOAT64: storage = CAVR_STORE_F32; break;
  default: return cavr_set_error(device, CAVR_ERROR_INVALID_ARGUMENT, "cavrTuneDevice: unknown scalar type %d", (int)type);
  }
  if (!device->ops->tune)
    return cavr_set_error(device, CAVR_ERROR_UNSUPPORTED, "cavrTuneDevice: the %s back end has no strategies to tune",
                          device->backend == CAVR_BACKEND_CPU ? "CPU" : "chosen");
  char local[1024];
  CAVRError e = device->ops->tune(device, storage, local, sizeof local);
  if (path && pathSize) snprintf(path, pathSize, "%s", e == CAVR_ERROR_NONE || e == CAVR_ERROR_IO ? local : "");
  return e;
}

/* ------------------------------------------------------------------------------------------------ device */

CAVRDevice cavrNewDevice(CAVRBackend backend) { return cavrNewDeviceOnGpu(backend, -1); }

CAVRDevice cavrNewDeviceOnGpu(CAVRBackend backend, int gpu) {
  const CAVRBackendOps *ops = NULL;
  char msg[400] = "";
  int index = gpu < 0 ? -1 : gpu;
  CAVREnv env;
  cavr_env_read(&env);
  if (backend != CAVR_BACKEND_AUTO && backend != CAVR_BACKEND_CPU && backend != CAVR_BACKEND_CUDA) {
    cavr_set_error(NULL, CAVR_ERROR_INVALID_ARGUMENT, "cavrNewDevice: unknown back end %d", (int)backend);
    return NULL;
  }
  if (backend == CAVR_BACKEND_CUDA || backend == CAVR_BACKEND_AUTO) {
    CAVRError err = CAVR_ERROR_NONE;
    ops = cavr_cuda_backend(&env, msg, sizeof msg, &err, &index);
    if (!ops && backend == CAVR_BACKEND_CUDA) {
      cavr_set_error(NULL, err, "cavrNewDevice: CUDA back end unavailable: %s", msg);
      return NULL;
    }
  }
  if (!ops) ops = cavr_cpu_backend();
  CAVRDevice d = (CAVRDevice)calloc(1, sizeof *d);
  if (!d) {
    cavr_set_error(NULL, CAVR_ERROR_OUT_OF_MEMORY, "cavrNewDevice: out of host memory");
    return NULL;
  }
  atomic_init(&d->refs, 1);
  pthread_mutex_init(&d->lock, NULL);
  d->env = env;
  cavr_cpu_packet_width_default(env.cpuPacketLanes);
  d->gpu = ops->kind == CAVR_BACKEND_CUDA ? index : -1;
  if (ops->init) {
    CAVRError err = ops->init(d, msg, sizeof msg);
    if (err != CAVR_ERROR_NONE) {
      if (backend == CAVR_BACKEND_CUDA) {
        cavr_set_error(NULL, err, "cavrNewDevice: CUDA back end failed to start: %s", msg);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
      }
      ops = cavr_cpu_backend(); /* AUTO: fall back to the CPU, keeping the reason in the name */
    }
  }
  d->ops = ops;
  d->backend = ops->kind;
  d->gpu = ops->kind == CAVR_BACKEND_CUDA ? index : -1;
  if (d->backend == CAVR_BACKEND_CUDA)
    snprintf(d->name, sizeof d->name, "CUDA (%s)", msg);
  else if (msg[0])
    snprintf(d->name, sizeof d->name, "CPU (CUDA unavailable: %s)", msg);
  else
    snprintf(d->name, sizeof d->name, "CPU");
  return d;
}

int cavrGetDeviceGpu(CAVRDevice device) { return device ? device->gpu : -1; }

CAVRError cavrRetainDevice(CAVRDevice device) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  atomic_fetch_add(&device->refs, 1);
  return CAVR_ERROR_NONE;
}

void cavrReleaseDevice(CAVRDevice device) {
  if (!device || atomic_fetch_sub(&device->refs, 1) != 1) return;
  if (device->ops->shutdown) device->ops->shutdown(device);
  pthread_mutex_destroy(&device->lock);
  free(device);
}

CAVRBackend cavrGetDeviceBackend(CAVRDevice device) { return device ? device->backend : CAVR_BACKEND_CPU; }

const char *cavrGetDeviceName(CAVRDevice device) { return device ? device->name : ""; }

CAVRError cavrSetDeviceThreadCount(CAVRDevice device, int threads) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  if (threads < 0) return cavr_set_error(device, CAVR_ERROR_INVALID_ARGUMENT, "cavrSetDeviceThreadCount: %d < 0", threads);
  device->threads = threads;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetDeviceParam(CAVRDevice device, const char *name, const char *value) {
  if (!device) return CAVR_ERROR_INVALID_ARGUMENT;
  if (!name || cavr_env_set(&device->env, name, value) != 0)
    return cavr_set_error(device, CAVR_ERROR_INVALID_ARGUMENT,
                          "cavrSetDeviceParam: '%.60s' is not a device parameter that can be set, or its value is too "
                          "long (docs/user-guide.md, \"Environment variables\")", name ? name : "(null)");
  if (!strcmp(name, "CAVR_CPU_PACKET_LANES")) cavr_cpu_packet_width(value && *value ? atoi(value) : 8);
  if (device->backend == CAVR_BACKEND_CUDA) cavr_cuda_configure(device);
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ helpers */

#define CHECK_HANDLE(h, fn)                                                                                        \
  do {                                                                                                             \
    if (!(h)) return CAVR_ERROR_INVALID_ARGUMENT;                                                                  \
  } while (0)

#define ARG_ERROR(obj, ...) cavr_set_error((obj)->device, CAVR_ERROR_INVALID_ARGUMENT, __VA_ARGS__)

#define DEFINE_REFCOUNT(Name, Type, FreeFn)                                                                        \
  CAVRError cavrRetain##Name(Type h) {                                                                             \
    if (!h) return CAVR_ERROR_INVALID_ARGUMENT;                                                                    \
    atomic_fetch_add(&h->refs, 1);                                                                                 \
    return CAVR_ERROR_NONE;                                                                                        \
  }                                                                                                                \
  void cavrRelease##Name(Type h) {                                                                                 \
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1) return;                                                          \
    CAVRDevice dev = h->device;                                                                                    \
    FreeFn(h);                                                                                                     \
    cavrReleaseDevice(dev);                                                                                        \
  }

static void *new_object(CAVRDevice device, size_t size, const char *what) {
  if (!device) {
    cavr_set_error(NULL, CAVR_ERROR_INVALID_ARGUMENT, "%s: NULL device", what);
    return NULL;
  }
  void *p = calloc(1, size);
  if (!p) {
    cavr_set_error(device, CAVR_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    return NULL;
  }
  cavrRetainDevice(device);
  return p;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* ------------------------------------------------------------------------------------------------ volume */

static size_t voxel_bytes(const CAVRVoxels *v) {
  return (size_t)v->dims[0] * v->dims[1] * v->dims[2] *
         (v->storage == CAVR_STORE_U8 ? 1u : v->storage == CAVR_STORE_U16 ? 2u : 4u);
}

/* Free voxels cavr copied; shared ones (cavrSetVolumeSharedData) stay the caller's. */
static void free_voxels(CAVRVoxels *v) {
  if (!v->shared) cavr_host_free(v->data, voxel_bytes(v));
  v->data = NULL;
}

static void free_volume(CAVRVolume v) {
  if (v->device->ops->releaseVolume) v->device->ops->releaseVolume(v->device, v);
  free_voxels(&v->staged);
  free_voxels(&v->voxels);
  cavr_host_free(v->spare, v->spareBytes);
  free(v->cellMinMax);
  free(v->cpuCells);
  free(v->stagedColor);
  free(v->color);
  free(v);
}
DEFINE_REFCOUNT(Volume, CAVRVolume, free_volume)

CAVRVolume cavrNewVolume(CAVRDevice device) {
  CAVRVolume v = (CAVRVolume)new_object(device, sizeof *v, "cavrNewVolume");
  if (!v) return NULL;
  atomic_init(&v->refs, 1);
  v->device = device;
  for (int a = 0; a < 3; ++a) v->stagedSpacing[a] = 1.0;
  v->stagedExtent[0] = -1;
  return v;
}

/* Stage new voxels (copied or shared) in place of any staged ones; a one-component volume again. */
static void stage_voxels(CAVRVolume volume, const CAVRVoxels *vox) {
  free_voxels(&volume->staged);
  volume->staged = *vox;
  free(volume->stagedColor);
  volume->stagedColor = NULL;
  volume->stagedComponents = 1;
  volume->dirty = 1;
}

CAVRError cavrSetVolumeData(CAVRVolume volume, CAVRScalarType type, const int dims[3], const void *data,
                            size_t bytes) {
  CHECK_HANDLE(volume, "cavrSetVolumeData");
  char msg[400];
  CAVRVoxels vox;
  CAVRError e = cavr_convert_voxels(type, dims, data, bytes, &volume->spare, &volume->spareBytes,
                                    cavr_cpu_threads(volume->device), &vox, msg, sizeof msg);
  if (e != CAVR_ERROR_NONE) return cavr_set_error(volume->device, e, "cavrSetVolumeData: %s", msg);
  stage_voxels(volume, &vox);
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetVolumeSharedData(CAVRVolume volume, CAVRScalarType type, const int dims[3], const void *data,
                                  size_t bytes) {
  CHECK_HANDLE(volume, "cavrSetVolumeSharedData");
  if (!cavr_stores_as_is(type)) return cavrSetVolumeData(volume, type, dims, data, bytes); /* converted: a copy */
  char msg[400];
  CAVRVoxels vox;
  CAVRError e = cavr_share_voxels(type, dims, data, bytes, &vox, msg, sizeof msg);
  if (e != CAVR_ERROR_NONE) return cavr_set_error(volume->device, e, "cavrSetVolumeSharedData: %s", msg);
  stage_voxels(volume, &vox);
  return CAVR_ERROR_NONE;
}

/* Value i of an array of `type` (cavr_scalar_size(type) > 0), as double. */
static double value_at(CAVRScalarType type, const void *data, size_t i) {
  switch (type) {
  case CAVR_UINT8: return ((const uint8_t *)data)[i];
  case CAVR_INT8: return ((const int8_t *)data)[i];
  case CAVR_UINT16: return ((const uint16_t *)data)[i];
  case CAVR_INT16: return ((const int16_t *)data)[i];
  case CAVR_FLOAT32: return ((const float *)data)[i];
  case CAVR_UINT32: return ((const uint32_t *)data)[i];
  case CAVR_INT32: return ((const int32_t *)data)[i];
  default: return ((const double *)data)[i];
  }
}

/* The colour part of interleaved dependent components (cavrSetVolumeComponentData): 2 components: component 0 as
   float; 4: components 0-2 rescaled from their own ranges to [0, 1] (VTK's texture scale and bias: vtkVolumeTexture::
   GetScaleAndBias maps each component's finite range onto the lookup coordinate), 4 floats a voxel. NULL with a
   message for a value that is not finite, or out of memory. */
static float *split_color(CAVRScalarType type, int components, const void *data, size_t n, char *msg, size_t msgSize) {
  const int ch = components == 2 ? 1 : 4, used = components - 1;
  float *color = (float *)malloc(sizeof(float) * ch * (n ? n : 1));
  if (!color) {
    snprintf(msg, msgSize, "out of host memory for the colour components");
    return NULL;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < used; ++c) {
      const double v = value_at(type, data, i * (size_t)components + (size_t)c);
      if (!isfinite(v)) {
        snprintf(msg, msgSize, "component %d of voxel %zu is not finite", c, i);
        free(color);
        return NULL;
      }
      lo[c] = v < lo[c] ? v : lo[c];
      hi[c] = v > hi[c] ? v : hi[c];
    }
  for (size_t i = 0; i < n; ++i) {
    if (ch == 1) {
      color[i] = (float)value_at(type, data, i * 2u);
      continue;
    }
    for (int c = 0; c < 3; ++c) {
      const double v = value_at(type, data, i * 4u + (size_t)c), w = hi[c] > lo[c] ? hi[c] - lo[c] : 1.0;
      color[4 * i + c] = (float)((v - lo[c]) / w);
    }
    color[4 * i + 3] = 0.0f;
  }
  return color;
}

CAVRError cavrSetVolumeComponentData(CAVRVolume volume, CAVRScalarType type, int components, const int dims[3],
                                     const void *data, size_t bytes) {
  CHECK_HANDLE(volume, "cavrSetVolumeComponentData");
  if (components == 1) return cavrSetVolumeData(volume, type, dims, data, bytes);
  if (components != 2 && components != 4)
    return cavr_set_error(volume->device, CAVR_ERROR_UNSUPPORTED,
                          "cavrSetVolumeComponentData: %d components per voxel: dependent components need 2 (colour "
                          "through the table, opacity) or 4 (RGB, opacity)", components);
  const size_t vsize = cavr_scalar_size(type);
  if (!dims || !data || vsize == 0 || dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || dims[0] > CAVR_MAX_VOLUME_DIM ||
      dims[1] > CAVR_MAX_VOLUME_DIM || dims[2] > CAVR_MAX_VOLUME_DIM)
    return cavrSetVolumeData(volume, type, dims, data, bytes); /* its checks and messages */
  const size_t n = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2];
  if (bytes != n * (size_t)components * vsize)
    return ARG_ERROR(volume, "cavrSetVolumeComponentData: %zu bytes for %d x %d x %d voxels of %d components of %zu "
                     "bytes (need %zu)", bytes, dims[0], dims[1], dims[2], components, vsize,
                     n * (size_t)components * vsize);
  char msg[400];
  float *color = split_color(type, components, data, n, msg, sizeof msg);
  if (!color)
    return cavr_set_error(volume->device, strstr(msg, "memory") ? CAVR_ERROR_OUT_OF_MEMORY : CAVR_ERROR_INVALID_DATA,
                          "cavrSetVolumeComponentData: %s", msg);
  unsigned char *scalar = (unsigned char *)malloc(n * vsize);
  if (!scalar) {
    free(color);
    return cavr_set_error(volume->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrSetVolumeComponentData: out of host memory");
  }
  const unsigned char *src = (const unsigned char *)data + (size_t)(components - 1) * vsize;
  for (size_t i = 0; i < n; ++i) memcpy(scalar + i * vsize, src + i * (size_t)components * vsize, vsize);
  CAVRError e = cavrSetVolumeData(volume, type, dims, scalar, n * vsize);
  free(scalar);
  if (e != CAVR_ERROR_NONE) {
    free(color);
    return e;
  }
  volume->stagedColor = color;
  volume->stagedComponents = components;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetVolumeSpacing(CAVRVolume volume, const double spacing[3]) {
  CHECK_HANDLE(volume, "cavrSetVolumeSpacing");
  if (!spacing || !finite3(spacing) || !(spacing[0] > 0 && spacing[1] > 0 && spacing[2] > 0))
    return ARG_ERROR(volume, "cavrSetVolumeSpacing: spacing must be three finite values > 0");
  memcpy(volume->stagedSpacing, spacing, sizeof volume->stagedSpacing);
  volume->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetVolumeOrigin(CAVRVolume volume, const double origin[3]) {
  CHECK_HANDLE(volume, "cavrSetVolumeOrigin");
  if (!origin || !finite3(origin)) return ARG_ERROR(volume, "cavrSetVolumeOrigin: origin must be finite");
  memcpy(volume->stagedOrigin, origin, sizeof volume->stagedOrigin);
  volume->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetVolumeRenderExtent(CAVRVolume volume, const int extent[6]) {
  CHECK_HANDLE(volume, "cavrSetVolumeRenderExtent");
  if (extent)
    memcpy(volume->stagedExtent, extent, sizeof volume->stagedExtent);
  else
    volume->stagedExtent[0] = -1;
  volume->dirty = 1;
  return CAVR_ERROR_NONE;
}

static double now_ms(void); /* monotonic clock, ms (defined with cavrRender) */

CAVRError cavrCommitVolume(CAVRVolume volume) {
  CHECK_HANDLE(volume, "cavrCommitVolume");
  const double t0 = now_ms();
  if (!volume->staged.data && !volume->voxels.data)
    return cavr_set_error(volume->device, CAVR_ERROR_NOT_COMMITTED, "cavrCommitVolume: no voxel data was set");
  const int *nd = volume->staged.data ? volume->staged.dims : volume->voxels.dims, *e = volume->stagedExtent;
  if (e[0] != -1)
    for (int a = 0; a < 3; ++a)
      if (e[2 * a] < 0 || e[2 * a] >= e[2 * a + 1] || e[2 * a + 1] > nd[a] - 1)
        return ARG_ERROR(volume, "cavrCommitVolume: render extent [%d,%d]x[%d,%d]x[%d,%d] is not inside the %d x %d x %d "
                         "volume with at least 2 voxels per axis", e[0], e[1], e[2], e[3], e[4], e[5], nd[0], nd[1], nd[2]);
  CAVRVolumeCommitStats *cs = &volume->commitStats;
  cs->milliseconds = cs->cellMilliseconds = cs->uploadMilliseconds = cs->uploadGBps = 0.0;
  cs->uploadBytes = 0;
  cs->reusedAllocation = 0;
  if (volume->staged.data) {
    /* New voxels: their macro cells and range are computed after the back end's commit (on the GPU there). */
    CAVRMacroGridDesc grid;
    cavr_macrocell_grid(volume->staged.dims, &grid);
    size_t cells = (size_t)grid.cells[0] * grid.cells[1] * grid.cells[2],
           had = (size_t)volume->grid.cells[0] * volume->grid.cells[1] * volume->grid.cells[2];
    float *minmax = volume->cellMinMax && had == cells ? volume->cellMinMax : (float *)malloc(cells * 2 * sizeof(float));
    if (!minmax) return cavr_set_error(volume->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrCommitVolume: out of host memory");
    if (minmax != volume->cellMinMax) free(volume->cellMinMax);
    /* A time series: keep the replaced buffer for the next time step's cavrSetVolumeData (the same size), up to
       CAVR_SPARE_MAX_BYTES: above it, holding a second copy of the voxels between steps costs more host memory
       than the page faults of a fresh buffer cost time. */
    const size_t oldBytes = volume->voxels.data ? voxel_bytes(&volume->voxels) : 0;
    cavr_host_free(volume->spare, volume->spareBytes);
    volume->spare = NULL;
    volume->spareBytes = 0;
    if (oldBytes && !volume->voxels.shared && !volume->staged.shared && oldBytes == voxel_bytes(&volume->staged) &&
        oldBytes <= CAVR_SPARE_MAX_BYTES) {
      volume->spare = volume->voxels.data;
      volume->spareBytes = oldBytes;
    } else {
      free_voxels(&volume->voxels);
    }
    volume->voxels = volume->staged;
    memset(&volume->staged, 0, sizeof volume->staged);
    free(volume->color); /* the colour part comes with the voxels (cavrSetVolumeComponentData) */
    volume->color = volume->stagedColor;
    volume->components = volume->stagedColor ? volume->stagedComponents : 1;
    volume->stagedColor = NULL;
    volume->stagedComponents = 0;
    volume->grid = grid;
    volume->cellMinMax = minmax;
    volume->cellsPending = 1;
    ++volume->version;
  }
  CAVRVolumeDesc *d = &volume->desc;
  memcpy(d->dims, volume->voxels.dims, sizeof d->dims);
  d->storage = (int)volume->voxels.storage;
  d->valueOffset = volume->voxels.valueOffset;
  memcpy(d->spacing, volume->stagedSpacing, sizeof d->spacing);
  memcpy(d->origin, volume->stagedOrigin, sizeof d->origin);
  for (int a = 0; a < 3; ++a) {
    d->renderLo[a] = e[0] == -1 ? 0 : e[2 * a];
    d->renderHi[a] = e[0] == -1 ? d->dims[a] - 1 : e[2 * a + 1];
  }
  const CAVRVoxels *vx = &volume->voxels;
  cs->voxelBytes = voxel_bytes(vx);
  if (volume->device->ops->commitVolume) {
    CAVRError e = volume->device->ops->commitVolume(volume->device, volume);
    if (e != CAVR_ERROR_NONE) {
      cs->milliseconds = now_ms() - t0;
      return e;
    }
  }
  if (volume->cellsPending) { /* CPU back end, CPU fallback: on the host, all cores (or the device's thread count) */
    const double tc = now_ms();
    double range[2];
    if (cavr_compute_macrocells(vx, &volume->grid, cavr_cpu_threads(volume->device), volume->cellMinMax, range) !=
        CAVR_ERROR_NONE)
      return cavr_set_error(volume->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrCommitVolume: out of host memory for macro cells");
    volume->voxels.range[0] = range[0] + vx->valueOffset;
    volume->voxels.range[1] = range[1] + vx->valueOffset;
    volume->cellsPending = 0;
    cs->cellMilliseconds = now_ms() - tc;
  }
  volume->dirty = 0;
  volume->committed = 1;
  cs->hostBytes = (vx->shared ? 0 : cs->voxelBytes) + volume->spareBytes;
  cs->milliseconds = now_ms() - t0;
  return CAVR_ERROR_NONE;
}

#define REQUIRE_COMMITTED(obj, fn)                                                                                 \
  do {                                                                                                             \
    if (!(obj)->committed)                                                                                         \
      return cavr_set_error((obj)->device, CAVR_ERROR_NOT_COMMITTED, "%s: object was never committed", fn);       \
  } while (0)

CAVRError cavrGetVolumeComponents(CAVRVolume volume, int *components) {
  CHECK_HANDLE(volume, "cavrGetVolumeComponents");
  if (!components) return ARG_ERROR(volume, "cavrGetVolumeComponents: NULL components");
  REQUIRE_COMMITTED(volume, "cavrGetVolumeComponents");
  *components = volume->components > 1 ? volume->components : 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetVolumeRange(CAVRVolume volume, double range[2]) {
  CHECK_HANDLE(volume, "cavrGetVolumeRange");
  if (!range) return ARG_ERROR(volume, "cavrGetVolumeRange: NULL range");
  REQUIRE_COMMITTED(volume, "cavrGetVolumeRange");
  memcpy(range, volume->voxels.range, 2 * sizeof(double));
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetVolumeDims(CAVRVolume volume, int dims[3]) {
  CHECK_HANDLE(volume, "cavrGetVolumeDims");
  if (!dims) return ARG_ERROR(volume, "cavrGetVolumeDims: NULL dims");
  REQUIRE_COMMITTED(volume, "cavrGetVolumeDims");
  memcpy(dims, volume->desc.dims, 3 * sizeof(int));
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetVolumeCommitStats(CAVRVolume volume, CAVRVolumeCommitStats *stats) {
  CHECK_HANDLE(volume, "cavrGetVolumeCommitStats");
  if (!stats) return ARG_ERROR(volume, "cavrGetVolumeCommitStats: NULL stats");
  *stats = volume->commitStats;
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetVolumeBounds(CAVRVolume volume, double bounds[6]) {
  CHECK_HANDLE(volume, "cavrGetVolumeBounds");
  if (!bounds) return ARG_ERROR(volume, "cavrGetVolumeBounds: NULL bounds");
  REQUIRE_COMMITTED(volume, "cavrGetVolumeBounds");
  for (int a = 0; a < 3; ++a) {
    bounds[2 * a] = volume->desc.origin[a] + volume->desc.renderLo[a] * volume->desc.spacing[a];
    bounds[2 * a + 1] = volume->desc.origin[a] + volume->desc.renderHi[a] * volume->desc.spacing[a];
  }
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ transfer function */

static void free_tf(CAVRTransferFunction tf) {
  free(tf->stagedTable);
  free(tf->table);
  free(tf->stagedT2);
  free(tf->t2);
  free(tf->t2Columns);
  free(tf);
}
DEFINE_REFCOUNT(TransferFunction, CAVRTransferFunction, free_tf)

CAVRTransferFunction cavrNewTransferFunction(CAVRDevice device) {
  CAVRTransferFunction tf = (CAVRTransferFunction)new_object(device, sizeof *tf, "cavrNewTransferFunction");
  if (!tf) return NULL;
  atomic_init(&tf->refs, 1);
  tf->device = device;
  return tf;
}

CAVRError cavrSetTransferFunctionTable(CAVRTransferFunction tf, const float *rgba, int count, double minValue,
                                       double maxValue) {
  CHECK_HANDLE(tf, "cavrSetTransferFunctionTable");
  if (!rgba || count < CAVR_TF_MIN_ENTRIES || count > CAVR_TF_MAX_ENTRIES)
    return ARG_ERROR(tf, "cavrSetTransferFunctionTable: need %d to %d RGBA entries, got %d%s", CAVR_TF_MIN_ENTRIES,
                     CAVR_TF_MAX_ENTRIES, count, rgba ? "" : " (NULL table)");
  if (!isfinite(minValue) || !isfinite(maxValue) || !(minValue < maxValue))
    return ARG_ERROR(tf, "cavrSetTransferFunctionTable: scalar range [%g, %g] must be finite with min < max", minValue,
                     maxValue);
  /* The renderers index the table in float: index = value * (count - 1) / (max - min) + bias. Keep the scale and
     the scaled range ends far below FLT_MAX (values and the volume's stored offset stay below 2^32). */
  const double sc = (count - 1) / (maxValue - minValue);
  if (!(sc < 1e28 && fabs(minValue) * sc < 1e28 && fabs(maxValue) * sc < 1e28))
    return ARG_ERROR(tf, "cavrSetTransferFunctionTable: scalar range [%g, %g] is too narrow for its distance from 0 "
                     "(the table index would overflow float arithmetic)", minValue, maxValue);
  for (int i = 0; i < 4 * count; ++i)
    if (!(rgba[i] >= 0.0f && rgba[i] <= 1.0f))
      return cavr_set_error(tf->device, CAVR_ERROR_INVALID_DATA,
                            "cavrSetTransferFunctionTable: entry %d component %d is %g, outside [0,1]", i / 4, i % 4,
                            (double)rgba[i]);
  float *copy = (float *)malloc(sizeof(float) * 4 * (size_t)count);
  if (!copy) return cavr_set_error(tf->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrSetTransferFunctionTable: out of memory");
  memcpy(copy, rgba, sizeof(float) * 4 * (size_t)count);
  free(tf->stagedTable);
  tf->stagedTable = copy;
  tf->stagedCount = count;
  tf->stagedRange[0] = minValue;
  tf->stagedRange[1] = maxValue;
  tf->dirty = 1;
  return CAVR_ERROR_NONE;
}

_Static_assert(CAVR_FRAME_GO_POINTS == CAVR_MAX_GRADIENT_OPACITY_POINTS, "a frame holds every gradient-opacity point");

CAVRError cavrSetTransferFunctionGradientOpacity(CAVRTransferFunction tf, const double *points, int count) {
  CHECK_HANDLE(tf, "cavrSetTransferFunctionGradientOpacity");
  if (count < 0 || count > CAVR_MAX_GRADIENT_OPACITY_POINTS || (count > 0 && !points))
    return ARG_ERROR(tf, "cavrSetTransferFunctionGradientOpacity: need 0 to %d points, got %d%s",
                     CAVR_MAX_GRADIENT_OPACITY_POINTS, count, count > 0 && !points ? " (NULL points)" : "");
  for (int i = 0; i < count; ++i) {
    const double x = points[2 * i], y = points[2 * i + 1];
    if (!isfinite(x) || !isfinite(y) || x < 0.0 || x > 1e30 || y < 0.0 || y > 1.0)
      return cavr_set_error(tf->device, CAVR_ERROR_INVALID_DATA,
                            "cavrSetTransferFunctionGradientOpacity: point %d (%g, %g): the magnitude must be finite and "
                            ">= 0, the opacity in [0, 1]", i, x, y);
    if (i > 0 && !((float)x > (float)points[2 * i - 2]))
      return cavr_set_error(tf->device, CAVR_ERROR_INVALID_DATA,
                            "cavrSetTransferFunctionGradientOpacity: magnitude %g of point %d does not increase on %g "
                            "(in float)", x, i, points[2 * i - 2]);
  }
  for (int i = 0; i < 2 * count; ++i) tf->stagedGo[i] = (float)points[i];
  tf->stagedGoCount = count;
  tf->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetTransferFunction2D(CAVRTransferFunction tf, const float *rgba, int width, int height,
                                    double scalarMin, double scalarMax, double gradientMin, double gradientMax) {
  CHECK_HANDLE(tf, "cavrSetTransferFunction2D");
  if (!rgba && width == 0 && height == 0) { /* off */
    free(tf->stagedT2);
    tf->stagedT2 = NULL;
    tf->stagedT2Size[0] = tf->stagedT2Size[1] = 0;
    tf->t2Staged = 1;
    tf->dirty = 1;
    return CAVR_ERROR_NONE;
  }
  if (!rgba || width < CAVR_TF2D_MIN_ENTRIES || height < CAVR_TF2D_MIN_ENTRIES || width > CAVR_TF2D_MAX_ENTRIES ||
      height > CAVR_TF2D_MAX_ENTRIES || (double)width * height > CAVR_TF2D_MAX_TOTAL)
    return ARG_ERROR(tf, "cavrSetTransferFunction2D: need %d to %d entries per axis and at most %d in all, got %d x %d%s",
                     CAVR_TF2D_MIN_ENTRIES, CAVR_TF2D_MAX_ENTRIES, CAVR_TF2D_MAX_TOTAL, width, height,
                     rgba ? "" : " (NULL table)");
  const double r[4] = {scalarMin, scalarMax, gradientMin, gradientMax};
  for (int a = 0; a < 2; ++a) {
    const double lo = r[2 * a], hi = r[2 * a + 1], sc = ((a ? height : width) - 1) / (hi - lo);
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || (a == 1 && lo < 0.0) ||
        !(sc < 1e28 && fabs(lo) * sc < 1e28 && fabs(hi) * sc < 1e28))
      return ARG_ERROR(tf, "cavrSetTransferFunction2D: %s range [%g, %g] must be finite with min < max%s, and not so "
                       "narrow for its distance from 0 that the table index overflows float arithmetic",
                       a ? "gradient-magnitude" : "scalar", lo, hi, a ? ", min >= 0" : "");
  }
  const size_t n = 4 * (size_t)width * (size_t)height;
  for (size_t i = 0; i < n; ++i)
    if (!(rgba[i] >= 0.0f && rgba[i] <= 1.0f))
      return cavr_set_error(tf->device, CAVR_ERROR_INVALID_DATA,
                            "cavrSetTransferFunction2D: entry (%d, %d) component %d is %g, outside [0,1]",
                            (int)(i / 4 % (size_t)width), (int)(i / 4 / (size_t)width), (int)(i % 4), (double)rgba[i]);
  float *copy = (float *)malloc(sizeof(float) * n);
  if (!copy) return cavr_set_error(tf->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrSetTransferFunction2D: out of memory");
  memcpy(copy, rgba, sizeof(float) * n);
  free(tf->stagedT2);
  tf->stagedT2 = copy;
  tf->stagedT2Size[0] = width;
  tf->stagedT2Size[1] = height;
  memcpy(tf->stagedT2Range, r, sizeof r);
  tf->t2Staged = 1;
  tf->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetTransferFunctionColorRange(CAVRTransferFunction tf, double minValue, double maxValue) {
  CHECK_HANDLE(tf, "cavrSetTransferFunctionColorRange");
  const int none = minValue == 0.0 && maxValue == 0.0;
  const double sc = none ? 0.0 : (CAVR_TF_MAX_ENTRIES - 1) / (maxValue - minValue);
  if (!none && (!isfinite(minValue) || !isfinite(maxValue) || !(minValue < maxValue) ||
                !(sc < 1e28 && fabs(minValue) * sc < 1e28 && fabs(maxValue) * sc < 1e28)))
    return ARG_ERROR(tf, "cavrSetTransferFunctionColorRange: colour range [%g, %g] must be finite with min < max, not "
                     "too narrow for its distance from 0, or 0, 0 (the table's range)", minValue, maxValue);
  tf->stagedColorRange[0] = minValue;
  tf->stagedColorRange[1] = maxValue;
  tf->dirty = 1;
  return CAVR_ERROR_NONE;
}

/* Publish a staged 2-D change: the table, its range and its column maxima (cavr_classify_tf), or none. */
static CAVRError commit_tf2d(CAVRTransferFunction tf) {
  if (!tf->t2Staged) return CAVR_ERROR_NONE;
  const int w = tf->stagedT2Size[0], h = tf->stagedT2Size[1];
  float *columns = NULL;
  if (tf->stagedT2) {
    columns = (float *)calloc(4 * (size_t)w, sizeof(float));
    if (!columns) return cavr_set_error(tf->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrCommitTransferFunction: out of memory");
    for (int j = 0; j < h; ++j)
      for (int i = 0; i < w; ++i) {
        const float a = tf->stagedT2[4 * ((size_t)j * w + i) + 3];
        columns[4 * i + 3] = a > columns[4 * i + 3] ? a : columns[4 * i + 3];
      }
  }
  free(tf->t2);
  free(tf->t2Columns);
  tf->t2 = tf->stagedT2;
  tf->t2Columns = columns;
  tf->t2Size[0] = w;
  tf->t2Size[1] = h;
  memcpy(tf->t2Range, tf->stagedT2Range, sizeof tf->t2Range);
  tf->stagedT2 = NULL;
  tf->t2Staged = 0;
  return CAVR_ERROR_NONE;
}

CAVRError cavrCommitTransferFunction(CAVRTransferFunction tf) {
  CHECK_HANDLE(tf, "cavrCommitTransferFunction");
  if (!tf->stagedTable && !tf->table)
    return cavr_set_error(tf->device, CAVR_ERROR_NOT_COMMITTED, "cavrCommitTransferFunction: no table was set");
  const CAVRError e2 = commit_tf2d(tf);
  if (e2) return e2;
  if (tf->stagedTable) {
    free(tf->table);
    tf->table = tf->stagedTable;
    tf->count = tf->stagedCount;
    tf->range[0] = tf->stagedRange[0];
    tf->range[1] = tf->stagedRange[1];
    tf->stagedTable = NULL;
  }
  tf->goCount = tf->stagedGoCount;
  memcpy(tf->go, tf->stagedGo, sizeof tf->go);
  memcpy(tf->colorRange, tf->stagedColorRange, sizeof tf->colorRange);
  ++tf->version;
  tf->dirty = 0;
  tf->committed = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSampleTransferFunction(CAVRTransferFunction tf, double value, float rgba[4]) {
  CHECK_HANDLE(tf, "cavrSampleTransferFunction");
  if (!rgba || isnan(value)) return ARG_ERROR(tf, "cavrSampleTransferFunction: NULL output or NaN value");
  REQUIRE_COMMITTED(tf, "cavrSampleTransferFunction");
  /* Same float arithmetic as the renderers (cpu_backend.c tf_index). */
  float fi = (float)((value - tf->range[0]) * ((tf->count - 1) / (tf->range[1] - tf->range[0])));
  fi = fminf(fmaxf(fi, 0.0f), (float)(tf->count - 1));
  int i = (int)fi;
  if (i > tf->count - 2) i = tf->count - 2;
  float f = fi - (float)i;
  for (int c = 0; c < 4; ++c) rgba[c] = tf->table[4 * i + c] + f * (tf->table[4 * (i + 1) + c] - tf->table[4 * i + c]);
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ camera */

static void free_camera(CAVRCamera c) { free(c); }
DEFINE_REFCOUNT(Camera, CAVRCamera, free_camera)

static void identity(double m[16]) {
  memset(m, 0, 16 * sizeof(double));
  m[0] = m[5] = m[10] = m[15] = 1.0;
}

CAVRCamera cavrNewCamera(CAVRDevice device) {
  CAVRCamera c = (CAVRCamera)new_object(device, sizeof *c, "cavrNewCamera");
  if (!c) return NULL;
  atomic_init(&c->refs, 1);
  c->device = device;
  identity(c->stagedView);
  identity(c->stagedProj);
  c->dirty = 1;
  return c;
}

CAVRError cavrSetCameraMatrices(CAVRCamera camera, const double view[16], const double projection[16]) {
  CHECK_HANDLE(camera, "cavrSetCameraMatrices");
  if (!view || !projection) return ARG_ERROR(camera, "cavrSetCameraMatrices: NULL matrix");
  double vp[16], inv[16];
  for (int i = 0; i < 16; ++i)
    if (!isfinite(view[i]) || !isfinite(projection[i]))
      return ARG_ERROR(camera, "cavrSetCameraMatrices: non-finite matrix entry %d", i);
  cavr_mat4_mul(projection, view, vp);
  if (!cavr_mat4_invert(vp, inv)) return ARG_ERROR(camera, "cavrSetCameraMatrices: projection * view is singular");
  memcpy(camera->stagedView, view, sizeof camera->stagedView);
  memcpy(camera->stagedProj, projection, sizeof camera->stagedProj);
  camera->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetCameraOrbit(CAVRCamera camera, const double bounds[6], double rxDeg, double ryDeg, double rzDeg,
                             CAVRProjection projection, double aspect) {
  CHECK_HANDLE(camera, "cavrSetCameraOrbit");
  if (!bounds) return ARG_ERROR(camera, "cavrSetCameraOrbit: NULL bounds");
  for (int a = 0; a < 3; ++a)
    if (!isfinite(bounds[2 * a]) || !isfinite(bounds[2 * a + 1]) || bounds[2 * a] > bounds[2 * a + 1])
      return ARG_ERROR(camera, "cavrSetCameraOrbit: bounds must be finite with min <= max");
  if (!isfinite(rxDeg) || !isfinite(ryDeg) || !isfinite(rzDeg) || !(aspect > 0.0) || !isfinite(aspect))
    return ARG_ERROR(camera, "cavrSetCameraOrbit: angles must be finite and aspect > 0");
  if (projection != CAVR_PROJECTION_ORTHOGRAPHIC && projection != CAVR_PROJECTION_PERSPECTIVE)
    return ARG_ERROR(camera, "cavrSetCameraOrbit: unknown projection %d", (int)projection);
  double view[16], proj[16];
  cavr_orbit_matrices(bounds, rxDeg, ryDeg, rzDeg, projection == CAVR_PROJECTION_PERSPECTIVE, aspect, view, proj);
  return cavrSetCameraMatrices(camera, view, proj);
}

CAVRError cavrCommitCamera(CAVRCamera camera) {
  CHECK_HANDLE(camera, "cavrCommitCamera");
  memcpy(camera->view, camera->stagedView, sizeof camera->view);
  memcpy(camera->proj, camera->stagedProj, sizeof camera->proj);
  cavr_mat4_mul(camera->proj, camera->view, camera->viewProj);
  if (!cavr_mat4_invert(camera->viewProj, camera->invViewProj))
    return ARG_ERROR(camera, "cavrCommitCamera: projection * view is singular");
  camera->dirty = 0;
  camera->committed = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetCameraRay(CAVRCamera camera, int width, int height, double px, double py, double origin[3],
                           double direction[3]) {
  CHECK_HANDLE(camera, "cavrGetCameraRay");
  if (width < 1 || height < 1 || !origin || !direction)
    return ARG_ERROR(camera, "cavrGetCameraRay: need width, height >= 1 and output arrays");
  REQUIRE_COMMITTED(camera, "cavrGetCameraRay");
  double ndc[3] = {(px + 0.5) / width * 2.0 - 1.0, (py + 0.5) / height * 2.0 - 1.0, -1.0}, far[3];
  cavr_mat4_project(camera->invViewProj, ndc, origin);
  ndc[2] = 1.0;
  cavr_mat4_project(camera->invViewProj, ndc, far);
  double len = 0.0;
  for (int a = 0; a < 3; ++a) {
    direction[a] = far[a] - origin[a];
    len += direction[a] * direction[a];
  }
  len = sqrt(len);
  for (int a = 0; a < 3; ++a) direction[a] /= len;
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ settings */

static void free_settings(CAVRRenderSettings s) { free(s); }
DEFINE_REFCOUNT(RenderSettings, CAVRRenderSettings, free_settings)

void cavr_settings_default(CAVRSettingsDesc *out) {
  const CAVRSettingsDesc d = {.sampleDistance = 0.5f, .earlyTermination = 0.99f, .opacityCorrection = 1,
                        .unitDistance = 1.0f, .blendMode = CAVR_BLEND_COMPOSITE,
                        .interpolation = CAVR_INTERPOLATION_TRILINEAR, .shade = 0, .ambient = 0.1f, .diffuse = 0.7f,
                        .specular = 0.2f, .specularPower = 10.0f, .emptySpaceSkipping = 1,
                        .strategy = CAVR_STRATEGY_AUTO, .shapingFlags = CAVR_SHAPING_ALL, .rotation = 1,
                        .blockShape = 0, .sampleFraction = 1.0f, .reconstruction = CAVR_RECONSTRUCTION_LOCAL,
                        .adaptive = 0, .maxIterations = CAVR_DEFAULT_MAX_ITERATIONS,
                        .tolerance = CAVR_DEFAULT_TOLERANCE, .lambda = CAVR_DEFAULT_LAMBDA,
                        .gramFilter = CAVR_GRAM_FILTER_THESIS, .crop = 0, .cropBox = {0, 0, 0, 0, 0, 0},
                        .isoCount = 1, .isoValues = {0.0f}, .isoMethod = CAVR_ISO_AUTO, .supersample = 1,
                        .sliceOrigin = {0.0, 0.0, 0.0}, .sliceNormal = {0.0, 0.0, 1.0}};
  *out = d;
}

CAVRRenderSettings cavrNewRenderSettings(CAVRDevice device) {
  CAVRRenderSettings s = (CAVRRenderSettings)new_object(device, sizeof *s, "cavrNewRenderSettings");
  if (!s) return NULL;
  atomic_init(&s->refs, 1);
  s->device = device;
  CAVRSettingsDesc d;
  cavr_settings_default(&d);
  s->staged = d;
  s->desc = d;
  s->committed = 1;
  return s;
}

CAVRError cavrSetRenderSampleDistance(CAVRRenderSettings s, double voxels) {
  CHECK_HANDLE(s, "cavrSetRenderSampleDistance");
  if (!(voxels >= 0.01 && voxels <= 64.0))
    return ARG_ERROR(s, "cavrSetRenderSampleDistance: %g voxels is outside [0.01, 64]", voxels);
  s->staged.sampleDistance = (float)voxels;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderEarlyTermination(CAVRRenderSettings s, double threshold) {
  CHECK_HANDLE(s, "cavrSetRenderEarlyTermination");
  if (!(threshold > 0.0 && threshold <= 1.0))
    return ARG_ERROR(s, "cavrSetRenderEarlyTermination: threshold %g is outside (0, 1]", threshold);
  s->staged.earlyTermination = threshold >= 1.0 ? 2.0f : (float)threshold; /* 2: never reached */
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderOpacityCorrection(CAVRRenderSettings s, int enabled, double unitDistance) {
  CHECK_HANDLE(s, "cavrSetRenderOpacityCorrection");
  if (!(unitDistance > 0.0) || !isfinite(unitDistance))
    return ARG_ERROR(s, "cavrSetRenderOpacityCorrection: unit distance %g must be > 0", unitDistance);
  s->staged.opacityCorrection = enabled != 0;
  s->staged.unitDistance = (float)unitDistance;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderBlendMode(CAVRRenderSettings s, CAVRBlendMode mode) {
  CHECK_HANDLE(s, "cavrSetRenderBlendMode");
  if (mode < CAVR_BLEND_COMPOSITE || mode > CAVR_BLEND_SLICE)
    return ARG_ERROR(s, "cavrSetRenderBlendMode: unknown blend mode %d", (int)mode);
  s->staged.blendMode = (int)mode;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderInterpolation(CAVRRenderSettings s, CAVRInterpolation interpolation) {
  CHECK_HANDLE(s, "cavrSetRenderInterpolation");
  if (interpolation != CAVR_INTERPOLATION_NEAREST && interpolation != CAVR_INTERPOLATION_TRILINEAR &&
      interpolation != CAVR_INTERPOLATION_CUBIC)
    return ARG_ERROR(s, "cavrSetRenderInterpolation: unknown interpolation %d", (int)interpolation);
  s->staged.interpolation = (int)interpolation;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderShading(CAVRRenderSettings s, int enabled, double ambient, double diffuse, double specular,
                               double specularPower) {
  CHECK_HANDLE(s, "cavrSetRenderShading");
  if (!(ambient >= 0 && diffuse >= 0 && specular >= 0 && specularPower > 0) || !isfinite(ambient + diffuse + specular + specularPower))
    return ARG_ERROR(s, "cavrSetRenderShading: coefficients must be finite and >= 0, power > 0");
  s->staged.shade = enabled != 0;
  s->staged.ambient = (float)ambient;
  s->staged.diffuse = (float)diffuse;
  s->staged.specular = (float)specular;
  s->staged.specularPower = (float)specularPower;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderEmptySpaceSkipping(CAVRRenderSettings s, int enabled) {
  CHECK_HANDLE(s, "cavrSetRenderEmptySpaceSkipping");
  s->staged.emptySpaceSkipping = enabled != 0;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderJitter(CAVRRenderSettings s, int enabled) {
  CHECK_HANDLE(s, "cavrSetRenderJitter");
  s->staged.jitter = enabled != 0;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderScattering(CAVRRenderSettings s, double blending, double reach, double anisotropy) {
  CHECK_HANDLE(s, "cavrSetRenderScattering");
  if (!(blending >= 0.0 && blending <= 2.0) || !(reach >= 0.0 && reach <= 1.0) ||
      !(anisotropy >= -1.0 && anisotropy <= 1.0))
    return ARG_ERROR(s, "cavrSetRenderScattering: blending %g (0..2), reach %g (0..1), anisotropy %g (-1..1)", blending,
                     reach, anisotropy);
  s->staged.scatterBlend = (float)blending;
  s->staged.scatterReach = (float)reach;
  s->staged.scatterAnisotropy = (float)anisotropy;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderCropBox(CAVRRenderSettings s, const double box[6]) {
  CHECK_HANDLE(s, "cavrSetRenderCropBox");
  if (box)
    for (int a = 0; a < 3; ++a)
      if (!(box[2 * a] <= box[2 * a + 1]))
        return ARG_ERROR(s, "cavrSetRenderCropBox: axis %d spans %g to %g (NaN, or min above max)", a, box[2 * a],
                         box[2 * a + 1]);
  s->staged.crop = box != NULL;
  for (int i = 0; i < 6; ++i) s->staged.cropBox[i] = box ? box[i] : 0.0;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderStrategy(CAVRRenderSettings s, CAVRStrategy strategy, unsigned shapingFlags, int rotation) {
  CHECK_HANDLE(s, "cavrSetRenderStrategy");
  if (strategy < CAVR_STRATEGY_STANDARD || strategy > CAVR_STRATEGY_AUTO || (shapingFlags & ~CAVR_SHAPING_ALL))
    return ARG_ERROR(s, "cavrSetRenderStrategy: unknown strategy %d or shaping flags 0x%x", (int)strategy, shapingFlags);
  s->staged.strategy = (int)strategy;
  s->staged.shapingFlags = shapingFlags;
  s->staged.rotation = rotation != 0;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderCompressive(CAVRRenderSettings s, double sampleFraction, CAVRReconstruction reconstruction,
                                   int adaptive) {
  CHECK_HANDLE(s, "cavrSetRenderCompressive");
  if (!(sampleFraction > 0.0 && sampleFraction <= 1.0))
    return ARG_ERROR(s, "cavrSetRenderCompressive: sample fraction %g is outside (0, 1]", sampleFraction);
  if (reconstruction != CAVR_RECONSTRUCTION_GLOBAL && reconstruction != CAVR_RECONSTRUCTION_LOCAL &&
      reconstruction != CAVR_RECONSTRUCTION_REFINE)
    return ARG_ERROR(s, "cavrSetRenderCompressive: unknown reconstruction %d", (int)reconstruction);
  if (adaptive && reconstruction != CAVR_RECONSTRUCTION_LOCAL)
    return ARG_ERROR(s, "cavrSetRenderCompressive: adaptive sampling needs the local reconstruction (REFINE is adaptive "
                        "by itself)");
  s->staged.sampleFraction = (float)sampleFraction;
  s->staged.reconstruction = (int)reconstruction;
  s->staged.adaptive = adaptive != 0;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderCompressiveMode(CAVRRenderSettings s, CAVRCompressiveMode mode) {
  CHECK_HANDLE(s, "cavrSetRenderCompressiveMode");
  if (mode != CAVR_COMPRESSIVE_ALWAYS && mode != CAVR_COMPRESSIVE_AUTO)
    return ARG_ERROR(s, "cavrSetRenderCompressiveMode: unknown mode %d (CAVR_COMPRESSIVE_ALWAYS 0, AUTO 1)", (int)mode);
  s->stagedCompressiveMode = (int)mode;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderReconstructionSolver(CAVRRenderSettings s, int maxIterations, double tolerance, double lambda,
                                            CAVRGramFilter filter) {
  CHECK_HANDLE(s, "cavrSetRenderReconstructionSolver");
  if (maxIterations < 1 || maxIterations > 10000 || !(tolerance >= 0.0 && tolerance < 1.0) || !(lambda > 0.0) ||
      !isfinite(lambda) || (filter != CAVR_GRAM_FILTER_DEFINITION && filter != CAVR_GRAM_FILTER_THESIS))
    return ARG_ERROR(s, "cavrSetRenderReconstructionSolver: need 1 <= iterations <= 10000 (got %d), tolerance in "
                        "[0, 1) (%g), finite lambda > 0 (%g), a known filter (%d)",
                     maxIterations, tolerance, lambda, (int)filter);
  s->staged.maxIterations = maxIterations;
  s->staged.tolerance = (float)tolerance;
  s->staged.lambda = (float)lambda;
  s->staged.gramFilter = (int)filter;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderIsoValues(CAVRRenderSettings s, int count, const double *values) {
  CHECK_HANDLE(s, "cavrSetRenderIsoValues");
  if (count < 1 || count > CAVR_MAX_ISO_VALUES || !values)
    return ARG_ERROR(s, "cavrSetRenderIsoValues: need 1..%d values (got %d%s)", CAVR_MAX_ISO_VALUES, count,
                     values ? "" : ", NULL array");
  for (int i = 0; i < count; ++i)
    if (!isfinite(values[i]) || fabs(values[i]) > 3.0e38)
      return ARG_ERROR(s, "cavrSetRenderIsoValues: value %d (%g) is not a finite float", i, values[i]);
  s->staged.isoCount = count;
  for (int i = 0; i < CAVR_MAX_ISO_VALUES; ++i) s->staged.isoValues[i] = i < count ? (float)values[i] : 0.0f;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

/* 1 when v[0..n) are finite and, with nonneg, >= 0. */
static int finite_values(const double *v, int n, int nonneg) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(v[i]) || (nonneg && v[i] < 0.0)) return 0;
  return 1;
}

CAVRError cavrSetRenderLights(CAVRRenderSettings s, int count, const CAVRLight *lights, int twoSided) {
  CHECK_HANDLE(s, "cavrSetRenderLights");
  if (count < 0 || count > CAVR_MAX_LIGHTS || (count > 0 && !lights))
    return ARG_ERROR(s, "cavrSetRenderLights: need 0..%d lights (got %d%s)", CAVR_MAX_LIGHTS, count,
                     count > 0 && !lights ? ", NULL array" : "");
  for (int i = 0; i < count; ++i) {
    const CAVRLight *l = &lights[i];
    if (l->kind < CAVR_LIGHT_HEADLIGHT || l->kind > CAVR_LIGHT_SCENE)
      return ARG_ERROR(s, "cavrSetRenderLights: light %d has an unknown kind %d", i, (int)l->kind);
    if (!finite_values(l->position, 3, 0) || !finite_values(l->focalPoint, 3, 0) ||
        !finite_values(l->ambientColor, 3, 1) || !finite_values(l->diffuseColor, 3, 1) ||
        !finite_values(l->specularColor, 3, 1) || !finite_values(&l->intensity, 1, 1))
      return ARG_ERROR(s, "cavrSetRenderLights: light %d has a NaN, infinite or negative number", i);
    if (l->kind != CAVR_LIGHT_HEADLIGHT && l->position[0] == l->focalPoint[0] && l->position[1] == l->focalPoint[1] &&
        l->position[2] == l->focalPoint[2])
      return ARG_ERROR(s, "cavrSetRenderLights: light %d has its focal point at its position (no direction)", i);
  }
  s->staged.lightCount = count;
  s->staged.twoSided = twoSided != 0;
  memset(s->staged.lights, 0, sizeof s->staged.lights);
  for (int i = 0; i < count; ++i) s->staged.lights[i] = lights[i];
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderIsoMethod(CAVRRenderSettings s, CAVRIsoMethod method) {
  CHECK_HANDLE(s, "cavrSetRenderIsoMethod");
  if (method < CAVR_ISO_STANDARD || method > CAVR_ISO_AUTO)
    return ARG_ERROR(s, "cavrSetRenderIsoMethod: unknown method %d", (int)method);
  s->staged.isoMethod = (int)method;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderSupersampling(CAVRRenderSettings s, int raysPerPixel) {
  CHECK_HANDLE(s, "cavrSetRenderSupersampling");
  if (raysPerPixel != 1 && raysPerPixel != 4 && raysPerPixel != 5 && raysPerPixel != 9 && raysPerPixel != 16)
    return ARG_ERROR(s, "cavrSetRenderSupersampling: %d rays per pixel (1, 4, 5, 9 or 16)", raysPerPixel);
  s->staged.supersample = raysPerPixel;
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetRenderSlicePlane(CAVRRenderSettings s, const double origin[3], const double normal[3]) {
  CHECK_HANDLE(s, "cavrSetRenderSlicePlane");
  if (!origin || !normal) return ARG_ERROR(s, "cavrSetRenderSlicePlane: NULL %s", origin ? "normal" : "origin");
  double len = 0.0;
  for (int a = 0; a < 3; ++a) {
    if (!isfinite(origin[a]) || !isfinite(normal[a]))
      return ARG_ERROR(s, "cavrSetRenderSlicePlane: coordinate %d of the origin (%g) or normal (%g) is not finite", a,
                       origin[a], normal[a]);
    len += normal[a] * normal[a];
  }
  len = sqrt(len);
  if (!(len > 0.0) || !isfinite(len))
    return ARG_ERROR(s, "cavrSetRenderSlicePlane: the normal (%g, %g, %g) has no direction", normal[0], normal[1],
                     normal[2]);
  for (int a = 0; a < 3; ++a) {
    s->staged.sliceOrigin[a] = origin[a];
    s->staged.sliceNormal[a] = normal[a] / len;
  }
  s->dirty = 1;
  return CAVR_ERROR_NONE;
}

CAVRError cavrCommitRenderSettings(CAVRRenderSettings s) {
  CHECK_HANDLE(s, "cavrCommitRenderSettings");
  s->desc = s->staged;
  s->compressiveMode = s->stagedCompressiveMode;
  s->dirty = 0;
  s->committed = 1;
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ frame buffer */

static void free_fb(CAVRFrameBuffer fb) {
  if (fb->device->ops->releaseFrameBuffer) fb->device->ops->releaseFrameBuffer(fb->device, fb); /* unpin the planes */
  const size_t n = (size_t)fb->width * fb->height;
  cavr_host_free(fb->rgba8, n * 4);
  cavr_host_free(fb->rgbaf, n * 4 * sizeof(float));
  cavr_host_free(fb->depth, n * sizeof(float));
  cavr_host_free(fb->opaqueStore, n * sizeof(float));
  cavrReleaseFrameBuffer(fb->superFb);
  cavr_compressive_free(fb);
  free(fb);
}
DEFINE_REFCOUNT(FrameBuffer, CAVRFrameBuffer, free_fb)

CAVRFrameBuffer cavrNewFrameBuffer(CAVRDevice device, int width, int height) {
  if (device && (width < 1 || height < 1 || width > CAVR_MAX_IMAGE_SIZE || height > CAVR_MAX_IMAGE_SIZE)) {
    cavr_set_error(device, CAVR_ERROR_INVALID_ARGUMENT, "cavrNewFrameBuffer: size %d x %d outside [1, %d]", width,
                   height, CAVR_MAX_IMAGE_SIZE);
    return NULL;
  }
  if (!device) {
    cavr_set_error(NULL, CAVR_ERROR_INVALID_ARGUMENT, "cavrNewFrameBuffer: NULL device");
    return NULL;
  }
  CAVRFrameBuffer fb = cavr_frame_buffer_new(device, width, height);
  if (!fb)
    cavr_set_error(device, CAVR_ERROR_OUT_OF_MEMORY, "cavrNewFrameBuffer: out of host memory for %d x %d", width, height);
  return fb;
}

CAVRFrameBuffer cavr_frame_buffer_new(CAVRDevice device, int width, int height) {
  CAVRFrameBuffer fb = device ? (CAVRFrameBuffer)calloc(1, sizeof *fb) : NULL;
  if (!fb) return NULL;
  cavrRetainDevice(device);
  atomic_init(&fb->refs, 1);
  fb->device = device;
  fb->width = width;
  fb->height = height;
  fb->hostChannels = CAVR_FB_HOST_DEFAULT;
  size_t n = (size_t)width * height;
  fb->rgba8 = (uint8_t *)cavr_host_alloc(n * 4);
  fb->rgbaf = (float *)cavr_host_alloc(n * 4 * sizeof(float));
  fb->depth = (float *)cavr_host_alloc(n * sizeof(float));
  if (!fb->rgba8 || !fb->rgbaf || !fb->depth) {
    cavrReleaseFrameBuffer(fb);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) fb->depth[i] = 1.0f;
  return fb;
}

CAVRError cavrGetFrameBufferSize(CAVRFrameBuffer fb, int *width, int *height) {
  CHECK_HANDLE(fb, "cavrGetFrameBufferSize");
  if (!width || !height) return ARG_ERROR(fb, "cavrGetFrameBufferSize: NULL output");
  *width = fb->width;
  *height = fb->height;
  return CAVR_ERROR_NONE;
}

const void *cavrGetFrameBufferData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel) {
  if (!fb) return NULL;
  switch (channel) {
  case CAVR_FB_COLOR_RGBA8: return fb->rgba8;
  case CAVR_FB_COLOR_RGBA32F: return fb->rgbaf;
  case CAVR_FB_DEPTH: return fb->depth;
  }
  return NULL;
}

CAVRError cavrSetFrameBufferHostChannels(CAVRFrameBuffer fb, unsigned mask) {
  CHECK_HANDLE(fb, "cavrSetFrameBufferHostChannels");
  if (mask & ~CAVR_FB_HOST_ALL)
    return ARG_ERROR(fb, "cavrSetFrameBufferHostChannels: mask 0x%x has bits outside CAVR_FB_HOST_ALL (0x%x)", mask,
                     CAVR_FB_HOST_ALL);
  fb->hostChannels = mask;
  return CAVR_ERROR_NONE;
}

CAVRError cavrGetFrameBufferHostChannels(CAVRFrameBuffer fb, unsigned *mask) {
  CHECK_HANDLE(fb, "cavrGetFrameBufferHostChannels");
  if (!mask) return ARG_ERROR(fb, "cavrGetFrameBufferHostChannels: NULL mask");
  *mask = fb->hostChannels;
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetFrameBufferHostCopy(CAVRFrameBuffer fb, int enabled) {
  return cavrSetFrameBufferHostChannels(fb, enabled ? CAVR_FB_HOST_ALL : 0u);
}

void *cavrGetFrameBufferDeviceData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel) {
  if (!fb || channel < CAVR_FB_COLOR_RGBA8 || channel > CAVR_FB_DEPTH) return NULL;
  return fb->devicePlanes[channel];
}

CAVRError cavrCopyFrameBufferToGLTextures(CAVRFrameBuffer fb, const unsigned textures[3]) {
  CHECK_HANDLE(fb, "cavrCopyFrameBufferToGLTextures");
  if (!textures || (!textures[0] && !textures[1] && !textures[2]))
    return ARG_ERROR(fb, "cavrCopyFrameBufferToGLTextures: no texture named (textures[c] for CAVRFrameBufferChannel c)");
  if (!fb->device->ops->copyToGL)
    return cavr_set_error(fb->device, CAVR_ERROR_UNSUPPORTED,
                          "cavrCopyFrameBufferToGLTextures: the CPU back end renders into host memory; draw "
                          "cavrGetFrameBufferData instead");
  for (int c = 0; c < 3; ++c)
    if (textures[c] && !fb->devicePlanes[c])
      return cavr_set_error(fb->device, CAVR_ERROR_UNSUPPORTED,
                            "cavrCopyFrameBufferToGLTextures: the last render left no image on the GPU (none yet, a "
                            "volume rendered on the CPU, or super-sampling); its host planes hold it");
  return fb->device->ops->copyToGL(fb->device, fb, textures);
}

CAVRError cavrReleaseFrameBufferGLTextures(CAVRFrameBuffer fb) {
  CHECK_HANDLE(fb, "cavrReleaseFrameBufferGLTextures");
  if (fb->device->ops->releaseGL) fb->device->ops->releaseGL(fb->device, fb);
  return CAVR_ERROR_NONE;
}

CAVRError cavrShareFrameBufferPlanes(CAVRFrameBuffer fb, int fds[2], unsigned long long bytes[2]) {
  CHECK_HANDLE(fb, "cavrShareFrameBufferPlanes");
  if (!fds || !bytes) return ARG_ERROR(fb, "cavrShareFrameBufferPlanes: NULL fds or bytes");
  fds[0] = fds[1] = -1;
  bytes[0] = bytes[1] = 0;
  if (!fb->device->ops->share)
    return cavr_set_error(fb->device, CAVR_ERROR_UNSUPPORTED,
                          "cavrShareFrameBufferPlanes: the CPU back end renders into host memory; draw "
                          "cavrGetFrameBufferData instead");
  return fb->device->ops->share(fb->device, fb, fds, bytes);
}

CAVRError cavrUnshareFrameBufferPlanes(CAVRFrameBuffer fb) {
  CHECK_HANDLE(fb, "cavrUnshareFrameBufferPlanes");
  if (fb->device->ops->unshare) fb->device->ops->unshare(fb->device, fb);
  return CAVR_ERROR_NONE;
}

CAVRError cavrSetFrameBufferOpaqueDepthGLBuffer(CAVRFrameBuffer fb, unsigned buffer) {
  CHECK_HANDLE(fb, "cavrSetFrameBufferOpaqueDepthGLBuffer");
  if (!buffer) return cavrSetFrameBufferOpaqueDepth(fb, NULL, 0);
  if (!fb->device->ops->opaqueDepthFromGL)
    return cavr_set_error(fb->device, CAVR_ERROR_UNSUPPORTED,
                          "cavrSetFrameBufferOpaqueDepthGLBuffer: the CPU back end reads the opaque depth from host "
                          "memory; use cavrSetFrameBufferOpaqueDepth");
  return fb->device->ops->opaqueDepthFromGL(fb->device, fb, buffer);
}

float *cavr_opaque_store(CAVRFrameBuffer fb) {
  if (!fb->opaqueStore) fb->opaqueStore = (float *)cavr_host_alloc((size_t)fb->width * fb->height * sizeof(float));
  return fb->opaqueStore;
}

CAVRError cavrSetFrameBufferOpaqueDepth(CAVRFrameBuffer fb, const float *depth, size_t count) {
  CHECK_HANDLE(fb, "cavrSetFrameBufferOpaqueDepth");
  fb->opaqueOnDevice = 0;
  if (!depth) {
    fb->opaqueDepth = NULL; /* the store stays for the next frame with opaque geometry */
    return CAVR_ERROR_NONE;
  }
  size_t n = (size_t)fb->width * fb->height;
  if (count != n)
    return ARG_ERROR(fb, "cavrSetFrameBufferOpaqueDepth: %zu values for a %d x %d frame buffer", count, fb->width,
                     fb->height);
  fb->opaqueDepth = cavr_opaque_store(fb);
  if (!fb->opaqueDepth) return cavr_set_error(fb->device, CAVR_ERROR_OUT_OF_MEMORY, "cavrSetFrameBufferOpaqueDepth: out of memory");
  memcpy(fb->opaqueDepth, depth, n * sizeof(float));
  return CAVR_ERROR_NONE;
}

/* ------------------------------------------------------------------------------------------------ render */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* One frame of a job: compressive or every ray, as the policy says (cavr_plan_compressive). */
static CAVRError render_job(CAVRDevice dev, const CAVRBackendOps *ops, const CAVRRenderJob *job, CAVRRenderStats *stats) {
  if (cavr_plan_compressive(job->settings, job->fb->width, job->fb->height)) {
    const uint64_t before = stats->raysCast; /* compressive.c sets the count of its frame */
    CAVRError e = cavr_render_compressive(dev, ops, job, stats);
    stats->raysCast += before;
    return e;
  }
  CAVRError e = ops->render(dev, job, stats);
  stats->raysCast += (uint64_t)job->fb->width * job->fb->height;
  return e;
}

#define REQUIRE_READY(obj, what)                                                                                   \
  do {                                                                                                             \
    if ((obj)->device != dev)                                                                                      \
      return cavr_set_error(dev, CAVR_ERROR_INVALID_ARGUMENT, "cavrRender: the %s belongs to another device", what); \
    if (!(obj)->committed || (obj)->dirty)                                                                         \
      return cavr_set_error(dev, CAVR_ERROR_NOT_COMMITTED, "cavrRender: the %s has %s", what,                      \
                            (obj)->committed ? "uncommitted changes" : "never been committed");                    \
  } while (0)

CAVRError cavrRender(CAVRFrameBuffer fb, CAVRVolume volume, CAVRTransferFunction tf, CAVRCamera camera,
                     CAVRRenderSettings settings, CAVRRenderStats *stats) {
  if (!fb) return CAVR_ERROR_INVALID_ARGUMENT;
  CAVRDevice dev = fb->device;
  if (!volume || !tf || !camera || !settings)
    return cavr_set_error(dev, CAVR_ERROR_INVALID_ARGUMENT, "cavrRender: NULL volume, transfer function, camera or settings");
  REQUIRE_READY(volume, "volume");
  REQUIRE_READY(tf, "transfer function");
  REQUIRE_READY(camera, "camera");
  REQUIRE_READY(settings, "render settings");
  if (volume->components > 1 && settings->desc.blendMode != CAVR_BLEND_COMPOSITE)
    return cavr_set_error(dev, CAVR_ERROR_UNSUPPORTED, "cavrRender: a volume of %d dependent components renders in the "
                          "composite blend mode only (blend mode %d asked)", volume->components,
                          (int)settings->desc.blendMode);
  CAVRRenderStats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  stats->backend = dev->backend;
  /* Compressive only where it pays (cavrSetRenderCompressiveMode; the rule: cavr_compressive_decide): a frame that
     asks for it and is decided full renders with a sample fraction of 1. */
  CAVRSettingsDesc desc = settings->desc;
  const CAVRBackendOps *ops = volume->cpuFallback ? cavr_cpu_backend() : dev->ops;
  const uint64_t costKey = cavr_compressive_key(&desc, fb->width, fb->height, (int)ops->kind, (uintptr_t)volume);
  const double fraction = desc.sampleFraction;
  int decision = CAVR_COMPRESSIVE_NOT_ASKED;
  if (cavr_plan_compressive(&desc, fb->width, fb->height))
    decision = cavr_compressive_decide(&fb->compressiveCost, costKey, fraction,
                                       settings->compressiveMode == CAVR_COMPRESSIVE_AUTO,
                                       &stats->predictedFullMilliseconds, &stats->predictedCompressiveMilliseconds);
  const int compressive = decision == CAVR_COMPRESSIVE_RENDERED || decision == CAVR_COMPRESSIVE_PROBE;
  if (!compressive) desc.sampleFraction = 1.0f;
  stats->compressiveDecision = (CAVRCompressiveDecision)decision;
  CAVRRenderJob job = {volume, tf, camera, &desc, fb, NULL, 0, NULL, NULL, NULL};
  fb->devicePlanes[0] = fb->devicePlanes[1] = fb->devicePlanes[2] = NULL;
  double t0 = now_ms();
  /* A volume the GPU could not hold (out of device memory) renders on the CPU (ops above). */
  if (fb->opaqueOnDevice && (volume->cpuFallback || settings->desc.supersample > 1)) {
    /* A frame rendered on the host, or a super-sampled one (its larger frame takes the depth from the host): the
       GPU's copy of the opaque depth comes to the host first. */
    CAVRError e = dev->ops->opaqueDepthToHost(dev, fb);
    if (e) return e;
  }
  stats->backend = ops->kind;
  CAVRError e = settings->desc.supersample > 1 ? cavr_render_supersampled(dev, ops, &job, stats, render_job)
                                              : render_job(dev, ops, &job, stats);
  stats->milliseconds = now_ms() - t0;
  if (e == CAVR_ERROR_NONE)
    cavr_compressive_record(&fb->compressiveCost, costKey, compressive, fraction, stats->milliseconds,
                            stats->solveMilliseconds);
  return e;
}

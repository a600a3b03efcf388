// SPDX-License-Identifier: BSD-3-Clause
/*
 * objects.h - the structs behind the public handles. Only api.c and the back ends include this.
 */
#ifndef CAVR_OBJECTS_H
#define CAVR_OBJECTS_H

#include <pthread.h>
#include <stdatomic.h>

#include "cavr/cavr.h"
#include "cavr_shared.h"
#include "env.h"
#include "view_policy.h"

struct CAVRBackendOps;

struct CAVRDeviceImpl {
  atomic_int refs;
  CAVRBackend backend;
  const struct CAVRBackendOps *ops;
  void *backendData;
  int threads;                   /* CPU threads, 0 = all cores */
  int gpu;                       /* CUDA device index (CUDA back end), else -1 */
  pthread_mutex_t lock;          /* guards the error state */
  CAVRError error;
  char message[512];
  char readMessage[512];         /* copy handed out by cavrGetDeviceError */
  CAVRErrorCallback callback;
  void *callbackUser;
  char name[320];
  CAVREnv env;                   /* the environment when the device was made (env.h) */
};

/** Largest voxel buffer a volume keeps for its next time step (bytes): 1 GiB. */
#define CAVR_SPARE_MAX_BYTES ((size_t)1 << 30)

/** Voxel storage: staged (set, not yet committed) and committed. */
typedef struct CAVRVoxels {
  void *data;
  int dims[3];
  CAVRStorage storage;
  float valueOffset;
  double range[2];               /* in original units */
  int shared;                    /* 1: data is the caller's (cavrSetVolumeSharedData), never written or freed here */
} CAVRVoxels;

struct CAVRVolumeImpl {
  atomic_int refs;
  CAVRDevice device;
  int dirty, committed;
  CAVRVoxels staged;             /* data == NULL when no new data is staged */
  double stagedSpacing[3], stagedOrigin[3];
  int stagedExtent[6];           /* render extent; x0 = -1: the whole volume */
  CAVRVoxels voxels;             /* committed */
  CAVRVolumeDesc desc;           /* committed */
  CAVRMacroGridDesc grid;
  float *cellMinMax;             /* 2 floats (stored units) per macro cell, x fastest */
  void *backendVolume;           /* back-end resources (e.g. the CUDA array) */
  int cpuFallback;               /* the CUDA back end could not hold it: rendered on the CPU */
  unsigned version;              /* incremented when new voxels are committed */
  void *spare;                   /* the voxel buffer replaced by the last commit, when the new one had its size and
                                    it is at most CAVR_SPARE_MAX_BYTES: the next cavrSetVolumeData of that size fills
                                    it (no page faults, no unmapping) */
  size_t spareBytes;
  int cellsPending;              /* cellMinMax and voxels.range not computed yet for the new voxels: the back end's
                                    commit may compute them (CUDA: on the GPU) and clear this, else api.c does */
  CAVRVolumeCommitStats commitStats; /* the last commit; the back end fills its upload and device fields */
  /* The CPU back end's last macro-cell classification (cells, block and sub-block states, visible box), kept for
     the next frame with the same key (cpu_backend.c: cells_key); guarded by the device's lock. */
  uint8_t *cpuCells;
  size_t cpuCellsBytes;
  uint64_t cpuCellsKey;
  double cpuVisLo[3], cpuVisHi[3];
  /* Dependent components (cavrSetVolumeComponentData): the colour part beside the scalar voxels. components 1: none;
     2: colour holds the colour component (1 float a voxel, original units); 4: R, G, B rescaled to [0, 1] and a 0
     (4 floats a voxel). x fastest, the voxels' dims. stagedComponents 0: nothing staged (the committed part stays). */
  int stagedComponents, components;
  float *stagedColor, *color;
};

struct CAVRTransferFunctionImpl {
  atomic_int refs;
  CAVRDevice device;
  int dirty, committed;
  float *stagedTable; int stagedCount; double stagedRange[2];
  float *table; int count; double range[2];
  /* gradient opacity (cavrSetTransferFunctionGradientOpacity): pairs (magnitude, opacity), count 0 = off */
  int stagedGoCount, goCount;
  float stagedGo[2 * CAVR_MAX_GRADIENT_OPACITY_POINTS], go[2 * CAVR_MAX_GRADIENT_OPACITY_POINTS];
  /* 2-D table (cavrSetTransferFunction2D): size[0] x size[1] RGBA, x (scalar) fastest; size 0 = off. range: scalar
     min, max, gradient magnitude min, max. columns: size[0] RGBA whose alpha is the largest of its column (the
     macro cells' classification, cavr_classify_tf). t2Staged: a 2-D change (a table or off) waits for the commit. */
  int t2Staged, stagedT2Size[2], t2Size[2];
  float *stagedT2, *t2, *t2Columns;
  double stagedT2Range[4], t2Range[4];
  /* colour range of 2-component volumes (cavrSetTransferFunctionColorRange); 0, 0: the table's range */
  double stagedColorRange[2], colorRange[2];
  unsigned version;              /* incremented by every commit */
};

struct CAVRCameraImpl {
  atomic_int refs;
  CAVRDevice device;
  int dirty, committed;
  double stagedView[16], stagedProj[16];
  double view[16], proj[16];
  double viewProj[16], invViewProj[16];
};

struct CAVRRenderSettingsImpl {
  atomic_int refs;
  CAVRDevice device;
  int dirty, committed;
  CAVRSettingsDesc staged, desc;
  int stagedCompressiveMode, compressiveMode; /* CAVRCompressiveMode (host policy only: not in the shared desc) */
};

struct CAVRFrameBufferImpl {
  atomic_int refs;
  CAVRDevice device;
  int width, height;
  uint8_t *rgba8;
  float *rgbaf;
  float *depth;
  float *opaqueDepth;            /* NULL = no limit; else opaqueStore */
  float *opaqueStore;            /* width x height floats behind opaqueDepth (cavr_opaque_store), kept while the depth
                                    is unset: a scene that alternates frames with and without opaque geometry does not
                                    map and fault in 4 MB (1024^2) again each time; released with the frame buffer */
  /* Opaque depth on the GPU (cavrSetFrameBufferOpaqueDepthGLBuffer): opaqueOnDevice 1: renders read opaqueDevice
     (opaqueDeviceBytes allocated; a host copy is made into opaqueDepth only for a frame rendered on the CPU or
     super-sampled); glDepthBuffer / glDepthResource: the GL buffer registered with CUDA, dropped by releaseGL */
  int opaqueOnDevice;
  void *opaqueDevice;
  size_t opaqueDeviceBytes;
  unsigned glDepthBuffer;
  void *glDepthResource;
  unsigned hostChannels;         /* CAVR_FB_HOST_* bits: planes above that CUDA renders copy back */
  void *pinned[3];               /* CUDA: plane (by CAVRFrameBufferChannel) page-locked by cudaHostRegister, or NULL;
                                    unregistered by the back end's releaseFrameBuffer */
  unsigned char pinFailed[3];    /* registration refused: that plane is copied from pageable memory */
  void *devicePlanes[3];         /* CUDA: device copies of the planes after the last render */
  /* compressive rendering (compressive.c): the sampling mask and ray list of the last frame */
  uint8_t *sampleMask;           /* width*height, 1 = ray cast */
  uint32_t *rayPixels, *tileStart;
  void *refineScratch;           /* CAVR_RECONSTRUCTION_REFINE's scratch (compressive.c), refineScratchBytes */
  size_t refineScratchBytes;
  uint32_t *raySamples;          /* REFINE: width*height, each cast pixel's samples in the last frame (CPU casters) */
  float *rayFirst;               /* REFINE: width*height, the pilot rays' first visible samples' ray distance (CPU) */
  size_t rayCount;
  float maskFraction;            /* fraction the mask was built for; 0 = none */
  int maskAdaptive;              /* built adaptively (rebuilt every frame) */
  uint64_t maskStamp;
  CAVRCompressiveCost compressiveCost; /* CAVR_COMPRESSIVE_AUTO's cost model (view_policy.h): this frame buffer's
                                          full and compressive frames */
  struct CAVRFrameBufferImpl *superFb; /* super-sampling (supersample.c): the larger frame, kept between frames */
  /* CUDA-OpenGL interop (cavrCopyFrameBufferToGLTextures): per plane, the GL texture name registered with CUDA and its
     registration (NULL: none), dropped by the back end's releaseGL */
  unsigned glTexture[3];
  void *glResource[3];
  int glChecked;                 /* 1: the current GL context was found on this GPU; -1: not (UNSUPPORTED until releaseGL) */
  /* Planes shared with another graphics API (cavrShareFrameBufferPlanes): the CUDA allocations (colour RGBA8, depth),
     their device addresses and the size of each; every CUDA render into the frame buffer copies its planes there */
  void *shared[2];
  void *sharedPtr[2];
  size_t sharedBytes;
};

/* fb->opaqueStore, allocated (cavr_host_alloc, width x height floats) when first asked for; NULL when out of memory. */
float *cavr_opaque_store(CAVRFrameBuffer fb);

/** Record an error on the device (keeps the first until read; calls the callback) and return code; while the calling
    thread captures the device's errors (cavr_capture_errors), record it in the capture instead. */
CAVRError cavr_set_error(CAVRDevice device, CAVRError code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/**
 * Errors of the library's own work on a device (the AUTO calibration's renders, super-sampling's larger frame):
 * between cavr_capture_errors and cavr_capture_end, errors that the calling thread raises on `device` through
 * cavr_set_error, and notes through cavr_note, are kept here (the first error and its message) instead of reaching
 * the device's error slot and the user's callback; the work returns the code to its caller, which decides what the
 * user sees. Captures nest (one thread, last in first out); the struct must outlive the capture.
 */
typedef struct CAVRErrorCapture {
  CAVRDevice device;
  CAVRError error;       /**< the first error captured, CAVR_ERROR_NONE if none */
  char message[512];     /**< its message */
  struct CAVRErrorCapture *outer;
} CAVRErrorCapture;
void cavr_capture_errors(CAVRDevice device, CAVRErrorCapture *capture);
void cavr_capture_end(CAVRErrorCapture *capture);

/** The defaults of a new render settings object (cavrNewRenderSettings). */
void cavr_settings_default(CAVRSettingsDesc *out);

/** A frame buffer of width x height pixels (1 .. CAVR_MAX_IMAGE_SIZE, not checked here) as cavrNewFrameBuffer makes
    it, for the library's own use; NULL when out of host memory, without an error raised. Released with
    cavrReleaseFrameBuffer. */
CAVRFrameBuffer cavr_frame_buffer_new(CAVRDevice device, int width, int height);

/** A message for the user's error callback with `code` that is not recorded as the device's error (a note: code
    CAVR_ERROR_NONE, or a condition the library handled, such as a CPU fallback); dropped while captured. */
void cavr_note(CAVRDevice device, CAVRError code, const char *text);

#endif /* CAVR_OBJECTS_H */

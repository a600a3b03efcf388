// SPDX-License-Identifier: BSD-3-Clause
/*
 * backend.h - the table of operations a back end implements. api.c validates and forwards here.
 */
#ifndef CAVR_BACKEND_H
#define CAVR_BACKEND_H

#include "objects.h"
#include "../shared/cavr_lighting.h"

/** Tiles of a ray list, pixels (the CPU back end's work unit). */
#define CAVR_RAY_TILE 16

/** The pixels to cast rays for in compressive rendering (compressive.c builds it). */
typedef struct CAVRRayList {
  const uint32_t *pixels;    /**< count pixel indices x + W*y, grouped by CAVR_RAY_TILE tiles in row-major tile order */
  const uint32_t *tileStart; /**< tiles + 1 offsets into pixels */
  size_t count;
  uint64_t stamp;            /**< new whenever the list changes (the GPU keeps an uploaded copy) */
} CAVRRayList;

/** Everything one render needs, resolved from committed objects. */
typedef struct CAVRRenderJob {
  CAVRVolume volume;
  CAVRTransferFunction tf;
  CAVRCamera camera;
  const CAVRSettingsDesc *settings;
  CAVRFrameBuffer fb;
  const CAVRRayList *rays;   /**< NULL: every pixel; else only these pixels are written */
  int deviceOnly;            /**< GPU: leave the image in device memory (a reconstruction follows); 2: but copy the
                                  float colour back (the host computes adaptive sampling's block statistics) */
  uint32_t *raySamples;      /**< CPU, not NULL: each listed pixel's samples (as stats->samples counts them) */
  float *rayFirst;           /**< CPU, composite, not NULL (REFINE's pilot): each listed pixel's first visible sample
                                  (ray distance t, world units from the eye; +inf: none) */
  const float *rayHint;      /**< CPU, composite, not NULL (REFINE's later passes): the pilot's rayFirst; the rays
                                  start at cavr_refine_hint_k. Read only while they are cast: no pass writes both. */
} CAVRRenderJob;

typedef struct CAVRBackendOps {
  CAVRBackend kind;
  /** Create device-wide back-end data (device->backendData); may be NULL. msg receives the reason on failure. */
  CAVRError (*init)(CAVRDevice device, char *msg, size_t msgSize);
  /** Called after a volume's host data is committed (upload); may be NULL. */
  CAVRError (*commitVolume)(CAVRDevice device, CAVRVolume volume);
  /** Free back-end resources of a volume; may be NULL. */
  void (*releaseVolume)(CAVRDevice device, CAVRVolume volume);
  /** Render; fills stats->samples and stats->rays. */
  CAVRError (*render)(CAVRDevice device, const CAVRRenderJob *job, CAVRRenderStats *stats);
  /**
   * Compressive rendering: rebuild the pixels without rays (mask[p] = 0) of the frame just rendered with
   * job->rays, per the job's settings; then the frame buffer's planes are complete (copied back to the host
   * when the frame buffer asks for it). maskStamp changes whenever the mask does. Sets stats->iterations.
   */
  CAVRError (*reconstruct)(CAVRDevice device, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                           CAVRRenderStats *stats);
  /**
   * Adaptive sampling: weight[b] = the standard deviation of the rendered RGBA (root of the summed channel
   * variances) over the pixels with mask[p] = 1 of each CAVR_MASK_BLOCK block of the frame just rendered
   * (blocks row-major). May be NULL: the policy then reads the float colour plane on the host.
   */
  CAVRError (*blockDeviation)(CAVRDevice device, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                              double *weight);
  /** Free device-wide back-end data; may be NULL. */
  void (*shutdown)(CAVRDevice device);
  /** Release what the back end attached to a frame buffer (page-locked host planes) before it is freed; may be NULL. */
  void (*releaseFrameBuffer)(CAVRDevice device, CAVRFrameBuffer fb);
  /** Measure and save AUTO's table for a CAVRStorage (cavrTuneDevice); path receives the file. NULL: no tuning. */
  CAVRError (*tune)(CAVRDevice device, int storage, char *path, size_t pathSize);
  /**
   * Super-sampling on the back end (supersample.c); both NULL: the host averages. keepCentre: keep the W x H frame
   * just rendered for job->fb (the 5-ray pattern's centre). reduce: average the G x G rays per pixel of the larger
   * frame just rendered (n rays with the kept centre when n == 5) into job->fb's host and device planes.
   */
  CAVRError (*supersampleKeepCentre)(CAVRDevice device, const CAVRRenderJob *job);
  CAVRError (*supersampleReduce)(CAVRDevice device, const CAVRRenderJob *job, int G, int n, CAVRRenderStats *stats);
  /**
   * Copy the device planes of the last render into the GL textures of the current context, textures[c] for
   * CAVRFrameBufferChannel c, 0: not that plane (cavrCopyFrameBufferToGLTextures; api.c has checked that the planes
   * are on the device). NULL: unsupported.
   */
  CAVRError (*copyToGL)(CAVRDevice device, CAVRFrameBuffer fb, const unsigned textures[3]);
  /** Copy the opaque depth from GL buffer object `buffer` into the frame buffer's device copy and set opaqueOnDevice
      (cavrSetFrameBufferOpaqueDepthGLBuffer). NULL: unsupported. */
  CAVRError (*opaqueDepthFromGL)(CAVRDevice device, CAVRFrameBuffer fb, unsigned buffer);
  /** The device copy of the opaque depth into fb->opaqueDepth (allocated here), for a frame rendered on the host. */
  CAVRError (*opaqueDepthToHost)(CAVRDevice device, CAVRFrameBuffer fb);
  /** Drop the frame buffer's GL registrations (cavrReleaseFrameBufferGLTextures, and before it is freed); may be NULL. */
  void (*releaseGL)(CAVRDevice device, CAVRFrameBuffer fb);
  /** Free and total bytes of the device's memory now (cavrGetDeviceMemoryInfo). NULL: unsupported. */
  CAVRError (*memoryInfo)(CAVRDevice device, size_t *freeBytes, size_t *totalBytes);
  /** Make the frame buffer's shared planes (fb->shared*), exported as file descriptors (cavrShareFrameBufferPlanes).
      NULL: unsupported. */
  CAVRError (*share)(CAVRDevice device, CAVRFrameBuffer fb, int fds[2], unsigned long long bytes[2]);
  /** Release the frame buffer's shared planes (cavrUnshareFrameBufferPlanes, and before it is freed); may be NULL. */
  void (*unshare)(CAVRDevice device, CAVRFrameBuffer fb);
} CAVRBackendOps;


/**
 * Skipping classification of the isosurface blend mode: out[c] = 1 when macro cell c's stored value range
 * (cellMinMax) holds one of the `count` iso-values (stored units), then widened by `dilation` cells
 * (cavr_dilate_cells).
 */
void cavr_classify_iso_cells(const CAVRVolume vol, const float *isoStored, int count, int dilation, uint8_t *out);
/**
 * The GPU method of the isosurface blend mode for a view (CAVRIsoMethod, resolved: STANDARD or WARP_MARCHING) given
 * the requested one and the view direction in voxel index space. AUTO gives STANDARD today (iso_cells.c says why).
 */
int cavr_iso_method(int requested, const double dirIndex[3]);

/**
 * Widen a classification: a cell becomes 1 when any cell within `radius` cells (per axis, a cube) is 1 (cells
 * per axis in grid, x fastest). radius 0: no-op. Without memory for its row buffer every cell becomes 1 (never
 * wrong, only slower).
 */
void cavr_dilate_cells(const CAVRMacroGridDesc *grid, int radius, uint8_t *cells);

struct CAVRRayFrame;
/**
 * The per-frame description of a render job (core/shared/cavr_frame.h), every field both back ends read; the CUDA
 * back end's launch fields (rotation, cube, launch shape, isoMethod) are left 0 for its policy to fill. Shapes and
 * units: cavr_frame.h. The job's handles must be committed; no errors.
 */
void cavr_ray_frame(const CAVRRenderJob *job, struct CAVRRayFrame *out);

/** The CPU back end's reconstruction (cpu_reconstruct.c). */
CAVRError cavr_cpu_reconstruct(CAVRDevice device, const CAVRRenderJob *job, const uint8_t *mask, uint64_t maskStamp,
                               CAVRRenderStats *stats);
/** CPU threads to use on a device (its setting, or every core). */
int cavr_cpu_threads(CAVRDevice device);

/** The CPU back end (always built). */
const CAVRBackendOps *cavr_cpu_backend(void);

/** Macro cells per axis for dims: ceil((dims - 1) / CAVR_MACROCELL_SIZE) (macrocell.c). */
void cavr_macrocell_grid(const int dims[3], CAVRMacroGridDesc *grid);
/**
 * Macro-cell min/max of voxels (2 floats in stored units per cell of grid, x fastest, into minmax) and the
 * smallest and largest stored value (range), on `threads` threads (macrocell.c). CAVR_ERROR_OUT_OF_MEMORY when
 * a thread's row buffer cannot be allocated.
 */
CAVRError cavr_compute_macrocells(const CAVRVoxels *voxels, const CAVRMacroGridDesc *grid, int threads, float *minmax,
                                  double range[2]);

/**
 * Which macro cells may hold a sample with non-zero opacity: out[c] = 1 when any table entry the cell's
 * value range can reach (table index = stored * idxScale + idxBias, entries interpolated) has opacity > 0.
 */
void cavr_classify_cells(const CAVRVolume vol, const float *rgba, int count, float idxScale, float idxBias,
                         uint8_t *out);

/** cavr_classify_cells for a frame's table: the 2-D table's column maxima over its columns (frame->tf2dW) when the
    frame has one (cavrSetTransferFunction2D), else the 1-D table (tf2d.c). */
void cavr_classify_tf(const CAVRVolume vol, const CAVRTransferFunction tf, const struct CAVRRayFrame *frame,
                      uint8_t *out);

/** The frame's 2-D table into out (tf->t2Size[0] x (tf->t2Size[1] + 1) RGBA): the committed one with each opacity
    a > 0 turned into 1 - (1 - a)^exponent when `correction` is on (exponent: step / unit distance), as the 1-D
    table's; then one more row whose opacities are each column's largest (cavr_tf2d_may_show) (tf2d.c). */
void cavr_tf2d_corrected(const CAVRTransferFunction tf, int correction, float exponent, float *out);

/** The CPU packet casters' widest packet (cpu_packet.c) from CAVR_CPU_PACKET_LANES, the text of a new device's
    environment snapshot ("" unset): taken when no cap was set before (by an earlier device or cavr_cpu_packet_width). */
void cavr_cpu_packet_width_default(const char *lanes);

/** The process-wide cap of cpu_packet.c (tests, cavrSetDeviceParam). */
void cavr_cpu_packet_width(int lanes);

/** Hand the device's environment snapshot (dev->env) to its CUDA context again, after cavrSetDeviceParam
    (cuda_backend.c; a no-op without CUDA). */
void cavr_cuda_configure(CAVRDevice dev);

/** The CUDA back end (cuda_backend.c); NULL with a reason when no GPU or not built. */
const CAVRBackendOps *cavr_cuda_backend(const struct CAVREnv *env, char *msg, size_t msgSize, CAVRError *err,
                                        int *gpu);

/**
 * The CUDA device index a cavr device uses (gpu_select.c), of `count` visible: `requested` when
 * >= 0, else $CAVR_GPU, else the MPI local rank (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, SLURM_LOCALID, PMI_LOCAL_RANK; the first set) modulo count, else 0. Returns -1 when the
 * requested index or $CAVR_GPU is not a visible GPU or none is visible; `why` says which rule decided, or why not.
 */
int cavr_choose_gpu(int requested, int count, const struct CAVREnv *env, char *why, size_t whySize);

/** Column-major 4x4 helpers (matrix.c). */
void cavr_mat4_mul(const double a[16], const double b[16], double out[16]);
int cavr_mat4_invert(const double m[16], double out[16]);
/** out = m * (x,y,z,1), divided by w. Returns 0 when w is 0. */
int cavr_mat4_project(const double m[16], const double in[3], double out[3]);

#endif /* CAVR_BACKEND_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_device.h - the device: the back end that renders, and the error state of everything made on it.
 */
#ifndef CAVR_DEVICE_H
#define CAVR_DEVICE_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Called with the first error of each sequence (see cavrGetDeviceError), and with notes that are not errors
    (code CAVR_ERROR_NONE: e.g. AUTO's table was measured, or AUTO falls back to its default). May be called from
    any thread. */
typedef void (*CAVRErrorCallback)(void *user, CAVRError code, const char *message);

/**
 * Create a device on the given back end. CAVR_BACKEND_AUTO picks CUDA when the library was built with
 * CUDA and a GPU answers, the CPU otherwise. Returns a handle with reference count 1, or NULL; on
 * NULL, cavrGetDeviceError(NULL, &msg) on the same thread gives the reason: CAVR_ERROR_INVALID_ARGUMENT (not a
 * CAVRBackend), CAVR_ERROR_UNSUPPORTED (back end not built), CAVR_ERROR_NO_GPU, CAVR_ERROR_CUDA (the CUDA back end
 * failed to start), CAVR_ERROR_OUT_OF_MEMORY. Thread safe.
 */
CAVR_API CAVRDevice cavrNewDevice(CAVRBackend backend);

/**
 * cavrNewDevice on a chosen GPU (one GPU per MPI rank). `gpu` >= 0: that CUDA device index
 * (0 .. visible GPUs - 1); -1 (what cavrNewDevice does): $CAVR_GPU if set, else the process's MPI local rank
 * (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID or PMI_LOCAL_RANK)
 * modulo the visible GPUs, else 0. The device's name then ends in "GPU i of n" when more than one is visible.
 * Ignored by the CPU back end. Returns NULL like cavrNewDevice, and also with CAVR_ERROR_INVALID_ARGUMENT when the
 * index or $CAVR_GPU names no visible GPU (CAVR_BACKEND_CUDA; AUTO then uses the CPU and says why in its name).
 * Thread safe. Rendering from another thread than the one that made the device is fine: each commit and render
 * makes the device's GPU current on the calling thread.
 */
CAVR_API CAVRDevice cavrNewDeviceOnGpu(CAVRBackend backend, int gpu);

/** The CUDA device index a device renders on, or -1 (CPU back end, NULL). */
CAVR_API int cavrGetDeviceGpu(CAVRDevice device);
/** Add a reference. Returns CAVR_ERROR_INVALID_ARGUMENT for NULL. */
CAVR_API CAVRError cavrRetainDevice(CAVRDevice device);
/** Drop a reference; the last one frees the device. NULL is a no-op. Objects made on the device retain it. */
CAVR_API void cavrReleaseDevice(CAVRDevice device);

/** The back end the device actually uses (never AUTO). Returns CAVR_BACKEND_CPU for NULL. */
CAVR_API CAVRBackend cavrGetDeviceBackend(CAVRDevice device);
/** Human-readable back-end description, e.g. "CPU", "CPU (CUDA unavailable: ...)" or "CUDA (<GPU name>, 80 GiB)".
    Owned by the device, valid while it lives; "" for NULL. */
CAVR_API const char *cavrGetDeviceName(CAVRDevice device);

/**
 * Number of CPU threads the CPU back end uses; 0 (default) means one per online core.
 * Images do not depend on it (each pixel is computed by exactly one thread, in a fixed order).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT for a NULL device or a negative count.
 */
CAVR_API CAVRError cavrSetDeviceThreadCount(CAVRDevice device, int threads);

/**
 * Set one of the device's parameters, named as its environment variable (docs/user-guide.md, "Environment
 * variables"): a device starts with the environment's values, read once when it is made; this replaces one of them
 * for the device's later commits and renders (value NULL or "": unset, the default). Settable: "CAVR_TUNE",
 * "CAVR_TUNE_DIR", "CAVR_PIN_HOST", "CAVR_CPU_PACKET_LANES" (process-wide: the CPU packet casters' widest packet),
 * "CAVR_UPLOAD_THREADS", "CAVR_UPLOAD_CHUNK_MIB", "CAVR_RAYCAST_BLOCK", "CAVR_RAYCAST_REGCAP",
 * "CAVR_CUDA_VOLUME_LIMIT", "CAVR_CUDA_MAX_TEXTURE3D" (the last two are tests' fault injection). CAVR_GPU and the MPI
 * local ranks choose the GPU when the device is made and cannot be set here. Values are text as in the environment
 * (e.g. "16x8" for CAVR_RAYCAST_BLOCK, bytes for CAVR_CUDA_VOLUME_LIMIT); unusable values act as unset.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL device or name, a name not in the list, a value too long).
 */
CAVR_API CAVRError cavrSetDeviceParam(CAVRDevice device, const char *name, const char *value);

/**
 * Return and clear the first error recorded on the device since the last call. When message is not
 * NULL it receives the error's text (owned by the device, valid until the next call on the device).
 * With device == NULL, reports the last failed cavrNewDevice (or cavrNew* given a NULL device) on the calling
 * thread. Returns the recorded code (CAVR_ERROR_NONE: none); the call itself cannot fail. Thread safe.
 */
CAVR_API CAVRError cavrGetDeviceError(CAVRDevice device, const char **message);

/** Install a callback called for every error recorded on the device, and for notes (NULL removes it). The callback
    runs on the thread that hit the error, outside the device's lock. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL
    device). Thread safe. */
CAVR_API CAVRError cavrSetDeviceErrorCallback(CAVRDevice device, CAVRErrorCallback callback, void *user);

/**
 * Free and total memory of the device's GPU now, in bytes (cudaMemGetInfo: every process's allocations count), for
 * tests and tools that watch for leaks. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL device or output),
 * CAVR_ERROR_UNSUPPORTED (the CPU back end; both outputs 0), CUDA errors.
 */
CAVR_API CAVRError cavrGetDeviceMemoryInfo(CAVRDevice device, size_t *freeBytes, size_t *totalBytes);

/**
 * Measure AUTO's table for voxels of `type` on this device's GPU and save it: thread-block shape
 * and in-place rotation chosen per view from measured cost, the view classes of thread-block shaping (Sugimoto et
 * al. 2013, sec. 4, Table 2: ray axis and the primary axis's direction on screen in 15-degree groups) priced for 9
 * block shapes (16x16, 32x8, 64x4, 8x32, 4x64, 2x128, 1x256, 2x256 transposed, 16x32 transposed of 1x32 warps) and every rotation state (Misaki et
 * al. 2017), one row per working-set size: dense synthetic cubes of 256^3, 768^3 (smaller when device memory is
 * short) and 1536^3 (where twice it fits in free device memory), each rendered into a 1024^2 image from 36 views with
 * each shape (12.7-16.5 s for uint8-uint16 on an H200; up to 2 x 13.5 GB of device memory for float32); a volume is
 * priced by the rows around its size. AUTO measures the two smaller rows by itself at its first render of a
 * storage type with no valid table (unless the device's CAVR_TUNE is 0) and the largest at its first render of a
 * volume over twice the middle cube; this call measures all rows regardless (`cavr-bench --tune`).
 * The table goes to $CAVR_TUNE_DIR, else $XDG_CACHE_HOME/cavr, else $HOME/.cache/cavr, one file per GPU model and
 * storage (uint8/int8, uint16/int16, float32 and the types stored as float32); a table of another GPU, storage or
 * cavr version is stale and measured again. `path` (may be NULL) receives the file's path (pathSize bytes).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL device, unknown type), CAVR_ERROR_UNSUPPORTED (a CPU device: it has no
 * strategies), CAVR_ERROR_IO (measured and used by this process, but the file could not be written), CUDA errors.
 */
CAVR_API CAVRError cavrTuneDevice(CAVRDevice device, CAVRScalarType type, char *path, size_t pathSize);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_DEVICE_H */

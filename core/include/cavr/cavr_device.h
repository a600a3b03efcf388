/*
 * cavr_device.h - the device: the back end that renders, and the error state of everything made on it.
 */
#ifndef CAVR_DEVICE_H
#define CAVR_DEVICE_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Called with the first error of each sequence (see cavrGetDeviceError). May be called from any thread. */
typedef void (*CAVRErrorCallback)(void *user, CAVRError code, const char *message);

/**
 * Create a device on the given back end. CAVR_BACKEND_AUTO picks CUDA when the library was built with
 * CUDA and a GPU answers, the CPU otherwise. Returns a handle with reference count 1, or NULL; on
 * NULL, cavrGetDeviceError(NULL, &msg) gives the reason: CAVR_ERROR_UNSUPPORTED (back end not built),
 * CAVR_ERROR_NO_GPU, CAVR_ERROR_OUT_OF_MEMORY. Thread safe.
 */
CAVR_API CAVRDevice cavrNewDevice(CAVRBackend backend);
/** Add a reference. Returns CAVR_ERROR_INVALID_ARGUMENT for NULL. */
CAVR_API CAVRError cavrRetainDevice(CAVRDevice device);
/** Drop a reference; the last one frees the device. NULL is a no-op. Objects made on the device retain it. */
CAVR_API void cavrReleaseDevice(CAVRDevice device);

/** The back end the device actually uses (never AUTO). Returns CAVR_BACKEND_CPU for NULL. */
CAVR_API CAVRBackend cavrGetDeviceBackend(CAVRDevice device);
/** Human-readable back-end description, e.g. "CPU (2 threads)". Owned by the device. */
CAVR_API const char *cavrGetDeviceName(CAVRDevice device);

/**
 * Number of CPU threads the CPU back end uses; 0 (default) means one per online core.
 * Images do not depend on it (each pixel is computed by exactly one thread, in a fixed order).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT for a NULL device or a negative count.
 */
CAVR_API CAVRError cavrSetDeviceThreadCount(CAVRDevice device, int threads);

/**
 * Return and clear the first error recorded on the device since the last call. When message is not
 * NULL it receives the error's text (owned by the device, valid until the next call on the device).
 * With device == NULL, reports the last failed cavrNewDevice on the calling thread.
 */
CAVR_API CAVRError cavrGetDeviceError(CAVRDevice device, const char **message);

/** Install a callback called for every error recorded on the device (NULL removes it). */
CAVR_API CAVRError cavrSetDeviceErrorCallback(CAVRDevice device, CAVRErrorCallback callback, void *user);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_DEVICE_H */

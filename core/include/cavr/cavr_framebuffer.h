/*
 * cavr_framebuffer.h - the image a render writes: premultiplied RGBA (8-bit and float) and depth.
 */
#ifndef CAVR_FRAMEBUFFER_H
#define CAVR_FRAMEBUFFER_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest accepted frame-buffer side, in pixels. */
#define CAVR_MAX_IMAGE_SIZE 16384

/** Planes of a frame buffer. */
typedef enum CAVRFrameBufferChannel {
  CAVR_FB_COLOR_RGBA8 = 0,  /**< uint8 x 4 per pixel, premultiplied RGBA */
  CAVR_FB_COLOR_RGBA32F = 1,/**< float x 4 per pixel, premultiplied RGBA in [0,1] */
  CAVR_FB_DEPTH = 2         /**< float per pixel: window depth [0,1] of the first visible sample; 1 where none */
} CAVRFrameBufferChannel;

/**
 * Create a width x height frame buffer (each side in [1, CAVR_MAX_IMAGE_SIZE] pixels; count 1; retains
 * the device). All planes are allocated. NULL on failure (CAVR_ERROR_INVALID_ARGUMENT, OUT_OF_MEMORY).
 */
CAVR_API CAVRFrameBuffer cavrNewFrameBuffer(CAVRDevice device, int width, int height);
CAVR_API CAVRError cavrRetainFrameBuffer(CAVRFrameBuffer fb);
/** NULL is a no-op. */
CAVR_API void cavrReleaseFrameBuffer(CAVRFrameBuffer fb);

/** Size in pixels. */
CAVR_API CAVRError cavrGetFrameBufferSize(CAVRFrameBuffer fb, int *width, int *height);

/**
 * Read-only pointer to a plane (layout in CAVRFrameBufferChannel, rows bottom to top), valid until the
 * next render into or release of the frame buffer. NULL for a NULL handle or an unknown channel.
 */
CAVR_API const void *cavrGetFrameBufferData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel);

/**
 * Depth of opaque geometry already in the scene: width*height floats, window depth in [0,1] as OpenGL
 * writes it (1 = nothing). Rays stop at it. The values are copied; NULL removes the limit.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb, count != width*height).
 */
CAVR_API CAVRError cavrSetFrameBufferOpaqueDepth(CAVRFrameBuffer fb, const float *depth, size_t count);

/**
 * Whether renders copy the image back to the host planes (default 1). With 0 on the CUDA back end the image
 * stays in device memory (cavrGetFrameBufferDeviceData) and the host planes keep their old contents.
 */
CAVR_API CAVRError cavrSetFrameBufferHostCopy(CAVRFrameBuffer fb, int enabled);

/**
 * Device pointer of a plane of the last CUDA render into this frame buffer (same layout as the host plane),
 * valid until the next render on the device; NULL on the CPU back end or before a CUDA render.
 */
CAVR_API void *cavrGetFrameBufferDeviceData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_FRAMEBUFFER_H */

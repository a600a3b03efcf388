// SPDX-License-Identifier: BSD-3-Clause
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
 * the device). All planes are allocated (page-aligned); renders copy CAVR_FB_HOST_DEFAULT (RGBA8 and depth) to
 * the host (cavrSetFrameBufferHostChannels). NULL on failure (CAVR_ERROR_INVALID_ARGUMENT, OUT_OF_MEMORY).
 */
CAVR_API CAVRFrameBuffer cavrNewFrameBuffer(CAVRDevice device, int width, int height);
/** Add a reference (thread safe). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrRetainFrameBuffer(CAVRFrameBuffer fb);
/** Drop a reference; the last frees the planes, drops OpenGL registrations and shared memory (make the OpenGL
    context current first when they were used) and releases the device. NULL is a no-op. */
CAVR_API void cavrReleaseFrameBuffer(CAVRFrameBuffer fb);

/** Size in pixels. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL handle or output). */
CAVR_API CAVRError cavrGetFrameBufferSize(CAVRFrameBuffer fb, int *width, int *height);

/**
 * Read-only pointer to a plane (layout in CAVRFrameBufferChannel, rows bottom to top), valid until the
 * next render into or release of the frame buffer. It holds the last render's image when the plane was
 * requested (cavrSetFrameBufferHostChannels) or the CPU back end rendered. NULL for a NULL handle or an
 * unknown channel.
 */
CAVR_API const void *cavrGetFrameBufferData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel);

/**
 * Depth of opaque geometry already in the scene: width*height floats, window depth in [0,1] as OpenGL
 * writes it (1 = nothing). Rays stop at it. The values are copied; NULL removes the limit.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb, count != width*height), CAVR_ERROR_OUT_OF_MEMORY.
 */
CAVR_API CAVRError cavrSetFrameBufferOpaqueDepth(CAVRFrameBuffer fb, const float *depth, size_t count);

/**
 * Depth of opaque geometry already in the scene, read on the GPU (CUDA-OpenGL interop): OpenGL
 * buffer object `buffer`, in the context current on the calling thread, holds width*height GL_FLOAT window depths in
 * [0,1], rows bottom to top, as glReadPixels(x, y, width, height, GL_DEPTH_COMPONENT, GL_FLOAT, 0) with the buffer
 * bound to GL_PIXEL_PACK_BUFFER writes them. The values are copied now, on the GPU (queued on the device's stream
 * after the OpenGL commands before the call; the host does not wait), into the frame buffer's device copy, which
 * later renders read as cavrSetFrameBufferOpaqueDepth's values, until that call replaces them. The first call with a
 * name registers the buffer with CUDA (cudaGraphicsGLRegisterBuffer, read-only); the frame buffer keeps the
 * registration until cavrReleaseFrameBufferGLTextures or its release (respecify the buffer's storage only after that).
 * A frame rendered on the CPU (a volume that did not fit) or super-sampled copies the values to the host first.
 * buffer 0 is cavrSetFrameBufferOpaqueDepth(fb, NULL, 0).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb, a buffer smaller than width*height floats); CAVR_ERROR_UNSUPPORTED (the
 * CPU back end, no OpenGL context of the device's GPU current, a buffer CUDA refuses to register); CAVR_ERROR_CUDA.
 * The depth in effect before a failed call is kept.
 */
CAVR_API CAVRError cavrSetFrameBufferOpaqueDepthGLBuffer(CAVRFrameBuffer fb, unsigned buffer);

/** Bits of cavrSetFrameBufferHostChannels, one per CAVRFrameBufferChannel (bit = 1u << channel), combined with |. */
#define CAVR_FB_HOST_RGBA8 0x1u   /**< CAVR_FB_COLOR_RGBA8 */
#define CAVR_FB_HOST_RGBA32F 0x2u /**< CAVR_FB_COLOR_RGBA32F */
#define CAVR_FB_HOST_DEPTH 0x4u   /**< CAVR_FB_DEPTH */
#define CAVR_FB_HOST_ALL 0x7u
/** What a new frame buffer copies to the host: the 8-bit colour and the depth. */
#define CAVR_FB_HOST_DEFAULT (CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH)

/**
 * Which planes renders must leave in host memory (cavrGetFrameBufferData), as CAVR_FB_HOST_* bits; default
 * CAVR_FB_HOST_DEFAULT (RGBA8 and depth), 0: none. Layouts are those of CAVRFrameBufferChannel whatever the
 * mask. After a CUDA render only the requested planes are valid on the host: the others keep the contents of an
 * earlier render (they are not copied back; the device copies, cavrGetFrameBufferDeviceData, are all written).
 * The CPU back end writes every plane wherever it renders (also a volume that fell back to the CPU), so there
 * all three are valid; portable callers request what they read. On the CUDA back end the requested planes are
 * page-locked (cudaHostRegister) at the first render that copies them and stay so until the frame buffer is
 * released, so the copy is a direct DMA; CAVRRenderStats.transferMilliseconds reports its time. Takes effect
 * at the next render; not thread safe with a render into the same frame buffer.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb, bits outside CAVR_FB_HOST_ALL; the mask is then unchanged).
 */
CAVR_API CAVRError cavrSetFrameBufferHostChannels(CAVRFrameBuffer fb, unsigned mask);

/** The CAVR_FB_HOST_* mask in effect (see cavrSetFrameBufferHostChannels). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrGetFrameBufferHostChannels(CAVRFrameBuffer fb, unsigned *mask);

/**
 * Shorthand kept from before per-plane selection: enabled != 0 is cavrSetFrameBufferHostChannels(fb,
 * CAVR_FB_HOST_ALL) (every plane, as it always meant), 0 is cavrSetFrameBufferHostChannels(fb, 0): on the CUDA
 * back end the image then stays in device memory (cavrGetFrameBufferDeviceData) and the host planes keep their
 * old contents. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb).
 */
CAVR_API CAVRError cavrSetFrameBufferHostCopy(CAVRFrameBuffer fb, int enabled);

/**
 * Device pointer of a plane of the last CUDA render into this frame buffer (same layout as the host plane),
 * valid until the next render on the device; NULL on the CPU back end or before a CUDA render.
 */
CAVR_API void *cavrGetFrameBufferDeviceData(CAVRFrameBuffer fb, CAVRFrameBufferChannel channel);

/**
 * Copy planes of the last render, on the GPU, into OpenGL textures (CUDA-OpenGL interop): a display
 * path with no trip through host memory, for a window whose OpenGL context runs on the device's GPU.
 * textures[c] names the GL_TEXTURE_2D that receives plane c (a CAVRFrameBufferChannel), 0 for a plane not copied, in
 * the OpenGL context current on the calling thread; each of the frame buffer's size, with internal format GL_RGBA8
 * for CAVR_FB_COLOR_RGBA8, GL_RGBA32F for CAVR_FB_COLOR_RGBA32F, GL_R32F for CAVR_FB_DEPTH (a depth-format texture
 * cannot be mapped by CUDA); rows bottom to top, texel (x, y) = pixel (x, y), as in the plane. The first copy into
 * a name registers the texture with CUDA (cudaGraphicsGLRegisterImage) and the frame buffer keeps the registration
 * for later copies into that name, until cavrReleaseFrameBufferGLTextures or the frame buffer is released (respecify
 * a texture's storage only after that). The planes are copied under one map of all the textures, queued behind the
 * render; OpenGL's later use of the textures waits for the copies, the caller does not. Independent of
 * cavrSetFrameBufferHostChannels (set it to 0 when nothing reads the host planes). Not thread safe with a render into
 * the same frame buffer.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb or textures, no texture named); CAVR_ERROR_UNSUPPORTED: the CPU back
 * end, a last render that left no image on the GPU (none yet, a volume rendered on the CPU because it did not fit, or
 * super-sampling: then the host planes hold the image, all of them, so draw those), no OpenGL context current or one
 * on another GPU (checked once by cudaGLGetDevices; answered again until cavrReleaseFrameBufferGLTextures), a texture
 * CUDA refuses to register; CAVR_ERROR_CUDA on a failing copy. Each is recorded on the device.
 */
CAVR_API CAVRError cavrCopyFrameBufferToGLTextures(CAVRFrameBuffer fb, const unsigned textures[3]);

/**
 * Drop the frame buffer's CUDA registrations of OpenGL textures (cavrCopyFrameBufferToGLTextures) and forget the
 * check of the current context. Call it with the textures' OpenGL context current, before deleting the textures or
 * the context; releasing the frame buffer does it too (then the context should be current). No-op on the CPU back
 * end. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL).
 */
CAVR_API CAVRError cavrReleaseFrameBufferGLTextures(CAVRFrameBuffer fb);

/**
 * Share the frame buffer's colour and depth planes with another graphics API on the same GPU: a
 * display path with no map, unmap or copy on the importer's side. The CUDA back end makes device memory with the
 * driver's virtual memory API, exported as POSIX file descriptors, which OpenGL imports with GL_EXT_memory_object_fd
 * (glImportMemoryFdEXT with GL_HANDLE_TYPE_OPAQUE_FD_EXT, then glBufferStorageMemEXT: a buffer object; read it as a
 * texture buffer, GL_RGBA8 and GL_R32F) and Vulkan with VK_KHR_external_memory_fd.
 * From this call on, every CUDA render into fb also leaves its planes there when cavrRender returns (the render waits
 * for the device-to-device copies, about 8 MB at 1024^2): the colour as premultiplied RGBA8 (4 bytes per pixel, R
 * first) and the depth as float (4 bytes per pixel; the plane CAVR_FB_DEPTH), each width x height pixels, row-major
 * from the bottom row: pixel (x, y) at index x + width * y. A frame rendered on the CPU (a volume that did not fit on
 * the GPU: CAVRRenderStats.backend is CAVR_BACKEND_CPU) leaves the shared memory as it was; its image is in the host
 * planes. The caller must not start the next cavrRender into fb while the importer still reads the memory (OpenGL:
 * wait for a fence, glFenceSync after the draw and glClientWaitSync before the render).
 * fds[0], fds[1] receive new file descriptors of the colour and the depth memory, owned by the caller (OpenGL's import
 * takes them over; close one that is not imported); bytes[0], bytes[1] receive each allocation's size in bytes (at
 * least width * height * 4; a multiple of the driver's granularity), the size to import. Each call makes new memory
 * and releases cavr's reference to the old (an importer's reference keeps it alive until the importer deletes it).
 * The importer must run on the device's GPU (OpenGL: a context that cudaGLGetDevices places there, which
 * cavrCopyFrameBufferToGLTextures checks; or compare GL_DEVICE_UUID_EXT with the GPU's UUID): memory imported elsewhere
 * may import without an error and read garbage. Not thread safe with a render into the same frame buffer.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL fb, fds or bytes); CAVR_ERROR_UNSUPPORTED: the CPU back end, or a driver
 * or GPU that cannot export memory as file descriptors (the driver's CUDA_ERROR_NOT_SUPPORTED, _NOT_PERMITTED or
 * _INVALID_VALUE for that handle type; entry points missing: a driver older than CUDA 12); CAVR_ERROR_OUT_OF_MEMORY
 * (host); CAVR_ERROR_CUDA_OUT_OF_MEMORY; CAVR_ERROR_CUDA. On an error (except a NULL fb) fds[] are -1, bytes[] 0 and
 * nothing is shared. Each is recorded on the device.
 */
CAVR_API CAVRError cavrShareFrameBufferPlanes(CAVRFrameBuffer fb, int fds[2], unsigned long long bytes[2]);

/**
 * Stop sharing the planes (cavrShareFrameBufferPlanes): later renders no longer copy into the shared memory and cavr
 * releases its reference to it. Releasing the frame buffer does it too. No-op when nothing is shared or on the CPU
 * back end. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL).
 */
CAVR_API CAVRError cavrUnshareFrameBufferPlanes(CAVRFrameBuffer fb);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_FRAMEBUFFER_H */

/*
 * cavr_volume.h - a 3-D scalar volume on a regular grid.
 */
#ifndef CAVR_VOLUME_H
#define CAVR_VOLUME_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest accepted size along one axis, in voxels. */
#define CAVR_MAX_VOLUME_DIM 16384

/** Create an empty volume on a device (count 1; retains the device). NULL on failure (device error set). */
CAVR_API CAVRVolume cavrNewVolume(CAVRDevice device);
CAVR_API CAVRError cavrRetainVolume(CAVRVolume volume);
/** NULL is a no-op. */
CAVR_API void cavrReleaseVolume(CAVRVolume volume);

/**
 * Stage the voxel data. `dims` = {Nx, Ny, Nz} voxels, each in [2, CAVR_MAX_VOLUME_DIM]; `data` holds
 * Nx*Ny*Nz values of `type`, x fastest, in host byte order; `bytes` is the size of `data` and must equal
 * Nx*Ny*Nz*sizeof(type). The data is copied (converted for UINT32/INT32/FLOAT64, see CAVRScalarType), so
 * the caller's buffer may be freed on return.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, bytes mismatch), CAVR_ERROR_INVALID_DATA (a dimension below 2,
 * i.e. 2-D or 1-D data; a dimension above CAVR_MAX_VOLUME_DIM; a voxel count that overflows size_t; NaN or
 * Inf voxels, with the count and first position in the message), CAVR_ERROR_UNSUPPORTED (unknown type),
 * CAVR_ERROR_OUT_OF_MEMORY. Not thread safe with other calls on the same volume.
 */
CAVR_API CAVRError cavrSetVolumeData(CAVRVolume volume, CAVRScalarType type, const int dims[3],
                                     const void *data, size_t bytes);
/** Stage the voxel spacing in world units per voxel (each > 0 and finite; default 1,1,1). */
CAVR_API CAVRError cavrSetVolumeSpacing(CAVRVolume volume, const double spacing[3]);
/** Stage the world position of voxel (0,0,0) (default 0,0,0). */
CAVR_API CAVRError cavrSetVolumeOrigin(CAVRVolume volume, const double origin[3]);

/**
 * Stage the render extent {x0, x1, y0, y1, z0, z1} (voxel indices, inclusive, VTK order): rays integrate
 * only inside the box these voxels span, while voxels outside it still feed trilinear interpolation and
 * gradients. This is how a piece of a distributed volume keeps a ghost layer so that pieces meet without a
 * seam, and how cropping is done. NULL (default) renders the whole volume. Checked at commit against the
 * dims: 0 <= x0 < x1 <= Nx-1 and likewise for y and z, else CAVR_ERROR_INVALID_ARGUMENT.
 */
CAVR_API CAVRError cavrSetVolumeRenderExtent(CAVRVolume volume, const int extent[6]);

/**
 * Publish staged changes: validates, builds the empty-space-skipping grid (min/max per 8^3-voxel
 * macro cell) and, on the CUDA back end, uploads (padded to a cube whose side is a multiple of 64, for
 * in-place rotation). When the GPU has not enough memory the volume renders on the CPU instead: the call
 * succeeds, the device's error callback receives CAVR_ERROR_CUDA_OUT_OF_MEMORY with a message, and
 * cavrRender's stats report CAVR_BACKEND_CPU. Errors: CAVR_ERROR_NOT_COMMITTED (no data was ever set),
 * CAVR_ERROR_OUT_OF_MEMORY, back-end errors.
 */
CAVR_API CAVRError cavrCommitVolume(CAVRVolume volume);

/** Range of the committed scalar values, in the original (unconverted) units. */
CAVR_API CAVRError cavrGetVolumeRange(CAVRVolume volume, double range[2]);
/** Committed dimensions in voxels. */
CAVR_API CAVRError cavrGetVolumeDims(CAVRVolume volume, int dims[3]);
/** World-space bounds of what is rendered (the render extent): {xmin, xmax, ymin, ymax, zmin, zmax}. */
CAVR_API CAVRError cavrGetVolumeBounds(CAVRVolume volume, double bounds[6]);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_VOLUME_H */

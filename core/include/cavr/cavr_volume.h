// SPDX-License-Identifier: BSD-3-Clause
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
/** Add a reference (thread safe). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrRetainVolume(CAVRVolume volume);
/** Drop a reference; the last frees the voxels (host and GPU) and releases the device. NULL is a no-op. */
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
/**
 * Stage the voxel data without copying it: as cavrSetVolumeData (same `dims`, layout, `bytes` and errors), but cavr
 * keeps the caller's `data` and reads it when it needs the voxels on the host: at cavrCommitVolume (the upload to the
 * GPU, the macro cells on the CPU back end) and in every CPU render of the volume (the CPU back end, a CPU
 * fallback). The caller keeps `data` allocated and unchanged until the volume gets other voxels
 * (cavrSetVolumeData, cavrSetVolumeSharedData, cavrSetVolumeComponentData) and they are committed, or until the
 * volume is released; to show changed voxels, call this again (the same pointer is fine) and commit. cavr never
 * writes or frees it. What it saves: the host copy of the voxels, one volume-size of host memory (a volume that fits
 * the GPU but not twice in host memory; a distributed volume's pieces under MPI): with the CUDA back end the only
 * host copy is the caller's (CAVRVolumeCommitStats.hostBytes 0). Shared OSPRay-style (ospNewSharedData) for the
 * types stored as they are (CAVR_UINT8, CAVR_UINT16, CAVR_FLOAT32); the types stored converted (INT8, INT16, UINT32,
 * INT32, FLOAT64, see CAVRScalarType) are copied as by cavrSetVolumeData. A FLOAT32 volume is checked for NaN or Inf
 * here (in place).
 * Errors: those of cavrSetVolumeData. Not thread safe with other calls on the same volume.
 */
CAVR_API CAVRError cavrSetVolumeSharedData(CAVRVolume volume, CAVRScalarType type, const int dims[3],
                                           const void *data, size_t bytes);
/** Most components per voxel cavrSetVolumeComponentData takes. */
#define CAVR_MAX_VOLUME_COMPONENTS 4

/**
 * Stage voxels of `components` values each, classified as VTK classifies "dependent components"
 * (vtkVolumeProperty::IndependentComponents off; ParaView's "Volume" with Map Scalars off or Multi Components
 * Mapping on). `data` holds Nx*Ny*Nz tuples of `components` values of `type`, components interleaved, x fastest
 * (value c of voxel (i, j, k) at index ((k Ny + j) Nx + i) components + c), host byte order; `bytes` must equal
 * Nx*Ny*Nz*components*sizeof(type). What each count means (vtkVolumeShaderComposer.h, ComputeColor and
 * ComputeOpacity for !independentComponents, as VTK 9.1's GPU ray caster renders them):
 * - 1: exactly cavrSetVolumeData.
 * - 2: component 1 is the scalar: it gives the opacity through the transfer function's alpha, the gradient for
 *   shading and gradient opacity, empty-space skipping and cavrGetVolumeRange; component 0 gives the colour through
 *   the table's RGB at the colour range (cavrSetTransferFunctionColorRange; default the table's range).
 * - 4: component 3 is the scalar (as above); components 0, 1, 2 are red, green and blue taken as they are, each
 *   rescaled from its own range over the volume (its smallest value to 0, its largest to 1: VTK's texture scale and
 *   bias), so 8-bit colours spanning 0-255 are value/255 (the range of this call's voxels: each piece of a
 *   distributed volume rescales by its own, as VTK does per piece). The table's RGB is not used.
 * Each sample's colour is interpolated from the colour components at the sample's position with the render's filter
 * (the cubic filter interpolates them trilinearly). Only CAVR_BLEND_COMPOSITE renders such a volume; cavrRender
 * returns CAVR_ERROR_UNSUPPORTED for the other blend modes. Memory: the scalar component is stored as by
 * cavrSetVolumeData; the colour as 32-bit floats, 1 per voxel (2 components) or 4 (4 components), on the host and on
 * the GPU (a second 3-D texture, sampled at the same coordinates; such a volume is never turned in place, see
 * cavrSetRenderStrategy). Copied: the caller's buffer may be freed on return. A later cavrSetVolumeData stages a
 * one-component volume again.
 * Errors: those of cavrSetVolumeData (NaN or Inf in any component is CAVR_ERROR_INVALID_DATA), and
 * CAVR_ERROR_UNSUPPORTED for a component count other than 1, 2 or 4 (3-component data has no dependent
 * classification in VTK either: render its magnitude or one component with cavrSetVolumeData).
 * Not thread safe with other calls on the same volume.
 */
CAVR_API CAVRError cavrSetVolumeComponentData(CAVRVolume volume, CAVRScalarType type, int components,
                                              const int dims[3], const void *data, size_t bytes);
/** Components per voxel of the committed volume (1, 2 or 4) into *components. Errors: as cavrGetVolumeRange. */
CAVR_API CAVRError cavrGetVolumeComponents(CAVRVolume volume, int *components);
/** Stage the voxel spacing, 3 doubles in world units per voxel (each > 0 and finite; default 1,1,1), copied.
    Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, a value not finite and > 0). */
CAVR_API CAVRError cavrSetVolumeSpacing(CAVRVolume volume, const double spacing[3]);
/** Stage the world position of voxel (0,0,0), 3 doubles in world units (default 0,0,0), copied.
    Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, a value not finite). */
CAVR_API CAVRError cavrSetVolumeOrigin(CAVRVolume volume, const double origin[3]);

/**
 * Stage the render extent {x0, x1, y0, y1, z0, z1} (voxel indices, inclusive, VTK order): rays integrate
 * only inside the box these voxels span, while voxels outside it still feed trilinear interpolation and
 * gradients. This is how a piece of a distributed volume keeps a ghost layer so that pieces meet without a
 * seam, and how cropping is done. NULL (default) renders the whole volume. Checked at commit against the
 * dims: 0 <= x0 < x1 <= Nx-1 and likewise for y and z, else cavrCommitVolume returns CAVR_ERROR_INVALID_ARGUMENT.
 * Copied. Errors here: CAVR_ERROR_INVALID_ARGUMENT (NULL volume).
 */
CAVR_API CAVRError cavrSetVolumeRenderExtent(CAVRVolume volume, const int extent[6]);

/**
 * Publish staged changes: validates, builds the empty-space-skipping grid (min/max per 8^3-voxel macro
 * cell) and the value range, and, on the CUDA back end, uploads the voxels into a 3-D CUDA array of the
 * volume's own extent (device memory = the voxels, no padding). New voxels of the same dims and type (a new
 * time step) go into the same GPU allocation. The CUDA back end computes the macro cells and the range on the
 * GPU after the upload; the CPU back end (and a CPU fallback) on all cores (cavrSetDeviceThreadCount). A CPU
 * device also keeps a host copy of the voxels with one cache line of padding per row and per slice when rows are
 * a multiple of 512 bytes or slices of 1 KiB (e.g. 512 x 512 slices: the CPU ray caster reads it, see
 * docs/design.md), one more voxel-size of host memory, refilled in place by a new time step of the same size.
 * Rotation by quarter turns (cavrSetRenderStrategy) happens at render time: a cube whose side is a multiple of 64
 * turns in place (Misaki et al. 2017); any other array by a device-to-device copy into a new array of the permuted
 * extent (both exist during the copy; counted in that render's rotationMilliseconds and in deviceAllocations). If
 * the second array does not fit, the volume renders without rotation from then on and the error callback receives
 * CAVR_ERROR_CUDA_OUT_OF_MEMORY (or CAVR_ERROR_UNSUPPORTED) with a note.
 * When the GPU has not enough memory, or an axis exceeds its 3-D texture limit (16384 voxels on current
 * GPUs), the volume renders on the CPU instead: the call succeeds, the device's error callback receives
 * CAVR_ERROR_CUDA_OUT_OF_MEMORY (memory) or CAVR_ERROR_UNSUPPORTED (size limit) with a message, and
 * cavrRender's stats report CAVR_BACKEND_CPU. Timings: cavrGetVolumeCommitStats.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, a render extent outside the dims), CAVR_ERROR_NOT_COMMITTED (no data
 * was ever set), CAVR_ERROR_OUT_OF_MEMORY, CAVR_ERROR_CUDA and CAVR_ERROR_CUDA_OUT_OF_MEMORY (a failing upload,
 * re-upload of a time step or macro-cell pass; a new GPU array that does not fit falls back to the CPU, above).
 * Blocking; not thread safe with other calls on the same volume or a render that uses it.
 */
CAVR_API CAVRError cavrCommitVolume(CAVRVolume volume);

/** What the last cavrCommitVolume of a volume did, and where its voxels are now (cavrGetVolumeCommitStats). */
typedef struct CAVRVolumeCommitStats {
  double milliseconds;        /**< wall time of the last cavrCommitVolume call, ms */
  double cellMilliseconds;    /**< of which: macro-cell min/max and value range, ms (GPU kernel and read-back on
                                   the CUDA back end, host threads otherwise; 0 when the voxels did not change) */
  double uploadMilliseconds;  /**< of which: copying the voxels to the GPU, ms (0 when nothing was uploaded) */
  uint64_t voxelBytes;        /**< bytes of the committed voxels as stored (1, 2 or 4 per voxel: see CAVRScalarType) */
  uint64_t uploadBytes;       /**< bytes copied to the GPU by that call: voxelBytes, or 0 (CPU back end or
                                   fallback, or a commit that changed only spacing, origin or extent) */
  double uploadGBps;          /**< uploadBytes / uploadMilliseconds, GB/s (10^9 bytes per second); 0 without upload */
  int reusedAllocation;       /**< 1 when that upload went into the GPU array of the previous commit (same dims
                                   and type: no device allocation, no texture objects rebuilt) */
  int deviceAllocations;      /**< GPU arrays allocated for this volume since it was created (each rotation of a
                                   non-cubic array by copy counts as one) */
  int deviceDims[3];          /**< extent of the volume's CUDA array now: its dims, permuted while a render left it
                                   rotated; 0,0,0 when it is not on the GPU */
  uint64_t deviceBytes;       /**< bytes of that array (deviceDims product times bytes per stored value) */
  uint64_t hostBytes;         /**< host memory cavr holds for the voxels after that call: its copy of them (0 when
                                   shared, cavrSetVolumeSharedData) and the buffer kept for the next time step of
                                   the same size (cavrCommitVolume); the CPU back end's padded copy is not counted */
} CAVRVolumeCommitStats;

/**
 * Statistics of the volume's last commit (zeros before the first) and the current size of its GPU copy.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). Not thread safe with other calls on the same volume.
 */
CAVR_API CAVRError cavrGetVolumeCommitStats(CAVRVolume volume, CAVRVolumeCommitStats *stats);

/** Range {min, max} of the committed scalar values, in the original (unconverted) units. Errors (also for the
    two below): CAVR_ERROR_INVALID_ARGUMENT (NULL), CAVR_ERROR_NOT_COMMITTED (never committed). */
CAVR_API CAVRError cavrGetVolumeRange(CAVRVolume volume, double range[2]);
/** Committed dimensions {Nx, Ny, Nz} in voxels. Errors: as cavrGetVolumeRange. */
CAVR_API CAVRError cavrGetVolumeDims(CAVRVolume volume, int dims[3]);
/** World-space bounds of what is rendered (the render extent): {xmin, xmax, ymin, ymax, zmin, zmax}, world units.
    Errors: as cavrGetVolumeRange. */
CAVR_API CAVRError cavrGetVolumeBounds(CAVRVolume volume, double bounds[6]);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_VOLUME_H */

// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkCavrVolumeRepresentation
 * @brief   ParaView representation "cavr Volume": vtkImageVolumeRepresentation with vtkCavrVolumeMapper.
 *
 * Everything ParaView's "Volume" representation does (data delivery, ordered compositing under MPI,
 * transfer functions, shading properties) is inherited; only the mapper is replaced, as ParaView's NVIDIA
 * IndeX plugin does. The Cavr* setters forward cavr's own properties to the mapper.
 */
#ifndef vtkCavrVolumeRepresentation_h
#define vtkCavrVolumeRepresentation_h

#include "cavrRepresentationsModule.h" // for export macro
#include "vtkImageVolumeRepresentation.h"
#include "vtkNew.h" // for vtkNew

class vtkCavrVolumeMapper;
class vtkPiecewiseFunction;

class CAVRREPRESENTATIONS_EXPORT vtkCavrVolumeRepresentation : public vtkImageVolumeRepresentation
{
public:
  static vtkCavrVolumeRepresentation* New();
  vtkTypeMacro(vtkCavrVolumeRepresentation, vtkImageVolumeRepresentation);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  /** Back end: 0 auto, 1 CPU, 2 CUDA (see vtkCavrVolumeMapper::SetBackend). Default 0. */
  void SetCavrBackEnd(int backend);
  /** Sample distance in voxels of the finest axis, [0.01, 64]. Default 0.5. */
  void SetCavrSampleDistance(double voxels);
  /** Early-ray-termination opacity threshold, (0, 1]. Default 0.99. */
  void SetCavrEarlyRayTermination(double threshold);
  /** Blend mode: 0 composite, 1 maximum, 2 minimum, 3 average intensity. Default 0. */
  void SetCavrBlendMode(int mode);

  /** GPU strategy: 0 standard, 1 shaped, 2 auto (see vtkCavrVolumeMapper::SetStrategy). Default 2. */
  void SetCavrStrategy(int strategy);

  /** Compressive rendering (see vtkCavrVolumeMapper): sample fraction (0, 1], reconstruction 0 global,
      1 local, 2 local + adaptive sampling, and whether the fraction applies to interactive renders only. */
  void SetCavrSampleFraction(double fraction);
  void SetCavrReconstruction(int method);
  void SetCavrCompressiveWhileInteracting(int enabled);
  /** vtkCavrVolumeMapper::SetCompressiveOnlyWherePays. */
  void SetCavrCompressiveOnlyWherePays(int enabled);
  /** The last frame's compressive decision on this process (information property CavrCompressiveDecision; see
      vtkCavrVolumeMapper::GetLastCompressiveDecision). */
  int GetCavrCompressiveDecision();
  /** Cubic B-spline interpolation on/off and rays per pixel (see vtkCavrVolumeMapper). */
  void SetCavrCubicInterpolation(int enabled);
  void SetCavrSupersampling(int raysPerPixel);
  /** CUDA device index, -1 for the automatic choice (see vtkCavrVolumeMapper::SetGpuIndex). */
  void SetCavrGpuIndex(int gpu);
  /** Jittered ray starts on/off (vtkCavrVolumeMapper::SetJitterRayStarts). Default off. */
  void SetCavrJitterRayStarts(int enabled);
  /**
   * ParaView's "Volume" properties VolumetricScatteringBlending and GlobalIlluminationReach (shared with the Volume
   * representation): the superclass forwards them to its own VTK mappers only, so these hide its methods and give
   * them to the cavr mapper (vtkCavrVolumeMapper::SetVolumetricScatteringBlending). VolumeAnisotropy needs nothing:
   * the superclass sets it on the volume property, which the mapper reads.
   */
  void SetVolumetricScatteringBlending(float blending);
  void SetGlobalIlluminationReach(float reach);
  /**
   * Gradient opacity (property CavrGradientOpacity, default off): on, the points of CavrGradientOpacityPoints,
   * pairs (gradient magnitude in scalar units per world unit, opacity in [0, 1]), become this representation's
   * volume property's gradient opacity (vtkVolumeProperty::SetGradientOpacity, DisableGradientOpacity off), which
   * the mapper passes to cavrSetTransferFunctionGradientOpacity; off, DisableGradientOpacity is set. The points
   * arrive one pair at a time after RemoveAllCavrGradientOpacityPoints (ParaView's repeated command); pairs with
   * a magnitude not above the previous one's are dropped.
   */
  void SetCavrGradientOpacity(int enabled);
  void AddCavrGradientOpacityPoint(double magnitude, double opacity);
  void RemoveAllCavrGradientOpacityPoints();

  /**
   * What rendered the last frame on this process (information properties CavrBackEndInUse and CavrDeviceInUse;
   * in a client-server or MPI session the first server rank's): "CUDA" or "CPU" ("" before the first frame), and
   * the device's name (vtkCavrVolumeMapper::GetLastDeviceName). A volume that did not fit on the GPU reads "CPU".
   */
  const char* GetCavrBackEndInUse();
  const char* GetCavrDeviceInUse();
  /** Milliseconds of the last frame's cavrRender call on this process (information property CavrLastRenderTime):
      the C API frame for the view, from the call to the image in the frame buffer; 0 before the first frame. */
  double GetCavrLastRenderTime();
  /** Milliseconds of the mapper's whole last Render() on this process (information property CavrLastDrawTime):
      the render call plus the mapper's own work around it and the hand-over of the image to OpenGL. */
  double GetCavrLastDrawTime();

  /** The mapper (for scripts and tests). */
  vtkCavrVolumeMapper* GetCavrMapper();

  /**
   * As the superclass; besides, with more than one rank and blend mode maximum or minimum intensity, turns on
   * the mapper's IntensityDepth and tells the view that this representation needs no ordered compositing, so
   * that IceT composites the ranks' images by depth, which then holds each pixel's maximum (minimum): "over" in
   * visibility order cannot give the maximum of two pieces.
   */
  int ProcessViewRequest(vtkInformationRequestKey* request_type, vtkInformation* inInfo,
    vtkInformation* outInfo) override;

protected:
  vtkCavrVolumeRepresentation();
  ~vtkCavrVolumeRepresentation() override;

  /**
   * As the superclass; besides, with more than one piece, asks upstream for the piece grown by GhostLevels layers of
   * the neighbours' voxels. From a structured source or reader that produces sub-extents (NRRD and image readers,
   * Wavelet, a Programmable Source that honours its update extent: vtkAlgorithm::CAN_PRODUCE_SUB_EXTENT), it asks for
   * that extent itself: this process's piece of the whole extent (vtkExtentTranslator, block mode, as the executive
   * splits it) grown by GhostLevels and clipped, with no ghost levels, so that the producer reads exactly those voxels
   * and the executive adds no ghost arrays (a point and a cell flag per voxel: two more bytes a voxel, besides their
   * time). From any other producer it asks for GhostLevels ghost levels, as ParaView's geometry representations ask
   * for ghost cells. The environment variable CAVR_MPI_GHOSTS=generator asks for neither (the layers then come from
   * vtkGhostCellsGenerator, as RequestData says).
   */
  int RequestUpdateExtent(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;

  /**
   * Under MPI, gives the mapper the piece with GhostLevels layers of the neighbouring pieces' voxels and tells it the
   * piece's own extent, the part it renders; the bounds used for ordered compositing stay the piece's own. The piece
   * is rendered as it arrives when the pipeline delivered the ghost layers asked for (the input holds the own extent
   * grown by GhostLevels, clipped to the whole extent; the own extent is the one RequestUpdateExtent computed, else
   * the part the input's ghost array leaves unflagged); when any rank's piece lacks them, every rank adds them with
   * vtkGhostCellsGenerator (a copy of the piece and an exchange).
   */
  int RequestData(vtkInformation* request, vtkInformationVector** inputVector,
    vtkInformationVector* outputVector) override;

  /** Ghost layers added under MPI: 2 (one for trilinear samples up to half a step outside the piece,
   * one more for their central-difference gradients). */
  static constexpr int GhostLevels = 2;

  /**
   * As the superclass (which puts the volume property in 2-D mode when UseTransfer2D is on); besides, hands the
   * mapper the 2-D transfer function's second array when UseGradientForTransfer2D is off
   * (vtkCavrVolumeMapper::SetTransfer2DYAxisArray, which warns that cavr does not support it).
   */
  void UpdateMapperParameters() override;

  /** The gradient-opacity function and switch into this->Property (SetCavrGradientOpacity). */
  void ApplyGradientOpacity();

  vtkNew<vtkPiecewiseFunction> GradientOpacityFunction;
  bool GradientOpacityEnabled = false;
  /** The own extent of this process's piece when RequestUpdateExtent asked for it grown by GhostLevels (point
      indices; x0 > x1 when it asked for ghost levels or for nothing). */
  int RequestedOwnExtent[6] = { 0, -1, 0, -1, 0, -1 };

private:
  vtkCavrVolumeRepresentation(const vtkCavrVolumeRepresentation&) = delete;
  void operator=(const vtkCavrVolumeRepresentation&) = delete;
};

#endif

// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkCavrPropertyTranslator
 * @brief   vtkCavrVolumeMapper's scene as cavr objects: the vtkVolumeProperty's transfer function as a cavr table; the
 *          property, the mapper's properties and the renderer's lights as cavr render settings (sampling, opacity
 *          correction, blend mode with iso-values or the slice plane, interpolation, super-sampling, shading, lights,
 *          strategy, compressive rendering, cropping); the active camera and the volume's matrix as a cavr camera.
 *
 * Internal to the cavr::Mapper module (a private header: not installed, not wrapped), as vtkOpenGLVolumeLookupTables
 * is to VTK's GPU ray caster. One per mapper, used on the render thread; the cavr objects it fills belong to the
 * mapper. Each problem the user can fix is warned about once, through the mapper.
 */
#ifndef vtkCavrPropertyTranslator_h
#define vtkCavrPropertyTranslator_h

#include "vtkType.h" // for vtkMTimeType

#include "cavr/cavr.h"

#include <string> // for std::string
#include <vector> // for std::vector

class vtkCavrVolumeMapper;
class vtkRenderer;
class vtkVolume;
class vtkVolumeProperty;

class vtkCavrPropertyTranslator
{
public:
  /** Entries of the transfer-function tables (cavrSetTransferFunctionTable). */
  static constexpr int TableSize = 1024;

  /**
   * The property's colour transfer function and scalar opacity (component 0) sampled at TableSize points over their
   * joint range (scalar units; widened by 0.5 on each side when empty), clamped to [0, 1], into `function` and
   * committed: only when either or `components` changed since the last call. For a volume of dependent components
   * (`components` 2 or 4, vtkCavrInputHelper::GetComponents) the opacity is sampled over the opacity function's range
   * and the colour over the colour function's, which becomes the table's colour range
   * (cavrSetTransferFunctionColorRange). Returns the error of the call the core refused.
   */
  CAVRError UpdateTransferFunction(vtkVolumeProperty* property, CAVRTransferFunction function, int components = 1);

  /**
   * The property's gradient opacity (component 0: vtkVolumeProperty::GetStoredGradientOpacity when one was set and
   * DisableGradientOpacity is off; else none) into `function` (cavrSetTransferFunctionGradientOpacity: magnitudes in
   * scalar units per world unit) and committed, only when the points changed since the last call. The function's
   * nodes are passed as they are when they are at most CAVR_MAX_GRADIENT_OPACITY_POINTS, at magnitudes >= 0, with
   * linear segments (midpoint 0.5, sharpness 0); otherwise it is sampled at that many points over its range from
   * magnitude 0 up. A function that is 1 everywhere (VTK's default) is passed as none (the same image, without the
   * gradient's cost). Returns the error of the call the core refused.
   */
  CAVRError UpdateGradientOpacity(vtkVolumeProperty* property, CAVRTransferFunction function);

  /**
   * The property's 2-D transfer function (TransferFunctionMode TF_2D with a 4-component TransferFunction2D image, as
   * ParaView's vtkPVTransferFunction2D rasterises its boxes) into `function` (cavrSetTransferFunction2D), or none in
   * 1-D mode; committed only when the image, the mode or `volume`'s range changed. As VTK's GPU ray caster does (its
   * fragment shader's texture2D(in_transfer2D, (scalar, |gradient|))), the image's texels span the volume's scalar
   * range along x and the gradient magnitude 0 .. 0.25 x that range / the mean spacing (VTK's normalisation) along y,
   * whatever range the 2-D function declares; its opacity is per sample at that mapper's sample distance, the smallest
   * spacing, uncorrected, so UpdateSettings takes that distance as the unit distance while the 2-D table is on. A
   * second array on the y axis (the mapper's Transfer2DYAxisArray) is not supported: warned about once, the gradient
   * magnitude is used. Returns the error of the call the core refused.
   */
  CAVRError UpdateTransferFunction2D(
    vtkCavrVolumeMapper* mapper, vtkVolumeProperty* property, CAVRVolume volume, CAVRTransferFunction function);

  /** The range (scalar units) of the last table UpdateTransferFunction made. */
  const double* GetTableRange() const { return this->TableRange; }

  /**
   * IntensityDepth's ramp into `ramp`: grey u at table entry u (alpha 1) over GetTableRange(), so that a render's
   * colour is the sample's place in the transfer function's range; committed only when that range changed.
   */
  CAVRError UpdateRamp(CAVRTransferFunction ramp);

  /**
   * The render settings of this frame into `settings` and committed: sample distance (voxels), early termination,
   * opacity correction (the property's scalar opacity unit distance, world units), blend mode (the mapper's
   * CavrBlendMode, or isosurfaces of the property's iso-values under ISOSURFACE_BLEND, or the slice through the
   * property's slice plane under SLICE_BLEND), interpolation, super-sampling, jittered ray starts, shading
   * coefficients, the renderer's
   * lights, GPU strategy, compressive rendering and cropping (the volume's coordinates). Returns the blend mode
   * rendered; *problem says why cropping planes were refused ("" otherwise). Unsupported choices are warned about
   * once through `mapper` and replaced (1 ray per pixel, the cavr blend mode, the sub-volume crop, the first
   * CAVR_MAX_LIGHTS lights).
   */
  CAVRBlendMode UpdateSettings(vtkCavrVolumeMapper* mapper, vtkRenderer* ren, vtkVolume* vol, CAVRDevice device,
    CAVRRenderSettings settings, std::string* problem);

  /**
   * `camera` from the renderer's active camera over its tiled aspect ratio: cavr's world is the volume's data space,
   * so the view matrix includes the volume's matrix. Committed; returns the error of the call the core refused.
   */
  static CAVRError UpdateCamera(vtkRenderer* ren, vtkVolume* vol, CAVRCamera camera);

  /** Forget the tables made (their device is released): the next calls make them again. */
  void Reset();

private:
  /** The blend mode of this frame (see UpdateSettings), its iso-values or slice plane set into `settings`. */
  CAVRBlendMode BlendMode(vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRRenderSettings settings);

  /** SLICE_BLEND: the property's slice plane into `settings` in the volume's coordinates; false (warned about once
      per distinct problem) when it is not a usable vtkPlane. */
  bool SlicePlane(vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRRenderSettings settings);

  /** The renderer's lights into `settings` (VTK's ray casters' model). */
  void Lights(vtkCavrVolumeMapper* mapper, vtkRenderer* ren, vtkVolume* vol, CAVRRenderSettings settings);

  /** The mapper's cropping planes into `settings` (none when cropping is off); *problem when they are refused. */
  void Cropping(vtkCavrVolumeMapper* mapper, CAVRDevice device, CAVRRenderSettings settings, std::string* problem);

  vtkMTimeType TableTime = 0; // the transfer functions' modification time of the last table
  int TableComponents = 1;    // and the components it was made for
  std::vector<float> Table;
  std::vector<double> GradientOpacity; // the (magnitude, opacity) pairs last committed
  std::vector<double> Table2DKey;      // the 2-D table last committed: image time, size, ranges (empty: none)
  double Table2DUnit = 0.0;            // the 2-D table's unit distance (world units; 0: no 2-D table)
  bool Table2DArrayWarned = false;
  double TableRange[2] = { 0.0, 1.0 }; // the transfer function's range, scalar units
  double ValueRange[2] = { 0.0, 0.0 }; // the range of the ramp UpdateRamp made
  bool CropFlagsWarned = false;
  int SupersamplingWarned = 0; // the unsupported rays-per-pixel value last warned about
  std::string SliceWarning;    // the last slice-function problem reported (once per distinct problem)
  bool LightsWarned = false;
};

#endif

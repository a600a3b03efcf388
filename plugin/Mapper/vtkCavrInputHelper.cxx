// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrInputHelper: vtkCavrVolumeMapper's input as a cavr volume (see the header).
#include "vtkCavrInputHelper.h"

#include "vtkCavrDeviceError.h"
#include "vtkCavrVolumeMapper.h"

#include "vtkColorTransferFunction.h"
#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkMatrix3x3.h"
#include "vtkScalarsToColors.h"
#include "vtkVolume.h"
#include "vtkVolumeProperty.h"

#include <algorithm>
#include <cmath>

namespace
{
// The array's name for messages ("" when it has none).
std::string ArrayName(vtkDataArray* scalars)
{
  return scalars->GetName() ? scalars->GetName() : "";
}

// Vector and multi-component arrays as ParaView's GPU mapper draws them: the colour map's vector mode (Color By's
// component menu) picks the magnitude or one component, rendered as a float volume. False (with *problem) for RGB
// colours.
bool VectorChoice(
  vtkVolume* vol, vtkDataArray* scalars, int components, int* mode, int* component, std::string* problem)
{
  vtkColorTransferFunction* lut = vol->GetProperty()->GetRGBTransferFunction(0);
  *mode = lut->GetVectorMode();
  *component = std::min(std::max(lut->GetVectorComponent(), 0), components - 1);
  if (*mode != vtkScalarsToColors::MAGNITUDE && *mode != vtkScalarsToColors::COMPONENT)
  {
    *problem = "array '" + ArrayName(scalars) +
      "': the colour map's vector mode is RGB colours; cavr Volume draws the magnitude or one component";
    return false;
  }
  return true;
}
}

//------------------------------------------------------------------------------
vtkCavrInputHelper::Status vtkCavrInputHelper::Update(
  vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRDevice device, CAVRVolume volume)
{
  Status status;
  vtkImageData* image = vtkImageData::SafeDownCast(mapper->GetDataSetInput());
  if (!image)
  {
    status.Problem = mapper->GetDataSetInput()
      ? "only uniform grids (vtkImageData) are supported; use 'Resample To Image' first"
      : "no input";
    return status;
  }
  int cellFlag = 0;
  vtkDataArray* scalars = vtkAbstractMapper::GetScalars(image, mapper->GetScalarMode(),
    mapper->GetArrayAccessMode(), mapper->GetArrayId(), mapper->GetArrayName(), cellFlag);
  if (!scalars)
  {
    status.Problem = "no scalar array selected (use ColorBy to pick a point or cell array)";
    return status;
  }
  const int components = scalars->GetNumberOfComponents();
  const int dependent = this->Dependent(mapper, vol, scalars, components);
  int vectorMode = -1, vectorComponent = 0;
  CAVRScalarType type = CAVR_FLOAT32;
  if ((components > 1 && !dependent &&
        !VectorChoice(vol, scalars, components, &vectorMode, &vectorComponent, &status.Problem)) ||
    !ScalarType(scalars, dependent ? 1 : components, &type, &status.Problem))
  {
    return status;
  }
  int dims[3], local[6];
  double spacing[3], first[3];
  Geometry(mapper, image, cellFlag, dims, spacing, first, local);
  // Upload when the array, its contents or the geometry changed.
  const std::vector<unsigned long long> key = { reinterpret_cast<unsigned long long>(scalars),
    static_cast<unsigned long long>(scalars->GetMTime()), static_cast<unsigned long long>(image->GetMTime()),
    static_cast<unsigned long long>(cellFlag), reinterpret_cast<unsigned long long>(volume),
    static_cast<unsigned long long>(vectorMode + 1), static_cast<unsigned long long>(vectorComponent),
    static_cast<unsigned long long>(dependent) };
  if (key != this->VolumeKey)
  {
    this->VolumeReady = false;
    this->VolumeKey = key;
    status.NewData = true;
    if (dims[0] < 2 || dims[1] < 2 || dims[2] < 2)
    {
      status.Problem = std::string("the ") + (cellFlag ? "cell" : "point") + " array '" + ArrayName(scalars) +
        "' spans " + std::to_string(std::max(dims[0], 0)) + " x " + std::to_string(std::max(dims[1], 0)) + " x " +
        std::to_string(std::max(dims[2], 0)) + " voxels: cavr Volume needs at least 2 voxels along each axis (" +
        (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 ? "the volume is empty"
                                                   : "a 1-voxel-thick image is a slice: show it as a Slice") +
        "); keeping the last good volume";
      return status;
    }
    this->VectorMode = vectorMode;
    this->VectorComponent = vectorComponent;
    this->Components = dependent ? dependent : 1;
    if (!this->Upload(scalars, type, dims, spacing, first, local, device, volume, &status.Problem))
    {
      return status;
    }
    this->VolumeReady = true;
    this->HaveVolume = true;
  }
  if (!this->VolumeReady)
  {
    return status; // the same bad data as last time: already reported
  }
  if (!this->RenderExtentSet || !std::equal(local, local + 6, this->RenderExtent))
  {
    bool whole = local[0] > local[1];
    CAVRError e = cavrSetVolumeRenderExtent(volume, whole ? nullptr : local);
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrCommitVolume(volume);
    }
    if (e != CAVR_ERROR_NONE)
    {
      status.Problem = vtkCavrDeviceError(device, e);
      return status;
    }
    std::copy(local, local + 6, this->RenderExtent);
    this->RenderExtentSet = true;
  }
  status.Ready = true;
  return status;
}

//------------------------------------------------------------------------------
int vtkCavrInputHelper::Dependent(vtkCavrVolumeMapper* mapper, vtkVolume* vol, vtkDataArray* scalars, int components)
{
  if (components < 2 || vol->GetProperty()->GetIndependentComponents())
  {
    return 0;
  }
  const bool composite =
    mapper->GetBlendMode() == vtkVolumeMapper::COMPOSITE_BLEND && mapper->GetCavrBlendMode() == CAVR_BLEND_COMPOSITE;
  if ((components == 2 || components == 4) && composite)
  {
    return components;
  }
  if (!this->DependentWarned)
  {
    this->DependentWarned = true;
    vtkWarningWithObjectMacro(mapper, << "cavr Volume: array '" << ArrayName(scalars) << "' has " << components
                                      << " components and Map Scalars is off or Multi Components Mapping on; cavr "
                                         "renders such components as ParaView's Volume does only for 2 or 4 "
                                         "components in the composite blend mode, so it renders the colour map's "
                                         "magnitude or component instead.");
  }
  return 0;
}

//------------------------------------------------------------------------------
void vtkCavrInputHelper::Geometry(vtkCavrVolumeMapper* mapper, vtkImageData* image, int cellFlag, int dims[3],
  double spacing[3], double first[3], int local[6])
{
  int extent[6];
  image->GetExtent(extent);
  double origin[3];
  image->GetSpacing(spacing);
  image->GetOrigin(origin);
  for (int a = 0; a < 3; ++a)
  {
    dims[a] = extent[2 * a + 1] - extent[2 * a] + 1 - (cellFlag ? 1 : 0);
    // World position of the first voxel of this piece (cell centres for cell data).
    first[a] = origin[a] + (extent[2 * a] + (cellFlag ? 0.5 : 0.0)) * spacing[a];
    spacing[a] = std::fabs(spacing[a]);
  }
  const double* direction = image->GetDirectionMatrix()->GetData();
  if (direction[0] != 1.0 || direction[4] != 1.0 || direction[8] != 1.0)
  {
    vtkWarningWithObjectMacro(mapper, << "cavr Volume ignores the image's direction matrix (rendered axis-aligned).");
  }
  // The piece's own part (ghost layers excluded), in this piece's voxel indices; point data only.
  const int empty[6] = { 0, -1, 0, -1, 0, -1 };
  std::copy(empty, empty + 6, local);
  const int* renderExtent = mapper->GetRenderExtent();
  if (!cellFlag && renderExtent[0] <= renderExtent[1])
  {
    for (int a = 0; a < 3; ++a)
    {
      local[2 * a] = std::max(renderExtent[2 * a] - extent[2 * a], 0);
      local[2 * a + 1] = std::min(renderExtent[2 * a + 1] - extent[2 * a], dims[a] - 1);
    }
  }
}

//------------------------------------------------------------------------------
bool vtkCavrInputHelper::ScalarType(
  vtkDataArray* scalars, int components, CAVRScalarType* type, std::string* problem)
{
  switch (components > 1 ? VTK_FLOAT : scalars->GetDataType())
  {
    case VTK_UNSIGNED_CHAR:
      *type = CAVR_UINT8;
      return true;
    case VTK_SIGNED_CHAR:
    case VTK_CHAR:
      *type = CAVR_INT8;
      return true;
    case VTK_UNSIGNED_SHORT:
      *type = CAVR_UINT16;
      return true;
    case VTK_SHORT:
      *type = CAVR_INT16;
      return true;
    case VTK_FLOAT:
      *type = CAVR_FLOAT32;
      return true;
    case VTK_UNSIGNED_INT:
      *type = CAVR_UINT32;
      return true;
    case VTK_INT:
      *type = CAVR_INT32;
      return true;
    case VTK_DOUBLE:
      *type = CAVR_FLOAT64;
      return true;
    default:
      *problem = "array '" + ArrayName(scalars) + "' has type " + scalars->GetDataTypeAsString() +
        ", which cavr does not support (use 8/16/32-bit integers, float or double)";
      return false;
  }
}

//------------------------------------------------------------------------------
bool vtkCavrInputHelper::Upload(vtkDataArray* scalars, CAVRScalarType type, const int dims[3],
  const double spacing[3], const double first[3], const int local[6], CAVRDevice device, CAVRVolume volume,
  std::string* problem)
{
  size_t bytes = static_cast<size_t>(scalars->GetNumberOfTuples()) * scalars->GetDataTypeSize();
  const void* voxels = scalars->GetVoidPointer(0);
  const int components = scalars->GetNumberOfComponents();
  if (this->Components > 1)
  {
    bytes *= static_cast<size_t>(components); // dependent components, interleaved as the array holds them
  }
  else if (components > 1)
  {
    // The magnitude or the chosen component, one float per voxel (as vtkSmartVolumeMapper derives them).
    const vtkIdType n = scalars->GetNumberOfTuples();
    this->Derived.resize(static_cast<size_t>(n));
    std::vector<double> tuple(components);
    for (vtkIdType i = 0; i < n; ++i)
    {
      scalars->GetTuple(i, tuple.data());
      double v = 0.0;
      if (this->VectorMode == vtkScalarsToColors::MAGNITUDE)
      {
        for (int c = 0; c < components; ++c)
        {
          v += tuple[c] * tuple[c];
        }
        v = std::sqrt(v);
      }
      else
      {
        v = tuple[this->VectorComponent];
      }
      this->Derived[static_cast<size_t>(i)] = static_cast<float>(v);
    }
    voxels = this->Derived.data();
    bytes = this->Derived.size() * sizeof(float);
  }
  // A one-component array goes to cavr shared (no host copy: a piece that fits the GPU need not fit twice in host
  // memory); the helper holds a reference to each array cavr may still read (staged, committed), so that VTK neither
  // frees nor reuses it (vtkImageData::AllocateScalars reuses only arrays nobody else holds).
  const bool share = this->Components == 1 && components == 1 &&
    (type == CAVR_UINT8 || type == CAVR_UINT16 || type == CAVR_FLOAT32); // the types the core shares (others: copied)
  CAVRError e = this->Components > 1 ? cavrSetVolumeComponentData(volume, type, this->Components, dims, voxels, bytes)
    : share                          ? cavrSetVolumeSharedData(volume, type, dims, voxels, bytes)
                                     : cavrSetVolumeData(volume, type, dims, voxels, bytes);
  if (e == CAVR_ERROR_NONE)
  {
    this->StagedArray = share ? scalars : nullptr;
    e = cavrSetVolumeSpacing(volume, spacing);
  }
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrSetVolumeOrigin(volume, first);
  }
  // The whole volume's render extent goes with the voxels into one commit (a volume too large for the GPU is then
  // tried, and reported, once); a piece's own extent is committed on its own (Update), so that a bad one keeps the
  // voxels.
  this->RenderExtentSet = false;
  if (e == CAVR_ERROR_NONE && local[0] > local[1])
  {
    e = cavrSetVolumeRenderExtent(volume, nullptr);
    this->RenderExtentSet = e == CAVR_ERROR_NONE;
    std::copy(local, local + 6, this->RenderExtent);
  }
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitVolume(volume);
  }
  if (e != CAVR_ERROR_NONE)
  {
    *problem = vtkCavrDeviceError(device, e) + (this->HaveVolume ? "; keeping the last good volume" : "");
    return false;
  }
  this->CommittedArray = this->StagedArray; // the previous array is no longer read
  this->StagedArray = nullptr;
  return true;
}

//------------------------------------------------------------------------------
void vtkCavrInputHelper::Reset()
{
  this->VolumeKey.clear();
  this->VolumeReady = false;
  this->HaveVolume = false;
}

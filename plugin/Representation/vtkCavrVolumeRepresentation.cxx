// SPDX-License-Identifier: BSD-3-Clause
#include "vtkCavrVolumeRepresentation.h"

#include "vtkCavrVolumeMapper.h"
#include "vtkDataObject.h"
#include "vtkGhostCellsGenerator.h"
#include "vtkMultiProcessController.h"
#include "vtkImageData.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkPiecewiseFunction.h"
#include "vtkPVRenderView.h"
#include "vtkProcessModule.h"
#include "vtkSmartPointer.h"
#include "vtkVolumeProperty.h"

#include <string>

vtkStandardNewMacro(vtkCavrVolumeRepresentation);

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::vtkCavrVolumeRepresentation()
{
  this->VolumeMapper = vtkSmartPointer<vtkCavrVolumeMapper>::New();
}

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::~vtkCavrVolumeRepresentation() = default;

//------------------------------------------------------------------------------
int vtkCavrVolumeRepresentation::RequestData(
  vtkInformation* request, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  // With several ranks, grow every rank's piece by GhostLevels layers of its neighbours' voxels (a
  // collective operation: every rank runs it, also one without data), so that interpolation and shading
  // gradients at the piece faces see the same voxels as in one process: no seam.
  vtkSmartPointer<vtkImageData> ghosted;
  int own[6] = { 0, -1, 0, -1, 0, -1 };
  vtkMultiProcessController* controller = vtkMultiProcessController::GetGlobalController();
  vtkImageData* input = inputVector[0]->GetNumberOfInformationObjects() == 1
    ? vtkImageData::GetData(inputVector[0], 0)
    : nullptr;
  const bool parallel = controller && controller->GetNumberOfProcesses() > 1;
  vtkImageData* cached = vtkImageData::SafeDownCast(this->Cache);
  int dims[3] = { 0, 0, 0 };
  if (input)
  {
    input->GetDimensions(dims);
  }
  if (!parallel && input && (dims[0] < 2 || dims[1] < 2 || dims[2] < 2) && cached &&
    cached->GetNumberOfPoints() > 0)
  {
    // An empty or 1-voxel-thick image (one process: under MPI a rank may hold no piece, or a thin one that
    // ghost layers thicken). The superclass would show it (or hide it silently) with bounds that change the
    // view: say why it cannot be rendered, and keep the last good volume, its bounds and the image.
    if (input->GetNumberOfPoints() == 0)
    {
      vtkErrorMacro(<< "cavr Volume: the input image is empty (no voxels); keeping the last good volume");
    }
    else
    {
      vtkErrorMacro(<< "cavr Volume: the input image is " << dims[0] << " x " << dims[1] << " x " << dims[2]
                    << " voxels; a volume needs at least 2 voxels along each axis (a 1-voxel-thick image is a "
                       "slice: show it as a Slice); keeping the last good volume");
    }
    return 1;
  }
  if (!parallel && input && input->GetNumberOfPoints() == 0 && !(cached && cached->GetNumberOfPoints() > 0))
  {
    // Empty before any good volume: the superclass hides the volume; say why (the mapper is never called).
    vtkErrorMacro(<< "cavr Volume: the input image is empty (no voxels); nothing to render");
  }
  if (parallel)
  {
    vtkNew<vtkImageData> empty;
    vtkNew<vtkGhostCellsGenerator> generator;
    generator->SetController(controller);
    generator->BuildIfRequiredOff();
    generator->SetNumberOfGhostLayers(GhostLevels);
    generator->SetInputData(input ? input : empty.GetPointer());
    generator->Update();
    ghosted = vtkImageData::SafeDownCast(generator->GetOutputDataObject(0));
    if (input && ghosted && ghosted->GetNumberOfPoints() > 0)
    {
      input->GetExtent(own); // the piece's own part: the extent before ghosts were added
    }
  }
  int ok = this->Superclass::RequestData(request, inputVector, outputVector);
  if (ok && ghosted && own[0] <= own[1])
  {
    // The superclass computed the bounds for ordered compositing from the piece's own extent; the mapper
    // gets the ghosted image and renders the own extent of it.
    this->Cache = ghosted;
  }
  else
  {
    own[0] = 0;
    own[1] = -1;
  }
  this->GetCavrMapper()->SetRenderExtent(own);
  return ok;
}

//------------------------------------------------------------------------------
int vtkCavrVolumeRepresentation::ProcessViewRequest(
  vtkInformationRequestKey* request_type, vtkInformation* inInfo, vtkInformation* outInfo)
{
  if (!this->Superclass::ProcessViewRequest(request_type, inInfo, outInfo))
  {
    return 0;
  }
  if (request_type == vtkPVView::REQUEST_UPDATE())
  {
    vtkCavrVolumeMapper* mapper = this->GetCavrMapper();
    vtkProcessModule* pm = vtkProcessModule::GetProcessModule();
    const bool ranks = pm && pm->GetNumberOfLocalPartitions() > 1;
    const int blend = mapper->GetCavrBlendMode();
    const bool extremum = (blend == 1 || blend == 2) && mapper->GetBlendMode() != vtkVolumeMapper::ISOSURFACE_BLEND;
    mapper->SetIntensityDepth(ranks && extremum);
    if (ranks && extremum)
    {
      outInfo->Set(vtkPVRenderView::NEED_ORDERED_COMPOSITING(), 0);
    }
  }
  return 1;
}

//------------------------------------------------------------------------------
vtkCavrVolumeMapper* vtkCavrVolumeRepresentation::GetCavrMapper()
{
  return vtkCavrVolumeMapper::SafeDownCast(this->VolumeMapper);
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeRepresentation::GetCavrBackEndInUse()
{
  const std::string used = this->GetCavrMapper()->GetLastBackendName();
  return used == "cuda" ? "CUDA" : used == "cpu" ? "CPU" : "";
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeRepresentation::GetCavrDeviceInUse()
{
  return this->GetCavrMapper()->GetLastDeviceName();
}

//------------------------------------------------------------------------------
double vtkCavrVolumeRepresentation::GetCavrLastRenderTime()
{
  return this->GetCavrMapper()->GetLastRenderTime();
}

//------------------------------------------------------------------------------
double vtkCavrVolumeRepresentation::GetCavrLastDrawTime()
{
  return this->GetCavrMapper()->GetLastDrawTime();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrBackEnd(int backend)
{
  this->GetCavrMapper()->SetBackend(backend);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrSampleDistance(double voxels)
{
  this->GetCavrMapper()->SetSampleDistance(voxels);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrEarlyRayTermination(double threshold)
{
  this->GetCavrMapper()->SetEarlyRayTermination(threshold);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrBlendMode(int mode)
{
  this->GetCavrMapper()->SetCavrBlendMode(mode);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrStrategy(int strategy)
{
  this->GetCavrMapper()->SetStrategy(strategy);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrSampleFraction(double fraction)
{
  this->GetCavrMapper()->SetSampleFraction(fraction);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrReconstruction(int method)
{
  this->GetCavrMapper()->SetReconstruction(method);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrCompressiveWhileInteracting(int enabled)
{
  this->GetCavrMapper()->SetCompressiveWhileInteracting(enabled != 0);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrCompressiveOnlyWherePays(int enabled)
{
  this->GetCavrMapper()->SetCompressiveOnlyWherePays(enabled != 0);
}

//------------------------------------------------------------------------------
int vtkCavrVolumeRepresentation::GetCavrCompressiveDecision()
{
  return this->GetCavrMapper()->GetLastCompressiveDecision();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrCubicInterpolation(int enabled)
{
  this->GetCavrMapper()->SetCubicInterpolation(enabled);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrSupersampling(int raysPerPixel)
{
  this->GetCavrMapper()->SetSupersampling(raysPerPixel);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrGpuIndex(int gpu)
{
  this->GetCavrMapper()->SetGpuIndex(gpu);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrJitterRayStarts(int enabled)
{
  this->GetCavrMapper()->SetJitterRayStarts(enabled != 0);
  this->Modified();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetCavrGradientOpacity(int enabled)
{
  this->GradientOpacityEnabled = enabled != 0;
  this->ApplyGradientOpacity();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::AddCavrGradientOpacityPoint(double magnitude, double opacity)
{
  const int n = this->GradientOpacityFunction->GetSize();
  double last[4] = { 0.0, 0.0, 0.0, 0.0 };
  if (n > 0)
  {
    this->GradientOpacityFunction->GetNodeValue(n - 1, last);
  }
  if (n == 0 || magnitude > last[0])
  {
    this->GradientOpacityFunction->AddPoint(magnitude, opacity);
  }
  this->ApplyGradientOpacity();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::RemoveAllCavrGradientOpacityPoints()
{
  this->GradientOpacityFunction->RemoveAllPoints();
  this->ApplyGradientOpacity();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::ApplyGradientOpacity()
{
  const bool on = this->GradientOpacityEnabled && this->GradientOpacityFunction->GetSize() > 0;
  if (on)
  {
    this->Property->SetGradientOpacity(0, this->GradientOpacityFunction);
  }
  this->Property->SetDisableGradientOpacity(0, on ? 0 : 1);
  this->Modified();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "CavrMapper: " << this->GetCavrMapper() << endl;
  os << indent << "GradientOpacityEnabled: " << this->GradientOpacityEnabled << endl;
  os << indent << "GradientOpacityFunction: " << this->GradientOpacityFunction.Get() << endl;
}

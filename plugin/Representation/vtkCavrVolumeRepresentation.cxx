// SPDX-License-Identifier: BSD-3-Clause
#include "vtkCavrVolumeRepresentation.h"

#include "vtkCavrVolumeMapper.h"
#include "vtkCommunicator.h"
#include "vtkAlgorithm.h"
#include "vtkDataObject.h"
#include "vtkDataSetAttributes.h"
#include "vtkExtentTranslator.h"
#include "vtkGhostCellsGenerator.h"
#include "vtkImageData.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkLogger.h"
#include "vtkMultiProcessController.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkPiecewiseFunction.h"
#include "vtkPVRenderView.h"
#include "vtkProcessModule.h"
#include "vtkSmartPointer.h"
#include "vtkStreamingDemandDrivenPipeline.h"
#include "vtkUnsignedCharArray.h"
#include "vtkVolumeProperty.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace
{
// How pieces get their ghost layers under MPI: from the pipeline (the default: the grown extent asked for where the
// producer makes sub-extents, else ghost levels), from vtkGhostCellsGenerator (CAVR_MPI_GHOSTS=generator), or not at
// all (CAVR_MPI_GHOSTS=none; lab timing only: seams).
enum class Ghosts
{
  Pipeline,
  Generator,
  None
};
Ghosts GhostsWay()
{
  const char* way = std::getenv("CAVR_MPI_GHOSTS");
  const std::string w = way ? way : "";
  return w == "generator" ? Ghosts::Generator : w == "none" ? Ghosts::None : Ghosts::Pipeline;
}

// Whether the producer of `algorithm`'s input (whose output information is `inInfo`) makes any sub-extent asked
// for (vtkAlgorithm::CAN_PRODUCE_SUB_EXTENT: image readers, Wavelet), looking through ParaView's vtkPVPostFilter,
// which every source's output port passes through and which forwards the request unchanged.
bool ProducesSubExtents(vtkAlgorithm* algorithm, vtkInformation* inInfo)
{
  auto says = [](vtkInformation* info) {
    return info && info->Has(vtkAlgorithm::CAN_PRODUCE_SUB_EXTENT()) &&
      info->Get(vtkAlgorithm::CAN_PRODUCE_SUB_EXTENT()) != 0;
  };
  if (says(inInfo))
  {
    return true;
  }
  vtkAlgorithm* producer =
    algorithm->GetNumberOfInputConnections(0) > 0 ? algorithm->GetInputAlgorithm(0, 0) : nullptr;
  return producer && producer->IsA("vtkPVPostFilter") && producer->GetNumberOfInputPorts() > 0 &&
    producer->GetNumberOfInputConnections(0) > 0 && says(producer->GetInputInformation(0, 0));
}

// Piece `piece` of `pieces` of the whole extent as VTK's executive splits it (vtkExtentTranslator, block mode) into
// `own`, and that grown by `layers` voxels along each axis, clipped to `whole`, into `grown` (both empty, x0 > x1,
// when the piece has no voxels).
void GrownPiece(int piece, int pieces, const int whole[6], int layers, int own[6], int grown[6])
{
  vtkNew<vtkExtentTranslator> translator;
  int wholeCopy[6];
  std::copy(whole, whole + 6, wholeCopy);
  if (!translator->PieceToExtentThreadSafe(piece, pieces, 0, wholeCopy, own, vtkExtentTranslator::BLOCK_MODE, 0))
  {
    own[0] = own[2] = own[4] = 0;
    own[1] = own[3] = own[5] = -1;
  }
  for (int a = 0; a < 3; ++a)
  {
    const bool empty = own[2 * a] > own[2 * a + 1];
    grown[2 * a] = empty ? own[2 * a] : std::max(own[2 * a] - layers, whole[2 * a]);
    grown[2 * a + 1] = empty ? own[2 * a + 1] : std::min(own[2 * a + 1] + layers, whole[2 * a + 1]);
  }
}

// Whether `ext` holds `own` grown by `layers` voxels along each axis, clipped to `whole`.
bool HoldsGrown(const int ext[6], const int own[6], const int whole[6], int layers)
{
  for (int a = 0; a < 3; ++a)
  {
    if (std::max(own[2 * a] - layers, whole[2 * a]) < ext[2 * a] ||
      std::min(own[2 * a + 1] + layers, whole[2 * a + 1]) > ext[2 * a + 1])
    {
      return false;
    }
  }
  return true;
}

// The piece's own point extent as its point ghost array marks it: the box of the points without the
// DUPLICATEPOINT flag (structured sources asked for ghost levels flag the points outside the piece's own extent,
// and so does vtkGhostCellsGenerator). False when there is no point ghost array or the unflagged points do not
// form that box.
bool GhostArrayOwnExtent(vtkImageData* image, int own[6])
{
  vtkUnsignedCharArray* ghosts = image->GetPointGhostArray();
  const vtkIdType n = image->GetNumberOfPoints();
  if (!ghosts || n == 0 || ghosts->GetNumberOfTuples() != n || ghosts->GetNumberOfComponents() != 1)
  {
    return false;
  }
  const unsigned char* flags = ghosts->GetPointer(0);
  const unsigned char duplicate = vtkDataSetAttributes::DUPLICATEPOINT;
  vtkIdType first = 0, last = n - 1;
  while (first < n && (flags[first] & duplicate))
  {
    ++first;
  }
  while (last > first && (flags[last] & duplicate))
  {
    --last;
  }
  if (first == n)
  {
    return false; // every point is a ghost: no own part
  }
  int ext[6], dims[3];
  image->GetExtent(ext);
  image->GetDimensions(dims);
  const vtkIdType ids[2] = { first, last };
  for (int c = 0; c < 2; ++c) // the first and last own points are the box's lower and upper corners
  {
    const vtkIdType id = ids[c];
    own[c] = ext[0] + static_cast<int>(id % dims[0]);
    own[2 + c] = ext[2] + static_cast<int>((id / dims[0]) % dims[1]);
    own[4 + c] = ext[4] + static_cast<int>(id / (static_cast<vtkIdType>(dims[0]) * dims[1]));
  }
  // Check the box: its corners are own points and the points just outside its faces (where the image has them)
  // are ghosts. Anything else (blanked or scattered flags) is not a piece grown by ghost layers.
  auto flagged = [&](int i, int j, int k) {
    return (flags[(i - ext[0]) + static_cast<vtkIdType>(dims[0]) *
                                   ((j - ext[2]) + static_cast<vtkIdType>(dims[1]) * (k - ext[4]))] &
             duplicate) != 0;
  };
  if (own[0] > own[1] || own[2] > own[3] || own[4] > own[5])
  {
    return false;
  }
  for (int c = 0; c < 8; ++c)
  {
    if (flagged(own[c & 1], own[2 + ((c >> 1) & 1)], own[4 + ((c >> 2) & 1)]))
    {
      return false;
    }
  }
  const int mid[3] = { (own[0] + own[1]) / 2, (own[2] + own[3]) / 2, (own[4] + own[5]) / 2 };
  for (int a = 0; a < 3; ++a)
  {
    for (int side = 0; side < 2; ++side)
    {
      const int outside = side ? own[2 * a + 1] + 1 : own[2 * a] - 1;
      if (outside < ext[2 * a] || outside > ext[2 * a + 1])
      {
        continue;
      }
      int ijk[3] = { mid[0], mid[1], mid[2] };
      ijk[a] = outside;
      if (!flagged(ijk[0], ijk[1], ijk[2]))
      {
        return false;
      }
    }
  }
  return true;
}
}

vtkStandardNewMacro(vtkCavrVolumeRepresentation);

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::vtkCavrVolumeRepresentation()
{
  this->VolumeMapper = vtkSmartPointer<vtkCavrVolumeMapper>::New();
}

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::~vtkCavrVolumeRepresentation() = default;

//------------------------------------------------------------------------------
int vtkCavrVolumeRepresentation::RequestUpdateExtent(
  vtkInformation* request, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  // The superclass asks for this process's piece with no ghost levels; with several pieces, ask for it grown by
  // GhostLevels layers (as one extent from a producer of sub-extents, else as ghost levels).
  if (!this->Superclass::RequestUpdateExtent(request, inputVector, outputVector))
  {
    return 0;
  }
  // CAVR_MPI_GHOSTS=generator asks for none: every piece then gets its layers from vtkGhostCellsGenerator (to
  // compare the ways); CAVR_MPI_GHOSTS=none asks for none and adds none (see RequestData).
  this->RequestedOwnExtent[0] = 0;
  this->RequestedOwnExtent[1] = -1;
  if (GhostsWay() != Ghosts::Pipeline)
  {
    return 1;
  }
  using sddp = vtkStreamingDemandDrivenPipeline;
  for (int port = 0; port < this->GetNumberOfInputPorts(); ++port)
  {
    for (int c = 0; c < inputVector[port]->GetNumberOfInformationObjects(); ++c)
    {
      vtkInformation* inInfo = inputVector[port]->GetInformationObject(c);
      const int pieces = inInfo->Has(sddp::UPDATE_NUMBER_OF_PIECES()) ? inInfo->Get(sddp::UPDATE_NUMBER_OF_PIECES()) : 1;
      if (pieces <= 1)
      {
        continue;
      }
      if (port == 0 && c == 0 && inInfo->Has(sddp::WHOLE_EXTENT()) &&
        ProducesSubExtents(this, inInfo))
      {
        // The piece's own extent as the executive would split the whole extent, grown by GhostLevels and clipped,
        // asked for as one extent: no ghost levels, so no ghost arrays.
        int whole[6], own[6], grown[6];
        inInfo->Get(sddp::WHOLE_EXTENT(), whole);
        const int piece = inInfo->Has(sddp::UPDATE_PIECE_NUMBER()) ? inInfo->Get(sddp::UPDATE_PIECE_NUMBER()) : 0;
        GrownPiece(piece, pieces, whole, GhostLevels, own, grown);
        inInfo->Set(sddp::UPDATE_EXTENT(), grown, 6);
        inInfo->Set(sddp::UPDATE_PIECE_NUMBER(), 0);
        inInfo->Set(sddp::UPDATE_NUMBER_OF_PIECES(), 1);
        inInfo->Set(sddp::UPDATE_NUMBER_OF_GHOST_LEVELS(), 0);
        std::copy(own, own + 6, this->RequestedOwnExtent);
        continue;
      }
      const int levels =
        inInfo->Has(sddp::UPDATE_NUMBER_OF_GHOST_LEVELS()) ? inInfo->Get(sddp::UPDATE_NUMBER_OF_GHOST_LEVELS()) : 0;
      inInfo->Set(sddp::UPDATE_NUMBER_OF_GHOST_LEVELS(), std::max(levels, static_cast<int>(GhostLevels)));
    }
  }
  return 1;
}

//------------------------------------------------------------------------------
int vtkCavrVolumeRepresentation::RequestData(
  vtkInformation* request, vtkInformationVector** inputVector, vtkInformationVector* outputVector)
{
  // With several ranks, the mapper gets every rank's piece grown by GhostLevels layers of its neighbours' voxels, so
  // that interpolation and shading gradients at the piece faces see the same voxels as in one process: no seam.
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
  // What the superclass sees: under MPI, an image of the piece's own extent without voxels (its bounds are those
  // used for ordered compositing), so that it neither copies nor crops the voxels.
  vtkInformationVector** superInputs = inputVector;
  vtkNew<vtkInformationVector> frameInputs;
  vtkInformationVector* frameInputsPort[1] = { frameInputs.GetPointer() };
  if (parallel)
  {
    // The piece's own extent: the one asked for (RequestUpdateExtent) when the input holds it grown by GhostLevels
    // (clipped to the whole extent), else the part its ghost array leaves unflagged, else the whole piece (which is
    // also the part rendered when vtkGhostCellsGenerator adds the layers). The ghost layers came with it when it
    // holds that extent grown by GhostLevels.
    bool layersArrived = true, asked = false;
    const bool hasPiece = input && input->GetNumberOfPoints() > 0;
    if (hasPiece)
    {
      int ext[6], whole[6];
      input->GetExtent(ext);
      vtkInformation* inInfo = inputVector[0]->GetInformationObject(0);
      if (inInfo->Has(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT()))
      {
        inInfo->Get(vtkStreamingDemandDrivenPipeline::WHOLE_EXTENT(), whole);
      }
      else
      {
        std::copy(ext, ext + 6, whole);
      }
      const int* requested = this->RequestedOwnExtent;
      asked = requested[0] <= requested[1] && requested[2] <= requested[3] && requested[4] <= requested[5] &&
        HoldsGrown(ext, requested, whole, GhostLevels);
      if (asked)
      {
        std::copy(requested, requested + 6, own);
      }
      else if (!GhostArrayOwnExtent(input, own))
      {
        std::copy(ext, ext + 6, own);
      }
      layersArrived = HoldsGrown(ext, own, whole, GhostLevels);
    }
    // vtkGhostCellsGenerator is collective: every rank runs it when any rank's piece lacks its layers.
    // CAVR_MPI_GHOSTS=none renders the pieces without ghost layers (seams at the piece faces, where interpolation
    // and gradients see one side only): for timing big volumes in a build whose ghost flags are slow (Debian's
    // -O0 ParaView flags a 2048^3 volume's pieces for minutes).
    int lacking = layersArrived || GhostsWay() == Ghosts::None ? 0 : 1, anyLacking = lacking;
    controller->AllReduce(&lacking, &anyLacking, 1, vtkCommunicator::MAX_OP);
    if (anyLacking)
    {
      vtkNew<vtkImageData> empty;
      vtkNew<vtkGhostCellsGenerator> generator;
      generator->SetController(controller);
      generator->BuildIfRequiredOff();
      generator->SetNumberOfGhostLayers(GhostLevels);
      generator->SetInputData(input ? input : empty.GetPointer());
      generator->Update();
      ghosted = vtkImageData::SafeDownCast(generator->GetOutputDataObject(0));
      vtkVLogF(vtkLogger::VERBOSITY_INFO,
        "cavr Volume: %s ghost layers added by vtkGhostCellsGenerator (the pipeline did not deliver them%s)",
        hasPiece ? "piece's" : "empty piece:", lacking ? " to this rank" : " to every rank");
    }
    else if (hasPiece)
    {
      // The ghost layers arrived with the piece: render it as it is (a shallow copy, for the view to deliver).
      ghosted = vtkSmartPointer<vtkImageData>::Take(input->NewInstance());
      ghosted->ShallowCopy(input);
      const int* ext = input->GetExtent();
      vtkVLogF(vtkLogger::VERBOSITY_INFO,
        "cavr Volume: piece %d %d %d %d %d %d with ghost layers from the pipeline (%s; ghost arrays: %s), own extent "
        "%d %d %d %d %d %d",
        ext[0], ext[1], ext[2], ext[3], ext[4], ext[5], asked ? "the grown extent asked for" : "ghost levels asked for",
        input->GetPointGhostArray() || input->GetCellGhostArray() ? "yes" : "none", own[0], own[1], own[2], own[3],
        own[4], own[5]);
    }
    if (hasPiece && ghosted && ghosted->GetNumberOfPoints() > 0 && own[0] <= own[1])
    {
      vtkSmartPointer<vtkImageData> frame = vtkSmartPointer<vtkImageData>::Take(input->NewInstance());
      frame->SetExtent(own);
      frame->SetOrigin(input->GetOrigin());
      frame->SetSpacing(input->GetSpacing());
      frame->SetDirectionMatrix(input->GetDirectionMatrix());
      vtkNew<vtkInformation> frameInfo;
      frameInfo->Copy(inputVector[0]->GetInformationObject(0));
      frameInfo->Set(vtkDataObject::DATA_OBJECT(), frame);
      frameInputs->Append(frameInfo);
      superInputs = frameInputsPort;
    }
  }
  int ok = this->Superclass::RequestData(request, superInputs, outputVector);
  if (ok && ghosted && ghosted->GetNumberOfPoints() > 0 && own[0] <= own[1])
  {
    // The superclass computed the bounds for ordered compositing from the piece's own extent; the mapper
    // gets the ghosted image and renders the own extent of it.
    this->Cache = ghosted;
    this->DataSize = ghosted->GetActualMemorySize();
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
void vtkCavrVolumeRepresentation::UpdateMapperParameters()
{
  this->Superclass::UpdateMapperParameters();
  const bool secondArray = this->UseTransfer2D && !this->UseGradientForTransfer2D && !this->ColorArray2Name.empty();
  this->GetCavrMapper()->SetTransfer2DYAxisArray(secondArray ? this->ColorArray2Name.c_str() : nullptr);
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
void vtkCavrVolumeRepresentation::SetVolumetricScatteringBlending(float blending)
{
  this->GetCavrMapper()->SetVolumetricScatteringBlending(blending);
  this->Modified();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeRepresentation::SetGlobalIlluminationReach(float reach)
{
  this->GetCavrMapper()->SetGlobalIlluminationReach(reach);
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

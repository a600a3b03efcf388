#include "vtkCavrVolumeRepresentation.h"

#include "vtkCavrVolumeMapper.h"
#include "vtkObjectFactory.h"

vtkStandardNewMacro(vtkCavrVolumeRepresentation);

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::vtkCavrVolumeRepresentation()
{
  this->VolumeMapper = vtkSmartPointer<vtkCavrVolumeMapper>::New();
}

//------------------------------------------------------------------------------
vtkCavrVolumeRepresentation::~vtkCavrVolumeRepresentation() = default;

//------------------------------------------------------------------------------
vtkCavrVolumeMapper* vtkCavrVolumeRepresentation::GetCavrMapper()
{
  return vtkCavrVolumeMapper::SafeDownCast(this->VolumeMapper);
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
void vtkCavrVolumeRepresentation::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "CavrMapper: " << this->GetCavrMapper() << endl;
}

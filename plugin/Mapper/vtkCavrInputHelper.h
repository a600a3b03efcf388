// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkCavrInputHelper
 * @brief   vtkCavrVolumeMapper's input as a cavr volume: the selected array of a vtkImageData piece (point or cell
 *          data; a vector array's magnitude or one component), its geometry and the piece's own extent inside its
 *          ghost layers, uploaded when any of them changes.
 *
 * Internal to the cavr::Mapper module (a private header: not installed, not wrapped), as vtkVolumeInputHelper is to
 * VTK's GPU ray caster. One per mapper, used on the render thread; the cavr volume it fills belongs to the mapper.
 */
#ifndef vtkCavrInputHelper_h
#define vtkCavrInputHelper_h

#include "cavr/cavr.h"

#include "vtkDataArray.h"    // for vtkSmartPointer<vtkDataArray>
#include "vtkSmartPointer.h" // for the shared arrays

#include <string> // for std::string
#include <vector> // for std::vector

class vtkCavrVolumeMapper;
class vtkImageData;
class vtkVolume;

class vtkCavrInputHelper
{
public:
  /** What Update did. */
  struct Status
  {
    bool Ready = false;   // the volume holds the input's current array (a good frame of the current input)
    bool NewData = false; // the input changed since the last Update: its problem is reported even if it reads as the
                          // last one did
    std::string Problem;  // why the input cannot be rendered ("" when Ready, or when already reported)
  };

  /**
   * Bring `volume` (on `device`) up to date with the mapper's input: the scalar array it selects (ScalarMode,
   * ArrayAccessMode, ArrayId, ArrayName), as the voxels (x fastest) of the piece, their spacing and the world position
   * of the first voxel (cell centres for cell data), and the part to render (the mapper's RenderExtent, in global
   * point indices; the rest are ghost voxels). A vector array gives its magnitude or one component (the colour
   * map's vector mode on `vol`'s property), as float; with the property's independent components off, a 2- or
   * 4-component array goes as it is to cavrSetVolumeComponentData (Dependent). Uploads only when the array, its contents, the geometry or the
   * vector choice changed (a one-component array shared, not copied: cavrSetVolumeSharedData); the render extent
   * alone is committed on its own. When the input cannot be rendered (no
   * image, no array, RGB colours, an unsupported type, fewer than 2 voxels along an axis, a commit the core refuses),
   * Problem says why and the last good volume stays (HasVolume). Warns through `mapper` about a direction matrix,
   * which is ignored.
   */
  Status Update(vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRDevice device, CAVRVolume volume);

  /** Dependent components of the uploaded volume (cavrSetVolumeComponentData): 2 or 4, else 1. */
  int GetComponents() const { return this->Components; }

  /** A volume was committed: the last good one renders while the input is bad. */
  bool HasVolume() const { return this->HaveVolume; }

  /** Forget the uploaded volume (its device is released): the next Update uploads again. */
  void Reset();

private:
  /** The voxels of the piece: their number per axis (`dims`, may be < 2), spacing (world units, positive), the world
      position of the first (cell centres for cell data) and the part to render (`local`, this piece's voxel indices,
      empty for the whole piece) from the mapper's RenderExtent (global point indices; point data only). */
  static void Geometry(vtkCavrVolumeMapper* mapper, vtkImageData* image, int cellFlag, int dims[3], double spacing[3],
    double first[3], int local[6]);

  /** Dependent components (vtkVolumeProperty::IndependentComponents off: ParaView's Map Scalars off or Multi
      Components Mapping on) as VTK's GPU ray caster classifies them: `components` (2 or 4) in the composite blend
      mode; 0 otherwise (independent components, or another count or blend mode, which then renders the colour map's
      magnitude or component, warned about once through `mapper`). */
  int Dependent(vtkCavrVolumeMapper* mapper, vtkVolume* vol, vtkDataArray* scalars, int components);

  /** The cavr scalar type of `scalars` (float for a vector array), or false (with *problem) when unsupported. */
  static bool ScalarType(vtkDataArray* scalars, int components, CAVRScalarType* type, std::string* problem);

  /** Upload the voxels (dims, `type`) of `scalars` (or its magnitude/component into Derived), with `spacing`, `first`
      and, for the whole volume, the render extent, in one commit; false with *problem when refused. A one-component
      array is shared with cavr (cavrSetVolumeSharedData: no host copy), and held (StagedArray, CommittedArray). */
  bool Upload(vtkDataArray* scalars, CAVRScalarType type, const int dims[3], const double spacing[3],
    const double first[3], const int local[6], CAVRDevice device, CAVRVolume volume, std::string* problem);

  std::vector<unsigned long long> VolumeKey; // identifies the uploaded array and its modification time
  bool VolumeReady = false;                  // the input's current array is uploaded
  bool HaveVolume = false; // a volume was committed (the last good one renders while the input is bad)
  bool RenderExtentSet = false;
  int RenderExtent[6] = { 0, -1, 0, -1, 0, -1 };
  int VectorMode = -1;     // the vector array's vtkScalarsToColors mode (-1: one component), for Upload
  int VectorComponent = 0; // and the component it picks
  std::vector<float> Derived; // the magnitude or one component of a vector array, uploaded as float
  vtkSmartPointer<vtkDataArray> StagedArray;    // shared with the cavr volume, staged and not yet committed
  vtkSmartPointer<vtkDataArray> CommittedArray; // shared with the cavr volume, committed (read by CPU renders)
  int Components = 1;         // dependent components of the uploaded volume (2, 4), else 1
  bool DependentWarned = false; // the fallback from dependent components was warned about
};

#endif

// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrPropertyTranslator: vtkCavrVolumeMapper's scene as cavr objects (see the header).
#include "vtkCavrPropertyTranslator.h"

#include "vtkCavrDeviceError.h"
#include "vtkCavrVolumeMapper.h"

#include "vtkCamera.h"
#include "vtkColorTransferFunction.h"
#include "vtkContourValues.h"
#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkLight.h"
#include "vtkLightCollection.h"
#include "vtkMatrix4x4.h"
#include "vtkNew.h"
#include "vtkPiecewiseFunction.h"
#include "vtkPlane.h"
#include "vtkPointData.h"
#include "vtkRenderWindow.h"
#include "vtkRenderer.h"
#include "vtkVolume.h"
#include "vtkVersionMacros.h"
#include "vtkVolumeProperty.h"

#include <algorithm>
#include <cmath>
#include <ios>

namespace
{
// The renderer's lights that are on, for cavrSetRenderLights (at most CAVR_MAX_LIGHTS; later ones are dropped
// with the count of them in *dropped): headlights and camera lights (ParaView's light kit) in their own frames,
// scene lights moved from world to the volume's data space (the inverse of the volume's matrix), as
// vtkEncodedGradientShader takes them. With no light on, one light of intensity 0, as VTK's ray casters add then
// (ambient 0: a black volume).
int GatherLights(vtkRenderer* ren, vtkVolume* vol, CAVRLight* out, int* dropped)
{
  int n = 0;
  *dropped = 0;
  vtkNew<vtkMatrix4x4> worldToData;
  vtkMatrix4x4::Invert(vol->GetMatrix(), worldToData);
  vtkLightCollection* lights = ren->GetLights();
  vtkCollectionSimpleIterator it;
  lights->InitTraversal(it);
  while (vtkLight* light = lights->GetNextLight(it))
  {
    if (!light->GetSwitch())
    {
      continue;
    }
    if (n == CAVR_MAX_LIGHTS)
    {
      ++*dropped;
      continue;
    }
    CAVRLight& l = out[n++];
    l.kind = light->LightTypeIsHeadlight() ? CAVR_LIGHT_HEADLIGHT
      : light->LightTypeIsCameraLight()    ? CAVR_LIGHT_CAMERA
                                           : CAVR_LIGHT_SCENE;
    l.positional = light->GetPositional();
    light->GetPosition(l.position);
    light->GetFocalPoint(l.focalPoint);
    if (l.kind == CAVR_LIGHT_SCENE)
    {
      double p[4] = { l.position[0], l.position[1], l.position[2], 1.0 };
      double f[4] = { l.focalPoint[0], l.focalPoint[1], l.focalPoint[2], 1.0 };
      worldToData->MultiplyPoint(p, p);
      worldToData->MultiplyPoint(f, f);
      for (int a = 0; a < 3; ++a)
      {
        l.position[a] = p[a] / p[3];
        l.focalPoint[a] = f[a] / f[3];
      }
    }
    light->GetAmbientColor(l.ambientColor);
    light->GetDiffuseColor(l.diffuseColor);
    light->GetSpecularColor(l.specularColor);
    l.intensity = std::max(0.0, light->GetIntensity());
  }
  if (n == 0)
  {
    out[0] = CAVRLight{ CAVR_LIGHT_HEADLIGHT, 0, { 0, 0, 1 }, { 0, 0, 0 }, { 0, 0, 0 }, { 1, 1, 1 }, { 1, 1, 1 }, 0.0 };
    n = 1;
  }
  return n;
}

// vtkVolumeMapper::SpacingAdjustedSampleDistance (protected there): half the mean spacing, times
// 0.01 + 0.99 n / 100 where the cube root n of the extent's cells is below 100.
double SpacingAdjustedSampleDistance(const double spacing[3], const int extent[6])
{
  double dist = (spacing[0] + spacing[1] + spacing[2]) / 6.0;
  const double n = std::pow(static_cast<double>(extent[1] - extent[0]) * (extent[3] - extent[2]) *
      (extent[5] - extent[4]),
    0.333);
  if (n < 100)
  {
    dist *= 0.01 + (1 - 0.01) * n / 100;
  }
  return dist;
}

// VTK matrices are row-major (Element[row][col]); cavr takes column-major.
void ToColumnMajor(vtkMatrix4x4* m, double out[16])
{
  for (int r = 0; r < 4; ++r)
  {
    for (int c = 0; c < 4; ++c)
    {
      out[c * 4 + r] = m->GetElement(r, c);
    }
  }
}

// The table's range (scalar units) and the colour's: the colour and opacity functions' joint range for both; for
// dependent components (cavrSetVolumeComponentData), where colour and opacity read different components, the opacity
// function's range and the colour function's (each sampled over its own, as VTK's GPU ray caster builds each
// component's table over that component's range; returns true). An empty range is widened by 0.5 on each side.
bool TableRanges(
  vtkColorTransferFunction* ctf, vtkPiecewiseFunction* otf, int components, double range[2], double crange[2])
{
  double orange[2];
  ctf->GetRange(range);
  otf->GetRange(orange);
  crange[0] = range[0];
  crange[1] = range[1];
  const bool separate = components > 1 && orange[0] < orange[1];
  if (separate)
  {
    range[0] = orange[0];
    range[1] = orange[1];
  }
  else if (orange[0] < orange[1])
  {
    range[0] = range[0] < range[1] ? std::min(range[0], orange[0]) : orange[0];
    range[1] = range[0] < range[1] ? std::max(range[1], orange[1]) : orange[1];
  }
  for (double* r : { range, crange })
  {
    if (!(r[0] < r[1]))
    {
      r[0] -= 0.5;
      r[1] += 0.5;
    }
  }
  return separate;
}
}

//------------------------------------------------------------------------------
CAVRError vtkCavrPropertyTranslator::UpdateTransferFunction(
  vtkVolumeProperty* property, CAVRTransferFunction function, int components)
{
  vtkColorTransferFunction* ctf = property->GetRGBTransferFunction(0);
  vtkPiecewiseFunction* otf = property->GetScalarOpacity(0);
  vtkMTimeType tableTime = std::max(ctf->GetMTime(), otf->GetMTime());
  if (tableTime == this->TableTime && components == this->TableComponents)
  {
    return CAVR_ERROR_NONE;
  }
  double range[2], crange[2];
  const bool separate = TableRanges(ctf, otf, components, range, crange);
  std::vector<float> rgb(3 * TableSize), alpha(TableSize);
  if (separate)
  {
    ctf->GetTable(crange[0], crange[1], TableSize, rgb.data());
  }
  else
  {
    ctf->GetTable(range[0], range[1], TableSize, rgb.data());
  }
  otf->GetTable(range[0], range[1], TableSize, alpha.data());
  this->Table.resize(4 * TableSize);
  for (int i = 0; i < TableSize; ++i)
  {
    for (int c = 0; c < 3; ++c)
    {
      this->Table[4 * i + c] = std::min(std::max(rgb[3 * i + c], 0.0f), 1.0f);
    }
    this->Table[4 * i + 3] = std::min(std::max(alpha[i], 0.0f), 1.0f);
  }
  this->TableRange[0] = range[0];
  this->TableRange[1] = range[1];
  CAVRError e = cavrSetTransferFunctionTable(function, this->Table.data(), TableSize, range[0], range[1]);
  if (e == CAVR_ERROR_NONE)
  {
    e = separate ? cavrSetTransferFunctionColorRange(function, crange[0], crange[1])
                 : cavrSetTransferFunctionColorRange(function, 0.0, 0.0);
  }
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitTransferFunction(function);
  }
  if (e != CAVR_ERROR_NONE)
  {
    return e;
  }
  this->TableTime = tableTime;
  this->TableComponents = components;
  return CAVR_ERROR_NONE;
}

//------------------------------------------------------------------------------
namespace
{
// The (magnitude, opacity) pairs of a gradient-opacity function for cavrSetTransferFunctionGradientOpacity: its nodes
// when there are at most CAVR_MAX_GRADIENT_OPACITY_POINTS of them, at magnitudes >= 0, joined linearly (midpoint 0.5,
// sharpness 0); else the function sampled at that many points over its range from magnitude 0 up. Opacities clamped to
// [0, 1]; none for a null function.
std::vector<double> GradientOpacityPoints(vtkPiecewiseFunction* go)
{
  std::vector<double> points;
  const int n = go ? go->GetSize() : 0;
  bool asNodes = n <= CAVR_MAX_GRADIENT_OPACITY_POINTS;
  for (int i = 0; i < n && asNodes; ++i)
  {
    double node[4]; // x, y, midpoint, sharpness
    go->GetNodeValue(i, node);
    asNodes = node[0] >= 0.0 && node[2] == 0.5 && node[3] == 0.0;
    points.push_back(node[0]);
    points.push_back(std::min(std::max(node[1], 0.0), 1.0));
  }
  if (asNodes)
  {
    return points;
  }
  double range[2];
  go->GetRange(range);
  const double lo = std::max(range[0], 0.0), hi = std::max(range[1], lo);
  const int m = hi > lo ? CAVR_MAX_GRADIENT_OPACITY_POINTS : 1;
  points.clear();
  for (int i = 0; i < m; ++i)
  {
    const double x = m > 1 ? lo + (hi - lo) * i / (m - 1) : lo;
    points.push_back(x);
    points.push_back(std::min(std::max(go->GetValue(x), 0.0), 1.0));
  }
  return points;
}
}

//------------------------------------------------------------------------------
CAVRError vtkCavrPropertyTranslator::UpdateGradientOpacity(
  vtkVolumeProperty* property, CAVRTransferFunction function)
{
  vtkPiecewiseFunction* go = (property->HasGradientOpacity(0) && !property->GetDisableGradientOpacity(0))
    ? property->GetStoredGradientOpacity(0)
    : nullptr;
  std::vector<double> points = GradientOpacityPoints(go);
  // A function that is 1 everywhere (VTK's default one, which GetGradientOpacity creates on first call) changes no
  // pixel: none, which spares the gradient's samples.
  bool allOne = true;
  for (size_t i = 1; i < points.size(); i += 2)
  {
    allOne = allOne && points[i] == 1.0;
  }
  if (allOne)
  {
    points.clear();
  }
  if (points == this->GradientOpacity)
  {
    return CAVR_ERROR_NONE;
  }
  const int count = static_cast<int>(points.size() / 2);
  CAVRError e = cavrSetTransferFunctionGradientOpacity(function, count ? points.data() : nullptr, count);
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitTransferFunction(function);
  }
  if (e != CAVR_ERROR_NONE)
  {
    return e;
  }
  this->GradientOpacity = points;
  return CAVR_ERROR_NONE;
}

//------------------------------------------------------------------------------
namespace
{
// What VTK's GPU ray caster makes of a volume property's 2-D transfer function on `input` (vtkVolumeShaderComposer.h,
// ComputeRGBA2DWithGradient; vtkVolumeInputHelper::UpdateTransferFunction2D): the RGBA image's texels span texture
// coordinates x = (scalar - min) / (max - min) over the data's range and y = |gradient| mean spacing / (0.25 (max -
// min)), each [0, 1] (texel centres at (i + 0.5) / n; a constant volume counts a range of 1), and its opacity is per
// sample at the sample distance of a still render under vtkSmartVolumeMapper (ParaView's "Volume"):
// LockSampleDistanceToInputSpacing, SpacingAdjustedSampleDistance of the input's spacing and extent.
struct Table2D
{
  vtkImageData* Image = nullptr; // null: no usable 2-D table (1-D mode)
  vtkDataArray* RGBA = nullptr;
  int Dims[3] = { 0, 0, 0 };
  double Range[2] = { 0.0, 1.0 }; // the data's range (scalar units): x
  double GradientMax = 1.0;       // the gradient magnitude at y = 1, scalar units per world unit
  double Unit = 0.0;              // the GPU ray caster's sample distance (world units)
};

Table2D Table2DOf(vtkVolumeProperty* property, vtkImageData* input, CAVRVolume volume)
{
  Table2D t;
  vtkImageData* image =
    property->GetTransferFunctionMode() == vtkVolumeProperty::TF_2D ? property->GetTransferFunction2D(0) : nullptr;
  t.RGBA = image ? image->GetPointData()->GetScalars() : nullptr;
  if (image)
  {
    image->GetDimensions(t.Dims);
  }
  if (!t.RGBA || t.RGBA->GetNumberOfComponents() != 4 || t.Dims[0] < 2 || t.Dims[1] < 2 || !input ||
    cavrGetVolumeRange(volume, t.Range) != CAVR_ERROR_NONE)
  {
    return Table2D();
  }
  t.Image = image;
  double spacing[3];
  int extent[6];
  input->GetSpacing(spacing);
  input->GetExtent(extent);
  const double mean = (std::abs(spacing[0]) + std::abs(spacing[1]) + std::abs(spacing[2])) / 3.0;
  if (!(t.Range[1] > t.Range[0]))
  {
    t.Range[1] = t.Range[0] + 1.0;
  }
  t.GradientMax = 0.25 * (t.Range[1] - t.Range[0]) / (mean > 0.0 ? mean : 1.0);
  t.Unit = SpacingAdjustedSampleDistance(spacing, extent);
  if (!(t.Unit > 0.0))
  {
    t.Unit = mean > 0.0 ? 0.5 * mean : 1.0;
  }
  return t;
}

// The 2-D table into `function` (cavrSetTransferFunction2D; its entries clamped to [0, 1], NaN to 0; the texture's
// texel-centred ranges turned into cavr's entry-centred ones) and committed; none when t has no image.
CAVRError Commit2D(const Table2D& t, CAVRTransferFunction function)
{
  CAVRError e = CAVR_ERROR_NONE;
  if (!t.Image)
  {
    e = cavrSetTransferFunction2D(function, nullptr, 0, 0, 0.0, 0.0, 0.0, 0.0);
  }
  else
  {
    const vtkIdType n = static_cast<vtkIdType>(t.Dims[0]) * t.Dims[1];
    std::vector<float> table(4 * n);
    for (vtkIdType i = 0; i < n; ++i)
    {
      for (int c = 0; c < 4; ++c)
      {
        const double v = t.RGBA->GetComponent(i, c);
        table[4 * i + c] = static_cast<float>(v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0);
      }
    }
    const double hx = 0.5 * (t.Range[1] - t.Range[0]) / t.Dims[0], hy = 0.5 * t.GradientMax / t.Dims[1];
    e = cavrSetTransferFunction2D(function, table.data(), t.Dims[0], t.Dims[1], t.Range[0] + hx, t.Range[1] - hx,
      hy, t.GradientMax - hy);
  }
  return e == CAVR_ERROR_NONE ? cavrCommitTransferFunction(function) : e;
}
}

//------------------------------------------------------------------------------
CAVRError vtkCavrPropertyTranslator::UpdateTransferFunction2D(
  vtkCavrVolumeMapper* mapper, vtkVolumeProperty* property, CAVRVolume volume, CAVRTransferFunction function)
{
  const Table2D t = Table2DOf(property, vtkImageData::SafeDownCast(mapper->GetInput()), volume);
  if (t.Image && mapper->GetTransfer2DYAxisArray()[0] && !this->Table2DArrayWarned)
  {
    vtkWarningWithObjectMacro(mapper, << "cavr Volume: a 2-D transfer function over a second array (\""
                                      << mapper->GetTransfer2DYAxisArray()
                                      << "\") is not supported; its second axis is the gradient magnitude");
    this->Table2DArrayWarned = true;
  }
  this->Table2DUnit = t.Unit; // UpdateSettings' unit distance while the 2-D table is on
  std::vector<double> key;
  if (t.Image)
  {
    key = { static_cast<double>(t.Image->GetMTime()), static_cast<double>(t.RGBA->GetMTime()),
      static_cast<double>(t.Dims[0]), static_cast<double>(t.Dims[1]), t.Range[0], t.Range[1], t.GradientMax };
  }
  if (key == this->Table2DKey)
  {
    return CAVR_ERROR_NONE;
  }
  const CAVRError e = Commit2D(t, function);
  if (e == CAVR_ERROR_NONE)
  {
    this->Table2DKey = key;
  }
  return e;
}

//------------------------------------------------------------------------------
CAVRError vtkCavrPropertyTranslator::UpdateRamp(CAVRTransferFunction ramp)
{
  if (this->ValueRange[0] == this->TableRange[0] && this->ValueRange[1] == this->TableRange[1])
  {
    return CAVR_ERROR_NONE;
  }
  std::vector<float> table(4 * TableSize);
  for (int i = 0; i < TableSize; ++i)
  {
    const float u = static_cast<float>(i) / (TableSize - 1);
    table[4 * i] = table[4 * i + 1] = table[4 * i + 2] = u;
    table[4 * i + 3] = 1.0f;
  }
  CAVRError e = cavrSetTransferFunctionTable(ramp, table.data(), TableSize, this->TableRange[0], this->TableRange[1]);
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitTransferFunction(ramp);
  }
  if (e != CAVR_ERROR_NONE)
  {
    return e;
  }
  std::copy(this->TableRange, this->TableRange + 2, this->ValueRange);
  return CAVR_ERROR_NONE;
}

//------------------------------------------------------------------------------
CAVRBlendMode vtkCavrPropertyTranslator::UpdateSettings(vtkCavrVolumeMapper* mapper, vtkRenderer* ren,
  vtkVolume* vol, CAVRDevice device, CAVRRenderSettings settings, std::string* problem)
{
  vtkVolumeProperty* prop = vol->GetProperty();
  // Dependent components: the unit distance of the opacity component, as VTK's GPU ray caster takes it
  // (vtkVolumeInputHelper::UpdateOpacityTransferFunction with component numComp - 1); ParaView sets component 0's only,
  // so its "Volume" renders such data with VTK's default of 1 there.
  double unit = prop->GetScalarOpacityUnitDistance(this->TableComponents > 1 ? this->TableComponents - 1 : 0);
  cavrSetRenderSampleDistance(settings, mapper->GetSampleDistance());
  cavrSetRenderEarlyTermination(settings, mapper->GetEarlyRayTermination());
  if (this->Table2DUnit > 0.0)
  {
    unit = this->Table2DUnit; // the 2-D table's opacity: VTK's per sample at the smallest spacing (above)
  }
  cavrSetRenderOpacityCorrection(settings, 1, unit > 0.0 ? unit : 1.0);
  const CAVRBlendMode blend = this->BlendMode(mapper, vol, settings);
  cavrSetRenderBlendMode(settings, blend);
  cavrSetRenderInterpolation(settings,
    prop->GetInterpolationType() == VTK_NEAREST_INTERPOLATION ? CAVR_INTERPOLATION_NEAREST
      : mapper->GetCubicInterpolation()                       ? CAVR_INTERPOLATION_CUBIC
                                                              : CAVR_INTERPOLATION_TRILINEAR);
  const int supersampling = mapper->GetSupersampling();
  if (cavrSetRenderSupersampling(settings, supersampling) != CAVR_ERROR_NONE)
  {
    if (this->SupersamplingWarned != supersampling)
    {
      vtkWarningWithObjectMacro(mapper, << "cavr Volume: super-sampling with " << supersampling
                                        << " rays per pixel is not supported (1, 4, 5, 9 or 16); rendering with 1");
      this->SupersamplingWarned = supersampling;
    }
    cavrSetRenderSupersampling(settings, 1);
  }
  cavrSetRenderJitter(settings, mapper->GetJitterRayStarts() ? 1 : 0);
  cavrSetRenderShading(settings, prop->GetShade(0), std::max(0.0, prop->GetAmbient(0)),
    std::max(0.0, prop->GetDiffuse(0)), std::max(0.0, prop->GetSpecular(0)),
    std::max(1e-3, prop->GetSpecularPower(0)));
  this->Lights(mapper, ren, vol, settings);
  // Volumetric scattering: the mapper's blending and reach, the property's anisotropy (VTK >= 9.2 has it; 9.1 does not).
  double anisotropy = 0.0;
#if VTK_VERSION_NUMBER >= VTK_VERSION_CHECK(9, 2, 0)
  anisotropy = std::min(1.0, std::max(-1.0, static_cast<double>(prop->GetScatteringAnisotropy())));
#endif
  cavrSetRenderScattering(settings, mapper->GetVolumetricScatteringBlending(), mapper->GetGlobalIlluminationReach(),
    anisotropy);
  const int strategy = mapper->GetStrategy();
  cavrSetRenderStrategy(
    settings, static_cast<CAVRStrategy>(strategy), strategy == 1 ? CAVR_SHAPING_ALL : 0u, strategy == 2);
  // Compressive rendering for every render, or only for interactive ones (the window's desired update rate at or
  // above InteractiveUpdateRate, as vtkSmartVolumeMapper decides).
  const bool interactive = ren->GetRenderWindow() &&
    ren->GetRenderWindow()->GetDesiredUpdateRate() >= mapper->GetInteractiveUpdateRate();
  const double fraction =
    (mapper->GetCompressiveWhileInteracting() && !interactive) ? 1.0 : mapper->GetSampleFraction();
  cavrSetRenderCompressive(settings, fraction,
    mapper->GetReconstruction() == 0 ? CAVR_RECONSTRUCTION_GLOBAL : CAVR_RECONSTRUCTION_LOCAL,
    mapper->GetReconstruction() == 2);
  // ... and only where it pays (the core's cost model), unless the mapper asks for it always.
  cavrSetRenderCompressiveMode(
    settings, mapper->GetCompressiveOnlyWherePays() ? CAVR_COMPRESSIVE_AUTO : CAVR_COMPRESSIVE_ALWAYS);
  this->Cropping(mapper, device, settings, problem);
  cavrCommitRenderSettings(settings);
  return blend;
}

//------------------------------------------------------------------------------
CAVRBlendMode vtkCavrPropertyTranslator::BlendMode(
  vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRRenderSettings settings)
{
  // ParaView's own Blend Mode "Isosurface" (vtkVolumeMapper::ISOSURFACE_BLEND) with the volume property's
  // "Isosurface Values" selects cavr's isosurface mode (the first CAVR_MAX_ISO_VALUES values); ParaView's Blend Mode
  // "Slice" (SLICE_BLEND) with the volume property's slice plane selects cavr's slice mode; otherwise cavr's own
  // blend mode property applies.
  vtkContourValues* isoValues = vol->GetProperty()->GetIsoSurfaceValues();
  if (mapper->GetBlendMode() == vtkVolumeMapper::ISOSURFACE_BLEND && isoValues &&
    isoValues->GetNumberOfContours() > 0)
  {
    double values[CAVR_MAX_ISO_VALUES];
    const int n = std::min(isoValues->GetNumberOfContours(), CAVR_MAX_ISO_VALUES);
    for (int i = 0; i < n; ++i)
    {
      values[i] = isoValues->GetValue(i);
    }
    if (cavrSetRenderIsoValues(settings, n, values) == CAVR_ERROR_NONE)
    {
      return CAVR_BLEND_ISOSURFACE;
    }
  }
  else if (mapper->GetBlendMode() == vtkVolumeMapper::SLICE_BLEND && this->SlicePlane(mapper, vol, settings))
  {
    return CAVR_BLEND_SLICE;
  }
  return static_cast<CAVRBlendMode>(mapper->GetCavrBlendMode());
}

//------------------------------------------------------------------------------
bool vtkCavrPropertyTranslator::SlicePlane(vtkCavrVolumeMapper* mapper, vtkVolume* vol, CAVRRenderSettings settings)
{
  // The slice function, a vtkPlane in world coordinates, as VTK's GPU ray caster draws it: the plane goes into the
  // volume's own coordinates (cavr's world: the camera carries the volume's matrix M), origin M^-1 o, normal M^T n.
  vtkVolumeProperty* prop = vol->GetProperty();
  vtkPlane* plane = vtkPlane::SafeDownCast(prop->GetSliceFunction());
  if (plane)
  {
    double o[4] = { 0, 0, 0, 1 }, n[3], origin[4], normal[3];
    plane->GetOrigin(o);
    plane->GetNormal(n);
    vtkNew<vtkMatrix4x4> inverse;
    vtkMatrix4x4::Invert(vol->GetMatrix(), inverse);
    inverse->MultiplyPoint(o, origin);
    const double* m = vol->GetMatrix()->GetData(); // row-major
    for (int a = 0; a < 3; ++a)
    {
      normal[a] = m[a] * n[0] + m[4 + a] * n[1] + m[8 + a] * n[2];
    }
    if (origin[3] != 0.0)
    {
      for (int a = 0; a < 3; ++a)
      {
        origin[a] /= origin[3];
      }
    }
    if (cavrSetRenderSlicePlane(settings, origin, normal) == CAVR_ERROR_NONE)
    {
      this->SliceWarning.clear();
      return true;
    }
  }
  const std::string what = plane ? "a plane without a usable normal"
    : prop->GetSliceFunction()   ? prop->GetSliceFunction()->GetClassName()
                                 : "no slice function";
  if (what != this->SliceWarning)
  {
    vtkWarningWithObjectMacro(mapper,
      << "cavr Volume: Blend Mode Slice needs a plane (vtkPlane) as the volume property's slice function, got "
      << what << "; rendering with the cavr Blend Mode instead");
    this->SliceWarning = what;
  }
  return false;
}

//------------------------------------------------------------------------------
void vtkCavrPropertyTranslator::Lights(
  vtkCavrVolumeMapper* mapper, vtkRenderer* ren, vtkVolume* vol, CAVRRenderSettings settings)
{
  // The view's lights (VTK's ray casters' model; docs/user-guide.md, "Lighting").
  CAVRLight lights[CAVR_MAX_LIGHTS];
  int dropped = 0;
  const int count = GatherLights(ren, vol, lights, &dropped);
  if (dropped && !this->LightsWarned)
  {
    vtkWarningWithObjectMacro(mapper, << "cavr Volume: " << dropped << " light(s) beyond the first "
                                      << CAVR_MAX_LIGHTS << " are not used");
    this->LightsWarned = true;
  }
  if (cavrSetRenderLights(settings, count, lights, ren->GetTwoSidedLighting()) != CAVR_ERROR_NONE)
  {
    cavrSetRenderLights(settings, 0, nullptr, 1); // an odd light (NaN, no direction): the headlight
  }
}

//------------------------------------------------------------------------------
void vtkCavrPropertyTranslator::Cropping(
  vtkCavrVolumeMapper* mapper, CAVRDevice device, CAVRRenderSettings settings, std::string* problem)
{
  // Cropping as VTK's ray-cast mappers do it (the representation's Use Cropping, Cropping Origin and Scale arrive as
  // vtkVolumeMapper's Cropping and CroppingRegionPlanes, in the volume's coordinates): the default flags keep the one
  // sub-volume between the planes; other region flags are not supported.
  problem->clear();
  if (!mapper->GetCropping())
  {
    cavrSetRenderCropBox(settings, nullptr);
    return;
  }
  const int flags = mapper->GetCroppingRegionFlags();
  if (flags != VTK_CROP_SUBVOLUME && !this->CropFlagsWarned)
  {
    vtkWarningWithObjectMacro(mapper, << "cavr Volume: cropping region flags 0x" << std::hex << flags << std::dec
                                      << " are not supported; cropping to the sub-volume between the planes (0x2000)");
    this->CropFlagsWarned = true;
  }
  double box[6];
  const double* planes = mapper->GetCroppingRegionPlanes();
  std::copy(planes, planes + 6, box);
  for (int a = 0; a < 3; ++a)
  {
    if (box[2 * a] > box[2 * a + 1])
    {
      std::swap(box[2 * a], box[2 * a + 1]);
    }
  }
  if (cavrSetRenderCropBox(settings, box) != CAVR_ERROR_NONE)
  {
    *problem = "cropping planes " + std::to_string(box[0]) + " ... " + std::to_string(box[5]) +
      " are not numbers: " + vtkCavrDeviceError(device, CAVR_ERROR_INVALID_ARGUMENT);
    cavrSetRenderCropBox(settings, nullptr);
  }
}

//------------------------------------------------------------------------------
CAVRError vtkCavrPropertyTranslator::UpdateCamera(vtkRenderer* ren, vtkVolume* vol, CAVRCamera camera)
{
  vtkCamera* cam = ren->GetActiveCamera();
  vtkNew<vtkMatrix4x4> modelView;
  vtkMatrix4x4::Multiply4x4(cam->GetModelViewTransformMatrix(), vol->GetMatrix(), modelView);
  vtkMatrix4x4* projection = cam->GetProjectionTransformMatrix(ren->GetTiledAspectRatio(), -1, 1);
  double view[16], proj[16];
  ToColumnMajor(modelView, view);
  ToColumnMajor(projection, proj);
  CAVRError e = cavrSetCameraMatrices(camera, view, proj);
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitCamera(camera);
  }
  return e;
}

//------------------------------------------------------------------------------
void vtkCavrPropertyTranslator::Reset()
{
  this->GradientOpacity.clear();
  this->Table2DKey.clear();
  this->TableTime = 0;
  this->ValueRange[0] = this->ValueRange[1] = 0.0;
}

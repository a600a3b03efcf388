// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrVolumeMapper: a frame's steps (Render); the work is done by three internal helpers: vtkCavrInputHelper (the
// input as a cavr volume), vtkCavrPropertyTranslator (the volume property, lights, camera and the mapper's properties
// as cavr objects) and vtkCavrDisplayHelper (the frame buffer, the opaque depth and the image into the window).
#include "vtkCavrVolumeMapper.h"

#include "vtkCavrDeviceError.h"
#include "vtkCavrDisplayHelper.h"
#include "vtkCavrInputHelper.h"
#include "vtkCavrPropertyTranslator.h"

#include "vtkCommand.h"
#include "vtkLogger.h"
#include "vtkObjectFactory.h"
#include "vtkOpenGLRenderWindow.h"
#include "vtkRenderWindow.h"
#include "vtkRenderer.h"
#include "vtkTimerLog.h"
#include "vtkVolume.h"

#include "cavr/cavr.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace
{
// One phase of a frame in VTK's timer log (ParaView: Tools > Timer Log; a VTK program: vtkTimerLog::LoggingOn()), as
// "cavr Volume: <phase>" events nested in the renderer's: the whole Render(), the volume's upload, the opaque depth,
// the render call and the display (image into the window); the rest of Render() is the preparation (device, transfer
// function, settings, camera). Nothing is recorded while logging is off, or for a null name; End() ends the event
// before the scope.
struct TimerEvent
{
  const char* Name;
  explicit TimerEvent(const char* name)
    : Name(name)
  {
    if (name)
    {
      vtkTimerLog::MarkStartEvent(name);
    }
  }
  void End()
  {
    if (this->Name)
    {
      vtkTimerLog::MarkEndEvent(this->Name);
      this->Name = nullptr;
    }
  }
  ~TimerEvent() { this->End(); }
  TimerEvent(const TimerEvent&) = delete;
  TimerEvent& operator=(const TimerEvent&) = delete;
};
}

//------------------------------------------------------------------------------
// The cavr objects of one device and the three helpers that fill and show them.
class vtkCavrVolumeMapper::vtkInternals
{
public:
  ~vtkInternals() { this->ReleaseAll(); }

  /** Release every cavr object, the device last; the next Render makes them again. */
  void ReleaseAll()
  {
    this->Display.ReleaseFrameBuffer();
    cavrReleaseFrameBuffer(this->ValueFrameBuffer);
    cavrReleaseTransferFunction(this->ValueFunction);
    cavrReleaseRenderSettings(this->Settings);
    cavrReleaseCamera(this->Camera);
    cavrReleaseTransferFunction(this->TransferFunction);
    cavrReleaseVolume(this->Volume);
    cavrReleaseDevice(this->Device);
    this->ValueFrameBuffer = nullptr;
    this->ValueFunction = nullptr;
    this->ValueDepth.clear();
    this->Settings = nullptr;
    this->Camera = nullptr;
    this->TransferFunction = nullptr;
    this->Volume = nullptr;
    this->Device = nullptr;
    this->Properties.Reset();
    this->Input.Reset();
  }

  /** Report `msg` as the mapper's error ("cavr Volume: msg"), once: the same message again is not repeated until a
      good frame (or new data) clears LastError. */
  void Fail(vtkCavrVolumeMapper* self, const std::string& msg)
  {
    if (msg != this->LastError)
    {
      vtkErrorWithObjectMacro(self, << "cavr Volume: " << msg);
      this->LastError = msg;
    }
  }

  /** The device's first error as "CODE: message". */
  std::string DeviceError(CAVRError code) { return vtkCavrDeviceError(this->Device, code); }

  bool UpdateDevice(vtkCavrVolumeMapper* self);
  bool MakeDevice(vtkCavrVolumeMapper* self);
  bool UpdateVolume(vtkCavrVolumeMapper* self, vtkVolume* vol);
  bool UpdateProperties(vtkCavrVolumeMapper* self, vtkRenderer* ren, vtkVolume* vol, CAVRBlendMode* blend);
  vtkOpenGLRenderWindow* PrepareFrame(vtkCavrVolumeMapper* self, vtkRenderer* ren, int width, int height);
  bool Show(vtkCavrVolumeMapper* self, vtkOpenGLRenderWindow* win, int width, int height, CAVRRenderStats* stats);
  void RecordStats(vtkCavrVolumeMapper* self, const CAVRRenderStats& stats, int width, int height);
  CAVRError IntensityDepths(int width, int height, bool minimum);
  void WriteIntensityDepth(vtkCavrVolumeMapper* self, vtkRenderWindow* win, int width, int height, bool minimum);

  CAVRDevice Device = nullptr;
  int DeviceBackend = -1;
  int DeviceGpu = -1; // the GpuIndex the device was made for
  CAVRVolume Volume = nullptr;
  CAVRTransferFunction TransferFunction = nullptr;
  CAVRCamera Camera = nullptr;
  CAVRRenderSettings Settings = nullptr;
  // IntensityDepth: the ramp transfer function (vtkCavrPropertyTranslator::UpdateRamp), the float frame of its render
  // and the window depths made of it.
  CAVRTransferFunction ValueFunction = nullptr;
  CAVRFrameBuffer ValueFrameBuffer = nullptr;
  std::vector<float> ValueDepth;
  std::string LastBackend;
  std::string LastDevice; // cavrGetDeviceName of the last render's device
  std::string LastError;
  vtkCavrInputHelper Input;
  vtkCavrPropertyTranslator Properties;
  vtkCavrDisplayHelper Display;
};

//------------------------------------------------------------------------------
// The device, made anew (with its objects) when the back end or the GPU changes; its thread count set every frame.
bool vtkCavrVolumeMapper::vtkInternals::UpdateDevice(vtkCavrVolumeMapper* self)
{
  if ((!this->Device || this->DeviceBackend != self->Backend || this->DeviceGpu != self->GpuIndex) &&
    !this->MakeDevice(self))
  {
    return false;
  }
  cavrSetDeviceThreadCount(this->Device, self->NumberOfThreads);
  return true;
}

//------------------------------------------------------------------------------
bool vtkCavrVolumeMapper::vtkInternals::MakeDevice(vtkCavrVolumeMapper* self)
{
  this->ReleaseAll();
  CAVRBackend wanted = static_cast<CAVRBackend>(self->Backend);
  this->Device = cavrNewDeviceOnGpu(wanted, self->GpuIndex);
  if (!this->Device && wanted == CAVR_BACKEND_CUDA)
  {
    const char* msg = "";
    cavrGetDeviceError(nullptr, &msg);
    vtkWarningWithObjectMacro(
      self, << "cavr Volume: CUDA back end unavailable (" << msg << "); rendering on the CPU.");
    this->Device = cavrNewDevice(CAVR_BACKEND_CPU);
  }
  if (!this->Device)
  {
    const char* msg = "";
    cavrGetDeviceError(nullptr, &msg);
    this->Fail(self, std::string("cannot create a cavr device: ") + msg);
    return false;
  }
  this->DeviceBackend = self->Backend;
  this->DeviceGpu = self->GpuIndex;
  this->LastBackend.clear(); // a new device: the next frame names it (GetLastDeviceName, the log)
  this->Volume = cavrNewVolume(this->Device);
  this->TransferFunction = cavrNewTransferFunction(this->Device);
  this->Camera = cavrNewCamera(this->Device);
  this->Settings = cavrNewRenderSettings(this->Device);
  if (!this->Volume || !this->TransferFunction || !this->Camera || !this->Settings)
  {
    this->Fail(self, this->DeviceError(CAVR_ERROR_OUT_OF_MEMORY));
    this->ReleaseAll();
    return false;
  }
  vtkDebugWithObjectMacro(self, << "cavr device: " << cavrGetDeviceName(this->Device));
  // The core reports a GPU out-of-memory fallback (the volume then renders on the CPU) through the
  // error callback without failing: show it as a warning. Errors are reported where they are returned.
  cavrSetDeviceErrorCallback(this->Device,
    [](void* user, CAVRError code, const char* message) {
      if (code == CAVR_ERROR_CUDA_OUT_OF_MEMORY)
      {
        vtkCavrVolumeMapper* mapper = static_cast<vtkCavrVolumeMapper*>(user);
        vtkWarningWithObjectMacro(mapper, << "cavr Volume: " << message);
      }
    },
    self);
  return true;
}

//------------------------------------------------------------------------------
// The volume from the input (vtkCavrInputHelper), its problem reported; true when it holds the current input (a
// false with HasVolume() renders the last good volume).
bool vtkCavrVolumeMapper::vtkInternals::UpdateVolume(vtkCavrVolumeMapper* self, vtkVolume* vol)
{
  const vtkCavrInputHelper::Status input = this->Input.Update(self, vol, this->Device, this->Volume);
  if (input.NewData)
  {
    this->LastError.clear(); // new data: report its problem even if it reads as the last one did
  }
  if (!input.Problem.empty())
  {
    this->Fail(self, input.Problem);
  }
  return input.Ready;
}

//------------------------------------------------------------------------------
// The transfer function, its gradient opacity and the render settings (vtkCavrPropertyTranslator), *blend the blend
// mode they render;
// false when the transfer function was refused (reported).
bool vtkCavrVolumeMapper::vtkInternals::UpdateProperties(
  vtkCavrVolumeMapper* self, vtkRenderer* ren, vtkVolume* vol, CAVRBlendMode* blend)
{
  CAVRError e =
    this->Properties.UpdateTransferFunction(vol->GetProperty(), this->TransferFunction, this->Input.GetComponents());
  if (e == CAVR_ERROR_NONE)
  {
    e = this->Properties.UpdateGradientOpacity(vol->GetProperty(), this->TransferFunction);
  }
  if (e == CAVR_ERROR_NONE)
  {
    e = this->Properties.UpdateTransferFunction2D(self, vol->GetProperty(), this->Volume, this->TransferFunction);
  }
  if (e != CAVR_ERROR_NONE)
  {
    this->Fail(self, this->DeviceError(e));
    return false;
  }
  std::string cropProblem;
  *blend = this->Properties.UpdateSettings(self, ren, vol, this->Device, this->Settings, &cropProblem);
  if (!cropProblem.empty())
  {
    this->Fail(self, cropProblem);
  }
  return true;
}

//------------------------------------------------------------------------------
// The frame buffer of the viewport (width x height) and its way into the renderer's window (vtkCavrDisplayHelper):
// the window as an OpenGL window, or null (reported) when there is none or the frame buffer cannot be made.
vtkOpenGLRenderWindow* vtkCavrVolumeMapper::vtkInternals::PrepareFrame(
  vtkCavrVolumeMapper* self, vtkRenderer* ren, int width, int height)
{
  if (!this->Display.PrepareFrameBuffer(this->Device, width, height))
  {
    this->Fail(self, this->DeviceError(CAVR_ERROR_OUT_OF_MEMORY));
    return nullptr;
  }
  vtkRenderWindow* win = ren->GetRenderWindow();
  vtkOpenGLRenderWindow* glWin = vtkOpenGLRenderWindow::SafeDownCast(win);
  if (!glWin)
  {
    this->Fail(self, std::string("the render window is a ") + (win ? win->GetClassName() : "null") +
        ", not an OpenGL window: cavr Volume draws through OpenGL");
    return nullptr;
  }
  // The image stays on the GPU when the CUDA back end renders a whole volume (IceT composites the pieces of distributed
  // data from the window's pixels) without super-sampling (averaged on the host, core/src/supersample.c).
  const bool distributed = self->RenderExtent[0] <= self->RenderExtent[1];
  this->Display.ChoosePath(glWin,
    self->DisplayPath != DISPLAY_HOST && !distributed && self->Supersampling <= 1 &&
      cavrGetDeviceBackend(this->Device) == CAVR_BACKEND_CUDA,
    self->DisplayPath == DISPLAY_AUTO);
  return glWin;
}

//------------------------------------------------------------------------------
// The rendered image blended into the window (vtkCavrDisplayHelper::Show); when the image on the GPU cannot reach
// this window there, the frame is rendered again (into *stats) with its planes copied back to host memory. False
// (reported) when nothing was drawn.
bool vtkCavrVolumeMapper::vtkInternals::Show(
  vtkCavrVolumeMapper* self, vtkOpenGLRenderWindow* win, int width, int height, CAVRRenderStats* stats)
{
  vtkCavrDisplayHelper::ShowResult shown =
    this->Display.Show(self, win, width, height, stats->backend == CAVR_BACKEND_CUDA);
  if (shown == vtkCavrDisplayHelper::RENDER_AGAIN)
  {
    const CAVRError e = cavrRender(
      this->Display.GetFrameBuffer(), this->Volume, this->TransferFunction, this->Camera, this->Settings, stats);
    if (e != CAVR_ERROR_NONE)
    {
      this->Fail(self, this->DeviceError(e));
      return false;
    }
    shown = this->Display.ShowFromHost(win, width, height);
  }
  if (shown != vtkCavrDisplayHelper::SHOWN)
  {
    this->Fail(self, "cannot make the OpenGL textures or the shader that draw the image");
    return false;
  }
  return true;
}

//------------------------------------------------------------------------------
// The last render's figures (GetLastRenderTime, ...), and the back end and device that rendered it: logged once per
// device and back end.
void vtkCavrVolumeMapper::vtkInternals::RecordStats(
  vtkCavrVolumeMapper* self, const CAVRRenderStats& stats, int width, int height)
{
  self->LastRenderTime = stats.milliseconds;
  self->LastSampleCount = static_cast<double>(stats.samples);
  self->LastRaysCast = static_cast<double>(stats.raysCast);
  self->LastCompressiveDecision = static_cast<int>(stats.compressiveDecision);
  self->LastPredictedFullTime = stats.predictedFullMilliseconds;
  self->LastPredictedCompressiveTime = stats.predictedCompressiveMilliseconds;
  const char* backend = stats.backend == CAVR_BACKEND_CUDA ? "cuda" : "cpu";
  if (this->LastBackend != backend)
  {
    // Once per device and back end (a new device clears LastBackend; a volume that did not fit on the GPU renders on
    // the CPU: that too). The device's name is fixed for its life, so nothing here runs on the other frames.
    this->LastBackend = backend;
    this->LastDevice = cavrGetDeviceName(this->Device);
    if (stats.backend != cavrGetDeviceBackend(this->Device))
    {
      this->LastDevice = "CPU (the volume fell back from " + this->LastDevice + ")";
    }
    vtkLogF(INFO, "cavr Volume: rendering on %s (%s)", stats.backend == CAVR_BACKEND_CUDA ? "CUDA" : "the CPU",
      this->LastDevice.c_str());
  }
  vtkDebugWithObjectMacro(self, << "cavr Volume: " << this->LastBackend << " back end ("
                                << cavrGetDeviceName(this->Device) << "), strategy " << stats.strategy << ", block "
                                << stats.blockWidth << "x" << stats.blockHeight << ", rotation " << stats.rotation
                                << ", " << width << "x" << height << ", " << stats.milliseconds << " ms, "
                                << stats.samples << " samples, " << stats.raysCast << " rays cast, reconstruction "
                                << stats.solveMilliseconds << " ms (" << stats.iterations << " iterations), compressive decision "
                                << stats.compressiveDecision << " (predicted full " << stats.predictedFullMilliseconds
                                << " ms, compressive " << stats.predictedCompressiveMilliseconds << " ms)");
}

//------------------------------------------------------------------------------
// IntensityDepth's window depths (width x height, the viewport's pixels) into ValueDepth: render the ramp transfer
// function (colour = the scalar's place in the transfer function's range) with the current settings, opaque depth and
// camera, and encode each covered pixel's maximum (minimum) as vtkCavrVolumeMapper::SetIntensityDepth says; pixels
// without a sample keep the opaque geometry's depth (the host depth when it was read, else 1, the far plane).
CAVRError vtkCavrVolumeMapper::vtkInternals::IntensityDepths(int width, int height, bool minimum)
{
  CAVRError e = CAVR_ERROR_NONE;
  if (!this->ValueFunction)
  {
    this->ValueFunction = cavrNewTransferFunction(this->Device);
  }
  if (this->ValueFunction)
  {
    e = this->Properties.UpdateRamp(this->ValueFunction);
    if (e != CAVR_ERROR_NONE)
    {
      return e;
    }
  }
  if (!this->ValueFrameBuffer || this->ValueDepth.size() != static_cast<size_t>(width) * height)
  {
    cavrReleaseFrameBuffer(this->ValueFrameBuffer);
    this->ValueFrameBuffer = cavrNewFrameBuffer(this->Device, width, height);
    if (this->ValueFrameBuffer)
    {
      cavrSetFrameBufferHostChannels(this->ValueFrameBuffer, CAVR_FB_HOST_RGBA32F);
    }
  }
  if (!this->ValueFunction || !this->ValueFrameBuffer)
  {
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  const std::vector<float>& depth = this->Display.GetHostDepth();
  const bool opaque = this->Display.GetDepthRead(); // else nothing limits the rays and "far" is 1
  cavrSetFrameBufferOpaqueDepth(this->ValueFrameBuffer, opaque ? depth.data() : nullptr, depth.size());
  e = cavrRender(this->ValueFrameBuffer, this->Volume, this->ValueFunction, this->Camera, this->Settings, nullptr);
  if (e != CAVR_ERROR_NONE)
  {
    return e;
  }
  const float* rgba =
    static_cast<const float*>(cavrGetFrameBufferData(this->ValueFrameBuffer, CAVR_FB_COLOR_RGBA32F));
  this->ValueDepth.resize(static_cast<size_t>(width) * height);
  for (size_t i = 0; i < this->ValueDepth.size(); ++i)
  {
    const float u = std::min(std::max(rgba[4 * i], 0.0f), 1.0f);
    this->ValueDepth[i] =
      rgba[4 * i + 3] > 0.0f ? (minimum ? 0.25f + 0.5f * u : 0.75f - 0.5f * u) : (opaque ? depth[i] : 1.0f);
  }
  return CAVR_ERROR_NONE;
}

//------------------------------------------------------------------------------
// The maximum (minimum) as depth (IntensityDepths) into the window's depth buffer, for z-buffer compositing across
// ranks (SetIntensityDepth); problems are reported, the frame stays.
void vtkCavrVolumeMapper::vtkInternals::WriteIntensityDepth(
  vtkCavrVolumeMapper* self, vtkRenderWindow* win, int width, int height, bool minimum)
{
  const CAVRError e = this->IntensityDepths(width, height, minimum);
  if (e != CAVR_ERROR_NONE)
  {
    this->Fail(self, this->DeviceError(e));
  }
  else if (!this->Display.WriteDepth(win, width, height, this->ValueDepth.data()))
  {
    this->Fail(self, "cannot write the intensity depth (IntensityDepth needs an OpenGL render window)");
  }
}

vtkStandardNewMacro(vtkCavrVolumeMapper);

//------------------------------------------------------------------------------
vtkCavrVolumeMapper::vtkCavrVolumeMapper()
  : Internals(new vtkInternals)
{
}

//------------------------------------------------------------------------------
vtkCavrVolumeMapper::~vtkCavrVolumeMapper() = default;

//------------------------------------------------------------------------------
void vtkCavrVolumeMapper::SetTransfer2DYAxisArray(const char* name)
{
  const std::string value = name ? name : "";
  if (value != this->Transfer2DYAxisArray)
  {
    this->Transfer2DYAxisArray = value;
    this->Modified();
  }
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeMapper::GetLastBackendName()
{
  return this->Internals->LastBackend.c_str();
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeMapper::GetLastDeviceName()
{
  return this->Internals->LastDevice.c_str();
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeMapper::GetLastDisplayPathName()
{
  return this->Internals->Display.GetLastDisplayPathName().c_str();
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeMapper::GetLastOpaqueDepthPathName()
{
  return this->Internals->Display.GetLastDepthPathName().c_str();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeMapper::ReleaseGraphicsResources(vtkWindow* window)
{
  this->Internals->Display.ReleaseGLOf(window);
  this->Internals->ReleaseAll();
  this->Superclass::ReleaseGraphicsResources(window);
}

//------------------------------------------------------------------------------
void vtkCavrVolumeMapper::Render(vtkRenderer* ren, vtkVolume* vol)
{
  // VTK's volume mapper events around the call, as its own mappers fire them (observers time or follow the render).
  this->InvokeEvent(vtkCommand::VolumeMapperRenderStartEvent, nullptr);
  struct EndEvent
  {
    vtkCavrVolumeMapper* Self;
    ~EndEvent() { this->Self->InvokeEvent(vtkCommand::VolumeMapperRenderEndEvent, nullptr); }
  } endEvent{ this };
  const auto start = std::chrono::steady_clock::now();
  TimerEvent whole("cavr Volume: Render");
  vtkInternals& in = *this->Internals;
  // Each distinct problem is reported once (in.Fail); a good frame clears it. Nothing is drawn on error.

  // 1. The device (recreated when the back end or the GPU changes).
  if (!in.UpdateDevice(this))
  {
    return;
  }

  // 2. The volume from the input. When the input cannot be rendered, the error goes to the output window once and
  //    the last good volume stays on screen.
  bool fresh = false;
  {
    TimerEvent volumeEvent("cavr Volume: volume");
    fresh = in.UpdateVolume(this, vol);
  }
  if (!fresh && !in.Input.HasVolume())
  {
    return; // nothing good to show yet
  }

  // 3. The transfer function and the render settings, from the volume property, the lights and the mapper.
  CAVRBlendMode blend = CAVR_BLEND_COMPOSITE;
  if (!in.UpdateProperties(this, ren, vol, &blend))
  {
    return;
  }

  // 4. The camera of the viewport: cavr's world is the data space; the view includes the volume's matrix.
  int width, height, x0, y0;
  ren->GetTiledSizeAndOrigin(&width, &height, &x0, &y0);
  if (width < 1 || height < 1)
  {
    return;
  }
  CAVRError e = vtkCavrPropertyTranslator::UpdateCamera(ren, vol, in.Camera);
  if (e != CAVR_ERROR_NONE)
  {
    in.Fail(this, in.DeviceError(e));
    return;
  }

  // 5. The frame buffer of the viewport and its way into the window (host memory, GPU textures or shared memory).
  vtkOpenGLRenderWindow* win = in.PrepareFrame(this, ren, width, height);
  if (!win)
  {
    return;
  }

  // 6. The opaque geometry's depth, where rays stop (IntensityDepth's second render takes it from the host: the GPU
  //    read only without it).
  const bool opaque = vtkCavrDisplayHelper::HasOpaqueGeometry(ren);
  {
    TimerEvent depthEvent(opaque ? "cavr Volume: opaque depth" : nullptr);
    in.Display.ReadOpaqueDepth(
      win, x0, y0, width, height, opaque, this->OpaqueDepthPath == DEPTH_GPU, !this->IntensityDepth);
  }

  // 7. Render with the core.
  CAVRRenderStats stats;
  {
    TimerEvent call("cavr Volume: render call");
    e = cavrRender(in.Display.GetFrameBuffer(), in.Volume, in.TransferFunction, in.Camera, in.Settings, &stats);
  }
  if (e != CAVR_ERROR_NONE)
  {
    in.Fail(this, in.DeviceError(e));
    return;
  }
  if (fresh)
  {
    in.LastError.clear(); // a good frame of the current input: report the next problem again
  }
  in.RecordStats(this, stats, width, height);

  // 8. Blend the premultiplied image into the window, with its depth for the depth test.
  TimerEvent display("cavr Volume: display");
  if (!in.Show(this, win, width, height, &stats))
  {
    return;
  }

  // 9. The maximum (minimum) as depth, for z-buffer compositing across ranks (SetIntensityDepth), after the image is
  //    drawn: its second render (another frame buffer, same device) reuses the device's planes, which the texture
  //    copy reads.
  if (this->IntensityDepth && (blend == CAVR_BLEND_MAXIMUM_INTENSITY || blend == CAVR_BLEND_MINIMUM_INTENSITY))
  {
    in.WriteIntensityDepth(this, win, width, height, blend == CAVR_BLEND_MINIMUM_INTENSITY);
  }
  this->LastDrawTime = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeMapper::PrintSelf(ostream& os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "Backend: " << this->Backend << endl;
  os << indent << "SampleDistance: " << this->SampleDistance << " voxels" << endl;
  os << indent << "EarlyRayTermination: " << this->EarlyRayTermination << endl;
  os << indent << "CavrBlendMode: " << this->CavrBlendMode << endl;
  os << indent << "NumberOfThreads: " << this->NumberOfThreads << endl;
  os << indent << "IntensityDepth: " << this->IntensityDepth << endl;
  os << indent << "Strategy: " << this->Strategy << endl;
  os << indent << "SampleFraction: " << this->SampleFraction << endl;
  os << indent << "Reconstruction: " << this->Reconstruction << endl;
  os << indent << "CompressiveWhileInteracting: " << this->CompressiveWhileInteracting << endl;
  os << indent << "CompressiveOnlyWherePays: " << this->CompressiveOnlyWherePays << endl;
  os << indent << "LastCompressiveDecision: " << this->LastCompressiveDecision << endl;
  os << indent << "LastPredictedFullTime: " << this->LastPredictedFullTime << " ms" << endl;
  os << indent << "LastPredictedCompressiveTime: " << this->LastPredictedCompressiveTime << " ms" << endl;
  os << indent << "CubicInterpolation: " << this->CubicInterpolation << endl;
  os << indent << "Supersampling: " << this->Supersampling << endl;
  os << indent << "JitterRayStarts: " << this->JitterRayStarts << endl;
  os << indent << "Transfer2DYAxisArray: " << this->Transfer2DYAxisArray << endl;
  os << indent << "VolumetricScatteringBlending: " << this->VolumetricScatteringBlending << endl;
  os << indent << "GlobalIlluminationReach: " << this->GlobalIlluminationReach << endl;
  os << indent << "GpuIndex: " << this->GpuIndex << endl;
  os << indent << "InteractiveUpdateRate: " << this->InteractiveUpdateRate << endl;
  os << indent << "LastRaysCast: " << this->LastRaysCast << endl;
  os << indent << "RenderExtent: " << this->RenderExtent[0] << " " << this->RenderExtent[1] << " "
     << this->RenderExtent[2] << " " << this->RenderExtent[3] << " " << this->RenderExtent[4] << " "
     << this->RenderExtent[5] << endl;
  os << indent << "LastRenderTime: " << this->LastRenderTime << " ms" << endl;
  os << indent << "LastDrawTime: " << this->LastDrawTime << " ms" << endl;
  os << indent << "LastSampleCount: " << this->LastSampleCount << endl;
  os << indent << "LastBackend: " << this->Internals->LastBackend << endl;
  os << indent << "LastDevice: " << this->Internals->LastDevice << endl;
  os << indent << "DisplayPath: " << this->DisplayPath << endl;
  os << indent << "OpaqueDepthPath: " << this->OpaqueDepthPath << endl;
  os << indent << "LastDisplayPath: " << this->Internals->Display.GetLastDisplayPathName() << endl;
  if (!this->Internals->Display.GetSharedWhy().empty())
  {
    os << indent << "SharedMemory: not used (" << this->Internals->Display.GetSharedWhy() << ")" << endl;
  }
}

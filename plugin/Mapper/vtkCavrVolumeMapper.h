// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkCavrVolumeMapper
 * @brief   Volume mapper that ray-casts vtkImageData with the cavr core (CUDA when present, else CPU).
 *
 * Render() reads the active camera and the volume's matrix, the vtkVolumeProperty (colour transfer
 * function, scalar opacity function and its unit distance, shading coefficients, interpolation), the
 * selected single-component scalar array (point or cell data) and the opaque depth already in the render
 * window; it renders a premultiplied RGBA image of the viewport with the core and blends it into the
 * window (ONE, ONE_MINUS_SRC_ALPHA), pixel for pixel, with its per-pixel depth for the depth test: from CUDA through
 * OpenGL textures on the GPU, or through host memory (see SetDisplayPath). Rays stop at opaque
 * geometry, and geometry in front of the volume stays visible. Under MPI each rank renders its own piece
 * and IceT blends the images in visibility order.
 *
 * Bad input (multi-component or 64-bit integer arrays, NaN voxels, 2-D images) is reported with
 * vtkErrorMacro once per change and nothing is drawn; the view keeps working.
 */
#ifndef vtkCavrVolumeMapper_h
#define vtkCavrVolumeMapper_h

#include "cavrMapperModule.h" // for export macro
#include "vtkVolumeMapper.h"

#include <memory> // for std::unique_ptr
#include <string> // for std::string

class CAVRMAPPER_EXPORT vtkCavrVolumeMapper : public vtkVolumeMapper
{
public:
  static vtkCavrVolumeMapper* New();
  vtkTypeMacro(vtkCavrVolumeMapper, vtkVolumeMapper);
  void PrintSelf(ostream& os, vtkIndent indent) override;

  enum Backends
  {
    BACKEND_AUTO = 0,
    BACKEND_CPU = 1,
    BACKEND_CUDA = 2
  };

  ///@{
  /**
   * Back end: 0 auto (CUDA when a GPU answers, else CPU), 1 CPU, 2 CUDA. Default 0.
   * A CUDA request on a machine without a usable GPU falls back to the CPU with a warning.
   */
  vtkSetClampMacro(Backend, int, BACKEND_AUTO, BACKEND_CUDA);
  vtkGetMacro(Backend, int);
  ///@}

  ///@{
  /** Distance between samples along a ray, in voxels of the finest axis, [0.01, 64]. Default 0.5. */
  vtkSetClampMacro(SampleDistance, double, 0.01, 64.0);
  vtkGetMacro(SampleDistance, double);
  ///@}

  ///@{
  /** Early ray termination: a ray stops at this accumulated opacity, (0, 1]; 1 disables. Default 0.99. */
  vtkSetClampMacro(EarlyRayTermination, double, 0.01, 1.0);
  vtkGetMacro(EarlyRayTermination, double);
  ///@}

  ///@{
  /**
   * cavr blend mode: 0 composite, 1 maximum, 2 minimum, 3 average intensity. Default 0.
   * It applies while vtkVolumeMapper's BlendMode is COMPOSITE_BLEND (ParaView's own Blend Mode offers only
   * composite, isosurface and slice): ISOSURFACE_BLEND renders cavr's isosurfaces of the volume property's
   * iso-values, SLICE_BLEND cavr's slice through the volume property's slice function (a vtkPlane; anything else
   * gives a warning and this mode).
   */
  vtkSetClampMacro(CavrBlendMode, int, 0, 3);
  vtkGetMacro(CavrBlendMode, int);
  ///@}

  ///@{
  /**
   * The part of the input to render, as a VTK extent (global point indices, inclusive); points outside it
   * are ghost voxels used only for interpolation and gradients. Empty (x0 > x1, the default) renders the
   * whole input. Set by vtkCavrVolumeRepresentation for distributed data.
   */
  vtkSetVector6Macro(RenderExtent, int);
  vtkGetVector6Macro(RenderExtent, int);
  ///@}

  ///@{
  /**
   * GPU strategy: 0 standard (16x16 blocks), 1 shaped (thread-block shaping, no rotation), 2 auto (the
   * measured-best shaping plus in-place rotation). Default 2. Ignored by the CPU back end.
   */
  vtkSetClampMacro(Strategy, int, 0, 2);
  vtkGetMacro(Strategy, int);
  ///@}

  ///@{
  /**
   * Compressive rendering (Rabbani 2018 thesis; cavrSetRenderCompressive): cast rays for this fraction of
   * the pixels, (0, 1] (default 1: every pixel), and rebuild the rest. Reconstruction: 0 global, 1 local
   * (default, 16x16 blocks), 2 local with adaptive sampling. With CompressiveWhileInteracting on (default
   * off) the fraction applies only to interactive renders (the render window's desired update rate at or
   * above InteractiveUpdateRate, as vtkSmartVolumeMapper decides); still renders cast every ray.
   */
  vtkSetClampMacro(SampleFraction, double, 0.01, 1.0);
  vtkGetMacro(SampleFraction, double);
  vtkSetClampMacro(Reconstruction, int, 0, 2);
  vtkGetMacro(Reconstruction, int);
  vtkSetMacro(CompressiveWhileInteracting, vtkTypeBool);
  vtkGetMacro(CompressiveWhileInteracting, vtkTypeBool);
  vtkBooleanMacro(CompressiveWhileInteracting, vtkTypeBool);
  /**
   * Compressive only where it pays (cavrSetRenderCompressiveMode AUTO, default on): a frame that asks for the sample
   * fraction (every render, or the interactive ones with CompressiveWhileInteracting) casts every ray instead when
   * the cost model, fed by this mapper's last frames, predicts the compressive frame no cheaper than 0.9 x the full
   * one; so an interactive frame is not slower than a still one. Off: every such frame is compressive (ALWAYS).
   */
  vtkSetMacro(CompressiveOnlyWherePays, vtkTypeBool);
  vtkGetMacro(CompressiveOnlyWherePays, vtkTypeBool);
  vtkBooleanMacro(CompressiveOnlyWherePays, vtkTypeBool);
  /** Desired update rate (frames/s) from which a render counts as interactive. Default 1. */
  vtkSetClampMacro(InteractiveUpdateRate, double, 1.0e-4, 1.0e6);
  vtkGetMacro(InteractiveUpdateRate, double);
  ///@}

  ///@{
  /**
   * Expensive-ray options. CubicInterpolation (default off): the cubic B-spline filter (Sigg and
   * Hadwiger 2005; cavrSetRenderInterpolation, CAVR_INTERPOLATION_CUBIC) instead of the volume property's
   * linear interpolation (vtkVolumeProperty offers only nearest and linear; nearest stays nearest).
   * Supersampling: rays per pixel, 1 (default), 4 (2x2 sub-pixel), 5 (4 + the centre, the thesis's pattern),
   * 9 (3x3) or 16 (4x4), averaged (cavrSetRenderSupersampling); other values are refused with a message.
   */
  vtkSetMacro(CubicInterpolation, vtkTypeBool);
  vtkGetMacro(CubicInterpolation, vtkTypeBool);
  vtkBooleanMacro(CubicInterpolation, vtkTypeBool);
  vtkSetClampMacro(Supersampling, int, 1, 16);
  vtkGetMacro(Supersampling, int);
  ///@}

  ///@{
  /**
   * JitterRayStarts (default off): each pixel's samples moved along its ray by a fixed fraction of the sample
   * distance, from its position (cavrSetRenderJitter): the wood-grain rings of a sharp transfer function become fine
   * noise; the same view gives the same image. The volume property's gradient opacity (SetGradientOpacity, unless
   * DisableGradientOpacity) is used as well: cavrSetTransferFunctionGradientOpacity.
   */
  vtkSetMacro(JitterRayStarts, vtkTypeBool);
  vtkGetMacro(JitterRayStarts, vtkTypeBool);
  vtkBooleanMacro(JitterRayStarts, vtkTypeBool);
  ///@}

  ///@{
  /**
   * Transfer2DYAxisArray (default none): the array on the second axis of the volume property's 2-D transfer function
   * (ParaView's "Volume" with UseTransfer2D on and UseGradientForTransfer2D off, as vtkMultiBlockVolumeMapper's
   * SetTransfer2DYAxisArray). Not supported: with a name set, a 2-D transfer function is still looked up by the
   * gradient magnitude, and the mapper warns once (docs/user-guide.md). In 2-D mode (vtkVolumeProperty
   * TransferFunctionMode TF_2D) the property's TransferFunction2D image is passed to cavrSetTransferFunction2D.
   */
  void SetTransfer2DYAxisArray(const char* name);
  const char* GetTransfer2DYAxisArray() const { return this->Transfer2DYAxisArray.c_str(); }
  ///@}

  ///@{
  /**
   * Volumetric scattering, as vtkGPUVolumeRayCastMapper's properties of the same names (VTK >= 9.1; ParaView's "Volume"
   * representation sets them, and so does "cavr Volume" through its representation): VolumetricScatteringBlending in
   * [0, 2] (default 0: off; 2: scattering only; between, VTK's blend with gradient shading, weighted by the
   * gradient magnitude) and
   * GlobalIlluminationReach in [0, 1] (default 0: the secondary rays' length, from about one sample to the volume's
   * diagonal). With the volume property's ScatteringAnisotropy (Henyey-Greenstein g) they go to cavrSetRenderScattering;
   * composite blending with Shade on only.
   */
  vtkSetClampMacro(VolumetricScatteringBlending, float, 0.0f, 2.0f);
  vtkGetMacro(VolumetricScatteringBlending, float);
  vtkSetClampMacro(GlobalIlluminationReach, float, 0.0f, 1.0f);
  vtkGetMacro(GlobalIlluminationReach, float);
  ///@}

  ///@{
  /**
   * CUDA device index the CUDA back end renders on; -1 (default): $CAVR_GPU, else the MPI local rank modulo the
   * visible GPUs (one GPU per rank), else 0 (cavrNewDeviceOnGpu). An index that names no GPU: a warning and the CPU.
   */
  vtkSetClampMacro(GpuIndex, int, -1, 1023);
  vtkGetMacro(GpuIndex, int);
  ///@}

  ///@{
  /** CPU threads of the CPU back end; 0 (default) uses every core. */
  vtkSetClampMacro(NumberOfThreads, int, 0, 1024);
  vtkGetMacro(NumberOfThreads, int);
  ///@}

  enum DisplayPaths
  {
    DISPLAY_AUTO = 0,
    DISPLAY_HOST = 1,
    DISPLAY_TEXTURES = 2
  };

  ///@{
  /**
   * How the image reaches the window. 0 auto (default): when the CUDA back end rendered the frame and the window is an
   * OpenGL window on the same GPU, the render leaves its colour and depth planes in device memory that OpenGL imports
   * (cavrShareFrameBufferPlanes, GL_EXT_memory_object_fd: "shared", no copy on the OpenGL side), or, where the driver
   * cannot share memory, CUDA copies them into two OpenGL textures on the GPU (cavrCopyFrameBufferToGLTextures:
   * "interop"); otherwise (CPU back end, a volume that fell back to the CPU, a piece of distributed data that IceT
   * composites, super-sampling, a context on another GPU) both planes come to host memory and are uploaded into the
   * textures ("host"). 1 host: always the last. 2 textures: the GPU textures, never the shared memory (to compare
   * them). Each way a full-viewport quad blends the colour in, pixel for texel, with the volume's per-pixel depth for
   * the depth test: all give the same picture.
   */
  vtkSetClampMacro(DisplayPath, int, DISPLAY_AUTO, DISPLAY_TEXTURES);
  vtkGetMacro(DisplayPath, int);
  ///@}

  ///@{
  /**
   * Where the opaque geometry's depth (rays stop at it) is read on the GPU display path (DISPLAY_AUTO chose the GPU):
   * 0 host (default): read back into host memory and uploaded, as the host display path always does; 1 GPU: into a
   * pixel-pack buffer that CUDA copies on the GPU (cavrSetFrameBufferOpaqueDepthGLBuffer, no host round trip). Both
   * give the same picture; on an H100 the GPU read was 0.4-7% slower per frame than the host read (both wait for
   * OpenGL to finish the opaque pass; docs/history/benchmarks-2026-11.md), hence the default. With IntensityDepth on,
   * the host read is used whatever this says (its second render takes the depth from host memory).
   */
  enum OpaqueDepthPaths
  {
    DEPTH_HOST = 0,
    DEPTH_GPU = 1
  };
  vtkSetClampMacro(OpaqueDepthPath, int, DEPTH_HOST, DEPTH_GPU);
  vtkGetMacro(OpaqueDepthPath, int);
  ///@}

  /** How the last frame reached the window: "shared" (memory shared by CUDA and OpenGL), "interop" (GPU textures),
      "host" ("" before the first). */
  const char* GetLastDisplayPathName();

  /** Where the last frame read the opaque geometry's depth: "gpu" (a pixel-pack buffer copied on the GPU), "host"
      (read back into host memory; on the GPU display path with the reason in parentheses), "none" (no opaque
      geometry), "" before the first. */
  const char* GetLastOpaqueDepthPathName();

  /**
   * Milliseconds of the mapper's last Render() call, wall clock: the core's render and the hand-over of the image to
   * OpenGL (the GPU's drawing of it is not waited for). 0 before the first.
   */
  vtkGetMacro(LastDrawTime, double);

  ///@{
  /**
   * Maximum and minimum intensity under MPI. When on and the blend mode is one of them, the
   * mapper also writes each pixel's maximum (minimum) scalar into the window's depth buffer: window depth
   * 0.75 - 0.5 u for the maximum, 0.25 + 0.5 u for the minimum, u the scalar's place in the transfer function's
   * range (clamped to [0, 1]); a pixel whose ray misses the volume keeps its depth. Z-buffer compositing of the
   * ranks' images (IceT) then keeps, per pixel, the piece holding the largest maximum (smallest minimum): the
   * one-process image, which "over" in visibility order cannot give. The scalar comes from a second render with a
   * linear ramp as transfer function (two renders a frame). vtkCavrVolumeRepresentation turns it on with more than
   * one rank and asks the view for z-buffer instead of ordered compositing; opaque geometry is then not sorted
   * against the volume across ranks. Default off.
   */
  vtkSetMacro(IntensityDepth, vtkTypeBool);
  vtkGetMacro(IntensityDepth, vtkTypeBool);
  vtkBooleanMacro(IntensityDepth, vtkTypeBool);
  ///@}

  /** Milliseconds and samples of the last core render (0 before the first). */
  vtkGetMacro(LastRenderTime, double);
  vtkGetMacro(LastSampleCount, double);
  /**
   * The last render's compressive decision (CAVRRenderStats.compressiveDecision: 0 full as asked, 1 compressive,
   * 2 full because compressive does not pay, 3 full to measure it again, 4 compressive to measure it again) and
   * the cost model's predictions of a full and of a compressive frame, ms (0: none).
   */
  vtkGetMacro(LastCompressiveDecision, int);
  vtkGetMacro(LastPredictedFullTime, double);
  vtkGetMacro(LastPredictedCompressiveTime, double);
  /** Rays cast by the last render (all pixels, or the sampled ones in compressive rendering). */
  vtkGetMacro(LastRaysCast, double);
  /** Back end that did the last render: "cpu" or "cuda" ("" before the first). */
  const char* GetLastBackendName();
  /**
   * The device of the last render, as cavrGetDeviceName names it: "CUDA (NVIDIA H100 80GB HBM3, 80 GiB, GPU 1 of
   * 2)", "CPU", "CPU (CUDA unavailable: ...)", or "CPU (the volume fell back from CUDA (...))" when a volume that did
   * not fit on the GPU rendered on the CPU ("" before the first). When it or the back end changes, the mapper
   * logs one line "cavr Volume: rendering on <back end> (<device>)" (vtkLogger, verbosity INFO: ParaView's
   * -v=INFO, or the GUI's Log Viewer), so every MPI rank says which GPU it renders on.
   */
  const char* GetLastDeviceName();

  void Render(vtkRenderer* ren, vtkVolume* vol) override;
  void ReleaseGraphicsResources(vtkWindow* window) override;

protected:
  vtkCavrVolumeMapper();
  ~vtkCavrVolumeMapper() override;

  int Backend = BACKEND_AUTO;
  double SampleDistance = 0.5;
  double EarlyRayTermination = 0.99;
  int CavrBlendMode = 0;
  int NumberOfThreads = 0;
  int GpuIndex = -1;
  int Strategy = 2;
  vtkTypeBool IntensityDepth = 0;
  int RenderExtent[6] = { 0, -1, 0, -1, 0, -1 };
  double LastRenderTime = 0.0;
  double LastSampleCount = 0.0;
  double LastRaysCast = 0.0;
  double SampleFraction = 1.0;
  int Reconstruction = 1;
  vtkTypeBool CompressiveWhileInteracting = 0;
  vtkTypeBool CompressiveOnlyWherePays = 1;
  int LastCompressiveDecision = 0;
  double LastPredictedFullTime = 0.0;
  double LastPredictedCompressiveTime = 0.0;
  vtkTypeBool CubicInterpolation = 0;
  int Supersampling = 1;
  vtkTypeBool JitterRayStarts = 0;
  std::string Transfer2DYAxisArray;
  float VolumetricScatteringBlending = 0.0f;
  float GlobalIlluminationReach = 0.0f;
  double InteractiveUpdateRate = 1.0;
  int DisplayPath = DISPLAY_AUTO;
  int OpaqueDepthPath = DEPTH_HOST;
  double LastDrawTime = 0.0;

private:
  vtkCavrVolumeMapper(const vtkCavrVolumeMapper&) = delete;
  void operator=(const vtkCavrVolumeMapper&) = delete;

  class vtkInternals;
  std::unique_ptr<vtkInternals> Internals;
};

#endif

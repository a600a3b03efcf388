// SPDX-License-Identifier: BSD-3-Clause
/**
 * @class   vtkCavrDisplayHelper
 * @brief   How vtkCavrVolumeMapper's image reaches the window: the frame buffer the core renders into, its display path
 *          (host memory, GPU textures, or colour and depth planes shared by CUDA and OpenGL), the opaque geometry's
 *          depth the rays stop at, and the quad that blends the image in.
 *
 * Internal to the cavr::Mapper module (a private header: not installed, not wrapped), as
 * vtkOpenGLRayCastImageDisplayHelper is to VTK's fixed-point ray caster. One per mapper; every call is made on the
 * render thread with the render window's OpenGL context current. The frame buffer is made on the mapper's device and
 * released (ReleaseFrameBuffer) before the device; the OpenGL objects belong to one window's context at a time and
 * are released in that context (ReleaseGLOf).
 *
 * A frame: PrepareFrameBuffer, ChoosePath, ReadOpaqueDepth, the core's render into GetFrameBuffer(), Show (and, when
 * it answers RENDER_AGAIN, a second render and ShowFromHost), then WriteDepth for IntensityDepth.
 */
#ifndef vtkCavrDisplayHelper_h
#define vtkCavrDisplayHelper_h

#include "vtkSmartPointer.h" // for vtkSmartPointer
#include "vtkWeakPointer.h"  // for vtkWeakPointer

#include "cavr/cavr.h"

#include <cstddef> // for size_t
#include <memory>  // for std::unique_ptr
#include <string>  // for std::string
#include <vector>  // for std::vector

class vtkObject;
class vtkOpenGLQuadHelper;
class vtkOpenGLRenderWindow;
class vtkRenderWindow;
class vtkRenderer;
class vtkTextureObject;
class vtkWindow;

class vtkCavrDisplayHelper
{
public:
  vtkCavrDisplayHelper();
  ~vtkCavrDisplayHelper();
  vtkCavrDisplayHelper(const vtkCavrDisplayHelper&) = delete;
  vtkCavrDisplayHelper& operator=(const vtkCavrDisplayHelper&) = delete;

  /**
   * A frame buffer of width x height pixels (the viewport) on `device`, made anew when the size changes (or after
   * ReleaseFrameBuffer). False when the device cannot make it (its error says why; the mapper reports it).
   */
  bool PrepareFrameBuffer(CAVRDevice device, int width, int height);

  /** The frame buffer the core renders into this frame (null before PrepareFrameBuffer). */
  CAVRFrameBuffer GetFrameBuffer() const { return this->FrameBuffer; }

  /**
   * Release the frame buffer (and CUDA's registrations of the GPU textures) and forget the device; the next
   * PrepareFrameBuffer makes a new one. The host path is no longer forced (a texture CUDA refused is tried again).
   * Called before the device is released. The OpenGL objects stay (ReleaseGLOf).
   */
  void ReleaseFrameBuffer();

  /**
   * This frame's display path into `win`: on the GPU when `onGpu` (the CUDA back end renders a whole, not
   * super-sampled volume and the mapper's DisplayPath allows it) unless an earlier frame found that this window's
   * context cannot take the GPU's image; through the memory shared with OpenGL when also `shareMemory` (DISPLAY_AUTO)
   * and the driver takes it, else through GPU textures; otherwise through host memory. Sets the frame buffer's host
   * channels accordingly (none on the GPU paths).
   */
  void ChoosePath(vtkOpenGLRenderWindow* win, bool onGpu, bool shareMemory);

  /**
   * True when the renderer holds a visible prop other than a volume that can draw opaque geometry and has something
   * to draw (initialized bounds): only then is the window's depth buffer read for the rays to stop at.
   */
  static bool HasOpaqueGeometry(vtkRenderer* ren);

  /**
   * The opaque geometry's depth of the viewport (x0, y0, width, height; window pixels) into the frame buffer, so that
   * rays stop there and the quad tests depth: when `opaque` is false, none (rays run to the far plane); read on the GPU
   * (a pixel-pack buffer CUDA copies) when the path is on the GPU and `gpuAsked` (OpaqueDepthPath GPU) and
   * `gpuAllowed` (no IntensityDepth, which needs it on the host) and the read works, else through host memory
   * (GetHostDepth). GetLastDepthPathName says which.
   */
  void ReadOpaqueDepth(
    vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height, bool opaque, bool gpuAsked, bool gpuAllowed);

  /** Show's outcome. */
  enum ShowResult
  {
    SHOWN,        // the image is in the window
    RENDER_AGAIN, // the image is on the GPU but cannot reach this window there: render again, then ShowFromHost
    NOT_SHOWN     // the OpenGL textures or the shader could not be made
  };

  /**
   * Blend the frame buffer's last render (width x height) into the viewport of `win`, premultiplied (ONE,
   * ONE_MINUS_SRC_ALPHA), with its per-pixel depth for the depth test where opaque geometry was drawn: through the
   * shared memory when ChoosePath chose it and the render stayed on the GPU (`renderedOnGpu`), else through the GPU
   * textures when chosen, else from host memory. When the GPU textures cannot reach the window (a context on another
   * GPU, a texture CUDA refuses), the host path is used from then on (the frame buffer copies its planes back) and
   * RENDER_AGAIN asks for this frame to be rendered again; `owner` names the mapper in the debug message that says why.
   */
  ShowResult Show(vtkObject* owner, vtkOpenGLRenderWindow* win, int width, int height, bool renderedOnGpu);

  /** Blend the frame buffer's host planes (width x height) into the viewport of `win`: SHOWN or NOT_SHOWN. */
  ShowResult ShowFromHost(vtkOpenGLRenderWindow* win, int width, int height);

  /**
   * Write `depth` (width x height window depths in [0, 1], rows bottom to top) into the depth buffer of the
   * framebuffer being drawn, over the renderer's viewport (the one in effect), colour untouched: a full-viewport quad
   * whose fragments take their depth from a float texture (as vtkOpenGLRenderWindow::SetZbufferData, but in the
   * framebuffer bound now, which under IceT is the compositing pass's, not the window's). False without an OpenGL
   * window, or when the texture or the shader cannot be made.
   */
  bool WriteDepth(vtkRenderWindow* window, int width, int height, const float* depth);

  /** Release the display's OpenGL objects in the context that holds them, leaving `current` current after. */
  void ReleaseGLOf(vtkWindow* current);

  /** The opaque depth ReadOpaqueDepth read through host memory this frame (width x height window depths). */
  const std::vector<float>& GetHostDepth() const { return this->Depth; }
  /** Whether ReadOpaqueDepth read the opaque depth through host memory this frame (GetHostDepth holds it). */
  bool GetDepthRead() const { return this->DepthRead; }
  /** How the last frame reached the window: "shared", "interop" or "host" ("" before the first). */
  const std::string& GetLastDisplayPathName() const { return this->LastDisplay; }
  /** Where the last frame read the opaque depth: "gpu", "host", "host (<why not the GPU>)" or "none". */
  const std::string& GetLastDepthPathName() const { return this->LastDepthPath; }
  /** Why this window does not use the shared memory ("" when it does, or before it was tried). */
  const std::string& GetSharedWhy() const { return this->SharedWhy; }

private:
  /**
   * The display's OpenGL objects will be made and used in `win` (current). OpenGL names belong to a context: those
   * made in another window that still exists are released with that window's context current (deleted in `win`'s,
   * they would delete `win`'s own objects of the same names), then `win` is made current again; those of a window
   * destroyed without releasing them went with its context and are only forgotten.
   */
  void UseWindow(vtkOpenGLRenderWindow* win);

  /** Drop the names of raw OpenGL objects whose context is gone, so that releasing them makes no OpenGL call (VTK's
      own objects release through their own window). */
  void ForgetGLNames();

  /** The GPU display's textures and quad (interop path), released with the window's context current. */
  void ReleaseGL(vtkWindow* window);

  /** WriteDepth's quad and texture, released with the window's context current. */
  void ReleaseGraphics(vtkWindow* window);

  /**
   * The opaque geometry's depth of the viewport (x0, y0, width, height) read on the GPU: glReadPixels from the
   * window's render framebuffer (as vtkOpenGLRenderWindow::GetZbufferData reads it) into a pixel-pack buffer, which
   * the core copies on the GPU into the frame buffer's device copy (cavrSetFrameBufferOpaqueDepthGLBuffer): no trip
   * through host memory (a multisampled framebuffer is resolved into one of our own first, as GetZbufferData does).
   * Returns false when it cannot (a buffer CUDA refuses, after which the host path is used until the window changes;
   * the first frame in a window, whose GL objects Draw sets up): read through the host then.
   */
  bool OpaqueDepthOnGpu(vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height);

  /** The viewport's depth of a multisampled render framebuffer (bound for reading) into ResolveFramebuffer, bound for
      reading after (OpaqueDepthOnGpu). */
  void ResolveDepth(vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height);

  /**
   * Host pixels (width x height, `components` values of `vtkType` each, rows bottom to top) into `texture`: its
   * storage is made only when the size changes, then filled by glTexSubImage2D from a pixel-unpack buffer kept per
   * upload slot (sized once, refilled with glBufferSubData). Respecifying the texture from client memory on every
   * frame (Create2DFromRaw) made the GL driver malloc and free staging copies of up to 32 MiB several times a frame,
   * which left glibc's heap holding tens of MiB after window resizes (the soak's host RSS,
   * docs/history/benchmarks-2026-11.md). False when the texture or the buffer cannot be made.
   */
  bool UploadTexture(vtkTextureObject* texture, int slot, int width, int height, int components, int vtkType,
    const void* pixels);

  /** The OpenGL side of the shared planes (buffers, texture buffers, memory objects, fence) and the core's sharing. */
  void ReleaseShared(vtkWindow* window);

  /**
   * The shared display path (DISPLAY_AUTO on the GPU): the frame buffer's colour and depth planes shared by the core
   * (cavrShareFrameBufferPlanes: device memory exported as file descriptors) and imported here into two OpenGL buffer
   * objects (GL_EXT_memory_object_fd), read by the quad as texture buffers: CUDA's render leaves the image in memory
   * OpenGL reads, with no map, unmap or copy on the OpenGL side (docs/history/benchmarks-2026-11.md: the hand-over
   * control). Made once per frame buffer; then, before each render, waits for the fence after the last draw from that
   * memory (the render writes it). Returns false (and stays false for this window: the texture interop path is used)
   * when the driver lacks the extension or refuses the memory; SharedWhy says why.
   */
  bool PrepareShared(vtkOpenGLRenderWindow* win);

  /** PrepareShared's import of the two planes into OpenGL: false (with SharedWhy) when refused. */
  bool ImportShared();

  /** Before a render writes the shared memory: wait for the fence after the last draw from it. */
  void WaitForSharedFence();

  /** Give up the shared memory in this window (the texture interop path from now on), with the reason. */
  bool RefuseShared(const std::string& why);

  /** Blend the last render, left in the shared memory by the core, into the window (the quad reads texture
      buffers). */
  CAVRError DrawShared(vtkOpenGLRenderWindow* win, int width, int height);

  /** A full-viewport quad whose fragment shader declares `decl` and runs `impl` (made once), its program made
      current; false when the shader does not build. */
  static bool ReadyQuad(vtkOpenGLRenderWindow* win, std::unique_ptr<vtkOpenGLQuadHelper>& quad, const char* decl,
    const char* impl);

  /** The quad over the viewport, blending premultiplied colour (ONE, ONE_MINUS_SRC_ALPHA), with the depth test
      (LEQUAL, no depth writes) where opaque geometry was drawn this frame (DepthTest) and without it otherwise (the
      depth buffer then holds the far plane, which every sample passes); fragments without colour are discarded (they
      would blend to nothing). The GL state is restored after. */
  void BlendQuad(vtkOpenGLRenderWindow* win, vtkOpenGLQuadHelper* quad);

  /**
   * Draw the last render through two OpenGL textures, the colour (premultiplied RGBA8) and the depth: filled on the
   * GPU from the device planes (fromDevice: cavrCopyFrameBufferToGLTextures) or uploaded from the host planes. A quad
   * over the viewport then blends the colour (ONE, ONE_MINUS_SRC_ALPHA), pixel for texel, with the volume's depth
   * for the depth test (LEQUAL; no depth writes). Returns CAVR_ERROR_NONE when drawn.
   * Each path has its own pair of textures: the GPU path's stay registered with CUDA while frames take the host path,
   * which no longer drops the registrations and respecifies the registered textures' storage on every frame (the
   * soak's host memory swings run to run either way; docs/history/benchmarks-2026-11.md).
   */
  CAVRError Draw(vtkOpenGLRenderWindow* win, int width, int height, bool fromDevice);

  CAVRDevice Device = nullptr; // the device the frame buffer was made on (its errors say why a path is refused)
  CAVRFrameBuffer FrameBuffer = nullptr;
  int FrameBufferSize[2] = { 0, 0 };
  unsigned HostChannels = CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH; // what the frame buffer copies back now
  bool Interop = false; // this frame's path is on the GPU (ChoosePath)
  bool Shared = false;  // ... through the shared memory
  std::vector<float> Depth; // the opaque geometry's depth read through the host this frame, when DepthRead
  bool DepthTest = true;    // this frame's quad tests depth: opaque geometry was drawn (BlendQuad)
  bool DepthRead = false;
  // The display: a colour and a depth texture per path ([0] GPU, [1] host) and a quad (both paths)
  vtkSmartPointer<vtkTextureObject> ColorTexture[2];
  vtkSmartPointer<vtkTextureObject> DepthTexture[2];
  std::unique_ptr<vtkOpenGLQuadHelper> Quad;
  std::unique_ptr<vtkOpenGLQuadHelper> DepthQuad; // WriteDepth's quad and texture
  vtkSmartPointer<vtkTextureObject> ValueDepthTexture;
  // UploadTexture's pixel-unpack buffers: the host path's colour and depth, IntensityDepth's depth.
  enum
  {
    UPLOAD_COLOR,
    UPLOAD_DEPTH,
    UPLOAD_VALUE_DEPTH,
    UPLOADS
  };
  struct Upload
  {
    unsigned Buffer = 0;
    size_t Bytes = 0;
  };
  Upload Uploads[UPLOADS];
  unsigned DepthBuffer = 0; // OpaqueDepthOnGpu's pixel-pack buffer and its size in bytes
  size_t DepthBufferBytes = 0;
  bool DepthBufferRefused = false;
  std::string DepthWhy; // why the last interop frame read the depth through the host
  unsigned ResolveFramebuffer = 0, ResolveRenderbuffer = 0; // OpaqueDepthOnGpu's single-sample depth (multisampling)
  int ResolveSize[2] = { 0, 0 };
  unsigned ResolveFormat = 0;
  // The shared display path (PrepareShared): per plane (colour, depth) the imported memory object, its buffer and the
  // texture buffer over it; the frame buffer they belong to; the fence after the last draw from them; the quad.
  unsigned SharedMemory[2] = { 0, 0 }, SharedBuffer[2] = { 0, 0 }, SharedTexture[2] = { 0, 0 };
  CAVRFrameBuffer SharedFor = nullptr;
  void* SharedFence = nullptr; // a GLsync
  std::unique_ptr<vtkOpenGLQuadHelper> SharedQuad;
  bool SharedRefused = false; // no shared memory in this window: the texture interop path
  bool GLVerified = false;    // a texture frame has shown the window's context on the device's GPU
  std::string SharedWhy;
  // The window whose context holds the display's OpenGL objects (UseWindow); null once that window is destroyed.
  vtkWeakPointer<vtkOpenGLRenderWindow> InteropWindow;
  bool HoldsGL = false;        // OpenGL objects were made in InteropWindow and not released yet
  bool InteropRefused = false; // the window's context is not on the device's GPU: host path until released
  std::string LastDisplay;
  std::string LastDepthPath; // GetLastDepthPathName
};

#endif

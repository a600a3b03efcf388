#include "vtkCavrVolumeMapper.h"
#include "vtkCommand.h"
#include "vtkContourValues.h"

#include "vtkCamera.h"
#include "vtkColorTransferFunction.h"
#include "vtkDataArray.h"
#include "vtkImageData.h"
#include "vtkLight.h"
#include "vtkLightCollection.h"
#include "vtkLogger.h"
#include "vtkNew.h"
#include "vtkMath.h"
#include "vtkMatrix3x3.h"
#include "vtkMatrix4x4.h"
#include "vtkObjectFactory.h"
#include "vtkOpenGLFramebufferObject.h"
#include "vtkOpenGLQuadHelper.h"
#include "vtkOpenGLRenderUtilities.h"
#include "vtkOpenGLRenderWindow.h"
#include "vtkOpenGLShaderCache.h"
#include "vtkOpenGLState.h"
#include "vtkPiecewiseFunction.h"
#include "vtkProp3D.h"
#include "vtkPropCollection.h"
#include "vtkPlane.h"
#include "vtkRenderWindow.h"
#include "vtkRenderer.h"
#include "vtkScalarsToColors.h"
#include "vtkShaderProgram.h"
#include "vtkSmartPointer.h"
#include "vtkWeakPointer.h"
#include "vtkTextureObject.h"
#include "vtkTimerLog.h"
#include "vtkTextureUnitManager.h"
#include "vtkVolume.h"
#include "vtkVolumeProperty.h"
#if __has_include("vtk_glad.h")
#include "vtk_glad.h" // VTK >= 9.4
#define CAVR_GL_EXT_MEMORY_FD (GLAD_GL_EXT_memory_object && GLAD_GL_EXT_memory_object_fd)
#else
#include "vtk_glew.h"
#define CAVR_GL_EXT_MEMORY_FD (GLEW_EXT_memory_object && GLEW_EXT_memory_object_fd)
#endif

#include "cavr/cavr.h"

#if defined(__unix__)
#include <unistd.h> // close(): a file descriptor OpenGL did not take
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace
{
constexpr int TableSize = 1024;

// One phase of a frame in VTK's timer log (ParaView: Tools > Timer Log; a VTK program: vtkTimerLog::LoggingOn()), as
// "cavr Volume: <phase>" events nested in the renderer's: the whole Render(), the render call and the display (image
// into the window); the rest of Render() is the preparation (device, volume, transfer function, settings, camera,
// opaque depth). Nothing is recorded while logging is off, or for a null name; End() ends the event before the scope.
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

// True when the renderer holds a visible prop other than a volume that can draw opaque geometry and has something to
// draw (initialized bounds, as vtkRenderer::ComputeVisiblePropBounds asks): only then is the window's depth buffer
// worth reading back for the rays to stop at (the read waits for OpenGL and copies the viewport's depth every frame).
// ParaView keeps an empty, visible actor in every representation (its selection's): without the bounds test each
// cavr frame in ParaView paid that read for nothing (3.2-3.7 ms at 1024x1024 on an H100; docs/benchmarks.md).
bool HasOpaqueGeometry(vtkRenderer* ren)
{
  vtkPropCollection* props = ren->GetViewProps();
  vtkCollectionSimpleIterator it;
  props->InitTraversal(it);
  while (vtkProp* prop = props->GetNextProp(it))
  {
    if (prop->GetVisibility() && vtkProp3D::SafeDownCast(prop) && !vtkVolume::SafeDownCast(prop) &&
      prop->HasOpaqueGeometry())
    {
      const double* bounds = prop->GetBounds();
      if (bounds && vtkMath::AreBoundsInitialized(bounds))
      {
        return true;
      }
    }
  }
  return false;
}

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
}

//------------------------------------------------------------------------------
class vtkCavrVolumeMapper::vtkInternals
{
public:
  ~vtkInternals() { this->ReleaseAll(); }

  void ReleaseAll()
  {
    this->SharedFor = nullptr; // the frame buffer goes: its address may come back for another one
    if (this->FrameBuffer)
    {
      cavrReleaseFrameBufferGLTextures(this->FrameBuffer); // while the window's context may still be current
    }
    cavrReleaseFrameBuffer(this->FrameBuffer);
    cavrReleaseFrameBuffer(this->ValueFrameBuffer);
    cavrReleaseTransferFunction(this->ValueFunction);
    cavrReleaseRenderSettings(this->Settings);
    cavrReleaseCamera(this->Camera);
    cavrReleaseTransferFunction(this->TransferFunction);
    cavrReleaseVolume(this->Volume);
    cavrReleaseDevice(this->Device);
    this->FrameBuffer = nullptr;
    this->ValueFrameBuffer = nullptr;
    this->ValueFunction = nullptr;
    this->ValueRange[0] = this->ValueRange[1] = 0.0;
    this->ValueDepth.clear();
    this->Settings = nullptr;
    this->Camera = nullptr;
    this->TransferFunction = nullptr;
    this->Volume = nullptr;
    this->Device = nullptr;
    this->VolumeKey.clear();
    this->TableTime = 0;
    this->VolumeReady = false;
    this->HaveVolume = false;
    this->InteropRefused = false;
  }

  /**
   * The display's OpenGL objects will be made and used in `win` (current). OpenGL names belong to a context: those
   * made in another window that still exists are released with that window's context current (deleted in `win`'s,
   * they would delete `win`'s own objects of the same names), then `win` is made current again; those of a window
   * destroyed without releasing them went with its context and are only forgotten.
   */
  void UseWindow(vtkOpenGLRenderWindow* win)
  {
    if (this->InteropWindow == win)
    {
      return;
    }
    this->ReleaseGLOf(win);
    this->InteropWindow = win;
    this->HoldsGL = true;
  }

  /** Release the display's OpenGL objects in the context that holds them, leaving `current` current after. */
  void ReleaseGLOf(vtkWindow* current)
  {
    vtkOpenGLRenderWindow* owner = this->InteropWindow;
    const bool elsewhere = owner && owner != current;
    if (!owner && this->HoldsGL)
    {
      this->ForgetGLNames(); // their window is destroyed and its context took them with it
    }
    if (elsewhere)
    {
      owner->MakeCurrent();
    }
    vtkWindow* holder = owner ? owner : current;
    this->ReleaseGL(holder);
    this->ReleaseGraphics(holder);
    if (elsewhere && current)
    {
      current->MakeCurrent();
    }
    this->HoldsGL = false;
  }

  /** Drop the names of raw OpenGL objects whose context is gone, so that releasing them makes no OpenGL call (VTK's own
      objects release through their own window). */
  void ForgetGLNames()
  {
    this->SharedTexture[0] = this->SharedTexture[1] = this->SharedBuffer[0] = this->SharedBuffer[1] = 0;
    this->SharedMemory[0] = this->SharedMemory[1] = 0;
    this->SharedFence = nullptr;
    this->DepthBuffer = 0;
    for (Upload& u : this->Uploads)
    {
      u.Buffer = 0;
    }
    this->ResolveFramebuffer = this->ResolveRenderbuffer = 0;
  }

  /** The GPU display's textures and quad (interop path), released with the window's context current. */
  void ReleaseGL(vtkWindow* window)
  {
    if (this->FrameBuffer)
    {
      cavrReleaseFrameBufferGLTextures(this->FrameBuffer);
    }
    this->ReleaseShared(window);
    this->SharedRefused = false;
    this->SharedWhy.clear();
    this->GLVerified = false;
    for (int k = 0; k < 2; ++k)
    {
      for (vtkTextureObject* t : { this->ColorTexture[k].GetPointer(), this->DepthTexture[k].GetPointer() })
      {
        if (t)
        {
          t->ReleaseGraphicsResources(window);
        }
      }
      this->ColorTexture[k] = nullptr;
      this->DepthTexture[k] = nullptr;
    }
    if (this->Quad)
    {
      this->Quad->ReleaseGraphicsResources(window);
    }
    this->Quad.reset();
    if (this->DepthBuffer)
    {
      glDeleteBuffers(1, &this->DepthBuffer);
    }
    for (Upload& u : this->Uploads)
    {
      if (u.Buffer)
      {
        glDeleteBuffers(1, &u.Buffer);
      }
      u = Upload();
    }
    if (this->ResolveFramebuffer)
    {
      glDeleteFramebuffers(1, &this->ResolveFramebuffer);
      glDeleteRenderbuffers(1, &this->ResolveRenderbuffer);
    }
    this->ResolveFramebuffer = this->ResolveRenderbuffer = 0;
    this->ResolveSize[0] = this->ResolveSize[1] = 0;
    this->ResolveFormat = 0;
    this->DepthBuffer = 0;
    this->DepthBufferBytes = 0;
    this->DepthBufferRefused = false;
    this->InteropWindow = nullptr;
    this->InteropRefused = false;
  }

  /**
   * The opaque geometry's depth of the viewport (x0, y0, width, height) read on the GPU: glReadPixels from the window's
   * render framebuffer (as vtkOpenGLRenderWindow::GetZbufferData reads it) into a pixel-pack buffer, which the core
   * copies on the GPU into the frame buffer's device copy (cavrSetFrameBufferOpaqueDepthGLBuffer): no trip through
   * host memory (a multisampled framebuffer is resolved into one of our own first, as GetZbufferData does). Returns
   * false when it cannot (a buffer CUDA refuses, after which the host path is used until the window changes; the
   * first frame in a window, whose GL objects Draw sets up): read through the host then.
   */
  bool OpaqueDepthOnGpu(vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height)
  {
    if (this->DepthBufferRefused || this->InteropWindow != win || !win->GetRenderFramebuffer())
    {
      if (!this->DepthBufferRefused)
      {
        this->DepthWhy = this->InteropWindow != win ? "first frame in this window" : "no render framebuffer";
      }
      return false;
    }
    const size_t bytes = sizeof(float) * static_cast<size_t>(width) * height;
    if (!this->DepthBuffer)
    {
      glGenBuffers(1, &this->DepthBuffer);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, this->DepthBuffer);
    if (this->DepthBufferBytes != bytes)
    {
      // New storage only with a new frame buffer (same size), which holds no registration of the old one.
      glBufferData(GL_PIXEL_PACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_COPY);
      this->DepthBufferBytes = bytes;
    }
    vtkOpenGLState* state = win->GetState();
    state->PushReadFramebufferBinding();
    win->GetRenderFramebuffer()->Bind(GL_READ_FRAMEBUFFER);
    win->GetRenderFramebuffer()->ActivateReadBuffer(0);
    int rx = x0, ry = y0;
    if (win->GetBufferNeedsResolving())
    {
      // Multisampled: resolve the viewport's depth into a single-sample framebuffer of our own first, as
      // GetZbufferData does into the window's (a blit of depth needs the same depth format on both sides).
      GLint bits = 0, type = 0;
      glGetFramebufferAttachmentParameteriv(
        GL_READ_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE, &bits);
      glGetFramebufferAttachmentParameteriv(
        GL_READ_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE, &type);
      const GLenum format = type == GL_FLOAT ? GL_DEPTH_COMPONENT32F
        : bits >= 32                         ? GL_DEPTH_COMPONENT32
        : bits == 16                         ? GL_DEPTH_COMPONENT16
                                             : GL_DEPTH_COMPONENT24;
      if (!this->ResolveFramebuffer)
      {
        glGenFramebuffers(1, &this->ResolveFramebuffer);
        glGenRenderbuffers(1, &this->ResolveRenderbuffer);
      }
      if (this->ResolveSize[0] != width || this->ResolveSize[1] != height || this->ResolveFormat != format)
      {
        glBindRenderbuffer(GL_RENDERBUFFER, this->ResolveRenderbuffer);
        glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
        glBindRenderbuffer(GL_RENDERBUFFER, 0);
        this->ResolveSize[0] = width;
        this->ResolveSize[1] = height;
        this->ResolveFormat = format;
      }
      vtkOpenGLState::ScopedglEnableDisable scissorSaver(state, GL_SCISSOR_TEST);
      state->vtkglDisable(GL_SCISSOR_TEST);
      state->PushDrawFramebufferBinding();
      state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, this->ResolveFramebuffer);
      glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, this->ResolveRenderbuffer);
      state->vtkglBlitFramebuffer(
        x0, y0, x0 + width, y0 + height, 0, 0, width, height, GL_DEPTH_BUFFER_BIT, GL_NEAREST);
      state->PopDrawFramebufferBinding();
      state->vtkglBindFramebuffer(GL_READ_FRAMEBUFFER, this->ResolveFramebuffer);
      rx = ry = 0;
    }
    glReadPixels(rx, ry, width, height, GL_DEPTH_COMPONENT, GL_FLOAT, nullptr);
    state->PopReadFramebufferBinding();
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    this->DepthWhy.clear();
    if (cavrSetFrameBufferOpaqueDepthGLBuffer(this->FrameBuffer, this->DepthBuffer) != CAVR_ERROR_NONE)
    {
      const char* why = "";
      cavrGetDeviceError(this->Device, &why); // read (and clear) the reason: a choice of path, not a failure
      this->DepthWhy = why;
      this->DepthBufferRefused = true;
      return false;
    }
    return true;
  }

  /**
   * Host pixels (width x height, `components` values of `vtkType` each, rows bottom to top) into `texture`: its storage
   * is made only when the size changes, then filled by glTexSubImage2D from a pixel-unpack buffer kept per upload slot
   * (sized once, refilled with glBufferSubData). Respecifying the texture from client memory on every frame
   * (Create2DFromRaw) made the GL driver malloc and free staging copies of up to 32 MiB several times a frame, which
   * left glibc's heap holding tens of MiB after window resizes (the soak's host RSS, docs/benchmarks.md).
   * False when the texture or the buffer cannot be made.
   */
  bool UploadTexture(vtkTextureObject* texture, int slot, int width, int height, int components, int vtkType,
    const void* pixels)
  {
    if (static_cast<int>(texture->GetWidth()) != width || static_cast<int>(texture->GetHeight()) != height ||
      !texture->GetHandle())
    {
      if (!texture->Create2D(width, height, components, vtkType, false))
      {
        return false;
      }
    }
    Upload& u = this->Uploads[slot];
    const size_t bytes = static_cast<size_t>(width) * height * components * (vtkType == VTK_FLOAT ? 4 : 1);
    if (!u.Buffer)
    {
      glGenBuffers(1, &u.Buffer);
      u.Bytes = 0;
    }
    if (!u.Buffer)
    {
      return false;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, u.Buffer);
    if (u.Bytes != bytes)
    {
      glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
      u.Bytes = bytes;
    }
    glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), pixels);
    texture->Bind();
    GLint alignment = 4;
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, components == 4 ? GL_RGBA : GL_RED,
      vtkType == VTK_FLOAT ? GL_FLOAT : GL_UNSIGNED_BYTE, nullptr);
    glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return true;
  }

  /** The OpenGL side of the shared planes (buffers, texture buffers, memory objects, fence) and the core's sharing. */
  void ReleaseShared(vtkWindow* window)
  {
    if (this->SharedFor && this->SharedFor == this->FrameBuffer)
    {
      cavrUnshareFrameBufferPlanes(this->FrameBuffer);
    }
    this->SharedFor = nullptr;
    if (this->SharedFence)
    {
      glDeleteSync(static_cast<GLsync>(this->SharedFence));
      this->SharedFence = nullptr;
    }
    for (int c = 0; c < 2; ++c)
    {
      if (this->SharedTexture[c])
      {
        glDeleteTextures(1, &this->SharedTexture[c]);
      }
      if (this->SharedBuffer[c])
      {
        glDeleteBuffers(1, &this->SharedBuffer[c]);
      }
      if (this->SharedMemory[c])
      {
        glDeleteMemoryObjectsEXT(1, &this->SharedMemory[c]);
      }
      this->SharedTexture[c] = this->SharedBuffer[c] = this->SharedMemory[c] = 0;
    }
    if (this->SharedQuad)
    {
      this->SharedQuad->ReleaseGraphicsResources(window);
    }
    this->SharedQuad.reset();
  }

  /**
   * The shared display path (DISPLAY_AUTO on the GPU): the frame buffer's colour and depth planes shared by the core
   * (cavrShareFrameBufferPlanes: device memory exported as file descriptors) and imported here into two OpenGL buffer
   * objects (GL_EXT_memory_object_fd), read by the quad as texture buffers: CUDA's render leaves the image in memory
   * OpenGL reads, with no map, unmap or copy on the OpenGL side (docs/benchmarks.md: the hand-over control). Made once
   * per frame buffer; then, before each render, waits for the fence after the last draw from that memory (the render
   * writes it). Returns false (and stays false for this window: the texture interop path is used) when the driver
   * lacks the extension or refuses the memory; SharedWhy says why.
   */
  bool PrepareShared(vtkOpenGLRenderWindow* win)
  {
    if (this->SharedRefused)
    {
      return false;
    }
    this->UseWindow(win);
    if (!this->GLVerified)
    {
      // The first GPU frame in a window goes through the textures, whose copy checks that the window's context runs
      // on the device's GPU (cudaGLGetDevices); memory imported into a context on another GPU (or a software
      // renderer) would import without an error and draw garbage.
      return false;
    }
    if (this->SharedFor != this->FrameBuffer)
    {
      this->ReleaseShared(win);
      if (!CAVR_GL_EXT_MEMORY_FD || !glCreateMemoryObjectsEXT || !glImportMemoryFdEXT || !glBufferStorageMemEXT ||
        !glDeleteMemoryObjectsEXT || !glTexBuffer)
      {
        return this->RefuseShared("the OpenGL context has no GL_EXT_memory_object_fd");
      }
      int fds[2] = { -1, -1 };
      unsigned long long bytes[2] = { 0, 0 };
      if (cavrShareFrameBufferPlanes(this->FrameBuffer, fds, bytes) != CAVR_ERROR_NONE)
      {
        const char* why = "";
        cavrGetDeviceError(this->Device, &why); // read (and clear) the reason: a choice of path, not a failure
        return this->RefuseShared(why);
      }
      while (glGetError() != GL_NO_ERROR)
      {
      }
      const GLenum formats[2] = { GL_RGBA8, GL_R32F };
      GLenum err = GL_NO_ERROR;
      for (int c = 0; c < 2; ++c)
      {
        glCreateMemoryObjectsEXT(1, &this->SharedMemory[c]);
        glImportMemoryFdEXT(this->SharedMemory[c], bytes[c], GL_HANDLE_TYPE_OPAQUE_FD_EXT, fds[c]);
        err = glGetError();
        if (err != GL_NO_ERROR)
        {
          // Not imported: the descriptors are still ours (this one and the next).
#if defined(__unix__)
          for (int k = c; k < 2; ++k)
          {
            close(fds[k]);
          }
#endif
          break;
        }
        glGenBuffers(1, &this->SharedBuffer[c]);
        glBindBuffer(GL_TEXTURE_BUFFER, this->SharedBuffer[c]);
        glBufferStorageMemEXT(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(bytes[c]), this->SharedMemory[c], 0);
        glGenTextures(1, &this->SharedTexture[c]);
        glBindTexture(GL_TEXTURE_BUFFER, this->SharedTexture[c]);
        glTexBuffer(GL_TEXTURE_BUFFER, formats[c], this->SharedBuffer[c]);
      }
      glBindTexture(GL_TEXTURE_BUFFER, 0);
      glBindBuffer(GL_TEXTURE_BUFFER, 0);
      if (err == GL_NO_ERROR)
      {
        err = glGetError();
      }
      this->SharedFor = this->FrameBuffer;
      if (err != GL_NO_ERROR)
      {
        return this->RefuseShared("OpenGL did not import CUDA's memory (GL error " + std::to_string(err) + ")");
      }
    }
    if (this->SharedFence)
    {
      // The last draw from the shared memory must be done before the render writes it again (usually it is: the
      // status is read first, without the flush a wait makes).
      GLint status = GL_UNSIGNALED;
      glGetSynciv(static_cast<GLsync>(this->SharedFence), GL_SYNC_STATUS, 1, nullptr, &status);
      GLenum waited = status == GL_SIGNALED ? GL_ALREADY_SIGNALED : GL_TIMEOUT_EXPIRED;
      for (int k = 0; k < 10 && waited == GL_TIMEOUT_EXPIRED; ++k)
      {
        waited = glClientWaitSync(static_cast<GLsync>(this->SharedFence), GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000ull);
      }
      if (waited != GL_ALREADY_SIGNALED && waited != GL_CONDITION_SATISFIED)
      {
        glFinish(); // the wait failed: wait for everything instead
      }
      glDeleteSync(static_cast<GLsync>(this->SharedFence));
      this->SharedFence = nullptr;
    }
    return true;
  }

  bool RefuseShared(const std::string& why)
  {
    this->ReleaseShared(this->InteropWindow);
    this->SharedRefused = true;
    this->SharedWhy = why;
    return false;
  }

  /** Blend the last render, left in the shared memory by the core, into the window (the quad reads texture buffers). */
  CAVRError DrawShared(vtkOpenGLRenderWindow* win, int width, int height)
  {
    if (!ReadyQuad(win, this->SharedQuad,
          "uniform samplerBuffer cavrColor;\nuniform samplerBuffer cavrDepth;\nuniform ivec2 cavrSize;\n"
          "uniform int cavrUseDepth;\n",
          "  ivec2 p = clamp(ivec2(texCoord * vec2(cavrSize)), ivec2(0), cavrSize - 1);\n"
          "  int i = p.x + cavrSize.x * p.y;\n"
          "  vec4 c = texelFetch(cavrColor, i);\n"
          "  if (c == vec4(0.0)) discard;\n"
          "  gl_FragData[0] = c;\n"
          "  gl_FragDepth = cavrUseDepth != 0 ? texelFetch(cavrDepth, i).r : gl_FragCoord.z;\n"))
    {
      return CAVR_ERROR_UNSUPPORTED;
    }
    vtkTextureUnitManager* units = win->GetTextureUnitManager();
    const int unit[2] = { units->Allocate(), units->Allocate() };
    if (unit[0] < 0 || unit[1] < 0)
    {
      for (int u : unit)
      {
        if (u >= 0)
        {
          units->Free(u);
        }
      }
      return CAVR_ERROR_UNSUPPORTED;
    }
    // Through VTK's state (it caches the active unit): a raw glActiveTexture left VTK binding later textures on the
    // wrong unit (the next host-path frame drew the previous picture).
    vtkOpenGLState* state = win->GetState();
    vtkOpenGLState::ScopedglActiveTexture activeSaver(state);
    for (int c = 0; c < 2; ++c)
    {
      state->vtkglActiveTexture(GL_TEXTURE0 + unit[c]);
      glBindTexture(GL_TEXTURE_BUFFER, this->SharedTexture[c]);
    }
    vtkShaderProgram* program = this->SharedQuad->Program;
    program->SetUniformi("cavrColor", unit[0]);
    program->SetUniformi("cavrDepth", unit[1]);
    const int size[2] = { width, height };
    program->SetUniform2i("cavrSize", size);
    program->SetUniformi("cavrUseDepth", this->DepthTest ? 1 : 0); // the depth is read only for the depth test
    this->BlendQuad(win, this->SharedQuad.get());
    for (int c = 0; c < 2; ++c)
    {
      state->vtkglActiveTexture(GL_TEXTURE0 + unit[c]);
      glBindTexture(GL_TEXTURE_BUFFER, 0);
      units->Free(unit[c]);
    }
    this->SharedFence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    return CAVR_ERROR_NONE;
  }

  /** A full-viewport quad whose fragment shader declares `decl` and runs `impl` (made once), its program made
      current; false when the shader does not build. */
  static bool ReadyQuad(vtkOpenGLRenderWindow* win, std::unique_ptr<vtkOpenGLQuadHelper>& quad, const char* decl,
    const char* impl)
  {
    if (!quad)
    {
      std::string fs = vtkOpenGLRenderUtilities::GetFullScreenQuadFragmentShaderTemplate();
      vtkShaderProgram::Substitute(fs, "//VTK::FSQ::Decl", decl);
      vtkShaderProgram::Substitute(fs, "//VTK::FSQ::Impl", impl);
      quad.reset(new vtkOpenGLQuadHelper(
        win, vtkOpenGLRenderUtilities::GetFullScreenQuadVertexShader().c_str(), fs.c_str(), ""));
    }
    if (!quad->Program)
    {
      return false;
    }
    win->GetShaderCache()->ReadyShaderProgram(quad->Program);
    return true;
  }

  /** The quad over the viewport, blending premultiplied colour (ONE, ONE_MINUS_SRC_ALPHA), with the depth test
      (LEQUAL, no depth writes) where opaque geometry was drawn this frame (DepthTest) and without it otherwise (the
      depth buffer then holds the far plane, which every sample passes); fragments without colour are discarded (they
      would blend to nothing). The GL state is restored after. */
  void BlendQuad(vtkOpenGLRenderWindow* win, vtkOpenGLQuadHelper* quad)
  {
    vtkOpenGLState* state = win->GetState();
    vtkOpenGLState::ScopedglEnableDisable blendSaver(state, GL_BLEND);
    vtkOpenGLState::ScopedglEnableDisable depthSaver(state, GL_DEPTH_TEST);
    vtkOpenGLState::ScopedglBlendFuncSeparate blendFuncSaver(state);
    vtkOpenGLState::ScopedglDepthMask depthMaskSaver(state);
    vtkOpenGLState::ScopedglDepthFunc depthFuncSaver(state);
    state->vtkglEnable(GL_BLEND);
    state->vtkglBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    if (this->DepthTest)
    {
      state->vtkglEnable(GL_DEPTH_TEST);
      state->vtkglDepthFunc(GL_LEQUAL);
    }
    else
    {
      state->vtkglDisable(GL_DEPTH_TEST);
    }
    state->vtkglDepthMask(GL_FALSE);
    quad->Render();
  }

  /**
   * Draw the last render through two OpenGL textures, the colour (premultiplied RGBA8) and the depth: filled on the
   * GPU from the device planes (fromDevice: cavrCopyFrameBufferToGLTextures) or uploaded from the host planes. A quad
   * over the viewport then blends the colour (ONE, ONE_MINUS_SRC_ALPHA), pixel for texel, with the volume's depth
   * for the depth test (LEQUAL; no depth writes). Returns CAVR_ERROR_NONE when drawn.
   * Each path has its own pair of textures: the GPU path's stay registered with CUDA while frames take the host path,
   * which no longer drops the registrations and respecifies the registered textures' storage on every frame (the
   * soak's host memory swings run to run either way; docs/benchmarks.md, issue 14 item 5).
   */
  CAVRError Draw(vtkOpenGLRenderWindow* win, int width, int height, bool fromDevice)
  {
    this->UseWindow(win);
    const int k = fromDevice ? 0 : 1;
    vtkSmartPointer<vtkTextureObject>& color = this->ColorTexture[k];
    vtkSmartPointer<vtkTextureObject>& depthTexture = this->DepthTexture[k];
    if (!color)
    {
      color = vtkSmartPointer<vtkTextureObject>::New();
      depthTexture = vtkSmartPointer<vtkTextureObject>::New();
      color->SetContext(win);
      depthTexture->SetContext(win);
    }
    const bool resized = static_cast<int>(color->GetWidth()) != width ||
      static_cast<int>(color->GetHeight()) != height || !color->GetHandle();
    if (fromDevice)
    {
      if (resized)
      {
        // New storage under the same names: registrations of the old storage must go first.
        cavrReleaseFrameBufferGLTextures(this->FrameBuffer);
        if (!color->Create2D(width, height, 4, VTK_UNSIGNED_CHAR, false) ||
          !depthTexture->Create2D(width, height, 1, VTK_FLOAT, false))
        {
          return CAVR_ERROR_UNSUPPORTED;
        }
      }
      unsigned textures[3] = { 0, 0, 0 };
      textures[CAVR_FB_COLOR_RGBA8] = color->GetHandle();
      textures[CAVR_FB_DEPTH] = depthTexture->GetHandle();
      const CAVRError e = cavrCopyFrameBufferToGLTextures(this->FrameBuffer, textures);
      if (e != CAVR_ERROR_NONE)
      {
        return e;
      }
    }
    else if (!this->UploadTexture(color, UPLOAD_COLOR, width, height, 4, VTK_UNSIGNED_CHAR,
               cavrGetFrameBufferData(this->FrameBuffer, CAVR_FB_COLOR_RGBA8)) ||
      !this->UploadTexture(depthTexture, UPLOAD_DEPTH, width, height, 1, VTK_FLOAT,
        cavrGetFrameBufferData(this->FrameBuffer, CAVR_FB_DEPTH)))
    {
      return CAVR_ERROR_UNSUPPORTED;
    }
    if (!ReadyQuad(win, this->Quad,
          "uniform sampler2D cavrColor;\nuniform sampler2D cavrDepth;\nuniform int cavrUseDepth;\n",
          "  vec4 c = texture(cavrColor, texCoord);\n"
          "  if (c == vec4(0.0)) discard;\n"
          "  gl_FragData[0] = c;\n"
          "  gl_FragDepth = cavrUseDepth != 0 ? texture(cavrDepth, texCoord).r : gl_FragCoord.z;\n"))
    {
      return CAVR_ERROR_UNSUPPORTED;
    }
    color->Activate();
    depthTexture->Activate();
    this->Quad->Program->SetUniformi("cavrColor", color->GetTextureUnit());
    this->Quad->Program->SetUniformi("cavrDepth", depthTexture->GetTextureUnit());
    this->Quad->Program->SetUniformi("cavrUseDepth", this->DepthTest ? 1 : 0);
    this->BlendQuad(win, this->Quad.get());
    depthTexture->Deactivate();
    color->Deactivate();
    return CAVR_ERROR_NONE;
  }

  /** The device's first error as "CODE: message". */
  std::string DeviceError(CAVRError code)
  {
    const char* msg = "";
    CAVRError first = cavrGetDeviceError(this->Device, &msg);
    return std::string(cavrGetErrorString(first != CAVR_ERROR_NONE ? first : code)) + ": " + msg;
  }

  CAVRDevice Device = nullptr;
  int DeviceBackend = -1;
  int DeviceGpu = -1; // the GpuIndex the device was made for
  std::string DeviceNote;
  CAVRVolume Volume = nullptr;
  CAVRTransferFunction TransferFunction = nullptr;
  CAVRCamera Camera = nullptr;
  CAVRRenderSettings Settings = nullptr;
  CAVRFrameBuffer FrameBuffer = nullptr;
  int FrameBufferSize[2] = { 0, 0 };
  // IntensityDepth: the ramp transfer function over ValueRange and the float frame of its render.
  CAVRTransferFunction ValueFunction = nullptr;
  CAVRFrameBuffer ValueFrameBuffer = nullptr;
  double TableRange[2] = { 0.0, 1.0 }; // the transfer function's range, scalar units
  double ValueRange[2] = { 0.0, 0.0 };
  std::vector<float> ValueDepth;
  std::unique_ptr<vtkOpenGLQuadHelper> DepthQuad; // WriteDepth's quad and texture
  vtkSmartPointer<vtkTextureObject> ValueDepthTexture;

  /**
   * IntensityDepth's window depths (width x height, the viewport's pixels) into ValueDepth: render the ramp
   * transfer function (colour = the scalar's place in TableRange) with the current settings, opaque depth and
   * camera, and encode each covered pixel's maximum (minimum) as vtkCavrVolumeMapper::SetIntensityDepth says;
   * pixels without a sample keep the opaque geometry's depth (Depth when DepthRead, else 1, the far plane).
   */
  CAVRError IntensityDepths(int width, int height, bool minimum)
  {
    CAVRError e = CAVR_ERROR_NONE;
    if (!this->ValueFunction)
    {
      this->ValueFunction = cavrNewTransferFunction(this->Device);
    }
    if (this->ValueFunction &&
      (this->ValueRange[0] != this->TableRange[0] || this->ValueRange[1] != this->TableRange[1]))
    {
      std::vector<float> ramp(4 * TableSize);
      for (int i = 0; i < TableSize; ++i)
      {
        const float u = static_cast<float>(i) / (TableSize - 1);
        ramp[4 * i] = ramp[4 * i + 1] = ramp[4 * i + 2] = u;
        ramp[4 * i + 3] = 1.0f;
      }
      e = cavrSetTransferFunctionTable(
        this->ValueFunction, ramp.data(), TableSize, this->TableRange[0], this->TableRange[1]);
      if (e == CAVR_ERROR_NONE)
      {
        e = cavrCommitTransferFunction(this->ValueFunction);
      }
      if (e != CAVR_ERROR_NONE)
      {
        return e;
      }
      std::copy(this->TableRange, this->TableRange + 2, this->ValueRange);
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
    const bool opaque = this->DepthRead; // else nothing limits the rays and "far" is 1
    cavrSetFrameBufferOpaqueDepth(this->ValueFrameBuffer, opaque ? this->Depth.data() : nullptr, this->Depth.size());
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
        rgba[4 * i + 3] > 0.0f ? (minimum ? 0.25f + 0.5f * u : 0.75f - 0.5f * u) : (opaque ? this->Depth[i] : 1.0f);
    }
    return CAVR_ERROR_NONE;
  }

  /**
   * Write ValueDepth (width x height) into the depth buffer of the framebuffer being drawn, over the renderer's
   * viewport (the one in effect), colour untouched: a full-viewport quad whose fragments take their depth from a
   * float texture (as vtkOpenGLRenderWindow::SetZbufferData, but in the framebuffer bound now, which under IceT
   * is the compositing pass's, not the window's). False without an OpenGL window.
   */
  bool WriteDepth(vtkRenderWindow* window, int width, int height)
  {
    vtkOpenGLRenderWindow* gl = vtkOpenGLRenderWindow::SafeDownCast(window);
    if (!gl)
    {
      return false;
    }
    if (!this->ValueDepthTexture)
    {
      this->ValueDepthTexture = vtkSmartPointer<vtkTextureObject>::New();
    }
    this->ValueDepthTexture->SetContext(gl);
    this->ValueDepthTexture->SetMinificationFilter(vtkTextureObject::Nearest);
    this->ValueDepthTexture->SetMagnificationFilter(vtkTextureObject::Nearest);
    if (!this->UploadTexture(
          this->ValueDepthTexture, UPLOAD_VALUE_DEPTH, width, height, 1, VTK_FLOAT, this->ValueDepth.data()))
    {
      return false;
    }
    if (!this->DepthQuad)
    {
      this->DepthQuad.reset(new vtkOpenGLQuadHelper(gl, nullptr,
        "//VTK::System::Dec\n"
        "in vec2 texCoord;\n"
        "uniform sampler2D depthSource;\n"
        "//VTK::Output::Dec\n"
        "void main(void) { gl_FragDepth = texture(depthSource, texCoord).r; }\n",
        ""));
    }
    else
    {
      gl->GetShaderCache()->ReadyShaderProgram(this->DepthQuad->Program);
    }
    if (!this->DepthQuad->Program)
    {
      return false;
    }
    vtkOpenGLState* state = gl->GetState();
    vtkOpenGLState::ScopedglColorMask colorMask(state);
    vtkOpenGLState::ScopedglDepthFunc depthFunc(state);
    vtkOpenGLState::ScopedglDepthMask depthMask(state);
    vtkOpenGLState::ScopedglEnableDisable depthTest(state, GL_DEPTH_TEST);
    state->vtkglColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    state->vtkglEnable(GL_DEPTH_TEST);
    state->vtkglDepthFunc(GL_ALWAYS);
    state->vtkglDepthMask(GL_TRUE);
    this->ValueDepthTexture->Activate();
    this->DepthQuad->Program->SetUniformi("depthSource", this->ValueDepthTexture->GetTextureUnit());
    this->DepthQuad->Render();
    this->ValueDepthTexture->Deactivate();
    return true;
  }

  void ReleaseGraphics(vtkWindow* window)
  {
    if (this->DepthQuad)
    {
      this->DepthQuad->ReleaseGraphicsResources(window);
      this->DepthQuad.reset();
    }
    if (this->ValueDepthTexture)
    {
      this->ValueDepthTexture->ReleaseGraphicsResources(window);
      this->ValueDepthTexture = nullptr;
    }
  }
  std::vector<unsigned long long> VolumeKey; // identifies the uploaded array and its modification time
  bool VolumeReady = false; // the input's current array is uploaded
  bool CropFlagsWarned = false;
  int SupersamplingWarned = 0; // the unsupported rays-per-pixel value last warned about
  std::string SliceWarning; // the last slice-function problem reported (once per distinct problem)
  bool LightsWarned = false;
  bool HaveVolume = false;  // a volume was committed (the last good one renders while the input is bad)
  bool RenderExtentSet = false;
  int RenderExtent[6] = { 0, -1, 0, -1, 0, -1 };
  double Origin[3] = { 0, 0, 0 };
  vtkMTimeType TableTime = 0;
  std::vector<float> Table;
  std::vector<float> Derived; // the magnitude or one component of a vector array, uploaded as float
  std::vector<float> Depth; // the opaque geometry's depth read through the host this frame, when DepthRead
  bool DepthTest = true;     // this frame's quad tests depth: opaque geometry was drawn (BlendQuad)
  bool DepthRead = false;
  std::string LastBackend;
  std::string LastDevice; // cavrGetDeviceName of the last render's device
  std::string LastError;
  // The display: a colour and a depth texture per path ([0] GPU, [1] host) and a quad (both paths)
  vtkSmartPointer<vtkTextureObject> ColorTexture[2];
  vtkSmartPointer<vtkTextureObject> DepthTexture[2];
  std::unique_ptr<vtkOpenGLQuadHelper> Quad;
  // UploadTexture's pixel-unpack buffers: the host path's colour and depth, IntensityDepth's depth.
  enum { UPLOAD_COLOR, UPLOAD_DEPTH, UPLOAD_VALUE_DEPTH, UPLOADS };
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
  bool HoldsGL = false; // OpenGL objects were made in InteropWindow and not released yet
  bool InteropRefused = false; // the window's context is not on the device's GPU: host path until released
  unsigned HostChannels = CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH; // what the frame buffer copies back now
  std::string LastDisplay;
  std::string LastDepthPath; // GetLastOpaqueDepthPathName
};

vtkStandardNewMacro(vtkCavrVolumeMapper);

//------------------------------------------------------------------------------
vtkCavrVolumeMapper::vtkCavrVolumeMapper()
  : Internals(new vtkInternals)
{
}

//------------------------------------------------------------------------------
vtkCavrVolumeMapper::~vtkCavrVolumeMapper() = default;

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
  return this->Internals->LastDisplay.c_str();
}

//------------------------------------------------------------------------------
const char* vtkCavrVolumeMapper::GetLastOpaqueDepthPathName()
{
  return this->Internals->LastDepthPath.c_str();
}

//------------------------------------------------------------------------------
void vtkCavrVolumeMapper::ReleaseGraphicsResources(vtkWindow* window)
{
  this->Internals->ReleaseGLOf(window);
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
  // Report each distinct problem once; a good frame clears it. Nothing is drawn on error.
  auto fail = [&](const std::string& msg) {
    if (msg != in.LastError)
    {
      vtkErrorMacro(<< "cavr Volume: " << msg);
      in.LastError = msg;
    }
  };

  // 1. The device (recreated when the back end or the GPU changes).
  if (!in.Device || in.DeviceBackend != this->Backend || in.DeviceGpu != this->GpuIndex)
  {
    in.ReleaseAll();
    CAVRBackend wanted = static_cast<CAVRBackend>(this->Backend);
    in.Device = cavrNewDeviceOnGpu(wanted, this->GpuIndex);
    if (!in.Device && wanted == CAVR_BACKEND_CUDA)
    {
      const char* msg = "";
      cavrGetDeviceError(nullptr, &msg);
      vtkWarningMacro(<< "cavr Volume: CUDA back end unavailable (" << msg << "); rendering on the CPU.");
      in.Device = cavrNewDevice(CAVR_BACKEND_CPU);
    }
    if (!in.Device)
    {
      const char* msg = "";
      cavrGetDeviceError(nullptr, &msg);
      fail(std::string("cannot create a cavr device: ") + msg);
      return;
    }
    in.DeviceBackend = this->Backend;
    in.DeviceGpu = this->GpuIndex;
    in.LastBackend.clear(); // a new device: the next frame names it (GetLastDeviceName, the log)
    in.Volume = cavrNewVolume(in.Device);
    in.TransferFunction = cavrNewTransferFunction(in.Device);
    in.Camera = cavrNewCamera(in.Device);
    in.Settings = cavrNewRenderSettings(in.Device);
    if (!in.Volume || !in.TransferFunction || !in.Camera || !in.Settings)
    {
      fail(in.DeviceError(CAVR_ERROR_OUT_OF_MEMORY));
      in.ReleaseAll();
      return;
    }
    vtkDebugMacro(<< "cavr device: " << cavrGetDeviceName(in.Device));
    // The core reports a GPU out-of-memory fallback (the volume then renders on the CPU) through the
    // error callback without failing: show it as a warning. Errors are reported where they are returned.
    cavrSetDeviceErrorCallback(in.Device,
      [](void* user, CAVRError code, const char* message) {
        if (code == CAVR_ERROR_CUDA_OUT_OF_MEMORY)
        {
          vtkCavrVolumeMapper* self = static_cast<vtkCavrVolumeMapper*>(user);
          vtkWarningWithObjectMacro(self, << "cavr Volume: " << message);
        }
      },
      this);
  }
  cavrSetDeviceThreadCount(in.Device, this->NumberOfThreads);

  // 2. The volume: a single-component scalar array of vtkImageData, point or cell data. When the input
  //    cannot be rendered (wrong type, empty, one voxel thick, NaN or Inf values, not a uniform grid), the
  //    error goes to the output window once and the last good volume stays on screen.
  auto updateVolume = [&]() -> bool {
  vtkImageData* image = vtkImageData::SafeDownCast(this->GetDataSetInput());
  if (!image)
  {
    fail(this->GetDataSetInput() ? "only uniform grids (vtkImageData) are supported; use 'Resample To Image' first"
                                 : "no input");
    return false;
  }
  int cellFlag = 0;
  vtkDataArray* scalars = vtkAbstractMapper::GetScalars(image, this->ScalarMode, this->ArrayAccessMode,
    this->ArrayId, this->ArrayName, cellFlag);
  if (!scalars)
  {
    fail("no scalar array selected (use ColorBy to pick a point or cell array)");
    return false;
  }
  // Vector and multi-component arrays as ParaView's GPU mapper draws them: the colour map's vector mode
  // (Color By's component menu) picks the magnitude or one component, rendered as a float volume.
  const int components = scalars->GetNumberOfComponents();
  int vectorMode = -1, vectorComponent = 0;
  if (components > 1)
  {
    vtkColorTransferFunction* lut = vol->GetProperty()->GetRGBTransferFunction(0);
    if (!vol->GetProperty()->GetIndependentComponents())
    {
      fail(std::string("array '") + (scalars->GetName() ? scalars->GetName() : "") + "' has " +
        std::to_string(components) + " components to be used as colours directly (Map Scalars off); cavr Volume "
        "maps one value per voxel: turn Map Scalars on and pick the magnitude or a component");
      return false;
    }
    vectorMode = lut->GetVectorMode();
    vectorComponent = std::min(std::max(lut->GetVectorComponent(), 0), components - 1);
    if (vectorMode != vtkScalarsToColors::MAGNITUDE && vectorMode != vtkScalarsToColors::COMPONENT)
    {
      fail(std::string("array '") + (scalars->GetName() ? scalars->GetName() : "") +
        "': the colour map's vector mode is RGB colours; cavr Volume draws the magnitude or one component");
      return false;
    }
  }
  CAVRScalarType type = CAVR_FLOAT32;
  switch (components > 1 ? VTK_FLOAT : scalars->GetDataType())
  {
    case VTK_UNSIGNED_CHAR:
      type = CAVR_UINT8;
      break;
    case VTK_SIGNED_CHAR:
    case VTK_CHAR:
      type = CAVR_INT8;
      break;
    case VTK_UNSIGNED_SHORT:
      type = CAVR_UINT16;
      break;
    case VTK_SHORT:
      type = CAVR_INT16;
      break;
    case VTK_FLOAT:
      type = CAVR_FLOAT32;
      break;
    case VTK_UNSIGNED_INT:
      type = CAVR_UINT32;
      break;
    case VTK_INT:
      type = CAVR_INT32;
      break;
    case VTK_DOUBLE:
      type = CAVR_FLOAT64;
      break;
    default:
      fail(std::string("array '") + (scalars->GetName() ? scalars->GetName() : "") + "' has type " +
        scalars->GetDataTypeAsString() + ", which cavr does not support (use 8/16/32-bit integers, float or double)");
      return false;
  }
  int extent[6];
  image->GetExtent(extent);
  double spacing[3], origin[3], first[3];
  image->GetSpacing(spacing);
  image->GetOrigin(origin);
  int dims[3];
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
    vtkWarningMacro(<< "cavr Volume ignores the image's direction matrix (rendered axis-aligned).");
  }
  // The piece's own part (ghost layers excluded), in this piece's voxel indices; point data only.
  int local[6] = { 0, -1, 0, -1, 0, -1 };
  if (!cellFlag && this->RenderExtent[0] <= this->RenderExtent[1])
  {
    for (int a = 0; a < 3; ++a)
    {
      local[2 * a] = std::max(this->RenderExtent[2 * a] - extent[2 * a], 0);
      local[2 * a + 1] = std::min(this->RenderExtent[2 * a + 1] - extent[2 * a], dims[a] - 1);
    }
  }
  // Upload when the array, its contents or the geometry changed.
  const std::vector<unsigned long long> key = { reinterpret_cast<unsigned long long>(scalars),
    static_cast<unsigned long long>(scalars->GetMTime()), static_cast<unsigned long long>(image->GetMTime()),
    static_cast<unsigned long long>(cellFlag), reinterpret_cast<unsigned long long>(in.Volume),
    static_cast<unsigned long long>(vectorMode + 1), static_cast<unsigned long long>(vectorComponent) };
  if (key != in.VolumeKey)
  {
    in.VolumeReady = false;
    in.VolumeKey = key;
    in.LastError.clear(); // new data: report its problem even if it reads as the last one did
    if (dims[0] < 2 || dims[1] < 2 || dims[2] < 2)
    {
      fail(std::string("the ") + (cellFlag ? "cell" : "point") + " array '" +
        (scalars->GetName() ? scalars->GetName() : "") + "' spans " + std::to_string(std::max(dims[0], 0)) + " x " +
        std::to_string(std::max(dims[1], 0)) + " x " + std::to_string(std::max(dims[2], 0)) +
        " voxels: cavr Volume needs at least 2 voxels along each axis (" +
        (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 ? "the volume is empty" : "a 1-voxel-thick image is a slice: show it as a Slice") +
        "); keeping the last good volume");
      return false;
    }
    size_t bytes = static_cast<size_t>(scalars->GetNumberOfTuples()) * scalars->GetDataTypeSize();
    const void* voxels = scalars->GetVoidPointer(0);
    if (components > 1)
    {
      // The magnitude or the chosen component, one float per voxel (as vtkSmartVolumeMapper derives them).
      const vtkIdType n = scalars->GetNumberOfTuples();
      in.Derived.resize(static_cast<size_t>(n));
      std::vector<double> tuple(components);
      for (vtkIdType i = 0; i < n; ++i)
      {
        scalars->GetTuple(i, tuple.data());
        double v = 0.0;
        if (vectorMode == vtkScalarsToColors::MAGNITUDE)
        {
          for (int c = 0; c < components; ++c)
          {
            v += tuple[c] * tuple[c];
          }
          v = std::sqrt(v);
        }
        else
        {
          v = tuple[vectorComponent];
        }
        in.Derived[static_cast<size_t>(i)] = static_cast<float>(v);
      }
      voxels = in.Derived.data();
      bytes = in.Derived.size() * sizeof(float);
    }
    CAVRError e = cavrSetVolumeData(in.Volume, type, dims, voxels, bytes);
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrSetVolumeSpacing(in.Volume, spacing);
    }
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrSetVolumeOrigin(in.Volume, first);
    }
    // The whole volume's render extent goes with the voxels into one commit (a volume too large for the GPU is then
    // tried, and reported, once); a piece's own extent is committed on its own below, so that a bad one keeps the
    // voxels.
    in.RenderExtentSet = false;
    if (e == CAVR_ERROR_NONE && local[0] > local[1])
    {
      e = cavrSetVolumeRenderExtent(in.Volume, nullptr);
      in.RenderExtentSet = e == CAVR_ERROR_NONE;
      std::copy(local, local + 6, in.RenderExtent);
    }
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrCommitVolume(in.Volume);
    }
    if (e != CAVR_ERROR_NONE)
    {
      fail(in.DeviceError(e) + (in.HaveVolume ? "; keeping the last good volume" : ""));
      return false;
    }
    std::copy(first, first + 3, in.Origin);
    in.VolumeReady = true;
    in.HaveVolume = true;
  }
  if (!in.VolumeReady)
  {
    return false; // the same bad data as last time: already reported
  }
  if (!in.RenderExtentSet || !std::equal(local, local + 6, in.RenderExtent))
  {
    bool whole = local[0] > local[1];
    CAVRError e = cavrSetVolumeRenderExtent(in.Volume, whole ? nullptr : local);
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrCommitVolume(in.Volume);
    }
    if (e != CAVR_ERROR_NONE)
    {
      fail(in.DeviceError(e));
      return false;
    }
    std::copy(local, local + 6, in.RenderExtent);
    in.RenderExtentSet = true;
  }
  return true;
  };
  bool fresh = false;
  {
    TimerEvent volumeEvent("cavr Volume: volume");
    fresh = updateVolume();
  }
  if (!fresh && !in.HaveVolume)
  {
    return; // nothing good to show yet
  }

  // 3. Transfer function from the volume property (colour + scalar opacity), sampled over their range.
  vtkVolumeProperty* prop = vol->GetProperty();
  vtkColorTransferFunction* ctf = prop->GetRGBTransferFunction(0);
  vtkPiecewiseFunction* otf = prop->GetScalarOpacity(0);
  vtkMTimeType tableTime = std::max(ctf->GetMTime(), otf->GetMTime());
  if (tableTime != in.TableTime)
  {
    double range[2], orange[2];
    ctf->GetRange(range);
    otf->GetRange(orange);
    if (orange[0] < orange[1])
    {
      range[0] = range[0] < range[1] ? std::min(range[0], orange[0]) : orange[0];
      range[1] = range[0] < range[1] ? std::max(range[1], orange[1]) : orange[1];
    }
    if (!(range[0] < range[1]))
    {
      range[0] -= 0.5;
      range[1] += 0.5;
    }
    std::vector<float> rgb(3 * TableSize), alpha(TableSize);
    ctf->GetTable(range[0], range[1], TableSize, rgb.data());
    otf->GetTable(range[0], range[1], TableSize, alpha.data());
    in.Table.resize(4 * TableSize);
    for (int i = 0; i < TableSize; ++i)
    {
      for (int c = 0; c < 3; ++c)
      {
        in.Table[4 * i + c] = std::min(std::max(rgb[3 * i + c], 0.0f), 1.0f);
      }
      in.Table[4 * i + 3] = std::min(std::max(alpha[i], 0.0f), 1.0f);
    }
    in.TableRange[0] = range[0];
    in.TableRange[1] = range[1];
    CAVRError e = cavrSetTransferFunctionTable(in.TransferFunction, in.Table.data(), TableSize, range[0], range[1]);
    if (e == CAVR_ERROR_NONE)
    {
      e = cavrCommitTransferFunction(in.TransferFunction);
    }
    if (e != CAVR_ERROR_NONE)
    {
      fail(in.DeviceError(e));
      return;
    }
    in.TableTime = tableTime;
  }

  // 4. Settings from the volume property and the mapper.
  double unit = prop->GetScalarOpacityUnitDistance(0);
  cavrSetRenderSampleDistance(in.Settings, this->SampleDistance);
  cavrSetRenderEarlyTermination(in.Settings, this->EarlyRayTermination);
  cavrSetRenderOpacityCorrection(in.Settings, 1, unit > 0.0 ? unit : 1.0);
  // ParaView's own Blend Mode "Isosurface" (vtkVolumeMapper::ISOSURFACE_BLEND) with the volume property's
  // "Isosurface Values" selects cavr's isosurface mode (the first CAVR_MAX_ISO_VALUES values); otherwise cavr's
  // own blend mode property applies.
  CAVRBlendMode blend = static_cast<CAVRBlendMode>(this->CavrBlendMode);
  vtkContourValues* isoValues = prop->GetIsoSurfaceValues();
  if (this->GetBlendMode() == vtkVolumeMapper::ISOSURFACE_BLEND && isoValues &&
    isoValues->GetNumberOfContours() > 0)
  {
    double values[CAVR_MAX_ISO_VALUES];
    const int n = std::min(isoValues->GetNumberOfContours(), CAVR_MAX_ISO_VALUES);
    for (int i = 0; i < n; ++i)
    {
      values[i] = isoValues->GetValue(i);
    }
    if (cavrSetRenderIsoValues(in.Settings, n, values) == CAVR_ERROR_NONE)
    {
      blend = CAVR_BLEND_ISOSURFACE;
    }
  }
  // ParaView's Blend Mode "Slice" (vtkVolumeMapper::SLICE_BLEND) with the volume property's slice function, a
  // vtkPlane in world coordinates, selects cavr's slice mode as VTK's GPU ray caster draws it: the plane goes into the
  // volume's own coordinates (cavr's world: the camera carries the volume's matrix M), origin M^-1 o, normal M^T n.
  else if (this->GetBlendMode() == vtkVolumeMapper::SLICE_BLEND)
  {
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
      if (cavrSetRenderSlicePlane(in.Settings, origin, normal) == CAVR_ERROR_NONE)
      {
        blend = CAVR_BLEND_SLICE;
        in.SliceWarning.clear();
      }
    }
    if (blend != CAVR_BLEND_SLICE)
    {
      const std::string what = plane ? "a plane without a usable normal"
                                     : prop->GetSliceFunction() ? prop->GetSliceFunction()->GetClassName()
                                                                : "no slice function";
      if (what != in.SliceWarning)
      {
        vtkWarningMacro(<< "cavr Volume: Blend Mode Slice needs a plane (vtkPlane) as the volume property's slice "
                           "function, got "
                        << what << "; rendering with the cavr Blend Mode instead");
        in.SliceWarning = what;
      }
    }
  }
  cavrSetRenderBlendMode(in.Settings, blend);
  cavrSetRenderInterpolation(in.Settings,
    prop->GetInterpolationType() == VTK_NEAREST_INTERPOLATION ? CAVR_INTERPOLATION_NEAREST
      : this->CubicInterpolation                              ? CAVR_INTERPOLATION_CUBIC
                                                              : CAVR_INTERPOLATION_TRILINEAR);
  if (cavrSetRenderSupersampling(in.Settings, this->Supersampling) != CAVR_ERROR_NONE)
  {
    if (in.SupersamplingWarned != this->Supersampling)
    {
      vtkWarningMacro(<< "cavr Volume: super-sampling with " << this->Supersampling
                      << " rays per pixel is not supported (1, 4, 5, 9 or 16); rendering with 1");
      in.SupersamplingWarned = this->Supersampling;
    }
    cavrSetRenderSupersampling(in.Settings, 1);
  }
  cavrSetRenderShading(in.Settings, prop->GetShade(0), std::max(0.0, prop->GetAmbient(0)),
    std::max(0.0, prop->GetDiffuse(0)), std::max(0.0, prop->GetSpecular(0)),
    std::max(1e-3, prop->GetSpecularPower(0)));
  {
    // The view's lights (VTK's ray casters' model; docs/user-guide.md, "Lighting").
    CAVRLight lights[CAVR_MAX_LIGHTS];
    int dropped = 0;
    const int count = GatherLights(ren, vol, lights, &dropped);
    if (dropped && !in.LightsWarned)
    {
      vtkWarningMacro(<< "cavr Volume: " << dropped << " light(s) beyond the first " << CAVR_MAX_LIGHTS
                      << " are not used");
      in.LightsWarned = true;
    }
    if (cavrSetRenderLights(in.Settings, count, lights, ren->GetTwoSidedLighting()) != CAVR_ERROR_NONE)
    {
      cavrSetRenderLights(in.Settings, 0, nullptr, 1); // an odd light (NaN, no direction): the headlight
    }
  }
  cavrSetRenderStrategy(in.Settings, static_cast<CAVRStrategy>(this->Strategy),
    this->Strategy == 1 ? CAVR_SHAPING_ALL : 0u, this->Strategy == 2);
  {
    const bool interactive = ren->GetRenderWindow() &&
      ren->GetRenderWindow()->GetDesiredUpdateRate() >= this->InteractiveUpdateRate;
    const double fraction =
      (this->CompressiveWhileInteracting && !interactive) ? 1.0 : this->SampleFraction;
    cavrSetRenderCompressive(in.Settings, fraction,
      this->Reconstruction == 0 ? CAVR_RECONSTRUCTION_GLOBAL : CAVR_RECONSTRUCTION_LOCAL,
      this->Reconstruction == 2);
  }
  // Cropping as VTK's ray-cast mappers do it (the representation's Use Cropping, Cropping Origin and Scale
  // arrive as vtkVolumeMapper's Cropping and CroppingRegionPlanes, in the volume's coordinates): the default
  // flags keep the one sub-volume between the planes; other region flags are not supported.
  if (this->Cropping)
  {
    if (this->CroppingRegionFlags != VTK_CROP_SUBVOLUME && !in.CropFlagsWarned)
    {
      vtkWarningMacro(<< "cavr Volume: cropping region flags 0x" << std::hex << this->CroppingRegionFlags << std::dec
                      << " are not supported; cropping to the sub-volume between the planes (0x2000)");
      in.CropFlagsWarned = true;
    }
    double box[6];
    std::copy(this->CroppingRegionPlanes, this->CroppingRegionPlanes + 6, box);
    for (int a = 0; a < 3; ++a)
    {
      if (box[2 * a] > box[2 * a + 1])
      {
        std::swap(box[2 * a], box[2 * a + 1]);
      }
    }
    if (cavrSetRenderCropBox(in.Settings, box) != CAVR_ERROR_NONE)
    {
      fail("cropping planes " + std::to_string(box[0]) + " ... " + std::to_string(box[5]) +
        " are not numbers: " + in.DeviceError(CAVR_ERROR_INVALID_ARGUMENT));
      cavrSetRenderCropBox(in.Settings, nullptr);
    }
  }
  else
  {
    cavrSetRenderCropBox(in.Settings, nullptr);
  }
  cavrCommitRenderSettings(in.Settings);

  // 5. Camera: cavr's world is the data space; the view includes the volume's matrix.
  int width, height, x0, y0;
  ren->GetTiledSizeAndOrigin(&width, &height, &x0, &y0);
  if (width < 1 || height < 1)
  {
    return;
  }
  vtkCamera* cam = ren->GetActiveCamera();
  vtkNew<vtkMatrix4x4> modelView;
  vtkMatrix4x4::Multiply4x4(cam->GetModelViewTransformMatrix(), vol->GetMatrix(), modelView);
  vtkMatrix4x4* projection = cam->GetProjectionTransformMatrix(ren->GetTiledAspectRatio(), -1, 1);
  double view[16], proj[16];
  ToColumnMajor(modelView, view);
  ToColumnMajor(projection, proj);
  CAVRError e = cavrSetCameraMatrices(in.Camera, view, proj);
  if (e == CAVR_ERROR_NONE)
  {
    e = cavrCommitCamera(in.Camera);
  }
  if (e != CAVR_ERROR_NONE)
  {
    fail(in.DeviceError(e));
    return;
  }

  // 6. Frame buffer of the viewport, with the opaque geometry's depth so rays stop there.
  if (!in.FrameBuffer || in.FrameBufferSize[0] != width || in.FrameBufferSize[1] != height)
  {
    in.SharedFor = nullptr; // its address may come back for the new one: share that anew
    cavrReleaseFrameBuffer(in.FrameBuffer);
    in.FrameBuffer = cavrNewFrameBuffer(in.Device, width, height);
    in.FrameBufferSize[0] = width;
    in.FrameBufferSize[1] = height;
    if (!in.FrameBuffer)
    {
      fail(in.DeviceError(CAVR_ERROR_OUT_OF_MEMORY));
      in.FrameBufferSize[0] = in.FrameBufferSize[1] = 0;
      return;
    }
    in.HostChannels = ~0u; // set below
  }
  // Display path (step 8): the colour and depth planes go into OpenGL textures on the GPU when the CUDA back end
  // renders into an OpenGL window of the same GPU (the image then stays on the GPU: no host planes), else they come to
  // host memory and are uploaded (also under MPI, where IceT composites the pieces in visibility order from the
  // window's pixels).
  vtkRenderWindow* win = ren->GetRenderWindow();
  vtkOpenGLRenderWindow* glWin = vtkOpenGLRenderWindow::SafeDownCast(win);
  if (!glWin)
  {
    fail(std::string("the render window is a ") + (win ? win->GetClassName() : "null") +
      ", not an OpenGL window: cavr Volume draws through OpenGL");
    return;
  }
  const bool distributed = this->RenderExtent[0] <= this->RenderExtent[1];
  // Super-sampled frames are averaged on the host (core/src/supersample.c): they take the host path too.
  const bool interop = this->DisplayPath != DISPLAY_HOST && !distributed && !in.InteropRefused &&
    this->Supersampling <= 1 && cavrGetDeviceBackend(in.Device) == CAVR_BACKEND_CUDA;
  // The shared memory when it can (auto), else the textures (DISPLAY_TEXTURES, or a driver without the extension).
  const bool shared = interop && this->DisplayPath == DISPLAY_AUTO && in.PrepareShared(glWin);
  if (!shared && in.SharedFor)
  {
    in.ReleaseShared(glWin); // DISPLAY_TEXTURES or the host path chosen after shared frames
  }
  const unsigned hostChannels = interop ? 0u : CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH;
  if (hostChannels != in.HostChannels)
  {
    cavrSetFrameBufferHostChannels(in.FrameBuffer, hostChannels);
    in.HostChannels = hostChannels;
  }
  in.Depth.resize(static_cast<size_t>(width) * height);
  const bool opaque = HasOpaqueGeometry(ren);
  in.DepthTest = opaque;
  in.DepthRead = false;
  // IntensityDepth's second render takes the depth from the host (Depth): the GPU read only without it.
  TimerEvent depthEvent(opaque ? "cavr Volume: opaque depth" : nullptr);
  if (opaque && interop && this->OpaqueDepthPath == DEPTH_GPU && !this->IntensityDepth &&
    in.OpaqueDepthOnGpu(glWin, x0, y0, width, height))
  {
    in.LastDepthPath = "gpu"; // the frame buffer holds it on the GPU
  }
  else if (opaque && win->GetZbufferData(x0, y0, x0 + width - 1, y0 + height - 1, in.Depth.data()))
  {
    cavrSetFrameBufferOpaqueDepth(in.FrameBuffer, in.Depth.data(), in.Depth.size());
    in.DepthRead = true;
    in.LastDepthPath =
      interop && this->OpaqueDepthPath == DEPTH_GPU && !in.DepthWhy.empty() ? "host (" + in.DepthWhy + ")" : "host";
  }
  else
  {
    cavrSetFrameBufferOpaqueDepth(in.FrameBuffer, nullptr, 0);
    in.LastDepthPath = "none";
  }

  depthEvent.End();

  // 7. Render with the core.
  CAVRRenderStats stats;
  {
    TimerEvent call("cavr Volume: render call");
    e = cavrRender(in.FrameBuffer, in.Volume, in.TransferFunction, in.Camera, in.Settings, &stats);
  }
  if (e != CAVR_ERROR_NONE)
  {
    fail(in.DeviceError(e));
    return;
  }
  const bool intensityDepth = this->IntensityDepth &&
    (blend == CAVR_BLEND_MAXIMUM_INTENSITY || blend == CAVR_BLEND_MINIMUM_INTENSITY);
  // 9. The maximum (minimum) as depth, for z-buffer compositing across ranks (SetIntensityDepth), after the image is
  //    drawn: its second render (another frame buffer, same device) reuses the device's planes, which the texture
  //    copy reads.
  auto writeIntensityDepth = [&]()
  {
    if (!intensityDepth)
    {
      return;
    }
    const CAVRError ie = in.IntensityDepths(width, height, blend == CAVR_BLEND_MINIMUM_INTENSITY);
    if (ie != CAVR_ERROR_NONE)
    {
      fail(in.DeviceError(ie));
    }
    else if (!in.WriteDepth(win, width, height))
    {
      fail("cannot write the intensity depth (IntensityDepth needs an OpenGL render window)");
    }
  };
  if (fresh)
  {
    in.LastError.clear(); // a good frame of the current input: report the next problem again
  }
  this->LastRenderTime = stats.milliseconds;
  this->LastSampleCount = static_cast<double>(stats.samples);
  this->LastRaysCast = static_cast<double>(stats.raysCast);
  const char* backend = stats.backend == CAVR_BACKEND_CUDA ? "cuda" : "cpu";
  if (in.LastBackend != backend)
  {
    // Once per device and back end (a new device clears LastBackend; a volume that did not fit on the GPU renders on
    // the CPU: that too). The device's name is fixed for its life, so nothing here runs on the other frames.
    in.LastBackend = backend;
    in.LastDevice = cavrGetDeviceName(in.Device);
    if (stats.backend != cavrGetDeviceBackend(in.Device))
    {
      in.LastDevice = "CPU (the volume fell back from " + in.LastDevice + ")";
    }
    vtkLogF(INFO, "cavr Volume: rendering on %s (%s)", stats.backend == CAVR_BACKEND_CUDA ? "CUDA" : "the CPU",
      in.LastDevice.c_str());
  }
  vtkDebugMacro(<< "cavr Volume: " << in.LastBackend << " back end ("
                << cavrGetDeviceName(in.Device) << "), strategy " << stats.strategy << ", block "
                << stats.blockWidth << "x" << stats.blockHeight << ", rotation " << stats.rotation << ", "
                << width << "x" << height << ", " << stats.milliseconds << " ms, " << stats.samples << " samples, "
                << stats.raysCast << " rays cast, reconstruction " << stats.solveMilliseconds << " ms ("
                << stats.iterations << " iterations)");

  // 8. Blend the premultiplied image into the window: from the GPU when it is there (a volume that fell back to the CPU
  //    left it on the host, with every plane), else from host memory.
  TimerEvent display("cavr Volume: display");
  if (shared && stats.backend == CAVR_BACKEND_CUDA &&
    cavrGetFrameBufferDeviceData(in.FrameBuffer, CAVR_FB_COLOR_RGBA8) &&
    in.DrawShared(glWin, width, height) == CAVR_ERROR_NONE)
  {
    writeIntensityDepth();
    in.LastDisplay = "shared";
    this->LastDrawTime = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return;
  }
  if (interop)
  {
    e = in.Draw(glWin, width, height, true);
    if (e == CAVR_ERROR_NONE)
    {
      in.GLVerified = true; // the copy found the window's context on the device's GPU
      writeIntensityDepth();
      in.LastDisplay = "interop";
      this->LastDrawTime = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      return;
    }
    const char* why = "";
    cavrGetDeviceError(in.Device, &why); // read (and clear) the reason: it is a choice of path, not a failure
    if (cavrGetFrameBufferDeviceData(in.FrameBuffer, CAVR_FB_COLOR_RGBA8))
    {
      // The image is on the GPU but cannot reach this window there (a context on another GPU, a texture CUDA
      // refuses): host path from now on; this frame is rendered again with the planes copied back.
      vtkDebugMacro(<< "cavr Volume: display through host memory: " << why);
      in.InteropRefused = true;
      in.HostChannels = CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH;
      cavrSetFrameBufferHostChannels(in.FrameBuffer, in.HostChannels);
      e = cavrRender(in.FrameBuffer, in.Volume, in.TransferFunction, in.Camera, in.Settings, &stats);
      if (e != CAVR_ERROR_NONE)
      {
        fail(in.DeviceError(e));
        return;
      }
    }
  }
  if (in.Draw(glWin, width, height, false) != CAVR_ERROR_NONE)
  {
    fail("cannot make the OpenGL textures or the shader that draw the image");
    return;
  }
  writeIntensityDepth();
  in.LastDisplay = "host";
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
  os << indent << "CubicInterpolation: " << this->CubicInterpolation << endl;
  os << indent << "Supersampling: " << this->Supersampling << endl;
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
  os << indent << "LastDisplayPath: " << this->Internals->LastDisplay << endl;
  if (!this->Internals->SharedWhy.empty())
  {
    os << indent << "SharedMemory: not used (" << this->Internals->SharedWhy << ")" << endl;
  }
}

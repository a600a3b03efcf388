// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrDisplayHelper: vtkCavrVolumeMapper's frame buffer, its display path and the opaque depth (see the header).
#include "vtkCavrDisplayHelper.h"

#include "vtkMath.h"
#include "vtkObject.h"
#include "vtkOpenGLFramebufferObject.h"
#include "vtkOpenGLQuadHelper.h"
#include "vtkOpenGLRenderUtilities.h"
#include "vtkOpenGLRenderWindow.h"
#include "vtkOpenGLShaderCache.h"
#include "vtkOpenGLState.h"
#include "vtkProp3D.h"
#include "vtkPropCollection.h"
#include "vtkRenderer.h"
#include "vtkShaderProgram.h"
#include "vtkTextureObject.h"
#include "vtkTextureUnitManager.h"
#include "vtkVolume.h"
#if __has_include("vtk_glad.h")
#include "vtk_glad.h" // VTK >= 9.4
#define CAVR_GL_EXT_MEMORY_FD (GLAD_GL_EXT_memory_object && GLAD_GL_EXT_memory_object_fd)
#else
#include "vtk_glew.h"
#define CAVR_GL_EXT_MEMORY_FD (GLEW_EXT_memory_object && GLEW_EXT_memory_object_fd)
#endif

#if defined(__unix__)
#include <unistd.h> // close(): a file descriptor OpenGL did not take
#endif

//------------------------------------------------------------------------------
vtkCavrDisplayHelper::vtkCavrDisplayHelper() = default;

//------------------------------------------------------------------------------
vtkCavrDisplayHelper::~vtkCavrDisplayHelper() = default;

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::PrepareFrameBuffer(CAVRDevice device, int width, int height)
{
  if (this->FrameBuffer && this->FrameBufferSize[0] == width && this->FrameBufferSize[1] == height)
  {
    return true;
  }
  this->SharedFor = nullptr; // its address may come back for the new one: share that anew
  cavrReleaseFrameBuffer(this->FrameBuffer);
  this->Device = device;
  this->FrameBuffer = cavrNewFrameBuffer(device, width, height);
  this->FrameBufferSize[0] = width;
  this->FrameBufferSize[1] = height;
  if (!this->FrameBuffer)
  {
    this->FrameBufferSize[0] = this->FrameBufferSize[1] = 0;
    return false;
  }
  this->HostChannels = ~0u; // set by ChoosePath
  return true;
}

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReleaseFrameBuffer()
{
  this->SharedFor = nullptr; // the frame buffer goes: its address may come back for another one
  if (this->FrameBuffer)
  {
    cavrReleaseFrameBufferGLTextures(this->FrameBuffer); // while the window's context may still be current
  }
  cavrReleaseFrameBuffer(this->FrameBuffer);
  this->FrameBuffer = nullptr;
  this->Device = nullptr;
  this->InteropRefused = false;
}

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ChoosePath(vtkOpenGLRenderWindow* win, bool onGpu, bool shareMemory)
{
  this->Interop = onGpu && !this->InteropRefused;
  // The shared memory when it can (auto), else the textures (DISPLAY_TEXTURES, or a driver without the extension).
  this->Shared = this->Interop && shareMemory && this->PrepareShared(win);
  if (!this->Shared && this->SharedFor)
  {
    this->ReleaseShared(win); // DISPLAY_TEXTURES or the host path chosen after shared frames
  }
  // On the GPU the image stays there: no host planes.
  const unsigned hostChannels = this->Interop ? 0u : CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH;
  if (hostChannels != this->HostChannels)
  {
    cavrSetFrameBufferHostChannels(this->FrameBuffer, hostChannels);
    this->HostChannels = hostChannels;
  }
}

//------------------------------------------------------------------------------
// The read waits for OpenGL and copies the viewport's depth every frame. ParaView keeps an empty, visible actor in
// every representation (its selection's): without the bounds test each cavr frame in ParaView paid that read for
// nothing (3.2-3.7 ms at 1024x1024 on an H100; docs/history/benchmarks-2026-11.md).
bool vtkCavrDisplayHelper::HasOpaqueGeometry(vtkRenderer* ren)
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReadOpaqueDepth(
  vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height, bool opaque, bool gpuAsked, bool gpuAllowed)
{
  this->Depth.resize(static_cast<size_t>(width) * height);
  this->DepthTest = opaque;
  this->DepthRead = false;
  if (opaque && this->Interop && gpuAsked && gpuAllowed && this->OpaqueDepthOnGpu(win, x0, y0, width, height))
  {
    this->LastDepthPath = "gpu"; // the frame buffer holds it on the GPU
  }
  else if (opaque && win->GetZbufferData(x0, y0, x0 + width - 1, y0 + height - 1, this->Depth.data()))
  {
    cavrSetFrameBufferOpaqueDepth(this->FrameBuffer, this->Depth.data(), this->Depth.size());
    this->DepthRead = true;
    this->LastDepthPath =
      this->Interop && gpuAsked && !this->DepthWhy.empty() ? "host (" + this->DepthWhy + ")" : "host";
  }
  else
  {
    cavrSetFrameBufferOpaqueDepth(this->FrameBuffer, nullptr, 0);
    this->LastDepthPath = "none";
  }
}

//------------------------------------------------------------------------------
vtkCavrDisplayHelper::ShowResult vtkCavrDisplayHelper::Show(
  vtkObject* owner, vtkOpenGLRenderWindow* win, int width, int height, bool renderedOnGpu)
{
  // From the GPU when the image is there (a volume that fell back to the CPU left it on the host, with every plane),
  // else from host memory.
  if (this->Shared && renderedOnGpu && cavrGetFrameBufferDeviceData(this->FrameBuffer, CAVR_FB_COLOR_RGBA8) &&
    this->DrawShared(win, width, height) == CAVR_ERROR_NONE)
  {
    this->LastDisplay = "shared";
    return SHOWN;
  }
  if (this->Interop)
  {
    if (this->Draw(win, width, height, true) == CAVR_ERROR_NONE)
    {
      this->GLVerified = true; // the copy found the window's context on the device's GPU
      this->LastDisplay = "interop";
      return SHOWN;
    }
    const char* why = "";
    cavrGetDeviceError(this->Device, &why); // read (and clear) the reason: it is a choice of path, not a failure
    if (cavrGetFrameBufferDeviceData(this->FrameBuffer, CAVR_FB_COLOR_RGBA8))
    {
      // The image is on the GPU but cannot reach this window there (a context on another GPU, a texture CUDA
      // refuses): host path from now on; this frame is rendered again with the planes copied back.
      vtkDebugWithObjectMacro(owner, << "cavr Volume: display through host memory: " << why);
      this->InteropRefused = true;
      this->HostChannels = CAVR_FB_HOST_RGBA8 | CAVR_FB_HOST_DEPTH;
      cavrSetFrameBufferHostChannels(this->FrameBuffer, this->HostChannels);
      return RENDER_AGAIN;
    }
  }
  return this->ShowFromHost(win, width, height);
}

//------------------------------------------------------------------------------
vtkCavrDisplayHelper::ShowResult vtkCavrDisplayHelper::ShowFromHost(vtkOpenGLRenderWindow* win, int width, int height)
{
  if (this->Draw(win, width, height, false) != CAVR_ERROR_NONE)
  {
    return NOT_SHOWN;
  }
  this->LastDisplay = "host";
  return SHOWN;
}

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::UseWindow(vtkOpenGLRenderWindow* win)
{
  if (this->InteropWindow == win)
  {
    return;
  }
  this->ReleaseGLOf(win);
  this->InteropWindow = win;
  this->HoldsGL = true;
}

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReleaseGLOf(vtkWindow* current)
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ForgetGLNames()
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReleaseGL(vtkWindow* window)
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

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::OpaqueDepthOnGpu(vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height)
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
    this->ResolveDepth(win, x0, y0, width, height);
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ResolveDepth(vtkOpenGLRenderWindow* win, int x0, int y0, int width, int height)
{
  // Multisampled: resolve the viewport's depth into a single-sample framebuffer of our own first, as
  // GetZbufferData does into the window's (a blit of depth needs the same depth format on both sides).
  vtkOpenGLState* state = win->GetState();
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
}

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::UploadTexture(vtkTextureObject* texture, int slot, int width, int height, int components,
  int vtkType, const void* pixels)
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReleaseShared(vtkWindow* window)
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

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::PrepareShared(vtkOpenGLRenderWindow* win)
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
    if (!this->ImportShared())
    {
      return false;
    }
  }
  this->WaitForSharedFence();
  return true;
}

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::ImportShared()
{
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
  return true;
}

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::WaitForSharedFence()
{
  if (!this->SharedFence)
  {
    return;
  }
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

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::RefuseShared(const std::string& why)
{
  this->ReleaseShared(this->InteropWindow);
  this->SharedRefused = true;
  this->SharedWhy = why;
  return false;
}

//------------------------------------------------------------------------------
CAVRError vtkCavrDisplayHelper::DrawShared(vtkOpenGLRenderWindow* win, int width, int height)
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

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::ReadyQuad(vtkOpenGLRenderWindow* win, std::unique_ptr<vtkOpenGLQuadHelper>& quad,
  const char* decl, const char* impl)
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::BlendQuad(vtkOpenGLRenderWindow* win, vtkOpenGLQuadHelper* quad)
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

//------------------------------------------------------------------------------
CAVRError vtkCavrDisplayHelper::Draw(vtkOpenGLRenderWindow* win, int width, int height, bool fromDevice)
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

//------------------------------------------------------------------------------
bool vtkCavrDisplayHelper::WriteDepth(vtkRenderWindow* window, int width, int height, const float* depth)
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
        this->ValueDepthTexture, UPLOAD_VALUE_DEPTH, width, height, 1, VTK_FLOAT, depth))
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

//------------------------------------------------------------------------------
void vtkCavrDisplayHelper::ReleaseGraphics(vtkWindow* window)
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

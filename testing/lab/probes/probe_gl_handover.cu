// SPDX-License-Identifier: BSD-3-Clause
// probe_gl_handover.cu - a control for the mapper's CUDA -> OpenGL hand-over (issue 14, items 2 and 3).
//
// In VTK the interop frame is VTK's empty frame + the mapper's call + about 1.25 ms more on the GPU side, constant over
// volumes and transfer functions (docs/benchmarks.md). This program isolates that hand-over without VTK: an EGL context
// (no window), a 1024^2 RGBA8 + depth framebuffer as VTK's render framebuffer, a kernel that writes a frame's colour
// (RGBA8) and depth (float) planes, and a full-screen quad that blends them in with gl_FragDepth, as the mapper's draw
// does. Each variant is one whole frame timed on the host from the kernel's launch to glFinish() (as VTK's Render() +
// WaitForCompletion()), median of FRAMES frames after a warm-up:
//   gl_clear            clear + glFinish (the floor of a GL frame)
//   gl_quad             clear + the quad from the textures + glFinish
//   cuda_only           the kernel + cudaStreamSynchronize
//   tex_map_copy        the mapper today: kernel, sync, map both registered textures, cudaMemcpy2DToArrayAsync x2,
//                       unmap, quad, glFinish (kernels/gl_interop.cu)
//   pbo_map_copy        registered pixel-unpack buffers instead: map, cudaMemcpyAsync x2, unmap, glTexSubImage2D from
//                       the buffers, quad, glFinish
//   pbo_map_write       the buffers mapped before the kernel, which writes into them (no copy); unmap, upload, quad
//   ext_tbo             memory made by CUDA (cuMemCreate, exported as a file descriptor) imported into OpenGL
//                       (GL_EXT_memory_object_fd) as two buffers: the kernel writes them, cudaStreamSynchronize, the
//                       quad reads them as texture buffers (texelFetch): no map, no unmap, no copy
//   ext_pbo             the same memory, copied by OpenGL into the textures (glTexSubImage2D from it as a pixel-unpack
//                       buffer) before the quad
//   ext_tbo_gl_pending  ext_tbo with OpenGL work issued before the kernel (a clear and a quad, as other props in a VTK
//                       frame), not flushed; ext_tbo_gl_flushed the same flushed (glFlush) before the kernel;
//                       gl_two_quads that OpenGL work alone
// and tex_map_copy split into its calls (each followed by a wait) to see which one holds the time.
//
// Build and run on the GPU machine (the GL loader debs of ../shared/setup/vtk-egl/debs unpacked into /):
//   nvcc -O2 -arch=sm_90 -o probe_gl_handover testing/lab/probes/probe_gl_handover.cu -lEGL -lcuda
//   __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ./probe_gl_handover 1024 300
// Arguments: SIZE FRAMES [SPIN [CSV]] (SPIN: clock cycles each kernel thread waits, standing in for a render).
// Output: a table (median and 10th/90th percentile ms per frame); with CSV, every frame as "variant,frame,ms".
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
cudaError_t CUDARTAPI cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, unsigned int image,
                                                  unsigned int target, unsigned int flags);
cudaError_t CUDARTAPI cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource, unsigned int buffer,
                                                   unsigned int flags);
}

#define CK(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                          \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)
#define CU(x)                                                                                                          \
  do {                                                                                                                 \
    CUresult r_ = (x);                                                                                                 \
    if (r_ != CUDA_SUCCESS) {                                                                                          \
      const char *s_ = "";                                                                                             \
      cuGetErrorString(r_, &s_);                                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);                                               \
      return false;                                                                                                    \
    }                                                                                                                  \
  } while (0)

// OpenGL entry points past 1.1, from eglGetProcAddress.
#define GLFN(T, name) static T name;
#define GL_FUNCS(X)                                                                                                    \
  X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers_)                                                                      \
  X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer_)                                                                      \
  X(PFNGLFRAMEBUFFERTEXTURE2DPROC, glFramebufferTexture2D_)                                                            \
  X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus_)                                                        \
  X(PFNGLCREATESHADERPROC, glCreateShader_)                                                                            \
  X(PFNGLSHADERSOURCEPROC, glShaderSource_)                                                                            \
  X(PFNGLCOMPILESHADERPROC, glCompileShader_)                                                                          \
  X(PFNGLGETSHADERIVPROC, glGetShaderiv_)                                                                              \
  X(PFNGLGETSHADERINFOLOGPROC, glGetShaderInfoLog_)                                                                    \
  X(PFNGLCREATEPROGRAMPROC, glCreateProgram_)                                                                          \
  X(PFNGLATTACHSHADERPROC, glAttachShader_)                                                                            \
  X(PFNGLLINKPROGRAMPROC, glLinkProgram_)                                                                              \
  X(PFNGLUSEPROGRAMPROC, glUseProgram_)                                                                                \
  X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation_)                                                                \
  X(PFNGLUNIFORM1IPROC, glUniform1i_)                                                                                  \
  X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays_)                                                                      \
  X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray_)                                                                      \
  X(PFNGLACTIVETEXTUREPROC, glActiveTexture_)                                                                          \
  X(PFNGLGENBUFFERSPROC, glGenBuffers_)                                                                                \
  X(PFNGLBINDBUFFERPROC, glBindBuffer_)                                                                                \
  X(PFNGLBUFFERDATAPROC, glBufferData_)                                                                                \
  X(PFNGLTEXSTORAGE2DPROC, glTexStorage2D_)                                                                            \
  X(PFNGLTEXBUFFERPROC, glTexBuffer_)                                                                                  \
  X(PFNGLCREATEMEMORYOBJECTSEXTPROC, glCreateMemoryObjectsEXT_)                                                        \
  X(PFNGLIMPORTMEMORYFDEXTPROC, glImportMemoryFdEXT_)                                                                  \
  X(PFNGLBUFFERSTORAGEMEMEXTPROC, glBufferStorageMemEXT_)
GL_FUNCS(GLFN)

namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__global__ void fill(uchar4 *color, float *depth, int w, int h, int frame, long long spin) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (spin) { // stand in for the render's kernel time
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
  }
  const unsigned char v = (unsigned char)((x + y + frame) & 255);
  color[(size_t)y * w + x] = make_uchar4(v, (unsigned char)(255 - v), 64, 200);
  depth[(size_t)y * w + x] = 0.25f + 0.5f * (float)x / w;
}

GLuint shader(GLenum type, const char *src) {
  GLuint s = glCreateShader_(type);
  glShaderSource_(s, 1, &src, nullptr);
  glCompileShader_(s);
  GLint ok = 0;
  glGetShaderiv_(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog_(s, sizeof log, nullptr, log);
    std::fprintf(stderr, "shader: %s\n", log);
    std::exit(1);
  }
  return s;
}
GLuint program(const char *fs) {
  static const char *vs = "#version 330 core\nout vec2 uv;\nvoid main() {\n"
                          "  vec2 p = vec2((gl_VertexID & 1) * 2.0 - 1.0, (gl_VertexID >> 1) * 2.0 - 1.0);\n"
                          "  uv = 0.5 * p + 0.5; gl_Position = vec4(p, 0.0, 1.0);\n}\n";
  GLuint p = glCreateProgram_();
  glAttachShader_(p, shader(GL_VERTEX_SHADER, vs));
  glAttachShader_(p, shader(GL_FRAGMENT_SHADER, fs));
  glLinkProgram_(p);
  return p;
}

struct Stats {
  std::string name;
  std::vector<double> ms;
};
double pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

// Memory made by CUDA and exported as an opaque file descriptor (the only direction CUDA gives: OpenGL imports).
struct ExportedBuffer {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr ptr = 0;
  size_t size = 0;
  GLuint glBuffer = 0;
};
bool make_exported(ExportedBuffer &b, size_t bytes) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  b.size = (bytes + gran - 1) / gran * gran;
  CU(cuMemCreate(&b.handle, b.size, &prop, 0));
  CU(cuMemAddressReserve(&b.ptr, b.size, 0, 0, 0));
  CU(cuMemMap(b.ptr, b.size, 0, b.handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(b.ptr, b.size, &access, 1));
  int fd = -1;
  CU(cuMemExportToShareableHandle(&fd, b.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  GLuint mem = 0;
  glCreateMemoryObjectsEXT_(1, &mem);
  glImportMemoryFdEXT_(mem, b.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd); // OpenGL owns the descriptor now
  glGenBuffers_(1, &b.glBuffer);
  glBindBuffer_(GL_TEXTURE_BUFFER, b.glBuffer);
  glBufferStorageMemEXT_(GL_TEXTURE_BUFFER, (GLsizeiptr)b.size, mem, 0);
  glBindBuffer_(GL_TEXTURE_BUFFER, 0);
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR) {
    std::fprintf(stderr, "importing CUDA memory into OpenGL: GL error 0x%x\n", err);
    return false;
  }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  const int W = argc > 1 ? std::atoi(argv[1]) : 1024, H = W;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 300;
  const long long spin = argc > 3 ? std::atoll(argv[3]) : 0; // clock cycles per thread in the kernel
  const char *csvPath = argc > 4 ? argv[4] : nullptr;

  // ---- EGL on the first device, no surface ----
  auto queryDevices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  auto platformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  EGLDeviceEXT devs[8];
  EGLint ndev = 0;
  if (!queryDevices || !platformDisplay || !queryDevices(8, devs, &ndev) || ndev < 1) {
    std::fprintf(stderr, "no EGL device\n");
    return 1;
  }
  EGLDisplay dpy = platformDisplay(EGL_PLATFORM_DEVICE_EXT, devs[0], nullptr);
  EGLint maj = 0, min = 0;
  if (!eglInitialize(dpy, &maj, &min)) {
    std::fprintf(stderr, "eglInitialize failed\n");
    return 1;
  }
  const EGLint cfgAttr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8,
                            EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_DEPTH_SIZE, 24, EGL_NONE};
  EGLConfig cfg;
  EGLint ncfg = 0;
  eglChooseConfig(dpy, cfgAttr, &cfg, 1, &ncfg);
  eglBindAPI(EGL_OPENGL_API);
  const EGLint ctxAttr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctxAttr);
  if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
    std::fprintf(stderr, "no OpenGL 4.5 context without a surface\n");
    return 1;
  }
#define GLLOAD(T, name)                                                                                                \
  name = (T)eglGetProcAddress(std::string(#name).substr(0, std::strlen(#name) - 1).c_str());                           \
  if (!name) std::fprintf(stderr, "missing %s\n", #name);
  GL_FUNCS(GLLOAD)
  std::printf("EGL %d.%d, OpenGL %s, %s; %dx%d, %d frames, kernel spin %lld cycles\n", maj, min,
              (const char *)glGetString(GL_VERSION), (const char *)glGetString(GL_RENDERER), W, H, frames, spin);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  std::printf("CUDA device 0: %s\n", prop.name);

  // ---- the window's framebuffer (as VTK's render framebuffer): RGBA8 + depth ----
  GLuint fbo, fboColor, fboDepth;
  glGenTextures(1, &fboColor);
  glBindTexture(GL_TEXTURE_2D, fboColor);
  glTexStorage2D_(GL_TEXTURE_2D, 1, GL_RGBA8, W, H);
  glGenTextures(1, &fboDepth);
  glBindTexture(GL_TEXTURE_2D, fboDepth);
  glTexStorage2D_(GL_TEXTURE_2D, 1, GL_DEPTH_COMPONENT32F, W, H);
  glGenFramebuffers_(1, &fbo);
  glBindFramebuffer_(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D_(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, fboColor, 0);
  glFramebufferTexture2D_(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, fboDepth, 0);
  if (glCheckFramebufferStatus_(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    std::fprintf(stderr, "framebuffer incomplete\n");
    return 1;
  }
  glViewport(0, 0, W, H);
  GLuint vao;
  glGenVertexArrays_(1, &vao);
  glBindVertexArray_(vao);

  // ---- the display textures (as the mapper's) and the quad ----
  GLuint tex[2];
  glGenTextures(2, tex);
  const GLenum fmt[2] = {GL_RGBA8, GL_R32F};
  for (int i = 0; i < 2; ++i) {
    glBindTexture(GL_TEXTURE_2D, tex[i]);
    glTexStorage2D_(GL_TEXTURE_2D, 1, fmt[i], W, H);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  const GLuint quadTex = program("#version 330 core\nin vec2 uv;\nout vec4 c;\nuniform sampler2D col;\n"
                                 "uniform sampler2D dep;\nvoid main() { c = texture(col, uv);\n"
                                 "  gl_FragDepth = texture(dep, uv).r; }\n");
  const GLuint quadTbo = program("#version 330 core\nin vec2 uv;\nout vec4 c;\nuniform samplerBuffer col;\n"
                                 "uniform samplerBuffer dep;\nuniform int width;\nvoid main() {\n"
                                 "  int i = int(gl_FragCoord.y) * width + int(gl_FragCoord.x);\n"
                                 "  c = texelFetch(col, i); gl_FragDepth = texelFetch(dep, i).r; }\n");
  auto drawQuad = [&](bool tbo, GLuint tboTex[2]) {
    glBindFramebuffer_(GL_FRAMEBUFFER, fbo);
    glClearColor(0.1f, 0.1f, 0.1f, 1.0f);
    glClearDepth(1.0);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    const GLuint p = tbo ? quadTbo : quadTex;
    glUseProgram_(p);
    for (int i = 0; i < 2; ++i) {
      glActiveTexture_(GL_TEXTURE0 + i);
      if (tbo)
        glBindTexture(GL_TEXTURE_BUFFER, tboTex[i]);
      else
        glBindTexture(GL_TEXTURE_2D, tex[i]);
    }
    glUniform1i_(glGetUniformLocation_(p, "col"), 0);
    glUniform1i_(glGetUniformLocation_(p, "dep"), 1);
    if (tbo) glUniform1i_(glGetUniformLocation_(p, "width"), W);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  };

  // ---- CUDA: the frame's planes, registrations ----
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  uchar4 *dColor;
  float *dDepth;
  CK(cudaMalloc(&dColor, (size_t)W * H * 4));
  CK(cudaMalloc(&dDepth, (size_t)W * H * 4));
  cudaGraphicsResource *texRes[2];
  for (int i = 0; i < 2; ++i)
    CK(cudaGraphicsGLRegisterImage(&texRes[i], tex[i], GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard));
  GLuint pbo[2];
  glGenBuffers_(2, pbo);
  cudaGraphicsResource *pboRes[2];
  for (int i = 0; i < 2; ++i) {
    glBindBuffer_(GL_PIXEL_UNPACK_BUFFER, pbo[i]);
    glBufferData_(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)W * H * 4, nullptr, GL_STREAM_DRAW);
    CK(cudaGraphicsGLRegisterBuffer(&pboRes[i], pbo[i], cudaGraphicsRegisterFlagsWriteDiscard));
  }
  glBindBuffer_(GL_PIXEL_UNPACK_BUFFER, 0);
  ExportedBuffer ext[2];
  GLuint extTbo[2] = {0, 0};
  bool extOk = true;
  for (int i = 0; i < 2 && extOk; ++i) extOk = make_exported(ext[i], (size_t)W * H * 4);
  if (extOk) {
    glGenTextures(2, extTbo);
    for (int i = 0; i < 2; ++i) {
      glBindTexture(GL_TEXTURE_BUFFER, extTbo[i]);
      glTexBuffer_(GL_TEXTURE_BUFFER, fmt[i], ext[i].glBuffer);
    }
    glBindTexture(GL_TEXTURE_BUFFER, 0);
  } else {
    std::printf("CUDA memory could not be imported into OpenGL: the ext_* variants are skipped\n");
  }
  const dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
  auto upload = [&](GLuint src[2]) { // pixel-unpack buffers -> the textures, on the GPU
    for (int i = 0; i < 2; ++i) {
      glBindBuffer_(GL_PIXEL_UNPACK_BUFFER, src[i]);
      glBindTexture(GL_TEXTURE_2D, tex[i]);
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, i ? GL_RED : GL_RGBA, i ? GL_FLOAT : GL_UNSIGNED_BYTE, nullptr);
    }
    glBindBuffer_(GL_PIXEL_UNPACK_BUFFER, 0);
  };

  std::vector<Stats> all;
  int frameNo = 0;
  auto run = [&](const char *name, auto body) {
    Stats s{name, {}};
    for (int k = 0; k < frames + 10; ++k) {
      const double a = now_ms();
      body(frameNo++);
      if (k >= 10) s.ms.push_back(now_ms() - a);
    }
    all.push_back(s);
  };
  double split[5] = {0, 0, 0, 0, 0};
  run("gl_clear", [&](int) {
    glBindFramebuffer_(GL_FRAMEBUFFER, fbo);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glFinish();
  });
  run("gl_quad", [&](int) {
    drawQuad(false, nullptr);
    glFinish();
  });
  run("cuda_only", [&](int f) {
    fill<<<grid, block, 0, stream>>>(dColor, dDepth, W, H, f, spin);
    CK(cudaStreamSynchronize(stream));
  });
  auto texMapCopy = [&](int f, bool timed) {
    double t = now_ms();
    fill<<<grid, block, 0, stream>>>(dColor, dDepth, W, H, f, spin);
    CK(cudaStreamSynchronize(stream));
    if (timed) split[0] += now_ms() - t, t = now_ms();
    CK(cudaGraphicsMapResources(2, texRes, stream));
    if (timed) {
      CK(cudaStreamSynchronize(stream));
      split[1] += now_ms() - t, t = now_ms();
    }
    const void *src[2] = {dColor, dDepth};
    for (int i = 0; i < 2; ++i) {
      cudaArray_t arr;
      CK(cudaGraphicsSubResourceGetMappedArray(&arr, texRes[i], 0, 0));
      CK(cudaMemcpy2DToArrayAsync(arr, 0, 0, src[i], (size_t)W * 4, (size_t)W * 4, H, cudaMemcpyDeviceToDevice,
                                  stream));
    }
    if (timed) {
      CK(cudaStreamSynchronize(stream));
      split[2] += now_ms() - t, t = now_ms();
    }
    CK(cudaGraphicsUnmapResources(2, texRes, stream));
    if (timed) {
      CK(cudaStreamSynchronize(stream));
      split[3] += now_ms() - t, t = now_ms();
    }
    drawQuad(false, nullptr);
    glFinish();
    if (timed) split[4] += now_ms() - t;
  };
  run("tex_map_copy", [&](int f) { texMapCopy(f, false); });
  run("tex_map_copy_split", [&](int f) { texMapCopy(f, true); });
  run("pbo_map_copy", [&](int f) {
    fill<<<grid, block, 0, stream>>>(dColor, dDepth, W, H, f, spin);
    CK(cudaStreamSynchronize(stream));
    CK(cudaGraphicsMapResources(2, pboRes, stream));
    const void *src[2] = {dColor, dDepth};
    for (int i = 0; i < 2; ++i) {
      void *p;
      size_t n;
      CK(cudaGraphicsResourceGetMappedPointer(&p, &n, pboRes[i]));
      CK(cudaMemcpyAsync(p, src[i], (size_t)W * H * 4, cudaMemcpyDeviceToDevice, stream));
    }
    CK(cudaGraphicsUnmapResources(2, pboRes, stream));
    upload(pbo);
    drawQuad(false, nullptr);
    glFinish();
  });
  run("pbo_map_write", [&](int f) {
    CK(cudaGraphicsMapResources(2, pboRes, stream));
    void *p[2];
    size_t n;
    for (int i = 0; i < 2; ++i) CK(cudaGraphicsResourceGetMappedPointer(&p[i], &n, pboRes[i]));
    fill<<<grid, block, 0, stream>>>((uchar4 *)p[0], (float *)p[1], W, H, f, spin);
    CK(cudaGraphicsUnmapResources(2, pboRes, stream));
    upload(pbo);
    drawQuad(false, nullptr);
    glFinish();
  });
  if (extOk) {
    run("ext_tbo", [&](int f) {
      fill<<<grid, block, 0, stream>>>((uchar4 *)ext[0].ptr, (float *)ext[1].ptr, W, H, f, spin);
      CK(cudaStreamSynchronize(stream));
      drawQuad(true, extTbo);
      glFinish();
    });
    // As in a VTK frame: OpenGL's work of the frame (here a clear, and a quad standing in for other props) issued
    // before the CUDA render, then the render, then the volume's quad. Pending (not flushed) or flushed first.
    auto glBefore = [&](bool flush) {
      drawQuad(false, nullptr);
      if (flush) glFlush();
    };
    for (bool flush : {false, true})
      run(flush ? "ext_tbo_gl_flushed" : "ext_tbo_gl_pending", [&](int f) {
        glBefore(flush);
        fill<<<grid, block, 0, stream>>>((uchar4 *)ext[0].ptr, (float *)ext[1].ptr, W, H, f, spin);
        CK(cudaStreamSynchronize(stream));
        drawQuad(true, extTbo);
        glFinish();
      });
    run("gl_two_quads", [&](int) { // the GL work of the two variants above alone
      glBefore(false);
      drawQuad(false, nullptr);
      glFinish();
    });
    run("ext_pbo", [&](int f) {
      fill<<<grid, block, 0, stream>>>((uchar4 *)ext[0].ptr, (float *)ext[1].ptr, W, H, f, spin);
      CK(cudaStreamSynchronize(stream));
      GLuint b[2] = {ext[0].glBuffer, ext[1].glBuffer};
      upload(b);
      drawQuad(false, nullptr);
      glFinish();
    });
  }

  // ---- check: every variant draws the same picture (the last frame's colour, read back) ----
  std::vector<unsigned char> px((size_t)W * H * 4);
  auto readback = [&]() {
    glBindFramebuffer_(GL_FRAMEBUFFER, fbo);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    unsigned long long sum = 0;
    for (unsigned char c : px) sum += c;
    return sum;
  };
  texMapCopy(7, false);
  const unsigned long long ref = readback();
  unsigned long long extSum = 0;
  if (extOk) {
    fill<<<grid, block, 0, stream>>>((uchar4 *)ext[0].ptr, (float *)ext[1].ptr, W, H, 7, 0);
    CK(cudaStreamSynchronize(stream));
    drawQuad(true, extTbo);
    glFinish();
    extSum = readback();
  }
  std::printf("picture check (sum of the framebuffer's bytes, frame 7): textures %llu, CUDA memory in OpenGL %llu: %s\n",
              ref, extSum, !extOk ? "skipped" : ref == extSum ? "same" : "DIFFER");

  std::printf("\n%-20s %10s %10s %10s\n", "variant", "median ms", "p10", "p90");
  FILE *csv = csvPath ? std::fopen(csvPath, "w") : nullptr;
  if (csv) std::fprintf(csv, "variant,frame,ms\n");
  for (const Stats &s : all) {
    std::printf("%-20s %10.3f %10.3f %10.3f\n", s.name.c_str(), pct(s.ms, 0.5), pct(s.ms, 0.1), pct(s.ms, 0.9));
    if (csv)
      for (size_t k = 0; k < s.ms.size(); ++k) std::fprintf(csv, "%s,%zu,%.4f\n", s.name.c_str(), k, s.ms[k]);
  }
  if (csv) std::fclose(csv);
  const double n = frames + 10;
  std::printf("\ntex_map_copy split (mean ms, each step waited for): kernel + sync %.3f, map %.3f, copies %.3f, "
              "unmap %.3f, quad + glFinish %.3f\n",
              split[0] / n, split[1] / n, split[2] / n, split[3] / n, split[4] / n);
  return 0;
}

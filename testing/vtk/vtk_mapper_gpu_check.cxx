// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrVolumeMapper end to end on the GPU: the mapper with the CUDA back end in an
// OpenGL window (EGL on the GPU machines, Xvfb elsewhere), checked against the same mapper on the CPU back end.
//
//   cavr-vtk-mapper-check check [OUT_DIR]        images, depth, re-rendering (PASS/FAIL lines)
//   cavr-vtk-mapper-check soak FRAMES [OUT_DIR]  FRAMES random frames, memory flat, the CPU fallback
//
// Exit 0 pass, 1 fail, 77 skip (no CUDA device: CI has none).
//
// check: (1) the CUDA back end's window image through memory shared with OpenGL ("shared", the default), through
// OpenGL textures ("interop") and through host memory ("host"): shared = host bit for bit, and each equals the CPU
// back end's (PSNR >= 45 dB, the GPU tests' threshold) at three views, a non-square window and
// parallel projection; (2) an opaque red sphere inside a grey volume: CUDA = CPU (>= 45 dB), the sphere's silhouette
// is where the sphere alone is drawn (at most 1% of its pixels differ), the volume in front of it is drawn over it
// (inside the silhouette the volume's green lies between 5% and 90% of the volume alone: rays stop at the sphere and
// what lies before it shows), and outside the silhouette the picture is the volume alone's (>= 45 dB); (3) a camera
// change, a transfer-function edit, a new input, an edit of the input's voxels and a window resize each give a new
// picture (< 40 dB against the previous one) that equals the CPU back end's (>= 45 dB).
// soak: a measuring cavr device reads cudaMemGetInfo (cavrGetDeviceMemoryInfo). After a warm-up of every window size,
// strategy and display path on both inputs (8- and 16-bit), FRAMES frames at random views, transfer functions, window
// sizes and inputs (changed every 50 frames), strategies, display paths, shading, blend modes and with or without an
// opaque sphere. Memory is read in one fixed state (input, window size, strategy, path, view) before, every 2000 frames
// and after: device memory in use may not grow by more than 1 MiB, host RSS (after malloc_trim) by more than 16 MiB,
// and no error or warning may have been reported. Then a volume that does not fit on the GPU renders on the CPU with a
// warning, equals the CPU back end's picture (>= 45 dB), and leaves device memory where it was (1 MiB): once by the
// core's fault injection (CAVR_CUDA_VOLUME_LIMIT) and once for real (the GPU filled first, a 391 MiB volume).
#include <vtkActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkCommand.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkOpenGLRenderWindow.h>
#include <vtkPNGWriter.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPointData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkSphereSource.h>
#include <vtkUnsignedCharArray.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>

#include "cavr/cavr.h"
#include "vtkCavrVolumeMapper.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if CAVR_CHECK_CUDART
// Only to fill the GPU before the real out-of-memory case (the CUDA runtime is linked through cavr's kernels; its
// header is not needed for these two).
extern "C" int cudaMalloc(void **ptr, size_t bytes);
extern "C" int cudaFree(void *ptr);
#endif

namespace {
int failures = 0;
void check(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}
std::string fmt(const char *f, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

// A uint8 field of nx x ny x nz voxels: blobs of different values and sizes, with a ripple, so that views differ.
vtkSmartPointer<vtkImageData> make_volume(int nx, int ny, int nz, int seed) {
  auto img = vtkSmartPointer<vtkImageData>::New();
  img->SetDimensions(nx, ny, nz);
  img->SetSpacing(1.0, 1.0, 1.0);
  img->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
  auto *v = static_cast<unsigned char *>(img->GetScalarPointer());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  struct Blob { double c[3], r, value; };
  std::vector<Blob> blobs;
  for (int b = 0; b < 6; ++b)
    blobs.push_back({{(0.2 + 0.6 * u(rng)) * nx, (0.2 + 0.6 * u(rng)) * ny, (0.2 + 0.6 * u(rng)) * nz},
                     (0.12 + 0.2 * u(rng)) * std::min(nx, std::min(ny, nz)), 60.0 + 195.0 * u(rng)});
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double f = 0.0;
        for (const Blob &b : blobs) {
          const double dx = x - b.c[0], dy = y - b.c[1], dz = z - b.c[2], r = std::sqrt(dx * dx + dy * dy + dz * dz);
          if (r < b.r) f = std::max(f, b.value * (1.0 - 0.6 * r / b.r) * (0.85 + 0.15 * std::sin(0.4 * x + 0.3 * y)));
        }
        v[(static_cast<size_t>(z) * ny + y) * nx + x] = static_cast<unsigned char>(std::min(255.0, f));
      }
  return img;
}

// PSNR of two RGB images (dB; inf when equal), over the pixels where mask is 0 (no mask: all).
double psnr(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b,
            const std::vector<unsigned char> *skip = nullptr) {
  double se = 0.0;
  size_t n = 0;
  for (size_t p = 0; p < a.size() / 3; ++p) {
    if (skip && (*skip)[p]) continue;
    for (int c = 0; c < 3; ++c) {
      const double d = double(a[3 * p + c]) - double(b[3 * p + c]);
      se += d * d;
    }
    n += 3;
  }
  return se > 0.0 ? 10.0 * std::log10(255.0 * 255.0 * n / se) : INFINITY;
}
double mean(const std::vector<unsigned char> &a) {
  double s = 0.0;
  for (unsigned char c : a) s += c;
  return a.empty() ? 0.0 : s / a.size();
}

void write_png(const std::string &path, const std::vector<unsigned char> &rgb, int w, int h) {
  vtkNew<vtkImageData> img;
  img->SetDimensions(w, h, 1);
  vtkNew<vtkUnsignedCharArray> a;
  a->SetNumberOfComponents(3);
  a->SetNumberOfTuples(static_cast<vtkIdType>(w) * h);
  std::memcpy(a->GetPointer(0), rgb.data(), rgb.size());
  img->GetPointData()->SetScalars(a);
  vtkNew<vtkPNGWriter> png;
  png->SetInputData(img);
  png->SetFileName(path.c_str());
  png->Write();
}

// Errors and warnings that VTK objects report (vtkErrorMacro / vtkWarningMacro invoke these events when observed).
struct Reports {
  int errors = 0, warnings = 0;
  std::string last;
};
void on_report(vtkObject *, unsigned long event, void *client, void *data) {
  Reports *r = static_cast<Reports *>(client);
  (event == vtkCommand::ErrorEvent ? r->errors : r->warnings)++;
  r->last = data ? static_cast<const char *>(data) : "";
  std::printf("  [%s] %s\n", event == vtkCommand::ErrorEvent ? "error" : "warning", r->last.c_str());
}

// The RGB pixels of a rendered w x h window (rows bottom up).
std::vector<unsigned char> rgb_of(vtkRenderWindow *win, int w, int h) {
  vtkNew<vtkUnsignedCharArray> px;
  win->GetPixelData(0, 0, w - 1, h - 1, 0, px);
  std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3);
  if (px->GetNumberOfValues() == static_cast<vtkIdType>(rgb.size()))
    std::memcpy(rgb.data(), px->GetPointer(0), rgb.size());
  return rgb;
}

// One window, a renderer with a CUDA mapper and a CPU mapper on the same input and property (one visible at a time)
// and an opaque sphere (hidden until asked for).
struct Scene {
  vtkSmartPointer<vtkRenderWindow> win;
  vtkNew<vtkRenderer> ren;
  vtkNew<vtkCavrVolumeMapper> gpu, cpu;
  vtkNew<vtkVolume> gpuVolume, cpuVolume;
  vtkNew<vtkVolumeProperty> prop;
  vtkNew<vtkColorTransferFunction> ctf;
  vtkNew<vtkPiecewiseFunction> otf;
  vtkNew<vtkSphereSource> sphere;
  vtkNew<vtkPolyDataMapper> sphereMapper;
  vtkNew<vtkActor> sphereActor;
  vtkNew<vtkCallbackCommand> observer;
  Reports reports;
  int w = 0, h = 0;

  Scene(vtkImageData *img, int width, int height) {
    // vtkOpenGLRenderWindow::New() picks EGL at run time on VTK 9.4 without X (the GPU machines); elsewhere it is
    // vtkRenderWindow::New() and gives the platform's window (X, under Xvfb on CI).
    win = vtkSmartPointer<vtkRenderWindow>::Take(vtkOpenGLRenderWindow::New());
    win->SetOffScreenRendering(1);
    win->AddRenderer(ren);
    ren->SetBackground(0, 0, 0);
    ctf->AddRGBPoint(0, 0.0, 0.0, 0.0);
    ctf->AddRGBPoint(90, 0.9, 0.35, 0.15);
    ctf->AddRGBPoint(170, 0.3, 0.8, 0.4);
    ctf->AddRGBPoint(255, 1.0, 1.0, 0.9);
    otf->AddPoint(0, 0.0);
    otf->AddPoint(40, 0.0);
    otf->AddPoint(255, 0.25);
    prop->SetColor(ctf);
    prop->SetScalarOpacity(otf);
    prop->SetInterpolationTypeToLinear();
    prop->SetScalarOpacityUnitDistance(1.0);
    prop->ShadeOff();
    gpu->SetBackend(vtkCavrVolumeMapper::BACKEND_CUDA);
    cpu->SetBackend(vtkCavrVolumeMapper::BACKEND_CPU);
    for (vtkCavrVolumeMapper *m : {gpu.GetPointer(), cpu.GetPointer()}) {
      m->SetInputData(img);
      m->SetSampleDistance(0.5);
    }
    gpuVolume->SetMapper(gpu);
    cpuVolume->SetMapper(cpu);
    gpuVolume->SetProperty(prop);
    cpuVolume->SetProperty(prop);
    ren->AddVolume(gpuVolume);
    ren->AddVolume(cpuVolume);
    double b[6];
    img->GetBounds(b);
    sphere->SetCenter(0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5]));
    sphere->SetRadius(0.22 * std::min(b[1] - b[0], b[3] - b[2]));
    sphere->SetThetaResolution(64);
    sphere->SetPhiResolution(64);
    sphereMapper->SetInputConnection(sphere->GetOutputPort());
    sphereActor->SetMapper(sphereMapper);
    sphereActor->GetProperty()->SetColor(1.0, 0.0, 0.0); // flat red: ambient light only
    sphereActor->GetProperty()->SetAmbient(1.0);
    sphereActor->GetProperty()->SetDiffuse(0.0);
    sphereActor->GetProperty()->SetSpecular(0.0);
    sphereActor->VisibilityOff();
    ren->AddActor(sphereActor);
    observer->SetCallback(on_report);
    observer->SetClientData(&reports);
    for (vtkObject *o : {static_cast<vtkObject *>(gpu.GetPointer()), static_cast<vtkObject *>(cpu.GetPointer())}) {
      o->AddObserver(vtkCommand::ErrorEvent, observer);
      o->AddObserver(vtkCommand::WarningEvent, observer);
    }
    resize(width, height);
    ren->ResetCamera();
  }
  void resize(int width, int height) {
    w = width;
    h = height;
    win->SetSize(w, h);
  }
  // Render with one back end ("gpu", "cpu"; "none": no volume) and return the window's RGB pixels (rows bottom up).
  std::vector<unsigned char> frame(const char *which) {
    gpuVolume->SetVisibility(std::strcmp(which, "gpu") == 0);
    cpuVolume->SetVisibility(std::strcmp(which, "cpu") == 0);
    ren->ResetCameraClippingRange();
    win->Render();
    return rgb_of(win, w, h);
  }
};

// The GPU picture through the three display paths against the CPU's, at the scene's current state.
void compare_paths(Scene &s, const std::string &what, const std::string &outDir, std::vector<unsigned char> *gpuOut) {
  const std::vector<unsigned char> cpu = s.frame("cpu");
  s.gpu->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_HOST);
  const std::vector<unsigned char> host = s.frame("gpu");
  const std::string hostPath = s.gpu->GetLastDisplayPathName();
  s.gpu->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_TEXTURES);
  const std::vector<unsigned char> interop = s.frame("gpu");
  const std::string interopPath = s.gpu->GetLastDisplayPathName();
  s.gpu->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_AUTO);
  const std::vector<unsigned char> shared = s.frame("gpu");
  const std::string sharedPath = s.gpu->GetLastDisplayPathName();
  const double pi = psnr(cpu, interop), ph = psnr(cpu, host), pih = psnr(interop, host), psh = psnr(shared, host);
  check(std::string(s.gpu->GetLastBackendName()) == "cuda" && sharedPath == "shared" && interopPath == "interop" &&
            hostPath == "host",
        what + ": CUDA back end, display paths " + sharedPath + ", " + interopPath + " and " + hostPath);
  check(mean(cpu) > 2.0, what + fmt(": the picture is not empty (mean %.2f of 255)", mean(cpu)));
  check(pi >= 45.0 && ph >= 45.0,
        what + fmt(": CUDA vs CPU %.2f dB through textures, %.2f dB through host memory (>= 45)", pi, ph) +
            fmt("; textures vs host %.2f dB", pih));
  check(shared == host, what + fmt(": shared memory = host memory, bit for bit (%.2f dB)", psh));
  if (!outDir.empty()) {
    std::string tag = what;
    for (char &c : tag)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    write_png(outDir + "/mapper_" + tag + "_interop.png", interop, s.w, s.h);
    write_png(outDir + "/mapper_" + tag + "_cpu.png", cpu, s.w, s.h);
  }
  if (gpuOut) *gpuOut = interop;
}

int run_check(const std::string &outDir) {
  auto img = make_volume(160, 144, 128, 1);
  Scene s(img, 600, 450);
  vtkCamera *cam = s.ren->GetActiveCamera();
  // (1) Views: front, oblique, steep, and parallel projection; non-square window.
  compare_paths(s, "front", outDir, nullptr);
  cam->Azimuth(35);
  cam->Elevation(20);
  cam->OrthogonalizeViewUp();
  compare_paths(s, "oblique", "", nullptr);
  cam->Azimuth(55);
  cam->Elevation(-50);
  cam->OrthogonalizeViewUp();
  compare_paths(s, "steep", "", nullptr);
  cam->ParallelProjectionOn();
  s.ren->ResetCamera();
  compare_paths(s, "parallel", "", nullptr);
  cam->ParallelProjectionOff();

  // (2) An opaque sphere inside a grey volume.
  s.ren->ResetCamera();
  cam->Azimuth(20);
  cam->Elevation(10);
  cam->OrthogonalizeViewUp();
  vtkNew<vtkColorTransferFunction> grey;
  grey->AddRGBPoint(0, 0.0, 0.0, 0.0);
  grey->AddRGBPoint(255, 1.0, 1.0, 1.0);
  vtkNew<vtkPiecewiseFunction> thin;
  thin->AddPoint(0, 0.0);
  thin->AddPoint(40, 0.0);
  thin->AddPoint(255, 0.04);
  s.prop->SetColor(grey);
  s.prop->SetScalarOpacity(thin);
  s.sphereActor->VisibilityOn();
  const std::vector<unsigned char> sphereOnly = s.frame("none");
  std::vector<unsigned char> inside(static_cast<size_t>(s.w) * s.h), near(inside.size());
  size_t sphereArea = 0;
  for (size_t p = 0; p < inside.size(); ++p) sphereArea += inside[p] = sphereOnly[3 * p] > 128;
  for (int y = 0; y < s.h; ++y) // the silhouette's edge, 2 pixels either way (anti-aliasing, rasterisation)
    for (int x = 0; x < s.w; ++x)
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          const int xx = std::min(std::max(x + dx, 0), s.w - 1), yy = std::min(std::max(y + dy, 0), s.h - 1);
          if (inside[static_cast<size_t>(yy) * s.w + xx] != inside[static_cast<size_t>(y) * s.w + x])
            near[static_cast<size_t>(y) * s.w + x] = 1;
        }
  std::vector<unsigned char> both;
  compare_paths(s, "sphere", outDir, &both);
  // The same frame with the opaque depth read on the GPU (OpaqueDepthPath GPU; the default reads it through host
  // memory): the same picture, and the path taken is the GPU's.
  s.gpu->SetOpaqueDepthPath(vtkCavrVolumeMapper::DEPTH_GPU);
  const std::vector<unsigned char> gpuDepth = s.frame("gpu");
  check(std::string(s.gpu->GetLastOpaqueDepthPathName()) == "gpu",
        std::string("sphere: the opaque depth read on the GPU (path: ") + s.gpu->GetLastOpaqueDepthPathName() + ")");
  check(psnr(gpuDepth, both) >= 90.0, fmt("sphere: depth read on the GPU vs through the host: %.2f dB (>= 90)", psnr(gpuDepth, both)));
  s.gpu->SetOpaqueDepthPath(vtkCavrVolumeMapper::DEPTH_HOST);
  s.sphereActor->VisibilityOff();
  const std::vector<unsigned char> volumeOnly = s.frame("gpu");
  s.sphereActor->VisibilityOn();
  size_t differ = 0;
  double greenBoth = 0.0, greenVolume = 0.0, redExcess = 0.0;
  std::vector<unsigned char> notOutside(inside.size());
  for (size_t p = 0; p < inside.size(); ++p) {
    notOutside[p] = inside[p] || near[p];
    const bool red = int(both[3 * p]) - int(both[3 * p + 1]) > 12;
    if (!near[p] && red != bool(inside[p])) ++differ;
    if (inside[p] && !near[p]) {
      greenBoth += both[3 * p + 1];
      greenVolume += volumeOnly[3 * p + 1];
      redExcess += int(both[3 * p]) - int(both[3 * p + 1]);
    }
  }
  check(sphereArea > 2000 && differ <= sphereArea / 100,
        fmt("sphere silhouette: %.0f of its %.0f pixels differ (<= 1%%)", double(differ), double(sphereArea)));
  const double ratio = greenVolume > 0.0 ? greenBoth / greenVolume : 0.0;
  check(ratio > 0.05 && ratio < 0.9,
        fmt("volume in front of the sphere: %.3f of the volume alone's light inside the silhouette (0.05..0.9)", ratio));
  check(redExcess / std::max<double>(1.0, double(sphereArea)) < 250.0,
        fmt("the sphere is seen through the volume (mean red excess %.1f < 250)",
            redExcess / std::max<double>(1.0, double(sphereArea))));
  const double outside = psnr(both, volumeOnly, &notOutside);
  check(outside >= 45.0, fmt("outside the silhouette the picture is the volume alone's: %.2f dB (>= 45)", outside));
  s.sphereActor->VisibilityOff();
  s.prop->SetColor(s.ctf);
  s.prop->SetScalarOpacity(s.otf);

  // (3) Changes re-render: camera, transfer function, new input, voxels edited in place, window size.
  std::vector<unsigned char> before, after;
  s.ren->ResetCamera();
  compare_paths(s, "before changes", "", &before);
  auto changed = [&](const char *what) {
    const double p = psnr(before, after);
    check(p < 40.0, std::string(what) + fmt(": the picture changed (%.2f dB against the previous one, < 40)", p));
    before = after;
  };
  cam->Azimuth(40);
  compare_paths(s, "camera change", "", &after);
  changed("camera change");
  s.otf->AddPoint(120, 0.3);
  s.ctf->AddRGBPoint(200, 0.1, 0.2, 1.0);
  compare_paths(s, "transfer function edit", "", &after);
  changed("transfer function edit");
  auto img2 = make_volume(112, 96, 80, 7);
  s.gpu->SetInputData(img2);
  s.cpu->SetInputData(img2);
  s.ren->ResetCamera();
  compare_paths(s, "new input", "", &after);
  changed("new input");
  auto *vox = static_cast<unsigned char *>(img2->GetScalarPointer());
  for (vtkIdType i = 0; i < img2->GetNumberOfPoints(); ++i) vox[i] = static_cast<unsigned char>(255 - vox[i]);
  img2->GetPointData()->GetScalars()->Modified();
  compare_paths(s, "voxels edited", "", &after);
  changed("voxels edited");
  s.resize(800, 640);
  compare_paths(s, "window resize", outDir, &after);
  check(after.size() == static_cast<size_t>(800) * 640 * 3, "window resize: 800 x 640 frame");

  // (4) Maximum intensity with the maximum written as depth (IntensityDepth, for z-buffer compositing across ranks):
  //     the colour as in (1) through every path (the second, value render must not reach the drawn picture) and the
  //     same depth through every path, the CPU back end's within 0.004.
  for (vtkCavrVolumeMapper *m : {s.gpu.GetPointer(), s.cpu.GetPointer()}) {
    m->SetCavrBlendMode(1);
    m->IntensityDepthOn();
  }
  compare_paths(s, "maximum intensity with depth", "", nullptr);
  auto depthThrough = [&](const char *which, int path) {
    s.gpu->SetDisplayPath(path);
    s.frame(which);
    std::vector<float> z(static_cast<size_t>(s.w) * s.h);
    s.win->GetZbufferData(0, 0, s.w - 1, s.h - 1, z.data());
    return z;
  };
  const std::vector<float> zCpu = depthThrough("cpu", vtkCavrVolumeMapper::DISPLAY_AUTO);
  const std::vector<float> zHost = depthThrough("gpu", vtkCavrVolumeMapper::DISPLAY_HOST);
  const std::vector<float> zTex = depthThrough("gpu", vtkCavrVolumeMapper::DISPLAY_TEXTURES);
  const std::vector<float> zShared = depthThrough("gpu", vtkCavrVolumeMapper::DISPLAY_AUTO);
  const std::string zPath = s.gpu->GetLastDisplayPathName();
  double zDiff = 0.0;
  size_t written = 0;
  for (size_t i = 0; i < zHost.size(); ++i) {
    zDiff = std::max(zDiff, static_cast<double>(std::fabs(zCpu[i] - zHost[i])));
    written += zHost[i] < 0.76f;
  }
  check(zPath == "shared" && zHost == zTex && zHost == zShared,
        "maximum intensity with depth: the same depth through host, textures and " + zPath + ", value for value");
  check(zDiff <= 0.004 && written > zHost.size() / 20,
        fmt("maximum intensity with depth: CUDA vs CPU depth within %.5f (<= 0.004) over %.0f written pixels", zDiff,
            static_cast<double>(written)));
  for (vtkCavrVolumeMapper *m : {s.gpu.GetPointer(), s.cpu.GetPointer()}) {
    m->SetCavrBlendMode(0);
    m->IntensityDepthOff();
  }

  // (5) The same volume in a second window, drawn in turn with the first: the mapper's OpenGL objects move with it
  //     (released in the context that made them: OpenGL names are per context) and each window shows the host path's
  //     picture through the shared path, three times over.
  s.gpu->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_HOST);
  const std::vector<unsigned char> reference = s.frame("gpu");
  s.gpu->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_AUTO);
  {
    vtkSmartPointer<vtkRenderWindow> win2 = vtkSmartPointer<vtkRenderWindow>::Take(vtkOpenGLRenderWindow::New());
    win2->SetOffScreenRendering(1);
    vtkNew<vtkRenderer> ren2;
    ren2->SetBackground(0, 0, 0);
    ren2->SetActiveCamera(s.ren->GetActiveCamera());
    ren2->AddVolume(s.gpuVolume);
    win2->AddRenderer(ren2);
    win2->SetSize(s.w, s.h);
    auto pixels = [&](vtkRenderWindow *w) {
      w->Render();
      w->Render(); // the first frame in a window goes through the textures, the next through shared memory
      return rgb_of(w, s.w, s.h);
    };
    int same = 0;
    std::string paths;
    for (int round = 0; round < 3; ++round)
      for (vtkRenderWindow *w : {static_cast<vtkRenderWindow *>(win2), s.win.GetPointer()}) {
        const bool equal = pixels(w) == reference;
        same += equal && std::string(s.gpu->GetLastDisplayPathName()) == "shared";
        paths += std::string(paths.empty() ? "" : ", ") + s.gpu->GetLastDisplayPathName();
      }
    check(same == 6, fmt("two windows in turn: %.0f of 6 pictures drawn from shared memory equal the host path's", same) +
                         " (paths " + paths + ")");
    ren2->RemoveVolume(s.gpuVolume);
  }
  check(s.frame("gpu") == reference && std::string(s.gpu->GetLastDisplayPathName()) != "host",
        std::string("the first window again after the second is gone: the host path's picture (path ") +
            s.gpu->GetLastDisplayPathName() + ")");
  check(s.reports.errors == 0, fmt("no errors reported (%.0f)", s.reports.errors));
  return failures ? 1 : 0;
}

// Resident host memory, bytes, after handing freed heap memory back to the system (glibc keeps freed blocks of
// several MiB in its heap once its dynamic mmap threshold has grown: that is not a leak).
// Where resident memory is (a soak's diagnosis): /proc/self/status's anonymous, file-backed and shared parts, and
// what malloc holds in use (glibc).
std::string rss_breakdown() {
  std::string out;
  FILE *f = std::fopen("/proc/self/status", "r");
  char line[256];
  while (f && std::fgets(line, sizeof line, f)) {
    long kb = 0;
    char name[64];
    if (std::sscanf(line, "%63[^:]: %ld kB", name, &kb) == 2 &&
        (!std::strcmp(name, "RssAnon") || !std::strcmp(name, "RssFile") || !std::strcmp(name, "RssShmem"))) {
      char part[96];
      std::snprintf(part, sizeof part, " %s %.1f", name, kb / 1024.0);
      out += part;
    }
  }
  if (f) std::fclose(f);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 mi = mallinfo2();
  char part[96];
  std::snprintf(part, sizeof part, " malloc-in-use %.1f mmapped %.1f", (double)mi.uordblks / 1048576.0,
                (double)mi.hblkhd / 1048576.0);
  out += part;
#endif
  return out + " MiB";
}

size_t rss_bytes() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  long pages = 0, resident = 0;
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

int run_soak(long frames, CAVRDevice meter) {
  auto freeBytes = [&]() {
    size_t f = 0, t = 0;
    if (cavrGetDeviceMemoryInfo(meter, &f, &t) != CAVR_ERROR_NONE) check(false, "cavrGetDeviceMemoryInfo");
    return f;
  };
  const double MiB = 1048576.0;
  auto img = make_volume(256, 224, 192, 3);
  auto img16 = vtkSmartPointer<vtkImageData>::New(); // a second input: 16-bit, other dims
  {
    auto src = make_volume(144, 176, 120, 5);
    img16->SetDimensions(src->GetDimensions());
    img16->AllocateScalars(VTK_UNSIGNED_SHORT, 1);
    auto *d = static_cast<unsigned short *>(img16->GetScalarPointer());
    auto *s8 = static_cast<unsigned char *>(src->GetScalarPointer());
    for (vtkIdType i = 0; i < src->GetNumberOfPoints(); ++i) d[i] = static_cast<unsigned short>(s8[i] * 257);
  }
  const size_t free0 = freeBytes();
  Scene s(img, 1024, 1024);
  vtkCamera *cam = s.ren->GetActiveCamera();
  const int sizes[4][2] = {{1024, 1024}, {640, 480}, {257, 311}, {1280, 720}};
  // Warm-up: every size, strategy and display path once (AUTO measures its table at its first frame of a storage
  // type when none is cached; the context's buffers grow to the largest frame), on both inputs.
  for (vtkImageData *in : {img16.GetPointer(), img.GetPointer()}) {
    s.gpu->SetInputData(in);
    s.ren->ResetCamera();
    for (auto &sz : sizes)
      for (int strategy = 0; strategy < 3; ++strategy)
        for (int path = 0; path < 3; ++path) {
          s.resize(sz[0], sz[1]);
          s.gpu->SetStrategy(strategy);
          s.gpu->SetDisplayPath(path);
          s.gpuVolume->VisibilityOn();
          s.cpuVolume->VisibilityOff();
          s.win->Render();
        }
  }
  s.gpuVolume->VisibilityOn();
  s.cpuVolume->VisibilityOff();
  // Memory is read in one fixed state, so that like is compared with like: the 8-bit input, a 1024^2 window (the GL
  // framebuffers and the display textures have that size), the standard strategy (AUTO may leave the volume turned,
  // in an array of the permuted extent whose tiling differs), the GPU display path, a fixed view, no sphere.
  auto canonical = [&]() {
    s.gpu->SetInputData(img);
    s.resize(1024, 1024);
    s.gpu->SetStrategy(0);
    s.gpu->SetDisplayPath(0);
    s.sphereActor->VisibilityOff();
    cam->SetParallelProjection(0);
    s.ren->ResetCamera();
    s.ren->ResetCameraClippingRange();
    for (int k = 0; k < 4; ++k) s.win->Render(); // buffers released by the frames before are freed by the driver once
    s.win->WaitForCompletion();                  // the GPU is done with them
  };
  canonical();
  const size_t freeBefore = freeBytes(), rssBefore = rss_bytes();
  std::printf("soak: device memory free %.1f MiB before the mapper, %.1f MiB after the warm-up; RSS %.1f MiB;%s\n",
              free0 / MiB, freeBefore / MiB, rssBefore / MiB, rss_breakdown().c_str());
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // CAVR_SOAK_PATHS: display paths of the frames: both at random (default), "host" or "gpu" only (a control).
  const char *pathsEnv = std::getenv("CAVR_SOAK_PATHS");
  // CAVR_SOAK_FIXED_SIZE=1: every frame 1024^2 (a control: no new frame buffers, textures or registrations).
  const bool fixedSize = std::getenv("CAVR_SOAK_FIXED_SIZE") && std::atoi(std::getenv("CAVR_SOAK_FIXED_SIZE")) != 0;
  const char paths = pathsEnv && !std::strcmp(pathsEnv, "host") ? 'h' : pathsEnv && !std::strcmp(pathsEnv, "gpu") ? 'g' : 'r';
  int interopFrames = 0, sharedFrames = 0, cudaFrames = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < frames; ++i) {
    if (i % 50 == 0) {
      const auto &sz = sizes[fixedSize ? 0 : rng() % 4];
      s.resize(sz[0], sz[1]);
      s.gpu->SetInputData(u(rng) < 0.3 ? img16.GetPointer() : img.GetPointer());
      s.ren->ResetCamera();
    }
    cam->Azimuth(360.0 * u(rng));
    cam->Elevation(-80.0 + 160.0 * u(rng));
    cam->Roll(360.0 * u(rng));
    cam->OrthogonalizeViewUp();
    cam->SetParallelProjection(u(rng) < 0.2);
    if (u(rng) < 0.2) { // a transfer-function edit
      s.otf->RemoveAllPoints();
      s.otf->AddPoint(0, 0.0);
      s.otf->AddPoint(20 + 80 * u(rng), 0.0);
      s.otf->AddPoint(255, 0.05 + 0.6 * u(rng));
      s.ctf->AddRGBPoint(30 + 200 * u(rng), u(rng), u(rng), u(rng));
      if (s.ctf->GetSize() > 40) s.ctf->RemovePoint(s.ctf->GetDataPointer()[4 * 2]);
    }
    s.gpu->SetStrategy(static_cast<int>(rng() % 3));
    const double pathDraw = u(rng);
    s.gpu->SetDisplayPath(paths == 'h' ? 1 : paths == 'g' ? 0 : (pathDraw < 0.4 ? 0 : pathDraw < 0.7 ? 1 : 2));
    s.gpu->SetCavrBlendMode(u(rng) < 0.85 ? 0 : 1);
    s.prop->SetShade(u(rng) < 0.3);
    s.sphereActor->SetVisibility(u(rng) < 0.2);
    s.ren->ResetCameraClippingRange();
    s.win->Render();
    interopFrames += std::string(s.gpu->GetLastDisplayPathName()) == "interop";
    sharedFrames += std::string(s.gpu->GetLastDisplayPathName()) == "shared";
    cudaFrames += std::string(s.gpu->GetLastBackendName()) == "cuda";
    if ((i + 1) % 2000 == 0 && i + 1 < frames) {
      canonical();
      std::printf("soak: %ld frames, device memory free %.1f MiB (%+.3f), RSS %.1f MiB (%+.1f);%s\n", i + 1,
                  freeBytes() / MiB, (double(freeBefore) - double(freeBytes())) / MiB, rss_bytes() / MiB,
                  (double(rss_bytes()) - double(rssBefore)) / MiB, rss_breakdown().c_str());
      s.gpu->SetInputData(u(rng) < 0.3 ? img16.GetPointer() : img.GetPointer());
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  canonical();
  const size_t freeAfter = freeBytes(), rssAfter = rss_bytes();
  const double dDev = (double(freeBefore) - double(freeAfter)) / MiB, dRss = (double(rssAfter) - double(rssBefore)) / MiB;
  std::printf("soak: %ld frames in %.1f s (%.2f ms a frame), %d on CUDA, %d through shared memory, %d through "
              "textures; after:%s\n", frames, seconds, 1e3 * seconds / std::max(1L, frames), cudaFrames, sharedFrames,
              interopFrames, rss_breakdown().c_str());
  check(cudaFrames == frames, fmt("every frame on the CUDA back end (%.0f of %.0f)", cudaFrames, double(frames)));
  if (paths == 'r')
    check(sharedFrames > 0 && interopFrames > 0, fmt("frames through shared memory (%.0f) and through textures (%.0f)",
                                                     double(sharedFrames), double(interopFrames)));
  // A leak uses more memory; the driver may also give back some that it held at the first reading (measured on an H100:
  // the readings alternate between the first one and 33.2 MiB less in use, never more), so the bound is one-sided.
  std::printf("soak: device memory in use after the frames %+.3f MiB against before (%s 1 MiB either way)\n", dDev,
              std::fabs(dDev) <= 1.0 ? "within" : "not within");
  check(dDev <= 1.0, fmt("device memory flat: %+.3f MiB more in use after the frames (at most 1 MiB)", dDev));
  check(dRss <= 16.0, fmt("host RSS flat: %+.1f MiB after the frames (<= 16 MiB)", dRss));
  check(s.reports.errors == 0 && s.reports.warnings == 0,
        fmt("no error (%.0f) and no warning (%.0f) reported", s.reports.errors, s.reports.warnings));
  return 0;
}

// A volume that does not fit on the GPU renders on the CPU: the mapper must warn, render on the CPU back end through
// host memory, equal the CPU back end's picture, and give all device memory back. Two ways: the core's fault injection
// (CAVR_CUDA_VOLUME_LIMIT: the upload fails as out of memory), and a real one where the GPU is first filled (cudaMalloc
// of all but 256 MiB) and the volume is 400 MB.
void fallback_case(CAVRDevice meter, vtkImageData *img, const char *what) {
  const double MiB = 1048576.0;
  size_t freeStart = 0, total = 0, freeEnd = 0;
  cavrGetDeviceMemoryInfo(meter, &freeStart, &total);
  void *ballast = nullptr;
#if CAVR_CHECK_CUDART
  if (std::strcmp(what, "real") == 0) {
    const size_t bytes = freeStart - std::min(freeStart, static_cast<size_t>(256) << 20);
    if (cudaMalloc(&ballast, bytes) != 0) ballast = nullptr;
    size_t f = 0;
    cavrGetDeviceMemoryInfo(meter, &f, &total);
    std::printf("fallback (%s): %.0f MiB of the GPU taken, %.0f MiB free for a %.0f MiB volume\n", what, bytes / MiB,
                f / MiB, img->GetNumberOfPoints() / MiB);
  }
#endif
  if (std::strcmp(what, "real") == 0 && !ballast) {
    std::printf("fallback (real): not run (no CUDA runtime to fill the GPU with)\n");
    return;
  }
  {
    Scene s(img, 640, 480);
    const std::vector<unsigned char> cpu = s.frame("cpu");
    std::vector<unsigned char> gpu;
    for (int i = 0; i < 10; ++i) {
      s.ren->GetActiveCamera()->Azimuth(i == 0 ? 0.0 : 36.0);
      gpu = s.frame("gpu");
    }
    s.ren->GetActiveCamera()->Azimuth(-36.0 * 9);
    gpu = s.frame("gpu");
    const double p = psnr(cpu, gpu);
    check(std::string(s.gpu->GetLastBackendName()) == "cpu" && std::string(s.gpu->GetLastDisplayPathName()) == "host",
          std::string("fallback (") + what + "): rendered on the " + s.gpu->GetLastBackendName() +
              " back end, displayed through " + s.gpu->GetLastDisplayPathName() + " memory");
    check(s.reports.warnings >= 1 && s.reports.errors == 0 && s.reports.last.find("CPU") != std::string::npos,
          std::string("fallback (") + what + fmt("): %.0f warning(s), %.0f errors; ", s.reports.warnings,
                                               s.reports.errors) + "last: " + s.reports.last);
    check(p >= 45.0, std::string("fallback (") + what + fmt("): equals the CPU back end's picture (%.2f dB >= 45)", p));
    s.gpu->ReleaseGraphicsResources(s.win);
    s.cpu->ReleaseGraphicsResources(s.win);
  }
#if CAVR_CHECK_CUDART
  if (ballast) cudaFree(ballast);
#endif
  cavrGetDeviceMemoryInfo(meter, &freeEnd, &total);
  const double d = (double(freeStart) - double(freeEnd)) / MiB;
  check(std::fabs(d) <= 1.0,
        std::string("fallback (") + what + fmt("): device memory back where it was (%+.3f MiB, within 1 MiB)", d));
}

int run_fallback(CAVRDevice meter) {
  auto small = make_volume(200, 180, 160, 9); // 5.5 MiB, over a 1 MiB limit
  setenv("CAVR_CUDA_VOLUME_LIMIT", "1048576", 1);
  fallback_case(meter, small, "fault injection");
  unsetenv("CAVR_CUDA_VOLUME_LIMIT");
  // 800 x 800 x 640 uint8 (391 MiB): a cheap pattern with a dense ball, so that the picture is not empty.
  auto big = vtkSmartPointer<vtkImageData>::New();
  big->SetDimensions(800, 800, 640);
  big->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
  auto *v = static_cast<unsigned char *>(big->GetScalarPointer());
  for (int z = 0; z < 640; ++z)
    for (int y = 0; y < 800; ++y)
      for (int x = 0; x < 800; ++x) {
        const int dx = x - 400, dy = y - 400, dz = z - 320, r2 = dx * dx + dy * dy + dz * dz;
        v[(static_cast<size_t>(z) * 800 + y) * 800 + x] =
          static_cast<unsigned char>(r2 < 250 * 250 ? 120 + ((x ^ y ^ z) & 127) : 0);
      }
  fallback_case(meter, big, "real");
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  CAVRDevice meter = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!meter) {
    const char *m = "";
    cavrGetDeviceError(nullptr, &m);
    std::printf("SKIP: no CUDA device (%s)\n", m);
    return 77;
  }
  std::printf("cavr device: %s\n", cavrGetDeviceName(meter));
  if (mode == "soak") {
    const long frames = argc > 2 ? std::atol(argv[2]) : 10000;
    run_soak(frames, meter);
    run_fallback(meter);
  } else {
    run_check(argc > 2 ? argv[2] : "");
  }
  cavrReleaseDevice(meter);
  std::printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}

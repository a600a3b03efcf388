// SPDX-License-Identifier: BSD-3-Clause
// cavr-vtk-gpu-bench (issue 11, item 6): VTK's GPU ray caster (vtkOpenGLGPUVolumeRayCastMapper, what ParaView's
// "Volume" uses on a GPU) and cavr's CUDA back end in one program, on the same volume, transfer function, sample
// distance, camera (VTK's matrices handed to cavrSetCameraMatrices) and image size. Built only with
// -DCAVR_BUILD_VTK_GPU_BENCH=ON against a VTK with EGL (the GPU machine: ../shared/setup/vtk-egl/).
//
//   cavr-vtk-gpu-bench VOLUME.raw NX NY NZ TF_FILE SIZE ANGLES(comma) FRAMES OUTDIR [RESAMPLE_N [orbit]]
//
// Per camera azimuth: VTK's frame (Render() + WaitForCompletion(), median of FRAMES after 2 warm-ups), cavr's frame
// (cavrRender to the RGBA8 image on the host, median) and kernel, the ratio, and PSNR between the two RGB images
// (over black). Writes OUTDIR/vtk_side_by_side.csv and, at the second angle, both images as PNG.
//
// With `orbit` (issue 14, items 2 and 3; built when cavr's mapper module is): end to end through VTK in the same
// window instead. Per frame of a camera orbit (FRAMES frames, 360/FRAMES degrees of azimuth apart, 20 degrees of
// elevation), the time of Render() + WaitForCompletion() with VTK's vtkOpenGLGPUVolumeRayCastMapper, with cavr's
// vtkCavrVolumeMapper displaying through host memory, and with it displaying through OpenGL textures (CUDA-OpenGL
// interop), each alone in the renderer, the last once more with a small opaque sphere beside the volume (the mapper
// then reads the window's depth back for the rays), and with nothing visible (VTK's own cost of a frame); the mappers'
// own Render() calls (vtkCavrVolumeMapper::GetLastDrawTime); and cavrRender's time through the C API for the same view (RGBA8 to the
// host, as above); medians and means over the frames after 3 warm-up frames of each, and PSNR of each mapper's window
// against the C API's image at one view. Appends to OUTDIR/vtk_mapper_orbit.csv.
#include <vtkActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkNew.h>
#include <vtkOpenGLGPUVolumeRayCastMapper.h>
#include <vtkOpenGLRenderWindow.h>
#include <vtkPNGWriter.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPointData.h>
#include <vtkPolyDataMapper.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkSphereSource.h>
#include <vtkUnsignedCharArray.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cavr/cavr.h"
#include "cavr/cavr_io.h"
#if CAVR_BENCH_WITH_MAPPER
#include "vtkCavrVolumeMapper.h"
#endif

namespace {
[[noreturn]] void die(const std::string &m) {
  std::fprintf(stderr, "cavr-vtk-gpu-bench: %s\n", m.c_str());
  std::exit(1);
}
void ok(CAVRDevice dev, CAVRError e, const char *what) {
  if (!e) return;
  const char *m = "";
  cavrGetDeviceError(dev, &m);
  die(std::string(what) + ": " + cavrGetErrorString(e) + ": " + m);
}
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
// Trilinear resampling of a uint8 volume to n^3.
std::vector<unsigned char> resample(const std::vector<unsigned char> &src, const int sd[3], int n) {
  std::vector<unsigned char> dst((size_t)n * n * n);
  auto slab = [&](int z) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        double f[3] = {(double)x * (sd[0] - 1) / (n - 1), (double)y * (sd[1] - 1) / (n - 1), (double)z * (sd[2] - 1) / (n - 1)};
        int i[3];
        double w[3];
        for (int a = 0; a < 3; ++a) {
          i[a] = std::min((int)f[a], sd[a] - 2);
          w[a] = f[a] - i[a];
        }
        auto at = [&](int dx, int dy, int dz) {
          return (double)src[((size_t)(i[2] + dz) * sd[1] + i[1] + dy) * sd[0] + i[0] + dx];
        };
        double c00 = at(0, 0, 0) + w[0] * (at(1, 0, 0) - at(0, 0, 0)), c10 = at(0, 1, 0) + w[0] * (at(1, 1, 0) - at(0, 1, 0));
        double c01 = at(0, 0, 1) + w[0] * (at(1, 0, 1) - at(0, 0, 1)), c11 = at(0, 1, 1) + w[0] * (at(1, 1, 1) - at(0, 1, 1));
        double c0 = c00 + w[1] * (c10 - c00), c1 = c01 + w[1] * (c11 - c01);
        dst[((size_t)z * n + y) * n + x] = (unsigned char)(c0 + w[2] * (c1 - c0) + 0.5);
      }
  };
  const unsigned T = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < T; ++t)
    pool.emplace_back([&, t] {
      for (int z = (int)t; z < n; z += (int)T) slab(z);
    });
  for (auto &th : pool) th.join();
  return dst;
}
void write_png(const std::string &path, const unsigned char *rgb, int w, int h, int comps) {
  vtkNew<vtkImageData> img;
  img->SetDimensions(w, h, 1);
  vtkNew<vtkUnsignedCharArray> a;
  a->SetNumberOfComponents(comps);
  a->SetNumberOfTuples((vtkIdType)w * h);
  std::memcpy(a->GetPointer(0), rgb, (size_t)w * h * comps);
  img->GetPointData()->SetScalars(a);
  vtkNew<vtkPNGWriter> png;
  png->SetInputData(img);
  png->SetFileName(path.c_str());
  png->Write();
}
// VTK's camera as cavr's (square image): view and projection, row-major in VTK, column-major in cavr; committed.
void use_vtk_camera(CAVRDevice dev, CAVRCamera cam, vtkCamera *vc) {
  double view[16], proj[16];
  vtkMatrix4x4 *mv = vc->GetModelViewTransformMatrix();
  vtkMatrix4x4 *mp = vc->GetProjectionTransformMatrix(1.0, -1, 1);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      view[4 * c + r] = mv->GetElement(r, c);
      proj[4 * c + r] = mp->GetElement(r, c);
    }
  ok(dev, cavrSetCameraMatrices(cam, view, proj), "camera");
  ok(dev, cavrCommitCamera(cam), "camera commit");
}

#if CAVR_BENCH_WITH_MAPPER
std::vector<unsigned char> window_rgb(vtkRenderWindow *win, int size) {
  vtkNew<vtkUnsignedCharArray> px;
  win->GetPixelData(0, 0, size - 1, size - 1, 0, px);
  std::vector<unsigned char> rgb((size_t)size * size * 3);
  if (px->GetNumberOfValues() == (vtkIdType)rgb.size()) std::memcpy(rgb.data(), px->GetPointer(0), rgb.size());
  return rgb;
}
double psnr_rgb_rgba(const std::vector<unsigned char> &rgb, const unsigned char *rgba, size_t pixels) {
  double se = 0.0;
  for (size_t p = 0; p < pixels; ++p)
    for (int c = 0; c < 3; ++c) {
      const double d = (double)rgba[4 * p + c] - rgb[3 * p + c];
      se += d * d;
    }
  return se > 0 ? 10.0 * std::log10(255.0 * 255.0 * 3.0 * pixels / se) : INFINITY;
}

// The orbit: VTK's GPU mapper, cavr's mapper through host memory and through OpenGL textures, and the C API.
int run_orbit(vtkRenderWindow *win, vtkRenderer *ren, vtkVolume *vtkVol, vtkImageData *img, vtkVolumeProperty *prop,
              CAVRDevice dev, CAVRVolume cv, CAVRTransferFunction ctfc, CAVRCamera cam, CAVRRenderSettings set,
              CAVRFrameBuffer fb, int size, int frames, const std::string &out, const char *tfPath) {
  // texMapper: the default display (shared memory where the driver can, else textures); copyMapper: the GPU textures.
  vtkNew<vtkCavrVolumeMapper> hostMapper, texMapper, copyMapper;
  vtkNew<vtkVolume> hostVol, texVol, copyVol;
  for (vtkCavrVolumeMapper *m : {hostMapper.GetPointer(), texMapper.GetPointer(), copyMapper.GetPointer()}) {
    m->SetInputData(img);
    m->SetBackend(vtkCavrVolumeMapper::BACKEND_CUDA);
    m->SetSampleDistance(0.5); // as VTK's mapper and the C API; strategy AUTO and early termination 0.99 as the API's defaults
  }
  hostMapper->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_HOST);
  hostVol->SetMapper(hostMapper);
  texVol->SetMapper(texMapper);
  copyMapper->SetDisplayPath(vtkCavrVolumeMapper::DISPLAY_TEXTURES);
  copyVol->SetMapper(copyMapper);
  copyVol->SetProperty(prop);
  ren->AddVolume(copyVol);
  hostVol->SetProperty(prop);
  texVol->SetProperty(prop);
  ren->AddVolume(hostVol);
  ren->AddVolume(texVol);
  // A small opaque sphere outside the volume's corner: with it in the scene the mapper reads the window's depth buffer
  // back for the rays to stop at (path 3: the interop path with that read).
  vtkNew<vtkSphereSource> sphere;
  double b[6];
  img->GetBounds(b);
  sphere->SetCenter(b[0] - 0.05 * (b[1] - b[0]), b[2], b[4]);
  sphere->SetRadius(0.02 * (b[1] - b[0]));
  vtkNew<vtkPolyDataMapper> sphereMapper;
  sphereMapper->SetInputConnection(sphere->GetOutputPort());
  vtkNew<vtkActor> sphereActor;
  sphereActor->SetMapper(sphereMapper);
  ren->AddActor(sphereActor);
  // Series: 0-3 the window's frames (path 5: nothing visible, VTK's own cost of a frame), 4 the C API, 6-7 the
  // mappers' own Render() calls (LastDrawTime) in the host and interop frames.
  // 8: path 3 with the opaque depth read on the GPU (the mapper's OpaqueDepthPath GPU), against 3's read through the host.
  // 9: the GPU textures (DISPLAY_TEXTURES) against 2's default (shared memory), 10 their mapper's Render() call.
  // (Before 2026-11-25 the default was the textures: series 2, 3, 7, 8 were named cavr_mapper_interop*.)
  // 11, 12: Render() alone (before WaitForCompletion) of frames 2 and 5; 13: cavrRender's own time in frame 2.
  // 14-19: the shared frame's stamps (renderer start, renderer end, Frame() start, Render() end, mapper start, mapper
  // end), 20-23 the empty frame's (no mapper).
  // 24: the C API call of 4 again at once (no OpenGL work between: no switch from the OpenGL context); 25: the C API
  // into a frame buffer without host planes right after (the call's own cost over its kernel), 26 its kernel.
  constexpr int S = 27;
  vtkVolume *vols[S] = {vtkVol,  hostVol, texVol,  texVol,  nullptr, nullptr, nullptr,
                        nullptr, texVol,  copyVol, nullptr, nullptr, nullptr, nullptr,
                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                        nullptr, nullptr, nullptr};
  const char *names[S] = {"vtk_gpu_mapper", "cavr_mapper_host", "cavr_mapper_shared", "cavr_mapper_shared_depth_read",
                          "cavr_c_api", "vtk_empty_frame", "cavr_mapper_host_render_call",
                          "cavr_mapper_shared_render_call", "cavr_mapper_shared_depth_on_gpu",
                          "cavr_mapper_textures", "cavr_mapper_textures_render_call",
                          "cavr_mapper_shared_render_returns", "vtk_empty_frame_render_returns",
                          "cavr_mapper_shared_core_render",
                          "shared_at_renderer_start", "shared_at_renderer_end", "shared_at_frame_start",
                          "shared_at_render_end", "shared_at_mapper_start", "shared_at_mapper_end",
                          "empty_at_renderer_start", "empty_at_renderer_end",
                          "empty_at_frame_start", "empty_at_render_end",
                          "cavr_c_api_again", "cavr_c_api_device_only", "cavr_c_api_device_only_kernel"};
  double renderReturns = 0.0;
  // Where a frame's time goes (CPU clock, ms from the Render() call): the renderer's StartEvent and EndEvent, the
  // window's RenderEvent (just before Frame(): multisample resolve, blits, eglSwapBuffers, glFinish) and EndEvent.
  // Also the mapper's own call (its VolumeMapperRenderStartEvent and EndEvent).
  enum { REN_START, REN_END, FRAME_START, WIN_END, MAPPER_START, MAPPER_END, STAMPS };
  double stamp[STAMPS] = {0}, frameStart = 0.0;
  vtkNew<vtkCallbackCommand> stampers[STAMPS];
  const unsigned long events[STAMPS] = {vtkCommand::StartEvent,  vtkCommand::EndEvent,
                                        vtkCommand::RenderEvent, vtkCommand::EndEvent,
                                        vtkCommand::VolumeMapperRenderStartEvent,
                                        vtkCommand::VolumeMapperRenderEndEvent};
  vtkObject *sources[STAMPS] = {ren, ren, win, win, texMapper, texMapper};
  for (int k = 0; k < STAMPS; ++k) {
    stampers[k]->SetClientData(&stamp[k]);
    stampers[k]->SetCallback([](vtkObject *, unsigned long, void *cd, void *) { *(double *)cd = now_ms(); });
    sources[k]->AddObserver(events[k], stampers[k]);
  }
  vtkVolume *shown[4] = {vtkVol, hostVol, texVol, copyVol};
  auto timed = [&](int path) {
    for (vtkVolume *v : shown) v->SetVisibility(v == vols[path]);
    sphereActor->SetVisibility(path == 3 || path == 8);
    texMapper->SetOpaqueDepthPath(path == 8 ? vtkCavrVolumeMapper::DEPTH_GPU : vtkCavrVolumeMapper::DEPTH_HOST);
    const double a = now_ms();
    frameStart = a;
    win->Render();
    renderReturns = now_ms() - a;
    win->WaitForCompletion();
    return now_ms() - a;
  };
  vtkCamera *vc = ren->GetActiveCamera();
  CAVRFrameBuffer fbDevice = cavrNewFrameBuffer(dev, size, size); // no host planes: the image stays on the GPU
  if (!fbDevice) die("cavrNewFrameBuffer");
  ok(dev, cavrSetFrameBufferHostChannels(fbDevice, 0), "host planes");
  auto capi = [&](CAVRRenderStats *st, CAVRFrameBuffer target = nullptr) {
    use_vtk_camera(dev, cam, vc);
    const double a = now_ms();
    ok(dev, cavrRender(target ? target : fb, cv, ctfc, cam, set, st), "cavrRender");
    return now_ms() - a;
  };
  ren->ResetCamera();
  vc->Elevation(20);
  vc->OrthogonalizeViewUp();
  ren->ResetCameraClippingRange();
  CAVRRenderStats st;
  for (int path : {0, 1, 2, 3, 5, 8, 9})
    for (int i = 0; i < 3; ++i) timed(path);
  for (int i = 0; i < 3; ++i) capi(&st);
  std::vector<double> t[S], kernel;
  double psnrHost = 0.0, psnrTex = 0.0, psnrCopy = 0.0;
  // Frame k of the orbit: 360/frames degrees of azimuth apart.
  vtkNew<vtkCamera> orbitStart;
  orbitStart->DeepCopy(vc);
  auto setView = [&](int k) {
    vc->DeepCopy(orbitStart);
    vc->Azimuth(360.0 / frames * (k + 1));
    vc->OrthogonalizeViewUp();
    ren->ResetCameraClippingRange();
  };
  auto record = [&](int path) {
    t[path].push_back(timed(path));
    if (path == 1) t[6].push_back(hostMapper->GetLastDrawTime());
    if (path == 2) {
      t[7].push_back(texMapper->GetLastDrawTime());
      t[11].push_back(renderReturns);
      t[13].push_back(texMapper->GetLastRenderTime());
    }
    if (path == 5) t[12].push_back(renderReturns);
    if (path == 2 || path == 5)
      for (int k = 0; k < (path == 2 ? STAMPS : MAPPER_START); ++k)
        t[(path == 2 ? 14 : 20) + k].push_back(stamp[k] - frameStart);
    if (path == 9) t[10].push_back(copyMapper->GetLastDrawTime());
  };
  auto recordCapi = [&]() {
    t[4].push_back(capi(&st));
    kernel.push_back(st.kernelMilliseconds);
    CAVRRenderStats st2;
    t[24].push_back(capi(&st2));
    t[25].push_back(capi(&st2, fbDevice));
    t[26].push_back(st2.kernelMilliseconds);
  };
  // CAVR_BENCH_ORBIT_ORDER=blocks: each series runs its whole orbit in a row (as a user's interaction: each frame
  // follows a frame of the same kind; the C API's frames follow C API frames, with no OpenGL work between); default,
  // interleaved: at each view every series in turn (each frame follows a frame of another kind).
  const char *order = std::getenv("CAVR_BENCH_ORBIT_ORDER");
  const bool blocks = order && std::strcmp(order, "blocks") == 0;
  const int paths[7] = {0, 1, 2, 3, 5, 8, 9};
  if (blocks) {
    for (int path : paths)
      for (int k = 0; k < frames; ++k) {
        setView(k);
        record(path);
      }
    for (int k = 0; k < frames; ++k) {
      setView(k);
      recordCapi();
    }
  } else {
    for (int k = 0; k < frames; ++k) {
      setView(k);
      for (int path : paths) record(path);
      recordCapi();
    }
  }
  {
    // The windows' pictures against the C API's, same view.
    setView(frames / 3);
    capi(&st);
    const unsigned char *ref = static_cast<const unsigned char *>(cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA8));
    timed(1);
    psnrHost = psnr_rgb_rgba(window_rgb(win, size), ref, (size_t)size * size);
    timed(2);
    const std::vector<unsigned char> tex = window_rgb(win, size);
    psnrTex = psnr_rgb_rgba(tex, ref, (size_t)size * size);
    timed(9);
    psnrCopy = psnr_rgb_rgba(window_rgb(win, size), ref, (size_t)size * size);
    int dims[3];
    img->GetDimensions(dims);
    write_png(out + "/orbit_" + std::to_string(dims[0]) + "_cavr_mapper_interop.png", tex.data(), size, size, 3);
  }
  cavrReleaseFrameBuffer(fbDevice);
  int dims[3];
  img->GetDimensions(dims);
  std::string tf = tfPath;
  tf = tf.substr(tf.find_last_of('/') + 1);
  const std::string csvPath = out + "/vtk_mapper_orbit.csv";
  FILE *csv = std::fopen(csvPath.c_str(), "a");
  if (!csv) die("cannot write " + csvPath);
  double med[S], avg[S];
  for (int p = 0; p < S; ++p) {
    med[p] = median(t[p]);
    avg[p] = 0.0;
    for (double x : t[p]) avg[p] += x / t[p].size();
    for (size_t k = 0; k < t[p].size(); ++k)
      std::fprintf(csv, "%dx%dx%d,%s,%s,%zu,%.4f\n", dims[0], dims[1], dims[2], tf.c_str(), names[p], k, t[p][k]);
  }
  std::fclose(csv);
  std::printf("orbit %dx%dx%d %s, %dx%d window, %d frames, %s (median / mean ms of Render() + "
              "WaitForCompletion()):\n",
              dims[0], dims[1], dims[2], tf.c_str(), size, size, frames, blocks ? "series in blocks" : "interleaved");
  for (int p = 0; p < S; ++p)
    std::printf("  %-34s %9.3f %9.3f\n", names[p], med[p], avg[p]);
  std::printf("  cavr kernel median %.3f ms; VTK / mapper: %.1fx (host) %.1fx (default: %s) %.1fx (textures); mapper / "
              "C API: %.2fx (host) %.2fx (default); PSNR vs C API: %.2f dB (host) %.2f dB (default) %.2f dB (textures); "
              "default / textures frame %.3f\n",
              median(kernel), med[0] / med[1], med[0] / med[2], texMapper->GetLastDisplayPathName(), med[0] / med[9],
              med[1] / med[4], med[2] / med[4], psnrHost, psnrTex, psnrCopy, med[2] / med[9]);
  // What VTK does for a visible volume before its mapper renders (the pre-mapper stamps above): the mapper's pipeline
  // update and the bounds VTK asks for, each alone, mean microseconds over 1000 calls.
  for (vtkVolume *v : shown) v->SetVisibility(v == texVol.GetPointer());
  auto perCall = [](auto &&f) {
    const double a = now_ms();
    for (int i = 0; i < 1000; ++i) f();
    return (now_ms() - a); // ms for 1000 calls = microseconds per call
  };
  double vb[6];
  const double update = perCall([&] { texMapper->Update(); });
  const double mapperBounds = perCall([&] { texMapper->GetBounds(); });
  const double propBounds = perCall([&] { texVol->GetBounds(); });
  const double visible = perCall([&] { ren->ComputeVisiblePropBounds(vb); });
  std::printf("  per call (us): mapper Update %.2f, mapper GetBounds %.2f, volume GetBounds %.2f, renderer "
              "ComputeVisiblePropBounds %.2f\n",
              update, mapperBounds, propBounds, visible);
  return 0;
}
#endif
} // namespace

int main(int argc, char **argv) {
  if (argc < 10) die("usage: cavr-vtk-gpu-bench VOLUME.raw NX NY NZ TF_FILE SIZE ANGLES FRAMES OUTDIR [RESAMPLE_N]");
  int dims[3] = {std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4])};
  const char *tfPath = argv[5];
  const int size = std::atoi(argv[6]), frames = std::max(1, std::atoi(argv[8]));
  std::vector<double> angles;
  for (const char *p = argv[7]; *p;) {
    angles.push_back(std::atof(p));
    const char *c = std::strchr(p, ',');
    p = c ? c + 1 : p + std::strlen(p);
  }
  const std::string out = argv[9];
  const int resampleN = argc > 10 ? std::atoi(argv[10]) : 0;
  const bool orbit = argc > 11 && std::strcmp(argv[11], "orbit") == 0;

  std::vector<unsigned char> vox((size_t)dims[0] * dims[1] * dims[2]);
  {
    FILE *f = std::fopen(argv[1], "rb");
    if (!f || std::fread(vox.data(), 1, vox.size(), f) != vox.size()) die(std::string("cannot read ") + argv[1]);
    std::fclose(f);
  }
  if (resampleN > 1) {
    vox = resample(vox, dims, resampleN);
    dims[0] = dims[1] = dims[2] = resampleN;
  }
  // The transfer function: cavr's file format, sampled into 1024 entries; VTK gets one control point per entry.
  enum { N = 1024 };
  std::vector<float> table(4 * N);
  double range[2], unit[2] = {0.0, 255.0};
  char msg[600];
  if (cavrLoadTransferFunctionFile(tfPath, unit, table.data(), N, range, msg, sizeof msg)) die(msg);

  // ---- VTK's GPU ray caster ----
  vtkNew<vtkImageData> img;
  img->SetDimensions(dims);
  img->SetSpacing(1, 1, 1);
  vtkNew<vtkUnsignedCharArray> arr;
  arr->SetArray(vox.data(), (vtkIdType)vox.size(), 1);
  arr->SetName("s");
  img->GetPointData()->SetScalars(arr);
  vtkNew<vtkColorTransferFunction> ctf;
  vtkNew<vtkPiecewiseFunction> otf;
  for (int i = 0; i < N; ++i) {
    const double v = range[0] + (range[1] - range[0]) * i / (N - 1);
    ctf->AddRGBPoint(v, table[4 * i], table[4 * i + 1], table[4 * i + 2]);
    otf->AddPoint(v, table[4 * i + 3]);
  }
  vtkNew<vtkVolumeProperty> prop;
  prop->SetColor(ctf);
  prop->SetScalarOpacity(otf);
  prop->SetInterpolationTypeToLinear();
  prop->SetScalarOpacityUnitDistance(1.0);
  prop->ShadeOff();
  vtkNew<vtkOpenGLGPUVolumeRayCastMapper> mapper;
  mapper->SetInputData(img);
  mapper->SetAutoAdjustSampleDistances(0);
  mapper->SetLockSampleDistanceToInputSpacing(0);
  mapper->SetSampleDistance(0.5f);
  mapper->SetUseJittering(0);
  vtkNew<vtkVolume> volume;
  volume->SetMapper(mapper);
  volume->SetProperty(prop);
  vtkNew<vtkRenderer> ren;
  ren->AddVolume(volume);
  ren->SetBackground(0, 0, 0);
  // vtkOpenGLRenderWindow::New() detects EGL at run time (VTK 9.4 returns the subclass, 9.2 a vtkRenderWindow).
  vtkSmartPointer<vtkRenderWindow> win = vtkSmartPointer<vtkRenderWindow>::Take(vtkOpenGLRenderWindow::New());
  win->SetOffScreenRendering(1);
  win->AddRenderer(ren);
  win->SetSize(size, size);
  // The window as VTK makes it (8 multisamples where the GPU has them, no FXAA) unless these say otherwise; ParaView's
  // render view: CAVR_BENCH_MULTISAMPLES=0 CAVR_BENCH_FXAA=1.
  if (const char *ms = std::getenv("CAVR_BENCH_MULTISAMPLES")) win->SetMultiSamples(std::atoi(ms));
  if (const char *fx = std::getenv("CAVR_BENCH_FXAA")) ren->SetUseFXAA(std::atoi(fx) != 0);
  win->Render();
  std::printf("VTK window: %s, %d multisamples, FXAA %s\n", win->GetClassName(), win->GetMultiSamples(),
              ren->GetUseFXAA() ? "on" : "off");

  // ---- cavr ----
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CUDA);
  if (!dev) {
    const char *m = "";
    cavrGetDeviceError(nullptr, &m);
    die(std::string("no CUDA device: ") + m);
  }
  std::printf("cavr device: %s\n", cavrGetDeviceName(dev));
  CAVRVolume cv = cavrNewVolume(dev);
  CAVRTransferFunction ctfc = cavrNewTransferFunction(dev);
  CAVRCamera cam = cavrNewCamera(dev);
  CAVRRenderSettings set = cavrNewRenderSettings(dev);
  CAVRFrameBuffer fb = cavrNewFrameBuffer(dev, size, size);
  const double t0 = now_ms();
  ok(dev, cavrSetVolumeData(cv, CAVR_UINT8, dims, vox.data(), vox.size()), "cavrSetVolumeData");
  ok(dev, cavrCommitVolume(cv), "cavrCommitVolume");
  const double commitMs = now_ms() - t0;
  ok(dev, cavrSetTransferFunctionTable(ctfc, table.data(), N, range[0], range[1]), "tf");
  ok(dev, cavrCommitTransferFunction(ctfc), "tf commit");
  ok(dev, cavrSetRenderSampleDistance(set, 0.5), "sample distance");
  ok(dev, cavrSetRenderOpacityCorrection(set, 1, 1.0), "opacity correction");
  ok(dev, cavrCommitRenderSettings(set), "settings");
  ok(dev, cavrSetFrameBufferHostChannels(fb, CAVR_FB_HOST_RGBA8), "host planes");
  std::printf("volume %dx%dx%d uint8, %dx%d image, sample distance 0.5 voxel, cavr commit %.1f ms\n", dims[0], dims[1],
              dims[2], size, size, commitMs);

  if (orbit) {
#if CAVR_BENCH_WITH_MAPPER
    return run_orbit(win, ren, volume, img, prop, dev, cv, ctfc, cam, set, fb, size, frames, out, tfPath);
#else
    die("orbit: built without cavr's mapper module (no VTK mapper target)");
#endif
  }
  const std::string csvPath = out + "/vtk_side_by_side.csv";
  FILE *csv = std::fopen(csvPath.c_str(), "a");
  if (!csv) die("cannot write " + csvPath);
  std::fprintf(csv, "volume,angle,vtk_ms,cavr_frame_ms,cavr_kernel_ms,ratio,psnr_db\n");
  std::printf("%8s %10s %14s %15s %8s %9s\n", "azimuth", "VTK ms", "cavr frame ms", "cavr kernel ms", "VTK/cavr", "PSNR dB");
  vtkCamera *vc = ren->GetActiveCamera();
  for (size_t k = 0; k < angles.size(); ++k) {
    ren->ResetCamera();
    vc->Azimuth(angles[k]);
    ren->ResetCameraClippingRange();
    for (int i = 0; i < 2; ++i) win->Render(), win->WaitForCompletion();
    std::vector<double> tv, tc, tk;
    for (int i = 0; i < frames; ++i) {
      const double a = now_ms();
      win->Render();
      win->WaitForCompletion();
      tv.push_back(now_ms() - a);
    }
    use_vtk_camera(dev, cam, vc);
    CAVRRenderStats st;
    for (int i = 0; i < 2; ++i) ok(dev, cavrRender(fb, cv, ctfc, cam, set, &st), "cavrRender");
    for (int i = 0; i < frames; ++i) {
      const double a = now_ms();
      ok(dev, cavrRender(fb, cv, ctfc, cam, set, &st), "cavrRender");
      tc.push_back(now_ms() - a);
      tk.push_back(st.kernelMilliseconds);
    }
    // Both images: VTK's window (RGB over black) and cavr's RGBA8 (premultiplied, over black).
    vtkNew<vtkWindowToImageFilter> w2i;
    w2i->SetInput(win);
    w2i->SetInputBufferTypeToRGB();
    w2i->ReadFrontBufferOff();
    w2i->Update();
    const unsigned char *vtkRgb = static_cast<unsigned char *>(w2i->GetOutput()->GetScalarPointer());
    const unsigned char *cavrRgba = static_cast<const unsigned char *>(cavrGetFrameBufferData(fb, CAVR_FB_COLOR_RGBA8));
    std::vector<unsigned char> cavrRgb((size_t)size * size * 3);
    double se = 0.0;
    for (size_t p = 0; p < (size_t)size * size; ++p)
      for (int c = 0; c < 3; ++c) {
        cavrRgb[3 * p + c] = cavrRgba[4 * p + c];
        const double d = (double)cavrRgba[4 * p + c] - vtkRgb[3 * p + c];
        se += d * d;
      }
    const double psnr = se > 0 ? 10.0 * std::log10(255.0 * 255.0 * 3.0 * size * size / se) : INFINITY;
    const double mv_ = median(tv), mc = median(tc), mk = median(tk);
    std::printf("%8.0f %10.3f %14.3f %15.3f %7.1fx %9.2f\n", angles[k], mv_, mc, mk, mv_ / mc, psnr);
    std::fprintf(csv, "%dx%dx%d,%g,%.4f,%.4f,%.4f,%.3f,%.3f\n", dims[0], dims[1], dims[2], angles[k], mv_, mc, mk, mv_ / mc,
                 psnr);
    if (k == 1 || angles.size() == 1) {
      const std::string tag = out + "/side_" + std::to_string(dims[0]) + "_az" + std::to_string((int)angles[k]);
      write_png(tag + "_vtk.png", vtkRgb, size, size, 3);
      write_png(tag + "_cavr.png", cavrRgb.data(), size, size, 3);
    }
  }
  std::fclose(csv);
  cavrReleaseFrameBuffer(fb);
  cavrReleaseRenderSettings(set);
  cavrReleaseCamera(cam);
  cavrReleaseTransferFunction(ctfc);
  cavrReleaseVolume(cv);
  cavrReleaseDevice(dev);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// A plain VTK program that renders a volume with vtkCavrVolumeMapper: no ParaView, only the
// cavr::Mapper module and VTK. It is also the test of that path: the same scene drawn by VTK's own
// vtkFixedPointVolumeRayCastMapper must agree with cavr's image (PSNR >= 30 dB, the threshold of the pvpython
// comparison with ParaView's "Ray Cast Only"), cavr's image must not be empty, and a camera change must change it.
// An empty actor in the scene (ParaView keeps one per representation: its selection's) must not make the mapper read
// the window's depth (the last opaque-depth path "none", the same picture bit for bit); a triangle must ("host").
//
//   cavr_vtk_example [OUT_DIR]      writes OUT_DIR/cavr_vtk_example.png (cavr) and ..._vtk.png (VTK's ray caster)
#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkColorTransferFunction.h>
#include <vtkFixedPointVolumeRayCastMapper.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>

#include "vtkCavrVolumeMapper.h"
#include "window_pixels.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {
// A 96^3 uint8 field: a sphere of radius 40 voxels whose value falls off from the centre, with a ripple, and a dense
// off-centre blob so that turning the camera moves the picture.
vtkNew<vtkImageData> make_volume() {
  const int n = 96;
  vtkNew<vtkImageData> img;
  img->SetDimensions(n, n, n);
  img->SetSpacing(1.0, 1.0, 1.0);
  img->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
  auto *v = static_cast<unsigned char *>(img->GetScalarPointer());
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const double dx = x - 47.5, dy = y - 47.5, dz = z - 47.5, r = std::sqrt(dx * dx + dy * dy + dz * dz);
        const double bx = x - 75.0, by = y - 47.5, bz = z - 30.0, rb = std::sqrt(bx * bx + by * by + bz * bz);
        double f = r < 40.0 ? (1.0 - r / 40.0) * (0.75 + 0.25 * std::sin(0.35 * x) * std::cos(0.3 * y)) : 0.0;
        if (rb < 12.0) f = 1.0;
        v[(static_cast<size_t>(z) * n + y) * n + x] = static_cast<unsigned char>(255.0 * f + 0.5);
      }
  return img;
}

// An actor beside the volume: empty (no points, uninitialized bounds) or one triangle in a corner of the volume.
vtkNew<vtkActor> make_actor(bool empty) {
  vtkNew<vtkPolyData> poly;
  if (!empty) {
    vtkNew<vtkPoints> points;
    points->InsertNextPoint(0, 0, 0);
    points->InsertNextPoint(20, 0, 0);
    points->InsertNextPoint(0, 20, 0);
    vtkNew<vtkCellArray> cells;
    const vtkIdType tri[3] = {0, 1, 2};
    cells->InsertNextCell(3, tri);
    poly->SetPoints(points);
    poly->SetPolys(cells);
  }
  vtkNew<vtkPolyDataMapper> m;
  m->SetInputData(poly);
  vtkNew<vtkActor> actor;
  actor->SetMapper(m);
  return actor;
}

// Render one frame with `mapper` (and `actor` beside the volume when given) and return the window's RGB pixels.
std::vector<unsigned char> render(vtkVolumeMapper *mapper, vtkImageData *img, double azimuth, const std::string &png,
                                  vtkActor *actor = nullptr) {
  vtkNew<vtkColorTransferFunction> ctf;
  ctf->AddRGBPoint(0, 0.0, 0.0, 0.0);
  ctf->AddRGBPoint(80, 0.9, 0.4, 0.2);
  ctf->AddRGBPoint(255, 1.0, 1.0, 0.8);
  vtkNew<vtkPiecewiseFunction> otf;
  otf->AddPoint(0, 0.0);
  otf->AddPoint(30, 0.0);
  otf->AddPoint(255, 0.2);
  vtkNew<vtkVolumeProperty> prop;
  prop->SetColor(ctf);
  prop->SetScalarOpacity(otf);
  prop->SetInterpolationTypeToLinear();
  prop->ShadeOff();
  mapper->SetInputData(img);
  vtkNew<vtkVolume> volume;
  volume->SetMapper(mapper);
  volume->SetProperty(prop);
  vtkNew<vtkRenderer> ren;
  ren->AddVolume(volume);
  if (actor) ren->AddActor(actor);
  ren->SetBackground(0, 0, 0);
  vtkNew<vtkRenderWindow> win;
  win->SetOffScreenRendering(1);
  win->AddRenderer(ren);
  win->SetSize(256, 256);
  ren->ResetCamera();
  ren->GetActiveCamera()->Azimuth(azimuth);
  ren->ResetCameraClippingRange();
  win->Render();
  return window_pixels(win, 256, png);
}
} // namespace

int main(int argc, char **argv) {
  const std::string out = argc > 1 ? argv[1] : ".";
  vtkNew<vtkImageData> img = make_volume();
  vtkNew<vtkCavrVolumeMapper> cavr;
  cavr->SetSampleDistance(0.5);
  const std::vector<unsigned char> a = render(cavr, img, 30.0, out + "/cavr_vtk_example.png");
  vtkNew<vtkFixedPointVolumeRayCastMapper> fixed;
  fixed->SetSampleDistance(0.5f);
  fixed->SetAutoAdjustSampleDistances(0);
  fixed->SetLockSampleDistanceToInputSpacing(0);
  const std::vector<unsigned char> b = render(fixed, img, 30.0, out + "/cavr_vtk_example_vtk.png");
  vtkNew<vtkCavrVolumeMapper> cavr2;
  cavr2->SetSampleDistance(0.5);
  const std::vector<unsigned char> c = render(cavr2, img, 75.0, "");
  vtkNew<vtkCavrVolumeMapper> cavr3;
  cavr3->SetSampleDistance(0.5);
  vtkNew<vtkActor> empty = make_actor(true), triangle = make_actor(false);
  const std::vector<unsigned char> d = render(cavr3, img, 30.0, "", empty);
  const std::string emptyPath = cavr3->GetLastOpaqueDepthPathName();
  render(cavr3, img, 30.0, "", triangle);
  const std::string trianglePath = cavr3->GetLastOpaqueDepthPathName();
  std::printf("cavr_vtk_example: opaque depth read with an empty actor: \"%s\" (\"none\"), same picture: %s; with a "
              "triangle: \"%s\" (\"host\")\n", emptyPath.c_str(), d == a ? "yes" : "no", trianglePath.c_str());
  size_t lit = 0;
  for (size_t i = 0; i < a.size(); i += 3) lit += (a[i] | a[i + 1] | a[i + 2]) != 0;
  const double p = psnr(a, b), moved = psnr(a, c);
  std::printf("cavr_vtk_example: cavr vs vtkFixedPointVolumeRayCastMapper %.2f dB (>= 30), %zu of %d pixels lit, "
              "azimuth 30 vs 75: %.2f dB (< 35: the camera moves the image)\n", p, lit, 256 * 256, moved);
  const bool ok = p >= 30.0 && lit > 256 * 256 / 20 && moved < 35.0 && emptyPath == "none" && d == a &&
                  trianglePath == "host";
  std::printf("%s\n", ok ? "PASS" : "FAIL: cavr's image through VTK differs from what is expected");
  return ok ? 0 : 1;
}

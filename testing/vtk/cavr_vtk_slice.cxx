// SPDX-License-Identifier: BSD-3-Clause
// vtkCavrVolumeMapper in VTK's slice blend mode, in a plain VTK program: SLICE_BLEND with a vtkPlane
// as the volume property's slice function renders cavr's slice, and
//  - moving and turning the volume (vtkVolume's matrix) together with the plane and the camera leaves the image as it
//    is (PSNR >= 50 dB: the plane is taken into the volume's own coordinates with the volume's matrix);
//  - the slice differs from the composite image of the same scene (PSNR < 25 dB) and is not empty;
//  - a slice function that is not a vtkPlane (a vtkSphere) gives one warning over two frames (once per distinct
//    problem) and the composite image (PSNR >= 50 dB against it).
//
//   cavr_vtk_slice [OUT_DIR]      writes OUT_DIR/cavr_vtk_slice.png
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkCommand.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPlane.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkSphere.h>
#include <vtkTransform.h>
#include <vtkVolume.h>
#include <vtkVolumeMapper.h>
#include <vtkVolumeProperty.h>

#include "vtkCavrVolumeMapper.h"
#include "window_pixels.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {
constexpr int Size = 200;

// A 64 x 48 x 40 uint8 volume with a value that varies along every axis, so that any plane shows a pattern.
vtkNew<vtkImageData> make_volume() {
  vtkNew<vtkImageData> img;
  img->SetDimensions(64, 48, 40);
  img->SetSpacing(1.0, 1.0, 1.5);
  img->AllocateScalars(VTK_UNSIGNED_CHAR, 1);
  auto *v = static_cast<unsigned char *>(img->GetScalarPointer());
  for (int z = 0; z < 40; ++z)
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 64; ++x)
        v[(static_cast<size_t>(z) * 48 + y) * 64 + x] =
          static_cast<unsigned char>(127.5 + 120.0 * std::sin(0.15 * x + 0.05 * z) * std::cos(0.11 * y));
  return img;
}

struct Scene {
  vtkImplicitFunction *slice;  // nullptr: composite
  vtkTransform *move;          // the volume's, the plane's and the camera's transform (nullptr: none)
};

// Render one frame and return the window's RGB pixels.
std::vector<unsigned char> render(vtkCavrVolumeMapper *mapper, vtkImageData *img, const Scene &s,
                                  const std::string &png) {
  vtkNew<vtkColorTransferFunction> ctf;
  ctf->AddRGBPoint(0, 0.1, 0.2, 0.9);
  ctf->AddRGBPoint(255, 1.0, 0.8, 0.2);
  vtkNew<vtkPiecewiseFunction> otf;
  otf->AddPoint(0, 0.3);
  otf->AddPoint(255, 0.9);
  vtkNew<vtkVolumeProperty> prop;
  prop->SetColor(ctf);
  prop->SetScalarOpacity(otf);
  prop->SetInterpolationTypeToLinear();
  prop->SetSliceFunction(s.slice);
  mapper->SetInputData(img);
  mapper->SetBackend(1); // CPU: the same on every machine
  mapper->SetBlendMode(s.slice ? vtkVolumeMapper::SLICE_BLEND : vtkVolumeMapper::COMPOSITE_BLEND);
  vtkNew<vtkVolume> volume;
  volume->SetMapper(mapper);
  volume->SetProperty(prop);
  if (s.move) volume->SetUserTransform(s.move);
  vtkNew<vtkRenderer> ren;
  ren->AddVolume(volume);
  ren->SetBackground(0, 0, 0);
  vtkNew<vtkRenderWindow> win;
  win->SetSize(Size, Size);
  win->SetOffScreenRendering(1);
  win->AddRenderer(ren);
  double pos[3] = {-60.0, -90.0, 110.0}, focal[3] = {31.5, 23.5, 29.25}, up[3] = {0.0, 0.0, 1.0};
  if (s.move) {
    s.move->TransformPoint(pos, pos);
    s.move->TransformPoint(focal, focal);
    s.move->TransformVector(up, up);
  }
  vtkCamera *cam = ren->GetActiveCamera();
  cam->SetPosition(pos);
  cam->SetFocalPoint(focal);
  cam->SetViewUp(up);
  cam->SetViewAngle(30.0);
  ren->ResetCameraClippingRange();
  win->Render();
  return window_pixels(win, Size, png);
}

void count_warning(vtkObject *, unsigned long, void *clientData, void *) { ++*static_cast<int *>(clientData); }
} // namespace

int main(int argc, char **argv) {
  const std::string out = argc > 1 ? argv[1] : ".";
  vtkNew<vtkImageData> img = make_volume();
  const double origin[3] = {30.0, 20.0, 30.0}, normal[3] = {0.3, -0.4, 1.0};
  vtkNew<vtkPlane> plane;
  plane->SetOrigin(origin[0], origin[1], origin[2]);
  plane->SetNormal(normal[0], normal[1], normal[2]);

  vtkNew<vtkCavrVolumeMapper> m1;
  const std::vector<unsigned char> slice = render(m1, img, {plane, nullptr}, out + "/cavr_vtk_slice.png");

  // The volume moved and turned, and the plane and the camera with it.
  vtkNew<vtkTransform> move;
  move->Translate(40.0, -25.0, 10.0);
  move->RotateWXYZ(35.0, 0.2, 0.5, 1.0);
  double o2[3], n2[3];
  move->TransformPoint(origin, o2);
  move->TransformNormal(normal, n2);
  vtkNew<vtkPlane> moved;
  moved->SetOrigin(o2);
  moved->SetNormal(n2);
  vtkNew<vtkCavrVolumeMapper> m2;
  const std::vector<unsigned char> sliceMoved = render(m2, img, {moved, move}, "");

  vtkNew<vtkCavrVolumeMapper> m3;
  const std::vector<unsigned char> composite = render(m3, img, {nullptr, nullptr}, "");

  // Not a plane: one warning over two frames, and the composite image.
  vtkNew<vtkSphere> sphere;
  vtkNew<vtkCavrVolumeMapper> m4;
  int warnings = 0;
  vtkNew<vtkCallbackCommand> cb;
  cb->SetCallback(count_warning);
  cb->SetClientData(&warnings);
  m4->AddObserver(vtkCommand::WarningEvent, cb);
  render(m4, img, {sphere, nullptr}, "");
  const std::vector<unsigned char> notPlane = render(m4, img, {sphere, nullptr}, "");

  size_t lit = 0;
  for (size_t i = 0; i < slice.size(); i += 3) lit += (slice[i] | slice[i + 1] | slice[i + 2]) != 0;
  const double pMoved = psnr(slice, sliceMoved), pComposite = psnr(slice, composite),
               pNotPlane = psnr(notPlane, composite);
  std::printf("cavr_vtk_slice: moved volume, plane and camera vs unmoved %.2f dB (>= 50); slice vs composite %.2f dB "
              "(< 25); %zu of %d pixels lit; a vtkSphere: %d warning(s) (1), its image vs composite %.2f dB (>= 50)\n",
              pMoved, pComposite, lit, Size * Size, warnings, pNotPlane);
  const bool ok = pMoved >= 50.0 && pComposite < 25.0 && lit > Size * Size / 20 && warnings == 1 && pNotPlane >= 50.0;
  std::printf("%s\n", ok ? "PASS" : "FAIL: cavr's slice through VTK differs from what is expected");
  return ok ? 0 : 1;
}

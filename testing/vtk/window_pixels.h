// SPDX-License-Identifier: BSD-3-Clause
// window_pixels.h - what the plain-VTK tests share: the RGB pixels of a rendered window and their PSNR.
#ifndef CAVR_WINDOW_PIXELS_H
#define CAVR_WINDOW_PIXELS_H

#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkRenderWindow.h>
#include <vtkWindowToImageFilter.h>

#include <cmath>
#include <string>
#include <vector>

// The back buffer of `win` (rendered; size x size pixels) as RGB bytes, rows bottom to top; also written to the PNG
// file `png` unless it is empty.
inline std::vector<unsigned char> window_pixels(vtkRenderWindow *win, int size, const std::string &png) {
  vtkNew<vtkWindowToImageFilter> grab;
  grab->SetInput(win);
  grab->SetInputBufferTypeToRGB();
  grab->ReadFrontBufferOff();
  grab->Update();
  if (!png.empty()) {
    vtkNew<vtkPNGWriter> w;
    w->SetInputConnection(grab->GetOutputPort());
    w->SetFileName(png.c_str());
    w->Write();
  }
  const auto *p = static_cast<unsigned char *>(grab->GetOutput()->GetScalarPointer());
  return std::vector<unsigned char>(p, p + static_cast<size_t>(size) * size * 3);
}

// PSNR (dB) of two 8-bit images of the same size; INFINITY when they are equal.
inline double psnr(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b) {
  double se = 0.0;
  for (size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return se > 0.0 ? 10.0 * std::log10(255.0 * 255.0 * a.size() / se) : INFINITY;
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/**
 * vtkCavrDeviceError: a cavr device's first error as one line of text, for the mapper's messages. Internal to the
 * cavr::Mapper module (a private header: not installed, not wrapped).
 */
#ifndef vtkCavrDeviceError_h
#define vtkCavrDeviceError_h

#include "cavr/cavr.h"

#include <string>

/**
 * The device's first error as "CODE: message" (cavrGetErrorString's name, then the device's message), reading and
 * clearing it; `code` names the error when the device holds none. `device` may be null (the last failed creation).
 */
inline std::string vtkCavrDeviceError(CAVRDevice device, CAVRError code)
{
  const char* msg = "";
  CAVRError first = cavrGetDeviceError(device, &msg);
  return std::string(cavrGetErrorString(first != CAVR_ERROR_NONE ? first : code)) + ": " + msg;
}

#endif

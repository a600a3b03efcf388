// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr.h - the umbrella header of the cavr volume renderer's C API.
 *
 * Typical use (errors checked in real code):
 *   CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_AUTO);
 *   CAVRVolume vol = cavrNewVolume(dev);
 *   cavrSetVolumeData(vol, CAVR_UINT8, dims, voxels, bytes); cavrCommitVolume(vol);
 *   ... transfer function, camera, settings, frame buffer ...
 *   cavrRender(fb, vol, tf, cam, settings, &stats);
 *   cavrReleaseVolume(vol); ... cavrReleaseDevice(dev);
 *
 * Objects follow stage-then-commit: setters stage, cavrCommit* publishes; rendering with an object that
 * has uncommitted changes is CAVR_ERROR_NOT_COMMITTED. The library never prints or exits.
 *
 * Errors: a NULL handle returns CAVR_ERROR_INVALID_ARGUMENT without recording it (there is no device to record it
 * on); every other error is recorded on the handle's device (cavrGetDeviceError, cavrSetDeviceErrorCallback).
 * Thread safety: Retain and Release are thread safe; other calls on one object are not. docs/api/ has a page per
 * function.
 */
#ifndef CAVR_H
#define CAVR_H

#include "cavr_common.h"
#include "cavr_device.h"
#include "cavr_volume.h"
#include "cavr_transfer_function.h"
#include "cavr_camera.h"
#include "cavr_settings.h"
#include "cavr_framebuffer.h"
#include "cavr_render.h"

#endif /* CAVR_H */

// SPDX-License-Identifier: BSD-3-Clause
/*
 * png_io.c - writing frame buffers as PNG through libpng.
 */
#include <errno.h>
#ifndef CAVR_NO_IO_LIBS
#include <png.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr_io.h"

CAVRError cavrWritePng(const char *path, const uint8_t *rgba, int width, int height, char *msg, size_t msgSize) {
  if (!path || !rgba || width < 1 || height < 1 || !msg || msgSize == 0) return CAVR_ERROR_INVALID_ARGUMENT;
#ifdef CAVR_NO_IO_LIBS
  snprintf(msg, msgSize, "%s: this cavr was built without libpng: PNG output is disabled", path);
  return CAVR_ERROR_UNSUPPORTED;
#else
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = (png_uint_32)width;
  img.height = (png_uint_32)height;
  img.format = PNG_FORMAT_RGB;
  /* Premultiplied colour over black is the colour channels themselves; flip rows to top-first. */
  unsigned char *rgb = (unsigned char *)malloc((size_t)width * height * 3);
  if (!rgb) {
    snprintf(msg, msgSize, "%s: out of memory", path);
    return CAVR_ERROR_OUT_OF_MEMORY;
  }
  for (int y = 0; y < height; ++y) {
    const uint8_t *src = rgba + (size_t)(height - 1 - y) * width * 4;
    unsigned char *dst = rgb + (size_t)y * width * 3;
    for (int x = 0; x < width; ++x) {
      dst[3 * x] = src[4 * x];
      dst[3 * x + 1] = src[4 * x + 1];
      dst[3 * x + 2] = src[4 * x + 2];
    }
  }
  int ok = png_image_write_to_file(&img, path, 0, rgb, width * 3, NULL);
  free(rgb);
  if (!ok) {
    snprintf(msg, msgSize, "%s: cannot write PNG: %s", path, img.message);
    return CAVR_ERROR_IO;
  }
  return CAVR_ERROR_NONE;
#endif
}

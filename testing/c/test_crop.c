// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cropping (cavrSetRenderCropBox): on the headsq CT, in every blend mode, shaded and not,
 * orthographic and perspective:
 * - a crop box at integer voxel positions gives the same image, bit for bit, as the same box given as the
 *   volume's render extent (the pieces' mechanism): the cut is where the box says;
 * - a box that holds the whole volume changes nothing; a box that misses it renders nothing;
 * - half the volume along x differs from the whole, and the rays that never meet the kept half are empty;
 * - a box between voxel planes cuts between them (its image lies strictly between the two integer cuts');
 * - bad boxes (NaN, min above max) are refused and leave the committed settings alone.
 */
#include "test_util.h"

static const float *render(Scene *s) {
  CHECK_OK(cavrCommitRenderSettings(s->set));
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  return cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F);
}

static double sum(const float *img, size_t n) {
  double t = 0.0;
  for (size_t i = 0; i < 4 * n; ++i) t += img[i];
  return t;
}

int main(void) {
  Scene s = scene_new(96, 96);
  scene_load_nrrd(&s, CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr");
  float table[4 * 256];
  char msg[256];
  CHECK(cavrTransferFunctionPreset("ct-skin", table, 256, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, table, 256, 0, 4000));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  double b[6];
  CHECK_OK(cavrGetVolumeBounds(s.vol, b));
  const double sp[3] = {3.2, 3.2, 1.5};
  const size_t n = (size_t)s.w * s.h;
  float *full = malloc(4 * n * sizeof(float)), *crop = malloc(4 * n * sizeof(float));
  CHECK(full && crop);
  int cases = 0;
  for (int proj = 0; proj < 2; ++proj)
    for (int mode = CAVR_BLEND_COMPOSITE; mode <= CAVR_BLEND_AVERAGE_INTENSITY; ++mode)
      for (int shade = 0; shade <= (mode == CAVR_BLEND_COMPOSITE); ++shade) {
        CHECK_OK(cavrSetCameraOrbit(s.cam, b, -70, 35, 0, (CAVRProjection)proj, 1.0));
        CHECK_OK(cavrCommitCamera(s.cam));
        CHECK_OK(cavrSetRenderBlendMode(s.set, (CAVRBlendMode)mode));
        CHECK_OK(cavrSetRenderShading(s.set, shade, 0.2, 0.7, 0.3, 20));
        CHECK_OK(cavrSetRenderCropBox(s.set, NULL));
        memcpy(full, render(&s), 4 * n * sizeof(float));
        /* A box larger than the volume: nothing changes. */
        const double big[6] = {b[0] - 5, b[1] + 5, b[2] - 5, b[3] + 5, b[4] - 5, b[5] + 5};
        CHECK_OK(cavrSetRenderCropBox(s.set, big));
        CHECK(memcmp(render(&s), full, 4 * n * sizeof(float)) == 0);
        /* Integer voxel planes: the same as the render extent. */
        const int ext[6] = {10, 40, 5, 63, 20, 70};
        double box[6];
        for (int a = 0; a < 6; ++a) box[a] = b[a & ~1] + ext[a] * sp[a / 2];
        CHECK_OK(cavrSetRenderCropBox(s.set, box));
        memcpy(crop, render(&s), 4 * n * sizeof(float));
        CHECK_OK(cavrSetRenderCropBox(s.set, NULL));
        CHECK_OK(cavrSetVolumeRenderExtent(s.vol, ext));
        CHECK_OK(cavrCommitVolume(s.vol));
        const float *byExtent = render(&s);
        CHECK(memcmp(byExtent, crop, 4 * n * sizeof(float)) == 0);
        CHECK_OK(cavrSetVolumeRenderExtent(s.vol, NULL));
        CHECK_OK(cavrCommitVolume(s.vol));
        double sf = sum(full, n), sc = sum(crop, n);
        CHECK(sc > 0.0 && memcmp(full, crop, 4 * n * sizeof(float)) != 0);
        /* Half along x (the case), and cuts between voxel planes. */
        double half[6] = {b[0], 0.5 * (b[0] + b[1]), b[2], b[3], b[4], b[5]};
        CHECK_OK(cavrSetRenderCropBox(s.set, half));
        double sHalf = sum(render(&s), n);
        const int monotone = mode == CAVR_BLEND_COMPOSITE || mode == CAVR_BLEND_MAXIMUM_INTENSITY;
        CHECK(sHalf > 0.0 && (monotone ? sHalf < sf : sHalf != sf)); /* less volume: less light, or another min/mean */
        double cut[3];
        for (int k = 0; k < 3; ++k) { /* x max at voxel 20, 20.5, 21 */
          double c[6] = {b[0], b[0] + (20 + 0.5 * k) * sp[0], b[2], b[3], b[4], b[5]};
          CHECK_OK(cavrSetRenderCropBox(s.set, c));
          cut[k] = sum(render(&s), n);
        }
        if (monotone)
          CHECK(cut[0] < cut[1] && cut[1] < cut[2]); /* more volume, more light (composite, max) */
        else
          CHECK(cut[1] != cut[0] && cut[1] != cut[2]);
        /* A box beside the volume: nothing at all. */
        const double miss[6] = {b[1] + 1, b[1] + 9, b[2], b[3], b[4], b[5]};
        CHECK_OK(cavrSetRenderCropBox(s.set, miss));
        CHECK(sum(render(&s), n) == 0.0);
        printf("projection %d, blend %d, shade %d: crop/full light %.3f, half %.3f, cuts %.1f < %.1f < %.1f\n", proj,
               mode, shade, sc / sf, sHalf / sf, cut[0], cut[1], cut[2]);
        ++cases;
      }
  CHECK(cases == 10);
  /* Bad boxes: refused; the last committed crop stays. */
  const double nan[6] = {0, NAN, 0, 1, 0, 1}, inverted[6] = {0, 1, 5, 4, 0, 1};
  CHECK_ERR(cavrSetRenderCropBox(s.set, nan), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetRenderCropBox(s.set, inverted), CAVR_ERROR_INVALID_ARGUMENT);
  cavrGetDeviceError(s.dev, NULL);
  CHECK(sum(render(&s), n) == 0.0);
  free(full);
  free(crop);
  scene_free(&s);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * A volume split into two pieces (as MPI ranks hold it) renders the same picture as the whole once the
 * two premultiplied images are composited in visibility order ("over"): no seam. Each piece carries one
 * ghost layer of voxels beyond the shared plane and limits rays to its own part with the render extent,
 * so interpolation and shading gradients at the split see the same voxels as the whole volume does.
 * Real data (headsq CT), shading on, early ray termination off: max error 1e-4 per channel.
 */
#include "test_util.h"
#include "cavr/cavr_io.h"

static void render_piece(Scene *s, const CAVRVolumeFile *f, int z0, int z1, const int extent[6], float *out) {
  int dims[3] = {f->dims[0], f->dims[1], z1 - z0 + 1};
  size_t slice = (size_t)f->dims[0] * f->dims[1];
  double origin[3] = {0.0, 0.0, z0 * f->spacing[2]};
  CHECK_OK(cavrSetVolumeData(s->vol, f->type, dims, (const uint16_t *)f->data + (size_t)z0 * slice,
                             (size_t)dims[2] * slice * 2));
  CHECK_OK(cavrSetVolumeOrigin(s->vol, origin));
  CHECK_OK(cavrSetVolumeRenderExtent(s->vol, extent));
  CHECK_OK(cavrCommitVolume(s->vol));
  CHECK_OK(cavrRender(s->fb, s->vol, s->tf, s->cam, s->set, NULL));
  memcpy(out, cavrGetFrameBufferData(s->fb, CAVR_FB_COLOR_RGBA32F), sizeof(float) * 4 * s->w * s->h);
}

int main(void) {
  Scene s = scene_new(120, 120);
  CAVRVolumeFile f;
  char msg[512];
  CHECK(cavrLoadNrrd(CAVR_DATA_DIR "/headsq_64x64x93_uint16.nhdr", &f, msg, sizeof msg) == CAVR_ERROR_NONE);
  CHECK_OK(cavrSetVolumeSpacing(s.vol, f.spacing));
  float t[4 * 256];
  for (int i = 0; i < 256; ++i) {
    double v = i * 4000.0 / 255.0;
    t[4 * i] = 1.0f;
    t[4 * i + 1] = (float)(v < 1000 ? 0.7 : 0.95);
    t[4 * i + 2] = (float)(v < 1000 ? 0.6 : 0.9);
    t[4 * i + 3] = (float)(v < 450 ? 0.0 : v < 1000 ? 0.03 : 0.4);
  }
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, t, 256, 0.0, 4000.0));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrSetRenderShading(s.set, 1, 0.1, 0.7, 0.3, 12));
  CHECK_OK(cavrSetRenderEarlyTermination(s.set, 1.0));
  CHECK_OK(cavrSetRenderOpacityCorrection(s.set, 1, 1.5));
  CHECK_OK(cavrCommitRenderSettings(s.set));
  const double bounds[6] = {0, 63 * 3.2, 0, 63 * 3.2, 0, 92 * 1.5};
  size_t n = (size_t)s.w * s.h;
  float *whole = malloc(n * 16), *front = malloc(n * 16), *back = malloc(n * 16);
  const double views[3][2] = {{-70, 20}, {20, 160}, {-100, 0}};
  for (int v = 0; v < 3; ++v) {
    /* The camera looks from the +z side for the first two views (piece z >= 46 is in front). */
    CHECK_OK(cavrSetCameraOrbit(s.cam, bounds, views[v][0], views[v][1], 0, CAVR_PROJECTION_PERSPECTIVE, 1.0));
    CHECK_OK(cavrCommitCamera(s.cam));
    render_piece(&s, &f, 0, 92, NULL, whole);
    /* Lower piece: points z 0..46 plus ghost planes 47, 48; upper piece: ghost planes 44, 45 plus 46..92.
       Two ghost layers: a sample within half a step of the split takes a gradient one voxel further. */
    render_piece(&s, &f, 0, 48, (int[6]){0, 63, 0, 63, 0, 46}, back);
    render_piece(&s, &f, 44, 92, (int[6]){0, 63, 0, 63, 2, 48}, front);
    double dirs[3], o[3];
    CHECK_OK(cavrGetCameraRay(s.cam, s.w, s.h, s.w / 2, s.h / 2, o, dirs));
    float *near = dirs[2] < 0 ? front : back, *far = dirs[2] < 0 ? back : front;
    double maxErr = 0.0, covered = 0.0;
    for (size_t i = 0; i < n; ++i) {
      float a = near[4 * i + 3];
      for (int c = 0; c < 4; ++c) {
        double over = near[4 * i + c] + (1.0 - a) * far[4 * i + c];
        maxErr = fmax(maxErr, fabs(over - whole[4 * i + c]));
      }
      covered += whole[4 * i + 3] > 0.05f;
    }
    printf("view (%g, %g): max error of the composited pieces %.2g; %.0f%% of pixels covered\n", views[v][0],
           views[v][1], maxErr, 100.0 * covered / n);
    CHECK(covered > 0.1 * n);
    CHECK(maxErr < 1e-4);
  }
  /* Bad render extents are refused at commit. */
  CHECK_OK(cavrSetVolumeRenderExtent(s.vol, (int[6]){0, 63, 0, 63, 0, 93}));
  CHECK_ERR(cavrCommitVolume(s.vol), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_OK(cavrSetVolumeRenderExtent(s.vol, (int[6]){5, 5, 0, 63, 0, 10}));
  CHECK_ERR(cavrCommitVolume(s.vol), CAVR_ERROR_INVALID_ARGUMENT);
  free(whole);
  free(front);
  free(back);
  cavrFreeVolumeFile(&f);
  scene_free(&s);
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* Transfer-function sampling (linear between entries, clamped at the ends) and its argument checks. */
#include "test_util.h"

int main(void) {
  Scene s = scene_new(4, 4);
  float rgba[4 * 3] = {0, 0, 0, 0, /**/ 1, 0.5f, 0.25f, 0.5f, /**/ 1, 1, 1, 1};
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, rgba, 3, 100.0, 300.0));
  float out[4];
  /* Never committed: sampling is an error. */
  CHECK_ERR(cavrSampleTransferFunction(s.tf, 150.0, out), CAVR_ERROR_NOT_COMMITTED);
  cavrGetDeviceError(s.dev, NULL);
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrSampleTransferFunction(s.tf, 100.0, out));
  CHECK_NEAR(out[0], 0.0, 1e-6);
  CHECK_OK(cavrSampleTransferFunction(s.tf, 200.0, out)); /* exactly entry 1 */
  CHECK_NEAR(out[1], 0.5, 1e-6);
  CHECK_NEAR(out[3], 0.5, 1e-6);
  CHECK_OK(cavrSampleTransferFunction(s.tf, 150.0, out)); /* half way between entries 0 and 1 */
  CHECK_NEAR(out[0], 0.5, 1e-6);
  CHECK_NEAR(out[2], 0.125, 1e-6);
  CHECK_NEAR(out[3], 0.25, 1e-6);
  CHECK_OK(cavrSampleTransferFunction(s.tf, 275.0, out));
  CHECK_NEAR(out[1], 0.875, 1e-6);
  CHECK_OK(cavrSampleTransferFunction(s.tf, -1e9, out)); /* clamped below */
  CHECK_NEAR(out[3], 0.0, 1e-6);
  CHECK_OK(cavrSampleTransferFunction(s.tf, 1e9, out)); /* clamped above */
  CHECK_NEAR(out[3], 1.0, 1e-6);

  /* Bad tables: empty, one entry, NULL, reversed or NaN range, out-of-range or NaN entries. */
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, rgba, 0, 0.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  const char *msg = NULL;
  CHECK(cavrGetDeviceError(s.dev, &msg) == CAVR_ERROR_INVALID_ARGUMENT && strstr(msg, "got 0"));
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, rgba, 1, 0.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, NULL, 3, 0.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, rgba, 3, 1.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, rgba, 3, NAN, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, rgba, CAVR_TF_MAX_ENTRIES + 1, 0.0, 1.0), CAVR_ERROR_INVALID_ARGUMENT);
  float bad[8] = {0, 0, 0, 0, 1, 1, 1, 2.0f};
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, bad, 2, 0.0, 1.0), CAVR_ERROR_INVALID_DATA);
  bad[7] = NAN;
  CHECK_ERR(cavrSetTransferFunctionTable(s.tf, bad, 2, 0.0, 1.0), CAVR_ERROR_INVALID_DATA);
  /* Failed sets leave the committed table untouched and nothing staged. */
  CHECK_OK(cavrSampleTransferFunction(s.tf, 200.0, out));
  CHECK_NEAR(out[3], 0.5, 1e-6);
  cavrGetDeviceError(s.dev, NULL);

  /* A committed transfer function that is set again has uncommitted changes: rendering refuses it. */
  int dims[3] = {2, 2, 2};
  unsigned char vox[8] = {0};
  CHECK_OK(cavrSetVolumeData(s.vol, CAVR_UINT8, dims, vox, 8));
  CHECK_OK(cavrCommitVolume(s.vol));
  CHECK_OK(cavrCommitCamera(s.cam));
  CHECK_OK(cavrSetTransferFunctionTable(s.tf, rgba, 3, 0.0, 1.0));
  CHECK_ERR(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL), CAVR_ERROR_NOT_COMMITTED);
  CHECK(cavrGetDeviceError(s.dev, &msg) == CAVR_ERROR_NOT_COMMITTED && strstr(msg, "transfer function"));
  CHECK_OK(cavrCommitTransferFunction(s.tf));
  CHECK_OK(cavrRender(s.fb, s.vol, s.tf, s.cam, s.set, NULL));
  scene_free(&s);
  return 0;
}

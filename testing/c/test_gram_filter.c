// SPDX-License-Identifier: BSD-3-Clause
/*
 * The 7x7 Gram filters for compressive rendering, generated in exact arithmetic by
 * scripts/gen_gram_filter.py: symmetric, sum to zero, annihilate linear ramps, positive semi-definite (a
 * Gram matrix: its symbol is >= 0 at every frequency), with the centre taps the SPEC and the thesis give.
 */
#include "../common/check.h"
#include "gram_filter_table.h"

static void check_filter(const double h[49], double centre, const char *name) {
  CHECK_NEAR(h[24], centre, 1e-12);
  double sum = 0.0;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      CHECK_NEAR(h[i * 7 + j], h[j * 7 + i], 1e-15);
      CHECK_NEAR(h[i * 7 + j], h[(6 - i) * 7 + j], 1e-15);
      sum += h[i * 7 + j];
    }
  CHECK_NEAR(sum, 0.0, 1e-12);
  /* Convolving a linear ramp gives zero wherever the filter fits. */
  static double img[32][32];
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) img[y][x] = 7.0 + 0.3 * x - 1.7 * y;
  double worst = 0.0;
  for (int y = 3; y < 29; ++y)
    for (int x = 3; x < 29; ++x) {
      double acc = 0.0;
      for (int i = -3; i <= 3; ++i)
        for (int j = -3; j <= 3; ++j) acc += h[(i + 3) * 7 + (j + 3)] * img[y + i][x + j];
      worst = fabs(acc) > worst ? fabs(acc) : worst;
    }
  CHECK(worst < 1e-10);
  /* Positive semi-definite: the symbol sum h[k,l] cos(k u + l v) is >= 0 (zero only at u = v = 0). */
  double lowest = 1e30;
  for (int a = 0; a <= 64; ++a)
    for (int b = 0; b <= 64; ++b) {
      double u = M_PI * a / 64, v = M_PI * b / 64, s = 0.0;
      for (int i = -3; i <= 3; ++i)
        for (int j = -3; j <= 3; ++j) s += h[(i + 3) * 7 + (j + 3)] * cos(i * u + j * v);
      if (a || b) CHECK(s > 0.0);
      lowest = s < lowest ? s : lowest;
    }
  CHECK(lowest > -1e-12);
  printf("%s: centre %.6f, sum %.2g, ramp residual %.2g, lowest symbol %.3g\n", name, h[24], sum, worst, lowest);
}

/* The table printed in the thesis (Rabbani 2018, eq. 3.8 ff.), some entries as 6-digit rational approximations
   (-38/479, 223/1229, -3950/493): the "thesis" reading reproduces all of it. */
static const double printed[4][4] = {{11.0 / 151200, 47.0 / 4725, -38.0 / 479, -53.0 / 1890},
                                     {47.0 / 4725, -533.0 / 3150, 206.0 / 315, 191.0 / 189},
                                     {-38.0 / 479, 206.0 / 315, 223.0 / 1229, -3950.0 / 493},
                                     {-53.0 / 1890, 191.0 / 189, -3950.0 / 493, 3158.0 / 135}};

int main(void) {
  check_filter(cavr_gram_definition, 36998.0 / 2835.0, "definition (SPEC 4)");
  check_filter(cavr_gram_thesis, 3158.0 / 135.0, "thesis table");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK_NEAR(cavr_gram_thesis[i * 7 + j], printed[i][j], 2e-6 * fabs(printed[i][j]) + 1e-12);
  return 0;
}

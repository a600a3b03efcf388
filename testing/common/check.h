// SPDX-License-Identifier: BSD-3-Clause
/* check.h - the assertions every C test uses: print where and what, exit 1 (CAVR_TEST_FAIL: a test may define it
   before including this, e.g. an MPI test aborts the whole job so that no rank waits in a collective). */
#ifndef CAVR_TEST_CHECK_H
#define CAVR_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef CAVR_TEST_FAIL
#define CAVR_TEST_FAIL() exit(1)
#endif

#define CHECK(cond)                                                                                                \
  do {                                                                                                             \
    if (!(cond)) {                                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                     \
      CAVR_TEST_FAIL();                                                                                            \
    }                                                                                                              \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                                                      \
  do {                                                                                                             \
    double a_ = (a), b_ = (b);                                                                                     \
    if (!(fabs(a_ - b_) <= (tol))) {                                                                               \
      fprintf(stderr, "%s:%d: |%s - %s| = |%.9g - %.9g| = %.3g > %.3g\n", __FILE__, __LINE__, #a, #b, a_, b_,       \
              fabs(a_ - b_), (double)(tol));                                                                       \
      CAVR_TEST_FAIL();                                                                                            \
    }                                                                                                              \
  } while (0)

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Compile-only check: the ray arithmetic both back ends share (core/shared/) is strict C11 on the CPU side (built
 * with -std=c11 -pedantic -Wall -Wextra -Werror; the kernels compile the same headers as CUDA C++). */
#include "cavr_ray.h"

int main(void) {
  CAVRRayFrame frame = {0};
  (void)frame;
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * AUTO's measured table, on the CPU: view classes, the choice of rotation state and block shape
 * from a table (rotation only when the rotated class is priced cheaper by more than the margin; the standard block
 * without a table), the table's text file (round trip; malformed, truncated or foreign files refused with a reason),
 * the cache path from CAVR_TUNE_DIR / XDG_CACHE_HOME / HOME, and cavrTuneDevice on a CPU device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavr/cavr.h"
#include "cavr_shared.h"
#include "env.h"
#include "gpu_tune.h"
#include "view_policy.h"
#include "../common/check.h"

/* Orbit about y by `deg` (0: rays along -z, screen right +x, up +y), rolled about the rays by `roll` degrees. */
static void orbit(double deg, double roll, double d[3], double r[3], double u[3]) {
  const double a = deg * M_PI / 180.0, q = roll * M_PI / 180.0;
  const double r0[3] = {cos(a), 0, -sin(a)}, u0[3] = {0, 1, 0};
  d[0] = -sin(a), d[1] = 0, d[2] = -cos(a);
  for (int i = 0; i < 3; ++i) {
    r[i] = cos(q) * r0[i] + sin(q) * u0[i];
    u[i] = -sin(q) * r0[i] + cos(q) * u0[i];
  }
}

static int read_text(const char *text, CAVRTuneTable *t, char *msg, size_t n) {
  FILE *f = tmpfile();
  CHECK(f);
  fputs(text, f);
  rewind(f);
  int rc = cavr_tune_read(t, f, msg, n);
  fclose(f);
  return rc;
}

/* cavr_tune_path with the environment as a device made now would see it. */
static int tune_path(char *buf, size_t size, const char *gpu, int storage) {
  CAVREnv env;
  cavr_env_read(&env);
  return cavr_tune_path(buf, size, &env, gpu, storage);
}

int main(void) {
  double d[3], r[3], u[3];
  /* Classes: ray axis x 6 + 15-degree group of the primary axis on screen. */
  orbit(0, 0, d, r, u);
  CHECK(cavr_tune_class(d, r, u) == 2 * CAVR_TUNE_GROUPS + 0); /* rays along z, x horizontal */
  orbit(0, 37.0, d, r, u);
  CHECK(cavr_tune_class(d, r, u) == 2 * CAVR_TUNE_GROUPS + 2); /* x at 37 degrees on screen */
  orbit(90, 0, d, r, u);
  CHECK(cavr_tune_class(d, r, u) == 0 * CAVR_TUNE_GROUPS + 5); /* rays along x, primary y vertical */
  orbit(90, 90, d, r, u);
  CHECK(cavr_tune_class(d, r, u) == 0 * CAVR_TUNE_GROUPS + 0); /* rolled: y horizontal */
  for (int deg = 0; deg < 360; deg += 7)
    for (int roll = 0; roll < 360; roll += 11) {
      orbit(deg, roll, d, r, u);
      int c = cavr_tune_class(d, r, u);
      CHECK(c >= 0 && c < CAVR_TUNE_CLASSES);
    }

  /* A table where rays along x with y vertical cost 3 ns a sample for every shape, rays along z with x horizontal
     1 ns for 1x256 (shape 6) and 2 ns for the rest; everything else unmeasured. */
  CAVRTuneTable t;
  memset(&t, 0, sizeof t);
  snprintf(t.gpu, sizeof t.gpu, "Test GPU 80GB");
  t.memoryMiB = 81559;
  t.storage = CAVR_STORE_U8;
  t.version = 7;
  const double B1 = 768.0 * 768.0 * 768.0; /* one row measured: the middle one (768^3 uint8) */
  t.rowBytes[1] = B1;
  t.rowSide[1] = 768;
  for (int k = 0; k < CAVR_TUNE_SIZES; ++k) t.rowSide[k] = t.rowSide[k] ? t.rowSide[k] : cavr_tune_sides[k];
  for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
    t.cost[1][0 * CAVR_TUNE_GROUPS + 5][s] = 3.0f;
    t.cost[1][2 * CAVR_TUNE_GROUPS + 0][s] = s == 6 ? 1.0f : 2.0f;
  }
  float c = 0;
  CHECK(cavr_tune_best_shape(&t, B1, 2 * CAVR_TUNE_GROUPS, &c) == 6 && c == 1.0f);
  CHECK(cavr_tune_best_shape(&t, B1, 1, &c) == -1 && c == 0.0f);
  CAVRTuneChoice ch;
  /* At 90 degrees: unrotated the class is (x, 5) at 3 ns; turned about y the rays run along stored z with stored x
     horizontal: class (z, 0) at 1 ns with 1x256. */
  orbit(90, 0, d, r, u);
  cavr_tune_choose(&t, B1, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
  CHECK(ch.rotation == CAVR_ROT_Y && ch.shape == 6 && ch.cost == 1.0f);
  cavr_tune_choose(&t, B1, d, r, u, 0, CAVR_ROT_NONE, 0.05, &ch); /* rotation not allowed */
  CHECK(ch.rotation == CAVR_ROT_NONE && ch.cost == 3.0f);
  /* At 0 degrees: no rotation, 1x256; a rotated volume turns back (the unrotated class is cheaper by > 5%). */
  orbit(0, 0, d, r, u);
  cavr_tune_choose(&t, B1, d, r, u, 1, CAVR_ROT_Y, 0.05, &ch);
  CHECK(ch.rotation == CAVR_ROT_NONE && ch.shape == 6);
  /* Hysteresis: a state within the margin of the best is kept. */
  t.cost[1][2 * CAVR_TUNE_GROUPS + 0][6] = 1.02f;
  {
    CAVRTuneTable t2 = t;
    for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) t2.cost[1][0 * CAVR_TUNE_GROUPS + 5][s] = 1.0f;
    orbit(90, 0, d, r, u);
    cavr_tune_choose(&t2, B1, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
    CHECK(ch.rotation == CAVR_ROT_NONE); /* 1.00 unrotated vs 1.02 rotated */
    cavr_tune_choose(&t2, B1, d, r, u, 1, CAVR_ROT_Y, 0.05, &ch);
    CHECK(ch.rotation == CAVR_ROT_Y); /* already turned: 1.02 is within 5% of 1.00, stay */
    cavr_tune_choose(&t2, B1, d, r, u, 1, CAVR_ROT_Y, 0.01, &ch);
    CHECK(ch.rotation == CAVR_ROT_NONE);
  }
  /* Rays along z: never rotated, even where the table prices a rotated class lower (here every x class at 0.5). */
  {
    CAVRTuneTable t3 = t;
    for (int g = 0; g < CAVR_TUNE_GROUPS; ++g)
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) t3.cost[1][0 * CAVR_TUNE_GROUPS + g][s] = 0.5f;
    for (int roll = 0; roll < 180; roll += 10) {
      orbit(10, roll, d, r, u);
      cavr_tune_choose(&t3, B1, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
      CHECK(ch.rotation == CAVR_ROT_NONE);
      cavr_tune_choose(&t3, B1, d, r, u, 1, CAVR_ROT_Y, 0.05, &ch); /* and a rotated volume turns back */
      CHECK(ch.rotation == CAVR_ROT_NONE);
    }
  }
  /* No table, or nothing measured for the view: the standard 16x16 block, no rotation. */
  cavr_tune_choose(NULL, B1, d, r, u, 1, CAVR_ROT_Y, 0.05, &ch);
  CHECK(ch.rotation == CAVR_ROT_NONE && ch.shape == 0 && ch.cost == 0.0f);
  orbit(0, 37.0, d, r, u);
  CAVRTuneTable empty;
  memset(&empty, 0, sizeof empty);
  cavr_tune_choose(&empty, B1, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
  CHECK(ch.rotation == CAVR_ROT_NONE && ch.shape == 0);

  /* Rows of several sizes: the cost at a volume's size interpolated in log2(bytes) between the rows around it, the
     nearest row's beyond them; a row without the class is skipped. */
  {
    CAVRTuneTable w;
    memset(&w, 0, sizeof w);
    w.rowBytes[0] = 1 << 24;   /* 16 MiB */
    w.rowBytes[1] = 1 << 28;   /* 256 MiB */
    w.rowBytes[2] = 1ull << 32; /* 4 GiB */
    for (int k = 0; k < CAVR_TUNE_SIZES; ++k)
      for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) w.cost[k][0][s] = 1.0f + k; /* 1, 2, 3 ns */
    CHECK(fabsf(cavr_tune_cost(&w, 1 << 24, 0, 3) - 1.0f) < 1e-6f);
    CHECK(fabsf(cavr_tune_cost(&w, 1 << 20, 0, 3) - 1.0f) < 1e-6f);   /* below the smallest row */
    CHECK(fabsf(cavr_tune_cost(&w, 1 << 26, 0, 3) - 1.5f) < 1e-6f);   /* half way in log2 between 2^24 and 2^28 */
    CHECK(fabsf(cavr_tune_cost(&w, 1ull << 30, 0, 3) - 2.5f) < 1e-6f);
    CHECK(fabsf(cavr_tune_cost(&w, 46e9, 0, 3) - 3.0f) < 1e-6f);       /* beyond the largest row */
    w.rowBytes[2] = 0.0;                                                 /* the largest row not measured */
    CHECK(fabsf(cavr_tune_cost(&w, 46e9, 0, 3) - 2.0f) < 1e-6f);
    w.rowBytes[2] = 1ull << 32;
    w.cost[1][0][3] = 0.0f;                                               /* a class missing from one row */
    CHECK(fabsf(cavr_tune_cost(&w, 1 << 28, 0, 3) - 2.0f) < 1e-6f);     /* 2^28: half way between 2^24 and 2^32 */
    CHECK(cavr_tune_cost(&w, 1 << 28, 1, 3) == 0.0f && cavr_tune_cost(NULL, 1, 0, 0) == 0.0f);
    CHECK(cavr_tune_cost(&w, 1 << 28, -1, 0) == 0.0f && cavr_tune_cost(&w, 1 << 28, 0, CAVR_TUNE_SHAPES) == 0.0f);
    /* What AUTO is for: rays along x cost the same as rays along z on a small cube and twice as much on a big one, so
       a small volume stays unturned at 90 degrees and a big one turns; the choice reports each state's cost. */
    memset(w.cost, 0, sizeof w.cost);
    for (int k = 0; k < CAVR_TUNE_SIZES; ++k)
      for (int g = 0; g < CAVR_TUNE_GROUPS; ++g)
        for (int s = 0; s < CAVR_TUNE_SHAPES; ++s) {
          w.cost[k][0 * CAVR_TUNE_GROUPS + g][s] = k == 2 ? 2.0f : 1.0f;
          w.cost[k][2 * CAVR_TUNE_GROUPS + g][s] = 1.0f;
          w.cost[k][1 * CAVR_TUNE_GROUPS + g][s] = 1.0f;
        }
    orbit(90, 0, d, r, u);
    cavr_tune_choose(&w, 1 << 24, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
    CHECK(ch.rotation == CAVR_ROT_NONE && ch.stateCost[0] == 1.0f && ch.stateCost[1] == 1.0f);
    cavr_tune_choose(&w, 40e9, d, r, u, 1, CAVR_ROT_NONE, 0.05, &ch);
    CHECK(ch.rotation == CAVR_ROT_Y && ch.stateCost[0] == 2.0f && ch.stateCost[1] == 1.0f && ch.cost == 1.0f);
    cavr_tune_choose(&w, 40e9, d, r, u, 0, CAVR_ROT_NONE, 0.05, &ch); /* rotation not allowed */
    CHECK(ch.rotation == CAVR_ROT_NONE && ch.stateCost[1] == 0.0f && ch.stateCost[2] == 0.0f);
  }

  /* Isosurfaces: the method the table prices cheaper per class; standard where it has no figures or a tie. */
  for (int c = 0; c < CAVR_TUNE_CLASSES; ++c) {
    t.isoCost[c][0] = 2.0f + 0.1f * c;
    t.isoCost[c][1] = c % 3 == 0 ? 1.5f + 0.1f * c : 4.0f;
  }
  for (int c = 0; c < CAVR_TUNE_CLASSES; ++c) CHECK(cavr_tune_iso_method(&t, c) == (c % 3 == 0 ? 1 : 0));
  CHECK(cavr_tune_iso_method(&empty, 0) == 0 && cavr_tune_iso_method(NULL, 0) == 0);
  CHECK(cavr_tune_iso_method(&t, -1) == 0 && cavr_tune_iso_method(&t, CAVR_TUNE_CLASSES) == 0);

  /* The file: round trip. */
  char *text = NULL;
  size_t textLen = 0;
  FILE *mf = open_memstream(&text, &textLen);
  CHECK(mf && cavr_tune_write(&t, mf) == 0);
  fclose(mf);
  CAVRTuneTable back;
  char msg[256];
  CHECK(read_text(text, &back, msg, sizeof msg) == 0);
  CHECK(!strcmp(back.gpu, t.gpu) && back.memoryMiB == t.memoryMiB && back.storage == t.storage && back.version == 7);
  CHECK(memcmp(back.cost, t.cost, sizeof t.cost) == 0);
  CHECK(memcmp(back.rowBytes, t.rowBytes, sizeof t.rowBytes) == 0 && back.rowSide[1] == 768);
  {
    /* A row not tried yet (AUTO measures the largest row only when a volume needs it): side 0, read back as such. */
    CAVRTuneTable u = t;
    u.rowSide[2] = 0;
    char *ut = NULL;
    size_t ul = 0;
    FILE *uf = open_memstream(&ut, &ul);
    CHECK(uf && cavr_tune_write(&u, uf) == 0);
    fclose(uf);
    CAVRTuneTable ub;
    CHECK(strstr(ut, "row 2 0 0\n") && read_text(ut, &ub, msg, sizeof msg) == 0 && ub.rowSide[2] == 0);
    free(ut);
    CHECK(read_text("cavr-tune 4\ngpu G\nstorage uint8\nshapes 16x16 32x8 64x4 8x32 4x64 2x128 1x256 2x256t 16x32t\n"
                    "row 0 0 5\n", &ub, msg, sizeof msg) == -1); /* a row not tried has no bytes */
  }
  CHECK(memcmp(back.isoCost, t.isoCost, sizeof t.isoCost) == 0);
  /* Refused, each with a reason: not a table, another format, bad or missing entries, truncated. */
  const char *bad[] = {"", "hello\n", "cavr-tune 999\n", "cavr-tune 1\ngpu X\n", NULL, NULL, NULL, NULL, NULL, NULL};
  char *mod[6];
  for (int k = 0; k < 6; ++k) mod[k] = strdup(text);
  char *p = strstr(mod[0], "class 1 y 3 ");
  CHECK(p);
  memcpy(p + 12, "nan", 3); /* a NaN cost */
  p = strstr(mod[1], "16x16");
  memcpy(p, "15x16", 5); /* other candidates */
  p = strstr(mod[2], "class 1 z 5");
  *p = '\0'; /* truncated: classes missing */
  p = strstr(mod[3], "storage uint8");
  memcpy(p + 8, "int99", 5);
  p = strstr(mod[4], "iso x 2 ");
  CHECK(p);
  p[8] = '-'; /* a negative iso cost */
  p = strstr(mod[5], "row 1 768 452984832");
  CHECK(p);
  memcpy(p + 10, "0        ", 9); /* the only row marked unmeasured: nothing to price with */
  for (int k = 0; k < 6; ++k) bad[4 + k] = mod[k];
  for (int k = 0; k < 10; ++k) {
    msg[0] = '\0';
    CHECK(read_text(bad[k], &back, msg, sizeof msg) == -1);
    CHECK(msg[0] != '\0');
    printf("refused table %d: %s\n", k, msg);
  }
  for (int k = 0; k < 6; ++k) free(mod[k]);
  free(text);

  /* Cache path. */
  char path[512];
  setenv("CAVR_TUNE_DIR", "/tmp/tune dir", 1);
  CHECK(tune_path(path, sizeof path, "NVIDIA H100 80GB HBM3", CAVR_STORE_U16) == 0);
  CHECK(!strcmp(path, "/tmp/tune dir/auto-NVIDIA_H100_80GB_HBM3-uint16.txt"));
  unsetenv("CAVR_TUNE_DIR");
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  CHECK(tune_path(path, sizeof path, "G/P:U", CAVR_STORE_F32) == 0 && !strcmp(path, "/x/cache/cavr/auto-G_P_U-float32.txt"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  CHECK(tune_path(path, sizeof path, "G", CAVR_STORE_U8) == 0 && !strcmp(path, "/home/u/.cache/cavr/auto-G-uint8.txt"));
  CHECK(tune_path(path, 10, "G", CAVR_STORE_U8) == -1); /* does not fit */
  unsetenv("HOME");
  CHECK(tune_path(path, sizeof path, "G", CAVR_STORE_U8) == -1);

  /* The CPU back end has no strategies to tune: an error with a message, nothing written. */
  CAVRDevice dev = cavrNewDevice(CAVR_BACKEND_CPU);
  CHECK(dev);
  path[0] = 'x';
  CHECK(cavrTuneDevice(dev, CAVR_UINT8, path, sizeof path) == CAVR_ERROR_UNSUPPORTED);
  const char *m = NULL;
  CHECK(cavrGetDeviceError(dev, &m) == CAVR_ERROR_UNSUPPORTED && strstr(m, "CPU"));
  CHECK(cavrTuneDevice(dev, (CAVRScalarType)99, NULL, 0) == CAVR_ERROR_INVALID_ARGUMENT);
  CHECK(cavrTuneDevice(NULL, CAVR_UINT8, NULL, 0) == CAVR_ERROR_INVALID_ARGUMENT);
  cavrReleaseDevice(dev);
  printf("gpu tune table: ok\n");
  return 0;
}

/*
 * cpu_backend.c - the multi-threaded CPU ray caster (SPEC 2).
 *
 * One ray per pixel. The ray is cut into a lattice of segments of `step` world units measured from the
 * eye (the camera position; for orthographic views the plane through it), whatever the clipping planes. Each segment is clipped to the part of the ray inside the render box (and in
 * front of opaque geometry), sampled at the midpoint of the whole lattice segment (clamped into the data)
 * and its opacity corrected for the clipped length. So a volume split into pieces (MPI ranks) with one
 * ghost layer composites to exactly the whole picture: the two parts of a segment cut by the split take
 * the same sample, and (1-a)^l1 (1-a)^l2 = (1-a)^(l1+l2). Empty-space skipping only jumps over whole
 * segments whose midpoints lie in transparent macro cells, so it changes no pixel.
 * Pixels are distributed in 16x16 tiles over threads; every pixel is computed by one thread with the same
 * arithmetic, so the image does not depend on the thread count.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

#define TILE CAVR_RAY_TILE
#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef struct Prep {
  int W, H;
  double invVP[16], VP[16];
  double eye[3];                 /* camera position (or a point on the eye plane for orthographic) */
  double origin[3], invSpacing[3], spacing[3];
  int dims[3];
  float maxCoord[3];             /* N-1: samples clamp here */
  float boxLo[3], boxHi[3];      /* the render extent: rays integrate inside */
  size_t sy, sz;
  const void *voxels;
  float step;                   /* world units */
  /* transfer function */
  int count;
  float idxScale, idxBias;      /* table index = stored * idxScale + idxBias */
  const float *rgba;            /* count x RGBA, as given */
  float *table;                 /* count x (R, G, B, opacity corrected for a full step) */
  int correction;
  float invUnit;                /* 1 / unit distance */
  /* empty-space skipping */
  int skip;
  int cells[3];
  uint8_t *cellVisible;
  /* settings */
  int blend, shade;
  float ert, ka, kd, ks, kp;
  const float *opaqueDepth;
  /* outputs */
  uint8_t *rgba8;
  float *rgbaf, *depth;
} Prep;

/* min/max/clamp as comparisons: gcc calls libm for fminf/fmaxf unless NaN semantics are relaxed. */
ALWAYS_INLINE float minf(float a, float b) { return a < b ? a : b; }
ALWAYS_INLINE float maxf(float a, float b) { return a > b ? a : b; }
ALWAYS_INLINE float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

ALWAYS_INLINE float fetch(const Prep *p, int storage, size_t i) {
  switch (storage) {
  case CAVR_STORE_U8: return (float)((const uint8_t *)p->voxels)[i];
  case CAVR_STORE_U16: return (float)((const uint16_t *)p->voxels)[i];
  default: return ((const float *)p->voxels)[i];
  }
}

/* The stored value at voxel coordinates (x,y,z), clamped to the volume. */
ALWAYS_INLINE float sample(const Prep *p, int storage, int interp, float x, float y, float z) {
  x = clampf(x, 0.0f, p->maxCoord[0]);
  y = clampf(y, 0.0f, p->maxCoord[1]);
  z = clampf(z, 0.0f, p->maxCoord[2]);
  if (interp == CAVR_INTERPOLATION_NEAREST) {
    size_t i = (size_t)(int)(x + 0.5f) + (size_t)(int)(y + 0.5f) * p->sy + (size_t)(int)(z + 0.5f) * p->sz;
    return fetch(p, storage, i);
  }
  int ix = (int)x, iy = (int)y, iz = (int)z;
  if (ix > p->dims[0] - 2) ix = p->dims[0] - 2;
  if (iy > p->dims[1] - 2) iy = p->dims[1] - 2;
  if (iz > p->dims[2] - 2) iz = p->dims[2] - 2;
  float fx = x - (float)ix, fy = y - (float)iy, fz = z - (float)iz;
  size_t b = (size_t)ix + (size_t)iy * p->sy + (size_t)iz * p->sz;
  float c000 = fetch(p, storage, b), c100 = fetch(p, storage, b + 1);
  float c010 = fetch(p, storage, b + p->sy), c110 = fetch(p, storage, b + p->sy + 1);
  float c001 = fetch(p, storage, b + p->sz), c101 = fetch(p, storage, b + p->sz + 1);
  float c011 = fetch(p, storage, b + p->sz + p->sy), c111 = fetch(p, storage, b + p->sz + p->sy + 1);
  float c00 = c000 + fx * (c100 - c000), c10 = c010 + fx * (c110 - c010);
  float c01 = c001 + fx * (c101 - c001), c11 = c011 + fx * (c111 - c011);
  float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
  return c0 + fz * (c1 - c0);
}

/* Table position of a stored value: entry index i0 and weight f of entry i0+1. */
ALWAYS_INLINE void tf_index(const Prep *p, float s, int *i0, float *f) {
  float fi = s * p->idxScale + p->idxBias;
  fi = clampf(fi, 0.0f, (float)(p->count - 1));
  int i = (int)fi;
  if (i > p->count - 2) i = p->count - 2;
  *i0 = i;
  *f = fi - (float)i;
}

ALWAYS_INLINE float window_depth(const Prep *p, const double nearW[3], const double dirW[3], float t) {
  double w[3] = {nearW[0] + t * dirW[0], nearW[1] + t * dirW[1], nearW[2] + t * dirW[2]}, c[3];
  if (!cavr_mat4_project(p->VP, w, c)) return 1.0f;
  double d = 0.5 * c[2] + 0.5;
  return (float)(d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d);
}

/* Phong factor for a sample: returns colour rgb shaded in place. Headlight: L = V = H = -ray direction. */
ALWAYS_INLINE void shade_sample(const Prep *p, int storage, int interp, float x, float y, float z,
                                const float dirW[3], float rgb[3], uint64_t *samples) {
  /* Central differences; at the volume's faces (and so at the faces of an MPI piece) the step is
     clamped inside and the difference divided by the clamped distance: one-sided there. */
  const float c[3] = {x, y, z};
  float g[3];
  for (int a = 0; a < 3; ++a) {
    float lo = maxf(c[a] - 1.0f, 0.0f), hi = minf(c[a] + 1.0f, p->maxCoord[a]);
    float pl[3] = {x, y, z}, ph[3] = {x, y, z};
    pl[a] = lo;
    ph[a] = hi;
    g[a] = hi > lo ? (sample(p, storage, interp, ph[0], ph[1], ph[2]) - sample(p, storage, interp, pl[0], pl[1], pl[2])) /
                         (hi - lo)
                   : 0.0f;
  }
  *samples += 6;
  for (int a = 0; a < 3; ++a) g[a] *= (float)p->invSpacing[a]; /* voxel -> world gradient */
  float len2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  float ndotl = 0.0f;
  if (len2 > 0.0f) ndotl = fabsf(g[0] * dirW[0] + g[1] * dirW[1] + g[2] * dirW[2]) / sqrtf(len2);
  float diff = p->ka + p->kd * ndotl;
  float spec = (p->ks > 0.0f && ndotl > 0.0f) ? p->ks * powf(ndotl, p->kp) : 0.0f;
  for (int a = 0; a < 3; ++a) rgb[a] = minf(rgb[a] * diff + spec, 1.0f);
}

ALWAYS_INLINE int inside_data(const Prep *p, const float v[3]) {
  return v[0] >= 0.0f && v[1] >= 0.0f && v[2] >= 0.0f && v[0] <= p->maxCoord[0] && v[1] <= p->maxCoord[1] &&
         v[2] <= p->maxCoord[2];
}

ALWAYS_INLINE int cell_visible(const Prep *p, const float v[3], const double o[3], const float d[3], float *texit) {
  const int B = CAVR_MACROCELL_SIZE;
  int c[3];
  for (int a = 0; a < 3; ++a) {
    int ci = (int)(maxf(v[a], 0.0f) * (1.0f / B));
    c[a] = ci < p->cells[a] ? ci : p->cells[a] - 1;
  }
  /* Where the ray leaves this cell (t of the nearest exit face). */
  float te = INFINITY;
  for (int a = 0; a < 3; ++a) {
    if (d[a] > 0.0f) te = minf(te, (float)(((double)((c[a] + 1) * B) - o[a]) / d[a]));
    else if (d[a] < 0.0f) te = minf(te, (float)(((double)(c[a] * B) - o[a]) / d[a]));
  }
  *texit = te;
  return p->cellVisible[((size_t)c[2] * p->cells[1] + c[1]) * p->cells[0] + c[0]];
}

ALWAYS_INLINE void cast_ray(const Prep *p, int storage, int interp, int px, int py, uint64_t *samples,
                            uint64_t *rays) {
  size_t pix = (size_t)py * p->W + px;
  float out[4] = {0.0f, 0.0f, 0.0f, 0.0f}, depth = 1.0f;
  double ndc[3] = {(px + 0.5) / p->W * 2.0 - 1.0, (py + 0.5) / p->H * 2.0 - 1.0, -1.0};
  double nearW[3], farW[3], dirW[3];
  int ok = cavr_mat4_project(p->invVP, ndc, nearW);
  ndc[2] = 1.0;
  ok = ok && cavr_mat4_project(p->invVP, ndc, farW);
  double len = 0.0;
  for (int a = 0; a < 3; ++a) {
    dirW[a] = farW[a] - nearW[a];
    len += dirW[a] * dirW[a];
  }
  len = sqrt(len);
  double t0 = 0.0, t1 = len;
  if (ok && len > 0.0) {
    for (int a = 0; a < 3; ++a) dirW[a] /= len;
    /* Measure t from the eye (plane), not from the near plane, so the sample lattice does not depend on
       the clipping range (which differs between MPI ranks and between frames). */
    double tEye = (nearW[0] - p->eye[0]) * dirW[0] + (nearW[1] - p->eye[1]) * dirW[1] + (nearW[2] - p->eye[2]) * dirW[2];
    for (int a = 0; a < 3; ++a) nearW[a] -= tEye * dirW[a];
    t0 += tEye;
    t1 += tEye;
    if (p->opaqueDepth && p->opaqueDepth[pix] < 1.0f) {
      double pz[3];
      ndc[2] = 2.0 * p->opaqueDepth[pix] - 1.0;
      if (cavr_mat4_project(p->invVP, ndc, pz))
        t1 = fmin(t1, (pz[0] - nearW[0]) * dirW[0] + (pz[1] - nearW[1]) * dirW[1] + (pz[2] - nearW[2]) * dirW[2]);
    }
  } else {
    t1 = -1.0;
  }
  /* Voxel-space ray and its intersection with the render box (by default [0, N-1]). */
  /* Sample positions are computed in double: pieces of a split volume then agree to ~1e-7 voxels. */
  double o[3] = {0, 0, 0}, d[3] = {0, 0, 0};
  float df[3] = {0, 0, 0}, dw[3] = {0, 0, 0};
  for (int a = 0; a < 3 && t0 < t1; ++a) {
    double oa = (nearW[a] - p->origin[a]) * p->invSpacing[a], da = dirW[a] * p->invSpacing[a];
    o[a] = oa;
    d[a] = da;
    df[a] = (float)da;
    dw[a] = (float)dirW[a];
    if (fabs(da) < 1e-12) {
      if (oa < p->boxLo[a] || oa > p->boxHi[a]) t1 = -1.0;
      continue;
    }
    double ta = (p->boxLo[a] - oa) / da, tb = (p->boxHi[a] - oa) / da;
    if (ta > tb) {
      double t = ta;
      ta = tb;
      tb = t;
    }
    t0 = fmax(t0, ta);
    t1 = fmin(t1, tb);
  }

  if (t0 < t1) {
    ++*rays;
    const float step = p->step, ft0 = (float)t0, ft1 = (float)t1;
    long k = (long)floorf(ft0 / step);
    if (p->blend == CAVR_BLEND_COMPOSITE) {
      float A = 0.0f, C[3] = {0.0f, 0.0f, 0.0f};
      /* Segments kFull0..kFull1 lie wholly inside [t0, t1]; the ones before and after are clipped. */
      const long kFull0 = (long)ceilf(ft0 / step), kFull1 = (long)floorf(ft1 / step) - 1;
      double visibleUntil = -1.0; /* the current macro cell is known visible for midpoints before this t */
      /* Sample positions in float relative to the first lattice midpoint (anchor), which is computed in
         double: pieces of a split volume agree to ~1e-6 voxels without per-sample double arithmetic. */
      const long k0 = k;
      const double mAnchor = ((double)k0 + 0.5) * step;
      const float of[3] = {(float)(o[0] + mAnchor * d[0]), (float)(o[1] + mAnchor * d[1]), (float)(o[2] + mAnchor * d[2])};
      for (;;) {
        float len = step;
        if (k < kFull0 || k > kFull1) {
          float ts = maxf((float)k * step, ft0), te = minf((float)(k + 1) * step, ft1);
          if (!(ts < te)) break;
          len = te - ts;
        }
        const float rel = (float)(k - k0) * step;
        const double md = mAnchor + rel;
        float v[3] = {of[0] + rel * df[0], of[1] + rel * df[1], of[2] + rel * df[2]};
        if (p->skip && md >= visibleUntil && inside_data(p, v)) {
          /* Entering a new macro cell: jump over it if transparent, else remember where it ends. */
          float texit;
          int visible = cell_visible(p, v, o, df, &texit);
          if (!visible) {
            long kn = (long)floorf(texit / step);
            k = kn > k + 1 ? kn : k + 1;
            continue;
          }
          visibleUntil = texit;
        }
        ++k;
        float s = sample(p, storage, interp, v[0], v[1], v[2]);
        ++*samples;
        int i0;
        float f;
        tf_index(p, s, &i0, &f);
        const float *e0 = p->table + 4 * i0, *e1 = e0 + 4;
        /* Opacity of a full step, and for a clipped part of length l: 1 - (1 - a_step)^(l / step), so the
           parts of a segment cut by a piece boundary multiply to exactly the full step. */
        float a = e0[3] + f * (e1[3] - e0[3]);
        if (!(a > 0.0f)) continue;
        if (len != step && p->correction) a = a >= 1.0f ? 1.0f : 1.0f - powf(1.0f - a, len / step);
        float rgb[3] = {e0[0] + f * (e1[0] - e0[0]), e0[1] + f * (e1[1] - e0[1]), e0[2] + f * (e1[2] - e0[2])};
        if (p->shade) shade_sample(p, storage, interp, v[0], v[1], v[2], dw, rgb, samples);
        if (A == 0.0f) depth = window_depth(p, nearW, dirW, (float)md);
        float w = (1.0f - A) * a;
        C[0] += w * rgb[0];
        C[1] += w * rgb[1];
        C[2] += w * rgb[2];
        A += w;
        if (A >= p->ert) break;
      }
      out[0] = C[0];
      out[1] = C[1];
      out[2] = C[2];
      out[3] = A;
    } else {
      float best = p->blend == CAVR_BLEND_MINIMUM_INTENSITY ? INFINITY : -INFINITY, sum = 0.0f, total = 0.0f,
            bestT = 0.0f;
      for (;;) {
        float ts = maxf((float)k * step, ft0), te = minf((float)(k + 1) * step, ft1);
        if (!(ts < te)) break;
        double md = ((double)k + 0.5) * step;
        float m = (float)md;
        ++k;
        float s = sample(p, storage, interp, (float)(o[0] + md * d[0]), (float)(o[1] + md * d[1]),
                         (float)(o[2] + md * d[2]));
        ++*samples;
        if (p->blend == CAVR_BLEND_MAXIMUM_INTENSITY ? s > best : s < best) {
          best = s;
          bestT = m;
        }
        sum += s * (te - ts);
        total += te - ts;
      }
      if (total > 0.0f) {
        float s = p->blend == CAVR_BLEND_AVERAGE_INTENSITY ? sum / total : best;
        if (p->blend == CAVR_BLEND_AVERAGE_INTENSITY) bestT = 0.5f * (ft0 + ft1);
        int i0;
        float f;
        tf_index(p, s, &i0, &f);
        const float *e0 = p->rgba + 4 * i0, *e1 = e0 + 4;
        float a = e0[3] + f * (e1[3] - e0[3]);
        for (int c = 0; c < 3; ++c) out[c] = a * (e0[c] + f * (e1[c] - e0[c]));
        out[3] = a;
        if (a > 0.0f) depth = window_depth(p, nearW, dirW, bestT);
      }
    }
  }
  for (int c = 0; c < 4; ++c) {
    float v = clampf(out[c], 0.0f, 1.0f);
    p->rgbaf[4 * pix + c] = v;
    p->rgba8[4 * pix + c] = (uint8_t)(v * 255.0f + 0.5f);
  }
  p->depth[pix] = depth;
}

/* Counters are kept in locals: per-sample increments of the workers' shared array would ping-pong its
   cache line between cores (false sharing). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
/* x86-64-v3 (AVX2, FMA) clone chosen at load time where the CPU has it; plain x86-64 otherwise. */
#define CAVR_TILE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CAVR_TILE_CLONES
#endif
/* A tile is x0..x1 x y0..y1, or (list != NULL) the n listed pixels x + W*y. */
#define DEFINE_TILE(NAME, STORAGE, INTERP)                                                                         \
  CAVR_TILE_CLONES static void NAME(const Prep *p, int x0, int y0, int x1, int y1, const uint32_t *list, size_t n,  \
                                    uint64_t *samples, uint64_t *rays) {                                           \
    uint64_t s = 0, r = 0;                                                                                         \
    if (list)                                                                                                      \
      for (size_t i = 0; i < n; ++i)                                                                               \
        cast_ray(p, STORAGE, INTERP, (int)(list[i] % (uint32_t)p->W), (int)(list[i] / (uint32_t)p->W), &s, &r);    \
    else                                                                                                           \
      for (int y = y0; y < y1; ++y)                                                                                \
        for (int x = x0; x < x1; ++x) cast_ray(p, STORAGE, INTERP, x, y, &s, &r);                                  \
    *samples += s;                                                                                                 \
    *rays += r;                                                                                                    \
  }
DEFINE_TILE(tile_u8_nearest, CAVR_STORE_U8, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tile_u8_linear, CAVR_STORE_U8, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_TILE(tile_u16_nearest, CAVR_STORE_U16, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tile_u16_linear, CAVR_STORE_U16, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_TILE(tile_f32_nearest, CAVR_STORE_F32, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tile_f32_linear, CAVR_STORE_F32, CAVR_INTERPOLATION_TRILINEAR)

typedef void (*TileFn)(const Prep *, int, int, int, int, const uint32_t *, size_t, uint64_t *, uint64_t *);

typedef struct Shared {
  const Prep *prep;
  TileFn fn;
  const CAVRRayList *list;
  int tilesX, tiles;
  atomic_int next;
} Shared;

typedef struct Worker {
  Shared *shared;
  uint64_t samples, rays;
  char pad[64 - sizeof(void *) - 2 * sizeof(uint64_t)]; /* one cache line per worker */
} Worker;

static void *worker_main(void *arg) {
  Worker *w = (Worker *)arg;
  Shared *s = w->shared;
  for (;;) {
    int t = atomic_fetch_add(&s->next, 1);
    if (t >= s->tiles) break;
    int x0 = (t % s->tilesX) * TILE, y0 = (t / s->tilesX) * TILE;
    int x1 = x0 + TILE < s->prep->W ? x0 + TILE : s->prep->W;
    int y1 = y0 + TILE < s->prep->H ? y0 + TILE : s->prep->H;
    if (s->list) {
      const uint32_t *start = s->list->tileStart;
      if (start[t + 1] > start[t])
        s->fn(s->prep, 0, 0, 0, 0, s->list->pixels + start[t], start[t + 1] - start[t], &w->samples, &w->rays);
    } else {
      s->fn(s->prep, x0, y0, x1, y1, NULL, 0, &w->samples, &w->rays);
    }
  }
  return NULL;
}

int cavr_cpu_threads(CAVRDevice dev) {
  if (dev && dev->threads > 0) return dev->threads;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)(n > 256 ? 256 : n) : 1;
}

static CAVRError cpu_render(CAVRDevice dev, const CAVRRenderJob *job, CAVRRenderStats *stats) {
  const CAVRVolume vol = job->volume;
  const CAVRTransferFunction tf = job->tf;
  const CAVRSettingsDesc *s = job->settings;
  Prep p;
  memset(&p, 0, sizeof p);
  p.W = job->fb->width;
  p.H = job->fb->height;
  memcpy(p.invVP, job->camera->invViewProj, sizeof p.invVP);
  memcpy(p.VP, job->camera->viewProj, sizeof p.VP);
  CAVRFrameConstants fc;
  cavr_frame_constants(job, &fc);
  memcpy(p.eye, fc.eye, sizeof p.eye);
  for (int a = 0; a < 3; ++a) {
    p.origin[a] = vol->desc.origin[a];
    p.spacing[a] = vol->desc.spacing[a];
    p.invSpacing[a] = 1.0 / vol->desc.spacing[a];
    p.dims[a] = vol->desc.dims[a];
    p.maxCoord[a] = (float)(vol->desc.dims[a] - 1);
    p.boxLo[a] = (float)vol->desc.renderLo[a];
    p.boxHi[a] = (float)vol->desc.renderHi[a];
    p.cells[a] = vol->grid.cells[a];
  }
  p.sy = (size_t)p.dims[0];
  p.sz = (size_t)p.dims[0] * p.dims[1];
  p.voxels = vol->voxels.data;
  p.step = fc.step;
  p.count = tf->count;
  p.rgba = tf->table;
  p.idxScale = fc.idxScale;
  p.idxBias = fc.idxBias;
  p.correction = s->opacityCorrection;
  p.invUnit = 1.0f / s->unitDistance;
  p.blend = s->blendMode;
  p.shade = fc.shade;
  p.ert = s->earlyTermination;
  p.ka = s->ambient;
  p.kd = s->diffuse;
  p.ks = s->specular;
  p.kp = s->specularPower;
  p.opaqueDepth = job->fb->opaqueDepth;
  p.rgba8 = job->fb->rgba8;
  p.rgbaf = job->fb->rgbaf;
  p.depth = job->fb->depth;
  p.skip = fc.skip;

  size_t cells = (size_t)p.cells[0] * p.cells[1] * p.cells[2];
  p.table = (float *)malloc(sizeof(float) * 4 * (size_t)tf->count);
  p.cellVisible = p.skip ? (uint8_t *)malloc(cells) : NULL;
  if (!p.table || (p.skip && !p.cellVisible)) {
    free(p.table);
    free(p.cellVisible);
    return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for per-frame tables");
  }
  for (int i = 0; i < tf->count; ++i) {
    float a = tf->table[4 * i + 3];
    for (int c = 0; c < 3; ++c) p.table[4 * i + c] = tf->table[4 * i + c];
    p.table[4 * i + 3] = (p.correction && a > 0.0f) ? 1.0f - powf(1.0f - a, p.step * p.invUnit) : a;
  }
  if (p.skip) cavr_classify_cells(vol, tf->table, tf->count, p.idxScale, p.idxBias, p.cellVisible);

  static const TileFn fns[3][2] = {{tile_u8_nearest, tile_u8_linear},
                                   {tile_u16_nearest, tile_u16_linear},
                                   {tile_f32_nearest, tile_f32_linear}};
  Shared sh;
  sh.prep = &p;
  sh.fn = fns[vol->desc.storage][s->interpolation == CAVR_INTERPOLATION_TRILINEAR];
  sh.tilesX = (p.W + TILE - 1) / TILE;
  sh.tiles = sh.tilesX * ((p.H + TILE - 1) / TILE);
  sh.list = job->rays;
  atomic_init(&sh.next, 0);

  int nthreads = cavr_cpu_threads(dev);
  if (nthreads > sh.tiles) nthreads = sh.tiles;
  Worker *workers = (Worker *)calloc((size_t)nthreads, sizeof(Worker));
  pthread_t *ids = (pthread_t *)calloc((size_t)nthreads, sizeof(pthread_t));
  CAVRError err = CAVR_ERROR_NONE;
  if (!workers || !ids) {
    err = cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for threads");
  } else {
    int started = 0;
    for (int i = 0; i < nthreads; ++i) workers[i].shared = &sh;
    /* Thread 0 is the caller; the others are started here (fewer if the system refuses). */
    for (int i = 1; i < nthreads; ++i) {
      if (pthread_create(&ids[i], NULL, worker_main, &workers[i]) != 0) break;
      started = i;
    }
    worker_main(&workers[0]);
    for (int i = 1; i <= started; ++i) pthread_join(ids[i], NULL);
    for (int i = 0; i < nthreads; ++i) {
      stats->samples += workers[i].samples;
      stats->rays += workers[i].rays;
    }
  }
  free(workers);
  free(ids);
  free(p.table);
  free(p.cellVisible);
  return err;
}

static const CAVRBackendOps cpuOps = {CAVR_BACKEND_CPU, NULL, NULL, NULL, cpu_render, cavr_cpu_reconstruct, NULL, NULL,
                                      NULL};

const CAVRBackendOps *cavr_cpu_backend(void) { return &cpuOps; }

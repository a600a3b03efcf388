// SPDX-License-Identifier: BSD-3-Clause
/*
 * cpu_backend.c - the multi-threaded CPU ray caster: the back end's operations, the scalar caster (every
 * blend mode, every CPU), the per-frame tables and the threads.
 *
 * One ray per pixel. The ray is cut into a lattice of segments of `step` world units measured from the
 * eye (the camera position; for orthographic views the plane through it), whatever the clipping planes. Each
 * segment is clipped to the part of the ray inside the render box (and in front of opaque geometry), sampled at
 * the midpoint of the whole lattice segment (clamped into the data) and its opacity corrected for the clipped
 * length. So a volume split into pieces (MPI ranks) with one ghost layer composites to exactly the whole
 * picture: the two parts of a segment cut by the split take the same sample, and (1-a)^l1 (1-a)^l2 =
 * (1-a)^(l1+l2). Empty-space skipping only jumps over whole segments whose midpoints lie in transparent macro
 * cells (or blocks of them), so it changes no pixel. The arithmetic of all this is in cpu_raycast.h, shared with
 * the packet casters (cpu_packet_body.h: 8 rays with AVX2, 16 with AVX-512, chosen by cpu_packet.c), which
 * composite frames use where the CPU has them (same image, bit for bit); what the GPU computes the same way (ray
 * set-up, transfer-function position, shading, isosurface crossing, slice, pixel encoding) is in core/shared/
 * cavr_ray.h, and the frame's description in core/shared/cavr_frame.h (frame_constants.c fills it).
 * Pixels are distributed in 16x16 tiles over threads; every pixel is computed by one thread with the same
 * arithmetic, so the image does not depend on the thread count.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_raycast.h"
#include "host_memory.h"
#include "../../kernels/cavr_kernels.h"

#define ALWAYS_INLINE CAVR_ALWAYS_INLINE

/* MIP, MinIP and average: one sample per whole lattice segment, the value composited once at the end. */
ALWAYS_INLINE void intensity_march(const Prep *p, int storage, int interp, const CavrRay *r, float out[4],
                                   float *depth, uint64_t *samples) {
  const float step = p->f.step, ft0 = (float)r->t0, ft1 = (float)r->t1;
  const double *o = r->o, *d = r->d;
  long k = (long)floorf(ft0 / step);
  float best = p->f.blend == CAVR_BLEND_MINIMUM_INTENSITY ? INFINITY : -INFINITY, sum = 0.0f, total = 0.0f,
        bestT = 0.0f;
  for (;;) {
    float ts = cavr_maxf((float)k * step, ft0), te = cavr_minf((float)(k + 1) * step, ft1);
    if (!(ts < te)) break;
    double md = ((double)k + 0.5) * step;
    float m = (float)md;
    ++k;
    float s = cavr_sample(p, storage, interp, (float)(o[0] + md * d[0]), (float)(o[1] + md * d[1]),
                          (float)(o[2] + md * d[2]));
    ++*samples;
    if (p->f.blend == CAVR_BLEND_MAXIMUM_INTENSITY ? s > best : s < best) {
      best = s;
      bestT = m;
    }
    sum += s * (te - ts);
    total += te - ts;
  }
  if (total > 0.0f) {
    float s = p->f.blend == CAVR_BLEND_AVERAGE_INTENSITY ? sum / total : best;
    if (p->f.blend == CAVR_BLEND_AVERAGE_INTENSITY) bestT = 0.5f * (ft0 + ft1);
    int i0;
    float f, rgb[3];
    cavr_tf_index(&p->f, s, &i0, &f);
    const float *e0 = p->rgba + 4 * i0, *e1 = e0 + 4;
    const float a = cavr_tf_lerp(e0, e1, f, rgb);
    for (int c = 0; c < 3; ++c) out[c] = a * rgb[c];
    out[3] = a;
    if (a > 0.0f) *depth = cavr_window_depth(p, r->nearW, r->dirW, bestT);
  }
}

/* Sample position of lattice index j (fractional between samples) from the anchor: cavr_composite_march's. */
ALWAYS_INLINE void iso_position(const Prep *p, const CavrLattice *l, const CavrRay *r, float j, float v[3]) {
  const float rel = j * p->f.step;
  for (int a = 0; a < 3; ++a) v[a] = l->of[a] + rel * r->df[a];
}

/* The colour of a single-sample hit (an isosurface crossing, a slice sample): the transfer function's colour and raw
   opacity (as VTK's isosurface and slice modes) at stored value s, shaded at voxel position v when shading is on
   (cavr_shade_hit: VTK's GPU ray caster's model when lights are given), premultiplied into out. Returns 0 (out untouched) when the opacity is 0. */
ALWAYS_INLINE int classify_raw(const Prep *p, int storage, int interp, float s, const float v[3], const CavrRay *r,
                               float out[4], uint64_t *samples) {
  int i0;
  float f, rgb[3];
  cavr_tf_index(&p->f, s, &i0, &f);
  const float *e0 = p->rgba + 4 * i0, *e1 = e0 + 4;
  const float a = cavr_tf_lerp(e0, e1, f, rgb);
  if (!(a > 0.0f)) return 0;
  if (p->f.shade) cavr_shade_hit_sample(p, storage, interp, v, r->dw, rgb, samples);
  for (int c = 0; c < 3; ++c) out[c] = a * rgb[c];
  out[3] = a;
  return 1;
}

/* The isosurface march: samples at the lattice midpoints from the last one at or before t0 to the first one at or
   past t1 (clamped into the data), so that every crossing inside [t0, t1] lies between two of them; the first
   crossing (iso_crossing) refined by 4 bisection steps and a linear interpolation in the last bracket, kept when it
   lies before t1 (opaque geometry), coloured by the transfer function at its value (raw opacity, as VTK),
   shaded at the refined point (classify_raw), its window depth into *depth. Empty-space skipping jumps over samples in cells
   that cannot see a crossing (iso_cells.c); the sample after a jump has no predecessor, which changes nothing
   (iso_cells.c). The crossing test is cavr_iso_crossing (core/shared/cavr_ray.h), which the GPU's iso kernels use too. */
ALWAYS_INLINE void iso_march(const Prep *p, int storage, int interp, const CavrRay *r, float out[4], float *depth,
                             uint64_t *samples) {
  CavrLattice l;
  cavr_lattice(p, r, &l);
  const float step = p->f.step;
  const double invStep = 1.0 / step;
  const long kStart = (long)floorf(l.ft0 / step - 0.5f), kStop = (long)ceilf(l.ft1 / step - 0.5f);
  long k = l.kBegin > l.k0 ? l.kBegin : kStart;
  const long kEnd = kStop < l.kEnd ? kStop : l.kEnd;
  double visibleUntil = -1.0;
  int prevValid = 0, hit = -1;
  float prev = 0.0f, cur = 0.0f, frac = 0.0f, jHit = 0.0f;
  for (; k <= kEnd;) {
    float v[3];
    iso_position(p, &l, r, (float)(k - l.k0), v);
    const double md = l.mAnchor + (double)((float)(k - l.k0) * step);
    if (p->f.skip && md >= visibleUntil && cavr_inside_data(p, v)) {
      int lo[3], hi[3];
      const int visible = cavr_skip_region(p, v, lo, hi);
      const double texit = cavr_region_exit(lo, hi, r->o, r->df, r->inv);
      if (!visible) {
        long kn = cavr_jump_target(texit, invStep);
        k = kn > k + 1 ? kn : k + 1;
        prevValid = 0;
        continue;
      }
      visibleUntil = (float)texit;
    }
    const float s = cavr_sample(p, storage, interp, v[0], v[1], v[2]);
    ++*samples;
    hit = cavr_iso_crossing(&p->f, prev, s, prevValid, &frac); /* core/shared/cavr_ray.h */
    if (hit >= 0) {
      jHit = (float)(k - l.k0);
      cur = s;
      break;
    }
    prev = s;
    prevValid = 1;
    ++k;
  }
  if (hit < 0) return;
  const float iso = p->f.iso[hit];
  if (frac < 1.0f) { /* a crossing between samples jHit - 1 and jHit: refine */
    CavrIsoBracket b = {jHit - 1.0f, jHit, prev, cur, iso}; /* core/shared/cavr_ray.h, as the GPU's iso_finish */
    float v[3];
    for (int it = 0; it < 4; ++it) {
      const float jm = cavr_iso_bisect_mid(&b);
      iso_position(p, &l, r, jm, v);
      cavr_iso_bisect_step(&b, jm, cavr_sample(p, storage, interp, v[0], v[1], v[2]));
    }
    *samples += 4;
    jHit = cavr_iso_bisect_end(&b);
  }
  double tHit = l.mAnchor + (double)(jHit * step);
  if (tHit > r->t1) return; /* behind opaque geometry or past the render box */
  if (tHit < r->t0) tHit = r->t0;
  float v[3];
  iso_position(p, &l, r, jHit, v);
  if (classify_raw(p, storage, interp, iso, v, r, out, samples)) *depth = cavr_window_depth(p, r->nearW, r->dirW, (float)tHit);
}

/* Slice (VTK's SLICE_BLEND): the one sample where the ray meets the plane, when that lies in [t0, t1] (inside the
   render box, in front of opaque geometry), classified as an isosurface hit; its window depth into *depth. A ray
   parallel to the plane misses (cavr_slice_distance, core/shared/cavr_ray.h, as the GPU's slice_kernel). */
ALWAYS_INLINE void slice_sample(const Prep *p, int storage, int interp, const CavrRay *r, float out[4], float *depth,
                                uint64_t *samples) {
  double t;
  if (!cavr_slice_distance(&p->f, r->nearW, r->dirW, &t) || !(t >= r->t0 && t <= r->t1)) return;
  const float v[3] = {(float)(r->o[0] + t * r->d[0]), (float)(r->o[1] + t * r->d[1]), (float)(r->o[2] + t * r->d[2])};
  const float tie = interp == CAVR_INTERPOLATION_NEAREST ? CAVR_SLICE_NEAREST_TIE : 0.0f; /* ties to the lower voxel */
  const float s = cavr_sample(p, storage, interp, v[0] - tie, v[1] - tie, v[2] - tie);
  ++*samples;
  if (classify_raw(p, storage, interp, s, v, r, out, samples)) *depth = cavr_window_depth(p, r->nearW, r->dirW, (float)t);
}

ALWAYS_INLINE void cast_ray(const Prep *p, int storage, int interp, int px, int py, uint64_t *samples,
                            uint64_t *rays) {
  float out[4] = {0.0f, 0.0f, 0.0f, 0.0f}, depth = 1.0f, first = INFINITY;
  const uint64_t before = *samples;
  CavrRay r;
  if (cavr_ray_setup(p, px, py, &r)) {
    ++*rays;
    if (p->f.blend == CAVR_BLEND_COMPOSITE) cavr_composite_march(p, storage, interp, &r, out, &depth, &first, samples);
    else if (p->f.blend == CAVR_BLEND_ISOSURFACE) iso_march(p, storage, interp, &r, out, &depth, samples);
    else if (p->f.blend == CAVR_BLEND_SLICE) slice_sample(p, storage, interp, &r, out, &depth, samples);
    else intensity_march(p, storage, interp, &r, out, &depth, samples);
  }
  if (p->raySamples) p->raySamples[r.pix] = (uint32_t)(*samples - before);
  if (p->rayFirst) p->rayFirst[r.pix] = first;
  cavr_write_pixel(p, r.pix, out, depth);
}

/* Counters are kept in locals: per-sample increments of the workers' shared array would ping-pong its
   cache line between cores (false sharing). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
/* x86-64-v3 (AVX2, FMA) clone chosen at load time where the CPU has it; plain x86-64 otherwise. */
#define CAVR_TILE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CAVR_TILE_CLONES
#endif
/* Every pixel of the queue's tiles, one ray at a time. */
#define DEFINE_TILE(NAME, STORAGE, INTERP)                                                                         \
  CAVR_TILE_CLONES static void NAME(CavrPixelQueue *q, uint64_t *samples, uint64_t *rays) {                      \
    uint64_t s = 0, r = 0;                                                                                         \
    int x, y;                                                                                                      \
    while (cavr_queue_next(q, &x, &y)) cast_ray(q->work->prep, STORAGE, INTERP, x, y, &s, &r);                    \
    *samples += s;                                                                                                 \
    *rays += r;                                                                                                    \
  }
DEFINE_TILE(tiles_u8_nearest, CAVR_STORE_U8, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tiles_u8_linear, CAVR_STORE_U8, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_TILE(tiles_u8_cubic, CAVR_STORE_U8, CAVR_INTERPOLATION_CUBIC)
DEFINE_TILE(tiles_u16_nearest, CAVR_STORE_U16, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tiles_u16_linear, CAVR_STORE_U16, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_TILE(tiles_u16_cubic, CAVR_STORE_U16, CAVR_INTERPOLATION_CUBIC)
DEFINE_TILE(tiles_f32_nearest, CAVR_STORE_F32, CAVR_INTERPOLATION_NEAREST)
DEFINE_TILE(tiles_f32_linear, CAVR_STORE_F32, CAVR_INTERPOLATION_TRILINEAR)
DEFINE_TILE(tiles_f32_cubic, CAVR_STORE_F32, CAVR_INTERPOLATION_CUBIC)

typedef void (*WorkFn)(CavrPixelQueue *, uint64_t *, uint64_t *);

typedef struct Shared {
  CavrFrameWork work;
  WorkFn fn;
} Shared;

typedef struct Worker {
  Shared *shared;
  uint64_t samples, rays;
  char pad[64 - sizeof(void *) - 2 * sizeof(uint64_t)]; /* one cache line per worker */
} Worker;

/* A worker takes tiles until none are left. The packet caster keeps its 8 lanes busy across tile boundaries
   (a finished ray's lane takes the next pixel, of the next tile when this one is done), so a thread idles only
   while the frame's last rays finish. */
static void *worker_main(void *arg) {
  Worker *w = (Worker *)arg;
  CavrPixelQueue q;
  cavr_queue_init(&q, &w->shared->work);
  w->shared->fn(&q, &w->samples, &w->rays);
  return NULL;
}

/*
 * The CPU device's copy of a volume's voxels with padded strides. Rows of a multiple of 512 bytes and slices of a
 * multiple of 1 KiB (512^2 uint8, any 2^n x 2^n slice) put the rows a ray crosses, slice after slice, into the
 * same few sets of the L1 cache, which holds only 8 lines per set: the 8 lanes of a packet evict each other's
 * lines on every sample (measured on the 512 x 512 x 450 CT, rays along z: 1072 ms against 725 ms padded, one
 * thread). One cache line of padding per row and per slice spreads them. Made at commit when the strides need it
 * (the volume's own voxels stay as they are: other code reads them), freed with the volume.
 */
typedef struct CpuVolume {
  void *data;
  size_t bytes;
  size_t sy, sz;                 /* strides in voxels */
  unsigned version;              /* the volume's version it was made from */
} CpuVolume;

static void cpu_release_volume(CAVRDevice dev, CAVRVolume vol) {
  (void)dev;
  CpuVolume *cv = (CpuVolume *)vol->backendVolume;
  if (cv) cavr_host_free(cv->data, cv->bytes);
  free(cv);
  vol->backendVolume = NULL;
}

typedef struct PadJob {
  char *dst;
  const char *src;
  size_t rowBytes, rowPitch, slicePitch;
  int ny, z0, z1;
} PadJob;

static void *pad_slices(void *arg) {
  const PadJob *j = (const PadJob *)arg;
  for (int z = j->z0; z < j->z1; ++z)
    for (int y = 0; y < j->ny; ++y)
      memcpy(j->dst + z * j->slicePitch + y * j->rowPitch, j->src + ((size_t)z * j->ny + y) * j->rowBytes, j->rowBytes);
  return NULL;
}

static CAVRError cpu_commit_volume(CAVRDevice dev, CAVRVolume vol) {
  const CAVRVoxels *vx = &vol->voxels;
  CpuVolume *cv = (CpuVolume *)vol->backendVolume;
  if (cv && cv->version == vol->version) return CAVR_ERROR_NONE; /* same voxels (spacing, extent, ... changed) */
  const size_t elem = vx->storage == CAVR_STORE_U8 ? 1 : vx->storage == CAVR_STORE_U16 ? 2 : 4;
  const size_t line = 64, rowBytes = (size_t)vx->dims[0] * elem;
  const size_t rowPitch = rowBytes % 512 == 0 ? rowBytes + line : rowBytes;
  size_t slicePitch = rowPitch * (size_t)vx->dims[1];
  if (slicePitch % 1024 == 0) slicePitch += line;
  if (rowPitch == rowBytes && slicePitch == rowPitch * (size_t)vx->dims[1]) { /* no aliasing: no copy */
    cpu_release_volume(dev, vol);
    return CAVR_ERROR_NONE;
  }
  const size_t bytes = slicePitch * (size_t)vx->dims[2] + line;
  /* A new time step of the same size: refill the last one's buffer (no page faults). */
  if (cv && !(cv->sy == rowPitch / elem && cv->sz == slicePitch / elem && cv->bytes == bytes)) {
    cpu_release_volume(dev, vol);
    cv = NULL;
  }
  if (!cv) {
    cv = (CpuVolume *)calloc(1, sizeof *cv);
    char *d = cv ? (char *)cavr_host_alloc(bytes) : NULL;
    if (!d) { /* no memory for the copy: render from the volume's own voxels (slower, same image) */
      free(cv);
      return CAVR_ERROR_NONE;
    }
    cv->data = d;
    cv->bytes = bytes;
    vol->backendVolume = cv;
  }
  enum { MAX_THREADS = 64 };
  int n = cavr_cpu_threads(dev);
  if (n > MAX_THREADS) n = MAX_THREADS;
  if (n > vx->dims[2]) n = vx->dims[2];
  PadJob jobs[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  int started[MAX_THREADS];
  for (int t = 0; t < n; ++t) {
    jobs[t] = (PadJob){(char *)cv->data, (const char *)vx->data, rowBytes, rowPitch, slicePitch, vx->dims[1],
                       (int)((long)vx->dims[2] * t / n), (int)((long)vx->dims[2] * (t + 1) / n)};
    started[t] = t > 0 && pthread_create(&ids[t], NULL, pad_slices, &jobs[t]) == 0;
  }
  pad_slices(&jobs[0]);
  for (int t = 1; t < n; ++t) {
    if (started[t]) pthread_join(ids[t], NULL);
    else pad_slices(&jobs[t]); /* the system refused a thread: copy its slices here */
  }
  memset((char *)cv->data + slicePitch * (size_t)vx->dims[2], 0, line);
  cv->sy = rowPitch / elem;
  cv->sz = slicePitch / elem;
  cv->version = vol->version;
  return CAVR_ERROR_NONE;
}

/* Whether composite frames may use the packet caster, and renders the padded copy (tests compare them with the
   scalar caster and the volume's own voxels). */
static atomic_int packetsAllowed = 1, paddedAllowed = 1;

void cavr_cpu_allow_packets(int allowed) { atomic_store(&packetsAllowed, allowed != 0); }

void cavr_cpu_allow_padded(int allowed) { atomic_store(&paddedAllowed, allowed != 0); }

int cavr_cpu_threads(CAVRDevice dev) {
  if (dev && dev->threads > 0) return dev->threads;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)(n > 256 ? 256 : n) : 1;
}

static const CAVRBackendOps cpuOps;

/* Skipping states of groups of K^3 macro cells (g per axis): 0 every cell transparent, 2 none, 1 some
   (cavr_skip_region). scratch: 2 bytes per group. */
static void group_states(const Prep *p, int K, const int g[3], uint8_t *state, uint8_t *scratch) {
  const size_t n = (size_t)g[0] * g[1] * g[2];
  uint8_t *any = scratch, *all = scratch + n;
  memset(any, 0, n);
  memset(all, 1, n);
  for (int z = 0; z < p->f.cells[2]; ++z)
    for (int y = 0; y < p->f.cells[1]; ++y) {
      const uint8_t *row = p->cellVisible + ((size_t)z * p->f.cells[1] + y) * p->f.cells[0];
      const size_t g0 = ((size_t)(z / K) * g[1] + y / K) * g[0];
      for (int x = 0; x < p->f.cells[0]; ++x) {
        any[g0 + x / K] |= row[x];
        all[g0 + x / K] &= row[x];
      }
    }
  for (size_t i = 0; i < n; ++i) state[i] = (uint8_t)(any[i] + all[i]);
}

/* What the macro-cell classification of a frame depends on, hashed (FNV-1a, 64 bits): the voxels (the volume's
   version: its cell min/max), the grid, the transfer function's contents (not its address: a new one may get a
   freed one's), its index mapping, the blend mode and iso-values, the dilation (cubic filter). */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *b = (const unsigned char *)data;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t cells_key(const CAVRVolume vol, const CAVRTransferFunction tf, const Prep *p, int dilation) {
  uint64_t h = 1469598103934665603ull;
  const int iso = p->f.blend == CAVR_BLEND_ISOSURFACE;
  h = fnv(h, &vol->version, sizeof vol->version);
  h = fnv(h, vol->grid.cells, sizeof vol->grid.cells);
  h = fnv(h, &iso, sizeof iso);
  h = fnv(h, &dilation, sizeof dilation);
  if (iso) {
    h = fnv(h, &p->f.isoCount, sizeof p->f.isoCount);
    h = fnv(h, p->f.iso, sizeof(float) * (size_t)p->f.isoCount);
  } else if (p->f.tf2dW) { /* the 2-D table's column maxima (cavr_classify_tf) */
    h = fnv(h, &p->f.tf2dW, sizeof p->f.tf2dW);
    h = fnv(h, tf->t2Columns, sizeof(float) * 4 * (size_t)p->f.tf2dW);
    h = fnv(h, p->f.tf2dScale, sizeof p->f.tf2dScale[0]);
    h = fnv(h, p->f.tf2dBias, sizeof p->f.tf2dBias[0]);
  } else {
    h = fnv(h, &tf->count, sizeof tf->count);
    h = fnv(h, tf->table, sizeof(float) * 4 * (size_t)tf->count);
    h = fnv(h, &p->f.idxScale, sizeof p->f.idxScale);
    h = fnv(h, &p->f.idxBias, sizeof p->f.idxBias);
  }
  return h;
}

/* The voxel box of the macro cells that may hold opacity, 1 voxel wider on every side (cavr_lattice). */
static void visible_box(Prep *p) {
  const int B = CAVR_MACROCELL_SIZE;
  int lo[3] = {INT_MAX, INT_MAX, INT_MAX}, hi[3] = {-1, -1, -1};
  for (int z = 0; z < p->f.cells[2]; ++z)
    for (int y = 0; y < p->f.cells[1]; ++y) {
      const uint8_t *row = p->cellVisible + ((size_t)z * p->f.cells[1] + y) * p->f.cells[0];
      for (int x = 0; x < p->f.cells[0]; ++x)
        if (row[x]) {
          const int c[3] = {x, y, z};
          for (int a = 0; a < 3; ++a) {
            lo[a] = c[a] < lo[a] ? c[a] : lo[a];
            hi[a] = c[a] > hi[a] ? c[a] : hi[a];
          }
        }
    }
  for (int a = 0; a < 3; ++a) {
    p->visLo[a] = hi[a] < 0 ? 1.0 : (double)lo[a] * B - 1.0; /* nothing visible: an empty box */
    p->visHi[a] = hi[a] < 0 ? 0.0 : (double)(hi[a] + 1) * B + 1.0;
  }
}

/* The frame's Prep: the description both back ends read (cavr_ray_frame), the voxels to read (the CPU device's
   padded copy where it has one), the transfer function as given, the opaque depth and the output planes. */
static void fill_prep(CAVRDevice dev, const CAVRRenderJob *job, Prep *p) {
  const CAVRVolume vol = job->volume;
  memset(p, 0, sizeof *p);
  cavr_ray_frame(job, &p->f);
  for (int a = 0; a < 3; ++a) {
    p->spacing[a] = vol->desc.spacing[a];
    p->dims[a] = vol->desc.dims[a];
  }
  p->sy = (size_t)p->dims[0];
  p->sz = (size_t)p->dims[0] * p->dims[1];
  p->voxels = vol->voxels.data;
  p->storage = vol->desc.storage;
  /* A CPU device's padded copy (a CUDA device rendering a volume on the CPU has none: backendVolume is its own). */
  const CpuVolume *cv = dev->ops == &cpuOps ? (const CpuVolume *)vol->backendVolume : NULL;
  if (cv && cv->version == vol->version && atomic_load(&paddedAllowed)) {
    p->voxels = cv->data;
    p->sy = cv->sy;
    p->sz = cv->sz;
  }
  p->color = vol->color;
  p->rgba = job->tf->table;
  p->invUnit = 1.0f / job->settings->unitDistance;
  p->opaqueDepth = job->fb->opaqueDepth;
  p->rgba8 = job->fb->rgba8;
  p->rgbaf = job->fb->rgbaf;
  p->depth = job->fb->depth;
  p->raySamples = job->raySamples;
  p->rayFirst = p->f.blend == CAVR_BLEND_COMPOSITE ? job->rayFirst : NULL;
  p->rayHint = p->f.blend == CAVR_BLEND_COMPOSITE ? job->rayHint : NULL;
  p->refineCells[0] = cavr_refine_cells_per_axis(p->f.width);
  p->refineCells[1] = cavr_refine_cells_per_axis(p->f.height);
  cavr_hit_rectangle(p);
}

/* The skipping states of the frame's macro cells, blocks and sub-blocks into p->cellVisible (cells + blocks + subs
   bytes, then 2 (blocks + subs) bytes of scratch) and the visible box: the classification of the last frame with
   the same key is reused (several frames of one view, the passes of a compressive frame); else made here and kept
   for the next. The frame works on its own copy. */
static void frame_cells(CAVRDevice dev, const CAVRRenderJob *job, Prep *p, size_t cells, size_t blocks, size_t subs) {
  const CAVRVolume vol = job->volume;
  const CAVRTransferFunction tf = job->tf;
  p->blockVisible = p->cellVisible + cells;
  p->subVisible = p->blockVisible + blocks;
  const size_t keep = cells + blocks + subs;
  const uint64_t key = cells_key(vol, tf, p, p->f.cellDilation);
  int cached = 0;
  pthread_mutex_lock(&dev->lock);
  if (vol->cpuCells && vol->cpuCellsKey == key && vol->cpuCellsBytes == keep) {
    memcpy(p->cellVisible, vol->cpuCells, keep);
    memcpy(p->visLo, vol->cpuVisLo, sizeof p->visLo);
    memcpy(p->visHi, vol->cpuVisHi, sizeof p->visHi);
    cached = 1;
  }
  pthread_mutex_unlock(&dev->lock);
  if (cached) return;
  if (p->f.blend == CAVR_BLEND_ISOSURFACE) {
    cavr_classify_iso_cells(vol, p->f.iso, p->f.isoCount, p->f.cellDilation, p->cellVisible);
  } else {
    cavr_classify_tf(vol, tf, &p->f, p->cellVisible); /* the 1-D table, or the 2-D table's column maxima */
    cavr_dilate_cells(&vol->grid, p->f.cellDilation, p->cellVisible);
  }
  uint8_t *scratch = p->subVisible + subs; /* 2 (blocks + subs) bytes */
  group_states(p, CAVR_CPU_BLOCK, p->blocks, p->blockVisible, scratch);
  group_states(p, CAVR_CPU_SUB, p->subs, p->subVisible, scratch);
  visible_box(p);
  pthread_mutex_lock(&dev->lock);
  if (vol->cpuCellsBytes != keep) {
    free(vol->cpuCells);
    vol->cpuCells = (uint8_t *)malloc(keep);
    vol->cpuCellsBytes = vol->cpuCells ? keep : 0;
  }
  if (vol->cpuCells) {
    memcpy(vol->cpuCells, p->cellVisible, keep);
    memcpy(vol->cpuVisLo, p->visLo, sizeof p->visLo);
    memcpy(vol->cpuVisHi, p->visHi, sizeof p->visHi);
    vol->cpuCellsKey = key;
  }
  pthread_mutex_unlock(&dev->lock);
}

/* The frame's tables: the transfer function with opacity corrected for a full step (the 2-D table too, when set), and
   with skipping the macro cells' states (frame_cells). Freed by the caller (p->table, p->table2d, p->cellVisible), also
   on error. */
static CAVRError frame_tables(CAVRDevice dev, const CAVRRenderJob *job, Prep *p) {
  const CAVRTransferFunction tf = job->tf;
  size_t cells = (size_t)p->f.cells[0] * p->f.cells[1] * p->f.cells[2];
  for (int a = 0; a < 3; ++a) {
    p->blocks[a] = (p->f.cells[a] + CAVR_CPU_BLOCK - 1) / CAVR_CPU_BLOCK;
    p->subs[a] = (p->f.cells[a] + CAVR_CPU_SUB - 1) / CAVR_CPU_SUB;
  }
  const size_t blocks = (size_t)p->blocks[0] * p->blocks[1] * p->blocks[2];
  const size_t subs = (size_t)p->subs[0] * p->subs[1] * p->subs[2];
  p->table = (float *)malloc(sizeof(float) * 4 * (size_t)tf->count);
  p->cellVisible = p->f.skip ? (uint8_t *)malloc(cells + 3 * (blocks + subs)) : NULL;
  if (!p->table || (p->f.skip && !p->cellVisible))
    return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for per-frame tables");
  for (int i = 0; i < tf->count; ++i) {
    float a = tf->table[4 * i + 3];
    for (int c = 0; c < 3; ++c) p->table[4 * i + c] = tf->table[4 * i + c];
    p->table[4 * i + 3] = (p->f.correction && a > 0.0f) ? 1.0f - powf(1.0f - a, p->f.step * p->invUnit) : a;
  }
  if (p->f.tf2dW) { /* the 2-D table, corrected as the 1-D one (cavrSetTransferFunction2D) */
    p->table2d = (float *)malloc(sizeof(float) * 4 * (size_t)p->f.tf2dW * (size_t)(p->f.tf2dH + 1));
    if (!p->table2d)
      return cavr_set_error(dev, CAVR_ERROR_OUT_OF_MEMORY, "cavrRender: out of host memory for the 2-D table");
    cavr_tf2d_corrected(tf, p->f.correction, p->f.step * p->invUnit, p->table2d);
  }
  if (p->f.skip) frame_cells(dev, job, p, cells, blocks, subs);
  return CAVR_ERROR_NONE;
}

/* Cast every ray of the frame (the job's ray list, or every pixel) on the device's threads, adding the samples and
   the rays that hit to stats. */
static CAVRError cast_frame(CAVRDevice dev, const CAVRRenderJob *job, const Prep *p, CAVRRenderStats *stats) {
  static const WorkFn fns[3][3] = {{tiles_u8_nearest, tiles_u8_linear, tiles_u8_cubic},
                                   {tiles_u16_nearest, tiles_u16_linear, tiles_u16_cubic},
                                   {tiles_f32_nearest, tiles_f32_linear, tiles_f32_cubic}};
  Shared sh;
  sh.work.prep = p;
  sh.work.tileW = sh.work.tileH = CAVR_RAY_TILE;
  sh.work.tilesX = (p->f.width + sh.work.tileW - 1) / sh.work.tileW;
  sh.work.tiles = sh.work.tilesX * ((p->f.height + sh.work.tileH - 1) / sh.work.tileH);
  sh.work.list = job->rays;
  atomic_init(&sh.work.next, 0);
  /* Composite frames go to the packets cpu_packet.c picks (8 rays with AVX2; 16 with AVX-512 where asked for); same
     image, bit for bit. */
  const CavrPacketWorker packets = atomic_load(&packetsAllowed) ? cavr_cpu_packet_caster(p) : NULL;
  sh.fn = packets ? packets : fns[p->storage][p->f.interpolation];

  int nthreads = cavr_cpu_threads(dev);
  if (nthreads > sh.work.tiles) nthreads = sh.work.tiles;
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
  return err;
}

static CAVRError cpu_render(CAVRDevice dev, const CAVRRenderJob *job, CAVRRenderStats *stats) {
  Prep p;
  fill_prep(dev, job, &p);
  CAVRError err = frame_tables(dev, job, &p);
  if (err == CAVR_ERROR_NONE) err = cast_frame(dev, job, &p, stats);
  free(p.table);
  free(p.table2d);
  free(p.cellVisible);
  return err;
}

static const CAVRBackendOps cpuOps = {CAVR_BACKEND_CPU, NULL, cpu_commit_volume, cpu_release_volume, cpu_render,
                                      cavr_cpu_reconstruct, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL, NULL};

const CAVRBackendOps *cavr_cpu_backend(void) { return &cpuOps; }

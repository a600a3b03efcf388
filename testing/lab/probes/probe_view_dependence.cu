// SPDX-License-Identifier: BSD-3-Clause
// probe_view_dependence.cu -- CONTROL for issue 30 item 2: why a big volume's frame depends on the view beyond
// quarter turns (3584^3 uint8: AUTO's frame at 45 degrees 1.8x the 0-degree one), and whether a bricked layout
// removes it. Standalone, CUDA runtime only.
//
// Every kernel marches the SAME rays through the SAME dense N^3 uint8 field with the same fixed step (0.5 voxel),
// trilinear samples, front-to-back compositing with an opacity so low that no ray terminates early, and no
// empty-space skipping: every ray takes every sample of its chord through the box, so the samples of a frame are
// counted exactly and the only variables are the memory layout of the voxels, the thread-block shape and the view.
//   tex     : a 3-D CUDA array (the GPU's block-linear layout) read by the texture unit's trilinear filter -- what
//             cavr's ray caster does;
//   linear  : the voxels x fastest in global memory, 8 byte loads and the trilinear weights in registers (a control
//             for the texture unit: same layout class as a pitch-linear volume);
//   brick8  : bricks of 8^3 voxels (512 B), bricks x fastest, voxels x fastest inside a brick; 8 loads as linear;
//   brick4  : bricks of 4^3 voxels (64 B: two 32-byte sectors of 4x4x2 voxels).
// Views: orthographic, the camera turned about y by 0..90 degrees in 15-degree steps (rays from z towards x, the AUTO
// sweep's first orbit), then about x (rays towards y) by 45 and 90 degrees on top of 45 about y (diagonal views).
// The W x W image covers the box's N x N face at 0 degrees.
// What to read: ns per sample against the view for each layout and block shape, and max/min over the views. If the
// block-linear layout's sectors are anisotropic (a 32-byte sector a few voxels deep in z), tex slows where rays cross
// z-slices often and a bricked layout's max/min stays near 1.
//
// Build and run (device; N=3584 needs ~43 GiB for one layout at a time):
//   nvcc -O3 -arch=sm_90 -o /tmp/pvd testing/lab/probes/probe_view_dependence.cu
//   /tmp/pvd 3584 1024 [layouts=tex,linear,brick8,brick4] [blocks=16x16,2x128]
// ncu (one launch per case, no warm-up; --ncu): sectors per sample and hit rates,
//   ncu --metrics l1tex__t_sectors.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,
//       dram__bytes_read.sum /tmp/pvd 2048 1024 tex,brick4 16x16 --ncu
#include "probe_util.cuh"

#include <string>

namespace {

enum Layout { TEX, LINEAR, BRICK8, BRICK4 };
const char* kLayoutName[] = {"tex", "linear", "brick8", "brick4"};

// The field: a sphere of radius 0.45 N filled with a product of sines (dense, smooth: every sample is inside the
// data range, no value is special) plus 2 LSB of fixed noise.
__host__ __device__ inline uint8_t field(int x, int y, int z, int N) {
  const float s = 1.0f / N, fx = x * s - 0.5f, fy = y * s - 0.5f, fz = z * s - 0.5f;
  const float r2 = fx * fx + fy * fy + fz * fz;
  float v = 0.15f;
  if (r2 < 0.45f * 0.45f) v = 0.55f + 0.4f * sinf(23.f * fx) * sinf(19.f * fy) * sinf(17.f * fz);
  return (uint8_t)(fminf(fmaxf(v * 253.f, 0.f), 253.f) + (hash3(7u, x, y, z) & 1u));
}

// The byte offset of voxel (x, y, z) in each global-memory layout; N is a multiple of 8.
template <int L>
__device__ inline size_t offsetOf(int x, int y, int z, int N) {
  if (L == LINEAR) return (size_t)x + (size_t)N * ((size_t)y + (size_t)N * z);
  constexpr int lb = L == BRICK8 ? 3 : 2, B = 1 << lb, m = B - 1;
  const int nb = N >> lb;
  const size_t brick = (size_t)(x >> lb) + (size_t)nb * ((size_t)(y >> lb) + (size_t)nb * (z >> lb));
  return (brick << (3 * lb)) + (size_t)((x & m) + B * ((y & m) + B * (z & m)));
}

__global__ void fillKernel(uint8_t* v, int N, int layout, int z0, int nz) {
  const size_t n = (size_t)N * N * nz;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(i % N), y = (int)((i / N) % N), z = z0 + (int)(i / ((size_t)N * N));
    const uint8_t f = field(x, y, z, N);
    size_t o;
    switch (layout) {
      case BRICK8: o = offsetOf<BRICK8>(x, y, z, N); break;
      case BRICK4: o = offsetOf<BRICK4>(x, y, z, N); break;
      default: o = i; break;  // LINEAR, or the slab (z0..z0+nz) bound for the array
    }
    v[o] = f;
  }
}

// An orthographic camera: turned about y by ay degrees, then about x by ax; voxel i centred at i (0..N-1).
struct View { float3 o, u, v, d; };
View makeView(double ay, double ax, int N, int W) {
  const double a = ay * M_PI / 180, b = ax * M_PI / 180, pix = (double)N / W, c = 0.5 * (N - 1);
  auto rot = [&](double x, double y, double z) {  // R = Rx(b) * Ry(a)
    const double x1 = cos(a) * x + sin(a) * z, z1 = -sin(a) * x + cos(a) * z;
    return make_double3(x1, cos(b) * y - sin(b) * z1, sin(b) * y + cos(b) * z1);
  };
  const double3 d = rot(0, 0, 1), u = rot(1, 0, 0), v = rot(0, 1, 0);
  View w;
  w.d = make_float3((float)d.x, (float)d.y, (float)d.z);
  w.u = make_float3((float)(u.x * pix), (float)(u.y * pix), (float)(u.z * pix));
  w.v = make_float3((float)(v.x * pix), (float)(v.y * pix), (float)(v.z * pix));
  const double h = 0.5 * N, back = 2.0 * N;  // image centred on the box centre, eye plane 2N before it
  w.o = make_float3((float)(c - h * u.x - h * v.x - back * d.x), (float)(c - h * u.y - h * v.y - back * d.y),
                    (float)(c - h * u.z - h * v.z - back * d.z));
  return w;
}

template <int L>
__device__ inline float sample(const uint8_t* vol, cudaTextureObject_t tex, float3 p, int N) {
  if (L == TEX) return tex3D<float>(tex, p.x + 0.5f, p.y + 0.5f, p.z + 0.5f);
  const float hi = (float)(N - 1) - 1e-3f;
  p.x = fminf(fmaxf(p.x, 0.f), hi); p.y = fminf(fmaxf(p.y, 0.f), hi); p.z = fminf(fmaxf(p.z, 0.f), hi);
  const int x = (int)p.x, y = (int)p.y, z = (int)p.z;
  const float fx = p.x - x, fy = p.y - y, fz = p.z - z;
  float c[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) c[k] = __ldg(vol + offsetOf<L>(x + (k & 1), y + ((k >> 1) & 1), z + (k >> 2), N));
  const float c00 = c[0] + fx * (c[1] - c[0]), c10 = c[2] + fx * (c[3] - c[2]);
  const float c01 = c[4] + fx * (c[5] - c[4]), c11 = c[6] + fx * (c[7] - c[6]);
  const float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
  return (c0 + fz * (c1 - c0)) * (1.f / 255.f);
}

// One thread per ray: the chord through [0, N-1]^3, samples every 0.5 voxel, composited front to back.
template <int L>
__global__ void march(const uint8_t* vol, cudaTextureObject_t tex, View w, int N, int W, float* img,
                      unsigned long long* samples) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= W || py >= W) return;
  const float3 o = make_float3(w.o.x + (px + .5f) * w.u.x + (py + .5f) * w.v.x,
                               w.o.y + (px + .5f) * w.u.y + (py + .5f) * w.v.y,
                               w.o.z + (px + .5f) * w.u.z + (py + .5f) * w.v.z);
  float t0 = 0.f, t1 = 1e30f;
  const float od[3] = {o.x, o.y, o.z}, dd[3] = {w.d.x, w.d.y, w.d.z};
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if (fabsf(dd[a]) < 1e-7f) {
      if (od[a] < 0.f || od[a] > N - 1) t1 = -1.f;
      continue;
    }
    const float ta = (0.f - od[a]) / dd[a], tb = ((float)(N - 1) - od[a]) / dd[a];
    t0 = fmaxf(t0, fminf(ta, tb));
    t1 = fminf(t1, fmaxf(ta, tb));
  }
  float acc = 0.f, alpha = 0.f;
  unsigned n = 0;
  for (float t = t0; t <= t1; t += 0.5f, ++n) {
    const float3 p = make_float3(o.x + t * w.d.x, o.y + t * w.d.y, o.z + t * w.d.z);
    const float s = sample<L>(vol, tex, p, N), a = 1e-5f * s;
    acc += (1.f - alpha) * a * s;
    alpha += (1.f - alpha) * a;
  }
  img[(size_t)py * W + px] = acc;
  const unsigned mask = __activemask(), warpSum = __reduce_add_sync(mask, n);  // one atomic a warp
  if ((threadIdx.x + threadIdx.y * blockDim.x) % 32 == __ffs(mask) - 1) atomicAdd(samples, (unsigned long long)warpSum);
}

struct Vol { Layout layout; uint8_t* lin = nullptr; cudaArray_t arr = nullptr; cudaTextureObject_t tex = 0; };

Vol makeVolume(Layout layout, int N) {
  Vol v; v.layout = layout;
  const size_t bytes = (size_t)N * N * N;
  if (layout != TEX) {
    CK(cudaMalloc(&v.lin, bytes));
    fillKernel<<<4096, 256>>>(v.lin, N, layout, 0, N);
    CK(cudaDeviceSynchronize());
    return v;
  }
  cudaChannelFormatDesc ch = cudaCreateChannelDesc<uint8_t>();
  CK(cudaMalloc3DArray(&v.arr, &ch, make_cudaExtent(N, N, N)));
  const int slab = 64;
  uint8_t* tmp; CK(cudaMalloc(&tmp, (size_t)N * N * slab));
  for (int z0 = 0; z0 < N; z0 += slab) {  // filled slab by slab: the array and a linear copy need not fit together
    const int nz = std::min(slab, N - z0);
    fillKernel<<<4096, 256>>>(tmp, N, LINEAR, z0, nz);
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = make_cudaPitchedPtr(tmp, N, N, N); cp.dstArray = v.arr;
    cp.dstPos = make_cudaPos(0, 0, z0); cp.extent = make_cudaExtent(N, N, nz); cp.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3D(&cp));
  }
  CK(cudaDeviceSynchronize()); CK(cudaFree(tmp));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = v.arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeNormalizedFloat; td.normalizedCoords = 0;
  CK(cudaCreateTextureObject(&v.tex, &rd, &td, nullptr));
  return v;
}

void freeVolume(Vol& v) {
  if (v.tex) CK(cudaDestroyTextureObject(v.tex));
  if (v.arr) CK(cudaFreeArray(v.arr));
  if (v.lin) CK(cudaFree(v.lin));
  v = Vol();
}

void launch(const Vol& v, const View& w, int N, int W, dim3 block, float* img, unsigned long long* samples) {
  const dim3 grid((W + block.x - 1) / block.x, (W + block.y - 1) / block.y);
  switch (v.layout) {
    case TEX: march<TEX><<<grid, block>>>(v.lin, v.tex, w, N, W, img, samples); break;
    case LINEAR: march<LINEAR><<<grid, block>>>(v.lin, v.tex, w, N, W, img, samples); break;
    case BRICK8: march<BRICK8><<<grid, block>>>(v.lin, v.tex, w, N, W, img, samples); break;
    case BRICK4: march<BRICK4><<<grid, block>>>(v.lin, v.tex, w, N, W, img, samples); break;
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    const size_t b = s.find(',', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 2048, W = argc > 2 ? atoi(argv[2]) : 1024;
  const std::vector<std::string> layouts = split(argc > 3 ? argv[3] : "tex,linear,brick8,brick4");
  const std::vector<std::string> blocks = split(argc > 4 ? argv[4] : "16x16,2x128");
  const bool ncu = argc > 5 && std::string(argv[5]) == "--ncu";
  if (N < 16 || N % 8 || W < 16) { fprintf(stderr, "N (a multiple of 8 >= 16) and W >= 16\n"); return 2; }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, N=%d (%.1f GiB uint8), image %dx%d, step 0.5 voxel, no early termination, no skipping\n", prop.name,
         N, (double)N * N * N / (1 << 30), W, W);
  struct V { double ay, ax; };
  std::vector<V> views;
  for (int a = 0; a <= 90; a += 15) views.push_back({(double)a, 0.0});
  for (int a = 45; a <= 90; a += 45) views.push_back({45.0, (double)a});
  float* img; CK(cudaMalloc(&img, (size_t)W * W * sizeof(float)));
  unsigned long long* samples; CK(cudaMalloc(&samples, sizeof(unsigned long long)));
  printf("layout,block,about_y,about_x,ms,min_ms,max_ms,gsamples,ns_per_sample\n");
  for (const std::string& ln : layouts) {
    int li = -1;
    for (int k = 0; k < 4; ++k) if (ln == kLayoutName[k]) li = k;
    if (li < 0) { fprintf(stderr, "unknown layout %s\n", ln.c_str()); return 2; }
    Vol vol = makeVolume((Layout)li, N);
    for (const std::string& bs : blocks) {
      dim3 block(16, 16);
      if (sscanf(bs.c_str(), "%ux%u", &block.x, &block.y) != 2 || block.x * block.y > 1024) {
        fprintf(stderr, "bad block %s\n", bs.c_str()); return 2;
      }
      float lo = 1e30f, hi = 0.f;
      for (const V& vw : views) {
        const View w = makeView(vw.ay, vw.ax, N, W);
        CK(cudaMemset(samples, 0, sizeof(unsigned long long)));
        launch(vol, w, N, W, block, img, samples);
        CK(cudaDeviceSynchronize());
        unsigned long long n = 0;
        CK(cudaMemcpy(&n, samples, sizeof n, cudaMemcpyDeviceToHost));
        if (ncu) { printf("%s,%s,%g,%g,,,,%.4f,\n", ln.c_str(), bs.c_str(), vw.ay, vw.ax, n * 1e-9); continue; }
        const Stat s = timeIt([&] { launch(vol, w, N, W, block, img, samples); });
        const double nsps = s.med * 1e6 / (double)n;  // ns per sample
        lo = std::min(lo, (float)nsps); hi = std::max(hi, (float)nsps);
        printf("%s,%s,%g,%g,%.3f,%.3f,%.3f,%.4f,%.5f\n", ln.c_str(), bs.c_str(), vw.ay, vw.ax, s.med, s.mn, s.mx,
               n * 1e-9, nsps);
        fflush(stdout);
      }
      if (!ncu) printf("# %s %s: ns per sample max/min over the views %.3f\n", ln.c_str(), bs.c_str(), hi / lo);
    }
    freeVolume(vol);
  }
  return 0;
}

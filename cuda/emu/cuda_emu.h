// A CPU emulation of the subset of CUDA that Phasor's kernels and host code use, for development on a
// machine without a GPU: every thread of a block is a fiber (ucontext), run in a random order until it
// reaches a barrier, so a missing __syncthreads() usually shows up as a wrong result. Blocks run one
// after another. Device memory is host memory. Not for speed; not part of any shipped build.
//
// Streams run in call order by default. PHASOR_EMU_ASYNC=1 defers them instead (see "Streams" below):
// work queued on a stream runs only when the host waits for it, the streams in a random order that honours
// cudaStreamWaitEvent, so a missing event between streams or a host write into memory a queued copy still
// reads gives a wrong result here instead of only on a GPU.
//
// Build kernels with:  g++ -std=c++17 -DPHASOR_EMU -x c++ file.cu   (see cuda/common.cuh for the macros)
#pragma once
#ifndef PHASOR_EMU
#error "cuda_emu.h is only for PHASOR_EMU builds"
#endif

#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __shared__ static
#define __constant__ static
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __align__(n) alignas(n)
#define __grid_constant__

struct EmuStream;
struct EmuEvent;
using cudaStream_t = EmuStream*;
using cudaEvent_t = EmuEvent*;

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(8) int2 { int x, y; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(4) short2 { short x, y; };
struct alignas(2) char2 { signed char x, y; };
struct alignas(2) uchar2 { unsigned char x, y; };
struct alignas(4) uchar4 { unsigned char x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline int2 make_int2(int x, int y) { return {x, y}; }

namespace emu {
inline dim3 g_threadIdx, g_blockIdx, g_blockDim, g_gridDim;

struct Fiber {
  ucontext_t ctx;
  bool done = false;
  dim3 tid;
  unsigned linear = 0;
};

struct Cluster;

struct Block {
  std::vector<Fiber> fibers;
  Cluster* cluster = nullptr;  // a block of a cluster launch (launchCluster), else null
  unsigned rank = 0;           // its rank in the cluster
  ucontext_t sched;
  Fiber* cur = nullptr;
  unsigned live = 0;
  // block barrier
  unsigned arrived = 0;
  unsigned long long gen = 0;
  int redOr = 0, redCount = 0, lastOr = 0, lastCount = 0;
  // warp barriers and shuffle slots
  std::vector<unsigned> wArrived, wLive;
  std::vector<unsigned long long> wGen;
  std::vector<unsigned long long> slots;  // 32 per warp
  unsigned long long progress = 0;
  const std::function<void()>* body = nullptr;
  std::vector<unsigned char> dynSmem;
};
/** The blocks of one cluster, run together: a barrier across all their threads (cluster_group::sync) and each
 *  block's dynamic shared memory reachable from the others (map_shared_rank). */
struct Cluster {
  std::vector<Block> blocks;
  unsigned live = 0, arrived = 0;
  unsigned long long gen = 0;
};
inline Block* g_block = nullptr;
inline std::mutex g_launchMutex;
// fiber stacks, left uninitialized so that the pages a fiber never touches are never committed (a cluster
// launch runs thousands of fibers at once)
inline std::vector<std::unique_ptr<char[]>> g_stacks;
inline std::mt19937 g_rng(12345);

inline void yield() {
  Block* b = g_block;
  swapcontext(&b->cur->ctx, &b->sched);
}

inline void trampoline() {
  Block* b = g_block;
  (*b->body)();
  Fiber* f = b->cur;
  f->done = true;
  b->live--;
  unsigned w = f->linear / 32;
  b->wLive[w]--;
  b->progress++;
  if (Cluster* c = b->cluster) {
    c->live--;
    if (c->live > 0 && c->arrived == c->live) {
      c->arrived = 0;
      c->gen++;
    }
  }
  // a thread that exits releases barriers the others wait at (CUDA leaves this undefined; keep going)
  if (b->live > 0 && b->arrived == b->live) {
    b->arrived = 0;
    b->gen++;
  }
  if (b->wLive[w] > 0 && b->wArrived[w] == b->wLive[w]) {
    b->wArrived[w] = 0;
    b->wGen[w]++;
  }
  // returning ends the fiber: uc_link brings us back to the scheduler
}

inline void syncthreads_impl() {
  Block* b = g_block;
  unsigned long long gen = b->gen;
  if (++b->arrived == b->live) {
    b->arrived = 0;
    b->gen++;
    b->progress++;
    return;
  }
  while (b->gen == gen) yield();
}

/** The arrival half of a cluster barrier: the generation it waits out (clusterWait). */
inline unsigned long long clusterArrive() {
  Block* b = g_block;
  Cluster* c = b->cluster;
  if (!c) return 0;
  unsigned long long gen = c->gen;
  if (++c->arrived == c->live) {
    c->arrived = 0;
    c->gen++;
    b->progress++;
  }
  return gen;
}
inline void clusterWait(unsigned long long gen) {
  Cluster* c = g_block->cluster;
  if (!c) return;
  while (c->gen == gen) yield();
}
inline void clusterSync() {
  if (!g_block->cluster) return syncthreads_impl();  // a launch without clusters is a cluster of one block
  clusterWait(clusterArrive());
}

inline void syncwarp_impl() {
  Block* b = g_block;
  unsigned w = b->cur->linear / 32;
  unsigned long long gen = b->wGen[w];
  if (++b->wArrived[w] == b->wLive[w]) {
    b->wArrived[w] = 0;
    b->wGen[w]++;
    b->progress++;
    return;
  }
  while (b->wGen[w] == gen) yield();
}

inline unsigned long long& slot(unsigned lane) {
  Block* b = g_block;
  unsigned w = b->cur->linear / 32;
  return b->slots[w * 32 + lane];
}
inline unsigned laneId() { return g_block->cur->linear % 32; }

template <class T>
inline T shfl(T v, int srcLane) {
  static_assert(sizeof(T) <= 8, "shfl of at most 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  slot(laneId()) = bits;
  syncwarp_impl();
  unsigned long long got = slot(((unsigned)srcLane) & 31u);
  syncwarp_impl();
  T r;
  std::memcpy(&r, &got, sizeof(T));
  return r;
}

inline size_t maxDynSmem() { return 227 * 1024; }

/** 9 (cudaErrorInvalidConfiguration) for a launch a GPU refuses, else 0. */
inline int badLaunch(dim3 grid, dim3 block, size_t smem) {
  unsigned nt = block.x * block.y * block.z;
  if (nt == 0 || nt > 1024 || block.z > 64 || grid.x == 0 || grid.y > 65535 || grid.z > 65535) return 9;
  return smem > maxDynSmem() ? 9 : 0;
}

/** Makes b ready to run a block of nt threads: its fibers on the stacks g_stacks[first…], its barriers reset. */
inline void startBlock(Block& b, dim3 block, unsigned nt, size_t first, size_t stackSize) {
  const unsigned nw = (nt + 31) / 32;
  b.fibers.assign(nt, Fiber{});
  b.live = nt;
  b.arrived = 0;
  b.wArrived.assign(nw, 0);
  b.wGen.assign(nw, 0);
  b.wLive.assign(nw, 0);
  b.slots.assign(nw * 32, 0);
  for (unsigned i = 0; i < nt; i++) b.wLive[i / 32]++;
  for (unsigned i = 0; i < nt; i++) {
    Fiber& f = b.fibers[i];
    f.linear = i;
    f.tid = dim3(i % block.x, (i / block.x) % block.y, i / (block.x * block.y));
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = g_stacks[first + i].get();
    f.ctx.uc_stack.ss_size = stackSize;
    f.ctx.uc_link = &b.sched;
    makecontext(&f.ctx, (void (*)())trampoline, 0);
  }
}

inline int launch(dim3 grid, dim3 block, size_t smem, const std::function<void()>& body) {
  if (int e = badLaunch(grid, block, smem)) return e;
  unsigned nt = block.x * block.y * block.z;
  std::lock_guard<std::mutex> lock(g_launchMutex);
  const size_t stackSize = 128 * 1024;
  while (g_stacks.size() < nt) g_stacks.emplace_back(new char[stackSize]);
  Block b;
  b.body = &body;
  b.dynSmem.assign(smem + 16, 0xCD);  // garbage, like real shared memory
  g_block = &b;
  g_blockDim = block;
  g_gridDim = grid;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        g_blockIdx = dim3(bx, by, bz);
        startBlock(b, block, nt, 0, stackSize);
        std::vector<unsigned> order(nt);
        for (unsigned i = 0; i < nt; i++) order[i] = i;
        unsigned idle = 0;
        while (b.live > 0) {
          std::shuffle(order.begin(), order.end(), g_rng);
          unsigned long long before = b.progress;
          for (unsigned i : order) {
            Fiber& f = b.fibers[i];
            if (f.done) continue;
            b.cur = &f;
            g_threadIdx = f.tid;
            swapcontext(&b.sched, &f.ctx);
          }
          if (b.progress == before) {
            if (++idle > 3) {
              std::fprintf(stderr, "emu: deadlock in block (%u,%u,%u): threads wait at different barriers\n",
                           bx, by, bz);
              std::abort();
            }
          } else {
            idle = 0;
          }
        }
      }
  g_block = nullptr;
  return 0;
}
/** A launch in clusters of `size` consecutive blocks along x (a 1D grid): each cluster's blocks run together,
 *  their threads in one random order, so a missing cluster barrier usually shows up as a wrong result. */
inline int launchCluster(dim3 grid, dim3 block, size_t smem, unsigned size, const std::function<void()>& body) {
  if (int e = badLaunch(grid, block, smem)) return e;
  if (size == 0 || size > 16 || grid.x % size || grid.y != 1 || grid.z != 1) return 9;
  const unsigned nt = block.x * block.y * block.z;
  std::lock_guard<std::mutex> lock(g_launchMutex);
  const size_t stackSize = 128 * 1024;
  while (g_stacks.size() < (size_t)nt * size) g_stacks.emplace_back(new char[stackSize]);
  g_blockDim = block;
  g_gridDim = grid;
  for (unsigned cx = 0; cx < grid.x / size; cx++) {
    Cluster c;
    c.blocks.resize(size);
    c.live = nt * size;
    for (unsigned r = 0; r < size; r++) {
      Block& b = c.blocks[r];
      b.body = &body;
      b.cluster = &c;
      b.rank = r;
      b.dynSmem.assign(smem + 16, 0xCD);
      startBlock(b, block, nt, (size_t)r * nt, stackSize);
    }
    std::vector<std::pair<unsigned, unsigned>> order;
    for (unsigned r = 0; r < size; r++)
      for (unsigned i = 0; i < nt; i++) order.emplace_back(r, i);
    unsigned idle = 0;
    while (c.live > 0) {
      std::shuffle(order.begin(), order.end(), g_rng);
      unsigned long long before = 0, after = 0;
      for (Block& b : c.blocks) before += b.progress;
      for (auto [r, i] : order) {
        Block& b = c.blocks[r];
        Fiber& f = b.fibers[i];
        if (f.done) continue;
        g_block = &b;
        g_blockIdx = dim3(cx * size + r, 0, 0);
        b.cur = &f;
        g_threadIdx = f.tid;
        swapcontext(&b.sched, &f.ctx);
      }
      for (Block& b : c.blocks) after += b.progress;
      if (after == before) {
        if (++idle > 3) {
          std::fprintf(stderr, "emu: deadlock in cluster %u: threads wait at different barriers\n", cx);
          std::abort();
        }
      } else {
        idle = 0;
      }
    }
  }
  g_block = nullptr;
  return 0;
}

// deferred streams (defined with the runtime API below)
inline bool deferred();
inline void enqueue(cudaStream_t s, std::function<void()> op, std::shared_ptr<bool> after = nullptr);

template <class... P, class... A>
inline int launchKernel(cudaStream_t s, dim3 grid, dim3 block, size_t smem, void (*kernel)(P...), A&&... args) {
  // arguments are evaluated (and converted) once, like a real launch copies them
  std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
  if (!deferred()) return launch(grid, block, smem, [&] { std::apply(kernel, params); });
  if (int e = badLaunch(grid, block, smem)) return e;
  enqueue(s, [=] { launch(grid, block, smem, [&] { std::apply(kernel, params); }); });
  return 0;
}
template <class... P, class... A>
inline int launchClusterKernel(cudaStream_t s, dim3 grid, dim3 block, size_t smem, unsigned size, void (*kernel)(P...),
                               A&&... args) {
  std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
  if (!deferred()) return launchCluster(grid, block, smem, size, [&] { std::apply(kernel, params); });
  if (int e = badLaunch(grid, block, smem)) return e;
  enqueue(s, [=] { launchCluster(grid, block, smem, size, [&] { std::apply(kernel, params); }); });
  return 0;
}
}  // namespace emu

// Thread block clusters (sm_90): the part of cooperative_groups the kernels use.
namespace cooperative_groups {
struct cluster_group {
  unsigned block_rank() const { return emu::g_block->rank; }
  unsigned num_blocks() const { return emu::g_block->cluster ? (unsigned)emu::g_block->cluster->blocks.size() : 1; }
  void sync() const { emu::clusterSync(); }
  struct arrival_token {
    unsigned long long gen;
  };
  arrival_token barrier_arrive() const { return {emu::clusterArrive()}; }
  void barrier_wait(arrival_token&& t) const { emu::clusterWait(t.gen); }
  /** The address in block `rank`'s shared memory of what p is in this block's (dynamic shared memory only). */
  template <class T>
  T* map_shared_rank(T* p, unsigned rank) const {
    emu::Block* b = emu::g_block;
    if (!b->cluster) return p;
    const size_t off = reinterpret_cast<unsigned char*>(p) - b->dynSmem.data();
    if (off >= b->dynSmem.size() || rank >= b->cluster->blocks.size()) {
      std::fprintf(stderr, "emu: map_shared_rank outside dynamic shared memory or the cluster\n");
      std::abort();
    }
    return reinterpret_cast<T*>(b->cluster->blocks[rank].dynSmem.data() + off);
  }
};
inline cluster_group this_cluster() { return {}; }
}  // namespace cooperative_groups

#define threadIdx (emu::g_threadIdx)
#define blockIdx (emu::g_blockIdx)
#define blockDim (emu::g_blockDim)
#define gridDim (emu::g_gridDim)
constexpr int warpSize = 32;
#define CUDART_VERSION 13000

inline void __syncthreads() { emu::syncthreads_impl(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::syncwarp_impl(); }
inline int __syncthreads_or(int p) {
  emu::Block* b = emu::g_block;
  b->redOr |= (p != 0);
  __syncthreads();
  int r = b->redOr;
  __syncthreads();
  b->redOr = 0;
  __syncthreads();
  return r;
}
template <class T> inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  int lane = (int)emu::laneId();
  return emu::shfl(v, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  int lane = (int)emu::laneId();
  int src = lane ^ m;
  if ((src & ~(width - 1)) != (lane & ~(width - 1))) src = lane;
  return emu::shfl(v, src);
}
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32) {
  int lane = (int)emu::laneId();
  int src = lane + (int)d;
  if ((src & ~(width - 1)) != (lane & ~(width - 1))) src = lane;
  return emu::shfl(v, src);
}
template <class T> inline T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32) {
  int lane = (int)emu::laneId();
  int src = lane - (int)d;
  if (src < (lane & ~(width - 1))) src = lane;
  return emu::shfl(v, src);
}
inline unsigned __ballot_sync(unsigned, int p) {
  unsigned lane = emu::laneId();
  unsigned bits = 0;
  for (unsigned l = 0; l < 32; l++) {
    int v = emu::shfl(p ? 1 : 0, (int)l);
    if (v) bits |= 1u << l;
  }
  (void)lane;
  return bits;
}
inline unsigned __activemask() { return 0xffffffffu; }

// Atomics: one fiber runs at a time.
template <class T> inline T atomicAdd(T* p, T v) { T o = *p; *p = o + v; return o; }
template <class T> inline T atomicMax(T* p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> inline T atomicMin(T* p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> inline T atomicCAS(T* p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }
template <class T> inline T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
inline void __threadfence() {}
inline void __threadfence_block() {}

template <class T> inline T __ldg(const T* p) { return *p; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline void sincospif(float x, float* s, float* c) {
  double a = (double)x;
  *s = (float)std::sin(M_PI * a);
  *c = (float)std::cos(M_PI * a);
}
inline void sincospi(double x, double* s, double* c) {
  // exact at multiples of 1/2 like the device function
  double r = std::fmod(x, 2.0);
  *s = std::sin(M_PI * r);
  *c = std::cos(M_PI * r);
}
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float rsqrtf(float a) { return 1.0f / std::sqrt(a); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
inline float __log10f(float a) { return std::log10(a); }
inline float __log2f(float a) { return std::log2(a); }
inline float __logf(float a) { return std::log(a); }
inline float __expf(float a) { return std::exp(a); }
inline float __saturatef(float a) { return a < 0.f ? 0.f : (a > 1.f ? 1.f : a); }
inline int __float2int_rn(float a) { return (int)std::nearbyint(a); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz((unsigned)v); }
inline unsigned __brev(unsigned v) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
inline float __int_as_float(int v) { float f; std::memcpy(&f, &v, 4); return f; }
inline int __float_as_int(float v) { int i; std::memcpy(&i, &v, 4); return i; }
inline unsigned __float_as_uint(float v) { unsigned i; std::memcpy(&i, &v, 4); return i; }
inline float __uint_as_float(unsigned v) { float f; std::memcpy(&f, &v, 4); return f; }
inline long long clock64() { return (long long)std::chrono::steady_clock::now().time_since_epoch().count(); }

// ---------------------------------------------------------------------------------------------------
// Runtime API subset. Streams are ordered by construction (everything runs at once, in call order),
// unless PHASOR_EMU_ASYNC=1 defers them (see EmuStream below).
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoDevice = 100,
  cudaErrorInsufficientDriver = 35,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotReady = 600,
  cudaErrorUnknown = 999,
};
using cudaError = cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
// Streams. With PHASOR_EMU_ASYNC=1, kernels, copies that involve only device or page-locked memory,
// memsets on a stream, event records and event waits are queued on their stream; they run when the host
// waits (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize, cudaFree, cudaFreeHost, a copy
// from or to pageable memory, which waits for its stream first as on a GPU), a burst of 1…32 queued
// operations at a time from a stream picked at random among those whose next operation may run.
struct EmuEvent {
  double t = 0;
  std::shared_ptr<bool> last;  // deferred streams: set when the latest record has run (null: never recorded)
};
struct EmuStream {
  struct Op {
    std::function<void()> run;
    std::shared_ptr<bool> after;  // runs once *after is true (an event wait)
  };
  std::deque<Op> q;
};
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  size_t sharedMemPerMultiprocessor;
  int major, minor;
  int multiProcessorCount;
  int maxThreadsPerBlock;
  int maxThreadsPerMultiProcessor;
  int l2CacheSize;
  int memoryBusWidth;
  int pciBusID;
  int regsPerBlock;
  int warpSize;
};
#define cudaComputeModeDefault 0
#define cudaComputeModeExclusive 1
#define cudaComputeModeProhibited 2
#define cudaComputeModeExclusiveProcess 3
#define cudaDevAttrComputeMode 20
#define cudaDevAttrMemoryClockRate 36
#define cudaDevAttrGlobalMemoryBusWidth 37
#define cudaHostAllocDefault 0
#define cudaHostAllocPortable 1
#define cudaStreamNonBlocking 1
#define cudaEventDefault 0
#define cudaEventDisableTiming 2
#define cudaHostRegisterDefault 0

namespace emu {
inline cudaError_t& lastError() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}
inline double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline bool deferred() {
  static const bool on = [] {
    const char* e = std::getenv("PHASOR_EMU_ASYNC");
    return e && *e && *e != '0';
  }();
  return on;
}
inline std::recursive_mutex g_streamMutex;  // the queues, the page-locked ranges, running queued work
inline std::vector<EmuStream*> g_streams;
inline std::map<const char*, size_t> g_pinned;  // page-locked host ranges: start → bytes
inline EmuStream* legacyStream() {
  static EmuStream* s = [] {
    EmuStream* p = new EmuStream();
    g_streams.push_back(p);
    return p;
  }();
  return s;
}
inline EmuStream* streamOf(cudaStream_t s) { return s ? s : legacyStream(); }
inline bool isPinned(const void* p) {
  std::lock_guard<std::recursive_mutex> lock(g_streamMutex);
  auto it = g_pinned.upper_bound(static_cast<const char*>(p));
  if (it == g_pinned.begin()) return false;
  --it;
  return static_cast<const char*>(p) < it->first + it->second;
}
/** Runs queued operations until done() holds. */
inline void runUntil(const std::function<bool()>& done) {
  std::lock_guard<std::recursive_mutex> lock(g_streamMutex);
  static std::mt19937 rng(4711);
  std::vector<EmuStream*> ready;
  while (!done()) {
    ready.clear();
    for (EmuStream* s : g_streams)
      if (!s->q.empty() && (!s->q.front().after || *s->q.front().after)) ready.push_back(s);
    if (ready.empty()) {
      std::fprintf(stderr, "emu: the host waits for stream work that can never run\n");
      std::abort();
    }
    // a burst of 1…32 operations from one stream: one stream runs far ahead of the others at times
    EmuStream* s = ready[rng() % ready.size()];
    for (unsigned burst = 1u << (rng() % 6); burst > 0 && !s->q.empty() && !done(); burst--) {
      if (s->q.front().after && !*s->q.front().after) break;
      EmuStream::Op op = std::move(s->q.front());
      s->q.pop_front();
      if (op.run) op.run();
    }
  }
}
inline void enqueue(cudaStream_t s, std::function<void()> op, std::shared_ptr<bool> after) {
  std::lock_guard<std::recursive_mutex> lock(g_streamMutex);
  streamOf(s)->q.push_back({std::move(op), std::move(after)});
}
inline void drain(cudaStream_t s) {
  if (!deferred()) return;
  EmuStream* st = streamOf(s);
  runUntil([st] { return st->q.empty(); });
}
inline void drainAll() {
  if (!deferred()) return;
  runUntil([] {
    for (EmuStream* s : g_streams)
      if (!s->q.empty()) return false;
    return true;
  });
}
/** Whether a copy of this kind may stay queued: only device and page-locked memory, as on a GPU. */
inline bool asyncCopy(const void* d, const void* s, int kind) {
  switch (kind) {
    case 1: return isPinned(s);                  // host to device
    case 2: return isPinned(d);                  // device to host
    case 3: return true;                         // device to device
    case 0: return isPinned(s) && isPinned(d);   // host to host
    default: return false;
  }
}
inline void pin(void* p, size_t n) {
  std::lock_guard<std::recursive_mutex> lock(g_streamMutex);
  g_pinned[static_cast<const char*>(p)] = n;
}
inline void unpin(void* p) {
  std::lock_guard<std::recursive_mutex> lock(g_streamMutex);
  g_pinned.erase(static_cast<const char*>(p));
}
}  // namespace emu

inline cudaError_t cudaGetDeviceCount(int* n) { *n = std::getenv("PHASOR_EMU_NO_DEVICE") ? 0 : 1; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaDriverGetVersion(int* v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int* v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof(*p));
  std::strcpy(p->name, "CPU emulation of CUDA");
  p->totalGlobalMem = 8ull << 30;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = emu::maxDynSmem();
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 4;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->l2CacheSize = 1 << 20;
  p->warpSize = 32;
  p->regsPerBlock = 65536;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* v, int, int) { *v = 0; return cudaSuccess; }
inline cudaError_t cudaMalloc(void** p, size_t n) {
  *p = std::aligned_alloc(256, (n + 255) / 256 * 256 + 256);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> inline cudaError_t cudaMalloc(T** p, size_t n) { return cudaMalloc((void**)p, n); }
inline cudaError_t cudaFree(void* p) {
  emu::drainAll();  // cudaFree waits for the device
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) {
  cudaError_t e = cudaMalloc(p, n);
  if (e == cudaSuccess) emu::pin(*p, n);
  return e;
}
template <class T> inline cudaError_t cudaHostAlloc(T** p, size_t n, unsigned f) { return cudaHostAlloc((void**)p, n, f); }
inline cudaError_t cudaMallocHost(void** p, size_t n) { return cudaHostAlloc(p, n, 0); }
inline cudaError_t cudaFreeHost(void* p) {
  emu::drainAll();
  emu::unpin(p);
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaHostRegister(void* p, size_t n, unsigned) { emu::pin(p, n); return cudaSuccess; }
inline cudaError_t cudaHostUnregister(void* p) { emu::drainAll(); emu::unpin(p); return cudaSuccess; }
// blocking copies and memsets run on the legacy stream, which the Gpu's non-blocking streams do not wait for
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) {
  emu::drain(nullptr);
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t st = nullptr) {
  if (emu::deferred() && emu::asyncCopy(d, s, k)) {
    emu::enqueue(st, [=] { std::memmove(d, s, n); });
    return cudaSuccess;
  }
  emu::drain(st);  // pageable memory: the stream's earlier work first, then the copy, before returning
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k,
                                     cudaStream_t st = nullptr) {
  auto run = [=] {
    for (size_t r = 0; r < h; r++) std::memmove((char*)d + r * dp, (const char*)s + r * sp, w);
  };
  if (emu::deferred() && emu::asyncCopy(d, s, k)) {
    emu::enqueue(st, run);
    return cudaSuccess;
  }
  emu::drain(st);
  run();
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* d, int v, size_t n) {
  emu::drain(nullptr);
  std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, size_t n, cudaStream_t st = nullptr) {
  if (!emu::deferred()) return cudaMemset(d, v, n);
  emu::enqueue(st, [=] { std::memset(d, v, n); });
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  std::lock_guard<std::recursive_mutex> lock(emu::g_streamMutex);
  *s = new EmuStream();
  emu::g_streams.push_back(*s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  emu::drain(s);  // its queued work still completes
  std::lock_guard<std::recursive_mutex> lock(emu::g_streamMutex);
  emu::g_streams.erase(std::find(emu::g_streams.begin(), emu::g_streams.end(), s));
  delete s;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { emu::drain(s); return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned = 0) {
  if (emu::deferred() && e->last) emu::enqueue(s, nullptr, e->last);  // the record made before this call
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { emu::drainAll(); return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = new EmuEvent(); return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  emu::drainAll();  // a queued record still writes it
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
  if (!emu::deferred()) {
    e->t = emu::nowMs();
    return cudaSuccess;
  }
  auto done = std::make_shared<bool>(false);
  e->last = done;
  emu::enqueue(s, [e, done] {
    e->t = emu::nowMs();
    *done = true;
  });
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (emu::deferred() && e->last) {
    std::shared_ptr<bool> done = e->last;
    emu::runUntil([done] { return *done; });
  }
  return cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t e) {
  return emu::deferred() && e->last && !*e->last ? cudaErrorNotReady : cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)(b->t - a->t); return cudaSuccess; }
inline cudaError_t cudaGetLastError() { cudaError_t e = emu::lastError(); emu::lastError() = cudaSuccess; return e; }
inline cudaError_t cudaPeekAtLastError() { return emu::lastError(); }
inline cudaError_t cudaMemGetInfo(size_t* f, size_t* t) { *f = 4ull << 30; *t = 8ull << 30; return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
template <class F> inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }
struct cudaFuncAttributes {
  size_t sharedSizeBytes = 0;
  int maxThreadsPerBlock = 1024;
  int numRegs = 0;
  int ptxVersion = 90, binaryVersion = 90;  // an sm_90 build: the cluster kernels exist
};
template <class F> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F) { *a = cudaFuncAttributes{}; return cudaSuccess; }
inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
  }
}
inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    default: return cudaGetErrorName(e);
  }
}

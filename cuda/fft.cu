// Host side of the FFT: plans (which kernels, which factors), the launches, Bluestein, real transforms.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "fft.h"
#define PH_MIXED_KERNEL
#include "fft_kernels.cuh"
#ifndef PHASOR_EMU
#include <cooperative_groups.h>
#endif

namespace ph {

FftTuning& fftTuning() {
  static FftTuning t;
  return t;
}

static int log2i(long long n) {
  int k = 0;
  while ((1LL << k) < n) k++;
  return k;
}

bool isSmooth(long long n) {
  if (n < 1) return false;
  for (long long p : {2, 3, 5, 7})
    while (n % p == 0) n /= p;
  return n == 1;
}

static MixedRadix mixedRadix(long long L) {
  MixedRadix mr{};
  mr.L = (int)L;
  long long n = L;
  int a = 0;
  while (n % 2 == 0) { n /= 2; a++; }
  auto add = [&](int r) {
    if (mr.n >= kMaxPasses) throw ArgumentError("FFT size has too many factors");
    mr.r[mr.n++] = r;
  };
  while (a >= 4) { add(16); a -= 4; }
  if (a == 3) add(8);
  if (a == 2) add(4);
  if (a == 1) add(2);
  for (int p : {7, 5, 3})
    while (n % p == 0) { add(p); n /= p; }
  mr.divL = makeFastDiv((unsigned)L);
  int Ns = 1, tw = 0;
  for (int i = 0; i < mr.n; i++) {
    mr.Ns[i] = Ns;
    mr.tw[i] = tw;
    mr.divLr[i] = makeFastDiv((unsigned)(L / mr.r[i]));
    mr.divNs[i] = makeFastDiv((unsigned)Ns);
    if (Ns > 1) tw += Ns * mr.r[i];
    Ns *= mr.r[i];
  }
  return mr;
}

static long long onePassMax(Gpu& gpu) {
  long long lim = fftTuning().onePassMax > 0 ? fftTuning().onePassMax : kRegMax;
  long long L = 2;
  while (L * 2 <= std::min<long long>(lim, kRegMax) && (size_t)swzLen((int)(L * 2)) * 8 <= gpu.smemOptin()) L *= 2;
  return L;
}

// ---------------------------------------------------------------------------------------------------
// Column passes

/** Calls f(std::integral_constant<int, L>{}) for the power of two L = 2…2^maxLog (compile-time kernels by size). */
template <int maxLog, class F>
static void byPow2(long long L, const char* what, F&& f) {
  auto at = [&](auto k) {
    constexpr int lg = decltype(k)::value;
    if constexpr (lg <= maxLog) return f(std::integral_constant<int, (1 << lg)>{});
  };
  switch (log2i(L)) {
    case 1: return at(std::integral_constant<int, 1>{});
    case 2: return at(std::integral_constant<int, 2>{});
    case 3: return at(std::integral_constant<int, 3>{});
    case 4: return at(std::integral_constant<int, 4>{});
    case 5: return at(std::integral_constant<int, 5>{});
    case 6: return at(std::integral_constant<int, 6>{});
    case 7: return at(std::integral_constant<int, 7>{});
    case 8: return at(std::integral_constant<int, 8>{});
    case 9: return at(std::integral_constant<int, 9>{});
    case 10: return at(std::integral_constant<int, 10>{});
    case 11: return at(std::integral_constant<int, 11>{});
    case 12: return at(std::integral_constant<int, 12>{});
    case 13: return at(std::integral_constant<int, 13>{});
    case 14: if (maxLog >= 14) return at(std::integral_constant<int, 14>{}); break;
    default: break;
  }
  throw ArgumentError(what);
}

template <int L, bool TABLE, int R = regRadix(L), bool TRANS = false, bool FEW = false>
static void launchRegK(Gpu& gpu, ColParams& p, cudaStream_t s, int C) {
  constexpr int T = L / R;
  // the transposed-pass kernel holds kTransMaxRegs registers a thread: at most 512 threads a block
  if (TRANS)
    while (C > 1 && C * T > 512) C /= 2;
  const size_t smem = (size_t)C * colLen(L, p.swz != 0) * sizeof(float2);
  auto k = fftColsReg<L, TABLE, R, TRANS, FEW>;
  gpu.allowSmem(k, smem);
  const long long blocks = ceilDiv(p.ncols, C);
  PH_LAUNCH(PH_K(fftColsReg<L, TABLE, R, TRANS, FEW>), dim3((unsigned)blocks), dim3(C * T), smem, s, p);
  PH_CHECK_LAUNCH("FFT kernel launch");
}

/** Whether a contiguous pass of size L runs the kernel compiled for transposed passes (it then just
 *  skips the transposes): a measurement knob. The contiguous kernel is as fast or faster at every size
 *  (docs/cuda/NOTES.md). */
static bool contigUsesTransKernel(long long L) {
  if (L / regRadix((int)L) > 512) return false;
  return fftTuning().contigKernel == 2;
}

template <int L, bool TABLE>
static void launchRegT(Gpu& gpu, ColParams& p, cudaStream_t s, int C, bool trans) {
  // the transposed-pass kernels exist with computed twiddles only (the table variant is measured one-pass)
  if (trans || (!TABLE && contigUsesTransKernel(L))) launchRegK<L, false, regRadix(L), true>(gpu, p, s, C);
  else launchRegK<L, TABLE>(gpu, p, s, C);
}

template <bool TABLE>
static void launchReg(Gpu& gpu, long long L, ColParams& p, cudaStream_t s, int C) {
  const bool t = p.transIn || p.transOut;
  byPow2<14>(L, "register FFT size out of range",
             [&](auto l) { launchRegT<decltype(l)::value, TABLE>(gpu, p, s, C, t); });
}

/** Columns a block of the direct strided-pass kernel (fftColsRegDirect), unless FftTuning::directCols sets them:
 *  32 up to L = 128, 16 at L = 256, 8 above (rows of 256, 128, 64 bytes), and blocks of at least 64 threads.
 *  Measured on an H200 against 4, 8, 16 and 32 (ms, 2^27 samples): L = 128 (80 registers) 2^15 as 128 × 256 1.054
 *  at 32, 1.059 at 16, 1.074 at 8, 48000 as 128 × 375 (rows not sector-aligned) 1.808 / 1.974 / 2.147; L = 256
 *  (2^16, 2^24) 1.076 and 1.704 at 16 against 1.099 and 1.811 at 8; L = 512 (2^20) 1.387 at 8 against 1.431 at 16;
 *  L = 1024 (2^21) 1.504 at 8 against 1.538 at 16 and 1.561 at 4. */
static int directCols(long long L) {
  if (fftTuning().directCols > 0) return fftTuning().directCols;
  const long long T = L / regRadix((int)L);
  return (int)std::min<long long>(kMaxTransCols, std::max<long long>(L <= 128 ? 32 : L == 256 ? 16 : 8, 64 / T));
}

template <int L, int REGS, int VAR>
static void launchDirectRK(Gpu& gpu, ColParams& p, cudaStream_t s, int C) {
  constexpr int R = regRadix(L), T = L / R;
  const int maxThreads = 65536 / REGS >= 1024 ? 1024 : 512;
  if (C <= 0) C = directCols(L);
  while (C & (C - 1)) C &= C - 1;  // a power of two: the kernel splits the thread index with a mask and a shift
  while (C > 1 && (C * T > maxThreads || (size_t)C * colLen(L, p.swz != 0) * sizeof(float2) > gpu.smemOptin()))
    C /= 2;
  const size_t smem = (size_t)C * colLen(L, p.swz != 0) * sizeof(float2);
  p.tab = (VAR & 1) ? gpu.regTable(L) : nullptr;
  gpu.allowSmem(fftColsRegDirect<L, REGS, VAR>, smem);
  PH_LAUNCH(PH_K(fftColsRegDirect<L, REGS, VAR>), dim3((unsigned)ceilDiv(p.ncols, C)), dim3(C * T), smem, s, p);
  PH_CHECK_LAUNCH("FFT kernel launch (direct strided pass)");
}

template <int L>
static void launchDirectK(Gpu& gpu, ColParams& p, cudaStream_t s, int C) {
  constexpr int DEF = directRegs(L, regRadix(L));
  // other register caps and variants: sm_90 code only, for measuring (FftTuning::directRegs, directVariant)
  const bool sm90 = gpu.prop().major == 9 && gpu.prop().minor == 0;
  switch (sm90 ? fftTuning().directVariant : 0) {
    case 1: return launchDirectRK<L, DEF, 1>(gpu, p, s, C);
    case 2: return launchDirectRK<L, DEF, 2>(gpu, p, s, C);
    case 4: return launchDirectRK<L, DEF, 4>(gpu, p, s, C);
    case 5: return launchDirectRK<L, DEF, 5>(gpu, p, s, C);
    default: break;
  }
  switch (sm90 ? fftTuning().directRegs : 0) {
    case 64: return launchDirectRK<L, 64, 0>(gpu, p, s, C);
    case 72: return launchDirectRK<L, 72, 0>(gpu, p, s, C);
    case 80: return launchDirectRK<L, 80, 0>(gpu, p, s, C);
    case 96: return launchDirectRK<L, 96, 0>(gpu, p, s, C);
    default: return launchDirectRK<L, DEF, 0>(gpu, p, s, C);
  }
}

static void launchDirect(Gpu& gpu, long long L, ColParams& p, cudaStream_t s, int C) {
  byPow2<13>(L, "direct strided FFT pass size out of range",
             [&](auto l) { launchDirectK<decltype(l)::value>(gpu, p, s, C); });
}

// 32768 points in one pass: more than one block's shared memory (and registers) hold, so a cluster of two
// blocks (sm_90) shares the work by decimation in time. Block b loads the samples 2n + b (the two blocks read
// the same sectors, which cross DRAM once), transforms its 16384 points as the one-pass kernel does (E, O),
// block 1 multiplies O[k] by W_32768^k, and the radix-2 step pairs them through the peer's shared memory:
// block 0 writes X[k] = E[k] + W^k·O[k], block 1 X[16384 + k] = E[k] − W^k·O[k].
__constant__ float2 kW32[16] = {
    {1.0f, 0.0f}, {9.807852804e-01f, -1.950903220e-01f}, {9.238795325e-01f, -3.826834324e-01f},
    {8.314696123e-01f, -5.555702330e-01f}, {7.071067812e-01f, -7.071067812e-01f}, {5.555702330e-01f, -8.314696123e-01f},
    {3.826834324e-01f, -9.238795325e-01f}, {1.950903220e-01f, -9.807852804e-01f}, {0.0f, -1.0f},
    {-1.950903220e-01f, -9.807852804e-01f}, {-3.826834324e-01f, -9.238795325e-01f}, {-5.555702330e-01f, -8.314696123e-01f},
    {-7.071067812e-01f, -7.071067812e-01f}, {-8.314696123e-01f, -5.555702330e-01f}, {-9.238795325e-01f, -3.826834324e-01f},
    {-9.807852804e-01f, -1.950903220e-01f}};  // W_32^e = e^{-2πie/32}

constexpr int kClusterHalf = 16384, kClusterThreads = 1024;

// Launched in clusters of two blocks (PH_LAUNCH_CLUSTER).
__global__ void __launch_bounds__(1024, 1)
    fft32768Cluster(const float2* in, float2* out, int conjIn, int conjOut, float scale) {
#ifdef PH_SM90_CODE
  namespace cg = cooperative_groups;
  constexpr int H = kClusterHalf, T = kClusterThreads, R = H / T;
  cg::cluster_group cl = cg::this_cluster();
  const unsigned b = cl.block_rank();
  const long long t = blockIdx.x >> 1;
  PH_DYN_SMEM(float2, sm);
  const int j = threadIdx.x;
  float2 v[R];
  {
    const float2* src = in + t * 2 * H + 2 * j + b;
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = src[2 * e * T];
  }
  if (conjIn) {
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  }
  regFft<H, false, R, true>(v, sm, j, nullptr);  // v[e] = E[k] (b = 0) or O[k] (b = 1), k = j + e·T
  if (b == 1) {
    // W_32768^k = W_32768^j · W_32^e (T = 32768 / 32)
    float sn, cs;
    sincospif(-(float)j / (float)H, &sn, &cs);
    const float2 wj = make_float2(cs, sn);
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = cmul(v[e], cmul(wj, kW32[e]));
  }
  __syncthreads();  // the transform's last exchange is read: the buffer takes this block's results
#pragma unroll
  for (int e = 0; e < R; e++) sm[j + e * T] = v[e];
  cl.sync();
  {
    const float2* peer = cl.map_shared_rank(sm, b ^ 1);
    float2* dst = out + t * 2 * H + (long long)b * H + j;
    const float sy = conjOut ? -scale : scale;
#pragma unroll
    for (int e = 0; e < R; e++) {
      const float2 p = peer[j + e * T];
      const float2 x = b == 0 ? cadd(v[e], p) : csub(p, v[e]);
      dst[e * T] = make_float2(x.x * scale, x.y * sy);
    }
  }
  cl.sync();  // the peer may still be reading this block's shared memory
#endif
}

// Passes of 2048 and 4096 points over 16 adjacent columns (rows of 128 bytes, whole lines), for two-pass plans
// of 2^23 and 2^24: 16 columns of 4096 points (512 KiB) are more than a block holds, so a cluster of G = L/512
// blocks shares them by decimation in frequency, X[G·k' + q] = Σ_m W_512^{m·k'} · W_L^{m·q} · Σ_b W_G^{b·q} ·
// x[512·b + m]. Block q loads x[512·b + m] of every b for its own m ∈ [q·512/G, (q+1)·512/G) and every column
// (1/G of the data, no more), does those G-point DFTs, applies W_L^{m·q'} and writes each result q' into block
// q''s shared memory; after a cluster barrier every block holds the 16 columns of its own 512-point transforms
// (the one-pass kernel's regFft) and stores X[G·k' + q] through a transpose, C columns a row. COLS_IN: the
// input's C columns are adjacent (rows of 8·C bytes: the first pass of a plan), and the butterflies' results go
// to the blocks by rows (m·(C + 1) + c: a warp's writes to a block are nearly contiguous); else each column is
// contiguous (the second pass) and they go by columns. The output's columns are adjacent in both passes.
constexpr int kWideSub = 512, kWideGroup = 16;
/** float2 of a cluster-pass block's shared memory: C columns (the transforms and the store's transpose), or C + 1
 *  a row (the first pass's butterfly results). */
__host__ __device__ constexpr int wideSmemLen(int C) {
  return C * swzLen(kWideSub) > kWideSub * (C + 1) ? C * swzLen(kWideSub) : kWideSub * (C + 1);
}

template <int G, int C, bool COLS_IN>
__global__ void __launch_bounds__(C * 32, 1024 / (C * 32)) fftWideCluster(ColParams p) {
#ifdef PH_SM90_CODE
  namespace cg = cooperative_groups;
  constexpr int H = kWideSub, L = G * H, R = 16, T = H / R, MQ = H / G, NT = C * T;
  constexpr int P = C * MQ / NT;  // butterflies a thread
  static_assert(P * NT == C * MQ && T == 32, "fftWideCluster: the work must tile the block");
  cg::cluster_group cl = cg::this_cluster();
  const int q = (int)cl.block_rank();
  const long long col0 = (long long)(blockIdx.x / G) * C;
  PH_DYN_SMEM(float2, smem);
  long long* bases = reinterpret_cast<long long*>(smem + wideSmemLen(C));  // C in, then C out
  const int tid = threadIdx.x;
  if (tid < C) {
    bases[tid] = colBase(p, col0 + tid, p.si);
    bases[C + tid] = colBase(p, col0 + tid, p.so);
  }
  auto started = cl.barrier_arrive();  // waited for before the first write to another block's memory
  __syncthreads();
  float2 x[P][G];
  int pc[P], pm[P];
#pragma unroll
  for (int i = 0; i < P; i++) {
    const int k = tid + i * NT;
    const int c = COLS_IN ? (k & (C - 1)) : k / MQ, mm = COLS_IN ? k / C : k % MQ;
    pc[i] = c;
    pm[i] = q * MQ + mm;
    const float2* src = p.in + bases[c] + (long long)pm[i] * p.si.ls;
#pragma unroll
    for (int b = 0; b < G; b++) x[i][b] = src[(long long)b * H * p.si.ls];
  }
  cl.barrier_wait(std::move(started));  // every block of the cluster runs: its shared memory may be written
#pragma unroll
  for (int i = 0; i < P; i++) {
    if (p.conjIn) {
#pragma unroll
      for (int b = 0; b < G; b++) x[i][b].y = -x[i][b].y;
    }
    dft<G>(x[i]);
#pragma unroll
    for (int r = 1; r < G; r++) {
      float sn, cs;
      sincospif((float)(pm[i] * r) * (-2.0f / (float)L), &sn, &cs);  // W_L^{m·r}, exact argument
      x[i][r] = cmul(x[i][r], make_float2(cs, sn));
    }
    const int at = COLS_IN ? pm[i] * (C + 1) + pc[i] : colOff<H>(pc[i], true) + pad16(pm[i]);
#pragma unroll
    for (int r = 0; r < G; r++) cl.map_shared_rank(smem, r)[at] = x[i][r];
  }
  cl.sync();  // this block's rows are all written; no block touches another's memory after this
  const int c = tid / T, j = tid % T;
  float2* sm = smem + colOff<H>(c, true);
  float2 v[R];
#pragma unroll
  for (int e = 0; e < R; e++) v[e] = COLS_IN ? smem[(j + e * T) * (C + 1) + c] : sm[pad16(j + e * T)];
  __syncthreads();
  regFft<H, false, R>(v, sm, j, nullptr);  // v[e] = Y[k'], k' = j + e·T: X[G·k' + q]
  passTwiddles<R, true>(v, p, col0 + c, G * j + q, G * T);
  const float sy = p.conjOut ? -p.scale : p.scale;
#pragma unroll
  for (int e = 0; e < R; e++) v[e] = make_float2(v[e].x * p.scale, v[e].y * sy);
  __syncthreads();  // the transform's last exchange is read
#pragma unroll
  for (int e = 0; e < R; e++) sm[pad16(j + e * T)] = v[e];
  __syncthreads();
  {
    const int tc = tid & (C - 1), tl = tid / C;
    const float2* tsm = smem + colOff<H>(tc, true);
    float2* dst = p.out + bases[C + tc];
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int k = tl + e * (NT / C);
      dst[(long long)(G * k + q) * p.so.ls] = tsm[pad16(k)];
    }
  }
#endif
}

/** Whether a pass of L points over `ncols` columns runs on the cluster kernel (fftWideCluster): L 2048 or 4096,
 *  whole groups of 16 columns, and sm_90 code for it in this build on an sm_90 or later device. */
static bool widePass(Gpu& gpu, long long L, long long ncols) {
  if ((L != 2048 && L != 4096) || ncols % kWideGroup || gpu.prop().major < 9) return false;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, fftWideCluster<8, 16, true>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.ptxVersion >= 90 && a.binaryVersion >= 90;
}

template <int G, int C, bool COLS_IN>
static void launchWideK(Gpu& gpu, ColParams& p, cudaStream_t s) {
  const size_t smem = (size_t)wideSmemLen(C) * sizeof(float2) + 2 * C * sizeof(long long);
  gpu.allowSmem(fftWideCluster<G, C, COLS_IN>, smem);
  const dim3 grid((unsigned)(p.ncols / C * G));
  PH_CHECK(PH_LAUNCH_CLUSTER(PH_K(fftWideCluster<G, C, COLS_IN>), grid, dim3(C * 32), smem, s, G, p));
  PH_CHECK_LAUNCH("FFT kernel launch (wide pass on clusters)");
}

template <int G, bool COLS_IN>
static void launchWideC(Gpu& gpu, ColParams& p, cudaStream_t s) {
  switch (fftTuning().wideCols) {
    case 4: return launchWideK<G, 4, COLS_IN>(gpu, p, s);
    case 16: return launchWideK<G, 16, COLS_IN>(gpu, p, s);
    default: return launchWideK<G, 8, COLS_IN>(gpu, p, s);
  }
}

/** One pass of L = 2048 or 4096 points on the cluster kernel (widePass must hold): output columns adjacent,
 *  input columns adjacent (transIn) or each contiguous. */
static void launchWide(Gpu& gpu, long long L, ColParams& p, cudaStream_t s) {
  if (p.so.s0 != 1 || (p.transIn ? p.si.s0 != 1 : p.si.ls != 1))
    throw ArgumentError("FFT pass layout: the cluster pass needs adjacent output columns");
  p.fastBase = fftTuning().fastBase && p.ncols + kMaxTransCols < (1LL << 31) ? 1 : 0;
  if (p.fastBase) {
    p.dC0 = makeFastDiv((unsigned)p.C0);
    p.dC1 = makeFastDiv((unsigned)p.C1);
  }
  p.twPow2 = p.twN > 0 && isPow2(p.twN) && !fftTuning().passTwiddleTable;
  if (L == 4096) {
    if (p.transIn) launchWideC<8, true>(gpu, p, s);
    else launchWideC<8, false>(gpu, p, s);
  } else {
    if (p.transIn) launchWideC<4, true>(gpu, p, s);
    else launchWideC<4, false>(gpu, p, s);
  }
}

/** Whether the device's theoretical memory bandwidth (memory clock × bus width × 2) is under 4 TB/s: where the
 *  cluster kernels, bound by their blocks' work more than by memory, beat the copy-bound passes they replace
 *  (an H100 at 3.35 TB/s; not an H200 at 4.8: docs/cuda/NOTES.md, v25 and v26). */
static bool slowMemory(Gpu& gpu) {
  int kHz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&kHz, cudaDevAttrMemoryClockRate, gpu.device()) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, gpu.device()) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const double bytesPerSecond = 2.0 * kHz * 1e3 * bits / 8;  // double data rate
  return bytesPerSecond > 0 && bytesPerSecond < 4e12;
}

/** Whether 32768 runs on the two-block cluster kernel: sm_90 code for it in this build, on an sm_90 or later
 *  device, unless the tuning names factors for a multi-pass plan; by default (FftTuning::cluster32k 0) only where
 *  slowMemory holds: it beats two passes on an H100 and loses to them on an H200. */
static bool clusterFft(Gpu& gpu) {
  const int mode = fftTuning().cluster32k;
  if (mode == 2 || fftTuning().factors[0] != 0 || gpu.prop().major < 9) return false;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, fft32768Cluster) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  if (a.ptxVersion < 90 || a.binaryVersion < 90) return false;
  return mode == 1 || slowMemory(gpu);
}

static constexpr long long kMixedCap = 4096;  // C·L of the mixed kernel: two buffers of 32 KiB

// Mixed radix in registers

/** The register plan of a smooth size L: E elements a thread (one of kMixElems, T = L/E threads a column within
 *  the kernel's block limit) and radices dividing E (largest first), the fewest passes, then the fewest elements
 *  a thread (fewer registers, more blocks an SM: measured on an H200, 1000 as 10·10·10 took 0.79 ms, as 20·10·5
 *  0.96). False when no E fits L: the shared-memory kernel takes it. */
static bool mixRegPlan(long long L, int& bestE, MixPlan& best) {
  if (!fftTuning().mixedRegister || L < 2 || L > (1LL << 30)) return false;
  size_t bestPasses = kMaxMixPasses + 1;
  for (int E : kMixElems) {
    if (L % E || L / E > mixMaxThreads(E) || (fftTuning().mixedElems && E != fftTuning().mixedElems)) continue;
    std::vector<int> rads;  // divisors of E, descending
    for (int r = E; r >= 2; r--)
      if (E % r == 0) rads.push_back(r);
    std::vector<int> cur, found;
    std::function<void(long long)> rec = [&](long long rest) {
      if (rest == 1) {
        if (found.empty() || cur.size() < found.size()) found = cur;
        return;
      }
      if (cur.size() >= (size_t)kMaxMixPasses || (!found.empty() && cur.size() + 1 >= found.size())) return;
      for (int r : rads)
        if (rest % r == 0 && (cur.empty() || r <= cur.back())) {
          cur.push_back(r);
          rec(rest / r);
          cur.pop_back();
        }
    };
    rec(L);
    if (found.empty()) continue;
    if (found.size() < bestPasses) {
      bestPasses = found.size();
      bestE = E;
      best = MixPlan{};
      best.L = (int)L;
      best.T = (int)(L / E);
      best.n = (int)found.size();
      best.divT = makeFastDiv((unsigned)best.T);
      int Ns = 1, tw = 0;
      for (int i = 0; i < best.n; i++) {
        best.r[i] = found[i];
        best.Ns[i] = Ns;
        best.divNs[i] = makeFastDiv((unsigned)Ns);
        best.tw[i] = tw;
        if (Ns > 1) tw += (found[i] - 1) * Ns;
        Ns *= found[i];
      }
    }
  }
  return bestPasses <= (size_t)kMaxMixPasses;
}

static bool hasMixFixed(long long L, int E, const MixPlan& mp);

static std::string mixRegDescribe(long long L) {
  int E = 0;
  MixPlan mp;
  if (!mixRegPlan(L, E, mp)) return "shared memory";
  std::ostringstream o;
  o << "registers, ";
  for (int i = 0; i < mp.n; i++) o << (i ? "·" : "") << mp.r[i];
  if (hasMixFixed(L, E, mp)) o << ", compile-time plan";
  return o.str();
}

template <int E, bool TRANS, bool PAD>
static void launchMixK(Gpu& gpu, ColParams& p, const MixPlan& mp, cudaStream_t s) {
  // strided passes: up to 16 columns (rows of 128 bytes) within the block limit; contiguous: about 128 threads,
  // 256 for the kernels of at most 72 registers (E ≤ 12): measured fastest against blocks of 128, 256 and 512
  // threads (docs/cuda/NOTES.md)
  const int aim = fftTuning().mixedThreads > 0 ? fftTuning().mixedThreads : E <= 12 ? 256 : 128;
  const int limit = TRANS ? mixMaxThreads(E) : std::min(aim, mixMaxThreads(E));
  int C = 1;
  while (2 * C * mp.T <= limit && 2 * C <= (TRANS ? 16 : kMaxTransCols)) C *= 2;
  const size_t smem = (size_t)C * paddedLen(mp.L) * sizeof(float2);
  gpu.allowSmem(fftColsMix<E, TRANS, PAD>, smem);
  PH_LAUNCH(PH_K(fftColsMix<E, TRANS, PAD>), dim3((unsigned)ceilDiv(p.ncols, C)), dim3(C * mp.T), smem, s, p, mp);
  PH_CHECK_LAUNCH("mixed-radix register FFT kernel launch");
}

template <int E>
static void launchMixE(Gpu& gpu, ColParams& p, const MixPlan& mp, cudaStream_t s) {
  const bool trans = p.transIn || p.transOut;
  // Unpadded exchanges save the padding's integer work (measured on an H200: 3000 1.13 → 0.96 ms, 375 1.07 →
  // 0.82, 1200 1.31 → 1.11, 1000 0.81 → 0.79), except where a pass writes its radix-r outputs r float2 apart
  // with r a multiple of 8: 8 and more of a half-warp's writes meet in one bank pair (1536 = 24·8·8: 0.70
  // padded, 0.76 unpadded).
  bool pad = false;
  for (int i = 0; i + 1 < mp.n; i++) pad = pad || mp.r[i] % 8 == 0;
  if (fftTuning().mixedPad) pad = fftTuning().mixedPad == 1;
  if (pad) {
    if (trans) launchMixK<E, true, true>(gpu, p, mp, s);
    else launchMixK<E, false, true>(gpu, p, mp, s);
  } else {
    if (trans) launchMixK<E, true, false>(gpu, p, mp, s);
    else launchMixK<E, false, false>(gpu, p, mp, s);
  }
}

static void launchMix(Gpu& gpu, int E, ColParams& p, const MixPlan& mp, cudaStream_t s) {
  static_assert(sizeof(kMixElems) / sizeof(int) == 8, "launchMix: one case per kMixElems entry");
  switch (E) {
    case 10: return launchMixE<10>(gpu, p, mp, s);
    case 12: return launchMixE<12>(gpu, p, mp, s);
    case 14: return launchMixE<14>(gpu, p, mp, s);
    case 15: return launchMixE<15>(gpu, p, mp, s);
    case 20: return launchMixE<20>(gpu, p, mp, s);
    case 21: return launchMixE<21>(gpu, p, mp, s);
    case 24: return launchMixE<24>(gpu, p, mp, s);
    case 30: return launchMixE<30>(gpu, p, mp, s);
    default: throw ArgumentError("mixed-radix register FFT: no kernel for this many elements a thread");
  }
}

// Sizes whose contiguous passes run their register plan compiled whole (fftColsMixFix): L, elements a thread,
// the register cap, then the radices exactly as mixRegPlan chooses them (test/cuda/fft.test.ts checks that
// planInfo names each as compile-time). Each is one more kernel in the fatbin. The caps are the fastest measured
// against 64, 80, 96 and the run-time kernel's mixRegs(E): E = 20 at 80; E = 30 at 160 for 300 and 1500 but at 96
// for 600, 1200, 2400 and 3000, whose radix-2 passes hold less; E = 10 at 72. Lower caps or more columns a block
// measured slower for 1000 (docs/cuda/NOTES.md has the figures).
#define PH_MIX_FIXED(X)                                                                               \
  X(300, 30, 160, 30, 10) X(500, 10, 72, 10, 10, 5) X(600, 30, 96, 30, 10, 2) X(1000, 10, 72, 10, 10, 10) \
  X(1200, 30, 96, 30, 10, 2, 2) X(1500, 30, 160, 30, 10, 5) X(2000, 20, 80, 20, 20, 5)                  \
  X(2400, 30, 96, 30, 10, 2, 2, 2) X(3000, 30, 96, 30, 10, 10) X(4000, 20, 80, 20, 20, 10)

/** Whether the run-time plan (E elements a thread, mp) is the compile-time plan <L, E, Rs...>. */
template <int L, int E, int... Rs>
static bool fixMatches(long long planL, int planE, const MixPlan& mp) {
  constexpr int rs[] = {Rs...};
  constexpr int n = (int)sizeof...(Rs);
  if (planL != L || planE != E || mp.n != n) return false;
  for (int i = 0; i < n; i++)
    if (mp.r[i] != rs[i]) return false;
  return true;
}

/** Launches the compile-time plan <L, E, DEF registers, Rs...> for a contiguous pass. */
template <int L, int E, int DEF, int... Rs>
static void launchMixFix(Gpu& gpu, ColParams& p, cudaStream_t s, int aimDefault = 0) {
  constexpr int T = L / E;
  // blocks as launchMixK's contiguous ones
  const int aim = fftTuning().mixedThreads > 0 ? fftTuning().mixedThreads
                  : aimDefault > 0                ? aimDefault
                  : E <= 12                       ? 256
                                                  : 128;
  const int limit = std::min(aim, mixMaxThreads(E));
  int C = 1;
  while (2 * C * T <= limit && 2 * C <= kMaxTransCols) C *= 2;
  const size_t smem = (size_t)C * paddedLen(L) * sizeof(float2);
  const dim3 grid((unsigned)ceilDiv(p.ncols, C)), block(C * T);
  switch (fftTuning().mixFixRegs) {
#define PH_FIXR(RG)                                                                                    \
  case RG:                                                                                             \
    gpu.allowSmem(fftColsMixFix<L, E, RG, DEF, Rs...>, smem);                                          \
    PH_LAUNCH(PH_K(fftColsMixFix<L, E, RG, DEF, Rs...>), grid, block, smem, s, p);                     \
    break;
    PH_FIXR(64) PH_FIXR(80) PH_FIXR(96) PH_FIXR(160)
#undef PH_FIXR
    default:
      gpu.allowSmem(fftColsMixFix<L, E, DEF, DEF, Rs...>, smem);
      PH_LAUNCH(PH_K(fftColsMixFix<L, E, DEF, DEF, Rs...>), grid, block, smem, s, p);
  }
  PH_CHECK_LAUNCH("mixed-radix register FFT kernel launch");
}

/** The compile-time plan of a contiguous pass, where PH_MIX_FIXED has one for this plan (false: none ran). */
static bool launchMixFixed(Gpu& gpu, ColParams& p, int E, const MixPlan& mp, cudaStream_t s) {
  if (!fftTuning().mixedFixed || p.transIn || p.transOut) return false;
#define PH_FIX_TRY(L_, E_, RG, ...)                              \
  if (fixMatches<L_, E_, __VA_ARGS__>(mp.L, E, mp)) {            \
    launchMixFix<L_, E_, RG, __VA_ARGS__>(gpu, p, s);            \
    return true;                                                 \
  }
  PH_MIX_FIXED(PH_FIX_TRY)
#undef PH_FIX_TRY
  return false;
}

/** Whether a size's contiguous pass has a compile-time plan (for describe()). */
static bool hasMixFixed(long long L, int E, const MixPlan& mp) {
  if (!fftTuning().mixedFixed) return false;
#define PH_FIX_HAS(L_, E_, RG, ...) \
  if (fixMatches<L_, E_, __VA_ARGS__>(L, E, mp)) return true;
  PH_MIX_FIXED(PH_FIX_HAS)
#undef PH_FIX_HAS
  return false;
}

int stridedCols(Gpu& gpu, long long L) {
  if (isPow2(L) && L <= kRegMax) {
    // passes on the transposing kernel (those transposed on one side: a four-step plan's contiguous pass with
    // its transposed store; the passes strided on both sides take directCols): up to 16 columns (rows of 128
    // bytes), at least 4 (32 bytes, one sector), blocks of about 256 threads and at most 512: measured fastest,
    // 16 columns at L = 128 and 256, 8 at L = 512 and 4 at L = 1024 (the swizzled layout makes narrow transposes
    // conflict free; docs/cuda/NOTES.md)
    const long long T = L / regRadix((int)L);
    const long long threads = fftTuning().stridedThreads > 0 ? fftTuning().stridedThreads : 256;
    long long C = fftTuning().stridedCols > 0 ? fftTuning().stridedCols
                                              : std::min<long long>(16, std::max<long long>(4, threads / T));
    C = std::min<long long>({C, kMaxTransCols, 512 / T});
    while (C > 1 && (size_t)C * swzLen((int)L) * 8 > gpu.smemOptin()) C /= 2;
    return (int)C;
  }
  long long C = std::max<long long>(1, std::min<long long>(kMaxTransCols, kMixedCap / L));
  long long c = 1;
  while (c * 2 <= C) c *= 2;
  return (int)c;
}

void launchColumns(Gpu& gpu, long long L, ColParams& p, cudaStream_t s, int C) {
  const bool strided = p.transIn || p.transOut;
  p.fastBase = fftTuning().fastBase && p.ncols + kMaxTransCols < (1LL << 31) ? 1 : 0;
  if (p.fastBase) {
    p.dC0 = makeFastDiv((unsigned)p.C0);
    p.dC1 = makeFastDiv((unsigned)p.C1);
  }
  // a side that is not transposed through shared memory must be contiguous (the kernels assume it)
  if ((!p.transIn && p.si.ls != 1) || (!p.transOut && p.so.ls != 1))
    throw ArgumentError("FFT pass layout: a column read or written directly must be contiguous");
  if (p.twN && !strided) throw ArgumentError("FFT pass layout: pass twiddles need a transposed side");
  if (isPow2(L) && L <= kRegMax) {
    p.tab = fftTuning().twiddleTable ? gpu.regTable(L) : nullptr;
    p.twPow2 = p.twN > 0 && isPow2(p.twN) && !fftTuning().passTwiddleTable;
    p.swz = fftTuning().swizzle ? 1 : 0;
    // strided on both sides: the direct kernel (no transposes through shared memory)
    if (p.transIn && p.transOut && fftTuning().direct && L <= 8192) {
      launchDirect(gpu, L, p, s, C);
      return;
    }
    const long long T = L / regRadix((int)L);
    // 64 contiguous: the compile-time mixed-radix kernel, 8 elements a thread (radix 8·8) in blocks of 64
    // threads (measured on an H200: 0.523 ms, against 0.571 for the power-of-two kernel's 16 elements, radix
    // 4·16, and 0.543 / 0.533 for blocks of 128 / 256)
    if (L == 64 && !strided && fftTuning().mix64) {
      static const int r88[] = {8, 8};
      p.tab = gpu.mixedTable(64, 2, r88, true);
      launchMixFix<64, 8, mixRegs(8), 8, 8>(gpu, p, s, 64);
      return;
    }
    // 8192 contiguous: 32 elements per thread (radix 32, 16, 16: two exchanges instead of three)
    if (L == 8192 && !strided && fftTuning().wide8192 && !fftTuning().twiddleTable) {
      if (fftTuning().fewTwiddles) launchRegK<8192, false, 32, false, true>(gpu, p, s, C > 0 ? C : 1);
      else launchRegK<8192, false, 32>(gpu, p, s, C > 0 ? C : 1);
      return;
    }
    if (L == 16384 && !strided && fftTuning().fewTwiddles && !fftTuning().twiddleTable) {
      launchRegK<16384, false, 16, false, true>(gpu, p, s, C > 0 ? C : 1);
      return;
    }
    if (C <= 0) {
      // 256 threads; 128 at L = 64 (measured faster; 512 and 1024 slower)
      const long long threads = fftTuning().contigThreads > 0 ? fftTuning().contigThreads : (L == 64 ? 128 : 256);
      C = strided ? stridedCols(gpu, L) : (int)std::max<long long>(1, std::min<long long>(threads, 1024) / T);
    }
    while (C & (C - 1)) C &= C - 1;  // a power of two: the kernel splits indices with shifts
    if (fftTuning().twiddleTable && gpu.prop().major == 9 && gpu.prop().minor == 0) launchReg<true>(gpu, L, p, s, C);
    else launchReg<false>(gpu, L, p, s, C);
    return;
  }
  int E = 0;
  MixPlan mp;
  if (mixRegPlan(L, E, mp)) {
    p.tab = gpu.mixedTable(L, mp.n, mp.r, true);
    if (!launchMixFixed(gpu, p, E, mp, s)) launchMix(gpu, E, p, mp, s);
    return;
  }
  const MixedRadix mr = mixedRadix(L);
  p.tab = gpu.mixedTable(L, mr.n, mr.r);
  if (C <= 0) C = strided ? stridedCols(gpu, L) : (int)std::max<long long>(1, std::min<long long>(kMaxTransCols, kMixedCap / L));
  int logC = 0;
  while ((2 << logC) <= C) logC++;
  C = 1 << logC;  // a power of two: the kernel splits indices with shifts
  const size_t smem = (size_t)2 * C * (L | 1) * sizeof(float2);
  gpu.allowSmem(fftColsMixed, smem);
  int threads = (int)std::min<long long>(512, std::max<long long>(64, (C * L / 4 + 31) / 32 * 32));
  PH_LAUNCH(fftColsMixed, dim3((unsigned)ceilDiv(p.ncols, C)), dim3(threads), smem, s, p, mr, C, logC);
  PH_CHECK_LAUNCH("mixed-radix FFT kernel launch");
}

static ColParams baseParams() {
  ColParams p{};
  p.C1 = 1;
  p.scale = 1.0f;
  return p;
}

// ---------------------------------------------------------------------------------------------------
// Small kernels

__global__ void kChirp(float2* w, long long n) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const long long r = (k * k) % (2 * n);  // e^{-πi k²/n} repeats every 2n
  double s, c;
  sincospi(-(double)r / (double)n, &s, &c);
  w[k] = make_float2((float)c, (float)s);
}

__global__ void kBluesteinB(const float2* w, float2* b, long long n, long long m) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  float2 v = make_float2(0.f, 0.f);
  if (k < n) v = conjf2(w[k]);
  else if (k > m - n) v = conjf2(w[m - k]);
  b[k] = v;
}

__global__ void kBluesteinPre(const float2* x, float2* a, const float2* w, long long n, long long m, long long batch,
                              int conjIn) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m * batch) return;
  const long long b = i / m, k = i - b * m;
  float2 v = make_float2(0.f, 0.f);
  if (k < n) {
    float2 xv = x[b * n + k];
    if (conjIn) xv.y = -xv.y;
    v = cmul(xv, w[k]);
  }
  a[i] = v;
}

__global__ void kPointwiseMul(float2* a, const float2* bf, long long m, long long total) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  a[i] = cmul(a[i], bf[i % m]);
}

__global__ void kBluesteinPost(const float2* a, float2* x, const float2* w, long long n, long long m, long long batch,
                               int conjOut, float scale) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * batch) return;
  const long long b = i / n, k = i - b * n;
  float2 v = cmul(a[b * m + k], w[k]);
  x[i] = make_float2(v.x * scale, (conjOut ? -v.y : v.y) * scale);
}

static unsigned blocksFor(long long count, int threads = 256) { return (unsigned)ceilDiv(count, threads); }

// ---------------------------------------------------------------------------------------------------
// Plans

static bool passable(Gpu& gpu, long long L) {
  // ≤ 8192: at most 512 threads a column (the transposed-pass kernel's limit)
  if (isPow2(L)) return L <= std::min<long long>(fftTuning().factorMax, 8192) && stridedCols(gpu, L) >= 1;
  return isSmooth(L) && L <= 512;
}

static std::vector<long long> divisors(long long n) {
  std::vector<long long> d;
  for (long long i = 1; i * i <= n; i++)
    if (n % i == 0) {
      d.push_back(i);
      if (i * i != n) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

static bool hasMixReg(long long L) {
  int E = 0;
  MixPlan mp;
  return mixRegPlan(L, E, mp);
}

// Fewest passes; then fewest factors in the shared-memory mixed-radix kernel (no register plan: 44100 as
// 441 × 100 rather than 210 × 210); then fewest mixed-radix factors; then the most balanced.
static std::vector<long long> factorize(Gpu& gpu, long long n) {
  {
    std::vector<long long> f;
    long long prod = 1;
    bool ok = true;
    for (long long x : fftTuning().factors)
      if (x > 0) {
        f.push_back(x);
        prod *= x;
        ok = ok && passable(gpu, x);
      }
    if (f.size() >= 2 && ok && prod == n) return f;
  }
  std::vector<long long> best;
  // Powers of two: the first (strided, transposed on both sides) factor at most 256 where the others fit, else
  // as small as they allow, and at least 128; then the most balanced. Measured faster than the balanced split
  // from 2^16 to 2^22 (docs/cuda/NOTES.md); contiguous factors of 4096 and 8192 were 2–3× slower (their transposed
  // stores write rows of 2 or 1 columns). Strided passes of 512 points and more run at about half the copy
  // bandwidth. Other sizes: the most balanced.
  auto score = [&](const std::vector<long long>& f) {
    long long slow = 0, mixed = 0, mx = 0;
    for (long long x : f) {
      slow += !isPow2(x) && !hasMixReg(x);
      mixed += !isPow2(x);
      mx = std::max(mx, x);
    }
    if (isPow2(n)) return std::make_tuple(slow, mixed, std::max(f[0], 256LL), f[0] < 128 ? 1LL : 0LL, mx);
    return std::make_tuple(slow, mixed, 0LL, 0LL, mx);
  };
  const auto ds = divisors(n);
  for (int k = 2; k <= 3 && best.empty(); k++) {
    std::vector<long long> cur;
    std::function<void(long long, int)> rec = [&](long long rest, int left) {
      if (left == 1) {
        // Two factors of 2048 or more only for powers of two (2^22 as 2048 × 2048, measured faster than three
        // passes on the H100 and the H200); other sizes of that kind are unmeasured and keep three passes.
        if (k == 2 && !isPow2(n) && rest >= 2048 && cur[0] >= 2048 && fftTuning().factorMax == 2048) return;
        if (rest > 1 && passable(gpu, rest)) {
          cur.push_back(rest);
          if (best.empty() || score(cur) < score(best)) best = cur;
          cur.pop_back();
        }
        return;
      }
      for (long long d : ds) {
        if (d < 2 || rest % d || !passable(gpu, d)) continue;
        cur.push_back(d);
        rec(rest / d, left - 1);
        cur.pop_back();
      }
    };
    rec(n, k);
  }
  return best;
}

FftPlan::FftPlan(Gpu& gpu, long long n) : gpu_(gpu), n_(n) {
  if (n < 1) throw ArgumentError("FFT size must be at least 1");
  if (n == 1) { kind_ = Kind::Copy; return; }
  if (n == 32768 && clusterFft(gpu)) { kind_ = Kind::Cluster; return; }
  if (isPow2(n) && n <= onePassMax(gpu)) { kind_ = Kind::Reg; return; }
  if (!isPow2(n) && isSmooth(n) && n <= kMixedCap) { kind_ = Kind::Mixed; return; }
  if (isSmooth(n)) {
    factors_ = factorize(gpu, n);
    // 2^23 and 2^24 in two passes where 4096-point passes run on clusters (three passes cost three copies);
    // by default (widePass 0) where slowMemory holds
    const int mode = fftTuning().widePass;
    const bool wide = mode == 1 || mode == 3 || (mode == 0 && slowMemory(gpu));
    if (factors_.size() == 3 && fftTuning().factors[0] == 0 && wide && (n == (1LL << 23) || n == (1LL << 24)) &&
        widePass(gpu, 4096, 4096))
      factors_ = {n / 4096, 4096};
    if (factors_.size() == 2)
      for (int i = 0; i < 2; i++) {
        const long long L = factors_[i], cols = n / L;
        wide_[i] = wide && (L == 4096 || mode == 3) && widePass(gpu, L, cols);
      }
    if (!factors_.empty()) { kind_ = Kind::FourStep; return; }
  }
  kind_ = Kind::Bluestein;
  m_ = 1;
  while (m_ < 2 * n - 1) m_ *= 2;
  sub_ = &gpu.plan(m_);
  chirp_.alloc(n * sizeof(float2));
  bf_.alloc(m_ * sizeof(float2));
  cudaStream_t s = gpu.stream();
  PH_LAUNCH(kChirp, dim3(blocksFor(n)), dim3(256), 0, s, chirp_.get<float2>(), n);
  PH_CHECK_LAUNCH("Bluestein chirp");
  PH_LAUNCH(kBluesteinB, dim3(blocksFor(m_)), dim3(256), 0, s, chirp_.get<float2>(), bf_.get<float2>(), n, m_);
  PH_CHECK_LAUNCH("Bluestein filter");
  DevBuf tmp(sub_->scratchBytes(1) + 16);
  // FFT_m(b) / m: the inverse transform later is left unscaled by folding 1/m in here.
  sub_->exec(bf_.get<float2>(), bf_.get<float2>(), 1, false, tmp.get(), s);
  gpu.sync();
}

std::string FftPlan::describe() const {
  std::ostringstream o;
  switch (kind_) {
    case Kind::Copy: o << "identity"; break;
    case Kind::Reg:
      o << "1 pass (register, " << (n_ == 64 && fftTuning().mix64 ? "8·8 compile-time plan, " : "") << n_ << ")";
      break;
    case Kind::Mixed: o << "1 pass (mixed radix, " << mixRegDescribe(n_) << ", " << n_ << ")"; break;
    case Kind::Cluster: o << "1 pass (two-block clusters, " << n_ << ")"; break;
    case Kind::FourStep: {
      o << factors_.size() << " passes (";
      for (size_t i = 0; i < factors_.size(); i++) o << (i ? " x " : "") << factors_[i];
      if (wide_[0] || wide_[1]) o << (wide_[0] && wide_[1] ? ", both on clusters" : wide_[0] ? ", the first on clusters" : ", the second on clusters");
      o << ")";
      break;
    }
    case Kind::Bluestein: o << "Bluestein through " << m_ << " (" << sub_->describe() << ")"; break;
  }
  return o.str();
}

size_t FftPlan::scratchBytes(long long batch) const {
  switch (kind_) {
    case Kind::FourStep: return (size_t)(batch * n_) * sizeof(float2);
    case Kind::Bluestein: return (size_t)(batch * m_) * sizeof(float2) + sub_->scratchBytes(batch) + 256;
    default: return 0;
  }
}

void FftPlan::exec(const float2* in, float2* out, long long batch, bool inverse, void* scratch, cudaStream_t s) const {
  if (batch <= 0) return;
  const float scale = inverse ? 1.0f / (float)n_ : 1.0f;
  switch (kind_) {
    case Kind::Copy: {
      if (in != out) PH_CHECK(cudaMemcpyAsync(out, in, batch * sizeof(float2), cudaMemcpyDeviceToDevice, s));
      return;
    }
    case Kind::Reg:
    case Kind::Mixed: {
      ColParams p = baseParams();
      p.in = in;
      p.out = out;
      p.ncols = batch;
      p.C0 = batch;
      p.si = Strides{n_, 0, 0, 1};
      p.so = p.si;
      p.flat = fftTuning().flatSmall ? 1 : 0;
      p.plain = 1;
      p.conjIn = p.conjOut = inverse;
      p.scale = scale;
      launchColumns(gpu_, n_, p, s);
      return;
    }
    case Kind::Cluster: {
      const size_t smem = (size_t)swzLen(kClusterHalf) * sizeof(float2);
      gpu_.allowSmem(fft32768Cluster, smem);
      PH_CHECK(PH_LAUNCH_CLUSTER(fft32768Cluster, dim3((unsigned)(2 * batch)), dim3(kClusterThreads), smem, s, 2, in,
                                 out, (int)inverse, (int)inverse, scale));
      PH_CHECK_LAUNCH("FFT kernel launch (two-block clusters)");
      return;
    }
    case Kind::FourStep: {
      float2* tmp = static_cast<float2*>(scratch);
      const long long n = n_;
      // the first pass of either form: N1-point columns strided by M = n / N1, transposed on both sides, the
      // twiddles W_n between it and the rest applied on its way out
      auto firstPass = [&](long long N1, long long M, float2* dst) {
        ColParams p = baseParams();
        p.in = in; p.out = dst;
        p.ncols = batch * M; p.C0 = M;
        p.si = Strides{1, 0, n, M}; p.so = p.si;
        p.transIn = p.transOut = 1;
        p.conjIn = inverse;
        p.twN = n;
        TwoLevel tw = gpu_.twoLevel(n);
        p.twHi = tw.hi; p.twLo = tw.lo; p.twShift = tw.shift;
        if (factors_.size() == 2 && wide_[0]) launchWide(gpu_, N1, p, s);
        else launchColumns(gpu_, N1, p, s);
      };
      if (factors_.size() == 2) {
        const long long N1 = factors_[0], M = factors_[1];
        firstPass(N1, M, tmp);
        ColParams q = baseParams();
        q.in = tmp; q.out = out;
        q.ncols = batch * N1; q.C0 = N1;
        q.si = Strides{M, 0, n, 1};
        q.so = Strides{1, 0, n, N1};
        q.transOut = 1;
        q.conjOut = inverse; q.scale = scale;
        if (wide_[1]) launchWide(gpu_, M, q, s);
        else launchColumns(gpu_, M, q, s);
        return;
      }
      // Three (or more, folded into three) passes: N1 · N2 · N3.
      long long N1 = factors_[0], N2 = factors_[1], N3 = 1;
      for (size_t i = 2; i < factors_.size(); i++) N3 *= factors_[i];
      if (factors_.size() > 3) throw ArgumentError("FFT size needs more than three passes");
      const long long M = N2 * N3;
      firstPass(N1, M, out);
      ColParams q = baseParams();
      q.in = out; q.out = tmp;
      q.ncols = batch * N1 * N3; q.C0 = N3; q.C1 = N1;
      q.si = Strides{1, M, n, N3}; q.so = q.si;
      q.transIn = q.transOut = 1;
      q.twN = M;
      TwoLevel tw2 = gpu_.twoLevel(M);
      q.twHi = tw2.hi; q.twLo = tw2.lo; q.twShift = tw2.shift;
      launchColumns(gpu_, N2, q, s);
      ColParams r = baseParams();
      r.in = tmp; r.out = out;
      r.ncols = batch * N1 * N2; r.C0 = N1; r.C1 = N2;
      r.si = Strides{M, N3, n, 1};
      r.so = Strides{1, N1, n, N1 * N2};
      r.transOut = 1;
      r.conjOut = inverse; r.scale = scale;
      launchColumns(gpu_, N3, r, s);
      return;
    }
    case Kind::Bluestein: {
      float2* a = static_cast<float2*>(scratch);
      void* subScratch = reinterpret_cast<char*>(scratch) + (((size_t)(batch * m_) * sizeof(float2) + 255) / 256) * 256;
      const long long n = n_, m = m_;
      PH_LAUNCH(kBluesteinPre, dim3(blocksFor(m * batch)), dim3(256), 0, s, in, a, chirp_.get<float2>(), n, m, batch,
                (int)inverse);
      PH_CHECK_LAUNCH("Bluestein premultiply");
      sub_->exec(a, a, batch, false, subScratch, s);
      PH_LAUNCH(kPointwiseMul, dim3(blocksFor(m * batch)), dim3(256), 0, s, a, bf_.get<float2>(), m, m * batch);
      PH_CHECK_LAUNCH("Bluestein multiply");
      sub_->exec(a, a, batch, true, subScratch, s);
      PH_LAUNCH(kBluesteinPost, dim3(blocksFor(n * batch)), dim3(256), 0, s, a, out, chirp_.get<float2>(), n, m, batch,
                (int)inverse, scale);
      PH_CHECK_LAUNCH("Bluestein postmultiply");
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Real transforms

// X[k] = E + W_n^k·O, E = (Z[k] + conj Z[h−k])/2, O = −i(Z[k] − conj Z[h−k])/2, k = 0…h.
/** i → (i / d, i mod d): by FastDiv when every index fits 32 bits (fast.d ≠ 0), else by a 64-bit division. */
__device__ __forceinline__ void splitIndex(long long i, long long d, const FastDiv& fast, long long& q, long long& r) {
  if (fast.d) {
    const unsigned qq = fdiv((unsigned)i, fast);
    q = qq;
    r = (long long)((unsigned)i - qq * fast.d);
  } else {
    q = i / d;
    r = i - q * d;
  }
}
static FastDiv indexDiv(long long d, long long total) {
  return total < (1LL << 32) - 1024 ? makeFastDiv((unsigned)d) : FastDiv{0, 0, 0};
}

__global__ void kRfftPost(const float2* z, float2* x, const float2* w, long long h, long long batch, FastDiv fnb) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nb = h + 1;
  if (i >= nb * batch) return;
  long long b, k;
  splitIndex(i, nb, fnb, b, k);
  const float2 zk = z[b * h + (k == h ? 0 : k)];
  const float2 zc = conjf2(z[b * h + (k == 0 ? 0 : h - k)]);
  const float2 e = cscale(cadd(zk, zc), 0.5f);
  const float2 o = cscale(mulmi(csub(zk, zc)), 0.5f);
  x[i] = cadd(e, cmul(w[k], o));
}

// Z[k] = E + i·O, E = (X[k] + conj X[h−k])/2, O = (X[k] − conj X[h−k])/2 · conj(W_n^k), k < h.
__global__ void kIrfftPre(const float2* x, float2* z, const float2* w, long long h, long long batch, FastDiv fh) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= h * batch) return;
  long long b, k;
  splitIndex(i, h, fh, b, k);
  const float2* xb = x + b * (h + 1);
  float2 xk = xb[k], xc = xb[h - k];
  if (k == 0) { xk.y = 0.f; xc.y = 0.f; }  // DC and Nyquist are real
  xc = conjf2(xc);
  const float2 e = cscale(cadd(xk, xc), 0.5f);
  const float2 o = cmulc(cscale(csub(xk, xc), 0.5f), w[k]);
  z[i] = cadd(e, mulpi(o));
}

__global__ void kRealToComplex(const float* x, float2* z, long long total) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) z[i] = make_float2(x[i], 0.f);
}

__global__ void kTakeBins(const float2* z, float2* x, long long n, long long nb, long long batch) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nb * batch) return;
  const long long b = i / nb, k = i - b * nb;
  x[i] = z[b * n + k];
}

// Full Hermitian spectrum of odd or even n from its first n/2+1 bins.
__global__ void kHermitian(const float2* x, float2* z, long long n, long long batch) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * batch) return;
  const long long nb = n / 2 + 1;
  const long long b = i / n, k = i - b * n;
  float2 v = k < nb ? x[b * nb + k] : conjf2(x[b * nb + (n - k)]);
  if (k == 0 || (n % 2 == 0 && k == n / 2)) v.y = 0.f;
  z[i] = v;
}

__global__ void kRealPart(const float2* z, float* x, long long total) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) x[i] = z[i].x;
}

void rfft(Gpu& gpu, const float* in, float2* out, long long n, long long batch, cudaStream_t s, int slot) {
  if (batch <= 0) return;
  if (rfftFused(gpu, in, out, n, batch, s)) return;
  if (n % 2 == 0 && n >= 2) {
    const long long h = n / 2;
    FftPlan& plan = gpu.plan(h);
    float2* z = static_cast<float2*>(gpu.scratch(slot + 1, (size_t)(h * batch) * sizeof(float2)));
    void* sc = gpu.scratch(slot, plan.scratchBytes(batch));
    plan.exec(reinterpret_cast<const float2*>(in), z, batch, false, sc, s);
    const float2* w = gpu.table(n);  // W_n^k, k ≤ h < n
    PH_LAUNCH(kRfftPost, dim3(blocksFor((h + 1) * batch)), dim3(256), 0, s, z, out, w, h, batch,
              indexDiv(h + 1, (h + 1) * batch));
    PH_CHECK_LAUNCH("rfft post-pass");
    return;
  }
  FftPlan& plan = gpu.plan(n);
  float2* z = static_cast<float2*>(gpu.scratch(slot + 1, (size_t)(n * batch) * sizeof(float2)));
  void* sc = gpu.scratch(slot, plan.scratchBytes(batch));
  PH_LAUNCH(kRealToComplex, dim3(blocksFor(n * batch)), dim3(256), 0, s, in, z, n * batch);
  PH_CHECK_LAUNCH("rfft expand");
  plan.exec(z, z, batch, false, sc, s);
  const long long nb = n / 2 + 1;
  PH_LAUNCH(kTakeBins, dim3(blocksFor(nb * batch)), dim3(256), 0, s, z, out, n, nb, batch);
  PH_CHECK_LAUNCH("rfft bins");
}

void irfft(Gpu& gpu, const float2* in, float* out, long long n, long long batch, cudaStream_t s, int slot) {
  if (batch <= 0) return;
  if (irfftFused(gpu, in, out, n, batch, s)) return;
  if (n % 2 == 0 && n >= 2) {
    const long long h = n / 2;
    FftPlan& plan = gpu.plan(h);
    float2* z = static_cast<float2*>(gpu.scratch(slot + 1, (size_t)(h * batch) * sizeof(float2)));
    void* sc = gpu.scratch(slot, plan.scratchBytes(batch));
    const float2* w = gpu.table(n);
    PH_LAUNCH(kIrfftPre, dim3(blocksFor(h * batch)), dim3(256), 0, s, in, z, w, h, batch, indexDiv(h, h * batch));
    PH_CHECK_LAUNCH("irfft pre-pass");
    plan.exec(z, reinterpret_cast<float2*>(out), batch, true, sc, s);
    return;
  }
  FftPlan& plan = gpu.plan(n);
  float2* z = static_cast<float2*>(gpu.scratch(slot + 1, (size_t)(n * batch) * sizeof(float2)));
  void* sc = gpu.scratch(slot, plan.scratchBytes(batch));
  PH_LAUNCH(kHermitian, dim3(blocksFor(n * batch)), dim3(256), 0, s, in, z, n, batch);
  PH_CHECK_LAUNCH("irfft expand");
  plan.exec(z, z, batch, true, sc, s);
  PH_LAUNCH(kRealPart, dim3(blocksFor(n * batch)), dim3(256), 0, s, z, out, n * batch);
  PH_CHECK_LAUNCH("irfft real part");
}

// ---------------------------------------------------------------------------------------------------
// 2D FFT: rows (contiguous, one pass each) then columns (strided, transposes in shared memory).

void fft2(Gpu& gpu, const float2* in, float2* out, long long rows, long long cols, long long batch, bool inverse,
          cudaStream_t s) {
  const auto fits = [&](long long L) {
    return (isPow2(L) && L <= onePassMax(gpu)) || (isSmooth(L) && L <= kMixedCap);
  };
  if (!fits(rows) || !fits(cols)) {
    // General sizes: row transforms, then the columns through a transpose-free strided plan is not
    // available for every size; fall back to transposing through the plans.
    throw ArgumentError("fft2 supports dimensions that fit one pass (powers of two up to 16384, smooth sizes up to 4096)");
  }
  const float sr = inverse ? 1.0f / (float)cols : 1.0f, sc = inverse ? 1.0f / (float)rows : 1.0f;
  ColParams p = baseParams();
  p.in = in; p.out = out;
  p.ncols = batch * rows; p.C0 = batch * rows;
  p.si = Strides{cols, 0, 0, 1}; p.so = p.si;
  p.conjIn = p.conjOut = inverse; p.scale = sr;
  launchColumns(gpu, cols, p, s);
  ColParams q = baseParams();
  q.in = out; q.out = out;
  q.ncols = batch * cols; q.C0 = cols;
  q.si = Strides{1, 0, rows * cols, cols}; q.so = q.si;
  q.transIn = q.transOut = 1;
  q.conjIn = q.conjOut = inverse; q.scale = sc;
  launchColumns(gpu, rows, q, s);
}

}  // namespace ph

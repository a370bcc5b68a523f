// Overlap-save, fused: each block loads its segment with the overlap (converting raw integers), transforms
// it in registers, multiplies by the filter spectrum (the conjugate template spectrum for correlation),
// transforms back, drops the wrapped-around part and stores — one kernel. Real streams go through a
// half-length complex FFT (no pairing, so each segment is computed on its own: results do not depend on
// how the stream was cut into blocks). Correlation also computes the window energies (double-precision
// prefix sums in shared memory) and the scores. Shared by filter.cu (FIR) and corr.cu (correlation),
// each instantiating what it uses, with the kernels of the unfused path for long filters and templates.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "proc_kernels.cuh"
#include "processors.h"

namespace ph {

struct OsParams {
  Source src;
  int V;           // values per frame
  int lane0;       // first lane of group 0
  int laneStep;    // lanes between groups
  int M;           // taps or template length
  int S;           // outputs per segment
  // complex H = 8192 as two 4096-point halves (osSplit); spec then holds osSplitSpectrum's pairs. Here, in the
  // padding before the 8-byte fields, the struct keeps its size: appended at the end it grew the kernels' parameters
  // by 8 bytes and ptxas gave the narrow kernels other register counts, and they ran slower
  int split;
  long long segments;
  long long outCount;  // FIR: frames; correlation: lags
  const float2* spec;
  float* out;
  float tnorm;
  const float2* tab;  // register FFT twiddle rows for H
  const float2* wL;   // W_{2H}^k (real streams)
};

__device__ __forceinline__ float corrScore(float num, float tnorm, double energy) {
  if (!(energy > 0.0) || !(tnorm > 0.f)) return 0.f;
  const float s = num / (tnorm * (float)sqrt(energy));
  return s > 1.f ? 1.f : s;
}

/** Elements a thread holds in the fused kernels: regRadix(H) with table twiddles, or (WIDE, H = 8192 only) 32 as in
 *  the one-pass 8192 FFT: 256 threads, radix 32·16·16 (two exchanges a transform instead of three), two blocks an
 *  SM at 128 registers instead of one 512-thread block, twiddles by sincospif (two a radix-16 pass). */
__host__ __device__ constexpr int osRadix(int H, bool wide) { return wide ? 32 : regRadix(H); }

/** Segments a block of the FIR kernels (T threads a segment): one, or as many as make 64 threads where a segment
 *  has fewer (FftTuning::osThreads: 128 or 256 to measure against). One segment a block, so that a barrier waits
 *  for no other segment, measured 10–20 % faster than blocks of 256 threads at every size (docs/cuda/NOTES.md). */
static inline int osSegmentsPerBlock(int H, int T) {
  const int want = fftTuning().osThreads;
  const int threads = want > 0 && want <= 256 ? want : 64;
  return std::max(1, threads / T);
}

// H: complex FFT size; a segment is L = H (complex) or 2H (real) samples. The kernels below call it.
/** The FFTs' internal twiddles: all from table rows (kTwTable), two a radix-16 pass by sincospif and the rest as their
 *  products (kTwFew, as the one-pass FFTs), or the same two from table rows (kTwRows). */
enum { kTwTable = 0, kTwFew = 1, kTwRows = 2 };

/** Shared float2 a segment's FFT exchanges take: one padded H-point buffer, or (SPLIT) two padded H/2-point ones. */
__host__ __device__ constexpr int osSegLen(int H, bool split) { return split ? 2 * paddedLen(H / 2) : paddedLen(H); }

/** Thread j's complex samples m = j + e·T of the segment from frame f0, put(e, z): the split correlation's second read
 *  of its segment (osBody). `plain`: one complex channel from lane 0 (value pairs in one load each), else frame·V + lane
 *  value by value. The first read is osBody's own code, which this repeats: loading through a function or a lambda
 *  there gave the FIR kernels other register counts from ptxas (the complex 4096-point one 64 with 20 bytes of spills
 *  instead of 75). */
template <int H, int R, int T, class Put>
__device__ __forceinline__ void osLoadComplex(const OsParams& p, bool plain, long long f0, int j, int lane, Put&& put) {
  if (plain) {
    withPairs<false>(p.src, 2 * f0, 2 * f0 + 2 * H, [&](auto get2, float) {
#pragma unroll
      for (int e = 0; e < R; e++) put(e, get2(j + e * T));
    });
  } else withSource(p.src, f0 * p.V, (f0 + H) * p.V, [&](auto get) {
#pragma unroll
    for (int e = 0; e < R; e++) {
      const long long i = (f0 + j + e * T) * p.V + lane;
      put(e, make_float2(get(i), get(i + 1)));
    }
  });
}

/** The split correlation's window energies (osBody): the squares W (float) and their sums by chunks of four Cd (double),
 *  padded so that thread t's PER consecutive chunks (osChunkPrefix) sit one 16-byte (W) or 8-byte (Cd) step after
 *  thread t − 1's, free of bank conflicts (unpadded, 64 bytes apart, they conflicted 16-way). */
template <int PER>
struct OsEnergy {
  float* W;    // L + 4·T floats
  double* Cd;  // L/4 + T + 1 doubles
  __device__ __forceinline__ static int w(int r) { return r + ((r / (4 * PER)) << 2); }
  __device__ __forceinline__ static int c(int k) { return k + k / PER; }
};
/** Shared memory of OsEnergy for L samples and T threads. */
__host__ __device__ constexpr size_t osEnergyBytes(int L, int T) { return (size_t)6 * L + 24 * T + 8; }

/** Cd[c] = Σ_{r < 4c} W[r] in double for c = 0…L/4: each of the block's T threads (whole warps) takes PER = L/(4T)
 *  consecutive chunks of four squares; synchronizes the block. */
template <int L, int T, int PER = L / (4 * T)>
__device__ __forceinline__ void osChunkPrefix(const OsEnergy<PER>& en, double* warpTot) {
  constexpr int NC = L / 4;
  static_assert(PER >= 1 && NC % T == 0 && T % 32 == 0 && T <= 1024, "chunks of four, whole warps");
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const float4* const W4 = reinterpret_cast<const float4*>(en.W) + t * (PER + 1);
  const auto chunk = [&](int q) {
    const float4 a = W4[q];
    return ((double)a.x + (double)a.y) + ((double)a.z + (double)a.w);
  };
  double sum = 0.0;
#pragma unroll
  for (int q = 0; q < PER; q++) sum += chunk(q);
  const double incl = warpScanDouble(sum);
  if (lane == 31) warpTot[w] = incl;
  __syncthreads();
  if (w == 0) {
    const double x = warpScanDouble(lane < T / 32 ? warpTot[lane] : 0.0);
    if (lane < T / 32) warpTot[lane] = x;
  }
  __syncthreads();
  double off = incl - sum + (w > 0 ? warpTot[w - 1] : 0.0);
  double* const cd = en.Cd + t * (PER + 1);
#pragma unroll
  for (int q = 0; q < PER; q++) {
    cd[q] = off;
    off += chunk(q);
  }
  if (t == T - 1) en.Cd[OsEnergy<PER>::c(NC)] = off;
  __syncthreads();
}

/** The energy of the window [i, i + M) from osChunkPrefix: the whole chunks' sum in double and the ≤ 3 squares on each
 *  side; every term is non-negative, so the only cancellation is the double one (as with a prefix sum in double). */
template <int PER>
__device__ __forceinline__ double osWindow(const OsEnergy<PER>& en, int i, int M) {
  using E = OsEnergy<PER>;
  const int c1 = (i + 3) >> 2, c2 = (i + M) >> 2;
  float a = 0.f;
  if (c2 < c1) {  // inside one chunk (M ≤ 3)
#pragma unroll
    for (int r = 0; r < 3; r++)
      if (r < M) a += en.W[E::w(i + r)];
    return a;
  }
#pragma unroll
  for (int r = 0; r < 3; r++) {
    if (i + r < 4 * c1) a += en.W[E::w(i + r)];
    if (4 * c2 + r < i + M) a += en.W[E::w(4 * c2 + r)];
  }
  return (en.Cd[E::c(c2)] - en.Cd[E::c(c1)]) + (double)a;
}

template <int H, bool REAL, bool CORR, bool WIDE, int TW = WIDE ? kTwFew : kTwTable, bool SPLIT = false>
__device__ __forceinline__ void osBody(const OsParams& p) {
  static_assert(!WIDE || H == 8192, "the wide kernel is the 8192-point one");
  static_assert(!SPLIT || (H == 8192 && !REAL && !WIDE), "the split kernel is the complex 8192-point one");
  constexpr int R = osRadix(H, WIDE), T = H / R, PL = osSegLen(H, SPLIT), L = REAL ? 2 * H : H;
  PH_DYN_SMEM(float2, smem);
  __shared__ double warpTot[32];
  const int C = blockDim.x / T;
  const int c = threadIdx.x / T, t = threadIdx.x % T;
  // SPLIT: the H-point FFT as two H/2-point ones, of the even and of the odd samples (half hh), each on T/2 threads
  // (jh < T/2), and one radix-2 step between them by warp shuffles: lanes 0–15 of a warp hold half 0, lanes 16–31 the
  // same jh of half 1. Thread (jh, hh) holds samples 2·jh + hh + e·T, so its loads and stores are those of thread
  // j = 2·jh + hh of the plain layout (j + e·T), and each half-warp is 16 consecutive jh of one half, as in the H/2
  // kernel (the same bank-conflict-free exchanges)
  const int jh = SPLIT ? ((t >> 5) << 4) | (t & 15) : 0, hh = SPLIT ? (t >> 4) & 1 : 0;
  const int j = SPLIT ? 2 * jh + hh : t;
  const long long s = (long long)blockIdx.x * C + c;
  const int lane = p.lane0 + blockIdx.y * p.laneStep;
  const bool active = s < p.segments;
  float2* sm = smem + c * PL;
  const long long f0 = s * p.S;
  float2 v[R];
  // one real channel, or one complex channel from lane 0 (the common layouts): value pairs in one load each and
  // addresses from one base with compile-time offsets; other layouts index frame·V + lane value by value
  const bool plain = p.V == (REAL ? 1 : 2) && lane == 0 && (REAL || (reinterpret_cast<uintptr_t>(p.out) & 7) == 0);
  if (plain) {
    const long long lo = REAL ? f0 : 2 * f0;
    withPairs<false>(p.src, lo, lo + 2 * H, [&](auto get2, float) {
#pragma unroll
      for (int e = 0; e < R; e++) v[e] = active ? get2(j + e * T) : make_float2(0.f, 0.f);
    });
  } else withSource(p.src, f0 * p.V, (f0 + L) * p.V, [&](auto get) {
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int m = j + e * T;
      float2 z = make_float2(0.f, 0.f);
      if (active) {
        if (REAL) {
          z.x = get((f0 + 2 * m) * p.V + lane);
          z.y = get((f0 + 2 * m + 1) * p.V + lane);
        } else {
          const long long i = (f0 + m) * p.V + lane;
          z.x = get(i);
          z.y = get(i + 1);
        }
      }
      v[e] = z;
    }
  });
  double* P = nullptr;
  if constexpr (CORR && !SPLIT) {
    // prefix sums of |x|²: P[i] = Σ_{q<i} |x_q|², i ≤ L (C = 1 for correlation)
    P = reinterpret_cast<double*>(smem + PL);
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int m = j + e * T;
      if (REAL) {
        P[padDbl(2 * m + 1)] = (double)v[e].x * v[e].x;
        P[padDbl(2 * m + 2)] = (double)v[e].y * v[e].y;
      } else {
        P[padDbl(m + 1)] = (double)v[e].x * v[e].x + (double)v[e].y * v[e].y;
      }
    }
    if (j == 0) P[0] = 0.0;
    __syncthreads();
    blockScanDouble(P, 1, L, 0, T, warpTot);
  }
  if constexpr (SPLIT) {
    // forward: E (hh = 0) and O (hh = 1), the H/2-point FFTs of the even and odd samples; X[k] = E[k] + W_H^k·O[k],
    // X[k + H/2] = E[k] − W_H^k·O[k] (k = jh + e·T/2). Multiplied by the spectrum (S0, S1) and split again for the
    // inverse, E'[k] = (Y[k] + Y[k + H/2]) / H and O'[k] = (Y[k] − Y[k + H/2])·W_H^−k / H are
    //   E' = A·E + B·O, O' = C·E + A·O,  A = (S0 + S1)/H, B = (S0 − S1)·W^k/H, C = (S0 − S1)·W^−k/H,
    // so the radix-2 butterflies, their twiddles and the scale of the inverse all live in the coefficients
    // (Fir / Correlator: osSplitSpectrum); the inverse halves are conj ∘ FFT ∘ conj.
    constexpr int HH = H / 2;
    float2* const smh = sm + hh * paddedLen(HH);
    regFft<HH, TW != kTwFew, R, TW != kTwTable>(v, smh, jh, p.tab);
    // one 16-byte entry (A, B) or (A, C) an element: a 128 KiB table, which misses L1 (ncu: 6.8 % L1 hits against 25 %
    // at 4096 points); (A, D) a k, shared by the two halves, with B, C = D·W^±k computed (W^jh by sincospif times
    // W_32^e) ran 8 % slower (ptxas: 100 bytes of spills at 64 registers)
    const float4* const cf = reinterpret_cast<const float4*>(p.spec) + hh * HH + jh;
#pragma unroll
    for (int e = 0; e < R; e++) {
      const float2 o = make_float2(__shfl_xor_sync(0xffffffffu, v[e].x, 16), __shfl_xor_sync(0xffffffffu, v[e].y, 16));
      const float4 k = __ldg(cf + e * (T / 2));
      v[e] = conjf2(cadd(cmul(make_float2(k.x, k.y), v[e]), cmul(make_float2(k.z, k.w), o)));
    }
    regFft<HH, TW != kTwFew, R, TW != kTwTable>(v, smh, jh, p.tab);
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  } else {
    regFft<H, TW != kTwFew, R, TW != kTwTable>(v, sm, j, p.tab);
    // spec holds the bins times the inverse's 1/H and the real split's ½ (osUploadSpectrum): no multiply here
    // (1–3 % faster than scaling here for the shorter filters, the others within noise)
    if constexpr (REAL) {
      realSplit<H, R>(v, sm, j, p.wL, [&](int e, int k, float2 xk, float2 xh) {
        const float2 w = __ldg(p.wL + k);
        const float2 yk = cmul(xk, __ldg(p.spec + k));
        const float2 yc = conjf2(cmul(xh, __ldg(p.spec + (H - k))));
        const float2 E = cadd(yk, yc);
        const float2 O = cmulc(csub(yk, yc), w);
        v[e] = cadd(E, mulpi(O));
      });
      __syncthreads();  // the partner reads of realSplit are done before the FFT reuses sm
    } else {
#pragma unroll
      for (int e = 0; e < R; e++) v[e] = cmul(v[e], __ldg(p.spec + j + e * T));
    }
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
    regFft<H, TW != kTwFew, R, TW != kTwTable>(v, sm, j, p.tab);
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  }
  if (!active) return;
  if constexpr (CORR && SPLIT) {
    // the window energies after the transforms, in the exchange buffer, which then holds them (the prefix sums in double
    // beside it took 135 KiB, one block an SM): the segment read again (still in L2), the squares and their sums by
    // chunks of four (osChunkPrefix), two blocks an SM: 10 % faster. The same for the other kernels measured slower
    // (they were not held to one block), as did energies computed before the transforms and kept through them (less
    // L1 beside 100 KiB of shared memory a block; docs/cuda/NOTES.md)
    using En = OsEnergy<L / (4 * T)>;
    float num[R];
#pragma unroll
    for (int e = 0; e < R; e++) num[e] = sqrtf(norm2(v[e]));
    __syncthreads();  // every read of the inverse's last exchange is done
    En en;
    en.W = reinterpret_cast<float*>(smem);
    en.Cd = reinterpret_cast<double*>(en.W + L + 4 * T);
    osLoadComplex<H, R, T>(p, plain, f0, j, lane, [&](int e, float2 z) { en.W[En::w(j + e * T)] = z.x * z.x + z.y * z.y; });
    __syncthreads();
    osChunkPrefix<L, T>(en, warpTot);
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int i = j + e * T;
      const long long o = f0 + i;
      if (i < p.S && o < p.outCount) p.out[o] = corrScore(num[e], p.tnorm, osWindow(en, i, p.M));
    }
    return;
  }
  if constexpr (!CORR) {
    if (plain) {
      // output i of the segment (a value index: 2m + h real, m complex) is frame f0 + i − (M − 1), kept for
      // M − 1 ≤ i < lim
      const long long lim64 = p.outCount - f0 + (p.M - 1);
      const int lim = (int)(lim64 < L ? lim64 : L);
      if constexpr (REAL) {
        float* const o = p.out + (f0 + 2 * j - (p.M - 1));
#pragma unroll
        for (int e = 0; e < R; e++) {
          const int i = 2 * (j + e * T);
          if (i >= p.M - 1 && i < lim) o[2 * e * T] = v[e].x;
          if (i + 1 >= p.M - 1 && i + 1 < lim) o[2 * e * T + 1] = v[e].y;
        }
      } else {
        float2* const o = reinterpret_cast<float2*>(p.out) + (f0 + j - (p.M - 1));
#pragma unroll
        for (int e = 0; e < R; e++) {
          const int i = j + e * T;
          if (i >= p.M - 1 && i < lim) o[e * T] = v[e];
        }
      }
      return;
    }
  }
#pragma unroll
  for (int e = 0; e < R; e++) {
    const int m = j + e * T;
    if constexpr (!CORR) {
      if (REAL) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int i = 2 * m + h;
          if (i < p.M - 1) continue;
          const long long o = f0 + i - (p.M - 1);
          if (o < p.outCount) p.out[o * p.V + lane] = h ? v[e].y : v[e].x;
        }
      } else if (m >= p.M - 1) {
        const long long o = f0 + m - (p.M - 1);
        if (o < p.outCount) {
          p.out[o * p.V + lane] = v[e].x;
          p.out[o * p.V + lane + 1] = v[e].y;
        }
      }
    } else {
      if (REAL) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int i = 2 * m + h;
          const long long o = f0 + i;
          if (i < p.S && o < p.outCount)
            p.out[o] = corrScore(fabsf(h ? v[e].y : v[e].x), p.tnorm, P[padDbl(i + p.M)] - P[padDbl(i)]);
        }
      } else {
        const long long o = f0 + m;
        if (m < p.S && o < p.outCount)
          p.out[o] = corrScore(sqrtf(norm2(v[e])), p.tnorm, P[padDbl(m + p.M)] - P[padDbl(m)]);
      }
    }
  }
}

// the launch bounds of the narrow kernels without a minimum of blocks: ptxas then holds them to 62…88 registers
// (with a minimum of one it took 103…186, and the 4096-point FIR ran 27 % slower) — except the 8192-point
// correlation, one block an SM anyway (its prefix energies fill the shared memory): with no minimum, ptxas
// took 64 / 82 registers, without a minimum of one 125 / 128, and the correlations ran about 20 % slower
/** The narrow kernels' twiddles (kTw…), the fastest of table rows, sincospif and two table entries a pass as measured
 *  (docs/cuda/NOTES.md has the figures):
 *  - complex FIR: table rows below 512 points, two entries a pass at 1024 and 2048, sincospif at 512 and 4096;
 *  - real FIR: two entries a pass;
 *  - correlation: sincospif. */
__host__ __device__ constexpr int osTw(int H, bool REAL, bool CORR) {
  return CORR ? kTwFew : REAL ? kTwRows : H < 512 ? kTwTable : H == 1024 || H == 2048 ? kTwRows : kTwFew;
}

// TW: the other twiddles than osTw's exist to measure against (FftTuning::osTwiddles) and hold code for sm_90 only
template <int H, bool REAL, bool CORR, int TW = osTw(H, REAL, CORR)>
__global__ void __launch_bounds__(H >= 8192 ? 512 : 256, CORR && H >= 8192 ? 1 : 0) kOverlapSave(OsParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
  if constexpr (TW != osTw(H, REAL, CORR)) {
    return;
  } else
#endif
  {
    osBody<H, REAL, CORR, false, TW>(p);
  }
}
template <bool REAL, bool CORR>
__global__ void __launch_bounds__(256, 2) kOverlapSaveWide(OsParams p) {
  osBody<8192, REAL, CORR, true>(p);
}
/** The complex 8192-point segments as two 4096-point halves and a radix-2 step by shuffles (osBody SPLIT): 512 threads of
 *  16 elements and two exchanges a transform, where the narrow kernel makes three and the wide one needs 128 registers.
 *  Two blocks an SM (ptxas: 64 registers; the FIR without spills, the correlation with 4 bytes; without a minimum the FIR
 *  takes 82, one block, a form not measured). The correlation had one (125 registers) while its prefix energies in
 *  double took 135 KiB; its energies now reuse the exchange buffer (osBody). */
template <bool CORR>
__global__ void __launch_bounds__(512, 2) kOverlapSaveSplit(OsParams p) {
  osBody<8192, false, CORR, false, kTwFew, true>(p);
}
/** Dynamic shared memory of a fused kernel's block (C segments of T threads): the exchange buffers; for correlation
 *  (C = 1) the split kernel's energies reuse its buffer (OsEnergy), the other kernels' prefix sums in double sit beside. */
static inline size_t osSmemBytes(int H, bool real, bool corr, bool split, int C, int T) {
  const int L = real ? 2 * H : H;
  const size_t ex = (size_t)C * osSegLen(H, split) * sizeof(float2);
  if (!corr) return ex;
  return split ? std::max(ex, osEnergyBytes(L, T)) : ex + (size_t)paddedDoubles(L + 1) * sizeof(double) + 16;
}
template <int H, bool REAL, bool CORR, int TW>
static void launchOsTw(Gpu& gpu, OsParams& p, dim3 grid, dim3 block, size_t smem, cudaStream_t s) {
  gpu.allowSmem(kOverlapSave<H, REAL, CORR, TW>, smem);
  PH_LAUNCH(PH_K(kOverlapSave<H, REAL, CORR, TW>), grid, block, smem, s, p);
}
template <int H, bool REAL, bool CORR, bool WIDE = false>
static void launchOsT(Gpu& gpu, OsParams& p, int groups, cudaStream_t s) {
  constexpr int T = H / osRadix(H, WIDE);
  const int C = CORR ? 1 : osSegmentsPerBlock(H, T);
  const bool split = H == 8192 && !REAL && !WIDE && p.split;
  const size_t smem = osSmemBytes(H, REAL, CORR, split, C, T);
  const dim3 grid((unsigned)ceilDiv(p.segments, C), groups), block(C * T);
  if (split) {
    if constexpr (H == 8192 && !REAL && !WIDE) {
      gpu.allowSmem(kOverlapSaveSplit<CORR>, smem);
      PH_LAUNCH(PH_K(kOverlapSaveSplit<CORR>), grid, block, smem, s, p);
    }
  } else if constexpr (WIDE) {
    gpu.allowSmem(kOverlapSaveWide<REAL, CORR>, smem);
    PH_LAUNCH(PH_K(kOverlapSaveWide<REAL, CORR>), grid, block, smem, s, p);
  } else {
    const int tw = gpu.prop().major == 9 && gpu.prop().minor == 0 ? fftTuning().osTwiddles : 0;
    switch (tw) {
      case 1: launchOsTw<H, REAL, CORR, kTwTable>(gpu, p, grid, block, smem, s); break;
      case 2: launchOsTw<H, REAL, CORR, kTwFew>(gpu, p, grid, block, smem, s); break;
      case 3: launchOsTw<H, REAL, CORR, kTwRows>(gpu, p, grid, block, smem, s); break;
      default: launchOsTw<H, REAL, CORR, osTw(H, REAL, CORR)>(gpu, p, grid, block, smem, s); break;
    }
  }
  PH_CHECK_LAUNCH("overlap-save kernel");
}

template <bool REAL, bool CORR>
static void launchOs(Gpu& gpu, long long H, OsParams& p, int groups, cudaStream_t s) {
  switch (H) {
    case 128: if constexpr (!CORR) return launchOsT<128, REAL, CORR>(gpu, p, groups, s); break;
    case 256: if constexpr (!CORR) return launchOsT<256, REAL, CORR>(gpu, p, groups, s); break;
    case 512: return launchOsT<512, REAL, CORR>(gpu, p, groups, s);
    case 1024: return launchOsT<1024, REAL, CORR>(gpu, p, groups, s);
    case 2048: return launchOsT<2048, REAL, CORR>(gpu, p, groups, s);
    case 4096: return launchOsT<4096, REAL, CORR>(gpu, p, groups, s);
    case 8192:
      if (!REAL && p.split) return launchOsT<8192, REAL, CORR>(gpu, p, groups, s);
      if (fftTuning().osWide & (CORR ? 4 : REAL ? 2 : 1)) return launchOsT<8192, REAL, CORR, true>(gpu, p, groups, s);
      return launchOsT<8192, REAL, CORR>(gpu, p, groups, s);
    default: break;
  }
  throw ArgumentError("overlap-save size not compiled");
}

/** Whether complex H-point segments run the split kernel (FftTuning::osSplit: 1 FIR, 4 correlation). */
static inline bool osSplitUsed(long long H, bool real, bool corr) {
  return H == 8192 && !real && (fftTuning().osSplit & (corr ? 4 : 1));
}
static inline bool osFits(size_t smemOptin, long long H, bool corr, bool real) {
  // the split kernel's two halves take 8 bytes more than one padded buffer: counted for every complex 8192-point FIR
  const int T = (int)H / regRadix((int)H);
  const bool split = H == 8192 && !real && (!corr || osSplitUsed(H, real, true));
  return osSmemBytes((int)H, real, corr, split, corr ? 1 : osSegmentsPerBlock((int)H, T), T) + 2048 <= smemOptin;
}
/** The split kernel's coefficients (osBody SPLIT) from the H-point spectrum S = re + i·sign·im: for half h and k < H/2,
 *  (A, B) (h = 0) or (A, C) (h = 1) with A = (S_k + S_{k+H/2})/H, B = (S_k − S_{k+H/2})·W_H^k/H, C = its W_H^−k twin;
 *  computed in double, rounded once. */
static inline std::vector<float4> osSplitSpectrum(const std::vector<double>& re, const std::vector<double>& im, double sign) {
  const long long H = (long long)re.size(), HH = H / 2;
  std::vector<float4> out(H);
  for (long long k = 0; k < HH; k++) {
    const double s0r = re[k], s0i = sign * im[k], s1r = re[k + HH], s1i = sign * im[k + HH];
    const double ar = (s0r + s1r) / H, ai = (s0i + s1i) / H, dr = (s0r - s1r) / H, di = (s0i - s1i) / H;
    const double a = 6.283185307179586 * (double)k / (double)H, c = std::cos(a), sn = -std::sin(a);
    // B = d·(c + i·sn), C = d·(c − i·sn)
    out[k] = make_float4((float)ar, (float)ai, (float)(dr * c - di * sn), (float)(dr * sn + di * c));
    out[HH + k] = make_float4((float)ar, (float)ai, (float)(dr * c + di * sn), (float)(di * c - dr * sn));
  }
  return out;
}
/** Uploads a filter's spectrum S = re + i·sign·im (sign −1: the conjugate template of correlation; re.size() = L, the
 *  segment) for the kernels that use it: the split kernel's coefficients (osSplitSpectrum, the scale inside), the other
 *  fused kernels' bins 0…H (real) or all L (complex) times the inverse's 1/H and the real split's ½ (osBody applies no
 *  scale of its own), or the unfused path's plain bins (it scales after its inverse). */
static inline void osUploadSpectrum(DevBuf& spec, const std::vector<double>& re, const std::vector<double>& im,
                                    double sign, bool fused, bool real, bool split, long long H) {
  if (split) {
    const std::vector<float4> h = osSplitSpectrum(re, im, sign);
    spec.alloc(h.size() * sizeof(float4));
    uploadNow(spec.get(), h.data(), h.size() * sizeof(float4));
    return;
  }
  const long long keep = fused && real ? H + 1 : (long long)re.size();
  const double scale = fused ? (real ? 0.5 : 1.0) / (double)H : 1.0;
  std::vector<float2> h(keep);
  for (long long k = 0; k < keep; k++) h[k] = make_float2((float)(scale * re[k]), (float)(scale * sign * im[k]));
  spec.alloc(keep * sizeof(float2));
  uploadNow(spec.get(), h.data(), keep * sizeof(float2));
}
static inline bool osFits(Gpu& gpu, long long H, bool corr, bool real) { return osFits(gpu.smemOptin(), H, corr, real); }


// ---------------------------------------------------------------------------------------------------
// Unfused overlap-save (filters too long for one fused segment): gather → FFT → multiply → inverse → scatter.
// These kernels are not templates, so every file that includes this header compiles them: os_plan.cu, which
// needs only the sizing rules above, defines PH_OS_SIZING_ONLY to leave them out.
#ifndef PH_OS_SIZING_ONLY

struct SegParams {
  Source src;
  int V, lane0, laneStep, groups;
  int complexPairs;  // 1: lanes (l, l+1) as re/im; 0: one real lane as re, im = 0
  long long L, S, segments, outCount;
  int M;
};

static __global__ void kGather(SegParams p, float2* seg) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long total = p.segments * p.groups * p.L;
  if (i >= total) return;
  const long long row = i / p.L, k = i - row * p.L;
  const long long s = row / p.groups;
  const int g = (int)(row - s * p.groups);
  const int lane = p.lane0 + g * p.laneStep;
  const long long idx = (s * p.S + k) * p.V + lane;
  seg[i] = make_float2(p.src.at(idx), p.complexPairs ? p.src.at(idx + 1) : 0.f);
}

static __global__ void kMulSpec(float2* seg, const float2* spec, long long L, long long total, float scale) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) seg[i] = cscale(cmul(seg[i], spec[i % L]), scale);
}

/** The middle of the unfused path, shared by FIR and correlation: `rows` segments of L in seg transformed, multiplied
 *  by spec and transformed back, in place; by the outside FFT when one is given (the benchmark's cuFFT baselines:
 *  unscaled both ways, so the multiply takes the inverse's 1/L), else by the plan. `what` names the step in errors. */
static inline void osThroughSpectrum(Gpu& gpu, const FftHook& hook, FftPlan* plan, float2* seg, const float2* spec,
                                     long long L, long long rows, cudaStream_t s, const char* what) {
  void* sc = hook ? nullptr : gpu.scratch(0, plan->scratchBytes(rows));
  if (hook) hook(seg, L, rows, false, s);
  else plan->exec(seg, seg, rows, false, sc, s);
  PH_LAUNCH(kMulSpec, dim3((unsigned)ceilDiv(rows * L, 256)), dim3(256), 0, s, seg, spec, L, rows * L,
            hook ? 1.0f / (float)L : 1.0f);
  PH_CHECK_LAUNCH(what);
  if (hook) hook(seg, L, rows, true, s);
  else plan->exec(seg, seg, rows, true, sc, s);
}

static __global__ void kScatterFir(SegParams p, const float2* seg, float* out) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long total = p.segments * p.groups * p.S;
  if (i >= total) return;
  const long long row = i / p.S, k = i - row * p.S;
  const long long s = row / p.groups;
  const int g = (int)(row - s * p.groups);
  const int lane = p.lane0 + g * p.laneStep;
  const long long o = s * p.S + k;
  if (o >= p.outCount) return;
  const float2 y = seg[row * p.L + k + p.M - 1];
  out[o * p.V + lane] = y.x;
  if (p.complexPairs) out[o * p.V + lane + 1] = y.y;
}

#endif  // PH_OS_SIZING_ONLY

}  // namespace ph

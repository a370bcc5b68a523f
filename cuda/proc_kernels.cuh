// Device helpers shared by the fused processor kernels.
#pragma once
#include "fft_kernels.cuh"
#include "stream.cuh"

namespace ph {

/** Z[(H − k) mod H] for k = j + e·T, from a column whose Z[i] sits at sm[pad16(i)] (thread j's own Z[0] for
 *  k = 0). With T a multiple of 16 the address is one base and a compile-time offset: pad16(H − j − e·T) =
 *  pad16(H − j) − pad16(e·T), and k = 0 reads the in-bounds, unused pad16(H). */
template <int H, int R>
__device__ __forceinline__ float2 partnerZ(const float2 (&v)[R], const float2* sm, int j, int e) {
  constexpr int T = H / R;
  float2 z;
  if constexpr (T % 16 == 0) z = (sm + pad16(H - j))[-pad16(e * T)];
  else z = sm[pad16((H - j - e * T) & (H - 1))];
  if (e == 0 && j == 0) z = v[0];
  return z;
}

/** After a size-H FFT of z[m] = x[2m] + i·x[2m+1] (thread j holds Z[j + e·T] in v), gives the spectrum of
 *  the 2H reals x to f(e, k, X[k], X[H−k]) for each held k = j + e·T (for k = 0 the second is X[H], the
 *  Nyquist bin); f may overwrite v[e]. wL: W_{2H}^k for k < 2H (Gpu::table). Uses `sm` (the column's
 *  exchange buffer); every thread of the block must call it; sm is still being read when it returns. R: the
 *  elements a thread holds (32 for the wide 8192-point kernels). */
template <int H, int R = regRadix(H), class F>
__device__ __forceinline__ void realSplit(float2 (&v)[R], float2* sm, int j, const float2* __restrict__ wL, F&& f) {
  constexpr int T = H / R;
  __syncthreads();
  float2* const wr = sm + pad16(j);
#pragma unroll
  for (int e = 0; e < R; e++) wr[pad16(e * T)] = v[e];
  __syncthreads();
#pragma unroll
  for (int e = 0; e < R; e++) {
    const int k = j + e * T;
    const float2 zk = v[e];
    const float2 zc = conjf2(partnerZ<H, R>(v, sm, j, e));
    const float2 E = cscale(cadd(zk, zc), 0.5f);
    const float2 O = cscale(mulmi(csub(zk, zc)), 0.5f);
    const float2 wO = cmul(__ldg(wL + k), O);
    f(e, k, cadd(E, wO), conjf2(csub(E, wO)));
  }
}

/** Index of logical element i in a padded double array (one pad every 32: the chunked reads of the scan
 *  hit distinct banks). An array for n elements needs paddedDoubles(n) doubles. */
__host__ __device__ __forceinline__ int padDbl(int i) { return i + (i >> 5); }
__host__ __device__ constexpr int paddedDoubles(int n) { return n + (n >> 5) + 1; }

/** Inclusive scan in double of logical elements [o, o + n) of the padded array q, by the `count`
 *  consecutive threads starting at `first` (whole warps). Every thread of the block must call it (it
 *  synchronizes the block). */
__device__ __forceinline__ void blockScanDouble(double* q, int o, int n, int first, int count, double* warpTot) {
  const int t = threadIdx.x - first;
  const bool mine = t >= 0 && t < count;
  const int ch = n / count;
  double sum = 0;
  if (mine)
    for (int i = 0; i < ch; i++) sum += q[padDbl(o + t * ch + i)];
  double incl = sum;
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const double v = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += v;
  }
  const int w = threadIdx.x >> 5;
  if (lane == 31) warpTot[w] = incl;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int w0 = first >> 5, w1 = (first + count) >> 5;
    double run = 0;
    for (int i = w0; i < w1; i++) {
      run += warpTot[i];
      warpTot[i] = run;
    }
  }
  __syncthreads();
  if (mine) {
    double off = incl - sum + ((w > (first >> 5)) ? warpTot[w - 1] : 0.0);
    for (int i = 0; i < ch; i++) {
      const int k = padDbl(o + t * ch + i);
      off += q[k];
      q[k] = off;
    }
  }
  __syncthreads();
}

/** 10·log10(p) floored (NaN, zero and negatives give the floor: the hardware log2 returns −∞ for 0 and NaN
 *  below, and fmaxf takes the number over a NaN). The hardware log2 (2 ulp) keeps a level within 1e-4 dB at
 *  −300 dB, far inside float32's own rounding of the power. */
__device__ __forceinline__ float toDb(float p, float floorDb) { return fmaxf(3.01029995664f * __log2f(p), floorDb); }

}  // namespace ph

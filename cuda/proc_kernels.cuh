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

/** Calls body(get2, ps) with get2(m) = the values (2m, 2m + 1) of the Source from `lo` on, and ps the factor
 *  that the powers of a transform of those values take. When they lie in the block just pushed and the pair is
 *  aligned (the common case), get2 is one two-value typed load. A power-of-two scale (int16's 2^−15, int8's 2^−7)
 *  stays out of the values and goes into ps as scale²: the transform is linear and scaling by 2^k is exact, so the
 *  powers are the same numbers, with one multiply a value fewer (and no subtraction when the offset is 0). With
 *  POW2 false (linear results: FIR, correlation) the values are always scaled and ps is 1. */
template <bool POW2 = true, class B>
__device__ __forceinline__ void withPairs(const Source& s, long long lo, long long hi, B&& body) {
  if (lo >= s.histLen && hi <= s.histLen + s.freshLen) {
    const long long at = lo - s.histLen;
    const float off = s.offset, sc = s.scale;
    const size_t vb = s.dtype == 3 ? 2 : s.dtype == 0 ? 4 : 1;
    const char* q = static_cast<const char*>(s.fresh) + at * (long long)vb;
    if ((reinterpret_cast<uintptr_t>(q) & (2 * vb - 1)) == 0) {
      // normal powers of two with a normal square: exponent field 67…187, no mantissa bits
      const unsigned bits = __float_as_uint(sc), ex = (bits >> 23) & 0xff;
      const bool pow2 = POW2 && (bits & 0x807fffffu) == 0 && ex >= 67 && ex <= 187;
      const auto typed = [&](auto* p) {
        if (pow2 && off == 0.f)
          body([=](int m) { const auto v = p[m]; return make_float2((float)v.x, (float)v.y); }, sc * sc);
        else if (pow2)
          body([=](int m) { const auto v = p[m]; return make_float2((float)v.x - off, (float)v.y - off); }, sc * sc);
        else
          body([=](int m) { const auto v = p[m]; return make_float2(((float)v.x - off) * sc, ((float)v.y - off) * sc); },
               1.f);
      };
      switch (s.dtype) {
        case 1: typed(reinterpret_cast<const uchar2*>(q)); return;
        case 2: typed(reinterpret_cast<const char2*>(q)); return;
        case 3: typed(reinterpret_cast<const short2*>(q)); return;
        default: {
          const float2* p = reinterpret_cast<const float2*>(q);
          body([=](int m) { return p[m]; }, 1.f);
          return;
        }
      }
    }
  }
  body([&](int m) { return make_float2(s.at(lo + 2 * m), s.at(lo + 2 * m + 1)); }, 1.f);
}

/** Index of logical element i in a padded double array (one pad every 32: the chunked reads of the scan
 *  hit distinct banks). An array for n elements needs paddedDoubles(n) doubles. */
__host__ __device__ __forceinline__ int padDbl(int i) { return i + (i >> 5); }
__host__ __device__ constexpr int paddedDoubles(int n) { return n + (n >> 5) + 1; }

/** The inclusive sum of x over the lanes up to this one of a full warp (every lane calls it). */
__device__ __forceinline__ double warpScanDouble(double x) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const double v = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += v;
  }
  return x;
}

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
  const double incl = warpScanDouble(sum);
  const int lane = threadIdx.x & 31;
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

// Device code of the complex FFT: the register Stockham transform for power-of-two sizes (compile-time
// size), the shared-memory transform for mixed radix 2/3/4/5/7/8/16 (run-time size), and the "column"
// kernels that apply either to a batch of transforms laid out with arbitrary strides — which is what the
// one-pass batched FFT, each pass of the four-step FFT and each pass of the 2D FFT are.
//
// Stockham autosort pass (radix r, Ns = product of the radices before it), for each job jj < L/r:
//   read  v[m] = A[jj + m·L/r],  twiddle v[m] *= W_{Ns·r}^{(jj mod Ns)·m},  DFT_r,
//   write B[(jj div Ns)·Ns·r + (jj mod Ns) + m·Ns] = v[m].
// In the register version thread j owns elements j + e·T (T = L/R threads, R values each): that is both
// what every pass reads and what the last pass writes, so global loads and stores are coalesced and
// only the passes in between go through shared memory.
#pragma once
#include "dft.cuh"

namespace ph {

/** Entries of the shared power-of-two twiddle table W_TWMAX^t (covers every register FFT size). */
constexpr int kTwMax = 16384;
/** Largest one-pass register FFT. */
constexpr int kRegMax = 16384;

__host__ __device__ constexpr int regRadix(int L) { return L >= 16 ? 16 : L; }
__host__ __device__ constexpr int firstRadix(int L, int R) {
  int r = L;
  while (r > R) r /= R;
  return r;
}
/** Shared-memory index with one float2 of padding every 16, against bank conflicts of strided writes. */
__host__ __device__ __forceinline__ int pad16(int i) { return i + (i >> 4); }
/** A column's stride in shared memory: padded, and odd, so that a warp walking across columns (the
 *  transposed loads and stores) hits distinct banks. */
__host__ __device__ constexpr int paddedLen(int L) { return (L + (L >> 4)) | 1; }

/** Register-FFT twiddle tables (Gpu::regTable): for each pass after the first, in order, 16 rows (m =
 *  0…15) of Ns entries W_{16·Ns}^{k·m}, k < Ns. The threads of a warp hold consecutive k, so each load
 *  instruction reads one contiguous stretch (a layout by k then m made every thread of a warp touch its
 *  own cache line: 32 L1 wavefronts per load). The pass with Ns starts at entry 16·(Ns − r0)/15. */
__host__ __device__ constexpr int regRowOffset(int L, int Ns) {
  return 16 * (Ns - firstRadix(L, regRadix(L))) / 15;
}

template <int L, int R, int Ns, bool TABLE>
__device__ __forceinline__ void regPasses(float2 (&v)[R], float2* sm, int j, const float2* tab) {
  constexpr int T = L / R;
  constexpr int r = (Ns == 1) ? firstRadix(L, R) : R;
  constexpr int Q = R / r;
  constexpr bool last = (Ns * r == L);
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const int jj = j + q * T;
    const int k = jj & (Ns - 1);
    float2 u[r];
#pragma unroll
    for (int m = 0; m < r; m++) u[m] = v[q + m * Q];
    if constexpr (Ns > 1) {
      static_assert(Ns == 1 || r == 16, "twiddled register passes are radix 16");
      if constexpr (TABLE) {
        // plain loads, not __ldg: read-only loads may be hoisted above the barriers, and the rows of every
        // pass would then all sit in registers at once
        const float2* col = tab + regRowOffset(L, Ns) + k;
#pragma unroll
        for (int m = 1; m < 16; m++) u[m] = cmul(u[m], col[m * Ns]);
      } else {
        // W^m for m = 1…15 with W = W_{16·Ns}^k: five by sincospif (exact arguments: powers of two), the
        // rest as products of two of them (at most two roundings deep: ≈ 2 ulp, well inside the budget)
        if constexpr (L <= 256) {
          // one twiddled pass: fifteen sincospif cost little here (and the products below spill)
#pragma unroll
          for (int m = 1; m < 16; m++) {
            float sn, cs;
            sincospif(-2.0f * (float)(k * m) / (float)(Ns * r), &sn, &cs);
            u[m] = cmul(u[m], make_float2(cs, sn));
          }
        } else {
        float2 w[5];  // W^1, W^2, W^3, W^4, W^8
#pragma unroll
        for (int i = 0; i < 5; i++) {
          const int m = i < 4 ? i + 1 : 8;
          float sn, cs;
          sincospif(-2.0f * (float)(k * m) / (float)(Ns * r), &sn, &cs);
          w[i] = make_float2(cs, sn);
        }
        const float2 w12 = cmul(w[4], w[3]);
#pragma unroll
        for (int b = 0; b < 4; b++) u[1 + b] = cmul(u[1 + b], w[b]);
        u[8] = cmul(u[8], w[4]);
        u[12] = cmul(u[12], w12);
#pragma unroll
        for (int b = 1; b < 4; b++) {
          u[4 + b] = cmul(u[4 + b], cmul(w[3], w[b - 1]));
          u[8 + b] = cmul(u[8 + b], cmul(w[4], w[b - 1]));
          u[12 + b] = cmul(u[12 + b], cmul(w12, w[b - 1]));
        }
        }
      }
    }
    dft<r>(u);
    if constexpr (last) {
#pragma unroll
      for (int m = 0; m < r; m++) v[q + m * Q] = u[m];
    } else {
      const int dst = (jj - k) * r + k;
#pragma unroll
      for (int m = 0; m < r; m++) sm[pad16(dst + m * Ns)] = u[m];
    }
  }
  if constexpr (!last) {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = sm[pad16(j + e * T)];
    __syncthreads();
    regPasses<L, R, Ns * r, TABLE>(v, sm, j, tab);
  }
}

/** Forward FFT of size L held as v[e] = x[j + e·T] by the T threads of one column; same layout out.
 *  `sm` is this column's paddedLen(L) exchange buffer. Every thread of the block must call it. */
template <int L, bool TABLE = false>
__device__ __forceinline__ void regFft(float2 (&v)[regRadix(L)], float2* sm, int j, const float2* tab) {
  regPasses<L, regRadix(L), 1, TABLE>(v, sm, j, tab);
}

// ---------------------------------------------------------------------------------------------------
// Column layout: column c → (c0, c1, c2) with c0 = c mod C0, c1 = (c div C0) mod C1, c2 = c div (C0·C1);
// element l of column c lives at c0·s0 + c1·s1 + c2·s2 + l·ls (complex units).

struct Strides {
  long long s0, s1, s2, ls;
};

struct ColParams {
  const float2* in;
  float2* out;
  long long ncols;
  long long C0, C1;
  Strides si, so;
  int transIn, transOut;   // 1: columns adjacent in memory (s0 = 1): load/store through shared memory
  int conjIn, conjOut;     // inverse transform by conjugation
  float scale;             // applied at the store
  // twiddle applied after the transform: X[k] *= W_twN^{(c0·k) mod twN}, W = hi[x >> sh] · lo[x & mask]
  long long twN;           // 0: none
  int twPow2;              // twN is a power of two: sincospif with an exact argument, no table
  const float2* twHi;
  const float2* twLo;
  int twShift;
  const float2* tab;       // pass twiddle rows (Gpu::regTable / Gpu::mixedTable)
};

__device__ __forceinline__ long long colBase(long long col, long long C0, long long C1, const Strides& s) {
  long long c0 = col % C0, t = col / C0;
  long long c1 = t % C1, c2 = t / C1;
  return c0 * s.s0 + c1 * s.s1 + c2 * s.s2;
}

__device__ __forceinline__ float2 twoLevel(long long x, const float2* __restrict__ hi, const float2* __restrict__ lo, int sh) {
  return cmul(__ldg(hi + (x >> sh)), __ldg(lo + (x & ((1LL << sh) - 1))));
}

constexpr int kMaxTransCols = 64;

/** Batched FFT of size L (power of two) along columns; C = blockDim.x / T columns per block. */
template <int L, bool TABLE>
__device__ __forceinline__ void fftColsRegBody(const ColParams& p) {
  constexpr int R = regRadix(L), T = L / R, PL = paddedLen(L);
  PH_DYN_SMEM(float2, smem);
  __shared__ long long bases[2][kMaxTransCols];
  const int C = blockDim.x / T;  // a power of two
  const int logC = 31 - __clz(C);
  const int tid = threadIdx.x;
  const int c = tid / T, j = tid % T;
  const long long col0 = (long long)blockIdx.x * C;
  const long long col = col0 + c;
  const bool active = col < p.ncols;
  float2* sm = smem + c * PL;
  float2 v[R];

  if (p.transIn || p.transOut) {
    if (tid < C && tid < kMaxTransCols) {
      long long cl = col0 + tid;
      bases[0][tid] = colBase(cl, p.C0, p.C1, p.si);
      bases[1][tid] = colBase(cl, p.C0, p.C1, p.so);
    }
    __syncthreads();
  }
  if (p.transIn) {
    for (int idx = tid; idx < C * L; idx += blockDim.x) {
      const int cc = idx & (C - 1), l = idx >> logC;
      if (col0 + cc < p.ncols) smem[cc * PL + pad16(l)] = p.in[bases[0][cc] + l * p.si.ls];
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = sm[pad16(j + e * T)];
    __syncthreads();
  } else {
    // contiguous columns (si.ls == 1, launchColumns checks): constant offsets, no arithmetic per element
    const float2* src = p.in + (active ? colBase(col, p.C0, p.C1, p.si) : 0) + j;
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = active ? src[e * T] : make_float2(0.f, 0.f);
  }
  if (p.conjIn) {
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  }

  regFft<L, TABLE>(v, sm, j, p.tab);

  if (p.twN) {
    const long long c0 = col % p.C0;
    long long x = (c0 * j) % p.twN;
    const long long step = (c0 * T) % p.twN;
#pragma unroll
    for (int e = 0; e < R; e++) {
      float2 w;
      if (p.twPow2) {
        sincospif(-2.0f * (float)x / (float)p.twN, &w.y, &w.x);
      } else {
        w = twoLevel(x, p.twHi, p.twLo, p.twShift);
      }
      v[e] = cmul(v[e], w);
      x += step;
      if (x >= p.twN) x -= p.twN;
    }
  }
  const float sy = p.conjOut ? -p.scale : p.scale;
#pragma unroll
  for (int e = 0; e < R; e++) v[e] = make_float2(v[e].x * p.scale, v[e].y * sy);

  if (p.transOut) {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) sm[pad16(j + e * T)] = v[e];
    __syncthreads();
    for (int idx = tid; idx < C * L; idx += blockDim.x) {
      const int cc = idx & (C - 1), l = idx >> logC;
      if (col0 + cc < p.ncols) p.out[bases[1][cc] + l * p.so.ls] = smem[cc * PL + pad16(l)];
    }
  } else if (active) {
    float2* dst = p.out + colBase(col, p.C0, p.C1, p.so) + j;  // so.ls == 1
#pragma unroll
    for (int e = 0; e < R; e++) dst[e * T] = v[e];
  }
}

// Twiddles are computed (sincospif, exact arguments) by default: measured faster than table rows on an
// H200 at the same accuracy (docs/cuda/NOTES.md). The table variant exists to measure it again; only
// sm_90 code holds it, which keeps the build short (fft.cu launches it nowhere else).
template <int L, bool TABLE>
__global__ void __launch_bounds__(L / regRadix(L) > 512 ? 1024 : 512, L / regRadix(L) > 512 ? 1 : 2)
    fftColsReg(ColParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
  if constexpr (TABLE) {
    return;
  } else
#endif
  {
    fftColsRegBody<L, TABLE>(p);
  }
}

// ---------------------------------------------------------------------------------------------------
// Mixed radix, run-time size: the whole column in shared memory (two buffers), jobs spread over the
// threads. Divisions by run-time sizes go through multiply-high (FastDiv); twiddles come in rows like the
// register FFT's (pass i: rows k < Ns of r entries W_{Ns·r}^{k·m}, from row offset tw[i]).

/** x / d for 32-bit x by a multiply-high and a shift (d ≥ 1 fixed on the host). */
struct FastDiv {
  unsigned d, mul, shift;
};
inline FastDiv makeFastDiv(unsigned d) {
  FastDiv f{d, 0, 0};
  unsigned l = 0;
  while ((1ull << l) < d) l++;
  f.shift = l;
  f.mul = (unsigned)((((1ull << l) - d) << 32) / d + 1);
  return f;
}
__host__ __device__ __forceinline__ unsigned fdiv(unsigned x, const FastDiv& f) {
#ifdef __CUDA_ARCH__
  const unsigned hi = __umulhi(x, f.mul);
#else
  const unsigned hi = (unsigned)(((unsigned long long)x * f.mul) >> 32);
#endif
  return (unsigned)(((unsigned long long)hi + x) >> f.shift);
}

constexpr int kMaxPasses = 24;
struct MixedRadix {
  int L;
  int n;
  int r[kMaxPasses];
  int Ns[kMaxPasses];
  int tw[kMaxPasses];  // first twiddle entry of each pass
  FastDiv divLr[kMaxPasses], divNs[kMaxPasses];
};

template <int r>
__device__ __forceinline__ void mixedJob(const float2* A, float2* B, unsigned jj, const MixedRadix& mr, int i,
                                         const float2* __restrict__ tab) {
  const int Lr = mr.L / r;
  const int Ns = mr.Ns[i];
  const unsigned q = fdiv(jj, mr.divNs[i]);
  const int k = (int)(jj - q * (unsigned)Ns);
  float2 u[r];
#pragma unroll
  for (int m = 0; m < r; m++) u[m] = A[jj + m * Lr];
  if (Ns > 1) {
    const float2* row = tab + mr.tw[i] + k * r;
#pragma unroll
    for (int m = 1; m < r; m++) u[m] = cmul(u[m], __ldg(row + m));
  }
  dft<r>(u);
  const int dst = (int)q * Ns * r + k;
#pragma unroll
  for (int m = 0; m < r; m++) B[dst + m * Ns] = u[m];
}

/** Runs every pass on C columns held in shared memory (each L long, Ls apart, at A and B); returns the buffer
 *  holding the result. Every thread of the block must call it. */
__device__ __forceinline__ float2* mixedFft(float2* A, float2* B, int C, int Ls, const MixedRadix& mr,
                                           const float2* __restrict__ tab) {
  const int L = mr.L;
  for (int i = 0; i < mr.n; i++) {
    const int r = mr.r[i];
    const unsigned Lr = (unsigned)(L / r);
    const unsigned jobs = (unsigned)C * Lr;
    for (unsigned idx = threadIdx.x; idx < jobs; idx += blockDim.x) {
      const unsigned cc = fdiv(idx, mr.divLr[i]);
      const unsigned jj = idx - cc * Lr;
      const float2* a = A + cc * Ls;
      float2* b = B + cc * Ls;
      switch (r) {
        case 2: mixedJob<2>(a, b, jj, mr, i, tab); break;
        case 3: mixedJob<3>(a, b, jj, mr, i, tab); break;
        case 4: mixedJob<4>(a, b, jj, mr, i, tab); break;
        case 5: mixedJob<5>(a, b, jj, mr, i, tab); break;
        case 7: mixedJob<7>(a, b, jj, mr, i, tab); break;
        case 8: mixedJob<8>(a, b, jj, mr, i, tab); break;
        default: mixedJob<16>(a, b, jj, mr, i, tab); break;
      }
    }
    __syncthreads();
    float2* t = A;
    A = B;
    B = t;
  }
  return A;
}

/** x mod n for x < 2^52 without a 64-bit division. */
__device__ __forceinline__ long long modPos(long long x, long long n, double inv) {
  long long q = (long long)((double)x * inv);
  long long r = x - q * n;
  if (r < 0) r += n;
  if (r >= n) r -= n;
  return r;
}

#ifdef PH_MIXED_KERNEL  // defined by fft.cu only: other files include this header for the register FFT
/** Batched FFT of run-time size L along columns; C columns per block (a power of two). */
static __global__ void __launch_bounds__(512, 2) fftColsMixed(ColParams p, MixedRadix mr, int C, int logC) {
  PH_DYN_SMEM(float2, smem);
  __shared__ long long bases[2][kMaxTransCols];
  __shared__ long long c0s[kMaxTransCols];
  const int L = mr.L;
  const int Ls = L | 1;  // odd column stride: walking across columns hits distinct banks
  float2* A = smem;
  float2* B = smem + C * Ls;
  const int tid = threadIdx.x;
  const long long col0 = (long long)blockIdx.x * C;
  if (tid < C) {
    bases[0][tid] = colBase(col0 + tid, p.C0, p.C1, p.si);
    bases[1][tid] = colBase(col0 + tid, p.C0, p.C1, p.so);
    c0s[tid] = (col0 + tid) % p.C0;
  }
  __syncthreads();
  const int total = C * L;
  if (p.transIn) {
    for (int idx = tid; idx < total; idx += blockDim.x) {
      const int cc = idx & (C - 1), l = idx >> logC;
      float2 x = make_float2(0.f, 0.f);
      if (col0 + cc < p.ncols) x = p.in[bases[0][cc] + l * p.si.ls];
      if (p.conjIn) x.y = -x.y;
      A[cc * Ls + l] = x;
    }
  } else {
    for (int cc = 0; cc < C; cc++) {
      const bool ok = col0 + cc < p.ncols;
      const float2* src = p.in + bases[0][cc];
      for (int l = tid; l < L; l += blockDim.x) {
        float2 x = ok ? src[l * p.si.ls] : make_float2(0.f, 0.f);
        if (p.conjIn) x.y = -x.y;
        A[cc * Ls + l] = x;
      }
    }
  }
  __syncthreads();
  float2* res = mixedFft(A, B, C, Ls, mr, p.tab);
  const float sy = p.conjOut ? -p.scale : p.scale;
  const double inv = p.twN ? 1.0 / (double)p.twN : 0.0;
  auto put = [&](int cc, int l) {
    const long long col = col0 + cc;
    if (col >= p.ncols) return;
    float2 x = res[cc * Ls + l];
    if (p.twN) x = cmul(x, twoLevel(modPos(c0s[cc] * l, p.twN, inv), p.twHi, p.twLo, p.twShift));
    p.out[bases[1][cc] + l * p.so.ls] = make_float2(x.x * p.scale, x.y * sy);
  };
  if (p.transOut) {
    for (int idx = tid; idx < total; idx += blockDim.x) put(idx & (C - 1), idx >> logC);
  } else {
    for (int cc = 0; cc < C; cc++)
      for (int l = tid; l < L; l += blockDim.x) put(cc, l);
  }
}

#endif  // PH_MIXED_KERNEL

}  // namespace ph

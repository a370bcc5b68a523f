// Device code of the complex FFT: the register Stockham transform for power-of-two sizes (compile-time
// size), the register transform for smooth sizes (compile-time elements per thread, run-time radices), the
// shared-memory transform for mixed radix 2/3/4/5/7/8/16 (run-time size, every other smooth size), and the
// "column" kernels that apply either to a batch of transforms laid out with arbitrary strides — which is what the
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
/** The first pass's radix when each thread holds R elements: the passes after it are radix 16. */
__host__ __device__ constexpr int firstRadix(int L, int R) {
  int r = L;
  while (r > R) r /= 16;
  return r;
}
/** Shared-memory index with one float2 of padding every 16, against bank conflicts of strided writes.
 *  pad16(a + b) = pad16(a) + pad16(b) whenever a mod 16 + b mod 16 < 16 (no carry out of the low four bits):
 *  the exchanges take a base pointer at pad16(a) once and compile-time offsets pad16(b) from it — written
 *  per element, ptxas recomputed the shift, the add and the scaling of every address (SASS, sm_90). */
__host__ __device__ __forceinline__ int pad16(int i) { return i + (i >> 4); }
/** A column's stride in shared memory: padded, and odd, so that a warp walking across columns (the
 *  transposed loads and stores) hits distinct banks. */
__host__ __device__ constexpr int paddedLen(int L) { return (L + (L >> 4)) | 1; }
/** The swizzled column layout of the column kernels (L ≥ 16): column c starts at c·swzLen(L) + brev4(c mod 16),
 *  swzLen a multiple of 16 with room for the padded column and that offset. Bank-conflict free for every
 *  pattern the kernels have, which the odd stride is not when a half-warp (16 float2 accesses, one
 *  wavefront) spans several columns: 16/T columns of T consecutive entries in the exchanges (T < 16
 *  threads per column), C columns of 16/C rows in the transposes (C < 16 columns per block). The
 *  bit-reversed offsets of such a group are distinct multiples of T (or 16/C) modulo 16, so its windows
 *  tile the 16 float2 bank pairs; 16 columns of one row get 16 distinct offsets. Not at L = 64: there the
 *  first pass's radix-4 writes (stride 4 within a column, 4 columns a half-warp) would all meet in 4 banks;
 *  no offsets serve both them and the reads (a search over all of them), and the odd stride costs less. */
__host__ __device__ constexpr bool swizzled(int L) { return L >= 16 && L != 64; }
__host__ __device__ constexpr int swzLen(int L) { return swizzled(L) ? (L + (L - 1) / 16 + 30) & ~15 : paddedLen(L); }
/** Bytes of shared memory per column of the column kernels. */
__host__ __device__ constexpr int colLen(int L, bool swz) { return swz ? swzLen(L) : paddedLen(L); }
template <int L>
__device__ __forceinline__ int colOff(int c, bool swz) {
  if (!swizzled(L) || !swz) return c * paddedLen(L);
  return c * swzLen(L) + (int)(__brev((unsigned)c) >> 28);
}

/** Register-FFT twiddle tables (Gpu::regTable): for each pass after the first, in order, 16 rows (m =
 *  0…15) of Ns entries W_{16·Ns}^{k·m}, k < Ns. The threads of a warp hold consecutive k, so each load
 *  instruction reads one contiguous stretch (a layout by k then m made every thread of a warp touch its
 *  own cache line: 32 L1 wavefronts per load). The pass with Ns starts at entry 16·(Ns − r0)/15. */
__host__ __device__ constexpr int regRowOffset(int L, int Ns) {
  return 16 * (Ns - firstRadix(L, regRadix(L))) / 15;
}

template <int L, int R, int Ns, bool TABLE, bool FEW = false>
__device__ __forceinline__ void regPasses(float2 (&v)[R], float2* sm, int j, const float2* tab) {
  constexpr int T = L / R;
  constexpr int r = (Ns == 1) ? firstRadix(L, R) : 16;
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
      static_assert(!TABLE || R == regRadix(L), "table rows are laid out for regRadix(L) elements per thread");
      // TABLE && FEW: the few base powers below from the table rows instead of sincospif, the rest as products
      const float2* col = TABLE ? tab + regRowOffset(L, Ns) + k : nullptr;
      const auto base = [&](int m) {
        if constexpr (TABLE) return col[m * Ns];
        float sn, cs;
        sincospif(-2.0f * (float)(k * m) / (float)(Ns * r), &sn, &cs);
        return make_float2(cs, sn);
      };
      if constexpr (TABLE && !FEW) {
        // plain loads, not __ldg: read-only loads may be hoisted above the barriers, and the rows of every
        // pass would then all sit in registers at once
#pragma unroll
        for (int m = 1; m < 16; m++) u[m] = cmul(u[m], col[m * Ns]);
      } else {
        // W^m for m = 1…15 with W = W_{16·Ns}^k: five by sincospif (exact arguments: powers of two), the
        // rest as products of two of them (at most two roundings deep: ≈ 2 ulp, well inside the budget)
        if constexpr (L <= 256) {
          // one twiddled pass: W^m = W^{4a} · W^b (m = 4a + b) from six sincospif (m = 1, 2, 3, 4, 8, 12),
          // one product deep; fifteen sincospif made the twiddled four-step passes issue-bound (ncu),
          // and the two-deep scheme below spills here
          float2 w[6];  // W^1, W^2, W^3, W^4, W^8, W^12
#pragma unroll
          for (int i = 0; i < 6; i++) w[i] = base(i < 3 ? i + 1 : 4 * (i - 2));
#pragma unroll
          for (int m = 1; m < 16; m++) {
            const int a = m >> 2, b = m & 3;
            if (a == 0) u[m] = cmul(u[m], w[b - 1]);
            else if (b == 0) u[m] = cmul(u[m], w[2 + a]);
            else u[m] = cmul(u[m], cmul(w[2 + a], w[b - 1]));
          }
        } else {
        float2 w[5];  // W^1, W^2, W^3, W^4, W^8
#pragma unroll
        for (int i = 0; i < 5; i++) {
          const int m = i < 4 ? i + 1 : 8;
          // FEW: W^2, W^3 and W^8 as products (two sincospif, one to two roundings deeper)
          if (FEW && (m == 2 || m == 3 || m == 8)) continue;
          w[i] = base(m);
        }
        if constexpr (FEW) {
          w[1] = cmul(w[0], w[0]);
          w[2] = cmul(w[1], w[0]);
          w[4] = cmul(w[3], w[3]);
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
      // dst mod 16 + (m·Ns) mod 16 < 16: Ns ≥ 16 makes the second 0; below, dst mod 16 = k < Ns (r = 16) or a
      // multiple of r with m < r (the first pass), and m·Ns mod 16 a multiple of Ns
      float2* w = sm + pad16((jj - k) * r + k);
#pragma unroll
      for (int m = 0; m < r; m++) w[pad16(m * Ns)] = u[m];
    }
  }
  if constexpr (!last) {
    __syncthreads();
    // j mod 16 + (e·T) mod 16 < 16: j < T when T < 16
    const float2* rd = sm + pad16(j);
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = rd[pad16(e * T)];
    __syncthreads();
    regPasses<L, R, Ns * r, TABLE, FEW>(v, sm, j, tab);
  }
}

/** Forward FFT of size L held as v[e] = x[j + e·T] by the T = L/R threads of one column; same layout
 *  out. `sm` is this column's paddedLen(L) exchange buffer. Every thread of the block must call it.
 *  R = 32 (8192 only: a radix-32 first pass, then two radix-16 passes) saves one exchange. */
template <int L, bool TABLE = false, int R = regRadix(L), bool FEW = false>
__device__ __forceinline__ void regFft(float2 (&v)[R], float2* sm, int j, const float2* tab) {
  regPasses<L, R, 1, TABLE, FEW>(v, sm, j, tab);
}

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
  int flat;                // 1: column c is in[c·L … c·L + L) and out likewise (a plain batch): loads and
                           // stores of small L go through shared memory, whole block-wide stretches
  int conjIn, conjOut;     // inverse transform by conjugation
  int swz;                 // 1: the swizzled shared-memory layout (colOff), 0: odd column stride
  float scale;             // applied at the store
  // twiddle applied after the transform: X[k] *= W_twN^{(c0·k) mod twN}, W = hi[x >> sh] · lo[x & mask]
  long long twN;           // 0: none
  int twPow2;              // twN is a power of two: sincospif with an exact argument, no table
  const float2* twHi;
  const float2* twLo;
  int twShift;
  const float2* tab;       // pass twiddle rows (Gpu::regTable / Gpu::mixedTable)
  int plain;               // 1: a plain batch, column c at c·L in and out (no strides to resolve)
  int fastBase;            // 1: columns < 2^31, column bases by 32-bit multiply-high divisions (dC0, dC1)
  FastDiv dC0, dC1;        // by C0, C1
};

__device__ __forceinline__ long long colBase(long long col, long long C0, long long C1, const Strides& s) {
  long long c0 = col % C0, t = col / C0;
  long long c1 = t % C1, c2 = t / C1;
  return c0 * s.s0 + c1 * s.s1 + c2 * s.s2;
}

/** colBase for a pass: by FastDiv where the pass allows it (p.fastBase), else by 64-bit divisions, which the
 *  compiler expands into tens of instructions each (four a base). */
__device__ __forceinline__ long long colBase(const ColParams& p, long long col, const Strides& s) {
  if (p.fastBase) {
    const unsigned c = (unsigned)col;
    const unsigned t = fdiv(c, p.dC0), c0 = c - t * (unsigned)p.C0;
    const unsigned c2 = fdiv(t, p.dC1), c1 = t - c2 * (unsigned)p.C1;
    return (long long)c0 * s.s0 + (long long)c1 * s.s1 + (long long)c2 * s.s2;
  }
  return colBase(col, p.C0, p.C1, s);
}

__device__ __forceinline__ float2 twoLevel(long long x, const float2* __restrict__ hi, const float2* __restrict__ lo, int sh) {
  return cmul(__ldg(hi + (x >> sh)), __ldg(lo + (x & ((1LL << sh) - 1))));
}

constexpr int kMaxTransCols = 64;
/** Registers of the kernel for passes with a transposed side, L ≤ 256 (at 64 it spilled 36 bytes): 72 measured
 *  faster; at L ≥ 512 (512-thread blocks: one block per SM) it lost 20 %, so those keep 64. */
constexpr int kTransMaxRegs = 72;

/** The shape of the register power-of-two FFT for fftColsBody: size L, R elements a thread, T = L/R threads a
 *  column, all compile-time. */
template <int L, bool TABLE, int R, bool FEW = false>
struct RegShape {
  static constexpr int E = R;
  /** A plain batch loads through shared memory (T < 4): measured, L ≤ 32 gains 2–4×, L = 64 loses 8 %. */
  static constexpr bool kFlatSmall = L / R < 4;
  static constexpr bool kPlainFast = false;
  __device__ static constexpr int threads() { return L / R; }
  __device__ static constexpr int len() { return L; }
  __device__ static void split(int tid, int& c, int& j) {
    c = tid / (L / R);
    j = tid % (L / R);
  }
  __device__ static int colOff(int c, bool swz) { return ph::colOff<L>(c, swz); }
  __device__ static void transform(float2 (&v)[R], float2* sm, int j, const float2* tab) { regFft<L, TABLE, R, FEW>(v, sm, j, tab); }
};

/** Where contiguous column `col` starts: c·L for a plain batch where the shape asks for it (S::kPlainFast: the
 *  mixed-radix kernel, issue-bound, whose threads hold fewer elements to spread colBase's divisions over), else
 *  colBase. Measured on an H200 against colBase by FastDiv (twice, same machine): 1000 0.652 / 0.686 ms, 3000
 *  0.866 / 0.897, 1536 0.648 / 0.675, 375 0.750 / 0.776: 3–5 % at every mixed size. */
template <class S>
__device__ __forceinline__ long long colStart(const S& sh, const ColParams& p, long long col, const Strides& st) {
  if constexpr (S::kPlainFast) {
    if (p.plain) return col * sh.len();
  }
  return colBase(p, col, st);
}

/** col mod C0: the column's index along its transform's axis; FAST: by FastDiv where the pass allows it. */
template <bool FAST>
__device__ __forceinline__ long long colIndex0(const ColParams& p, long long col) {
  if constexpr (FAST) {
    if (p.fastBase) return (long long)((unsigned)col - fdiv((unsigned)col, p.dC0) * (unsigned)p.C0);
  }
  return col % p.C0;
}

/** The pass twiddles of a transposed pass, after its transform: X[j + e·T] *= W_twN^{c0·(j + e·T)}, c0 the column's
 *  index along its transform's axis (colIndex0). */
template <int R, bool FAST_C0, bool FEW = false>
__device__ __forceinline__ void passTwiddles(float2 (&v)[R], const ColParams& p, long long col, int j, int T) {
  if (p.twN && p.twPow2) {
    // W_twN^{c0·(j + e·T)} with twN a power of two: 32-bit indices (they wrap modulo 2^32, a multiple of
    // twN) and an exact scale instead of a division. For R ≥ 4, sincospif at e = 0, 4, 8, … and for the
    // steps 1…3; the other e as one product of two of them (one rounding more, ≈ 1 ulp): R/4 + 3
    // sincospif per thread instead of R, which made the twiddled passes issue-bound (ncu).
    const unsigned c0 = (unsigned)colIndex0<FAST_C0>(p, col), mask = (unsigned)p.twN - 1u;
    const float sc = -2.0f / (float)p.twN;
    const unsigned x0 = c0 * (unsigned)j, st = c0 * (unsigned)T;
    auto W = [&](unsigned x) {
      float sn, cs;
      sincospif((float)(x & mask) * sc, &sn, &cs);
      return make_float2(cs, sn);
    };
    if constexpr (R >= 4 && R % 4 == 0) {
      auto apply = [&](const float2 b1, const float2 b2, const float2 b3) {
#pragma unroll
        for (int q = 0; q < R / 4; q++) {
          const float2 a = W(x0 + 4u * (unsigned)q * st);
          v[4 * q] = cmul(v[4 * q], a);
          v[4 * q + 1] = cmul(v[4 * q + 1], cmul(a, b1));
          v[4 * q + 2] = cmul(v[4 * q + 2], cmul(a, b2));
          v[4 * q + 3] = cmul(v[4 * q + 3], cmul(a, b3));
        }
      };
      if constexpr (FEW) {
        // the steps 2 and 3 as products of step 1: R/4 + 1 sincospif, one rounding deeper
        const float2 b1 = W(st), b2 = cmul(b1, b1);
        apply(b1, b2, cmul(b2, b1));
      } else {
        apply(W(st), W(2u * st), W(3u * st));
      }
    } else {
#pragma unroll
      for (int e = 0; e < R; e++) v[e] = cmul(v[e], W(x0 + (unsigned)e * st));
    }
  } else if (p.twN) {
    const long long c0 = colIndex0<FAST_C0>(p, col);
    long long x = (c0 * j) % p.twN;
    const long long step = (c0 * T) % p.twN;
#pragma unroll
    for (int e = 0; e < R; e++) {
      v[e] = cmul(v[e], twoLevel(x, p.twHi, p.twLo, p.twShift));
      x += step;
      if (x >= p.twN) x -= p.twN;
    }
  }
}

/** Batched FFT along columns, of the shape S (RegShape, MixShape): each column's T = sh.threads() threads hold
 *  S::E elements each, element j + e·T in thread j; C = blockDim.x / T columns per block. */
template <class S, bool TRANS>
__device__ __forceinline__ void fftColsBody(const ColParams& p, const S& sh) {
  constexpr int R = S::E;
  const int T = sh.threads();
  constexpr bool kFlat = !TRANS && S::kFlatSmall;
  PH_DYN_SMEM(float2, smem);
  __shared__ long long bases[2][kMaxTransCols];
  const int C = blockDim.x / T;  // a power of two
  const int logC = 31 - __clz(C);
  const int tid = threadIdx.x;
  int c, j;
  sh.split(tid, c, j);
  const long long col0 = (long long)blockIdx.x * C;
  const long long col = col0 + c;
  const bool active = col < p.ncols;
  const bool swz = p.swz != 0;
  float2* sm = smem + sh.colOff(c, swz);
  float2 v[R];
  // a plain batch's element i of the block's stretch, in its column's padded buffer
  auto flatAt = [&](int i) -> float2& { return smem[sh.colOff(i / sh.len(), swz) + pad16(i % sh.len())]; };

  if (TRANS && (p.transIn || p.transOut)) {
    if (tid < C && tid < kMaxTransCols) {
      long long cl = col0 + tid;
      bases[0][tid] = colBase(p, cl, p.si);
      bases[1][tid] = colBase(p, cl, p.so);
    }
    __syncthreads();
  }
  // The transposed sides: C·L = R·blockDim, so each thread moves R elements, all of one column (tc) at rows
  // tl + e·T. All R loads are issued before the first store to shared memory (a loop with a run-time
  // bound kept one load per warp in flight, and the strided passes ran at half the copy bandwidth).
  if (TRANS && p.transIn) {
    {
      const int tc = tid & (C - 1), tl = tid >> logC;
      const bool tActive = col0 + tc < p.ncols;
      // staged in v, the registers the transform uses next
      const float2* src = p.in + (tActive ? bases[0][tc] + tl * p.si.ls : 0);
      const long long step = (long long)T * p.si.ls;
#pragma unroll
      for (int e = 0; e < R; e++) v[e] = tActive ? src[e * step] : make_float2(0.f, 0.f);
      float2* tsm = smem + sh.colOff(tc, swz);
#pragma unroll
      for (int e = 0; e < R; e++) tsm[pad16(tl + e * T)] = v[e];
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = sm[pad16(j + e * T)];
    __syncthreads();
  } else if (kFlat && p.flat) {
    // the block's C columns are one stretch of C·L = R·blockDim elements: read it coalesced, then each
    // thread takes its column's elements from shared memory (with T < 4 threads per column, direct loads
    // touch 8·T-byte pieces of 32/T columns per warp instruction)
    const long long base = col0 * sh.len(), end = p.ncols * sh.len();
#pragma unroll
    for (int e = 0; e < R; e++) {
      const long long i = base + tid + e * (long long)blockDim.x;
      v[e] = i < end ? p.in[i] : make_float2(0.f, 0.f);
    }
#pragma unroll
    for (int e = 0; e < R; e++) {
      flatAt(tid + e * blockDim.x) = v[e];
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = sm[pad16(j + e * T)];
    __syncthreads();
  } else {
    // contiguous columns (si.ls == 1, launchColumns checks): constant offsets, no arithmetic per element
    const float2* src = p.in + (active ? colStart(sh, p, col, p.si) : 0) + j;
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = active ? src[e * T] : make_float2(0.f, 0.f);
  }
  if (p.conjIn) {
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  }

  sh.transform(v, sm, j, p.tab);

  // pass twiddles: only transposed passes have them (launchColumns checks), so the contiguous kernels hold no
  // code for them
  if constexpr (TRANS) passTwiddles<R, false>(v, p, col, j, T);
  // the issue-bound mixed-radix shapes (S::kPlainFast) skip a forward transform's unit scale
  if (!S::kPlainFast || p.scale != 1.f || p.conjOut) {
    const float sy = p.conjOut ? -p.scale : p.scale;
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = make_float2(v[e].x * p.scale, v[e].y * sy);
  }

  if (TRANS && p.transOut) {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) sm[pad16(j + e * T)] = v[e];
    __syncthreads();
    const int tc = tid & (C - 1), tl = tid >> logC;
    const float2* tsm = smem + sh.colOff(tc, swz);
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = tsm[pad16(tl + e * T)];
    if (col0 + tc < p.ncols) {
      float2* dst = p.out + bases[1][tc] + tl * p.so.ls;
      const long long step = (long long)T * p.so.ls;
#pragma unroll
      for (int e = 0; e < R; e++) dst[e * step] = v[e];
    }
  } else if (kFlat && p.flat) {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) sm[pad16(j + e * T)] = v[e];
    __syncthreads();
    const long long base = col0 * sh.len(), end = p.ncols * sh.len();
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int i = tid + e * blockDim.x;
      const float2 x = flatAt(i);
      if (base + i < end) p.out[base + i] = x;
    }
  } else if (active) {
    float2* dst = p.out + colStart(sh, p, col, p.so) + j;  // so.ls == 1
#pragma unroll
    for (int e = 0; e < R; e++) dst[e * T] = v[e];
  }
}

// Twiddles are computed (sincospif, exact arguments) by default: measured faster than table rows on an
// H200 at the same accuracy (docs/cuda/NOTES.md). The table variant exists to measure it again; only
// sm_90 code holds it, which keeps the build short (fft.cu launches it nowhere else).
// TRANS: the kernel for passes with a transposed side (kept apart: its loads need registers that made
// the contiguous kernel spill). Registers: 64 for R = 16 (blocks up to 1024 threads; launch bounds (1024, 1)
// and (512, 2) measured the same), 128 for R = 32 (256-thread blocks), kTransMaxRegs for transposed passes
// of L ≤ 256 (blocks of at most 512 threads, launchRegK sees to it).
// FEW: internal twiddles of L > 256 from two sincospif a pass instead of five (regPasses FEW).
template <int L, bool TABLE, int R = regRadix(L), bool TRANS = false, bool FEW = false>
__global__ void __maxnreg__(TRANS && L <= 256 ? kTransMaxRegs : (R > 16 ? 128 : 64))
    fftColsReg(ColParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
  if constexpr (TABLE) {
    return;
  } else
#endif
  {
    fftColsBody<RegShape<L, TABLE, R, FEW>, TRANS>(p, RegShape<L, TABLE, R, FEW>{});
  }
}

/** A pass strided on both sides (a four-step pass or a 2D FFT's columns: columns adjacent in memory), without
 *  transposes through shared memory: thread (c, j) of a block of C columns takes c = tid mod C, j = tid div C,
 *  so each of its loads is one element of the j-th row stretch of the C adjacent columns (a warp reads 32/C rows
 *  of C·8 bytes) and the elements it loads, j + e·T of column c, are exactly those the register FFT wants in
 *  thread j; the stores likewise. Only the FFT's exchanges go through shared memory. The transposing kernel
 *  (fftColsBody with TRANS) moves every element through shared memory twice more, with two more barriers. */
template <class S, bool FEW_TW = false>
__device__ __forceinline__ void fftColsDirectBody(const ColParams& p, const S& sh) {
  constexpr int R = S::E;
  constexpr int T = S::threads();
  PH_DYN_SMEM(float2, smem);
  const int C = blockDim.x / T;  // a power of two
  const int logC = 31 - __clz(C);
  const int tid = threadIdx.x;
  const int c = tid & (C - 1), j = tid >> logC;
  const long long col = (long long)blockIdx.x * C + c;
  const bool active = col < p.ncols;
  float2* sm = smem + sh.colOff(c, p.swz != 0);
  float2 v[R];
  {
    const float2* src = p.in + (active ? colBase(p, col, p.si) + (long long)j * p.si.ls : 0);
    const long long step = (long long)T * p.si.ls;
#pragma unroll
    for (int e = 0; e < R; e++) v[e] = active ? src[e * step] : make_float2(0.f, 0.f);
  }
  if (p.conjIn) {
#pragma unroll
    for (int e = 0; e < R; e++) v[e].y = -v[e].y;
  }
  sh.transform(v, sm, j, p.tab);
  passTwiddles<R, true, FEW_TW>(v, p, col, j, T);
  const float sy = p.conjOut ? -p.scale : p.scale;
#pragma unroll
  for (int e = 0; e < R; e++) v[e] = make_float2(v[e].x * p.scale, v[e].y * sy);
  if (active) {
    float2* dst = p.out + colBase(p, col, p.so) + (long long)j * p.so.ls;
    const long long step = (long long)T * p.so.ls;
#pragma unroll
    for (int e = 0; e < R; e++) dst[e * step] = v[e];
  }
}

/** Registers of the direct strided-pass kernel (fftColsRegDirect): none spills at 64 from L = 32 up (ptxas, sm_90).
 *  Measured on an H200 against 64, 72 and 80 (ms, 2^27 samples): L = 128 best at 80 (2^15 as 128 × 256 1.082,
 *  1.114 at 72, 1.141 at 64; 2^22 as 128 × 128 × 256 1.685 against 1.734 at 72), L = 256 at 64 (2^16 1.055 against
 *  1.078 at 72, 2^18 1.200 against 1.230, 2^24 1.673 against 1.695), L = 512 and 1024 at 64 (80: 2^21 1.507 →
 *  1.630); L ≤ 64 keeps the transposing kernel's 72. */
__host__ __device__ constexpr int directRegs(int L, int R) {
  return R > 16 ? 128 : L == 128 ? 80 : L <= 64 ? kTransMaxRegs : 64;
}

/** REGS: the register cap; VAR: 0, or bit 0 the internal twiddles from table rows (Gpu::regTable), bit 1 the pass
 *  twiddles from R/4 + 3 sincospif (else R/4 + 1: passTwiddles FEW), bit 2 the internal twiddles of L > 256 from
 *  five sincospif a pass (else two: regPasses FEW). Other caps than directRegs and other variants than 0 exist to
 *  measure against (FftTuning::directRegs, directVariant) and hold code for sm_90 only. Measured on an H200 (ms,
 *  2^27 samples; error: relative L2 against float64): the fewer pass-twiddle sincospif 2^20 1.387 → 1.376, 2^21
 *  1.507 → 1.484, 2^18 1.243 → 1.231, errors unchanged; the fewer internal ones 2^20 1.376 → 1.353, 2^21 1.484 →
 *  1.461 with errors 1.9e-7 → 2.1e-7 / 2.2e-7 (cuFFT's there: 3.1e-7 / 3.0e-7); table rows 1–6 % slower. */
template <int L, int REGS, int VAR, int R = regRadix(L)>
__global__ void __maxnreg__(REGS) fftColsRegDirect(ColParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
  if constexpr (REGS != directRegs(L, R) || VAR != 0) {
    return;
  } else
#endif
  {
    using S = RegShape<L, (VAR & 1) != 0, R, (VAR & 4) == 0>;
    fftColsDirectBody<S, (VAR & 2) == 0>(p, S{});
  }
}

// ---------------------------------------------------------------------------------------------------
// Mixed radix in registers (smooth sizes): E elements a thread (compile time), T = L/E threads a column and
// the passes (run time), every radix a divisor of E, so that each pass is E/r radix-r butterflies per thread on
// its own registers, exactly like the power-of-two kernel (thread j owns elements j + e·T before and after every
// pass; exchanges through shared memory between passes). The radices' DFTs are compile-time code (dft.cuh);
// one kernel per E serves every size whose factors fit it (fft.cu chooses E and the radices).

constexpr int kMaxMixPasses = 8;
struct MixPlan {
  int L, T, n;                // size, threads a column (L / E), passes
  int r[kMaxMixPasses];       // radices, each dividing E
  int Ns[kMaxMixPasses];      // product of the radices before pass i
  int tw[kMaxMixPasses];      // pass i's twiddles (i ≥ 1): rows m = 1…r−1 of Ns entries W_{Ns·r}^{k·m}, from tw[i]
  FastDiv divNs[kMaxMixPasses];
  FastDiv divT;               // thread → (column, j)
};

/** One Stockham pass of radix r on the E registers of thread j (E/r jobs jj = j + q·T); `last`: the result
 *  stays in v (element j + e·T), otherwise it goes to the column's shared buffer `sm` in pass order (PAD: one
 *  float2 of padding every 16, else unpadded, every address a pointer step of Ns). */
template <int E, int r, bool PAD>
__device__ __forceinline__ void mixPass(float2 (&v)[E], float2* sm, int j, const MixPlan& mp, int i,
                                        const float2* __restrict__ tab, bool last) {
  constexpr int Q = E / r;
  static_assert(E % r == 0, "mixPass: the radix must divide the elements per thread");
  const int T = mp.T, Ns = mp.Ns[i];
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const int jj = j + q * T;
    const int k = jj - (int)fdiv((unsigned)jj, mp.divNs[i]) * Ns;
    float2 u[r];
#pragma unroll
    for (int m = 0; m < r; m++) u[m] = v[q + m * Q];
    if (Ns > 1) {
      // rows by m, entries by k: the threads of a warp (consecutive k) read one contiguous stretch; plain
      // loads, not __ldg (read-only loads may be hoisted above the barriers into registers)
      const float2* row = tab + mp.tw[i] + k;
#pragma unroll
      for (int m = 1; m < r; m++, row += Ns) u[m] = cmul(u[m], *row);
    }
    dft<r>(u);
    if (last) {
#pragma unroll
      for (int m = 0; m < r; m++) v[q + m * Q] = u[m];
    } else if constexpr (PAD) {
      const int dst = (jj - k) * r + k;
#pragma unroll
      for (int m = 0; m < r; m++) sm[pad16(dst + m * Ns)] = u[m];
    } else {
      float2* d = sm + (jj - k) * r + k;
#pragma unroll
      for (int m = 0; m < r; m++, d += Ns) *d = u[m];
    }
  }
}

/** Forward FFT of the plan's size L held as v[e] = x[j + e·T]; same layout out. Every thread of the block
 *  must call it (the exchanges synchronize the block). */
template <int E, bool PAD>
__device__ __forceinline__ void mixFft(float2 (&v)[E], float2* sm, int j, const MixPlan& mp, const float2* tab) {
  for (int i = 0; i < mp.n; i++) {
    const bool last = i == mp.n - 1;
    switch (mp.r[i]) {
#define PH_MIX_CASE(R) \
  case R:              \
    if constexpr (E % R == 0) mixPass<E, R, PAD>(v, sm, j, mp, i, tab, last); \
    break;
      PH_MIX_CASE(2) PH_MIX_CASE(3) PH_MIX_CASE(4) PH_MIX_CASE(5) PH_MIX_CASE(6) PH_MIX_CASE(7) PH_MIX_CASE(8)
      PH_MIX_CASE(10) PH_MIX_CASE(12) PH_MIX_CASE(14) PH_MIX_CASE(15) PH_MIX_CASE(20) PH_MIX_CASE(21)
      PH_MIX_CASE(24) PH_MIX_CASE(30)
#undef PH_MIX_CASE
      default: break;
    }
    if (!last) {
      __syncthreads();
      if constexpr (PAD) {
#pragma unroll
        for (int e = 0; e < E; e++) v[e] = sm[pad16(j + e * mp.T)];
      } else {
        const float2* s = sm + j;
#pragma unroll
        for (int e = 0; e < E; e++, s += mp.T) v[e] = *s;
      }
      __syncthreads();
    }
  }
}

/** The shape of the mixed-radix register FFT for fftColsBody (odd column stride in shared memory). */
template <int kE, bool PAD>
struct MixShape {
  static constexpr int E = kE;
  static constexpr bool kFlatSmall = false;
  static constexpr bool kPlainFast = true;
  const MixPlan& mp;
  __device__ int threads() const { return mp.T; }
  __device__ int len() const { return mp.L; }
  __device__ void split(int tid, int& c, int& j) const {
    c = (int)fdiv((unsigned)tid, mp.divT);
    j = tid - c * mp.T;
  }
  __device__ int colOff(int c, bool) const { return c * paddedLen(mp.L); }
  __device__ void transform(float2 (&v)[E], float2* sm, int j, const float2* tab) const {
    mixFft<E, PAD>(v, sm, j, mp, tab);
  }
};

/** Elements per thread of the mixed-radix register kernels (fft.cu instantiates one kernel pair per value). */
constexpr int kMixElems[] = {10, 12, 14, 15, 20, 21, 24, 30};
/** Threads per block at most: 512 up to 16 elements a thread, 256 above. */
__host__ __device__ constexpr int mixMaxThreads(int E) { return E > 16 ? 256 : 512; }
/** Registers a thread (ptxas, sm_90): about what each uses unbounded (E = 10 61, 12 69 — 4 bytes spill at 72 —,
 *  14 94, 15 91, 20 125, 21 128, 24 128), except at E = 30 (171 unbounded): 160 spills nothing and keeps three
 *  of its 100-thread blocks an SM (144 kept as many with 96–116 bytes of spills). */
__host__ __device__ constexpr int mixRegs(int E) { return E <= 12 ? 72 : E <= 16 ? 96 : E <= 24 ? 128 : 160; }

template <int E, bool TRANS, bool PAD>
__global__ void __maxnreg__(mixRegs(E)) fftColsMix(ColParams p, MixPlan mp) {
  fftColsBody<MixShape<E, PAD>, TRANS>(p, MixShape<E, PAD>{mp});
}

// Mixed radix in registers with the whole plan at compile time (size L, E elements a thread, radices Rs...):
// the same passes as mixFft, but T, every Ns and every twiddle row offset are constants, so shared-memory and
// global addresses are immediate offsets and the index splits multiplications — the run-time plan's kernel is
// issue-bound (ncu), its integer pipe the busiest. fft.cu keeps a list of the sizes compiled this way.

/** The largest power of two ≤ m (m ≥ 1). */
__host__ __device__ constexpr int hiPow2(int m) { return m < 2 ? 1 : 2 * hiPow2(m / 2); }

/** w[m] = W^{k·m} for m = M…r − 1 from a pass's twiddle row (row[(m − 1)·Ns] = W^{k·m}): loaded where m is a power of
 *  two, else the product w[h]·w[m − h] (h = hiPow2(m); at most three deep for r ≤ 30). The index is a template argument
 *  so that w stays in registers: with m a loop counter (unrolled), ptxas kept w in local memory (88 bytes of spills
 *  at 72 registers, nearly four times slower at 1000 points). */
template <int r, int Ns, int M>
__device__ __forceinline__ void fixTwPow(float2 (&w)[r], const float2* row) {
  if constexpr (M < r) {
    constexpr int h = hiPow2(M);
    if constexpr (M == h) w[M] = row[(M - 1) * Ns];
    else w[M] = cmul(w[h], w[M - h]);
    fixTwPow<r, Ns, M + 1>(w, row);
  }
}

/** Pass radix r of a compile-time plan (Ns: product of the radices before it; Tw: its twiddle rows' offset in
 *  Gpu::mixedTable(byM), as MixPlan::tw), then the passes after it. */
template <int L, int E, bool PAD, int Ns, int Tw, int r, int... rest>
__device__ __forceinline__ void fixPasses(float2 (&v)[E], float2* sm, int j, const float2* tab) {
  constexpr int T = L / E, Q = E / r;
  constexpr bool last = sizeof...(rest) == 0;
  static_assert(E % r == 0, "fixPasses: the radix must divide the elements per thread");
#pragma unroll
  for (int q = 0; q < Q; q++) {
    const unsigned jj = (unsigned)j + (unsigned)(q * T);
    const unsigned k = Ns == 1 ? 0u : jj % (unsigned)Ns;
    float2 u[r];
#pragma unroll
    for (int m = 0; m < r; m++) u[m] = v[q + m * Q];
    if constexpr (Ns > 1) {
      const float2* row = tab + Tw + k;  // plain loads, as in mixPass
      // the powers of two of W^k loaded, the others multiplied (fixTwPow): a radix-10 pass loads 4 twiddles instead of
      // 9, a radix-20 pass 5 instead of 19 (twiddle loads were more than half the kernel's L1 sectors): 2–5 % faster
      // at 1500 to 4000 points, the others within 1 %, and fewer registers. The 64-point plan (8·8) keeps the loads:
      // about 1 % slower with the products (docs/cuda/NOTES.md)
      if constexpr (L > 64) {
        float2 w[r];
        fixTwPow<r, Ns, 1>(w, row);
#pragma unroll
        for (int m = 1; m < r; m++) u[m] = cmul(u[m], w[m]);
      } else {
#pragma unroll
        for (int m = 1; m < r; m++) u[m] = cmul(u[m], row[(m - 1) * Ns]);
      }
    }
    dft<r>(u);
    if constexpr (last) {
#pragma unroll
      for (int m = 0; m < r; m++) v[q + m * Q] = u[m];
      // keeps the next job's twiddle loads after this one in the PTX (nothing else orders them in the last
      // pass); registers and spills are the same without it, the time is not (2–4 % slower at 2000 to 3000
      // points without it)
      asm volatile("" ::: "memory");
    } else if constexpr (PAD) {
      const int dst = (int)((jj - k) * r + k);
#pragma unroll
      for (int m = 0; m < r; m++) sm[pad16(dst + m * Ns)] = u[m];
    } else {
      float2* d = sm + (jj - k) * r + k;
#pragma unroll
      for (int m = 0; m < r; m++) d[m * Ns] = u[m];
    }
  }
  if constexpr (!last) {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < E; e++) v[e] = PAD ? sm[pad16(j + e * T)] : sm[j + e * T];
    __syncthreads();
    fixPasses<L, E, PAD, Ns * r, (Ns > 1 ? Tw + (r - 1) * Ns : Tw), rest...>(v, sm, j, tab);
  }
}

/** The shape of a compile-time mixed-radix plan for fftColsBody (contiguous passes only). */
template <int L, int kE, bool PAD, int... Rs>
struct MixFixShape {
  static constexpr int E = kE;
  static constexpr bool kFlatSmall = false;
  static constexpr bool kPlainFast = true;
  static_assert(L % kE == 0, "MixFixShape: E must divide L");
  __device__ static constexpr int threads() { return L / E; }
  __device__ static constexpr int len() { return L; }
  __device__ static void split(int tid, int& c, int& j) {
    c = (int)((unsigned)tid / (unsigned)(L / E));
    j = tid - c * (L / E);
  }
  __device__ static int colOff(int c, bool) { return c * paddedLen(L); }
  __device__ static void transform(float2 (&v)[E], float2* sm, int j, const float2* tab) {
    fixPasses<L, E, PAD, 1, 0, Rs...>(v, sm, j, tab);
  }
};

/** Whether a plan's exchanges are padded: where a radix before the last is a multiple of 8 (launchMixE). */
template <int r, int... rest>
__host__ __device__ constexpr bool fixPadded() {
  if constexpr (sizeof...(rest) == 0) return false;
  else return r % 8 == 0 || fixPadded<rest...>();
}

/** REGS: the register cap; DEF: the plan's measured one (fft.cu's list). Other caps exist to measure against
 *  (FftTuning::mixFixRegs) and hold code for sm_90 only, which keeps the build short. */
template <int L, int E, int REGS, int DEF, int... Rs>
__global__ void __maxnreg__(REGS) fftColsMixFix(ColParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
  if constexpr (REGS != DEF) {
    return;
  } else
#endif
  {
    using S = MixFixShape<L, E, fixPadded<Rs...>(), Rs...>;
    fftColsBody<S, false>(p, S{});
  }
}

// ---------------------------------------------------------------------------------------------------
// Mixed radix, run-time size (the smooth sizes no register kernel above fits): the whole column in shared
// memory (two buffers), jobs spread over the threads. Divisions by run-time sizes go through multiply-high (FastDiv); twiddles come in rows like the
// register FFT's (pass i: rows k < Ns of r entries W_{Ns·r}^{k·m}, from row offset tw[i]).

constexpr int kMaxPasses = 24;
struct MixedRadix {
  int L;
  int n;
  int r[kMaxPasses];
  int Ns[kMaxPasses];
  int tw[kMaxPasses];  // first twiddle entry of each pass
  FastDiv divLr[kMaxPasses], divNs[kMaxPasses];
  FastDiv divL;  // by L itself: splits a flat index over C columns
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
  // Loads in rounds of kLoadBatch per thread, all issued before the stores to shared memory: a loop of
  // single loads kept one load per warp in flight.
  constexpr int kLoadBatch = 8;
  const float cj = p.conjIn ? -1.f : 1.f;
  for (int base = tid; base < total; base += kLoadBatch * blockDim.x) {
    float2 t[kLoadBatch];
    int at[kLoadBatch];
#pragma unroll
    for (int b = 0; b < kLoadBatch; b++) {
      const int idx = base + b * blockDim.x;
      int cc = 0, l = 0;
      if (p.transIn) {
        cc = idx & (C - 1);
        l = idx >> logC;
      } else {
        cc = (int)fdiv((unsigned)idx, mr.divL);
        l = idx - cc * L;
      }
      const bool ok = idx < total && col0 + cc < p.ncols;
      t[b] = ok ? p.in[bases[0][cc] + l * p.si.ls] : make_float2(0.f, 0.f);
      at[b] = idx < total ? cc * Ls + l : -1;
    }
#pragma unroll
    for (int b = 0; b < kLoadBatch; b++)
      if (at[b] >= 0) A[at[b]] = make_float2(t[b].x, cj * t[b].y);
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

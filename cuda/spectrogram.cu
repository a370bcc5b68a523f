// Spectrogram: raw samples → frames (hop) → window → FFT → |X|² → dB → optional max over display columns,
// fused in one kernel for power-of-two frames (real frames through a half-length complex FFT), and as
// framing + FFT plan + rows kernels for every other length. Exponential averaging and peak hold fold the
// new rows in order afterwards.
//
// Levels (AES17 dBFS, as the CPU backend): power = |X[k]|²/(Σw)² for complex input; ×4 for the bins of a
// real input other than DC and Nyquist, ×2 for those two. Complex rows are in fftshift order.
#include <cmath>
#include <type_traits>

#include "proc_kernels.cuh"
#include "processors.h"

namespace ph {

struct SpecParams {
  Source src;
  long long hop;   // samples
  long long count;
  int n;           // frame length
  int bins, width, reduce;
  float norm, normEdge, floorDb;
  float dbNorm, dbEdge;  // 10·log10 of the fused kernel's powers' norms (¼ of norm, normEdge for real frames)
  const float* window;
  float* rows;
  float* linear;   // may be null
  const float2* tab;  // register FFT twiddle rows for H
  const float2* wL;   // W_n^k (real input)
};

/** Writes one row from the powers P[0..bins) (shared memory) using threads [t0, t0 + nt). */
__device__ __forceinline__ void emitRow(const float* P, const SpecParams& p, long long f, int t, int nt) {
  float* row = p.rows + f * p.width;
  for (int c = t; c < p.width; c += nt) {
    float m;
    if (p.reduce) {
      const int lo = (int)(((long long)c * p.bins) / p.width), hi = (int)(((long long)(c + 1) * p.bins) / p.width);
      m = P[lo];
      for (int k = lo + 1; k < hi; k++) m = fmaxf(m, P[k]);
    } else {
      m = P[c];
    }
    row[c] = toDb(m, p.floorDb);
    if (p.linear) p.linear[f * p.width + c] = m;
  }
}

/** The register budget of the fused kernel: blocks of C·T threads (about 256), at least `kSpecBlocks` of them an
 *  SM; 64 registers (two 512-thread or four 256-thread blocks) spilled (ncu: local memory requests at
 *  H = 2048), three 256-thread blocks leave 85. */
template <int H>
__host__ __device__ constexpr int specThreads() { return H / regRadix(H) > 256 ? H / regRadix(H) : 256; }
constexpr int kSpecBlocks = 3;

/** The real split by pairs of bins: after a size-H FFT of z[m] = x[2m] + i·x[2m+1] (thread j holds Z[j + e·T]
 *  in v), calls f(slot, k, 2·X[k]) once for every bin k ≤ H of the 2H reals, slot 2e for k, 2e + 1 for H − k
 *  and R for H/2 (compile-time after unrolling). Thread j takes the bins k = j + e·T and
 *  H − k for e < R/2, both from one even and one odd part, and thread 0 also H/2 — so each thread sends only
 *  its upper half to its partner T − j (realSplit computes every bin twice, from the whole exchange). Twice the
 *  spectrum: the halvings are left to the caller's power scale (¼, exact). Must follow regFft directly (its
 *  last exchange ends with a barrier, so sm is free); every thread of the block calls it. */
template <int H, class F>
__device__ __forceinline__ void realSplitPairs(float2 (&v)[regRadix(H)], float2* sm, int j,
                                               const float2* __restrict__ wL, F&& f) {
  constexpr int R = regRadix(H), T = H / R;
  float2* const wr = sm + pad16(j);
#pragma unroll
  for (int e = R / 2; e < R; e++) wr[pad16(e * T)] = v[e];
  __syncthreads();
#pragma unroll
  for (int e = 0; e < R / 2; e++) {
    const int k = j + e * T;
    // Z[H − k]: the partner's upper half (thread 0's own for e > 0), Z[0] itself for k = 0
    const float2 zc = conjf2(partnerZ<H, R>(v, sm, j, e));
    const float2 E = cadd(v[e], zc);         // 2·(even part)
    const float2 O = mulmi(csub(v[e], zc));  // 2·(odd part)
    const float2 wO = cmul(__ldg(wL + k), O);
    f(2 * e, k, cadd(E, wO));
    f(2 * e + 1, H - k, conjf2(csub(E, wO)));  // k = 0: X[H], the Nyquist bin
  }
  // X[H/2] = conj(Z[H/2]) (w = −i there); Z[H/2] is thread 0's v[R/2]
  if (j == 0) f(R, H / 2, make_float2(2.f * v[R / 2].x, -2.f * v[R / 2].y));
}

/** log2 with subnormal arguments flushed to zero (−∞): one instruction, where __log2f adds three for them. */
__device__ __forceinline__ float lg2Ftz(float x) {
#ifdef __CUDA_ARCH__
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else  // the CPU emulation
  return std::fpclassify(x) == FP_SUBNORMAL ? -INFINITY : std::log2(x);
#endif
}

/** The levels of one frame's bins, straight from the registers (no reduction to columns): bin k of spectrum
 *  value x has 10·log10(|x|²·norm) = 3.0103·log2(|x|²) + dB(norm), one multiply-add after the logarithm
 *  (`edge`: DC and Nyquist of a real frame, their own norm). FAST flushes a subnormal |x|² to the floor; the
 *  kernel takes it only where every level that changes lies below the floor anyway. LIN: the linear powers too
 *  (for averaging). Inactive threads (past the last frame) compute and store nothing. */
template <bool LIN, bool FAST>
struct RowOut {
  float* row;
  float* lin;
  float dbNorm, dbEdge, norm, normEdge, floorDb;
  bool active;
  __device__ __forceinline__ void put(int k, float2 x, bool edge) const {
    const float n2 = norm2(x);
    const float l2 = FAST ? lg2Ftz(n2) : __log2f(n2);
    const float db = fmaxf(fmaf(l2, 3.01029995664f, edge ? dbEdge : dbNorm), floorDb);
    if (active) row[k] = db;
    if (LIN && active) lin[k] = n2 * (edge ? normEdge : norm);
  }
};

// H: complex FFT size (complex input: n = H; real input: n = 2H); twiddles from table rows (computed ones
// measured slower). LIN: the linear powers are written too.
template <int H, bool REAL, bool LIN>
__global__ void __launch_bounds__(specThreads<H>(), specThreads<H>() > 256 ? 1 : kSpecBlocks) kSpecFused(SpecParams p) {
  constexpr int R = regRadix(H), T = H / R, PL = paddedLen(H);
  PH_DYN_SMEM(float2, smem);
  const int C = blockDim.x / T;
  const int c = threadIdx.x / T, j = threadIdx.x % T;
  const long long f = (long long)blockIdx.x * C + c;
  const bool active = f < p.count;
  float2* sm = smem + c * PL;
  float2 v[R];
  const long long base = f * p.hop;
  // both layouts read value pairs: real frames as z[m] = x[2m] + i·x[2m+1], complex ones as samples
  const long long first = REAL ? base : 2 * base;
  float ps = 1.f;
  withPairs(p.src, first, first + 2 * H, [&](auto get2, float s) {
    ps = s;
    // the window from one base pointer: offsets e·T are immediates (m = j + e·T recomputed cost three
    // instructions a load)
    const float2* w2 = reinterpret_cast<const float2*>(p.window) + j;
    const float* w1 = p.window + j;
#pragma unroll
    for (int e = 0; e < R; e++) {
      float2 z = make_float2(0.f, 0.f);
      if (active) {
        z = get2(j + e * T);
        if (REAL) {
          const float2 w = __ldg(w2 + e * T);
          z.x *= w.x;
          z.y *= w.y;
        } else {
          const float w = __ldg(w1 + e * T);
          z.x *= w;
          z.y *= w;
        }
      }
      v[e] = z;
    }
  });
  regFft<H, true>(v, sm, j, p.tab);
  // the split's bins are 2·X (¼ in the power, −6.02 dB: in dbNorm/dbEdge), the raw samples' scale is ps (a
  // power of two: its dB are exact)
  const float norm = (REAL ? 0.25f : 1.f) * ps * p.norm, normEdge = 0.25f * ps * p.normEdge;
  if (!p.reduce) {
    const float dps = ps == 1.f ? 0.f : 3.01029995664f * __log2f(ps);
    const float dbNorm = p.dbNorm + dps, dbEdge = p.dbEdge + dps;
    // log2|x|² < −126 moves a level only below this
    const float flushDb = fmaxf(dbNorm, REAL ? dbEdge : dbNorm) - 379.29f + 0.01f;
    float* row = p.rows + f * p.width;
    float* lin = LIN ? p.linear + f * p.width : nullptr;
    const auto emit = [&](auto fast) {
      const RowOut<LIN, decltype(fast)::value> out{row, lin, dbNorm, dbEdge, norm, normEdge, p.floorDb, active};
      if constexpr (REAL) {
        realSplitPairs<H>(v, sm, j, p.wL, [&](int slot, int k, float2 x) { out.put(k, x, slot < 2 && j == 0); });
      } else {
#pragma unroll
        for (int e = 0; e < R; e++) out.put(((j + e * T) + H / 2) & (H - 1), v[e], false);
      }
    };
    if (p.floorDb >= flushDb) emit(std::true_type{});
    else emit(std::false_type{});
    return;
  }
  // columns are maxima over bins: powers through shared memory
  float* P = reinterpret_cast<float*>(sm);
  if constexpr (REAL) {
    constexpr int R2 = R / 2;
    float lo[R2], hi[R2], mid = 0.f;
    realSplitPairs<H>(v, sm, j, p.wL, [&](int slot, int k, float2 x) {
      const float pw = norm2(x) * (k == 0 || k == H ? normEdge : norm);
      if (slot == R) mid = pw;
      else if (slot % 2 == 0) lo[slot / 2] = pw;
      else hi[slot / 2] = pw;
    });
    __syncthreads();  // every partner read of sm is done: P may overwrite it
#pragma unroll
    for (int i = 0; i < R2; i++) {
      P[j + i * T] = lo[i];
      P[H - j - i * T] = hi[i];
    }
    if (j == 0) P[H / 2] = mid;
  } else {
    __syncthreads();
#pragma unroll
    for (int e = 0; e < R; e++) {
      const int k = j + e * T;
      P[(k + H / 2) & (H - 1)] = norm2(v[e]) * norm;
    }
  }
  __syncthreads();
  if (active) emitRow(P, p, f, j, T);
}

// ---------------------------------------------------------------------------------------------------
// Unfused path for other frame lengths

__global__ void kFrames(SpecParams p, float* out, int complexIn) {
  const long long per = complexIn ? 2LL * p.n : p.n;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= per * p.count) return;
  const long long f = i / per, r = i - f * per;
  const long long sample = complexIn ? r / 2 : r;
  out[i] = p.src.at((complexIn ? 2 * f * p.hop : f * p.hop) + r) * p.window[sample];
}

// Power of every bin of every frame from the spectra (count × bins complex), fftshifted for complex input.
__global__ void kPower(SpecParams p, const float2* spec, float* power, int complexIn) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)p.bins * p.count) return;
  const long long f = i / p.bins, r = i - f * p.bins;
  if (complexIn) {
    const long long k = (r + p.n - p.n / 2) % p.n;  // row r holds bin (r − ⌊n/2⌋) mod n
    power[i] = norm2(spec[f * p.n + k]) * p.norm;
  } else {
    const bool edge = r == 0 || (p.n % 2 == 0 && r == p.n / 2);
    power[i] = norm2(spec[f * p.bins + r]) * (edge ? p.normEdge : p.norm);
  }
}

__global__ void kRows(SpecParams p, const float* power) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)p.width * p.count) return;
  const long long f = i / p.width, c = i - f * p.width;
  const float* P = power + f * p.bins;
  float m;
  if (p.reduce) {
    const long long lo = (c * p.bins) / p.width, hi = ((c + 1) * p.bins) / p.width;
    m = P[lo];
    for (long long k = lo + 1; k < hi; k++) m = fmaxf(m, P[k]);
  } else {
    m = P[c];
  }
  p.rows[i] = toDb(m, p.floorDb);
  if (p.linear) p.linear[i] = m;
}

// Exponential average (linear power, double) and peak hold (dB) over the new rows, in frame order.
__global__ void kFold(const float* rows, const float* linear, long long count, int width, double* avg, float* peak,
                      double alpha, int initAvg) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= width) return;
  if (avg) {
    long long f = 0;
    double a = avg[c];
    if (initAvg) { a = linear[c]; f = 1; }
    for (; f < count; f++) a = alpha * (double)linear[f * width + c] + (1.0 - alpha) * a;
    avg[c] = a;
  }
  if (peak) {
    float pk = peak[c];
    for (long long f = 0; f < count; f++) pk = fmaxf(pk, rows[f * width + c]);
    peak[c] = pk;
  }
}

__global__ void kFill(float* p, long long n, float v) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

// ---------------------------------------------------------------------------------------------------

template <int H, bool REAL>
static void launchSpecT(Gpu& gpu, SpecParams& p, cudaStream_t s) {
  constexpr int T = H / regRadix(H);
  const int C = specThreads<H>() / T;
  const size_t smem = (size_t)C * paddedLen(H) * sizeof(float2);
  const dim3 grid((unsigned)ceilDiv(p.count, C)), block(C * T);
  if (p.linear) {
    gpu.allowSmem(kSpecFused<H, REAL, true>, smem);
    PH_LAUNCH(PH_K(kSpecFused<H, REAL, true>), grid, block, smem, s, p);
  } else {
    gpu.allowSmem(kSpecFused<H, REAL, false>, smem);
    PH_LAUNCH(PH_K(kSpecFused<H, REAL, false>), grid, block, smem, s, p);
  }
  PH_CHECK_LAUNCH("spectrogram kernel");
}

template <bool REAL>
static bool launchSpec(Gpu& gpu, int H, SpecParams& p, cudaStream_t s) {
  switch (H) {
    case 64: launchSpecT<64, REAL>(gpu, p, s); return true;
    case 128: launchSpecT<128, REAL>(gpu, p, s); return true;
    case 256: launchSpecT<256, REAL>(gpu, p, s); return true;
    case 512: launchSpecT<512, REAL>(gpu, p, s); return true;
    case 1024: launchSpecT<1024, REAL>(gpu, p, s); return true;
    case 2048: launchSpecT<2048, REAL>(gpu, p, s); return true;
    case 4096: launchSpecT<4096, REAL>(gpu, p, s); return true;
    case 8192: launchSpecT<8192, REAL>(gpu, p, s); return true;
    default: return false;
  }
}

Spectrogram::Spectrogram(Gpu& gpu, const SpectrogramConfig& cfg) : gpu_(gpu), cfg_(cfg) {
  if (cfg.n < 1 || cfg.hop < 1 || (long long)cfg.window.size() != cfg.n)
    throw ArgumentError("spectrogram: fft ≥ 1, hop ≥ 1 and a window of length fft are required");
  bins_ = cfg.complex ? cfg.n : cfg.n / 2 + 1;
  width_ = cfg.columns > 0 ? cfg.columns : bins_;
  double sum = 0;
  for (float w : cfg.window) sum += w;
  normEdge_ = (float)(1.0 / (sum * sum));
  norm_ = cfg.complex ? normEdge_ : (float)(4.0 / (sum * sum));
  if (cfg.norm > 0) norm_ = (float)cfg.norm;
  if (cfg.normEdge > 0) normEdge_ = (float)cfg.normEdge;
  const long long H = cfg.complex ? cfg.n : cfg.n / 2;
  fused_ = isPow2(cfg.n) && H >= 64 && H <= 8192 &&
           (size_t)paddedLen((int)H) * 8 <= gpu.smemOptin();
  window_.alloc(cfg.n * sizeof(float));
  uploadNow(window_.get(), cfg.window.data(), cfg.n * sizeof(float));
  const long long vps = cfg.complex ? 2 : 1;
  for (auto& h : hist_) h.alloc((size_t)(cfg.n * vps + 16) * sizeof(float));
  if (cfg.averaging > 0) avg_.alloc(width_ * sizeof(double));
  if (cfg.peakHold) peak_.alloc(width_ * sizeof(float));
  reset();
}

void Spectrogram::reset() {
  histLen_ = 0;
  avgInit_ = false;
  peakInit_ = false;
  if (cfg_.peakHold) {
    PH_LAUNCH(kFill, dim3((unsigned)ceilDiv(width_, 256)), dim3(256), 0, gpu_.stream(), peak_.get<float>(), width_,
              -INFINITY);
    PH_CHECK_LAUNCH("spectrogram reset");
  }
}

void Spectrogram::runDevice(const Source& src, long long count, float* rowsDev, float* linDev) {
  if (count <= 0) return;
  cudaStream_t s = gpu_.stream();
  SpecParams p{};
  p.src = src;
  p.hop = cfg_.hop;
  p.count = count;
  p.n = (int)std::min<long long>(cfg_.n, 1LL << 30);
  p.bins = (int)bins_;
  p.width = (int)width_;
  p.reduce = width_ != bins_;
  p.norm = norm_;
  p.normEdge = normEdge_;
  // the fused kernel's real split gives 2·X: its powers take ¼ of the norms
  p.dbNorm = (float)(10.0 * std::log10((cfg_.complex ? 1.0 : 0.25) * norm_));
  p.dbEdge = (float)(10.0 * std::log10(0.25 * normEdge_));
  p.floorDb = cfg_.floorDb;
  p.window = window_.get<float>();
  p.rows = rowsDev;
  p.linear = linDev;
  if (fused_) {
    const int H = (int)(cfg_.complex ? cfg_.n : cfg_.n / 2);
    p.tab = gpu_.regTable(H);
    p.wL = gpu_.table(cfg_.n);
    if (cfg_.complex ? launchSpec<false>(gpu_, H, p, s) : launchSpec<true>(gpu_, H, p, s)) return;
  }
  // framing → FFT → power → rows, in batches that keep the scratch bounded
  const long long n = cfg_.n;
  const long long per = std::max<long long>(1, (64LL << 20) / (n * 8 + bins_ * 12));
  for (long long f0 = 0; f0 < count; f0 += per) {
    const long long cnt = std::min(per, count - f0);
    SpecParams q = p;
    q.count = cnt;
    // re-base the source at this batch's first frame
    q.src = shiftSource(src, f0 * cfg_.hop * (cfg_.complex ? 2 : 1));
    q.rows = rowsDev + f0 * width_;
    q.linear = linDev ? linDev + f0 * width_ : nullptr;
    const long long vals = cnt * n * (cfg_.complex ? 2 : 1);
    frames_.ensure(vals * sizeof(float) + 16);
    PH_LAUNCH(kFrames, dim3((unsigned)ceilDiv(vals, 256)), dim3(256), 0, s, q, frames_.get<float>(), (int)cfg_.complex);
    PH_CHECK_LAUNCH("spectrogram framing");
    spec_.ensure(cnt * (cfg_.complex ? n : bins_) * sizeof(float2) + 16);
    if (cfg_.complex) {
      FftPlan& plan = gpu_.plan(n);
      plan.exec(frames_.get<float2>(), spec_.get<float2>(), cnt, false, gpu_.scratch(0, plan.scratchBytes(cnt)), s);
    } else {
      rfft(gpu_, frames_.get<float>(), spec_.get<float2>(), n, cnt, s);
    }
    power_.ensure(cnt * bins_ * sizeof(float) + 16);
    PH_LAUNCH(kPower, dim3((unsigned)ceilDiv(cnt * bins_, 256)), dim3(256), 0, s, q, spec_.get<float2>(),
              power_.get<float>(), (int)cfg_.complex);
    PH_CHECK_LAUNCH("spectrogram power");
    PH_LAUNCH(kRows, dim3((unsigned)ceilDiv(cnt * width_, 256)), dim3(256), 0, s, q, power_.get<float>());
    PH_CHECK_LAUNCH("spectrogram rows");
  }
}

void Spectrogram::fold(const float* rowsDev, const float* linDev, long long count) {
  if (count <= 0 || (cfg_.averaging <= 0 && !cfg_.peakHold)) return;
  PH_LAUNCH(kFold, dim3((unsigned)ceilDiv(width_, 128)), dim3(128), 0, gpu_.stream(), rowsDev, linDev, count, (int)width_,
            cfg_.averaging > 0 ? avg_.get<double>() : nullptr, cfg_.peakHold ? peak_.get<float>() : nullptr,
            cfg_.averaging, (int)!avgInit_);
  PH_CHECK_LAUNCH("spectrogram averaging");
  avgInit_ = true;
  peakInit_ = true;
}

void Spectrogram::push(const Input& in, long long skip, long long count, long long keepFrom, float* rows, float* avg,
                       float* peak, bool rowsPinned) {
  cudaStream_t s = gpu_.stream();
  const long long vps = cfg_.complex ? 2 : 1;
  // host blocks of more than one piece of rows (8 MB, whole frames) stream through (streamPieces): the copy
  // up of a piece's input, its frames and the copy back of its rows overlap with those of its neighbours
  const long long per = streamPer((size_t)width_ * sizeof(float), 1);
  const bool streamed = in.host && rows && count > per;
  if (streamed) staging_.ensure(in.values * dtypeBytes(in.dtype) + 16);
  const void* fresh = streamed ? staging_.get() : stageInput(gpu_, in, staging_, s);
  Source src{};
  src.hist = hist_[cur_].get<float>();
  src.histLen = histLen_;
  src.fresh = static_cast<const char*>(fresh) + skip * (long long)dtypeBytes(in.dtype);
  src.freshLen = in.values - skip;
  src.dtype = (int)in.dtype;
  src.offset = in.offset;
  src.scale = in.scale;
  if (count > 0) {
    rows_.ensure(count * width_ * sizeof(float) + 16);
    float* lin = nullptr;
    if (cfg_.averaging > 0) {
      linear_.ensure(count * width_ * sizeof(float) + 16);
      lin = linear_.get<float>();
    }
    float* rowsDev = rows_.get<float>();
    if (streamed) {
      // averages and peaks fold piece by piece, in frame order: the same sums as one fold of every row
      streamPieces(
          gpu_, in, staging_.get(), count, per, (int)width_, rowsDev, rows, rowsPinned,
          // frame f reads values f·hop·vps … (f·hop + n)·vps − 1 of hist ++ fresh (fresh: `skip` values into the block)
          [&](long long f1) { return std::min(src.length(), ((f1 - 1) * cfg_.hop + cfg_.n) * vps) - histLen_ + skip; },
          [&](long long f0, long long f1) {
            const long long at = f0 * width_;
            runDevice(shiftSource(src, f0 * cfg_.hop * vps), f1 - f0, rowsDev + at, lin ? lin + at : nullptr);
            fold(rowsDev + at, lin ? lin + at : nullptr, f1 - f0);
          });
    } else {
      runDevice(src, count, rowsDev, lin);
      fold(rowsDev, lin, count);
    }
  }
  // keep what the next frames need
  const long long total = src.length();
  const long long keep = std::max<long long>(0, total - keepFrom);
  const int nxt = 1 - cur_;
  hist_[nxt].ensure((keep + 16) * sizeof(float));
  keepTail(src, keepFrom, keep, hist_[nxt].get<float>(), s);
  if (count > 0 && !streamed) {
    const size_t bytes = count * width_ * sizeof(float);
    if (rowsPinned) PH_CHECK(cudaMemcpyAsync(rows, rows_.get(), bytes, cudaMemcpyDeviceToHost, s));
    else copyToHost(gpu_, rows, rows_.get(), bytes, s);
  }
  if (avg) {
    if (avgInit_) {
      std::vector<double> a(width_);
      copyToHost(gpu_, a.data(), avg_.get(), width_ * sizeof(double), s);
      for (long long c = 0; c < width_; c++) {
        const double db = a[c] > 0 ? 10.0 * std::log10(a[c]) : -INFINITY;
        avg[c] = db > cfg_.floorDb ? (float)db : cfg_.floorDb;
      }
    } else {
      for (long long c = 0; c < width_; c++) avg[c] = cfg_.floorDb;
    }
  }
  if (peak) {
    if (peakInit_) copyToHost(gpu_, peak, peak_.get(), width_ * sizeof(float), s);
    else for (long long c = 0; c < width_; c++) peak[c] = cfg_.floorDb;
  }
  gpu_.sync();
  cur_ = nxt;
  histLen_ = keep;
}

}  // namespace ph

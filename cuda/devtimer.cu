// See devtimer.h. Every figure is a median of `reps` runs after two warm-ups, on random (never zero) data.
#include "devtimer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <vector>

#include "cufft_ref.h"
#include "ops.h"
#include "processors.h"

namespace bench {

using cd = std::complex<double>;

// ---------------------------------------------------------------------------------------------------
// data and references

/** 32 random bits for element i of a seeded stream (a PCG-style hash). */
__device__ __forceinline__ unsigned randBits(long long i, unsigned seed) {
  unsigned h = (unsigned)i * 747796405u + seed * 2891336453u + 1u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}
__global__ void kRandF(float* p, long long n, unsigned seed) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (float)randBits(i, seed) * (2.0f / 4294967296.0f) - 1.0f;
}
__global__ void kRandI16(short* p, long long n, unsigned seed) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (short)(int)((randBits(i, seed) >> 16) - 32768u);
}
static void randF(float* p, long long n, unsigned seed, cudaStream_t s) {
  PH_LAUNCH(kRandF, dim3((unsigned)ph::ceilDiv(n, 256)), dim3(256), 0, s, p, n, seed);
  PH_CHECK_LAUNCH("random data");
}

// Float64 FFT of a power-of-two length, in place.
static void refPow2(std::vector<cd>& a) {
  const size_t n = a.size();
  std::vector<double> re(n), im(n);
  for (size_t i = 0; i < n; i++) { re[i] = a[i].real(); im[i] = a[i].imag(); }
  ph::hostFft(re, im);
  for (size_t i = 0; i < n; i++) a[i] = cd(re[i], im[i]);
}

// Bluestein in float64 for a length with a prime factor above 7 (a direct DFT of a large prime length
// would take hours): X[k] = w[k]·Σ (x[j]·w[j])·conj(w[k−j]), w[k] = e^(−iπk²/n), the sum a circular
// convolution of a power of two M ≥ 2n − 1 points.
static void refBluestein(std::vector<cd>& a) {
  const size_t n = a.size();
  size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<cd> w(n), x(m), h(m);
  for (size_t k = 0; k < n; k++) {
    const unsigned long long k2 = (unsigned long long)k * k % (2ull * n);  // exact: k² < 2^64
    w[k] = std::polar(1.0, -M_PI * (double)k2 / (double)n);
  }
  for (size_t k = 0; k < n; k++) x[k] = a[k] * w[k];
  h[0] = std::conj(w[0]);
  for (size_t k = 1; k < n; k++) h[k] = h[m - k] = std::conj(w[k]);
  refPow2(x);
  refPow2(h);
  // inverse through the forward transform: conj(FFT(conj(X·H))) / M
  for (size_t k = 0; k < m; k++) x[k] = std::conj(x[k] * h[k]);
  refPow2(x);
  for (size_t k = 0; k < n; k++) a[k] = w[k] * std::conj(x[k]) / (double)m;
}

static void refDft(std::vector<cd>& a) {
  const size_t n = a.size();
  if (n <= 1) return;
  size_t p = 0;
  for (size_t f : {2, 3, 5, 7})
    if (n % f == 0) { p = f; break; }
  if (p == 0 && n > 64) {
    refBluestein(a);
    return;
  }
  if (p == 0 || n <= 8) {
    std::vector<cd> out(n);
    for (size_t k = 0; k < n; k++) {
      cd s = 0;
      for (size_t j = 0; j < n; j++) s += a[j] * std::polar(1.0, -2 * M_PI * (double)((j * k) % n) / n);
      out[k] = s;
    }
    a = out;
    return;
  }
  const size_t m = n / p;
  std::vector<std::vector<cd>> sub(p, std::vector<cd>(m));
  for (size_t r = 0; r < p; r++)
    for (size_t j = 0; j < m; j++) sub[r][j] = a[j * p + r];
  for (auto& s : sub) refDft(s);
  for (size_t k = 0; k < n; k++) {
    cd s = 0;
    for (size_t r = 0; r < p; r++) s += sub[r][k % m] * std::polar(1.0, -2 * M_PI * (double)((r * k) % n) / n);
    a[k] = s;
  }
}

static void refFft(std::vector<cd>& a) {
  const size_t n = a.size();
  if (n > 0 && (n & (n - 1)) == 0) {
    refPow2(a);
  } else {
    refDft(a);
  }
}

template <class T>
static std::vector<T> toHost(const void* d, size_t count) {
  std::vector<T> h(count);
  // the library's streams are non-blocking: a plain cudaMemcpy is not ordered after their work (the random
  // inputs, the runs), so wait for the whole device first (without it the correlation's template was read
  // before its generator had run, when the GPU was still busy with the previous measurement)
  PH_CHECK(cudaDeviceSynchronize());
  PH_CHECK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// ---------------------------------------------------------------------------------------------------
// timing

template <class F>
static double medianMs(cudaStream_t s, F&& f, int reps) {
  cudaEvent_t a, b;
  PH_CHECK(cudaEventCreate(&a));
  PH_CHECK(cudaEventCreate(&b));
  f();
  f();
  PH_CHECK(cudaStreamSynchronize(s));
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    PH_CHECK(cudaEventRecord(a, s));
    f();
    PH_CHECK(cudaEventRecord(b, s));
    PH_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    PH_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
static double medianHostMs(F&& f, int reps) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// cuFFT plans cached by (kind, n, batch, stream)
struct CufftPlans {
  std::map<std::tuple<int, long long, long long, void*>, cufftHandle> plans;
  ~CufftPlans() {
    for (auto& kv : plans) cufft().destroy(kv.second);
  }
  cufftHandle get(int type, long long n, long long batch, cudaStream_t s) {
    auto key = std::make_tuple(type, n, batch, (void*)s);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
    cufftHandle h = 0;
    if (type == 2) cufftCheck(cufft().plan2d(&h, (int)n, (int)n, CUFFT_C2C), "cufftPlan2d");
    else cufftCheck(cufft().plan1d(&h, (int)n, type == 1 ? CUFFT_R2C : CUFFT_C2C, (int)batch), "cufftPlan1d");
    cufftCheck(cufft().setStream(h, s), "cufftSetStream");
    plans[key] = h;
    return h;
  }
};
static CufftPlans& cplans() {
  static CufftPlans p;
  return p;
}

// ---------------------------------------------------------------------------------------------------
// baseline kernels for the unfused spectrogram

__global__ void kFrameWindow(const void* in, int dtype, float scale, long long n, long long hop, long long count,
                             const float* w, float* frames) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * count) return;
  const long long f = i / n, k = i - f * n;
  const long long at = f * hop + k;
  const float x = dtype == 3 ? (float)static_cast<const short*>(in)[at] * scale : static_cast<const float*>(in)[at];
  frames[i] = x * w[k];
}
__global__ void kPowerDb(const float2* spec, long long bins, long long count, long long n, float norm, float normEdge,
                         float floorDb, float* rows) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bins * count) return;
  const long long k = i % bins;
  const bool edge = k == 0 || (n % 2 == 0 && k == n / 2);
  const float p = ph::norm2(spec[i]) * (edge ? normEdge : norm);
  const float db = p > 0.f ? 10.f * log10f(p) : -INFINITY;
  rows[i] = db > floorDb ? db : floorDb;
}

// ---------------------------------------------------------------------------------------------------
// end to end

/** The end-to-end runs' pinned host arrays (0: in, 1: out), kept with the Gpu between measurements: pinning
 *  a GiB for every row would cost more than the row. */
static ph::PinnedBuf& e2eHost(ph::Gpu& gpu, int which, size_t bytes) {
  ph::PinnedBuf& b = gpu.pinned(40 + which);
  b.ensure(bytes);
  return b;
}

__global__ void kCountDiffers(const unsigned* a, const unsigned* b, long long n, unsigned long long* count) {
  unsigned long long c = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(count, c);
}

/** 32-bit words of the host result that differ from the device result (the end-to-end output against the
 *  kernel-only one: the pipeline must not change a bit). */
static double countDiffers(ph::Gpu& gpu, const void* dev, const void* host, size_t bytes) {
  cudaStream_t s = gpu.stream();
  ph::DevBuf copy(bytes + 16), count(sizeof(unsigned long long));
  PH_CHECK(cudaMemcpyAsync(copy.get(), host, bytes, cudaMemcpyHostToDevice, s));
  PH_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), s));
  PH_LAUNCH(kCountDiffers, dim3(1024), dim3(256), 0, s, static_cast<const unsigned*>(dev), copy.get<unsigned>(),
            (long long)(bytes / 4), count.get<unsigned long long>());
  PH_CHECK_LAUNCH("count differences");
  unsigned long long n = 0;
  PH_CHECK(cudaMemcpyAsync(&n, count.get(), sizeof n, cudaMemcpyDeviceToHost, s));
  PH_CHECK(cudaStreamSynchronize(s));
  return (double)n;
}

// ---------------------------------------------------------------------------------------------------

static double relL2(const std::vector<cd>& ref, const float2* got, size_t count) {
  double num = 0, den = 0;
  for (size_t i = 0; i < count; i++) {
    const double dx = got[i].x - ref[i].real(), dy = got[i].y - ref[i].imag();
    if (!std::isfinite(got[i].x) || !std::isfinite(got[i].y)) return INFINITY;
    num += dx * dx + dy * dy;
    den += std::norm(ref[i]);
  }
  return std::sqrt(num / den);
}

static ph::FftHook cufftHook() {
  return [](float2* d, long long L, long long count, bool inverse, cudaStream_t s) {
    cufftHandle h = cplans().get(0, L, count, s);
    cufftCheck(cufft().execC2C(h, d, d, inverse ? CUFFT_INVERSE : CUFFT_FORWARD), "cufftExecC2C");
  };
}

bool isBenchOnly(const std::string& op) {
  return op == "d2h" || op == "ifft" || op == "fft2" || op == "fir-direct" || op == "fir-os" || op == "corr-complex";
}

Result measure(ph::Gpu& gpu, const std::string& op, long long n, long long batch, bool useCufft, int reps, bool e2e) {
  Result r;
  r.op = op;
  r.impl = useCufft ? "cufft" : "cuda";
  r.n = n;
  r.batch = batch;
  cudaStream_t s = gpu.stream();
#ifndef PHASOR_BENCH
  if (isBenchOnly(op)) {
    r.available = false;
    r.reason = op + " is measured by the bench build only (node native/build.mjs --bench)";
    return r;
  }
#endif
  if (useCufft && !cufft().ok) {
    r.available = false;
    r.reason = cufft().reason;
    return r;
  }
  const bool isFft = op == "fft" || op == "ifft" || op == "rfft";
  if (op == "copy" || op == "h2d" || op == "d2h") {
    if (useCufft) { r.available = false; r.reason = "not a cuFFT operation"; return r; }
    const size_t bytes = (size_t)(n * batch) * 8;
    ph::DevBuf a(bytes), b(bytes);
    randF(a.get<float>(), (long long)(bytes / 4), 1, s);
    if (op == "copy") {
      r.kernelMs = medianMs(s, [&] { PH_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s)); }, reps);
      r.bytes = 2.0 * bytes;
    } else {
      ph::PinnedBuf h;
      h.ensure(bytes);
      std::memset(h.get(), 1, bytes);
      const bool up = op == "h2d";
      r.kernelMs = medianMs(s, [&] {
        if (up) PH_CHECK(cudaMemcpyAsync(a.get(), h.get(), bytes, cudaMemcpyHostToDevice, s));
        else PH_CHECK(cudaMemcpyAsync(h.get(), a.get(), bytes, cudaMemcpyDeviceToHost, s));
      }, reps);
      r.bytes = (double)bytes;
    }
    r.samplesPerSecond = (double)(n * batch) / (r.kernelMs * 1e-3);
    return r;
  }

  if (isFft) {
    const ph::Op o = op == "fft" ? ph::Op::Fft : op == "ifft" ? ph::Op::Ifft : ph::Op::Rfft;
    const long long inV = ph::opInValues(o, n), outV = ph::opOutValues(o, n);
    ph::DevBuf in((size_t)(inV * batch) * 4 + 16), out((size_t)(outV * batch) * 4 + 16);
    randF(in.get<float>(), inV * batch, 7, s);
    std::function<void()> run;
    if (!useCufft) {
      if (o != ph::Op::Rfft) r.plan = gpu.plan(n).describe();
      else if (n >= 128 && n <= 16384 && (n & (n - 1)) == 0) r.plan = "one kernel (half-length register FFT + split)";
      else r.plan = "half-length complex " + gpu.plan(n % 2 == 0 ? n / 2 : n).describe() + " + post-pass";
      run = [&] { ph::runDevice(gpu, o, n, batch, in.get<float>(), out.get<float>(), s, 0); };
    } else {
      const int type = o == ph::Op::Rfft ? 1 : 0;
      cufftHandle h = cplans().get(type, n, batch, s);
      r.plan = "cuFFT " + std::to_string(cufft().version);
      if (type == 1) run = [&, h] { cufftCheck(cufft().execR2C(h, in.get<float>(), out.get<float2>()), "cufftExecR2C"); };
      else run = [&, h] {
        cufftCheck(cufft().execC2C(h, in.get<float2>(), out.get<float2>(), o == ph::Op::Ifft ? CUFFT_INVERSE : CUFFT_FORWARD),
                   "cufftExecC2C");
      };
    }
    r.kernelMs = medianMs(s, run, reps);
    r.bytes = (double)(inV + outV) * batch * 4;
    r.samplesPerSecond = (double)(n * batch) / (r.kernelMs * 1e-3);
    // accuracy on the first transforms
    const long long check = std::max<long long>(1, std::min<long long>(batch, n >= 65536 ? 1 : 4));
    auto hin = toHost<float>(in.get(), (size_t)(inV * check));
    auto hout = toHost<float2>(out.get(), (size_t)(outV / 2 * check));
    std::vector<cd> ref;
    for (long long b = 0; b < check; b++) {
      std::vector<cd> x(n);
      for (long long i = 0; i < n; i++)
        x[i] = o == ph::Op::Rfft ? cd(hin[b * n + i], 0) : cd(hin[2 * (b * n + i)], hin[2 * (b * n + i) + 1]);
      if (o == ph::Op::Ifft)
        for (auto& v : x) v = std::conj(v);
      refFft(x);
      if (o == ph::Op::Ifft)
        for (auto& v : x) v = std::conj(v) / (double)n;
      if (o == ph::Op::Rfft) x.resize(n / 2 + 1);
      ref.insert(ref.end(), x.begin(), x.end());
    }
    r.relError = relL2(ref, hout.data(), ref.size());
    r.errorKind = "relative L2";
    if (e2e) {
      // From pinned host memory and back through the host pipeline, on the same batch as the kernel-only
      // time (no scaling): a transform is never split across pieces, so 2^24 runs as 8 pieces of one.
      const size_t inBytes = (size_t)(inV * batch) * 4, outBytes = (size_t)(outV * batch) * 4;
      ph::PinnedBuf& hi = e2eHost(gpu, 0, inBytes);
      ph::PinnedBuf& ho = e2eHost(gpu, 1, outBytes);
      PH_CHECK(cudaMemcpy(hi.get(), in.get(), inBytes, cudaMemcpyDeviceToHost));
      if (!useCufft) {
        r.endToEndMs = medianHostMs([&] { ph::runHost(gpu, o, n, batch, hi.get<float>(), ho.get<float>(), true); },
                                    std::max(3, reps / 2));
        r.endToEndDiffers = countDiffers(gpu, out.get(), ho.get(), outBytes);
      } else {
        const int type = o == ph::Op::Rfft ? 1 : 0;
        r.endToEndMs = medianHostMs([&] {
          ph::pipelineHost(gpu, inV * 4, outV * 4, batch, hi.get(), ho.get(), true,
                           [&](int, const void* din, void* dout, long long cnt, cudaStream_t st) {
                             cufftHandle h = cplans().get(type, n, cnt, st);
                             if (type == 1)
                               cufftCheck(cufft().execR2C(h, (float*)din, (float2*)dout), "cufftExecR2C");
                             else
                               cufftCheck(cufft().execC2C(h, (float2*)din, (float2*)dout, CUFFT_FORWARD), "cufftExecC2C");
                           });
        }, std::max(3, reps / 2));
      }
    }
    return r;
  }

#ifdef PHASOR_BENCH
  if (op == "fft2") {
    const long long per = 2 * n * n;
    ph::DevBuf in((size_t)(per * batch) * 4), out((size_t)(per * batch) * 4);
    randF(in.get<float>(), per * batch, 3, s);
    std::function<void()> run;
    if (!useCufft) {
      r.plan = "rows " + gpu.plan(n).describe() + ", columns strided";
      run = [&] { ph::fft2(gpu, in.get<float2>(), out.get<float2>(), n, n, batch, false, s); };
    } else {
      cufftHandle h = cplans().get(2, n, 1, s);
      r.plan = "cuFFT 2D";
      run = [&, h] {
        for (long long b = 0; b < batch; b++)
          cufftCheck(cufft().execC2C(h, in.get<float2>() + b * n * n, out.get<float2>() + b * n * n, CUFFT_FORWARD), "2D");
      };
    }
    r.kernelMs = medianMs(s, run, reps);
    r.bytes = 2.0 * per * batch * 4;
    r.samplesPerSecond = (double)(n * n * batch) / (r.kernelMs * 1e-3);
    auto hin = toHost<float>(in.get(), (size_t)per);
    auto hout = toHost<float2>(out.get(), (size_t)(n * n));
    std::vector<cd> a(n * n);
    for (long long i = 0; i < n * n; i++) a[i] = cd(hin[2 * i], hin[2 * i + 1]);
    for (long long row = 0; row < n; row++) {
      std::vector<cd> x(a.begin() + row * n, a.begin() + (row + 1) * n);
      refFft(x);
      std::copy(x.begin(), x.end(), a.begin() + row * n);
    }
    for (long long col = 0; col < n; col++) {
      std::vector<cd> x(n);
      for (long long row = 0; row < n; row++) x[row] = a[row * n + col];
      refFft(x);
      for (long long row = 0; row < n; row++) a[row * n + col] = x[row];
    }
    r.relError = relL2(a, hout.data(), a.size());
    r.errorKind = "relative L2";
    return r;
  }
#endif

  if (op == "spectrogram-f32" || op == "spectrogram-i16") {
    const bool i16 = op == "spectrogram-i16";
    const long long hop = n / 4, count = (batch - n) / hop + 1, bins = n / 2 + 1;
    const size_t inBytes = (size_t)batch * (i16 ? 2 : 4);
    ph::DevBuf in(inBytes + 16), rows((size_t)(count * bins) * 4 + 16);
    if (i16) PH_LAUNCH(kRandI16, dim3((unsigned)ph::ceilDiv(batch, 256)), dim3(256), 0, s, in.get<short>(), batch, 5u);
    else randF(in.get<float>(), batch, 5, s);
    ph::SpectrogramConfig cfg;
    cfg.n = n;
    cfg.hop = hop;
    for (long long i = 0; i < n; i++) cfg.window.push_back((float)(0.5 - 0.5 * std::cos(2 * M_PI * i / n)));
    double S = 0;
    for (float w : cfg.window) S += w;
    ph::Source src{};
    src.fresh = in.get();
    src.freshLen = batch;
    src.dtype = i16 ? 3 : 0;
    src.scale = i16 ? 1.0f / 32768 : 1.0f;
    std::function<void()> run;
    std::unique_ptr<ph::Spectrogram> sp;
    ph::DevBuf frames, spec, win;
    if (!useCufft) {
      sp = std::make_unique<ph::Spectrogram>(gpu, cfg);
      r.plan = std::string(sp->path()) + " spectrogram";
      run = [&] { sp->runDevice(src, count, rows.get<float>(), nullptr); };
    } else {
      frames.alloc((size_t)(count * n) * 4);
      spec.alloc((size_t)(count * bins) * 8);
      win.alloc((size_t)n * 4);
      PH_CHECK(cudaMemcpy(win.get(), cfg.window.data(), n * 4, cudaMemcpyHostToDevice));
      cufftHandle h = cplans().get(1, n, count, s);
      r.plan = "framing kernel + cuFFT R2C + dB kernel";
      const float norm = (float)(4 / (S * S)), edge = (float)(1 / (S * S));
      run = [&, h, norm, edge] {
        PH_LAUNCH(kFrameWindow, dim3((unsigned)ph::ceilDiv(count * n, 256)), dim3(256), 0, s, in.get(), i16 ? 3 : 0,
                  1.0f / 32768, n, hop, count, win.get<float>(), frames.get<float>());
        cufftCheck(cufft().execR2C(h, frames.get<float>(), spec.get<float2>()), "cufftExecR2C");
        PH_LAUNCH(kPowerDb, dim3((unsigned)ph::ceilDiv(count * bins, 256)), dim3(256), 0, s, spec.get<float2>(), bins, count,
                  n, norm, edge, -300.f, rows.get<float>());
      };
    }
    r.kernelMs = medianMs(s, run, reps);
    r.bytes = (double)inBytes + (double)count * bins * 4;
    r.samplesPerSecond = (double)batch / (r.kernelMs * 1e-3);
    // accuracy: the first frames in dB against float64
    const long long check = std::min<long long>(count, 4);
    auto hrows = toHost<float>(rows.get(), (size_t)(check * bins));
    std::vector<float> x((size_t)(check - 1) * hop + n);
    if (i16) {
      auto raw = toHost<short>(in.get(), x.size());
      for (size_t i = 0; i < x.size(); i++) x[i] = raw[i] / 32768.0f;
    } else {
      x = toHost<float>(in.get(), x.size());
    }
    double worst = 0;
    for (long long f = 0; f < check; f++) {
      std::vector<cd> X(n);
      for (long long i = 0; i < n; i++) X[i] = cd((double)x[f * hop + i] * cfg.window[i], 0);
      refFft(X);
      for (long long k = 0; k < bins; k++) {
        const bool edge = k == 0 || k == n / 2;
        const double p = std::norm(X[k]) * (edge ? 1.0 : 4.0) / (S * S);
        worst = std::max(worst, std::fabs(10 * std::log10(p) - hrows[f * bins + k]));
      }
    }
    r.relError = worst;
    r.errorKind = "max |dB error|";
    if (e2e && !useCufft) {
      const size_t rowBytes = (size_t)(count * bins) * 4;
      ph::PinnedBuf& hi = e2eHost(gpu, 0, inBytes);
      ph::PinnedBuf& ho = e2eHost(gpu, 1, rowBytes);
      PH_CHECK(cudaMemcpy(hi.get(), in.get(), inBytes, cudaMemcpyDeviceToHost));
      // the product's path: Spectrogram::push from host memory (pinned here), rows to pinned memory, streamed
      ph::Input hin;
      hin.host = hi.get();
      hin.values = batch;
      hin.dtype = i16 ? ph::DType::I16 : ph::DType::F32;
      hin.scale = src.scale;
      hin.pinned = true;
      r.endToEndMs = medianHostMs([&] {
        sp->reset();
        sp->push(hin, 0, count, count * hop, ho.get<float>(), nullptr, nullptr, true);
      }, std::max(3, reps / 2));
      r.endToEndDiffers = countDiffers(gpu, rows.get(), ho.get(), rowBytes);
    }
    return r;
  }

  if (op.rfind("fir", 0) == 0) {
    const bool cplx = op == "fir";
    const int V = cplx ? 2 : 1;
    const long long frames = batch;
    ph::DevBuf in((size_t)(frames * V) * 4 + 16), out((size_t)(frames * V) * 4 + 16);
    randF(in.get<float>(), frames * V, 9, s);
    ph::FirConfig cfg;
    std::vector<double> taps(n);
    for (long long k = 0; k < n; k++) {
      // a windowed-sinc low-pass at a quarter of the band
      const double m = k - (n - 1) / 2.0;
      const double sinc = m == 0 ? 0.5 : std::sin(M_PI * 0.5 * m) / (M_PI * m);
      taps[k] = sinc * (0.54 - 0.46 * std::cos(2 * M_PI * k / std::max<long long>(1, n - 1)));
    }
    cfg.taps = taps;
    cfg.lanes = V;
    cfg.complex = cplx;
    cfg.overlapSave = op != "fir-direct";
    if (useCufft) {
      if (!cplx) { r.available = false; r.reason = "the cuFFT baseline is measured for complex input"; return r; }
      cfg.forceUnfused = true;
      cfg.fftHook = cufftHook();
    }
    if (op == "fir" && !useCufft) cfg.overlapSave = n > 0;  // like CUDA_FIR_DIRECT_MAX_TAPS (0)
    ph::Fir fir(gpu, cfg);
    r.plan = !cfg.overlapSave ? "direct form"
                              : (useCufft ? "gather + cuFFT C2C + multiply + cuFFT C2C + scatter, L=" : (fir.fused() ? "fused overlap-save, L=" : "unfused overlap-save, L=")) +
                                    std::to_string(fir.size());
    ph::Source src{};
    src.fresh = in.get();
    src.freshLen = frames * V;
    r.kernelMs = medianMs(s, [&] { fir.runDevice(src, frames, out.get<float>()); }, reps);
    r.bytes = 2.0 * frames * V * 4;
    r.samplesPerSecond = (double)frames / (r.kernelMs * 1e-3);
    const long long check = std::min<long long>(frames, 16384);
    const long long have = std::min(check + n, frames);  // frames past the input read as zeros
    auto hin = toHost<float>(in.get(), (size_t)(have * V));
    auto hout = toHost<float>(out.get(), (size_t)(check * V));
    double num = 0, den = 0;
    for (long long f = 0; f < check; f++)
      for (int v = 0; v < V; v++) {
        double acc = 0;
        for (long long k = 0; k < n; k++) {
          const long long at = f + n - 1 - k;  // source frame 0 is output frame −(M−1)
          if (at >= 0 && at < have) acc += taps[k] * hin[at * V + v];
        }
        num += (hout[f * V + v] - acc) * (hout[f * V + v] - acc);
        den += acc * acc;
      }
    r.relError = std::sqrt(num / den);
    r.errorKind = "relative L2";
    if (e2e && !useCufft) {
      ph::PinnedBuf hi, ho;
      hi.ensure((size_t)(frames * V) * 4);
      ho.ensure((size_t)(frames * V) * 4);
      PH_CHECK(cudaMemcpy(hi.get(), in.get(), (size_t)(frames * V) * 4, cudaMemcpyDeviceToHost));
      // the product's path: Fir::process from host memory (pinned here), streamed in pieces
      ph::Input hin;
      hin.host = hi.get();
      hin.values = frames * V;
      hin.pinned = true;
      r.endToEndMs = medianHostMs([&] { fir.process(hin, frames, ho.get<float>(), false, true); }, std::max(3, reps / 2));
    }
    return r;
  }

  if (op == "corr" || op == "corr-complex") {
    const bool cplx = op == "corr-complex";
    const int V = cplx ? 2 : 1;
    const long long lags = batch - n + 1;
    ph::DevBuf in((size_t)(batch * V) * 4 + 16), out((size_t)lags * 4 + 16), tm((size_t)(n * V) * 4);
    randF(in.get<float>(), batch * V, 11, s);
    randF(tm.get<float>(), n * V, 12, s);
    ph::CorrelatorConfig cfg;
    cfg.tmpl = toHost<float>(tm.get(), (size_t)(n * V));
    cfg.complex = cplx;
    if (useCufft) {
      cfg.forceUnfused = true;
      cfg.fftHook = cufftHook();
    }
    ph::Correlator cor(gpu, cfg);
    r.plan = cor.direct() ? "direct" : (useCufft ? "energies + gather + cuFFT + conj multiply + cuFFT + scores" : "fused overlap-save");
    ph::Source src{};
    src.fresh = in.get();
    src.freshLen = batch * V;
    r.kernelMs = medianMs(s, [&] { cor.runDevice(src, lags, out.get<float>()); }, reps);
    r.bytes = (double)batch * V * 4 + (double)lags * 4;
    r.samplesPerSecond = (double)batch / (r.kernelMs * 1e-3);
    const long long check = std::min<long long>(lags, 2048);
    auto hin = toHost<float>(in.get(), (size_t)((check + n) * V));
    auto hout = toHost<float>(out.get(), (size_t)check);
    double tn = 0;
    for (float t : cfg.tmpl) tn += (double)t * t;
    tn = std::sqrt(tn);
    double worst = 0;
    for (long long l = 0; l < check; l++) {
      cd acc = 0;
      double e = 0;
      for (long long k = 0; k < n; k++) {
        const cd x = cplx ? cd(hin[2 * (l + k)], hin[2 * (l + k) + 1]) : cd(hin[l + k], 0);
        const cd t = cplx ? cd(cfg.tmpl[2 * k], cfg.tmpl[2 * k + 1]) : cd(cfg.tmpl[k], 0);
        acc += x * std::conj(t);
        e += std::norm(x);
      }
      const double ref = e > 0 ? std::min(1.0, std::abs(acc) / (tn * std::sqrt(e))) : 0;
      worst = std::max(worst, std::fabs(ref - hout[l]));
    }
    r.relError = worst;
    r.errorKind = "max |score error|";
    if (e2e && !useCufft) {
      ph::PinnedBuf hi, ho;
      hi.ensure((size_t)(batch * V) * 4);
      ho.ensure((size_t)lags * 4);
      PH_CHECK(cudaMemcpy(hi.get(), in.get(), (size_t)(batch * V) * 4, cudaMemcpyDeviceToHost));
      // the product's path: Correlator::process from host memory (pinned here), every score back, streamed
      ph::Input hin;
      hin.host = hi.get();
      hin.values = batch * V;
      hin.pinned = true;
      r.endToEndMs = medianHostMs([&] {
        cor.reset();
        cor.process(hin, lags, ho.get<float>(), 0, 0, true);
      }, std::max(3, reps / 2));
    }
    return r;
  }
  r.available = false;
  r.reason = "unknown benchmark operation " + op;
  return r;
}

}  // namespace bench

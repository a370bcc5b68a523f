// Self-test of the FFT kernels against a float64 reference; builds for the GPU (nvcc) or for the CPU
// emulation (g++ -DPHASOR_EMU). Usage: selftest [sizes…]; prints one line per size, exits 1 on failure.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../fft.h"

using cd = std::complex<double>;

static void refFft(std::vector<cd>& a, int sign) {
  const size_t n = a.size();
  if (n <= 1) return;
  size_t p = 0;
  for (size_t f : {2, 3, 5, 7})
    if (n % f == 0) { p = f; break; }
  if (p == 0 || n <= 16) {
    std::vector<cd> out(n);
    for (size_t k = 0; k < n; k++) {
      cd s = 0;
      for (size_t j = 0; j < n; j++) s += a[j] * std::polar(1.0, sign * 2 * M_PI * (double)((j * k) % n) / n);
      out[k] = s;
    }
    a = out;
    return;
  }
  const size_t m = n / p;
  std::vector<std::vector<cd>> sub(p, std::vector<cd>(m));
  for (size_t r = 0; r < p; r++)
    for (size_t j = 0; j < m; j++) sub[r][j] = a[j * p + r];
  for (auto& s : sub) refFft(s, sign);
  for (size_t k = 0; k < n; k++) {
    cd s = 0;
    for (size_t r = 0; r < p; r++) s += sub[r][k % m] * std::polar(1.0, sign * 2 * M_PI * (double)((r * k) % n) / n);
    a[k] = s;
  }
}

static double relErr(const std::vector<float2>& got, const std::vector<cd>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); i++) {
    double dx = got[i].x - ref[i].real(), dy = got[i].y - ref[i].imag();
    if (!std::isfinite(got[i].x) || !std::isfinite(got[i].y)) return INFINITY;
    num += dx * dx + dy * dy;
    den += std::norm(ref[i]);
  }
  return std::sqrt(num / den);
}

int main(int argc, char** argv) {
  std::vector<long long> sizes;
  for (int i = 1; i < argc; i++) sizes.push_back(atoll(argv[i]));
  if (sizes.empty()) sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
                              3, 5, 6, 7, 9, 12, 15, 96, 100, 196, 225, 343, 375, 441, 1000, 1200, 1536, 3000,
                              44100, 48000, 11, 13, 17, 97, 1009, 12289};
  if (const char* e = std::getenv("PHASOR_ONEPASS_MAX")) ph::fftTuning().onePassMax = atoll(e);
  if (const char* e = std::getenv("PHASOR_FACTOR_MAX")) ph::fftTuning().factorMax = atoll(e);
  if (std::getenv("PHASOR_SINCOS")) ph::fftTuning().twiddleTable = false;
  if (const char* e = std::getenv("PHASOR_SWIZZLE")) ph::fftTuning().swizzle = atoi(e) != 0;
  if (const char* e = std::getenv("PHASOR_MIXED_PAD")) ph::fftTuning().mixedPad = atoi(e);
  if (const char* e = std::getenv("PHASOR_MIXED_ELEMS")) ph::fftTuning().mixedElems = atoi(e);
  if (const char* e = std::getenv("PHASOR_FAST_BASE")) ph::fftTuning().fastBase = atoi(e) != 0;
  ph::Gpu gpu(0);
  std::mt19937 rng(7);
  std::normal_distribution<double> nd;
  int fails = 0;
  for (long long n : sizes) {
    const long long batch = n >= 16384 ? 1 : (n >= 1024 ? 2 : 5);
    std::vector<float2> h(n * batch);
    for (auto& v : h) v = make_float2((float)nd(rng), (float)nd(rng));
    ph::FftPlan& plan = gpu.plan(n);
    ph::DevBuf a(n * batch * sizeof(float2)), b(n * batch * sizeof(float2));
    PH_CHECK(cudaMemcpy(a.get(), h.data(), n * batch * 8, cudaMemcpyHostToDevice));
    PH_CHECK(cudaMemset(b.get(), 0xff, n * batch * 8));
    void* sc = gpu.scratch(0, plan.scratchBytes(batch));
    plan.exec(a.get<float2>(), b.get<float2>(), batch, false, sc, gpu.stream());
    std::vector<float2> out(n * batch);
    gpu.sync();
    PH_CHECK(cudaMemcpy(out.data(), b.get(), n * batch * 8, cudaMemcpyDeviceToHost));
    std::vector<cd> ref(n * batch);
    double worst = 0;
    for (long long bb = 0; bb < batch; bb++) {
      std::vector<cd> x(n);
      for (long long i = 0; i < n; i++) x[i] = cd(h[bb * n + i].x, h[bb * n + i].y);
      refFft(x, -1);
      std::vector<float2> g(out.begin() + bb * n, out.begin() + (bb + 1) * n);
      worst = std::max(worst, relErr(g, x));
    }
    // inverse of the forward result must give the input back
    plan.exec(b.get<float2>(), b.get<float2>(), batch, true, sc, gpu.stream());
    gpu.sync();
    PH_CHECK(cudaMemcpy(out.data(), b.get(), n * batch * 8, cudaMemcpyDeviceToHost));
    std::vector<cd> xin(n * batch);
    for (long long i = 0; i < n * batch; i++) xin[i] = cd(h[i].x, h[i].y);
    double inv = relErr(out, xin);
    const double tol = n <= 4096 ? 3e-7 : 1e-6;
    const bool ok = worst <= tol && inv <= 2 * tol;
    fails += !ok;
    std::printf("%-6s n=%-8lld %-40s fwd %.2e inv %.2e\n", ok ? "ok" : "FAIL", n, plan.describe().c_str(), worst, inv);
  }
  // real transforms
  for (long long n : {1LL, 2LL, 3LL, 8LL, 9LL, 32LL, 64LL, 1024LL, 1000LL, 4097LL, 16384LL}) {
    const long long batch = 3, nb = n / 2 + 1;
    std::vector<float> x(n * batch);
    for (auto& v : x) v = (float)nd(rng);
    ph::DevBuf a(n * batch * 4 + 16), b(nb * batch * 8), c(n * batch * 4 + 16);
    PH_CHECK(cudaMemcpy(a.get(), x.data(), n * batch * 4, cudaMemcpyHostToDevice));
    ph::rfft(gpu, a.get<float>(), b.get<float2>(), n, batch, gpu.stream());
    ph::irfft(gpu, b.get<float2>(), c.get<float>(), n, batch, gpu.stream());
    gpu.sync();
    std::vector<float2> X(nb * batch);
    std::vector<float> y(n * batch);
    PH_CHECK(cudaMemcpy(X.data(), b.get(), nb * batch * 8, cudaMemcpyDeviceToHost));
    PH_CHECK(cudaMemcpy(y.data(), c.get(), n * batch * 4, cudaMemcpyDeviceToHost));
    double worst = 0, num = 0, den = 0;
    for (long long bb = 0; bb < batch; bb++) {
      std::vector<cd> r(n);
      for (long long i = 0; i < n; i++) r[i] = x[bb * n + i];
      refFft(r, -1);
      r.resize(nb);
      std::vector<float2> g(X.begin() + bb * nb, X.begin() + (bb + 1) * nb);
      worst = std::max(worst, relErr(g, r));
    }
    for (long long i = 0; i < n * batch; i++) { num += (y[i] - x[i]) * (double)(y[i] - x[i]); den += x[i] * (double)x[i]; }
    const double back = std::sqrt(num / den);
    const bool ok = worst < 1e-6 && back < 1e-6;
    fails += !ok;
    std::printf("%-6s rfft n=%-6lld fwd %.2e roundtrip %.2e\n", ok ? "ok" : "FAIL", n, worst, back);
  }
  std::printf("%s\n", fails ? "FAILED" : "all passed");
  return fails ? 1 : 0;
}

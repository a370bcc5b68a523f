// Self-test of the stream processors (FIR, correlation, spectrogram) against float64 references, and of
// the host pipeline (pinned and pageable) against device memory, on the GPU or in the CPU emulation
// (PHASOR_EMU_ASYNC=1 for deferred streams). Prints one line per case; exits 1 on a failure.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../ops.h"
#include "../processors.h"

static std::mt19937 rng(11);
static std::normal_distribution<double> nd;
static int fails = 0;

static void report(bool ok, const char* what, double err) {
  fails += !ok;
  std::printf("%-5s %-60s %.2e\n", ok ? "ok" : "FAIL", what, err);
}

static void testFir(int M, int lanes, bool complex, bool os, long long size = 0) {
  ph::Gpu& gpu = *new ph::Gpu(0);
  ph::FirConfig cfg;
  for (int i = 0; i < M; i++) cfg.taps.push_back(nd(rng) / M);
  cfg.lanes = lanes;
  cfg.complex = complex;
  cfg.overlapSave = os;
  cfg.size = size;
  ph::Fir fir(gpu, cfg);
  const long long F = 3000;
  std::vector<float> x(F * lanes);
  for (auto& v : x) v = (float)nd(rng);
  // reference
  std::vector<double> ref(F * lanes);
  for (long long f = 0; f < F; f++)
    for (int v = 0; v < lanes; v++) {
      double acc = 0;
      for (int k = 0; k < M && k <= f; k++) acc += cfg.taps[k] * x[(f - k) * lanes + v];
      ref[f * lanes + v] = acc;
    }
  // one call (all frames, zero padded), then two calls split at a segment boundary
  std::vector<float> y(F * lanes), y2(F * lanes);
  ph::Input in;
  in.host = x.data();
  in.values = F * lanes;
  fir.process(in, F, y.data());
  fir.reset();
  const long long S = os ? fir.segment() : 1;
  const long long cut = 1234;
  long long first = os ? (cut / S) * S : cut;
  ph::Input a;
  a.host = x.data();
  a.values = cut * lanes;
  fir.process(a, first, y2.data());
  ph::Input b;
  b.host = x.data() + cut * lanes;
  b.values = (F - cut) * lanes;
  fir.process(b, F - first, y2.data() + first * lanes);
  double num = 0, den = 0;
  bool same = true;
  for (long long i = 0; i < F * lanes; i++) {
    num += (y[i] - ref[i]) * (y[i] - ref[i]);
    den += ref[i] * ref[i];
    if (y[i] != y2[i]) same = false;
  }
  const double err = std::sqrt(num / den);
  char what[200];
  std::snprintf(what, sizeof what, "fir M=%d lanes=%d %s %s L=%lld%s%s", M, lanes, complex ? "complex" : "real",
                os ? "overlap-save" : "direct", fir.size(), fir.fused() ? " fused" : "", same ? " identical" : " NOT IDENTICAL");
  report(err < 1e-5 && same, what, err);
}

static void testCorr(int M, bool complex, long long size = 0) {
  ph::Gpu& gpu = *new ph::Gpu(0);
  ph::CorrelatorConfig cfg;
  const int vps = complex ? 2 : 1;
  for (int i = 0; i < M * vps; i++) cfg.tmpl.push_back((float)nd(rng));
  cfg.complex = complex;
  cfg.size = size;
  ph::Correlator cor(gpu, cfg);
  const long long N = 5000;
  std::vector<float> x(N * vps);
  for (auto& v : x) v = (float)(0.3 * nd(rng));
  // plant the template twice
  for (long long at : {700LL, 3100LL})
    for (int i = 0; i < M * vps; i++) x[at * vps + i] += cfg.tmpl[i];
  for (int i = 0; i < 50 * vps; i++) x[2000 * vps + i] = 0;  // a stretch of silence
  const long long lags = N - M + 1;
  std::vector<double> ref(lags);
  double tn = 0;
  for (float t : cfg.tmpl) tn += (double)t * t;
  tn = std::sqrt(tn);
  for (long long l = 0; l < lags; l++) {
    std::complex<double> s = 0;
    double e = 0;
    for (int k = 0; k < M; k++) {
      std::complex<double> xv = complex ? std::complex<double>(x[2 * (l + k)], x[2 * (l + k) + 1]) : x[l + k];
      std::complex<double> tv = complex ? std::complex<double>(cfg.tmpl[2 * k], cfg.tmpl[2 * k + 1]) : cfg.tmpl[k];
      s += xv * std::conj(tv);
      e += std::norm(xv);
    }
    ref[l] = e > 0 ? std::min(1.0, std::abs(s) / (tn * std::sqrt(e))) : 0.0;
  }
  std::vector<float> sc(lags);
  ph::Input in;
  in.host = x.data();
  in.values = N * vps;
  auto pk = cor.process(in, lags, sc.data(), 3, M / 2);
  double worst = 0;
  for (long long l = 0; l < lags; l++) worst = std::max(worst, std::fabs(sc[l] - ref[l]));
  char what[200];
  std::snprintf(what, sizeof what, "corr M=%d %s L=%lld%s peaks %lld %lld %lld", M, complex ? "complex" : "real",
                cor.direct() ? 0LL : 1LL, cor.direct() ? " direct" : "", pk.size() > 0 ? pk[0].lag : -1,
                pk.size() > 1 ? pk[1].lag : -1, pk.size() > 2 ? pk[2].lag : -1);
  // the peaks are the strongest scores (float64) at least a radius apart, and the two planted copies are among
  // them (with 8 samples and this noise, a chance window may outscore one copy: 700, 2976, 3100 was seen)
  const long long radius = M / 2;
  bool peaksOk = pk.size() == 3, planted700 = false, planted3100 = false;
  float lowest = 2.f;
  for (const auto& q : pk) {
    peaksOk = peaksOk && q.lag >= 0 && q.lag < lags && std::fabs(q.score - ref[q.lag]) < 2e-4;
    planted700 = planted700 || q.lag == 700;
    planted3100 = planted3100 || q.lag == 3100;
    lowest = std::min(lowest, q.score);
  }
  for (long long l = 0; l < lags && peaksOk; l++) {
    bool near = false;
    for (const auto& q : pk) near = near || std::llabs(l - q.lag) <= radius;
    if (!near && ref[l] > lowest + 2e-4) peaksOk = false;
  }
  peaksOk = peaksOk && planted700 && planted3100;
  report(worst < 2e-4 && peaksOk, what, worst);
}

/** Hann window; averaging 0.25 and peak hold when avg. */
static ph::SpectrogramConfig specConfig(int n, long long hop, bool complex, long long columns, bool avg) {
  ph::SpectrogramConfig cfg;
  cfg.n = n;
  cfg.hop = hop;
  cfg.complex = complex;
  for (int i = 0; i < n; i++) cfg.window.push_back((float)(0.5 - 0.5 * std::cos(2 * M_PI * i / n)));
  cfg.columns = columns;
  cfg.averaging = avg ? 0.25 : 0;
  cfg.peakHold = avg;
  return cfg;
}

static void testSpec(int n, long long hop, bool complex, long long columns, bool avg) {
  ph::Gpu& gpu = *new ph::Gpu(0);
  const ph::SpectrogramConfig cfg = specConfig(n, hop, complex, columns, avg);
  ph::Spectrogram sp(gpu, cfg);
  const int vps = complex ? 2 : 1;
  const long long N = 20 * n;
  std::vector<short> raw(N * vps);
  for (auto& v : raw) v = (short)(8000 * nd(rng));
  const long long count = (N - n) / hop + 1;
  const long long bins = sp.bins(), width = sp.width();
  std::vector<float> rows(count * width), av(width), pk(width);
  ph::Input in;
  in.host = raw.data();
  in.values = N * vps;
  in.dtype = ph::DType::I16;
  in.offset = 0;
  in.scale = 1.0f / 32768;
  sp.push(in, 0, count, count * hop * vps, rows.data(), avg ? av.data() : nullptr, avg ? pk.data() : nullptr);
  double S = 0;
  for (float w : cfg.window) S += w;
  double worst = 0;
  std::vector<double> lavg(width, 0.0), lpk(width, -INFINITY);
  for (long long f = 0; f < count; f++) {
    std::vector<double> P(bins);
    for (long long k = 0; k < bins; k++) {
      std::complex<double> X = 0;
      for (int i = 0; i < n; i++) {
        std::complex<double> xv = complex ? std::complex<double>(raw[2 * (f * hop + i)], raw[2 * (f * hop + i) + 1])
                                          : std::complex<double>(raw[f * hop + i], 0);
        const long long kk = complex ? ((k - n / 2) % n + n) % n : k;
        X += xv / 32768.0 * (double)cfg.window[i] * std::polar(1.0, -2 * M_PI * (double)((kk * i) % n) / n);
      }
      double norm = 1 / (S * S);
      if (!complex) norm *= (k == 0 || (n % 2 == 0 && k == n / 2)) ? 1 : 4;
      P[k] = std::norm(X) * norm;
    }
    for (long long c = 0; c < width; c++) {
      double m;
      if (columns) {
        long long lo = c * bins / width, hi = (c + 1) * bins / width;
        m = P[lo];
        for (long long k = lo + 1; k < hi; k++) m = std::max(m, P[k]);
      } else m = P[c];
      const double db = std::max(-300.0, 10 * std::log10(m));
      worst = std::max(worst, std::fabs(db - rows[f * width + c]));
      lavg[c] = f == 0 ? m : 0.25 * m + 0.75 * lavg[c];
      lpk[c] = std::max(lpk[c], (double)rows[f * width + c]);
    }
  }
  double wa = 0;
  if (avg)
    for (long long c = 0; c < width; c++) {
      wa = std::max(wa, std::fabs(10 * std::log10(lavg[c]) - av[c]));
      wa = std::max(wa, std::fabs(lpk[c] - pk[c]));
    }
  char what[200];
  std::snprintf(what, sizeof what, "spectrogram n=%d hop=%lld %s cols=%lld %s%s", n, hop, complex ? "complex" : "real",
                width, sp.path(), avg ? " avg+peak" : "");
  report(worst < 2e-3 && wa < 2e-3, what, std::max(worst, wa));
}

// The host pipeline (runHost → pipelineHost) from page-locked and from pageable memory against the same
// transforms of device memory, bit for bit, over about 7½ pieces of 64 KiB (every slot of the ring reused).
static void testPipeline(ph::Op op, long long n) {
  ph::Gpu& gpu = *new ph::Gpu(0);
  const size_t piece = 1 << 16, saved = ph::hostPiece();
  ph::hostPiece() = piece;
  const long long inV = ph::opInValues(op, n), outV = ph::opOutValues(op, n);
  const long long per = std::max<long long>(1, (long long)(piece / (4 * std::max(inV, outV))));
  const long long batch = std::max<long long>(8, (15 * per + 1) / 2);
  const size_t inBytes = (size_t)(inV * batch) * 4, outBytes = (size_t)(outV * batch) * 4;
  std::vector<float> x(inV * batch), ref(outV * batch), pageable(outV * batch);
  for (auto& v : x) v = (float)nd(rng);
  ph::DevBuf din(inBytes + 16), dout(outBytes + 16);
  PH_CHECK(cudaMemcpy(din.get(), x.data(), inBytes, cudaMemcpyHostToDevice));
  ph::runDevice(gpu, op, n, batch, din.get<float>(), dout.get<float>(), gpu.stream());
  gpu.sync();
  PH_CHECK(cudaMemcpy(ref.data(), dout.get(), outBytes, cudaMemcpyDeviceToHost));
  ph::runHost(gpu, op, n, batch, x.data(), pageable.data(), false);
  ph::PinnedBuf hin, hout;
  hin.ensure(inBytes);
  hout.ensure(outBytes);
  std::memcpy(hin.get(), x.data(), inBytes);
  ph::runHost(gpu, op, n, batch, hin.get<float>(), hout.get<float>(), true);
  const bool samePageable = std::memcmp(pageable.data(), ref.data(), outBytes) == 0;
  const bool samePinned = std::memcmp(hout.get(), ref.data(), outBytes) == 0;
  const char* names[] = {"fft", "ifft", "rfft", "irfft"};
  char what[200];
  std::snprintf(what, sizeof what, "host pipeline %s n=%lld batch=%lld: pageable %s, pinned %s", names[(int)op], n, batch,
                samePageable ? "identical" : "DIFFERS", samePinned ? "identical" : "DIFFERS");
  report(samePageable && samePinned, what, 0);
  ph::hostPiece() = saved;
}

// The stream layer's frame bookkeeping (electron/engine/backends/stream.ts, FrameCursor), for pushes from here.
struct SpecFeed {
  ph::Spectrogram& sp;
  long long n, hop, vps, bufStart = 0, buffered = 0, nextFrame = 0;
  /** Pushes fresh·vps values; rows (count × width) go to rows; returns count. */
  long long push(ph::Input in, float* rows, float* avg, float* peak, bool rowsPinned) {
    const long long fresh = in.values / vps, firstNeeded = nextFrame * hop, end = bufStart + buffered + fresh;
    long long skip = 0;
    if (buffered == 0 && bufStart < firstNeeded) {
      skip = std::min(fresh, firstNeeded - bufStart);
      bufStart += skip;
    }
    const long long total = buffered + fresh - skip;
    const long long count = end >= firstNeeded + n ? (end - n) / hop - nextFrame + 1 : 0;
    nextFrame += count;
    const long long keepFrom = std::min(total, std::max(0LL, nextFrame * hop - bufStart));
    bufStart += keepFrom;
    buffered = total - keepFrom;
    sp.push(in, skip * vps, count, keepFrom * vps, rows, avg, peak, rowsPinned);
    return count;
  }
};

// A push of many pieces of rows from page-locked memory into page-locked rows (the benchmark's path) and
// from pageable memory, against small pushes: rows, average and peak hold, bit for bit.
static void testSpecStreamed(int n, long long hop, bool complex, long long columns) {
  ph::Gpu& gpu = *new ph::Gpu(0);
  const size_t piece = 1 << 14, saved = ph::hostPiece();
  ph::hostPiece() = piece;
  const ph::SpectrogramConfig cfg = specConfig(n, hop, complex, columns, true);
  const long long vps = complex ? 2 : 1;
  long long width;
  {
    ph::Spectrogram probe(gpu, cfg);
    width = probe.width();
  }
  const long long per = std::max<long long>(1, (long long)(piece / (4 * width)));
  const long long frames = (15 * per + 1) / 2, N = (frames - 1) * hop + n + 3;
  std::vector<short> raw(N * vps);
  for (auto& v : raw) v = (short)(8000 * nd(rng));
  ph::PinnedBuf pin, pinRows;
  pin.ensure(raw.size() * 2);
  std::memcpy(pin.get(), raw.data(), raw.size() * 2);
  pinRows.ensure((size_t)(frames * width) * 4);
  // a short first push: the streamed one starts with kept values, or with hop > n with a skip
  const long long first = hop > n ? n + (hop - n) / 2 : n + hop / 2 + 3;
  auto input = [&](const void* base, long long from, long long to, bool pinned) {
    ph::Input in;
    in.host = static_cast<const short*>(base) + from * vps;
    in.values = (to - from) * vps;
    in.dtype = ph::DType::I16;
    in.offset = 1;
    in.scale = 1.0f / 32768;
    in.pinned = pinned;
    return in;
  };
  struct Out {
    std::vector<float> rows, avg, peak;
    long long streamedCount = 0;
  };
  // mode 0: small pushes; 1: one pageable push after the first; 2: pinned input and rows
  auto run = [&](int mode) {
    ph::Spectrogram sp(gpu, cfg);
    SpecFeed feed{sp, n, hop, vps};
    Out o;
    o.rows.assign(frames * width, NAN);
    o.avg.assign(width, NAN);
    o.peak.assign(width, NAN);
    float* rows = mode == 2 ? pinRows.get<float>() : o.rows.data();
    long long at = 0, done = 0;
    done += feed.push(input(raw.data(), 0, first, false), rows, o.avg.data(), o.peak.data(), false);
    at = first;
    const long long block = mode == 0 ? std::max<long long>(1, per / 2) * hop : N - first;
    while (at < N) {
      const long long to = std::min(N, at + block);
      const long long c = feed.push(input(mode == 2 ? pin.get() : raw.data(), at, to, mode == 2), rows + done * width,
                                    o.avg.data(), o.peak.data(), mode == 2);
      if (mode != 0) o.streamedCount = c;
      done += c;
      at = to;
    }
    if (mode == 2) std::memcpy(o.rows.data(), rows, o.rows.size() * 4);
    return o;
  };
  const Out small = run(0), pageable = run(1), pinned = run(2);
  auto same = [](const Out& a, const Out& b) {
    return std::memcmp(a.rows.data(), b.rows.data(), a.rows.size() * 4) == 0 &&
           std::memcmp(a.avg.data(), b.avg.data(), a.avg.size() * 4) == 0 &&
           std::memcmp(a.peak.data(), b.peak.data(), a.peak.size() * 4) == 0;
  };
  const bool ok = pageable.streamedCount > 3 * per && same(small, pageable) && same(small, pinned);
  char what[200];
  std::snprintf(what, sizeof what, "spectrogram streamed n=%d hop=%lld %s cols=%lld, %lld frames in one push: %s", n, hop,
                complex ? "complex" : "real", width, pageable.streamedCount,
                ok ? "identical" : "DIFFERS");
  report(ok, what, 0);
  ph::hostPiece() = saved;
}

int main() {
  testFir(5, 1, false, false);
  testFir(31, 2, true, false);
  testFir(31, 1, false, true);
  testFir(100, 2, true, true);
  testFir(100, 3, false, true);
  testFir(40, 1, false, true, 32768);
  testFir(40, 2, true, true, 32768);
  testCorr(8, false);
  testCorr(8, true);
  testCorr(200, false);
  testCorr(200, true);
  testCorr(200, false, 32768);
  testCorr(200, true, 32768);
  testSpec(64, 16, false, 0, false);
  testSpec(64, 64, true, 0, true);
  testSpec(64, 20, false, 10, true);
  testSpec(48, 12, false, 0, false);
  testSpec(30, 7, true, 7, true);
  // fused, every bin a column (levels straight from registers), and value pairs aligned (even hop) or not (odd)
  testSpec(128, 32, false, 0, true);
  testSpec(128, 33, false, 0, false);
  testSpec(128, 40, false, 20, true);
  testSpec(128, 31, true, 0, false);
  testPipeline(ph::Op::Fft, 256);
  testPipeline(ph::Op::Ifft, 4096);
  testPipeline(ph::Op::Fft, 16384);
  testPipeline(ph::Op::Rfft, 1000);
  testPipeline(ph::Op::Irfft, 1024);
  testSpecStreamed(64, 16, false, 0);
  testSpecStreamed(128, 32, true, 50);
  testSpecStreamed(48, 12, false, 0);
  testSpecStreamed(30, 40, true, 0);
  std::printf("%s\n", fails ? "FAILED" : "all passed");
  return fails ? 1 : 0;
}

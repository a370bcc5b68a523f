// Normalized correlation (see filter.cu and os_kernel.cuh for the fused overlap-save kernel): direct
// correlation for short templates, the unfused path with prefix sums of the energies for long ones, and
// the candidate peaks selected on the GPU.
#include "os_kernel.cuh"
#include "os_plan.h"

namespace ph {

// ---------------------------------------------------------------------------------------------------
// Correlation

__global__ void __launch_bounds__(256) kCorrDirect(Source src, int complexIn, const float* t, int M, float tnorm,
                                                   long long lags, float* out) {
  PH_DYN_SMEM(float, ts);
  const int vals = complexIn ? 2 * M : M;
  for (int i = threadIdx.x; i < vals; i += blockDim.x) ts[i] = t[i];
  __syncthreads();
  const long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= lags) return;
  double e = 0;
  if (complexIn) {
    float sr = 0.f, si = 0.f;
    for (int k = 0; k < M; k++) {
      const float xr = src.at(2 * (l + k)), xi = src.at(2 * (l + k) + 1);
      const float tr = ts[2 * k], ti = ts[2 * k + 1];
      sr = fmaf(xr, tr, fmaf(xi, ti, sr));
      si = fmaf(xi, tr, fmaf(-xr, ti, si));
      e += (double)xr * xr + (double)xi * xi;
    }
    out[l] = corrScore(sqrtf(sr * sr + si * si), tnorm, e);
  } else {
    float acc = 0.f;
    for (int k = 0; k < M; k++) {
      const float x = src.at(l + k);
      acc = fmaf(x, ts[k], acc);
      e += (double)x * x;
    }
    out[l] = corrScore(fabsf(acc), tnorm, e);
  }
}

// Prefix sums of |x|² over a whole call (unfused path): P[0] = 0, P[i+1] = P[i] + |x_i|².
constexpr int kScanTile = 4096;
__global__ void __launch_bounds__(1024) kSquareScan(Source src, int complexIn, long long n, double* P, double* sums) {
  __shared__ double q[paddedDoubles(kScanTile)];
  __shared__ double warpTot[32];
  const long long base = (long long)blockIdx.x * kScanTile;
  for (int i = threadIdx.x; i < kScanTile; i += blockDim.x) {
    const long long k = base + i;
    double v = 0;
    if (k < n) {
      if (complexIn) {
        const double a = src.at(2 * k), b = src.at(2 * k + 1);
        v = a * a + b * b;
      } else {
        const double a = src.at(k);
        v = a * a;
      }
    }
    q[padDbl(i)] = v;
  }
  __syncthreads();
  blockScanDouble(q, 0, kScanTile, 0, blockDim.x, warpTot);
  for (int i = threadIdx.x; i < kScanTile; i += blockDim.x)
    if (base + i < n) P[base + i + 1] = q[padDbl(i)];
  if (threadIdx.x == 0) sums[blockIdx.x] = q[padDbl(kScanTile - 1)];
}

__global__ void kScanSums(double* sums, long long nb) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  double run = 0;
  for (long long i = 0; i < nb; i++) {
    const double t = sums[i];
    sums[i] = run;
    run += t;
  }
}

__global__ void kAddSums(double* P, const double* sums, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) P[0] = 0.0;
  if (i < n) P[i + 1] += sums[i / kScanTile];
}

__global__ void kScoreUnfused(SegParams p, const float2* seg, const double* P, float tnorm, float* out, long long lag0) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long total = p.segments * p.S;
  if (i >= total) return;
  const long long s = i / p.S, k = i - s * p.S;
  const long long o = s * p.S + k;
  if (o >= p.outCount) return;
  const float2 c = seg[s * p.L + k];
  const float num = p.complexPairs ? sqrtf(norm2(c)) : fabsf(c.x);
  const long long a = lag0 + o;
  out[o] = corrScore(num, tnorm, P[a + p.M] - P[a]);
}

Correlator::Correlator(Gpu& gpu, const CorrelatorConfig& cfg) : gpu_(gpu), cfg_(cfg) {
  const long long vals = (long long)cfg.tmpl.size();
  M_ = cfg.complex ? vals / 2 : vals;
  if (M_ < 1) throw ArgumentError("correlate: the template must hold at least one sample");
  double e = 0;
  for (float t : cfg.tmpl) e += (double)t * t;
  tnorm_ = (float)std::sqrt(e);
  tmpl_.alloc(vals * sizeof(float));
  uploadNow(tmpl_.get(), cfg.tmpl.data(), vals * sizeof(float));
  direct_ = M_ <= kCorrDirectMax && cfg.size == 0;
  if (!direct_) {
    const bool real = !cfg.complex;
    const OsLayout l = osLayout(gpu, M_, cfg.size, real, true, cfg.forceUnfused,
                                "correlate: segment size must be a power of two ≥ 2·M");
    L_ = l.L, S_ = l.S, H_ = l.H, fused_ = l.fused, split_ = l.split;
    std::vector<double> re(L_, 0.0), im(L_, 0.0);
    for (long long k = 0; k < M_; k++) {
      re[k] = cfg.complex ? cfg.tmpl[2 * k] : cfg.tmpl[k];
      im[k] = cfg.complex ? cfg.tmpl[2 * k + 1] : 0.0;
    }
    spec_ = osFilterSpectrum(gpu, re, im, M_, -1.0, l, real);  // conj(T)
  }
  reset();
}

void Correlator::reset() { histLen_ = 0; }

void Correlator::runDevice(const Source& src, long long lags, float* out) {
  if (lags <= 0) return;
  cudaStream_t s = gpu_.stream();
  const int cin = cfg_.complex ? 1 : 0;
  if (direct_) {
    const size_t smem = (size_t)(cin ? 2 * M_ : M_) * sizeof(float);
    PH_LAUNCH(kCorrDirect, dim3((unsigned)ceilDiv(lags, 256)), dim3(256), smem, s, src, cin, tmpl_.get<float>(), (int)M_,
              tnorm_, lags, out);
    PH_CHECK_LAUNCH("direct correlation kernel");
    return;
  }
  const long long segments = ceilDiv(lags, S_);
  if (fused_) {
    OsParams p{};
    p.src = src;
    p.V = cin ? 2 : 1;
    p.lane0 = 0;
    p.laneStep = 0;
    p.M = (int)M_;
    p.S = (int)S_;
    p.segments = segments;
    p.outCount = lags;
    p.spec = spec_->get<float2>();
    p.out = out;
    p.tnorm = tnorm_;
    p.tab = gpu_.regTable(split_ ? H_ / 2 : H_);  // the narrow kernels' table rows (os_kernel.cuh osTw)
    p.wL = gpu_.table(2 * H_);
    p.split = split_;
    if (cin) launchOs<false, true>(gpu_, H_, p, 1, s);
    else launchOs<true, true>(gpu_, H_, p, 1, s);
    return;
  }
  // unfused: prefix sums of the energies over the whole call, then FFT correlation per batch of segments
  const long long nsamp = segments * S_ + M_ - 1;
  const long long nb = ceilDiv(nsamp, kScanTile);
  prefix_.ensure((nsamp + 1) * sizeof(double) + 16);
  misc_.ensure(nb * sizeof(double) + 16);
  double* P = prefix_.get<double>();
  double* sums = misc_.get<double>();
  PH_LAUNCH(kSquareScan, dim3((unsigned)nb), dim3(1024), 0, s, src, cin, nsamp, P, sums);
  PH_CHECK_LAUNCH("correlation energies");
  PH_LAUNCH(kScanSums, dim3(1), dim3(32), 0, s, sums, nb);
  PH_CHECK_LAUNCH("correlation energies");
  PH_LAUNCH(kAddSums, dim3((unsigned)ceilDiv(nsamp, 256)), dim3(256), 0, s, P, sums, nsamp);
  PH_CHECK_LAUNCH("correlation energies");
  SegParams q{};
  q.V = cin ? 2 : 1;
  q.complexPairs = cin;
  q.lane0 = 0;
  q.laneStep = 0;
  q.groups = 1;
  q.L = L_;
  q.S = S_;
  q.M = (int)M_;
  const long long per = std::max<long long>(1, (256LL << 20) / (L_ * 8));
  FftPlan* plan = cfg_.fftHook ? nullptr : &gpu_.plan(L_);
  for (long long s0 = 0; s0 < segments; s0 += per) {
    const long long cnt = std::min(per, segments - s0);
    q.src = shiftSource(src, s0 * S_ * q.V);
    q.segments = cnt;
    q.outCount = lags - s0 * S_;
    seg_.ensure(cnt * L_ * sizeof(float2) + 16);
    float2* seg = seg_.get<float2>();
    PH_LAUNCH(kGather, dim3((unsigned)ceilDiv(cnt * L_, 256)), dim3(256), 0, s, q, seg);
    PH_CHECK_LAUNCH("correlation gather");
    osThroughSpectrum(gpu_, cfg_.fftHook, plan, seg, spec_->get<float2>(), L_, cnt, s, "correlation multiply");
    PH_LAUNCH(kScoreUnfused, dim3((unsigned)ceilDiv(cnt * S_, 256)), dim3(256), 0, s, q, seg, P, tnorm_,
              out + s0 * S_, s0 * S_);
    PH_CHECK_LAUNCH("correlation scores");
  }
}

// ---------------------------------------------------------------------------------------------------
// Peaks: local maxima (greater than the left neighbour, not less than the right one, > 0), then greedy
// selection strongest first, each taken peak suppressing candidates within ±radius — like the CPU backend.
// Only a band of the strongest candidates (chosen from a histogram of their scores) is searched; when the
// band yields fewer than k peaks, every candidate is.

constexpr int kBins = 4096;

__device__ __forceinline__ bool isCand(const float* s, long long i, long long n) {
  const float v = s[i];
  if (!(v > 0.f)) return false;
  if (i > 0 && !(v > s[i - 1])) return false;
  if (i + 1 < n && v < s[i + 1]) return false;
  return true;
}
__device__ __forceinline__ int binOf(float v) { return min(kBins - 1, max(0, (int)(v * kBins))); }

__global__ void kCandHist(const float* s, long long n, unsigned* hist) {
  __shared__ unsigned h[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) h[i] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (isCand(s, i, n)) atomicAdd(&h[binOf(s[i])], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x)
    if (h[i]) atomicAdd(&hist[i], h[i]);
}

__global__ void kCandExtract(const float* s, long long n, int minBin, long long* lagOut, float* scoreOut,
                             unsigned long long* count) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (isCand(s, i, n) && binOf(s[i]) >= minBin) {
      const unsigned long long k = atomicAdd(count, 1ull);
      lagOut[k] = i;
      scoreOut[k] = s[i];
    }
}

// One block: k rounds of arg-max (score, then smaller lag) over the live candidates, each suppressing its
// ±radius neighbourhood.
__global__ void __launch_bounds__(1024) kSelect(const long long* lag, const float* score, unsigned char* dead,
                                                long long nc, int k, long long radius, long long* outLag,
                                                float* outScore, int* outCount) {
  __shared__ float bs[32];
  __shared__ long long bl[32];
  __shared__ long long bi[32];
  __shared__ int taken;
  if (threadIdx.x == 0) taken = 0;
  for (long long i = threadIdx.x; i < nc; i += blockDim.x) dead[i] = 0;
  __syncthreads();
  for (int round = 0; round < k; round++) {
    float best = -1.f;
    long long bestLag = 0x7fffffffffffffffLL, bestIdx = -1;
    for (long long i = threadIdx.x; i < nc; i += blockDim.x) {
      if (dead[i]) continue;
      const float v = score[i];
      const long long l = lag[i];
      if (v > best || (v == best && l < bestLag)) { best = v; bestLag = l; bestIdx = i; }
    }
    for (int d = 16; d > 0; d >>= 1) {
      const float ov = __shfl_down_sync(0xffffffffu, best, d);
      const long long ol = __shfl_down_sync(0xffffffffu, bestLag, d);
      const long long oi = __shfl_down_sync(0xffffffffu, bestIdx, d);
      if (ov > best || (ov == best && ol < bestLag)) { best = ov; bestLag = ol; bestIdx = oi; }
    }
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) { bs[w] = best; bl[w] = bestLag; bi[w] = bestIdx; }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int nw = (blockDim.x + 31) / 32;
      for (int i = 1; i < nw; i++)
        if (bs[i] > bs[0] || (bs[i] == bs[0] && bl[i] < bl[0])) { bs[0] = bs[i]; bl[0] = bl[i]; bi[0] = bi[i]; }
      if (bi[0] >= 0) {
        outLag[taken] = bl[0];
        outScore[taken] = bs[0];
        taken++;
      }
    }
    __syncthreads();
    if (bi[0] < 0) break;
    const long long c = bl[0];
    for (long long i = threadIdx.x; i < nc; i += blockDim.x) {
      const long long d = lag[i] - c;
      if (d <= radius && d >= -radius) dead[i] = 1;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *outCount = taken;
}

std::vector<Peak> Correlator::peaks(const float* scoresDev, long long n, int k, long long radius) {
  std::vector<Peak> res;
  if (k <= 0 || n <= 0) return res;
  cudaStream_t s = gpu_.stream();
  hist4k_.ensure(kBins * sizeof(unsigned) + 64);
  unsigned* hist = hist4k_.get<unsigned>();
  PH_CHECK(cudaMemsetAsync(hist, 0, kBins * sizeof(unsigned), s));
  const unsigned grid = (unsigned)std::min<long long>(1024, ceilDiv(n, 256));
  PH_LAUNCH(kCandHist, dim3(grid), dim3(256), 0, s, scoresDev, n, hist);
  PH_CHECK_LAUNCH("peak candidates");
  std::vector<unsigned> h(kBins);
  PH_CHECK(cudaMemcpyAsync(h.data(), hist, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  gpu_.sync();
  unsigned long long total = 0;
  for (unsigned v : h) total += v;
  if (total == 0) return res;
  const unsigned long long want = std::max<unsigned long long>(4096, 64ull * (unsigned long long)k);
  for (int attempt = 0; attempt < 2; attempt++) {
    int minBin = 0;
    unsigned long long band = total;
    if (attempt == 0) {
      unsigned long long acc = 0;
      minBin = kBins - 1;
      for (; minBin > 0; minBin--) {
        acc += h[minBin];
        if (acc >= want) break;
      }
      band = 0;
      for (int b = minBin; b < kBins; b++) band += h[b];
    }
    cand_.ensure(band * (sizeof(long long) + sizeof(float) + 1) + 4096);
    long long* lag = cand_.get<long long>();
    float* sc = reinterpret_cast<float*>(lag + band);
    unsigned char* dead = reinterpret_cast<unsigned char*>(sc + band);
    misc_.ensure(4096);
    unsigned long long* cnt = misc_.get<unsigned long long>();
    long long* outLag = reinterpret_cast<long long*>(misc_.get<char>() + 64);
    float* outScore = reinterpret_cast<float*>(misc_.get<char>() + 64 + 8 * 256);
    int* outCount = reinterpret_cast<int*>(misc_.get<char>() + 64 + 12 * 256);
    std::vector<long long> hl;
    std::vector<float> hs;
    const int kk = std::min(k, 256);
    PH_CHECK(cudaMemsetAsync(cnt, 0, sizeof(unsigned long long), s));
    PH_LAUNCH(kCandExtract, dim3(grid), dim3(256), 0, s, scoresDev, n, minBin, lag, sc, cnt);
    PH_CHECK_LAUNCH("peak extract");
    if (k <= 256) {
      PH_LAUNCH(kSelect, dim3(1), dim3(1024), 0, s, lag, sc, dead, (long long)band, kk, radius, outLag, outScore,
                outCount);
      PH_CHECK_LAUNCH("peak selection");
      int got = 0;
      PH_CHECK(cudaMemcpyAsync(&got, outCount, sizeof(int), cudaMemcpyDeviceToHost, s));
      gpu_.sync();
      if (got < k && minBin > 0 && band < total) continue;  // the band ran dry: search everything
      hl.resize(got);
      hs.resize(got);
      PH_CHECK(cudaMemcpyAsync(hl.data(), outLag, got * sizeof(long long), cudaMemcpyDeviceToHost, s));
      PH_CHECK(cudaMemcpyAsync(hs.data(), outScore, got * sizeof(float), cudaMemcpyDeviceToHost, s));
      gpu_.sync();
      for (int i = 0; i < got; i++) res.push_back(Peak{hl[i], hs[i]});
      return res;
    }
    // very many peaks asked for: select on the host from the band (the same rule)
    hl.resize(band);
    hs.resize(band);
    PH_CHECK(cudaMemcpyAsync(hl.data(), lag, band * sizeof(long long), cudaMemcpyDeviceToHost, s));
    PH_CHECK(cudaMemcpyAsync(hs.data(), sc, band * sizeof(float), cudaMemcpyDeviceToHost, s));
    gpu_.sync();
    std::vector<size_t> order(band);
    for (size_t i = 0; i < band; i++) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return hs[a] > hs[b] || (hs[a] == hs[b] && hl[a] < hl[b]);
    });
    for (size_t i : order) {
      if ((int)res.size() >= k) break;
      bool ok = true;
      for (const Peak& pk : res)
        if (std::llabs(pk.lag - hl[i]) <= radius) { ok = false; break; }
      if (ok) res.push_back(Peak{hl[i], hs[i]});
    }
    if ((int)res.size() < k && minBin > 0 && band < total) { res.clear(); continue; }
    return res;
  }
  return res;
}

std::vector<Peak> Correlator::process(const Input& in, long long lags, float* scores, int peakCount, long long radius,
                                      bool scoresPinned) {
  cudaStream_t s = gpu_.stream();
  const long long vps = cfg_.complex ? 2 : 1;
  // host blocks of more than one piece (8 MB of scores, whole segments) stream through (streamPieces)
  const long long per = streamPer(sizeof(float), direct_ ? 1 : S_);
  const bool streamed = in.host && lags > per;
  if (streamed) staging_.ensure(in.values * dtypeBytes(in.dtype) + 16);
  Source src{};
  src.hist = hist_[cur_].get<float>();
  src.histLen = histLen_;
  src.fresh = streamed ? staging_.get() : stageInput(gpu_, in, staging_, s);
  src.freshLen = in.values;
  src.dtype = (int)in.dtype;
  src.offset = in.offset;
  src.scale = in.scale;
  std::vector<Peak> res;
  if (lags > 0) {
    scores_.ensure(lags * sizeof(float) + 16);
    if (streamed) {
      streamPieces(
          gpu_, in, staging_.get(), lags, per, 1, scores_.get<float>(), scores, scoresPinned,
          // lag l reads values up to (l + M)·vps − 1 of hist ++ fresh
          [&](long long l1) { return std::min(src.length(), (l1 + M_ - 1) * vps) - histLen_; },
          [&](long long l0, long long l1) { runDevice(shiftSource(src, l0 * vps), l1 - l0, scores_.get<float>() + l0); });
    } else {
      runDevice(src, lags, scores_.get<float>());
    }
    if (peakCount > 0) res = peaks(scores_.get<float>(), lags, peakCount, radius);
    if (scores && !streamed) copyToHost(gpu_, scores, scores_.get(), lags * sizeof(float), s);
  }
  const long long keepFrom = lags * vps;
  const long long keep = std::max<long long>(0, src.length() - keepFrom);
  const int nxt = 1 - cur_;
  hist_[nxt].ensure((keep + 16) * sizeof(float));
  keepTail(src, keepFrom, keep, hist_[nxt].get<float>(), s);
  gpu_.sync();
  cur_ = nxt;
  histLen_ = keep;
  return res;
}

}  // namespace ph

// FIR filtering: overlap-save fused in one kernel (os_kernel.cuh) for filters up to a few thousand taps,
// the direct form for short ones (switch point measured: docs/cuda/NOTES.md), the FFT plans (unfused)
// for longer ones; the segment layout (os_plan.cu) is shared with correlation (corr.cu).
#include <algorithm>
#include <cmath>

#include "os_kernel.cuh"
#include "os_plan.h"

namespace ph {

// ---------------------------------------------------------------------------------------------------
// Direct form: y[f] = Σ_k h[k]·x[f − k], taps in shared memory, a tile of input per block.

struct DirectParams {
  Source src;  // frame 0 = output frame −(M−1)
  int V, M;
  long long frames;
  const float* taps;
  float* out;
  int tile;     // frames per block
  int useSmem;  // input tile in shared memory
};

__global__ void __launch_bounds__(256) kFirDirect(DirectParams p) {
  PH_DYN_SMEM(float, sm);
  float* hs = sm;
  float* xs = sm + p.M;
  const long long f0 = (long long)blockIdx.x * p.tile;
  for (int k = threadIdx.x; k < p.M; k += blockDim.x) hs[k] = p.taps[k];
  const long long span = (long long)(p.tile + p.M - 1) * p.V;
  if (p.useSmem)
    for (long long i = threadIdx.x; i < span; i += blockDim.x) xs[i] = p.src.at(f0 * p.V + i);
  __syncthreads();
  const long long outs = (long long)p.tile * p.V;
  for (long long o = threadIdx.x; o < outs; o += blockDim.x) {
    const long long f = o / p.V;
    const int v = (int)(o - f * p.V);
    if (f0 + f >= p.frames) break;
    // float partial sums of 32 taps, added in double: long filters stay accurate (the error of one long
    // float sum grows with the number of taps), in a fixed order (bit-identical whatever the blocks)
    double acc = 0.0;
    if (p.useSmem) {
      const float* x = xs + (f + p.M - 1) * p.V + v;
      for (int k0 = 0; k0 < p.M; k0 += 32) {
        const int k1 = min(p.M, k0 + 32);
        float part = 0.f;
        for (int k = k0; k < k1; k++) part = fmaf(hs[k], x[-(long long)k * p.V], part);
        acc += part;
      }
    } else {
      const long long base = (f0 + f + p.M - 1) * p.V + v;
      for (int k0 = 0; k0 < p.M; k0 += 32) {
        const int k1 = min(p.M, k0 + 32);
        float part = 0.f;
        for (int k = k0; k < k1; k++) part = fmaf(hs[k], p.src.at(base - (long long)k * p.V), part);
        acc += part;
      }
    }
    p.out[(f0 + f) * p.V + v] = (float)acc;
  }
}

// ---------------------------------------------------------------------------------------------------

Fir::Fir(Gpu& gpu, const FirConfig& cfg) : gpu_(gpu), cfg_(cfg) {
  M_ = (int)cfg.taps.size();
  if (M_ < 1) throw ArgumentError("fir: numtaps must be at least 1");
  if (cfg.lanes < 1) throw ArgumentError("fir: at least one channel is required");
  std::vector<float> tf(cfg.taps.begin(), cfg.taps.end());
  taps_.alloc(M_ * sizeof(float));
  uploadNow(taps_.get(), tf.data(), M_ * sizeof(float));
  if (cfg.overlapSave) {
    const bool real = !cfg.complex;
    const OsLayout l = osLayout(gpu, M_, cfg.size, real, false, cfg.forceUnfused,
                                "fir: segment size must be a power of two ≥ 2·numtaps");
    L_ = l.L, S_ = l.S, H_ = l.H, fused_ = l.fused, split_ = l.split;
    std::vector<double> re(L_, 0.0), im(L_, 0.0);
    for (int i = 0; i < M_; i++) re[i] = cfg.taps[i];
    spec_ = osFilterSpectrum(gpu, re, im, M_, 1.0, l, real);
  }
  reset();
}

void Fir::reset() {
  // the kept history: M−1 frames of zeros (the filter's initial state)
  const long long vals = (long long)(M_ - 1) * cfg_.lanes;
  hist_[cur_].ensure((vals + 16) * sizeof(float));
  if (vals > 0) PH_CHECK(cudaMemsetAsync(hist_[cur_].get(), 0, vals * sizeof(float), gpu_.stream()));
  histLen_ = vals;
}

void Fir::runDevice(const Source& src, long long frames, float* outDev) {
  if (frames <= 0) return;
  cudaStream_t s = gpu_.stream();
  const int V = cfg_.lanes;
  if (!cfg_.overlapSave) {
    DirectParams p{};
    p.src = src;
    p.V = V;
    p.M = M_;
    p.frames = frames;
    p.taps = taps_.get<float>();
    p.out = outDev;
    p.tile = 1024;
    const long long budget = 12 * 1024;  // floats of shared memory for the input tile
    while (p.tile > 64 && (long long)(p.tile + M_ - 1) * V + M_ > budget) p.tile /= 2;
    p.useSmem = (long long)(p.tile + M_ - 1) * V + M_ <= budget;
    const size_t smem = (size_t)(p.useSmem ? (long long)(p.tile + M_ - 1) * V + M_ : M_) * sizeof(float);
    gpu_.allowSmem(kFirDirect, smem);
    PH_LAUNCH(kFirDirect, dim3((unsigned)ceilDiv(frames, p.tile)), dim3(256), smem, s, p);
    PH_CHECK_LAUNCH("direct FIR kernel");
    return;
  }
  const long long segments = ceilDiv(frames, S_);
  if (fused_) {
    OsParams p{};
    p.src = src;
    p.V = V;
    p.M = M_;
    p.S = (int)S_;
    p.segments = segments;
    p.outCount = frames;
    p.spec = spec_->get<float2>();
    p.out = outDev;
    p.tab = gpu_.regTable(split_ ? H_ / 2 : H_);  // the narrow kernels' table rows (os_kernel.cuh osTw)
    p.wL = gpu_.table(2 * H_);
    p.split = split_;
    if (cfg_.complex) {
      p.lane0 = 0;
      p.laneStep = 2;
      launchOs<false, false>(gpu_, H_, p, V / 2, s);
    } else {
      p.lane0 = 0;
      p.laneStep = 1;
      launchOs<true, false>(gpu_, H_, p, V, s);
    }
    return;
  }
  // unfused, in batches of segments bounded by 256 MiB of scratch
  SegParams q{};
  q.V = V;
  q.complexPairs = cfg_.complex ? 1 : 0;
  q.lane0 = 0;
  q.laneStep = cfg_.complex ? 2 : 1;
  q.groups = cfg_.complex ? V / 2 : V;
  q.L = L_;
  q.S = S_;
  q.M = M_;
  const long long per = std::max<long long>(1, (256LL << 20) / (L_ * 8 * q.groups));
  FftPlan* plan = cfg_.fftHook ? nullptr : &gpu_.plan(L_);
  for (long long s0 = 0; s0 < segments; s0 += per) {
    const long long cnt = std::min(per, segments - s0);
    q.src = shiftSource(src, s0 * S_ * V);  // s0 segments (s0·S frames) on
    q.segments = cnt;
    q.outCount = frames - s0 * S_;
    const long long rows = cnt * q.groups;
    seg_.ensure(rows * L_ * sizeof(float2) + 16);
    float2* seg = seg_.get<float2>();
    PH_LAUNCH(kGather, dim3((unsigned)ceilDiv(rows * L_, 256)), dim3(256), 0, s, q, seg);
    PH_CHECK_LAUNCH("FIR gather");
    osThroughSpectrum(gpu_, cfg_.fftHook, plan, seg, spec_->get<float2>(), L_, rows, s, "FIR multiply");
    PH_LAUNCH(kScatterFir, dim3((unsigned)ceilDiv(rows * S_, 256)), dim3(256), 0, s, q, seg, outDev + s0 * S_ * V);
    PH_CHECK_LAUNCH("FIR scatter");
  }
}

void Fir::process(const Input& in, long long frames, float* out, bool outOnDevice, bool outPinned) {
  cudaStream_t s = gpu_.stream();
  const int V = cfg_.lanes;
  // host blocks of more than one piece stream through (streamPieces); pieces of whole segments, since a shift
  // by whole segments computes the same sums
  const long long per = streamPer(V * sizeof(float), cfg_.overlapSave ? S_ : 1);
  const bool streamed = in.host && !outOnDevice && frames > per;
  if (streamed) staging_.ensure(in.values * dtypeBytes(in.dtype) + 16);
  Source src{};
  src.hist = hist_[cur_].get<float>();
  src.histLen = histLen_;
  src.fresh = streamed ? staging_.get() : stageInput(gpu_, in, staging_, s);
  src.freshLen = in.values;
  src.dtype = (int)in.dtype;
  src.offset = in.offset;
  src.scale = in.scale;
  float* dst = outOnDevice ? out : nullptr;
  if (frames > 0 && !outOnDevice) {
    out_.ensure(frames * V * sizeof(float) + 16);
    dst = out_.get<float>();
  }
  if (streamed) {
    streamPieces(
        gpu_, in, staging_.get(), frames, per, V, dst, out, outPinned,
        // output frame f reads values up to (f + M − 1)·V + V − 1 of hist ++ fresh
        [&](long long f1) { return std::min(src.length(), (f1 + M_ - 1) * (long long)V) - histLen_; },
        [&](long long f0, long long f1) { runDevice(shiftSource(src, f0 * V), f1 - f0, dst + f0 * V); });
  } else {
    runDevice(src, frames, dst);
  }
  // keep the M−1 frames before the next output frame
  const long long keepFrom = frames * V;
  const long long keep = std::max<long long>(0, src.length() - keepFrom);
  const int nxt = 1 - cur_;
  hist_[nxt].ensure((keep + 16) * sizeof(float));
  keepTail(src, keepFrom, keep, hist_[nxt].get<float>(), s);
  if (frames > 0 && !outOnDevice && !streamed) {
    if (outPinned) PH_CHECK(cudaMemcpyAsync(out, dst, frames * V * sizeof(float), cudaMemcpyDeviceToHost, s));
    else copyToHost(gpu_, out, dst, frames * V * sizeof(float), s);
  }
  gpu_.sync();
  cur_ = nxt;
  histLen_ = keep;
}

}  // namespace ph

// Stateful stream processors on the GPU: spectrogram, FIR filter, normalized correlator. Each keeps its
// state on the device (the values kept from earlier blocks, averages, peaks, the filter spectrum); the
// bookkeeping of what each call computes (frame counts, segment alignment) is done by the caller and
// passed in, so that every call here is one ordered step of the stream. All run on gpu.stream().
#pragma once
#include <functional>
#include <vector>

#include "fft.h"
#include "os_plan.h"
#include "stream.cuh"

namespace ph {

/** A block of input as the caller has it: host memory (copied up) or device memory (f32 only). */
struct Input {
  const void* host = nullptr;
  const void* device = nullptr;
  long long values = 0;
  DType dtype = DType::F32;
  float offset = 0.f, scale = 1.f;
  /** host is page-locked (cudaHostAlloc): copied by DMA directly, without the pinned staging buffers. */
  bool pinned = false;
};

/** A source shifted to start at value `from` of hist ++ fresh (from ≥ 0). */
Source shiftSource(const Source& src, long long from);

/** Outputs a piece of streamPieces holds: about 8 MB of them (hostPiece()), a multiple of `unit` (a
 *  processor's segment). */
long long streamPer(size_t bytesPerOutput, long long unit);
/** Streams a host block through a processor in pieces of `per` outputs: the copy up of a piece (its fresh
 *  values up to need(end of piece), into `staging` on the device), the kernels of the piece before
 *  (step(first, end) on gpu.stream(), in order) and the copy back of the one before that (outDev → outHost,
 *  `unit` floats an output; none when outHost is null) overlap: a HostPipe (ops.h) of two slots, uploads on
 *  stream 1, copies back on stream 2. At return the output is in outHost; gpu.stream() has queued every
 *  step and waits for the last upload (the rest of the input, for the kept tail). */
void streamPieces(Gpu& gpu, const Input& in, void* staging, long long outputs, long long per, int unit,
                  const float* outDev, float* outHost, bool outPinned, const std::function<long long(long long)>& need,
                  const std::function<void(long long, long long)>& step);

/** Uploads an Input into staging device memory (reused), returning the device pointer. */
const void* stageInput(Gpu& gpu, const Input& in, DevBuf& staging, cudaStream_t s);
/** Host → device through pinned memory, in pieces, overlapping the CPU copy with the DMA. */
void copyToDevice(Gpu& gpu, void* dst, const void* host, size_t bytes, cudaStream_t s);
/** Device → host through pinned memory, in pieces. */
void copyToHost(Gpu& gpu, void* host, const void* src, size_t bytes, cudaStream_t s);

/** Copies values [from, from + count) of a Source into dst (float32). */
void keepTail(const Source& src, long long from, long long count, float* dst, cudaStream_t s);

// ---------------------------------------------------------------------------------------------------

struct SpectrogramConfig {
  long long n = 0, hop = 0;
  bool complex = false;
  std::vector<float> window;
  long long columns = 0;     // 0: no reduction
  double averaging = 0;      // 0: none
  bool peakHold = false;
  float floorDb = -300.f;
  /** |X|² → power factors (0: the CPU backend's, 4/(Σw)² real, 1/(Σw)² complex and real DC/Nyquist). */
  double norm = 0, normEdge = 0;
};

class Spectrogram {
 public:
  Spectrogram(Gpu& gpu, const SpectrogramConfig& cfg);
  long long bins() const { return bins_; }
  long long width() const { return width_; }
  /** One push: skips `skip` values of the input, then computes `count` frames, the first starting at
   *  value 0 of (kept values ++ input); keeps values from `keepFrom` on (relative to the same origin).
   *  rows: count × width dB levels (host; rowsPinned: page-locked, no staging). avg / peak (host, width
   *  each) when configured. A host block of more than one 8 MB piece of rows streams through like
   *  Fir::process (pieces of whole frames: the same rows, averages and peaks as small pushes). */
  void push(const Input& in, long long skip, long long count, long long keepFrom, float* rows, float* avg, float* peak,
            bool rowsPinned = false);
  void reset();
  /** "fused (register FFT 2048, real)" or "framing + FFT plan + rows" */
  const char* path() const { return fused_ ? "fused" : "unfused"; }

  // for the benchmark: the device-resident core of push (rows stay on the device)
  void runDevice(const Source& src, long long count, float* rowsDev, float* linDev);

 private:
  /** Folds `count` new rows (and their linear powers) into the average and peak, in frame order. */
  void fold(const float* rowsDev, const float* linDev, long long count);
  Gpu& gpu_;
  SpectrogramConfig cfg_;
  long long bins_, width_;
  float norm_, normEdge_;
  bool fused_;
  DevBuf window_, hist_[2], staging_, rows_, linear_, avg_, peak_, frames_, spec_, power_;
  int cur_ = 0;
  long long histLen_ = 0;
  bool avgInit_ = false, peakInit_ = false;
};

// ---------------------------------------------------------------------------------------------------

/** An outside FFT for the unfused overlap-save path (the cuFFT baselines of the benchmark): transforms
 *  `count` contiguous rows of L in place, unscaled both ways. */
using FftHook = std::function<void(float2* data, long long L, long long count, bool inverse, cudaStream_t s)>;

struct FirConfig {
  std::vector<double> taps;
  int lanes = 1;             // values per frame: channels × (2 if complex)
  bool complex = false;      // complex channels: lanes (2c, 2c+1) are one complex stream
  bool overlapSave = true;   // false: direct form
  long long size = 0;        // overlap-save segment FFT length (0: chosen here)
  bool forceUnfused = false; // benchmark baselines
  FftHook fftHook;
};

class Fir {
 public:
  Fir(Gpu& gpu, const FirConfig& cfg);
  long long segment() const { return S_; }   // outputs per segment (overlap-save)
  long long size() const { return L_; }
  bool fused() const { return fused_; }
  /** Computes `frames` output frames, the first at kept frame (M−1) of (kept ++ input); then keeps the
   *  last M−1 frames before output frame `frames`. out: frames × lanes values (host or device). Host in and
   *  out of more than one piece (8 MB of output) stream through: the copy up of a piece, the kernels of the
   *  one before and the copy back of the one before that overlap (streamPieces). outPinned: out is
   *  page-locked (no staging). */
  void process(const Input& in, long long frames, float* out, bool outOnDevice = false, bool outPinned = false);
  void reset();
  /** Device-resident core for the benchmark: src frame 0 is output frame −(M−1). */
  void runDevice(const Source& src, long long frames, float* outDev);

 private:
  Gpu& gpu_;
  FirConfig cfg_;
  int M_;
  long long L_ = 0, S_ = 0, H_ = 0;
  bool fused_ = false, split_ = false;  // split_: os_kernel.cuh osSplitUsed
  DevBuf taps_, hist_[2], staging_, out_, seg_;
  std::shared_ptr<DevBuf> spec_;  // the filter's spectrum, shared with later filters of the same taps
  int cur_ = 0;
  long long histLen_ = 0;
};

// ---------------------------------------------------------------------------------------------------

struct Peak {
  long long lag;
  float score;
};

struct CorrelatorConfig {
  std::vector<float> tmpl;  // interleaved when complex
  bool complex = false;
  long long size = 0;       // 0: chosen here
  bool forceUnfused = false;
  FftHook fftHook;
};

class Correlator {
 public:
  Correlator(Gpu& gpu, const CorrelatorConfig& cfg);
  long long templateLength() const { return M_; }
  long long segment() const { return S_; }
  bool direct() const { return direct_; }
  /** Computes `lags` scores, lag 0 starting at kept value 0; keeps values from lag `lags` on. Scores go
   *  to host `scores` when given (scoresPinned: page-locked, no staging); up to `peakCount` peaks (lags
   *  relative to this call) are returned. A host block of more than one 8 MB piece of scores streams
   *  through like Fir::process. */
  std::vector<Peak> process(const Input& in, long long lags, float* scores, int peakCount, long long radius,
                            bool scoresPinned = false);
  void reset();
  void runDevice(const Source& src, long long lags, float* scoresDev);
  std::vector<Peak> peaks(const float* scoresDev, long long count, int k, long long radius);

 private:
  Gpu& gpu_;
  CorrelatorConfig cfg_;
  long long M_, L_ = 0, S_ = 0, H_ = 0;
  bool direct_ = false, fused_ = false, split_ = false;  // split_: os_kernel.cuh osSplitUsed
  float tnorm_ = 0;
  DevBuf tmpl_, hist_[2], staging_, scores_, seg_, prefix_, cand_, hist4k_, misc_;
  std::shared_ptr<DevBuf> spec_;  // the template's conjugate spectrum, shared like the FIR's
  int cur_ = 0;
  long long histLen_ = 0;
};

/** Forward FFT in double precision on the host (any n; powers of two fast). For filter spectra. */
void hostFft(std::vector<double>& re, std::vector<double>& im);

}  // namespace ph

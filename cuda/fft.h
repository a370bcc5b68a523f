// Complex and real FFT plans (NumPy conventions: forward unscaled, inverse scaled by 1/n).
//
//   ph::Gpu gpu(0);
//   ph::FftPlan& plan = gpu.plan(n);                       // cached by size
//   plan.exec(in, out, batch, inverse, gpu.scratch(0, plan.scratchBytes(batch)), gpu.stream());
//
// Sizes: powers of two up to 16384 in one pass of the register kernel, 32768 in one pass on clusters of two
// blocks (sm_90 code, where the memory is slower than 4 TB/s); other 2/3/5/7-smooth sizes up to 4096 in one
// pass of a mixed-radix kernel (in registers where one fits, else in shared memory); larger smooth sizes in two
// or three passes (four-step, transposes folded into the passes; 2^23 and 2^24 in two, their 4096-point passes
// on clusters of eight blocks, under the same sm_90 and memory rule); everything else by Bluestein's chirp-z
// through a power of two.
#pragma once
#include <string>
#include <vector>

#include "gpu.h"

namespace ph {

/** Plan and kernel choices, each a knob of cuda/tuning.def (its meaning there); the defaults are the product's. */
struct FftTuning {
#define PH_KNOB(name, type, def, meaning) type name = def;
#define PH_KNOB_LIST(name, size, meaning) long long name[size] = {};
#define PH_SETTING(name, type, def, accessor, meaning)
#include "tuning.def"
#undef PH_KNOB
#undef PH_KNOB_LIST
#undef PH_SETTING
};
FftTuning& fftTuning();

class FftPlan {
 public:
  FftPlan(Gpu& gpu, long long n);
  long long n() const { return n_; }
  /** e.g. "1 pass (register, 4096)", "2 passes (64 x 256)", "Bluestein through 8192". */
  std::string describe() const;
  /** Scratch bytes exec() needs for this batch. */
  size_t scratchBytes(long long batch) const;
  /** Batched transform; out may equal in; in is never written unless it is out. */
  void exec(const float2* in, float2* out, long long batch, bool inverse, void* scratch, cudaStream_t s) const;

 private:
  enum class Kind { Copy, Reg, Mixed, Cluster, FourStep, Bluestein };
  Gpu& gpu_;
  long long n_;
  Kind kind_;
  std::vector<long long> factors_;
  bool wide_[2] = {false, false};  // a two-pass plan's passes on the cluster kernel (fftWideCluster)
  // Bluestein
  long long m_ = 0;
  FftPlan* sub_ = nullptr;
  DevBuf chirp_, bf_;
};

bool isSmooth(long long n);

/** One pass of a column FFT of size L (any smooth L the kernels take); used by the plans and the 2D FFT. */
struct ColParams;
void launchColumns(Gpu& gpu, long long L, ColParams& p, cudaStream_t s, int colsPerBlock = 0);
/** Columns per block a pass over strided columns of size L uses (enough for coalesced rows). */
int stridedCols(Gpu& gpu, long long L);

/** rfft: batch × n reals → batch × (n/2+1) complex bins. */
void rfft(Gpu& gpu, const float* in, float2* out, long long n, long long batch, cudaStream_t s, int scratchSlot = 0);
/** irfft: batch × (n/2+1) bins → batch × n reals (scaled by 1/n). Imaginary parts of DC (and Nyquist
 *  for even n) are ignored, like NumPy. */
void irfft(Gpu& gpu, const float2* in, float* out, long long n, long long batch, cudaStream_t s, int scratchSlot = 0);

/** One-kernel rfft/irfft for power-of-two n in 128 … 16384 (real.cu); false when n is not one of them. */
bool rfftFused(Gpu& gpu, const float* in, float2* out, long long n, long long batch, cudaStream_t s);
bool irfftFused(Gpu& gpu, const float2* in, float* out, long long n, long long batch, cudaStream_t s);

/** 2D FFT of rows × cols complex values (row-major), batch of them. */
void fft2(Gpu& gpu, const float2* in, float2* out, long long rows, long long cols, long long batch, bool inverse,
          cudaStream_t s);

}  // namespace ph

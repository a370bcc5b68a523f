// Complex and real FFT plans (NumPy conventions: forward unscaled, inverse scaled by 1/n).
//
//   ph::Gpu gpu(0);
//   ph::FftPlan& plan = gpu.plan(n);                       // cached by size
//   plan.exec(in, out, batch, inverse, gpu.scratch(0, plan.scratchBytes(batch)), gpu.stream());
//
// Sizes: powers of two up to 16384 in one pass of the register kernel; other 2/3/5/7-smooth sizes up to
// 4096 in one pass of a mixed-radix kernel (in registers where one fits, else in shared memory); larger
// smooth sizes in two or three passes (four-step, transposes folded into the passes); everything else by
// Bluestein's chirp-z through a power of two.
#pragma once
#include <string>
#include <vector>

#include "gpu.h"

namespace ph {

struct FftTuning {
  /** Largest power of two done in one pass (0: as large as shared memory allows, at most 16384). */
  long long onePassMax = 0;
  /** Largest power-of-two factor of a multi-pass transform. */
  long long factorMax = 2048;
  /** Pass twiddles from table rows (true; sm_90 builds only) or computed by sincospif (false). */
  bool twiddleTable = false;
  /** 8192 in one pass with 32 elements per thread (radix 32·16·16) rather than 16 (2·16·16·16). */
  bool wide8192 = true;
  /** Columns per block of a pass on the transposing kernel (transposed on one side, or a mixed-radix strided pass;
   *  power-of-two passes strided on both sides take directCols): 0 chooses (see stridedThreads). */
  int stridedCols = 0;
  /** Threads per block a strided pass aims at when choosing its columns (0: 256; 4…16 columns, ≤ 512 threads). */
  int stridedThreads = 0;
  /** A plain batch of L ≤ 32 loads and stores whole block-wide stretches through shared memory. */
  bool flatSmall = true;
  /** Kernel of contiguous passes: 0 or 1 the contiguous kernel (measured best at every size since v15), 2 the
   *  kernel compiled for transposed passes. */
  int contigKernel = 0;
  /** Threads per block of a contiguous register pass (0: as measured best, 256; 128 at L = 64). */
  int contigThreads = 0;
  /** Shared-memory layout of the register column kernels: swizzled column offsets (colOff) or an odd stride. */
  bool swizzle = true;
  /** Twiddles between the passes of a power-of-two multi-pass plan from the two-level table of double-precision
   *  values (true) or by R/4 + 3 sincospif per thread (false: measured faster on an H200, v12). */
  bool passTwiddleTable = false;
  /** Smooth sizes in the mixed-radix register kernels where one fits (true), or always in the shared-memory
   *  kernel (false: the kernel they replaced, kept to measure against). */
  bool mixedRegister = true;
  /** Elements a thread of the mixed-radix register kernel (0: chosen; else this one of kMixElems where it fits). */
  int mixedElems = 0;
  /** Threads per block a contiguous mixed-radix register pass aims at (0: 256 up to 12 elements a thread, else 128). */
  int mixedThreads = 0;
  /** Exchanges of the mixed-radix register kernel: 0 as measured best (padded one float2 in 16 where a radix
   *  before the last is a multiple of 8, else unpadded), 1 padded, 2 unpadded (each address a pointer step). */
  int mixedPad = 0;
  /** Column bases of the column kernels by 32-bit multiply-high divisions (true) or 64-bit divisions (false). */
  bool fastBase = true;
  /** Contiguous passes of the sizes in fft.cu's PH_MIX_FIXED list run a kernel with their whole register plan at
   *  compile time (true), or the run-time plan's kernel (false). */
  bool mixedFixed = true;
  /** L = 64 on the compile-time mixed-radix kernel, 8 elements a thread (radix 8·8; measured faster), or on the
   *  power-of-two kernel's 16 (radix 4·16). */
  bool mix64 = true;
  /** Register cap of the compile-time mixed-radix kernels: 0 as fft.cu's list measured best, else 64, 80, 96 or
   *  160 (those hold code for sm_90 only: for measuring). */
  int mixFixRegs = 0;
  /** Passes strided on both sides (the first of a four-step plan, the middle one of three, a 2D FFT's columns)
   *  on the direct kernel, without transposes through shared memory (true), or on the transposing kernel. */
  bool direct = true;
  /** Columns a block of the direct kernel (0: chosen, directCols in fft.cu). */
  int directCols = 0;
  /** Register cap of the direct kernel: 0 as measured best (directRegs), else 64, 72, 80 or 96 (sm_90 code only). */
  int directRegs = 0;
  /** Variant of the direct kernel (sm_90 code only: for measuring): 0 as measured best, 1 internal twiddles from
   *  two table entries a pass (the rest as products, like the default's two sincospif), 5 all from table rows, 2
   *  pass twiddles from R/4 + 3 sincospif (as the transposing kernel; the default takes R/4 + 1), 4 internal
   *  twiddles of L > 256 from five sincospif a pass (as the other kernels; the default takes two). */
  int directVariant = 0;
  /** One-pass 8192 and 16384 with the internal twiddles from two sincospif a radix-16 pass instead of five (W^2, W^3,
   *  W^8 as products). Measured on an H200 (ms, relative L2 error): 16384 0.821 → 0.764, 1.4e-7 → 1.8e-7 (cuFFT
   *  2.2e-7); 8192 0.584 → 0.572, 1.4e-7 → 1.5e-7 (cuFFT 2.4e-7). */
  bool fewTwiddles = true;
  /** Fused overlap-save kernels of 8192-point segments on 256 threads of 32 elements (two blocks an SM) instead of
   *  512 of 16 (one), by kind: 1 complex FIR, 2 real FIR, 4 correlation (os_kernel.cuh). Measured on an H200 (2^26
   *  samples, fifth session, device call 4): complex FIR 4095 taps 0.846 ms wide against 1.079 narrow; real FIR
   *  4095 taps 0.605 wide against 0.528 narrow (in call 3, before the plain-layout loads and stores, 0.614 against
   *  0.723); correlation real 0.88 narrow against 1.84 wide, complex 1.80 against 2.14. */
  int osWide = 1;
  /** Complex 8192-point segments as two 4096-point halves and a radix-2 step by warp shuffles, folded into the
   *  spectrum (os_kernel.cuh osBody SPLIT), by kind: 1 FIR, 4 correlation; before osWide. Measured on an H200 (2^26
   *  samples, seventh session, device calls 2 and 7): complex correlation 1.460 ms against 1.576 narrow and 1.966 wide
   *  (since the eighth session 1.283, its energies in the exchange buffer: two blocks an SM; 1.952 wide, call 4);
   *  complex FIR 2047 taps 0.601–0.608 against 0.611 wide, 4095 taps 0.848–0.852 against 0.847 wide. */
  int osSplit = 5;
  /** Twiddles of the narrow fused overlap-save kernels: 0 as measured best (os_kernel.cuh osTw), 1 table rows, 2 two
   *  a pass by sincospif and products, 3 two a pass from table rows and products (the variants that are not the
   *  default hold code for sm_90 only: for measuring). */
  int osTwiddles = 0;
  /** Threads per block of the fused overlap-save FIR kernels below 8192 points: 0 one segment a block (at least 64
   *  threads, measured best), else at most 256. */
  int osThreads = 0;
  /** The factors of a multi-pass plan, in pass order, where they multiply to the size and each has a pass
   *  (0 ends the list; all 0: chosen by factorize). */
  long long factors[3] = {0, 0, 0};
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
  enum class Kind { Copy, Reg, Mixed, FourStep, Bluestein };
  Gpu& gpu_;
  long long n_;
  Kind kind_;
  std::vector<long long> factors_;
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

// Overlap-save planning shared by the FIR filter (filter.cu) and the correlator (corr.cu): the segment size
// chosen for a filter or template of length M, and the layout both constructors derive from it. The kernels
// are in os_kernel.cuh; this header is plain host code (the addon reads osPlan for the TypeScript side).
#pragma once
#include <vector>

#include "gpu.h"

namespace ph {

/** How overlap-save runs for a filter (corr = false) or template (corr = true) of length M. */
struct OsPlan {
  bool direct = false;  // correlation only: short templates are correlated directly
  bool fused = false;
  long long size = 0;     // segment FFT length (samples)
  long long segment = 0;  // outputs per segment
};
/** Templates up to this length are correlated directly. */
constexpr long long kCorrDirectMax = 32;
OsPlan osPlan(size_t smemOptin, long long M, bool real, bool corr);
/** Largest complex FFT of a fused overlap-save segment (benchmark variants; default 8192). */
long long& osMaxH();
/** Smallest complex FFT of a fused overlap-save segment the choice considers (benchmark variants; default 0). */
long long& osMinH();

/** The segments of one overlap-save filter or correlator of length M: the FFT length L (`size` when given, which
 *  must be a power of two ≥ 2·M, else osPlan's choice), S = L − M + 1 outputs a segment, whether the fused kernel
 *  runs them (never with forceUnfused, the benchmark's cuFFT baselines), the complex FFT length H (L/2 for a fused
 *  real stream, else L) and whether that is the split kernel (os_kernel.cuh osSplitUsed). */
struct OsLayout {
  long long L = 0, S = 0, H = 0;
  bool fused = false, split = false;
};
/** sizeError: the message when `size` is not a power of two ≥ 2·M. */
OsLayout osLayout(Gpu& gpu, long long M, long long size, bool real, bool corr, bool forceUnfused,
                  const char* sizeError);
/** The spectrum of the zero-padded filter re + i·im (each of length L, zero from `used` on; sign −1: the
 *  conjugate, for correlation) in the form the layout's kernels read (os_kernel.cuh osUploadSpectrum). A filter or
 *  template seen before on this device (same values, layout and sign) gets the kept copy (Gpu::shared): a long
 *  filter's host transform is paid once per process, not per job. re and im may be transformed in place. */
std::shared_ptr<DevBuf> osFilterSpectrum(Gpu& gpu, std::vector<double>& re, std::vector<double>& im, long long used,
                                         double sign, const OsLayout& l, bool real);

}  // namespace ph

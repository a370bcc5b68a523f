// Benchmarks of the CUDA backend against raw cuFFT and unfused cuFFT pipelines, timed with CUDA events on
// data already on the device (kernel-only) and from pinned host memory (end to end). Used by the
// standalone runner (bench/cuda/main.cu, `npm run gpu:check`) and by the addon's benchmark() for
// `phasor bench`.
#pragma once
#include <string>

#include "../../cuda/gpu.h"

namespace bench {

struct Result {
  std::string op, impl, plan, reason, errorKind;
  long long n = 0, batch = 0;
  bool available = true;
  double kernelMs = 0;          // median, data on the device
  double endToEndMs = 0;        // median, from pinned host memory and back (0: not measured)
  double endToEndDiffers = -1;  // 32-bit words of the end-to-end output unlike the kernel-only one (-1: not compared)
  double samplesPerSecond = 0;  // input samples (complex or real) per second, kernel-only
  double bytes = 0;             // bytes read + written per run, for the effective bandwidth
  double relError = 0;          // against float64 (errorKind says which measure)
};

/**
 * op: "copy" (device-to-device, n·batch float2), "h2d" / "d2h" (pinned, n·batch float2),
 *     "fft", "ifft", "rfft" (size n, batch), "fft2" (n × n, batch),
 *     "spectrogram-f32" / "spectrogram-i16" (fft n, hop n/4, batch = samples, real input),
 *     "fir" (n taps, batch complex samples), "fir-real", "fir-direct", "fir-os" (forced methods, real),
 *     "corr" (template n, batch real samples), "corr-complex".
 * cufft: the reference instead of Phasor's kernels — raw cuFFT for transforms, and for the processors
 *     the unfused pipelines built on cuFFT (framing + R2C + dB; gather + C2C + multiply + C2C + scatter).
 */
Result measure(ph::Gpu& gpu, const std::string& op, long long n, long long batch, bool cufft, int reps = 10,
               bool endToEnd = true);

}  // namespace bench

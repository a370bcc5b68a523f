// The CUDA backend's device timer: its kernels, or raw cuFFT and unfused cuFFT pipelines as the reference,
// timed with CUDA events on data already on the device (kernel-only) and from pinned host memory (end to
// end). Product code: the addon's benchmark() behind the backend's DeviceTimer, which `phasor bench` and the
// benchmark view print. The bench build (node native/build.mjs --bench: phasor_cuda_bench.node, compiled with
// PHASOR_BENCH) also takes the operations only the measurements in bench/cuda use.
#pragma once
#include <string>

#include "gpu.h"

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
 * op: "copy" (device-to-device, n·batch float2), "h2d" (pinned, n·batch float2),
 *     "fft", "rfft" (size n, batch),
 *     "spectrogram-f32" / "spectrogram-i16" (fft n, hop n/4, batch = samples, real input),
 *     "fir" (n taps, batch complex samples), "fir-real" (real),
 *     "corr" (template n, batch real samples);
 *   the bench build only (isBenchOnly): "d2h", "ifft", "fft2" (n × n, batch), "fir-direct" / "fir-os" (forced
 *     methods, real), "corr-complex".
 * cufft: the reference instead of Phasor's kernels — raw cuFFT for transforms, and for the processors
 *     the unfused pipelines built on cuFFT (framing + R2C + dB; gather + C2C + multiply + C2C + scatter).
 */
/** The operations only the measurements in bench/cuda use: unavailable in the shipping addon. */
bool isBenchOnly(const std::string& op);

Result measure(ph::Gpu& gpu, const std::string& op, long long n, long long batch, bool cufft, int reps = 10,
               bool endToEnd = true);

}  // namespace bench

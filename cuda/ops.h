// Whole operations on host or device data, as the addon and the benchmark call them: transforms of a
// batch held in host memory run as a pipeline (pieces of the batch copied up, transformed and copied
// back on two streams, so the copies in both directions and the kernels overlap).
#pragma once
#include <functional>

#include "fft.h"

namespace ph {

enum class Op { Fft, Ifft, Rfft, Irfft };

/** Values (floats) in and out per transform of size n. */
long long opInValues(Op op, long long n);
long long opOutValues(Op op, long long n);

/** Runs `batch` transforms of host data (pinnedHost: the host arrays are page-locked, no staging). */
void runHost(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, bool pinnedHost = false);
/** Device in, device out (out must hold batch·opOutValues). Uses gpu.stream(). */
void runDevice(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, cudaStream_t s,
               int scratchSlot = 0);

/** The host pipeline itself: `units` work units of inUnit bytes in and outUnit bytes out, in pieces
 *  of about 32 MiB on two streams; compute(slot, dIn, dOut, count, stream) does a piece on the device. */
void pipelineHost(Gpu& gpu, size_t inUnit, size_t outUnit, long long units, const void* in, void* out, bool pinnedHost,
                  const std::function<void(int, const void*, void*, long long, cudaStream_t)>& compute);

/** Copies with several host threads (large copies are limited by one core's memory bandwidth). */
void parallelCopy(void* dst, const void* src, size_t bytes);

}  // namespace ph

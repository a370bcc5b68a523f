// Shared by every kernel and by the host code: the CUDA (or emulation) headers, launch macros, complex
// arithmetic on interleaved float2, and error checking that turns a CUDA status into a C++ exception.
#pragma once

#ifdef PHASOR_EMU
#include "emu/cuda_emu.h"
// A kernel launch: PH_LAUNCH(PH_K(kernel<A, B>), grid, block, sharedBytes, stream, args...)
#define PH_LAUNCH(kernel, grid, block, smem, stream, ...) \
  (emu::lastError() = (cudaError_t)emu::launchKernel((stream), (grid), (block), (smem), &kernel, __VA_ARGS__))
#define PH_DYN_SMEM(T, name) T* name = reinterpret_cast<T*>(emu::g_block->dynSmem.data())
// A launch in clusters of `size` blocks along x (sm_90), the cluster size chosen at run time
#define PH_LAUNCH_CLUSTER(kernel, grid, block, smem, stream, size, ...)                                   \
  (emu::lastError() = (cudaError_t)emu::launchClusterKernel((stream), (grid), (block), (smem), (size), &kernel, \
                                                            __VA_ARGS__))
// The body of a kernel that needs sm_90 (clusters): compiled for the emulation and sm_90 code only
#define PH_SM90_CODE 1
#else
#include <cuda_runtime.h>
#define PH_LAUNCH(kernel, grid, block, smem, stream, ...) kernel<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__)
#define PH_DYN_SMEM(T, name)                                    \
  extern __shared__ __align__(16) unsigned char ph_dyn_smem_[]; \
  T* name = reinterpret_cast<T*>(ph_dyn_smem_)
#define PH_LAUNCH_CLUSTER(kernel, grid, block, smem, stream, size, ...) \
  ph::launchClusterEx((size), (grid), (block), (smem), (stream), &kernel, __VA_ARGS__)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PH_SM90_CODE 1
#endif
#endif
#define PH_K(...) __VA_ARGS__

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace ph {

#ifndef PHASOR_EMU
/** A kernel launch in clusters of `size` blocks along x (cudaLaunchKernelEx: __cluster_dims__ would not compile
 *  for the builds' architectures before sm_90, whose code of such kernels is empty and never launched). */
template <class... P, class... A>
inline cudaError_t launchClusterEx(unsigned size, dim3 grid, dim3 block, size_t smem, cudaStream_t s,
                                   void (*kernel)(P...), A&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = size;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
}
#endif

// ---------------------------------------------------------------------------------------------------
// Errors

/** A CUDA failure. `sticky` ones (illegal address, launch failure…) leave the context unusable. */
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what, bool sticky)
      : std::runtime_error(what), code_(code), sticky_(sticky) {}
  cudaError_t code() const { return code_; }
  bool sticky() const { return sticky_; }

 private:
  cudaError_t code_;
  bool sticky_;
};

/** Bad arguments caught on the host (never a CUDA failure). */
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline bool isStickyError(cudaError_t e) {
  switch ((int)e) {
    case 700:  // cudaErrorIllegalAddress
    case 702:  // cudaErrorLaunchTimeout
    case 713:  // cudaErrorHardwareStackError
    case 714:  // cudaErrorIllegalInstruction
    case 715:  // cudaErrorMisalignedAddress
    case 716:  // cudaErrorInvalidAddressSpace
    case 717:  // cudaErrorInvalidPc
    case 719:  // cudaErrorLaunchFailure
    case 214:  // cudaErrorECCUncorrectable
    case 46:   // cudaErrorDevicesUnavailable
    case 999:  // cudaErrorUnknown
      return true;
    default:
      return false;
  }
}

[[noreturn]] inline void throwCuda(cudaError_t e, const char* what) {
  // a failed call also sets the runtime's last error: clear it, or the next launch check reports it again
  if (!isStickyError(e)) (void)cudaGetLastError();
  std::string msg = std::string(what) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
  throw CudaError(e, msg, isStickyError(e));
}

#define PH_CHECK(expr)                              \
  do {                                              \
    cudaError_t ph_e_ = (expr);                     \
    if (ph_e_ != cudaSuccess) ph::throwCuda(ph_e_, #expr); \
  } while (0)

/** Copies host data that kernels will read (tables, taps, spectra, windows) to the device and waits until it has
 *  landed. A plain cudaMemcpy from pageable memory may return once the data is staged, before its DMA reaches the
 *  device, and the library's streams are non-blocking (not ordered after the legacy stream that copy runs on): a
 *  kernel queued next could read part of the old contents (seen on an H200: the first row of a new spectrogram
 *  differed now and then). Setup only: it waits for the whole device. */
inline void uploadNow(void* dst, const void* src, size_t bytes) {
  PH_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  PH_CHECK(cudaDeviceSynchronize());
}

/** Checks the launch that just happened (configuration errors surface here, faults at the next sync). */
#define PH_CHECK_LAUNCH(name)                           \
  do {                                                  \
    cudaError_t ph_e_ = cudaGetLastError();             \
    if (ph_e_ != cudaSuccess) ph::throwCuda(ph_e_, name); \
  } while (0)

// ---------------------------------------------------------------------------------------------------
// Complex arithmetic on interleaved float2 (x = real, y = imaginary)

__host__ __device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__host__ __device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__host__ __device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/** a · conj(b) */
__host__ __device__ __forceinline__ float2 cmulc(float2 a, float2 b) {
  return make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}
__host__ __device__ __forceinline__ float2 cscale(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
__host__ __device__ __forceinline__ float2 conjf2(float2 a) { return make_float2(a.x, -a.y); }
/** −i · a */
__host__ __device__ __forceinline__ float2 mulmi(float2 a) { return make_float2(a.y, -a.x); }
/** +i · a */
__host__ __device__ __forceinline__ float2 mulpi(float2 a) { return make_float2(-a.y, a.x); }
__host__ __device__ __forceinline__ float norm2(float2 a) { return a.x * a.x + a.y * a.y; }

__host__ __device__ __forceinline__ long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }
__host__ __device__ __forceinline__ bool isPow2(long long n) { return n > 0 && (n & (n - 1)) == 0; }
/** The smallest power of two ≥ n (1 for n ≤ 1). */
__host__ __device__ __forceinline__ long long nextPow2(long long n) {
  long long p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace ph

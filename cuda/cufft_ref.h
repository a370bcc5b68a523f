// cuFFT, loaded at run time (dlopen) only as a reference for benchmarks and comparisons: Phasor never
// needs it to build or run. The few entry points used are declared here.
#pragma once
#include <string>

#include "common.cuh"

namespace bench {

using cufftHandle = int;
enum { CUFFT_R2C = 0x2a, CUFFT_C2C = 0x29 };
enum { CUFFT_FORWARD = -1, CUFFT_INVERSE = 1 };

struct Cufft {
  bool ok = false;
  std::string reason;   // why it is absent
  std::string library;  // file loaded
  int version = 0;
  int (*plan1d)(cufftHandle*, int, int, int) = nullptr;
  int (*plan2d)(cufftHandle*, int, int, int) = nullptr;
  int (*execC2C)(cufftHandle, float2*, float2*, int) = nullptr;
  int (*execR2C)(cufftHandle, float*, float2*) = nullptr;
  int (*setStream)(cufftHandle, cudaStream_t) = nullptr;
  int (*destroy)(cufftHandle) = nullptr;
  int (*getVersion)(int*) = nullptr;
};

/** Loads libcufft.so.12 (or .11, or .13) once; `ok` false with `reason` when it is not there. */
const Cufft& cufft();

/** Throws when a cuFFT call fails. */
void cufftCheck(int status, const char* what);

}  // namespace bench

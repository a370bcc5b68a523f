#include "cufft_ref.h"

#include <dlfcn.h>

namespace bench {

const Cufft& cufft() {
  static Cufft c = [] {
    Cufft r;
#ifdef PHASOR_EMU
    r.reason = "cuFFT is not available in the CPU emulation";
    return r;
#else
    void* h = nullptr;
    for (const char* name : {"libcufft.so.12", "libcufft.so.11", "libcufft.so.13", "libcufft.so"}) {
      h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (h) {
        r.library = name;
        break;
      }
    }
    if (!h) {
      r.reason = "cuFFT not found (libcufft.so.12 / .11 not on the library path)";
      return r;
    }
    auto sym = [&](const char* s) { return dlsym(h, s); };
    r.plan1d = reinterpret_cast<int (*)(cufftHandle*, int, int, int)>(sym("cufftPlan1d"));
    r.plan2d = reinterpret_cast<int (*)(cufftHandle*, int, int, int)>(sym("cufftPlan2d"));
    r.execC2C = reinterpret_cast<int (*)(cufftHandle, float2*, float2*, int)>(sym("cufftExecC2C"));
    r.execR2C = reinterpret_cast<int (*)(cufftHandle, float*, float2*)>(sym("cufftExecR2C"));
    r.setStream = reinterpret_cast<int (*)(cufftHandle, cudaStream_t)>(sym("cufftSetStream"));
    r.destroy = reinterpret_cast<int (*)(cufftHandle)>(sym("cufftDestroy"));
    r.getVersion = reinterpret_cast<int (*)(int*)>(sym("cufftGetVersion"));
    if (!r.plan1d || !r.plan2d || !r.execC2C || !r.execR2C || !r.setStream || !r.destroy) {
      r.reason = std::string(r.library) + " lacks an entry point Phasor uses";
      return r;
    }
    if (r.getVersion) r.getVersion(&r.version);
    r.ok = true;
    return r;
#endif
  }();
  return c;
}

void cufftCheck(int status, const char* what) {
  if (status != 0) throw ph::CudaError(cudaErrorUnknown, std::string(what) + ": cuFFT error " + std::to_string(status), false);
}

}  // namespace bench

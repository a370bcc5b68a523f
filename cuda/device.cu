#include <dlfcn.h>

#include <cmath>
#include <future>
#include <cstdio>
#include <mutex>

#include "device.h"

#ifndef PHASOR_ARCHS
#define PHASOR_ARCHS "unknown"
#endif

namespace ph {

const char* buildArchs() {
#ifdef PHASOR_EMU
  return "CPU emulation (no GPU code)";
#else
  return PHASOR_ARCHS;
#endif
}

std::string driverVersion() {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return "";
  using InitFn = int (*)();
  using VerFn = int (*)(char*, unsigned);
  auto init = reinterpret_cast<InitFn>(dlsym(h, "nvmlInit_v2"));
  auto ver = reinterpret_cast<VerFn>(dlsym(h, "nvmlSystemGetDriverVersion"));
  auto shut = reinterpret_cast<InitFn>(dlsym(h, "nvmlShutdown"));
  std::string out;
  if (init && ver && init() == 0) {
    char buf[96] = {0};
    if (ver(buf, sizeof buf) == 0) out = buf;
    if (shut) shut();
  }
  dlclose(h);
  return out;
}

static std::string cudaVersionText(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

static Probe probeNow(int device) {
  Probe p;
#ifndef PHASOR_EMU
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    p.reason = "no NVIDIA driver: libcuda.so.1 was not found";
    return p;
  }
  dlclose(lib);
#endif
  // NVML's answer (the driver's full version) is asked beside the driver's start, not after it
  std::future<std::string> nvml = std::async(std::launch::async, driverVersion);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  if (e == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();
    p.reason = "the NVIDIA driver is too old: it supports CUDA " + cudaVersionText(driver) + ", this build needs CUDA " +
               cudaVersionText(runtime) + " or newer (update the driver)";
    return p;
  }
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
    (void)cudaGetLastError();
    p.reason = "no CUDA device found";
    return p;
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    p.reason = std::string("CUDA could not start: ") + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
    return p;
  }
  if (device < 0 || device >= count) {
    p.reason = "no CUDA device number " + std::to_string(device) + " (" + std::to_string(count) + " found)";
    return p;
  }
  cudaDeviceProp prop{};
  e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    p.reason = std::string("CUDA device ") + std::to_string(device) + " cannot be queried: " + cudaGetErrorString(e);
    return p;
  }
  if (prop.major < 7 || (prop.major == 7 && prop.minor < 5)) {
    p.reason = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
               ") is older than this build supports (" + buildArchs() + ")";
    return p;
  }
  p.available = true;
  std::string drv = nvml.get();
  std::string shortDrv = drv;
  {
    // 580.159.04 → 580.159
    size_t a = drv.find('.');
    size_t b = a == std::string::npos ? std::string::npos : drv.find('.', a + 1);
    if (b != std::string::npos) shortDrv = drv.substr(0, b);
  }
  const double gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
  char name[512];
  std::snprintf(name, sizeof name, "%s (driver %s, %.0f GiB, sm_%d%d)", prop.name,
                shortDrv.empty() ? ("CUDA " + cudaVersionText(driver)).c_str() : shortDrv.c_str(), gib, prop.major,
                prop.minor);
  p.device = name;
  p.text["gpu"] = prop.name;
  p.text["driver"] = drv.empty() ? "unknown" : drv;
  p.text["driverCuda"] = cudaVersionText(driver);
  p.text["runtimeCuda"] = cudaVersionText(runtime);
  p.text["computeCapability"] = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  p.text["buildArchs"] = buildArchs();
  // who else may use the GPU while this process holds a context: "default" (any number of processes), else
  // one process at a time ("exclusive-process") or none ("prohibited")
  int mode = -1;
  if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device) != cudaSuccess) (void)cudaGetLastError();
  p.text["computeMode"] = mode == cudaComputeModeExclusiveProcess ? "exclusive-process"
                          : mode == cudaComputeModeProhibited     ? "prohibited"
                          : mode == cudaComputeModeDefault        ? "default"
                                                                  : "other";
  p.numbers["memoryGiB"] = std::round(gib * 10) / 10;
  p.numbers["multiprocessors"] = prop.multiProcessorCount;
  p.numbers["l2MiB"] = std::round(prop.l2CacheSize / 1048576.0 * 10) / 10;
  p.numbers["sharedMemPerBlockKiB"] = (double)prop.sharedMemPerBlockOptin / 1024.0;
  p.numbers["devices"] = count;
  return p;
}

// A device found usable is described once: its name, driver and memory do not change while the process
// runs (a device lost later fails its next call instead), so opening the backend after probing it, or after
// warm(), does not query the driver and NVML again. A second caller waits for the first one's answer.
Probe probe(int device) {
  static std::mutex m;
  static std::map<int, Probe> usable;
  std::lock_guard<std::mutex> lock(m);
  auto it = usable.find(device);
  if (it != usable.end()) return it->second;
  Probe p = probeNow(device);
  if (p.available) usable[device] = p;
  return p;
}

__global__ void kFault(float* p) { p[threadIdx.x] = 1.0f; }

void warm(int device) {
  if (!probe(device).available) return;
  if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(nullptr);  // the primary context, shared by every later call
  (void)cudaGetLastError();
}

void injectFault(Gpu& gpu) {
#ifdef PHASOR_EMU
  (void)gpu;
  throw CudaError(cudaErrorIllegalAddress, "injected fault: an illegal memory access was encountered", true);
#else
  float* bad = reinterpret_cast<float*>(static_cast<uintptr_t>(0x10));
  PH_LAUNCH(kFault, dim3(1), dim3(32), 0, gpu.stream(), bad);
  PH_CHECK_LAUNCH("fault injection");
  gpu.sync();
#endif
}

}  // namespace ph

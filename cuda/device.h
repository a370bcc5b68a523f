// What the machine offers: whether a CUDA device can be used here and, if not, why, in words; the
// driver's version; a deliberate fault for testing how a sticky error is handled.
#pragma once
#include <map>
#include <string>

#include "gpu.h"

namespace ph {

struct Probe {
  bool available = false;
  std::string reason;       // when not available
  std::string device;       // "NVIDIA H200 (driver 580.159, 139 GiB, sm_90)"
  std::map<std::string, std::string> text;
  std::map<std::string, double> numbers;
};

/** Never throws. Checks the driver library, the driver's CUDA version and the devices; a usable device's
 * answer is remembered for the process. */
Probe probe(int device = 0);
/** Never throws. Starts the driver and the device's primary context (the first CUDA call's cost), ignoring
 * failures: probe() reports them. */
void warm(int device = 0);
/** The NVIDIA driver version ("580.159.04") through NVML, or "" when NVML is absent. */
std::string driverVersion();
/** Launches a kernel that writes to an invalid address and waits: throws a sticky CudaError. */
void injectFault(Gpu& gpu);
/** The architectures this build holds machine code for, e.g. "sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX". */
const char* buildArchs();

}  // namespace ph

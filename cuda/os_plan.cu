// Overlap-save planning (os_plan.h): the segment-size choice and the set-up shared by the FIR filter and the
// correlator. Host code only; the sizing rules of the fused kernels (osFits, osSplitUsed) come from os_kernel.cuh.
#include "os_plan.h"

#include <algorithm>
#include <cmath>

#define PH_OS_SIZING_ONLY  // the sizing rules of os_kernel.cuh, without its unfused kernels
#include "os_kernel.cuh"

namespace ph {

// Segment sizes: the power of two with the least estimated cost per output. A segment of L samples yields
// L − M + 1 outputs; its cost is L times a weight per size and kind, measured (the store of each output costs
// the same at every size, so it does not enter the choice).

long long& osMaxH() {
  static long long h = 8192;
  return h;
}
long long& osMinH() {
  static long long h = 0;
  return h;
}

/** Kernel time a segment sample of the fused FIR kernels (H = 128 … 8192), less the output stores, relative:
 *  fitted to measured runs as t = a·segments + b·outputs, b from the 8192-point kernel at 31 and 4095 taps. At 8192
 *  points the complex weight is the split kernel's (osSplit's default) and the real one the narrow kernel's
 *  (osWide's default). With these weights the choice is the fastest size, or within 3 % of it, from 31 to 4095 taps
 *  (docs/cuda/NOTES.md has the runs and the analytic weight they replaced). */
static double osWeight(long long H, bool real) {
  static const double cplx[] = {0.165, 0.140, 0.167, 0.175, 0.200, 0.238, 0.337};
  static const double re[] = {0.107, 0.064, 0.108, 0.111, 0.132, 0.174, 0.287};
  int i = 0;
  while ((128LL << i) < H && i < 6) i++;
  return real ? re[i] : cplx[i];
}

OsPlan osPlan(size_t smemOptin, long long M, bool real, bool corr) {
  OsPlan plan;
  if (corr && M <= kCorrDirectMax) {
    plan.direct = true;
    return plan;
  }
  const long long minH = corr ? 512 : 128;  // the smallest fused kernels compiled (os_kernel.cuh)
  long long best = 0;
  double bestCost = 1e300;
  long long L = std::max<long long>(nextPow2(2 * M), real ? 2 * minH : minH);
  const long long maxL = real ? 16384 : 8192;
  for (; L <= maxL; L *= 2) {
    const long long H = real ? L / 2 : L;
    if (H > osMaxH() || !osFits(smemOptin, H, corr, real)) break;
    if (H < osMinH()) continue;
    double cost;
    if (corr) {
      // correlation (templates ≥ 256, so 4096- or 8192-point segments for the usual ones): the analytic weight;
      // 8192-point segments cost more a sample than it says, measured 1.4× on the narrow kernel and 1.2× on the
      // wide one (docs/cuda/NOTES.md)
      const bool wide = (fftTuning().osWide & 4) || osSplitUsed(H, real, true);  // the split kernel: as the wide one
      cost = (double)L * (std::log2((double)L) + 6.0) / (double)(L - M + 1) * (H >= 8192 ? (wide ? 1.2 : 1.4) : 1.0);
    } else {
      cost = (double)L * osWeight(H, real) / (double)(L - M + 1);
    }
    if (cost < bestCost) { bestCost = cost; best = L; }
  }
  plan.fused = best > 0;
  plan.size = plan.fused ? best : nextPow2(4 * M);
  plan.segment = plan.size - M + 1;
  return plan;
}

OsLayout osLayout(Gpu& gpu, long long M, long long size, bool real, bool corr, bool forceUnfused,
                  const char* sizeError) {
  OsLayout l;
  if (size > 0) {
    l.L = size;
    if (!isPow2(l.L) || l.L < 2 * M) throw ArgumentError(sizeError);
    const long long H = real ? l.L / 2 : l.L;
    const long long minH = corr ? 512 : 128;  // as osPlan
    l.fused = H >= minH && H <= 8192 && osFits(gpu, H, corr, real) && !forceUnfused;
  } else {
    const OsPlan pl = osPlan(gpu.smemOptin(), M, real, corr);
    l.L = pl.size;
    l.fused = pl.fused && !forceUnfused;
  }
  l.S = l.L - M + 1;
  l.H = (l.fused && real) ? l.L / 2 : l.L;
  l.split = l.fused && osSplitUsed(l.H, real, corr);
  return l;
}

std::shared_ptr<DevBuf> osFilterSpectrum(Gpu& gpu, std::vector<double>& re, std::vector<double>& im, long long used,
                                         double sign, const OsLayout& l, bool real) {
  // the key: the layout and sign, then the filter's values exactly
  const long long head[6] = {l.L, l.H, (long long)l.fused | (long long)l.split << 1 | (long long)real << 2,
                             sign < 0 ? -1 : 1, used, 0};
  std::string key(reinterpret_cast<const char*>(head), sizeof head);
  key.append(reinterpret_cast<const char*>(re.data()), used * sizeof(double));
  key.append(reinterpret_cast<const char*>(im.data()), used * sizeof(double));
  if (auto found = gpu.shared(key)) return found;
  hostFft(re, im);
  auto spec = std::make_shared<DevBuf>();
  osUploadSpectrum(*spec, re, im, sign, l.fused, real, l.split, l.H);
  gpu.share(key, spec);
  return spec;
}

}  // namespace ph

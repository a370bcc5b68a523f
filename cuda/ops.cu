#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "ops.h"

namespace ph {

long long opInValues(Op op, long long n) {
  switch (op) {
    case Op::Rfft: return n;
    case Op::Irfft: return 2 * (n / 2 + 1);
    default: return 2 * n;
  }
}
long long opOutValues(Op op, long long n) {
  switch (op) {
    case Op::Rfft: return 2 * (n / 2 + 1);
    case Op::Irfft: return n;
    default: return 2 * n;
  }
}

void parallelCopy(void* dst, const void* src, size_t bytes) {
  const size_t kMin = 4u << 20;
  if (bytes < 2 * kMin) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t parts = std::min<size_t>(std::min<size_t>(8, hw), bytes / kMin);
  const size_t per = (bytes / parts + 63) / 64 * 64;
  std::vector<std::thread> ts;
  for (size_t i = 1; i < parts; i++) {
    const size_t off = i * per;
    if (off >= bytes) break;
    ts.emplace_back([=] { std::memcpy((char*)dst + off, (const char*)src + off, std::min(per, bytes - off)); });
  }
  std::memcpy(dst, src, std::min(per, bytes));
  for (auto& t : ts) t.join();
}

void runDevice(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, cudaStream_t s,
               int scratchSlot) {
  switch (op) {
    case Op::Fft:
    case Op::Ifft: {
      FftPlan& plan = gpu.plan(n);
      plan.exec(reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out), batch, op == Op::Ifft,
                gpu.scratch(scratchSlot, plan.scratchBytes(batch)), s);
      return;
    }
    case Op::Rfft: return rfft(gpu, in, reinterpret_cast<float2*>(out), n, batch, s, scratchSlot);
    case Op::Irfft: return irfft(gpu, reinterpret_cast<const float2*>(in), out, n, batch, s, scratchSlot);
  }
}

void runHost(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, bool pinnedHost) {
  const size_t inUnit = (size_t)opInValues(op, n) * 4, outUnit = (size_t)opOutValues(op, n) * 4;
  pipelineHost(gpu, inUnit, outUnit, batch, in, out, pinnedHost,
               [&](int slot, const void* din, void* dout, long long cnt, cudaStream_t s) {
                 runDevice(gpu, op, n, cnt, static_cast<const float*>(din), static_cast<float*>(dout), s, 70 + 4 * slot);
               });
}

void pipelineHost(Gpu& gpu, size_t inUnit, size_t outUnit, long long batch, const void* in, void* out, bool pinnedHost,
                  const std::function<void(int, const void*, void*, long long, cudaStream_t)>& compute) {
  if (batch <= 0) return;
  // small pieces: the pipeline fills and drains faster
  const long long per = std::max<long long>(1, (long long)(hostPiece() / std::max(inUnit, outUnit)));
  const long long chunks = ceilDiv(batch, per);
  const long long cap = std::min(per, batch);
  // device input and output per slot, reused every third piece (ring): with two, the upload of piece c + 2
  // would wait for the compute of piece c, and that compute for the copy back of piece c − 2, with no slack
  // for a copy that runs late; the third slot gives one piece of slack in each direction
  const int slots = (int)std::min<long long>(HostPipe::kMaxSlots, chunks);
  void* din[HostPipe::kMaxSlots];
  void* dout[HostPipe::kMaxSlots];
  for (int k = 0; k < slots; k++) {
    din[k] = gpu.scratch(60 + 2 * k, cap * inUnit + 16);
    dout[k] = gpu.scratch(61 + 2 * k, cap * outUnit + 16);
  }
  cudaStream_t s = gpu.stream();
  HostPipe pipe(gpu, s, slots, true, pinnedHost, cap * inUnit, pinnedHost, cap * outUnit);
  for (long long c = 0; c < chunks; c++) {
    const int k = (int)(c % slots);
    const long long off = c * per, cnt = std::min(per, batch - off);
    pipe.up(k, din[k], static_cast<const char*>(in) + off * inUnit, cnt * inUnit);
    pipe.compute(k, [&] { compute(k, din[k], dout[k], cnt, s); });
    pipe.down(k, static_cast<char*>(out) + off * outUnit, dout[k], cnt * outUnit);
  }
  pipe.finish();
}

}  // namespace ph

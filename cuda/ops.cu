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
  const size_t target = 8u << 20;  // small pieces: the pipeline fills and drains faster
  const long long per = std::max<long long>(1, (long long)(target / std::max(inUnit, outUnit)));
  const long long chunks = ceilDiv(batch, per);
  const long long cap = std::min(per, batch);
  // two slots, each with its own stream, device buffers, pinned staging and scratch
  for (int b = 0; b < 2 && b < chunks; b++) {
    gpu.scratch(60 + 2 * b, cap * inUnit + 16);
    gpu.scratch(61 + 2 * b, cap * outUnit + 16);
    if (!pinnedHost) {
      gpu.pinned(10 + 2 * b).ensure(cap * inUnit);
      gpu.pinned(11 + 2 * b).ensure(cap * outUnit);
    }
  }
  long long doneOff[2] = {0, 0}, doneCnt[2] = {0, 0};
  bool busy[2] = {false, false};
  auto drain = [&](int b) {
    if (!busy[b]) return;
    PH_CHECK(cudaStreamSynchronize(gpu.stream(1 + b)));
    if (!pinnedHost)
      parallelCopy(reinterpret_cast<char*>(out) + doneOff[b] * outUnit, gpu.pinned(11 + 2 * b).get(), doneCnt[b] * outUnit);
    busy[b] = false;
  };
  for (long long c = 0; c < chunks; c++) {
    const int b = (int)(c & 1);
    cudaStream_t s = gpu.stream(1 + b);
    drain(b);
    const long long off = c * per, cnt = std::min(per, batch - off);
    void* din = gpu.scratch(60 + 2 * b, cap * inUnit + 16);
    void* dout = gpu.scratch(61 + 2 * b, cap * outUnit + 16);
    const char* src = reinterpret_cast<const char*>(in) + off * inUnit;
    if (pinnedHost) {
      PH_CHECK(cudaMemcpyAsync(din, src, cnt * inUnit, cudaMemcpyHostToDevice, s));
    } else {
      parallelCopy(gpu.pinned(10 + 2 * b).get(), src, cnt * inUnit);
      PH_CHECK(cudaMemcpyAsync(din, gpu.pinned(10 + 2 * b).get(), cnt * inUnit, cudaMemcpyHostToDevice, s));
    }
    compute(b, din, dout, cnt, s);
    void* dst = pinnedHost ? reinterpret_cast<char*>(out) + off * outUnit : gpu.pinned(11 + 2 * b).get();
    PH_CHECK(cudaMemcpyAsync(dst, dout, cnt * outUnit, cudaMemcpyDeviceToHost, s));
    doneOff[b] = off;
    doneCnt[b] = cnt;
    busy[b] = true;
  }
  drain(0);
  drain(1);
}

}  // namespace ph

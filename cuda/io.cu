// Moving blocks between host and device (through pinned staging, in pieces so the CPU copy overlaps
// the DMA), the kept-values copy of the processors, and the host-side double FFT for filter spectra.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops.h"
#include "processors.h"

namespace ph {

void copyToDevice(Gpu& gpu, void* dst, const void* host, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  const size_t piece = std::min(bytes, kHostPiece);
  gpu.pinned(0).ensure(piece);
  gpu.pinned(1).ensure(piece);
  // the pinned buffers may still feed an earlier copy
  PH_CHECK(cudaEventSynchronize(gpu.event(0)));
  PH_CHECK(cudaEventSynchronize(gpu.event(1)));
  size_t off = 0;
  for (int i = 0; off < bytes; i++) {
    const int b = i & 1;
    const size_t len = std::min(piece, bytes - off);
    if (i >= 2) PH_CHECK(cudaEventSynchronize(gpu.event(b)));
    std::memcpy(gpu.pinned(b).get(), static_cast<const char*>(host) + off, len);
    PH_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, gpu.pinned(b).get(), len, cudaMemcpyHostToDevice, s));
    PH_CHECK(cudaEventRecord(gpu.event(b), s));
    off += len;
  }
}

void copyToHost(Gpu& gpu, void* host, const void* src, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  const size_t piece = std::min(bytes, kHostPiece);
  gpu.pinned(2).ensure(piece);
  gpu.pinned(3).ensure(piece);
  size_t off = 0, prevOff = 0, prevLen = 0;
  int prev = -1;
  for (int i = 0; off < bytes; i++) {
    const int b = i & 1;
    const size_t len = std::min(piece, bytes - off);
    PH_CHECK(cudaMemcpyAsync(gpu.pinned(2 + b).get(), static_cast<const char*>(src) + off, len, cudaMemcpyDeviceToHost, s));
    PH_CHECK(cudaEventRecord(gpu.event(2 + b), s));
    if (prev >= 0) {
      PH_CHECK(cudaEventSynchronize(gpu.event(2 + prev)));
      std::memcpy(static_cast<char*>(host) + prevOff, gpu.pinned(2 + prev).get(), prevLen);
    }
    prev = b;
    prevOff = off;
    prevLen = len;
    off += len;
  }
  PH_CHECK(cudaEventSynchronize(gpu.event(2 + prev)));
  std::memcpy(static_cast<char*>(host) + prevOff, gpu.pinned(2 + prev).get(), prevLen);
}

const void* stageInput(Gpu& gpu, const Input& in, DevBuf& staging, cudaStream_t s) {
  if (in.device) return in.device;
  const size_t bytes = (size_t)in.values * dtypeBytes(in.dtype);
  staging.ensure(bytes + 16);
  if (in.pinned) {
    if (bytes) PH_CHECK(cudaMemcpyAsync(staging.get(), in.host, bytes, cudaMemcpyHostToDevice, s));
  } else {
    copyToDevice(gpu, staging.get(), in.host, bytes, s);
  }
  return staging.get();
}

Source shiftSource(const Source& src, long long from) {
  Source r = src;
  if (from <= src.histLen) {
    r.hist = src.hist + from;
    r.histLen = src.histLen - from;
  } else {
    const long long into = std::min(from - src.histLen, src.freshLen);
    r.histLen = 0;
    r.fresh = static_cast<const char*>(src.fresh) + into * (long long)dtypeBytes((DType)src.dtype);
    r.freshLen = src.freshLen - into;
  }
  return r;
}

size_t& hostPiece() {
  static size_t bytes = kHostPiece;
  return bytes;
}

long long streamPer(size_t bytesPerOutput, long long unit) {
  return std::max<long long>(1, (long long)(hostPiece() / bytesPerOutput) / unit) * unit;
}

// ---------------------------------------------------------------------------------------------------
// HostPipe (ops.h). Events: up[k] = 4 + k, done[k] = 7 + k, down[k] = 10 + k.

HostPipe::HostPipe(Gpu& gpu, cudaStream_t compute, int slots, bool ring, bool upPinned, size_t upCap, bool downPinned,
                   size_t downCap)
    : gpu_(gpu), cs_(compute), up_(gpu.stream(1)), down_(gpu.stream(2)), slots_(slots), ring_(ring),
      upPinned_(upPinned), downPinned_(downPinned), upCap_(upCap), downCap_(downCap) {
  if (slots < 1 || slots > kMaxSlots) throw ArgumentError("HostPipe: 1 to 3 slots");
  for (int k = 0; k < slots; k++) {
    if (!upPinned) gpu.pinned(10 + 2 * k).ensure(upCap);
    if (!downPinned) gpu.pinned(11 + 2 * k).ensure(downCap);
  }
}

HostPipe::~HostPipe() {
  if (finished_) return;
  cudaStreamSynchronize(up_);
  cudaStreamSynchronize(cs_);
  cudaStreamSynchronize(down_);
}

void HostPipe::up(int k, void* dev, const void* host, size_t bytes) {
  // ring: the compute that last read this slot's device input is done before it is overwritten
  if (ring_ && computed_[k]) PH_CHECK(cudaStreamWaitEvent(up_, gpu_.event(7 + k), 0));
  if (bytes == 0) {
  } else if (upPinned_) {
    PH_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, up_));
  } else if (bytes <= upCap_) {
    if (upStaged_[k]) PH_CHECK(cudaEventSynchronize(gpu_.event(4 + k)));  // its last upload has left
    parallelCopy(gpu_.pinned(10 + 2 * k).get(), host, bytes);
    PH_CHECK(cudaMemcpyAsync(dev, gpu_.pinned(10 + 2 * k).get(), bytes, cudaMemcpyHostToDevice, up_));
    upStaged_[k] = true;
  } else {
    copyToDevice(gpu_, dev, host, bytes, up_);
  }
  PH_CHECK(cudaEventRecord(gpu_.event(4 + k), up_));
}

void HostPipe::compute(int k, const std::function<void()>& f) {
  PH_CHECK(cudaStreamWaitEvent(cs_, gpu_.event(4 + k), 0));
  // ring: the copy back that last read this slot's device output is done before it is overwritten
  if (ring_ && downQueued_[k]) PH_CHECK(cudaStreamWaitEvent(cs_, gpu_.event(10 + k), 0));
  if (f) f();
  PH_CHECK(cudaEventRecord(gpu_.event(7 + k), cs_));
  computed_[k] = true;
}

void HostPipe::drain(int k) {
  if (!downHost_[k]) return;
  PH_CHECK(cudaEventSynchronize(gpu_.event(10 + k)));
  parallelCopy(downHost_[k], gpu_.pinned(11 + 2 * k).get(), downBytes_[k]);
  downHost_[k] = nullptr;
}

void HostPipe::down(int k, void* host, const void* dev, size_t bytes) {
  drain(k);  // staging buffer k is free again (pageable output)
  PH_CHECK(cudaStreamWaitEvent(down_, gpu_.event(7 + k), 0));
  if (bytes == 0) {
  } else if (downPinned_) {
    PH_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, down_));
  } else if (bytes <= downCap_) {
    PH_CHECK(cudaMemcpyAsync(gpu_.pinned(11 + 2 * k).get(), dev, bytes, cudaMemcpyDeviceToHost, down_));
    downHost_[k] = host;
    downBytes_[k] = bytes;
  } else {
    copyToHost(gpu_, host, dev, bytes, down_);  // waits (never the case for the callers here)
  }
  PH_CHECK(cudaEventRecord(gpu_.event(10 + k), down_));
  downQueued_[k] = true;
  lastDown_ = k;
}

void HostPipe::finish() {
  for (int i = 1; i <= slots_; i++) drain((lastDown_ + i) % slots_);  // the oldest staged piece first
  PH_CHECK(cudaStreamSynchronize(down_));
  finished_ = true;
}

void streamPieces(Gpu& gpu, const Input& in, void* staging, long long outputs, long long per, int unit,
                  const float* outDev, float* outHost, bool outPinned, const std::function<long long(long long)>& need,
                  const std::function<void(long long, long long)>& step) {
  // A HostPipe of two slots (piece c in slot c mod 2), without a ring: the device input (`staging`) and
  // output (outDev) hold the whole block, so no piece overwrites device memory another one reads.
  const size_t vb = dtypeBytes(in.dtype);
  const long long chunks = ceilDiv(outputs, per);
  long long uploaded = 0;  // fresh values queued for the device
  // the largest upload: the first piece's (it also holds the values before it) or a later one's
  auto fresh = [&](long long o) { return std::max<long long>(0, std::min(in.values, need(o))); };
  const long long p1 = std::min(outputs, per);
  const size_t upCap = (size_t)std::max(fresh(p1), fresh(std::min(outputs, 2 * per)) - fresh(p1)) * vb;
  const size_t downCap = (size_t)(per * unit) * sizeof(float);
  HostPipe pipe(gpu, gpu.stream(), 2, false, in.pinned, upCap, !outHost || outPinned, downCap);
  auto upload = [&](int k, long long upto) {  // the fresh values up to `upto` not uploaded yet
    const size_t off = (size_t)uploaded * vb, len = (size_t)std::max<long long>(0, upto - uploaded) * vb;
    pipe.up(k, static_cast<char*>(staging) + off, static_cast<const char*>(in.host) + off, len);
    uploaded = std::max(uploaded, upto);
  };
  for (long long c = 0; c < chunks; c++) {
    const int k = (int)(c & 1);
    const long long o0 = c * per, o1 = std::min(outputs, o0 + per);
    upload(k, fresh(o1));
    pipe.compute(k, [&] { step(o0, o1); });
    if (outHost)
      pipe.down(k, outHost + o0 * unit, outDev + o0 * unit, (size_t)((o1 - o0) * unit) * sizeof(float));
  }
  // the rest (past the last output's reach), for the kept tail: gpu.stream() waits for it
  const int k = (int)(chunks & 1);
  upload(k, in.values);
  pipe.compute(k, nullptr);
  pipe.finish();
}

__global__ void kKeepTail(Source src, long long from, long long count, float* dst) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) dst[i] = src.at(from + i);
}

void keepTail(const Source& src, long long from, long long count, float* dst, cudaStream_t s) {
  if (count <= 0) return;
  PH_LAUNCH(kKeepTail, dim3((unsigned)ceilDiv(count, 256)), dim3(256), 0, s, src, from, count, dst);
  PH_CHECK_LAUNCH("keep tail");
}

void hostFft(std::vector<double>& re, std::vector<double>& im) {
  const size_t n = re.size();
  if (n == 0 || (n & (n - 1))) throw ArgumentError("hostFft: size must be a power of two");
  for (size_t i = 1, j = 0; i < n; i++) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      std::swap(re[i], re[j]);
      std::swap(im[i], im[j]);
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2;
    for (size_t k = 0; k < half; k++) {
      const double a = -2.0 * M_PI * (double)k / (double)len;
      const double wr = std::cos(a), wi = std::sin(a);
      for (size_t i = k; i < n; i += len) {
        const size_t j = i + half;
        const double xr = re[j] * wr - im[j] * wi, xi = re[j] * wi + im[j] * wr;
        re[j] = re[i] - xr;
        im[j] = im[i] - xi;
        re[i] += xr;
        im[i] += xi;
      }
    }
  }
}

}  // namespace ph

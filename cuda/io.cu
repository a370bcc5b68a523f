// Moving blocks between host and device (through pinned staging, in pieces so the CPU copy overlaps
// the DMA), the kept-values copy of the processors, and the host-side double FFT for filter spectra.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops.h"
#include "processors.h"

namespace ph {

static constexpr size_t kPiece = 8u << 20;

void copyToDevice(Gpu& gpu, void* dst, const void* host, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  const size_t piece = std::min(bytes, kPiece);
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
  const size_t piece = std::min(bytes, kPiece);
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
  copyToDevice(gpu, staging.get(), in.host, bytes, s);
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

long long streamPer(size_t bytesPerOutput, long long unit) {
  return std::max<long long>(1, (long long)(kPiece / bytesPerOutput) / unit) * unit;
}

void streamPieces(Gpu& gpu, const Input& in, void* staging, long long outputs, long long per, int unit,
                  const float* outDev, float* outHost, bool outPinned, const std::function<long long(long long)>& need,
                  const std::function<void(long long, long long)>& step) {
  // Uploads in order on stream 1, each piece's kernels on gpu.stream() after its upload (event 4 + b), its
  // copy back on stream 2 after its kernels (event 8). Pinned host memory on both sides: everything is
  // queued at once. Pageable memory goes through two pinned buffers a direction (slot b = c mod 2): before
  // reusing one, the host waits for the copy that used it (events 4 + b up, 6 + b down).
  const size_t vb = dtypeBytes(in.dtype);
  cudaStream_t s = gpu.stream(), up = gpu.stream(1), down = gpu.stream(2);
  const long long chunks = ceilDiv(outputs, per);
  long long uploaded = 0;  // fresh values queued for the device
  // the largest upload: the first piece's (it also holds the values before it) or a later one's
  auto fresh = [&](long long o) { return std::max<long long>(0, std::min(in.values, need(o))); };
  const long long p1 = std::min(outputs, per);
  const size_t upCap = (size_t)std::max(fresh(p1), fresh(std::min(outputs, 2 * per)) - fresh(p1)) * vb;
  const size_t downCap = (size_t)(per * unit) * sizeof(float);
  const bool stageUp = !in.pinned, stageDown = outHost && !outPinned;
  for (int b = 0; b < 2; b++) {
    if (stageUp) gpu.pinned(10 + 2 * b).ensure(upCap);
    if (stageDown) gpu.pinned(11 + 2 * b).ensure(downCap);
  }
  long long doneOff[2] = {0, 0}, doneLen[2] = {0, 0};
  bool busy[2] = {false, false}, upBusy[2] = {false, false};
  auto drain = [&](int b) {  // piece in out-buffer b: wait for its copy back, move it to the caller's memory
    if (!busy[b]) return;
    PH_CHECK(cudaEventSynchronize(gpu.event(6 + b)));
    if (stageDown) parallelCopy(outHost + doneOff[b], gpu.pinned(11 + 2 * b).get(), doneLen[b] * sizeof(float));
    busy[b] = false;
  };
  auto upload = [&](long long upto, cudaStream_t st, int b) {
    if (upto <= uploaded) return;
    const size_t off = (size_t)uploaded * vb, len = (size_t)(upto - uploaded) * vb;
    const char* host = static_cast<const char*>(in.host) + off;
    char* dev = static_cast<char*>(staging) + off;
    if (in.pinned) {
      PH_CHECK(cudaMemcpyAsync(dev, host, len, cudaMemcpyHostToDevice, st));
    } else if (b >= 0 && len <= upCap) {
      if (upBusy[b]) PH_CHECK(cudaEventSynchronize(gpu.event(4 + b)));  // its last upload has left
      parallelCopy(gpu.pinned(10 + 2 * b).get(), host, len);
      PH_CHECK(cudaMemcpyAsync(dev, gpu.pinned(10 + 2 * b).get(), len, cudaMemcpyHostToDevice, st));
      upBusy[b] = true;
    } else {
      copyToDevice(gpu, dev, host, len, st);
    }
    uploaded = upto;
  };
  for (long long c = 0; c < chunks; c++) {
    const int b = (int)(c & 1);
    const long long o0 = c * per, o1 = std::min(outputs, o0 + per);
    upload(fresh(o1), up, b);
    PH_CHECK(cudaEventRecord(gpu.event(4 + b), up));
    PH_CHECK(cudaStreamWaitEvent(s, gpu.event(4 + b), 0));
    step(o0, o1);
    if (outHost) {
      drain(b);  // out-buffer b is free again (pageable output)
      PH_CHECK(cudaEventRecord(gpu.event(8), s));
      PH_CHECK(cudaStreamWaitEvent(down, gpu.event(8), 0));
      float* dst = outPinned ? outHost + o0 * unit : gpu.pinned(11 + 2 * b).get<float>();
      PH_CHECK(cudaMemcpyAsync(dst, outDev + o0 * unit, (size_t)((o1 - o0) * unit) * sizeof(float),
                               cudaMemcpyDeviceToHost, down));
      PH_CHECK(cudaEventRecord(gpu.event(6 + b), down));
      doneOff[b] = o0 * unit;
      doneLen[b] = (o1 - o0) * unit;
      busy[b] = true;
    }
  }
  drain(0);
  drain(1);
  upload(in.values, up, -1);  // the rest (past the last output's reach), for the kept tail
  PH_CHECK(cudaEventRecord(gpu.event(4), up));
  PH_CHECK(cudaStreamWaitEvent(s, gpu.event(4), 0));
  PH_CHECK(cudaStreamSynchronize(down));
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

// The per-device state every operation shares: streams, twiddle tables, FFT plans and scratch memory,
// all cached and reused; freed with the Gpu. One Gpu is used by one thread at a time (the addon runs
// each backend's work on its own worker thread, in order).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common.cuh"

namespace ph {

/** Device memory with its size beside it; freed on destruction. */
class DevBuf {
 public:
  DevBuf() = default;
  explicit DevBuf(size_t bytes) { alloc(bytes); }
  ~DevBuf() { release(); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; o.bytes_ = 0; }
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) { release(); p_ = o.p_; bytes_ = o.bytes_; o.p_ = nullptr; o.bytes_ = 0; }
    return *this;
  }
  void alloc(size_t bytes);
  /** Grows (contents lost) to at least `bytes`. */
  void ensure(size_t bytes) { if (bytes > bytes_) { release(); alloc(bytes + bytes / 4); } }
  void release();
  template <class T = void> T* get() const { return static_cast<T*>(p_); }
  size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

/** Pinned (page-locked) host memory for fast, asynchronous copies. */
class PinnedBuf {
 public:
  PinnedBuf() = default;
  ~PinnedBuf() { release(); }
  PinnedBuf(const PinnedBuf&) = delete;
  PinnedBuf& operator=(const PinnedBuf&) = delete;
  void ensure(size_t bytes);
  void release();
  template <class T = void> T* get() const { return static_cast<T*>(p_); }
  size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

struct TwoLevel {
  const float2* hi = nullptr;
  const float2* lo = nullptr;
  int shift = 0;
};

class FftPlan;

class Gpu {
 public:
  explicit Gpu(int device);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  int device() const { return device_; }
  const cudaDeviceProp& prop() const { return prop_; }
  /** Largest dynamic shared memory one block may use. */
  size_t smemOptin() const { return smemOptin_; }
  cudaStream_t stream() const { return streams_[0]; }
  cudaStream_t stream(int i) const { return streams_[i]; }
  static constexpr int kStreams = 3;

  /** W_L^t, t < L. */
  const float2* table(long long L);
  /** The register FFT's twiddle rows for size L (see regRowOffset). */
  const float2* regTable(long long L);
  /** The mixed-radix FFTs' twiddle rows for size L with these radices: by k (the shared-memory kernel) or, byM,
   *  by m (the register kernel, MixPlan::tw). */
  const float2* mixedTable(long long L, int n, const int* radices, bool byM = false);
  /** Two-level table for W_N^x: hi[x >> shift] · lo[x & (2^shift − 1)]. */
  TwoLevel twoLevel(long long N);
  /** Cached plan for size n. */
  FftPlan& plan(long long n);
  /** Forgets every plan (after the tuning changed). */
  void clearPlans();

  /** Device data made once per content and shared (the overlap-save spectra of os_plan.cu): the entry whose
   *  key equals `key`, or null. Found entries become the most recently used. */
  std::shared_ptr<DevBuf> shared(const std::string& key);
  /** Keeps `buf` under `key`, dropping the least recently used entries past kSharedEntries or kSharedBytes. */
  void share(const std::string& key, std::shared_ptr<DevBuf> buf);
  static constexpr size_t kSharedEntries = 16;
  static constexpr size_t kSharedBytes = size_t(256) << 20;

  /** Scratch memory by slot, grown on demand and kept (slots let nested plans use different ones). */
  void* scratch(int slot, size_t bytes);
  PinnedBuf& pinned(int slot) { return pinned_[slot]; }

  /** Raises the dynamic shared-memory limit of a kernel once, when it needs more than 48 KiB. */
  template <class K>
  void allowSmem(K kernel, size_t bytes) {
    if (bytes <= 40 * 1024) return;  // with the kernel's static shared memory, still under the default 48 KiB
    const void* key = reinterpret_cast<const void*>(kernel);
    auto it = smemSet_.find(key);
    if (it != smemSet_.end() && it->second >= bytes) return;
    cudaFuncAttributes attr{};
    PH_CHECK(cudaFuncGetAttributes(&attr, kernel));
    if (bytes + attr.sharedSizeBytes <= 48 * 1024) return;
    if (bytes + attr.sharedSizeBytes > smemOptin_)
      throw ArgumentError("a kernel needs more shared memory than this device has (" + std::to_string(bytes >> 10) +
                          " KiB)");
    PH_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    smemSet_[key] = bytes;
  }
  void sync() { PH_CHECK(cudaStreamSynchronize(stream())); }
  /** Events for ordering host work against copies (no timing). */
  cudaEvent_t event(int i) const { return events_[i]; }
  // 0–3: copyToDevice/copyToHost pieces; 4–12: the host pipeline (HostPipe: pipelineHost, streamPieces)
  static constexpr int kEvents = 13;

 private:
  const float2* upload(std::vector<float2> host, std::string key);
  int device_;
  cudaDeviceProp prop_{};
  size_t smemOptin_ = 48 * 1024;
  cudaStream_t streams_[kStreams]{};
  cudaEvent_t events_[kEvents]{};
  std::map<std::string, DevBuf> tables_;
  std::map<long long, std::unique_ptr<FftPlan>> plans_;
  std::map<int, DevBuf> scratch_;
  std::vector<std::pair<std::string, std::shared_ptr<DevBuf>>> shared_;  // most recently used last
  std::map<int, PinnedBuf> pinned_;
  std::map<const void*, size_t> smemSet_;
};

}  // namespace ph

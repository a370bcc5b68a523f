// Gpu: device properties, streams, cached twiddle tables, plans and scratch memory.
#include <cmath>

#include "fft.h"
#include "gpu.h"

namespace ph {

void DevBuf::alloc(size_t bytes) {
  release();
  if (bytes == 0) bytes = 16;
  cudaError_t e = cudaMalloc(&p_, bytes);
  if (e != cudaSuccess) {
    p_ = nullptr;
    (void)cudaGetLastError();  // out of memory is not sticky: clear it
    throwCuda(e, ("allocating " + std::to_string(bytes >> 20) + " MiB of device memory").c_str());
  }
  bytes_ = bytes;
}

void DevBuf::release() {
  if (p_) cudaFree(p_);
  p_ = nullptr;
  bytes_ = 0;
}

void PinnedBuf::ensure(size_t bytes) {
  if (bytes <= bytes_) return;
  release();
  size_t want = bytes + bytes / 4;
  cudaError_t e = cudaHostAlloc(&p_, want, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    p_ = nullptr;
    (void)cudaGetLastError();
    throwCuda(e, "allocating pinned host memory");
  }
  bytes_ = want;
}

void PinnedBuf::release() {
  if (p_) cudaFreeHost(p_);
  p_ = nullptr;
  bytes_ = 0;
}

Gpu::Gpu(int device) : device_(device) {
  PH_CHECK(cudaSetDevice(device));
  PH_CHECK(cudaGetDeviceProperties(&prop_, device));
  smemOptin_ = prop_.sharedMemPerBlockOptin > 0 ? prop_.sharedMemPerBlockOptin : prop_.sharedMemPerBlock;
  for (auto& s : streams_) PH_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (auto& e : events_) PH_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

Gpu::~Gpu() {
  cudaSetDevice(device_);
  for (auto& s : streams_)
    if (s) cudaStreamSynchronize(s);
  plans_.clear();
  tables_.clear();
  scratch_.clear();
  pinned_.clear();
  for (auto& s : streams_)
    if (s) cudaStreamDestroy(s);
  for (auto& e : events_)
    if (e) cudaEventDestroy(e);
}

const float2* Gpu::upload(std::vector<float2> host, std::string key) {
  DevBuf buf(host.size() * sizeof(float2));
  uploadNow(buf.get(), host.data(), host.size() * sizeof(float2));
  const float2* p = buf.get<float2>();
  tables_[key] = std::move(buf);
  return p;
}

// e^{-2πi t/N} in double precision, rounded once to float.
static float2 w(long long t, long long N) {
  t %= N;
  // exact reduction of the angle to the first octants keeps sin/cos accurate
  const double a = -2.0 * M_PI * (double)t / (double)N;
  return make_float2((float)std::cos(a), (float)std::sin(a));
}


const float2* Gpu::table(long long L) {
  const std::string key = "w" + std::to_string(L);
  auto it = tables_.find(key);
  if (it != tables_.end()) return it->second.get<float2>();
  std::vector<float2> h(L);
  for (long long t = 0; t < L; t++) h[t] = w(t, L);
  return upload(std::move(h), key);
}

const float2* Gpu::regTable(long long L) {
  const std::string key = "r" + std::to_string(L);
  auto it = tables_.find(key);
  if (it != tables_.end()) return it->second.get<float2>();
  // passes after the first: Ns = r0, 16·r0, … < L, each 16 rows (m) of Ns entries (k): W_{16·Ns}^{k·m}
  const long long R = L >= 16 ? 16 : L;
  long long r0 = L;
  while (r0 > R) r0 /= R;
  std::vector<float2> h;
  for (long long Ns = r0; Ns < L && L > R; Ns *= 16)
    for (long long m = 0; m < 16; m++)
      for (long long k = 0; k < Ns; k++) h.push_back(w(k * m, 16 * Ns));
  if (h.empty()) h.push_back(make_float2(1.f, 0.f));
  return upload(std::move(h), key);
}

const float2* Gpu::mixedTable(long long L, int n, const int* radices, bool byM) {
  std::string key = (byM ? "q" : "m") + std::to_string(L);
  for (int i = 0; i < n; i++) key += ":" + std::to_string(radices[i]);
  auto it = tables_.find(key);
  if (it != tables_.end()) return it->second.get<float2>();
  // pass i after the first: W_{Ns·r}^{k·m}, k < Ns, m < r; rows by k (all m) or, byM, rows by m ≥ 1 (all k)
  std::vector<float2> h;
  long long Ns = 1;
  for (int i = 0; i < n; i++) {
    const long long r = radices[i];
    if (Ns > 1 && byM) {
      for (long long m = 1; m < r; m++)
        for (long long k = 0; k < Ns; k++) h.push_back(w(k * m, Ns * r));
    } else if (Ns > 1) {
      for (long long k = 0; k < Ns; k++)
        for (long long m = 0; m < r; m++) h.push_back(w(k * m, Ns * r));
    }
    Ns *= r;
  }
  if (h.empty()) h.push_back(make_float2(1.f, 0.f));
  return upload(std::move(h), key);
}

TwoLevel Gpu::twoLevel(long long N) {
  int shift = 0;
  while ((1LL << (2 * shift)) < N) shift++;
  const long long lo = 1LL << shift, hi = (N + lo - 1) / lo;
  const std::string key = "t" + std::to_string(N);
  TwoLevel t;
  t.shift = shift;
  auto it = tables_.find(key + "h");
  if (it == tables_.end()) {
    std::vector<float2> H(hi), Lo(lo);
    for (long long i = 0; i < hi; i++) H[i] = w(i * lo, N);
    for (long long i = 0; i < lo; i++) Lo[i] = w(i, N);
    t.hi = upload(std::move(H), key + "h");
    t.lo = upload(std::move(Lo), key + "l");
  } else {
    t.hi = it->second.get<float2>();
    t.lo = tables_[key + "l"].get<float2>();
  }
  return t;
}

FftPlan& Gpu::plan(long long n) {
  auto it = plans_.find(n);
  if (it != plans_.end()) return *it->second;
  auto p = std::make_unique<FftPlan>(*this, n);
  FftPlan& ref = *p;
  plans_.emplace(n, std::move(p));
  return ref;
}

void Gpu::clearPlans() {
  sync();
  plans_.clear();
}

void* Gpu::scratch(int slot, size_t bytes) {
  DevBuf& b = scratch_[slot];
  b.ensure(bytes < 256 ? 256 : bytes);
  return b.get();
}

std::shared_ptr<DevBuf> Gpu::shared(const std::string& key) {
  for (size_t i = shared_.size(); i-- > 0;) {
    if (shared_[i].first != key) continue;
    auto entry = std::move(shared_[i]);
    shared_.erase(shared_.begin() + (long)i);
    shared_.push_back(std::move(entry));
    return shared_.back().second;
  }
  return nullptr;
}

void Gpu::share(const std::string& key, std::shared_ptr<DevBuf> buf) {
  shared_.emplace_back(key, std::move(buf));
  size_t bytes = 0;
  for (const auto& e : shared_) bytes += e.second->bytes() + e.first.size();
  while (shared_.size() > 1 && (shared_.size() > kSharedEntries || bytes > kSharedBytes)) {
    bytes -= shared_.front().second->bytes() + shared_.front().first.size();
    shared_.erase(shared_.begin());  // users keep their reference; the memory goes with the last one
  }
}

}  // namespace ph

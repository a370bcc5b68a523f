// The addon's per-backend core: a worker thread that runs the backend's GPU work in submission order,
// off the JavaScript thread, and settles each call's promise back on it (a thread-safe function).
// Every JavaScript object made by a backend (buffers, processors) shares the core.
#pragma once
#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../cuda/gpu.h"

namespace addon {

class Core;

struct Task {
  explicit Task(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
  /** Runs on the worker thread; throws ph::CudaError, ph::ArgumentError, std::exception. */
  std::function<void()> run;
  /** Runs on the JavaScript thread after `run` succeeded; returns the promise's value. */
  std::function<Napi::Value(Napi::Env)> done;
  Napi::Promise::Deferred deferred;
  /** JavaScript objects (typed arrays) the task reads or writes, kept alive until it settles. */
  std::vector<Napi::ObjectReference> keep;
  std::shared_ptr<Core> core;
  bool failed = false;
  bool always = false;  // runs even after a sticky failure (dispose)
  std::string code, message;

  void hold(Napi::Value v) {
    if (v.IsObject()) keep.push_back(Napi::Persistent(v.As<Napi::Object>()));
  }
};

class Core : public std::enable_shared_from_this<Core> {
 public:
  explicit Core(Napi::Env env);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  /** Queues a task; its promise settles on the JavaScript thread. */
  Napi::Promise submit(Napi::Env env, std::unique_ptr<Task> task);
  /** Stops the worker after the queued tasks (JavaScript thread). */
  void shutdown();

  // worker-thread state
  std::unique_ptr<ph::Gpu> gpu;
  ph::Gpu& g() {
    if (!gpu) throw ph::ArgumentError("the CUDA backend is not initialized");
    return *gpu;
  }
  // written by the JavaScript thread after init, read there
  size_t smemOptin = 48 * 1024;
  bool disposed = false;
  /** Host ranges registered with the driver (Context.pin), start → bytes; JavaScript thread only. */
  std::map<const char*, size_t> pinned;
  /** True when [p, p + bytes) lies inside one registered range: the DMA reads or writes it directly. */
  bool isPinned(const void* p, size_t bytes) const {
    const char* c = static_cast<const char*>(p);
    auto it = pinned.upper_bound(c);
    if (it == pinned.begin()) return false;
    --it;
    return c + bytes <= it->first + it->second;
  }

 private:
  void loop();
  void execute(Task& t);
  static void finish(Napi::Env env, Napi::Function, Task* t);
  static void cleanup(void* arg);

  napi_env env_;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Task>> queue_;
  bool stop_ = false;
  Napi::ThreadSafeFunction tsfn_;
  int pending_ = 0;  // JavaScript thread only
  std::atomic<bool> failed_{false};
  std::string failMessage_;
};

}  // namespace addon

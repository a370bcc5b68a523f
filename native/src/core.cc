#include "core.h"

#include <new>

namespace addon {

Core::Core(Napi::Env env) : env_(env) {
  tsfn_ = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}),
                                        "phasor-cuda", 0, 1);
  tsfn_.Unref(env);
  napi_add_env_cleanup_hook(env, &Core::cleanup, this);
  thread_ = std::thread([this] { loop(); });
}

Core::~Core() {
  napi_remove_env_cleanup_hook(env_, &Core::cleanup, this);
  shutdown();
  tsfn_.Release();
  try {
    // a context collected without dispose(): its buffers are released with it, so unregister them first
    if (gpu)
      for (auto& kv : pinned) cudaHostUnregister(const_cast<char*>(kv.first));
    gpu.reset();
  } catch (...) {
  }
}

void Core::cleanup(void* arg) {
  // the environment is going away (process exit): stop the thread so it never outlives it
  static_cast<Core*>(arg)->shutdown();
}

void Core::shutdown() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Napi::Promise Core::submit(Napi::Env env, std::unique_ptr<Task> task) {
  Napi::Promise promise = task->deferred.Promise();
  bool stopped;
  {
    std::lock_guard<std::mutex> lock(m_);
    stopped = stop_;
  }
  if (stopped || disposed) {
    Napi::Error e = Napi::Error::New(env, "the CUDA backend was disposed and cannot be used");
    e.Set("code", Napi::String::New(env, "disposed"));
    task->deferred.Reject(e.Value());
    return promise;
  }
  task->core = shared_from_this();
  if (pending_++ == 0) tsfn_.Ref(env);
  {
    std::lock_guard<std::mutex> lock(m_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return promise;
}

void Core::loop() {
  for (;;) {
    std::unique_ptr<Task> t;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_ || queue_.empty()) return;
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    execute(*t);
    Task* raw = t.release();
    if (tsfn_.BlockingCall(raw, &Core::finish) != napi_ok) {
      // the environment is closing: nobody waits for the result any more
      return;
    }
  }
}

void Core::execute(Task& t) {
  if (failed_ && !t.always) {
    t.failed = true;
    t.code = "sticky";
    t.message = "the CUDA device failed earlier and cannot be used: " + failMessage_;
    return;
  }
  try {
    if (t.run) t.run();
  } catch (const ph::CudaError& e) {
    t.failed = true;
    t.message = e.what();
    if (e.sticky()) {
      t.code = "sticky";
      failMessage_ = e.what();
      failed_ = true;
    } else {
      t.code = e.code() == cudaErrorMemoryAllocation ? "out-of-memory" : "cuda";
    }
  } catch (const ph::ArgumentError& e) {
    t.failed = true;
    t.code = "invalid-argument";
    t.message = e.what();
  } catch (const std::bad_alloc&) {
    t.failed = true;
    t.code = "out-of-memory";
    t.message = "out of host memory";
  } catch (const std::exception& e) {
    t.failed = true;
    t.code = "internal";
    t.message = e.what();
  }
}

void Core::finish(Napi::Env env, Napi::Function, Task* t) {
  std::unique_ptr<Task> own(t);
  std::shared_ptr<Core> core = t->core;
  if (env != nullptr) {
    Napi::HandleScope scope(env);
    if (t->failed) {
      Napi::Error e = Napi::Error::New(env, t->message);
      e.Set("code", Napi::String::New(env, t->code));
      t->deferred.Reject(e.Value());
    } else {
      try {
        t->deferred.Resolve(t->done ? t->done(env) : env.Undefined());
      } catch (const Napi::Error& e) {
        t->deferred.Reject(e.Value());
      } catch (const std::exception& e) {
        Napi::Error err = Napi::Error::New(env, e.what());
        err.Set("code", Napi::String::New(env, "internal"));
        t->deferred.Reject(err.Value());
      }
    }
    if (core && --core->pending_ == 0) core->tsfn_.Unref(env);
  }
  own.reset();   // drops the references on this thread
  core.reset();  // may destroy the core (its thread is idle or gone)
}

}  // namespace addon

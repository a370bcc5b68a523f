// phasor_cuda.node: the CUDA backend's native side (node-addon-api). Everything heavy runs on the
// backend's worker thread (core.h) and returns a promise; typed arrays that JavaScript allocated are
// filled in place or copied (never wrapped: NODE_API_NO_EXTERNAL_BUFFERS_ALLOWED, for Electron).
//
//   const a = require('phasor_cuda.node');
//   a.probe()                              → { available, reason? | device, details }
//   a.warm(device?)                        → Promise<void>: the driver and context started in the background
//   const ctx = new a.Context(); await ctx.init(0);
//   await ctx.fft(input, n, inverse, out)  // input: Float32Array | DeviceBuffer; out: Float32Array
//   const sp = new a.Spectrogram(ctx, cfg); await sp.push(input, offset, scale, skip, count, keepFrom, rows, avg, peak)
//   await ctx.dispose()
#include <napi.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "../../cuda/device.h"
#include "../../cuda/devtimer.h"
#include "../../cuda/ops.h"
#include "../../cuda/processors.h"
#include "core.h"

namespace addon {

using CorePtr = std::shared_ptr<Core>;

// The class constructors, one set per JavaScript environment (the main thread and each worker thread that
// loads the addon): held as the environment's instance data, freed when that environment ends. A static
// reference would be shared by every environment and freed by the first one to end (a worker terminated
// after loading the addon corrupted the heap).
struct EnvData {
  Napi::FunctionReference deviceBuffer;
  Napi::FunctionReference context;
};
static EnvData& envData(Napi::Env env) { return *env.GetInstanceData<EnvData>(); }

static Napi::Error argError(Napi::Env env, const std::string& msg) {
  Napi::Error e = Napi::TypeError::New(env, msg);
  e.Set("code", Napi::String::New(env, "invalid-argument"));
  return e;
}

// ---------------------------------------------------------------------------------------------------
// DeviceBuffer: float32 values in device memory.

class DeviceBuffer : public Napi::ObjectWrap<DeviceBuffer> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function f = DefineClass(env, "DeviceBuffer", {InstanceAccessor<&DeviceBuffer::Length>("length")});
    envData(env).deviceBuffer = Napi::Persistent(f);
    exports.Set("DeviceBuffer", f);
  }
  explicit DeviceBuffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceBuffer>(info) {}
  Napi::Value Length(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), (double)length); }
  static DeviceBuffer* From(Napi::Value v) {
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(envData(v.Env()).deviceBuffer.Value())) return nullptr;
    return DeviceBuffer::Unwrap(v.As<Napi::Object>());
  }
  std::shared_ptr<ph::DevBuf> buf;
  CorePtr core;
  long long length = 0;
};

// An input as a task sees it: a host pointer (kept alive by the task) or a device buffer.
struct In {
  const void* host = nullptr;
  std::shared_ptr<ph::DevBuf> dev;
  long long values = 0;
  ph::DType dtype = ph::DType::F32;
  float offset = 0, scale = 1;
  bool pinned = false;
  ph::Input input() const {
    ph::Input i;
    i.host = host;
    i.device = dev ? dev->get() : nullptr;
    i.values = values;
    i.dtype = dtype;
    i.offset = offset;
    i.scale = scale;
    i.pinned = pinned;
    return i;
  }
};

static In parseInput(Napi::Env env, Task& t, Napi::Value v, const CorePtr& core, bool allowRaw, const char* what) {
  In in;
  if (DeviceBuffer* d = DeviceBuffer::From(v)) {
    if (d->core != core) throw argError(env, std::string(what) + ": the device array belongs to another backend");
    if (!d->buf) throw argError(env, std::string(what) + ": the device array was freed");
    in.dev = d->buf;
    in.values = d->length;
    t.hold(v);
    return in;
  }
  if (!v.IsTypedArray()) throw argError(env, std::string(what) + ": expected a Float32Array or a device array");
  Napi::TypedArray ta = v.As<Napi::TypedArray>();
  switch (ta.TypedArrayType()) {
    case napi_float32_array: in.dtype = ph::DType::F32; break;
    case napi_uint8_array: in.dtype = ph::DType::U8; break;
    case napi_int8_array: in.dtype = ph::DType::I8; break;
    case napi_int16_array: in.dtype = ph::DType::I16; break;
    default: throw argError(env, std::string(what) + ": unsupported typed array");
  }
  if (!allowRaw && in.dtype != ph::DType::F32) throw argError(env, std::string(what) + ": expected a Float32Array");
  in.values = (long long)ta.ElementLength();
  in.host = static_cast<const char*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
  in.pinned = core->isPinned(in.host, ta.ByteLength());
  t.hold(v);
  return in;
}

/** An output array's data; *pinned (when given) tells whether it lies in memory registered by Context.pin. */
static float* parseOut(Napi::Env env, Task& t, Napi::Value v, long long need, const char* what,
                       const CorePtr& core = nullptr, bool* pinned = nullptr) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    throw argError(env, std::string(what) + ": expected a Float32Array");
  Napi::Float32Array a = v.As<Napi::Float32Array>();
  if ((long long)a.ElementLength() != need)
    throw argError(env, std::string(what) + ": needs exactly " + std::to_string(need) + " values, got " +
                            std::to_string(a.ElementLength()));
  t.hold(v);
  if (pinned) *pinned = core && core->isPinned(a.Data(), a.ByteLength());
  return a.Data();
}

static long long num(Napi::Value v) { return v.IsNumber() ? (long long)v.As<Napi::Number>().DoubleValue() : 0; }
static double dbl(Napi::Value v, double d = 0) { return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : d; }
static bool flag(Napi::Value v) { return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : false; }

// ---------------------------------------------------------------------------------------------------
// Tuning knobs (cuda/tuning.def): the FftTuning fields and the process-wide settings beside them.

template <class T>
static T knobValue(Napi::Value v);
template <>
bool knobValue<bool>(Napi::Value v) { return flag(v); }
template <>
int knobValue<int>(Napi::Value v) { return (int)num(v); }
template <>
long long knobValue<long long>(Napi::Value v) { return num(v); }

/** The PH_SETTING knobs as setTuning parses them (defaults when not given). */
struct Settings {
#define PH_KNOB(name, type, def, meaning)
#define PH_KNOB_LIST(name, size, meaning)
#define PH_SETTING(name, type, def, accessor, meaning) type name = def;
#include "../../cuda/tuning.def"
#undef PH_KNOB
#undef PH_KNOB_LIST
#undef PH_SETTING
};
static_assert(Settings{}.pieceBytes == (long long)ph::kHostPiece, "tuning.def: pieceBytes's default is kHostPiece");

// tuningKnobs() → [{ name, type ('boolean' | 'number' | 'number[]'), default, meaning }] in tuning.def's order
static Napi::Value TuningKnobs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array list = Napi::Array::New(env);
  auto add = [&](const char* name, const char* type, Napi::Value def, const char* meaning) {
    Napi::Object k = Napi::Object::New(env);
    k.Set("name", name);
    k.Set("type", type);
    k.Set("default", def);
    k.Set("meaning", meaning);
    list.Set(list.Length(), k);
  };
  auto value = [&](auto v) -> Napi::Value {
    if constexpr (std::is_same_v<decltype(v), bool>) return Napi::Boolean::New(env, v);
    else return Napi::Number::New(env, (double)v);
  };
  const ph::FftTuning tune;
  const Settings set;
#define PH_KNOB(name, type, def, meaning) \
  add(#name, std::is_same_v<type, bool> ? "boolean" : "number", value(tune.name), meaning);
#define PH_KNOB_LIST(name, size, meaning) add(#name, "number[]", Napi::Array::New(env), meaning);
#define PH_SETTING(name, type, def, accessor, meaning) \
  add(#name, std::is_same_v<type, bool> ? "boolean" : "number", value(set.name), meaning);
#include "../../cuda/tuning.def"
#undef PH_KNOB
#undef PH_KNOB_LIST
#undef PH_SETTING
  return list;
}

// ---------------------------------------------------------------------------------------------------
// Context

class Context : public Napi::ObjectWrap<Context> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function f = DefineClass(env, "Context",
                                   {
                                       InstanceMethod<&Context::InitDevice>("init"),
                                       InstanceMethod<&Context::Upload>("upload"),
                                       InstanceMethod<&Context::Download>("download"),
                                       InstanceMethod<&Context::Free>("free"),
                                       InstanceMethod<&Context::Transform>("transform"),
                                       InstanceMethod<&Context::Fft2>("fft2"),
                                       InstanceMethod<&Context::OsPlanFn>("osPlan"),
                                       InstanceMethod<&Context::Dispose>("dispose"),
                                       InstanceMethod<&Context::Fault>("injectFault"),
                                       InstanceMethod<&Context::Bench>("benchmark"),
                                       InstanceMethod<&Context::Tune>("setTuning"),
                                       InstanceMethod<&Context::PlanInfo>("planInfo"),
                                       InstanceMethod<&Context::Pin>("pin"),
                                       InstanceMethod<&Context::Unpin>("unpin"),
                                   });
    envData(env).context = Napi::Persistent(f);
    exports.Set("Context", f);
  }
  explicit Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info) {
    core = std::make_shared<Core>(info.Env());
  }
  static Context* From(Napi::Value v) {
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(envData(v.Env()).context.Value())) return nullptr;
    return Context::Unwrap(v.As<Napi::Object>());
  }
  CorePtr core;

 private:
  /** The ArrayBuffers registered by pin(), kept alive while registered (JavaScript thread only). */
  std::map<const char*, Napi::ObjectReference> pins_;

  static Napi::Value resolved(Napi::Env env) {
    auto d = Napi::Promise::Deferred::New(env);
    d.Resolve(env.Undefined());
    return d.Promise();
  }

  // pin(arrayBuffer): registers its memory with the driver (cudaHostRegister), so typed arrays over it move
  // to and from the device by DMA, without the staging copies; the buffer stays alive until unpin() or
  // dispose().
  Napi::Value Pin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsArrayBuffer()) throw argError(env, "pin: expected an ArrayBuffer");
    Napi::ArrayBuffer ab = info[0].As<Napi::ArrayBuffer>();
    const char* p = static_cast<const char*>(ab.Data());
    const size_t bytes = ab.ByteLength();
    if (bytes == 0) throw argError(env, "pin: the buffer is empty");
    if (pins_.count(p)) throw argError(env, "pin: the buffer is already pinned");
    // registered now, so a second pin() of the buffer is refused; forgotten again if the driver refuses
    pins_[p] = Napi::Persistent(ab.As<Napi::Object>());
    auto t = std::make_unique<Task>(env);
    t->always = true;  // a failure is reported by done(), which also forgets the buffer
    auto err = std::make_shared<std::pair<std::string, std::string>>();  // code, message
    CorePtr c = core;
    t->run = [c, p, bytes, err] {
      try {
        c->g();
        cudaError_t e = cudaHostRegister(const_cast<char*>(p), bytes, cudaHostRegisterDefault);
        if (e != cudaSuccess) {
          (void)cudaGetLastError();
          ph::throwCuda(e, ("page-locking " + std::to_string(bytes >> 10) + " KiB of host memory").c_str());
        }
      } catch (const ph::CudaError& e) {
        *err = {e.sticky() ? "sticky" : "cuda", e.what()};
      } catch (const std::exception& e) {
        *err = {"invalid-argument", e.what()};
      }
    };
    t->done = [this, c, p, bytes, err](Napi::Env env) -> Napi::Value {
      if (!err->first.empty()) {
        pins_.erase(p);
        Napi::Error e = Napi::Error::New(env, err->second);
        e.Set("code", Napi::String::New(env, err->first));
        throw e;
      }
      if (pins_.count(p)) c->pinned[p] = bytes;  // not when dispose() came first
      return env.Undefined();
    };
    t->hold(info.This());
    return core->submit(env, std::move(t));
  }

  // unpin(arrayBuffer): unregisters what pin() registered, after the work queued before it; a buffer not
  // pinned (or already released by dispose()) resolves at once.
  Napi::Value Unpin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsArrayBuffer()) throw argError(env, "unpin: expected an ArrayBuffer");
    const char* p = static_cast<const char*>(info[0].As<Napi::ArrayBuffer>().Data());
    auto it = pins_.find(p);
    if (it == pins_.end() || core->disposed) return resolved(env);
    core->pinned.erase(p);
    auto t = std::make_unique<Task>(env);
    t->always = true;
    t->keep.push_back(std::move(it->second));
    pins_.erase(it);
    t->run = [p] {
      cudaHostUnregister(const_cast<char*>(p));
      (void)cudaGetLastError();
    };
    return core->submit(env, std::move(t));
  }

  Napi::Value InitDevice(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int dev = (int)num(info[0]);
    auto t = std::make_unique<Task>(env);
    auto probe = std::make_shared<ph::Probe>();
    CorePtr c = core;
    t->run = [c, dev, probe] {
      *probe = ph::probe(dev);
      if (!probe->available) throw ph::CudaError(cudaErrorNoDevice, probe->reason, false);
      c->gpu = std::make_unique<ph::Gpu>(dev);
    };
    t->done = [c, probe](Napi::Env env) -> Napi::Value {
      c->smemOptin = c->gpu ? c->gpu->smemOptin() : c->smemOptin;
      Napi::Object o = Napi::Object::New(env);
      o.Set("device", probe->device);
      Napi::Object d = Napi::Object::New(env);
      for (auto& kv : probe->text) d.Set(kv.first, kv.second);
      for (auto& kv : probe->numbers) d.Set(kv.first, kv.second);
      o.Set("details", d);
      return o;
    };
    return core->submit(env, std::move(t));
  }

  Napi::Value Upload(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    In in = parseInput(env, *t, info[0], core, false, "upload");
    if (in.dev) throw argError(env, "upload: the data is already on the device");
    auto buf = std::make_shared<ph::DevBuf>();
    CorePtr c = core;
    t->run = [c, in, buf] {
      buf->alloc((size_t)in.values * 4 + 16);
      ph::copyToDevice(c->g(), buf->get(), in.host, (size_t)in.values * 4, c->g().stream());
      c->g().sync();
    };
    const long long len = in.values;
    t->done = [c, buf, len](Napi::Env env) -> Napi::Value {
      Napi::Object o = envData(env).deviceBuffer.New({});
      DeviceBuffer* d = DeviceBuffer::Unwrap(o);
      d->buf = buf;
      d->core = c;
      d->length = len;
      return o;
    };
    return core->submit(env, std::move(t));
  }

  Napi::Value Download(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    DeviceBuffer* d = DeviceBuffer::From(info[0]);
    if (!d || !d->buf) throw argError(env, "download: not a live device array");
    float* out = parseOut(env, *t, info[1], d->length, "download: out");
    auto buf = d->buf;
    const long long len = d->length;
    CorePtr c = core;
    t->run = [c, buf, out, len] { ph::copyToHost(c->g(), out, buf->get(), (size_t)len * 4, c->g().stream()); };
    t->hold(info[0]);
    return core->submit(env, std::move(t));
  }

  Napi::Value Free(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    DeviceBuffer* d = DeviceBuffer::From(info[0]);
    if (!d) throw argError(env, "free: not a device array");
    auto buf = std::move(d->buf);
    d->buf.reset();
    auto t = std::make_unique<Task>(env);
    t->run = [buf]() mutable { buf.reset(); };
    return core->submit(env, std::move(t));
  }

  // transform(op, input, n, out): op 0 fft, 1 ifft, 2 rfft, 3 irfft
  Napi::Value Transform(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    const ph::Op op = (ph::Op)num(info[0]);
    In in = parseInput(env, *t, info[1], core, false, "fft input");
    const long long n = num(info[2]);
    const long long inPer = ph::opInValues(op, n), outPer = ph::opOutValues(op, n);
    if (n < 1 || in.values % inPer != 0) throw argError(env, "fft: input length is not a whole number of transforms");
    const long long batch = in.values / inPer;
    float* out = parseOut(env, *t, info[3], batch * outPer, "fft: out");
    CorePtr c = core;
    t->run = [c, in, op, n, batch, out, outPer] {
      ph::Gpu& g = c->g();
      if (in.dev) {
        float* d = static_cast<float*>(g.scratch(50, (size_t)(batch * outPer) * 4 + 16));
        ph::runDevice(g, op, n, batch, in.dev->get<float>(), d, g.stream());
        ph::copyToHost(g, out, d, (size_t)(batch * outPer) * 4, g.stream());
      } else {
        ph::runHost(g, op, n, batch, static_cast<const float*>(in.host), out);
      }
    };
    return core->submit(env, std::move(t));
  }

  // fft2(input, rows, cols, inverse, out)
  Napi::Value Fft2(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    In in = parseInput(env, *t, info[0], core, false, "fft2 input");
    const long long rows = num(info[1]), cols = num(info[2]);
    const bool inverse = flag(info[3]);
    if (rows < 1 || cols < 1 || in.values % (2 * rows * cols) != 0)
      throw argError(env, "fft2: input length is not a whole number of rows × cols complex arrays");
    float* out = parseOut(env, *t, info[4], in.values, "fft2: out");
    CorePtr c = core;
    t->run = [c, in, rows, cols, inverse, out] {
      ph::Gpu& g = c->g();
      const long long batch = in.values / (2 * rows * cols);
      const size_t bytes = (size_t)in.values * 4;
      float* d = static_cast<float*>(g.scratch(50, bytes + 16));
      const float* src = in.dev ? in.dev->get<float>() : d;
      if (!in.dev) ph::copyToDevice(g, d, in.host, bytes, g.stream());
      ph::fft2(g, reinterpret_cast<const float2*>(src), reinterpret_cast<float2*>(d), rows, cols, batch, inverse,
               g.stream());
      ph::copyToHost(g, out, d, bytes, g.stream());
    };
    return core->submit(env, std::move(t));
  }

  // osPlan(M, real, corr) → { direct, fused, size, segment } (synchronous; needs init)
  Napi::Value OsPlanFn(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const ph::OsPlan p = ph::osPlan(core->smemOptin, num(info[0]), flag(info[1]), flag(info[2]));
    Napi::Object o = Napi::Object::New(env);
    o.Set("direct", p.direct);
    o.Set("fused", p.fused);
    o.Set("size", (double)p.size);
    o.Set("segment", (double)p.segment);
    return o;
  }

  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    CorePtr c = core;
    t->always = true;
    std::vector<const char*> pinned;
    for (auto& kv : pins_) {
      pinned.push_back(kv.first);
      t->keep.push_back(std::move(kv.second));  // alive until unregistered
    }
    pins_.clear();
    core->pinned.clear();
    t->run = [c, pinned] {
      if (c->gpu) {
        cudaStreamSynchronize(c->gpu->stream());
        for (const char* p : pinned) cudaHostUnregister(const_cast<char*>(p));
        (void)cudaGetLastError();
        c->gpu.reset();
      }
    };
    Napi::Promise p = core->submit(env, std::move(t));
    core->disposed = true;
    return p;
  }

  Napi::Value Fault(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    CorePtr c = core;
    t->run = [c] { ph::injectFault(c->g()); };
    return core->submit(env, std::move(t));
  }

  // setTuning({ knob: value, … }): the knobs of cuda/tuning.def; every knob not given takes its default
  Napi::Value Tune(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object o = info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(env);
    ph::FftTuning tune;
    Settings set;
#define PH_KNOB(name, type, def, meaning) \
  if (o.Has(#name)) tune.name = knobValue<type>(o.Get(#name));
#define PH_KNOB_LIST(name, size, meaning)                                                                       \
  if (o.Has(#name)) {                                                                                           \
    Napi::Value f = o.Get(#name);                                                                               \
    if (!f.IsArray() || f.As<Napi::Array>().Length() > size)                                                    \
      throw argError(env, "setTuning: " #name " must be an array of at most " #size " sizes");                 \
    Napi::Array a = f.As<Napi::Array>();                                                                        \
    for (uint32_t i = 0; i < a.Length(); i++) tune.name[i] = num(a.Get(i));                                     \
  }
#define PH_SETTING(name, type, def, accessor, meaning) \
  if (o.Has(#name)) set.name = knobValue<type>(o.Get(#name));
#include "../../cuda/tuning.def"
#undef PH_KNOB
#undef PH_KNOB_LIST
#undef PH_SETTING
    if (set.pieceBytes < 1024) throw argError(env, "setTuning: pieceBytes must be at least 1024");
    auto t = std::make_unique<Task>(env);
    CorePtr c = core;
    t->run = [c, tune, set] {
      ph::fftTuning() = tune;
#define PH_KNOB(name, type, def, meaning)
#define PH_KNOB_LIST(name, size, meaning)
#define PH_SETTING(name, type, def, accessor, meaning) \
  ph::accessor() = (std::remove_reference_t<decltype(ph::accessor())>)set.name;
#include "../../cuda/tuning.def"
#undef PH_KNOB
#undef PH_KNOB_LIST
#undef PH_SETTING
      c->g().clearPlans();
    };
    return core->submit(env, std::move(t));
  }

  // planInfo(n) → how a transform of size n runs
  Napi::Value PlanInfo(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const long long n = num(info[0]);
    if (n < 1) throw argError(env, "planInfo: n must be ≥ 1");
    auto t = std::make_unique<Task>(env);
    auto text = std::make_shared<std::string>();
    CorePtr c = core;
    t->run = [c, n, text] { *text = c->g().plan(n).describe(); };
    t->done = [text](Napi::Env env) -> Napi::Value { return Napi::String::New(env, *text); };
    return core->submit(env, std::move(t));
  }

  // benchmark(op, n, batch, cufft, reps, endToEnd) → { kernelMs, endToEndMs, ... } (see cuda/devtimer.h)
  Napi::Value Bench(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    const std::string op = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    const long long n = num(info[1]), batch = num(info[2]);
    const bool cufft = info.Length() > 3 && flag(info[3]);
    const int reps = info.Length() > 4 && info[4].IsNumber() ? (int)num(info[4]) : 10;
    const bool e2e = info.Length() > 5 && info[5].IsBoolean() ? flag(info[5]) : true;
    if (n < 1 || batch < 1) throw argError(env, "benchmark: n and batch must be ≥ 1");
    auto res = std::make_shared<bench::Result>();
    CorePtr c = core;
    t->run = [c, op, n, batch, cufft, reps, e2e, res] {
      *res = bench::measure(c->g(), op, n, batch, cufft, std::max(1, reps), e2e);
    };
    t->done = [res](Napi::Env env) -> Napi::Value {
      Napi::Object o = Napi::Object::New(env);
      o.Set("op", res->op);
      o.Set("impl", res->impl);
      o.Set("n", (double)res->n);
      o.Set("batch", (double)res->batch);
      o.Set("available", res->available);
      if (!res->available) o.Set("reason", res->reason);
      o.Set("kernelMs", res->kernelMs);
      o.Set("endToEndMs", res->endToEndMs);
      o.Set("endToEndDiffers", res->endToEndDiffers);
      o.Set("samplesPerSecond", res->samplesPerSecond);
      o.Set("bytes", res->bytes);
      o.Set("relError", std::isfinite(res->relError) ? res->relError : -1.0);
      o.Set("errorKind", res->errorKind);
      o.Set("plan", res->plan);
      return o;
    };
    return core->submit(env, std::move(t));
  }
};

static CorePtr coreOf(Napi::Env env, Napi::Value v) {
  Context* c = Context::From(v);
  if (!c) throw argError(env, "expected a CUDA context");
  return c->core;
}

// ---------------------------------------------------------------------------------------------------
// Processors. The device object is made by the first task that needs it (on the worker thread), so a
// failure there surfaces as that call's rejection.

/** A processor's reset() as a task; sync: the reset queues device work, waited for before the promise settles. */
template <class Impl>
static Napi::Value resetTask(Napi::Env env, const CorePtr& core, const std::shared_ptr<std::unique_ptr<Impl>>& impl,
                             bool sync) {
  auto t = std::make_unique<Task>(env);
  auto im = impl;
  CorePtr c = core;
  t->run = [c, im, sync] {
    if (*im) {
      (*im)->reset();
      if (sync) c->g().sync();
    }
  };
  return core->submit(env, std::move(t));
}

/** A processor's dispose() as a task, run even after a failure (Task::always): frees its device object. */
template <class Impl>
static Napi::Value disposeTask(Napi::Env env, const CorePtr& core, const std::shared_ptr<std::unique_ptr<Impl>>& impl) {
  auto t = std::make_unique<Task>(env);
  t->always = true;
  auto im = impl;
  t->run = [im] { im->reset(); };
  return core->submit(env, std::move(t));
}

class Spectrogram : public Napi::ObjectWrap<Spectrogram> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Spectrogram", DefineClass(env, "Spectrogram",
                                           {InstanceMethod<&Spectrogram::Push>("push"),
                                            InstanceMethod<&Spectrogram::Reset>("reset"),
                                            InstanceMethod<&Spectrogram::Dispose>("dispose")}));
  }
  explicit Spectrogram(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Spectrogram>(info) {
    Napi::Env env = info.Env();
    core = coreOf(env, info[0]);
    Napi::Object o = info[1].As<Napi::Object>();
    auto cfg = std::make_shared<ph::SpectrogramConfig>();
    cfg->n = num(o.Get("n"));
    cfg->hop = num(o.Get("hop"));
    cfg->complex = flag(o.Get("complex"));
    Napi::Float32Array w = o.Get("window").As<Napi::Float32Array>();
    cfg->window.assign(w.Data(), w.Data() + w.ElementLength());
    cfg->columns = num(o.Get("columns"));
    cfg->averaging = dbl(o.Get("averaging"));
    cfg->peakHold = flag(o.Get("peakHold"));
    cfg->floorDb = (float)dbl(o.Get("floorDb"), -300);
    cfg->norm = dbl(o.Get("norm"));
    cfg->normEdge = dbl(o.Get("normEdge"));
    config = cfg;
    impl = std::make_shared<std::unique_ptr<ph::Spectrogram>>();
  }
  CorePtr core;
  std::shared_ptr<ph::SpectrogramConfig> config;
  std::shared_ptr<std::unique_ptr<ph::Spectrogram>> impl;

  // push(input, offset, scale, skip, count, keepFrom, rows, avg|null, peak|null)
  Napi::Value Push(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    In in = parseInput(env, *t, info[0], core, true, "spectrogram input");
    in.offset = (float)dbl(info[1]);
    in.scale = (float)dbl(info[2], 1);
    const long long skip = num(info[3]), count = num(info[4]), keepFrom = num(info[5]);
    const long long bins = config->complex ? config->n : config->n / 2 + 1;
    const long long width = config->columns > 0 ? config->columns : bins;
    bool rowsPinned = false;
    float* rows = parseOut(env, *t, info[6], count * width, "spectrogram rows", core, &rowsPinned);
    float* avg = info[7].IsTypedArray() ? parseOut(env, *t, info[7], width, "spectrogram average") : nullptr;
    float* peak = info[8].IsTypedArray() ? parseOut(env, *t, info[8], width, "spectrogram peak") : nullptr;
    CorePtr c = core;
    auto im = impl;
    auto cfg = config;
    t->run = [c, im, cfg, in, skip, count, keepFrom, rows, avg, peak, rowsPinned] {
      if (!*im) *im = std::make_unique<ph::Spectrogram>(c->g(), *cfg);
      (*im)->push(in.input(), skip, count, keepFrom, rows, avg, peak, rowsPinned);
    };
    return core->submit(env, std::move(t));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { return resetTask(info.Env(), core, impl, true); }
  Napi::Value Dispose(const Napi::CallbackInfo& info) { return disposeTask(info.Env(), core, impl); }
};

class Fir : public Napi::ObjectWrap<Fir> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Fir", DefineClass(env, "Fir",
                                   {InstanceMethod<&Fir::Process>("process"), InstanceMethod<&Fir::Reset>("reset"),
                                    InstanceMethod<&Fir::Dispose>("dispose")}));
  }
  explicit Fir(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Fir>(info) {
    Napi::Env env = info.Env();
    core = coreOf(env, info[0]);
    Napi::Object o = info[1].As<Napi::Object>();
    auto cfg = std::make_shared<ph::FirConfig>();
    Napi::Float64Array taps = o.Get("taps").As<Napi::Float64Array>();
    cfg->taps.assign(taps.Data(), taps.Data() + taps.ElementLength());
    cfg->lanes = (int)num(o.Get("lanes"));
    cfg->complex = flag(o.Get("complex"));
    cfg->overlapSave = flag(o.Get("overlapSave"));
    cfg->size = num(o.Get("size"));
    config = cfg;
    impl = std::make_shared<std::unique_ptr<ph::Fir>>();
  }
  CorePtr core;
  std::shared_ptr<ph::FirConfig> config;
  std::shared_ptr<std::unique_ptr<ph::Fir>> impl;

  // process(input, offset, scale, frames, out)
  Napi::Value Process(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    In in = parseInput(env, *t, info[0], core, true, "fir input");
    in.offset = (float)dbl(info[1]);
    in.scale = (float)dbl(info[2], 1);
    const long long frames = num(info[3]);
    bool outPinned = false;
    float* out = parseOut(env, *t, info[4], frames * config->lanes, "fir output", core, &outPinned);
    CorePtr c = core;
    auto im = impl;
    auto cfg = config;
    t->run = [c, im, cfg, in, frames, out, outPinned] {
      if (!*im) *im = std::make_unique<ph::Fir>(c->g(), *cfg);
      (*im)->process(in.input(), frames, out, false, outPinned);
    };
    return core->submit(env, std::move(t));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { return resetTask(info.Env(), core, impl, true); }
  Napi::Value Dispose(const Napi::CallbackInfo& info) { return disposeTask(info.Env(), core, impl); }
};

class Correlator : public Napi::ObjectWrap<Correlator> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    exports.Set("Correlator", DefineClass(env, "Correlator",
                                          {InstanceMethod<&Correlator::Process>("process"),
                                           InstanceMethod<&Correlator::Reset>("reset"),
                                           InstanceMethod<&Correlator::Dispose>("dispose")}));
  }
  explicit Correlator(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Correlator>(info) {
    Napi::Env env = info.Env();
    core = coreOf(env, info[0]);
    Napi::Object o = info[1].As<Napi::Object>();
    auto cfg = std::make_shared<ph::CorrelatorConfig>();
    Napi::Float32Array tm = o.Get("template").As<Napi::Float32Array>();
    cfg->tmpl.assign(tm.Data(), tm.Data() + tm.ElementLength());
    cfg->complex = flag(o.Get("complex"));
    cfg->size = num(o.Get("size"));
    config = cfg;
    impl = std::make_shared<std::unique_ptr<ph::Correlator>>();
  }
  CorePtr core;
  std::shared_ptr<ph::CorrelatorConfig> config;
  std::shared_ptr<std::unique_ptr<ph::Correlator>> impl;

  // process(input, offset, scale, lags, scores|null, peakCount, radius) → { lags: Float64Array, scores: Float32Array }
  Napi::Value Process(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto t = std::make_unique<Task>(env);
    In in = parseInput(env, *t, info[0], core, true, "correlate input");
    in.offset = (float)dbl(info[1]);
    in.scale = (float)dbl(info[2], 1);
    const long long lags = num(info[3]);
    float* scores = info[4].IsTypedArray() ? parseOut(env, *t, info[4], lags, "correlate scores") : nullptr;
    const int k = (int)num(info[5]);
    const long long radius = num(info[6]);
    CorePtr c = core;
    auto im = impl;
    auto cfg = config;
    auto peaks = std::make_shared<std::vector<ph::Peak>>();
    t->run = [c, im, cfg, in, lags, scores, k, radius, peaks] {
      if (!*im) *im = std::make_unique<ph::Correlator>(c->g(), *cfg);
      *peaks = (*im)->process(in.input(), lags, scores, k, radius);
    };
    t->done = [peaks](Napi::Env env) -> Napi::Value {
      Napi::Float64Array l = Napi::Float64Array::New(env, peaks->size());
      Napi::Float32Array s = Napi::Float32Array::New(env, peaks->size());
      for (size_t i = 0; i < peaks->size(); i++) {
        l[i] = (double)(*peaks)[i].lag;
        s[i] = (*peaks)[i].score;
      }
      Napi::Object o = Napi::Object::New(env);
      o.Set("lags", l);
      o.Set("scores", s);
      return o;
    };
    return core->submit(env, std::move(t));
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { return resetTask(info.Env(), core, impl, false); }
  Napi::Value Dispose(const Napi::CallbackInfo& info) { return disposeTask(info.Env(), core, impl); }
};

// ---------------------------------------------------------------------------------------------------

static Napi::Object probeObject(Napi::Env env, const ph::Probe& p) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", p.available);
  if (!p.available) {
    o.Set("reason", p.reason);
    return o;
  }
  o.Set("device", p.device);
  Napi::Object d = Napi::Object::New(env);
  for (auto& kv : p.text) d.Set(kv.first, kv.second);
  for (auto& kv : p.numbers) d.Set(kv.first, kv.second);
  o.Set("details", d);
  return o;
}

static Napi::Value Probe(const Napi::CallbackInfo& info) {
  return probeObject(info.Env(), ph::probe(info.Length() > 0 ? (int)num(info[0]) : 0));
}

// A device-level call run on a thread of libuv's pool, its promise settled on the JavaScript thread: the
// JavaScript thread goes on while the driver starts, and the pending work keeps the process alive until it
// ends, so the process never exits with a thread inside the driver's start-up.
class DeviceWorker : public Napi::AsyncWorker {
 public:
  DeviceWorker(Napi::Env env, const char* name, std::function<void()> run,
               std::function<Napi::Value(Napi::Env)> result)
      : Napi::AsyncWorker(env, name),
        run_(std::move(run)),
        result_(std::move(result)),
        deferred_(Napi::Promise::Deferred::New(env)) {}
  static Napi::Value Start(DeviceWorker* w) {
    Napi::Promise p = w->deferred_.Promise();
    w->Queue();
    return p;
  }

 protected:
  void Execute() override { run_(); }
  void OnOK() override { deferred_.Resolve(result_(Env())); }

 private:
  std::function<void()> run_;
  std::function<Napi::Value(Napi::Env)> result_;
  Napi::Promise::Deferred deferred_;
};

// probeAsync(device) → Promise<probe()'s object>: the driver's start (100–250 ms the first time) off the
// JavaScript thread.
static Napi::Value ProbeAsync(const Napi::CallbackInfo& info) {
  const int device = info.Length() > 0 ? (int)num(info[0]) : 0;
  auto probe = std::make_shared<ph::Probe>();
  return DeviceWorker::Start(new DeviceWorker(
      info.Env(), "phasor-cuda-probe", [device, probe] { *probe = ph::probe(device); },
      [probe](Napi::Env env) -> Napi::Value { return probeObject(env, *probe); }));
}

// warm(device) → Promise<void>: the driver and the device's context started while the job loads.
static Napi::Value Warm(const Napi::CallbackInfo& info) {
  const int device = info.Length() > 0 ? (int)num(info[0]) : 0;
  return DeviceWorker::Start(new DeviceWorker(
      info.Env(), "phasor-cuda-warm", [device] { ph::warm(device); },
      [](Napi::Env env) -> Napi::Value { return env.Undefined(); }));
}

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new EnvData());
  DeviceBuffer::Init(env, exports);
  Context::Init(env, exports);
  Spectrogram::Init(env, exports);
  Fir::Init(env, exports);
  Correlator::Init(env, exports);
  exports.Set("probe", Napi::Function::New(env, Probe));
  exports.Set("probeAsync", Napi::Function::New(env, ProbeAsync));
  exports.Set("warm", Napi::Function::New(env, Warm));
  exports.Set("tuningKnobs", Napi::Function::New(env, TuningKnobs));
  Napi::Object b = Napi::Object::New(env);
  b.Set("archs", ph::buildArchs());
#ifdef PHASOR_EMU
  b.Set("emulation", true);
#else
  b.Set("emulation", false);
#endif
  b.Set("cudaRuntime", CUDART_VERSION);
#ifdef PHASOR_BENCH
  b.Set("bench", true);  // phasor_cuda_bench.node: benchmark() takes the measurement-only operations too
#else
  b.Set("bench", false);
#endif
  exports.Set("build", b);
  return exports;
}

}  // namespace addon

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return addon::Init(env, exports); }
NODE_API_MODULE(phasor_cuda, InitModule)

// Streams as the processors see them: the values kept from earlier blocks (float32, on the device)
// followed by the block just pushed, which may still be raw integers: u8, i8 or i16 decode as
// (raw − offset)·scale inside the kernel that reads them (an rtl_sdr stream crosses PCIe at a quarter of
// its float size). Values past the end read as zero (the zero padding of a stream that ended).
#pragma once
#include "common.cuh"

namespace ph {

enum class DType : int { F32 = 0, U8 = 1, I8 = 2, I16 = 3 };

inline size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::U8:
    case DType::I8: return 1;
    case DType::I16: return 2;
    default: return 4;
  }
}

struct Source {
  const float* hist;
  long long histLen;  // values
  const void* fresh;
  long long freshLen;  // values
  int dtype;
  float offset, scale;

  __device__ __forceinline__ float freshAt(long long i) const {
    switch (dtype) {
      case 1: return ((float)static_cast<const unsigned char*>(fresh)[i] - offset) * scale;
      case 2: return ((float)static_cast<const signed char*>(fresh)[i] - offset) * scale;
      case 3: return ((float)static_cast<const short*>(fresh)[i] - offset) * scale;
      default: return static_cast<const float*>(fresh)[i];
    }
  }
  /** Value i of hist ++ fresh; 0 past the end (and before 0). */
  __device__ __forceinline__ float at(long long i) const {
    if (i < histLen) return i >= 0 ? hist[i] : 0.f;
    i -= histLen;
    return i < freshLen ? freshAt(i) : 0.f;
  }
  __host__ __device__ long long length() const { return histLen + freshLen; }
};

/** Calls body(get) with get(i) = value i of the Source. When [lo, hi) lies inside the block just pushed
 *  (the common case), get is a plain typed load: the bounds checks and the type switch leave the loop. */
template <class B>
__device__ __forceinline__ void withSource(const Source& s, long long lo, long long hi, B&& body) {
  if (lo >= s.histLen && hi <= s.histLen + s.freshLen) {
    const long long h = s.histLen;
    const float off = s.offset, sc = s.scale;
    switch (s.dtype) {
      case 1: {
        const unsigned char* p = static_cast<const unsigned char*>(s.fresh) - h;
        body([=](long long i) { return ((float)p[i] - off) * sc; });
        return;
      }
      case 2: {
        const signed char* p = static_cast<const signed char*>(s.fresh) - h;
        body([=](long long i) { return ((float)p[i] - off) * sc; });
        return;
      }
      case 3: {
        const short* p = static_cast<const short*>(s.fresh) - h;
        body([=](long long i) { return ((float)p[i] - off) * sc; });
        return;
      }
      default: {
        const float* p = static_cast<const float*>(s.fresh) - h;
        body([=](long long i) { return p[i]; });
        return;
      }
    }
  }
  body([&](long long i) { return s.at(i); });
}

}  // namespace ph

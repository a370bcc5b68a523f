// rfft / irfft of power-of-two sizes n = 2H (128 … 16384) in one kernel each: the n reals are read as H
// complex values, transformed in registers, and split into the n/2+1 bins with the partner exchange of
// realSplit (or, for the inverse, combined from X[k] and X[H−k] before an inverse transform) — no
// intermediate array in device memory. Other sizes go through fft.cu's half-length plan + post-pass.
#include "fft.h"
#include "proc_kernels.cuh"

namespace ph {

template <int H>
__global__ void __launch_bounds__(512, 2) kRfftFused(const float* in, float2* out, long long batch, const float2* wL) {
  constexpr int R = regRadix(H), T = H / R, PL = paddedLen(H);
  PH_DYN_SMEM(float2, smem);
  const int C = blockDim.x / T;
  const int c = threadIdx.x / T, j = threadIdx.x % T;
  const long long b = (long long)blockIdx.x * C + c;
  const bool active = b < batch;
  float2* sm = smem + c * PL;
  const float2* src = reinterpret_cast<const float2*>(in + b * 2 * H);
  float2 v[R];
#pragma unroll
  for (int e = 0; e < R; e++) v[e] = active ? src[j + e * T] : make_float2(0.f, 0.f);
  regFft<H, false>(v, sm, j, nullptr);
  float2* dst = out + b * (H + 1);
  realSplit<H>(v, sm, j, wL, [&](int e, int k, float2 xk, float2 xh) {
    if (!active) return;
    dst[k] = xk;
    if (k == 0) dst[H] = xh;
  });
}

template <int H>
__global__ void __launch_bounds__(512, 2) kIrfftFused(const float2* in, float* out, long long batch, const float2* wL) {
  constexpr int R = regRadix(H), T = H / R, PL = paddedLen(H);
  PH_DYN_SMEM(float2, smem);
  const int C = blockDim.x / T;
  const int c = threadIdx.x / T, j = threadIdx.x % T;
  const long long b = (long long)blockIdx.x * C + c;
  const bool active = b < batch;
  float2* sm = smem + c * PL;
  const float2* X = in + b * (H + 1);
  float2 v[R];
#pragma unroll
  for (int e = 0; e < R; e++) {
    const int k = j + e * T;
    float2 xk = make_float2(0.f, 0.f), xc = xk;
    if (active) {
      xk = X[k];
      xc = X[H - k];
    }
    if (k == 0) {  // DC and Nyquist are real (numpy ignores their imaginary parts)
      xk.y = 0.f;
      xc.y = 0.f;
    }
    xc = conjf2(xc);
    const float2 E = cscale(cadd(xk, xc), 0.5f);
    const float2 O = cmulc(cscale(csub(xk, xc), 0.5f), __ldg(wL + k));
    const float2 z = cadd(E, mulpi(O));
    v[e] = make_float2(z.x, -z.y);  // inverse by conjugation
  }
  regFft<H, false>(v, sm, j, nullptr);
  if (!active) return;
  float2* dst = reinterpret_cast<float2*>(out + b * 2 * H);
  const float inv = 1.0f / (float)H;
#pragma unroll
  for (int e = 0; e < R; e++) dst[j + e * T] = make_float2(v[e].x * inv, -v[e].y * inv);
}

template <int H, bool INV>
static void launchRealT(Gpu& gpu, const void* in, void* out, long long batch, cudaStream_t s) {
  constexpr int T = H / regRadix(H);
  const int C = std::max(1, 256 / T);
  const size_t smem = (size_t)C * paddedLen(H) * sizeof(float2);
  const float2* wL = gpu.table(2 * H);
  if constexpr (INV) {
    gpu.allowSmem(kIrfftFused<H>, smem);
    PH_LAUNCH(PH_K(kIrfftFused<H>), dim3((unsigned)ceilDiv(batch, C)), dim3(C * T), smem, s,
              static_cast<const float2*>(in), static_cast<float*>(out), batch, wL);
  } else {
    gpu.allowSmem(kRfftFused<H>, smem);
    PH_LAUNCH(PH_K(kRfftFused<H>), dim3((unsigned)ceilDiv(batch, C)), dim3(C * T), smem, s,
              static_cast<const float*>(in), static_cast<float2*>(out), batch, wL);
  }
  PH_CHECK_LAUNCH(INV ? "irfft kernel" : "rfft kernel");
}

template <bool INV>
static bool launchReal(Gpu& gpu, long long n, const void* in, void* out, long long batch, cudaStream_t s) {
  if ((size_t)paddedLen((int)std::min<long long>(n / 2, 1 << 20)) * 8 > gpu.smemOptin()) return false;
  switch (n) {
    case 128: launchRealT<64, INV>(gpu, in, out, batch, s); return true;
    case 256: launchRealT<128, INV>(gpu, in, out, batch, s); return true;
    case 512: launchRealT<256, INV>(gpu, in, out, batch, s); return true;
    case 1024: launchRealT<512, INV>(gpu, in, out, batch, s); return true;
    case 2048: launchRealT<1024, INV>(gpu, in, out, batch, s); return true;
    case 4096: launchRealT<2048, INV>(gpu, in, out, batch, s); return true;
    case 8192: launchRealT<4096, INV>(gpu, in, out, batch, s); return true;
    case 16384: launchRealT<8192, INV>(gpu, in, out, batch, s); return true;
    default: return false;
  }
}

bool rfftFused(Gpu& gpu, const float* in, float2* out, long long n, long long batch, cudaStream_t s) {
  return launchReal<false>(gpu, n, in, out, batch, s);
}
bool irfftFused(Gpu& gpu, const float2* in, float* out, long long n, long long batch, cudaStream_t s) {
  return launchReal<true>(gpu, n, in, out, batch, s);
}

}  // namespace ph

// Small DFTs in registers (forward, e^{-2πi nk/R}), in natural order: v[k] = Σ_n v[n] W_R^{nk}.
// Radix 2, 4, 8, 16 (split into radix-2/4 stages with constant twiddles), 3, 5, 7 (real/imaginary pairs), and
// products of coprime ones (6, 10, 12, 14, 15, 20, 21, 24, 30) by the prime-factor algorithm.
// Every index is a compile-time constant so the arrays stay in registers.
#pragma once
#include "common.cuh"

namespace ph {

// cos/sin(2π m / 16): enough for radix 16 (and 8, 4, 2) internal twiddles.
__host__ __device__ constexpr double cos16(int m) {
  switch (((m % 16) + 16) % 16) {
    case 0: return 1.0;
    case 1: return 0.92387953251128675613;
    case 2: return 0.70710678118654752440;
    case 3: return 0.38268343236508977173;
    case 4: return 0.0;
    case 5: return -0.38268343236508977173;
    case 6: return -0.70710678118654752440;
    case 7: return -0.92387953251128675613;
    case 8: return -1.0;
    case 9: return -0.92387953251128675613;
    case 10: return -0.70710678118654752440;
    case 11: return -0.38268343236508977173;
    case 12: return 0.0;
    case 13: return 0.38268343236508977173;
    case 14: return 0.70710678118654752440;
    default: return 0.92387953251128675613;
  }
}
__host__ __device__ constexpr double sin16(int m) { return cos16(m - 4); }

// cos(2π m / 32), for the odd thirty-seconds of a turn that radix 32 adds.
__host__ __device__ constexpr double cos32(int m) {
  m = ((m % 32) + 32) % 32;
  if (m % 2 == 0) return cos16(m / 2);
  const int q = m < 16 ? m : 32 - m;        // cos is even: fold to 0…16
  const double sg = q < 8 ? 1.0 : -1.0;     // cos(π − x) = −cos x
  switch (q < 8 ? q : 16 - q) {
    case 1: return sg * 0.98078528040323044913;
    case 3: return sg * 0.83146961230254523708;
    case 5: return sg * 0.55557023301960222474;
    default: return sg * 0.19509032201612826785;  // 7
  }
}
__host__ __device__ constexpr double sin32(int m) { return cos32(m - 8); }

/** a · e^{-2πi m/16}, with the cheap cases spelled out. */
template <int m>
__device__ __forceinline__ float2 twc16(float2 a) {
  constexpr float s = 0.70710678118654752440f;
  if constexpr (m == 0) return a;
  else if constexpr (m == 4) return mulmi(a);
  else if constexpr (m == 8) return make_float2(-a.x, -a.y);
  else if constexpr (m == 12) return mulpi(a);
  else if constexpr (m == 2) return make_float2((a.x + a.y) * s, (a.y - a.x) * s);
  else if constexpr (m == 6) return make_float2((a.y - a.x) * s, (-a.x - a.y) * s);
  else if constexpr (m == 10) return make_float2((-a.x - a.y) * s, (a.x - a.y) * s);
  else if constexpr (m == 14) return make_float2((a.x - a.y) * s, (a.x + a.y) * s);
  else {
    constexpr float c = (float)cos16(m), sn = (float)sin16(m);
    // a · (c − i sn)
    return make_float2(a.x * c + a.y * sn, a.y * c - a.x * sn);
  }
}

/** a · W_R^M = a · e^{-2πi M/R}, for R dividing 32. */
template <int M, int R>
__device__ __forceinline__ float2 twc(float2 a) {
  static_assert(32 % R == 0, "twc: R must divide 32");
  constexpr int m32 = (M * (32 / R)) % 32;  // in thirty-seconds of a turn
  if constexpr (m32 % 2 == 0) {
    return twc16<m32 / 2>(a);
  } else {
    constexpr float c = (float)cos32(m32), sn = (float)sin32(m32);
    return make_float2(a.x * c + a.y * sn, a.y * c - a.x * sn);
  }
}

// cos/sin(2π j / P) for the odd primes handled directly.
template <int P>
__host__ __device__ constexpr double cosP(int j) {
  j = ((j % P) + P) % P;
  if (P == 3) return j == 0 ? 1.0 : -0.5;
  if (P == 5) {
    switch (j) {
      case 0: return 1.0;
      case 1: case 4: return 0.30901699437494742410;
      default: return -0.80901699437494742410;
    }
  }
  switch (j) {  // P == 7
    case 0: return 1.0;
    case 1: case 6: return 0.62348980185873353053;
    case 2: case 5: return -0.22252093395631440429;
    default: return -0.90096886790241912624;
  }
}
template <int P>
__host__ __device__ constexpr double sinP(int j) {
  j = ((j % P) + P) % P;
  const double sign = j * 2 > P ? -1.0 : 1.0;
  const int a = j * 2 > P ? P - j : j;  // sin(2π(P−a)/P) = −sin(2πa/P)
  if (a == 0) return 0.0;
  if (P == 3) return sign * 0.86602540378443864676;
  if (P == 5) return sign * (a == 1 ? 0.95105651629515357212 : 0.58778525229247312917);
  return sign * (a == 1 ? 0.78183148246802980871 : a == 2 ? 0.97492791218182360702 : 0.43388373911755812048);
}

template <int R>
__device__ __forceinline__ void dft(float2* v);

template <>
__device__ __forceinline__ void dft<1>(float2*) {}

template <>
__device__ __forceinline__ void dft<2>(float2* v) {
  float2 a = v[0], b = v[1];
  v[0] = cadd(a, b);
  v[1] = csub(a, b);
}

template <>
__device__ __forceinline__ void dft<4>(float2* v) {
  float2 t0 = cadd(v[0], v[2]), t1 = csub(v[0], v[2]);
  float2 t2 = cadd(v[1], v[3]), t3 = mulmi(csub(v[1], v[3]));
  v[0] = cadd(t0, t2);
  v[2] = csub(t0, t2);
  v[1] = cadd(t1, t3);
  v[3] = csub(t1, t3);
}

template <int P, int Q, int I>
__device__ __forceinline__ void twiddleSplit(float2* y) {
  if constexpr (I < P * Q) {
    constexpr int n2 = I / P, k1 = I % P;
    y[I] = twc<n2 * k1, P * Q>(y[I]);
    twiddleSplit<P, Q, I + 1>(y);
  }
}

/** Q DFTs of P points: column c gathers a[i] = src[in(i, c)], transforms it, scatters dst[out(i, c)] = a[i]
 *  (the index maps are compile-time constants once unrolled). The two stages of dftSplit and dftPfa. */
template <int P, int Q, class In, class Out>
__device__ __forceinline__ void dftColumns(const float2* src, float2* dst, In in, Out out) {
#pragma unroll
  for (int c = 0; c < Q; c++) {
    float2 a[P];
#pragma unroll
    for (int i = 0; i < P; i++) a[i] = src[in(i, c)];
    dft<P>(a);
#pragma unroll
    for (int i = 0; i < P; i++) dst[out(i, c)] = a[i];
  }
}

// R = P·Q: n = n2 + Q·n1, k = k1 + P·k2. DFT_P over n1, twiddle W_R^{n2·k1}, DFT_Q over n2.
template <int P, int Q>
__device__ __forceinline__ void dftSplit(float2* v) {
  float2 y[P * Q];
  dftColumns<P, Q>(v, y, [](int n1, int n2) { return n2 + Q * n1; }, [](int k1, int n2) { return n2 * P + k1; });
  // twiddles W_R^{n2·k1}: unrolled with compile-time exponents
  twiddleSplit<P, Q, 0>(y);
  dftColumns<Q, P>(y, v, [](int n2, int k1) { return n2 * P + k1; }, [](int k2, int k1) { return k1 + P * k2; });
}

template <>
__device__ __forceinline__ void dft<8>(float2* v) { dftSplit<2, 4>(v); }
template <>
__device__ __forceinline__ void dft<16>(float2* v) { dftSplit<4, 4>(v); }
template <>
__device__ __forceinline__ void dft<32>(float2* v) { dftSplit<2, 16>(v); }

// Odd primes: pairs s_m = v_m + v_{P−m}, d_m = v_m − v_{P−m}.
template <int P>
__device__ __forceinline__ void dftPrime(float2* v) {
  constexpr int H = (P - 1) / 2;
  float2 s[H + 1], d[H + 1];
  float2 x0 = v[0], sum = v[0];
#pragma unroll
  for (int m = 1; m <= H; m++) {
    s[m] = cadd(v[m], v[P - m]);
    d[m] = csub(v[m], v[P - m]);
    sum = cadd(sum, s[m]);
  }
  v[0] = sum;
#pragma unroll
  for (int k = 1; k <= H; k++) {
    float2 re = x0, im = make_float2(0.f, 0.f);
#pragma unroll
    for (int m = 1; m <= H; m++) {
      const float c = (float)cosP<P>(m * k), sn = (float)sinP<P>(m * k);
      re.x += c * s[m].x;
      re.y += c * s[m].y;
      im.x += sn * d[m].x;
      im.y += sn * d[m].y;
    }
    // X_k = re − i·im, X_{P−k} = re + i·im
    v[k] = make_float2(re.x + im.y, re.y - im.x);
    v[P - k] = make_float2(re.x - im.y, re.y + im.x);
  }
}
template <>
__device__ __forceinline__ void dft<3>(float2* v) { dftPrime<3>(v); }
template <>
__device__ __forceinline__ void dft<5>(float2* v) { dftPrime<5>(v); }
template <>
__device__ __forceinline__ void dft<7>(float2* v) { dftPrime<7>(v); }

/** a⁻¹ mod m (a, m coprime), at compile time. */
__host__ __device__ constexpr int invMod(int a, int m) {
  for (int x = 1; x < m; x++)
    if ((a * x) % m == 1) return x;
  return 1;  // m = 1
}

// Coprime R = P·Q by Good–Thomas (prime-factor algorithm): input n = (Q·n1 + P·n2) mod R, output k with
// k ≡ k1 (mod P), k ≡ k2 (mod Q). Then W_R^{nk} = W_P^{n1·k1} · W_Q^{n2·k2}: no twiddles between the two
// stages, only index permutations, all compile-time constants.
template <int P, int Q>
__device__ __forceinline__ void dftPfa(float2* v) {
  constexpr int R = P * Q, qi = invMod(Q % P, P), pi = invMod(P % Q, Q);
  static_assert(qi * (Q % P) % P == 1 % P && pi * (P % Q) % Q == 1 % Q, "dftPfa: P and Q must be coprime");
  float2 y[R];
  dftColumns<P, Q>(v, y, [](int n1, int n2) { return (Q * n1 + P * n2) % R; }, [](int k1, int n2) { return k1 * Q + n2; });
  dftColumns<Q, P>(y, v, [](int n2, int k1) { return k1 * Q + n2; },
                   [](int k2, int k1) { return (k1 * Q * qi + k2 * P * pi) % R; });
}
// the radices of the mixed-radix register FFT (fft_kernels.cuh: every divisor of its elements per thread)
#define PH_DFT_PFA(R, P, Q) \
  template <>               \
  __device__ __forceinline__ void dft<R>(float2* v) { dftPfa<P, Q>(v); }
PH_DFT_PFA(6, 2, 3)
PH_DFT_PFA(10, 2, 5)
PH_DFT_PFA(12, 4, 3)
PH_DFT_PFA(14, 2, 7)
PH_DFT_PFA(15, 3, 5)
PH_DFT_PFA(20, 4, 5)
PH_DFT_PFA(21, 3, 7)
PH_DFT_PFA(24, 8, 3)
PH_DFT_PFA(30, 2, 15)
#undef PH_DFT_PFA

}  // namespace ph

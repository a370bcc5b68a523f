// Float32 kernels of the CPU backend's single-precision path, compiled to WebAssembly with SIMD128
// (`node native/wasm/build.mjs`). Complex values are interleaved (re, im); a v128 holds two of them.
// Memory is managed by the caller (electron/engine/backends/cpu/simd.ts): every pointer is an offset into
// this module's memory, every size a number of complex values unless said otherwise.
//
// FFT: powers of two, radix-8 Stockham passes (autosort, no bit reversal) and one radix-4 or radix-2 pass
// (radix-4 passes below 64 points); forward unscaled, inverse scaled by 1/n (NumPy's conventions). Twiddles come from a table the
// caller computes in float64 and rounds once (see simd.ts): for each k four floats
// (c, c, -s, s) with W_n^k = c + i·s = exp(-2πi·k/n) for k < 7n/8; the inverse conjugates them.

#include <wasm_simd128.h>

typedef v128_t V;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE V cmulw(V a, V r, V i, int inv) {
  // a·w with w given as r = (c, c, c', c'), i = (-s, s, -s', s'); the inverse uses conj(w).
  V sw = wasm_i32x4_shuffle(a, a, 1, 0, 3, 2);
  V t = wasm_f32x4_mul(sw, i);
  return inv ? wasm_f32x4_sub(wasm_f32x4_mul(a, r), t) : wasm_f32x4_add(wasm_f32x4_mul(a, r), t);
}

/** ±j·v: forward multiplies by -j, the inverse by +j (the sign of the transform's exponent). */
ALWAYS_INLINE V mulj(V v, int inv) {
  V sw = wasm_i32x4_shuffle(v, v, 1, 0, 3, 2);
  // +j·(r + i·m) = -m + i·r ; -j·(r + i·m) = m - i·r
  const V neg_re = wasm_i32x4_const(0x80000000, 0, 0x80000000, 0);
  const V neg_im = wasm_i32x4_const(0, 0x80000000, 0, 0x80000000);
  return wasm_v128_xor(sw, inv ? neg_re : neg_im);
}

/** One twiddle, for both lanes. */
ALWAYS_INLINE void tw1(const float *tw, int k, V *r, V *i) {
  *r = wasm_v128_load64_splat(tw + 4 * k);
  *i = wasm_v128_load64_splat(tw + 4 * k + 2);
}

/** Twiddles k and k + d, one per lane. */
ALWAYS_INLINE void tw2(const float *tw, int k, int d, V *r, V *i) {
  V a = wasm_v128_load(tw + 4 * k);
  V b = wasm_v128_load(tw + 4 * (k + d));
  *r = wasm_i32x4_shuffle(a, b, 0, 1, 4, 5);
  *i = wasm_i32x4_shuffle(a, b, 2, 3, 6, 7);
}

/** The butterflies of one p of a radix-4 pass (s ≥ 2): q = 0 … s−1, two at a time; `twiddled` = 0 skips
 * the multiplies (p = 0). */
ALWAYS_INLINE void columns4(const float *xp, float *yp, int s, int q4, int inv, int twiddled, V r1, V i1,
                            V r2, V i2, V r3, V i3) {
  for (int q = 0; q < s; q += 2) {
    V a = wasm_v128_load(xp + 2 * q), b = wasm_v128_load(xp + 2 * (q + q4));
    V c = wasm_v128_load(xp + 2 * (q + 2 * q4)), d = wasm_v128_load(xp + 2 * (q + 3 * q4));
    V apc = wasm_f32x4_add(a, c), amc = wasm_f32x4_sub(a, c);
    V bpd = wasm_f32x4_add(b, d), jbmd = mulj(wasm_f32x4_sub(b, d), inv);
    V o1 = wasm_f32x4_add(amc, jbmd), o2 = wasm_f32x4_sub(apc, bpd), o3 = wasm_f32x4_sub(amc, jbmd);
    wasm_v128_store(yp + 2 * q, wasm_f32x4_add(apc, bpd));
    wasm_v128_store(yp + 2 * (q + s), twiddled ? cmulw(o1, r1, i1, inv) : o1);
    wasm_v128_store(yp + 2 * (q + 2 * s), twiddled ? cmulw(o2, r2, i2, inv) : o2);
    wasm_v128_store(yp + 2 * (q + 3 * s), twiddled ? cmulw(o3, r3, i3, inv) : o3);
  }
}

/**
 * One radix-4 Stockham pass: sub-transforms of length m (= n/s) at stride s. For p < m/4, q < s:
 *   y[q + s(4p+r)] = W_m^{rp} · Σ_u x[q + s(p + u·m/4)] · (∓j)^{ru}
 * Twiddle W_m^{rp} is entry rp·s of the n-point table.
 */
ALWAYS_INLINE void pass4(const float *x, float *y, const float *tw, int n, int s, int inv) {
  const int m = n / s, m4 = m >> 2;
  if (s == 1) {
    if (m4 == 1) {
      // n = 4: one butterfly on single complex values.
      V a = wasm_v128_load64_zero(x), b = wasm_v128_load64_zero(x + 2);
      V c = wasm_v128_load64_zero(x + 4), d = wasm_v128_load64_zero(x + 6);
      V apc = wasm_f32x4_add(a, c), amc = wasm_f32x4_sub(a, c);
      V bpd = wasm_f32x4_add(b, d), jbmd = mulj(wasm_f32x4_sub(b, d), inv);
      wasm_v128_store64_lane(y, wasm_f32x4_add(apc, bpd), 0);
      wasm_v128_store64_lane(y + 2, wasm_f32x4_add(amc, jbmd), 0);
      wasm_v128_store64_lane(y + 4, wasm_f32x4_sub(apc, bpd), 0);
      wasm_v128_store64_lane(y + 6, wasm_f32x4_sub(amc, jbmd), 0);
      return;
    }
    for (int p = 0; p < m4; p += 2) {
      V a = wasm_v128_load(x + 2 * p), b = wasm_v128_load(x + 2 * (p + m4));
      V c = wasm_v128_load(x + 2 * (p + 2 * m4)), d = wasm_v128_load(x + 2 * (p + 3 * m4));
      V apc = wasm_f32x4_add(a, c), amc = wasm_f32x4_sub(a, c);
      V bpd = wasm_f32x4_add(b, d), jbmd = mulj(wasm_f32x4_sub(b, d), inv);
      V r1, i1, r2, i2, r3, i3;
      tw2(tw, p, 1, &r1, &i1);
      tw2(tw, 2 * p, 2, &r2, &i2);
      tw2(tw, 3 * p, 3, &r3, &i3);
      V o0 = wasm_f32x4_add(apc, bpd);
      V o1 = cmulw(wasm_f32x4_add(amc, jbmd), r1, i1, inv);
      V o2 = cmulw(wasm_f32x4_sub(apc, bpd), r2, i2, inv);
      V o3 = cmulw(wasm_f32x4_sub(amc, jbmd), r3, i3, inv);
      // Lanes hold p and p+1; outputs 4p..4p+3 then 4p+4..4p+7.
      float *o = y + 8 * p;
      wasm_v128_store(o, wasm_i64x2_shuffle(o0, o1, 0, 2));
      wasm_v128_store(o + 4, wasm_i64x2_shuffle(o2, o3, 0, 2));
      wasm_v128_store(o + 8, wasm_i64x2_shuffle(o0, o1, 1, 3));
      wasm_v128_store(o + 12, wasm_i64x2_shuffle(o2, o3, 1, 3));
    }
    return;
  }
  const int q4 = s * m4; // distance between the four inputs, in complex values
  const V one_r = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  // p = 0 has unit twiddles: no multiplies (in the last radix-4 pass, where m = 4, that is every column).
  columns4(x, y, s, q4, inv, 0, one_r, zero, one_r, zero, one_r, zero);
  for (int p = 1; p < m4; p++) {
    V r1, i1, r2, i2, r3, i3;
    tw1(tw, p * s, &r1, &i1);
    tw1(tw, 2 * p * s, &r2, &i2);
    tw1(tw, 3 * p * s, &r3, &i3);
    columns4(x + 2 * s * p, y + 8 * s * p, s, q4, inv, 1, r1, i1, r2, i2, r3, i3);
  }
}

/** v·W_8 (forward) or v·conj(W_8) (inverse), W_8 = (1 − i)/√2. */
ALWAYS_INLINE V mulw8(V v, int inv) {
  return wasm_f32x4_mul(wasm_f32x4_add(v, mulj(v, inv)), wasm_f32x4_splat(0.70710678118654752f));
}

/** A 4-point DFT of y0 … y3 into o[0], o[step], o[2·step], o[3·step]. */
ALWAYS_INLINE void dft4(V y0, V y1, V y2, V y3, V *o, int step, int inv) {
  V e0 = wasm_f32x4_add(y0, y2), e1 = wasm_f32x4_sub(y0, y2);
  V g0 = wasm_f32x4_add(y1, y3), g1 = mulj(wasm_f32x4_sub(y1, y3), inv);
  o[0] = wasm_f32x4_add(e0, g0);
  o[step] = wasm_f32x4_add(e1, g1);
  o[2 * step] = wasm_f32x4_sub(e0, g0);
  o[3 * step] = wasm_f32x4_sub(e1, g1);
}

/** An 8-point DFT of x0 … x7 (two columns per vector), outputs in natural order: the even outputs are the
 * 4-point DFT of x_u + x_{u+4}, the odd ones that of (x_u − x_{u+4})·W_8^u. */
ALWAYS_INLINE void dft8(V x0, V x1, V x2, V x3, V x4, V x5, V x6, V x7, V *o, int inv) {
  dft4(wasm_f32x4_add(x0, x4), wasm_f32x4_add(x1, x5), wasm_f32x4_add(x2, x6), wasm_f32x4_add(x3, x7), o, 2,
       inv);
  dft4(wasm_f32x4_sub(x0, x4), mulw8(wasm_f32x4_sub(x1, x5), inv), mulj(wasm_f32x4_sub(x2, x6), inv),
       mulw8(mulj(wasm_f32x4_sub(x3, x7), inv), inv), o + 1, 2, inv);
}

/**
 * One radix-8 Stockham pass: sub-transforms of length m = n/s at stride s (m ≥ 8; for s = 1, m ≥ 16):
 *   y[q + s(8p+r)] = W_m^{rp} · Σ_u x[q + s(p + u·m/8)] · W_8^{ru}
 * Twiddle W_m^{rp} is entry rp·s of the n-point table (which runs to 7n/8).
 */
ALWAYS_INLINE void pass8(const float *x, float *y, const float *tw, int n, int s, int inv) {
  const int m8 = n / s / 8;
  V o[8];
  if (s == 1) {
    for (int p = 0; p < m8; p += 2) {
      const float *xp = x + 2 * p;
      dft8(wasm_v128_load(xp), wasm_v128_load(xp + 2 * m8), wasm_v128_load(xp + 4 * m8),
           wasm_v128_load(xp + 6 * m8), wasm_v128_load(xp + 8 * m8), wasm_v128_load(xp + 10 * m8),
           wasm_v128_load(xp + 12 * m8), wasm_v128_load(xp + 14 * m8), o, inv);
      // The first pass's own table (after the n-point one): per pair p, p+1 and r, the lanes as cmulw wants.
      const float *t1 = tw + 4 * (7 * (n / 8)) + 56 * (p / 2);
      for (int r = 1; r < 8; r++)
        o[r] = cmulw(o[r], wasm_v128_load(t1 + 8 * (r - 1)), wasm_v128_load(t1 + 8 * (r - 1) + 4), inv);
      // Lanes hold p and p+1: outputs 8p … 8p+7, then 8p+8 … 8p+15.
      float *yp = y + 16 * p;
      for (int r = 0; r < 8; r += 2) {
        wasm_v128_store(yp + 2 * r, wasm_i64x2_shuffle(o[r], o[r + 1], 0, 2));
        wasm_v128_store(yp + 16 + 2 * r, wasm_i64x2_shuffle(o[r], o[r + 1], 1, 3));
      }
    }
    return;
  }
  const int q8 = s * m8;
  for (int p = 0; p < m8; p++) {
    const float *xp = x + 2 * s * p;
    float *yp = y + 16 * s * p;
    V wr[8], wi[8];
    for (int r = 1; r < 8; r++) tw1(tw, r * p * s, &wr[r], &wi[r]);
    for (int q = 0; q < s; q += 2) {
      const float *xq = xp + 2 * q;
      dft8(wasm_v128_load(xq), wasm_v128_load(xq + 2 * q8), wasm_v128_load(xq + 4 * q8),
           wasm_v128_load(xq + 6 * q8), wasm_v128_load(xq + 8 * q8), wasm_v128_load(xq + 10 * q8),
           wasm_v128_load(xq + 12 * q8), wasm_v128_load(xq + 14 * q8), o, inv);
      wasm_v128_store(yp + 2 * q, o[0]);
      if (p == 0) {
        for (int r = 1; r < 8; r++) wasm_v128_store(yp + 2 * (q + r * s), o[r]);
      } else {
        for (int r = 1; r < 8; r++) wasm_v128_store(yp + 2 * (q + r * s), cmulw(o[r], wr[r], wi[r], inv));
      }
    }
  }
}

/** The last radix-2 pass (sub-transforms of length 2, stride s = n/2: no twiddles). */
ALWAYS_INLINE void pass2(const float *x, float *y, int n) {
  const int s = n >> 1;
  if (s == 1) {
    V a = wasm_v128_load64_zero(x), b = wasm_v128_load64_zero(x + 2);
    wasm_v128_store64_lane(y, wasm_f32x4_add(a, b), 0);
    wasm_v128_store64_lane(y + 2, wasm_f32x4_sub(a, b), 0);
    return;
  }
  for (int q = 0; q < s; q += 2) {
    V a = wasm_v128_load(x + 2 * q), b = wasm_v128_load(x + 2 * (q + s));
    wasm_v128_store(y + 2 * q, wasm_f32x4_add(a, b));
    wasm_v128_store(y + 2 * (q + s), wasm_f32x4_sub(a, b));
  }
}

static void scale(float *x, int n, float f) {
  V v = wasm_f32x4_splat(f);
  if (n == 1) {
    x[0] *= f;
    x[1] *= f;
    return;
  }
  for (int i = 0; i < 2 * n; i += 4) wasm_v128_store(x + i, wasm_f32x4_mul(wasm_v128_load(x + i), v));
}

static void copy(float *dst, const float *src, int values) {
  for (int i = 0; i < values; i++) dst[i] = src[i];
}

static int log2i(int n) {
  int lg = 0;
  while ((1 << lg) < n) lg++;
  return lg;
}

ALWAYS_INLINE void fft_one(const float *in, float *out, float *scratch, const float *tw, int n, int inv) {
  if (n == 1) {
    out[0] = in[0];
    out[1] = in[1];
    return;
  }
  // From 64 points radix-8 passes, then one radix-4 or radix-2 pass for the remaining factor; below,
  // radix-4 passes and one radix-2 pass when log2 n is odd.
  const int lg = log2i(n);
  const int r8 = n >= 64 ? lg / 3 : 0;
  const int rest = lg - 3 * r8;
  const int r4 = r8 > 0 ? rest / 2 : lg / 2;
  const int r2 = (r8 > 0 ? rest : lg) & 1;
  const int k = r8 + r4 + r2;
  // Passes alternate between `out` and `scratch` so that the last one writes `out`; an in-place call with
  // an odd number of passes starts from a copy in `scratch`.
  const float *src = in;
  float *bufs[2] = {out, scratch};
  int cur = (k & 1) ? 0 : 1; // buffer written by the first pass
  if (in == out && (k & 1)) {
    copy(scratch, in, 2 * n);
    src = scratch;
  }
  int s = 1;
  for (int i = 0; i < r8; i++, s *= 8) {
    float *dst = bufs[cur];
    pass8(src, dst, tw, n, s, inv);
    src = dst;
    cur ^= 1;
  }
  for (int i = 0; i < r4; i++, s *= 4) {
    float *dst = bufs[cur];
    pass4(src, dst, tw, n, s, inv);
    src = dst;
    cur ^= 1;
  }
  if (r2) pass2(src, bufs[cur], n);
  if (inv) scale(out, n, 1.0f / (float)n);
}

/** `batch` transforms of n points: in + 2n·b → out + 2n·b. in may equal out; scratch holds 2n floats. */
void fft_batch(const float *in, float *out, float *scratch, const float *tw, int n, int batch, int inv) {
  for (int b = 0; b < batch; b++) {
    if (inv) fft_one(in + 2 * n * b, out + 2 * n * b, scratch, tw, n, 1);
    else fft_one(in + 2 * n * b, out + 2 * n * b, scratch, tw, n, 0);
  }
}

/** z[k] ← z[k]·h[k] (or ·conj(h[k])) for k < count. */
void cmul(float *z, const float *h, int count, int conj) {
  int k = 0;
  for (; k + 2 <= count; k += 2) {
    V a = wasm_v128_load(z + 2 * k), w = wasm_v128_load(h + 2 * k);
    V r = wasm_i32x4_shuffle(w, w, 0, 0, 2, 2);
    V i = wasm_i32x4_shuffle(w, w, 1, 1, 3, 3);
    V sw = wasm_i32x4_shuffle(a, a, 1, 0, 3, 2);
    // (ar + i·ai)(hr + i·hi) = (ar·hr − ai·hi) + i(ai·hr + ar·hi); conj(h) flips the hi terms.
    V t = wasm_f32x4_mul(sw, i);
    t = wasm_v128_xor(t, conj ? wasm_i32x4_const(0, 0x80000000, 0, 0x80000000)
                              : wasm_i32x4_const(0x80000000, 0, 0x80000000, 0));
    wasm_v128_store(z + 2 * k, wasm_f32x4_add(wasm_f32x4_mul(a, r), t));
  }
  for (; k < count; k++) {
    float ar = z[2 * k], ai = z[2 * k + 1], hr = h[2 * k], hi = conj ? -h[2 * k + 1] : h[2 * k + 1];
    z[2 * k] = ar * hr - ai * hi;
    z[2 * k + 1] = ar * hi + ai * hr;
  }
}

/** Flips the sign of the imaginary parts (conjugates two complex values). */
#define CONJ wasm_i32x4_const(0, 0x80000000, 0, 0x80000000)
#define HALF wasm_f32x4_splat(0.5f)

/**
 * The split step for bins k, k+1 and their mirrors h−k, h−k−1 (loaded as one vector, lanes reversed to line
 * up). With Fe = (A + conj B)/2 and D = (A − conj B)/2, bin k gets Fe + T and its mirror conj(Fe − T):
 * forward (rfft) T = W^k·D/i, so X[k] = Fe + W^k·Fo; inverse (irfft) T = i·conj(W^k)·D, so Z[k] = Fe + i·Fo.
 */
ALWAYS_INLINE void split2(float *X, const float *twn, int h, int k, int inv) {
  V a = wasm_v128_load(X + 2 * k), b = wasm_v128_load(X + 2 * (h - k - 1));
  V cb = wasm_v128_xor(wasm_i64x2_shuffle(b, b, 1, 0), CONJ);
  V fe = wasm_f32x4_mul(HALF, wasm_f32x4_add(a, cb));
  V d = wasm_f32x4_mul(HALF, wasm_f32x4_sub(a, cb));
  V r, i;
  tw2(twn, k, 1, &r, &i);
  V t = inv ? mulj(cmulw(d, r, i, 1), 1) : cmulw(mulj(d, 0), r, i, 0);
  wasm_v128_store(X + 2 * k, wasm_f32x4_add(fe, t));
  V m = wasm_v128_xor(wasm_f32x4_sub(fe, t), CONJ);
  wasm_v128_store(X + 2 * (h - k - 1), wasm_i64x2_shuffle(m, m, 1, 0));
}

/**
 * Real FFT of n reals (n ≥ 4) through one complex FFT of n/2 points: x (n floats) → X (n/2 + 1 complex
 * values, 2·(n/2+1) floats). `twh` is the n/2-point table, `twn` the n-point one (for the split).
 * x and X may be the same memory when it holds n + 2 floats; scratch holds n floats.
 */
void rfft(const float *x, float *X, float *scratch, const float *twh, const float *twn, int n) {
  const int h = n >> 1;
  fft_one(x, X, scratch, twh, h, 0);
  // Split: Fe = (Z[k] + conj Z[h−k])/2, Fo = (Z[k] − conj Z[h−k])/(2i), X[k] = Fe + W^k·Fo, X[h−k] likewise.
  float z0r = X[0], z0i = X[1];
  X[0] = z0r + z0i;
  X[1] = 0;
  X[2 * h] = z0r - z0i;
  X[2 * h + 1] = 0;
  int k = 1;
  // Two k at a time (k, k+1 against h−k, h−k−1, lanes reversed to line up) while both are below h/2.
  for (; 2 * (k + 1) < h; k += 2) split2(X, twn, h, k, 0);
  for (; 2 * k <= h; k++) {
    int j = h - k;
    float ar = X[2 * k], ai = X[2 * k + 1], br = X[2 * j], bi = X[2 * j + 1];
    float er = 0.5f * (ar + br), ei = 0.5f * (ai - bi); // Fe[k]
    float or_ = 0.5f * (ai + bi), oi = -0.5f * (ar - br); // Fo[k]
    float c = twn[4 * k], s = twn[4 * k + 3]; // W_n^k = c + i·s
    float tr = or_ * c - oi * s, ti = or_ * s + oi * c;
    X[2 * k] = er + tr;
    X[2 * k + 1] = ei + ti;
    // X[j] = conj(Fe[k]) − conj(W^k·Fo[k])  (W^{h−k} = −conj W^k, Fe[j] = conj Fe[k], Fo[j] = conj Fo[k])
    X[2 * j] = er - tr;
    X[2 * j + 1] = -ei + ti;
  }
}

/** Inverse of rfft: X (n/2 + 1 complex values) → x (n reals), scaled by 1/n. X is overwritten. */
void irfft(float *X, float *x, float *scratch, const float *twh, const float *twn, int n) {
  const int h = n >> 1;
  // Z[k] = Fe[k] + i·Fo[k], Fe = (X[k] + conj X[h−k])/2, Fo = (X[k] − conj X[h−k])·conj(W^k)/2.
  float x0r = X[0], xhr = X[2 * h];
  X[0] = 0.5f * (x0r + xhr);
  X[1] = 0.5f * (x0r - xhr);
  int k = 1;
  for (; 2 * (k + 1) < h; k += 2) split2(X, twn, h, k, 1);
  for (; 2 * k <= h; k++) {
    int j = h - k;
    float ar = X[2 * k], ai = X[2 * k + 1], br = X[2 * j], bi = X[2 * j + 1];
    float er = 0.5f * (ar + br), ei = 0.5f * (ai - bi);
    float dr = 0.5f * (ar - br), di = 0.5f * (ai + bi);
    float c = twn[4 * k], s = twn[4 * k + 3];
    float or_ = dr * c + di * s, oi = di * c - dr * s; // d·conj(W^k)
    // Z[k] = Fe + i·Fo ; Z[j] = conj(Fe) + i·conj(Fo)  (Fe[j] = conj Fe[k], Fo[j] = conj Fo[k])
    X[2 * k] = er - oi;
    X[2 * k + 1] = ei + or_;
    X[2 * j] = er + oi;
    X[2 * j + 1] = -ei + or_;
  }
  fft_one(X, x, scratch, twh, h, 1);
}

/** Batched real transforms: rfft_batch reads n reals per transform and writes n + 2 floats. */
void rfft_batch(const float *x, float *X, float *scratch, const float *twh, const float *twn, int n,
                int batch) {
  for (int b = 0; b < batch; b++) rfft(x + n * b, X + (n + 2) * b, scratch, twh, twn, n);
}

void irfft_batch(float *X, float *x, float *scratch, const float *twh, const float *twn, int n, int batch) {
  for (int b = 0; b < batch; b++) irfft(X + (n + 2) * b, x + n * b, scratch, twh, twn, n);
}

/** out[k] = |z[k]|² for k < count. */
void power(const float *z, float *out, int count) {
  int k = 0;
  for (; k + 4 <= count; k += 4) {
    V a = wasm_v128_load(z + 2 * k), b = wasm_v128_load(z + 2 * k + 4);
    V a2 = wasm_f32x4_mul(a, a), b2 = wasm_f32x4_mul(b, b);
    V re = wasm_i32x4_shuffle(a2, b2, 0, 2, 4, 6), im = wasm_i32x4_shuffle(a2, b2, 1, 3, 5, 7);
    wasm_v128_store(out + k, wasm_f32x4_add(re, im));
  }
  for (; k < count; k++) out[k] = z[2 * k] * z[2 * k] + z[2 * k + 1] * z[2 * k + 1];
}

/** x[i] ← x[i]·w[i] for `values` floats (w already repeated per I/Q value for complex input). */
void window(float *x, const float *w, int values) {
  int i = 0;
  for (; i + 4 <= values; i += 4)
    wasm_v128_store(x + i, wasm_f32x4_mul(wasm_v128_load(x + i), wasm_v128_load(w + i)));
  for (; i < values; i++) x[i] *= w[i];
}

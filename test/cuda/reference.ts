// Float64 references for the CUDA tests, written independently of the backends: a DFT by mixed-radix
// recursion (2, 3, 5, 7), Bluestein for other factors, direct-form FIR and correlation in float64.

export type C64 = Float64Array; // interleaved re, im

/** Forward (sign −1) or inverse-unscaled (sign +1) DFT of n complex values. */
export function dft(x: C64, sign = -1): C64 {
  const n = x.length / 2;
  if (n <= 1) return Float64Array.from(x);
  if ((n & (n - 1)) === 0) return radix2(x, sign);
  for (const p of [2, 3, 5, 7]) {
    if (n % p === 0) return mixed(x, p, sign);
  }
  return n <= 64 ? naive(x, sign) : bluestein(x, sign);
}

function naive(x: C64, sign: number): C64 {
  const n = x.length / 2;
  const out = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    let re = 0,
      im = 0;
    for (let j = 0; j < n; j++) {
      const a = (sign * 2 * Math.PI * ((j * k) % n)) / n;
      const c = Math.cos(a),
        s = Math.sin(a);
      re += x[2 * j] * c - x[2 * j + 1] * s;
      im += x[2 * j] * s + x[2 * j + 1] * c;
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
  return out;
}

function radix2(x: C64, sign: number): C64 {
  const n = x.length / 2;
  const a = Float64Array.from(x);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [a[2 * i], a[2 * j]] = [a[2 * j], a[2 * i]];
      [a[2 * i + 1], a[2 * j + 1]] = [a[2 * j + 1], a[2 * i + 1]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    for (let k = 0; k < half; k++) {
      const ang = (sign * 2 * Math.PI * k) / len;
      const wr = Math.cos(ang),
        wi = Math.sin(ang);
      for (let i = k; i < n; i += len) {
        const j = i + half;
        const xr = a[2 * j] * wr - a[2 * j + 1] * wi;
        const xi = a[2 * j] * wi + a[2 * j + 1] * wr;
        a[2 * j] = a[2 * i] - xr;
        a[2 * j + 1] = a[2 * i + 1] - xi;
        a[2 * i] += xr;
        a[2 * i + 1] += xi;
      }
    }
  }
  return a;
}

function mixed(x: C64, p: number, sign: number): C64 {
  const n = x.length / 2;
  const m = n / p;
  const subs: C64[] = [];
  for (let r = 0; r < p; r++) {
    const s = new Float64Array(2 * m);
    for (let j = 0; j < m; j++) {
      s[2 * j] = x[2 * (j * p + r)];
      s[2 * j + 1] = x[2 * (j * p + r) + 1];
    }
    subs.push(dft(s, sign));
  }
  const out = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    let re = 0,
      im = 0;
    for (let r = 0; r < p; r++) {
      const a = (sign * 2 * Math.PI * ((r * k) % n)) / n;
      const c = Math.cos(a),
        s = Math.sin(a);
      const sr = subs[r][2 * (k % m)],
        si = subs[r][2 * (k % m) + 1];
      re += sr * c - si * s;
      im += sr * s + si * c;
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
  return out;
}

function bluestein(x: C64, sign: number): C64 {
  const n = x.length / 2;
  let m = 1;
  while (m < 2 * n - 1) m *= 2;
  const w = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    const a = (sign * Math.PI * ((k * k) % (2 * n))) / n;
    w[2 * k] = Math.cos(a);
    w[2 * k + 1] = Math.sin(a);
  }
  const a = new Float64Array(2 * m),
    b = new Float64Array(2 * m);
  for (let k = 0; k < n; k++) {
    a[2 * k] = x[2 * k] * w[2 * k] - x[2 * k + 1] * w[2 * k + 1];
    a[2 * k + 1] = x[2 * k] * w[2 * k + 1] + x[2 * k + 1] * w[2 * k];
    b[2 * k] = w[2 * k];
    b[2 * k + 1] = -w[2 * k + 1];
    if (k > 0) {
      b[2 * (m - k)] = w[2 * k];
      b[2 * (m - k) + 1] = -w[2 * k + 1];
    }
  }
  const A = radix2(a, -1),
    B = radix2(b, -1);
  for (let i = 0; i < m; i++) {
    const re = A[2 * i] * B[2 * i] - A[2 * i + 1] * B[2 * i + 1];
    const im = A[2 * i] * B[2 * i + 1] + A[2 * i + 1] * B[2 * i];
    A[2 * i] = re / m;
    A[2 * i + 1] = im / m;
  }
  const c = radix2(A, 1);
  const out = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    out[2 * k] = c[2 * k] * w[2 * k] - c[2 * k + 1] * w[2 * k + 1];
    out[2 * k + 1] = c[2 * k] * w[2 * k + 1] + c[2 * k + 1] * w[2 * k];
  }
  return out;
}

/** ‖got − ref‖₂ / ‖ref‖₂ (NaN or Infinity in got gives Infinity). */
export function relL2(got: ArrayLike<number>, ref: ArrayLike<number>): number {
  let num = 0,
    den = 0;
  for (let i = 0; i < ref.length; i++) {
    if (!Number.isFinite(got[i])) return Infinity;
    const d = got[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return Math.sqrt(num / den);
}

/** A reproducible pseudo-random generator (mulberry32) and Gaussian samples from it. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(count: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const u = Math.max(r(), 1e-12),
      v = r();
    const m = Math.sqrt(-2 * Math.log(u));
    out[i] = m * Math.cos(2 * Math.PI * v);
    if (i + 1 < count) out[i + 1] = m * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/** y = lfilter(taps, 1, x) per lane, in float64. */
export function lfilter(taps: ArrayLike<number>, x: Float32Array, lanes: number): Float64Array {
  const frames = x.length / lanes;
  const y = new Float64Array(x.length);
  for (let f = 0; f < frames; f++) {
    for (let v = 0; v < lanes; v++) {
      let acc = 0;
      for (let k = 0; k < taps.length && k <= f; k++) acc += taps[k] * x[(f - k) * lanes + v];
      y[f * lanes + v] = acc;
    }
  }
  return y;
}

/** Normalized correlation scores (scipy.signal.correlate 'valid' lags) in float64. */
export function correlationScores(x: Float32Array, t: Float32Array, complex: boolean): Float64Array {
  const vps = complex ? 2 : 1;
  const n = x.length / vps,
    m = t.length / vps;
  let tn = 0;
  for (const v of t) tn += v * v;
  tn = Math.sqrt(tn);
  const out = new Float64Array(Math.max(0, n - m + 1));
  for (let l = 0; l < out.length; l++) {
    let sr = 0,
      si = 0,
      e = 0;
    for (let k = 0; k < m; k++) {
      const xr = x[vps * (l + k)],
        xi = complex ? x[2 * (l + k) + 1] : 0;
      const tr = t[vps * k],
        ti = complex ? t[2 * k + 1] : 0;
      sr += xr * tr + xi * ti;
      si += xi * tr - xr * ti;
      e += xr * xr + xi * xi;
    }
    out[l] = e > 0 && tn > 0 ? Math.min(1, Math.hypot(sr, si) / (tn * Math.sqrt(e))) : 0;
  }
  return out;
}

/** The first index where the two arrays differ in a bit, or −1 (a fast check: vitest's diff of two large
 *  arrays takes minutes). */
export function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return -1;
}

/** The periodic Hann window of n points (the spectrogram tests' window). */
export function hann(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
}

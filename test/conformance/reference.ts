// Float64 references for the conformance suite, written independently of the engine's FFT (no shared
// code, different algorithms): a direct DFT for small n, recursive decimation in time over the smallest
// prime factor for smooth n, an iterative radix-2 FFT for powers of two, and Bluestein through that radix-2
// FFT for n with a large prime factor. reference.test.ts checks them against the direct DFT.
// Clarity over speed: these allocate freely.

/** Direct DFT, O(n²), exact twiddles: angle reduced as (j·k mod n) before cos/sin. Interleaved complex. */
export function dft(x: Float64Array, inverse = false): Float64Array {
  const n = x.length / 2;
  const y = new Float64Array(2 * n);
  const sign = inverse ? 1 : -1;
  const cos = new Float64Array(n);
  const sin = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    cos[i] = Math.cos((2 * Math.PI * i) / n);
    sin[i] = sign * Math.sin((2 * Math.PI * i) / n);
  }
  for (let k = 0; k < n; k++) {
    let re = 0;
    let im = 0;
    for (let j = 0; j < n; j++) {
      const idx = (j * k) % n;
      re += x[2 * j] * cos[idx] - x[2 * j + 1] * sin[idx];
      im += x[2 * j] * sin[idx] + x[2 * j + 1] * cos[idx];
    }
    y[2 * k] = inverse ? re / n : re;
    y[2 * k + 1] = inverse ? im / n : im;
  }
  return y;
}

function smallestFactor(n: number): number {
  if (n % 2 === 0) return 2;
  for (let p = 3; p * p <= n; p += 2) if (n % p === 0) return p;
  return n;
}

function largestFactor(n: number): number {
  let m = n;
  let largest = 1;
  for (let p = 2; p * p <= m; p++) {
    while (m % p === 0) {
      largest = p;
      m /= p;
    }
  }
  return Math.max(largest, m);
}

/** Iterative radix-2 FFT (bit reversal, then butterflies), unscaled, sign −1 forward. n a power of two. */
function radix2(x: Float64Array, sign: number): Float64Array {
  const n = x.length / 2;
  const y = new Float64Array(x);
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = y[2 * i];
      const ti = y[2 * i + 1];
      y[2 * i] = y[2 * j];
      y[2 * i + 1] = y[2 * j + 1];
      y[2 * j] = tr;
      y[2 * j + 1] = ti;
    }
  }
  for (let len = 2; len <= n; len *= 2) {
    const half = len / 2;
    const cos = new Float64Array(half);
    const sin = new Float64Array(half);
    for (let k = 0; k < half; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / len);
      sin[k] = sign * Math.sin((2 * Math.PI * k) / len);
    }
    for (let s = 0; s < n; s += len) {
      for (let k = 0; k < half; k++) {
        const a = 2 * (s + k);
        const b = 2 * (s + k + half);
        const br = y[b] * cos[k] - y[b + 1] * sin[k];
        const bi = y[b] * sin[k] + y[b + 1] * cos[k];
        y[b] = y[a] - br;
        y[b + 1] = y[a + 1] - bi;
        y[a] += br;
        y[a + 1] += bi;
      }
    }
  }
  return y;
}

/** Recursive decimation in time: X[k] = Σ_r W^(r·k) · DFT_m(x[r::p])[k mod m], p the smallest prime factor. */
function recursive(x: Float64Array, sign: number): Float64Array {
  const n = x.length / 2;
  if (n <= 16) return unscaled(x, sign);
  const p = smallestFactor(n);
  if (p === n) return unscaled(x, sign);
  const m = n / p;
  const subs: Float64Array[] = [];
  for (let r = 0; r < p; r++) {
    const s = new Float64Array(2 * m);
    for (let j = 0; j < m; j++) {
      s[2 * j] = x[2 * (j * p + r)];
      s[2 * j + 1] = x[2 * (j * p + r) + 1];
    }
    subs.push(recursive(s, sign));
  }
  const y = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    let re = 0;
    let im = 0;
    for (let r = 0; r < p; r++) {
      const angle = (sign * 2 * Math.PI * ((r * k) % n)) / n;
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      const sr = subs[r][2 * (k % m)];
      const si = subs[r][2 * (k % m) + 1];
      re += sr * c - si * s;
      im += sr * s + si * c;
    }
    y[2 * k] = re;
    y[2 * k + 1] = im;
  }
  return y;
}

function unscaled(x: Float64Array, sign: number): Float64Array {
  const y = dft(x, sign > 0);
  if (sign > 0) for (let i = 0; i < y.length; i++) y[i] *= x.length / 2;
  return y;
}

/** Bluestein: X[k] = w[k]·Σ x[j]·w[j]·conj(w[k−j]), w[k] = e^(sign·iπk²/n), a radix-2 circular convolution. */
function bluestein(x: Float64Array, sign: number): Float64Array {
  const n = x.length / 2;
  let m = 1;
  while (m < 2 * n - 1) m *= 2;
  const wr = new Float64Array(n);
  const wi = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const angle = (sign * Math.PI * ((k * k) % (2 * n))) / n;
    wr[k] = Math.cos(angle);
    wi[k] = Math.sin(angle);
  }
  const a = new Float64Array(2 * m);
  const b = new Float64Array(2 * m);
  for (let k = 0; k < n; k++) {
    a[2 * k] = x[2 * k] * wr[k] - x[2 * k + 1] * wi[k];
    a[2 * k + 1] = x[2 * k] * wi[k] + x[2 * k + 1] * wr[k];
    b[2 * k] = wr[k];
    b[2 * k + 1] = -wi[k];
    if (k > 0) {
      b[2 * (m - k)] = wr[k];
      b[2 * (m - k) + 1] = -wi[k];
    }
  }
  const fa = radix2(a, -1);
  const fb = radix2(b, -1);
  for (let i = 0; i < m; i++) {
    const re = fa[2 * i] * fb[2 * i] - fa[2 * i + 1] * fb[2 * i + 1];
    const im = fa[2 * i] * fb[2 * i + 1] + fa[2 * i + 1] * fb[2 * i];
    fa[2 * i] = re;
    fa[2 * i + 1] = im;
  }
  const conv = radix2(fa, 1);
  const y = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    const cr = conv[2 * k] / m;
    const ci = conv[2 * k + 1] / m;
    y[2 * k] = cr * wr[k] - ci * wi[k];
    y[2 * k + 1] = cr * wi[k] + ci * wr[k];
  }
  return y;
}

/** Reference complex FFT of one transform (interleaved), numpy conventions (inverse scaled by 1/n). */
export function referenceFft(x: Float64Array, inverse = false): Float64Array {
  const n = x.length / 2;
  const sign = inverse ? 1 : -1;
  let y: Float64Array;
  if (n <= 64) y = unscaled(x, sign);
  else if ((n & (n - 1)) === 0) y = radix2(x, sign);
  else if (largestFactor(n) <= 64) y = recursive(x, sign);
  else y = bluestein(x, sign);
  if (inverse) for (let i = 0; i < y.length; i++) y[i] /= n;
  return y;
}

/** numpy.fft.rfft of n reals: floor(n/2)+1 bins, interleaved. */
export function referenceRfft(x: Float64Array): Float64Array {
  const n = x.length;
  const z = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) z[2 * i] = x[i];
  return referenceFft(z).slice(0, 2 * (Math.floor(n / 2) + 1));
}

/** numpy.fft.irfft(bins, n): Hermitian extension (imaginary parts of DC and, for even n, Nyquist ignored). */
export function referenceIrfft(bins: Float64Array, n: number): Float64Array {
  const h = Math.floor(n / 2);
  const z = new Float64Array(2 * n);
  for (let k = 0; k <= h; k++) {
    const re = bins[2 * k];
    const im = k === 0 || (n % 2 === 0 && k === h) ? 0 : bins[2 * k + 1];
    z[2 * k] = re;
    z[2 * k + 1] = im;
    if (k > 0 && n - k !== k) {
      z[2 * (n - k)] = re;
      z[2 * (n - k) + 1] = -im;
    }
  }
  const y = referenceFft(z, true);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = y[2 * i];
  return out;
}

// ------------------------------------------------------------------------------------------------
// Streaming operations

/** scipy.signal.lfilter(taps, 1, x) of each lane of interleaved frames, direct float64 convolution. */
export function referenceLfilter(taps: ArrayLike<number>, x: ArrayLike<number>, lanes: number): Float64Array {
  const frames = x.length / lanes;
  const y = new Float64Array(x.length);
  for (let v = 0; v < lanes; v++) {
    for (let f = 0; f < frames; f++) {
      let acc = 0;
      const kmax = Math.min(taps.length - 1, f);
      for (let k = 0; k <= kmax; k++) acc += taps[k] * x[(f - k) * lanes + v];
      y[f * lanes + v] = acc;
    }
  }
  return y;
}

/** Normalized correlation scores, lags of scipy.signal.correlate(x, t, mode='valid'), direct float64. */
export function referenceCorrelation(
  x: ArrayLike<number>,
  t: ArrayLike<number>,
  complex: boolean,
): Float64Array {
  const vps = complex ? 2 : 1;
  const n = x.length / vps;
  const m = t.length / vps;
  const lags = Math.max(0, n - m + 1);
  const out = new Float64Array(lags);
  let tt = 0;
  for (let i = 0; i < t.length; i++) tt += t[i] * t[i];
  for (let l = 0; l < lags; l++) {
    let re = 0;
    let im = 0;
    let e = 0;
    for (let k = 0; k < m; k++) {
      const xr = x[vps * (l + k)];
      const xi = complex ? x[2 * (l + k) + 1] : 0;
      const tr = t[vps * k];
      const ti = complex ? t[2 * k + 1] : 0;
      re += xr * tr + xi * ti;
      im += xi * tr - xr * ti;
      e += xr * xr + xi * xi;
    }
    out[l] = e > 0 && tt > 0 ? Math.hypot(re, im) / Math.sqrt(tt * e) : 0;
  }
  return out;
}

export interface ReferenceSpectrogramOptions {
  fft: number;
  hop: number;
  window: ArrayLike<number>;
  complex: boolean;
  columns?: number;
  averaging?: number;
  floorDb?: number;
}

/**
 * Spectrogram rows as linear power relative to full scale (AES17): |X|²/(Σw)², one-sided real bins other than
 * DC and Nyquist doubled in amplitude (×4 in power); complex rows in fftshift order; optional column
 * reduction (max over bins [⌊c·B/C⌋, ⌊(c+1)·B/C⌋)); plus the exponential average of the rows.
 */
export function referenceSpectrogram(
  x: ArrayLike<number>,
  o: ReferenceSpectrogramOptions,
): { rows: Float64Array[]; average: Float64Array | null } {
  const vps = o.complex ? 2 : 1;
  const n = o.fft;
  const samples = x.length / vps;
  const frames = samples >= n ? Math.floor((samples - n) / o.hop) + 1 : 0;
  let wsum = 0;
  for (let i = 0; i < n; i++) wsum += o.window[i];
  const bins = o.complex ? n : Math.floor(n / 2) + 1;
  const width = o.columns ?? bins;
  const rows: Float64Array[] = [];
  let average: Float64Array | null = null;
  for (let f = 0; f < frames; f++) {
    const z = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      const s = f * o.hop + i;
      z[2 * i] = x[vps * s] * o.window[i];
      z[2 * i + 1] = o.complex ? x[2 * s + 1] * o.window[i] : 0;
    }
    const spec = referenceFft(z);
    const power = new Float64Array(bins);
    for (let b = 0; b < bins; b++) {
      const k = o.complex ? (b - Math.floor(n / 2) + n) % n : b;
      let p = (spec[2 * k] ** 2 + spec[2 * k + 1] ** 2) / (wsum * wsum);
      if (!o.complex && k !== 0 && !(n % 2 === 0 && k === n / 2)) p *= 4;
      power[b] = p;
    }
    const row = new Float64Array(width);
    for (let c = 0; c < width; c++) {
      const lo = Math.floor((c * bins) / width);
      const hi = Math.floor(((c + 1) * bins) / width);
      let m = -Infinity;
      for (let b = lo; b < hi; b++) m = Math.max(m, power[b]);
      row[c] = m;
    }
    rows.push(row);
    if (o.averaging !== undefined) {
      if (average === null) average = row.slice();
      else for (let c = 0; c < width; c++) average[c] = o.averaging * row[c] + (1 - o.averaging) * average[c];
    }
  }
  return { rows, average };
}

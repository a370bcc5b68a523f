// A tiny float64 Backend for the DSP tests: radix-2 FFT for powers of two, a direct DFT otherwise (with an
// exact twiddle table), results rounded to float32 as the interface requires. Only fft/rfft are real;
// the processors are not needed by welch and throw.

import type {
  ArrayInput,
  Backend,
  Correlator,
  DeviceArray,
  FirFilter,
  SpectrogramProcessor,
  TransformOptions,
} from '../../electron/engine/backends/backend.js';

const twiddleCache = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function twiddles(n: number): { cos: Float64Array; sin: Float64Array } {
  const hit = twiddleCache.get(n);
  if (hit) return hit;
  const cos = new Float64Array(n);
  const sin = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    cos[k] = Math.cos((2 * Math.PI * k) / n);
    sin[k] = Math.sin((2 * Math.PI * k) / n);
  }
  twiddleCache.set(n, { cos, sin });
  return { cos, sin };
}

/** In-place complex DFT of (re, im) of length n, forward (e^{−j…}) or inverse (unscaled). */
export function dft64(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  const { cos, sin } = twiddles(n);
  const sign = inverse ? 1 : -1;
  if ((n & (n - 1)) === 0) {
    for (let i = 1, j = 0; i < n; i++) {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        const tr = re[i];
        re[i] = re[j];
        re[j] = tr;
        const ti = im[i];
        im[i] = im[j];
        im[j] = ti;
      }
    }
    for (let len = 2; len <= n; len <<= 1) {
      const half = len >> 1;
      const stride = n / len;
      for (let s = 0; s < n; s += len) {
        for (let k = 0; k < half; k++) {
          const wr = cos[k * stride];
          const wi = sign * sin[k * stride];
          const a = s + k;
          const b = a + half;
          const tr = re[b] * wr - im[b] * wi;
          const ti = re[b] * wi + im[b] * wr;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
    return;
  }
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    let idx = 0;
    for (let t = 0; t < n; t++) {
      const wr = cos[idx];
      const wi = sign * sin[idx];
      sr += re[t] * wr - im[t] * wi;
      si += re[t] * wi + im[t] * wr;
      idx += k;
      if (idx >= n) idx -= n;
    }
    outRe[k] = sr;
    outIm[k] = si;
  }
  re.set(outRe);
  im.set(outIm);
}

function host(input: ArrayInput): Float32Array {
  if (!(input instanceof Float32Array)) throw new Error('reference backend: device arrays are not supported');
  return input;
}

function notNeeded(): never {
  throw new Error('reference backend: not implemented (not needed by the DSP tests)');
}

export function createReferenceBackend(): Backend & { calls: { fft: number; rfft: number } } {
  const calls = { fft: 0, rfft: 0 };
  const backend = {
    name: 'cpu' as const,
    device: 'float64 reference (test only)',
    calls,
    async upload(): Promise<DeviceArray> {
      return notNeeded();
    },
    async fft(input: ArrayInput, n: number, options: TransformOptions & { inverse?: boolean } = {}) {
      calls.fft++;
      const x = host(input);
      const batch = x.length / (2 * n);
      const out = options.out ?? new Float32Array(x.length);
      if (out.length !== x.length) throw new Error('reference backend: out has the wrong length');
      const re = new Float64Array(n);
      const im = new Float64Array(n);
      for (let b = 0; b < batch; b++) {
        for (let i = 0; i < n; i++) {
          re[i] = x[2 * (b * n + i)];
          im[i] = x[2 * (b * n + i) + 1];
        }
        dft64(re, im, options.inverse ?? false);
        const scale = options.inverse ? 1 / n : 1;
        for (let i = 0; i < n; i++) {
          out[2 * (b * n + i)] = re[i] * scale;
          out[2 * (b * n + i) + 1] = im[i] * scale;
        }
      }
      return out;
    },
    async rfft(input: ArrayInput, n: number, options: TransformOptions = {}) {
      calls.rfft++;
      const x = host(input);
      const batch = x.length / n;
      const bins = Math.floor(n / 2) + 1;
      const out = options.out ?? new Float32Array(batch * bins * 2);
      if (out.length !== batch * bins * 2) throw new Error('reference backend: out has the wrong length');
      const re = new Float64Array(n);
      const im = new Float64Array(n);
      for (let b = 0; b < batch; b++) {
        for (let i = 0; i < n; i++) {
          re[i] = x[b * n + i];
          im[i] = 0;
        }
        dft64(re, im);
        for (let k = 0; k < bins; k++) {
          out[2 * (b * bins + k)] = re[k];
          out[2 * (b * bins + k) + 1] = im[k];
        }
      }
      return out;
    },
    async irfft(): Promise<Float32Array> {
      return notNeeded();
    },
    createSpectrogram(): SpectrogramProcessor {
      return notNeeded();
    },
    createFir(): FirFilter {
      return notNeeded();
    },
    createCorrelator(): Correlator {
      return notNeeded();
    },
    async dispose(): Promise<void> {},
  };
  return backend;
}

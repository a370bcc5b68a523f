// The engine's FFT module (electron/engine/fft) against the independent float64 references of the
// conformance suite. The plans compute in float64, so on float64 input their error is a few ulps times
// log n: 1e-12 leaves three orders of magnitude of room and still fails on any real mistake. On float32
// input and output the target of the brief is ≤ 1e-6 relative L2 for every size (a correctly rounded float32
// result is ≈ 3e-8).
import { describe, expect, it } from 'vitest';
import {
  clearFftPlanCache,
  createFftPlan,
  getFftPlan,
  getRealFftPlan,
} from '../../electron/engine/fft/index.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { referenceFft, referenceIrfft, referenceRfft } from '../conformance/reference.js';
import { randomF32, relL2, toF64 } from '../conformance/util.js';

const SIZES = [
  1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 25, 27, 32, 48, 49, 64, 97, 100, 121, 127, 128, 131, 243,
];
const LARGE = [1000, 1024, 2310, 4096, 4099, 8192, 44100, 48000, 65536, 65537, 131072];

describe('complex FFT plans', () => {
  for (const n of [...SIZES, ...LARGE]) {
    it(`n = ${n}: forward and inverse match the float64 reference`, () => {
      const x = toF64(randomF32(2 * n, n));
      const plan = getFftPlan(n);
      expect(plan.n).toBe(n);
      const y = new Float64Array(2 * n);
      plan.forward(x, y);
      expect(relL2(y, referenceFft(x))).toBeLessThan(1e-12);
      plan.inverse(x, y);
      expect(relL2(y, referenceFft(x, true))).toBeLessThan(1e-12);
    });
  }

  it('n = 999983 (a large prime, Bluestein): float32 input within 1e-6, in fact ≈ float64 accuracy', () => {
    const n = 999983;
    const x32 = randomF32(2 * n, 7);
    const plan = getFftPlan(n);
    expect(plan.method).toBe('bluestein');
    const y = new Float64Array(2 * n);
    plan.forward(x32, y);
    const err = relL2(y, referenceFft(toF64(x32)));
    expect(err).toBeLessThan(1e-6);
    expect(err).toBeLessThan(1e-11);
    const back = new Float64Array(2 * n);
    plan.inverse(y, back);
    expect(relL2(back, toF64(x32))).toBeLessThan(1e-11);
  });

  it('picks mixed radix for smooth sizes and Bluestein for large prime factors', () => {
    expect(getFftPlan(48000).method).toBe('mixed-radix');
    expect(getFftPlan(44100).method).toBe('mixed-radix');
    expect(getFftPlan(65537).method).toBe('bluestein');
    expect(getFftPlan(2 * 65537).method).toBe('bluestein');
  });

  it('float32 output rounding: relative L2 error ≤ 1e-6 for every size (≈ 3e-8 in practice)', () => {
    for (const n of [1, 2, 3, 5, 7, 48, 1000, 48000, 65536, 65537]) {
      const x = randomF32(2 * n, 31 + n);
      const y = new Float64Array(2 * n);
      getFftPlan(n).forward(x, y);
      const y32 = Float32Array.from(y);
      expect(relL2(y32, referenceFft(toF64(x)))).toBeLessThan(1e-7);
    }
  });

  it('honours offsets, works in place, and leaves the input alone', () => {
    for (const n of [4, 8, 1000, 4096, 1021]) {
      const x = toF64(randomF32(2 * n, 3 * n));
      const ref = referenceFft(x);
      const padded = new Float64Array(2 * n + 10);
      padded.set(x, 6);
      const out = new Float64Array(2 * n + 4);
      getFftPlan(n).forward(padded, out, 6, 4);
      expect(relL2(out.subarray(4), ref)).toBeLessThan(1e-12);
      expect(relL2(padded.subarray(6, 6 + 2 * n), x)).toBe(0);
      const inPlace = x.slice();
      getFftPlan(n).forward(inPlace, inPlace);
      expect(relL2(inPlace, ref)).toBeLessThan(1e-12);
      getFftPlan(n).inverse(inPlace, inPlace);
      expect(relL2(inPlace, x)).toBeLessThan(1e-12);
    }
  });

  it('is deterministic: the same input gives bit-identical output, cached or not', () => {
    const n = 3000;
    const x = randomF32(2 * n, 5);
    const a = new Float64Array(2 * n);
    const b = new Float64Array(2 * n);
    getFftPlan(n).forward(x, a);
    clearFftPlanCache();
    createFftPlan(n).forward(x, b);
    expect(b).toEqual(a);
    expect(getFftPlan(n)).toBe(getFftPlan(n));
  });

  it('refuses invalid sizes and short arrays with InvalidArgumentError', () => {
    for (const n of [0, -1, 1.5, NaN, 2 ** 27]) expect(() => getFftPlan(n)).toThrow(InvalidArgumentError);
    expect(() => getFftPlan(8).forward(new Float64Array(15), new Float64Array(16))).toThrow(
      InvalidArgumentError,
    );
    expect(() => getFftPlan(8).inverse(new Float64Array(16), new Float64Array(16), 0, 1)).toThrow(
      InvalidArgumentError,
    );
    expect(() => getRealFftPlan(0)).toThrow(InvalidArgumentError);
    expect(() => getRealFftPlan(8).forward(new Float64Array(7), new Float64Array(10))).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('real FFT plans', () => {
  for (const n of [1, 2, 3, 4, 5, 8, 9, 10, 100, 127, 1000, 1024, 4095, 48000, 65536, 65537]) {
    it(`n = ${n}: rfft and irfft match numpy semantics`, () => {
      const plan = getRealFftPlan(n);
      const bins = Math.floor(n / 2) + 1;
      expect(plan.bins).toBe(bins);
      const x = toF64(randomF32(n, 900 + n));
      const X = new Float64Array(2 * bins);
      plan.forward(x, X);
      expect(relL2(X, referenceRfft(x))).toBeLessThan(1e-12);
      // irfft of arbitrary bins: the imaginary parts of DC (and Nyquist for even n) are ignored.
      const spec = toF64(randomF32(2 * bins, 1900 + n));
      const y = new Float64Array(n);
      plan.inverse(spec, y);
      expect(relL2(y, referenceIrfft(spec, n))).toBeLessThan(1e-12);
      plan.inverse(X, y);
      expect(relL2(y, x)).toBeLessThan(1e-12);
    });
  }

  it('honours offsets with float32 input', () => {
    const n = 1000;
    const plan = getRealFftPlan(n);
    const x = randomF32(n + 3, 42);
    const X = new Float64Array(2 * plan.bins + 5);
    plan.forward(x, X, 3, 5);
    expect(relL2(X.subarray(5), referenceRfft(toF64(x.subarray(3))))).toBeLessThan(1e-12);
  });
});

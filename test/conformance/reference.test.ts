// The conformance references checked against the plain DFT, so the suite's yardstick is itself checked.
import { describe, expect, it } from 'vitest';
import {
  dft,
  referenceCorrelation,
  referenceFft,
  referenceIrfft,
  referenceLfilter,
  referenceRfft,
} from './reference.js';
import { randomF32, relL2, toF64 } from './util.js';

describe('conformance references', () => {
  // Every branch: direct (≤ 64), radix 2, recursive mixed radix, Bluestein (prime 1009, 2·521).
  for (const n of [1, 2, 17, 64, 128, 1024, 96, 1000, 2310, 1009, 1042]) {
    it(`referenceFft n = ${n} equals the direct DFT (forward and inverse)`, () => {
      const x = toF64(randomF32(2 * n, n));
      // The direct DFT's own rounding grows like √n·ε; 1e-12 leaves room for that at these sizes.
      expect(relL2(referenceFft(x), dft(x))).toBeLessThan(1e-12);
      expect(relL2(referenceFft(x, true), dft(x, true))).toBeLessThan(1e-12);
    });
  }

  it('referenceFft of a unit impulse is all ones, of a tone is one bin', () => {
    const n = 1000;
    const imp = new Float64Array(2 * n);
    imp[0] = 1;
    const y = referenceFft(imp);
    for (let k = 0; k < n; k++) expect(y[2 * k]).toBeCloseTo(1, 12);
    const tone = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      tone[2 * i] = Math.cos((2 * Math.PI * 7 * i) / n);
      tone[2 * i + 1] = Math.sin((2 * Math.PI * 7 * i) / n);
    }
    const t = referenceFft(tone);
    expect(t[14]).toBeCloseTo(n, 9);
    expect(Math.abs(t[16])).toBeLessThan(1e-9);
  });

  it('referenceRfft / referenceIrfft invert each other (even and odd n)', () => {
    for (const n of [1, 2, 9, 10, 1001]) {
      const x = toF64(randomF32(n, 3 + n));
      const X = referenceRfft(x);
      expect(X.length).toBe(2 * (Math.floor(n / 2) + 1));
      expect(relL2(referenceIrfft(X, n), x)).toBeLessThan(1e-13);
    }
  });

  it('referenceLfilter and referenceCorrelation on hand-checked cases', () => {
    expect(Array.from(referenceLfilter([1, 2], [1, 1, 1], 1))).toEqual([1, 3, 3]);
    expect(Array.from(referenceLfilter([1, -1], [1, 10, 2, 20], 2))).toEqual([1, 10, 1, 10]);
    const s = referenceCorrelation([0, 1, 2, 0, 0], [1, 2], false);
    expect(s.length).toBe(4);
    expect(s[1]).toBeCloseTo(1, 12);
    expect(s[3]).toBe(0);
    expect(s[0]).toBeCloseTo(2 / Math.sqrt(5), 12);
  });
});

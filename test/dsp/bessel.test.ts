import { describe, expect, it } from 'vitest';
import { besselI0, besselI0e } from '../../electron/engine/dsp/index.js';
import { loadFixture } from './helpers.js';

interface Row {
  x: number;
  i0: number;
  i0e: number;
}
const { cases } = loadFixture<{ cases: Row[] }>('bessel.json');

describe('besselI0', () => {
  // References are 50-digit mpmath values rounded to double; the brief asks for ~1e-15 relative.
  it('matches 50-digit references within 1e-15 relative over 0…713', () => {
    let worst = 0;
    for (const { x, i0 } of cases) {
      const rel = Math.abs(besselI0(x) - i0) / i0;
      worst = Math.max(worst, rel);
      expect(rel, `x = ${x}`).toBeLessThan(1e-15);
    }
    expect(worst).toBeGreaterThanOrEqual(0);
  });

  it('scaled form e^-x I0(x) matches within 1e-15 relative', () => {
    for (const { x, i0e } of cases) {
      expect(Math.abs(besselI0e(x) - i0e) / i0e, `x = ${x}`).toBeLessThan(1e-15);
    }
  });

  it('is even, and overflows only past ~713.99', () => {
    expect(besselI0(-3.7)).toBe(besselI0(3.7));
    expect(Number.isFinite(besselI0(713.9))).toBe(true);
    expect(besselI0(714.5)).toBe(Infinity);
    const x = 1e6; // leading terms of the asymptotic series: (1 + 1/(8x) + 9/(2(8x)²)) / √(2πx)
    expect(besselI0e(x)).toBeCloseTo(
      (1 + 1 / (8 * x) + 9 / (2 * (8 * x) ** 2)) / Math.sqrt(2 * Math.PI * x),
      18,
    );
    expect(besselI0(NaN)).toBeNaN();
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FLOOR_DB,
  WINDOW_NAMES,
  amplitudeToDbfs,
  binPowerScale,
  binPowerToDbfs,
  dbToPower,
  getWindow,
  powerArrayToDbfs,
  powerToDb,
} from '../../electron/engine/dsp/index.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';

/** |X_k|² of the windowed signal, by a direct float64 DFT. */
function binPower(x: Float64Array, xi: Float64Array | null, w: Float64Array, k: number): number {
  const n = x.length;
  let re = 0;
  let im = 0;
  for (let t = 0; t < n; t++) {
    const a = (-2 * Math.PI * ((k * t) % n)) / n;
    const c = Math.cos(a);
    const s = Math.sin(a);
    const vr = x[t] * w[t];
    const vi = xi ? xi[t] * w[t] : 0;
    re += vr * c - vi * s;
    im += vr * s + vi * c;
  }
  return re * re + im * im;
}

const specs = [...WINDOW_NAMES.filter((n) => n !== 'kaiser'), 'kaiser:0', 'kaiser:8.6', 'kaiser:20'];

describe('dBFS (AES17)', () => {
  for (const spec of specs) {
    it(`${spec}: a full-scale sine centred on a bin reads 0 dBFS, amplitude 0.5 reads −6.02`, () => {
      for (const n of [64, 1000]) {
        const k = n === 64 ? 5 : 123;
        const w = getWindow(spec, n);
        const sum = w.reduce((s, v) => s + v, 0);
        for (const [amp, db] of [
          [1, 0],
          [0.5, 20 * Math.log10(0.5)],
        ]) {
          const x = new Float64Array(n).map((_, t) => amp * Math.sin((2 * Math.PI * k * t) / n + 0.3));
          // The sine's mirror image at −k leaks into bin k through the window's response 2k bins away
          // (exactly zero for the cosine-sum windows, not for kaiser): allow that much, no more.
          const leak = Math.sqrt(binPower(new Float64Array(n).fill(1), null, w, 2 * k)) / sum;
          const tol = 20 * Math.log10(1 + leak) + 1e-9;
          expect(Math.abs(binPowerToDbfs(binPower(x, null, w, k), sum, false) - db)).toBeLessThanOrEqual(tol);
          // a unit complex exponential (times amp) reads the same, at +k and at −k
          const re = new Float64Array(n).map((_, t) => amp * Math.cos((-2 * Math.PI * k * t) / n + 1));
          const im = new Float64Array(n).map((_, t) => amp * Math.sin((-2 * Math.PI * k * t) / n + 1));
          expect(binPowerToDbfs(binPower(re, im, w, n - k), sum, true)).toBeCloseTo(db, 9);
        }
      }
    });
  }

  it('−6.02 dB for amplitude 0.5', () => {
    expect(amplitudeToDbfs(0.5)).toBeCloseTo(-6.0206, 4);
    expect(amplitudeToDbfs(1)).toBe(0);
  });

  it('DC and Nyquist bins of a real spectrum: RMS against a full-scale sine (constant 1 → +3.01 dB)', () => {
    const n = 32;
    const w = getWindow('hann', n);
    const sum = w.reduce((s, v) => s + v, 0);
    const dc = new Float64Array(n).fill(1);
    expect(binPowerToDbfs(binPower(dc, null, w, 0), sum, false, { bin: { index: 0, n } })).toBeCloseTo(
      10 * Math.log10(2),
      12,
    );
    const nyq = new Float64Array(n).map((_, t) => (t % 2 ? -0.5 : 0.5));
    expect(
      binPowerToDbfs(binPower(nyq, null, w, n / 2), sum, false, { bin: { index: n / 2, n } }),
    ).toBeCloseTo(10 * Math.log10(2 * 0.25), 12);
    expect(binPowerScale(sum, false, { index: 3, n })).toBe(4 / (sum * sum));
    expect(binPowerScale(sum, false, { index: 16, n: 33 })).toBe(4 / (sum * sum)); // odd n: no Nyquist bin
  });

  it('silence is finite: floored at −300 dB by default, or at a given floor', () => {
    expect(powerToDb(0)).toBe(DEFAULT_FLOOR_DB);
    expect(DEFAULT_FLOOR_DB).toBe(-300);
    expect(powerToDb(0, -150)).toBe(-150);
    expect(powerToDb(1e-40, -150)).toBe(-150);
    expect(powerToDb(NaN)).toBe(DEFAULT_FLOOR_DB);
    expect(binPowerToDbfs(0, 10, true)).toBe(-300);
    expect(dbToPower(-20)).toBeCloseTo(0.01, 15);
  });

  it('powerArrayToDbfs converts in place with the interior scale', () => {
    const sum = 512;
    const v = new Float64Array([(sum * sum) / 4, 0, (sum * sum) / 400]);
    powerArrayToDbfs(v, sum, false, -200);
    expect(v[0]).toBeCloseTo(0, 12);
    expect(v[1]).toBe(-200);
    expect(v[2]).toBeCloseTo(-20, 12);
    const c = new Float32Array([sum * sum]);
    powerArrayToDbfs(c, sum, true);
    expect(c[0]).toBe(0);
  });

  it('refuses a zero window sum', () => {
    expect(() => binPowerScale(0, false)).toThrow(InvalidArgumentError);
    expect(() => binPowerScale(NaN, true)).toThrow(InvalidArgumentError);
  });
});

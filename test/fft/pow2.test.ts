// The generated power-of-two kernels (electron/engine/fft/pow2.ts) and the FftPlan features added with
// them: float32 output, batches, offsets, overlapping input and output, the fallback when code generation
// is refused. References are the conformance suite's independent float64 FFT; tolerances:
//   - float64 in and out: 1e-12 relative L2 (a correct float64 FFT is ≈ 1e-16·log n; any wrong twiddle,
//     index or sign gives ≥ 1e-3);
//   - float32 output: exactly Math.fround of the float64 output of the same plan, since the kernels compute
//     in float64 and round once when storing (the "correctly rounded float32 of a float64 computation").
import { afterEach, describe, expect, it } from 'vitest';
import { clearFftPlanCache, createFftPlan, getFftPlan } from '../../electron/engine/fft/index.js';
import { referenceFft } from '../conformance/reference.js';
import { randomF32, relL2, toF64 } from '../conformance/util.js';

/** Every power of two through every code path: single function (≤ 2048), chunked with and without passes
 * longer than a chunk, radix-4 and radix-8 leaves (131072 is in fft.test.ts). */
const POW2 = Array.from({ length: 13 }, (_, i) => 2 ** (i + 4)); // 16 … 65536

describe('power-of-two kernels', () => {
  for (const n of POW2) {
    it(`n = ${n}: forward and inverse, float64 and float32, match the reference`, () => {
      const plan = getFftPlan(n);
      expect(plan.method).toBe('radix-4');
      const x32 = randomF32(2 * n, 100 + n);
      const x = toF64(x32);
      const ref = referenceFft(x);
      // The reference is slow for large n: there the round trip below checks the inverse.
      const refInv = n <= 8192 ? referenceFft(x, true) : null;
      const y = new Float64Array(2 * n);
      plan.forward(x, y);
      expect(relL2(y, ref)).toBeLessThan(1e-12);
      // Float32 input gives the same values (they are exactly representable), so the same result.
      const y2 = new Float64Array(2 * n);
      plan.forward(x32, y2);
      expect(y2).toEqual(y);
      const y32 = new Float32Array(2 * n);
      plan.forward(x32, y32);
      expect(y32).toEqual(Float32Array.from(y));
      plan.inverse(x, y);
      if (refInv !== null) expect(relL2(y, refInv)).toBeLessThan(1e-12);
      plan.inverse(x32, y32);
      expect(y32).toEqual(Float32Array.from(y));
      // Round trip.
      const back = new Float64Array(2 * n);
      plan.forward(x, y);
      plan.inverse(y, back);
      expect(relL2(back, x)).toBeLessThan(1e-12);
    });
  }
});

describe('batch, offsets and overlap', () => {
  for (const n of [16, 64, 1000, 4096, 8192, 3 * 512, 1021]) {
    it(`n = ${n}: batch() with offsets equals one forward() per block, float32 and float64`, () => {
      const count = n > 4096 ? 2 : 5;
      const plan = getFftPlan(n);
      const n2 = 2 * n;
      const x32 = randomF32(n2 * count + 6, 7 * n);
      for (const inverse of [false, true]) {
        const one = new Float64Array(n2);
        const expected = new Float64Array(n2 * count);
        for (let t = 0; t < count; t++) {
          if (inverse) plan.inverse(x32, one, 6 + n2 * t);
          else plan.forward(x32, one, 6 + n2 * t);
          expected.set(one, n2 * t);
        }
        const out64 = new Float64Array(n2 * count + 4);
        plan.batch(x32, out64, count, inverse, 6, 4);
        expect(out64.subarray(4)).toEqual(expected);
        const out32 = new Float32Array(n2 * count + 2);
        plan.batch(x32, out32, count, inverse, 6, 2);
        expect(out32.subarray(2)).toEqual(Float32Array.from(expected));
        // Each block against the independent reference too.
        const ref = referenceFft(toF64(x32.subarray(6 + n2, 6 + 2 * n2)), inverse);
        expect(relL2(expected.subarray(n2, 2 * n2), ref)).toBeLessThan(1e-11);
      }
    });
  }

  it('works in place and with input and output overlapping in one buffer', () => {
    for (const n of [16, 2048, 16384]) {
      const n2 = 2 * n;
      const x = toF64(randomF32(n2, n));
      const ref = referenceFft(x);
      const buf = new Float64Array(n2 + 8);
      // Output shifted by 8 values against the input in the same memory.
      buf.set(x, 0);
      getFftPlan(n).forward(new Float64Array(buf.buffer, 0, n2), new Float64Array(buf.buffer, 64, n2));
      expect(relL2(buf.subarray(8), ref)).toBeLessThan(1e-12);
      const same = x.slice();
      getFftPlan(n).forward(same, same);
      expect(relL2(same, ref)).toBeLessThan(1e-12);
      // Float32 in place, batch of two.
      const f = Float32Array.from([...randomF32(n2, 1 + n), ...randomF32(n2, 2 + n)]);
      const expected = new Float32Array(2 * n2);
      getFftPlan(n).batch(f, expected, 2);
      getFftPlan(n).batch(f, f, 2);
      expect(f).toEqual(expected);
    }
  });

  it('accepts sizes and offsets that are doubles (2 ** k, products) and gives the same result', () => {
    const n = 2 ** 10; // a heap number in V8, unlike the literal 1024
    const x = randomF32(4 * n, 3);
    const a = new Float32Array(4 * n);
    const b = new Float32Array(4 * n);
    getFftPlan(n).batch(x, a, 2, false, 0, 0);
    getFftPlan(1024).batch(x, b, 1, false, 2 ** 11, 2 ** 11);
    getFftPlan(1024).batch(x, b, 1, false, 0, 0);
    expect(b).toEqual(a);
  });

  it('refuses a bad count or a short array with InvalidArgumentError', () => {
    const plan = getFftPlan(64);
    expect(() => plan.batch(new Float32Array(256), new Float32Array(256), 3)).toThrow(
      /needs 384 input values/,
    );
    expect(() => plan.batch(new Float32Array(256), new Float32Array(256), -1)).toThrow(/count/);
    expect(() => plan.batch(new Float32Array(256), new Float32Array(256), 1.5)).toThrow(/count/);
  });
});

describe('without code generation', () => {
  const realFunction = globalThis.Function;
  afterEach(() => {
    globalThis.Function = realFunction;
    clearFftPlanCache();
  });

  it('falls back to the Stockham kernels when new Function is refused, with the same results', () => {
    const n = 4096;
    const x = randomF32(2 * n, 11);
    const generated = new Float32Array(2 * n);
    createFftPlan(n).forward(x, generated);
    // What --disallow-code-generation-from-strings or a content security policy does to new Function.
    globalThis.Function = function () {
      throw new EvalError('Code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    const plan = createFftPlan(n);
    globalThis.Function = realFunction;
    expect(plan.method).toBe('mixed-radix');
    const fallback = new Float32Array(2 * n);
    plan.forward(x, fallback);
    expect(relL2(fallback, generated)).toBeLessThan(1e-7);
    expect(relL2(toF64(fallback), referenceFft(toF64(x)))).toBeLessThan(1e-7);
  });
});

// The radix-16 one-pass kernel (shaders/fft_pow2.wgsl `main16`, the planner's `radix16` option): 16 points
// a thread, for 1024, 2048 and 4096 points, plain and with its padded workgroup memory, forward and
// inverse, several batch counts, against float64 and against the default kernel's plan of the same
// backend. SwiftShader's 256 invocations and 32 KiB run 4096 in one pass only with this kernel.
import { afterAll, describe, expect, it } from 'vitest';
import {
  GROUP_POINTS,
  RADIX16_BY_DEFAULT,
  RADIX16_PADDED_FROM,
  RADIX16_SIZES,
  WebGpuFft,
} from '../../electron/engine/backends/webgpu/fft.js';

/** Every size the kernel can serve at one pass on the adapters here (the default covers fewer). */
const UP_TO_4096 = { min: 1024, max: 4096 };
import { referenceFft, referenceRfft } from '../conformance/reference.js';
import { randomF32, relL2 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

describe('webgpu fft: the radix-16 one-pass kernel', needsWebGpu(b), () => {
  const planner = () => b!.fftPlanner;

  afterAll(() => planner().useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES));

  it('is planned for its sizes when asked (by default 1024 to 4096), within the adapter', () => {
    const f = planner();
    f.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
    for (const n of [512, 1024, 2048, 4096]) {
      const inDefault = n >= RADIX16_SIZES.min && n <= RADIX16_SIZES.max && f.radix16Fits(n);
      expect(f.plan(n).method === 'one-pass-radix16').toBe(RADIX16_BY_DEFAULT && inDefault);
    }
    f.useRadix16(false);
    expect(f.plan(4096).method).not.toBe('one-pass-radix16');
    f.useRadix16(true, UP_TO_4096);
    for (const n of [1024, 2048, 4096]) {
      expect(f.radix16Fits(n)).toBe(n / 16 <= f.maxThreads && n <= f.storagePoints);
      if (f.radix16Fits(n)) {
        expect(f.plan(n).method).toBe('one-pass-radix16');
        // padded from RADIX16_PADDED_FROM where the skipped words fit (not in SwiftShader's 32 KiB)
        const padded = n >= RADIX16_PADDED_FROM && n + n / 16 <= f.storagePoints;
        expect(f.plan(n).describe()).toBe(
          `one pass, radix 16 (${n} points, ${Math.max(1, GROUP_POINTS.radix16 / n)} a workgroup${padded ? ', padded' : ''})`,
        );
      }
    }
    // outside its sizes the default kernels plan as before
    expect(f.plan(RADIX16_SIZES.min / 2).method).toBe('one-pass');
    expect(f.plan(2 * UP_TO_4096.max).method).not.toBe('one-pass-radix16');
    // with 512 points of workgroup memory 1024 does not fit: the default kernel's plan
    const small = new WebGpuFft(b!.ctx, { storagePoints: 512, radix16: 'padded' });
    expect(small.radix16Fits(1024)).toBe(false);
    expect(small.plan(1024).method).not.toBe('one-pass-radix16');
    expect(small.plan(512).method).toBe('one-pass');
    small.dispose();
  });

  it('every size it can do when given them: 16 to 512 (first stages of radix 2, 4, 8 and 16)', async () => {
    const f = planner();
    f.useRadix16(true, { min: 16, max: 512 });
    for (let n = 16; n <= 512; n *= 2) {
      const rows = 3;
      const x = randomF32(2 * n * rows, n);
      const plan = f.plan(n);
      expect(plan.method).toBe('one-pass-radix16');
      for (const inverse of [false, true]) {
        const y = await b!.fft(x, n, { inverse });
        const e = worstRowError(y, x, rows, (r) => referenceFft(r, inverse));
        errors.push(
          `  ${n} × ${rows} ${inverse ? 'inverse' : 'forward'} ${plan.describe()}: ${e.toExponential(2)}`,
        );
        expect(e).toBeLessThanOrEqual(tolerance(n));
      }
    }
    expect(f.plan(1024).method).not.toBe('one-pass-radix16');
    f.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
  });

  it('serves the plans built on plan(n): rfft of 4096 points and Bluestein of 1021 (2048 points)', async () => {
    const f = planner();
    f.useRadix16(true, RADIX16_SIZES);
    const rows = 2;
    const real = randomF32(4096 * rows, 7);
    const bins = await b!.rfft(real, 4096);
    const e = worstRowError(bins, real, rows, referenceRfft);
    errors.push(`  rfft 4096 × ${rows} over ${f.plan(2048).describe()}: ${e.toExponential(2)}`);
    expect(f.plan(2048).method).toBe('one-pass-radix16');
    expect(e).toBeLessThanOrEqual(tolerance(4096));
    const x = randomF32(2 * 1021 * rows, 8);
    for (const inverse of [false, true]) {
      const y = await b!.fft(x, 1021, { inverse });
      const eb = worstRowError(y, x, rows, (r) => referenceFft(r, inverse));
      errors.push(
        `  ${1021} × ${rows} ${inverse ? 'inverse' : 'forward'} ${f.plan(1021).describe()}: ${eb.toExponential(2)}`,
      );
      expect(f.plan(1021).describe()).toContain('radix 16');
      expect(eb).toBeLessThanOrEqual(tolerance(1021));
    }
    f.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
  });

  for (const [n, batches] of [
    [1024, [1, 3, 5]],
    [2048, [1, 2, 3]],
    [4096, [1, 2]],
  ] as const) {
    for (const choice of ['plain', 'padded'] as const) {
      it(`n = ${n}${choice === 'padded' ? ', padded' : ''}, batches ${batches.join(', ')}`, async () => {
        const f = planner();
        for (const rows of batches) {
          const x = randomF32(2 * n * rows, n + rows);
          for (const inverse of [false, true]) {
            f.useRadix16(false);
            const plain = await b!.fft(x, n, { inverse });
            const plainPlan = f.plan(n).describe();
            f.useRadix16(choice, UP_TO_4096);
            const plan = f.plan(n);
            expect(plan.method).toBe('one-pass-radix16');
            const y = await b!.fft(x, n, { inverse });
            const e = worstRowError(y, x, rows, (r) => referenceFft(r, inverse));
            const apart = relL2(y, plain);
            const name = `${n} × ${rows} ${inverse ? 'inverse' : 'forward'} ${plan.describe()}`;
            errors.push(`  ${name}: ${e.toExponential(2)} (from ${plainPlan}: ${apart.toExponential(2)})`);
            expect(e).toBeLessThanOrEqual(tolerance(n));
            expect(worstRowError(plain, x, rows, (r) => referenceFft(r, inverse))).toBeLessThanOrEqual(
              tolerance(n),
            );
            expect(apart).toBeLessThanOrEqual(2 * tolerance(n));
          }
        }
      });
    }
  }
});

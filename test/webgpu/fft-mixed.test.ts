// Mixed-radix sizes (2^a·3^b·5^c·7^d, not powers of two) on the WebGPU backend: one pass of
// shaders/fft_mixed.wgsl where the workgroup memory holds them, a four-step of two passes above, forward
// and inverse, batches, rfft / irfft, against float64.
import { describe, expect, it } from 'vitest';
import { mixedRadices } from '../../electron/engine/backends/webgpu/mixed.js';
import { referenceFft, referenceIrfft, referenceRfft } from '../conformance/reference.js';
import { randomF32 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

describe('mixedRadices', () => {
  it('factors 7-smooth sizes into the radices the kernel has, and nothing else', () => {
    for (let n = 1; n <= 5000; n++) {
      const r = mixedRadices(n);
      let m = n;
      for (const p of [2, 3, 5, 7]) while (m % p === 0) m /= p;
      if (m !== 1) {
        expect(r, `n = ${n}`).toBeUndefined();
        continue;
      }
      expect(
        r!.reduce((a, x) => a * x, 1),
        `n = ${n}`,
      ).toBe(n);
      for (const x of r!) expect([2, 3, 4, 5, 7, 8]).toContain(x);
      // at most one radix 2, and a radix 2 only where no 4 or 8 could take it
      expect(r!.filter((x) => x === 2).length).toBeLessThanOrEqual(1);
    }
    expect(mixedRadices(1000)).toEqual([8, 5, 5, 5]);
    expect(mixedRadices(48)).toEqual([4, 4, 3]);
    expect(mixedRadices(0)).toBeUndefined();
  });
});

describe('webgpu fft: mixed radix', needsWebGpu(b), () => {
  it('plans smooth sizes as mixed radix and keeps Bluestein for the rest', () => {
    const planner = b!.fftPlanner;
    const one = planner.mixed.onePassMax;
    expect(planner.plan(360).method).toBe('mixed');
    const largest = 3 * 2 ** Math.floor(Math.log2(one / 3)); // 3·2^k within one pass
    expect(planner.plan(largest).method).toBe('mixed');
    expect(planner.plan(2 * largest).method).toBe('mixed-four-step');
    expect(planner.plan(44100).method).toBe('mixed-four-step');
    expect(planner.plan(3 * 7 * one).method).toBe('mixed-four-step');
    expect(planner.plan(11 * 9).method).toBe('bluestein');
    expect(planner.plan(1024).method).toMatch(/^one-pass/); // the 8- or 16-point kernel
  });

  // one pass: radix 4·3 with many transforms a workgroup (a batch over two workgroups, the last one part
  // full), 8·4·3, 8·5·3·3, 2·7·7·7, seven radix-3 stages, 8·5·5·5·3; above one pass on 32 KiB of
  // workgroup memory: four-step 210 × 210 (radix 7 both sides) and 300 × 320
  for (const [n, batch] of [
    [12, 100],
    [96, 13],
    [360, 5],
    [686, 3],
    [2187, 2],
    [3000, 2],
    [44100, 2],
    [96000, 1],
  ] as const) {
    it(`n = ${n} (${b?.fftPlanner.plan(n).describe() ?? ''}), batch ${batch}, forward and inverse`, async () => {
      const x = randomF32(2 * n * batch, 3 * n + 1);
      for (const inverse of [false, true]) {
        const y = await b!.fft(x, n, { inverse });
        const e = worstRowError(y, x, batch, (r) => referenceFft(r, inverse));
        errors.push(`  ${n} ${inverse ? 'inverse' : 'forward'}: ${e.toExponential(2)}`);
        expect(e).toBeLessThanOrEqual(tolerance(n));
      }
    });
  }

  it('each row of a batch equals the same transform run alone', async () => {
    for (const n of [60, 6000]) {
      const rows = 3;
      const x = randomF32(2 * n * rows, n + 11);
      const whole = await b!.fft(x, n);
      for (let r = 0; r < rows; r++) {
        const one = await b!.fft(x.subarray(2 * n * r, 2 * n * (r + 1)), n);
        expect(Array.from(one), `n = ${n}, row ${r}`).toEqual(
          Array.from(whole.subarray(2 * n * r, 2 * n * (r + 1))),
        );
      }
    }
  });

  // even n through the half-length transform (360 in one pass; 4800 a four-step on 32 KiB of workgroup
  // memory, one pass on 48 KiB), odd n through the full one (375)
  for (const n of [720, 9600, 375]) {
    it(`rfft / irfft n = ${n}, batch 3`, async () => {
      const rows = 3;
      const x = randomF32(n * rows, n + 5);
      const X = await b!.rfft(x, n);
      const ef = worstRowError(X, x, rows, referenceRfft);
      const spectrum = randomF32(X.length, n + 6);
      const y = await b!.irfft(spectrum, n);
      const ei = worstRowError(y, spectrum, rows, (r) => referenceIrfft(r, n));
      errors.push(`  ${n}: rfft ${ef.toExponential(2)}, irfft ${ei.toExponential(2)}`);
      expect(ef).toBeLessThanOrEqual(tolerance(n));
      expect(ei).toBeLessThanOrEqual(tolerance(n));
    });
  }
});

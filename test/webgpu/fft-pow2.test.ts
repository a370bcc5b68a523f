// Powers of two on the WebGPU backend: one pass in workgroup memory up to the adapter's limit, four-step
// above it, forward and inverse, against float64.
import { describe, expect, it } from 'vitest';
import { referenceFft } from '../conformance/reference.js';
import { randomF32 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

describe('webgpu fft: powers of two', needsWebGpu(b), () => {
  const sizes = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
  for (const n of sizes) {
    it(`n = ${n}, forward and inverse, batch 2`, async () => {
      const x = randomF32(2 * n * 2, n);
      for (const inverse of [false, true]) {
        const y = await b!.fft(x, n, { inverse });
        const e = worstRowError(y, x, 2, (r) => referenceFft(r, inverse));
        errors.push(
          `  ${n} ${inverse ? 'inverse' : 'forward'} ${b!.fftPlanner.plan(n).describe()}: ${e.toExponential(2)}`,
        );
        expect(e).toBeLessThanOrEqual(tolerance(n));
      }
    });
  }

  it('n = 2^20 (four-step), forward', async () => {
    const n = 1 << 20;
    const x = randomF32(2 * n, 20);
    const y = await b!.fft(x, n);
    const e = worstRowError(y, x, 1, (r) => referenceFft(r));
    errors.push(`  ${n} forward ${b!.fftPlanner.plan(n).describe()}: ${e.toExponential(2)}`);
    expect(e).toBeLessThanOrEqual(1e-6);
  });

  it('each row of a batch equals the same transform run alone', async () => {
    const n = 4096;
    const rows = 3;
    const x = randomF32(2 * n * rows, 99);
    const whole = await b!.fft(x, n);
    for (let r = 0; r < rows; r++) {
      const one = await b!.fft(x.subarray(2 * n * r, 2 * n * (r + 1)), n);
      expect(Array.from(one)).toEqual(Array.from(whole.subarray(2 * n * r, 2 * n * (r + 1))));
    }
  });
});

// rfft / irfft on the WebGPU backend (numpy.fft conventions), even n through the half-length complex
// FFT, odd n through the full one, against float64.
import { describe, expect, it } from 'vitest';
import { referenceIrfft, referenceRfft } from '../conformance/reference.js';
import { randomF32 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

describe('webgpu rfft / irfft', needsWebGpu(b), () => {
  const sizes = [1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 33, 64, 100, 1000, 1024, 4096, 4097, 8192, 48000, 65536];
  for (const n of sizes) {
    it(`n = ${n}, batch 3`, async () => {
      const rows = 3;
      const x = randomF32(n * rows, n + 5);
      const X = await b!.rfft(x, n);
      expect(X).toHaveLength(rows * 2 * (Math.floor(n / 2) + 1));
      const ef = worstRowError(X, x, rows, referenceRfft);
      // irfft of a spectrum with non-zero imaginary parts at DC and Nyquist: numpy ignores them
      const spectrum = randomF32(X.length, n + 6);
      const y = await b!.irfft(spectrum, n);
      expect(y).toHaveLength(rows * n);
      const ei = worstRowError(y, spectrum, rows, (r) => referenceIrfft(r, n));
      errors.push(`  ${n}: rfft ${ef.toExponential(2)}, irfft ${ei.toExponential(2)}`);
      expect(ef).toBeLessThanOrEqual(tolerance(n));
      expect(ei).toBeLessThanOrEqual(tolerance(n));
    });
  }
});

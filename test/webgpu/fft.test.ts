// The WebGPU backend's complex FFT for every n (powers of two, Bluestein for the rest), batches,
// DeviceArrays and argument checks, against float64.
import { describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { referenceFft } from '../conformance/reference.js';
import { randomF32 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

describe('webgpu fft', needsWebGpu(b), () => {
  it('every n from 1 to 64, forward and inverse, batch 3', async () => {
    let worst = 0;
    for (let n = 1; n <= 64; n++) {
      const x = randomF32(2 * n * 3, n);
      for (const inverse of [false, true]) {
        const y = await b!.fft(x, n, { inverse });
        const e = worstRowError(y, x, 3, (r) => referenceFft(r, inverse));
        expect(e, `n = ${n} ${inverse ? 'inverse' : 'forward'}`).toBeLessThanOrEqual(tolerance(n));
        worst = Math.max(worst, e);
      }
    }
    errors.push(`  n = 1…64: worst ${worst.toExponential(2)}`);
  });

  for (const [n, batch] of [
    [105, 4],
    [997, 2],
    [1000, 3],
    [4097, 2],
    [48000, 1],
  ] as const) {
    it(`n = ${n} (${b?.fftPlanner.plan(n).describe() ?? ''}), batch ${batch}, forward and inverse`, async () => {
      const x = randomF32(2 * n * batch, n + 1);
      for (const inverse of [false, true]) {
        const y = await b!.fft(x, n, { inverse });
        const e = worstRowError(y, x, batch, (r) => referenceFft(r, inverse));
        errors.push(`  ${n} ${inverse ? 'inverse' : 'forward'}: ${e.toExponential(2)}`);
        expect(e).toBeLessThanOrEqual(tolerance(n));
      }
    });
  }

  it('DeviceArrays: upload and download round trip, transforms read them in place', async () => {
    const x = randomF32(2 * 256 * 5, 7);
    const d = await b!.upload(x);
    expect(d.owner).toBe(b);
    expect(d.length).toBe(x.length);
    expect(Array.from(await d.download())).toEqual(Array.from(x));
    const out = new Float32Array(x.length);
    expect(await d.download(out)).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(x));
    expect(Array.from(await b!.fft(d, 256))).toEqual(Array.from(await b!.fft(x, 256)));
    expect(Array.from(await b!.rfft(d, 64))).toEqual(Array.from(await b!.rfft(x, 64)));
    d.free();
    await expect(b!.fft(d, 256)).rejects.toThrow(/freed/);
    const odd = randomF32(7, 3);
    const d2 = await b!.upload(odd);
    expect(Array.from(await d2.download())).toEqual(Array.from(odd));
    d2.free();
  });

  it('refuses bad arguments with a message naming the constraint', async () => {
    await expect(b!.fft(new Float32Array(10), 4)).rejects.toThrow(/multiple of 2·n = 8/);
    await expect(b!.fft(new Float32Array(8), 0)).rejects.toThrow(/fft: n must be an integer/);
    await expect(b!.fft(new Float32Array(8), 4, { out: new Float32Array(4) })).rejects.toThrow(/exactly 8/);
    await expect(b!.rfft(new Float32Array(9), 4)).rejects.toThrow(/multiple of n = 4/);
    await expect(b!.irfft(new Float32Array(5), 4)).rejects.toThrow(/multiple of 2·\(floor\(n\/2\)\+1\) = 6/);
    const cpu = await createCpuBackend({ threads: 1 });
    const foreign = await cpu.upload(new Float32Array(8));
    await expect(b!.fft(foreign, 4)).rejects.toThrow(/another backend/);
    await cpu.dispose();
    expect(await b!.fft(new Float32Array(0), 16)).toHaveLength(0);
  });

  it('concurrent calls run in order with the results of separate calls', async () => {
    const xs = [1, 2, 3].map((s) => randomF32(2 * 512 * 2, s));
    const together = await Promise.all(xs.map((x) => b!.fft(x, 512)));
    for (let i = 0; i < xs.length; i++) {
      expect(Array.from(together[i])).toEqual(Array.from(await b!.fft(xs[i], 512)));
    }
  });
});

// The CPU backend's pool path against its calling-thread path. Both run the same float64 kernels, so the
// results must be identical bit for bit; what differs is the plumbing this checks: shared staging buffers
// reused between jobs (a reused buffer holds the previous job's data, so padding must be re-zeroed),
// inputs and outputs that already live in shared memory (used in place), DeviceArrays from upload(),
// sizes given as doubles. Every job here runs on the workers (inlineCostLimit: 0).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { randomF32 } from '../conformance/util.js';

let inline: Backend;
let pool: Backend;

beforeAll(async () => {
  inline = await createCpuBackend({ threads: 0 });
  pool = await createCpuBackend({ threads: 2, inlineCostLimit: 0 });
});

afterAll(async () => {
  await inline.dispose();
  await pool.dispose();
});

function shared(x: Float32Array): Float32Array {
  const s = new Float32Array(new SharedArrayBuffer(4 * x.length));
  s.set(x);
  return s;
}

describe('cpu backend: pool results equal calling-thread results', () => {
  it('batched fft and ifft over a sequence of sizes, reusing staging buffers', async () => {
    const jobs: Array<[n: number, batch: number, inverse: boolean]> = [
      [4096, 8, false],
      [64, 300, false],
      [1000, 7, true],
      [4096, 3, true],
      [2 ** 8, 40, false], // a size that is a double in V8
      [1021, 9, false], // Bluestein
    ];
    for (const [i, [n, batch, inverse]] of jobs.entries()) {
      const x = randomF32(2 * n * batch, 50 + i);
      const a = await inline.fft(x, n, { inverse });
      const b = await pool.fft(x, n, { inverse });
      expect(b).toEqual(a);
      expect(b.buffer).toBeInstanceOf(ArrayBuffer); // never a SharedArrayBuffer handed to the caller
      // Into a caller's output, then in place.
      const out = new Float32Array(x.length).fill(7);
      await pool.fft(x, n, { inverse, out });
      expect(out).toEqual(a);
      const y = x.slice();
      await pool.fft(y, n, { inverse, out: y });
      expect(y).toEqual(a);
    }
  });

  it('uses shared input and output in place, and DeviceArrays from upload()', async () => {
    const n = 512;
    const x = randomF32(2 * n * 20, 9);
    const expected = await inline.fft(x, n);
    const sx = shared(x);
    const sout = new Float32Array(new SharedArrayBuffer(4 * x.length));
    await pool.fft(sx, n, { out: sout });
    expect(sout).toEqual(expected);
    await pool.fft(sx, n, { out: sx }); // in place in shared memory
    expect(sx).toEqual(expected);
    const dev = await pool.upload(x);
    expect(await pool.fft(dev, n)).toEqual(expected);
    expect(await dev.download()).toEqual(x); // the transform did not touch the uploaded data
    dev.free();
  });

  it('rfft and irfft', async () => {
    const n = 1024;
    const x = randomF32(n * 12, 21);
    const a = await inline.rfft(x, n);
    expect(await pool.rfft(x, n)).toEqual(a);
    expect(await pool.irfft(a, n)).toEqual(await inline.irfft(a, n));
  });

  it('FIR (overlap-save) and FFT correlation after staging buffers were dirtied by other jobs', async () => {
    // Fills the pool's free staging buffers with huge values, in the size classes the streams below use:
    // left in the padding of a final partial segment they would swamp its float64 FFT with rounding error.
    const dirty = async (b: Backend) => {
      if (b !== pool) return;
      for (const n of [256, 1024, 4096])
        await pool.fft(
          randomF32(2 * n * 8, n).map((v) => v * 1e30),
          n,
        );
    };
    const taps = randomF32(301, 5);
    const signal = randomF32(20000, 6);
    const template = randomF32(200, 8);
    const runFir = async (b: Backend) => {
      const f = b.createFir({ taps, complex: false, channels: 1, method: 'overlap-save' });
      await dirty(b);
      const parts = [await f.process(signal.subarray(0, 7000)), await f.process(signal.subarray(7000))];
      await dirty(b);
      parts.push(await f.flush());
      f.dispose();
      return Float32Array.from(parts.flatMap((p) => [...p]));
    };
    const runCorr = async (b: Backend) => {
      const c = b.createCorrelator({ template, complex: false, scores: true });
      await dirty(b);
      const parts = [await c.process(signal.subarray(0, 9000)), await c.process(signal.subarray(9000))];
      await dirty(b);
      parts.push(await c.flush());
      c.dispose();
      return Float32Array.from(parts.flatMap((p) => [...(p.scores ?? [])]));
    };
    const firA = await runFir(inline);
    expect(firA.length).toBe(signal.length);
    expect(await runFir(pool)).toEqual(firA);
    const corrA = await runCorr(inline);
    expect(corrA.length).toBe(signal.length - template.length + 1);
    expect(await runCorr(pool)).toEqual(corrA);
  });
});

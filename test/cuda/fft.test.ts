// Transforms of the CUDA backend against float64 references. Every test needs a CUDA device: without one
// it is skipped with the reason (printed). Tolerances are the issue's: relative L2 ≤ 3e-7 for n ≤ 4096
// (cuFFT reaches 1.9e-7 there) and ≤ 1e-6 for every other size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceArray } from '../../electron/engine/backends/backend.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { type Gpu, openGpu } from './gpu.js';
import { dft, firstDifference, gaussian, relL2 } from './reference.js';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await openGpu();
});
afterAll(async () => {
  await gpu.backend?.dispose();
});

const tol = (n: number): number => (n <= 4096 ? 3e-7 : 1e-6);

function refBatch(x: Float32Array, n: number, inverse: boolean): Float64Array {
  const out = new Float64Array(x.length);
  for (let b = 0; b < x.length / (2 * n); b++) {
    const X = dft(Float64Array.from(x.subarray(2 * n * b, 2 * n * (b + 1))), inverse ? 1 : -1);
    for (let i = 0; i < 2 * n; i++) out[2 * n * b + i] = inverse ? X[i] / n : X[i];
  }
  return out;
}

describe('CUDA fft', () => {
  // powers of two through every pass layout, smooth sizes (mixed radix in registers with each number of
  // elements a thread — 10/20: 100, 1000; 12/24: 96, 1536; 14: 196; 15: 225, 375; 21: 441; 30: 1200, 3000 — and
  // in shared memory: 6, 9, 343; four-step with mixed factors), primes (Bluestein)
  const small = [
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 3, 5, 6, 7, 9, 12, 15, 96, 100, 196, 225, 343,
    375, 441, 1000, 1200, 1536, 3000, 17, 97, 1009,
  ];
  const large = [8192, 16384, 32768, 65536, 1 << 20, 48000, 44100, 12289, 65537];
  it('[needs-gpu] matches float64 for powers of two, smooth sizes and primes, forward and inverse', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const sizes = gpu.emulation ? small.filter((n) => n <= 1024) : [...small, ...large];
    for (const n of sizes) {
      const batch = n >= 65536 ? 1 : n >= 4096 ? 2 : 3;
      const x = gaussian(2 * n * batch, n);
      for (const inverse of [false, true]) {
        const got = await gpu.backend.fft(x, n, { inverse });
        const err = relL2(got, refBatch(x, n, inverse));
        expect(err, `n=${n} ${inverse ? 'inverse' : 'forward'}`).toBeLessThanOrEqual(tol(n));
      }
    }
  }, 600_000);

  // fft.cu's kMixFixed list (contiguous passes with the whole register plan at compile time) and 64 (radix 8·8)
  const fixedSizes = [300, 500, 600, 1000, 1200, 1500, 2000, 2400, 3000, 4000];
  it('[needs-gpu] compile-time plans: every listed size runs one, and agrees with the run-time plan', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const sizes = gpu.emulation ? [64, 300, 500, 600, 1000] : [64, ...fixedSizes];
    try {
      for (const n of sizes) {
        await backend.ctx.setTuning({});
        const plan = await backend.ctx.planInfo(n);
        expect(plan, `n=${n}`).toContain('compile-time plan');
        const x = gaussian(2 * n * 3, n + 5);
        const fixed = await backend.fft(x, n);
        const inv = await backend.fft(x, n, { inverse: true });
        await backend.ctx.setTuning({ mixedFixed: false, mix64: false });
        expect(await backend.ctx.planInfo(n), `n=${n}`).not.toContain('compile-time plan');
        const runtime = await backend.fft(x, n);
        for (const [got, inverse] of [
          [fixed, false],
          [inv, true],
          [runtime, false],
        ] as const) {
          expect(
            relL2(got, refBatch(x, n, inverse)),
            `n=${n} ${inverse ? 'inverse' : 'forward'}`,
          ).toBeLessThanOrEqual(tol(n));
        }
        // the same radices, the pass twiddles loaded (run-time plan) or partly multiplied (compile-time plan): both
        // within float32 rounding of each other, about the error each has against float64 (64 changes its radices)
        if (n !== 64) expect(relL2(fixed, Float64Array.from(runtime)), `n=${n}`).toBeLessThanOrEqual(2e-7);
      }
    } finally {
      await backend.ctx.setTuning({});
    }
  }, 600_000);

  // multi-pass plans forced on small sizes (so that the emulation runs them too): the strided passes on the
  // direct kernel (no transposes through shared memory) with several block widths, and on the transposing kernel
  it('[needs-gpu] multi-pass plans: direct and transposing strided passes match float64', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const plans: [number, number[]][] = [
      [4096, [64, 64]],
      [4096, [16, 16, 16]],
      [2048, [128, 16]],
      [8192, [512, 16]],
      [1024, [2, 512]],
    ];
    const variants = [{}, { directCols: 4 }, { directCols: 16 }, { directCols: 64 }, { direct: false }];
    try {
      for (const [n, factors] of plans) {
        const batch = 3;
        const x = gaussian(2 * n * batch, n + factors.length);
        const want = [refBatch(x, n, false), refBatch(x, n, true)];
        for (const v of variants) {
          await backend.ctx.setTuning({ ...v, onePassMax: 16, factors });
          const what = `n=${n} as ${factors.join(' x ')} with ${JSON.stringify(v)}`;
          expect(await backend.ctx.planInfo(n), what).toBe(
            `${factors.length} passes (${factors.join(' x ')})`,
          );
          expect(relL2(await backend.fft(x, n), want[0]), `${what} forward`).toBeLessThanOrEqual(tol(n));
          const inv = await backend.fft(x, n, { inverse: true });
          expect(relL2(inv, want[1]), `${what} inverse`).toBeLessThanOrEqual(tol(n));
        }
      }
    } finally {
      await backend.ctx.setTuning({});
    }
  }, 600_000);

  // passes of 2048 and 4096 points on clusters of 4 and 8 blocks (sm_90 builds on sm_90 and later; the
  // emulation runs a cluster's blocks together), first and second in a plan, forced on sizes the emulation
  // runs, against float64 and the same factors on the strided kernels
  it('[needs-gpu] two-pass plans with cluster passes match float64 and the strided passes', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const plans: [number, number[]][] = [
      [65536, [16, 4096]],
      [65536, [4096, 16]],
      [32768, [16, 2048]],
      [32768, [2048, 16]],
    ];
    try {
      for (const [n, factors] of plans) {
        const x = gaussian(2 * n * 2, n + factors[0]);
        const knobs = { onePassMax: 16, factorMax: 4096, factors };
        await backend.ctx.setTuning({ ...knobs, widePass: 3 });
        const plan = await backend.ctx.planInfo(n);
        // a device or build without sm_90 code keeps the strided passes
        if (!plan.includes('clusters')) return expect(plan).toBe(`2 passes (${factors.join(' x ')})`);
        const which = factors[0] > 16 ? 'the first' : 'the second';
        expect(plan).toBe(`2 passes (${factors.join(' x ')}, ${which} on clusters)`);
        const got = [await backend.fft(x, n), await backend.fft(x, n, { inverse: true })];
        await backend.ctx.setTuning({ ...knobs, widePass: 2 });
        expect(await backend.ctx.planInfo(n)).toBe(`2 passes (${factors.join(' x ')})`);
        const strided = [await backend.fft(x, n), await backend.fft(x, n, { inverse: true })];
        for (const [i, inverse] of [false, true].entries()) {
          const what = `n=${n} as ${factors.join(' x ')}, inverse ${inverse}`;
          expect(relL2(got[i], refBatch(x, n, inverse)), what).toBeLessThanOrEqual(tol(n));
          expect(relL2(got[i], strided[i]), `${what} against strided passes`).toBeLessThanOrEqual(tol(n));
        }
      }
    } finally {
      await backend.ctx.setTuning({});
    }
  }, 600_000);

  // 32768 in one pass on clusters of two blocks (sm_90 builds on sm_90 and later, and the emulation; chosen by
  // default where the memory is slower than 4 TB/s, forced here): against float64 and the two-pass plan
  it('[needs-gpu] 32768 on two-block clusters matches float64 and the two-pass plan', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const n = 32768;
    const x = gaussian(2 * n * 3, 32768);
    try {
      await backend.ctx.setTuning({ cluster32k: 1 });
      const plan = await backend.ctx.planInfo(n);
      // a device or build without sm_90 code keeps two passes
      if (!plan.includes('clusters')) return expect(plan).toBe('2 passes (128 x 256)');
      expect(plan).toBe('1 pass (two-block clusters, 32768)');
      const got = [await backend.fft(x, n), await backend.fft(x, n, { inverse: true })];
      await backend.ctx.setTuning({ cluster32k: 2 });
      expect(await backend.ctx.planInfo(n)).toBe('2 passes (128 x 256)');
      const two = [await backend.fft(x, n), await backend.fft(x, n, { inverse: true })];
      for (const [i, inverse] of [false, true].entries()) {
        expect(relL2(got[i], refBatch(x, n, inverse)), `inverse ${inverse}`).toBeLessThanOrEqual(tol(n));
        expect(relL2(got[i], two[i]), `against two passes, inverse ${inverse}`).toBeLessThanOrEqual(tol(n));
      }
    } finally {
      await backend.ctx.setTuning({});
    }
  }, 600_000);

  // 2^23 and 2^24 run two passes with 4096-point passes on clusters where the device and build have them (by
  // default where the memory is slower than 4 TB/s), else three; both plans against float64
  it('[needs-gpu] reaches 2^24 within 1e-6', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    if (gpu.emulation) return; // too slow to emulate
    try {
      for (const knobs of [{ widePass: 1 }, { widePass: 2 }]) {
        await gpu.backend.ctx.setTuning(knobs);
        for (const n of [1 << 22, 1 << 23, 1 << 24]) {
          const x = gaussian(2 * n, 3);
          const got = await gpu.backend.fft(x, n);
          const what = `n=${n} ${JSON.stringify(knobs)} ${await gpu.backend.ctx.planInfo(n)}`;
          expect(relL2(got, dft(Float64Array.from(x))), what).toBeLessThanOrEqual(1e-6);
        }
      }
    } finally {
      await gpu.backend.ctx.setTuning({});
    }
  }, 600_000);

  it('[needs-gpu] takes device arrays, writes into out, and keeps batches apart', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const n = 256;
    const x = gaussian(2 * n * 5, 9);
    const dev = await gpu.backend.upload(x);
    expect(dev.length).toBe(x.length);
    expect(await dev.download()).toEqual(x);
    const out = new Float32Array(x.length).fill(Number.NaN);
    const got = await gpu.backend.fft(dev, n, { out });
    expect(got).toBe(out);
    expect(relL2(out, refBatch(x, n, false))).toBeLessThanOrEqual(tol(n));
    // in place on a host array
    const y = x.slice();
    await gpu.backend.fft(y, n, { out: y });
    expect(relL2(y, refBatch(x, n, false))).toBeLessThanOrEqual(tol(n));
    dev.free();
    await expect(gpu.backend.fft(dev, n)).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('[needs-gpu] a host batch of many pipeline pieces equals the device-array result, bit for bit', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    // host batches run through the copy pipeline in pieces of whole transforms (8 MB; 64 KiB in the
    // emulation, through setTuning's pieceBytes); a device array runs as one batch
    const piece = gpu.emulation ? 1 << 16 : 8 << 20;
    if (gpu.emulation) await backend.ctx.setTuning({ pieceBytes: piece });
    try {
      const big = gpu.emulation ? 16384 : 1 << 21; // one transform is more than a piece
      for (const { op, n } of [
        { op: 'fft', n: 256 },
        { op: 'ifft', n: 4096 },
        { op: 'fft', n: big },
        { op: 'fft', n: 1000 },
        { op: 'rfft', n: 1024 },
        { op: 'rfft', n: 1000 },
        { op: 'irfft', n: 1024 },
      ] as const) {
        const inPer = op === 'rfft' ? n : op === 'irfft' ? 2 * (Math.floor(n / 2) + 1) : 2 * n;
        const outPer = op === 'rfft' ? 2 * (Math.floor(n / 2) + 1) : op === 'irfft' ? n : 2 * n;
        // about 7½ pieces: every slot of the three-slot ring reused twice, the last piece short
        const per = Math.max(1, Math.floor(piece / (4 * Math.max(inPer, outPer))));
        const batch = Math.max(8, Math.ceil(7.5 * per));
        const x = gaussian(inPer * batch, n + 17);
        const run = (input: Float32Array | DeviceArray) =>
          op === 'rfft'
            ? backend.rfft(input, n)
            : op === 'irfft'
              ? backend.irfft(input, n)
              : backend.fft(input, n, { inverse: op === 'ifft' });
        const host = await run(x);
        const dev = await backend.upload(x);
        const ref = await run(dev);
        dev.free();
        expect(host.length).toBe(outPer * batch);
        expect(firstDifference(host, ref), `${op} n=${n} batch=${batch}`).toBe(-1);
      }
    } finally {
      if (gpu.emulation) await backend.ctx.setTuning({});
    }
  }, 600_000);

  it('[needs-gpu] rfft and irfft follow numpy (odd and even sizes, batches)', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    for (const n of [1, 2, 3, 8, 9, 1000, 1024, 4097, ...(gpu.emulation ? [] : [65536, 48000])]) {
      const batch = 3;
      const bins = Math.floor(n / 2) + 1;
      const x = gaussian(n * batch, n + 1);
      const X = await gpu.backend.rfft(x, n);
      expect(X.length).toBe(2 * bins * batch);
      const ref = new Float64Array(2 * bins * batch);
      for (let b = 0; b < batch; b++) {
        const c = new Float64Array(2 * n);
        for (let i = 0; i < n; i++) c[2 * i] = x[b * n + i];
        const F = dft(c);
        ref.set(F.subarray(0, 2 * bins), 2 * bins * b);
      }
      expect(relL2(X, ref), `rfft n=${n}`).toBeLessThanOrEqual(tol(n));
      const back = await gpu.backend.irfft(X, n);
      expect(relL2(back, x), `irfft n=${n}`).toBeLessThanOrEqual(2 * tol(n));
    }
  }, 300_000);

  it('[needs-gpu] fft2 of a complex image matches row-then-column float64 transforms', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const rows = gpu.emulation ? 32 : 1024,
      cols = gpu.emulation ? 64 : 1024;
    const x = gaussian(2 * rows * cols, 21);
    const got = await gpu.backend.fft2(x, rows, cols);
    const ref = new Float64Array(x);
    for (let r = 0; r < rows; r++) ref.set(dft(ref.subarray(2 * cols * r, 2 * cols * (r + 1))), 2 * cols * r);
    for (let c = 0; c < cols; c++) {
      const col = new Float64Array(2 * rows);
      for (let r = 0; r < rows; r++) {
        col[2 * r] = ref[2 * (r * cols + c)];
        col[2 * r + 1] = ref[2 * (r * cols + c) + 1];
      }
      const C = dft(col);
      for (let r = 0; r < rows; r++) {
        ref[2 * (r * cols + c)] = C[2 * r];
        ref[2 * (r * cols + c) + 1] = C[2 * r + 1];
      }
    }
    expect(relL2(got, ref)).toBeLessThanOrEqual(1e-6);
  }, 300_000);

  it('[needs-gpu] refuses bad arguments with typed errors', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    await expect(gpu.backend.fft(new Float32Array(10), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(gpu.backend.fft(new Float32Array(8), 0)).rejects.toThrow(/fft: n must be an integer/);
    await expect(gpu.backend.rfft(new Float32Array(8), 4, { out: new Float32Array(3) })).rejects.toThrow(
      /exactly 12 values/,
    );
    await expect(gpu.backend.irfft(new Float32Array(7), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await gpu.backend.fft(new Float32Array(0), 8)).toHaveLength(0);
  });
});

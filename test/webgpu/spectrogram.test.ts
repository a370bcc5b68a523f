// The WebGPU spectrogram against the CPU backend in float64 (precision 'double'), on the sizes the fused
// kernel runs (a power-of-two transform in one workgroup: shaders/fft_pow2.wgsl's `spectrum` entry point)
// and on one it does not (the separate passes): float and raw integer input, real and complex, overlapping
// and odd hops, display columns, averaging and peak hold, one push against many random ones. Rows are
// compared as linear power (float32 dB rounding, as the conformance suite allows).
import { afterAll, describe, expect, it } from 'vitest';
import type { ProcessorInput, SpectrogramConfig } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { RawSamples } from '../../electron/engine/types.js';
import { concat, randomBlocks, randomF32, randomInts, relL2 } from '../conformance/util.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b, errors } = await webgpuSuite();
const cpu = await createCpuBackend({ threads: 1, precision: 'double' });
const ROW_TOL = 2e-5;
afterAll(() => cpu.dispose());

function hann(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
}

function linear(db: Float32Array, from = 0, count = db.length): Float64Array {
  return Float64Array.from(db.subarray(from, from + count), (v) => 10 ** (v / 10));
}

/** The worst row error of the WebGPU processor against the CPU's on the same input; averages and peaks too. */
async function compare(label: string, cfg: SpectrogramConfig, input: ProcessorInput): Promise<void> {
  const gpuSpec = b!.createSpectrogram(cfg);
  const cpuSpec = cpu.createSpectrogram(cfg);
  const got = await gpuSpec.push(input);
  const want = await cpuSpec.push(input);
  gpuSpec.dispose();
  cpuSpec.dispose();
  expect(got.count).toBe(want.count);
  expect(got.count).toBeGreaterThan(1);
  expect(got.width).toBe(want.width);
  let worst = 0;
  for (let f = 0; f < got.count; f++) {
    const at = f * got.width;
    worst = Math.max(worst, relL2(linear(got.rows, at, got.width), linear(want.rows, at, want.width)));
  }
  errors.push(`  spectrogram ${label}: worst row (linear power) ${worst.toExponential(2)}`);
  expect(worst, label).toBeLessThanOrEqual(ROW_TOL);
  if (cfg.averaging !== undefined)
    expect(relL2(linear(got.average!), linear(want.average!)), `${label} average`).toBeLessThanOrEqual(
      ROW_TOL,
    );
  if (cfg.peakHold)
    expect(relL2(linear(got.peak!), linear(want.peak!)), `${label} peak`).toBeLessThanOrEqual(ROW_TOL);
}

function rawU8(length: number, seed: number): RawSamples {
  const rnd = randomInts(seed);
  const data = new Uint8Array(length);
  for (let i = 0; i < length; i++) data[i] = rnd(0, 255);
  return { data, offset: 127.5, scale: 1 / 127.5 };
}

function rawI16(length: number, seed: number): RawSamples {
  const rnd = randomInts(seed);
  const data = new Int16Array(length);
  for (let i = 0; i < length; i++) data[i] = rnd(-32768, 32767);
  return { data, offset: 0, scale: 1 / 32768 };
}

describe('webgpu spectrogram against the CPU backend (float64)', needsWebGpu(b), () => {
  it('real float input: fused sizes 16 … 4096, overlap, odd hops, columns', async () => {
    for (const [n, hop, columns] of [
      [16, 4, undefined],
      [64, 37, undefined],
      [256, 64, 40],
      [1024, 256, undefined],
      [1024, 333, 100],
      [4096, 1024, 300],
    ] as const) {
      const x = randomF32(n + hop * 24 + 7, 100 + n + hop);
      await compare(
        `real n = ${n} hop ${hop}${columns ? ` ${columns} columns` : ''}`,
        {
          fft: n,
          hop,
          window: hann(n),
          complex: false,
          columns,
        },
        x,
      );
    }
  });

  it('complex float input in fftshift order: fused 8 … 2048, columns, averaging and peak hold', async () => {
    for (const [n, hop, columns] of [
      [8, 3, undefined],
      [512, 128, undefined],
      [2048, 512, 256],
    ] as const) {
      const x = randomF32(2 * (n + hop * 20 + 5), 200 + n);
      await compare(
        `complex n = ${n} hop ${hop}${columns ? ` ${columns} columns` : ''}`,
        {
          fft: n,
          hop,
          window: hann(n),
          complex: true,
          columns,
          averaging: 0.3,
          peakHold: true,
        },
        x,
      );
    }
  });

  it('raw cu8 complex and int16 real input, with averaging and peak hold', async () => {
    await compare(
      'raw cu8 complex n = 1024',
      {
        fft: 1024,
        hop: 256,
        window: hann(1024),
        complex: true,
        columns: 200,
        averaging: 0.2,
        peakHold: true,
      },
      rawU8(2 * (1024 + 256 * 20), 7),
    );
    await compare(
      'raw i16 real n = 2048',
      {
        fft: 2048,
        hop: 512,
        window: hann(2048),
        complex: false,
        averaging: 0.5,
        peakHold: true,
      },
      rawI16(2048 + 512 * 16 + 3, 8),
    );
  });

  it('a size the fused kernel does not take (n = 96) still agrees', async () => {
    const x = randomF32(96 + 24 * 30, 9);
    await compare(
      'real n = 96 (passes)',
      { fft: 96, hop: 24, window: hann(96), complex: false, columns: 20 },
      x,
    );
  });

  it('one push or many random pushes give identical rows, averages and peaks', async () => {
    for (const complex of [false, true]) {
      const vps = complex ? 2 : 1;
      const x = randomF32(vps * 30_000, 300 + vps);
      const cfg: SpectrogramConfig = {
        fft: 1024,
        hop: 300,
        window: hann(1024),
        complex,
        columns: 128,
        averaging: 0.25,
        peakHold: true,
      };
      const whole = await b!.createSpectrogram(cfg).push(x);
      const spec = b!.createSpectrogram(cfg);
      const rows: Float32Array[] = [];
      let last = whole;
      let at = 0;
      for (const size of randomBlocks(x.length, vps, 400 + vps)) {
        last = await spec.push(x.subarray(at, at + size));
        rows.push(last.rows);
        at += size;
      }
      expect(concat(rows)).toEqual(whole.rows);
      expect(last.average).toEqual(whole.average);
      expect(last.peak).toEqual(whole.peak);
    }
  });

  it('a full-scale tone reads 0 dBFS on its bin, silence reads floorDb', async () => {
    const n = 256;
    const k0 = 20;
    const real = Float32Array.from({ length: 2 * n }, (_, i) => Math.sin((2 * Math.PI * k0 * i) / n));
    const r = await b!.createSpectrogram({ fft: n, hop: n, window: hann(n), complex: false }).push(real);
    expect(r.count).toBe(2);
    expect(r.rows[k0]).toBeCloseTo(0, 3);
    expect(r.rows[r.width + k0]).toBeCloseTo(0, 3);
    const quiet = await b!
      .createSpectrogram({ fft: n, hop: n / 2, window: hann(n), complex: true, floorDb: -140, columns: 64 })
      .push(new Float32Array(4 * n));
    expect(quiet.count).toBe(3);
    expect(Array.from(quiet.rows).every((v) => v === -140)).toBe(true);
  });
});

// The WebGPU FIR's overlap-save against the CPU backend in double precision: the fused kernel
// (shaders/fft_pow2.wgsl `convolve`) in one pass and split form, real and complex, several channels
// (an odd lane count pairs sequences across segments), raw int16 input, and random block splits that
// must give the same output bit for bit as one block.
import { describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { WebGpuFir } from '../../electron/engine/backends/webgpu/fir.js';
import {
  CONVOLVE16_FROM,
  RADIX16_BY_DEFAULT,
  RADIX16_SIZES,
} from '../../electron/engine/backends/webgpu/fft.js';
import type { FirConfig, FirFilter, ProcessorInput } from '../../electron/engine/backends/backend.js';
import type { RawSamples } from '../../electron/engine/types.js';
import { concat, randomBlocks, randomF32, randomInts, relL2 } from '../conformance/util.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b, errors } = await webgpuSuite();
const cpu = await createCpuBackend({ precision: 'double' });

async function whole(fir: FirFilter, x: ProcessorInput): Promise<Float32Array> {
  return concat([await fir.process(x), await fir.flush()]);
}

async function split(fir: FirFilter, x: Float32Array, lanes: number, seed: number): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  let at = 0;
  for (const size of randomBlocks(x.length, lanes, seed)) {
    parts.push(await fir.process(x.subarray(at, at + size)));
    at += size;
  }
  parts.push(await fir.flush());
  return concat(parts);
}

describe('webgpu fused overlap-save FIR against the CPU backend (double)', needsWebGpu(b), () => {
  const cases: [number, boolean, number][] = [
    [255, false, 1],
    [255, true, 1],
    [255, false, 3],
    [1023, false, 1],
    [1023, true, 2],
    [4095, false, 1],
    [4095, true, 1],
  ];
  for (const [numtaps, complex, channels] of cases) {
    const kind = `${complex ? 'complex' : 'real'} ×${channels}`;
    it(`${numtaps} taps, ${kind}: equal to float64, bit-identical over random blocks`, async () => {
      const lanes = channels * (complex ? 2 : 1);
      const frames = 3 * numtaps + 2500;
      const taps = randomF32(numtaps, 10 + numtaps);
      const x = randomF32(lanes * frames, 20 + numtaps + lanes);
      const config: FirConfig = { taps, complex, channels, method: 'overlap-save' };
      const ref = await whole(cpu.createFir(config), x);
      const fir = b!.createFir(config);
      expect(fir).toBeInstanceOf(WebGpuFir);
      const g = fir as WebGpuFir;
      // fused up to twice the one-pass FFT (4096 points on SwiftShader, 8192 on the lent H100)
      expect(g.fused).toBe(g.size <= 2 * b!.fftPlanner.onePassMax);
      const y = await whole(fir, x);
      expect(y.length).toBe(x.length);
      const e = relL2(y, ref);
      errors.push(`  fir ${numtaps} taps ${kind}, N = ${g.size} ${g.kernel}: ${e.toExponential(2)}`);
      expect(e).toBeLessThanOrEqual(1e-6);
      expect(await split(fir, x, lanes, 30 + numtaps)).toEqual(y);
      fir.dispose();
    });
  }

  it('raw int16 input equals the decoded floats', async () => {
    const numtaps = 255;
    const taps = randomF32(numtaps, 41);
    const rnd = randomInts(42);
    const data = new Int16Array(6000);
    for (let i = 0; i < data.length; i++) data[i] = rnd(-32768, 32767);
    const raw: RawSamples = { data, offset: 0, scale: 1 / 32768 };
    const config: FirConfig = { taps, complex: true, channels: 1, method: 'overlap-save' };
    const ref = await whole(cpu.createFir(config), raw);
    const fir = b!.createFir(config);
    const y = await whole(fir, raw);
    const floats = await whole(
      fir,
      Float32Array.from(data, (v) => v / 32768),
    );
    const e = relL2(y, ref);
    errors.push(`  fir ${numtaps} taps raw int16: ${e.toExponential(2)}`);
    expect(e).toBeLessThanOrEqual(1e-6);
    expect(floats).toEqual(y);
    fir.dispose();
  });

  it('convolve16 (16 points a thread) filters like the 8-point kernel, bit-identical over blocks', async () => {
    const planner = b!.fftPlanner;
    const numtaps = 255;
    const config: FirConfig = { taps: randomF32(numtaps, 51), complex: true, channels: 1 };
    const x = randomF32(2 * 9000, 52);
    const ref = await whole(cpu.createFir(config), x);
    // by default from 4096-point segments (1023 taps on the lent H100, above one pass on SwiftShader);
    // here from 2048 points, which every adapter here runs in one pass
    const byDefault = b!.createFir(config) as WebGpuFir;
    expect(byDefault.size).toBe(2048);
    expect(byDefault.kernel).toBe(CONVOLVE16_FROM <= 2048 ? 'convolve16' : 'convolve');
    byDefault.dispose();
    planner.useConvolve16From(2048);
    try {
      const fir = b!.createFir(config) as WebGpuFir;
      expect(planner.plan(2048).method).toBe('one-pass-radix16');
      expect(fir.kernel).toBe('convolve16');
      const y16 = await whole(fir, x);
      expect(await split(fir, x, 2, 53)).toEqual(y16);
      fir.dispose();
      planner.useRadix16(false);
      const plain = b!.createFir(config) as WebGpuFir;
      expect(plain.kernel).toBe('convolve');
      const y8 = await whole(plain, x);
      plain.dispose();
      errors.push(
        `  fir ${numtaps} taps complex, N = 2048: ${relL2(y16, ref).toExponential(2)} (16 a thread), ` +
          `${relL2(y8, ref).toExponential(2)} (8 a thread), apart ${relL2(y16, y8).toExponential(2)}`,
      );
      expect(relL2(y16, ref)).toBeLessThanOrEqual(1e-6);
      expect(relL2(y8, ref)).toBeLessThanOrEqual(1e-6);
      expect(relL2(y16, y8)).toBeLessThanOrEqual(1e-6);
    } finally {
      planner.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
      planner.useConvolve16From(CONVOLVE16_FROM);
    }
  });
});

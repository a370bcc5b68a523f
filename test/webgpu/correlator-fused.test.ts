// The WebGPU correlator through the fused overlap-save kernel (shaders/fft_pow2.wgsl `convolve` with its
// score store, the conjugated template reversed as the filter), real and complex input, against the CPU
// backend in double precision: scores, the planted copy's peak, zero scores over a silent stretch, and
// random block splits that must give the same scores bit for bit.
import { describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { CorrelationChunk, Correlator } from '../../electron/engine/backends/backend.js';
import { WebGpuCorrelator } from '../../electron/engine/backends/webgpu/correlator.js';
import { concat, maxAbsDiff, randomBlocks, randomF32 } from '../conformance/util.js';
import { webgpuSuite } from './gpu.js';

const { b, errors } = await webgpuSuite();
const cpu = await createCpuBackend({ precision: 'double' });

async function scores(c: Correlator, x: Float32Array, blocks: number[]): Promise<Float32Array> {
  const chunks: CorrelationChunk[] = [];
  let at = 0;
  for (const size of blocks) {
    chunks.push(await c.process(x.subarray(at, at + size)));
    at += size;
  }
  chunks.push(await c.flush());
  return concat(chunks.map((ch) => ch.scores!));
}

describe.skipIf(!b)('webgpu fused correlator against the CPU backend (double)', () => {
  // 40 and 64: no or one whole chunk of 64 in a window (the kernel's runs of chunks empty); on an adapter
  // of 2048 one-pass points 1023, 1025, 700 and 1024 complex run as two halves (lags scored in pairs, whose
  // shared M − 1 points hold 15, 16, 10 and 15 whole chunks)
  for (const [m, complex] of [
    [40, false],
    [64, false],
    [255, false],
    [1023, false],
    [1025, false],
    [100, true],
    [700, true],
    [1024, true],
  ] as const) {
    const kind = complex ? 'complex' : 'real';
    it(`template ${m} ${kind}: scores equal float64, bit-identical over random blocks`, async () => {
      const vps = complex ? 2 : 1;
      const t = randomF32(vps * m, 50 + m);
      const x = randomF32(vps * (3 * m + 9000), 60 + m);
      const lag0 = 4321;
      for (let i = 0; i < x.length; i++) x[i] *= 0.1;
      for (let i = 0; i < vps * m; i++) x[vps * lag0 + i] += t[i];
      // a silent stretch: its windows score 0
      x.fill(0, vps * 7000, vps * (7100 + m));
      const config = { template: t, complex, scores: true, peaks: 1 };
      const ref = await scores(cpu.createCorrelator(config), x, [x.length]);
      const g = b!.createCorrelator(config);
      expect(g).toBeInstanceOf(WebGpuCorrelator);
      expect((g as WebGpuCorrelator).fused).toBe(true);
      const whole = await scores(g, x, [x.length]);
      expect(whole.length).toBe(ref.length);
      const e = maxAbsDiff(whole, ref);
      errors.push(`  correlation template ${m} ${kind}, max |score error|: ${e.toExponential(2)}`);
      expect(e).toBeLessThanOrEqual(1e-5);
      let best = 0;
      for (let l = 1; l < whole.length; l++) if (whole[l] > whole[best]) best = l;
      expect(best).toBe(lag0);
      for (let l = 7000; l < 7100; l++) expect(whole[l]).toBe(0);
      expect(await scores(g, x, randomBlocks(x.length, vps, 70 + m))).toEqual(whole);
      g.dispose();
    });
  }
});

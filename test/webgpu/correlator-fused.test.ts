// The WebGPU correlator through the fused overlap-save kernel (shaders/fft_pow2.wgsl `convolve` with its
// score store, the conjugated template reversed as the filter) and, for templates longer than it takes,
// the passes of shaders/correlate.wgsl (gather, FFTs, runs, score), real and complex input, against the
// CPU backend in double precision: scores, the planted copy's peak, zero scores over a silent stretch,
// and random block splits that must give the same scores bit for bit.
import { describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { CorrelationChunk, Correlator } from '../../electron/engine/backends/backend.js';
import { WebGpuCorrelator } from '../../electron/engine/backends/webgpu/correlator.js';
import { concat, maxAbsDiff, randomBlocks, randomF32 } from '../conformance/util.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

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

describe('webgpu correlator against the CPU backend (double)', needsWebGpu(b), () => {
  // fused: 40 and 64: no or one whole chunk of 64 in a window (the kernel's runs of chunks empty); on an
  // adapter of 2048 one-pass points 1023, 1025, 700 and 1024 complex run as two halves (lags scored in
  // pairs, whose shared M − 1 points hold 15, 16, 10 and 15 whole chunks). Multi-pass (templates longer
  // than the fused kernel takes): window ends at every offset within their chunks of 8 and 64, runs of
  // one and of many chunks of 64.
  for (const [m, complex, fused] of [
    [40, false, true],
    [64, false, true],
    [255, false, true],
    [1023, false, true],
    [1025, false, true],
    [100, true, true],
    [700, true, true],
    [1024, true, true],
    [4101, false, false],
    [4160, false, false],
    [5003, false, false],
    [9000, false, false],
    [4133, true, false],
  ] as const) {
    const kind = `${complex ? 'complex' : 'real'}${fused ? '' : ', multi-pass'}`;
    it(`template ${m} ${kind}: scores equal float64, bit-identical over random blocks`, async () => {
      const vps = complex ? 2 : 1;
      const t = randomF32(vps * m, 50 + m);
      const x = randomF32(vps * (3 * m + 9000), 60 + m);
      const lag0 = Math.max(4321, 1234 + m);
      for (let i = 0; i < x.length; i++) x[i] *= 0.1;
      for (let i = 0; i < vps * m; i++) x[vps * lag0 + i] += t[i];
      // a silent stretch: its windows score 0
      const quiet = Math.max(7000, 2 * m + 3000);
      x.fill(0, vps * quiet, vps * (quiet + 100 + m));
      const config = { template: t, complex, scores: true, peaks: 1 };
      const ref = await scores(cpu.createCorrelator(config), x, [x.length]);
      const g = b!.createCorrelator(config);
      expect(g).toBeInstanceOf(WebGpuCorrelator);
      expect((g as WebGpuCorrelator).fused).toBe(fused);
      const whole = await scores(g, x, [x.length]);
      expect(whole.length).toBe(ref.length);
      const e = maxAbsDiff(whole, ref);
      errors.push(`  correlation template ${m} ${kind}, max |score error|: ${e.toExponential(2)}`);
      // multi-pass: float32 FFTs of 16384 points and more, whose rounding the faint lags near the planted
      // copy carry (1.9e-5 at 4160 on SwiftShader, the same with the energies of a walk before the runs)
      expect(e).toBeLessThanOrEqual(fused ? 1e-5 : 3e-5);
      let best = 0;
      for (let l = 1; l < whole.length; l++) if (whole[l] > whole[best]) best = l;
      expect(best).toBe(lag0);
      for (let l = quiet; l < quiet + 100; l++) expect(whole[l]).toBe(0);
      expect(await scores(g, x, randomBlocks(x.length, vps, 70 + m))).toEqual(whole);
      g.dispose();
    });
  }
});

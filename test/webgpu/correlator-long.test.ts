// The WebGPU correlator's multi-pass path (templates longer than the fused kernel takes: gather, FFTs,
// runs, score of shaders/correlate.wgsl) against the CPU backend in double precision: scores, the planted
// copy's peak, zero scores over a silent stretch, and random block splits that give the same scores bit
// for bit. Template lengths put a window's ends at every offset within its chunks of 8 and 64, and make
// runs of 0 (under 128 samples a window is all short terms), 1, and many chunks of 64.
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

describe.skipIf(!b)(
  'webgpu correlator, multi-pass (long templates), against the CPU backend (double)',
  () => {
    for (const [m, complex] of [
      [4101, false],
      [4160, false],
      [5003, false],
      [9000, false],
      [4133, true],
    ] as const) {
      const kind = complex ? 'complex' : 'real';
      it(`template ${m} ${kind}: scores equal float64, bit-identical over random blocks`, async () => {
        const vps = complex ? 2 : 1;
        const t = randomF32(vps * m, 150 + m);
        const x = randomF32(vps * (3 * m + 7000), 160 + m);
        const lag0 = 1234 + m;
        for (let i = 0; i < x.length; i++) x[i] *= 0.1;
        for (let i = 0; i < vps * m; i++) x[vps * lag0 + i] += t[i];
        // a silent stretch longer than the template: its windows score 0
        const quiet = 2 * m + 100;
        x.fill(0, vps * quiet, vps * (quiet + m + 200));
        const config = { template: t, complex, scores: true, peaks: 1 };
        const ref = await scores(cpu.createCorrelator(config), x, [x.length]);
        const g = b!.createCorrelator(config);
        expect(g).toBeInstanceOf(WebGpuCorrelator);
        expect((g as WebGpuCorrelator).fused).toBe(false);
        const whole = await scores(g, x, [x.length]);
        expect(whole.length).toBe(ref.length);
        const e = maxAbsDiff(whole, ref);
        errors.push(
          `  correlation template ${m} ${kind} (multi-pass), max |score error|: ${e.toExponential(2)}`,
        );
        // float32 FFTs of 16384 points and more: the faint lags near the planted copy carry its rounding
        // (1.0e-5 at 4101, the same with the energies summed by a walk before the runs)
        expect(e).toBeLessThanOrEqual(2e-5);
        let best = 0;
        for (let l = 1; l < whole.length; l++) if (whole[l] > whole[best]) best = l;
        expect(best).toBe(lag0);
        for (let l = quiet; l < quiet + 200; l++) expect(whole[l]).toBe(0);
        expect(await scores(g, x, randomBlocks(x.length, vps, 170 + m))).toEqual(whole);
        g.dispose();
      });
    }
  },
);

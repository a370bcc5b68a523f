// The WebGPU correlator's candidate peaks, reduced on the device: for every push they must be exactly what
// the CPU backend's rule (stream.ts findPeaks) picks from the same scores — with and without the scores
// read back — across many peaks, none, exact ties, candidates at the edges of pushes and of the kernels'
// workgroups, a list that overflows or runs dry, and peak counts from 1 to more than there are.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backend, CorrelationChunk, CorrelationPeak } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { findPeaks, takePeaks } from '../../electron/engine/backends/stream.js';
import {
  candidateCapacity,
  WEBGPU_CORR_CANDIDATES,
} from '../../electron/engine/backends/webgpu/correlator.js';
import { randomBlocks, randomF32 } from '../conformance/util.js';
import { needsWebGpu, openWebGpu } from './gpu.js';

const gpu = await openWebGpu();
const b = gpu.backend;
if (!b) console.log(`WebGPU tests skipped: ${gpu.skip}`);

interface Run {
  chunks: CorrelationChunk[];
  /** The same pushes' peaks without scores (the list-only path). */
  lean: CorrelationPeak[][];
}

/** Pushes x in `blocks` (then flush) into two correlators: one returning scores, one only peaks. */
async function run(
  backend: Backend,
  x: Float32Array,
  template: Float32Array,
  peaks: number,
  peakRadius: number,
  blocks: number[] = [x.length],
): Promise<Run> {
  const full = backend.createCorrelator({ template, complex: false, scores: true, peaks, peakRadius });
  const lean = backend.createCorrelator({ template, complex: false, peaks, peakRadius });
  const out: Run = { chunks: [], lean: [] };
  let at = 0;
  for (const n of [...blocks, -1]) {
    const part = n < 0 ? null : x.subarray(at, at + n);
    at += Math.max(0, n);
    const [c, l] = part ? [full.process(part), lean.process(part)] : [full.flush(), lean.flush()];
    out.chunks.push(await c);
    out.lean.push((await l).peaks);
  }
  full.dispose();
  lean.dispose();
  return out;
}

/** Every push's peaks equal findPeaks over that push's scores, with and without the scores. */
function expectCpuRule(r: Run, peaks: number, radius: number): number {
  let found = 0;
  r.chunks.forEach((c, i) => {
    const want = c.count > 0 ? findPeaks(c.scores!, c.startLag, peaks, radius) : [];
    expect(c.peaks).toEqual(want);
    expect(r.lean[i]).toEqual(want);
    found += want.length;
  });
  return found;
}

describe('takePeaks (the host side of the list)', () => {
  it('takes the strongest first, ties to the smaller lag, suppressing ±radius, in any list order', () => {
    const lag = Uint32Array.from([50, 10, 30, 12, 70, 31]);
    const score = Float32Array.from([0.5, 0.9, 0.5, 0.8, 0.5, 0.7]);
    // 12 falls to 10, 30 to 31 (stronger); of the equal 50 and 70, 50 first
    const want = [
      { lag: 110, score: score[1] },
      { lag: 131, score: score[5] },
      { lag: 150, score: score[0] },
      { lag: 170, score: score[4] },
    ];
    expect(takePeaks(lag, score, 100, 10, 2)).toEqual(want);
    expect(takePeaks(lag, score, 100, 2, 2)).toEqual(want.slice(0, 2));
    expect(takePeaks(lag, score, 100, 40, 2)).toEqual(want);
    expect(takePeaks(new Uint32Array(0), new Float32Array(0), 0, 5, 3)).toEqual([]);
  });

  it("equals findPeaks on any scores' local maxima, in any order (property)", () => {
    // scores from a few levels, so ties are common; the candidates are findPeaks' own (local maxima
    // above 0), shuffled as the GPU's list leaves them
    const scores = fc.array(fc.integer({ min: -2, max: 6 }), { minLength: 0, maxLength: 300 });
    fc.assert(
      fc.property(
        scores,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer(),
        (levels, want, radius, seed) => {
          const s = Float32Array.from(levels, (v) => v / 4);
          const cand: number[] = [];
          for (let i = 0; i < s.length; i++) {
            if (s[i] > 0 && (i === 0 || s[i] > s[i - 1]) && (i + 1 === s.length || s[i] >= s[i + 1]))
              cand.push(i);
          }
          let r = seed >>> 0;
          for (let i = cand.length - 1; i > 0; i--) {
            r = (Math.imul(r, 1103515245) + 12345) >>> 0;
            const j = r % (i + 1);
            [cand[i], cand[j]] = [cand[j], cand[i]];
          }
          const lag = Uint32Array.from(cand);
          const score = Float32Array.from(cand, (i) => s[i]);
          expect(takePeaks(lag, score, 7, want, radius)).toEqual(findPeaks(s, 7, want, radius));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("findPeaks' shortlist of maxima gives the selection over all of them (property)", () => {
    // many maxima, few levels (ties), shortlists of 1 to 8: the list runs dry often and the scan repeats
    const scores = fc.array(fc.integer({ min: -3, max: 12 }), { minLength: 0, maxLength: 400 });
    fc.assert(
      fc.property(
        scores,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 12 }),
        (levels, shortlist, want, radius) => {
          const s = Float32Array.from(levels, (v) => v / 8);
          const all = findPeaks(s, 3, want, radius, Infinity);
          expect(findPeaks(s, 3, want, radius, shortlist)).toEqual(all);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the list holds at least WEBGPU_CORR_CANDIDATES, 64 a peak, never more than half the lags + 1', () => {
    expect(candidateCapacity(5, 1 << 20)).toBe(WEBGPU_CORR_CANDIDATES);
    expect(candidateCapacity(1000, 1 << 20)).toBe(64_000);
    expect(candidateCapacity(5, 101)).toBe(52);
  });
});

describe('webgpu correlator: candidate peaks on the GPU', needsWebGpu(b), () => {
  it('many peaks in noise: 5 (rounds) and 40 (sorted), tight and wide radii, one push', async () => {
    const x = randomF32(40_000, 1);
    const t = randomF32(64, 2);
    for (const [peaks, radius] of [
      [5, 32],
      [40, 3],
      [40, 500],
    ]) {
      const r = await run(b!, x, t, peaks, radius);
      expect(expectCpuRule(r, peaks, radius)).toBeGreaterThanOrEqual(peaks);
    }
  });

  it('no peaks: a silent signal, and a push that completes no lag', async () => {
    const t = randomF32(100, 3);
    const r = await run(b!, new Float32Array(20_000), t, 5, 50);
    for (const c of r.chunks) expect(c.peaks).toEqual([]);
    for (const l of r.lean) expect(l).toEqual([]);
    const short = await run(b!, randomF32(60, 4), t, 5, 50, [60]);
    expect(short.chunks.map((c) => c.count)).toEqual([0, 0]);
    expect(short.lean).toEqual([[], []]);
  });

  it('exact ties (a periodic signal, direct path) go to the smaller lag; a flooded list falls back', async () => {
    // the direct path computes every lag the same way, so equal windows give bit-equal scores
    const t = randomF32(8, 5);
    const period = randomF32(32, 6);
    const n = 20_000;
    const x = Float32Array.from({ length: n }, (_, i) => period[i % 32]);
    const r = await run(b!, x, t, 6, 20);
    expectCpuRule(r, 6, 20);
    const p = r.chunks[0].peaks;
    expect(p.length).toBe(6);
    expect(new Set(p.map((q) => q.score)).size).toBeLessThan(6); // ties among them
    for (let i = 1; i < p.length; i++)
      if (p[i].score === p[i - 1].score) expect(p[i].lag).toBeGreaterThan(p[i - 1].lag);
    // 8192 equal candidates per period position: more in the top bin than the list holds
    const big = Float32Array.from({ length: 32 * 8192 + 7 }, (_, i) => period[i % 32]);
    const flooded = await run(b!, big, t, 3, 5);
    expectCpuRule(flooded, 3, 5);
  });

  it('peaks straddling push boundaries and workgroup edges, random blocks, overlap-save and direct', async () => {
    const n = 70_000;
    for (const m of [300, 12]) {
      const t = randomF32(m, 7 + m);
      const x = randomF32(n, 8 + m);
      for (let i = 0; i < n; i++) x[i] *= 0.2;
      // planted copies at workgroup edges (256 lags, 4096 a histogram workgroup) and near block edges
      const planted = [255, 4095, 8192, 30_000, 65_535];
      for (const at of planted) for (let k = 0; k < m; k++) x[at + k] += t[k];
      const blocks = randomBlocks(n, 1, 11 + m).filter((s) => s > 0);
      for (const peaks of [1, 8, 100]) {
        const radius = Math.floor(m / 2);
        const split = await run(b!, x, t, peaks, radius, blocks);
        expectCpuRule(split, peaks, radius);
        const whole = await run(b!, x, t, peaks, radius);
        expectCpuRule(whole, peaks, radius);
        // a long template: the planted copies are among the peaks wherever the blocks end
        if (peaks === 8 && m === 300) {
          for (const r of [split, whole]) {
            const lags = r.chunks.flatMap((c) => c.peaks.map((q) => q.lag));
            for (const at of planted) expect(lags).toContain(at);
          }
        }
      }
    }
  });

  it('a peak on the first and the last lag of a push (direct path: every complete lag returned)', async () => {
    const m = 12;
    const t = randomF32(m, 12);
    const x = randomF32(10_000, 13);
    for (let i = 0; i < x.length; i++) x[i] *= 0.01;
    const last = 5000 - m; // the last lag the first push of 5000 samples completes
    for (let k = 0; k < m; k++) {
      x[k] = t[k];
      x[last + k] = t[k];
    }
    const r = await run(b!, x, t, 2, 6, [5000, 5000]);
    expectCpuRule(r, 2, 6);
    expect(r.chunks[0].count).toBe(last + 1);
    expect(r.chunks[0].peaks.map((q) => q.lag).sort((u, v) => u - v)).toEqual([0, last]);
  });

  it('more peaks asked than there are, and a list that runs dry', async () => {
    const t = randomF32(50, 14);
    const x = randomF32(3000, 15);
    const r = await run(b!, x, t, 10_000, 3);
    const found = expectCpuRule(r, 10_000, 3);
    expect(found).toBeGreaterThan(100);
    expect(found).toBeLessThan(10_000);
    // a radius wider than the list's spread: the list's few survivors are too few, every score decides
    const wide = randomF32(60_000, 16);
    const dry = await run(b!, wide, t, 60, 2000);
    expectCpuRule(dry, 60, 2000);
  });

  it('the same peaks as the CPU backend on planted copies of different strengths', async () => {
    const cpu = await createCpuBackend({ threads: 1 });
    const m = 500;
    const t = randomF32(m, 17);
    const x = randomF32(50_000, 18);
    for (let i = 0; i < x.length; i++) x[i] *= 0.3;
    const planted = [1000, 9000, 17_777, 30_001, 44_000];
    planted.forEach((at, j) => {
      for (let k = 0; k < m; k++) x[at + k] += (1 - 0.1 * j) * t[k];
    });
    const blocks = randomBlocks(x.length, 1, 19).filter((s) => s > 0);
    const g = await run(b!, x, t, 5, 250, blocks);
    const c = await run(cpu, x, t, 5, 250, blocks);
    const lags = (r: Run) =>
      r.chunks.flatMap((ch) => ch.peaks.map((q) => q.lag)).filter((l) => planted.includes(l));
    expect(lags(g).sort((u, v) => u - v)).toEqual(planted);
    expect(lags(g)).toEqual(lags(c));
    await cpu.dispose();
  });
});

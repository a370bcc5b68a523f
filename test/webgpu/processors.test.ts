// The WebGPU processors against float64 beyond the conformance suite: long filters in both methods, the
// correlator's window energies on a long signal whose level drops by 80 dB (a running sum in float32 would
// lose the quiet part), and the spectrogram's rows. The measured errors are printed at the end.
// Near the drop, a float32 FFT's rounding (relative to the loud samples of the same segment) dominates the
// faint lags' scores: that band, one segment wide, is reported, not asserted.
import { describe, expect, it } from 'vitest';
import { referenceCorrelation, referenceLfilter, referenceSpectrogram } from '../conformance/reference.js';
import { concat, maxAbsDiff, randomF32, relL2, toF64 } from '../conformance/util.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b, errors } = await webgpuSuite();

function hann(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
}

describe('webgpu processors against float64', needsWebGpu(b), () => {
  it('FIR, 255 and 4095 taps, direct and overlap-save, 2 complex channels', async () => {
    for (const numtaps of [255, 4095]) {
      const taps = randomF32(numtaps, 10 + numtaps);
      const x = randomF32(4 * 20_000, 20 + numtaps);
      const ref = referenceLfilter(taps, x, 4);
      for (const method of ['direct', 'overlap-save'] as const) {
        const fir = b!.createFir({ taps, complex: true, channels: 2, method });
        const y = concat([await fir.process(x), await fir.flush()]);
        const e = relL2(y, ref);
        errors.push(`  fir ${numtaps} taps ${method}: ${e.toExponential(2)}`);
        expect(e).toBeLessThanOrEqual(1e-6);
        fir.dispose();
      }
    }
  });

  it('correlator energies on 2^18 samples whose level drops by 80 dB', async () => {
    const n = 1 << 18;
    const m = 300;
    const t = randomF32(m, 31);
    const x = randomF32(n, 32);
    for (let i = 0; i < n; i++) x[i] = i < n / 4 ? 100 + x[i] : 1e-2 * x[i];
    for (let i = 0; i < m; i++) x[200_000 + i] += 0.05 * t[i];
    const ref = referenceCorrelation(x, t, false);
    const corr = b!.createCorrelator({ template: t, complex: false, scores: true, peaks: 1 });
    const parts: Float32Array[] = [];
    const peaks = [];
    const chunks = [];
    for (let at = 0; at < n; at += 50_000) chunks.push(await corr.process(x.subarray(at, at + 50_000)));
    chunks.push(await corr.flush());
    for (const c of chunks) {
      parts.push(c.scores!);
      peaks.push(...c.peaks);
    }
    const s = concat(parts);
    expect(s.length).toBe(ref.length);
    const edge = n / 4 - m;
    const after = edge + 4096; // past every segment that holds a loud sample
    const loud = maxAbsDiff(s.subarray(0, edge), ref.subarray(0, edge));
    const band = maxAbsDiff(s.subarray(edge, after), ref.subarray(edge, after));
    const quiet = maxAbsDiff(s.subarray(after), ref.subarray(after));
    errors.push(
      `  correlation 2^18 samples, template 300, max |score error|: loud ${loud.toExponential(2)}, ` +
        `quiet ${quiet.toExponential(2)}, the segment at the drop ${band.toExponential(2)}`,
    );
    expect(loud).toBeLessThanOrEqual(1e-5);
    expect(quiet).toBeLessThanOrEqual(1e-5);
    expect(peaks.sort((p, q) => q.score - p.score)[0].lag).toBe(200_000);
  });

  it('spectrogram rows, real n = 4096 and complex n = 1000 with columns', async () => {
    for (const [n, complex, columns] of [
      [4096, false, undefined],
      [1000, true, 250],
    ] as const) {
      const vps = complex ? 2 : 1;
      const x = randomF32(vps * (n + 512 * 40), 40 + n);
      const cfg = { fft: n, hop: 512, window: hann(n), complex, columns };
      const r = await b!.createSpectrogram(cfg).push(x);
      const ref = referenceSpectrogram(toF64(x), cfg);
      let worst = 0;
      for (let f = 0; f < r.count; f++) {
        const lin = Float64Array.from(r.rows.subarray(f * r.width, (f + 1) * r.width), (v) => 10 ** (v / 10));
        worst = Math.max(worst, relL2(lin, ref.rows[f]));
      }
      errors.push(
        `  spectrogram n = ${n} ${complex ? 'complex' : 'real'}: worst row (linear power) ${worst.toExponential(2)}`,
      );
      expect(worst).toBeLessThanOrEqual(2e-5);
    }
  });
});

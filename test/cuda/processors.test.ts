// Spectrogram, FIR filter and correlator of the CUDA backend against float64 references, streamed in
// blocks. Every test needs a CUDA device: without one it is skipped with the reason (printed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpectrogramRows } from '../../electron/engine/backends/backend.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { type Gpu, openGpu } from './gpu.js';
import { correlationScores, dft, firstDifference, gaussian, hann, lfilter, relL2 } from './reference.js';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await openGpu();
});
afterAll(async () => {
  await gpu.backend?.dispose();
});

/** Float64 spectrogram rows (dB) with the CPU backend's level convention. */
function refRows(
  x: Float32Array,
  n: number,
  hop: number,
  complex: boolean,
  w: Float32Array,
  columns?: number,
) {
  const vps = complex ? 2 : 1;
  const count = Math.floor((x.length / vps - n) / hop) + 1;
  const bins = complex ? n : Math.floor(n / 2) + 1;
  const width = columns ?? bins;
  let S = 0;
  for (const v of w) S += v;
  const rows: number[][] = [];
  const linear: number[][] = [];
  for (let f = 0; f < count; f++) {
    const c = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      c[2 * i] = x[vps * (f * hop + i)] * w[i];
      c[2 * i + 1] = complex ? x[2 * (f * hop + i) + 1] * w[i] : 0;
    }
    const X = dft(c);
    const P = new Float64Array(bins);
    for (let r = 0; r < bins; r++) {
      const k = complex ? (r - Math.floor(n / 2) + n) % n : r;
      const edge = !complex && (k === 0 || (n % 2 === 0 && k === n / 2));
      P[r] = ((X[2 * k] ** 2 + X[2 * k + 1] ** 2) * (complex || edge ? 1 : 4)) / (S * S);
    }
    const row: number[] = [];
    const lin: number[] = [];
    for (let col = 0; col < width; col++) {
      const lo = Math.floor((col * bins) / width),
        hi = Math.floor(((col + 1) * bins) / width);
      let m = P[lo];
      for (let k = lo + 1; k < hi; k++) m = Math.max(m, P[k]);
      lin.push(m);
      row.push(Math.max(-300, 10 * Math.log10(m)));
    }
    rows.push(row);
    linear.push(lin);
  }
  return { rows, linear, count, width };
}

async function pushAll(
  spec: { push(x: Float32Array): Promise<SpectrogramRows> },
  x: Float32Array,
  cuts: number[],
) {
  const all: SpectrogramRows[] = [];
  let at = 0;
  for (const c of [...cuts, x.length]) {
    all.push(await spec.push(x.subarray(at, c)));
    at = c;
  }
  return all;
}

describe('CUDA spectrogram', () => {
  const cases = [
    { n: 64, hop: 16, complex: false }, // fused, real through the half-length FFT
    { n: 256, hop: 64, complex: true }, // fused, complex (fftshift order)
    { n: 48, hop: 12, complex: false }, // not a power of two: framing + FFT plan + rows
    { n: 30, hop: 40, complex: true }, // hop > fft: samples between frames are skipped
    { n: 4096, hop: 1024, complex: false },
  ];
  it('[needs-gpu] matches float64 rows (dBFS), whatever the push sizes', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    for (const { n, hop, complex } of cases) {
      if (gpu.emulation && n > 256) continue;
      const vps = complex ? 2 : 1;
      const x = gaussian(vps * (n * 6 + 37), n + hop);
      const w = hann(n);
      const ref = refRows(x, n, hop, complex, w);
      const a = gpu.backend.createSpectrogram({ fft: n, hop, window: w, complex });
      const one = await a.push(x);
      expect(one.count).toBe(ref.count);
      expect(one.firstFrame).toBe(0);
      // as linear power, per frame: float32 rounding of a weak bin's dB is large in dB, not in power
      for (let f = 0; f < ref.count; f++) {
        const got = Array.from(one.rows.subarray(f * ref.width, (f + 1) * ref.width), (d) => 10 ** (d / 10));
        expect(
          relL2(got, ref.linear[f]),
          `n=${n} hop=${hop} ${complex ? 'complex' : 'real'} frame ${f}`,
        ).toBeLessThan(2e-5);
      }
      // the same stream in uneven pushes gives the same rows, bit for bit
      const b = gpu.backend.createSpectrogram({ fft: n, hop, window: w, complex });
      const parts = await pushAll(b, x, [vps * 5, vps * (n + 3), vps * (2 * n + 1), vps * (2 * n + 2)]);
      const joined = new Float32Array(parts.reduce((s, p) => s + p.rows.length, 0));
      let at = 0;
      let frame = 0;
      for (const p of parts) {
        expect(p.firstFrame).toBe(frame);
        frame += p.count;
        joined.set(p.rows, at);
        at += p.rows.length;
      }
      expect(joined).toEqual(one.rows);
      a.dispose();
      b.dispose();
    }
  }, 300_000);

  it('[needs-gpu] raw integers of every type give the rows of their values, whatever the scale', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    // the fused kernel keeps a power-of-two scale out of the samples (it goes into the power) and skips a zero
    // offset: each layout is checked against float64 rows of (raw − offset)·scale
    const layouts = [
      { make: (v: number) => Math.round(v * 6000), Type: Int16Array, offset: 0, scale: 1 / 32768 },
      { make: (v: number) => Math.round(v * 6000), Type: Int16Array, offset: 0, scale: 1 / 30000 },
      {
        make: (v: number) => Math.min(255, Math.max(0, Math.round(127.5 + 40 * v))),
        Type: Uint8Array,
        offset: 127.5,
        scale: 1 / 128,
      },
      {
        make: (v: number) => Math.min(255, Math.max(0, Math.round(127.5 + 40 * v))),
        Type: Uint8Array,
        offset: 127.5,
        scale: 1 / 127.5,
      },
      {
        make: (v: number) => Math.min(127, Math.max(-128, Math.round(40 * v))),
        Type: Int8Array,
        offset: 0,
        scale: 1 / 128,
      },
    ];
    for (const n of gpu.emulation ? [128] : [128, 4096])
      for (const complex of [false, true])
        for (const { make, Type, offset, scale } of layouts) {
          const hop = n / 4,
            vps = complex ? 2 : 1;
          const g = gaussian(vps * (n * 5 + 11), n + 7);
          const raw = new Type(g.length);
          for (let i = 0; i < g.length; i++) raw[i] = make(g[i]);
          const x = Float32Array.from(raw, (v) => (v - offset) * scale);
          const w = hann(n);
          const ref = refRows(x, n, hop, complex, w);
          const sp = gpu.backend.createSpectrogram({ fft: n, hop, window: w, complex });
          const r = await sp.push({ data: raw, offset, scale });
          sp.dispose();
          expect(r.count).toBe(ref.count);
          for (let f = 0; f < ref.count; f++) {
            const got = Array.from(
              r.rows.subarray(f * ref.width, (f + 1) * ref.width),
              (d) => 10 ** (d / 10),
            );
            expect(
              relL2(got, ref.linear[f]),
              `${Type.name} offset ${offset} scale ${scale} n=${n} ${complex ? 'complex' : 'real'} frame ${f}`,
            ).toBeLessThan(2e-5);
          }
        }
  }, 300_000);

  it('[needs-gpu] reads 0 dBFS for a full-scale sine and a unit complex exponential on a bin', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const n = 1024,
      k = 100;
    const real = new Float32Array(n);
    const cplx = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) {
      real[i] = Math.sin((2 * Math.PI * k * i) / n);
      cplx[2 * i] = Math.cos((2 * Math.PI * k * i) / n);
      cplx[2 * i + 1] = Math.sin((2 * Math.PI * k * i) / n);
    }
    const r = await gpu.backend
      .createSpectrogram({ fft: n, hop: n, window: hann(n), complex: false })
      .push(real);
    expect(r.rows[k]).toBeCloseTo(0, 3);
    const c = await gpu.backend
      .createSpectrogram({ fft: n, hop: n, window: hann(n), complex: true })
      .push(cplx);
    expect(c.rows[n / 2 + k]).toBeCloseTo(0, 3);
  });

  it('[needs-gpu] reduces to display columns, averages, holds peaks and converts raw integers', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const n = 128,
      hop = 32,
      columns = 10,
      alpha = 0.3;
    const g = gaussian(n * 8, 5);
    const raw = new Int16Array(g.length);
    for (let i = 0; i < g.length; i++) raw[i] = Math.max(-32768, Math.min(32767, Math.round(g[i] * 6000)));
    const x = Float32Array.from(raw, (v) => (v - 3) * (1 / 32768));
    const w = hann(n);
    const ref = refRows(x, n, hop, false, w, columns);
    const sp = gpu.backend.createSpectrogram({
      fft: n,
      hop,
      window: w,
      complex: false,
      columns,
      averaging: alpha,
      peakHold: true,
    });
    const half = raw.length / 2;
    const r1 = await sp.push({ data: raw.subarray(0, half), offset: 3, scale: 1 / 32768 });
    const r2 = await sp.push({ data: raw.subarray(half), offset: 3, scale: 1 / 32768 });
    expect(r1.width).toBe(columns);
    expect(r1.count + r2.count).toBe(ref.count);
    const rows = [...r1.rows, ...r2.rows];
    for (let f = 0; f < ref.count; f++) {
      const got = rows.slice(f * columns, (f + 1) * columns).map((d) => 10 ** (d / 10));
      expect(relL2(got, ref.linear[f]), `frame ${f}`).toBeLessThan(2e-5);
    }
    const avg = new Float64Array(columns);
    const peak = new Float64Array(columns).fill(-Infinity);
    for (let f = 0; f < ref.count; f++)
      for (let c = 0; c < columns; c++) {
        avg[c] = f === 0 ? ref.linear[f][c] : alpha * ref.linear[f][c] + (1 - alpha) * avg[c];
        peak[c] = Math.max(peak[c], ref.rows[f][c]);
      }
    for (let c = 0; c < columns; c++) {
      expect(Math.abs(r2.average![c] - 10 * Math.log10(avg[c]))).toBeLessThan(2e-3);
      expect(Math.abs(r2.peak![c] - peak[c])).toBeLessThan(2e-3);
    }
    sp.reset();
    const again = await sp.push({ data: raw, offset: 3, scale: 1 / 32768 });
    expect(again.firstFrame).toBe(0);
    expect(again.rows).toEqual(Float32Array.from(rows));
  });
});

describe('CUDA spectrogram, streamed', () => {
  it('[needs-gpu] a push of several pieces of rows equals small pushes: rows, average and peak hold', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    // a push of more than one piece of rows streams through the copy pipeline (pieces of 8 MB of rows;
    // here 1 MB, 16 KiB in the emulation, through setTuning's pieceBytes)
    const piece = gpu.emulation ? 1 << 14 : 1 << 20;
    await backend.ctx.setTuning({ pieceBytes: piece });
    try {
      for (const c of [
        { n: 64, hop: 16, complex: false, raw: false }, // fused, real
        { n: 128, hop: 32, complex: true, raw: true, columns: 50, averaging: 0.2, peakHold: true }, // fused, complex, i16
        { n: 48, hop: 12, complex: false, raw: false, averaging: 0.3, peakHold: true }, // framing + FFT plan + rows
        { n: 30, hop: 40, complex: true, raw: true, peakHold: true }, // hop > fft: samples skipped on the way in
        { n: 4096, hop: 1024, complex: false, raw: true, averaging: 0.1 }, // the benchmark's shape
      ]) {
        if (gpu.emulation && c.n > 256) continue;
        const vps = c.complex ? 2 : 1;
        const bins = c.complex ? c.n : c.n / 2 + 1;
        const width = c.columns ?? bins;
        const per = Math.max(1, Math.floor(piece / (4 * width))); // frames a piece
        const frames = Math.ceil(7.5 * per);
        const samples = (frames - 1) * c.hop + c.n + 5;
        const g = gaussian(samples * vps, c.n + c.hop);
        const raw = Int16Array.from(g, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 5000))));
        const input = (from: number, to: number) =>
          c.raw
            ? { data: raw.subarray(from * vps, to * vps), offset: 2, scale: 1 / 32768 }
            : g.subarray(from * vps, to * vps);
        const config = {
          fft: c.n,
          hop: c.hop,
          window: hann(c.n),
          complex: c.complex,
          columns: c.columns,
          averaging: c.averaging,
          peakHold: c.peakHold,
        };
        const run = async (cuts: number[]) => {
          const sp = backend.createSpectrogram(config);
          const parts: SpectrogramRows[] = [];
          let at = 0;
          for (const cut of [...cuts, samples]) {
            parts.push(await sp.push(input(at, cut)));
            at = cut;
          }
          sp.dispose();
          const rows = new Float32Array(parts.reduce((s, p) => s + p.rows.length, 0));
          let k = 0;
          for (const p of parts) {
            rows.set(p.rows, k);
            k += p.rows.length;
          }
          return { rows, parts, last: parts[parts.length - 1] };
        };
        // a short first push leaves kept samples for the streamed one; with hop > fft it ends between two
        // frames, so that the streamed push starts with a skip
        const first = c.hop > c.n ? c.n + Math.floor((c.hop - c.n) / 2) : c.n + Math.floor(c.hop / 2) + 3;
        const streamed = await run([first]);
        expect(streamed.parts[1].count, `n=${c.n}: streamed`).toBeGreaterThan(3 * per);
        const small: number[] = [];
        for (let at = first; at < samples; at += Math.max(1, Math.floor(per / 2)) * c.hop) small.push(at);
        const pushes = await run(small);
        const what = `n=${c.n} hop=${c.hop} ${c.complex ? 'complex' : 'real'}`;
        expect(streamed.rows.length, what).toBe(frames * width);
        expect(firstDifference(streamed.rows, pushes.rows), `${what} rows`).toBe(-1);
        if (c.averaging)
          expect(firstDifference(streamed.last.average!, pushes.last.average!), `${what} average`).toBe(-1);
        if (c.peakHold)
          expect(firstDifference(streamed.last.peak!, pushes.last.peak!), `${what} peak`).toBe(-1);
        // and the rows are levels, not garbage: frame 0 against float64
        const x = c.raw
          ? Float32Array.from(raw.subarray(0, c.n * vps), (v) => (v - 2) / 32768)
          : g.subarray(0, c.n * vps);
        const ref = refRows(x, c.n, c.hop, c.complex, config.window, c.columns);
        const got = Array.from(streamed.rows.subarray(0, width), (d) => 10 ** (d / 10));
        expect(relL2(got, ref.linear[0]), `${what} frame 0`).toBeLessThan(2e-5);
      }
    } finally {
      await backend.ctx.setTuning({});
    }
  }, 600_000);
});

describe('CUDA FIR', () => {
  const cases = [
    { taps: 7, channels: 1, complex: false, method: 'direct' as const },
    { taps: 31, channels: 2, complex: false, method: 'auto' as const },
    { taps: 101, channels: 1, complex: true, method: 'overlap-save' as const },
    { taps: 257, channels: 3, complex: false, method: 'overlap-save' as const },
    { taps: 1023, channels: 1, complex: true, method: 'auto' as const },
  ];
  it('[needs-gpu] equals lfilter in float64 and is bit-identical whatever the block sizes', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    for (const c of cases) {
      if (gpu.emulation && c.taps > 300) continue;
      const lanes = c.channels * (c.complex ? 2 : 1);
      const frames = 9000;
      const x = gaussian(frames * lanes, c.taps);
      const taps = Float64Array.from(gaussian(c.taps, 77), (v) => v / c.taps);
      const ref = lfilter(taps, x, lanes);
      const run = async (cuts: number[]) => {
        const f = gpu.backend!.createFir({
          taps,
          complex: c.complex,
          channels: c.channels,
          method: c.method,
        });
        const outs: Float32Array[] = [];
        let at = 0;
        let pushed = 0,
          returned = 0;
        for (const cut of [...cuts, frames]) {
          const o = await f.process(x.subarray(at * lanes, cut * lanes));
          pushed += cut - at;
          returned += o.length / lanes;
          expect(f.pending).toBe(pushed - returned);
          if (f.method === 'direct') expect(f.pending).toBe(0);
          outs.push(o);
          at = cut;
        }
        outs.push(await f.flush());
        expect(f.pending).toBe(0);
        f.dispose();
        const y = new Float32Array(outs.reduce((s, o) => s + o.length, 0));
        let k = 0;
        for (const o of outs) {
          y.set(o, k);
          k += o.length;
        }
        return y;
      };
      const a = await run([]);
      const b = await run([1, 333, 334, 5000, 8191]);
      expect(a.length).toBe(x.length);
      expect(relL2(a, ref), `${c.taps} taps`).toBeLessThan(1e-6);
      expect(b).toEqual(a);
    }
  }, 300_000);

  it('[needs-gpu] filters made after one with the same taps reuse its spectrum and stay exact', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    // The device keeps filter spectra by their values, layout and sign: A, B, then A again (real and complex,
    // whose layouts differ) must each equal lfilter of their own taps.
    const frames = 6000;
    const n = gpu.emulation ? 61 : 301;
    const a = Float64Array.from(gaussian(n, 5), (v) => v / n);
    const b = Float64Array.from(a, (v, i) => (i === n >> 1 ? v + 0.25 : v));
    for (const complex of [false, true, false]) {
      const lanes = complex ? 2 : 1;
      const x = gaussian(frames * lanes, 9);
      for (const taps of [a, b, a]) {
        const f = gpu.backend.createFir({ taps, complex, channels: 1, method: 'overlap-save' });
        const y = new Float32Array(frames * lanes);
        const first = await f.process(x);
        y.set(first);
        y.set(await f.flush(), first.length);
        f.dispose();
        expect(relL2(y, lfilter(taps, x, lanes))).toBeLessThan(1e-6);
      }
    }
  }, 300_000);

  it('[needs-gpu] 8192-point segments: the wide (32 elements a thread), narrow (16) and split (two 4096-point halves, complex) kernels all equal lfilter and the correlation in float64', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    // 2047 taps complex and 4095 real run 8192-point complex FFTs a segment (os_kernel.cuh; osMinH holds the real
    // one there, whose measured choice is 4096), as do templates of 4096; osWide picks the kernel per kind (1 complex
    // FIR, 2 real FIR, 4 correlation), osSplit the complex kernel of two halves (1 FIR, 4 correlation) before it
    const frames = 12_000;
    const outs = new Map<string, Float32Array>();
    try {
      for (const [kind, tuning] of [
        ['narrow', { osWide: 0, osSplit: 0 }],
        ['wide', { osWide: 7, osSplit: 0 }],
        ['split', { osWide: 0, osSplit: 5 }],
      ] as const) {
        await gpu.backend.ctx.setTuning({ ...tuning, osMinH: 8192 });
        for (const { m, complex } of [
          { m: 2047, complex: true },
          { m: 4095, complex: false },
        ]) {
          const lanes = complex ? 2 : 1;
          const x = gaussian(frames * lanes, m + 9);
          const taps = Float64Array.from(gaussian(m, m + 10), (v) => v / Math.sqrt(m));
          const f = gpu.backend.createFir({ taps, complex, channels: 1, method: 'overlap-save' });
          const a = await f.process(x);
          const b = await f.flush();
          f.dispose();
          const y = new Float32Array(a.length + b.length);
          y.set(a);
          y.set(b, a.length);
          expect(relL2(y, lfilter(taps, x, lanes)), `FIR ${m} taps, ${kind}`).toBeLessThan(1e-6);
          outs.set(`fir ${m} ${kind}`, y);
        }
        for (const complex of [true, false]) {
          const m = 4096,
            vps = complex ? 2 : 1;
          const t = gaussian(m * vps, 41);
          const x = gaussian(frames * vps, 42);
          const c = gpu.backend.createCorrelator({ template: t, complex, scores: true });
          const r = await c.process(x);
          const last = await c.flush();
          c.dispose();
          const scores = Float32Array.from([...r.scores!, ...last.scores!]);
          const ref = correlationScores(x, t, complex);
          expect(scores.length).toBe(ref.length);
          let worst = 0;
          for (let l = 0; l < ref.length; l++) worst = Math.max(worst, Math.abs(scores[l] - ref[l]));
          expect(worst, `correlation ${complex ? 'complex' : 'real'}, ${kind}`).toBeLessThan(2e-4);
          outs.set(`corr ${complex} ${kind}`, scores);
        }
      }
    } finally {
      await gpu.backend.ctx.setTuning({});
    }
    // the kernels round differently (radix 32·16·16, 2·16·16·16, 16·16·16 twice and a folded radix 2): the knobs did
    // switch kernels; the split one is complex only, so the real streams keep the narrow kernel
    for (const k of ['fir 2047', 'fir 4095', 'corr true', 'corr false'])
      expect(firstDifference(outs.get(`${k} narrow`)!, outs.get(`${k} wide`)!), k).toBeGreaterThanOrEqual(0);
    for (const k of ['fir 2047', 'corr true'])
      expect(firstDifference(outs.get(`${k} narrow`)!, outs.get(`${k} split`)!), k).toBeGreaterThanOrEqual(0);
    for (const k of ['fir 4095', 'corr false'])
      expect(outs.get(`${k} split`), k).toEqual(outs.get(`${k} narrow`));
  }, 600_000);

  it('[needs-gpu] streams a block of several 8 MB pieces through the copy pipeline, equal to small blocks', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const cases = [
      { taps: 31, complex: false, method: 'auto' as const, frames: 2_500_000 },
      { taps: 255, complex: true, method: 'overlap-save' as const, frames: 1_300_000 },
      { taps: 9, complex: false, method: 'direct' as const, frames: 2_200_000 },
    ];
    for (const c of cases) {
      const lanes = c.complex ? 2 : 1;
      const x = gaussian(c.frames * lanes, c.taps + 5);
      const taps = Float64Array.from(gaussian(c.taps, 78), (v) => v / c.taps);
      const run = async (block: number) => {
        const f = gpu.backend!.createFir({ taps, complex: c.complex, channels: 1, method: c.method });
        const y = new Float32Array(x.length);
        let k = 0;
        for (let at = 0; at < c.frames; at += block) {
          const o = await f.process(x.subarray(at * lanes, Math.min(c.frames, at + block) * lanes));
          y.set(o, k);
          k += o.length;
        }
        y.set(await f.flush(), k);
        f.dispose();
        return y;
      };
      // one block: more than 8 MB of output, streamed; blocks of 2^18 frames: one piece each
      const whole = await run(c.frames);
      const pieces = await run(1 << 18);
      expect(whole, `${c.taps} taps`).toEqual(pieces);
      expect(relL2(whole, lfilter(taps, x, lanes)), `${c.taps} taps`).toBeLessThan(1e-6);
    }
    // raw u8 complex samples (a quarter of the bytes up): the same as their float values
    const raw = Uint8Array.from(gaussian(2 * 1_200_000, 4), (v) =>
      Math.max(0, Math.min(255, Math.round(127.5 + 40 * v))),
    );
    const xf = Float32Array.from(raw, (v) => (v - 127.5) / 128);
    const taps = Float64Array.from({ length: 64 }, (_, i) => Math.exp(-((i - 32) ** 2) / 50) / 10);
    const f = gpu.backend.createFir({ taps, complex: true, channels: 1, method: 'overlap-save' });
    const y1 = await f.process({ data: raw, offset: 127.5, scale: 1 / 128 });
    const y = new Float32Array(xf.length);
    y.set(y1);
    y.set(await f.flush(), y1.length);
    f.dispose();
    expect(relL2(y, lfilter(taps, xf, 2))).toBeLessThan(1e-6);
  }, 300_000);

  it('[needs-gpu] filters raw u8 samples as (x − offset)·scale and device arrays', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const raw = Uint8Array.from(gaussian(4000, 3), (v) =>
      Math.max(0, Math.min(255, Math.round(127.5 + 40 * v))),
    );
    const x = Float32Array.from(raw, (v) => (v - 127.5) / 128);
    const taps = Float64Array.from({ length: 64 }, (_, i) => Math.exp(-((i - 32) ** 2) / 50) / 10);
    const ref = lfilter(taps, x, 2);
    const f = gpu.backend.createFir({ taps, complex: true, channels: 1, method: 'overlap-save' });
    const y1 = await f.process({ data: raw, offset: 127.5, scale: 1 / 128 });
    const y2 = await f.flush();
    const y = new Float32Array(x.length);
    y.set(y1);
    y.set(y2, y1.length);
    expect(relL2(y, ref)).toBeLessThan(1e-6);
    const g = gpu.backend.createFir({ taps, complex: true, channels: 1, method: 'direct' });
    const dev = await gpu.backend.upload(x);
    const z = await g.process(dev);
    expect(relL2(z, ref)).toBeLessThan(1e-6);
    await expect(g.process(new Float32Array(3))).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});

describe('CUDA correlator', () => {
  const cases = [
    { m: 16, complex: false },
    { m: 20, complex: true },
    { m: 300, complex: false },
    { m: 300, complex: true },
    { m: 4096, complex: false },
    { m: 4096, complex: true }, // 8192-point segments: the split kernel, its energies after the transforms
  ];
  it('[needs-gpu] scores match float64, peaks find the planted template, results do not depend on block sizes', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    for (const { m, complex } of cases) {
      if (gpu.emulation && m > 300) continue;
      const vps = complex ? 2 : 1;
      const n = Math.max(6000, 3 * m + 2000);
      const t = gaussian(m * vps, m + 1);
      const x = gaussian(n * vps, m + 2).map((v) => 0.5 * v);
      const at = [700, n - m - 500];
      for (const a of at) for (let i = 0; i < m * vps; i++) x[a * vps + i] += t[i];
      x.fill(0, 1500 * vps, (1500 + m + 40) * vps); // silence longer than the template: scores 0 there
      const ref = correlationScores(x, t, complex);
      const run = async (cuts: number[]) => {
        const c = gpu.backend!.createCorrelator({ template: t, complex, scores: true, peaks: 2 });
        const scores: number[] = [];
        const peaks: number[] = [];
        let next = 0,
          from = 0;
        for (const cut of [...cuts, n]) {
          const r = await c.process(x.subarray(from * vps, cut * vps));
          expect(r.startLag).toBe(next);
          next += r.count;
          scores.push(...r.scores!);
          from = cut;
        }
        const last = await c.flush();
        expect(last.startLag).toBe(next);
        scores.push(...last.scores!);
        // peaks over the whole signal: one call
        const d = gpu.backend!.createCorrelator({ template: t, complex, peaks: 2 });
        await d.process(x);
        const all = await d.flush();
        const first = await gpu.backend!.createCorrelator({ template: t, complex, peaks: 2 }).process(x);
        for (const p of [...first.peaks, ...all.peaks]) peaks.push(p.lag);
        return { scores: Float32Array.from(scores), peaks };
      };
      const a = await run([]);
      const b = await run([m - 1, m + 5, 2 * m + 17, 3000].filter((c) => c < n).sort((p, q) => p - q));
      expect(a.scores.length).toBe(ref.length);
      let worst = 0;
      for (let l = 0; l < ref.length; l++) worst = Math.max(worst, Math.abs(a.scores[l] - ref[l]));
      expect(worst, `m=${m} ${complex ? 'complex' : 'real'}`).toBeLessThan(2e-4);
      expect(a.scores[1500 + 10]).toBe(0);
      expect(b.scores).toEqual(a.scores);
      expect(new Set(a.peaks.filter((p) => at.includes(p))).size).toBe(2);
    }
  }, 300_000);

  it('[needs-gpu] streams a block of several 8 MB pieces of scores, equal to small blocks', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    for (const { m, complex, n } of [
      { m: 300, complex: false, n: 2_500_000 },
      { m: 257, complex: true, n: 2_200_000 },
    ]) {
      const vps = complex ? 2 : 1;
      const t = gaussian(m * vps, m + 3);
      const x = gaussian(n * vps, m + 4).map((v) => 0.5 * v);
      const at = [1000, 2_100_001];
      for (const a of at) for (let i = 0; i < m * vps; i++) x[a * vps + i] += t[i];
      const run = async (block: number) => {
        const c = gpu.backend!.createCorrelator({ template: t, complex, scores: true, peaks: 2 });
        const scores = new Float32Array(n - m + 1);
        const peaks: number[] = [];
        let k = 0;
        for (let from = 0; from < n; from += block) {
          const r = await c.process(x.subarray(from * vps, Math.min(n, from + block) * vps));
          scores.set(r.scores!, k);
          k += r.count;
          for (const p of r.peaks) peaks.push(p.lag);
        }
        const last = await c.flush();
        scores.set(last.scores!, k);
        return { scores, peaks };
      };
      const whole = await run(n);
      const pieces = await run(1 << 18);
      expect(whole.scores).toEqual(pieces.scores);
      const ref = correlationScores(x, t, complex);
      let worst = 0;
      for (let l = 0; l < ref.length; l++) worst = Math.max(worst, Math.abs(whole.scores[l] - ref[l]));
      expect(worst, `m=${m} ${complex ? 'complex' : 'real'}`).toBeLessThan(2e-4);
      expect(whole.peaks).toEqual(expect.arrayContaining(at));
    }
  }, 300_000);
});

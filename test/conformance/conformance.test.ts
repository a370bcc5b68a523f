// The backend conformance suite: every backend of backends.ts against float64 references (reference.ts) on
// seeded random data. Tolerances are the entry's (relative L2, 1e-6 for FP32 backends); derived quantities
// say how they follow from it where they differ.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { Backend, SpectrogramConfig } from '../../electron/engine/backends/backend.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import type { RawSamples } from '../../electron/engine/types.js';
import { missingNote, webgpuAdapter } from '../support/requirements.js';
import { backends, needsGpu } from './backends.js';
import {
  referenceCorrelation,
  referenceFft,
  referenceIrfft,
  referenceLfilter,
  referenceRfft,
  referenceSpectrogram,
  type ReferenceSpectrogramOptions,
} from './reference.js';
import { concat, maxAbsDiff, randomBlocks, randomF32, randomInts, relL2, toF64 } from './util.js';

const FFT_SIZES = [1, 2, 3, 5, 7, 8, 16, 48, 64, 100, 360, 1000, 1024, 4096, 44100, 48000, 65536, 65537];
const batchFor = (n: number) => (n <= 4096 ? 3 : 2);

// References are shared by every backend entry: compute each once.
const memo = new Map<string, Float64Array[]>();
function memoized(key: string, make: () => Float64Array[]): Float64Array[] {
  let v = memo.get(key);
  if (v === undefined) {
    v = make();
    memo.set(key, v);
  }
  return v;
}

function fftCase(n: number, inverse: boolean): { x: Float32Array; refs: Float64Array[] } {
  const batch = batchFor(n);
  const x = randomF32(2 * n * batch, 1000 + n);
  const refs = memoized(`fft ${n} ${inverse}`, () => {
    const out: Float64Array[] = [];
    for (let b = 0; b < batch; b++)
      out.push(referenceFft(toF64(x.subarray(2 * n * b, 2 * n * (b + 1))), inverse));
    return out;
  });
  return { x, refs };
}

function hann(n: number): Float32Array {
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return w;
}

function dbToLinear(db: ArrayLike<number>, from = 0, length = db.length): Float64Array {
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) out[i] = 10 ** (db[from + i] / 10);
  return out;
}

function decode(raw: RawSamples): Float64Array {
  const out = new Float64Array(raw.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (raw.data[i] - raw.offset) * raw.scale;
  return out;
}

for (const entry of backends) {
  const label = needsGpu(entry) ? `${entry.name} [needs-gpu]` : entry.name;
  const tol = entry.tolerance;

  describe(`conformance: ${label}`, () => {
    let backend: Backend | null = null;
    let reason = '';
    beforeAll(async () => {
      const opened = await entry.open();
      if ('unavailable' in opened) reason = opened.unavailable;
      else backend = opened;
    });
    afterAll(async () => {
      await backend?.dispose();
    });
    const get = (ctx: TestContext): Backend => {
      if (backend === null) {
        ctx.skip(
          entry.name === 'webgpu'
            ? missingNote(webgpuAdapter(false, reason))
            : `${entry.name} is not available here: ${reason}`,
        );
      }
      return backend!;
    };

    // -------------------------------------------------------------------------------------------
    describe('fft', () => {
      for (const n of FFT_SIZES) {
        it(`forward and inverse, n = ${n}, batch ${batchFor(n)}`, async (ctx) => {
          const b = get(ctx);
          for (const inverse of [false, true]) {
            const { x, refs } = fftCase(n, inverse);
            const y = await b.fft(x, n, { inverse });
            expect(y.length).toBe(x.length);
            for (let k = 0; k < refs.length; k++) {
              expect(
                relL2(y, refs[k], 2 * n * k, 2 * n, 0),
                `batch item ${k}, inverse ${inverse}`,
              ).toBeLessThanOrEqual(tol);
            }
          }
        });
      }

      it('round trip ifft(fft(x)) = x for a batch of non-powers of two', async (ctx) => {
        const b = get(ctx);
        for (const n of [3, 100, 1000, 48000]) {
          const x = randomF32(2 * n * 2, 77 + n);
          const back = await b.fft(await b.fft(x, n), n, { inverse: true });
          expect(relL2(back, x)).toBeLessThanOrEqual(2 * tol);
        }
      });

      it('accepts a DeviceArray and honours `out`', async (ctx) => {
        const b = get(ctx);
        const n = 1000;
        const { x, refs } = fftCase(n, false);
        const dev = await b.upload(x);
        expect(dev.length).toBe(x.length);
        const out = new Float32Array(x.length);
        const y = await b.fft(dev, n, { out });
        expect(y).toBe(out);
        for (let k = 0; k < refs.length; k++)
          expect(relL2(out, refs[k], 2 * n * k, 2 * n, 0)).toBeLessThanOrEqual(tol);
        expect(await dev.download()).toEqual(x);
        dev.free();
      });

      it('refuses sizes and lengths that do not fit', async (ctx) => {
        const b = get(ctx);
        await expect(b.fft(new Float32Array(10), 0)).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(b.fft(new Float32Array(10), 1.5)).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(b.fft(new Float32Array(10), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(b.rfft(new Float32Array(10), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(b.irfft(new Float32Array(10), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(b.fft(new Float32Array(16), 4, { out: new Float32Array(8) })).rejects.toBeInstanceOf(
          InvalidArgumentError,
        );
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('rfft / irfft', () => {
      for (const n of [1, 2, 3, 7, 16, 100, 1000, 1024, 4095, 48000]) {
        it(`n = ${n}: rfft and irfft against numpy semantics, round trip`, async (ctx) => {
          const b = get(ctx);
          const batch = 3;
          const bins = Math.floor(n / 2) + 1;
          const x = randomF32(n * batch, 5000 + n);
          const X = await b.rfft(x, n);
          expect(X.length).toBe(2 * bins * batch);
          const spectra = randomF32(2 * bins * batch, 6000 + n);
          const y = await b.irfft(spectra, n);
          expect(y.length).toBe(n * batch);
          for (let k = 0; k < batch; k++) {
            const ref = memoized(`rfft ${n} ${k}`, () => [
              referenceRfft(toF64(x.subarray(n * k, n * (k + 1)))),
              referenceIrfft(toF64(spectra.subarray(2 * bins * k, 2 * bins * (k + 1))), n),
            ]);
            expect(relL2(X, ref[0], 2 * bins * k, 2 * bins, 0)).toBeLessThanOrEqual(tol);
            expect(relL2(y, ref[1], n * k, n, 0)).toBeLessThanOrEqual(tol);
          }
          const back = await b.irfft(X, n);
          expect(relL2(back, x)).toBeLessThanOrEqual(2 * tol);
        });
      }
    });

    // -------------------------------------------------------------------------------------------
    describe('spectrogram', () => {
      // Levels come back in float32 dB: rounding a level of −L dB to float32 moves the power by up to
      // ≈ L·6e-8·ln(10)/10 relative, about 1e-6 at −100 dB, so rows are compared as linear power with
      // 20 × the entry's tolerance.
      const rowTol = 20 * tol;

      async function check(
        b: Backend,
        input: Float32Array | RawSamples,
        decoded: Float64Array,
        cfg: SpectrogramConfig,
      ): Promise<void> {
        const spec = b.createSpectrogram(cfg);
        const res = await spec.push(input);
        const refOpts: ReferenceSpectrogramOptions = {
          fft: cfg.fft,
          hop: cfg.hop,
          window: cfg.window,
          complex: cfg.complex,
          columns: cfg.columns,
          averaging: cfg.averaging,
        };
        const ref = referenceSpectrogram(decoded, refOpts);
        expect(res.count).toBe(ref.rows.length);
        expect(res.count).toBeGreaterThan(0);
        expect(res.width).toBe(spec.width);
        expect(res.firstFrame).toBe(0);
        expect(res.rows.length).toBe(res.count * res.width);
        for (let f = 0; f < res.count; f++) {
          expect(
            relL2(dbToLinear(res.rows, f * res.width, res.width), ref.rows[f]),
            `frame ${f}`,
          ).toBeLessThanOrEqual(rowTol);
        }
        if (cfg.averaging !== undefined) {
          expect(res.average).toBeDefined();
          expect(relL2(dbToLinear(res.average!), ref.average!)).toBeLessThanOrEqual(rowTol);
        }
        if (cfg.peakHold) {
          const peakRef = new Float64Array(res.width).fill(0);
          for (const row of ref.rows)
            for (let c = 0; c < row.length; c++) peakRef[c] = Math.max(peakRef[c], row[c]);
          expect(relL2(dbToLinear(res.peak!), peakRef)).toBeLessThanOrEqual(rowTol);
        }
        spec.dispose();
      }

      it('real input, n = 1000 (not a power of two), hann window, hop 300', async (ctx) => {
        const b = get(ctx);
        const x = randomF32(1000 + 300 * 19 + 123, 11);
        await check(b, x, toF64(x), { fft: 1000, hop: 300, window: hann(1000), complex: false });
      });

      it('real input, n = 4096, columns, averaging and peak hold', async (ctx) => {
        const b = get(ctx);
        const x = randomF32(4096 + 1024 * 12, 12);
        await check(b, x, toF64(x), {
          fft: 4096,
          hop: 1024,
          window: hann(4096),
          complex: false,
          columns: 300,
          averaging: 0.3,
          peakHold: true,
        });
      });

      it('complex input in fftshift order, odd n = 255, with and without columns', async (ctx) => {
        const b = get(ctx);
        const x = randomF32(2 * (255 + 100 * 30), 13);
        await check(b, x, toF64(x), { fft: 255, hop: 100, window: hann(255), complex: true });
        await check(b, x, toF64(x), {
          fft: 255,
          hop: 100,
          window: hann(255),
          complex: true,
          columns: 64,
          peakHold: true,
        });
      });

      it('raw cu8 (rtl_sdr) complex input decoded as (x − 127.5)/127.5', async (ctx) => {
        const b = get(ctx);
        const rnd = randomInts(14);
        const data = new Uint8Array(2 * (512 + 256 * 20));
        for (let i = 0; i < data.length; i++) data[i] = rnd(0, 255);
        const raw: RawSamples = { data, offset: 127.5, scale: 1 / 127.5 };
        await check(b, raw, decode(raw), {
          fft: 512,
          hop: 256,
          window: hann(512),
          complex: true,
          averaging: 0.5,
        });
      });

      it('raw int16 real input decoded as x / 32768', async (ctx) => {
        const b = get(ctx);
        const rnd = randomInts(15);
        const data = new Int16Array(2048 + 512 * 10);
        for (let i = 0; i < data.length; i++) data[i] = rnd(-32768, 32767);
        const raw: RawSamples = { data, offset: 0, scale: 1 / 32768 };
        await check(b, raw, decode(raw), {
          fft: 2048,
          hop: 512,
          window: hann(2048),
          complex: false,
          columns: 100,
        });
      });

      it('reads 0 dBFS for a full-scale sine (real) and a unit complex exponential (complex)', async (ctx) => {
        const b = get(ctx);
        const n = 1024;
        const k0 = 100;
        const real = new Float32Array(n);
        const cplx = new Float32Array(2 * n);
        for (let i = 0; i < n; i++) {
          real[i] = Math.sin((2 * Math.PI * k0 * i) / n);
          cplx[2 * i] = Math.cos((2 * Math.PI * k0 * i) / n);
          cplx[2 * i + 1] = Math.sin((2 * Math.PI * k0 * i) / n);
        }
        const r = await b.createSpectrogram({ fft: n, hop: n, window: hann(n), complex: false }).push(real);
        expect(r.rows[k0]).toBeCloseTo(0, 3);
        const c = await b.createSpectrogram({ fft: n, hop: n, window: hann(n), complex: true }).push(cplx);
        expect(c.rows[n / 2 + k0]).toBeCloseTo(0, 3);
      });

      it('reports floorDb for silence', async (ctx) => {
        const b = get(ctx);
        const spec = b.createSpectrogram({
          fft: 64,
          hop: 64,
          window: hann(64),
          complex: false,
          floorDb: -150,
        });
        const r = await spec.push(new Float32Array(128));
        expect(r.count).toBe(2);
        expect(Array.from(r.rows).every((v) => v === -150)).toBe(true);
      });

      it('frames start at multiples of hop across pushes, also when hop > fft', async (ctx) => {
        const b = get(ctx);
        const x = randomF32(10_000, 16);
        for (const [n, hop] of [
          [256, 100],
          [100, 333],
        ]) {
          const cfg: SpectrogramConfig = { fft: n, hop, window: hann(n), complex: false };
          const ref = referenceSpectrogram(toF64(x), { fft: n, hop, window: hann(n), complex: false });
          const spec = b.createSpectrogram(cfg);
          let next = 0;
          for (const [from, to] of [
            [0, 50],
            [50, 3000],
            [3000, 3001],
            [3001, 10_000],
          ]) {
            const r = await spec.push(x.subarray(from, to));
            expect(r.firstFrame).toBe(next);
            for (let f = 0; f < r.count; f++) {
              expect(relL2(dbToLinear(r.rows, f * r.width, r.width), ref.rows[next + f])).toBeLessThanOrEqual(
                rowTol,
              );
            }
            next += r.count;
          }
          expect(next).toBe(ref.rows.length);
          spec.reset();
          expect((await spec.push(x.subarray(0, n))).firstFrame).toBe(0);
        }
      });

      it('streaming: one block or many random blocks give identical rows, averages and peaks', async (ctx) => {
        const b = get(ctx);
        for (const complex of [false, true]) {
          const vps = complex ? 2 : 1;
          const x = randomF32(vps * 40_000, 17 + vps);
          const cfg: SpectrogramConfig = {
            fft: 1000,
            hop: 250,
            window: hann(1000),
            complex,
            columns: 200,
            averaging: 0.25,
            peakHold: true,
          };
          const whole = await b.createSpectrogram(cfg).push(x);
          const spec = b.createSpectrogram(cfg);
          const rows: Float32Array[] = [];
          let last = whole;
          let at = 0;
          for (const size of randomBlocks(x.length, vps, 99 + vps)) {
            last = await spec.push(x.subarray(at, at + size));
            rows.push(last.rows);
            at += size;
          }
          expect(concat(rows)).toEqual(whole.rows);
          expect(last.average).toEqual(whole.average);
          expect(last.peak).toEqual(whole.peak);
        }
      });

      it('refuses invalid configurations', (ctx) => {
        const b = get(ctx);
        const w = hann(64);
        const bad: SpectrogramConfig[] = [
          { fft: 0, hop: 1, window: new Float32Array(0), complex: false },
          { fft: 64, hop: 0, window: w, complex: false },
          { fft: 64, hop: 16, window: hann(63), complex: false },
          { fft: 64, hop: 16, window: w, complex: false, columns: 34 },
          { fft: 64, hop: 16, window: w, complex: false, averaging: 0 },
        ];
        for (const cfg of bad) expect(() => b.createSpectrogram(cfg)).toThrow(InvalidArgumentError);
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('fir', () => {
      for (const numtaps of [1, 2, 31, 255, 1023, 4095]) {
        it(`numtaps = ${numtaps}: direct and overlap-save equal lfilter`, async (ctx) => {
          const b = get(ctx);
          const taps = randomF32(numtaps, 200 + numtaps);
          const x = randomF32(2 * numtaps + 3000, 300 + numtaps);
          const ref = memoized(`lfilter ${numtaps}`, () => [referenceLfilter(taps, x, 1)])[0];
          for (const method of ['direct', 'overlap-save', 'auto'] as const) {
            const fir = b.createFir({ taps, complex: false, channels: 1, method });
            expect(fir.numtaps).toBe(numtaps);
            if (method !== 'auto') expect(fir.method).toBe(method);
            const y = concat([await fir.process(x), await fir.flush()]);
            expect(y.length).toBe(x.length);
            expect(relL2(y, ref), method).toBeLessThanOrEqual(tol);
            fir.dispose();
          }
        });
      }

      it('filters each lane of multi-channel and complex input on its own', async (ctx) => {
        const b = get(ctx);
        for (const [channels, complex, numtaps] of [
          [2, true, 63],
          [3, false, 100],
        ] as const) {
          const lanes = channels * (complex ? 2 : 1);
          const taps = randomF32(numtaps, 400 + lanes);
          const x = randomF32(lanes * 5000, 500 + lanes);
          const ref = referenceLfilter(taps, x, lanes);
          for (const method of ['direct', 'overlap-save'] as const) {
            const fir = b.createFir({ taps, complex, channels, method });
            const y = concat([await fir.process(x), await fir.flush()]);
            expect(y.length).toBe(x.length);
            for (let v = 0; v < lanes; v++) {
              const got = new Float64Array(5000);
              const want = new Float64Array(5000);
              for (let f = 0; f < 5000; f++) {
                got[f] = y[f * lanes + v];
                want[f] = ref[f * lanes + v];
              }
              expect(relL2(got, want), `${method} lane ${v}`).toBeLessThanOrEqual(tol);
            }
          }
        }
      });

      it('accepts DeviceArray and raw int16 blocks', async (ctx) => {
        const b = get(ctx);
        const taps = randomF32(31, 601);
        const rnd = randomInts(602);
        const data = new Int16Array(4000);
        for (let i = 0; i < data.length; i++) data[i] = rnd(-32768, 32767);
        const raw: RawSamples = { data, offset: 0, scale: 1 / 32768 };
        const ref = referenceLfilter(taps, decode(raw), 1);
        const fir = b.createFir({ taps, complex: false, channels: 1 });
        const y1 = await fir.process(raw);
        fir.reset();
        const dev = await b.upload(Float32Array.from(decode(raw)));
        const y2 = concat([await fir.process(dev), await fir.flush()]);
        const y1all = concat([y1]);
        expect(relL2(y2, ref)).toBeLessThanOrEqual(tol);
        expect(relL2(y1all, ref, 0, y1all.length)).toBeLessThanOrEqual(tol);
        dev.free();
      });

      it('streaming: one block or many random blocks give bit-identical output; pending counts held frames', async (ctx) => {
        const b = get(ctx);
        for (const method of ['direct', 'overlap-save'] as const) {
          for (const numtaps of [31, 1023]) {
            const lanes = 4;
            const taps = randomF32(numtaps, 700 + numtaps);
            const x = randomF32(lanes * 30_000, 800 + numtaps);
            const cfg = { taps, complex: true, channels: 2, method };
            const one = b.createFir(cfg);
            const whole = concat([await one.process(x), await one.flush()]);
            const fir = b.createFir(cfg);
            const parts: Float32Array[] = [];
            let at = 0;
            for (const size of randomBlocks(x.length, lanes, 900 + numtaps)) {
              const y = await fir.process(x.subarray(at, at + size));
              at += size;
              parts.push(y);
              const returned = parts.reduce((s, p) => s + p.length, 0) / lanes;
              expect(fir.pending).toBe(at / lanes - returned);
              if (method === 'direct') expect(fir.pending).toBe(0);
            }
            parts.push(await fir.flush());
            expect(fir.pending).toBe(0);
            expect(concat(parts)).toEqual(whole);
          }
        }
      });

      it('refuses invalid configurations and inputs', async (ctx) => {
        const b = get(ctx);
        expect(() => b.createFir({ taps: new Float32Array(0), complex: false, channels: 1 })).toThrow(
          InvalidArgumentError,
        );
        expect(() => b.createFir({ taps: new Float32Array(3), complex: false, channels: 0 })).toThrow(
          InvalidArgumentError,
        );
        const fir = b.createFir({ taps: new Float32Array([1, 2]), complex: true, channels: 1 });
        await expect(fir.process(new Float32Array(3))).rejects.toBeInstanceOf(InvalidArgumentError);
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('correlation', () => {
      // Scores are |c| / (‖t‖·‖x‖) ∈ [0, 1]; an FFT error of relative size ε in c moves a score by at most
      // ≈ ε·√(lags covered by the segment), so scores are compared with 10 × the entry's tolerance.
      const scoreTol = 10 * tol;

      for (const [m, complex] of [
        [1, false],
        [5, false],
        [16, false],
        [17, false],
        [300, false],
        [4096, false],
        [7, true],
        [1000, true],
      ] as const) {
        it(`template ${m} ${complex ? 'complex' : 'real'}: scores equal the direct computation, planted copy found`, async (ctx) => {
          const b = get(ctx);
          const vps = complex ? 2 : 1;
          const t = randomF32(vps * m, 1100 + m);
          const n = 3 * m + 2000;
          const x = randomF32(vps * n, 1200 + m);
          for (let i = 0; i < x.length; i++) x[i] *= 0.1;
          const lag0 = m + 517;
          for (let i = 0; i < vps * m; i++) x[vps * lag0 + i] += t[i];
          const ref = memoized(`corr ${m} ${complex}`, () => [referenceCorrelation(x, t, complex)])[0];
          const corr = b.createCorrelator({ template: t, complex, scores: true, peaks: 3 });
          expect(corr.templateLength).toBe(m);
          const c1 = await corr.process(x);
          const c2 = await corr.flush();
          expect(c1.startLag).toBe(0);
          expect(c2.startLag).toBe(c1.count);
          expect(c1.count + c2.count).toBe(n - m + 1);
          const scores = concat([c1.scores!, c2.scores!]);
          expect(maxAbsDiff(scores, ref)).toBeLessThanOrEqual(scoreTol);
          if (m >= 5) {
            const best = [...c1.peaks, ...c2.peaks].sort((a, c) => c.score - a.score)[0];
            expect(best.lag).toBe(lag0);
            expect(best.score).toBeGreaterThan(0.95);
            expect(Math.abs(best.score - ref[lag0])).toBeLessThanOrEqual(scoreTol);
          }
          corr.dispose();
        });
      }

      it('scores 0 where the signal window is silent', async (ctx) => {
        const b = get(ctx);
        for (const m of [8, 500]) {
          const t = randomF32(m, 1300 + m);
          const x = randomF32(6000, 1400 + m);
          x.fill(0, 2000, 3500);
          const corr = b.createCorrelator({ template: t, complex: false, scores: true });
          const s = concat([(await corr.process(x)).scores!, (await corr.flush()).scores!]);
          for (let l = 2000; l + m <= 3500; l++) expect(s[l]).toBe(0);
          expect(s[100]).toBeGreaterThan(0);
        }
      });

      it('peaks are distinct (±peakRadius), strongest first, at most the number asked', async (ctx) => {
        const b = get(ctx);
        const m = 64;
        const t = randomF32(m, 1500);
        const x = randomF32(20_000, 1501);
        for (let i = 0; i < x.length; i++) x[i] *= 0.05;
        const plants = [1000, 1040, 5000, 12_000];
        const gains = [1, 0.8, 0.9, 0.7];
        plants.forEach((p, j) => {
          for (let i = 0; i < m; i++) x[p + i] += gains[j] * t[i];
        });
        const corr = b.createCorrelator({ template: t, complex: false, peaks: 3, peakRadius: 100 });
        const c = await corr.flush();
        expect(c.peaks.length).toBe(0); // nothing pushed after reset
        const r = await corr.process(x);
        const all = [...r.peaks, ...(await corr.flush()).peaks].sort((a, d) => d.score - a.score);
        expect(r.peaks.length).toBeLessThanOrEqual(3);
        for (let i = 1; i < r.peaks.length; i++)
          expect(r.peaks[i].score).toBeLessThanOrEqual(r.peaks[i - 1].score);
        const lags = all.map((p) => p.lag);
        expect(lags).toContain(1000);
        expect(lags).not.toContain(1040); // within ±100 of the stronger 1000
        expect(lags).toContain(5000);
      });

      it('streaming: one block or many random blocks give bit-identical scores', async (ctx) => {
        const b = get(ctx);
        for (const [m, complex] of [
          [16, true],
          [2000, false],
          [700, true],
        ] as const) {
          const vps = complex ? 2 : 1;
          const t = randomF32(vps * m, 1600 + m);
          const x = randomF32(vps * 40_000, 1700 + m);
          const cfg = { template: t, complex, scores: true, peaks: 2 };
          const one = b.createCorrelator(cfg);
          const whole = concat([(await one.process(x)).scores!, (await one.flush()).scores!]);
          const corr = b.createCorrelator(cfg);
          const parts: Float32Array[] = [];
          let at = 0;
          let lag = 0;
          for (const size of randomBlocks(x.length, vps, 1800 + m)) {
            const c = await corr.process(x.subarray(at, at + size));
            at += size;
            expect(c.startLag).toBe(lag);
            lag += c.count;
            parts.push(c.scores!);
          }
          parts.push((await corr.flush()).scores!);
          expect(concat(parts)).toEqual(whole);
        }
      });

      it('refuses invalid configurations', (ctx) => {
        const b = get(ctx);
        expect(() => b.createCorrelator({ template: new Float32Array(0), complex: false })).toThrow(
          InvalidArgumentError,
        );
        expect(() => b.createCorrelator({ template: new Float32Array(3), complex: true })).toThrow(
          InvalidArgumentError,
        );
        expect(() =>
          b.createCorrelator({ template: new Float32Array(4), complex: false, peaks: -1 }),
        ).toThrow(InvalidArgumentError);
      });
    });
  });
}

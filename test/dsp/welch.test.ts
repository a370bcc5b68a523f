import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { CancelledError, InvalidArgumentError } from '../../electron/engine/errors.js';
import { getWindow, welch, type WelchResult } from '../../electron/engine/dsp/index.js';
import type { SampleBlock, StreamFormat } from '../../electron/engine/types.js';
import { BACKENDS } from './backends.js';
import { blocksOf, makeSignal, referenceWelch } from './helpers.js';
import { createReferenceBackend } from './reference-backend.js';

/**
 * Compares with the float64 reference. welch() rounds the windowed samples and the spectra to float32,
 * so each bin carries an error of ~1e-7 of the spectrum's total power, and of ~1e-6 of its own value:
 * allowed 1e-6·max + 1e-5·|ref| per bin.
 */
function expectClose(got: Float64Array, ref: Float64Array): void {
  expect(got.length).toBe(ref.length);
  let max = 0;
  for (const v of ref) max = Math.max(max, v);
  for (let k = 0; k < ref.length; k++) {
    const tol = 1e-6 * max + 1e-5 * Math.abs(ref[k]);
    if (!(Math.abs(got[k] - ref[k]) <= tol)) {
      expect.fail(`bin ${k}: got ${got[k]}, reference ${ref[k]} (tolerance ${tol})`);
    }
  }
}

for (const { name, create } of BACKENDS) {
  describe(`welch on the ${name} backend`, () => {
    let backend: Backend | undefined;
    const get = async (): Promise<Backend> => (backend ??= await create());
    afterAll(async () => {
      await backend?.dispose();
    });

    const realCases = [
      { nperseg: 8, window: 'hann', frames: 200 },
      { nperseg: 1000, window: 'hann', frames: 9000 },
      { nperseg: 1024, window: 'blackmanharris', frames: 8000, noverlap: 0 },
      { nperseg: 3000, window: 'kaiser:8.6', frames: 12000 },
      { nperseg: 999, window: 'flattop', frames: 4000, noverlap: 998 - 700 },
    ];
    for (const c of realCases) {
      it(`real, nperseg ${c.nperseg}, ${c.window}${c.noverlap !== undefined ? `, noverlap ${c.noverlap}` : ''}: equals the float64 reference`, async () => {
        const fs = 48000;
        const format: StreamFormat = { sampleRate: fs, complex: false, channels: 1 };
        const data = makeSignal({
          frames: c.frames,
          sampleRate: fs,
          complex: false,
          tones: [
            { frequency: 1000.3, amplitude: 0.5 },
            { frequency: 7777.7, amplitude: 0.01, phase: 1 },
          ],
          noise: 1e-3,
          seed: c.nperseg,
        });
        const r = await welch(await get(), blocksOf(data, format, [4096]), {
          nperseg: c.nperseg,
          window: c.window,
          noverlap: c.noverlap,
        });
        const noverlap = c.noverlap ?? Math.floor(c.nperseg / 2);
        const ref = referenceWelch(data, {
          nperseg: c.nperseg,
          noverlap,
          window: getWindow(c.window, c.nperseg),
          complex: false,
          channels: 1,
          channel: 'mean',
        });
        expect(r.segments).toBe(ref.segments);
        expect(r.segments).toBe(Math.floor((c.frames - c.nperseg) / (c.nperseg - noverlap)) + 1);
        expect(r.nperseg).toBe(c.nperseg);
        expect(r.noverlap).toBe(noverlap);
        expect(r.complex).toBe(false);
        expect(r.sampleRate).toBe(fs);
        expect(r.binWidth).toBe(fs / c.nperseg);
        expect(r.centerFrequency).toBeUndefined();
        expect(r.frequencies.length).toBe(Math.floor(c.nperseg / 2) + 1);
        expect(r.frequencies[0]).toBe(0);
        expect(r.frequencies[r.frequencies.length - 1]).toBeCloseTo(
          (Math.floor(c.nperseg / 2) * fs) / c.nperseg,
          9,
        );
        expect(Array.from(r.window)).toEqual(Array.from(getWindow(c.window, c.nperseg)));
        expectClose(r.power, ref.power);
      });
    }

    const complexCases = [
      { nperseg: 512, frames: 5000 },
      { nperseg: 1000, frames: 6000 },
      { nperseg: 999, frames: 6000 },
      { nperseg: 3000, frames: 10000 },
    ];
    for (const c of complexCases) {
      it(`complex, nperseg ${c.nperseg}: fftshift order, centre frequency kept, equals the reference`, async () => {
        const fs = 2.4e6;
        const format: StreamFormat = { sampleRate: fs, complex: true, channels: 1, centerFrequency: 100e6 };
        const data = makeSignal({
          frames: c.frames,
          sampleRate: fs,
          complex: true,
          tones: [
            { frequency: -300e3 + 17, amplitude: 0.7 },
            { frequency: 455e3, amplitude: 0.05 },
          ],
          noise: 1e-3,
          seed: c.nperseg + 1,
        });
        const r = await welch(await get(), blocksOf(data, format, [3333]), { nperseg: c.nperseg });
        const ref = referenceWelch(data, {
          nperseg: c.nperseg,
          noverlap: Math.floor(c.nperseg / 2),
          window: getWindow('hann', c.nperseg),
          complex: true,
          channels: 1,
          channel: 'mean',
        });
        expect(r.complex).toBe(true);
        expect(r.centerFrequency).toBe(100e6);
        expect(r.frequencies.length).toBe(c.nperseg);
        const shift = Math.floor(c.nperseg / 2);
        // numpy.fft.fftshift(numpy.fft.fftfreq(n, 1/fs))
        for (const k of [0, 1, shift, c.nperseg - 1])
          expect(r.frequencies[k]).toBeCloseTo(((k - shift) * fs) / c.nperseg, 6);
        expect(r.frequencies[shift]).toBe(0);
        expectClose(r.power, ref.power);
      });
    }

    it('full-scale real sine and unit complex exponential centred on a bin read 1.0', async () => {
      const n = 1000;
      const fs = 1000;
      for (const window of ['rectangular', 'hann', 'flattop', 'kaiser:14']) {
        const real = makeSignal({
          frames: 8 * n,
          sampleRate: fs,
          complex: false,
          tones: [{ frequency: 200, amplitude: 1 }],
        });
        const r = await welch(await get(), blocksOf(real, { sampleRate: fs, complex: false, channels: 1 }), {
          nperseg: n,
          window,
        });
        expect(r.power[200]).toBeCloseTo(1, 5);
        const cplx = makeSignal({
          frames: 8 * n,
          sampleRate: fs,
          complex: true,
          tones: [{ frequency: -123, amplitude: 1 }],
        });
        const c = await welch(await get(), blocksOf(cplx, { sampleRate: fs, complex: true, channels: 1 }), {
          nperseg: n,
          window,
        });
        expect(c.frequencies[500 - 123]).toBe(-123);
        expect(c.power[500 - 123]).toBeCloseTo(1, 5);
      }
    });

    it('channels: the mean of the channel spectra by default, or one channel', async () => {
      const fs = 8000;
      const n = 256;
      const format: StreamFormat = { sampleRate: fs, complex: false, channels: 3 };
      const data = makeSignal({
        frames: 4000,
        sampleRate: fs,
        complex: false,
        channels: 3,
        channelGain: [1, 0.5, 0.1],
        tones: [{ frequency: 1000, amplitude: 1 }],
        noise: 1e-2,
        seed: 5,
      });
      const window = getWindow('hann', n);
      const opts = { nperseg: n, noverlap: n / 2, window, complex: false, channels: 3 };
      const mean = await welch(await get(), blocksOf(data, format, [1000]), { nperseg: n });
      expectClose(mean.power, referenceWelch(data, { ...opts, channel: 'mean' }).power);
      for (const ch of [0, 2]) {
        const one = await welch(await get(), blocksOf(data, format, [1000]), { nperseg: n, channel: ch });
        expectClose(one.power, referenceWelch(data, { ...opts, channel: ch }).power);
      }
      // the tone bin: mean of 1, 0.25 and 0.01
      expect(mean.power[32]).toBeCloseTo((1 + 0.25 + 0.01) / 3, 3);
      await expect(welch(await get(), blocksOf(data, format), { nperseg: n, channel: 3 })).rejects.toThrow(
        /channel 3 does not exist: the signal has 3 channel/,
      );
    });

    it('raw integer blocks (RawSamples) give the spectrum of their decoded values', async () => {
      const fs = 8000;
      const format: StreamFormat = { sampleRate: fs, complex: true, channels: 1 };
      const floats = makeSignal({
        frames: 5000,
        sampleRate: fs,
        complex: true,
        tones: [{ frequency: 700, amplitude: 0.8 }],
        noise: 0.01,
        seed: 9,
      });
      // Quantize to i16 and decode back: the float path then sees exactly the same values.
      const ints = Int16Array.from(floats, (v) => Math.round(v * 32767));
      const decoded = Float32Array.from(ints, (v) => (v - 0) * (1 / 32767));
      const raw = await welch(
        await get(),
        blocksOf(decoded, format, [1234], (chunk) => {
          const start = (chunk.byteOffset - decoded.byteOffset) / 4;
          return { data: ints.subarray(start, start + chunk.length), offset: 0, scale: 1 / 32767 };
        }),
        { nperseg: 600 },
      );
      const flt = await welch(await get(), blocksOf(decoded, format, [1234]), { nperseg: 600 });
      expect(Array.from(raw.power)).toEqual(Array.from(flt.power));
      // and u8 (rtl_sdr) with an offset
      const u8 = Uint8Array.from(floats, (v) => Math.max(0, Math.min(255, Math.round(v * 127.5 + 127.5))));
      const u8dec = Float32Array.from(u8, (v) => (v - 127.5) * (1 / 127.5));
      const rawU8 = await welch(
        await get(),
        blocksOf(u8dec, format, [777], (chunk) => {
          const start = (chunk.byteOffset - u8dec.byteOffset) / 4;
          return { data: u8.subarray(start, start + chunk.length), offset: 127.5, scale: 1 / 127.5 };
        }),
        { nperseg: 600 },
      );
      const fltU8 = await welch(await get(), blocksOf(u8dec, format, [777]), { nperseg: 600 });
      expect(Array.from(rawU8.power)).toEqual(Array.from(fltU8.power));
    });

    it('streaming: the same result whatever the block sizes', async () => {
      const fs = 44100;
      for (const complex of [false, true]) {
        const format: StreamFormat = { sampleRate: fs, complex, channels: 2 };
        const data = makeSignal({
          frames: 7000,
          sampleRate: fs,
          complex,
          channels: 2,
          tones: [{ frequency: 3000.5, amplitude: 0.3 }],
          noise: 0.1,
          seed: 11,
        });
        for (const [nperseg, noverlap] of [
          [1024, 512],
          [1000, 0],
          [256, 250],
          [300, 100],
        ]) {
          let first: WelchResult | undefined;
          for (const sizes of [[7000], [1], [7, 13, 1000, 2], [nperseg - 1], [nperseg + 1], [50]]) {
            const r = await welch(await get(), blocksOf(data, format, sizes), {
              nperseg,
              noverlap,
              channel: 'mean',
            });
            if (!first) first = r;
            else {
              expect(r.segments).toBe(first.segments);
              expect(Array.from(r.power)).toEqual(Array.from(first.power));
            }
          }
        }
      }
    });

    it('empty blocks are skipped, progress is reported, and a cancel stops it', async () => {
      const fs = 1000;
      const format: StreamFormat = { sampleRate: fs, complex: false, channels: 1 };
      const data = makeSignal({
        frames: 3000,
        sampleRate: fs,
        complex: false,
        tones: [{ frequency: 100, amplitude: 1 }],
        noise: 0.1,
      });
      async function* withEmpty(): AsyncGenerator<SampleBlock> {
        yield { format, start: 0, frames: 0, data: new Float32Array(0) };
        yield* blocksOf(data, format, [1000]);
      }
      const progress: number[] = [];
      const r = await welch(await get(), withEmpty(), { nperseg: 100, onProgress: (f) => progress.push(f) });
      expect(progress).toEqual([1000, 2000, 3000]);
      expect(r.segments).toBe(59);

      const ac = new AbortController();
      await expect(
        welch(await get(), blocksOf(data, format, [500]), {
          nperseg: 100,
          signal: ac.signal,
          onProgress: (f) => {
            if (f >= 1000) ac.abort();
          },
        }),
      ).rejects.toBeInstanceOf(CancelledError);
    });
  });
}

describe('welch: arguments and edge cases', () => {
  const backend = createReferenceBackend();
  const format: StreamFormat = { sampleRate: 48000, complex: false, channels: 1 };
  const data = makeSignal({
    frames: 500,
    sampleRate: 48000,
    complex: false,
    tones: [{ frequency: 1000, amplitude: 1 }],
  });

  it('a signal shorter than nperseg is refused, suggesting a smaller --fft', async () => {
    const err = await welch(backend, blocksOf(data, format), { nperseg: 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(
      /500 frame\(s\), fewer than the FFT size 1024: use a smaller --fft \(at most 500\)/,
    );
    async function* none(): AsyncGenerator<SampleBlock> {}
    await expect(welch(backend, none(), { nperseg: 64 })).rejects.toThrow(/0 frame\(s\).*smaller --fft/);
  });

  it('exactly nperseg frames give one segment', async () => {
    const r = await welch(backend, blocksOf(data, format, [100]), { nperseg: 500 });
    expect(r.segments).toBe(1);
  });

  it('refuses bad options with the constraint', async () => {
    const bad: Array<[object, RegExp]> = [
      [{ nperseg: 4 }, /integer ≥ 8/],
      [{ nperseg: 100.5 }, /integer ≥ 8/],
      [{ nperseg: 100, noverlap: 100 }, /0 ≤ noverlap < nperseg = 100/],
      [{ nperseg: 100, noverlap: -1 }, /noverlap/],
      [{ nperseg: 100, window: 'triangle' }, /valid windows/],
      [{ nperseg: 100, channel: -1 }, /channel must be/],
    ];
    for (const [opts, re] of bad) {
      await expect(
        welch(backend, blocksOf(data, format), opts as never),
        JSON.stringify(opts),
      ).rejects.toThrow(re);
    }
  });

  it('refuses blocks whose format changes', async () => {
    async function* mixed(): AsyncGenerator<SampleBlock> {
      yield { format, start: 0, frames: 100, data: data.subarray(0, 100) };
      yield {
        format: { ...format, sampleRate: 44100 },
        start: 100,
        frames: 100,
        data: data.subarray(100, 200),
      };
    }
    await expect(welch(backend, mixed(), { nperseg: 64 })).rejects.toThrow(InvalidArgumentError);
  });

  it('sends segments in batches (several backend calls for a long signal)', async () => {
    const b = createReferenceBackend();
    const fmt: StreamFormat = { sampleRate: 1000, complex: true, channels: 1 };
    const long = makeSignal({
      frames: 600_000,
      sampleRate: 1000,
      complex: true,
      tones: [{ frequency: 125, amplitude: 1 }],
      noise: 0.01,
    });
    const r = await welch(b, blocksOf(long, fmt, [65536]), { nperseg: 16 });
    expect(b.calls.fft).toBeGreaterThan(1);
    expect(r.segments).toBe((600_000 - 16) / 8 + 1);
    const ref = referenceWelch(long, {
      nperseg: 16,
      noverlap: 8,
      window: getWindow('hann', 16),
      complex: true,
      channels: 1,
      channel: 'mean',
    });
    expectClose(r.power, ref.power);
  });
});

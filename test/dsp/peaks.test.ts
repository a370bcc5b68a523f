import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import {
  WindowResponse,
  findPeaks,
  getWindow,
  welch,
  type Peak,
  type WelchResult,
} from '../../electron/engine/dsp/index.js';
import type { StreamFormat } from '../../electron/engine/types.js';
import { BACKENDS } from './backends.js';
import { blocksOf, makeSignal, type Tone } from './helpers.js';
import { createReferenceBackend } from './reference-backend.js';

const WINDOWS = [
  'rectangular',
  'hann',
  'hamming',
  'blackman',
  'blackmanharris',
  'flattop',
  'kaiser:8.6',
  'kaiser:3',
];

async function spectrum(
  backend: Backend,
  opts: {
    n: number;
    fs: number;
    complex: boolean;
    tones: Tone[];
    window: string;
    segments?: number;
    noise?: number;
    center?: number;
  },
): Promise<WelchResult> {
  const frames = ((opts.segments ?? 16) + 1) * (opts.n / 2);
  const format: StreamFormat = {
    sampleRate: opts.fs,
    complex: opts.complex,
    channels: 1,
    ...(opts.center !== undefined ? { centerFrequency: opts.center } : {}),
  };
  const data = makeSignal({
    frames,
    sampleRate: opts.fs,
    complex: opts.complex,
    tones: opts.tones,
    noise: opts.noise ?? 1e-4,
    seed: 7,
  });
  return welch(backend, blocksOf(data, format, [10000]), { nperseg: opts.n, window: opts.window });
}

const db = (a: number): number => 20 * Math.log10(a);

for (const { name, create } of BACKENDS) {
  describe(`findPeaks on ${name}-backend spectra`, () => {
    let backend: Backend | undefined;
    const get = async (): Promise<Backend> => (backend ??= await create());
    afterAll(async () => {
      await backend?.dispose();
    });

    for (const window of WINDOWS) {
      // The brief: an isolated tone anywhere between bins reads its frequency within ~0.01 bin and its level
      // within ~0.05 dB (a parabola on a rectangular window is off by up to 0.2 bin and 3.9 dB).
      it(`${window}: an isolated off-bin tone reads its frequency (±0.01 bin) and level (±0.05 dB), real and complex`, async () => {
        const n = 256;
        const fs = 256; // 1 Hz per bin
        for (const complex of [false, true]) {
          for (const offset of [0, 0.13, 0.25, 0.37, 0.5, 0.71, 0.99]) {
            const f0 = (complex ? -70 : 70) + offset;
            const amp = 0.5;
            const r = await spectrum(await get(), {
              n,
              fs,
              complex,
              window,
              tones: [{ frequency: f0, amplitude: amp, phase: 0.3 }],
            });
            const peaks = findPeaks(r, { count: 1 });
            expect(peaks.length).toBe(1);
            expect(
              Math.abs(peaks[0].frequency - f0),
              `${complex ? 'complex' : 'real'} ${f0} Hz`,
            ).toBeLessThan(0.01);
            expect(
              Math.abs(peaks[0].level - db(amp)),
              `${complex ? 'complex' : 'real'} ${f0} Hz`,
            ).toBeLessThan(0.05);
            expect(Math.abs(r.frequencies[peaks[0].bin] - f0)).toBeLessThanOrEqual(0.5 + 1e-9);
          }
        }
      });
    }

    it('a full-scale sine reads 0 dBFS at a non-power-of-two FFT size, real and complex', async () => {
      for (const complex of [false, true]) {
        const r = await spectrum(await get(), {
          n: 1000,
          fs: 48000,
          complex,
          window: 'hann',
          segments: 4,
          tones: [{ frequency: 1234.5, amplitude: 1 }],
        });
        const [p] = findPeaks(r, { count: 1 });
        expect(Math.abs(p.frequency - 1234.5)).toBeLessThan(0.01 * r.binWidth);
        expect(Math.abs(p.level)).toBeLessThan(0.05);
      }
    });
  });
}

describe('findPeaks: distinct peaks', () => {
  const backend = createReferenceBackend();
  const n = 1024;
  const fs = 1024;

  it('resolves two close tones just outside each other’s main lobe', async () => {
    // hann: main lobe ±2 bins; blackman-harris ±4; rectangular ±1; kaiser β 8.6 ±2.9
    const cases: Array<[string, number]> = [
      ['hann', 3],
      ['blackmanharris', 5],
      ['rectangular', 3],
      ['kaiser:8.6', 4],
    ];
    for (const [window, sep] of cases) {
      const tones = [
        { frequency: 300.2, amplitude: 0.5 },
        { frequency: 300.2 + sep, amplitude: 0.4 },
      ];
      const r = await spectrum(backend, { n, fs, complex: false, window, tones, segments: 32 });
      const peaks = findPeaks(r, { count: 2 });
      expect(peaks.length, window).toBe(2);
      // Each tone's neighbouring bins carry the other's skirt: allowed 0.05 bin and 0.2 dB.
      expect(Math.abs(peaks[0].frequency - 300.2), window).toBeLessThan(0.05);
      expect(Math.abs(peaks[0].level - db(0.5)), window).toBeLessThan(0.2);
      expect(Math.abs(peaks[1].frequency - (300.2 + sep)), window).toBeLessThan(0.05);
      expect(Math.abs(peaks[1].level - db(0.4)), window).toBeLessThan(0.2);
    }
  });

  it('reports one peak for two tones inside one main lobe', async () => {
    const tones = [
      { frequency: 300.2, amplitude: 0.5 },
      { frequency: 301.4, amplitude: 0.5 },
    ];
    const r = await spectrum(backend, { n, fs, complex: false, window: 'blackmanharris', tones });
    const peaks = findPeaks(r, { count: 2, minLevelDb: -60 });
    expect(peaks.length).toBe(1);
  });

  it('finds a weak tone next to a strong one, and no side lobes', async () => {
    const cases: Array<[string, number, number]> = [
      // window, weak tone level (dBFS), offset in bins
      ['blackmanharris', -80, 12.4],
      ['kaiser:14', -90, 15.4],
      ['hann', -50, 12.4],
      ['rectangular', -20, 20.4], // its side lobes stand at −36 dB there
    ];
    for (const [window, level, offset] of cases) {
      const tones = [
        { frequency: 300.3, amplitude: 1 },
        { frequency: 300.3 + offset, amplitude: 10 ** (level / 20) },
      ];
      const r = await spectrum(backend, { n, fs, complex: false, window, tones, noise: 1e-6 });
      const peaks = findPeaks(r, { count: 5, minLevelDb: level - 10 });
      expect(peaks.length, window).toBe(2);
      expect(Math.abs(peaks[0].frequency - 300.3), window).toBeLessThan(0.01);
      expect(Math.abs(peaks[1].frequency - (300.3 + offset)), window).toBeLessThan(0.05);
      expect(Math.abs(peaks[1].level - level), window).toBeLessThan(0.5);
    }
  });

  it('rectangular window: the slowly decaying side lobes of a strong tone are not peaks', async () => {
    const r = await spectrum(backend, {
      n,
      fs,
      complex: false,
      window: 'rectangular',
      tones: [{ frequency: 200.5, amplitude: 1 }],
    });
    // Side lobes stand at −13 … −60 dB here; the only distinct peak is the tone.
    const peaks = findPeaks(r, { count: 10, minLevelDb: -70 });
    expect(peaks.length).toBe(1);
    expect(Math.abs(peaks[0].frequency - 200.5)).toBeLessThan(0.01);
  });

  it('complex input: negative frequencies, absolute with a centre frequency, strongest first', async () => {
    const fs = 2.4e6;
    const center = 100e6;
    const tones = [
      { frequency: -300e3 + 17, amplitude: 0.3 },
      { frequency: 455e3, amplitude: 0.9 },
      { frequency: -1.1e6, amplitude: 0.05 },
    ];
    const r = await spectrum(backend, {
      n: 2048,
      fs,
      complex: true,
      window: 'blackmanharris',
      tones,
      center,
    });
    expect(r.centerFrequency).toBe(center);
    const peaks = findPeaks(r, { count: 3 });
    const expected = [tones[1], tones[0], tones[2]];
    expect(peaks.length).toBe(3);
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(peaks[i].frequency - (center + expected[i].frequency))).toBeLessThan(0.01 * r.binWidth);
      expect(Math.abs(peaks[i].level - db(expected[i].amplitude))).toBeLessThan(0.05);
    }
    // without a centre frequency the offsets are reported
    const bare = { ...r };
    delete bare.centerFrequency;
    expect(Math.abs(findPeaks(bare, { count: 1 })[0].frequency - 455e3)).toBeLessThan(0.01 * r.binWidth);
  });

  it('complex input: a tone at the −fs/2 edge wraps around correctly', async () => {
    const r = await spectrum(backend, {
      n: 512,
      fs: 512,
      complex: true,
      window: 'hann',
      tones: [{ frequency: -255.7, amplitude: 1 }],
    });
    const [p] = findPeaks(r, { count: 1 });
    expect(Math.abs(p.frequency - -255.7)).toBeLessThan(0.01);
    expect(Math.abs(p.level)).toBeLessThan(0.05);
  });

  it('real input near DC and Nyquist, and a DC offset (AES17: constant c reads 20·log10(c) + 3.01 dB)', async () => {
    for (const f of [2.3, 509.6]) {
      const r = await spectrum(backend, {
        n,
        fs,
        complex: false,
        window: 'hann',
        tones: [{ frequency: f, amplitude: 1 }],
      });
      const [p] = findPeaks(r, { count: 1 });
      expect(Math.abs(p.frequency - f)).toBeLessThan(0.01);
      expect(Math.abs(p.level)).toBeLessThan(0.05);
    }
    const data = makeSignal({
      frames: 8 * n,
      sampleRate: fs,
      complex: false,
      tones: [{ frequency: 100.5, amplitude: 0.1 }],
      noise: 1e-4,
    });
    for (let i = 0; i < data.length; i++) data[i] += 0.5;
    const r = await welch(backend, blocksOf(data, { sampleRate: fs, complex: false, channels: 1 }), {
      nperseg: n,
    });
    const [dc] = findPeaks(r, { count: 1 });
    expect(dc.frequency).toBe(0);
    expect(dc.bin).toBe(0);
    expect(Math.abs(dc.level - (db(0.5) + 10 * Math.log10(2)))).toBeLessThan(0.01);
  });

  it('count and minLevelDb limit the list; strongest first', async () => {
    const tones = [100.25, 200.5, 300.75, 400.1].map((frequency, i) => ({
      frequency,
      amplitude: 0.8 / (i + 1),
    }));
    const r = await spectrum(backend, { n, fs, complex: false, window: 'kaiser:10', tones });
    const all = findPeaks(r, { count: 4 });
    expect(all.map((p) => Math.round(p.frequency))).toEqual([100, 201, 301, 400]);
    for (let i = 1; i < all.length; i++) expect(all[i].level).toBeLessThan(all[i - 1].level);
    expect(findPeaks(r, { count: 2 }).map((p: Peak) => p.bin)).toEqual(all.slice(0, 2).map((p) => p.bin));
    const loud = findPeaks(r, { count: 10, minLevelDb: db(0.8 / 3) - 0.5 });
    expect(loud.length).toBe(3);
  });

  it('the K strongest are the first K of a longer list (noise maxima included), for every window', async () => {
    for (const window of WINDOWS) {
      const tones = [
        { frequency: 100.3, amplitude: 0.01 },
        { frequency: 333.6, amplitude: 0.003 },
      ];
      const r = await spectrum(backend, {
        n: 512,
        fs: 1024,
        complex: false,
        window,
        tones,
        noise: 0.01,
        segments: 4,
      });
      const long = findPeaks(r, { count: 40 });
      expect(long.length, window).toBeGreaterThanOrEqual(16); // fewer for wide main lobes (flattop ±5 bins)
      for (let i = 1; i < long.length; i++)
        expect(long[i].level, window).toBeLessThanOrEqual(long[i - 1].level);
      for (const k of [1, 3, 7, 15]) {
        expect(findPeaks(r, { count: k }), `${window} count ${k}`).toEqual(long.slice(0, k));
      }
    }
  });

  it('silence has no peaks', async () => {
    const r: WelchResult = {
      frequencies: new Float64Array(33).map((_, k) => k),
      power: new Float64Array(33),
      segments: 1,
      nperseg: 64,
      noverlap: 32,
      sampleRate: 64,
      complex: false,
      window: getWindow('hann', 64),
      binWidth: 1,
    };
    expect(findPeaks(r, { count: 3 })).toEqual([]);
  });

  it('refuses bad arguments', async () => {
    const r = await spectrum(backend, {
      n: 64,
      fs: 64,
      complex: false,
      window: 'hann',
      tones: [{ frequency: 10, amplitude: 1 }],
    });
    expect(() => findPeaks(r, { count: 0 })).toThrow(InvalidArgumentError);
    expect(() => findPeaks(r, { count: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => findPeaks(r, { count: 1, minLevelDb: NaN })).toThrow(InvalidArgumentError);
    expect(() => findPeaks({ ...r, power: r.power.subarray(1) }, { count: 1 })).toThrow(/inconsistent/);
  });
});

describe('WindowResponse', () => {
  it('equals the direct sum Σ w[n] e^{−j2πδn/N} and knows the main-lobe width', () => {
    const expected: Record<string, number> = {
      rectangular: 1,
      hann: 2,
      hamming: 2,
      blackman: 3,
      blackmanharris: 4,
      flattop: 5,
    };
    for (const n of [16, 100, 1000, 5000]) {
      for (const spec of [...Object.keys(expected), 'kaiser:8.6']) {
        const w = getWindow(spec, n);
        const resp = new WindowResponse(w);
        let sum = 0;
        for (const v of w) sum += v;
        for (const d of [0.05, 0.5, 1.7, 3.3, 7.5]) {
          let re = 0;
          let im = 0;
          for (let k = 0; k < n; k++) {
            const a = (-2 * Math.PI * d * k) / n;
            re += w[k] * Math.cos(a);
            im += w[k] * Math.sin(a);
          }
          const g = (re * re + im * im) / (sum * sum);
          // Exact for cosine windows; kaiser keeps 129 coefficients: 1e-6 of the main lobe.
          expect(Math.abs(resp.power(d) - g), `${spec} N=${n} δ=${d}`).toBeLessThan(1e-9 + 1e-6 * g);
        }
        if (spec in expected && n >= 16)
          expect(resp.mainLobeHalfWidth).toBeCloseTo(Math.min(expected[spec], n / 2), 6);
      }
    }
    // kaiser β: first null of the continuous transform at √(1 + (β/π)²) bins
    const k = new WindowResponse(getWindow('kaiser:8.6', 4096));
    expect(k.mainLobeHalfWidth).toBeCloseTo(Math.sqrt(1 + (8.6 / Math.PI) ** 2), 2);
  });
});

// Band measurements (dsp/measure.ts) on signals whose answers are known analytically
// (test/fixtures/make_measure_fixtures.py), on the float64 reference backend and the CPU backend.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import {
  measureBlocks,
  measureFftSize,
  measureSamples,
  type BandMeasurement,
  type MeasureOptions,
} from '../../electron/engine/dsp/index.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import { BACKENDS } from './backends.js';
import { makeSignal } from './helpers.js';

interface Case {
  file: string;
  band?: [number, number];
  tone?: { frequency: number; amplitude: number };
  noiseBand?: [number, number];
  bandPowerDb: number;
  snrDb?: number;
  fundamentalDb?: number;
  occupiedBandwidth?: { width: number; lower: number; upper: number };
  harmonics?: Array<{ order: number; frequency: number; levelDb: number }>;
  thdDb?: number;
  thdPercent?: number;
  thdnDb?: number;
  thdnPercent?: number;
  check?: { exactBandPowerDb: number; scipyWelchBandPowerDb?: number };
}

const DIR = new URL('../fixtures/measure/', import.meta.url);
const fixture = JSON.parse(readFileSync(new URL('measure.json', DIR), 'utf8')) as { cases: Case[] };
const byFile = (name: string): Case => fixture.cases.find((c) => c.file === name)!;

async function measureFile(
  backend: Backend,
  name: string,
  options: MeasureOptions = {},
): Promise<BandMeasurement> {
  const source = await openSource(fileURLToPath(new URL(name, DIR)));
  try {
    return await measureBlocks(
      backend,
      source.blocks({ blockFrames: 5000 }),
      source.info,
      source.info.samples!,
      options,
    );
  } finally {
    await source.close();
  }
}

const toDb = (ratio: number): number => 10 * Math.log10(ratio);

for (const { name, create } of BACKENDS) {
  describe(`band measurements (${name})`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await create();
    });
    afterAll(async () => {
      await backend.dispose();
    });

    it('reads a tone in white noise: band power and SNR within 0.1 dB of the analytic values', async () => {
      const c = byFile('tone-noise.wav');
      const [fLow, fHigh] = c.band!;
      // the fixture's own check: the signal holds what the analytic values say
      expect(Math.abs(c.check!.exactBandPowerDb - c.bandPowerDb)).toBeLessThan(0.01);
      const m = await measureFile(backend, c.file, { fLow, fHigh });
      expect(m.band).toEqual([fLow, fHigh]);
      expect(m.fft).toBe(4096);
      expect(m.segments).toBe(15);
      expect(Math.abs(m.bandPower - c.bandPowerDb)).toBeLessThan(0.1);
      // scipy.signal.welch (hann, 4096, density) integrated over the same band, ×2 for AES17
      expect(Math.abs(m.bandPower - c.check!.scipyWelchBandPowerDb!)).toBeLessThan(0.005);
      expect(m.snr).toBeDefined();
      expect(Math.abs(m.snr! - c.snrDb!)).toBeLessThan(0.1);
      expect(m.tone!.frequency).toBeCloseTo(c.tone!.frequency, 1);
      expect(Math.abs(m.tone!.level - c.fundamentalDb!)).toBeLessThan(0.05);
      // the same through other windows and FFT sizes
      for (const window of ['blackmanharris', 'flattop', 'kaiser']) {
        const w = await measureFile(backend, c.file, { fLow, fHigh, window, fft: 2048 });
        expect(Math.abs(w.bandPower - c.bandPowerDb), window).toBeLessThan(0.1);
        expect(Math.abs(w.snr! - c.snrDb!), window).toBeLessThan(0.1);
      }
      // a band without the tone: only noise, no SNR, a reason instead
      const quiet = await measureFile(backend, c.file, { fLow: 6000, fHigh: 12000 });
      const noiseOnly = 10 * Math.log10(4 * 1e-3 * (6000 / 48000));
      expect(Math.abs(quiet.bandPower - noiseOnly)).toBeLessThan(0.1);
      expect(quiet.snr).toBeUndefined();
      expect(quiet.thd).toBeUndefined();
      expect(quiet.missing.snr).toMatch(/no tone/);
      expect(JSON.stringify(quiet)).not.toMatch(/null|NaN/);
    });

    it('reads the occupied bandwidth of band-limited noise within one bin', async () => {
      const c = byFile('band-noise.wav');
      const m = await measureFile(backend, c.file);
      expect(m.band).toEqual([0, 24000]);
      expect(Math.abs(m.bandPower - c.bandPowerDb)).toBeLessThan(0.1);
      const obw = m.occupiedBandwidth!;
      const expected = c.occupiedBandwidth!;
      expect(Math.abs(obw.width - expected.width)).toBeLessThan(m.binWidth);
      expect(Math.abs(obw.lower - expected.lower)).toBeLessThan(m.binWidth);
      expect(Math.abs(obw.upper - expected.upper)).toBeLessThan(m.binWidth);
      // a finer FFT narrows the error with the bins
      const fine = await measureFile(backend, c.file, { fft: 8192 });
      expect(Math.abs(fine.occupiedBandwidth!.width - expected.width)).toBeLessThan(fine.binWidth);
      // noise has no tone
      expect(m.snr).toBeUndefined();
      expect(m.missing.snr).toMatch(/no tone/);
    });

    it('reads THD and THD+N of a tone with harmonics within 0.1 dB', async () => {
      const c = byFile('harmonics.wav');
      const [fLow, fHigh] = c.band!;
      const m = await measureFile(backend, c.file, { fLow, fHigh });
      const thd = m.thd!;
      expect(thd).toBeDefined();
      expect(Math.abs(thd.fundamental - c.tone!.frequency)).toBeLessThan(0.05);
      expect(Math.abs(thd.level - c.fundamentalDb!)).toBeLessThan(0.05);
      expect(Math.abs(thd.thdDb - c.thdDb!)).toBeLessThan(0.1);
      expect(Math.abs(thd.thdnDb - c.thdnDb!)).toBeLessThan(0.1);
      expect(Math.abs(toDb((thd.thdPercent / c.thdPercent!) ** 2))).toBeLessThan(0.1);
      expect(Math.abs(toDb((thd.thdnPercent / c.thdnPercent!) ** 2))).toBeLessThan(0.1);
      // every harmonic of 997 Hz up to the 10th lies in the band; the ones present read their level
      expect(thd.harmonics.map((h) => h.order)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const h of c.harmonics!) {
        const got = thd.harmonics.find((x) => x.order === h.order)!;
        expect(got.frequency).toBeCloseTo(h.frequency, 0);
        expect(Math.abs(got.level - h.levelDb), `H${h.order}`).toBeLessThan(0.3);
      }
      // the SNR leaves the harmonics out of the noise
      expect(Math.abs(m.snr! - c.snrDb!)).toBeLessThan(0.1);
      // a band ending below the 2nd harmonic has no THD, and says why
      const narrow = await measureFile(backend, c.file, { fLow: 500, fHigh: 1500 });
      expect(narrow.thd).toBeUndefined();
      expect(narrow.missing.thd).toMatch(/no harmonic/);
      expect(narrow.snr).toBeDefined();
    });

    it('keeps the SNR of a strong tone within 0.1 dB whatever the noise realization', async () => {
      // Near a strong tone the tone × noise cross term of |X|² is large and random: the skirts where the
      // tone's side lobes stand above the noise must not count as noise (seed 0 read 1.2 dB low when
      // they did).
      const fs = 48000;
      const sigma = 5.8e-4;
      const expected = toDb(0.25 / (2 * sigma * sigma));
      for (const seed of [1, 2, 3, 4, 5]) {
        const data = makeSignal({
          frames: 52800,
          sampleRate: fs,
          complex: false,
          tones: [{ frequency: 1000, amplitude: 0.5 }],
          noise: sigma,
          seed,
        });
        const m = await measureSamples(backend, data, { sampleRate: fs, complex: false });
        expect(Math.abs(m.snr! - expected), `seed ${seed}`).toBeLessThan(0.1);
      }
    });

    it('measures complex samples (float64) around a centre frequency', async () => {
      const fs = 1e6;
      const centre = 100e6;
      const amplitude = 0.3;
      const sigma = 0.01; // per component: complex noise power 2σ² spread over fs
      const frames = 1 << 15;
      const data = Float64Array.from(
        makeSignal({
          frames,
          sampleRate: fs,
          complex: true,
          tones: [{ frequency: -123456.7, amplitude }],
          noise: sigma,
          seed: 3,
        }),
      );
      const fLow = centre - 300e3;
      const fHigh = centre - 50e3;
      const m = await measureSamples(
        backend,
        data,
        { sampleRate: fs, complex: true, centerFrequency: centre },
        { fLow, fHigh },
      );
      const noise = 2 * sigma * sigma * ((fHigh - fLow) / fs);
      expect(m.tone!.frequency).toBeCloseTo(centre - 123456.7, -1);
      expect(Math.abs(m.tone!.level - toDb(amplitude * amplitude))).toBeLessThan(0.05);
      // Gaussian noise: the realized noise power spreads by ≈ 0.05 dB (1σ) about σ²; 3σ allowed
      expect(Math.abs(m.snr! - toDb((amplitude * amplitude) / noise))).toBeLessThan(0.15);
      expect(Math.abs(m.bandPower - toDb(amplitude * amplitude + noise))).toBeLessThan(0.01);
      // harmonics of an absolute frequency fall outside an I/Q band
      expect(m.missing.thd).toMatch(/no harmonic/);
    });

    it('measures the channel asked for', async () => {
      const fs = 8000;
      const frames = 1 << 14;
      const left = makeSignal({
        frames,
        sampleRate: fs,
        complex: false,
        tones: [{ frequency: 440, amplitude: 0.5 }],
        noise: 1e-3,
        seed: 1,
      });
      const right = makeSignal({
        frames,
        sampleRate: fs,
        complex: false,
        tones: [{ frequency: 1234, amplitude: 0.1 }],
        noise: 1e-3,
        seed: 2,
      });
      const stereo = new Float32Array(2 * frames);
      for (let i = 0; i < frames; i++) {
        stereo[2 * i] = left[i];
        stereo[2 * i + 1] = right[i];
      }
      const fmt = { sampleRate: fs, complex: false, channels: 2 };
      const a = await measureSamples(backend, stereo, fmt);
      const b = await measureSamples(backend, stereo, fmt, { channel: 1 });
      expect(a.tone!.frequency).toBeCloseTo(440, 1);
      expect(Math.abs(a.tone!.level - toDb(0.25))).toBeLessThan(0.05);
      expect(b.tone!.frequency).toBeCloseTo(1234, 1);
      expect(Math.abs(b.tone!.level - toDb(0.01))).toBeLessThan(0.05);
      await expect(measureSamples(backend, stereo, fmt, { channel: 2 })).rejects.toThrow(
        /channel 2 does not exist/,
      );
    });

    it('refuses bad bands and selections too short for the FFT', async () => {
      const data = new Float32Array(1000).map((_, i) => Math.sin(i));
      const fmt = { sampleRate: 1000, complex: false };
      await expect(measureSamples(backend, data, fmt, { fLow: 300, fHigh: 200 })).rejects.toThrow(
        InvalidArgumentError,
      );
      await expect(measureSamples(backend, data, fmt, { fLow: 600, fHigh: 700 })).rejects.toThrow(
        /outside the signal's spectrum/,
      );
      await expect(measureSamples(backend, data.subarray(0, 5), fmt)).rejects.toThrow(/select at least 8/);
      await expect(measureSamples(backend, data, fmt, { fft: 2048 })).rejects.toThrow(
        /fewer than the FFT size 2048/,
      );
    });
  });
}

describe('measureFftSize', () => {
  it('leaves enough segments, and gives a narrow band enough bins', () => {
    expect(measureFftSize(1 << 15, 48000)).toBe(4096);
    expect(measureFftSize(1 << 30, 48000)).toBe(1 << 16);
    expect(measureFftSize(100, 48000)).toBe(16);
    // 100 Hz at 48 kHz: 64 bins want 30720 points, as far as 4 × n ≤ frames
    expect(measureFftSize(1 << 20, 48000, 100)).toBe(1 << 16);
    expect(measureFftSize(1 << 15, 48000, 100)).toBe(16384);
  });
});

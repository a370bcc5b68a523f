// fileSpectrogram through the engine connection: the known tone in the right row, the time axis, band
// crops (real and I/Q with a centre), zoom raising the resolution, progress events, errors.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { regionFft, rowBins } from '../../electron/engine/pipeline/spectrogram-region.js';
import { frameColumns } from '../../electron/engine/protocol/shape.js';
import type { FileInfo, FileSpectrogramResult } from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { complexTones, noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { Client, writeCf32 } from './helpers.js';

type Image = FileSpectrogramResult & { data: Float32Array };

const FS = 48000;
const N = 96000; // 2 s
let backend: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-spec-');

// Tones at 3000 and 3040 Hz (too close for a short FFT), noise at −60 dBFS; a 9 kHz tone in the second
// half only.
const base = tones(N, FS, [
  { frequency: 3000, amplitude: 0.3 },
  { frequency: 3040, amplitude: 0.3 },
]);
const late = tones(N, FS, [{ frequency: 9000, amplitude: 0.3 }]);
const hiss = noise(N, 7, 0.001);
const signal = base.map((v, i) => v + hiss[i] + (i >= N / 2 ? late[i] : 0));

const RATE = 2e6;
const CENTER = 145e6;
const iq = complexTones(1 << 16, RATE, [{ frequency: 250e3, amplitude: 0.5 }]);
const iqNoise = noise(2 << 16, 9, 0.001);
for (let i = 0; i < iq.length; i++) iq[i] += iqNoise[i];

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend, progressIntervalMs: 0 });
  writeTestWav(join(tmp.dir, 'tones.wav'), signal, FS, 1, 'float32');
  writeCf32(join(tmp.dir, 'iq.cf32'), iq);
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
  tmp.remove();
});

/** The row holding the image's maximum over all columns. */
function brightestRow(img: Image, x0 = 0, x1 = img.width): number {
  let best = -Infinity;
  let row = -1;
  for (let y = 0; y < img.height; y++)
    for (let x = x0; x < x1; x++) {
      const v = img.data[y * img.width + x];
      if (v > best) {
        best = v;
        row = y;
      }
    }
  return row;
}

function rowMax(img: Image, y: number, x0 = 0, x1 = img.width): number {
  let m = -Infinity;
  for (let x = x0; x < x1; x++) m = Math.max(m, img.data[y * img.width + x]);
  return m;
}

/** The row whose band [top − (y+1)Δ, top − yΔ] holds frequency f. */
function rowOf(img: Image, f: number): number {
  const [lo, hi] = img.frequencyRange;
  return Math.floor(((hi - f) / (hi - lo)) * img.height);
}

async function open(c: Client, name: string, extra: Record<string, unknown> = {}): Promise<FileInfo> {
  return c.ok<FileInfo>('openFile', { path: join(tmp.dir, name), ...extra });
}

describe('fileSpectrogram', () => {
  it('draws the whole file: the tone in its row, the late tone only in the later columns', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const id = c.send('fileSpectrogram', { file: f.file, width: 200, height: 240 });
    const r = await c.reply(id);
    expect(r.ok).toBe(true);
    const img = (r as { result: Image }).result;
    expect(img).toMatchObject({ width: 200, height: 240, start: 0, end: N, frequencyRange: [0, 24000] });
    // 240 rows over 24 kHz need ≥ 480 bins per 24 kHz: fft 512 (the next power of two).
    expect(img.fft).toBe(512);
    expect(img.hop).toBe(256);
    expect(img.frames).toBe(Math.floor((N - 512) / 256) + 1);
    expect(img.data.length).toBe(200 * 240);
    // Row of 3000–3040 Hz (100 Hz per row); the peak bin lies within half a bin (47 Hz) of a tone: ±1 row.
    expect(Math.abs(brightestRow(img) - rowOf(img, 3020))).toBeLessThanOrEqual(1);
    // Two full-scale-0.3 sines summing in one bin read near 20·log10(0.3) + up to 6 dB.
    expect(rowMax(img, brightestRow(img))).toBeGreaterThan(-12);
    // The 9 kHz tone: bright in the second half of the columns, absent (noise) in the first.
    const y9 = rowOf(img, 9000);
    const firstHalf = Math.max(
      rowMax(img, y9, 0, 95),
      rowMax(img, y9 + 1, 0, 95),
      rowMax(img, y9 - 1, 0, 95),
    );
    const secondHalf = Math.max(rowMax(img, y9, 105, 200), rowMax(img, y9 + 1, 105, 200));
    expect(secondHalf).toBeGreaterThan(-20);
    expect(firstHalf).toBeLessThan(-60);
    // Progress came in frames of the range, ending at its length.
    const p = c.progressOf(id);
    expect(p.length).toBeGreaterThan(0);
    expect(p.every((e) => e.unit === 'frames' && e.total === N)).toBe(true);
    expect(p[p.length - 1].done).toBe(N);
    c.conn.close();
  });

  it('zooming into a band raises the resolution: the two tones 40 Hz apart separate', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const whole = (await c.ok('fileSpectrogram', {
      file: f.file,
      width: 50,
      height: 240,
    })) as unknown as Image;
    const zoom = (await c.ok('fileSpectrogram', {
      file: f.file,
      width: 50,
      height: 240,
      fLow: 2950,
      fHigh: 3150,
    })) as unknown as Image;
    expect(zoom.frequencyRange).toEqual([2950, 3150]);
    // 240 rows over 200 Hz: ≥ 240 bins per 200 Hz → fft ≥ 57600 → 65536.
    expect(zoom.fft).toBe(65536);
    expect(zoom.fft).toBeGreaterThan(whole.fft);
    // In the zoom each tone has its own row (0.83 Hz per row, bins 0.73 Hz apart) with a deep dip between.
    const a = rowOf(zoom, 3000);
    const b = rowOf(zoom, 3040);
    const near = (y: number) => Math.max(rowMax(zoom, y - 1), rowMax(zoom, y), rowMax(zoom, y + 1));
    const mid = rowMax(zoom, rowOf(zoom, 3020));
    expect(near(a)).toBeGreaterThan(-15);
    expect(near(b)).toBeGreaterThan(-15);
    expect(Math.min(near(a), near(b)) - mid).toBeGreaterThan(40);
    // Nothing but noise far from the tones inside the band.
    expect(rowMax(zoom, rowOf(zoom, 3120))).toBeLessThan(-60);
    c.conn.close();
  });

  it('crops a time range and a band that excludes the tones', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const firstHalf = (await c.ok('fileSpectrogram', {
      file: f.file,
      start: 0,
      end: N / 2,
      fLow: 8500,
      fHigh: 10000,
      width: 64,
      height: 64,
    })) as unknown as Image;
    expect(firstHalf).toMatchObject({ start: 0, end: N / 2, frequencyRange: [8500, 10000] });
    let max = -Infinity;
    for (const v of firstHalf.data) max = Math.max(max, v);
    expect(max).toBeLessThan(-60); // noise only: the 9 kHz tone starts at N/2
    const secondHalf = (await c.ok('fileSpectrogram', {
      file: f.file,
      start: N / 2,
      fLow: 8500,
      fHigh: 10000,
      width: 64,
      height: 64,
    })) as unknown as Image;
    expect(secondHalf.end).toBe(N);
    expect(Math.abs(brightestRow(secondHalf) - rowOf(secondHalf, 9000))).toBeLessThanOrEqual(1);
    // A band past Nyquist clamps; a band wholly outside is refused.
    const clamped = (await c.ok('fileSpectrogram', {
      file: f.file,
      fLow: 20000,
      fHigh: 90000,
      width: 8,
      height: 8,
    })) as unknown as Image;
    expect(clamped.frequencyRange).toEqual([20000, 24000]);
    const outside = await c.error('fileSpectrogram', {
      file: f.file,
      fLow: 30000,
      fHigh: 40000,
      width: 8,
      height: 8,
    });
    expect(outside.code).toBe('invalid-argument');
    expect(outside.message).toMatch(/band/);
    c.conn.close();
  });

  it('shows an I/Q tone at its absolute frequency around the centre', async () => {
    const c = new Client(engine);
    const f = await open(c, 'iq.cf32', { format: 'cf32', rate: RATE, center: CENTER });
    const whole = (await c.ok('fileSpectrogram', {
      file: f.file,
      width: 32,
      height: 200,
    })) as unknown as Image;
    expect(whole.frequencyRange).toEqual([CENTER - RATE / 2, CENTER + RATE / 2]);
    expect(Math.abs(brightestRow(whole) - rowOf(whole, CENTER + 250e3))).toBeLessThanOrEqual(1);
    const band = (await c.ok('fileSpectrogram', {
      file: f.file,
      width: 32,
      height: 100,
      fLow: CENTER + 200e3,
      fHigh: CENTER + 300e3,
    })) as unknown as Image;
    expect(Math.abs(brightestRow(band) - rowOf(band, CENTER + 250e3))).toBeLessThanOrEqual(1);
    c.conn.close();
  });

  it('honours an explicit fft, overlap and window, and refuses impossible ones', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const img = (await c.ok('fileSpectrogram', {
      file: f.file,
      fft: 1000,
      overlap: 0.75,
      window: 'blackman',
      width: 10,
      height: 10,
      start: 1000,
      end: 11000,
    })) as unknown as Image;
    expect(img).toMatchObject({ fft: 1000, hop: 250, frames: 37, start: 1000, end: 11000 });
    for (const [params, pattern] of [
      [{ fft: 20000, start: 0, end: 10000 }, /longer than the range/],
      [{ start: 0, end: 8 }, /at least 16/],
      [{ window: 'triangle' }, /window/],
      [{ channel: 1 }, /channel 1 does not exist/],
    ] as const) {
      const e = await c.error('fileSpectrogram', { file: f.file, width: 8, height: 8, ...params });
      expect(e.code).toBe('invalid-argument');
      expect(e.message).toMatch(pattern);
    }
    for (const params of [
      { file: f.file, width: 0, height: 8 },
      { file: f.file, width: 8 },
      { file: f.file, width: 8, height: 8, overlap: 1 },
      { file: f.file, width: 8, height: 8, fft: 8 },
      { file: f.file, width: 99999, height: 8 },
      { file: f.file, width: 8, height: 8, start: -1 },
    ]) {
      expect((await c.error('fileSpectrogram', params)).code).toBe('bad-request');
    }
    c.conn.close();
  });
});

describe('spectrogram region geometry', () => {
  it('picks the default fft from the band and the height, bounded by the range', () => {
    expect(regionFft(24000, 48000, 240, 1e6)).toBe(512);
    expect(regionFft(240, 48000, 240, 1e6)).toBe(65536);
    expect(regionFft(240, 48000, 240, 5000)).toBe(4096);
    expect(regionFft(1, 48000, 4096, 1e12)).toBe(1 << 20);
    expect(regionFft(24000, 48000, 1, 1e6)).toBe(16);
  });

  it('covers every column exactly once when frames ≥ width, and every column when fewer', () => {
    for (const [frames, width] of [
      [1000, 37],
      [5, 37],
      [37, 37],
    ]) {
      const hits = new Int32Array(width);
      for (let f = 0; f < frames; f++) {
        const [x0, x1] = frameColumns(f, frames, width);
        for (let x = x0; x < x1; x++) hits[x]++;
      }
      expect(hits.every((h) => h >= 1)).toBe(true);
      if (frames >= width) expect(hits.reduce((a, b) => a + b, 0)).toBe(frames);
    }
  });

  it('maps rows to the bins inside them, top row = highest frequency, none left out', () => {
    const fmt = { sampleRate: 48000, complex: false, channels: 1 };
    const { k0, k1, bandBins } = rowBins(fmt, 480, [0, 24000], 24);
    expect(bandBins).toBe(241);
    // 100 Hz bins, 1000 Hz rows: row 0 holds 23000…24000 (bins 230…240), the last row 0…999 (bins 0…9).
    expect([k0[0], k1[0]]).toEqual([230, 241]);
    expect([k0[23], k1[23]]).toEqual([0, 10]);
    let covered = 0;
    for (let y = 0; y < 24; y++) covered += k1[y] - k0[y];
    expect(covered).toBe(241);
    // More rows than bins: each row takes its nearest bin.
    const fine = rowBins(fmt, 16, [0, 24000], 100);
    for (let y = 0; y < 100; y++) expect(k1.length > 0 && fine.k1[y] - fine.k0[y]).toBe(1);
  });
});

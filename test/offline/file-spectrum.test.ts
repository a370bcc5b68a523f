// fileSpectrum through the engine connection: the Welch average of a frame range in dBFS, against a
// float64 Welch computed here; tones at their frequency and level, the range and band honoured, I/Q in
// absolute frequencies, errors.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import type { FileInfo, FileSpectrumResult } from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { complexTones, noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { Client, writeCf32 } from './helpers.js';

type Spectrum = FileSpectrumResult & { data: Float32Array };

const FS = 48000;
const N = 96000; // 2 s
// 1500 Hz at 0.5 throughout; 7500 Hz at 0.1 in the second second only; both on bins of a 4096-point FFT
// (11.71875 Hz apart), noise at −70 dBFS.
const first = tones(N, FS, [{ frequency: 1500, amplitude: 0.5 }]);
const late = tones(N, FS, [{ frequency: 7500, amplitude: 0.1 }]);
const hiss = noise(N, 21, 3e-4);
const signal = Float64Array.from(first, (v, i) => Math.fround(v + hiss[i] + (i >= N / 2 ? late[i] : 0)));

const RATE = 1e6;
const CENTER = 433.92e6;
const IQ_FRAMES = 1 << 16;
const iq = complexTones(IQ_FRAMES, RATE, [{ frequency: 125e3, amplitude: 0.25 }]);
const iqNoise = noise(2 * IQ_FRAMES, 4, 1e-4);
for (let i = 0; i < iq.length; i++) iq[i] += iqNoise[i];

let backend: Backend;
let engine: Engine;
const tmp = tempDir('phasor-file-spectrum-');
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

/** float64 Welch (periodic Hann, half overlap, mean) of x[start, end) at bin k, in dBFS (×4/(Σw)²). */
function welchDb(x: Float64Array, start: number, end: number, n: number, k: number): number {
  const w = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  const sum = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  let segments = 0;
  for (let s = start; s + n <= end; s += n / 2) {
    let re = 0;
    let im = 0;
    for (let i = 0; i < n; i++) {
      const v = x[s + i] * w[i];
      re += v * Math.cos((2 * Math.PI * k * i) / n);
      im -= v * Math.sin((2 * Math.PI * k * i) / n);
    }
    acc += re * re + im * im;
    segments++;
  }
  return 10 * Math.log10(((acc / segments) * 4) / (sum * sum));
}

/** float64 power (dBFS) of each Welch segment of x[start, end) at bin k (the max / min hold's inputs). */
function segmentDbs(x: Float64Array, start: number, end: number, n: number, k: number): number[] {
  const w = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  const sum = w.reduce((a, b) => a + b, 0);
  const out: number[] = [];
  for (let s = start; s + n <= end; s += n / 2) {
    let re = 0;
    let im = 0;
    for (let i = 0; i < n; i++) {
      const v = x[s + i] * w[i];
      re += v * Math.cos((2 * Math.PI * k * i) / n);
      im -= v * Math.sin((2 * Math.PI * k * i) / n);
    }
    out.push(10 * Math.log10(((re * re + im * im) * 4) / (sum * sum)));
  }
  return out;
}

function peak(s: Spectrum, lo = -Infinity, hi = Infinity): { f: number; level: number } {
  let best = { f: NaN, level: -Infinity };
  s.data.forEach((v, k) => {
    const f = s.f0 + k * s.binWidth;
    if (f >= lo && f <= hi && v > best.level) best = { f, level: v };
  });
  return best;
}

async function open(c: Client, name: string, extra: Record<string, unknown> = {}): Promise<FileInfo> {
  return c.ok<FileInfo>('openFile', { path: join(tmp.dir, name), ...extra });
}

describe('fileSpectrum', () => {
  it('averages the whole file: each tone at its frequency and level, matching a float64 Welch', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const id = c.send('fileSpectrum', { file: f.file });
    const r = await c.reply(id);
    expect(r.ok).toBe(true);
    const s = (r as { result: Spectrum }).result;
    expect(s).toMatchObject({
      f0: 0,
      fft: 4096,
      bins: 2049,
      start: 0,
      end: N,
      window: 'hann',
      sampleRate: FS,
    });
    expect(s.binWidth).toBeCloseTo(FS / 4096, 12);
    expect(s.segments).toBe(Math.floor((N - 4096) / 2048) + 1);
    // Hann's equivalent noise bandwidth is 1.5 bins.
    expect(s.rbw).toBeCloseTo(1.5 * (FS / 4096), 9);
    expect(s.data.length).toBe(2049);
    const a = peak(s, 0, 5000);
    expect(a.f).toBe(1500);
    expect(a.level).toBeCloseTo(20 * Math.log10(0.5), 1);
    // 7500 Hz is on for half the segments (and partly in the one across the middle): about −20 − 3 dB.
    const b = peak(s, 5000, 10000);
    expect(b.f).toBe(7500);
    expect(Math.abs(b.level - (-20 - 10 * Math.log10(2)))).toBeLessThan(0.5);
    for (const k of [128, 300, 640, 1500])
      expect(Math.abs(s.data[k] - welchDb(signal, 0, N, 4096, k)), `bin ${k}`).toBeLessThan(0.01);
    const p = c.progressOf(id);
    expect(p.length).toBeGreaterThan(0);
    expect(p[p.length - 1]).toMatchObject({ done: N, total: N, unit: 'frames' });
    c.conn.close();
  });

  it('averages only the range asked for, and only the band', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const early = await c.ok<Spectrum>('fileSpectrum', { file: f.file, start: 0, end: N / 2 });
    const lateHalf = await c.ok<Spectrum>('fileSpectrum', { file: f.file, start: N / 2, end: N, fft: 2048 });
    expect(lateHalf).toMatchObject({ start: N / 2, end: N, fft: 2048, bins: 1025 });
    // The late tone: absent before the middle, −20 dBFS after.
    expect(early.data[640]).toBeLessThan(-60);
    expect(peak(lateHalf, 5000, 10000)).toEqual({ f: 7500, level: expect.closeTo(-20, 1) });
    expect(Math.abs(lateHalf.data[320] - welchDb(signal, N / 2, N, 2048, 320))).toBeLessThan(0.01);
    // A band: bins from the first at or above fLow to the last at or below fHigh.
    const band = await c.ok<Spectrum>('fileSpectrum', { file: f.file, fLow: 1000, fHigh: 2000 });
    expect(band.f0).toBeCloseTo(86 * (FS / 4096), 9);
    expect(band.bins).toBe(170 - 86 + 1);
    expect(peak(band).f).toBe(1500);
    // A range shorter than the default segment takes a shorter one.
    const short = await c.ok<Spectrum>('fileSpectrum', { file: f.file, start: 1000, end: 4000 });
    expect(short.fft).toBe(2048);
    c.conn.close();
  });

  it('returns the max and min hold over the segments beside the mean, matching float64', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const s = await c.ok<Spectrum>('fileSpectrum', {
      file: f.file,
      fft: 2048,
      traces: ['mean', 'max', 'min'],
    });
    expect(s.traces).toEqual(['mean', 'max', 'min']);
    expect(s.bins).toBe(1025);
    expect(s.data.length).toBe(3 * 1025);
    const trace = (j: number) => s.data.subarray(j * s.bins, (j + 1) * s.bins);
    const [mean, max, min] = [trace(0), trace(1), trace(2)];
    for (const k of [64, 125, 320, 700]) {
      const segs = segmentDbs(signal, 0, N, 2048, k);
      expect(Math.abs(mean[k] - welchDb(signal, 0, N, 2048, k)), `mean ${k}`).toBeLessThan(0.01);
      expect(Math.abs(max[k] - Math.max(...segs)), `max ${k}`).toBeLessThan(0.01);
      // The quietest segment of a noise bin may lie 30 dB under the noise: float32's rounding shows there.
      const lowest = Math.min(...segs);
      expect(Math.abs(min[k] - lowest), `min ${k} at ${lowest}`).toBeLessThan(lowest < -90 ? 0.2 : 0.01);
      expect(max[k]).toBeGreaterThanOrEqual(mean[k]);
      expect(min[k]).toBeLessThanOrEqual(mean[k]);
    }
    // 7500 Hz (bin 320) is on in the second half only: the max hold reads its full −20 dBFS, the mean
    // about 3 dB less, the min hold the noise.
    expect(max[320]).toBeCloseTo(-20, 1);
    expect(Math.abs(mean[320] - (-20 - 10 * Math.log10(2)))).toBeLessThan(0.5);
    expect(min[320]).toBeLessThan(-60);
    // 1500 Hz is on throughout: all three read it.
    for (const t of [mean, max, min]) expect(t[64]).toBeCloseTo(20 * Math.log10(0.5), 1);
    // Only the holds asked for, in that order; the default is the mean alone.
    const holds = await c.ok<Spectrum>('fileSpectrum', { file: f.file, fft: 2048, traces: ['min', 'max'] });
    expect(holds.traces).toEqual(['min', 'max']);
    expect(Array.from(holds.data.subarray(0, 1025))).toEqual(Array.from(min));
    expect(Array.from(holds.data.subarray(1025))).toEqual(Array.from(max));
    const plain = await c.ok<Spectrum>('fileSpectrum', { file: f.file, fft: 2048 });
    expect(plain.traces).toEqual(['mean']);
    expect(Array.from(plain.data)).toEqual(Array.from(mean));
    const bad = await c.error('fileSpectrum', { file: f.file, traces: ['peak'] });
    expect(bad.message).toMatch(/traces/);
    c.conn.close();
  });

  it('reads I/Q in absolute frequencies around the centre', async () => {
    const c = new Client(engine);
    const f = await open(c, 'iq.cf32', { rate: RATE, center: CENTER });
    const s = await c.ok<Spectrum>('fileSpectrum', { file: f.file, fft: 1024 });
    expect(s.bins).toBe(1024);
    expect(s.f0).toBeCloseTo(CENTER - RATE / 2, 3);
    const p = peak(s);
    // 125 kHz is bin 128 of 1024 above the centre: on a bin.
    expect(p.f).toBeCloseTo(CENTER + 125e3, 3);
    expect(p.level).toBeCloseTo(20 * Math.log10(0.25), 1);
    const band = await c.ok<Spectrum>('fileSpectrum', {
      file: f.file,
      fft: 1024,
      fLow: CENTER,
      fHigh: CENTER + 2e5,
    });
    expect(band.f0).toBeCloseTo(CENTER, 3);
    expect(peak(band).f).toBeCloseTo(CENTER + 125e3, 3);
    c.conn.close();
  });

  it('refuses a range shorter than the segment, and a channel the file lacks', async () => {
    const c = new Client(engine);
    const f = await open(c, 'tones.wav');
    const e = await c.error('fileSpectrum', { file: f.file, start: 0, end: 1000, fft: 4096 });
    expect(e.message).toMatch(/1000 frames, fewer than one segment of 4096/);
    const ch = await c.error('fileSpectrum', { file: f.file, channel: 1 });
    expect(ch.message).toMatch(/channel 1 does not exist/);
    c.conn.close();
  });

  it('opens a SigMF recording with the start time of its sample 0, a WAV without one', async () => {
    writeCf32(join(tmp.dir, 'rec.sigmf-data'), iq);
    writeFileSync(
      join(tmp.dir, 'rec.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'cf32_le', 'core:sample_rate': RATE, 'core:version': '1.2.0' },
        // The capture's first sample (frame 500000) was taken at 12:00:00.5: frame 0 half a second earlier.
        captures: [
          {
            'core:sample_start': 500000,
            'core:frequency': CENTER,
            'core:datetime': '2025-03-04T12:00:00.5Z',
          },
        ],
      }),
    );
    const c = new Client(engine);
    expect((await open(c, 'rec.sigmf-meta')).startTime).toBe('2025-03-04T12:00:00.000Z');
    expect((await open(c, 'tones.wav')).startTime).toBeUndefined();
    c.conn.close();
  });
});

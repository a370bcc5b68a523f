import { describe, expect, it } from 'vitest';
import { sanitizeSettings } from '../../renderer/src/lib/settings-schema.js';
import { SHORTCUTS, shortcutFor } from '../../renderer/src/lib/shortcuts.js';
import { spectrumCsv } from '../../renderer/src/lib/spectrum-csv.js';
import { autoRange, medianLevel, rbwHz, TraceModes, unitOffset } from '../../renderer/src/lib/traces.js';

/** Deterministic uniform numbers in [0, 1) (an LCG), so every run sees the same rows. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * `count` rows of `width` dB levels as a display receives them: exponential (chi-square, 2 degrees of
 * freedom) noise power around −90 dB, with a tone at column 7 whose level wanders by a few dB.
 */
function rows(count: number, width: number, seed = 1): Float32Array {
  const rnd = lcg(seed);
  const out = new Float32Array(count * width);
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < width; c++) {
      const noise = -Math.log(1 - rnd()) * 1e-9;
      const tone = c === 7 ? 10 ** ((-6 + 4 * (rnd() - 0.5)) / 10) : 0;
      out[r * width + c] = 10 * Math.log10(noise + tone);
    }
  }
  return out;
}

const db = (p: number): number => 10 * Math.log10(p);
const lin = (d: number): number => 10 ** (d / 10);

describe('trace modes', () => {
  const W = 16;
  const N = 40;
  const data = rows(N, W);

  it('clear-write shows the latest row, max and min hold every row', () => {
    const t = new TraceModes({ mode: 'clear', alpha: 0.1, frames: 4 });
    // Rows arrive in messages of varying size.
    for (let r = 0, k = 1; r < N; r += k, k = (k % 3) + 1) {
      const n = Math.min(k, N - r);
      t.push(data.subarray(r * W, (r + n) * W), n, W);
    }
    for (let c = 0; c < W; c++) {
      let max = -Infinity;
      let min = Infinity;
      for (let r = 0; r < N; r++) {
        max = Math.max(max, data[r * W + c]);
        min = Math.min(min, data[r * W + c]);
      }
      expect(t.main[c]).toBe(data[(N - 1) * W + c]);
      expect(t.max[c]).toBe(max);
      expect(t.min[c]).toBe(min);
    }
    t.resetHolds();
    expect(t.max.every((v) => v === -Infinity) && t.min.every((v) => v === Infinity)).toBe(true);
  });

  it('takes the engine peak into the max hold (rows the display never saw)', () => {
    const t = new TraceModes({ mode: 'clear', alpha: 0.1, frames: 4 });
    const peak = new Float32Array(W).fill(-200);
    peak[3] = -1.5;
    t.push(data.subarray(0, W), 1, W, peak);
    expect(t.max[3]).toBe(-1.5);
    expect(t.max[4]).toBe(data[4]);
  });

  it('averages exponentially on linear power, like the float64 recursion', () => {
    const alpha = 0.2;
    const t = new TraceModes({ mode: 'exp', alpha, frames: 4 });
    for (let r = 0; r < N; r += 5) t.push(data.subarray(r * W, (r + 5) * W), 5, W);
    for (let c = 0; c < W; c++) {
      let avg = lin(data[c]);
      for (let r = 1; r < N; r++) avg = alpha * lin(data[r * W + c]) + (1 - alpha) * avg;
      expect(t.main[c]).toBeCloseTo(db(avg), 4);
    }
    expect(t.averaged).toBe(N);
  });

  it('averages the last N frames linearly in power, filling up first', () => {
    const frames = 6;
    const t = new TraceModes({ mode: 'linear', alpha: 0.1, frames });
    const ref = (upTo: number, c: number): number => {
      let s = 0;
      const from = Math.max(0, upTo - frames);
      for (let r = from; r < upTo; r++) s += lin(data[r * W + c]);
      return db(s / (upTo - from));
    };
    t.push(data.subarray(0, 3 * W), 3, W);
    for (let c = 0; c < W; c++) expect(t.main[c]).toBeCloseTo(ref(3, c), 4);
    for (let r = 3; r < N; r++) t.push(data.subarray(r * W, (r + 1) * W), 1, W);
    for (let c = 0; c < W; c++) expect(t.main[c]).toBeCloseTo(ref(N, c), 4);
    expect(t.averaged).toBe(frames);
  });

  it('averages power, not decibels: 0 dB and −20 dB average to −2.967 dB', () => {
    const t = new TraceModes({ mode: 'linear', alpha: 0.1, frames: 2 });
    t.push(Float32Array.of(0, -20), 2, 1);
    // 10·log10((1 + 0.01) / 2) = −2.9670…; the mean of the decibels would be −10.
    expect(t.main[0]).toBeCloseTo(-2.967086, 5);
  });

  it('starts again on a new mode or width and refuses bad settings', () => {
    const t = new TraceModes({ mode: 'linear', alpha: 0.1, frames: 4 });
    t.push(data.subarray(0, 4 * W), 4, W);
    t.configure({ mode: 'linear', alpha: 0.1, frames: 3 });
    t.push(data.subarray(4 * W, 5 * W), 1, W);
    expect(t.main[7]).toBeCloseTo(data[4 * W + 7], 4);
    t.push(data.subarray(0, 8), 1, 8);
    expect(t.width).toBe(8);
    expect(t.max[0]).toBe(data[0]);
    expect(() => new TraceModes({ mode: 'linear', alpha: 0.1, frames: 1 })).toThrow(/frames/);
    expect(() => new TraceModes({ mode: 'exp', alpha: 0, frames: 4 })).toThrow(/factor/);
  });
});

describe('level units and auto-range', () => {
  it('gives RBW = ENBW·fs/N and the density offset −10·log10(RBW)', () => {
    // Hann (ENBW 1.5 bins), 48 kHz, 4096 points: 17.578125 Hz, −12.449725 dB.
    expect(rbwHz(1.5, 48000, 4096)).toBe(17.578125);
    expect(unitOffset('dBFS/Hz', 1.5, 48000, 4096)).toBeCloseTo(-12.449725, 5);
    expect(unitOffset('dBFS', 1.5, 48000, 4096)).toBe(0);
  });

  it('brackets the median floor and the strongest level, rounded to 5 dB', () => {
    const W = 200;
    const levels = rows(1, W, 3);
    const floor = medianLevel(levels);
    const sorted = Array.from(levels).sort((a, b) => a - b);
    expect(floor).toBe((sorted[99] + sorted[100]) / 2);
    const r = autoRange(levels, null)!;
    expect(r.dbMin).toBe(Math.floor((floor - 10) / 5) * 5);
    expect(r.dbMax).toBe(Math.ceil((Math.max(...levels) + 5) / 5) * 5);
    expect(r.dbMin).toBeLessThan(floor);
    expect(r.dbMax).toBeGreaterThan(levels[7]);
    // A hold above the trace raises the top; in dBFS/Hz the ends are round in that unit.
    const hold = new Float32Array(W).fill(-100);
    hold[50] = 3;
    expect(autoRange(levels, hold)!.dbMax).toBe(10);
    const off = unitOffset('dBFS/Hz', 1.5, 48000, 4096);
    const d = autoRange(levels, null, { offset: off })!;
    expect((d.dbMin + off) % 5).toBeCloseTo(0, 9);
    expect(d.dbMin + off).toBe(Math.floor((floor + off - 10) / 5) * 5);
    expect(autoRange(new Float32Array(4).fill(NaN), null)).toBeNull();
  });
});

describe('spectrum CSV', () => {
  it('has comments, a header with units, and one line per frequency', () => {
    const csv = spectrumCsv(
      [0, 11.71875, 23.4375],
      [
        { name: 'clear-write', unit: 'dBFS/Hz', levels: [-100, -6.5, -90], offset: -10 },
        { name: 'max hold', unit: 'dBFS/Hz', levels: [-Infinity, -6, -80.25], offset: -10 },
      ],
      [
        ['fft', 4096],
        ['window', 'hann'],
      ],
    );
    expect(csv.split('\n')).toEqual([
      '# fft: 4096',
      '# window: hann',
      'frequency (Hz),clear-write (dBFS/Hz),max hold (dBFS/Hz)',
      '0,-110,',
      '11.719,-16.5,-16',
      '23.438,-100,-90.25',
      '',
    ]);
  });
});

describe('trace settings and keys', () => {
  it('keeps valid stored trace settings and drops each invalid one on its own', () => {
    const notes: string[] = [];
    const s = sanitizeSettings(
      { traceMode: 'linear', traceFrames: 1, traceAlpha: 0.05, levelUnit: 'dBm', showMin: true },
      notes,
    );
    expect(s).toMatchObject({
      traceMode: 'linear',
      traceFrames: 16,
      traceAlpha: 0.05,
      levelUnit: 'dBFS',
      showMin: true,
    });
    expect(notes).toHaveLength(2);
  });

  it('maps A, M, K, N and Delete to the measurements, never from a text field, each one listed', () => {
    expect(shortcutFor({ key: 'a' })).toBe('autoRange');
    expect(shortcutFor({ key: 'M' })).toBe('addMarker');
    expect(shortcutFor({ key: 'k' })).toBe('snapMarker');
    expect(shortcutFor({ key: 'n' })).toBe('nextPeak');
    expect(shortcutFor({ key: 'Delete' })).toBe('removeMarker');
    expect(shortcutFor({ key: 'Backspace', target: { tagName: 'INPUT', type: 'number' } })).toBe(null);
    expect(shortcutFor({ key: 'm', target: { tagName: 'INPUT', type: 'text' } })).toBe(null);
    for (const a of ['autoRange', 'addMarker', 'snapMarker', 'nextPeak', 'removeMarker']) {
      expect(SHORTCUTS.some((s) => s.action === a)).toBe(true);
    }
  });
});

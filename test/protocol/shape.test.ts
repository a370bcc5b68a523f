// The analysis-shape module against NumPy's and SciPy's conventions (test/fixtures/protocol/shape.json,
// written by test/fixtures/make_shape_fixtures.py): rfftfreq for real spectra, fftshift(fftfreq) plus the
// centre for complex ones, scipy.signal.spectrogram's segment count and segment-centre times; and the
// protocol's schemas against the limits and defaults declared there.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analysisSchema, defaultAnalysis, requestSchemas } from '../../electron/engine/protocol/messages.js';
import {
  binFrequencies,
  binFrequency,
  binRange,
  binShift,
  binWidth,
  columnBins,
  COLUMNS_MAX,
  DEFAULT_AVERAGING,
  DEFAULT_COLUMNS,
  DEFAULT_FFT,
  DEFAULT_FILE_OVERLAP,
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
  FFT_SIZE_MIN,
  FILE_FFT_SIZE_MAX,
  frameColumns,
  frameCount,
  frameCentreTime,
  framePeriod,
  frameRate,
  frameStartTime,
  frequencyBin,
  hopFromOverlap,
  LIVE_FFT_SIZE_MAX,
  OVERLAP_MAX,
  overlapFromHop,
  responseFrequency,
  spectrumBins,
  streamBand,
} from '../../electron/engine/protocol/shape.js';
import { defaultSettings } from '../../renderer/src/lib/settings-schema.js';

interface SpectrumCase {
  n: number;
  fs: number;
  centre: number | null;
  real: number[];
  complex: number[];
}
interface SpectrogramCase {
  samples: number;
  n: number;
  hop: number;
  fs: number;
  complex: boolean;
  frames: number;
  times: number[];
  frequencies: number[];
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/protocol/shape.json', import.meta.url), 'utf8'),
) as { spectra: SpectrumCase[]; spectrograms: SpectrogramCase[] };

/** Largest difference relative to the largest magnitude of the reference (0 for equal arrays). */
function relError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(got.length).toBe(want.length);
  let scale = 0;
  let err = 0;
  for (let i = 0; i < want.length; i++) {
    scale = Math.max(scale, Math.abs(want[i]));
    err = Math.max(err, Math.abs(got[i] - want[i]));
  }
  return scale > 0 ? err / scale : err;
}

describe('bin frequencies', () => {
  for (const c of fixture.spectra) {
    const centre = c.centre ?? undefined;
    it(`n = ${c.n}, fs = ${c.fs}${centre !== undefined ? `, centre ${centre}` : ''}: rfftfreq and fftshift(fftfreq)`, () => {
      expect(spectrumBins(c.n, false)).toBe(c.real.length);
      expect(spectrumBins(c.n, true)).toBe(c.complex.length);
      expect(relError(binFrequencies(c.n, c.fs, false), c.real)).toBeLessThan(1e-15);
      // Real spectra start at 0 Hz whatever the centre.
      expect(relError(binFrequencies(c.n, c.fs, false, centre), c.real)).toBeLessThan(1e-15);
      expect(relError(binFrequencies(c.n, c.fs, true, centre), c.complex)).toBeLessThan(1e-15);
      const one = Array.from({ length: c.n }, (_, k) => binFrequency(k, c.n, c.fs, true, centre));
      expect(one).toEqual(Array.from(binFrequencies(c.n, c.fs, true, centre)));
      // The 0 Hz (centre) bin.
      expect(c.complex[binShift(c.n, true)]).toBe(centre ?? 0);
      expect(c.real[binShift(c.n, false)]).toBe(0);
      expect(binWidth(c.fs, c.n)).toBeCloseTo(c.real[1] - c.real[0], 9);
      const [lo, hi] = binRange(c.n, c.fs, true, centre);
      expect(lo).toBeCloseTo(c.complex[0], 6);
      expect(hi).toBeCloseTo(c.complex[c.n - 1], 6);
      const [rlo, rhi] = binRange(c.n, c.fs, false);
      expect(rlo).toBe(0);
      expect(rhi).toBeCloseTo(c.real[c.real.length - 1], 9);
    });
  }

  it('frequencyBin inverts binFrequency, fractional bins included', () => {
    for (const [n, fs, complex, centre] of [
      [16, 48000, false, undefined],
      [17, 2.4e6, true, 100e6],
      [1024, 1e6, true, undefined],
    ] as const) {
      for (const k of [0, 0.25, 1, n / 2, n - 1.5]) {
        if (!complex && k > n / 2) continue;
        const f = binFrequency(k, n, fs, complex, centre);
        expect(frequencyBin(f, n, fs, complex, centre)).toBeCloseTo(k, 6);
      }
    }
  });

  it('the band a stream holds: [0, fs/2] real, centre ± fs/2 complex', () => {
    expect(streamBand(48000, false)).toEqual([0, 24000]);
    expect(streamBand(48000, false, 1e6)).toEqual([0, 24000]);
    expect(streamBand(2e6, true)).toEqual([-1e6, 1e6]);
    expect(streamBand(2e6, true, 100e6)).toEqual([99e6, 101e6]);
  });

  it('a filter response grid runs from 0 to fs/2 in equal steps', () => {
    const fs = 44100;
    const points = 7;
    const grid = Array.from({ length: points }, (_, i) => responseFrequency(i, points, fs));
    expect(grid[0]).toBe(0);
    expect(grid[points - 1]).toBe(fs / 2);
    for (let i = 1; i < points; i++) expect(grid[i] - grid[i - 1]).toBeCloseTo(fs / 2 / (points - 1), 9);
    expect(responseFrequency(0, 1, fs)).toBe(0);
  });
});

describe('frames and their times', () => {
  for (const c of fixture.spectrograms) {
    it(`${c.samples} samples, n = ${c.n}, hop ${c.hop}${c.complex ? ', complex' : ''}: scipy.signal.spectrogram`, () => {
      expect(frameCount(c.samples, c.n, c.hop)).toBe(c.frames);
      const centres = c.times.map((_, f) => frameCentreTime(f, c.n, c.hop, c.fs));
      expect(relError(centres, c.times)).toBeLessThan(1e-15);
      const starts = c.times.map((_, f) => frameStartTime(f, c.hop, c.fs));
      for (let f = 0; f < c.frames; f++) expect(starts[f] + c.n / 2 / c.fs).toBeCloseTo(c.times[f], 12);
      expect(relError(binFrequencies(c.n, c.fs, c.complex), c.frequencies)).toBeLessThan(1e-15);
      expect(framePeriod(c.hop, c.fs)).toBeCloseTo(c.frames > 1 ? c.times[1] - c.times[0] : c.hop / c.fs, 12);
      expect(frameRate(c.hop, c.fs) * framePeriod(c.hop, c.fs)).toBeCloseTo(1, 12);
    });
  }

  it('a stream shorter than a frame gives none; frames counted from an offset start later', () => {
    expect(frameCount(15, 16, 4)).toBe(0);
    expect(frameCount(16, 16, 4)).toBe(1);
    expect(frameCount(19, 16, 4)).toBe(1);
    expect(frameCount(20, 16, 4)).toBe(2);
    expect(frameStartTime(3, 100, 1000, 50)).toBeCloseTo(0.35, 15);
    expect(frameCentreTime(3, 64, 100, 1000, 50)).toBeCloseTo(0.382, 15);
  });

  it('hop from an overlap, and back', () => {
    expect(hopFromOverlap(2048, 0.75)).toBe(512);
    expect(hopFromOverlap(1000, 0.5)).toBe(500);
    expect(hopFromOverlap(1001, 0.75)).toBe(250);
    expect(hopFromOverlap(16, 0.99)).toBe(1); // never 0
    for (const [n, o] of [
      [2048, 0.75],
      [4096, 0.5],
      [1024, 0],
    ] as const) {
      expect(overlapFromHop(n, hopFromOverlap(n, o))).toBe(o);
    }
  });
});

describe('columns', () => {
  it('columnBins splits the bins into contiguous, non-empty runs covering them all', () => {
    for (const [bins, width] of [
      [1025, 800],
      [2048, 2048],
      [513, 7],
      [100, 99],
    ]) {
      let next = 0;
      for (let c = 0; c < width; c++) {
        const [lo, hi] = columnBins(c, bins, width);
        expect(lo).toBe(next);
        expect(hi).toBeGreaterThan(lo);
        next = hi;
      }
      expect(next).toBe(bins);
    }
    expect(columnBins(5, 10, 20)).toEqual([5, 6]);
  });

  it('frameColumns covers every column, in order, whether frames outnumber columns or not', () => {
    for (const [frames, width] of [
      [1000, 300],
      [300, 1000],
      [7, 7],
      [1, 50],
    ]) {
      const covered = new Uint8Array(width);
      let last = 0;
      for (let f = 0; f < frames; f++) {
        const [x0, x1] = frameColumns(f, frames, width);
        expect(x0).toBeGreaterThanOrEqual(last - 1);
        expect(x1).toBeGreaterThan(x0);
        expect(x1).toBeLessThanOrEqual(width);
        covered.fill(1, x0, x1);
        last = x1;
      }
      expect(covered.every((v) => v === 1)).toBe(true);
    }
  });
});

describe('limits and defaults', () => {
  it('the protocol schemas and the renderer settings take them from the shape module', () => {
    expect(defaultAnalysis).toEqual({
      fft: DEFAULT_FFT,
      overlap: DEFAULT_OVERLAP,
      window: DEFAULT_WINDOW,
      averaging: DEFAULT_AVERAGING,
      columns: DEFAULT_COLUMNS,
    });
    const ok = (a: Partial<typeof defaultAnalysis>): boolean =>
      analysisSchema.safeParse({ ...defaultAnalysis, ...a }).success;
    expect(ok({ fft: FFT_SIZE_MIN })).toBe(true);
    expect(ok({ fft: FFT_SIZE_MIN - 1 })).toBe(false);
    expect(ok({ fft: LIVE_FFT_SIZE_MAX })).toBe(true);
    expect(ok({ fft: LIVE_FFT_SIZE_MAX + 1 })).toBe(false);
    expect(ok({ overlap: OVERLAP_MAX })).toBe(true);
    expect(ok({ overlap: OVERLAP_MAX + 0.01 })).toBe(false);
    expect(ok({ columns: COLUMNS_MAX })).toBe(true);
    expect(ok({ columns: COLUMNS_MAX + 1 })).toBe(false);

    const file = (p: object) =>
      requestSchemas.fileSpectrogram.safeParse({ file: 0, width: 10, height: 10, ...p });
    expect(file({ fft: FILE_FFT_SIZE_MAX }).success).toBe(true);
    expect(file({ fft: FILE_FFT_SIZE_MAX + 1 }).success).toBe(false);
    const parsed = file({});
    expect(parsed.success && parsed.data.overlap).toBe(DEFAULT_FILE_OVERLAP);
    expect(parsed.success && parsed.data.window).toBe(DEFAULT_WINDOW);

    const s = defaultSettings();
    expect([s.fft, s.overlap, s.window, s.averaging]).toEqual([
      DEFAULT_FFT,
      DEFAULT_OVERLAP,
      DEFAULT_WINDOW,
      DEFAULT_AVERAGING,
    ]);
  });
});

import { createPinia, setActivePinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import {
  findPeaks,
  frequencyAt,
  indexOf,
  levelAt,
  nextPeak,
  peakFrequency,
  readMarkers,
  snapToPeak,
  strongestPeak,
  type Trace,
} from '../../renderer/src/lib/markers.js';
import { useFileMarkersStore, useMarkersStore } from '../../renderer/src/stores/markers.js';

const N = 1024;
const FS = 48000;
const DF = FS / N;

/**
 * Level (dBFS, AES17: a full-scale sine reads 0 dB) of each bin of a Hann-windowed real signal of tones
 * (frequency Hz, amplitude) plus a −120 dB floor, by a float64 DFT.
 */
function spectrum(tones: Array<[number, number]>): Float64Array {
  const x = new Float64Array(N);
  let sum = 0;
  const w = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    w[n] = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N);
    sum += w[n];
    for (const [f, a] of tones) x[n] += a * Math.cos((2 * Math.PI * f * n) / FS + 0.3);
  }
  const out = new Float64Array(N / 2 + 1);
  for (let k = 0; k <= N / 2; k++) {
    let re = 0;
    let im = 0;
    for (let n = 0; n < N; n++) {
      const v = x[n] * w[n];
      re += v * Math.cos((2 * Math.PI * k * n) / N);
      im -= v * Math.sin((2 * Math.PI * k * n) / N);
    }
    const amp = (2 * Math.hypot(re, im)) / sum;
    out[k] = 20 * Math.log10(amp + 1e-6);
  }
  return out;
}

const TONES: Array<[number, number]> = [
  [3010.3, 0.5], // −6.02 dBFS
  [7220.9, 0.25], // −12.04 dBFS
  [12345.6, 0.05], // −26.02 dBFS
];
const levels = spectrum(TONES);
const grid: Trace = { levels, f0: 0, df: DF, time: 1.25 };

describe('reading a trace', () => {
  it('maps frequency to column and back, on a grid and on listed frequencies', () => {
    const freqs = Float64Array.from(levels, (_, i) => i * DF);
    const listed: Trace = { levels, frequencies: freqs };
    for (const f of [0, 100, 3010.3, 23999]) {
      expect(indexOf(grid, f)).toBeCloseTo(f / DF, 9);
      expect(indexOf(listed, f)).toBeCloseTo(f / DF, 9);
      expect(frequencyAt(listed, f / DF)).toBeCloseTo(f, 6);
    }
    expect(indexOf(grid, -5)).toBe(0);
    expect(indexOf(listed, 1e9)).toBe(levels.length - 1);
  });

  it('reads levels between columns on the parabola through the nearest three', () => {
    // x = 40.7: nearest column 41, t = −0.3; Lagrange through columns 40, 41, 42.
    const [a, b, c] = [levels[40], levels[41], levels[42]];
    const t = -0.3;
    const expected = (a * t * (t - 1)) / 2 - b * (t + 1) * (t - 1) + (c * t * (t + 1)) / 2;
    expect(levelAt(grid, 40.7 * DF)).toBeCloseTo(expected, 9);
    // On an exact parabola it is exact between columns, but never above the highest of the three.
    const parabola: Trace = {
      levels: Array.from({ length: 11 }, (_, i) => 3 - (i - 5.3) ** 2),
      f0: 0,
      df: 1,
    };
    expect(levelAt(parabola, 5.3)).toBeCloseTo(3 - 0.3 ** 2, 12);
    expect(levelAt(parabola, 2.45)).toBeCloseTo(3 - (2.45 - 5.3) ** 2, 12);
    expect(levelAt(grid, 40 * DF)).toBe(levels[40]);
    expect(levelAt(grid, -1)).toBeNaN();
  });
});

describe('peaks', () => {
  it('finds the tones, strongest first, and not the window skirts or the floor', () => {
    const p = findPeaks(levels);
    expect(p.slice(0, 3)).toEqual(TONES.map(([f]) => Math.round(f / DF)));
    // Each found peak is a tone: nothing else in this spectrum rises 6 dB above its surroundings.
    expect(p.length).toBe(3);
  });

  it('refines a peak between columns by the parabola through three levels', () => {
    // Levels on an exact parabola with its top at column 5.3.
    const parabola: Trace = {
      levels: Array.from({ length: 11 }, (_, i) => -((i - 5.3) ** 2)),
      f0: 100,
      df: 10,
    };
    expect(peakFrequency(parabola, 5)).toBeCloseTo(153, 9);
    // A lone column over the floor (an on-bin tone in columns of two bins) is not refined.
    expect(peakFrequency({ levels: [-110, -12, -6, -110, -111], f0: 0, df: 10 }, 2)).toBe(20);
    // A Hann-windowed tone: within 0.1 bin of its frequency.
    for (const [f] of TONES)
      expect(Math.abs(peakFrequency(grid, Math.round(f / DF)) - f)).toBeLessThan(0.1 * DF);
  });

  it('snaps to the highest level within ±N columns, places on unmarked peaks, and steps to the next peak', () => {
    const [f1, f2, f3] = TONES.map(([f]) => f);
    expect(Math.abs(snapToPeak(grid, f1 + 6 * DF, 10) - f1)).toBeLessThan(0.1 * DF);
    // Too far for ±3 columns: the marker stays on the skirt (the highest level in reach).
    expect(Math.abs(snapToPeak(grid, f1 + 6 * DF, 3) - (f1 + 3 * DF))).toBeLessThan(DF);
    const first = strongestPeak(grid)!;
    expect(Math.abs(first - f1)).toBeLessThan(0.1 * DF);
    const second = strongestPeak(grid, [first])!;
    expect(Math.abs(second - f2)).toBeLessThan(0.1 * DF);
    expect(Math.abs(strongestPeak(grid, [first, second])! - f3)).toBeLessThan(0.1 * DF);
    expect(strongestPeak(grid, [f1, f2, f3])).toBeNull();
    expect(Math.abs(nextPeak(grid, first)! - f2)).toBeLessThan(0.1 * DF);
    expect(Math.abs(nextPeak(grid, f2)! - f3)).toBeLessThan(0.1 * DF);
    expect(nextPeak(grid, f3)).toBeNull();
  });
});

describe('marker readings', () => {
  it('gives level and time on the trace and differences to the reference', () => {
    const markers = [
      { id: 1, frequency: 3010.3 },
      { id: 2, frequency: 7220.9 },
    ];
    const r = readMarkers(markers, grid, 1);
    const l1 = levelAt(grid, 3010.3);
    const l2 = levelAt(grid, 7220.9);
    expect(r[0]).toMatchObject({
      id: 1,
      level: l1,
      time: 1.25,
      deltaFrequency: 0,
      deltaLevel: 0,
      reference: true,
    });
    expect(r[1].deltaFrequency).toBeCloseTo(7220.9 - 3010.3, 9);
    expect(r[1].deltaLevel).toBeCloseTo(l2 - l1, 12);
    // Markers on the refined peaks read the peak bins: the tones' levels, 6.02 dB apart, less the
    // scalloping of tones 0.22 and 0.04 bin off their bins (Hann: under 0.3 dB).
    const onPeaks = readMarkers(
      TONES.slice(0, 2).map(([f], i) => ({ id: i + 1, frequency: peakFrequency(grid, Math.round(f / DF)) })),
      grid,
      1,
    );
    expect(onPeaks[0].level).toBe(levels[Math.round(3010.3 / DF)]);
    expect(Math.abs(onPeaks[0].level - 20 * Math.log10(0.5))).toBeLessThan(0.3);
    expect(Math.abs(onPeaks[1].deltaLevel - 20 * Math.log10(0.5))).toBeLessThan(0.3);
    expect(readMarkers(markers, grid, null)[1].deltaLevel).toBeNaN();
  });

  it('reads a marker with a time and level of its own (a spectrogram point) beside trace markers', () => {
    const markers = [
      { id: 1, frequency: 1000, time: 0.5, level: -12.5 },
      { id: 2, frequency: 3000, time: 1.75, level: -30 },
      { id: 3, frequency: 7220.9 },
    ];
    const r = readMarkers(markers, grid, 1);
    expect(r[0]).toMatchObject({ level: -12.5, time: 0.5, deltaTime: 0, deltaLevel: 0, reference: true });
    expect(r[1]).toMatchObject({ level: -30, time: 1.75, deltaFrequency: 2000, deltaLevel: -17.5 });
    expect(r[1].deltaTime).toBeCloseTo(1.25, 12);
    // Without a time of its own a marker stands at the trace's time and reads the trace.
    expect(r[2].time).toBe(1.25);
    expect(r[2].deltaTime).toBeCloseTo(0.75, 12);
    expect(r[2].level).toBe(levelAt(grid, 7220.9));
    expect(readMarkers(markers, grid, 3)[0].deltaTime).toBeCloseTo(-0.75, 12);
  });
});

describe('the File view markers store', () => {
  it('keeps its own set; a spectrogram marker keeps its time and level through moves', () => {
    setActivePinia(createPinia());
    const file = useFileMarkersStore();
    const live = useMarkersStore();
    const a = file.add(1000, 0.5, -10)!;
    const b = file.add(3000)!;
    expect(live.markers).toEqual([]);
    expect(file.markers).toEqual([
      { id: a, frequency: 1000, time: 0.5, level: -10 },
      { id: b, frequency: 3000 },
    ]);
    // A level that is not finite is not kept (the pixel under it was not drawn).
    file.move(a, 1100, 0.75, NaN);
    expect(file.markers[0]).toEqual({ id: a, frequency: 1100, time: 0.75, level: -10 });
    file.setLevel(a, -12);
    file.setLevel(b, -5); // a trace marker reads the trace: no level of its own
    expect(file.markers.map((m) => m.level)).toEqual([-12, undefined]);
    file.update(grid);
    expect(file.readings[1].deltaTime).toBeCloseTo(1.25 - 0.75, 12);
    expect(file.readings[1].deltaFrequency).toBeCloseTo(3000 - 1100, 9);
    expect(file.readings[0].level).toBe(-12);
  });
});

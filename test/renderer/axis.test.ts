// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import {
  columnToFrequency,
  formatFrequency,
  frequencyTicks,
  frequencyToColumn,
  frequencyToScreen,
  levelTicks,
  makeFrequencyAxis,
  minViewSpan,
  niceStep,
  panView,
  screenToFrequency,
  timeTicks,
  zoomView,
} from '../../renderer/src/lib/axis.js';

/** Deterministic uniform numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe('frequency axis mapping', () => {
  const fs = 48000;
  const fft = 2048;
  const bins = fft / 2 + 1;

  it('puts every column of an unreduced row at its bin frequency k·fs/N', () => {
    const axis = makeFrequencyAxis([0, fs / 2], bins, bins, false);
    for (const k of [0, 1, 42, 512, 1024]) {
      expect(columnToFrequency(axis, k)).toBeCloseTo((k * fs) / fft, 9);
      // The bin's frequency lies in the middle of its column.
      expect(frequencyToColumn(axis, (k * fs) / fft)).toBeCloseTo(k + 0.5, 9);
    }
  });

  it('names a reduced column by the middle of the bins the engine took its maximum over', () => {
    // 1025 bins into 956 columns: column c holds bins floor(c·1025/956) … floor((c+1)·1025/956) − 1.
    const axis = makeFrequencyAxis([0, fs / 2], bins, 956, false);
    const binHz = fs / fft;
    expect(columnToFrequency(axis, 120)).toBe(3000); // bin 128 alone
    for (let c = 0; c < 956; c++) {
      const lo = Math.floor((c * bins) / 956);
      const hi = Math.floor(((c + 1) * bins) / 956);
      expect(columnToFrequency(axis, c)).toBeCloseTo(((lo + hi - 1) / 2) * binHz, 9);
    }
    // Between two columns: between their frequencies.
    const mid = columnToFrequency(axis, 120.25);
    expect(mid).toBeCloseTo(3000 + 0.25 * (columnToFrequency(axis, 121) - 3000), 9);
  });

  it('maps screen fractions to frequencies and back (linear and log, zoomed)', () => {
    const next = rng(7);
    for (const log of [false, true]) {
      const axis = makeFrequencyAxis([0, fs / 2], bins, 700, log);
      for (let i = 0; i < 200; i++) {
        const a = next() * 0.5;
        const view = { a, b: a + 0.01 + next() * (1 - a - 0.01) };
        const s = next();
        const f = screenToFrequency(axis, view, s);
        expect(frequencyToScreen(axis, view, f)).toBeCloseTo(s, 9);
      }
    }
  });

  it('spaces a log axis geometrically from the first column above 0 Hz to fs/2', () => {
    const axis = makeFrequencyAxis([0, fs / 2], bins, bins, true);
    const binHz = fs / fft;
    const low = binHz / 2; // upper edge of the DC column
    const full = { a: 0, b: 1 };
    expect(screenToFrequency(axis, full, 0)).toBeCloseTo(low, 6);
    expect(screenToFrequency(axis, full, 1)).toBeCloseTo(fs / 2, 6);
    expect(screenToFrequency(axis, full, 0.5)).toBeCloseTo(Math.sqrt(low * (fs / 2)), 6);
  });

  it('refuses a log axis for a complex spectrum with negative frequencies', () => {
    const axis = makeFrequencyAxis([-1e6, 1e6], 4096, 4096, true);
    expect(axis.log).toBe(false);
    expect(screenToFrequency(axis, { a: 0, b: 1 }, 0.5)).toBeCloseTo(0, 6);
  });

  it('is absolute for I/Q with a centre frequency', () => {
    const axis = makeFrequencyAxis([100e6 - 1e6, 100e6 + 1e6], 1024, 1024, false);
    expect(screenToFrequency(axis, { a: 0, b: 1 }, 0.5)).toBeCloseTo(100e6, 3);
  });
});

describe('zoom and pan', () => {
  const axis = makeFrequencyAxis([0, 24000], 1025, 1025, false);

  it('keeps the frequency under the anchor in place while zooming', () => {
    const next = rng(11);
    for (let i = 0; i < 200; i++) {
      const a = next() * 0.4;
      const view = { a, b: a + 0.2 + next() * 0.4 };
      const anchor = next();
      const factor = 0.5 + next() * 3;
      const z = zoomView(view, factor, anchor, minViewSpan(axis));
      const span = z.b - z.a;
      expect(z.a).toBeGreaterThanOrEqual(0);
      expect(z.b).toBeLessThanOrEqual(1 + 1e-12);
      const clamped = z.a === 0 || z.b >= 1 - 1e-12 || span === 1;
      if (!clamped) {
        expect(span).toBeCloseTo((view.b - view.a) / factor, 12);
        expect(screenToFrequency(axis, z, anchor)).toBeCloseTo(screenToFrequency(axis, view, anchor), 6);
      }
    }
  });

  it('never zooms in past a few columns nor out past the whole axis', () => {
    let v = { a: 0, b: 1 };
    for (let i = 0; i < 100; i++) v = zoomView(v, 2, 0.3, minViewSpan(axis));
    expect(v.b - v.a).toBeCloseTo(4 / 1025, 12);
    for (let i = 0; i < 100; i++) v = zoomView(v, 0.5, 0.3, minViewSpan(axis));
    expect(v).toEqual({ a: 0, b: 1 });
  });

  it('pans by screen fractions: dragging right by ds shows what was ds to the left', () => {
    const view = { a: 0.4, b: 0.6 };
    const p = panView(view, 0.25);
    expect(screenToFrequency(axis, p, 0.5 + 0.25)).toBeCloseTo(screenToFrequency(axis, view, 0.5), 6);
    expect(panView(view, 10)).toEqual({ a: 0, b: 0.19999999999999996 });
    const right = panView(view, -10);
    expect(right.b).toBeCloseTo(1, 12);
    expect(right.b - right.a).toBeCloseTo(0.2, 12);
  });
});

describe('ticks and labels', () => {
  it('picks 1-2-5 steps', () => {
    expect([0.7, 1, 1.3, 2.2, 4.9, 7, 13, 2160].map(niceStep)).toEqual([1, 1, 2, 5, 5, 10, 20, 5000]);
  });

  it('labels a linear audio axis in kHz at round steps', () => {
    const axis = makeFrequencyAxis([0, 24000], 1025, 1025, false);
    const t = frequencyTicks(axis, { a: 0, b: 1 }, 1000, 90);
    expect(t.map((x) => x.value)).toEqual([0, 5000, 10000, 15000, 20000]);
    expect(t.map((x) => x.label)).toEqual(['0 kHz', '5 kHz', '10 kHz', '15 kHz', '20 kHz']);
    for (const x of t) expect(x.pos).toBeCloseTo(frequencyToScreen(axis, { a: 0, b: 1 }, x.value), 12);
  });

  it('labels the decades of a log axis, with 2 and 5 when there is room', () => {
    const axis = makeFrequencyAxis([0, 24000], 1025, 1025, true);
    const narrow = frequencyTicks(axis, { a: 0, b: 1 }, 600);
    expect(narrow.filter((t) => t.label).map((t) => t.label)).toEqual(['100 Hz', '1 kHz', '10 kHz']);
    const wide = frequencyTicks(axis, { a: 0, b: 1 }, 1400);
    expect(wide.filter((t) => t.label).map((t) => t.value)).toEqual([
      20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000,
    ]);
    const pos = wide.map((t) => t.pos);
    expect([...pos].sort((a, b) => a - b)).toEqual(pos);
  });

  it('falls back to linear steps on a log axis zoomed within a decade', () => {
    const axis = makeFrequencyAxis([0, 24000], 1025, 1025, true);
    const a = axis.lo;
    const span = axis.hi - axis.lo;
    // View 1 kHz … 1.5 kHz.
    const view = { a: (Math.log10(1000) - a) / span, b: (Math.log10(1500) - a) / span };
    const t = frequencyTicks(axis, view, 800);
    expect(t.length).toBeGreaterThan(3);
    expect(t[0].value).toBeGreaterThanOrEqual(1000 - 1e-6);
    expect(t.every((x) => x.label.endsWith('kHz'))).toBe(true);
  });

  it('formats frequencies with the unit of the largest value and the decimals a resolution needs', () => {
    expect(formatFrequency(1500, 100)).toBe('1.5 kHz');
    expect(formatFrequency(1000.0004, 2.93, 24000)).toBe('1.000 kHz');
    expect(formatFrequency(0, 5000, 24000)).toBe('0 kHz');
    expect(formatFrequency(-2500, 500, 5000)).toBe('-2.5 kHz');
    expect(formatFrequency(100.2e6, 1e5)).toBe('100.2 MHz');
    expect(formatFrequency(440, 1)).toBe('440 Hz');
    expect(formatFrequency(23.4375, 0.2344)).toBe('23.4 Hz');
    expect(formatFrequency(23.4375, 0.05)).toBe('23.44 Hz');
  });

  it('places level ticks from the top (max) down', () => {
    const t = levelTicks(-120, 0, 250);
    expect(t.map((x) => x.value)).toEqual([-120, -100, -80, -60, -40, -20, 0]);
    expect(t[0].pos).toBe(1);
    expect(t[6].pos).toBe(0);
  });

  it('labels time back from the newest row', () => {
    const t = timeTicks(0, 5.46, 546);
    expect(t[0].label).toBe('0');
    expect(t[1].value).toBeCloseTo(0.5, 12);
    expect(t[1].label).toBe('−0.5');
    expect(t[1].pos).toBeCloseTo(0.5 / 5.46, 12);
  });
});

// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { makeFrequencyAxis, type View } from '../../renderer/src/lib/axis.js';
import { mapPixelsToColumns, reduceToPixels } from '../../renderer/src/lib/columns.js';
import { RowRing } from '../../renderer/src/lib/ring.js';
import { WaterfallHistory, historyCapacity, reduceRow } from '../../renderer/src/lib/history.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Reference, float64 and independent of axis.ts: the columns whose frequency span meets the pixel's. */
function referenceColumns(
  range: [number, number],
  bins: number,
  width: number,
  log: boolean,
  view: View,
  pixels: number,
): Array<[number, number]> {
  const [f0, f1] = range;
  const binHz = (f1 - f0) / (bins - 1);
  const e0 = f0 - binHz / 2;
  const cw = (f1 - f0 + binHz) / width;
  // The log axis starts above 0 Hz: at f0 when positive, else half a bin or half a column up.
  const lo = log ? Math.log10(f0 > 0 ? f0 : Math.max(binHz, cw) / 2) : f0;
  const hi = log ? Math.log10(f1) : f1;
  const screenOf = (f: number) => {
    const u = log ? Math.log10(f) : f;
    return ((u - lo) / (hi - lo) - view.a) / (view.b - view.a);
  };
  const out: Array<[number, number]> = [];
  for (let i = 0; i < pixels; i++) {
    const s0 = i / pixels;
    const s1 = (i + 1) / pixels;
    let first = -1;
    let last = -1;
    for (let c = 0; c < width; c++) {
      const fa = e0 + c * cw;
      const fb = e0 + (c + 1) * cw;
      if (log && fb <= 0) continue;
      const a = log && fa <= 0 ? -Infinity : screenOf(fa);
      const b = screenOf(fb);
      if (a < s1 && b > s0) {
        if (first < 0) first = c;
        last = c;
      }
    }
    out.push([first, last]);
  }
  return out;
}

describe('pixel → column mapping (trace and shader)', () => {
  it('matches the float64 reference for random zoomed views, linear and log', () => {
    const next = rng(3);
    for (const log of [false, true]) {
      for (const [width, pixels] of [
        [1025, 300],
        [300, 1000],
        [4096, 211],
      ]) {
        for (let trial = 0; trial < 5; trial++) {
          const a = next() * 0.6;
          const view = { a, b: Math.min(1, a + 0.05 + next() * 0.6) };
          const axis = makeFrequencyAxis([0, 24000], 1025, width, log);
          const start = new Int32Array(pixels);
          const end = new Int32Array(pixels);
          mapPixelsToColumns(axis, view, pixels, start, end);
          const ref = referenceColumns([0, 24000], 1025, width, log, view, pixels);
          for (let i = 0; i < pixels; i++) {
            expect([start[i], end[i]], `log=${log} w=${width} px=${pixels} pixel ${i}`).toEqual(ref[i]);
          }
        }
      }
    }
  });

  it('keeps a one-column tone visible when many columns share a pixel (max, not sampling)', () => {
    const width = 16384;
    const pixels = 700;
    const axis = makeFrequencyAxis([0, 24000], width, width, false);
    const levels = new Float32Array(width).fill(-100);
    const toneColumn = 5471;
    levels[toneColumn] = -6;
    const start = new Int32Array(pixels);
    const end = new Int32Array(pixels);
    const out = new Float32Array(pixels);
    mapPixelsToColumns(axis, { a: 0, b: 1 }, pixels, start, end);
    reduceToPixels(levels, start, end, pixels, out);
    const hits = Array.from(out).filter((v) => v === -6).length;
    expect(hits).toBeGreaterThanOrEqual(1);
    expect(hits).toBeLessThanOrEqual(2);
    const brute = Array.from({ length: pixels }, (_, i) => {
      let m = -Infinity;
      for (let c = start[i]; c <= end[i]; c++) m = Math.max(m, levels[c]);
      return m;
    });
    expect(Array.from(out)).toEqual(brute);
  });

  it('marks pixels outside the row as empty', () => {
    const axis = makeFrequencyAxis([0, 24000], 1025, 1025, false);
    const start = new Int32Array(10);
    const end = new Int32Array(10);
    const out = new Float32Array(10);
    // View past the right end is clamped by the view math elsewhere; force one here.
    mapPixelsToColumns(axis, { a: 0.9, b: 1.3 }, 10, start, end);
    expect(start[9]).toBe(-1);
    reduceToPixels(new Float32Array(1025).fill(-50), start, end, 10, out);
    expect(Number.isNaN(out[9])).toBe(true);
    expect(out[0]).toBe(-50);
  });
});

describe('ring buffer index math', () => {
  it('splits writes at the wrap and keeps only the last capacity rows of a long write', () => {
    const ring = new RowRing(8);
    const seg = new Int32Array(6);
    expect(ring.planWrite(5, seg)).toBe(1);
    expect(Array.from(seg.slice(0, 3))).toEqual([0, 0, 5]);
    expect(ring.planWrite(5, seg)).toBe(2);
    expect(Array.from(seg)).toEqual([0, 5, 3, 3, 0, 2]);
    expect(ring.newest).toBe(1);
    expect(ring.planWrite(20, seg)).toBe(2); // rows 10…29: only 22…29 are kept
    expect(Array.from(seg)).toEqual([12, 6, 2, 14, 0, 6]);
    expect(ring.written).toBe(30);
    expect(ring.newest).toBe(5);
  });

  it('finds every held row by age after random writes', () => {
    const next = rng(5);
    const cap = 13;
    const ring = new RowRing(cap);
    const texture = new Int32Array(cap).fill(-1); // stream row index held by each texture row
    const seg = new Int32Array(6);
    let streamRow = 0;
    for (let w = 0; w < 200; w++) {
      const count = 1 + Math.floor(next() * 20);
      const n = ring.planWrite(count, seg);
      for (let s = 0; s < n; s++) {
        for (let r = 0; r < seg[3 * s + 2]; r++) texture[seg[3 * s + 1] + r] = streamRow + seg[3 * s] + r;
      }
      streamRow += count;
      expect(ring.valid).toBe(Math.min(cap, streamRow));
      for (let age = 0; age < ring.valid; age++) {
        expect(texture[ring.rowForAge(age)]).toBe(streamRow - 1 - age);
      }
      expect(ring.rowForAge(ring.valid)).toBe(-1);
      expect(ring.rowForAge(-1)).toBe(-1);
    }
  });

  it('refuses a capacity that is not a whole number ≥ 1', () => {
    expect(() => new RowRing(0)).toThrow(/capacity/);
    expect(() => new RowRing(2.5)).toThrow(/capacity/);
  });
});

describe('waterfall history (CPU copy and staging)', () => {
  it('copies rows into the ring and uploads exactly the rows written since the last frame', () => {
    const width = 6;
    const h = new WaterfallHistory(width, width, 4);
    const runs = new Int32Array(4);
    const rows = new Float32Array(3 * width).map((_, i) => -i);
    h.write(rows, 3, 10, 0.5);
    expect(h.pending).toBe(3);
    expect(h.takeDirty(runs)).toBe(1);
    expect(Array.from(runs.slice(0, 2))).toEqual([0, 3]);
    expect(h.takeDirty(runs)).toBe(0);
    h.write(rows, 3, 11.5, 0.5); // texture rows 3, 0, 1
    expect(h.takeDirty(runs)).toBe(2);
    expect(Array.from(runs)).toEqual([3, 1, 0, 2]);
    // Newest row = second write's last row (values −12…−17), stream time 11.5 + 2·0.5.
    expect(h.levelAt(0, 0)).toBe(-12);
    expect(h.levelAt(0, 5)).toBe(-17);
    expect(h.timeAt(0)).toBe(12.5);
    expect(h.levelAt(3, 0)).toBe(-12); // first write's last row
    expect(h.timeAt(3)).toBe(11);
    expect(Number.isNaN(h.levelAt(4, 0))).toBe(true);
    expect(Number.isNaN(h.levelAt(0, 6))).toBe(true);
    // Many writes between two frames (a hidden window): the whole ring, once.
    for (let i = 0; i < 5; i++) h.write(rows, 3, 20 + i, 0.5);
    expect(h.takeDirty(runs)).toBe(2);
    // 21 rows written in all: the last 4 sit in texture rows 1, 2, 3, 0.
    expect(Array.from(runs)).toEqual([1, 3, 0, 1]);
    h.reset();
    expect(h.pending).toBe(0);
    expect(Number.isNaN(h.levelAt(0, 0))).toBe(true);
  });

  it('reduces rows wider than the texture by max over the columns each one covers', () => {
    const src = new Float32Array([1, 5, 2, 2, 9, 3, 0, 4, 7, 1]);
    const dst = new Float32Array(4);
    reduceRow(src, 0, 10, dst, 0, 4);
    // floor(c·10/4): [0,2) [2,5) [5,7) [7,10)
    expect(Array.from(dst)).toEqual([5, 9, 3, 7]);
    const h = new WaterfallHistory(10, 4, 2);
    h.write(src, 1, 0, 1);
    expect([0, 1, 2, 3].map((c) => h.levelAt(0, c))).toEqual([5, 9, 3, 7]);
  });

  it('keeps as many rows as the memory budget allows, within 256…4096 and the texture limit', () => {
    expect(historyCapacity(1024, 16384)).toBe(4096);
    expect(historyCapacity(4096, 16384)).toBe(2048);
    expect(historyCapacity(16384, 16384)).toBe(512);
    expect(historyCapacity(1024, 2048)).toBe(2048);
    expect(historyCapacity(1e6, 16384)).toBe(256);
  });
});

// Equivalent noise bandwidth of every window (windowProperties against scipy.signal.get_window), the
// renderer's table of it (protocol/shape.ts WINDOW_ENBW) and the RBW formula.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KAISER_BETA,
  WINDOW_NAMES,
  formatWindow,
  getWindow,
  windowProperties,
} from '../../electron/engine/dsp/index.js';
import { WINDOW_ENBW, resolutionBandwidth, windowEnbw } from '../../electron/engine/protocol/shape.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/measure/measure.json', import.meta.url), 'utf8'),
) as { windows: Array<{ window: string; n: number; enbw: number }> };

const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

describe('ENBW of every window', () => {
  it('matches N·Σw²/(Σw)² of scipy.signal.get_window (periodic) within 1e-12', () => {
    const names = new Set(fixture.windows.map((w) => w.window));
    expect([...names].sort()).toEqual([...WINDOW_NAMES].sort());
    for (const { window, n, enbw } of fixture.windows) {
      const got = windowProperties(getWindow(window, n)).enbw;
      expect(rel(got, enbw), `${window} ${n}`).toBeLessThan(1e-12);
    }
  });

  it("the renderer's table holds every window, exact for the cosine windows at any size ≥ 16", () => {
    expect(Object.keys(WINDOW_ENBW).sort()).toEqual([...WINDOW_NAMES].sort());
    for (const name of WINDOW_NAMES) {
      for (const n of [16, 17, 100, 1024, 4097, 65536]) {
        const exact = windowProperties(getWindow(name, n)).enbw;
        expect(rel(WINDOW_ENBW[name], exact), `${name} ${n}`).toBeLessThan(name === 'kaiser' ? 3e-4 : 1e-12);
      }
    }
    // kaiser's entry is its large-N limit
    expect(rel(WINDOW_ENBW.kaiser, windowProperties(getWindow('kaiser', 1 << 18)).enbw)).toBeLessThan(1e-9);
  });

  it('windowEnbw takes the canonical names, the default kaiser spelled out, and no other β', () => {
    expect(windowEnbw('hann')).toBe(1.5);
    expect(windowEnbw(' Blackman ')).toBe(WINDOW_ENBW.blackman);
    expect(windowEnbw(formatWindow({ name: 'kaiser', beta: DEFAULT_KAISER_BETA }))).toBe(WINDOW_ENBW.kaiser);
    expect(windowEnbw('kaiser')).toBe(WINDOW_ENBW.kaiser);
    expect(windowEnbw('kaiser:5')).toBeUndefined();
    expect(windowEnbw('nope')).toBeUndefined();
  });

  it('RBW = ENBW·fs/N', () => {
    expect(resolutionBandwidth(1.5, 48000, 4096)).toBeCloseTo(17.578125, 12);
    expect(resolutionBandwidth(WINDOW_ENBW.flattop, 1e6, 1024)).toBeCloseTo(
      (3.7702464474434283 * 1e6) / 1024,
      6,
    );
  });
});

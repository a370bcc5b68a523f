import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import {
  DEFAULT_KAISER_BETA,
  WINDOW_NAMES,
  formatWindow,
  getWindow,
  parseWindow,
  windowProperties,
} from '../../electron/engine/dsp/index.js';
import { besselI0 } from '../../electron/engine/dsp/bessel.js';
import { loadFixture } from './helpers.js';

interface Case {
  spec: string;
  n: number;
  symmetric: boolean;
  w: number[];
}
const { cases } = loadFixture<{ cases: Case[] }>('windows.json');

describe('getWindow vs scipy.signal.get_window', () => {
  it('has cases for every window', () => {
    const names = new Set(cases.map((c) => parseWindow(c.spec).name));
    expect([...names].sort()).toEqual([...WINDOW_NAMES].sort());
  });

  for (const c of cases) {
    it(`${c.spec} n=${c.n} ${c.symmetric ? 'symmetric' : 'periodic'} within 1e-12`, () => {
      const w = getWindow(c.spec, c.n, { symmetric: c.symmetric });
      expect(w.length).toBe(c.n);
      for (let i = 0; i < c.n; i++) expect(Math.abs(w[i] - c.w[i]), `w[${i}]`).toBeLessThan(1e-12);
    });
  }

  it('periodic is the symmetric window of n+1 without its last sample (the default)', () => {
    const p = getWindow('blackman', 50);
    const s = getWindow('blackman', 51, { symmetric: true });
    expect(Array.from(p)).toEqual(Array.from(s.subarray(0, 50)));
  });

  it('huge kaiser beta stays finite and peaks at 1', () => {
    const w = getWindow({ name: 'kaiser', beta: 900 }, 33, { symmetric: true });
    expect(w[16]).toBeCloseTo(1, 14);
    expect(Array.from(w).every((v) => Number.isFinite(v) && v >= 0 && v <= 1)).toBe(true);
    // compare with the definition where it can be evaluated directly (β r ≤ 700 in the ratio's terms)
    const r = (3 - 16) / 16;
    const expected = Math.exp(900 * Math.sqrt(1 - r * r) - 900) * 1; // leading asymptotic order
    expect(w[3] / expected).toBeGreaterThan(0.5);
    expect(w[3] / expected).toBeLessThan(2);
  });
});

describe('parseWindow', () => {
  it('accepts names, aliases and kaiser beta', () => {
    expect(parseWindow('hann')).toEqual({ name: 'hann' });
    expect(parseWindow(' Hann ')).toEqual({ name: 'hann' });
    expect(parseWindow('boxcar')).toEqual({ name: 'rectangular' });
    expect(parseWindow('rectangular')).toEqual({ name: 'rectangular' });
    expect(parseWindow('blackman-harris')).toEqual({ name: 'blackmanharris' });
    expect(parseWindow('blackmanharris')).toEqual({ name: 'blackmanharris' });
    expect(parseWindow('flattop')).toEqual({ name: 'flattop' });
    expect(parseWindow('kaiser:8.6')).toEqual({ name: 'kaiser', beta: 8.6 });
    expect(parseWindow('kaiser:14')).toEqual({ name: 'kaiser', beta: 14 });
    expect(parseWindow('kaiser:0')).toEqual({ name: 'kaiser', beta: 0 });
    expect(parseWindow('kaiser')).toEqual({ name: 'kaiser', beta: DEFAULT_KAISER_BETA });
    expect(DEFAULT_KAISER_BETA).toBe(8.6);
  });

  it('round-trips through formatWindow', () => {
    for (const s of ['hann', 'kaiser:5.5', 'rectangular', 'flattop', 'blackmanharris']) {
      expect(parseWindow(formatWindow(parseWindow(s)))).toEqual(parseWindow(s));
    }
    expect(formatWindow({ name: 'kaiser' })).toBe('kaiser:8.6');
  });

  it('refuses unknown names, listing the valid ones', () => {
    let err: unknown;
    try {
      parseWindow('gaussian');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    const msg = (err as Error).message;
    for (const name of [
      'rectangular',
      'boxcar',
      'hann',
      'hamming',
      'blackman',
      'blackmanharris',
      'flattop',
      'kaiser',
    ]) {
      expect(msg).toContain(name);
    }
  });

  it('refuses bad parameters', () => {
    for (const bad of ['kaiser:-1', 'kaiser:abc', 'kaiser:1e999', 'kaiser:NaN', 'hann:3', '', ':4']) {
      expect(() => parseWindow(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => getWindow({ name: 'kaiser', beta: -2 }, 8)).toThrow(InvalidArgumentError);
    expect(() => getWindow({ name: 'nope' } as never, 8)).toThrow(InvalidArgumentError);
    for (const n of [0, -3, 2.5, NaN])
      expect(() => getWindow('hann', n), String(n)).toThrow(InvalidArgumentError);
  });
});

describe('windowProperties', () => {
  // Closed forms for periodic cosine-sum windows (N > 2K): Σw = N·a0 and Σw² = N·(a0² + ½Σa_k²), so
  // coherent gain = a0 and ENBW = (a0² + ½Σ_{k≥1} a_k²)/a0².
  const cosine: Record<string, number[]> = {
    rectangular: [1],
    hann: [0.5, 0.5],
    hamming: [0.54, 0.46],
    blackman: [0.42, 0.5, 0.08],
    blackmanharris: [0.35875, 0.48829, 0.14128, 0.01168],
    flattop: [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368],
  };
  for (const [name, a] of Object.entries(cosine)) {
    it(`${name}: coherent gain and ENBW equal their closed forms`, () => {
      for (const n of [16, 1000, 4096]) {
        const p = windowProperties(getWindow(name, n));
        const cg = a[0];
        const enbw = (a[0] ** 2 + 0.5 * a.slice(1).reduce((s, x) => s + x * x, 0)) / a[0] ** 2;
        expect(p.coherentGain).toBeCloseTo(cg, 12);
        expect(p.enbw).toBeCloseTo(enbw, 12);
      }
    });
  }

  it('hann ENBW is 1.5 bins, rectangular 1', () => {
    expect(windowProperties(getWindow('hann', 1024)).enbw).toBeCloseTo(1.5, 13);
    expect(windowProperties(getWindow('rectangular', 1000)).enbw).toBeCloseTo(1, 14);
  });

  it('kaiser matches the continuous-window integrals for large N', () => {
    // Continuous kaiser on t ∈ [−1, 1]: CG = ½∫I0(β√(1−t²))dt / I0(β), ENBW = 2∫I0²/(∫I0)²; the periodic
    // window of N samples approaches them as 1/N. Integrals by Simpson with 20 000 panels.
    for (const beta of [2, 8.6, 14]) {
      const m = 20000;
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i <= m; i++) {
        const t = -1 + (2 * i) / m;
        const v = besselI0(beta * Math.sqrt(Math.max(0, 1 - t * t)));
        const wgt = i === 0 || i === m ? 1 : i % 2 ? 4 : 2;
        s1 += wgt * v;
        s2 += wgt * v * v;
      }
      const h = 2 / m / 3;
      const i1 = s1 * h;
      const i2 = s2 * h;
      const cg = i1 / 2 / besselI0(beta);
      const enbw = (2 * i2) / (i1 * i1);
      const p = windowProperties(getWindow({ name: 'kaiser', beta }, 1 << 16));
      expect(Math.abs(p.coherentGain - cg)).toBeLessThan(1e-4);
      expect(Math.abs(p.enbw - enbw)).toBeLessThan(1e-4);
    }
  });

  it('refuses empty and zero-sum windows', () => {
    expect(() => windowProperties(new Float64Array(0))).toThrow(InvalidArgumentError);
    expect(() => windowProperties(new Float64Array([1, -1]))).toThrow(InvalidArgumentError);
  });
});

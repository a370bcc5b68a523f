import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import {
  firResponse,
  firwin,
  kaiserAtten,
  kaiserBeta,
  kaiserord,
  unwrapPhase,
  type PassZero,
} from '../../electron/engine/dsp/index.js';
import { loadFixture } from './helpers.js';

interface FirCase {
  numtaps: number;
  cutoff: number | number[];
  window: string;
  passZero: PassZero;
  fs: number | null;
  taps?: number[];
  error?: string;
}
const firCases = loadFixture<{ cases: FirCase[] }>('firwin.json').cases;

function label(c: FirCase): string {
  return `numtaps=${c.numtaps} cutoff=${JSON.stringify(c.cutoff)} window=${c.window} passZero=${String(c.passZero)} fs=${c.fs ?? 2}`;
}

describe('firwin vs scipy.signal.firwin', () => {
  const ok = firCases.filter((c) => c.taps);
  const bad = firCases.filter((c) => c.error);

  it('covers every band type, both parities and numtaps 1', () => {
    expect(ok.length).toBeGreaterThan(60);
    expect(bad.length).toBeGreaterThan(5);
    expect(ok.some((c) => c.numtaps === 1)).toBe(true);
    expect(ok.some((c) => c.numtaps % 2 === 0 && c.numtaps > 2)).toBe(true);
  });

  for (const c of ok) {
    it(`${label(c)}: same taps within 1e-9`, () => {
      const h = firwin(c.numtaps, c.cutoff, {
        window: c.window,
        passZero: c.passZero,
        fs: c.fs ?? undefined,
      });
      expect(h.length).toBe(c.numtaps);
      const ref = c.taps as number[];
      for (let i = 0; i < ref.length; i++) expect(Math.abs(h[i] - ref[i]), `tap ${i}`).toBeLessThan(1e-9);
    });
  }

  for (const c of bad) {
    it(`${label(c)}: refused (SciPy: ${c.error})`, () => {
      expect(() =>
        firwin(c.numtaps, c.cutoff, { window: c.window, passZero: c.passZero, fs: c.fs ?? undefined }),
      ).toThrow(InvalidArgumentError);
    });
  }

  it('messages name the constraint', () => {
    const msg = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidArgumentError);
        return (e as Error).message;
      }
      throw new Error('did not throw');
    };
    expect(msg(() => firwin(16, 0.3, { passZero: false }))).toMatch(/odd.*Nyquist.*use 17/);
    expect(msg(() => firwin(21, 30000, { fs: 48000 }))).toMatch(/greater than 0 and less than fs\/2 = 24000/);
    expect(msg(() => firwin(21, [0.4, 0.2]))).toMatch(/strictly increasing/);
    expect(msg(() => firwin(0, 0.2))).toMatch(/numtaps must be an integer ≥ 1/);
    expect(msg(() => firwin(2.5, 0.2))).toMatch(/numtaps/);
    expect(msg(() => firwin(21, []))).toMatch(/at least one cutoff/);
    expect(msg(() => firwin(21, 0.2, { fs: -1 }))).toMatch(/fs must be/);
    expect(msg(() => firwin(21, 0.2, { window: 'bogus' }))).toMatch(/valid windows/);
    expect(msg(() => firwin(21, 0.2, { passZero: 'notch' as never }))).toMatch(/passZero/);
    expect(msg(() => firwin(21, NaN))).toMatch(/out of range/);
    expect(msg(() => firwin(2, 0.3, { window: 'hann' }))).toMatch(/more taps/);
  });

  it('scale=false leaves the windowed ideal response unscaled', () => {
    const a = firwin(31, 0.3, { scale: false });
    const b = firwin(31, 0.3);
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < 31; i++) {
      sa += a[i];
      sb += b[i];
    }
    expect(sb).toBeCloseTo(1, 14);
    expect(Math.abs(sa - 1)).toBeGreaterThan(1e-4);
    for (let i = 0; i < 31; i++) expect(a[i] / sa).toBeCloseTo(b[i], 14);
  });

  it('is linear phase (symmetric taps) and has unit gain at the pass band centre', () => {
    const h = firwin(101, [1000, 3000], { passZero: 'bandpass', fs: 16000, window: 'kaiser:6' });
    for (let i = 0; i < 50; i++) expect(h[i]).toBe(h[100 - i]);
    const r = firResponse(h, new Float64Array([2000, 0, 8000]), 16000);
    expect(r.magnitudeDb[0]).toBeCloseTo(0, 10);
    expect(r.magnitudeDb[1]).toBeLessThan(-40);
    expect(r.magnitudeDb[2]).toBeLessThan(-40);
  });
});

interface KaiserFixture {
  kaiserord: Array<{ ripple: number; width: number; fs: number | null; numtaps: number; beta: number }>;
  kaiser_beta: Array<{ a: number; beta: number }>;
  kaiser_atten: Array<{ numtaps: number; width: number; atten: number }>;
  errors: Array<{ ripple: number; width: number; error: string }>;
}
const kf = loadFixture<KaiserFixture>('kaiserord.json');

describe('kaiserord / kaiserBeta / kaiserAtten vs SciPy', () => {
  for (const c of kf.kaiserord) {
    it(`kaiserord(${c.ripple} dB, width ${c.width}${c.fs ? `, fs ${c.fs}` : ''})`, () => {
      const r = c.fs === null ? kaiserord(c.ripple, c.width) : kaiserord(c.ripple, c.width, c.fs);
      expect(r.numtaps).toBe(c.numtaps);
      expect(Math.abs(r.beta - c.beta)).toBeLessThan(1e-12);
    });
  }
  it('kaiserBeta and kaiserAtten', () => {
    for (const c of kf.kaiser_beta)
      expect(Math.abs(kaiserBeta(c.a) - c.beta), `a=${c.a}`).toBeLessThan(1e-12);
    for (const c of kf.kaiser_atten) {
      expect(Math.abs(kaiserAtten(c.numtaps, c.width) - c.atten)).toBeLessThan(1e-9);
      // the same width in Hz at 48 kHz
      expect(Math.abs(kaiserAtten(c.numtaps, c.width * 24000, 48000) - c.atten)).toBeLessThan(1e-9);
    }
  });
  it('refuses what SciPy refuses, and bad widths', () => {
    for (const c of kf.errors) expect(() => kaiserord(c.ripple, c.width)).toThrow(/at least 8 dB/);
    expect(() => kaiserord(60, 0)).toThrow(InvalidArgumentError);
    expect(() => kaiserord(60, -0.1)).toThrow(InvalidArgumentError);
    expect(() => kaiserord(60, 30000, 48000)).toThrow(/less than fs\/2/);
    expect(() => kaiserord(NaN, 0.1)).toThrow(InvalidArgumentError);
    expect(() => kaiserBeta(NaN)).toThrow(InvalidArgumentError);
  });
  it('a kaiserord design meets its attenuation (approximately, as Kaiser’s formula does)', () => {
    const fs = 48000;
    const { numtaps, beta } = kaiserord(60, 1000, fs);
    const taps = firwin(numtaps | 1, 6000, { window: { name: 'kaiser', beta }, fs });
    const f = new Float64Array(200).map((_, i) => 7000 + (i * 17000) / 199);
    const r = firResponse(taps, f, fs);
    expect(Math.max(...r.magnitudeDb)).toBeLessThan(-59);
  });
});

interface FreqzCase {
  name: string;
  taps: number[];
  fs: number;
  frequencies: number[];
  magnitude: number[];
  phase: number[];
  groupDelay: number[];
}
const fz = loadFixture<{ cases: FreqzCase[] }>('freqz.json').cases;

describe('firResponse vs scipy.signal.freqz / group_delay', () => {
  for (const c of fz) {
    it(c.name, () => {
      const r = firResponse(c.taps, c.frequencies, c.fs);
      let peak = 0;
      for (const m of c.magnitude) peak = Math.max(peak, m);
      let checkedPhase = 0;
      for (let i = 0; i < c.frequencies.length; i++) {
        const mag = 10 ** (r.magnitudeDb[i] / 20);
        // |H| to 1e-12 of the peak gain (float64 sums of ≤ 101 taps).
        expect(Math.abs(mag - c.magnitude[i]), `|H| at ${c.frequencies[i]}`).toBeLessThan(1e-12 * peak);
        // Phase and group delay are defined (well conditioned) only where |H| is not tiny.
        if (c.magnitude[i] > 1e-6 * peak) {
          let d = r.phase[i] - c.phase[i];
          d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
          expect(Math.abs(d), `phase at ${c.frequencies[i]}`).toBeLessThan(1e-9);
          expect(
            Math.abs(r.groupDelay[i] - c.groupDelay[i]),
            `group delay at ${c.frequencies[i]}`,
          ).toBeLessThan(1e-6);
          checkedPhase++;
        }
      }
      expect(checkedPhase).toBeGreaterThan(20);
    });
  }

  it('a symmetric FIR has group delay (numtaps−1)/2 in its pass band', () => {
    const h = firwin(63, 0.25);
    const r = firResponse(h, new Float64Array([0, 0.05, 0.1, 0.2]), 2);
    for (const g of r.groupDelay) expect(g).toBeCloseTo(31, 9);
  });

  it('unwrapPhase removes 2π jumps like numpy.unwrap', () => {
    const truth = Array.from({ length: 50 }, (_, i) => -0.4 * i);
    const wrapped = truth.map((p) => Math.atan2(Math.sin(p), Math.cos(p)));
    const u = unwrapPhase(wrapped);
    for (let i = 0; i < 50; i++) expect(u[i]).toBeCloseTo(truth[i], 12);
  });

  it('refuses bad arguments', () => {
    expect(() => firResponse([], [0], 2)).toThrow(InvalidArgumentError);
    expect(() => firResponse([1], [0], 0)).toThrow(InvalidArgumentError);
    expect(() => firResponse([1], [NaN], 2)).toThrow(InvalidArgumentError);
  });
});

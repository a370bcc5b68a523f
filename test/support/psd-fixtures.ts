// The fixtures of `phasor psd` and the .npz spectrogram (test/fixtures/make_psd_fixtures.py): SciPy's
// results, the input samples they were computed from, and the comparison the tests share.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Detrend, PsdAverage, PsdScaling } from '../../electron/engine/dsp/index.js';
import type { StreamFormat } from '../../electron/engine/types.js';
import { readNpy, readNpz } from './npz.js';

export const fixtureDir = new URL('../fixtures/psd/', import.meta.url);
const dir = fixtureDir;
export interface WelchCase {
  input: 'real' | 'iq' | 'short';
  nperseg?: number;
  noverlap?: number;
  window?: string;
  scaling?: PsdScaling;
  detrend?: Detrend;
  average?: PsdAverage;
  fs: number;
  segments: number;
  nperseg_used: number;
  noverlap_used: number;
  frequencies: number[];
  psd: number[];
}
export interface SpectrogramCase {
  name: string;
  input: 'real' | 'iq';
  nperseg: number;
  overlap: number;
  noverlap: number;
  window: string;
  scaling: PsdScaling;
  fs: number;
}
export const fixture = JSON.parse(readFileSync(new URL('psd.json', dir), 'utf8')) as {
  welch: WelchCase[];
  spectrogram: SpectrogramCase[];
};
/** The fixture's inputs: float32 samples, as SciPy saw them (in float64). */
export const realInput = Float32Array.from(readNpy(readFileSync(new URL('real.npy', dir))).data);
const iqBytes = readFileSync(new URL('iq.cf32', dir));
export const iqInput = new Float32Array(new Uint8Array(iqBytes).buffer);
export const spectrograms = readNpz(readFileSync(new URL('spectrogram.npz', dir)));
export const CENTRE = 100e6;

export function inputOf(name: 'real' | 'iq' | 'short'): { data: Float32Array; format: StreamFormat } {
  if (name === 'iq') {
    return {
      data: iqInput,
      format: { sampleRate: 1e6, complex: true, channels: 1, centerFrequency: CENTRE },
    };
  }
  return {
    data: name === 'short' ? realInput.subarray(0, 200) : realInput,
    format: { sampleRate: 48000, complex: false, channels: 1 },
  };
}

/** SciPy's two-sided FFT-order arrays in fftshift order (what psd() gives for complex input). */
export function fftshift(a: ArrayLike<number>): number[] {
  const n = a.length;
  const h = Math.floor(n / 2);
  return Array.from({ length: n }, (_, k) => a[(k - h + n) % n]);
}

/**
 * The backend's transforms are float32, so each bin carries an error of ~1e-7 of the largest bin (and a
 * float32 rounding of its own value): allowed 1e-6·max + 1e-5·|ref|, which is a relative error of 1e-5 on
 * every bin above a tenth of the maximum. Measured on the CPU backend: at most 7e-8 of the max.
 */
export function expectClose(got: ArrayLike<number>, ref: ArrayLike<number>, what: string): void {
  expect(got.length, what).toBe(ref.length);
  let max = 0;
  for (let k = 0; k < ref.length; k++) max = Math.max(max, Math.abs(ref[k]));
  expect(max, what).toBeGreaterThan(0);
  for (let k = 0; k < ref.length; k++) {
    const tol = 1e-6 * max + 1e-5 * Math.abs(ref[k]);
    if (!(Math.abs(got[k] - ref[k]) <= tol)) {
      expect.fail(`${what}: bin ${k}: got ${got[k]}, SciPy ${ref[k]} (tolerance ${tol})`);
    }
  }
}

export function caseName(c: WelchCase): string {
  const parts: string[] = [c.input];
  for (const k of ['nperseg', 'noverlap', 'window', 'scaling', 'detrend', 'average'] as const) {
    if (c[k] !== undefined) parts.push(`${k} ${c[k]}`);
  }
  return parts.join(', ');
}

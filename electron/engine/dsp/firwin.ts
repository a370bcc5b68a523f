// Linear-phase FIR design by the window method, like scipy.signal.firwin / kaiserord, and the frequency
// response of a set of taps, like scipy.signal.freqz / group_delay.

import { InvalidArgumentError } from '../errors.js';
import { getWindow, type WindowSpec } from './windows.js';

export type PassZero = boolean | 'lowpass' | 'highpass' | 'bandpass' | 'bandstop';

export interface FirwinOptions {
  /** Window applied to the ideal response (symmetric). Default 'hamming', as in SciPy. */
  window?: WindowSpec | string;
  /** Whether DC is in a pass band (true, 'lowpass', 'bandstop') or not (false, 'highpass', 'bandpass').
   * Default true. The names also check the number of cutoffs. */
  passZero?: PassZero;
  /** Scale so the gain is exactly 1 at the centre of the first pass band (DC, Nyquist or the band's
   * centre). Default true. */
  scale?: boolean;
  /** Sample rate the cutoffs are given in. Default 2 (cutoffs relative to Nyquist = 1). */
  fs?: number;
}

function checkFs(fs: number): number {
  if (typeof fs !== 'number' || !Number.isFinite(fs) || fs <= 0) {
    throw new InvalidArgumentError(`sample rate fs must be a finite number > 0, got ${fs}`);
  }
  return fs;
}

/** sin(πx)/(πx), as numpy.sinc. */
function sinc(x: number): number {
  if (x === 0) return 1;
  const y = Math.PI * x;
  return Math.sin(y) / y;
}

/**
 * FIR taps by the window method: the same taps as
 * scipy.signal.firwin(numtaps, cutoff, window=…, pass_zero=…, scale=…, fs=…) within 1e-9.
 *
 * The ideal response is a sum of band-limited pass bands [left, right] (relative to Nyquist):
 * h[m] = Σ right·sinc(right·m) − left·sinc(left·m), m = n − (numtaps−1)/2, times a symmetric window.
 */
export function firwin(
  numtaps: number,
  cutoff: number | readonly number[],
  options: FirwinOptions = {},
): Float64Array {
  if (typeof numtaps !== 'number' || !Number.isInteger(numtaps) || numtaps < 1) {
    throw new InvalidArgumentError(`numtaps must be an integer ≥ 1, got ${numtaps}`);
  }
  const fs = checkFs(options.fs ?? 2);
  const nyq = 0.5 * fs;
  const cutoffs = typeof cutoff === 'number' ? [cutoff] : Array.from(cutoff ?? []);
  if (cutoffs.length === 0) throw new InvalidArgumentError('at least one cutoff frequency must be given');
  for (const f of cutoffs) {
    if (typeof f !== 'number' || !Number.isFinite(f) || f <= 0 || f >= nyq) {
      throw new InvalidArgumentError(
        `cutoff frequency ${f} is out of range: cutoffs must be greater than 0 and less than fs/2 = ${nyq}`,
      );
    }
  }
  for (let i = 1; i < cutoffs.length; i++) {
    if (!(cutoffs[i] > cutoffs[i - 1])) {
      throw new InvalidArgumentError(
        `cutoff frequencies must be strictly increasing, got ${cutoffs[i - 1]} then ${cutoffs[i]}`,
      );
    }
  }

  const pz = options.passZero ?? true;
  let passZero: boolean;
  if (pz === true || pz === false) {
    passZero = pz;
  } else if (pz === 'lowpass' || pz === 'highpass') {
    if (cutoffs.length !== 1) {
      throw new InvalidArgumentError(`a ${pz} filter takes exactly one cutoff, got ${cutoffs.length}`);
    }
    passZero = pz === 'lowpass';
  } else if (pz === 'bandpass' || pz === 'bandstop') {
    if (cutoffs.length < 2) {
      throw new InvalidArgumentError(`a ${pz} filter takes at least two cutoffs, got ${cutoffs.length}`);
    }
    passZero = pz === 'bandstop';
  } else {
    throw new InvalidArgumentError(
      `passZero must be true, false, 'lowpass', 'highpass', 'bandpass' or 'bandstop', got ${String(pz)}`,
    );
  }

  // A pass band reaches Nyquist when the band count and passZero say so; an even-length (type II)
  // linear-phase filter has a zero at Nyquist, so it cannot.
  const passNyquist = (cutoffs.length % 2 === 0) === passZero;
  if (passNyquist && numtaps % 2 === 0) {
    throw new InvalidArgumentError(
      `numtaps must be odd for a filter with gain at Nyquist (a highpass, a bandstop, or a band reaching fs/2): ` +
        `got ${numtaps}, use ${numtaps + 1}`,
    );
  }

  const edges: number[] = [];
  if (passZero) edges.push(0);
  for (const f of cutoffs) edges.push(f / nyq);
  if (passNyquist) edges.push(1);

  const alpha = 0.5 * (numtaps - 1);
  const h = new Float64Array(numtaps);
  for (let n = 0; n < numtaps; n++) {
    const m = n - alpha;
    let v = 0;
    for (let b = 0; b < edges.length; b += 2) {
      const left = edges[b];
      const right = edges[b + 1];
      v += right * sinc(right * m);
      v -= left * sinc(left * m);
    }
    h[n] = v;
  }

  const win = getWindow(options.window ?? 'hamming', numtaps, { symmetric: true });
  for (let n = 0; n < numtaps; n++) h[n] *= win[n];

  if (options.scale ?? true) {
    const left = edges[0];
    const right = edges[1];
    const f0 = left === 0 ? 0 : right === 1 ? 1 : 0.5 * (left + right);
    let s = 0;
    for (let n = 0; n < numtaps; n++) s += h[n] * Math.cos(Math.PI * (n - alpha) * f0);
    // SciPy divides by zero here and returns NaN (e.g. a 2-tap hann window is [0, 0]).
    if (!(Math.abs(s) > 0) || !Number.isFinite(s)) {
      throw new InvalidArgumentError(
        `this design has no gain to scale at ${f0 * nyq} Hz (${numtaps} taps are too few for this window): ` +
          'use more taps or another window',
      );
    }
    for (let n = 0; n < numtaps; n++) h[n] /= s;
  }
  return h;
}

/** Kaiser's β for a stop-band attenuation of `a` dB (scipy.signal.kaiser_beta). */
export function kaiserBeta(a: number): number {
  if (typeof a !== 'number' || Number.isNaN(a)) {
    throw new InvalidArgumentError(`attenuation must be a number (dB), got ${a}`);
  }
  if (a > 50) return 0.1102 * (a - 8.7);
  if (a > 21) return 0.5842 * (a - 21) ** 0.4 + 0.07886 * (a - 21);
  return 0;
}

/**
 * Attenuation (dB) of a Kaiser-window FIR with `numtaps` taps and transition `width` (Hz at sample rate
 * fs; default fs = 2 makes width relative to Nyquist, as in scipy.signal.kaiser_atten).
 */
export function kaiserAtten(numtaps: number, width: number, fs = 2): number {
  checkFs(fs);
  if (typeof numtaps !== 'number' || !Number.isFinite(numtaps)) {
    throw new InvalidArgumentError(`numtaps must be a number, got ${numtaps}`);
  }
  if (typeof width !== 'number' || !Number.isFinite(width)) {
    throw new InvalidArgumentError(`transition width must be a finite number, got ${width}`);
  }
  return 2.285 * (numtaps - 1) * Math.PI * (width / (0.5 * fs)) + 7.95;
}

/**
 * Kaiser window parameters for a filter with `ripple` dB of pass/stop-band error and a transition of
 * `width` Hz at sample rate fs (default 2: width relative to Nyquist, as in scipy.signal.kaiserord).
 */
export function kaiserord(ripple: number, width: number, fs = 2): { numtaps: number; beta: number } {
  checkFs(fs);
  if (typeof ripple !== 'number' || !Number.isFinite(ripple)) {
    throw new InvalidArgumentError(`ripple must be a finite number (dB), got ${ripple}`);
  }
  const a = Math.abs(ripple);
  if (a < 8) {
    throw new InvalidArgumentError(
      `ripple attenuation ${a} dB is too small for the Kaiser formula: it must be at least 8 dB`,
    );
  }
  if (typeof width !== 'number' || !Number.isFinite(width) || width <= 0 || width >= 0.5 * fs) {
    throw new InvalidArgumentError(
      `transition width must be greater than 0 and less than fs/2 = ${0.5 * fs}, got ${width}`,
    );
  }
  const w = width / (0.5 * fs);
  const numtaps = (a - 7.95) / 2.285 / (Math.PI * w) + 1;
  return { numtaps: Math.ceil(numtaps), beta: kaiserBeta(a) };
}

export interface FirResponse {
  /** 20·log10|H(f)|, floored at −300 dB where |H| = 0. */
  magnitudeDb: Float64Array;
  /** arg H(f) in radians, wrapped to (−π, π] like numpy.angle (see `unwrapPhase`). */
  phase: Float64Array;
  /** Group delay −dφ/dω in samples, like scipy.signal.group_delay (0 where H(f) = 0 exactly). */
  groupDelay: Float64Array;
}

const MAG_FLOOR_DB = -300;

/**
 * Frequency response of FIR taps at the given frequencies (Hz at sample rate fs), like
 * scipy.signal.freqz(taps, worN=frequencies, fs=fs) and scipy.signal.group_delay((taps, 1), frequencies, fs).
 */
export function firResponse(
  taps: ArrayLike<number>,
  frequencies: ArrayLike<number>,
  fs: number,
): FirResponse {
  checkFs(fs);
  const n = taps.length;
  if (n < 1) throw new InvalidArgumentError('firResponse needs at least one tap');
  const count = frequencies.length;
  const magnitudeDb = new Float64Array(count);
  const phase = new Float64Array(count);
  const groupDelay = new Float64Array(count);
  // The rotation e^{−jω} is applied recursively and re-seeded exactly every RESEED taps, so the rounding
  // error stays near RESEED·ε without a sin/cos per tap.
  const RESEED = 64;
  for (let i = 0; i < count; i++) {
    const f = frequencies[i];
    if (typeof f !== 'number' || !Number.isFinite(f)) {
      throw new InvalidArgumentError(`frequencies must be finite numbers, got ${f} at index ${i}`);
    }
    const cycles = f / fs; // per sample
    const stepRe = Math.cos(2 * Math.PI * cycles);
    const stepIm = -Math.sin(2 * Math.PI * cycles);
    let re = 0;
    let im = 0;
    let reN = 0;
    let imN = 0;
    let cRe = 1;
    let cIm = 0;
    for (let k = 0; k < n; k++) {
      if (k % RESEED === 0) {
        let t = cycles * k;
        t -= Math.round(t);
        cRe = Math.cos(2 * Math.PI * t);
        cIm = -Math.sin(2 * Math.PI * t);
      }
      const h = taps[k];
      re += h * cRe;
      im += h * cIm;
      reN += k * h * cRe;
      imN += k * h * cIm;
      const nRe = cRe * stepRe - cIm * stepIm;
      cIm = cRe * stepIm + cIm * stepRe;
      cRe = nRe;
    }
    const mag2 = re * re + im * im;
    magnitudeDb[i] = mag2 > 0 ? Math.max(MAG_FLOOR_DB, 10 * Math.log10(mag2)) : MAG_FLOOR_DB;
    phase[i] = Math.atan2(im, re);
    // τ = Re(Σ k·h[k]z^−k / Σ h[k]z^−k)
    groupDelay[i] = mag2 > 0 ? (reN * re + imN * im) / mag2 : 0;
  }
  return { magnitudeDb, phase, groupDelay };
}

/** Removes 2π jumps from a phase sequence, like numpy.unwrap. */
export function unwrapPhase(phase: ArrayLike<number>): Float64Array {
  const out = new Float64Array(phase.length);
  if (phase.length === 0) return out;
  out[0] = phase[0];
  let correction = 0;
  const twoPi = 2 * Math.PI;
  for (let i = 1; i < phase.length; i++) {
    const d = phase[i] - phase[i - 1];
    if (Math.abs(d) >= Math.PI) {
      let m = ((((d + Math.PI) % twoPi) + twoPi) % twoPi) - Math.PI;
      if (m === -Math.PI && d > 0) m = Math.PI;
      correction += m - d;
    }
    out[i] = phase[i] + correction;
  }
  return out;
}

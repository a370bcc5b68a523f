// Peak finding in a Welch spectrum, with sub-bin interpolation fitted to the window's own response.
//
// Model: a tone of amplitude A at fractional bin p puts A²·G(k − p) into bin k, where G(δ) = |W(δ)|²/|W(0)|²
// is the window's normalized power response (response.ts); a real tone adds its mirror image, A²·G(k + p).
// Welch averaging makes powers add, so this holds for tone + image and for several tones on average.
//
// For a local maximum at bin c, the larger neighbour c+s gives ρ = P[c+s]/P[c]; the offset u ∈ [0, ½] is
// the root of model(c+s, p)/model(c, p) = ρ with p = c + s·u (bracketed root finding), and the level is
// A² = P[c]/model(c, p). For every window, rectangular included, an isolated tone then reads its
// frequency and level without the scalloping of a parabolic fit.
//
// Distinct peaks: candidates are taken strongest first; one is dropped when its bin is explained by the
// leakage of stronger peaks already taken (within LEAK_MARGIN of their summed side-lobe power there) or
// when it lies within the main lobe (mainLobeHalfWidth bins) of a stronger peak.

import { InvalidArgumentError } from '../errors.js';
import { binFrequency, spectrumBins } from '../protocol/shape.js';
import { DEFAULT_FLOOR_DB, powerToDb } from './levels.js';
import { windowResponse, type WindowResponse } from './response.js';
import type { WelchResult } from './welch.js';

export interface Peak {
  /** Hz; absolute (centre + offset) when the spectrum carries a centre frequency. */
  frequency: number;
  /** dBFS: a full-scale real sine, or a unit complex exponential, reads 0. */
  level: number;
  /** Index into the spectrum's frequencies/power of the peak's strongest bin. */
  bin: number;
}

export interface FindPeaksOptions {
  /** Peaks wanted (the strongest), integer ≥ 1. */
  count: number;
  /** Leave out peaks below this level (dBFS). */
  minLevelDb?: number;
}

/** A local maximum must stand this far (power ratio, 6 dB) above the leakage of stronger peaks. */
const LEAK_MARGIN = 4;

/** The estimate that orders the candidates is within 1e-5 of the fitted level (measured); generous slack. */
const ESTIMATE_SLACK = 1.1;

/** Offset u ∈ [0, ½] (bins) against the neighbour ratio G(u−1)/G(u), tabulated once per window. */
class OffsetTable {
  private static readonly SIZE = 257;
  private readonly ratio = new Float64Array(OffsetTable.SIZE);
  private readonly gain = new Float64Array(OffsetTable.SIZE);

  constructor(resp: WindowResponse) {
    let prev = -Infinity;
    for (let i = 0; i < OffsetTable.SIZE; i++) {
      const u = (0.5 * i) / (OffsetTable.SIZE - 1);
      const g = resp.power(u);
      this.gain[i] = g;
      // kept non-decreasing so the search below is well defined for any window
      prev = Math.max(prev, resp.power(u - 1) / g);
      this.ratio[i] = prev;
    }
  }

  /** G(u) at the offset u whose neighbour ratio is ρ (linear interpolation in the table). */
  gainAt(rho: number): number {
    const r = this.ratio;
    const last = r.length - 1;
    if (!(rho > r[0])) return this.gain[0];
    if (rho >= r[last]) return this.gain[last];
    let lo = 0;
    let hi = last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (r[mid] <= rho) lo = mid;
      else hi = mid;
    }
    const t = r[hi] > r[lo] ? (rho - r[lo]) / (r[hi] - r[lo]) : 0;
    return this.gain[lo] + t * (this.gain[hi] - this.gain[lo]);
  }
}

const tables = new WeakMap<WindowResponse, OffsetTable>();

function offsetTable(resp: WindowResponse): OffsetTable {
  let t = tables.get(resp);
  if (t === undefined) {
    t = new OffsetTable(resp);
    tables.set(resp, t);
  }
  return t;
}

interface Accepted {
  p: number;
  a2: number;
  bin: number;
}

export function findPeaks(spectrum: WelchResult, options: FindPeaksOptions): Peak[] {
  const { count } = options;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw new InvalidArgumentError(`peak count must be an integer ≥ 1, got ${count}`);
  }
  const minLevelDb = options.minLevelDb;
  if (minLevelDb !== undefined && (typeof minLevelDb !== 'number' || Number.isNaN(minLevelDb))) {
    throw new InvalidArgumentError(`minimum level must be a number (dBFS), got ${minLevelDb}`);
  }
  const { power, complex, window } = spectrum;
  const n = window.length;
  const bins = spectrumBins(n, complex);
  if (n < 1 || power.length !== bins || spectrum.nperseg !== n) {
    throw new InvalidArgumentError(
      `spectrum is inconsistent: ${power.length} power values for a window of ${n} (${complex ? 'complex' : 'real'})`,
    );
  }
  const resp = windowResponse(window);
  const halfWidth = resp.mainLobeHalfWidth;
  const minPower = minLevelDb === undefined ? 0 : Math.pow(10, minLevelDb / 10);

  // Power of bin j (any integer) on the interior scale: real spectra mirror about DC and Nyquist, whose bins
  // are stored at half the interior scale (levels.ts); complex spectra wrap around.
  const pAt = (j: number): number => {
    let k = ((j % n) + n) % n;
    if (complex) return power[k];
    if (k > n / 2) k = n - k;
    const v = power[k];
    return k === 0 || 2 * k === n ? 2 * v : v;
  };
  const model = (j: number, p: number): number =>
    complex ? resp.power(j - p) : resp.power(j - p) + resp.power(j + p);

  // Local maxima, ordered by an estimate of their fitted level: the offset read from a table of the
  // neighbour ratio (no image term), so that few candidates need the exact fit.
  const table = offsetTable(resp);
  const candidates: number[] = [];
  for (let k = 0; k < bins; k++) {
    const v = pAt(k);
    if (v > 0 && v > pAt(k - 1) && v >= pAt(k + 1)) candidates.push(k);
  }
  const values = new Float64Array(bins);
  const estimates = new Float64Array(bins);
  for (const k of candidates) {
    const v = pAt(k);
    values[k] = v;
    estimates[k] = v / table.gainAt(Math.max(pAt(k - 1), pAt(k + 1)) / v);
  }
  // Those that cannot reach the floor would end the loop below at once: leave them out before sorting
  // (in noise, most of the local maxima).
  const strong =
    minPower > 0 ? candidates.filter((k) => estimates[k] * ESTIMATE_SLACK >= minPower) : candidates;
  strong.sort((a, b) => estimates[b] - estimates[a]);

  const accepted: Accepted[] = [];
  let kth = 0; // the count-th best fitted level so far (0 until there are count peaks)
  for (const c of strong) {
    const r = values[c];
    // Later candidates have lower estimates; the slack covers the estimate's error.
    const bound = estimates[c] * ESTIMATE_SLACK;
    if (bound < minPower || (accepted.length >= count && bound < kth)) break;
    let leak = 0;
    for (const a of accepted) leak += a.a2 * model(c, a.p);
    if (r <= LEAK_MARGIN * leak) continue;
    const { p, a2 } = interpolate(c, pAt, model);
    if (accepted.some((a) => distance(p, a.p, n, complex) < halfWidth)) continue;
    accepted.push({ p, a2, bin: c });
    if (accepted.length >= count) {
      kth = accepted.map((x) => x.a2).sort((x, y) => y - x)[count - 1];
    }
  }

  accepted.sort((x, y) => y.a2 - x.a2);
  const fs = spectrum.sampleRate;
  const out: Peak[] = [];
  for (const a of accepted.slice(0, count)) {
    if (a.a2 < minPower) continue;
    let frequency: number;
    if (complex) {
      frequency = binFrequency(a.p, n, fs, true);
      if (frequency >= fs / 2) frequency -= fs;
      else if (frequency < -fs / 2) frequency += fs;
      if (spectrum.centerFrequency !== undefined) frequency += spectrum.centerFrequency;
    } else {
      let p = ((a.p % n) + n) % n;
      if (p > n / 2) p = n - p;
      frequency = binFrequency(p, n, fs, false);
    }
    out.push({ frequency, level: powerToDb(a.a2, DEFAULT_FLOOR_DB), bin: a.bin });
  }
  return out;
}

function distance(p: number, q: number, n: number, complex: boolean): number {
  const wrap = (d: number): number => {
    const m = ((d % n) + n) % n;
    return Math.min(m, n - m);
  };
  // A real spectrum also holds each peak's mirror image at −q.
  return complex ? wrap(p - q) : Math.min(wrap(p - q), wrap(p + q));
}

function interpolate(
  c: number,
  pAt: (j: number) => number,
  model: (j: number, p: number) => number,
): { p: number; a2: number } {
  const r = pAt(c);
  const s = pAt(c + 1) >= pAt(c - 1) ? 1 : -1;
  const rho = pAt(c + s) / r;
  // f(u) < 0 while the model's neighbour ratio is below the measured one.
  const f = (u: number): number => model(c + s, c + s * u) - rho * model(c, c + s * u);
  let u: number;
  let fa = f(0);
  let fb = f(0.5);
  if (fa >= 0) u = 0;
  else if (fb <= 0) u = 0.5;
  else {
    // Illinois (modified regula falsi): bracketed, superlinear.
    let a = 0;
    let b = 0.5;
    let side = 0;
    u = 0.25;
    for (let it = 0; it < 100; it++) {
      const prev = u;
      u = (a * fb - b * fa) / (fb - fa);
      const fu = f(u);
      if (fu === 0 || Math.abs(u - prev) < 1e-13) break;
      if (fu < 0) {
        a = u;
        fa = fu;
        if (side === -1) fb /= 2;
        side = -1;
      } else {
        b = u;
        fb = fu;
        if (side === 1) fa /= 2;
        side = 1;
      }
      if (Math.abs(b - a) < 1e-12) break;
    }
  }
  const p = c + s * u;
  return { p, a2: r / model(c, p) };
}

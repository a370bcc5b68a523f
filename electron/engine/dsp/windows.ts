// Window functions, named and defined as in scipy.signal.windows / scipy.signal.get_window.
//
// Periodic ("DFT-even", get_window's default fftbins=True) windows are for spectral analysis: the
// symmetric window of length n+1 without its last sample. Symmetric windows are for filter design.

import { InvalidArgumentError } from '../errors.js';
import { besselI0, besselI0e } from './bessel.js';

export type WindowName =
  'rectangular' | 'hann' | 'hamming' | 'blackman' | 'blackmanharris' | 'flattop' | 'kaiser';

export interface WindowSpec {
  readonly name: WindowName;
  /** Kaiser shape parameter β ≥ 0 (kaiser only; default DEFAULT_KAISER_BETA). */
  readonly beta?: number;
}

/** β used for a bare 'kaiser': about 90 dB side lobes, close to blackman-harris (SciPy's docs suggest 8.6
 * as the Kaiser equivalent of a Blackman-Harris window). */
export const DEFAULT_KAISER_BETA = 8.6;

export const WINDOW_NAMES: readonly WindowName[] = [
  'rectangular',
  'hann',
  'hamming',
  'blackman',
  'blackmanharris',
  'flattop',
  'kaiser',
];

const ALIASES: Readonly<Record<string, WindowName>> = {
  rectangular: 'rectangular',
  rect: 'rectangular',
  boxcar: 'rectangular',
  box: 'rectangular',
  ones: 'rectangular',
  hann: 'hann',
  han: 'hann',
  hanning: 'hann',
  hamming: 'hamming',
  hamm: 'hamming',
  ham: 'hamming',
  blackman: 'blackman',
  black: 'blackman',
  blk: 'blackman',
  blackmanharris: 'blackmanharris',
  'blackman-harris': 'blackmanharris',
  blackman_harris: 'blackmanharris',
  blackharr: 'blackmanharris',
  bkh: 'blackmanharris',
  flattop: 'flattop',
  'flat-top': 'flattop',
  flat: 'flattop',
  flt: 'flattop',
  kaiser: 'kaiser',
  ksr: 'kaiser',
};

/** Coefficients a_k of w = Σ (−1)^k a_k cos(2πk n/(M−1)) (scipy.signal.windows.general_cosine). */
const COSINE_COEFFICIENTS: Readonly<Partial<Record<WindowName, readonly number[]>>> = {
  rectangular: [1],
  hann: [0.5, 0.5],
  hamming: [0.54, 0.46],
  blackman: [0.42, 0.5, 0.08],
  blackmanharris: [0.35875, 0.48829, 0.14128, 0.01168],
  flattop: [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368],
};

const VALID_NAMES_TEXT =
  'rectangular (or boxcar), hann, hamming, blackman, blackmanharris (or blackman-harris), flattop, ' +
  `kaiser or kaiser:BETA (β ≥ 0, default ${DEFAULT_KAISER_BETA})`;

function checkBeta(beta: number, text: string): number {
  if (!Number.isFinite(beta) || beta < 0) {
    throw new InvalidArgumentError(`kaiser window: β must be a finite number ≥ 0, got ${text}`);
  }
  return beta;
}

/** Parses 'hann', 'Blackman-Harris', 'kaiser:8.6', 'kaiser' (β = DEFAULT_KAISER_BETA). */
export function parseWindow(spec: string): WindowSpec {
  if (typeof spec !== 'string') {
    throw new InvalidArgumentError(`window must be a name; valid windows: ${VALID_NAMES_TEXT}`);
  }
  const text = spec.trim().toLowerCase();
  const colon = text.indexOf(':');
  const nameText = (colon < 0 ? text : text.slice(0, colon)).trim();
  const paramText = colon < 0 ? undefined : text.slice(colon + 1).trim();
  const name = Object.hasOwn(ALIASES, nameText) ? ALIASES[nameText] : undefined;
  if (name === undefined) {
    throw new InvalidArgumentError(`unknown window "${spec}"; valid windows: ${VALID_NAMES_TEXT}`);
  }
  if (name !== 'kaiser') {
    if (paramText !== undefined) {
      throw new InvalidArgumentError(`window "${spec}": ${name} takes no parameter (only kaiser:BETA does)`);
    }
    return { name };
  }
  if (paramText === undefined || paramText === '') return { name, beta: DEFAULT_KAISER_BETA };
  const beta = /^[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(paramText) ? Number(paramText) : NaN;
  return { name, beta: checkBeta(beta, `"${paramText}"`) };
}

/** The canonical text of a window: 'hann', 'kaiser:8.6'. parseWindow(formatWindow(s)) equals s. */
export function formatWindow(spec: WindowSpec): string {
  return spec.name === 'kaiser' ? `kaiser:${spec.beta ?? DEFAULT_KAISER_BETA}` : spec.name;
}

function resolveSpec(spec: WindowSpec | string): WindowSpec {
  if (typeof spec === 'string') return parseWindow(spec);
  if (typeof spec !== 'object' || spec === null || !WINDOW_NAMES.includes(spec.name)) {
    throw new InvalidArgumentError(`unknown window; valid windows: ${VALID_NAMES_TEXT}`);
  }
  if (spec.name === 'kaiser') {
    return { name: 'kaiser', beta: checkBeta(spec.beta ?? DEFAULT_KAISER_BETA, String(spec.beta)) };
  }
  return spec;
}

/** Symmetric window of length m ≥ 2 (w[i] = w[m−1−i] exactly). */
function symmetricWindow(spec: WindowSpec, m: number, out: Float64Array): void {
  const half = m >> 1;
  if (spec.name === 'kaiser') {
    const beta = spec.beta ?? DEFAULT_KAISER_BETA;
    const alpha = (m - 1) / 2;
    // I0(β) overflows past β ≈ 713; use the ratio of the scaled function there.
    const big = beta > 700;
    const denominator = big ? 1 : besselI0(beta);
    for (let i = 0; i <= half; i++) {
      const r = (i - alpha) / alpha;
      const arg = beta * Math.sqrt(Math.max(0, 1 - r * r));
      const v = big ? (besselI0e(arg) / besselI0e(beta)) * Math.exp(arg - beta) : besselI0(arg) / denominator;
      out[i] = v;
      out[m - 1 - i] = v;
    }
    return;
  }
  const a = COSINE_COEFFICIENTS[spec.name] as readonly number[];
  const step = (2 * Math.PI) / (m - 1);
  for (let i = 0; i <= half; i++) {
    let v = a[0];
    let sign = -1;
    for (let k = 1; k < a.length; k++) {
      v += sign * a[k] * Math.cos(k * step * i);
      sign = -sign;
    }
    out[i] = v;
    out[m - 1 - i] = v;
  }
}

/**
 * The window `spec` of length n, equal to scipy.signal.get_window(spec, n, fftbins=not symmetric)
 * (within 1e-12). Periodic (the default) for spectra; `symmetric: true` for filter design.
 */
export function getWindow(
  spec: WindowSpec | string,
  n: number,
  options: { symmetric?: boolean } = {},
): Float64Array {
  const resolved = resolveSpec(spec);
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError(`window length must be an integer ≥ 1, got ${n}`);
  }
  const out = new Float64Array(n);
  if (n === 1) {
    out[0] = 1;
    return out;
  }
  const symmetric = options.symmetric ?? false;
  if (symmetric) {
    symmetricWindow(resolved, n, out);
    return out;
  }
  const full = new Float64Array(n + 1);
  symmetricWindow(resolved, n + 1, full);
  out.set(full.subarray(0, n));
  return out;
}

export interface WindowProperties {
  /** Σw / N: the amplitude a tone centred on a bin keeps after windowing. */
  coherentGain: number;
  /** Equivalent noise bandwidth in bins: N·Σw² / (Σw)². */
  enbw: number;
}

export function windowProperties(w: ArrayLike<number>): WindowProperties {
  const n = w.length;
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    sum += w[i];
    sumSq += w[i] * w[i];
  }
  if (n === 0 || !(Math.abs(sum) > 0) || !Number.isFinite(sumSq)) {
    throw new InvalidArgumentError('window properties need a non-empty window with a non-zero, finite sum');
  }
  return { coherentGain: sum / n, enbw: (n * sumSq) / (sum * sum) };
}

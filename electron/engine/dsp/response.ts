// The frequency response of a window, evaluated at any offset (in bins) from the window samples.
//
// W(δ) = Σ_n w[n]·e^{−j2πδn/N}. Writing w through its DFT coefficients c_m = W(m) gives the exact
// interpolation W(δ) = (1/N)·Σ_m c_m·D(δ − m) with the Dirichlet kernel D(x) = Σ_n e^{−j2πxn/N}. Windows are
// smooth, so c_m vanishes beyond a few bins (exactly, for the cosine-sum windows): keeping the coefficients
// down to 1e-13 of c_0 (at most MAX_TERMS a side) makes an evaluation cost O(terms) instead of O(N).
// For N ≤ 2·MAX_TERMS+1 every coefficient is kept and the result is exact.

import { InvalidArgumentError } from '../errors.js';

const MAX_TERMS = 64;
const NEGLIGIBLE = 1e-13;

export class WindowResponse {
  readonly length: number;
  /** Offset (bins) of the first minimum of |W|² past its half-power point: the main lobe's half width
   * (1 rectangular, 2 hann, 4 blackman-harris…). */
  readonly mainLobeHalfWidth: number;
  /** |W(±0.5)|²/|W(0)|²: the worst-case scalloping loss, as a power ratio. */
  readonly scallopGain: number;
  private readonly m: Int32Array;
  private readonly cRe: Float64Array;
  private readonly cIm: Float64Array;
  private readonly norm: number;

  constructor(window: ArrayLike<number>) {
    const n = window.length;
    if (n < 1) throw new InvalidArgumentError('window response: the window is empty');
    this.length = n;
    const ms: number[] = [];
    const re: number[] = [];
    const im: number[] = [];
    if (n <= 2 * MAX_TERMS + 1) {
      // One full period of coefficients: exact.
      for (let m = -Math.floor((n - 1) / 2); m <= Math.floor(n / 2); m++) {
        const [a, b] = dftBin(window, m);
        ms.push(m);
        re.push(a);
        im.push(b);
      }
    } else {
      const [c0r, c0i] = dftBin(window, 0);
      const c0 = Math.hypot(c0r, c0i);
      ms.push(0);
      re.push(c0r);
      im.push(c0i);
      let small = 0;
      for (let m = 1; m <= MAX_TERMS && small < 3; m++) {
        // A real window has c_{−m} = conj(c_m).
        const [pr, pi] = dftBin(window, m);
        ms.push(m, -m);
        re.push(pr, pr);
        im.push(pi, -pi);
        small = Math.hypot(pr, pi) < NEGLIGIBLE * c0 ? small + 1 : 0;
      }
    }
    this.m = Int32Array.from(ms);
    this.cRe = Float64Array.from(re);
    this.cIm = Float64Array.from(im);
    const [w0r, w0i] = this.response(0);
    this.norm = w0r * w0r + w0i * w0i;
    if (!(this.norm > 0) || !Number.isFinite(this.norm)) {
      throw new InvalidArgumentError('window response: the window sums to zero');
    }
    this.mainLobeHalfWidth = this.findFirstMinimum();
    this.scallopGain = this.power(0.5);
  }

  /** |W(δ)|² / |W(0)|² at an offset of δ bins (any real δ; the response repeats every N bins). */
  power(delta: number): number {
    const [a, b] = this.response(delta);
    return (a * a + b * b) / this.norm;
  }

  /** W(δ), unnormalized, as [re, im]. */
  response(delta: number): [number, number] {
    const n = this.length;
    let sumRe = 0;
    let sumIm = 0;
    for (let i = 0; i < this.m.length; i++) {
      let x = delta - this.m[i];
      x -= n * Math.round(x / n); // D is N-periodic
      // D(x) = e^{−jπ(e − x/N)}·sin(πe)/sin(πx/N) with e = x − round(x): small arguments keep it accurate
      // near integer offsets.
      const e = x - Math.round(x);
      let mag: number;
      if (x === 0) mag = n;
      else mag = Math.sin(Math.PI * e) / Math.sin((Math.PI * x) / n);
      if (mag === 0) continue;
      const ph = -Math.PI * (e - x / n);
      const dRe = mag * Math.cos(ph);
      const dIm = mag * Math.sin(ph);
      const cr = this.cRe[i];
      const ci = this.cIm[i];
      sumRe += cr * dRe - ci * dIm;
      sumIm += cr * dIm + ci * dRe;
    }
    return [sumRe / n, sumIm / n];
  }

  private findFirstMinimum(): number {
    const limit = Math.min(this.length / 2, MAX_TERMS);
    const h = 1 / 64;
    let prev = this.power(0);
    let d = h;
    // Look only past the half-power point: a flat-top window's response rises a little before it falls.
    let falling = false;
    while (d <= limit) {
      const p = this.power(d);
      if (p === 0) return d; // an exact null
      if (p < 0.5) falling = true;
      if (falling && p > prev) {
        // The minimum lies in [d − 2h, d]: golden-section search.
        let a = d - 2 * h;
        let b = d;
        const g = (Math.sqrt(5) - 1) / 2;
        let x1 = b - g * (b - a);
        let x2 = a + g * (b - a);
        let f1 = this.power(x1);
        let f2 = this.power(x2);
        for (let it = 0; it < 60 && b - a > 1e-10; it++) {
          if (f1 < f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = this.power(x1);
          } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = this.power(x2);
          }
        }
        return (a + b) / 2;
      }
      prev = p;
      d += h;
    }
    return limit;
  }
}

/** Σ_n w[n]·e^{−j2πmn/N}, with the rotation re-seeded exactly every 256 samples. */
function dftBin(w: ArrayLike<number>, m: number): [number, number] {
  const n = w.length;
  const step = (2 * Math.PI * m) / n;
  const sRe = Math.cos(step);
  const sIm = -Math.sin(step);
  let re = 0;
  let im = 0;
  let cRe = 1;
  let cIm = 0;
  for (let k = 0; k < n; k++) {
    if ((k & 255) === 0) {
      const idx = (((m * k) % n) + n) % n; // exact: |m·k| < 2^53
      const a = (2 * Math.PI * idx) / n;
      cRe = Math.cos(a);
      cIm = -Math.sin(a);
    }
    const v = w[k];
    re += v * cRe;
    im += v * cIm;
    const t = cRe * sRe - cIm * sIm;
    cIm = cRe * sIm + cIm * sRe;
    cRe = t;
  }
  return [re, im];
}

const cache = new WeakMap<object, WindowResponse>();

/** The response of a window, cached per window array (a WelchResult's window is computed once). */
export function windowResponse(window: Float64Array | Float32Array): WindowResponse {
  let r = cache.get(window);
  if (r === undefined) {
    r = new WindowResponse(window);
    cache.set(window, r);
  }
  return r;
}

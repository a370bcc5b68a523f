// Real-input FFT (numpy.fft.rfft / irfft conventions), float64 inside.
//
//   const plan = getRealFftPlan(n);
//   plan.forward(x, bins);   // n reals → floor(n/2)+1 complex bins (interleaved), unscaled
//   plan.inverse(bins, x);   // floor(n/2)+1 bins → n reals, scaled by 1/n
//
// Even n packs the reals as n/2 complex values (x[2k] + i·x[2k+1]), transforms them with a half-length
// complex FFT and separates the even and odd halves in a post-pass; the inverse runs the same steps
// backwards. Odd n goes through the full complex FFT. As in numpy, the inverse ignores the imaginary part
// of the DC bin (and of the Nyquist bin for even n).

import { InvalidArgumentError } from '../errors.js';
import { spectrumBins } from '../protocol/shape.js';
import { getFftPlan, type FftInput, type FftPlan } from './plan.js';
import { scratch, SLOT_REAL } from './scratch.js';

export interface RealFftPlan {
  readonly n: number;
  /** floor(n/2) + 1. */
  readonly bins: number;
  /** n reals at input[inOffset…] → bins complex values at output[outOffset…] (2·bins floats). */
  forward(input: FftInput, output: Float64Array, inOffset?: number, outOffset?: number): void;
  /** bins complex values at input[inOffset…] → n reals at output[outOffset…], scaled by 1/n. */
  inverse(input: FftInput, output: Float64Array, inOffset?: number, outOffset?: number): void;
}

class RealFftPlanImpl implements RealFftPlan {
  readonly bins: number;
  private readonly half: number;
  private readonly complex: FftPlan;
  /** e^(−2πi·k/n) for k ≤ n/2 (even n only). */
  private readonly twiddles: Float64Array;

  constructor(readonly n: number) {
    this.bins = spectrumBins(n, false);
    const even = n % 2 === 0;
    this.half = even ? n / 2 : 0;
    this.complex = getFftPlan(even ? n / 2 : n);
    const h = this.half;
    this.twiddles = new Float64Array(even ? 2 * (h + 1) : 0);
    for (let k = 0; even && k <= h; k++) {
      const angle = (-2 * Math.PI * k) / n;
      this.twiddles[2 * k] = Math.cos(angle);
      this.twiddles[2 * k + 1] = Math.sin(angle);
    }
  }

  private check(
    input: FftInput,
    output: Float64Array,
    io: number,
    oo: number,
    inLen: number,
    outLen: number,
  ) {
    if (io < 0 || io + inLen > input.length || oo < 0 || oo + outLen > output.length) {
      throw new InvalidArgumentError(
        `real FFT of size ${this.n} needs ${inLen} input values from offset ${io} (array has ${input.length}) ` +
          `and ${outLen} output values from offset ${oo} (array has ${output.length})`,
      );
    }
  }

  forward(input: FftInput, output: Float64Array, inOffset = 0, outOffset = 0): void {
    const n = this.n;
    this.check(input, output, inOffset, outOffset, n, 2 * this.bins);
    if (this.half === 0) {
      // Odd n: complex FFT of x + 0i, keep the first bins.
      const z = scratch(SLOT_REAL, 4 * n);
      for (let i = 0; i < n; i++) {
        z[2 * i] = input[inOffset + i];
        z[2 * i + 1] = 0;
      }
      this.complex.forward(z, z, 0, 2 * n);
      for (let i = 0; i < 2 * this.bins; i++) output[outOffset + i] = z[2 * n + i];
      return;
    }
    const h = this.half;
    const z = scratch(SLOT_REAL, 2 * h);
    this.complex.forward(input, z, inOffset, 0);
    const w = this.twiddles;
    // X[k] = E[k] + w^k·O[k], E = (Z[k] + conj Z[h−k]) / 2, O = −i·(Z[k] − conj Z[h−k]) / 2.
    for (let k = 0; k <= h; k++) {
      const a = k === h ? 0 : k;
      const b = k === 0 ? 0 : h - k;
      const zr = z[2 * a],
        zi = z[2 * a + 1];
      const cr = z[2 * b],
        ci = -z[2 * b + 1];
      const er = 0.5 * (zr + cr),
        ei = 0.5 * (zi + ci);
      const or = 0.5 * (zi - ci),
        oi = -0.5 * (zr - cr);
      const wr = w[2 * k],
        wi = w[2 * k + 1];
      output[outOffset + 2 * k] = er + (or * wr - oi * wi);
      output[outOffset + 2 * k + 1] = ei + (or * wi + oi * wr);
    }
  }

  inverse(input: FftInput, output: Float64Array, inOffset = 0, outOffset = 0): void {
    const n = this.n;
    const bins = this.bins;
    this.check(input, output, inOffset, outOffset, 2 * bins, n);
    if (this.half === 0) {
      // Odd n: rebuild the Hermitian spectrum and take the real part of the complex inverse.
      const z = scratch(SLOT_REAL, 4 * n);
      z[0] = input[inOffset];
      z[1] = 0;
      for (let k = 1; k < bins; k++) {
        const re = input[inOffset + 2 * k],
          im = input[inOffset + 2 * k + 1];
        z[2 * k] = re;
        z[2 * k + 1] = im;
        z[2 * (n - k)] = re;
        z[2 * (n - k) + 1] = -im;
      }
      this.complex.inverse(z, z, 0, 2 * n);
      for (let i = 0; i < n; i++) output[outOffset + i] = z[2 * n + 2 * i];
      return;
    }
    const h = this.half;
    const z = scratch(SLOT_REAL, 2 * h);
    const w = this.twiddles;
    // Z[k] = E[k] + i·O[k], E = (X[k] + conj X[h−k]) / 2, O = (X[k] − conj X[h−k])·w^−k / 2.
    for (let k = 0; k < h; k++) {
      const xr = input[inOffset + 2 * k],
        xi = k === 0 ? 0 : input[inOffset + 2 * k + 1];
      const cr = input[inOffset + 2 * (h - k)],
        ci = k === 0 ? 0 : -input[inOffset + 2 * (h - k) + 1];
      const er = 0.5 * (xr + cr),
        ei = 0.5 * (xi + ci);
      const dr = 0.5 * (xr - cr),
        di = 0.5 * (xi - ci);
      // multiply by conj(w^k)
      const wr = w[2 * k],
        wi = -w[2 * k + 1];
      const or = dr * wr - di * wi,
        oi = dr * wi + di * wr;
      z[2 * k] = er - oi;
      z[2 * k + 1] = ei + or;
    }
    // The complex inverse scales by 1/h; the packing already halves E and O, so the result is x itself.
    this.complex.inverse(z, output, 0, outOffset);
  }
}

const cache = new Map<number, RealFftPlan>();

/** The real-FFT plan for size n (any integer ≥ 1), cached per thread. */
export function getRealFftPlan(n: number): RealFftPlan {
  let plan = cache.get(n);
  if (plan === undefined) {
    if (!Number.isInteger(n) || n < 1) {
      throw new InvalidArgumentError(`real FFT size must be an integer ≥ 1 (got ${n})`);
    }
    plan = new RealFftPlanImpl(n);
    cache.set(n, plan);
    if (cache.size > 64) cache.delete(cache.keys().next().value!);
  }
  return plan;
}

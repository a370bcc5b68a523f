// Complex FFT plans: plan once per size, execute many times, no allocation in execute.
//
//   const plan = getFftPlan(1000);          // cached by size
//   plan.forward(input, output);            // X[k] = Σ x[j]·e^(−2πi·jk/n), unscaled
//   plan.inverse(spectrum, output);         // scaled by 1/n (numpy.fft.ifft)
//   plan.batch(input, output, count);       // count transforms of consecutive blocks (float32 in and out is fine)
//
// Data is interleaved complex (re, im, re, im…); offsets count array elements (floats), not samples.
// Input and output may be Float64Array or Float32Array, and may be the same array. Everything is computed
// in float64, so a float32 output is the correctly rounded float32 of a float64 result.
// Powers of two from 16 up use generated radix-4 kernels (pow2.ts); other sizes whose prime factors are
// small use the mixed-radix Stockham kernels; sizes with a large prime factor use Bluestein's chirp-z
// algorithm through a power-of-two plan. The choice between the last two is a cost estimate.

import { InvalidArgumentError } from '../errors.js';
import { TRANSFORM_SIZE_MAX } from '../protocol/shape.js';
import { Pow2Kernels } from './pow2.js';
import {
  scratch,
  SLOT_BLUESTEIN_A,
  SLOT_BLUESTEIN_B,
  SLOT_STOCKHAM_A,
  SLOT_STOCKHAM_B,
  SLOT_STOCKHAM_OUT,
} from './scratch.js';
import {
  buildStages,
  factorize,
  oddRadixTables,
  radix2,
  radix3,
  radix4,
  radix5,
  radix8,
  radixOdd,
  type OddRadixTables,
  type Stage,
} from './stockham.js';

export type FftInput = Float64Array | Float32Array;
export type FftOutput = Float64Array | Float32Array;

export interface FftPlan {
  readonly n: number;
  readonly method: 'radix-4' | 'mixed-radix' | 'bluestein';
  /** Bytes held by the plan's tables. */
  readonly bytes: number;
  /** Forward transform of n complex values at input[inOffset…] into output[outOffset…]. */
  forward(input: FftInput, output: FftOutput, inOffset?: number, outOffset?: number): void;
  /** Inverse transform, scaled by 1/n. */
  inverse(input: FftInput, output: FftOutput, inOffset?: number, outOffset?: number): void;
  /**
   * `count` transforms: block t is input[inOffset + 2n·t …] → output[outOffset + 2n·t …]. One range check
   * for the whole batch; no per-transform staging copies.
   */
  batch(
    input: FftInput,
    output: FftOutput,
    count: number,
    inverse?: boolean,
    inOffset?: number,
    outOffset?: number,
  ): void;
}

/** Largest prime factor handled by the generic odd-radix kernel before Bluestein is considered. */
const MAX_GENERIC_RADIX = 127;

function checkSize(n: number): void {
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError(`FFT size must be an integer ≥ 1 (got ${n})`);
  }
  if (n > TRANSFORM_SIZE_MAX) {
    throw new InvalidArgumentError(`FFT size must be at most 2^26 = ${TRANSFORM_SIZE_MAX} (got ${n})`);
  }
}

function checkRange(
  n: number,
  input: FftInput,
  output: FftOutput,
  inOffset: number,
  outOffset: number,
  inLen: number,
  outLen: number,
): void {
  if (
    inOffset < 0 ||
    inOffset + inLen > input.length ||
    outOffset < 0 ||
    outOffset + outLen > output.length
  ) {
    throw new InvalidArgumentError(
      `FFT of size ${n} needs ${inLen} input values from offset ${inOffset} (array has ${input.length}) ` +
        `and ${outLen} output values from offset ${outOffset} (array has ${output.length})`,
    );
  }
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 0) {
    throw new InvalidArgumentError(`FFT batch count must be an integer ≥ 0 (got ${count})`);
  }
}

/** Copies n2 values (n2 even) into a float64 buffer; two per iteration (V8's loop overhead dominates). */
function copyIn(input: FftInput, offset: number, dst: Float64Array, n2: number): void {
  for (let i = 0; i < n2; i += 2) {
    const re = input[offset + i],
      im = input[offset + i + 1];
    dst[i] = re;
    dst[i + 1] = im;
  }
}

/** The kernels do their index arithmetic in 32-bit integers: offsets stay below this. */
const INDEX_LIMIT = 0x7fffffff;

/**
 * An offset as a small integer when it is one: offsets that arrive as doubles (computed with 2 ** k, or a
 * product) would make every index computed from them floating point.
 */
function smallInt(v: number): number {
  return v <= INDEX_LIMIT ? v | 0 : v;
}

/** The generic batch: one checked call per transform. */
function batchOf(
  plan: FftPlan,
  input: FftInput,
  output: FftOutput,
  count: number,
  inverse: boolean,
  inOffset: number,
  outOffset: number,
): void {
  checkCount(count);
  const n2 = 2 * plan.n;
  for (let t = 0; t < count; t++) {
    if (inverse) plan.inverse(input, output, inOffset + n2 * t, outOffset + n2 * t);
    else plan.forward(input, output, inOffset + n2 * t, outOffset + n2 * t);
  }
}

// ------------------------------------------------------------------------------------------------

/** Powers of two ≥ 16: generated kernels (see pow2.ts). */
class Pow2Plan implements FftPlan {
  readonly method = 'radix-4' as const;
  readonly bytes: number;

  constructor(
    readonly n: number,
    private readonly kernels: Pow2Kernels,
  ) {
    this.bytes = kernels.bytes;
  }

  forward(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    this.batch(input, output, 1, false, inOffset, outOffset);
  }

  inverse(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    this.batch(input, output, 1, true, inOffset, outOffset);
  }

  batch(
    input: FftInput,
    output: FftOutput,
    count: number,
    inverse = false,
    inOffset = 0,
    outOffset = 0,
  ): void {
    checkCount(count);
    if (count === 0) return;
    const n2 = 2 * this.n;
    checkRange(this.n, input, output, inOffset, outOffset, n2 * count, n2 * count);
    const k = this.kernelFor(input, output, inverse);
    if (inOffset + n2 * count <= INDEX_LIMIT && outOffset + n2 * count <= INDEX_LIMIT) {
      // `| 0` as in smallInt(): offsets that arrive as doubles would slow every index.
      for (let t = 0; t < count; t++) k(input, (inOffset + n2 * t) | 0, output, (outOffset + n2 * t) | 0);
      return;
    }
    // Arrays past 2^31 elements: views starting at each block keep the kernels' indices small.
    for (let t = 0; t < count; t++) {
      const i0 = inOffset + n2 * t;
      const o0 = outOffset + n2 * t;
      k(input.subarray(i0, i0 + n2), 0, output.subarray(o0, o0 + n2), 0);
    }
  }

  /** The passes run in the plan's scratch, so input and output may be the same array or overlap. */
  private kernelFor(input: FftInput, output: FftOutput, inverse: boolean) {
    return this.kernels.kernel(input instanceof Float32Array, output instanceof Float32Array, inverse);
  }
}

// ------------------------------------------------------------------------------------------------

class MixedRadixPlan implements FftPlan {
  readonly method = 'mixed-radix' as const;
  readonly bytes: number;
  private readonly stages: Stage[];
  private readonly odd: Array<OddRadixTables | undefined>;

  constructor(
    readonly n: number,
    radices: number[],
  ) {
    this.stages = buildStages(radices);
    this.odd = this.stages.map((st) =>
      st.radix <= 5 || st.radix === 8 ? undefined : oddRadixTables(st.radix),
    );
    this.bytes = this.stages.reduce((b, st) => b + st.twiddles.byteLength, 0);
  }

  forward(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    const n2 = 2 * this.n;
    checkRange(this.n, input, output, inOffset, outOffset, n2, n2);
    inOffset = smallInt(inOffset);
    outOffset = smallInt(outOffset);
    if (this.n === 1) {
      output[outOffset] = input[inOffset];
      output[outOffset + 1] = input[inOffset + 1];
      return;
    }
    if (!(output instanceof Float64Array)) {
      // The kernels write float64: transform into scratch, then round into the float32 output.
      const tmp = scratch(SLOT_STOCKHAM_OUT, n2);
      this.forward(input, tmp, inOffset, 0);
      for (let i = 0; i < n2; i++) output[outOffset + i] = tmp[i];
      return;
    }
    let src: Float64Array;
    let so: number;
    // Read the caller's float64 array in place, except for single-stage plans (that stage could overwrite
    // what it reads when input and output are the same array; comparing .buffer costs more than a copy).
    if (input instanceof Float64Array && this.stages.length > 1) {
      src = input;
      so = inOffset;
    } else {
      src = scratch(SLOT_STOCKHAM_B, n2);
      so = 0;
      copyIn(input, inOffset, src, n2);
    }
    this.run(src, so, output, outOffset);
  }

  inverse(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    const n = this.n;
    const n2 = 2 * n;
    checkRange(n, input, output, inOffset, outOffset, n2, n2);
    inOffset = smallInt(inOffset);
    outOffset = smallInt(outOffset);
    if (n === 1) {
      output[outOffset] = input[inOffset];
      output[outOffset + 1] = input[inOffset + 1];
      return;
    }
    if (!(output instanceof Float64Array)) {
      const tmp = scratch(SLOT_STOCKHAM_OUT, n2);
      this.inverse(input, tmp, inOffset, 0);
      for (let i = 0; i < n2; i++) output[outOffset + i] = tmp[i];
      return;
    }
    // ifft(x) = swap(fft(swap(x))) / n, where swap exchanges re and im.
    const src = scratch(SLOT_STOCKHAM_B, n2);
    for (let i = 0; i < n2; i += 2) {
      const re = input[inOffset + i],
        im = input[inOffset + i + 1];
      src[i] = im;
      src[i + 1] = re;
    }
    this.run(src, 0, output, outOffset);
    const scale = 1 / n;
    for (let i = outOffset, end = outOffset + n2; i < end; i += 2) {
      const re = output[i];
      output[i] = output[i + 1] * scale;
      output[i + 1] = re * scale;
    }
  }

  batch(
    input: FftInput,
    output: FftOutput,
    count: number,
    inverse = false,
    inOffset = 0,
    outOffset = 0,
  ): void {
    batchOf(this, input, output, count, inverse, inOffset, outOffset);
  }

  /** Runs every stage from src (which may be scratch B) to output. */
  private run(src: Float64Array, so: number, output: Float64Array, outOffset: number): void {
    const stages = this.stages;
    const last = stages.length - 1;
    const n2 = 2 * this.n;
    const bufA = last > 0 ? scratch(SLOT_STOCKHAM_A, n2) : output;
    const bufB = last > 1 ? scratch(SLOT_STOCKHAM_B, n2) : output;
    let x = src;
    let xo = so;
    for (let i = 0; i <= last; i++) {
      // Stage i writes A when i is even, B when odd; an input copy sits in B and is consumed by stage 0
      // before stage 1 overwrites it.
      const y = i === last ? output : i % 2 === 0 ? bufA : bufB;
      const yo = i === last ? outOffset : 0;
      const st = stages[i];
      switch (st.radix) {
        case 8:
          radix8(st, x, xo, y, yo);
          break;
        case 4:
          radix4(st, x, xo, y, yo);
          break;
        case 2:
          radix2(st, x, xo, y, yo);
          break;
        case 3:
          radix3(st, x, xo, y, yo);
          break;
        case 5:
          radix5(st, x, xo, y, yo);
          break;
        default:
          radixOdd(st, this.odd[i]!, x, xo, y, yo);
      }
      x = y;
      xo = yo;
    }
  }
}

// ------------------------------------------------------------------------------------------------

class BluesteinPlan implements FftPlan {
  readonly method = 'bluestein' as const;
  readonly bytes: number;
  private readonly m: number;
  private readonly sub: FftPlan;
  /** Chirp w[k] = e^(−iπ·k²/n), interleaved. */
  private readonly chirp: Float64Array;
  /** FFT of the conjugate chirp b[k] = e^(+iπ·k²/n) wrapped to length m. */
  private readonly filter: Float64Array;

  constructor(readonly n: number) {
    let m = 1;
    while (m < 2 * n - 1) m *= 2;
    this.m = m;
    this.sub = getFftPlan(m);
    const chirp = new Float64Array(2 * n);
    const twoN = 2 * n;
    for (let k = 0; k < n; k++) {
      // k² mod 2n keeps the angle small and exact (k² < 2^53 for every n allowed).
      const angle = (Math.PI * ((k * k) % twoN)) / n;
      chirp[2 * k] = Math.cos(angle);
      chirp[2 * k + 1] = -Math.sin(angle);
    }
    this.chirp = chirp;
    const b = new Float64Array(2 * m);
    b[0] = 1;
    for (let k = 1; k < n; k++) {
      const re = chirp[2 * k],
        im = -chirp[2 * k + 1];
      b[2 * k] = re;
      b[2 * k + 1] = im;
      b[2 * (m - k)] = re;
      b[2 * (m - k) + 1] = im;
    }
    const filter = new Float64Array(2 * m);
    this.sub.forward(b, filter);
    // Fold the 1/m of the inverse sub-transform in here: the convolution then needs forward transforms only.
    const scale = 1 / m;
    for (let i = 0; i < 2 * m; i++) filter[i] *= scale;
    this.filter = filter;
    this.bytes = chirp.byteLength + filter.byteLength;
  }

  forward(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    const n2 = 2 * this.n;
    checkRange(this.n, input, output, inOffset, outOffset, n2, n2);
    this.exec(input, output, smallInt(inOffset), smallInt(outOffset), false);
  }

  inverse(input: FftInput, output: FftOutput, inOffset = 0, outOffset = 0): void {
    const n2 = 2 * this.n;
    checkRange(this.n, input, output, inOffset, outOffset, n2, n2);
    this.exec(input, output, smallInt(inOffset), smallInt(outOffset), true);
  }

  batch(
    input: FftInput,
    output: FftOutput,
    count: number,
    inverse = false,
    inOffset = 0,
    outOffset = 0,
  ): void {
    batchOf(this, input, output, count, inverse, inOffset, outOffset);
  }

  private exec(input: FftInput, output: FftOutput, io: number, oo: number, inverse: boolean): void {
    const n = this.n;
    const m2 = 2 * this.m;
    const w = this.chirp;
    const a = scratch(SLOT_BLUESTEIN_A, m2);
    const f = scratch(SLOT_BLUESTEIN_B, m2);
    // a = x·w (with re/im swapped for the inverse), zero-padded to m.
    for (let k = 0; k < n; k++) {
      let xr = input[io + 2 * k],
        xi = input[io + 2 * k + 1];
      if (inverse) {
        const t = xr;
        xr = xi;
        xi = t;
      }
      const wr = w[2 * k],
        wi = w[2 * k + 1];
      a[2 * k] = xr * wr - xi * wi;
      a[2 * k + 1] = xr * wi + xi * wr;
    }
    a.fill(0, 2 * n, m2);
    this.sub.forward(a, f);
    // Convolution with b: multiply by its spectrum, then transform back. The inverse transform is done as
    // swap(forward(swap(·))), so the product is written swapped and swapped back below.
    const h = this.filter;
    for (let i = 0; i < m2; i += 2) {
      const fr = f[i],
        fi = f[i + 1];
      const hr = h[i],
        hi = h[i + 1];
      a[i] = fr * hi + fi * hr; // imag part, into the real slot
      a[i + 1] = fr * hr - fi * hi;
    }
    this.sub.forward(a, f);
    const scale = inverse ? 1 / n : 1;
    for (let k = 0; k < n; k++) {
      const cr = f[2 * k + 1],
        ci = f[2 * k];
      const wr = w[2 * k],
        wi = w[2 * k + 1];
      const yr = (cr * wr - ci * wi) * scale;
      const yi = (cr * wi + ci * wr) * scale;
      if (inverse) {
        output[oo + 2 * k] = yi;
        output[oo + 2 * k + 1] = yr;
      } else {
        output[oo + 2 * k] = yr;
        output[oo + 2 * k + 1] = yi;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Method choice and the plan cache

/** Rough cost per element of one stage (flops and memory traffic, in arbitrary units). */
function stageCost(r: number): number {
  switch (r) {
    case 2:
      return 6;
    case 3:
      return 10;
    case 4:
      return 9;
    case 5:
      return 15;
    default:
      return 4 * (r + 1);
  }
}

/** Picks the radices for n, or null when Bluestein is cheaper (or n has a prime factor too large). */
export function chooseRadices(n: number): number[] | null {
  const radices = factorize(n, MAX_GENERIC_RADIX);
  if (radices === null) return null;
  const isPow2 = (n & (n - 1)) === 0;
  if (isPow2) return radices;
  let m = 1;
  while (m < 2 * n - 1) m *= 2;
  const mixed = n * radices.reduce((c, r) => c + stageCost(r), 0);
  const bluestein = 2 * m * 4.5 * Math.log2(m) + 20 * m + 20 * n;
  return mixed <= bluestein ? radices : null;
}

/** Plans kept while their tables total less than this; the least recently used go first. */
const CACHE_BUDGET_BYTES = 256 * 1024 * 1024;
const cache = new Map<number, FftPlan>();
let cachedBytes = 0;

/** Creates an uncached plan (see getFftPlan). */
export function createFftPlan(n: number): FftPlan {
  checkSize(n);
  // A small integer from here on: sizes computed as doubles (2 ** k, a / b) would otherwise reach the
  // kernels as heap numbers and turn their index arithmetic into floating point.
  n = n | 0;
  if (n === 1) return new MixedRadixPlan(1, []);
  const pow2 = Pow2Kernels.create(n);
  if (pow2 !== null) return new Pow2Plan(n, pow2);
  const radices = chooseRadices(n);
  return radices !== null ? new MixedRadixPlan(n, radices) : new BluesteinPlan(n);
}

/** The plan for size n (any integer ≥ 1), from the cache of this thread. */
export function getFftPlan(n: number): FftPlan {
  const hit = cache.get(n);
  if (hit !== undefined) {
    // Move to the back: the map's order is the recency order.
    cache.delete(n);
    cache.set(n, hit);
    return hit;
  }
  const plan = createFftPlan(n);
  cache.set(n, plan);
  cachedBytes += plan.bytes;
  for (const [size, p] of cache) {
    if (cachedBytes <= CACHE_BUDGET_BYTES || size === n) break;
    cache.delete(size);
    cachedBytes -= p.bytes;
  }
  return plan;
}

/** Forgets every cached plan of this thread. */
export function clearFftPlanCache(): void {
  cache.clear();
  cachedBytes = 0;
}

// A seedable signal generator: tones, chirps and white Gaussian noise, summed; real or complex.
//
// Every sample is a function of its index alone, so the output is the same whatever blockFrames, and a
// read can start anywhere (zoom) without generating what comes before:
// - phases are reduced per 65536-frame segment from the product frequency × index computed exactly
//   (BigInt when the frequency and the rate are whole numbers; otherwise f/fs as a double-double and an
//   error-free float64 product), so long runs do not drift;
// - the noise comes from a counter-based generator (a splitmix-style 32-bit mixer applied to the seed and
//   the sample index), not from a sequential stream.
//
//   const gen = createGenerator({ sampleRate: 48000, tones: [{ frequency: 1000, amplitude: 0.5 }],
//                                 noise: { rms: 0.01 }, seed: 7, duration: 48000 });
//   for await (const block of gen.blocks({ blockFrames: 4096 })) …

import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import { resolveRange } from '../io/range.js';
import type { SampleBlock, StreamFormat } from '../types.js';
import type { ReadOptions, SampleSource, SourceInfo } from './source.js';

export interface ToneSpec {
  /** Hz; may be negative for complex output. */
  frequency: number;
  /** Linear, 1 = full scale. Default 1. */
  amplitude?: number;
  /** Radians at frame 0. Default 0. */
  phase?: number;
}

export interface ChirpSpec {
  /** Start frequency (Hz). */
  f0: number;
  /** End frequency (Hz), reached after `period` seconds; then the sweep repeats, phase-continuous. */
  f1: number;
  /** Sweep duration in seconds, > 0. */
  period: number;
  /** 'linear' (default) or 'logarithmic' (f0 and f1 > 0), like scipy.signal.chirp's methods. */
  method?: 'linear' | 'logarithmic';
  amplitude?: number;
  phase?: number;
}

export interface NoiseSpec {
  /** RMS of the noise (for complex output: of |z|, so I and Q each carry rms/√2). */
  rms: number;
}

export interface GeneratorOptions {
  /** Frames per second (Hz), > 0. */
  sampleRate: number;
  /** Complex output: a tone is a·e^{j(2πft+φ)}. Real output: a·sin(2πft+φ). Default false. */
  complex?: boolean;
  /** Channels, ≥ 1 (default 1): the same tones and chirps in every channel, independent noise. */
  channels?: number;
  tones?: ToneSpec[];
  chirps?: ChirpSpec[];
  noise?: NoiseSpec;
  /** Seed of the noise (any integer). Default 1. */
  seed?: number;
  /** Length in frames; endless when absent. */
  duration?: number;
  /** Centre frequency (Hz) reported for complex output. */
  centerFrequency?: number;
}

const SEGMENT = 65536;
const TWO_PI = 2 * Math.PI;
const SPLITTER = 134217729; // 2^27 + 1, for Dekker's exact product

function finite(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new InvalidArgumentError(`generator: ${name} must be a finite number, got ${String(v)}`);
  }
  return v;
}

/** a × b = p + err exactly (Dekker's TwoProduct without FMA); returns err. */
function productError(a: number, b: number, p: number): number {
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** frac(a × m) for an integer m, with the rounding error of the product recovered. */
function fracProduct(a: number, m: number): number {
  const p = a * m;
  let f = p - Math.floor(p) + productError(a, m, p);
  f -= Math.floor(f);
  return f;
}

/** Cycles (mod 1) of a tone of `f` Hz at frame `n` (a multiple of SEGMENT) of a stream at `fs` Hz. */
function makeCycleBase(f: number, fs: number): (n: number) => number {
  if (Number.isSafeInteger(f) && Number.isSafeInteger(fs)) {
    // Exact: (f·n mod fs)/fs in integers.
    const F = BigInt(f);
    const FS = BigInt(fs);
    return (n) => {
      let r = (F * BigInt(n)) % FS;
      if (r < 0n) r += FS;
      return Number(r) / fs;
    };
  }
  // f/fs as a double-double (hi + lo), so the ratio itself adds no error that grows with n.
  const hi = f / fs;
  const p = hi * fs;
  const lo = (f - p - productError(hi, fs, p)) / fs;
  return (n) => {
    let x = fracProduct(hi, n) + lo * n;
    x -= Math.floor(x);
    return x;
  };
}

// A 32-bit mixer (Chris Wellons' "lowbias32" constants): a bijection with good avalanche.
function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  x ^= x >>> 15;
  return x >>> 0;
}

interface Tone {
  amplitude: number;
  phase: number;
  c: number;
  base: (n: number) => number;
}

interface Chirp {
  amplitude: number;
  phase: number;
  log: boolean;
  f0: number;
  /** Linear: Hz/s. Log: ln(f1/f0)/T. */
  k: number;
  period: number;
  /** Period in frames (may be fractional). */
  periodFrames: number;
  /** Cycles per sweep. */
  cyclesPerPeriod: number;
}

export class GeneratorSource implements SampleSource {
  readonly info: SourceInfo;
  readonly #format: StreamFormat;
  readonly #tones: Tone[];
  readonly #chirps: Chirp[];
  readonly #noiseRms: number;
  readonly #keys: [number, number, number, number];

  constructor(options: GeneratorOptions) {
    const fs = finite('sampleRate', options?.sampleRate);
    if (fs <= 0) throw new InvalidArgumentError(`generator: sampleRate must be > 0 Hz, got ${fs}`);
    const complex = options.complex === true;
    const channels = options.channels ?? 1;
    if (!Number.isSafeInteger(channels) || channels < 1) {
      throw new InvalidArgumentError(`generator: channels must be a whole number ≥ 1, got ${channels}`);
    }
    const duration = options.duration;
    if (duration !== undefined && (!Number.isSafeInteger(duration) || duration < 0)) {
      throw new InvalidArgumentError(
        `generator: duration must be a whole number of frames ≥ 0, got ${duration}`,
      );
    }
    const center =
      options.centerFrequency === undefined ? undefined : finite('centerFrequency', options.centerFrequency);
    this.#tones = (options.tones ?? []).map((t, i) => {
      const f = finite(`tones[${i}].frequency`, t.frequency);
      return {
        amplitude: finite(`tones[${i}].amplitude`, t.amplitude ?? 1),
        phase: finite(`tones[${i}].phase`, t.phase ?? 0),
        c: f / fs,
        base: makeCycleBase(f, fs),
      };
    });
    this.#chirps = (options.chirps ?? []).map((c, i) => {
      const f0 = finite(`chirps[${i}].f0`, c.f0);
      const f1 = finite(`chirps[${i}].f1`, c.f1);
      const period = finite(`chirps[${i}].period`, c.period);
      if (period <= 0)
        throw new InvalidArgumentError(`generator: chirps[${i}].period must be > 0 s, got ${period}`);
      const method = c.method ?? 'linear';
      if (method !== 'linear' && method !== 'logarithmic') {
        throw new InvalidArgumentError(
          `generator: chirps[${i}].method must be 'linear' or 'logarithmic', got ${String(method)}`,
        );
      }
      const log = method === 'logarithmic' && f0 !== f1;
      if (method === 'logarithmic' && (f0 <= 0 || f1 <= 0)) {
        throw new InvalidArgumentError(
          `generator: a logarithmic chirp needs f0 and f1 > 0 Hz, got ${f0} and ${f1}`,
        );
      }
      const k = log ? Math.log(f1 / f0) / period : (f1 - f0) / period;
      const cyclesPerPeriod = log ? (f0 * (f1 / f0 - 1)) / k : ((f0 + f1) * period) / 2;
      return {
        amplitude: finite(`chirps[${i}].amplitude`, c.amplitude ?? 1),
        phase: finite(`chirps[${i}].phase`, c.phase ?? 0),
        log,
        f0,
        k,
        period,
        periodFrames: period * fs,
        cyclesPerPeriod,
      };
    });
    const rms = options.noise === undefined ? 0 : finite('noise.rms', options.noise.rms);
    if (rms < 0) throw new InvalidArgumentError(`generator: noise.rms must be ≥ 0, got ${rms}`);
    this.#noiseRms = rms;
    const seed = finite('seed', options.seed ?? 1);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / 0x100000000) >>> 0;
    this.#keys = [
      mix32(lo ^ 0x9e3779b9),
      mix32(hi ^ 0x85ebca6b),
      mix32(lo ^ 0xc2b2ae35),
      mix32(hi ^ 0x27d4eb2f),
    ];
    this.#format = Object.freeze(
      complex && center !== undefined
        ? { sampleRate: fs, complex, channels, centerFrequency: center }
        : { sampleRate: fs, complex, channels },
    );
    this.info = {
      ...this.#format,
      container: 'generator',
      encoding: complex ? 'cf32_le' : 'rf32_le',
      ...(duration === undefined ? {} : { samples: duration }),
    };
  }

  blocks(options: ReadOptions = {}): AsyncIterable<SampleBlock> {
    const range = resolveRange(options, this.info.samples);
    return this.#generate(range, options.signal);
  }

  async *#generate(
    range: { blockFrames: number; start: number; end: number },
    signal: AbortSignal | undefined,
  ): AsyncGenerator<SampleBlock> {
    const { complex, channels } = this.#format;
    const width = complex ? 2 : 1;
    let scratch = new Float64Array(0);
    for (let pos = range.start; pos < range.end;) {
      throwIfAborted(signal);
      const frames = Math.min(range.blockFrames, range.end - pos);
      if (scratch.length < frames * width) scratch = new Float64Array(frames * width);
      else scratch.fill(0, 0, frames * width);
      for (const t of this.#tones) this.#addTone(t, pos, frames, scratch);
      for (const c of this.#chirps) this.#addChirp(c, pos, frames, scratch);
      const out = new Float32Array(frames * width * channels);
      for (let ch = 0; ch < channels; ch++) {
        for (let i = 0; i < frames; i++) {
          const o = (i * channels + ch) * width;
          out[o] = scratch[i * width];
          if (complex) out[o + 1] = scratch[i * width + 1];
        }
      }
      if (this.#noiseRms > 0) this.#addNoise(pos, frames, out, scratch);
      yield { format: this.#format, start: pos, frames, data: out };
      pos += frames;
    }
  }

  #addTone(t: Tone, start: number, frames: number, acc: Float64Array): void {
    const complex = this.#format.complex;
    const { amplitude, phase, c } = t;
    const end = start + frames;
    for (let n = start; n < end;) {
      const segStart = Math.floor(n / SEGMENT) * SEGMENT;
      const segEnd = Math.min(end, segStart + SEGMENT);
      const base = t.base(segStart);
      for (; n < segEnd; n++) {
        let cyc = base + c * (n - segStart);
        cyc -= Math.floor(cyc);
        const theta = TWO_PI * cyc + phase;
        const i = n - start;
        if (complex) {
          acc[2 * i] += amplitude * Math.cos(theta);
          acc[2 * i + 1] += amplitude * Math.sin(theta);
        } else acc[i] += amplitude * Math.sin(theta);
      }
    }
  }

  #addChirp(c: Chirp, start: number, frames: number, acc: Float64Array): void {
    const complex = this.#format.complex;
    const fs = this.#format.sampleRate;
    const { amplitude, phase, f0, k, periodFrames, log } = c;
    let sweep = -1;
    let base = 0;
    for (let i = 0; i < frames; i++) {
      const n = start + i;
      // The sweep index is a function of n alone, so any blocking gives the same samples.
      const s = Math.floor(n / periodFrames);
      if (s !== sweep) {
        sweep = s;
        base = fracProduct(c.cyclesPerPeriod, sweep);
      }
      const tau = (n - sweep * periodFrames) / fs;
      let cyc = base + (log ? (f0 * Math.expm1(k * tau)) / k : f0 * tau + 0.5 * k * tau * tau);
      cyc -= Math.floor(cyc);
      const theta = TWO_PI * cyc + phase;
      if (complex) {
        acc[2 * i] += amplitude * Math.cos(theta);
        acc[2 * i + 1] += amplitude * Math.sin(theta);
      } else acc[i] += amplitude * Math.sin(theta);
    }
  }

  /** Adds Gaussian noise (Box–Muller on two counter-based uniforms per value pair). */
  #addNoise(start: number, frames: number, out: Float32Array, acc: Float64Array): void {
    const { complex, channels } = this.#format;
    const [k0, k1, k2, k3] = this.#keys;
    const scale = complex ? this.#noiseRms / Math.SQRT2 : this.#noiseRms;
    const width = complex ? 2 : 1;
    for (let i = 0; i < frames; i++) {
      for (let ch = 0; ch < channels; ch++) {
        const idx = (start + i) * channels + ch;
        const lo = idx >>> 0;
        const hi = Math.floor(idx / 0x100000000) >>> 0;
        const u1 = (mix32(mix32(lo ^ k0) ^ hi ^ k1) + 1) / 4294967296; // (0, 1]
        const u2 = mix32(mix32(lo ^ k2) ^ hi ^ k3) / 4294967296; // [0, 1)
        const r = Math.sqrt(-2 * Math.log(u1)) * scale;
        const o = (i * channels + ch) * width;
        const a = TWO_PI * u2;
        if (complex) {
          out[o] = acc[2 * i] + r * Math.cos(a);
          out[o + 1] = acc[2 * i + 1] + r * Math.sin(a);
        } else out[o] = acc[i] + r * Math.cos(a);
      }
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A generator source (container 'generator', encoding 'cf32_le' or 'rf32_le'). */
export function createGenerator(options: GeneratorOptions): SampleSource {
  return new GeneratorSource(options);
}

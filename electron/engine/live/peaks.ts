// Peak markers of a live session, computed from full-resolution spectra of the analysed samples (not from
// the display rows, whose columns are maxima over several bins): the newest samples are kept in a ring,
// and every `interval` seconds of stream the last few frames (≥ 250 ms, ≥ 3 frames) are windowed with the
// display's window, transformed on the CPU at the display's FFT size, averaged as Welch does (welch.ts
// normalization) and handed to findPeaks, which fits the window's own response: an isolated tone reads
// its frequency to a small fraction of a bin and its level without scalloping loss.
//
//   const p = new LivePeaks({ fft, hop, window: 'hann', complex, sampleRate });
//   p.push(samples, frames);          // every block (interleaved re, im for complex)
//   if (p.due()) send(p.compute());   // about 5 times a second of stream
//
// Everything is allocated in the constructor (per settings change); an update allocates only inside
// findPeaks (two arrays of `bins` float64 and the candidate list).

import { findPeaks, getWindow, type Peak, type WelchResult } from '../dsp/index.js';
import { getFftPlan, getRealFftPlan, type FftPlan, type RealFftPlan } from '../fft/index.js';
import { InvalidArgumentError } from '../errors.js';
import {
  binFrequencies,
  binShift,
  binWidth,
  PEAK_COUNT_MAX,
  spectrumBins,
  WELCH_FFT_SIZE_MIN,
} from '../protocol/shape.js';

/** Least span of signal averaged per update (s). */
export const PEAK_SPAN_SECONDS = 0.25;
/** Least number of frames averaged per update. */
export const PEAK_MIN_SEGMENTS = 3;
/** Most frames averaged per update (the step between them grows instead), so small hops stay cheap. */
export const PEAK_MAX_SEGMENTS = 32;
/** Stream time between updates (s): about 5 a second. */
export const PEAK_INTERVAL_SECONDS = 0.2;
/** Default number of peaks (the markers' maximum). */
export const DEFAULT_PEAK_COUNT = 5;
/** Default least height of a peak above the spectrum's median (dB): an average of a few frames of noise
 * (χ² with ≥ 4 degrees of freedom) exceeds its median by 15 dB with a probability below 1e-15 per bin. */
export const DEFAULT_ABOVE_NOISE_DB = 15;
/** Default absolute floor (dBFS). */
export const DEFAULT_PEAK_FLOOR_DB = -200;

export interface LivePeaksOptions {
  fft: number;
  /** The display's hop (frames between frames). */
  hop: number;
  /** Window spec, as the analysis names it. */
  window: string;
  complex: boolean;
  sampleRate: number;
  /** Centre frequency of complex input (Hz): frequencies are then absolute. */
  centerFrequency?: number;
  /** Peaks per update, 1…16. Default 5. */
  count?: number;
  /** Leave out peaks below this level (dBFS). Default −200. */
  minLevelDb?: number;
  /** Leave out peaks less than this far (dB) above the spectrum's median. Default 15. */
  aboveNoiseDb?: number;
  /** Stream seconds between updates. Default 0.2. */
  interval?: number;
}

export interface LivePeakSettings {
  count: number;
  minLevelDb: number;
  aboveNoiseDb: number;
}

export function checkPeakSettings(s: Partial<LivePeakSettings>): void {
  if (s.count !== undefined && !(Number.isInteger(s.count) && s.count >= 1 && s.count <= PEAK_COUNT_MAX)) {
    throw new InvalidArgumentError(
      `peak count must be an integer from 1 to ${PEAK_COUNT_MAX}, got ${s.count}`,
    );
  }
  if (s.minLevelDb !== undefined && !(Number.isFinite(s.minLevelDb) && s.minLevelDb <= 0)) {
    throw new InvalidArgumentError(`peak floor must be a level in dBFS (≤ 0), got ${s.minLevelDb}`);
  }
  if (s.aboveNoiseDb !== undefined && !(Number.isFinite(s.aboveNoiseDb) && s.aboveNoiseDb >= 0)) {
    throw new InvalidArgumentError(`height above the noise must be ≥ 0 dB, got ${s.aboveNoiseDb}`);
  }
}

export class LivePeaks {
  readonly fft: number;
  readonly bins: number;
  readonly complex: boolean;
  /** Frames between the averaged segments (≥ the display's hop). */
  readonly step: number;
  /** Segments averaged once the ring is full. */
  readonly segments: number;
  /** Frames the ring holds: fft + (segments − 1)·step. */
  readonly capacity: number;
  readonly binWidth: number;
  readonly settings: LivePeakSettings;
  /** Stream frames between updates. */
  readonly intervalFrames: number;
  /** Milliseconds the last compute() took. */
  lastMs = 0;

  readonly #w: number;
  /** capacity frames, interleaved (re, im) when complex. */
  readonly #ring: Float32Array;
  #write = 0; // next frame slot
  #filled = 0; // valid frames in the ring
  #since = 0; // frames pushed since the last update
  readonly #window: Float64Array;
  readonly #seg: Float64Array; // one windowed segment
  readonly #spec: Float64Array; // its transform
  readonly #acc: Float64Array; // Σ|X|², FFT order
  readonly #sorted: Float64Array; // scratch for the median
  readonly #result: WelchResult;
  readonly #scaleInterior: number;
  readonly #rplan: RealFftPlan | null;
  readonly #cplan: FftPlan | null;

  constructor(o: LivePeaksOptions) {
    const { fft, hop, complex, sampleRate } = o;
    if (!Number.isInteger(fft) || fft < WELCH_FFT_SIZE_MIN) {
      throw new InvalidArgumentError(`peaks need an FFT size ≥ ${WELCH_FFT_SIZE_MIN}, got ${fft}`);
    }
    if (!Number.isInteger(hop) || hop < 1) throw new InvalidArgumentError(`hop must be ≥ 1, got ${hop}`);
    if (!(sampleRate > 0)) throw new InvalidArgumentError(`sample rate must be > 0, got ${sampleRate}`);
    const settings: LivePeakSettings = {
      count: o.count ?? DEFAULT_PEAK_COUNT,
      minLevelDb: o.minLevelDb ?? DEFAULT_PEAK_FLOOR_DB,
      aboveNoiseDb: o.aboveNoiseDb ?? DEFAULT_ABOVE_NOISE_DB,
    };
    checkPeakSettings(settings);
    this.settings = settings;
    this.fft = fft;
    this.complex = complex;
    this.bins = spectrumBins(fft, complex);
    this.binWidth = binWidth(sampleRate, fft);
    this.#w = complex ? 2 : 1;

    // The span: at least 250 ms and at least PEAK_MIN_SEGMENTS frames at the display's hop.
    const span = Math.max(Math.round(PEAK_SPAN_SECONDS * sampleRate), fft + (PEAK_MIN_SEGMENTS - 1) * hop);
    const step = Math.max(hop, Math.ceil((span - fft) / (PEAK_MAX_SEGMENTS - 1)));
    this.step = step;
    this.segments = Math.ceil((span - fft) / step) + 1;
    this.capacity = fft + (this.segments - 1) * step;
    this.intervalFrames = Math.max(1, Math.round((o.interval ?? PEAK_INTERVAL_SECONDS) * sampleRate));

    this.#ring = new Float32Array(this.capacity * this.#w);
    this.#window = getWindow(o.window, fft);
    let sum = 0;
    for (let i = 0; i < fft; i++) sum += this.#window[i];
    this.#seg = new Float64Array(fft * this.#w);
    this.#spec = new Float64Array(complex ? 2 * fft : 2 * this.bins);
    this.#acc = new Float64Array(complex ? fft : this.bins);
    this.#sorted = new Float64Array(this.bins);
    this.#scaleInterior = (complex ? 1 : 4) / (sum * sum);
    this.#rplan = complex ? null : getRealFftPlan(fft);
    this.#cplan = complex ? getFftPlan(fft) : null;

    this.#result = {
      frequencies: binFrequencies(fft, sampleRate, complex),
      power: new Float64Array(this.bins),
      segments: 0,
      nperseg: fft,
      noverlap: fft - step,
      sampleRate,
      complex,
      window: this.#window,
      binWidth: this.binWidth,
    };
    if (complex && o.centerFrequency !== undefined) this.#result.centerFrequency = o.centerFrequency;
  }

  /** Forgets the samples (after a gap in the stream). */
  reset(): void {
    this.#write = 0;
    this.#filled = 0;
    this.#since = 0;
  }

  /** Keeps the newest samples: `frames` frames of `samples` (interleaved re, im when complex). */
  push(samples: Float32Array, frames: number): void {
    const w = this.#w;
    const cap = this.capacity;
    let from = 0;
    let n = frames;
    if (n > cap) {
      from = n - cap;
      n = cap;
    }
    const first = Math.min(n, cap - this.#write);
    this.#ring.set(samples.subarray(from * w, (from + first) * w), this.#write * w);
    if (n > first) this.#ring.set(samples.subarray((from + first) * w, (from + n) * w), 0);
    this.#write = (this.#write + n) % cap;
    this.#filled = Math.min(cap, this.#filled + n);
    this.#since += frames;
  }

  /** Whether an update is due: an interval of stream since the last one, and at least one whole frame. */
  due(): boolean {
    return this.#since >= this.intervalFrames && this.#filled >= this.fft;
  }

  /** Peaks of the average of the newest segments (strongest first); restarts the interval. */
  compute(): Peak[] {
    const t0 = performance.now();
    this.#since = 0;
    const { fft, step, capacity: cap, bins } = this;
    const w = this.#w;
    const ring = this.#ring;
    const seg = this.#seg;
    const spec = this.#spec;
    const acc = this.#acc;
    const win = this.#window;
    const count = Math.min(this.segments, Math.floor((this.#filled - fft) / step) + 1);
    acc.fill(0);
    for (let j = 0; j < count; j++) {
      // Segment j ends j·step frames before the newest sample.
      const start = (((this.#write - fft - j * step) % cap) + cap) % cap;
      const run = Math.min(fft, cap - start); // frames before the ring wraps
      if (w === 1) {
        for (let i = 0; i < run; i++) seg[i] = ring[start + i] * win[i];
        for (let i = run; i < fft; i++) seg[i] = ring[i - run] * win[i];
        this.#rplan!.forward(seg, spec);
        for (let k = 0; k < bins; k++) {
          const re = spec[2 * k];
          const im = spec[2 * k + 1];
          acc[k] += re * re + im * im;
        }
      } else {
        for (let i = 0; i < run; i++) {
          const s = 2 * (start + i);
          seg[2 * i] = ring[s] * win[i];
          seg[2 * i + 1] = ring[s + 1] * win[i];
        }
        for (let i = run; i < fft; i++) {
          const s = 2 * (i - run);
          seg[2 * i] = ring[s] * win[i];
          seg[2 * i + 1] = ring[s + 1] * win[i];
        }
        this.#cplan!.forward(seg, spec);
        for (let k = 0; k < fft; k++) {
          const re = spec[2 * k];
          const im = spec[2 * k + 1];
          acc[k] += re * re + im * im;
        }
      }
    }
    // Welch's normalization (welch.ts): a full-scale tone centred on a bin reads 1.
    const r = this.#result;
    const power = r.power;
    const scale = this.#scaleInterior / count;
    if (this.complex) {
      const shift = binShift(fft, true);
      for (let k = 0; k < fft; k++) power[k] = acc[(k - shift + fft) % fft] * scale;
    } else {
      for (let k = 0; k < bins; k++) {
        const edge = k === 0 || (fft % 2 === 0 && k === fft / 2);
        power[k] = acc[k] * (edge ? scale / 2 : scale);
      }
    }
    r.segments = count;
    const { count: wanted, minLevelDb, aboveNoiseDb } = this.settings;
    this.#sorted.set(power);
    const noise = median(this.#sorted);
    const noiseDb = noise > 0 ? 10 * Math.log10(noise) : -Infinity;
    const floor = Math.max(minLevelDb, noiseDb + aboveNoiseDb);
    const peaks = findPeaks(r, { count: wanted, minLevelDb: floor });
    this.lastMs = performance.now() - t0;
    return peaks;
  }
}

/** The median of `a` (reordered in place): quickselect, O(n) on average. */
export function median(a: Float64Array): number {
  const n = a.length;
  if (n === 0) return NaN;
  const m = n >> 1;
  const hi = select(a, m);
  if (n % 2) return hi;
  // The largest of the lower half (all ≤ a[m] after the selection).
  let lo = -Infinity;
  for (let i = 0; i < m; i++) if (a[i] > lo) lo = a[i];
  return (lo + hi) / 2;
}

/** Reorders `a` so that a[k] holds the value of rank k, smaller ones before it, larger ones after. */
function select(a: Float64Array, k: number): number {
  let left = 0;
  let right = a.length - 1;
  while (right > left) {
    // Median of three as the pivot keeps sorted and constant inputs linear.
    const mid = (left + right) >> 1;
    const x = a[left];
    const y = a[mid];
    const z = a[right];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k];
  }
  return a[k];
}

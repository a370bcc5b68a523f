// Spectrum trace modes, as an analyzer has them: the main trace (clear-write, exponential average or
// linear average over N frames) plus optional max hold and min hold, computed from the rows the display
// receives (dB per display column). Averages are taken on linear power (10^(dB/10)) and converted back;
// the holds compare dB directly (the same order). Life cycle: create → push rows → resetHolds / reset.
// Buffers are sized once per width (and frame count); push allocates nothing.
//
// Also here: the level units (per-bin dBFS or dBFS/Hz), RBW, and the auto-range rule.

export type TraceMode = 'clear' | 'exp' | 'linear';
export const TRACE_MODES: ReadonlyArray<{ value: TraceMode; label: string }> = [
  { value: 'clear', label: 'Clear-write' },
  { value: 'exp', label: 'Exponential average' },
  { value: 'linear', label: 'Linear average' },
];

/** Weight of each new frame in the exponential average: (0, 1]. */
export const TRACE_ALPHA_DEFAULT = 0.1;
/** Frames in the linear (moving) average: 2…TRACE_FRAMES_MAX. */
export const TRACE_FRAMES_DEFAULT = 16;
export const TRACE_FRAMES_MAX = 256;

export interface TraceSettings {
  mode: TraceMode;
  alpha: number;
  frames: number;
}

export type LevelUnit = 'dBFS' | 'dBFS/Hz';
export const LEVEL_UNITS: readonly LevelUnit[] = ['dBFS', 'dBFS/Hz'];

/** Resolution bandwidth (Hz): the window's ENBW (bins) times the bin width fs/N. */
export function rbwHz(enbwBins: number, sampleRate: number, fft: number): number {
  return (enbwBins * sampleRate) / fft;
}

/**
 * dB to add to a per-bin level (dBFS, AES17) to read it in `unit`: 0 for dBFS, −10·log10(RBW) for the
 * power spectral density in dBFS/Hz (right for noise; a pure tone's density depends on the RBW).
 */
export function unitOffset(unit: LevelUnit, enbwBins: number, sampleRate: number, fft: number): number {
  if (unit === 'dBFS') return 0;
  return -10 * Math.log10(rbwHz(enbwBins, sampleRate, fft));
}

/** Median of the finite values of `levels` (sorted copy: for key presses, not per frame). */
export function medianLevel(levels: ArrayLike<number>): number {
  const v = Array.from(levels).filter(Number.isFinite);
  if (v.length === 0) return NaN;
  v.sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export interface AutoRangeOptions {
  /** dB below the noise floor (the median). */
  below?: number;
  /** dB above the strongest level. */
  above?: number;
  /** Rounding of both ends (dB), in the displayed unit. */
  step?: number;
  /** Offset of the displayed unit (unitOffset): the ends are round in that unit. */
  offset?: number;
}

/**
 * A level range (dBFS per bin) that brackets the trace: from the noise floor (its median) less `below`,
 * rounded down, to the strongest level in `levels` or `peaks` plus `above`, rounded up. Null when there
 * is nothing finite to fit.
 */
export function autoRange(
  levels: ArrayLike<number>,
  peaks: ArrayLike<number> | null,
  { below = 10, above = 5, step = 5, offset = 0 }: AutoRangeOptions = {},
): { dbMin: number; dbMax: number } | null {
  const floor = medianLevel(levels);
  if (!Number.isFinite(floor)) return null;
  let top = -Infinity;
  for (const src of peaks ? [levels, peaks] : [levels]) {
    for (let i = 0; i < src.length; i++) if (src[i] > top && Number.isFinite(src[i])) top = src[i];
  }
  const lo = Math.floor((floor + offset - below) / step) * step;
  let hi = Math.ceil((top + offset + above) / step) * step;
  if (hi - lo < 4 * step) hi = lo + 4 * step;
  return { dbMin: lo - offset, dbMax: hi - offset };
}

export class TraceModes {
  width = 0;
  /** The main trace (the mode's output) in dB. */
  main = new Float32Array(0);
  /** Highest and lowest level of each column since the last reset (−∞ / +∞ before any row). */
  max = new Float32Array(0);
  min = new Float32Array(0);
  /** Frames in the average now (≤ frames for the linear mode). */
  averaged = 0;
  #settings: TraceSettings;
  /** Exponential: the average in linear power. Linear: the running sum (float64 against drift). */
  #acc = new Float64Array(0);
  /** Linear mode: the last `frames` rows in linear power, as a ring. */
  #ring = new Float32Array(0);
  #ringPos = 0;

  constructor(settings: TraceSettings) {
    this.#settings = checkTraceSettings(settings);
  }

  get settings(): Readonly<TraceSettings> {
    return this.#settings;
  }

  /** New mode settings: the average starts again (the holds go on). */
  configure(settings: TraceSettings): void {
    this.#settings = checkTraceSettings(settings);
    this.#resize(this.width, true);
    this.#resetAverage();
  }

  /** Forgets everything (a new frequency axis). */
  reset(width = this.width): void {
    this.#resize(width, false);
    this.#resetAverage();
    this.resetHolds();
  }

  resetHolds(): void {
    this.max.fill(-Infinity);
    this.min.fill(Infinity);
  }

  /**
   * Takes `count` rows of `width` dB values (row-major in `rows`), in order. `peak`, when given, is a max
   * hold kept elsewhere over the same rows (the engine's, which also sees rows the display dropped): the
   * max hold takes it in as well.
   */
  push(rows: Float32Array, count: number, width: number, peak?: Float32Array | null): void {
    if (width !== this.width) this.reset(width);
    const { mode, alpha, frames } = this.#settings;
    const main = this.main;
    const max = this.max;
    const min = this.min;
    const acc = this.#acc;
    for (let r = 0; r < count; r++) {
      const o = r * width;
      for (let c = 0; c < width; c++) {
        const v = rows[o + c];
        if (v > max[c]) max[c] = v;
        if (v < min[c]) min[c] = v;
      }
      if (mode === 'clear') {
        for (let c = 0; c < width; c++) main[c] = rows[o + c];
      } else if (mode === 'exp') {
        const first = this.averaged === 0;
        for (let c = 0; c < width; c++) {
          const p = 10 ** (rows[o + c] / 10);
          acc[c] = first ? p : acc[c] + alpha * (p - acc[c]);
        }
        this.averaged++;
      } else {
        const ring = this.#ring;
        const full = this.averaged >= frames;
        const base = this.#ringPos * width;
        for (let c = 0; c < width; c++) {
          const p = Math.fround(10 ** (rows[o + c] / 10));
          if (full) acc[c] -= ring[base + c];
          acc[c] += p;
          ring[base + c] = p;
        }
        this.#ringPos = (this.#ringPos + 1) % frames;
        if (!full) this.averaged++;
      }
    }
    if (count > 0 && mode !== 'clear') {
      const n = mode === 'linear' ? this.averaged : 1;
      for (let c = 0; c < width; c++) main[c] = 10 * Math.log10(acc[c] / n);
    }
    if (peak && peak.length === width) {
      for (let c = 0; c < width; c++) if (peak[c] > max[c]) max[c] = peak[c];
    }
  }

  #resize(width: number, keep: boolean): void {
    const frames = this.#settings.mode === 'linear' ? this.#settings.frames : 0;
    if (width !== this.width || !keep) {
      if (width !== this.width) {
        this.main = new Float32Array(width).fill(NaN);
        this.max = new Float32Array(width).fill(-Infinity);
        this.min = new Float32Array(width).fill(Infinity);
        this.#acc = new Float64Array(width);
      }
      this.width = width;
    }
    if (this.#ring.length !== frames * width) this.#ring = new Float32Array(frames * width);
  }

  #resetAverage(): void {
    this.averaged = 0;
    this.#ringPos = 0;
    this.#acc.fill(0);
  }
}

function checkTraceSettings(s: TraceSettings): TraceSettings {
  if (!TRACE_MODES.some((m) => m.value === s.mode))
    throw new Error(`trace mode must be one of clear, exp, linear`);
  if (!(s.alpha > 0 && s.alpha <= 1))
    throw new Error(`trace averaging factor must be in (0, 1], got ${s.alpha}`);
  if (!(Number.isInteger(s.frames) && s.frames >= 2 && s.frames <= TRACE_FRAMES_MAX))
    throw new Error(
      `trace average frames must be a whole number from 2 to ${TRACE_FRAMES_MAX}, got ${s.frames}`,
    );
  return { ...s };
}

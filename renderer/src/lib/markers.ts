// Placed markers on a spectrum trace: reading a level at any frequency (between columns), finding
// peaks, snapping to the peak near a frequency, and "next peak" (the next lower one, as an analyzer's
// Next Peak key does). Pure functions over a generic trace, so any view with a spectrum can use them.

/** A spectrum: levels (dB) at increasing frequencies, given one by one or as the grid f0 + i·df. */
export interface Trace {
  levels: ArrayLike<number>;
  frequencies?: ArrayLike<number>;
  f0?: number;
  df?: number;
  /** When the levels were measured (s), if known. */
  time?: number;
}

export interface Marker {
  id: number;
  frequency: number;
  /** When the marker stands (s): a marker placed on a spectrogram has a time of its own; without one it
   * reads the trace's. */
  time?: number;
  /** Its level (dB), read where it was placed (a spectrogram's pixel); without one it reads the trace. */
  level?: number;
}

export interface MarkerReading {
  id: number;
  frequency: number;
  level: number;
  time: number;
  /** To the reference marker (0 for the reference itself; NaN without one). */
  deltaFrequency: number;
  deltaLevel: number;
  deltaTime: number;
  reference: boolean;
}

/** Markers a spectrum carries at most. */
export const MAX_MARKERS = 8;
/** Least rise (dB) above the surrounding floor for a local maximum to count as a peak. */
export const PEAK_EXCURSION_DB = 6;
/** Columns either side that snapping to a peak searches. */
export const SNAP_COLUMNS = 10;

/** Frequency (Hz) at fractional index `x` (linear between neighbours; clamped to the ends). */
export function frequencyAt(trace: Trace, x: number): number {
  const n = trace.levels.length;
  if (trace.frequencies) {
    const f = trace.frequencies;
    if (n === 1 || x <= 0) return f[0];
    if (x >= n - 1) return f[n - 1];
    const i = Math.floor(x);
    return f[i] + (x - i) * (f[i + 1] - f[i]);
  }
  return (trace.f0 ?? 0) + x * (trace.df ?? 1);
}

/** Fractional index of frequency `f`, clamped to [0, n − 1]. */
export function indexOf(trace: Trace, f: number): number {
  const n = trace.levels.length;
  if (n === 0) return NaN;
  let x: number;
  const fr = trace.frequencies;
  if (fr) {
    if (f <= fr[0]) return 0;
    if (f >= fr[n - 1]) return n - 1;
    let lo = 0;
    let hi = n - 1; // fr[lo] ≤ f < fr[hi]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (fr[mid] <= f) lo = mid;
      else hi = mid;
    }
    x = lo + (f - fr[lo]) / (fr[hi] - fr[lo]);
  } else {
    x = (f - (trace.f0 ?? 0)) / (trace.df ?? 1);
  }
  return Math.min(n - 1, Math.max(0, x));
}

/**
 * Level at frequency `f` (NaN outside the trace or with no data): the parabola (in dB) through the
 * nearest column and its two neighbours, kept within their range (display columns are the highest of
 * their bins: nothing above them is in the data), so a marker on a refined peak reads the peak column
 * rather than a chord below it; linear where a neighbour is missing.
 */
export function levelAt(trace: Trace, f: number): number {
  const v = trace.levels;
  const n = v.length;
  if (n === 0 || f < frequencyAt(trace, 0) || f > frequencyAt(trace, n - 1)) return NaN;
  const x = indexOf(trace, f);
  if (n < 3) {
    const i = Math.min(n - 2, Math.floor(x));
    return i < 0 ? v[0] : v[i] + (x - i) * (v[i + 1] - v[i]);
  }
  const i = Math.min(n - 2, Math.max(1, Math.round(x)));
  const t = x - i;
  const a = v[i - 1];
  const b = v[i];
  const c = v[i + 1];
  if (t === 0) return b;
  if (!Number.isFinite(a + c)) return t > 0 ? b + t * (c - b) : b - t * (a - b);
  const q = b + (t * (c - a)) / 2 + (t * t * (a - 2 * b + c)) / 2;
  return Math.min(Math.max(a, b, c), Math.max(Math.min(a, b, c), q));
}

/** A peak is refined only when both neighbours lie within this many dB of it (a main lobe, not a lone
 * column above the floor, where a parabola means nothing). */
export const REFINE_WITHIN_DB = 20;

/**
 * Frequency of the peak at column `i`, refined by the parabola through it and its neighbours (in dB),
 * which puts a windowed tone between columns to a fraction of a column.
 */
export function peakFrequency(trace: Trace, i: number): number {
  const v = trace.levels;
  if (i <= 0 || i >= v.length - 1) return frequencyAt(trace, i);
  const a = v[i - 1];
  const b = v[i];
  const c = v[i + 1];
  const den = a - 2 * b + c;
  if (!(den < 0) || !Number.isFinite(a + b + c) || Math.min(a, c) < b - REFINE_WITHIN_DB)
    return frequencyAt(trace, i);
  const d = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den));
  return frequencyAt(trace, i + d);
}

/**
 * Peaks of `levels`: local maxima (higher than the column before, not lower than the one after) whose
 * prominence — the rise above the higher of the lowest points on either side before a higher level or
 * the edge — is at least `excursion` dB. Column indices, strongest first.
 */
export function findPeaks(levels: ArrayLike<number>, excursion = PEAK_EXCURSION_DB): number[] {
  const n = levels.length;
  const found: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = levels[i];
    if (!Number.isFinite(v)) continue;
    if (i > 0 && !(v > levels[i - 1])) continue;
    // A plateau counts once, at its first column.
    let j = i + 1;
    while (j < n && levels[j] === v) j++;
    if (j < n && levels[j] > v) continue;
    let left = v;
    for (let k = i - 1; k >= 0 && !(levels[k] > v); k--) if (levels[k] < left) left = levels[k];
    let right = v;
    for (let k = j; k < n && !(levels[k] > v); k++) if (levels[k] < right) right = levels[k];
    if (v - Math.max(left, right) >= excursion || (i === 0 && j === n)) found.push(i);
  }
  return found.sort((a, b) => levels[b] - levels[a] || a - b);
}

/** Column of the highest level within ±`half` columns of frequency `f`. */
export function snapColumn(trace: Trace, f: number, half = SNAP_COLUMNS): number {
  const v = trace.levels;
  const c = Math.round(indexOf(trace, f));
  let best = -1;
  for (let i = Math.max(0, c - half); i <= Math.min(v.length - 1, c + half); i++) {
    if (Number.isFinite(v[i]) && (best < 0 || v[i] > v[best])) best = i;
  }
  return best < 0 ? c : best;
}

/** The frequency a marker at `f` snaps to: the peak within ±`half` columns, refined. */
export function snapToPeak(trace: Trace, f: number, half = SNAP_COLUMNS): number {
  if (trace.levels.length === 0) return f;
  return peakFrequency(trace, snapColumn(trace, f, half));
}

/**
 * The strongest peak at least `guard` columns from every frequency in `taken` (the markers already
 * placed), refined; null when there is none.
 */
export function strongestPeak(
  trace: Trace,
  taken: readonly number[] = [],
  guard = 2,
  excursion = PEAK_EXCURSION_DB,
): number | null {
  const takenAt = taken.map((f) => indexOf(trace, f));
  for (const i of findPeaks(trace.levels, excursion)) {
    if (takenAt.every((x) => Math.abs(x - i) > guard)) return peakFrequency(trace, i);
  }
  return null;
}

/**
 * Next Peak: from a marker at `f`, the highest peak lower than the level of the peak the marker sits on
 * (ties: a different column), refined; null when there is no lower peak.
 */
export function nextPeak(trace: Trace, f: number, excursion = PEAK_EXCURSION_DB): number | null {
  const v = trace.levels;
  if (v.length === 0) return null;
  const here = snapColumn(trace, f, 1);
  const level = v[here];
  for (const i of findPeaks(v, excursion)) {
    if (v[i] < level || (v[i] === level && i > here)) return peakFrequency(trace, i);
  }
  return null;
}

/** Each marker's reading on `trace`, with its differences to the reference marker (if it is there). */
export function readMarkers(
  markers: readonly Marker[],
  trace: Trace,
  referenceId: number | null,
): MarkerReading[] {
  const levelOf = (m: Marker) => m.level ?? levelAt(trace, m.frequency);
  const timeOf = (m: Marker) => m.time ?? trace.time ?? NaN;
  const ref = markers.find((m) => m.id === referenceId);
  const refLevel = ref ? levelOf(ref) : NaN;
  return markers.map((m) => {
    const level = levelOf(m);
    const time = timeOf(m);
    return {
      id: m.id,
      frequency: m.frequency,
      level,
      time,
      deltaFrequency: ref ? m.frequency - ref.frequency : NaN,
      deltaLevel: ref ? level - refLevel : NaN,
      // Markers on one trace share its time (unknown or not): 0 apart.
      deltaTime: !ref ? NaN : m.time === undefined && ref.time === undefined ? 0 : time - timeOf(ref),
      reference: m.id === referenceId,
    };
  });
}

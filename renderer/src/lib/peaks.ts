// Peak markers: the strongest local maxima of the average trace that stand out from their surroundings,
// refined to a fraction of a column by a parabola through the maximum and its neighbours.
// Buffers are allocated per width, not per call (it runs several times a second).

export interface Peak {
  /** Fractional column index. */
  column: number;
  level: number;
}

export interface PeakOptions {
  maxPeaks: number;
  /** Columns on each side that a peak must dominate; also the least distance between two peaks. */
  radius: number;
  /** How far (dB) a peak must rise above its bases (see prominence()). */
  prominence: number;
}

export class PeakFinder {
  private candidates = new Int32Array(0);
  private taken = new Uint8Array(0);
  readonly peaks: Peak[] = [];
  /** Refine peaks between columns by a parabola (only when columns are bins). */
  refine = true;

  constructor(readonly options: PeakOptions) {
    for (let i = 0; i < options.maxPeaks; i++) this.peaks.push({ column: 0, level: 0 });
  }

  /** Finds up to maxPeaks peaks of values[0..width); returns how many (in this.peaks, strongest first). */
  find(values: Float32Array, width: number): number {
    const { maxPeaks, radius, prominence } = this.options;
    if (this.candidates.length < width) {
      this.candidates = new Int32Array(width);
      this.taken = new Uint8Array(width);
    }
    const cand = this.candidates;
    let n = 0;
    for (let i = 0; i < width; i++) {
      const v = values[i];
      if (!Number.isFinite(v)) continue;
      const l = i > 0 ? values[i - 1] : -Infinity;
      const r = i + 1 < width ? values[i + 1] : -Infinity;
      if (v > l && v >= r) cand[n++] = i;
    }
    this.taken.fill(0, 0, n);
    let found = 0;
    while (found < maxPeaks) {
      let best = -1;
      for (let k = 0; k < n; k++) {
        if (this.taken[k]) continue;
        if (best < 0 || values[cand[k]] > values[cand[best]]) best = k;
      }
      if (best < 0) break;
      this.taken[best] = 1;
      const c = cand[best];
      const v = values[c];
      let tooClose = false;
      for (let p = 0; p < found; p++) {
        if (Math.abs(this.peaks[p].column - c) <= radius) tooClose = true;
      }
      if (tooClose) continue;
      if (!(this.prominenceOf(values, width, c) >= prominence)) continue;
      const peak = this.peaks[found++];
      // Columns that each hold one bin are samples of the spectrum: refine between them. Reduced
      // columns (the max of several bins) are not, so a peak stays on its column.
      peak.column = this.refine ? c + parabolicOffset(values, c, width) : c;
      peak.level = v;
    }
    return found;
  }

  private prominenceOf(values: Float32Array, width: number, c: number): number {
    return prominence(values, width, c, 4 * this.options.radius);
  }
}

/** How far a peak rises above the higher of its two bases (the lowest level on each side before a higher
 * one, within 4 × radius columns), as scipy.signal.peak_prominences does with a window. */
export function prominence(values: Float32Array, width: number, c: number, window: number): number {
  const v = values[c];
  let lowL = v;
  for (let i = c - 1; i >= Math.max(0, c - window); i--) {
    if (values[i] > v) break;
    if (values[i] < lowL) lowL = values[i];
  }
  let lowR = v;
  for (let i = c + 1; i <= Math.min(width - 1, c + window); i++) {
    if (values[i] > v) break;
    if (values[i] < lowR) lowR = values[i];
  }
  return v - Math.max(lowL, lowR);
}

/** Offset in (−0.5, 0.5) of the vertex of the parabola through columns c−1, c, c+1. */
export function parabolicOffset(values: ArrayLike<number>, c: number, width: number): number {
  if (c <= 0 || c >= width - 1) return 0;
  const a = values[c - 1];
  const b = values[c];
  const d = values[c + 1];
  const den = a - 2 * b + d;
  if (!(den < 0)) return 0;
  const off = (0.5 * (a - d)) / den;
  return Math.max(-0.5, Math.min(0.5, off));
}

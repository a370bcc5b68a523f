// The waterfall's history on the CPU side: the ring of rows (the same layout as the GPU texture), their
// stream times, and the level under the cursor. Rows are written here as they arrive; once per frame the
// rows written since the last frame are uploaded straight from `levels` (which doubles as the staging
// buffer texSubImage2D reads from). All storage is allocated when the row width changes, never per frame.

import { RowRing } from './ring.js';

/** Floats of history kept (CPU copy and texture alike): 8 Mi floats = 32 MiB each. */
export const HISTORY_BUDGET = 8 * 1024 * 1024;

/** Rows to keep for rows of `texWidth` columns: as many as the budget allows, 256…4096. */
export function historyCapacity(texWidth: number, maxTextureSize: number): number {
  const rows = Math.floor(HISTORY_BUDGET / Math.max(1, texWidth));
  return Math.max(256, Math.min(4096, maxTextureSize, rows));
}

/** dst[dstOff + c] = max of src over the source columns that display column c covers (c < dstW ≤ srcW). */
export function reduceRow(
  src: Float32Array,
  srcOff: number,
  srcW: number,
  dst: Float32Array,
  dstOff: number,
  dstW: number,
): void {
  for (let c = 0; c < dstW; c++) {
    const lo = Math.floor((c * srcW) / dstW);
    const hi = Math.max(lo + 1, Math.floor(((c + 1) * srcW) / dstW));
    let m = src[srcOff + lo];
    for (let i = lo + 1; i < hi; i++) if (src[srcOff + i] > m) m = src[srcOff + i];
    dst[dstOff + c] = m;
  }
}

export class WaterfallHistory {
  readonly ring: RowRing;
  /** capacity × texWidth levels (dB), texture row r at r·texWidth. */
  readonly levels: Float32Array;
  /** Stream time (s) of each texture row's frame start. */
  readonly times: Float64Array;
  private readonly segments = new Int32Array(6);
  /** ring.written when the texture last caught up. */
  private uploaded = 0;

  /**
   * @param width values per incoming row
   * @param texWidth columns stored (= width, or less when the texture cannot be that wide)
   */
  constructor(
    readonly width: number,
    readonly texWidth: number,
    readonly capacity: number,
  ) {
    this.ring = new RowRing(capacity);
    this.levels = new Float32Array(capacity * texWidth);
    this.times = new Float64Array(capacity);
  }

  /** Stores `count` rows (row i starts at stream time t0 + i·dt). */
  write(rows: Float32Array, count: number, t0: number, dt: number): void {
    const segs = this.segments;
    const nseg = this.ring.planWrite(count, segs);
    const w = this.width;
    const tw = this.texWidth;
    const levels = this.levels;
    for (let s = 0; s < nseg; s++) {
      const src = segs[3 * s];
      const dst = segs[3 * s + 1];
      const n = segs[3 * s + 2];
      for (let r = 0; r < n; r++) {
        const so = (src + r) * w;
        const d = (dst + r) * tw;
        if (tw === w) {
          for (let c = 0; c < w; c++) levels[d + c] = rows[so + c];
        } else reduceRow(rows, so, w, levels, d, tw);
        this.times[dst + r] = t0 + (src + r) * dt;
      }
    }
  }

  /** Rows written since the last call (all held rows at most). */
  get pending(): number {
    return Math.min(this.ring.written - this.uploaded, this.capacity);
  }

  /**
   * The texture rows written since the last call, as up to two runs [row, n] in `out` (4 entries), whose
   * data sits in `levels` from row·texWidth. Returns the number of runs.
   */
  takeDirty(out: Int32Array): number {
    const n = this.pending;
    this.uploaded = this.ring.written;
    if (n <= 0) return 0;
    const start = (this.ring.written - n) % this.capacity;
    const first = Math.min(n, this.capacity - start);
    out[0] = start;
    out[1] = first;
    if (first === n) return 1;
    out[2] = 0;
    out[3] = n - first;
    return 2;
  }

  /** Forgets every row (a new session); the storage stays. */
  reset(): void {
    this.ring.reset();
    this.uploaded = 0;
  }

  /** Level at (rows back from the newest, stored column), NaN where nothing is held. */
  levelAt(age: number, column: number): number {
    const row = this.ring.rowForAge(Math.floor(age));
    if (row < 0 || column < 0 || column >= this.texWidth) return NaN;
    return this.levels[row * this.texWidth + Math.floor(column)];
  }

  timeAt(age: number): number {
    const row = this.ring.rowForAge(Math.floor(age));
    return row < 0 ? NaN : this.times[row];
  }
}

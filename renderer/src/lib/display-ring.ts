// Bookkeeping of the waterfall's display ring: an RGBA8 texture, one texel per canvas column and one row
// per history row, holding rows already coloured (frequency mapping, max over the columns under each pixel,
// dB range, colormap). Each frame colours only the rows that arrived since the last one, so the heavy work
// is proportional to what changed; a change of the mapping empties the ring and the rows the view shows are
// coloured again. The composite pass then needs one texel fetch per pixel.
//
// Rows are numbered by stream index s (0, 1, … since the history's reset): the history's level texture
// keeps s in row s mod `capacity`, the display ring in row s mod `rows` (rows ≤ capacity, smaller when
// a wide canvas would make the ring too big for its memory budget).

/** Bytes the display ring may take (RGBA8): its rows are cut to fit, never below MIN_RING_ROWS. */
export const RING_BUDGET_BYTES = 64 * 1024 * 1024;
export const MIN_RING_ROWS = 256;

/** Rows of a display ring `width` texels wide over a history of `capacity` rows. */
export function ringRows(width: number, capacity: number): number {
  const fit = Math.floor(RING_BUDGET_BYTES / (4 * Math.max(1, width)));
  return Math.max(1, Math.min(capacity, Math.max(MIN_RING_ROWS, fit)));
}

/**
 * Ages (rows back from the newest) that a view can show: every age a pixel can map to, plus one for
 * rounding, as the composite computes floor(offset + y · rowsVisible / height) with y < height.
 */
export function agesShown(offset: number, rowsVisible: number): number {
  return Math.max(0, Math.ceil(offset + rowsVisible) + 1);
}

/** Entries a plan may need in `out`: two ranges of stream rows, each split at most twice by the wraps. */
export const PLAN_ENTRIES = 18;

export class DisplayRing {
  /** Stream rows [lo, hi) coloured with the current mapping. */
  lo = 0;
  hi = 0;

  /**
   * @param rows display ring rows
   * @param capacity history rows (the level texture's ring)
   */
  constructor(
    readonly rows: number,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(capacity) || rows > capacity) {
      throw new Error(
        `display ring rows must be a whole number from 1 to the history's ${capacity}, got ${rows}`,
      );
    }
  }

  /** The mapping changed (or the history was reset): nothing is coloured any more. */
  invalidate(): void {
    this.lo = this.hi = 0;
  }

  /** Whether the ring can hold the `ages` newest rows (else the view must be drawn another way). */
  fits(ages: number): boolean {
    return ages <= this.rows;
  }

  /** Display ring row of stream row s. */
  ringRow(s: number): number {
    return s % this.rows;
  }

  /** Ages (from the newest of `written` rows) coloured and held: the composite shows these. */
  coloured(written: number): number {
    return this.hi === written ? this.hi - this.lo : 0;
  }

  /**
   * Plans colouring so that the newest rows up to `ages` back (all of `written` when fewer, never more
   * than the ring holds) and every row newer than those coloured are coloured, then records them as done.
   * Fills `out` (PLAN_ENTRIES entries) with runs [ringRow, levelRow, n], each contiguous in both textures,
   * and returns the number of runs.
   */
  plan(written: number, ages: number, out: Int32Array): number {
    const held = Math.min(written, this.rows);
    const want = written - Math.min(held, Math.max(0, ages));
    // Rows the ring has overwritten since, or a history that started over, leave nothing usable.
    let lo = Math.max(this.lo, written - held);
    let hi = this.hi;
    if (hi > written || lo >= hi) lo = hi = written;
    let n = 0;
    if (want < lo) n = this.split(want, lo, out, n);
    if (hi < written) n = this.split(hi, written, out, n);
    this.lo = Math.min(lo, want);
    this.hi = written;
    return n;
  }

  /** Appends the runs of stream rows [a, b) to `out` from run index `n`; returns the new count. */
  private split(a: number, b: number, out: Int32Array, n: number): number {
    while (a < b) {
      const r = a % this.rows;
      const l = a % this.capacity;
      const len = Math.min(b - a, this.rows - r, this.capacity - l);
      out[3 * n] = r;
      out[3 * n + 1] = l;
      out[3 * n + 2] = len;
      n++;
      a += len;
    }
    return n;
  }
}

/** Floats `compositeQuads` may write: two quads of two triangles, (x, y, u, v) per vertex. */
export const QUAD_FLOATS = 2 * 6 * 4;

/** Texture v of ages are nudged below the row boundary, so a whole-number age lands on its own row. */
const NUDGE = 1 / 1024;

function vertex(out: Float32Array, i: number, x: number, y: number, u: number, v: number): void {
  out[i] = x;
  out[i + 1] = y;
  out[i + 2] = u;
  out[i + 3] = v;
}

/** Writes one quad (ages a0…a1 from the top) at vertex `n`; returns the vertex count after it. */
function writeQuad(
  out: Float32Array,
  n: number,
  a0: number,
  a1: number,
  offset: number,
  rows: number,
  p0: number,
  ringRows: number,
): number {
  if (!(a1 > a0)) return n;
  const y0 = 1 - (2 * (a0 - offset)) / rows;
  const y1 = 1 - (2 * (a1 - offset)) / rows;
  const v0 = (p0 - a0 - NUDGE) / ringRows;
  const v1 = (p0 - a1 - NUDGE) / ringRows;
  // Two triangles: (-1, y0) (1, y0) (-1, y1), then (-1, y1) (1, y0) (1, y1).
  const i = n * 4;
  vertex(out, i, -1, y0, 0, v0);
  vertex(out, i + 4, 1, y0, 1, v0);
  vertex(out, i + 8, -1, y1, 0, v1);
  vertex(out, i + 12, -1, y1, 0, v1);
  vertex(out, i + 16, 1, y0, 1, v0);
  vertex(out, i + 20, 1, y1, 1, v1);
  return n + 6;
}

/**
 * The composite as at most two textured quads, so the fragment work is one interpolated texture fetch per
 * pixel: ages [offset, offset + rows) run from the top of the canvas to the bottom, age a (continuous)
 * shows ring row newest − floor(a) (texture position newest + 1 − a), and ages past the ring's row 0
 * continue from its last row. Ages outside [0, valid) are left to the background (the caller clears
 * first). Fills `out` (QUAD_FLOATS) with clip-space (x, y) and texture (u, v) per vertex and returns the
 * number of vertices (0, 6 or 12). Allocates nothing.
 */
export function compositeQuads(
  t: { ringRows: number; newest: number; valid: number; rows: number; offset: number },
  out: Float32Array,
): number {
  const { ringRows, newest, rows, offset } = t;
  if (rows <= 0 || ringRows <= 0) return 0;
  const top = Math.max(0, offset);
  const end = Math.min(offset + rows, t.valid, ringRows);
  let n = writeQuad(out, 0, top, Math.min(end, newest + 1), offset, rows, newest + 1, ringRows);
  n = writeQuad(out, n, Math.max(top, newest + 1), end, offset, rows, newest + 1 + ringRows, ringRows);
  return n;
}

// The waterfall without WebGL2 (a browser or driver that offers none): the same design as WaterfallGL,
// on the CPU and a 2D canvas. New rows are coloured once into a display ring (an offscreen canvas, one
// pixel per canvas column, rows stored newest-lowest so that no flip is needed: ring row r lives at
// y = rows − 1 − r), and each frame composites the ring with at most two drawImage calls (the quads of
// lib/display-ring.ts compositeQuads, turned into rectangles). Slower than the GPU path, but the waterfall
// is there; the component says which one runs.

import { QUAD_FLOATS, compositeQuads } from '../lib/display-ring.js';
import type { FrequencyAxis } from '../lib/axis.js';
import { mapPixelsToColumns } from '../lib/columns.js';
import { BACKGROUND_RGB, type ColorUniforms, type TimeUniforms } from './waterfall-gl.js';

/** Fills `n` RGBA pixels of `out` from `o` with the background `bg`. */
function fillBackground(out: Uint8ClampedArray, o: number, n: number, bg: readonly number[]): void {
  for (let e = o + 4 * n; o < e; o += 4) {
    out[o] = bg[0];
    out[o + 1] = bg[1];
    out[o + 2] = bg[2];
    out[o + 3] = 255;
  }
}

/**
 * Colours one row: pixel i shows the max of `levels[off + start[i] … off + end[i]]` through the 256-entry
 * RGBA colormap `lut` over [dbMin, dbMax]; pixels outside the row get the background `bg`. Writes RGBA
 * to `out` from `outOff`.
 */
export function colorRow(
  levels: Float32Array,
  off: number,
  start: Int32Array,
  end: Int32Array,
  pixels: number,
  dbMin: number,
  dbMax: number,
  lut: Uint8Array,
  out: Uint8ClampedArray,
  outOff: number,
  bg: readonly number[] = BACKGROUND_RGB,
): void {
  const scale = 255 / (dbMax - dbMin);
  for (let i = 0, o = outOff; i < pixels; i++, o += 4) {
    const c0 = start[i];
    if (c0 < 0) {
      fillBackground(out, o, 1, bg);
      continue;
    }
    let m = levels[off + c0];
    for (let c = c0 + 1, e = end[i]; c <= e; c++) if (levels[off + c] > m) m = levels[off + c];
    const t = (m - dbMin) * scale;
    const k = 4 * (t >= 255 ? 255 : t > 0 ? Math.round(t) : 0); // NaN (no level) → the lowest colour
    out[o] = lut[k];
    out[o + 1] = lut[k + 1];
    out[o + 2] = lut[k + 2];
    out[o + 3] = 255;
  }
}

export class Waterfall2D {
  readonly ctx: CanvasRenderingContext2D;
  /** No texture limit on this path; the history's size rule still wants one. */
  readonly maxTextureSize = 16384;
  private lut = new Uint8Array(256 * 4);
  private levels: Float32Array | null = null;
  private texWidth = 0;
  private ring: HTMLCanvasElement | null = null;
  private ringCtx: CanvasRenderingContext2D | null = null;
  ringWidth = 0;
  ringRows = 0;
  private readonly quads = new Float32Array(QUAD_FLOATS);
  // Per canvas width: the columns under each pixel, and a block of coloured rows.
  private start = new Int32Array(0);
  private end = new Int32Array(0);
  private block: ImageData | null = null;
  private screen: ImageData | null = null;
  private readonly axis: FrequencyAxis = {
    f0: 0,
    f1: 0,
    e0: 0,
    e1: 1,
    bins: 1,
    width: 1,
    log: false,
    lo: 0,
    hi: 1,
  };

  constructor(readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('this browser can draw neither WebGL2 nor a 2D canvas');
    this.ctx = ctx;
  }

  setColormap(rgba: Uint8Array): void {
    this.lut = Uint8Array.from(rgba);
  }

  /** The colour (0…255 RGB) where no row is held: the theme's plot background. */
  setBackground(rgb: readonly number[]): void {
    this.background = [rgb[0], rgb[1], rgb[2]];
  }
  private background: readonly number[] = BACKGROUND_RGB;

  /** Level rows are `width` columns (the history keeps them; nothing to allocate here). */
  allocate(width: number, _rows: number): void {
    this.texWidth = width;
  }

  allocateRing(width: number, rows: number): boolean {
    if (this.ring && width === this.ringWidth && rows === this.ringRows) return false;
    const ring = document.createElement('canvas');
    ring.width = width;
    ring.height = rows;
    const ctx = ring.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('could not create the waterfall display ring');
    this.ring = ring;
    this.ringCtx = ctx;
    this.ringWidth = width;
    this.ringRows = rows;
    return true;
  }

  /** The levels are read where they are (the history's CPU copy): nothing to copy. */
  uploadRows(levels: Float32Array, _row: number, _n: number): void {
    this.levels = levels;
  }

  resize(width: number, height: number): void {
    if (this.canvas.width !== width) this.canvas.width = width;
    if (this.canvas.height !== height) this.canvas.height = height;
  }

  /** The columns under each of `pixels` pixels for the mapping `u`. */
  private mapping(u: ColorUniforms, pixels: number): void {
    if (this.start.length < pixels) {
      this.start = new Int32Array(pixels);
      this.end = new Int32Array(pixels);
    }
    // Only what the mapping reads: the axis range and the columns' extent (in texture columns, as the
    // shader has them).
    const a = this.axis;
    a.lo = u.axisLo;
    a.hi = u.axisHi;
    a.log = u.log;
    a.e0 = u.e0;
    a.e1 = u.e1;
    a.width = u.width;
    mapPixelsToColumns(a, u.view, pixels, this.start, this.end);
  }

  /** Colours display ring rows: `runs` holds `count` runs [ringRow, levelRow, n] (lib/display-ring.ts). */
  color(u: ColorUniforms, runs: Int32Array, count: number): void {
    const levels = this.levels;
    const ctx = this.ringCtx;
    if (!levels || !ctx || count === 0) return;
    const w = this.ringWidth;
    this.mapping(u, w);
    for (let r = 0; r < count; r++) {
      const ringRow = runs[3 * r];
      const levelRow = runs[3 * r + 1];
      const n = runs[3 * r + 2];
      if (!this.block || this.block.width !== w || this.block.height < n) {
        this.block = new ImageData(w, Math.max(n, this.block?.height ?? 0));
      }
      const data = this.block.data;
      // Stored newest-lowest: the run's last row goes to the block's first line.
      for (let k = 0; k < n; k++) {
        const off = (levelRow + k) * this.texWidth;
        colorRow(
          levels,
          off,
          this.start,
          this.end,
          w,
          u.dbMin,
          u.dbMax,
          this.lut,
          data,
          4 * w * (n - 1 - k),
          this.background,
        );
      }
      ctx.putImageData(this.block, 0, this.ringRows - ringRow - n, 0, 0, w, n);
    }
  }

  /** Draws the canvas from the display ring: the background, then up to two rectangles of rows. */
  composite(t: TimeUniforms): void {
    const ctx = this.ctx;
    const { width, height } = this.canvas;
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = `rgb(${this.background.join(' ')})`;
    ctx.fillRect(0, 0, width, height);
    const ring = this.ring;
    const n = ring ? compositeQuads(t, this.quads) : 0;
    const q = this.quads;
    for (let v = 0; v < n; v += 6) {
      // Quad corners: (x, y, u, v) at vertices 0 (top) and 2 (bottom) of its first triangle.
      const yTop = ((1 - q[4 * v + 1]) / 2) * height;
      const yBottom = ((1 - q[4 * (v + 2) + 1]) / 2) * height;
      const sTop = this.ringRows - q[4 * v + 3] * this.ringRows;
      const sBottom = this.ringRows - q[4 * (v + 2) + 3] * this.ringRows;
      if (yBottom - yTop <= 0 || sBottom - sTop <= 0) continue;
      ctx.drawImage(ring!, 0, sTop, this.ringWidth, sBottom - sTop, 0, yTop, width, yBottom - yTop);
    }
  }

  /** Maps and colours every device row from the levels (views the display ring cannot hold). */
  drawDirect(u: ColorUniforms, t: TimeUniforms): void {
    const levels = this.levels;
    const { width, height } = this.canvas;
    if (!this.screen || this.screen.width !== width || this.screen.height !== height) {
      this.screen = new ImageData(Math.max(1, width), Math.max(1, height));
    }
    const data = this.screen.data;
    this.mapping(u, width);
    for (let y = 0; y < height; y++) {
      const age = Math.floor(t.offset + ((y + 0.5) * t.rows) / height);
      const o = 4 * width * y;
      if (!levels || age < 0 || age >= t.valid) {
        fillBackground(data, o, width, this.background);
        continue;
      }
      const row = (((t.newest - age) % t.ringRows) + t.ringRows) % t.ringRows;
      colorRow(
        levels,
        row * this.texWidth,
        this.start,
        this.end,
        width,
        u.dbMin,
        u.dbMax,
        this.lut,
        data,
        o,
        this.background,
      );
    }
    this.ctx.putImageData(this.screen, 0, 0);
  }

  dispose(): void {
    this.ring = null;
    this.ringCtx = null;
  }
}

// Turns a matrix of levels (dB) into an RGBA image through a colormap, and encodes PNG.

import { PNG } from 'pngjs';
import { colormapTable, type ColormapName } from './colormaps.js';

export interface LevelImage {
  /** width × height levels, row-major, row 0 at the top. */
  levels: Float32Array;
  width: number;
  height: number;
}

/** Maps levels to RGBA through a colormap over [min, max] dB (clamped). */
export function colorize(img: LevelImage, range: [number, number], colormap: ColormapName): Uint8Array {
  const lut = colormapTable(colormap);
  const [lo, hi] = range;
  const k = 255 / (hi - lo);
  const out = new Uint8Array(img.width * img.height * 4);
  for (let i = 0, o = 0; i < img.levels.length; i++, o += 4) {
    const v = img.levels[i];
    let idx = Math.round((v - lo) * k);
    idx = idx < 0 || Number.isNaN(idx) ? 0 : idx > 255 ? 255 : idx;
    out[o] = lut[3 * idx];
    out[o + 1] = lut[3 * idx + 1];
    out[o + 2] = lut[3 * idx + 2];
    out[o + 3] = 255;
  }
  return out;
}

export function encodePng(rgba: Uint8Array, width: number, height: number): Buffer {
  const png = new PNG({ width, height, colorType: 6 });
  png.data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  return PNG.sync.write(png);
}

export function decodePng(bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
}

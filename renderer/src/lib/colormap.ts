// Colormap lookup texture data: the engine's 256 × RGB tables (d3-scale-chromatic) widened to RGBA for a
// 256 × 1 texture the waterfall's fragment shader indexes by level.

import {
  colormapNames,
  colormapTable,
  type ColormapName,
} from '../../../electron/engine/output/colormaps.js';

export { colormapNames, type ColormapName };

const rgbaCache = new Map<ColormapName, Uint8Array>();

/** 256 × RGBA bytes, index 0 = lowest level, alpha opaque. */
export function colormapRgba(name: ColormapName): Uint8Array {
  let out = rgbaCache.get(name);
  if (out) return out;
  const rgb = colormapTable(name);
  out = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) {
    out[4 * i] = rgb[3 * i];
    out[4 * i + 1] = rgb[3 * i + 1];
    out[4 * i + 2] = rgb[3 * i + 2];
    out[4 * i + 3] = 255;
  }
  rgbaCache.set(name, out);
  return out;
}

/** CSS colour of a level fraction t ∈ [0, 1] (for legends drawn in 2D). */
export function colormapCss(name: ColormapName, t: number): string {
  const rgb = colormapTable(name);
  const i = Math.round(Math.min(1, Math.max(0, t)) * 255);
  return `rgb(${rgb[3 * i]}, ${rgb[3 * i + 1]}, ${rgb[3 * i + 2]})`;
}

export function isColormap(name: unknown): name is ColormapName {
  return typeof name === 'string' && (colormapNames as readonly string[]).includes(name);
}

export function nextColormap(name: ColormapName): ColormapName {
  const i = colormapNames.indexOf(name);
  return colormapNames[(i + 1) % colormapNames.length];
}

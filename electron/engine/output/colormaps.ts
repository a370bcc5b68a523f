// Colormaps as 256-entry RGB lookup tables (for PNG output here, and the waterfall's lookup texture).
// The perceptual maps come from d3-scale-chromatic; only the sampling into a table is ours.

import {
  interpolateInferno,
  interpolateMagma,
  interpolateTurbo,
  interpolateViridis,
} from 'd3-scale-chromatic';
import { InvalidArgumentError } from '../errors.js';

export const colormapNames = ['viridis', 'inferno', 'magma', 'turbo', 'gray'] as const;
export type ColormapName = (typeof colormapNames)[number];

const interpolators: Record<Exclude<ColormapName, 'gray'>, (t: number) => string> = {
  viridis: interpolateViridis,
  inferno: interpolateInferno,
  magma: interpolateMagma,
  turbo: interpolateTurbo,
};

const cache = new Map<ColormapName, Uint8Array>();

export function parseColormap(name: string): ColormapName {
  if ((colormapNames as readonly string[]).includes(name)) return name as ColormapName;
  throw new InvalidArgumentError(`unknown colormap "${name}"; choose one of: ${colormapNames.join(', ')}`);
}

/** 256 × RGB bytes, index 0 = lowest level. */
export function colormapTable(name: ColormapName): Uint8Array {
  let lut = cache.get(name);
  if (lut) return lut;
  lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    if (name === 'gray') {
      lut[3 * i] = lut[3 * i + 1] = lut[3 * i + 2] = i;
    } else {
      const [r, g, b] = parseCssColor(interpolators[name](i / 255));
      lut[3 * i] = r;
      lut[3 * i + 1] = g;
      lut[3 * i + 2] = b;
    }
  }
  cache.set(name, lut);
  return lut;
}

/** Parses the two forms d3 returns: "#rrggbb" and "rgb(r, g, b)". */
function parseCssColor(css: string): [number, number, number] {
  if (css.startsWith('#') && css.length === 7) {
    return [parseInt(css.slice(1, 3), 16), parseInt(css.slice(3, 5), 16), parseInt(css.slice(5, 7), 16)];
  }
  const m = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(css);
  if (!m) throw new Error(`unexpected colour from d3-scale-chromatic: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

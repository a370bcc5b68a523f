// Levels (dB) of a file spectrogram to colours: an automatic level range that suits the image, and the
// lookup of each level in a 256-entry RGBA colormap.

import { DEFAULT_DB_RANGE } from '../../../electron/engine/protocol/shape.js';

/** Level range for an image: from a low percentile (the noise floor) to its maximum, 20–140 dB wide. */
export function autoLevels(data: Float32Array): [number, number] {
  const step = Math.max(1, Math.floor(data.length / 65536));
  const sample: number[] = [];
  let hi = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) continue;
    if (v > hi) hi = v;
    if (i % step === 0) sample.push(v);
  }
  if (!Number.isFinite(hi) || sample.length === 0) return [...DEFAULT_DB_RANGE];
  sample.sort((a, b) => a - b);
  let lo = sample[Math.floor(0.02 * (sample.length - 1))];
  lo = Math.max(lo, hi - 140);
  if (hi - lo < 20) lo = hi - 20;
  return [Math.floor(lo), Math.ceil(hi)];
}

/**
 * Writes the RGBA pixels of a `width` × `height` level image (row 0 at the top) into `out`, mapping
 * [lo, hi] onto the colormap (levels outside clamp to its ends; NaN and −∞ take the lowest colour).
 */
export function paintLevels(
  data: Float32Array,
  lo: number,
  hi: number,
  lut: Uint8Array,
  out: Uint8ClampedArray,
): void {
  const n = data.length;
  const k = 255 / Math.max(1e-9, hi - lo);
  for (let i = 0; i < n; i++) {
    const v = data[i];
    let idx = (v - lo) * k;
    idx = idx > 0 ? (idx < 255 ? idx | 0 : 255) : 0; // NaN fails both tests: 0
    const s = idx << 2;
    const o = i << 2;
    out[o] = lut[s];
    out[o + 1] = lut[s + 1];
    out[o + 2] = lut[s + 2];
    out[o + 3] = 255;
  }
}

// Which columns of a row each pixel of the plot covers (the same mapping the waterfall shader uses), so
// the trace shows the maximum of the columns under a pixel: a narrow tone never falls between pixels.

import { frequencyToColumn, screenToFrequency, type FrequencyAxis, type View } from './axis.js';

/**
 * Fills start[i], end[i] (inclusive) with the columns pixel i covers; −1 in both when the pixel lies
 * outside the row. Arrays must hold at least `pixels` entries (allocated once per size by the caller).
 */
export function mapPixelsToColumns(
  axis: FrequencyAxis,
  view: View,
  pixels: number,
  start: Int32Array,
  end: Int32Array,
): void {
  const w = axis.width;
  let right = frequencyToColumn(axis, screenToFrequency(axis, view, 0));
  for (let i = 0; i < pixels; i++) {
    const left = right;
    right = frequencyToColumn(axis, screenToFrequency(axis, view, (i + 1) / pixels));
    let c0 = Math.floor(left);
    let c1 = Math.max(c0, Math.ceil(right) - 1);
    if (c1 < 0 || c0 >= w) {
      start[i] = end[i] = -1;
      continue;
    }
    c0 = Math.max(0, c0);
    c1 = Math.min(w - 1, c1);
    start[i] = c0;
    end[i] = c1;
  }
}

/** out[i] = max of values[start[i]..end[i]], NaN where the pixel lies outside the row. */
export function reduceToPixels(
  values: Float32Array,
  start: Int32Array,
  end: Int32Array,
  pixels: number,
  out: Float32Array,
): void {
  for (let i = 0; i < pixels; i++) {
    const c0 = start[i];
    if (c0 < 0) {
      out[i] = NaN;
      continue;
    }
    let m = values[c0];
    for (let c = c0 + 1; c <= end[i]; c++) if (values[c] > m) m = values[c];
    out[i] = m;
  }
}

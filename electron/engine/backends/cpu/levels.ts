// A spectrogram frame's levels from its power spectrum, shared by the float64 and float32 jobs
// (kernels.ts, kernels32.ts): display-column reduction, dB with a floor, linear power for averaging.

import { columnBins } from '../../protocol/shape.js';

let lastEdges: { bins: number; columns: number; edges: Int32Array } | undefined;

/** Display column c takes the max of bins [edges[c], edges[c+1]) (no columns: an empty table). The last
 * table is kept (read-only): every task of a stream asks for the same one (see scratch.ts for why). */
export function columnEdges(bins: number, columns: number): Int32Array {
  if (lastEdges !== undefined && lastEdges.bins === bins && lastEdges.columns === columns)
    return lastEdges.edges;
  const edges = new Int32Array(columns + 1);
  for (let c = 0; c < columns; c++) [edges[c], edges[c + 1]] = columnBins(c, bins, columns);
  lastEdges = { bins, columns, edges };
  return edges;
}

/** A frame's levels from its power spectrum: reduced to display columns in place when edges has any, then
 * written to rows (dB, floored) and linear (when averaging needs it) from index `row`. */
export function writeRow(
  power: Float64Array,
  edges: Int32Array,
  width: number,
  row: number,
  rows: Float32Array,
  linear: Float64Array | null,
  floorDb: number,
): void {
  const columns = edges.length - 1;
  for (let c = 0; c < columns; c++) {
    const lo = edges[c];
    const hi = edges[c + 1];
    let m = power[lo];
    for (let k = lo + 1; k < hi; k++) if (power[k] > m) m = power[k];
    power[c] = m; // c ≤ lo: reducing in place never overwrites a bin still needed
  }
  for (let c = 0; c < width; c++) {
    const p = power[c];
    if (linear !== null) linear[row + c] = p;
    const db = p > 0 ? 10 * Math.log10(p) : -Infinity;
    rows[row + c] = db > floorDb ? db : floorDb;
  }
}

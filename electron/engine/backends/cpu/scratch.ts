// Per-thread scratch arrays of the CPU kernels (jobs never run re-entrantly on a thread). A typed array of
// more than a few bytes lives outside the V8 heap: allocated per task, a worker that allocates little else
// collects them rarely, and its process grows with the work done (about 10 MB per 64 MiB of spectrogram
// input for each of 16 workers), so kernels reuse these instead.

const slots: Float64Array[] = [];

/** Scratch slot `slot` with at least `length` float64 values (contents undefined). */
export function scratchF64(slot: number, length: number): Float64Array {
  const cur = slots[slot];
  if (cur !== undefined && cur.length >= length) return cur;
  const b = new Float64Array(length);
  slots[slot] = b;
  return b;
}

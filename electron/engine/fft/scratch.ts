// Scratch buffers shared by every plan of this thread (JavaScript runs one transform at a time per
// thread, and no transform calls back into user code). Sharing them keeps a plan's own memory to its
// tables, which matters for large Bluestein plans cached in every worker.

const slots: Float64Array[] = [];

/** Slot numbers: each user of scratch memory owns its slot, so nested transforms never collide. */
export const SLOT_STOCKHAM_A = 0;
export const SLOT_STOCKHAM_B = 1;
export const SLOT_BLUESTEIN_A = 2;
export const SLOT_BLUESTEIN_B = 3;
export const SLOT_REAL = 4;
export const SLOT_STOCKHAM_OUT = 5;

/** A float64 buffer of at least `length` values for the given slot (contents undefined). */
export function scratch(slot: number, length: number): Float64Array {
  const cur = slots[slot];
  if (cur !== undefined && cur.length >= length) return cur;
  const buf = new Float64Array(length);
  slots[slot] = buf;
  return buf;
}

/** Drops every scratch buffer (they are recreated on demand). */
export function releaseScratch(): void {
  slots.length = 0;
}

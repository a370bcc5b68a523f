// Index math of the waterfall's ring buffer: the texture holds `capacity` rows; row k of the stream
// (k = 0, 1, …) lives in texture row k mod capacity. The shader mirrors rowForAge.

export class RowRing {
  /** Rows written since the last reset. */
  written = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`ring capacity must be a whole number ≥ 1, got ${capacity}`);
    }
  }

  reset(): void {
    this.written = 0;
  }

  /** Texture row of the newest row (−1 when empty). */
  get newest(): number {
    return this.written === 0 ? -1 : (this.written - 1) % this.capacity;
  }

  /** Rows that can be shown (the ring keeps the last `capacity`). */
  get valid(): number {
    return Math.min(this.written, this.capacity);
  }

  /** Texture row of the row `age` rows older than the newest (0 = newest), or −1 if not held. */
  rowForAge(age: number): number {
    if (age < 0 || age >= this.valid) return -1;
    return (((this.written - 1 - age) % this.capacity) + this.capacity) % this.capacity;
  }

  /**
   * Plans writing `count` new rows and advances the ring. Fills `out` with up to two segments
   * [sourceRow, textureRow, rows] (sourceRow counts from the first of the `count` rows; when count exceeds
   * the capacity only the last `capacity` rows are written). Returns the number of segments.
   */
  planWrite(count: number, out: Int32Array): number {
    if (count <= 0) return 0;
    const skip = Math.max(0, count - this.capacity);
    const n = count - skip;
    const at = (this.written + skip) % this.capacity;
    const first = Math.min(n, this.capacity - at);
    out[0] = skip;
    out[1] = at;
    out[2] = first;
    this.written += count;
    if (first === n) return 1;
    out[3] = skip + first;
    out[4] = 0;
    out[5] = n - first;
    return 2;
  }
}

// Measurement helpers with preallocated storage (they run every frame): a ring of the last N latencies and
// a frames-per-second meter.

/** The last `capacity` values in a preallocated ring. */
export class ValueRing {
  private readonly data: Float64Array;
  private next = 0;
  /** Values recorded since the last reset (may exceed capacity). */
  total = 0;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(capacity);
  }

  push(v: number): void {
    this.data[this.next] = v;
    this.next = (this.next + 1) % this.capacity;
    this.total++;
  }

  get size(): number {
    return Math.min(this.total, this.capacity);
  }

  reset(): void {
    this.next = 0;
    this.total = 0;
  }

  /** The held values, oldest first (allocates: for tests and benchmarks, not the frame loop). */
  values(): number[] {
    const n = this.size;
    const out = new Array<number>(n);
    const start = (this.next - n + this.capacity) % this.capacity;
    for (let i = 0; i < n; i++) out[i] = this.data[(start + i) % this.capacity];
    return out;
  }

  /** The q-quantile (0..1) of the held values by linear interpolation; NaN when empty. */
  quantile(q: number): number {
    const v = this.values().sort((x, y) => x - y);
    if (v.length === 0) return NaN;
    const pos = Math.min(1, Math.max(0, q)) * (v.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.min(v.length - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  }
}

/** Counts frames and reports their rate over the last complete window. */
export class RateMeter {
  private count = 0;
  private windowStart = NaN;
  /** Events per second over the last complete window (0 until one completes). */
  rate = 0;

  constructor(readonly windowMs = 1000) {}

  /** Records one event at time `now` (ms); returns true when the rate was just updated. */
  tick(now: number): boolean {
    if (Number.isNaN(this.windowStart)) {
      // The first event opens the window; the rate counts the intervals after it.
      this.windowStart = now;
      this.count = 0;
      return false;
    }
    this.count++;
    return this.update(now);
  }

  /** Closes the window if it has run out (call this also when no events come, so the rate falls to 0). */
  update(now: number): boolean {
    if (Number.isNaN(this.windowStart)) return false;
    const elapsed = now - this.windowStart;
    if (elapsed < this.windowMs) return false;
    this.rate = (this.count * 1000) / elapsed;
    this.count = 0;
    this.windowStart = now;
    return true;
  }

  reset(): void {
    this.count = 0;
    this.windowStart = NaN;
    this.rate = 0;
  }
}

// Small helpers of the CPU backend.
export { checkInteger } from '../validate.js';

/** An append-at-the-end, drop-from-the-front float32 buffer (amortized O(1) per value). */
export class GrowableF32 {
  private data = new Float32Array(1024);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  /** Appends src[from…]. */
  append(src: Float32Array, from: number): void {
    const count = src.length - from;
    if (count <= 0) return;
    if (this.end + count > this.data.length) {
      const len = this.length;
      if (len + count > this.data.length / 2) {
        const next = new Float32Array(Math.max(2 * (len + count), 1024));
        next.set(this.data.subarray(this.start, this.end));
        this.data = next;
      } else this.data.copyWithin(0, this.start, this.end);
      this.start = 0;
      this.end = len;
    }
    this.data.set(from === 0 ? src : src.subarray(from), this.end);
    this.end += count;
  }

  /** Appends `count` zeros. */
  appendZeros(count: number): void {
    this.append(new Float32Array(count), 0);
  }

  /** A view of values [from, from + length) (valid until the next append or drop). */
  view(from: number, length: number): Float32Array {
    return this.data.subarray(this.start + from, this.start + from + length);
  }

  drop(count: number): void {
    this.start += Math.min(count, this.length);
    if (this.start === this.end) this.start = this.end = 0;
  }

  clear(): void {
    this.start = this.end = 0;
  }
}

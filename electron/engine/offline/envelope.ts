// The envelope of a long score sequence: `points` buckets, each the maximum of the scores it covers, filled
// as the scores stream by (memory: the buckets, never the scores).

import { InvalidArgumentError } from '../errors.js';

export class Envelope {
  /** Scores (lags) per bucket. */
  readonly bucket: number;
  /** bucket i holds the maximum of lags i·bucket … (i+1)·bucket − 1. */
  readonly data: Float32Array;
  readonly length: number;

  /** `length` values into at most `points` buckets. */
  constructor(length: number, points: number) {
    if (!Number.isSafeInteger(length) || length < 1) {
      throw new InvalidArgumentError(`an envelope needs at least one value, got ${length}`);
    }
    if (!Number.isInteger(points) || points < 1) {
      throw new InvalidArgumentError(`points must be a whole number ≥ 1, got ${points}`);
    }
    this.length = length;
    this.bucket = Math.ceil(length / Math.min(points, length));
    this.data = new Float32Array(Math.ceil(length / this.bucket)).fill(-Infinity);
  }

  /** Adds values[i] as value number start + i. */
  add(start: number, values: Float32Array): void {
    const { bucket, data } = this;
    let i = 0;
    const n = Math.min(values.length, this.length - start);
    while (i < n) {
      const b = Math.floor((start + i) / bucket);
      const stop = Math.min(n, (b + 1) * bucket - start);
      let m = data[b];
      for (; i < stop; i++) if (values[i] > m) m = values[i];
      data[b] = m;
    }
  }

  /** The buckets, with those no value reached set to 0. */
  result(): Float32Array {
    for (let i = 0; i < this.data.length; i++) if (this.data[i] === -Infinity) this.data[i] = 0;
    return this.data;
  }
}

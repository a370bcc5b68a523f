// Progress of a long request as the user sees it: the fraction done, the throughput over the last few
// seconds (frames per second), and the time left at that rate.

import type { ProgressEvent } from '../../../electron/engine/protocol/messages.js';

export interface ProgressView {
  done: number;
  total?: number;
  unit: ProgressEvent['unit'];
  /** done / total in [0, 1], or NaN when the total is unknown. */
  fraction: number;
  /** Units per second over the recent window, NaN until two samples are a little apart. */
  rate: number;
  /** Seconds left at that rate, NaN when unknown. */
  eta: number;
  /** Seconds since the first sample. */
  elapsed: number;
}

/** Keeps (time, done) samples of the last `windowMs` and derives rate and ETA from them. */
export class ProgressMeter {
  private times: number[] = [];
  private values: number[] = [];
  private started = NaN;
  private last: ProgressEvent | null = null;

  constructor(private readonly windowMs = 3000) {}

  reset(): void {
    this.times = [];
    this.values = [];
    this.started = NaN;
    this.last = null;
  }

  /** Records an event received at `now` (ms) and returns what to show. */
  push(e: ProgressEvent, now: number): ProgressView {
    if (Number.isNaN(this.started)) this.started = now;
    this.last = e;
    this.times.push(now);
    this.values.push(e.done);
    while (this.times.length > 2 && now - this.times[0] > this.windowMs) {
      this.times.shift();
      this.values.shift();
    }
    return this.view(now);
  }

  view(now: number): ProgressView {
    const e = this.last;
    const done = e?.done ?? 0;
    const total = e?.total;
    const n = this.times.length;
    const dt = n >= 2 ? (this.times[n - 1] - this.times[0]) / 1000 : 0;
    const rate = dt > 0.05 ? (this.values[n - 1] - this.values[0]) / dt : NaN;
    const fraction = total && total > 0 ? Math.min(1, done / total) : NaN;
    const eta = total !== undefined && rate > 0 ? Math.max(0, (total - done) / rate) : NaN;
    return {
      done,
      total,
      unit: e?.unit ?? 'frames',
      fraction,
      rate,
      eta,
      elapsed: Number.isNaN(this.started) ? 0 : (now - this.started) / 1000,
    };
  }
}

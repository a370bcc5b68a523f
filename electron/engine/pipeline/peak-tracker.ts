// The strongest distinct correlation peaks of a whole stream, from the candidates each chunk reports.
// Candidates are kept by score (a bounded number), and the final list is chosen greedily: the best first,
// then the best not within `radius` lags of one already chosen.

import type { CorrelationPeak } from '../backends/backend.js';

export class PeakTracker {
  private candidates: CorrelationPeak[] = [];
  private readonly cap: number;

  constructor(
    readonly count: number,
    readonly radius: number,
  ) {
    // Each distinct peak has at most a few candidates near it (one per chunk edge), so 4×count + slack
    // candidates ranked by score always contain the `count` distinct winners.
    this.cap = Math.max(64, 4 * count + 16);
  }

  add(peaks: readonly CorrelationPeak[]): void {
    if (peaks.length === 0) return;
    for (const p of peaks) this.candidates.push(p);
    if (this.candidates.length > 2 * this.cap) this.prune();
  }

  private prune(): void {
    this.candidates.sort((a, b) => b.score - a.score || a.lag - b.lag);
    this.candidates.length = Math.min(this.candidates.length, this.cap);
  }

  /** The best `count` distinct peaks, best first. */
  result(): CorrelationPeak[] {
    this.prune();
    const chosen: CorrelationPeak[] = [];
    for (const c of this.candidates) {
      if (chosen.length >= this.count) break;
      if (chosen.every((p) => Math.abs(p.lag - c.lag) > this.radius)) chosen.push(c);
    }
    return chosen;
  }
}

// Streaming spectrogram of the CPU backend. Frame i starts at sample i·hop since creation or reset, so the
// rows are the same whatever the push sizes; samples of an incomplete frame wait for the next push.
//
// Levels (AES17 dBFS): the power of bin k is |X[k]|² / (Σw)², doubled for a real input's one-sided bins
// other than DC and Nyquist (scipy.signal.spectrogram's one-sided convention), so a full-scale real sine
// or a unit complex exponential on a bin reads 0 dB whatever the window.

import { validateSpectrogramConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type { ProcessorInput, SpectrogramConfig, SpectrogramProcessor, SpectrogramRows } from '../backend.js';
import type { Executor } from './executor.js';
import { fftCost } from './executor.js';
import type { SpectrogramJob } from './kernels.js';
import { GrowableF32 } from './util.js';

export class CpuSpectrogram implements SpectrogramProcessor {
  readonly bins: number;
  readonly width: number;
  private readonly n: number;
  private readonly hop: number;
  private readonly complex: boolean;
  private readonly floorDb: number;
  private readonly window: Float64Array;
  private readonly norm: number;
  private readonly normEdge: number;
  private readonly alpha: number | undefined;
  private readonly peakHold: boolean;
  /** Values (not samples) from absolute sample `bufStart`. */
  private readonly buffer = new GrowableF32();
  private bufStart = 0;
  private nextFrame = 0;
  private avg: Float64Array | null = null;
  private peak: Float32Array | null = null;
  private generation = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly exec: Executor,
    config: SpectrogramConfig,
  ) {
    validateSpectrogramConfig(config);
    // Small integers from here on (a double-valued size, e.g. 2 ** 12, would slow the kernels' indexing).
    this.n = config.fft | 0;
    this.hop = config.hop <= 0x7fffffff ? config.hop | 0 : config.hop;
    this.complex = config.complex;
    this.bins = this.complex ? this.n : (this.n >> 1) + 1;
    this.width = config.columns ?? this.bins;
    this.floorDb = config.floorDb ?? -300;
    this.alpha = config.averaging;
    this.peakHold = config.peakHold === true;
    const shared = exec.pool !== null;
    this.window = exec.f64(this.n, shared);
    let sum = 0;
    for (let i = 0; i < this.n; i++) {
      this.window[i] = config.window[i];
      sum += config.window[i];
    }
    this.normEdge = 1 / (sum * sum);
    this.norm = this.complex ? this.normEdge : 4 * this.normEdge;
  }

  push(samples: ProcessorInput): Promise<SpectrogramRows> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('spectrogram: used after dispose()'));
    let x: Float32Array;
    try {
      x = this.exec.samples(samples, 'spectrogram input');
      if (this.complex && x.length % 2 !== 0) {
        throw new InvalidArgumentError(
          `spectrogram: complex input must hold interleaved I/Q pairs (an even number of values, got ${x.length})`,
        );
      }
    } catch (err) {
      return Promise.reject(err);
    }
    const vps = this.complex ? 2 : 1;
    const { n, hop } = this;
    // Append only what a future frame can use (with hop > fft some samples belong to no frame).
    const firstNeeded = this.nextFrame * hop;
    const end = this.bufStart + this.buffer.length / vps + x.length / vps;
    if (this.buffer.length === 0 && this.bufStart < firstNeeded) {
      const skip = Math.min(x.length / vps, firstNeeded - this.bufStart);
      this.buffer.append(x, skip * vps);
      this.bufStart += skip;
    } else this.buffer.append(x, 0);
    let count = 0;
    if (end >= firstNeeded + n) count = Math.floor((end - n) / hop) - this.nextFrame + 1;
    const firstFrame = this.nextFrame;
    const width = this.width;
    const generation = this.generation;
    let job: SpectrogramJob | null = null;
    let shared = false;
    let run: Promise<void> = Promise.resolve();
    if (count > 0) {
      shared = this.exec.shared(count * fftCost(n));
      const from = (firstFrame * hop - this.bufStart) * vps;
      const len = ((count - 1) * hop + n) * vps;
      const view = this.buffer.view(from, len);
      job = {
        kind: 'spectrogram',
        n,
        hop,
        complex: this.complex,
        window: this.window,
        samples: shared ? this.exec.sharedCopy(view) : view,
        width,
        columns: width === this.bins ? 0 : width,
        norm: this.norm,
        normEdge: this.normEdge,
        floorDb: this.floorDb,
        rows: this.exec.stagingF32(count * width, shared),
        linear: this.alpha !== undefined ? this.exec.stagingF64(count * width, shared) : null,
      };
      // Inline jobs run here, synchronously, while `view` still points at the buffer's data.
      run = this.exec.run(job, count, shared);
      this.nextFrame += count;
      const keepFrom = this.nextFrame * hop;
      const drop = Math.min(this.buffer.length / vps, keepFrom - this.bufStart);
      if (drop > 0) {
        this.buffer.drop(drop * vps);
        this.bufStart += drop;
      }
    }
    // Averages and peaks depend on the order of frames: fold each push in after the previous one.
    const result = this.tail.then(async () => {
      await run;
      const rows = job === null ? new Float32Array(0) : shared ? job.rows.slice() : job.rows;
      if (job !== null && generation === this.generation) this.fold(job, count);
      if (shared && job !== null) this.exec.release(job.samples, job.rows, job.linear);
      const out: SpectrogramRows = { rows, count, width, firstFrame };
      if (this.alpha !== undefined) out.average = this.toDb(this.avg);
      if (this.peakHold) out.peak = this.peak?.slice() ?? new Float32Array(width).fill(this.floorDb);
      return out;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  private fold(job: SpectrogramJob, count: number): void {
    const w = this.width;
    if (this.alpha !== undefined && job.linear !== null) {
      const a = this.alpha;
      let f = 0;
      if (this.avg === null) {
        this.avg = new Float64Array(w);
        for (let c = 0; c < w; c++) this.avg[c] = job.linear[c];
        f = 1;
      }
      const avg = this.avg;
      for (; f < count; f++) {
        const row = f * w;
        for (let c = 0; c < w; c++) avg[c] = a * job.linear[row + c] + (1 - a) * avg[c];
      }
    }
    if (this.peakHold) {
      if (this.peak === null) this.peak = new Float32Array(w).fill(-Infinity);
      const pk = this.peak;
      for (let f = 0; f < count; f++) {
        const row = f * w;
        for (let c = 0; c < w; c++) if (job.rows[row + c] > pk[c]) pk[c] = job.rows[row + c];
      }
    }
  }

  private toDb(lin: Float64Array | null): Float32Array {
    const out = new Float32Array(this.width);
    for (let c = 0; c < this.width; c++) {
      const p = lin === null ? 0 : lin[c];
      const db = p > 0 ? 10 * Math.log10(p) : -Infinity;
      out[c] = db > this.floorDb ? db : this.floorDb;
    }
    return out;
  }

  reset(): void {
    this.generation++;
    this.buffer.clear();
    this.bufStart = 0;
    this.nextFrame = 0;
    this.avg = null;
    this.peak = null;
  }

  dispose(): void {
    this.reset();
    this.disposed = true;
  }
}

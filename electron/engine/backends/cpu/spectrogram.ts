// Streaming spectrogram of the CPU backend: the frame cursor and level normalisation of ../stream.ts, the
// kept samples in a host buffer, frames computed by the 'spectrogram' job (inline or on the worker pool).
// Averages and peaks are folded in here, in frame order.

import { validateSpectrogramConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type { ProcessorInput, SpectrogramConfig, SpectrogramProcessor, SpectrogramRows } from '../backend.js';
import type { Executor } from './executor.js';
import { fftCost } from './executor.js';
import type { SpectrogramJob } from './jobs.js';
import { FrameCursor, GrowableF32, channelSamples, levelNorm, spectrogramSettings } from '../stream.js';

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
  private readonly cursor: FrameCursor;
  /** The samples the cursor keeps, as values (interleaved I/Q when complex). */
  private readonly buffer = new GrowableF32();
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
    this.cursor = new FrameCursor(this.n, this.hop);
    ({
      bins: this.bins,
      width: this.width,
      floorDb: this.floorDb,
      peakHold: this.peakHold,
    } = spectrogramSettings(config));
    this.alpha = config.averaging;
    const shared = exec.pool !== null;
    this.window = exec.f64(this.n, shared);
    this.window.set(config.window);
    ({ norm: this.norm, normEdge: this.normEdge } = levelNorm(config.window, this.complex));
  }

  push(samples: ProcessorInput): Promise<SpectrogramRows> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('spectrogram: used after dispose()'));
    let x: Float32Array;
    let fresh: number;
    try {
      x = this.exec.samples(samples, 'spectrogram input');
      fresh = channelSamples('spectrogram', x.length, this.complex);
    } catch (err) {
      return Promise.reject(err);
    }
    const vps = this.complex ? 2 : 1;
    const { n, hop, cursor } = this;
    const count = cursor.push(fresh);
    // Append only what a future frame can use (with hop > fft some samples belong to no frame).
    this.buffer.append(x, cursor.skip * vps);
    const firstFrame = cursor.first;
    const width = this.width;
    const generation = this.generation;
    let job: SpectrogramJob | null = null;
    let shared = false;
    let run: Promise<void> = Promise.resolve();
    if (count > 0) {
      shared = this.exec.shared(count * fftCost(n));
      // The frames start at the front of the kept samples.
      const view = this.buffer.view(0, ((count - 1) * hop + n) * vps);
      job = {
        kind: 'spectrogram',
        n,
        single: this.exec.single32(n, 4),
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
    }
    if (cursor.drop > 0) this.buffer.drop(cursor.drop * vps);
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
    this.cursor.reset();
    this.avg = null;
    this.peak = null;
  }

  dispose(): void {
    this.reset();
    this.disposed = true;
  }
}

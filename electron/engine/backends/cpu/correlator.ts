// Streaming normalized cross-correlation of the CPU backend:
//   score[lag] = |Σ x[lag+k]·conj(t[k])| / (‖t‖·‖x[lag … lag+M)‖), 0 where an energy is 0,
// lags as scipy.signal.correlate(x, t, mode='valid'). Short templates are correlated directly; long ones by
// overlap-save with the conjugate template spectrum, in segments of S = L − M + 1 lags aligned to absolute
// lags (the lag cursor of ../stream.ts), so results are bit-identical whatever the block sizes.

import { validateCorrelatorConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type { CorrelationChunk, Correlator, CorrelatorConfig, ProcessorInput } from '../backend.js';
import { getFftPlan } from '../../fft/index.js';
import type { Executor } from './executor.js';
import { fftCost } from './executor.js';
import { overlapSaveSize } from './fir.js';
import type { CorrDirectJob, CorrOverlapSaveJob, Job } from './jobs.js';
import { GrowableF32, LagCursor, channelSamples, correlatorSettings, findPeaks } from '../stream.js';

/**
 * Templates up to this length are correlated directly, longer ones through the FFT. Measured with
 * `npx tsx bench/fft/cpu-backend.ts corr-switch` (2^19 real samples, calling thread): direct runs at
 * 46 / 14 / 9 Msamples/s for 8 / 16 / 32 taps, the FFT path at 16–32 Msamples/s from 33 taps on.
 */
export const CORR_DIRECT_MAX_LENGTH = 16;

const DIRECT_CHUNK = 4096;

export class CpuCorrelator implements Correlator {
  readonly templateLength: number;
  private readonly complex: boolean;
  private readonly direct: boolean;
  private readonly template: Float64Array;
  private readonly templateNorm: number;
  private readonly size: number;
  private readonly segment: number;
  private readonly spectrum: Float64Array | null;
  private readonly wantScores: boolean;
  private readonly peakCount: number;
  private readonly peakRadius: number;
  private readonly cursor: LagCursor;
  /** Signal values from sample cursor.keepFrom on. */
  private readonly buffer = new GrowableF32();
  private disposed = false;

  constructor(
    private readonly exec: Executor,
    config: CorrelatorConfig,
  ) {
    validateCorrelatorConfig(config);
    this.complex = config.complex;
    const vps = this.complex ? 2 : 1;
    const settings = correlatorSettings(config);
    const M = settings.templateLength;
    this.templateLength = M;
    this.direct = M <= CORR_DIRECT_MAX_LENGTH;
    const shared = exec.pool !== null;
    this.template = exec.f64(config.template.length, shared);
    this.template.set(config.template);
    let e = 0;
    for (const v of this.template) e += v * v;
    this.templateNorm = Math.sqrt(e);
    this.wantScores = settings.scores;
    this.peakCount = settings.peaks;
    this.peakRadius = settings.peakRadius;
    if (this.direct) {
      this.size = 0;
      this.segment = 0;
      this.spectrum = null;
    } else {
      this.size = overlapSaveSize(M);
      this.segment = this.size - M + 1;
      const padded = new Float64Array(2 * this.size);
      for (let k = 0; k < M; k++) {
        padded[2 * k] = config.template[vps * k];
        padded[2 * k + 1] = this.complex ? config.template[2 * k + 1] : 0;
      }
      const spec = exec.f64(2 * this.size, shared);
      getFftPlan(this.size).forward(padded, spec);
      for (let i = 1; i < spec.length; i += 2) spec[i] = -spec[i];
      this.spectrum = spec;
    }
    this.cursor = new LagCursor(M, this.segment);
  }

  process(input: ProcessorInput): Promise<CorrelationChunk> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('correlate: used after dispose()'));
    let x: Float32Array;
    let samples: number;
    try {
      x = this.exec.samples(input, 'correlate input');
      samples = channelSamples('correlate', x.length, this.complex);
    } catch (err) {
      return Promise.reject(err);
    }
    this.buffer.append(x, 0);
    return this.compute(this.cursor.push(samples));
  }

  flush(): Promise<CorrelationChunk> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('correlate: used after dispose()'));
    const result = this.compute(this.cursor.flush());
    this.reset();
    return result;
  }

  private compute(lags: number): Promise<CorrelationChunk> {
    const startLag = this.cursor.next;
    if (lags <= 0) {
      const empty: CorrelationChunk = { startLag, count: 0, peaks: [] };
      if (this.wantScores) empty.scores = new Float32Array(0);
      return Promise.resolve(empty);
    }
    const vps = this.complex ? 2 : 1;
    const M = this.templateLength;
    let samples = lags + M - 1;
    let tasks: number;
    let cost: number;
    if (this.direct) {
      tasks = Math.ceil(lags / DIRECT_CHUNK);
      cost = 4 * lags * M * vps;
    } else {
      const segments = Math.ceil(lags / this.segment);
      samples = segments * this.segment + M - 1;
      tasks = segments;
      cost = segments * (2 * fftCost(this.size) + 12 * this.size);
    }
    const shared = this.exec.shared(cost);
    // The buffer starts at the next lag's window (cursor.keepFrom).
    const available = Math.min(samples * vps, this.buffer.length);
    let input: Float32Array;
    if (shared || available < samples * vps) {
      input = this.exec.stagingF32(samples * vps, shared);
      input.set(this.buffer.view(0, available));
      // Padding past the available samples must be zeros; a reused staging buffer holds old data.
      input.fill(0, available);
    } else input = this.buffer.view(0, samples * vps);
    const scores = this.exec.stagingF32(lags, shared);
    const job: Job = this.direct
      ? ({
          kind: 'corr-direct',
          complex: this.complex,
          template: this.template,
          templateNorm: this.templateNorm,
          lags,
          chunk: DIRECT_CHUNK,
          input,
          scores,
        } satisfies CorrDirectJob)
      : ({
          kind: 'corr-os',
          complex: this.complex,
          size: this.size,
          single: this.exec.single32(this.size),
          templateLength: M,
          templateNorm: this.templateNorm,
          spectrum: this.spectrum!,
          lags,
          input,
          scores,
        } satisfies CorrOverlapSaveJob);
    // Inline jobs run synchronously here, before the buffer below is trimmed.
    const run = this.exec.run(job, tasks, shared);
    this.cursor.take(lags);
    this.buffer.drop((this.cursor.keepFrom - startLag) * vps);
    return run.then(() => {
      // the peaks from the scores in place; a copy only of scores asked for (the shared ones go back)
      const chunk: CorrelationChunk = {
        startLag,
        count: lags,
        peaks: this.peakCount > 0 ? findPeaks(scores, startLag, this.peakCount, this.peakRadius) : [],
      };
      if (this.wantScores) chunk.scores = shared ? scores.slice() : scores;
      this.exec.release(input, scores);
      return chunk;
    });
  }

  reset(): void {
    this.buffer.clear();
    this.cursor.reset();
  }

  dispose(): void {
    this.reset();
    this.disposed = true;
  }
}

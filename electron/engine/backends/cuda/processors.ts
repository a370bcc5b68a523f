// Stream processors of the CUDA backend. The bookkeeping (which frames, segments and lags a block
// completes) is done here, on the JavaScript thread, exactly as the CPU backend does it; the samples, the
// kept history, averages, peaks and filter spectra stay on the device. Calls queue in order on the
// backend's worker, so a processor may be pushed again before the previous push resolved.

import { validateCorrelatorConfig, validateFirConfig, validateSpectrogramConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type {
  CorrelationChunk,
  CorrelationPeak,
  Correlator,
  CorrelatorConfig,
  FirConfig,
  FirFilter,
  ProcessorInput,
  SpectrogramConfig,
  SpectrogramProcessor,
  SpectrogramRows,
} from '../backend.js';
import type { NativeCorrelator, NativeFir, NativeSpectrogram } from './addon.js';
import { type CudaBackend, CudaBackend as Backend } from './backend.js';

/** 'auto' FIR filters use the direct form up to this many taps. Measured on an H200 (2^26 real samples,
 * bench/cuda/run.mjs, 2026-11-23): overlap-save with 256-point segments was faster at every length from 1
 * tap (0.28 against 0.41 ms) to 256 (0.36 against 4.26 ms), so 'auto' never picks the direct form; it stays
 * for method 'direct' (docs/cuda/NOTES.md). */
export const CUDA_FIR_DIRECT_MAX_TAPS = 0;

const EMPTY = new Float32Array(0);
const ignore = (): undefined => undefined;

// ---------------------------------------------------------------------------------------------------

export class CudaSpectrogram implements SpectrogramProcessor {
  readonly bins: number;
  readonly width: number;
  private readonly native: NativeSpectrogram;
  private readonly n: number;
  private readonly hop: number;
  private readonly vps: number;
  private readonly averaging: boolean;
  private readonly peakHold: boolean;
  private bufStart = 0; // absolute sample of the first kept sample
  private buffered = 0; // samples kept on the device
  private nextFrame = 0;
  private disposed = false;

  constructor(
    private readonly backend: CudaBackend,
    config: SpectrogramConfig,
  ) {
    validateSpectrogramConfig(config);
    this.n = config.fft;
    this.hop = config.hop;
    this.vps = config.complex ? 2 : 1;
    this.bins = config.complex ? this.n : Math.floor(this.n / 2) + 1;
    this.width = config.columns ?? this.bins;
    this.averaging = config.averaging !== undefined;
    this.peakHold = config.peakHold === true;
    // Levels as the CPU backend: |X|²/(Σw)² (complex; real DC and Nyquist), ×4 for the other real bins.
    let sum = 0;
    for (const w of config.window) sum += w;
    const edge = 1 / (sum * sum);
    this.native = new backend.addon.Spectrogram(backend.ctx, {
      n: this.n,
      hop: this.hop,
      complex: config.complex,
      window: Float32Array.from(config.window),
      columns: this.width === this.bins ? 0 : this.width,
      averaging: config.averaging ?? 0,
      peakHold: this.peakHold,
      floorDb: config.floorDb ?? -300,
      norm: config.complex ? edge : 4 * edge,
      normEdge: edge,
    });
  }

  async push(samples: ProcessorInput): Promise<SpectrogramRows> {
    if (this.disposed) throw new InvalidArgumentError('spectrogram: used after dispose()');
    this.backend.alive();
    const input = this.backend.nativeInput(samples, 'spectrogram input');
    const values = Backend.inputLength(samples);
    if (values % this.vps !== 0) {
      throw new InvalidArgumentError(
        `spectrogram: complex input must hold interleaved I/Q pairs (an even number of values, got ${values})`,
      );
    }
    const { n, hop, vps } = this;
    const fresh = values / vps;
    const firstNeeded = this.nextFrame * hop;
    const end = this.bufStart + this.buffered + fresh;
    // with hop > fft some samples belong to no frame: skip them on the way in
    let skip = 0;
    if (this.buffered === 0 && this.bufStart < firstNeeded) {
      skip = Math.min(fresh, firstNeeded - this.bufStart);
      this.bufStart += skip;
    }
    const total = this.buffered + fresh - skip; // samples of (kept ++ input after skip), from bufStart
    let count = 0;
    if (end >= firstNeeded + n) count = Math.floor((end - n) / hop) - this.nextFrame + 1;
    const firstFrame = this.nextFrame;
    this.nextFrame += count;
    const keepFrom = Math.min(total, Math.max(0, this.nextFrame * hop - this.bufStart));
    this.bufStart += keepFrom;
    this.buffered = total - keepFrom;
    const rows = new Float32Array(count * this.width);
    const average = this.averaging ? new Float32Array(this.width) : null;
    const peak = this.peakHold ? new Float32Array(this.width) : null;
    await this.backend.call(() =>
      this.native.push(
        input.data,
        input.offset,
        input.scale,
        skip * vps,
        count,
        keepFrom * vps,
        rows,
        average,
        peak,
      ),
    );
    const out: SpectrogramRows = { rows, count, width: this.width, firstFrame };
    if (average) out.average = average;
    if (peak) out.peak = peak;
    return out;
  }

  reset(): void {
    this.bufStart = 0;
    this.buffered = 0;
    this.nextFrame = 0;
    if (!this.disposed) this.native.reset().catch(ignore);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.dispose().catch(ignore);
  }
}

// ---------------------------------------------------------------------------------------------------

export class CudaFir implements FirFilter {
  readonly numtaps: number;
  readonly method: 'direct' | 'overlap-save';
  /** Overlap-save: outputs per segment (segments are aligned to absolute frames). */
  readonly segment: number;
  private readonly lanes: number;
  private readonly native: NativeFir;
  private pushed = 0;
  private produced = 0;
  private disposed = false;

  constructor(
    private readonly backend: CudaBackend,
    config: FirConfig,
  ) {
    validateFirConfig(config);
    const method = config.method ?? 'auto';
    this.numtaps = config.taps.length;
    this.lanes = config.channels * (config.complex ? 2 : 1);
    this.method =
      method === 'auto' ? (this.numtaps <= CUDA_FIR_DIRECT_MAX_TAPS ? 'direct' : 'overlap-save') : method;
    let size = 0;
    this.segment = 0;
    if (this.method === 'overlap-save') {
      const plan = backend.ctx.osPlan(this.numtaps, !config.complex, false);
      size = plan.size;
      this.segment = plan.segment;
    }
    this.native = new backend.addon.Fir(backend.ctx, {
      taps: Float64Array.from(config.taps),
      lanes: this.lanes,
      complex: config.complex,
      overlapSave: this.method === 'overlap-save',
      size,
    });
  }

  get pending(): number {
    return this.pushed - this.produced;
  }

  async process(input: ProcessorInput): Promise<Float32Array> {
    if (this.disposed) throw new InvalidArgumentError('fir: used after dispose()');
    this.backend.alive();
    const x = this.backend.nativeInput(input, 'fir input');
    const values = Backend.inputLength(input);
    if (values % this.lanes !== 0) {
      throw new InvalidArgumentError(
        `fir: input length ${values} is not a whole number of frames of ${this.lanes} values`,
      );
    }
    this.pushed += values / this.lanes;
    const waiting = this.pushed - this.produced;
    const ready = this.method === 'direct' ? waiting : Math.floor(waiting / this.segment) * this.segment;
    return this.run(x.data, x.offset, x.scale, ready);
  }

  async flush(): Promise<Float32Array> {
    if (this.disposed) throw new InvalidArgumentError('fir: used after dispose()');
    this.backend.alive();
    const rest = this.pushed - this.produced;
    const out = this.run(EMPTY, 0, 1, rest);
    this.reset();
    return out;
  }

  private async run(
    data: Float32Array | object,
    offset: number,
    scale: number,
    frames: number,
  ): Promise<Float32Array> {
    this.produced += frames;
    const out = new Float32Array(frames * this.lanes);
    await this.backend.call(() => this.native.process(data as Float32Array, offset, scale, frames, out));
    return out;
  }

  reset(): void {
    this.pushed = 0;
    this.produced = 0;
    if (!this.disposed) this.native.reset().catch(ignore);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.dispose().catch(ignore);
  }
}

// ---------------------------------------------------------------------------------------------------

export class CudaCorrelator implements Correlator {
  readonly templateLength: number;
  /** Lags per overlap-save segment (0: direct correlation, every complete lag is returned). */
  readonly segment: number;
  private readonly vps: number;
  private readonly native: NativeCorrelator;
  private readonly wantScores: boolean;
  private readonly peakCount: number;
  private readonly peakRadius: number;
  private pushed = 0;
  private nextLag = 0;
  private disposed = false;

  constructor(
    private readonly backend: CudaBackend,
    config: CorrelatorConfig,
  ) {
    validateCorrelatorConfig(config);
    this.vps = config.complex ? 2 : 1;
    this.templateLength = config.template.length / this.vps;
    this.wantScores = config.scores === true;
    this.peakCount = config.peaks ?? 0;
    this.peakRadius = config.peakRadius ?? Math.floor(this.templateLength / 2);
    const plan = backend.ctx.osPlan(this.templateLength, !config.complex, true);
    this.segment = plan.direct ? 0 : plan.segment;
    this.native = new backend.addon.Correlator(backend.ctx, {
      template: Float32Array.from(config.template),
      complex: config.complex,
      size: plan.direct ? 0 : plan.size,
    });
  }

  async process(input: ProcessorInput): Promise<CorrelationChunk> {
    if (this.disposed) throw new InvalidArgumentError('correlate: used after dispose()');
    this.backend.alive();
    const x = this.backend.nativeInput(input, 'correlate input');
    const values = Backend.inputLength(input);
    if (values % this.vps !== 0) {
      throw new InvalidArgumentError(
        `correlate: complex input must hold interleaved I/Q pairs (an even number of values, got ${values})`,
      );
    }
    this.pushed += values / this.vps;
    const complete = Math.max(0, this.pushed - this.templateLength + 1 - this.nextLag);
    const ready = this.segment === 0 ? complete : Math.floor(complete / this.segment) * this.segment;
    return this.compute(x.data, x.offset, x.scale, ready);
  }

  async flush(): Promise<CorrelationChunk> {
    if (this.disposed) throw new InvalidArgumentError('correlate: used after dispose()');
    this.backend.alive();
    const rest = Math.max(0, this.pushed - this.templateLength + 1 - this.nextLag);
    const chunk = this.compute(EMPTY, 0, 1, rest);
    this.reset();
    return chunk;
  }

  private async compute(
    data: object,
    offset: number,
    scale: number,
    lags: number,
  ): Promise<CorrelationChunk> {
    const startLag = this.nextLag;
    this.nextLag += lags;
    const scores = this.wantScores ? new Float32Array(lags) : null;
    const res = await this.backend.call(() =>
      this.native.process(
        data as Float32Array,
        offset,
        scale,
        lags,
        scores,
        lags > 0 ? this.peakCount : 0,
        this.peakRadius,
      ),
    );
    const peaks: CorrelationPeak[] = [];
    for (let i = 0; i < res.lags.length; i++)
      peaks.push({ lag: startLag + res.lags[i], score: res.scores[i] });
    const chunk: CorrelationChunk = { startLag, count: lags, peaks };
    if (scores) chunk.scores = scores;
    return chunk;
  }

  reset(): void {
    this.pushed = 0;
    this.nextLag = 0;
    if (!this.disposed) this.native.reset().catch(ignore);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.dispose().catch(ignore);
  }
}

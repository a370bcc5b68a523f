// Streaming normalized cross-correlation of the CUDA backend: the lag cursor of ../stream.ts on the
// JavaScript thread decides which lags a block completes; the kept samples, the template spectrum and the
// peak search stay on the device.

import { validateCorrelatorConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type {
  CorrelationChunk,
  CorrelationPeak,
  Correlator,
  CorrelatorConfig,
  ProcessorInput,
} from '../backend.js';
import { LagCursor, channelSamples, inputLength } from '../stream.js';
import type { NativeCorrelator } from './addon.js';
import { type CudaDevice, ignore } from './device.js';

const EMPTY = new Float32Array(0);

export class CudaCorrelator implements Correlator {
  readonly templateLength: number;
  /** Lags per overlap-save segment (0: direct correlation, every complete lag is returned). */
  readonly segment: number;
  private readonly complex: boolean;
  private readonly native: NativeCorrelator;
  private readonly cursor: LagCursor;
  private readonly wantScores: boolean;
  private readonly peakCount: number;
  private readonly peakRadius: number;
  private disposed = false;

  constructor(
    private readonly device: CudaDevice,
    config: CorrelatorConfig,
  ) {
    validateCorrelatorConfig(config);
    this.complex = config.complex;
    this.templateLength = config.template.length / (config.complex ? 2 : 1);
    this.wantScores = config.scores === true;
    this.peakCount = config.peaks ?? 0;
    this.peakRadius = config.peakRadius ?? Math.floor(this.templateLength / 2);
    const plan = device.ctx.osPlan(this.templateLength, !config.complex, true);
    this.segment = plan.direct ? 0 : plan.segment;
    this.cursor = new LagCursor(this.templateLength, this.segment);
    this.native = new device.addon.Correlator(device.ctx, {
      template: Float32Array.from(config.template),
      complex: config.complex,
      size: plan.direct ? 0 : plan.size,
    });
  }

  async process(input: ProcessorInput): Promise<CorrelationChunk> {
    if (this.disposed) throw new InvalidArgumentError('correlate: used after dispose()');
    this.device.alive();
    const x = this.device.nativeInput(input, 'correlate input');
    const samples = channelSamples('correlate', inputLength(input), this.complex);
    return this.compute(x.data, x.offset, x.scale, this.cursor.push(samples));
  }

  async flush(): Promise<CorrelationChunk> {
    if (this.disposed) throw new InvalidArgumentError('correlate: used after dispose()');
    this.device.alive();
    const chunk = this.compute(EMPTY, 0, 1, this.cursor.flush());
    this.reset();
    return chunk;
  }

  private async compute(
    data: object,
    offset: number,
    scale: number,
    lags: number,
  ): Promise<CorrelationChunk> {
    const startLag = this.cursor.take(lags);
    const scores = this.wantScores ? new Float32Array(lags) : null;
    const res = await this.device.call(() =>
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
    this.cursor.reset();
    if (!this.disposed) this.native.reset().catch(ignore);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.dispose().catch(ignore);
  }
}

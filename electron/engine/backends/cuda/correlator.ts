// Streaming normalized cross-correlation of the CUDA backend: the lag cursor of ../stream.ts on the
// JavaScript thread decides which lags a block completes; the kept samples, the template spectrum and the
// peak search stay on the device.

import { validateCorrelatorConfig } from '../validate.js';
import type {
  CorrelationChunk,
  CorrelationPeak,
  Correlator,
  CorrelatorConfig,
  ProcessorInput,
} from '../backend.js';
import { LagCursor, channelSamples, correlatorSettings } from '../stream.js';
import type { NativeCorrelator } from './addon.js';
import { type CudaDevice, CudaProcessor } from './device.js';

const EMPTY = new Float32Array(0);

export class CudaCorrelator extends CudaProcessor implements Correlator {
  readonly templateLength: number;
  /** Lags per overlap-save segment (0: direct correlation, every complete lag is returned). */
  readonly segment: number;
  protected readonly native: NativeCorrelator;
  private readonly complex: boolean;
  private readonly cursor: LagCursor;
  private readonly wantScores: boolean;
  private readonly peakCount: number;
  private readonly peakRadius: number;

  constructor(device: CudaDevice, config: CorrelatorConfig) {
    super(device, 'correlate');
    validateCorrelatorConfig(config);
    this.complex = config.complex;
    const settings = correlatorSettings(config);
    this.templateLength = settings.templateLength;
    this.wantScores = settings.scores;
    this.peakCount = settings.peaks;
    this.peakRadius = settings.peakRadius;
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
    const x = this.input(input);
    const ready = this.cursor.push(channelSamples('correlate', x.values, this.complex));
    return this.compute(x.data, x.offset, x.scale, ready);
  }

  async flush(): Promise<CorrelationChunk> {
    this.usable();
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
    this.resetNative();
  }
}

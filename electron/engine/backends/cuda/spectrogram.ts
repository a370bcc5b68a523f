// Streaming spectrogram of the CUDA backend: the frame cursor and level normalisation of ../stream.ts on the
// JavaScript thread; the kept samples, averages and peaks on the device. Calls queue in order on the
// backend's worker, so a processor may be pushed again before the previous push resolved.

import { validateSpectrogramConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type { ProcessorInput, SpectrogramConfig, SpectrogramProcessor, SpectrogramRows } from '../backend.js';
import { spectrumBins } from '../../protocol/shape.js';
import { FrameCursor, channelSamples, inputLength, levelNorm } from '../stream.js';
import type { NativeSpectrogram } from './addon.js';
import { type CudaDevice, ignore } from './device.js';

export class CudaSpectrogram implements SpectrogramProcessor {
  readonly bins: number;
  readonly width: number;
  private readonly native: NativeSpectrogram;
  private readonly complex: boolean;
  private readonly averaging: boolean;
  private readonly peakHold: boolean;
  private readonly cursor: FrameCursor;
  private disposed = false;

  constructor(
    private readonly device: CudaDevice,
    config: SpectrogramConfig,
  ) {
    validateSpectrogramConfig(config);
    this.complex = config.complex;
    this.cursor = new FrameCursor(config.fft, config.hop);
    this.bins = spectrumBins(config.fft, config.complex);
    this.width = config.columns ?? this.bins;
    this.averaging = config.averaging !== undefined;
    this.peakHold = config.peakHold === true;
    const { norm, normEdge } = levelNorm(config.window, config.complex);
    this.native = new device.addon.Spectrogram(device.ctx, {
      n: config.fft,
      hop: config.hop,
      complex: config.complex,
      window: Float32Array.from(config.window),
      columns: this.width === this.bins ? 0 : this.width,
      averaging: config.averaging ?? 0,
      peakHold: this.peakHold,
      floorDb: config.floorDb ?? -300,
      norm,
      normEdge,
    });
  }

  async push(samples: ProcessorInput): Promise<SpectrogramRows> {
    if (this.disposed) throw new InvalidArgumentError('spectrogram: used after dispose()');
    this.device.alive();
    const input = this.device.nativeInput(samples, 'spectrogram input');
    const fresh = channelSamples('spectrogram', inputLength(samples), this.complex);
    const vps = this.complex ? 2 : 1;
    const c = this.cursor;
    const count = c.push(fresh);
    const { skip, first, drop } = c;
    const rows = new Float32Array(count * this.width);
    const average = this.averaging ? new Float32Array(this.width) : null;
    const peak = this.peakHold ? new Float32Array(this.width) : null;
    await this.device.call(() =>
      this.native.push(
        input.data,
        input.offset,
        input.scale,
        skip * vps,
        count,
        drop * vps,
        rows,
        average,
        peak,
      ),
    );
    const out: SpectrogramRows = { rows, count, width: this.width, firstFrame: first };
    if (average) out.average = average;
    if (peak) out.peak = peak;
    return out;
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

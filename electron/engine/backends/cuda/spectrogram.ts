// Streaming spectrogram of the CUDA backend: the frame cursor and level normalisation of ../stream.ts on the
// JavaScript thread; the kept samples, averages and peaks on the device. Calls queue in order on the
// backend's worker, so a processor may be pushed again before the previous push resolved.

import { validateSpectrogramConfig } from '../validate.js';
import type { ProcessorInput, SpectrogramConfig, SpectrogramProcessor, SpectrogramRows } from '../backend.js';
import { FrameCursor, channelSamples, levelNorm, outputArray, spectrogramSettings } from '../stream.js';
import type { NativeSpectrogram } from './addon.js';
import { type CudaDevice, CudaProcessor } from './device.js';

export class CudaSpectrogram extends CudaProcessor implements SpectrogramProcessor {
  readonly bins: number;
  readonly width: number;
  protected readonly native: NativeSpectrogram;
  private readonly complex: boolean;
  private readonly averaging: boolean;
  private readonly peakHold: boolean;
  private readonly cursor: FrameCursor;

  constructor(device: CudaDevice, config: SpectrogramConfig) {
    super(device, 'spectrogram');
    validateSpectrogramConfig(config);
    const settings = spectrogramSettings(config);
    this.complex = config.complex;
    this.cursor = new FrameCursor(config.fft, config.hop);
    this.bins = settings.bins;
    this.width = settings.width;
    this.averaging = config.averaging !== undefined;
    this.peakHold = settings.peakHold;
    const { norm, normEdge } = levelNorm(config.window, config.complex);
    this.native = new device.addon.Spectrogram(device.ctx, {
      n: config.fft,
      hop: config.hop,
      complex: config.complex,
      window: Float32Array.from(config.window),
      columns: this.width === this.bins ? 0 : this.width,
      averaging: config.averaging ?? 0,
      peakHold: this.peakHold,
      floorDb: settings.floorDb,
      norm,
      normEdge,
    });
  }

  async push(samples: ProcessorInput, into?: Float32Array): Promise<SpectrogramRows> {
    const x = this.input(samples);
    const count = this.cursor.push(channelSamples('spectrogram', x.values, this.complex));
    const { skip, first, drop } = this.cursor;
    const vps = this.complex ? 2 : 1;
    const rows = outputArray(count * this.width, into);
    const average = this.averaging ? new Float32Array(this.width) : null;
    const peak = this.peakHold ? new Float32Array(this.width) : null;
    await this.device.call(() =>
      this.native.push(x.data, x.offset, x.scale, skip * vps, count, drop * vps, rows, average, peak),
    );
    const out: SpectrogramRows = { rows, count, width: this.width, firstFrame: first };
    if (average) out.average = average;
    if (peak) out.peak = peak;
    return out;
  }

  reset(): void {
    this.cursor.reset();
    this.resetNative();
  }
}

// Streaming FIR filter of the CUDA backend: the FIR cursor of ../stream.ts on the JavaScript thread decides
// which output frames a block makes ready; the kept history and the filter spectrum stay on the device.

import { validateFirConfig } from '../validate.js';
import type { FirConfig, FirFilter, ProcessorInput } from '../backend.js';
import { FirCursor, firFrames, firLanes, firMethod, outputArray } from '../stream.js';
import type { NativeFir } from './addon.js';
import { type CudaDevice, CudaProcessor } from './device.js';

/** 'auto' FIR filters use the direct form up to this many taps: none, since overlap-save measured faster
 * at every length from 1 tap to 256 on the GPU (docs/cuda/NOTES.md); the direct form stays for method
 * 'direct'. */
export const CUDA_FIR_DIRECT_MAX_TAPS = 0;

const EMPTY = new Float32Array(0);

export class CudaFir extends CudaProcessor implements FirFilter {
  readonly numtaps: number;
  readonly method: 'direct' | 'overlap-save';
  /** Overlap-save: outputs per segment (segments are aligned to absolute frames). */
  readonly segment: number;
  protected readonly native: NativeFir;
  private readonly lanes: number;
  private readonly cursor: FirCursor;

  constructor(device: CudaDevice, config: FirConfig) {
    super(device, 'fir');
    validateFirConfig(config);
    this.numtaps = config.taps.length;
    this.lanes = firLanes(config);
    this.method = firMethod(config, CUDA_FIR_DIRECT_MAX_TAPS);
    let size = 0;
    this.segment = 0;
    if (this.method === 'overlap-save') {
      const plan = device.ctx.osPlan(this.numtaps, !config.complex, false);
      size = plan.size;
      this.segment = plan.segment;
    }
    this.cursor = new FirCursor(this.numtaps, this.segment);
    this.native = new device.addon.Fir(device.ctx, {
      taps: Float64Array.from(config.taps),
      lanes: this.lanes,
      complex: config.complex,
      overlapSave: this.method === 'overlap-save',
      size,
    });
  }

  get pending(): number {
    return this.cursor.pending;
  }

  async process(input: ProcessorInput, into?: Float32Array): Promise<Float32Array> {
    const x = this.input(input);
    const ready = this.cursor.push(firFrames(x.values, this.lanes));
    return this.run(x.data, x.offset, x.scale, ready, into);
  }

  async flush(): Promise<Float32Array> {
    this.usable();
    const out = this.run(EMPTY, 0, 1, this.cursor.flush());
    this.reset();
    return out;
  }

  private async run(
    data: Float32Array | object,
    offset: number,
    scale: number,
    frames: number,
    into?: Float32Array,
  ): Promise<Float32Array> {
    this.cursor.produce(frames);
    const out = outputArray(frames * this.lanes, into);
    await this.device.call(() => this.native.process(data as Float32Array, offset, scale, frames, out));
    return out;
  }

  reset(): void {
    this.cursor.reset();
    this.resetNative();
  }
}

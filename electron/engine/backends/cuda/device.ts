// What a CUDA processor needs of its backend, as a narrow interface (the processors depend on this, not on
// the backend class, and backend.ts creates them with itself), and the part the processors share: their
// native object's life cycle and the checks before each call.

import { InvalidArgumentError } from '../../errors.js';
import type { ProcessorInput } from '../backend.js';
import { inputLength } from '../stream.js';
import type { NativeAddon, NativeContext, NativeInput } from './addon.js';

/** A processor input in the addon's form: the data (host array or device buffer) and raw-sample scaling. */
export interface NativeProcessorInput {
  data: NativeInput;
  offset: number;
  scale: number;
}

export interface CudaDevice {
  readonly addon: NativeAddon;
  readonly ctx: NativeContext;
  /** Throws when the backend can no longer be used (failed or disposed). */
  alive(): void;
  /** Runs a native call in order on the device's worker, turning its failure into the engine's typed errors. */
  call<T>(f: () => Promise<T>): Promise<T>;
  /** The native form of an input (validating device arrays and raw samples). */
  nativeInput(input: ProcessorInput, what: string): NativeProcessorInput;
}

const ignore = (): undefined => undefined;

/** The base of the CUDA processors: the stream's state on the device lives in `native`. */
export abstract class CudaProcessor {
  protected disposed = false;
  protected abstract readonly native: { reset(): Promise<void>; dispose(): Promise<void> };

  constructor(
    protected readonly device: CudaDevice,
    /** How errors name the processor: 'spectrogram', 'fir' or 'correlate'. */
    private readonly what: string,
  ) {}

  /** Throws unless this processor and its device can be used. */
  protected usable(): void {
    if (this.disposed) throw new InvalidArgumentError(`${this.what}: used after dispose()`);
    this.device.alive();
  }

  /** After usable(): the input in native form, with its length in values. */
  protected input(input: ProcessorInput): NativeProcessorInput & { values: number } {
    this.usable();
    const x = this.device.nativeInput(input, `${this.what} input`);
    return { data: x.data, offset: x.offset, scale: x.scale, values: inputLength(input) };
  }

  /** Forgets the stream kept on the device (the subclass resets its cursor). */
  protected resetNative(): void {
    if (!this.disposed) this.native.reset().catch(ignore);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.dispose().catch(ignore);
  }
}

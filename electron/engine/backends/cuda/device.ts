// What a CUDA processor needs of its backend, as a narrow interface: the processors (spectrogram.ts, fir.ts,
// correlator.ts) depend on this, not on the backend class, and backend.ts creates them with itself.

import type { ProcessorInput } from '../backend.js';
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

/** Catches the rejection of a fire-and-forget native call (reset, dispose). */
export const ignore = (): undefined => undefined;

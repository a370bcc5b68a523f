// The backend interface: the one seam between the engine and a compute device (CPU, CUDA, WebGPU).
//
// Life cycle, like a plan in FFTW/cuFFT or an object in liquid-dsp: create a backend once, create
// stateful processors from it (spectrogram, FIR, correlator), feed them blocks, reset or dispose them.
// Plans, device buffers and filter spectra are cached by the backend; hot calls allocate nothing there.
//
// Conventions (NumPy / SciPy):
// - Complex data is interleaved float32 I/Q. A batch is the input length divided by the transform size.
// - fft is unscaled; inverse fft is scaled by 1/N (numpy.fft.ifft).
// - rfft of N real values gives floor(N/2)+1 complex bins (numpy.fft.rfft); irfft inverts it (1/N scaled).
// - Levels are dBFS per AES17: a full-scale real sine, or a unit complex exponential, reads 0 dB at its bin.
//
// Data may stay on the device between steps: every input accepts a DeviceArray made by upload(), and
// processors keep their state (overlap, filter spectrum, averages) wherever the backend computes.
// Raw integer samples (u8, i8, i16 with offset/scale, see RawSamples) may be passed unconverted.

import type { RawSamples } from '../types.js';

export type BackendName = 'cpu' | 'cuda' | 'webgpu';

/** Data resident where the backend computes (device memory for a GPU, a typed array for the CPU). */
export interface DeviceArray {
  /** The backend that owns the memory; passing it to another backend is an error. */
  readonly owner: Backend;
  /** Length in float32 values. */
  readonly length: number;
  /** Copies the values back to host memory. */
  download(out?: Float32Array): Promise<Float32Array>;
  /** Frees the memory; the array must not be used afterwards. */
  free(): void;
}

export type ArrayInput = Float32Array | DeviceArray;

export interface TransformOptions {
  /** Write the result here (host memory) instead of allocating. Must have the exact output length. */
  out?: Float32Array;
}

export interface BackendDescription {
  readonly name: BackendName;
  /** A person-readable device name, e.g. "NVIDIA H200 (driver 580.159, 139 GiB)" or "CPU: 16 threads". */
  readonly device: string;
  /** Free-form facts worth showing in the benchmark view (memory, driver, copy bandwidth…). */
  readonly details?: Record<string, string | number>;
}

export interface Backend extends BackendDescription {
  /** Copies host data to the device. */
  upload(data: Float32Array): Promise<DeviceArray>;

  /** Batched complex FFT of size n (any n ≥ 1): input holds batch × n interleaved complex values. */
  fft(
    input: ArrayInput,
    n: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array>;

  /** Batched real-input FFT: batch × n reals in, batch × (floor(n/2)+1) complex bins out. */
  rfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array>;

  /** Inverse of rfft: batch × (floor(n/2)+1) complex bins in, batch × n reals out (scaled by 1/n). */
  irfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array>;

  /** A streaming spectrogram: frames of the samples pushed, windowed, transformed, in dB. */
  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor;

  /** A streaming FIR filter (lfilter semantics) whose state carries across blocks. */
  createFir(config: FirConfig): FirFilter;

  /** A streaming normalized cross-correlation against a template. */
  createCorrelator(config: CorrelatorConfig): Correlator;

  /** Host memory this backend moves to and from its device fastest, for a job's reused blocks (read
   * buffers, processor outputs): page-locked on CUDA, so its DMA reads and writes them in place. Backends
   * without such memory leave it out (stages.ts hostBlocks() then gives plain buffers). */
  hostBlocks?(count: number, bytes: number): Promise<HostBlocks>;

  /** Frees every plan, buffer and worker. The backend must not be used afterwards. */
  dispose(): Promise<void>;
}

/** Reused host buffers of a job (Backend.hostBlocks). */
export interface HostBlocks {
  readonly buffers: readonly ArrayBuffer[];
  /** Gives them back once no call that uses them is pending; they must not be used afterwards. */
  release(): Promise<void>;
}

/** Whether a backend can run here, and why not. */
export type Availability =
  | {
      available: true;
      device: string;
      details?: Record<string, string | number>;
      /** Why `auto` passes this backend over although it runs (a software GPU); asked for by name, it runs. */
      autoSkip?: string;
    }
  | { available: false; reason: string };

/** How a backend is found and made: the registry lists these, the failover walks a chain of them. */
export interface BackendProvider {
  readonly name: BackendName;
  /** Cheap check whether the backend can run here; never throws. */
  probe(): Promise<Availability>;
  create(): Promise<Backend>;
}

/** What processors accept: floats on the host, data already on the device, or raw integers. */
export type ProcessorInput = ArrayInput | RawSamples;

// ---------------------------------------------------------------------------------------------------
// Spectrogram

export interface SpectrogramConfig {
  /** Frame (FFT) length, any n ≥ 1. */
  fft: number;
  /** Samples between frame starts, ≥ 1 (fft × (1 − overlap)). */
  hop: number;
  /** Window of length fft (see dsp/windows). Levels are |X[k]|²/(Σw)², with the amplitude doubled (×4 in
   * power) for a real input's bins other than DC and Nyquist, so a full-scale sine reads 0 dBFS. */
  window: Float32Array;
  /** Input is interleaved complex (one channel). Real input gives floor(fft/2)+1 bins from DC up; complex
   * input gives fft bins in ascending frequency from −fs/2 (numpy.fft.fftshift order). */
  complex: boolean;
  /** Reduce the bins to this many display columns (each the max of its bins). Must be ≤ bins. */
  columns?: number;
  /** Exponential average weight of each new frame, in (0, 1]; when set, `average` is reported. */
  averaging?: number;
  /** Report the peak-hold trace (the maximum of every frame since reset). */
  peakHold?: boolean;
  /** Lowest level reported (dB), so silence gives a finite number. Default −300. */
  floorDb?: number;
}

export interface SpectrogramRows {
  /** count × width levels in dBFS, one row per frame, oldest first. */
  rows: Float32Array;
  count: number;
  /** Bins per row, or display columns when reduced. */
  width: number;
  /** Index of this push's first frame since creation or reset (frame i starts at sample i × hop). */
  firstFrame: number;
  /** Exponential average (dB) after this push, when averaging is configured. */
  average?: Float32Array;
  /** Peak hold (dB) after this push, when peakHold is configured. */
  peak?: Float32Array;
}

export interface SpectrogramProcessor {
  /** Bins per frame before reduction. */
  readonly bins: number;
  /** Values per output row (columns when reduced, else bins). */
  readonly width: number;
  /** Pushes samples (one channel); returns the rows of every frame completed by them. Samples of an
   * incomplete frame are kept for the next push. `into`: where the rows may be written (a buffer the
   * caller reuses, see Backend.hostBlocks); when it is large enough, `rows` is a view of it, else (or on
   * a backend that does not use it) a new array. */
  push(samples: ProcessorInput, into?: Float32Array): Promise<SpectrogramRows>;
  /** Forgets buffered samples, averages and peaks. */
  reset(): void;
  dispose(): void;
}

// ---------------------------------------------------------------------------------------------------
// FIR filtering

export interface FirConfig {
  /** Real filter taps (≥ 1), e.g. from dsp/firwin. */
  taps: Float32Array | Float64Array;
  /** Input is interleaved complex; real taps apply to I and Q alike. */
  complex: boolean;
  /** Interleaved channels per frame; each is filtered on its own. */
  channels: number;
  /** Direct form or overlap-save; 'auto' lets the backend pick by its measured switch point. */
  method?: 'auto' | 'direct' | 'overlap-save';
}

export interface FirFilter {
  readonly numtaps: number;
  /** The method in use after 'auto' was resolved. */
  readonly method: 'direct' | 'overlap-save';
  /** Pushes the next block and returns the filtered frames completed so far, in order: together, the
   * outputs of every process() and the final flush() equal scipy.signal.lfilter(taps, 1, x) over the
   * concatenation of every block since reset, bit for bit whatever the block sizes. Direct form returns
   * every frame pushed; overlap-save may hold back up to one segment until it is complete. `into`: where
   * the output may be written, as for SpectrogramProcessor.push. */
  process(input: ProcessorInput, into?: Float32Array): Promise<Float32Array>;
  /** Ends the stream: returns the frames still held back (as if the input ended here), then resets. */
  flush(): Promise<Float32Array>;
  /** Frames pushed but not yet returned. */
  readonly pending: number;
  /** Zero state, as if just created. */
  reset(): void;
  dispose(): void;
}

// ---------------------------------------------------------------------------------------------------
// Correlation

export interface CorrelatorConfig {
  /** The template (real, or interleaved complex when `complex`). */
  template: Float32Array;
  complex: boolean;
  /** Return every score of every chunk (memory grows with the signal: use for plots of short signals). */
  scores?: boolean;
  /** Return this many candidate peaks per chunk (the strongest local maxima); default 0. */
  peaks?: number;
  /** Two peaks closer than this many lags are not distinct; default half the template length. */
  peakRadius?: number;
}

export interface CorrelationPeak {
  /** Index in the signal where the template starts (scipy.signal.correlate mode="valid"). */
  lag: number;
  /** |Σ x[lag+k]·conj(t[k])| / (‖t‖·‖x[lag:lag+M]‖), in [0, 1]; 0 where either energy is zero. */
  score: number;
}

export interface CorrelationChunk {
  /** First lag whose score this chunk completed. */
  startLag: number;
  /** Lags completed by this chunk. */
  count: number;
  /** Scores of lags startLag … startLag+count−1 (when `scores` is configured). */
  scores?: Float32Array;
  /** The strongest local maxima among these lags, best first (when `peaks` is configured). */
  peaks: CorrelationPeak[];
}

export interface Correlator {
  readonly templateLength: number;
  /** Input bytes a push should carry where each push has a large fixed cost (a whole-file job reads
   * blocks of at least this); absent where any size does. */
  readonly pushBytes?: number;
  /** Pushes the next samples of the signal (one channel); returns lags completed so far, in order. A lag is
   * complete once its whole window has arrived; a backend may hold complete lags back until its segment is
   * full. Results are identical whatever the block sizes. */
  process(input: ProcessorInput): Promise<CorrelationChunk>;
  /** Ends the signal: returns every remaining complete lag (those ≤ length − template length), then resets. */
  flush(): Promise<CorrelationChunk>;
  reset(): void;
  dispose(): void;
}

// ---------------------------------------------------------------------------------------------------
// Device timing (benchmarks only)

/** One measurement a GPU backend times itself, with its data already on the device (CUDA events). */
export interface DeviceBenchResult {
  op: string;
  /** Which implementation ran: the backend's own kernels, or the vendor reference (e.g. 'cufft'). */
  impl: string;
  n: number;
  batch: number;
  /** False when the reference is missing here (e.g. no libcufft); `reason` says why. */
  available: boolean;
  reason?: string;
  /** Median kernel time with the data on the device. */
  kernelMs: number;
  /** The same from host memory (pinned) and back. */
  endToEndMs: number;
  samplesPerSecond: number;
  /** Bytes the operation must move through device memory (each input read once, each output written once). */
  bytes: number;
  relError: number;
}

/** A backend that can time its kernels on the device and offer a vendor reference beside them. */
export interface DeviceTimer {
  benchmark(
    op: string,
    n: number,
    batch: number,
    reference?: boolean,
    options?: { reps?: number; endToEnd?: boolean },
  ): Promise<DeviceBenchResult>;
}

export function hasDeviceTimer(b: Backend): b is Backend & DeviceTimer {
  return typeof (b as Partial<DeviceTimer>).benchmark === 'function';
}

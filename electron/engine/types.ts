// Sample data as it moves through the engine: typed arrays in blocks, never per-sample objects.

/** What a stream carries. Complex samples are interleaved I/Q pairs; channels are interleaved per frame. */
export interface StreamFormat {
  /** Frames per second (Hz), > 0. */
  readonly sampleRate: number;
  /** True for complex (I/Q) samples. */
  readonly complex: boolean;
  /** Channels per frame, ≥ 1. A complex channel counts once (its I and Q are two floats). */
  readonly channels: number;
  /** Centre frequency (Hz) of complex baseband samples, when known. */
  readonly centerFrequency?: number;
}

/** Floats per frame: channels × (2 if complex else 1). */
export function valuesPerFrame(format: Pick<StreamFormat, 'complex' | 'channels'>): number {
  return format.channels * (format.complex ? 2 : 1);
}

/**
 * Integer samples passed undecoded, so a GPU backend can convert them itself (an rtl_sdr stream crosses
 * PCIe at a quarter of its float size). Each value decodes as `(raw - offset) * scale`.
 */
export interface RawSamples {
  readonly data: Uint8Array | Int8Array | Int16Array;
  readonly offset: number;
  readonly scale: number;
}

/** Samples handed to a backend: decoded floats, or raw integers it converts itself. */
export type SamplesInput = Float32Array | RawSamples;

export function isRawSamples(x: unknown): x is RawSamples {
  return (
    typeof x === 'object' &&
    x !== null &&
    !ArrayBuffer.isView(x) &&
    ArrayBuffer.isView((x as RawSamples).data) &&
    typeof (x as RawSamples).scale === 'number'
  );
}

/** Decodes samples to float32 (returns the input itself when it already is). */
export function toFloat32(input: SamplesInput, out?: Float32Array): Float32Array {
  if (input instanceof Float32Array) return input;
  const { data, offset, scale } = input;
  const dst = out ?? new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) dst[i] = (data[i] - offset) * scale;
  return dst;
}

/** A block of consecutive frames from a stream. */
export interface SampleBlock {
  readonly format: StreamFormat;
  /** Index (in frames) of the block's first frame within the stream. */
  readonly start: number;
  /** Frames in this block. */
  readonly frames: number;
  /** frames × valuesPerFrame(format) values: floats, or raw integers when the reader was asked for them. */
  readonly data: SamplesInput;
}

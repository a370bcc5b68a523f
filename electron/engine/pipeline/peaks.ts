// The strongest spectral peaks of a file: Welch-averaged spectrum, then interpolated peaks.

import type { Backend } from '../backends/backend.js';
import { findPeaks, welch } from '../dsp/index.js';
import { InvalidArgumentError } from '../errors.js';
import type { SampleSource } from '../sources/source.js';
import { DEFAULT_WINDOW, SPECTRUM_FFT_SIZE_MAX, WELCH_FFT_SIZE_MIN } from '../protocol/shape.js';
import { valuesPerFrame } from '../types.js';
import { BLOCK_BYTES_BUDGET, fileReads } from './stages.js';

export interface PeaksOptions {
  /** Segment length, any n ≥ 8. Default: see defaultPeaksFft. */
  fft?: number;
  window?: string;
  count?: number;
  signal?: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
}

export interface SpectralPeak {
  /** Hz; absolute (centre + offset) for I/Q with a known centre frequency. */
  frequency: number;
  /** dBFS (a full-scale sine reads 0). */
  level: number;
}

/** The smallest power of two with bins narrower than 1 Hz, limited to what the file holds (≥ 8) and to
 * segments of `frameValues` values a frame within BLOCK_BYTES_BUDGET. */
export function defaultPeaksFft(sampleRate: number, samples: number | undefined, frameValues = 1): number {
  let n = WELCH_FFT_SIZE_MIN;
  while (n < sampleRate && n < SPECTRUM_FFT_SIZE_MAX) n *= 2;
  if (samples !== undefined) {
    while (n > WELCH_FFT_SIZE_MIN && n > samples) n /= 2;
  }
  while (n > WELCH_FFT_SIZE_MIN && n * frameValues * 4 > BLOCK_BYTES_BUDGET) n /= 2;
  return n;
}

export async function analyzePeaks(
  backend: Backend,
  source: SampleSource,
  options: PeaksOptions = {},
): Promise<{ peaks: SpectralPeak[]; fft: number; segments: number; binWidth: number }> {
  const { info } = source;
  const frameValues = valuesPerFrame(info);
  const fft = options.fft ?? defaultPeaksFft(info.sampleRate, info.samples, frameValues);
  if (!Number.isInteger(fft) || fft < WELCH_FFT_SIZE_MIN)
    throw new InvalidArgumentError(`--fft must be a whole number ≥ ${WELCH_FFT_SIZE_MIN}, got ${fft}`);
  // a segment holds fft frames of every channel
  const most = Math.floor(BLOCK_BYTES_BUDGET / (4 * frameValues));
  if (fft > most) {
    throw new InvalidArgumentError(
      `--fft ${fft} makes segments of ${fft} × ${frameValues} values, over the ${BLOCK_BYTES_BUDGET >> 20} MiB budget of a step; use --fft ${most} or less`,
    );
  }
  const count = options.count ?? 5;
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError(`--count must be a whole number ≥ 1, got ${count}`);
  let done = 0;
  const blocks = (async function* () {
    // welch() may keep views of a block's samples: fresh buffers, no reuse.
    for await (const b of source.blocks({
      ...fileReads(info, undefined, false),
      signal: options.signal,
      raw: true,
    })) {
      done += b.frames;
      options.onProgress?.(done, info.samples);
      yield b;
    }
  })();
  const spectrum = await welch(backend, blocks, {
    nperseg: fft,
    window: options.window ?? DEFAULT_WINDOW,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const peaks = findPeaks(spectrum, { count }).map((p) => ({ frequency: p.frequency, level: p.level }));
  return { peaks, fft, segments: spectrum.segments, binWidth: spectrum.binWidth };
}

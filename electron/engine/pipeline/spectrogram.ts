// Spectrogram of a file or stream through the backend's spectrogram processor: rows as they complete,
// and a whole-file image reduced to a given size (max over the frames and bins each pixel covers).

import type { Backend, HostBlocks, SpectrogramRows } from '../backends/backend.js';
import { getWindow } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import type { SampleSource } from '../sources/source.js';
import type { LevelImage } from '../output/image.js';
import {
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
  frameColumns,
  frameCount,
  hopFromOverlap,
  spectrumBins,
} from '../protocol/shape.js';
import { channelOf, checkChannel } from './channels.js';
import { fileBlockFrames, fileReadBlocks, fileReads, hostBlocks, inTurn } from './stages.js';

export interface SpectrogramOptions {
  /** Frame length, any n ≥ 1. */
  fft: number;
  /** Fraction of a frame shared with the next one, in [0, 1). Default 0.75. Ignored when hop is given. */
  overlap?: number;
  hop?: number;
  /** Window spec, e.g. 'hann', 'kaiser:8.6'. Default 'hann'. */
  window?: string;
  channel?: number;
  /** Reduce bins to this many columns on the backend (max). */
  columns?: number;
  blockFrames?: number;
  /** Rows are computed into two reused buffers (page-locked on CUDA) instead of a new array a block: a
   * yielded block stays valid while the next one is computed, and is overwritten by the one after. */
  reuseRows?: boolean;
  signal?: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
}

/** The hop for an overlap given by a user (checked to lie in [0, 1)). */
export function hopFor(fft: number, overlap = DEFAULT_OVERLAP): number {
  if (!(overlap >= 0 && overlap < 1)) {
    throw new InvalidArgumentError(`--overlap must be at least 0 and below 1, got ${overlap}`);
  }
  return hopFromOverlap(fft, overlap);
}

export function checkFftSize(n: number, min = 1): void {
  if (!Number.isInteger(n) || n < min) {
    throw new InvalidArgumentError(`--fft must be a whole number ≥ ${min}, got ${n}`);
  }
}

/** Yields the spectrogram rows of one channel of a source, in order, as the backend completes them. */
export async function* spectrogramRows(
  backend: Backend,
  source: SampleSource,
  options: SpectrogramOptions,
): AsyncGenerator<SpectrogramRows> {
  const { info } = source;
  const fft = options.fft;
  checkFftSize(fft);
  const hop = options.hop ?? hopFor(fft, options.overlap);
  const channel = options.channel ?? 0;
  checkChannel(channel, info, info.path);
  const window = Float32Array.from(getWindow(options.window ?? DEFAULT_WINDOW, fft));
  const processor = backend.createSpectrogram({
    fft,
    hop,
    window,
    complex: info.complex,
    ...(options.columns !== undefined ? { columns: options.columns } : {}),
  });
  let done = 0;
  const blockFrames = options.blockFrames ?? fileBlockFrames(info);
  let reads: HostBlocks | undefined;
  let rowBuffers: HostBlocks | undefined;
  try {
    // the reader's ring and the rows' buffers, in memory the backend moves fastest (page-locked on CUDA)
    reads = await fileReadBlocks(backend, info, blockFrames);
    let into: (() => Float32Array) | undefined;
    if (options.reuseRows) {
      // a block completes at most the frames its samples and the pending ones (< fft) reach
      const frames = Math.min(blockFrames, info.samples ?? Infinity);
      const maxRows = Math.floor((frames + fft) / hop) + 1;
      rowBuffers = await hostBlocks(backend, 2, maxRows * processor.width * 4);
      into = inTurn(rowBuffers);
    }
    for await (const block of source.blocks({
      ...fileReads(info, blockFrames, true, reads),
      raw: info.channels === 1,
      signal: options.signal,
    })) {
      const rows = await processor.push(channelOf(block.data, info, channel), into?.());
      done += block.frames;
      options.onProgress?.(done, info.samples);
      if (rows.count > 0) yield rows;
    }
    throwIfAborted(options.signal);
  } finally {
    processor.dispose();
    await Promise.all([reads?.release(), rowBuffers?.release()]);
  }
}

export interface ImageOptions extends SpectrogramOptions {
  /** Image width in pixels (time axis). Default min(frames, 1600). */
  width?: number;
  /** Image height in pixels (frequency axis, low frequencies at the bottom). Default min(bins, 800). */
  height?: number;
}

export const MAX_IMAGE_SIDE = 16384;

/**
 * The whole spectrogram as a level image: time left to right, frequency bottom to top (for complex input
 * from −fs/2 at the bottom to +fs/2 at the top). Each pixel is the maximum of the frames and bins it covers.
 */
export async function spectrogramImage(
  backend: Backend,
  source: SampleSource,
  options: ImageOptions,
): Promise<LevelImage & { frames: number; bins: number; hop: number }> {
  const { info } = source;
  checkFftSize(options.fft);
  const hop = options.hop ?? hopFor(options.fft, options.overlap);
  if (info.samples === undefined)
    throw new InvalidArgumentError('a spectrogram image needs a source of known length');
  const frames = frameCount(info.samples, options.fft, hop);
  if (frames === 0) {
    throw new InvalidArgumentError(
      `${info.path ?? 'the input'} holds ${info.samples} samples, fewer than one FFT frame (${options.fft}); use a smaller --fft`,
    );
  }
  const bins = spectrumBins(options.fft, info.complex);
  const width = options.width ?? Math.min(frames, 1600);
  const height = options.height ?? Math.min(bins, 800);
  for (const [name, v] of [
    ['--width', width],
    ['--height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_IMAGE_SIDE) {
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${MAX_IMAGE_SIDE}, got ${v}`);
    }
  }
  const columns = Math.min(height, bins);
  const levels = new Float32Array(width * height).fill(-Infinity);
  // Image row for each display bin (bin 0 = lowest frequency = bottom row).
  const rowSpan = (d: number): [number, number] => {
    if (height <= bins) return [height - 1 - d, height - d];
    const lo = Math.floor((d * height) / columns);
    const hi = Math.floor(((d + 1) * height) / columns);
    return [height - hi, height - lo];
  };
  const spans = Array.from({ length: columns }, (_, d) => rowSpan(d));
  // each block's rows are folded into the image before the next is computed
  for await (const r of spectrogramRows(backend, source, { ...options, hop, columns, reuseRows: true })) {
    for (let i = 0; i < r.count; i++) {
      const f = r.firstFrame + i;
      if (f >= frames) break;
      const [x0, x1] = frameColumns(f, frames, width);
      const row = r.rows.subarray(i * r.width, (i + 1) * r.width);
      for (let d = 0; d < columns; d++) {
        const v = row[d];
        const [y0, y1] = spans[d];
        for (let y = y0; y < y1; y++) {
          const base = y * width;
          for (let x = x0; x < x1; x++) if (v > levels[base + x]) levels[base + x] = v;
        }
      }
    }
  }
  return { levels, width, height, frames, bins, hop };
}

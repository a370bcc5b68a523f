// A region of a recording's spectrogram as an image: a frame range [start, end) and a frequency band
// [fLow, fHigh] reduced to width × height pixels, each the maximum of the frames and bins it covers.
// Samples stream from the file block by block (memory: one block, the processor's frames and the image),
// so a file larger than memory works; every frame of the range is computed, however long it is.
//
//   const img = await spectrogramRegion(backend, source, { width: 1600, height: 800, fLow: 1e3, fHigh: 4e3 });
//   img.levels[y * img.width + x]   // dBFS; row 0 = the highest frequency, column 0 = the range's start
//
// Zooming raises the resolution: without an explicit fft, the frame length is the power of two that gives
// the band at least `height` bins (bounded by the range's length), so a narrower band gets a longer FFT.

import type { Backend } from '../backends/backend.js';
import { getWindow } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import { resolveRange } from '../io/range.js';
import type { SampleSource } from '../sources/source.js';
import type { FileSpectrogramResult } from '../protocol/messages.js';
import type { StreamFormat } from '../types.js';
import { channelOf, checkChannel } from './channels.js';
import {
  binFrequency,
  binWidth,
  DEFAULT_FILE_OVERLAP,
  DEFAULT_WINDOW,
  FFT_SIZE_MIN,
  FILE_FFT_SIZE_MAX,
  frameColumns,
  frameCount,
  spectrumBins,
  streamBand,
} from '../protocol/shape.js';
import { hopFor } from './spectrogram.js';
import { fileBlockFrames, fileReads } from './stages.js';

/** Floor of the image (dBFS): what a pixel holds when every frame it covers is silent. */
export const REGION_FLOOR_DB = -300;

export interface RegionOptions {
  /** First frame of the range. Default 0. */
  start?: number;
  /** One past the last frame. Default: the end of the source. */
  end?: number;
  /** Band shown (Hz, absolute for I/Q with a known centre). Default: everything the stream holds. */
  fLow?: number;
  fHigh?: number;
  /** Frame length; default from the band and the height (see regionFft). */
  fft?: number;
  /** Fraction of a frame shared with the next one, in [0, 1). Default 0.5. */
  overlap?: number;
  /** Window spec ('hann', 'kaiser:8.6'…). Default 'hann'. */
  window?: string;
  width: number;
  height: number;
  channel?: number;
  blockFrames?: number;
  signal?: AbortSignal;
  /** Frames of the range read so far, of the range's length. */
  onProgress?: (framesDone: number, framesTotal: number) => void;
}

/** The file view's image (the protocol's FileSpectrogramResult) with its levels. Frame f covers samples
 * start + f·hop … start + f·hop + fft − 1; column x covers the frames frameColumns gives; row y of the
 * band [fLow, fHigh] = frequencyRange covers fHigh − (y+1)·Δ … fHigh − y·Δ. */
export interface RegionImage extends FileSpectrogramResult {
  /** height × width dBFS levels, row 0 = the highest frequency. */
  levels: Float32Array;
  /** FFT bins whose centre lies inside the band. */
  bandBins: number;
}

/** The frequencies a stream's spectrum spans: [0, fs/2] for real input, centre ± fs/2 for I/Q. */
export function fullBand(format: StreamFormat): [number, number] {
  return streamBand(format.sampleRate, format.complex, format.centerFrequency);
}

/** The band asked for, clamped to the stream's; throws when nothing of it is left. */
export function resolveBand(format: StreamFormat, fLow?: number, fHigh?: number): [number, number] {
  const [lo, hi] = fullBand(format);
  const a = Math.max(lo, fLow ?? lo);
  const b = Math.min(hi, fHigh ?? hi);
  if (!(b > a)) {
    throw new InvalidArgumentError(
      `the band ${fLow ?? lo} … ${fHigh ?? hi} Hz is empty or outside the recording's ${lo} … ${hi} Hz`,
    );
  }
  return [a, b];
}

function pow2Floor(n: number): number {
  return 2 ** Math.floor(Math.log2(n));
}

/**
 * The default frame length: the smallest power of two giving the band at least `height` bins, within
 * [FFT_SIZE_MIN, FILE_FFT_SIZE_MAX], and no longer than the range (the largest power of two that fits).
 */
export function regionFft(bandHz: number, sampleRate: number, height: number, rangeFrames: number): number {
  const want = Math.ceil((height * sampleRate) / bandHz);
  let n = 2 ** Math.ceil(Math.log2(Math.max(FFT_SIZE_MIN, want)));
  n = Math.min(n, FILE_FFT_SIZE_MAX);
  if (n > rangeFrames) n = pow2Floor(Math.max(1, rangeFrames));
  return n;
}

/**
 * For each image row, the FFT bins [k0, k1) whose centre lies inside it (row 0 = the top, including its
 * upper edge); a row narrower than a bin takes the bin nearest its centre.
 */
export function rowBins(
  format: StreamFormat,
  fft: number,
  band: [number, number],
  height: number,
): { k0: Int32Array; k1: Int32Array; bandBins: number } {
  const df = binWidth(format.sampleRate, fft);
  const bins = spectrumBins(fft, format.complex);
  const origin = binFrequency(0, fft, format.sampleRate, format.complex, format.centerFrequency);
  const index = (f: number): number => (f - origin) / df;
  const clamp = (k: number): number => Math.min(bins - 1, Math.max(0, k));
  const [fLow, fHigh] = band;
  const step = (fHigh - fLow) / height;
  const k0 = new Int32Array(height);
  const k1 = new Int32Array(height);
  for (let y = 0; y < height; y++) {
    const a = fHigh - (y + 1) * step;
    const b = fHigh - y * step;
    let lo = Math.max(0, Math.ceil(index(a) - 1e-9));
    let hi = Math.min(bins - 1, y === 0 ? Math.floor(index(b) + 1e-9) : Math.ceil(index(b) - 1e-9) - 1);
    if (lo > hi) lo = hi = clamp(Math.round(index((a + b) / 2)));
    k0[y] = lo;
    k1[y] = hi + 1;
  }
  const first = Math.max(0, Math.ceil(index(fLow) - 1e-9));
  const last = Math.min(bins - 1, Math.floor(index(fHigh) + 1e-9));
  return { k0, k1, bandBins: Math.max(0, last - first + 1) };
}

export async function spectrogramRegion(
  backend: Backend,
  source: SampleSource,
  options: RegionOptions,
): Promise<RegionImage> {
  const { info } = source;
  if (info.samples === undefined) {
    throw new InvalidArgumentError('a spectrogram region needs a source of known length');
  }
  const { width, height } = options;
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1`);
  }
  const channel = options.channel ?? 0;
  checkChannel(channel, info, info.path);
  const { start, end } = resolveRange({ start: options.start ?? 0, end: options.end }, info.samples);
  const length = end - start;
  if (length < FFT_SIZE_MIN) {
    throw new InvalidArgumentError(
      `the range ${start} … ${end} holds ${length} frames: a spectrogram needs at least ${FFT_SIZE_MIN}`,
    );
  }
  const band = resolveBand(info, options.fLow, options.fHigh);
  const fft = options.fft ?? regionFft(band[1] - band[0], info.sampleRate, height, length);
  if (!Number.isInteger(fft) || fft < 1) throw new InvalidArgumentError(`fft must be a whole number ≥ 1`);
  if (fft > length) {
    throw new InvalidArgumentError(
      `fft ${fft} is longer than the range (${length} frames): choose a shorter fft or a longer range`,
    );
  }
  const hop = hopFor(fft, options.overlap ?? DEFAULT_FILE_OVERLAP);
  const frames = frameCount(length, fft, hop);
  const { k0, k1, bandBins } = rowBins(info, fft, band, height);

  const levels = new Float32Array(width * height).fill(REGION_FLOOR_DB);
  const column = new Float32Array(height);
  const processor = backend.createSpectrogram({
    fft,
    hop,
    window: Float32Array.from(getWindow(options.window ?? DEFAULT_WINDOW, fft)),
    complex: info.complex,
  });
  let done = 0;
  try {
    for await (const block of source.blocks({
      start,
      end,
      ...fileReads(info, options.blockFrames ?? Math.max(fileBlockFrames(info), hop)),
      raw: info.channels === 1,
      ...(options.signal ? { signal: options.signal } : {}),
    })) {
      const r = await processor.push(channelOf(block.data, info, channel));
      for (let i = 0; i < r.count; i++) {
        const f = r.firstFrame + i;
        if (f >= frames) break;
        const base = i * r.width;
        for (let y = 0; y < height; y++) {
          let m = -Infinity;
          for (let k = base + k0[y], e = base + k1[y]; k < e; k++) if (r.rows[k] > m) m = r.rows[k];
          column[y] = m;
        }
        const [x0, x1] = frameColumns(f, frames, width);
        for (let y = 0; y < height; y++) {
          const v = column[y];
          const row = y * width;
          for (let x = x0; x < x1; x++) if (v > levels[row + x]) levels[row + x] = v;
        }
      }
      done += block.frames;
      options.onProgress?.(done, length);
    }
    throwIfAborted(options.signal);
  } finally {
    processor.dispose();
  }
  return { levels, width, height, frames, start, end, fft, hop, frequencyRange: band, bandBins };
}

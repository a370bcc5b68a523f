// Welch-averaged power spectrum of a stream of sample blocks (scipy.signal.welch with average='mean',
// no detrending), with levels in the AES17 convention of levels.ts.
//
// Segments are assembled on the host from the blocks: only the tail that the next segment overlaps is
// kept between blocks (at most nperseg−1 frames), so memory is constant whatever the stream length.
// Windowed segments go to the backend in batches (backend.rfft for real input, backend.fft for complex)
// and |X|² is accumulated in float64.

import type { Backend } from '../backends/backend.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import {
  binFrequencies,
  binShift,
  binWidth as binWidthOf,
  DEFAULT_WINDOW,
  spectrumBins,
  WELCH_FFT_SIZE_MIN,
} from '../protocol/shape.js';
import { toFloat32, valuesPerFrame, type SampleBlock, type StreamFormat } from '../types.js';
import { getWindow, type WindowSpec } from './windows.js';

export interface WelchOptions {
  /** Segment (FFT) length, any integer ≥ 8. */
  nperseg: number;
  /** Frames shared by consecutive segments, 0 ≤ noverlap < nperseg. Default floor(nperseg/2). */
  noverlap?: number;
  /** Default 'hann'. The periodic window of this name is used. */
  window?: WindowSpec | string;
  /** One channel (0-based), or 'mean' (default): the average of every channel's spectrum. */
  channel?: number | 'mean';
  signal?: AbortSignal;
  /** Called after each block with the frames consumed so far. */
  onProgress?: (frames: number) => void;
}

export interface WelchResult {
  /** Bin frequencies in Hz: 0…fs/2 for real input; for complex input ascending from −fs/2 (fftshift
   * order), relative to the centre frequency (add `centerFrequency` for absolute frequencies). */
  frequencies: Float64Array;
  /** Averaged power per bin, normalized so a full-scale real sine (or a unit complex exponential) centred
   * on a bin reads 1.0 there (0 dBFS). Real DC and Nyquist bins read 2× their mean square (see levels.ts). */
  power: Float64Array;
  /** Segments averaged (per channel). */
  segments: number;
  nperseg: number;
  noverlap: number;
  sampleRate: number;
  complex: boolean;
  /** Centre frequency (Hz) of complex input, when the stream knows it. */
  centerFrequency?: number;
  /** The periodic window used (length nperseg). */
  window: Float64Array;
  /** sampleRate / nperseg (Hz). */
  binWidth: number;
}

/** Floats handed to the backend per call (a batch of whole segments, at least one). */
const BATCH_VALUES = 1 << 21;

function checkOptions(options: WelchOptions): { nperseg: number; noverlap: number } {
  const { nperseg } = options;
  if (typeof nperseg !== 'number' || !Number.isInteger(nperseg) || nperseg < WELCH_FFT_SIZE_MIN) {
    throw new InvalidArgumentError(
      `FFT size (nperseg) must be an integer ≥ ${WELCH_FFT_SIZE_MIN}, got ${nperseg}`,
    );
  }
  const noverlap = options.noverlap ?? Math.floor(nperseg / 2);
  if (typeof noverlap !== 'number' || !Number.isInteger(noverlap) || noverlap < 0 || noverlap >= nperseg) {
    throw new InvalidArgumentError(
      `overlap (noverlap) must be an integer with 0 ≤ noverlap < nperseg = ${nperseg}, got ${noverlap}`,
    );
  }
  return { nperseg, noverlap };
}

function sameFormat(a: StreamFormat, b: StreamFormat): boolean {
  return a.sampleRate === b.sampleRate && a.complex === b.complex && a.channels === b.channels;
}

/** Welch-averaged power spectrum of the blocks (see WelchResult for the normalization). */
export async function welch(
  backend: Backend,
  blocks: AsyncIterable<SampleBlock>,
  options: WelchOptions,
): Promise<WelchResult> {
  const { nperseg, noverlap } = checkOptions(options);
  const window = getWindow(options.window ?? DEFAULT_WINDOW, nperseg);
  let windowSum = 0;
  for (let i = 0; i < nperseg; i++) windowSum += window[i];
  const step = nperseg - noverlap;
  const channelOption = options.channel ?? 'mean';
  if (
    channelOption !== 'mean' &&
    (typeof channelOption !== 'number' || !Number.isInteger(channelOption) || channelOption < 0)
  ) {
    throw new InvalidArgumentError(`channel must be an integer ≥ 0 or 'mean', got ${String(channelOption)}`);
  }
  const signal = options.signal;
  throwIfAborted(signal);

  // Set up when the first block tells the format.
  let format: StreamFormat | undefined;
  let vpf = 0;
  let channels: number[] = [];
  let complex = false;
  let bins = 0; // output values per transform (complex bins)
  let tail = new Float32Array(0); // frames [nextStart, end) of the stream so far, interleaved as the blocks
  let tailFrames = 0;
  let batchIn = new Float32Array(0);
  let batchOut = new Float32Array(0);
  let batchSlots = 0;
  let used = 0; // transforms waiting in batchIn
  let acc = new Float64Array(0);
  let segments = 0;
  let framesSeen = 0;
  let scratch = new Float32Array(0);

  const flush = async (): Promise<void> => {
    if (used === 0) return;
    throwIfAborted(signal);
    const inLen = used * (complex ? 2 * nperseg : nperseg);
    const out = batchOut.subarray(0, used * bins * 2);
    const input = batchIn.subarray(0, inLen);
    const spectra = complex
      ? await backend.fft(input, nperseg, { out })
      : await backend.rfft(input, nperseg, { out });
    for (let t = 0; t < used; t++) {
      const base = t * bins * 2;
      for (let k = 0; k < bins; k++) {
        const re = spectra[base + 2 * k];
        const im = spectra[base + 2 * k + 1];
        acc[k] += re * re + im * im;
      }
    }
    used = 0;
  };

  for await (const block of blocks) {
    throwIfAborted(signal);
    if (format === undefined) {
      format = block.format;
      complex = format.complex;
      vpf = valuesPerFrame(format);
      if (channelOption === 'mean') {
        channels = Array.from({ length: format.channels }, (_, i) => i);
      } else {
        if (channelOption >= format.channels) {
          throw new InvalidArgumentError(
            `channel ${channelOption} does not exist: the signal has ${format.channels} channel(s) (0…${format.channels - 1})`,
          );
        }
        channels = [channelOption];
      }
      bins = spectrumBins(nperseg, complex);
      const perTransform = complex ? 2 * nperseg : nperseg;
      // a batch may end between the channels of a segment: every transform adds to the same sum
      batchSlots = Math.max(1, Math.floor(BATCH_VALUES / perTransform));
      batchIn = new Float32Array(batchSlots * perTransform);
      batchOut = new Float32Array(batchSlots * bins * 2);
      acc = new Float64Array(bins);
      tail = new Float32Array((nperseg - 1) * vpf);
    } else if (!sameFormat(format, block.format)) {
      throw new InvalidArgumentError(
        'every block of a stream must have the same sample rate, channels and type',
      );
    }
    const frames = block.frames;
    if (frames === 0) continue;
    let data: Float32Array;
    if (block.data instanceof Float32Array) {
      data = block.data;
    } else {
      const len = block.data.data.length;
      if (scratch.length < len) scratch = new Float32Array(len);
      data = toFloat32(block.data, scratch.subarray(0, len));
    }
    if (data.length < frames * vpf) {
      throw new InvalidArgumentError(`a block claims ${frames} frames but holds only ${data.length} values`);
    }

    // Segments starting at s (frames from the tail's start) complete in tail ⧺ block.
    const total = tailFrames + frames;
    let s = 0;
    while (s + nperseg <= total) {
      for (const ch of channels) {
        const off = complex ? 2 * ch : ch;
        // Two runs: the part still in the tail, then the part in this block.
        const inTail = Math.max(0, Math.min(nperseg, tailFrames - s));
        if (complex) {
          const dst = batchIn.subarray(used * 2 * nperseg, (used + 1) * 2 * nperseg);
          for (let i = 0; i < inTail; i++) {
            const idx = (s + i) * vpf + off;
            dst[2 * i] = tail[idx] * window[i];
            dst[2 * i + 1] = tail[idx + 1] * window[i];
          }
          for (let i = inTail; i < nperseg; i++) {
            const idx = (s + i - tailFrames) * vpf + off;
            dst[2 * i] = data[idx] * window[i];
            dst[2 * i + 1] = data[idx + 1] * window[i];
          }
        } else {
          const dst = batchIn.subarray(used * nperseg, (used + 1) * nperseg);
          for (let i = 0; i < inTail; i++) dst[i] = tail[(s + i) * vpf + off] * window[i];
          for (let i = inTail; i < nperseg; i++) dst[i] = data[(s + i - tailFrames) * vpf + off] * window[i];
        }
        used++;
        if (used === batchSlots) await flush();
      }
      segments++;
      s += step;
    }
    // Keep frames [s, total) for the segments still to come.
    const keep = total - s;
    if (s < tailFrames) {
      tail.copyWithin(0, s * vpf, tailFrames * vpf);
      const fromTail = tailFrames - s;
      tail.set(data.subarray(0, (keep - fromTail) * vpf), fromTail * vpf);
    } else {
      const from = s - tailFrames;
      tail.set(data.subarray(from * vpf, (from + keep) * vpf), 0);
    }
    tailFrames = keep;
    framesSeen += frames;
    options.onProgress?.(framesSeen);
  }
  await flush();

  if (format === undefined || segments === 0) {
    const have = framesSeen;
    throw new InvalidArgumentError(
      `the signal has ${have} frame(s), fewer than the FFT size ${nperseg}: use a smaller --fft` +
        (have >= WELCH_FFT_SIZE_MIN ? ` (at most ${have})` : ''),
    );
  }

  const count = segments * channels.length;
  const s2 = windowSum * windowSum;
  const fs = format.sampleRate;
  const power = new Float64Array(bins);
  const frequencies = binFrequencies(nperseg, fs, complex);
  const binWidth = binWidthOf(fs, nperseg);
  if (complex) {
    const scale = 1 / (s2 * count);
    const shift = binShift(nperseg, true);
    for (let k = 0; k < nperseg; k++) {
      // fftshift: output index k holds FFT bin (k − shift) mod N.
      const src = (k - shift + nperseg) % nperseg;
      power[k] = acc[src] * scale;
    }
  } else {
    const interior = 4 / (s2 * count);
    const edge = 2 / (s2 * count);
    for (let k = 0; k < bins; k++) {
      const isEdge = k === 0 || (nperseg % 2 === 0 && k === nperseg / 2);
      power[k] = acc[k] * (isEdge ? edge : interior);
    }
  }
  const result: WelchResult = {
    frequencies,
    power,
    segments,
    nperseg,
    noverlap,
    sampleRate: fs,
    complex,
    window,
    binWidth,
  };
  if (complex && format.centerFrequency !== undefined) result.centerFrequency = format.centerFrequency;
  return result;
}

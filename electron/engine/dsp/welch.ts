// Welch-averaged power spectrum of a stream of sample blocks (scipy.signal.welch with average='mean',
// no detrending), with levels in the AES17 convention of levels.ts.
//
// Segments are assembled on the host from the blocks: only the tail that the next segment overlaps is
// kept between blocks (at most nperseg−1 frames), so memory is constant whatever the stream length.
// Windowed segments go to the backend in batches (backend.rfft for real input, backend.fft for complex)
// and |X|² is accumulated in float64. `segmentSpectra` is that segment machinery on its own (with an optional
// per-segment detrend), shared with psd.ts's SciPy-exact PSD and spectrogram.

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
  /** Also keeps each bin's highest and lowest single-segment power (max and min hold). */
  holds?: boolean;
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
  /** With `holds`: each bin's highest and lowest power over the segments (one transform each), in the
   * normalization of `power`. */
  maxPower?: Float64Array;
  minPower?: Float64Array;
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

/** How each segment is detrended before the window (scipy.signal.detrend's types; 'none' leaves it). */
export type Detrend = 'none' | 'constant' | 'linear';

export interface SegmentOptions {
  nperseg: number;
  noverlap: number;
  /** The window (length nperseg), applied after the detrend. */
  window: Float64Array;
  /** One channel (0-based), or 'mean': every channel's segment in turn. */
  channel: number | 'mean';
  detrend?: Detrend;
  signal?: AbortSignal;
  onProgress?: (frames: number) => void;
}

export interface SegmentStream {
  format: StreamFormat;
  /** Segments (per channel) transformed. */
  segments: number;
  /** Channels transformed per segment. */
  channels: number;
  /** Complex bins per transform, in FFT order: nperseg for complex input, ⌊nperseg/2⌋+1 for real. */
  bins: number;
  frames: number;
}

/**
 * Windowed segments of a stream of blocks through the backend: `consume` gets batches of transforms (each
 * `bins` interleaved complex bins in FFT order, segment after segment and, within a segment, channel after
 * channel) and may keep nothing of `spectra` past its return. `onFormat` is told the stream's shape before
 * the first batch. Refuses a stream with fewer frames than one segment.
 */
export async function segmentSpectra(
  backend: Backend,
  blocks: AsyncIterable<SampleBlock>,
  options: SegmentOptions,
  consume: (spectra: Float32Array, count: number) => void | Promise<void>,
  onFormat?: (format: StreamFormat, bins: number, channels: number) => void,
): Promise<SegmentStream> {
  const { nperseg, noverlap, window } = options;
  const step = nperseg - noverlap;
  const channelOption = options.channel;
  const detrend = options.detrend ?? 'none';
  if (
    channelOption !== 'mean' &&
    (typeof channelOption !== 'number' || !Number.isInteger(channelOption) || channelOption < 0)
  ) {
    throw new InvalidArgumentError(`channel must be an integer ≥ 0 or 'mean', got ${String(channelOption)}`);
  }
  if (detrend !== 'none' && detrend !== 'constant' && detrend !== 'linear') {
    throw new InvalidArgumentError(`detrend must be constant, linear or none, got ${String(detrend)}`);
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
  let segments = 0;
  let framesSeen = 0;
  let scratch = new Float32Array(0);
  // a segment being detrended, in float64: real parts, then imaginary parts
  const work = detrend === 'none' ? undefined : new Float64Array(2 * nperseg);

  const flush = async (): Promise<void> => {
    if (used === 0) return;
    throwIfAborted(signal);
    const inLen = used * (complex ? 2 * nperseg : nperseg);
    const out = batchOut.subarray(0, used * bins * 2);
    const input = batchIn.subarray(0, inLen);
    const spectra = complex
      ? await backend.fft(input, nperseg, { out })
      : await backend.rfft(input, nperseg, { out });
    const count = used;
    used = 0;
    await consume(spectra, count);
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
      // a batch may end between the channels of a segment
      batchSlots = Math.max(1, Math.floor(BATCH_VALUES / perTransform));
      batchIn = new Float32Array(batchSlots * perTransform);
      batchOut = new Float32Array(batchSlots * bins * 2);
      tail = new Float32Array((nperseg - 1) * vpf);
      onFormat?.(format, bins, channels.length);
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
        if (work) {
          for (let i = 0; i < nperseg; i++) {
            const src = i < inTail ? tail : data;
            const idx = (i < inTail ? s + i : s + i - tailFrames) * vpf + off;
            work[i] = src[idx];
            work[nperseg + i] = complex ? src[idx + 1] : 0;
          }
          removeTrend(work.subarray(0, nperseg), detrend);
          if (complex) {
            removeTrend(work.subarray(nperseg), detrend);
            const dst = batchIn.subarray(used * 2 * nperseg, (used + 1) * 2 * nperseg);
            for (let i = 0; i < nperseg; i++) {
              dst[2 * i] = work[i] * window[i];
              dst[2 * i + 1] = work[nperseg + i] * window[i];
            }
          } else {
            const dst = batchIn.subarray(used * nperseg, (used + 1) * nperseg);
            for (let i = 0; i < nperseg; i++) dst[i] = work[i] * window[i];
          }
        } else if (complex) {
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
  return { format, segments, channels: channels.length, bins, frames: framesSeen };
}

/** Subtracts the mean ('constant') or the least-squares line ('linear') from x, in place, in float64. */
export function removeTrend(x: Float64Array, detrend: Detrend): void {
  const n = x.length;
  if (detrend === 'none' || n === 0) return;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  if (detrend === 'constant' || n < 2) {
    for (let i = 0; i < n; i++) x[i] -= mean;
    return;
  }
  // the line a + b·(i − c), c the segment's centre: a is the mean, b = Σ(i − c)·x / Σ(i − c)²
  const c = (n - 1) / 2;
  let sxy = 0;
  for (let i = 0; i < n; i++) sxy += (i - c) * x[i];
  const b = sxy / ((n * (n * n - 1)) / 12);
  for (let i = 0; i < n; i++) x[i] -= mean + b * (i - c);
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
  let acc = new Float64Array(0);
  let hi = new Float64Array(0);
  let lo = new Float64Array(0);
  const holds = options.holds === true;
  let bins = 0;
  const stream = await segmentSpectra(
    backend,
    blocks,
    {
      nperseg,
      noverlap,
      window,
      channel: options.channel ?? 'mean',
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    },
    (spectra, count) => {
      // every channel's transform adds to the same sum
      for (let t = 0; t < count; t++) {
        const base = t * bins * 2;
        for (let k = 0; k < bins; k++) {
          const re = spectra[base + 2 * k];
          const im = spectra[base + 2 * k + 1];
          const p = re * re + im * im;
          acc[k] += p;
          if (holds) {
            if (p > hi[k]) hi[k] = p;
            if (p < lo[k]) lo[k] = p;
          }
        }
      }
    },
    (_format, b) => {
      bins = b;
      acc = new Float64Array(b);
      if (holds) {
        hi = new Float64Array(b).fill(-Infinity);
        lo = new Float64Array(b).fill(Infinity);
      }
    },
  );
  const { format, segments } = stream;
  const complex = format.complex;

  const count = segments * stream.channels;
  const s2 = windowSum * windowSum;
  const fs = format.sampleRate;
  const power = new Float64Array(bins);
  // the holds are single transforms: the average's scale times the count
  const maxPower = holds ? new Float64Array(bins) : undefined;
  const minPower = holds ? new Float64Array(bins) : undefined;
  const frequencies = binFrequencies(nperseg, fs, complex);
  const binWidth = binWidthOf(fs, nperseg);
  if (complex) {
    const scale = 1 / (s2 * count);
    const shift = binShift(nperseg, true);
    for (let k = 0; k < nperseg; k++) {
      // fftshift: output index k holds FFT bin (k − shift) mod N.
      const src = (k - shift + nperseg) % nperseg;
      power[k] = acc[src] * scale;
      if (maxPower && minPower) {
        maxPower[k] = hi[src] * scale * count;
        minPower[k] = lo[src] * scale * count;
      }
    }
  } else {
    const interior = 4 / (s2 * count);
    const edge = 2 / (s2 * count);
    for (let k = 0; k < bins; k++) {
      const isEdge = k === 0 || (nperseg % 2 === 0 && k === nperseg / 2);
      power[k] = acc[k] * (isEdge ? edge : interior);
      if (maxPower && minPower) {
        maxPower[k] = hi[k] * (isEdge ? edge : interior) * count;
        minPower[k] = lo[k] * (isEdge ? edge : interior) * count;
      }
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
  if (maxPower && minPower) {
    result.maxPower = maxPower;
    result.minPower = minPower;
  }
  return result;
}

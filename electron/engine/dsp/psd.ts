// Power spectral density and spectrogram as scipy.signal.welch and scipy.signal.spectrogram(mode='psd')
// compute them, in linear units (V²/Hz or V²), on welch.ts's segment machinery (segments transformed by the
// backend in batches, |X|² in float64).
//
// welch: each segment detrended (mean or least-squares line, in float64), windowed, transformed; scaled by
// 1/(fs·Σw²) ('density') or 1/(Σw)² ('spectrum'); for real input one-sided with every bin but DC (and, for
// an even nperseg, Nyquist) doubled; averaged by the mean, or by the median divided by SciPy's
// `_median_bias(segments)`. Complex input is two-sided; here in fftshift order (SciPy's welch returns FFT
// order: np.fft.fftshift of its result equals ours). The median keeps every segment's spectrum: at most
// MEDIAN_BYTES_MAX of them, refused above.
//
// spectrogram: the same segments without detrend (SciPy's detrend=False), scaled and doubled alike, one row
// per segment in FFT order (for complex input SciPy's `f` is np.fft.fftfreq's order, and so are our rows).

import type { Backend } from '../backends/backend.js';
import { InvalidArgumentError } from '../errors.js';
import {
  binFrequencies,
  binWidth as binWidthOf,
  spectrumBins,
  WELCH_FFT_SIZE_MIN,
} from '../protocol/shape.js';
import type { SampleBlock, StreamFormat } from '../types.js';
import { segmentSpectra, type Detrend } from './welch.js';
import { getWindow, type WindowSpec } from './windows.js';

export type PsdScaling = 'density' | 'spectrum';
export type PsdAverage = 'mean' | 'median';
export type { Detrend } from './welch.js';

export const PSD_SCALINGS: readonly PsdScaling[] = ['density', 'spectrum'];
export const PSD_AVERAGES: readonly PsdAverage[] = ['mean', 'median'];
export const PSD_DETRENDS: readonly Detrend[] = ['constant', 'linear', 'none'];

/** SciPy's welch defaults: nperseg 256, noverlap nperseg/2, a periodic hann, detrend 'constant'. */
export const PSD_DEFAULT_NPERSEG = 256;
export const PSD_DEFAULT_WINDOW = 'hann';

/** The memory a median average may hold (every segment's spectrum as float64): 1 GiB. */
export const MEDIAN_BYTES_MAX = 2 ** 30;

export interface PsdOptions {
  /** Segment length ≥ WELCH_FFT_SIZE_MIN. */
  nperseg: number;
  /** 0 ≤ noverlap < nperseg; default floor(nperseg/2). */
  noverlap?: number;
  /** Default 'hann' (periodic). */
  window?: WindowSpec | string;
  /** Default 'density'. */
  scaling?: PsdScaling;
  /** Default 'constant'. */
  detrend?: Detrend;
  /** Default 'mean'. */
  average?: PsdAverage;
  /** One channel (0-based), default 0. */
  channel?: number;
  /** Limit of a median average's memory (bytes), default MEDIAN_BYTES_MAX. */
  medianBytesMax?: number;
  /** Segments the stream will give, when known: a median's memory is then allocated once. */
  expectedSegments?: number;
  signal?: AbortSignal;
  onProgress?: (frames: number) => void;
}

export interface PsdResult {
  /** Hz, ascending: 0…fs/2 for real input; for complex input fftshift order, absolute (centre added) when
   * the stream knows its centre frequency. */
  frequencies: Float64Array;
  /** V²/Hz ('density') or V² ('spectrum') per bin, in the order of `frequencies`. */
  psd: Float64Array;
  segments: number;
  nperseg: number;
  noverlap: number;
  sampleRate: number;
  complex: boolean;
  centerFrequency?: number;
  scaling: PsdScaling;
  detrend: Detrend;
  average: PsdAverage;
  /** 'V**2/Hz' or 'V**2' (SciPy's wording). */
  units: string;
  /** sampleRate / nperseg (Hz). */
  binWidth: number;
  /** The window's equivalent noise bandwidth (Hz): fs·Σw²/(Σw)². */
  enbw: number;
}

export interface SegmentShape {
  nperseg: number;
  noverlap: number;
}

/** Checks nperseg/noverlap as SciPy does (noverlap defaults to ⌊nperseg/2⌋). */
export function checkSegments(nperseg: number, noverlap?: number): SegmentShape {
  if (!Number.isInteger(nperseg) || nperseg < WELCH_FFT_SIZE_MIN) {
    throw new InvalidArgumentError(`nperseg must be a whole number ≥ ${WELCH_FFT_SIZE_MIN}, got ${nperseg}`);
  }
  const overlap = noverlap ?? Math.floor(nperseg / 2);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= nperseg) {
    throw new InvalidArgumentError(
      `noverlap must be a whole number with 0 ≤ noverlap < nperseg = ${nperseg}, got ${overlap}`,
    );
  }
  return { nperseg, noverlap: overlap };
}

function checkChoice<T extends string>(value: T | undefined, choices: readonly T[], name: string, def: T): T {
  const v = value ?? def;
  if (!choices.includes(v)) {
    throw new InvalidArgumentError(`${name} must be ${choices.join(', ')}; got "${String(v)}"`);
  }
  return v;
}

/** The scale of |X|² per segment: 1/(fs·Σw²) for a density, 1/(Σw)² for a spectrum. */
export function psdScale(window: Float64Array, sampleRate: number, scaling: PsdScaling): number {
  let sum = 0;
  let sumSq = 0;
  for (const w of window) {
    sum += w;
    sumSq += w * w;
  }
  return scaling === 'density' ? 1 / (sampleRate * sumSq) : 1 / (sum * sum);
}

/** SciPy's frequency axis of a spectrogram: np.fft.rfftfreq(n, 1/fs) for real input, np.fft.fftfreq (FFT
 * order: 0, positive, then negative) for complex input, computed as NumPy does (k · 1/(n·(1/fs))). */
export function scipyFrequencies(n: number, sampleRate: number, complex: boolean): Float64Array {
  const val = 1 / (n * (1 / sampleRate));
  const out = new Float64Array(spectrumBins(n, complex));
  const positive = complex ? Math.floor((n - 1) / 2) + 1 : out.length;
  for (let k = 0; k < out.length; k++) out[k] = (k < positive ? k : k - n) * val;
  return out;
}

/** Whether bin k of a one-sided spectrum of n points is doubled: all but DC and, for even n, Nyquist. */
export function doubledBin(k: number, n: number): boolean {
  return k > 0 && !(n % 2 === 0 && k === n / 2);
}

/** scipy.signal._spectral_py._median_bias: the median of n periodograms over their mean (χ² with 2 dof). */
export function medianBias(n: number): number {
  let bias = 1;
  for (let i = 1; i <= Math.floor((n - 1) / 2); i++) bias += 1 / (2 * i + 1) - 1 / (2 * i);
  return bias;
}

function medianOf(values: Float64Array): number {
  values.sort();
  const n = values.length;
  const h = n >> 1;
  return n % 2 === 1 ? values[h] : (values[h - 1] + values[h]) / 2;
}

/** scipy.signal.welch of one channel of the blocks (see the file comment for the order of complex bins). */
export async function psd(
  backend: Backend,
  blocks: AsyncIterable<SampleBlock>,
  options: PsdOptions,
): Promise<PsdResult> {
  const { nperseg, noverlap } = checkSegments(options.nperseg, options.noverlap);
  const scaling = checkChoice(options.scaling, PSD_SCALINGS, 'scaling', 'density');
  const detrend = checkChoice(options.detrend, PSD_DETRENDS, 'detrend', 'constant');
  const average = checkChoice(options.average, PSD_AVERAGES, 'average', 'mean');
  const window = getWindow(options.window ?? PSD_DEFAULT_WINDOW, nperseg);
  const channel = options.channel ?? 0;
  const medianMax = options.medianBytesMax ?? MEDIAN_BYTES_MAX;
  let bins = 0;
  let acc = new Float64Array(0);
  // median: |X|² of every segment, segment-major, grown as segments come
  let kept = new Float64Array(0);
  let keptCount = 0;
  const stream = await segmentSpectra(
    backend,
    blocks,
    {
      nperseg,
      noverlap,
      window,
      channel,
      detrend,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    },
    (spectra, count) => {
      if (average === 'mean') {
        for (let t = 0; t < count; t++) {
          const base = t * bins * 2;
          for (let k = 0; k < bins; k++) {
            const re = spectra[base + 2 * k];
            const im = spectra[base + 2 * k + 1];
            acc[k] += re * re + im * im;
          }
        }
        return;
      }
      const need = (keptCount + count) * bins;
      if (need > kept.length) {
        if (need * 8 > medianMax) {
          throw new InvalidArgumentError(
            `average median keeps every segment's spectrum: over ${keptCount + count} segments × ${bins} bins it passes the ${medianMax / 2 ** 20} MiB limit; use average mean, a larger nperseg or a smaller noverlap`,
          );
        }
        const first = keptCount === 0 ? (options.expectedSegments ?? 0) * bins : 0;
        const grown = new Float64Array(
          Math.min(Math.max(need, first, 2 * kept.length), Math.floor(medianMax / 8)),
        );
        grown.set(kept.subarray(0, keptCount * bins));
        kept = grown;
      }
      for (let t = 0; t < count; t++) {
        const base = t * bins * 2;
        const row = (keptCount + t) * bins;
        for (let k = 0; k < bins; k++) {
          const re = spectra[base + 2 * k];
          const im = spectra[base + 2 * k + 1];
          kept[row + k] = re * re + im * im;
        }
      }
      keptCount += count;
    },
    (_format, b) => {
      bins = b;
      acc = new Float64Array(b);
    },
  );
  const { format, segments } = stream;
  const complex = format.complex;
  const fs = format.sampleRate;
  const scale = psdScale(window, fs, scaling);
  // per-bin value in FFT order before the one-sided doubling
  const perBin = new Float64Array(bins);
  if (average === 'mean') {
    for (let k = 0; k < bins; k++) perBin[k] = (acc[k] * scale) / segments;
  } else {
    const column = new Float64Array(segments);
    const bias = segments > 1 ? medianBias(segments) : 1;
    for (let k = 0; k < bins; k++) {
      for (let t = 0; t < segments; t++) column[t] = kept[t * bins + k] * scale;
      perBin[k] = medianOf(column) / bias;
    }
  }
  const out = new Float64Array(bins);
  if (complex) {
    const shift = Math.floor(nperseg / 2);
    for (let k = 0; k < nperseg; k++) out[k] = perBin[(k - shift + nperseg) % nperseg];
  } else {
    for (let k = 0; k < bins; k++) out[k] = doubledBin(k, nperseg) ? 2 * perBin[k] : perBin[k];
  }
  let sum = 0;
  let sumSq = 0;
  for (const w of window) {
    sum += w;
    sumSq += w * w;
  }
  const result: PsdResult = {
    frequencies: binFrequencies(nperseg, fs, complex, complex ? (format.centerFrequency ?? 0) : 0),
    psd: out,
    segments,
    nperseg,
    noverlap,
    sampleRate: fs,
    complex,
    scaling,
    detrend,
    average,
    units: scaling === 'density' ? 'V**2/Hz' : 'V**2',
    binWidth: binWidthOf(fs, nperseg),
    enbw: (fs * sumSq) / (sum * sum),
  };
  if (complex && format.centerFrequency !== undefined) result.centerFrequency = format.centerFrequency;
  return result;
}

export interface SpectrogramPsdOptions {
  nperseg: number;
  noverlap: number;
  window?: WindowSpec | string;
  scaling?: PsdScaling;
  channel?: number;
  signal?: AbortSignal;
  onProgress?: (frames: number) => void;
}

export interface SpectrogramPsdStream {
  format: StreamFormat;
  /** Rows (segments) given. */
  segments: number;
  /** Values per row: nperseg//2 + 1 for real input, nperseg for complex (FFT order). */
  bins: number;
}

/**
 * scipy.signal.spectrogram(x, fs, window, nperseg, noverlap, detrend=False, scaling, mode='psd') of one
 * channel, row by row: `onRows` gets `count` rows of `bins` float32 values (time-major: Sxx transposed) and
 * may keep nothing of `rows` past its return; it is awaited before the next batch is computed.
 */
export async function spectrogramPsd(
  backend: Backend,
  blocks: AsyncIterable<SampleBlock>,
  options: SpectrogramPsdOptions,
  onRows: (rows: Float32Array, count: number) => void | Promise<void>,
): Promise<SpectrogramPsdStream> {
  const { nperseg, noverlap } = checkSegments(options.nperseg, options.noverlap);
  const scaling = checkChoice(options.scaling, PSD_SCALINGS, 'scaling', 'density');
  const window = getWindow(options.window ?? PSD_DEFAULT_WINDOW, nperseg);
  let bins = 0;
  let rows = new Float32Array(0);
  let factors = new Float64Array(0);
  const stream = await segmentSpectra(
    backend,
    blocks,
    {
      nperseg,
      noverlap,
      window,
      channel: options.channel ?? 0,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    },
    async (spectra, count) => {
      if (rows.length < count * bins) rows = new Float32Array(count * bins);
      for (let t = 0; t < count; t++) {
        const base = t * bins * 2;
        const row = t * bins;
        for (let k = 0; k < bins; k++) {
          const re = spectra[base + 2 * k];
          const im = spectra[base + 2 * k + 1];
          rows[row + k] = (re * re + im * im) * factors[k];
        }
      }
      await onRows(rows.subarray(0, count * bins), count);
    },
    (format, b) => {
      bins = b;
      const scale = psdScale(window, format.sampleRate, scaling);
      factors = new Float64Array(b);
      for (let k = 0; k < b; k++) factors[k] = !format.complex && doubledBin(k, nperseg) ? 2 * scale : scale;
    },
  );
  return {
    format: stream.format,
    segments: stream.segments,
    bins: spectrumBins(nperseg, stream.format.complex),
  };
}

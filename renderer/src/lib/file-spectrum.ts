// The File view's spectrum pane, its pure parts: which frames and band the spectrum averages (the
// selection when there is one, else the visible region), its traces (mean, max / min hold) and the CSV it
// exports.

import type {
  FileInfo,
  FileSpectrumResult,
  FileSpectrumTrace,
  MethodParams,
} from '../../../electron/engine/protocol/messages.js';
import { WELCH_FFT_SIZE_MIN } from '../../../electron/engine/protocol/shape.js';
import { selectionFrames, type Region, type Selection } from './file-view.js';
import type { Trace } from './markers.js';
import type { LevelUnit } from './traces.js';

export type FileSpectrum = FileSpectrumResult & { data: Float32Array };

export interface SpectrumSpan {
  params: MethodParams['fileSpectrum'];
  /** What the spectrum averages, for its caption. */
  of: 'selection' | 'visible range';
  t0: number;
  t1: number;
}

/** The fileSpectrum request for the selection (its band, if it has one) or else the visible region;
 * null when the range is shorter than the shortest segment. `fft` 0 lets the engine choose. */
export function spectrumSpan(
  info: FileInfo,
  region: Region,
  selection: Selection | null,
  display: { window: string; fft: number },
  traces: FileSpectrumTrace[] = ['mean'],
): SpectrumSpan | null {
  const span = selection ?? region;
  const { start, end } = selectionFrames(span, info);
  if (end - start < WELCH_FFT_SIZE_MIN) return null;
  const band = selection ? (selection.f0 !== undefined ? selection : null) : region;
  const params: MethodParams['fileSpectrum'] = {
    file: info.file,
    start,
    end,
    window: display.window,
    channel: 0,
    traces,
  };
  if (display.fft > 0 && display.fft <= end - start) params.fft = display.fft;
  if (band?.f0 !== undefined && band.f1 !== undefined) {
    params.fLow = band.f0;
    params.fHigh = band.f1;
  }
  return {
    params,
    of: selection ? 'selection' : 'visible range',
    t0: start / info.sampleRate,
    t1: end / info.sampleRate,
  };
}

/** Frequency (Hz) of bin k. */
export function binFrequencyOf(s: FileSpectrumResult, k: number): number {
  return s.f0 + k * s.binWidth;
}

/** The levels (dBFS) of one of the spectrum's traces; null when it was not asked for. */
export function traceLevels(s: FileSpectrum, name: FileSpectrumTrace): Float32Array | null {
  const j = s.traces.indexOf(name);
  return j < 0 ? null : s.data.subarray(j * s.bins, (j + 1) * s.bins);
}

/** The spectrum's mean as a marker trace (lib/markers.ts), at the time of the middle of its range. */
export function meanTrace(s: FileSpectrum): Trace {
  return {
    levels: traceLevels(s, 'mean') ?? new Float32Array(0),
    f0: s.f0,
    df: s.binWidth,
    time: (s.start + s.end) / 2 / s.sampleRate,
  };
}

/** Equivalent noise bandwidth of the window, in bins (the RBW over the bin width). */
export function enbwBins(s: FileSpectrumResult): number {
  return s.rbw / s.binWidth;
}

const CSV_COLUMN: Record<FileSpectrumTrace, string> = { mean: 'level', max: 'max_hold', min: 'min_hold' };

/**
 * CSV of a spectrum: '#' comment lines (file, range, FFT, window, RBW), a header, one row per bin with
 * each trace (the mean as `level`, then `max_hold`, `min_hold`) in `unit` (`offset` dB added: unitOffset).
 */
export function spectrumCsv(
  file: Pick<FileInfo, 'path' | 'sampleRate'>,
  s: FileSpectrum,
  { unit = 'dBFS', offset = 0 }: { unit?: LevelUnit; offset?: number } = {},
): string {
  const fs = s.sampleRate;
  const suffix = unit === 'dBFS' ? 'dbfs' : 'dbfs_per_hz';
  const lines = [
    `# Phasor spectrum (Welch average${s.traces.length > 1 ? ' and holds over its segments' : ''}, levels in ${unit}: a full-scale sine reads 0 dBFS)`,
    `# file: ${file.path}`,
    `# range: frames ${s.start} to ${s.end} (${(s.start / fs).toFixed(6)} s to ${(s.end / fs).toFixed(6)} s)`,
    `# fft: ${s.fft}, window: ${s.window}, segments: ${s.segments}, overlap: 50 %`,
    `# rbw: ${+s.rbw.toFixed(6)} Hz, bin width: ${+s.binWidth.toFixed(6)} Hz`,
    ['frequency_hz', ...s.traces.map((t) => `${CSV_COLUMN[t]}_${suffix}`)].join(','),
  ];
  const cols = s.traces.map((t) => traceLevels(s, t)!);
  for (let k = 0; k < s.bins; k++) {
    const row = [`${+binFrequencyOf(s, k).toFixed(4)}`];
    for (const c of cols) row.push((c[k] + offset).toFixed(3));
    lines.push(row.join(','));
  }
  return `${lines.join('\n')}\n`;
}

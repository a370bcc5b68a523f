// The File view's spectrum pane, its pure parts: which frames and band the spectrum averages (the
// selection when there is one, else the visible region) and the CSV it exports.

import type {
  FileInfo,
  FileSpectrumResult,
  MethodParams,
} from '../../../electron/engine/protocol/messages.js';
import { WELCH_FFT_SIZE_MIN } from '../../../electron/engine/protocol/shape.js';
import { selectionFrames, type Region, type Selection } from './file-view.js';

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

/** CSV of a spectrum: '#' comment lines (file, range, FFT, window, RBW), a header, one row per bin. */
export function spectrumCsv(file: Pick<FileInfo, 'path' | 'sampleRate'>, s: FileSpectrum): string {
  const fs = s.sampleRate;
  const lines = [
    '# Phasor spectrum (Welch average, levels in dBFS: a full-scale sine reads 0 dBFS)',
    `# file: ${file.path}`,
    `# range: frames ${s.start} to ${s.end} (${(s.start / fs).toFixed(6)} s to ${(s.end / fs).toFixed(6)} s)`,
    `# fft: ${s.fft}, window: ${s.window}, segments: ${s.segments}, overlap: 50 %`,
    `# rbw: ${+s.rbw.toFixed(6)} Hz, bin width: ${+s.binWidth.toFixed(6)} Hz`,
    'frequency_hz,level_dbfs',
  ];
  for (let k = 0; k < s.bins; k++) lines.push(`${+binFrequencyOf(s, k).toFixed(4)},${s.data[k].toFixed(3)}`);
  return `${lines.join('\n')}\n`;
}

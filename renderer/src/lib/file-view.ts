// Geometry of the file spectrogram: the visible region (time across, frequency up), zoom and pan within the
// file's bounds, the request that fetches a region at the canvas's resolution, the time/frequency
// selection and its readouts, and where SigMF annotations sit on screen. Screen positions are fractions of
// the plot: x from the left (t0) and y from the top (f1).

import type { Annotation, FileInfo } from '../../../electron/engine/protocol/messages.js';
import {
  FFT_SIZE_MIN,
  FILE_FFT_SIZE_MAX,
  OVERLAP_MAX,
  overlapFromHop,
  streamBand,
} from '../../../electron/engine/protocol/shape.js';

export interface Region {
  /** Seconds from the start of the file. */
  t0: number;
  t1: number;
  /** Hz (absolute for I/Q with a known centre), f0 < f1. */
  f0: number;
  f1: number;
}

/** A time range, and optionally a frequency band within it. */
export interface Selection {
  t0: number;
  t1: number;
  f0?: number;
  f1?: number;
}

export type FileShape = Pick<FileInfo, 'sampleRate' | 'samples' | 'complex' | 'centerFrequency'>;

/** The whole file: all of its time, and the band its samples can hold. */
export function fileBounds(info: FileShape): Region {
  const [f0, f1] = streamBand(info.sampleRate, info.complex, info.centerFrequency);
  return { t0: 0, t1: info.samples / info.sampleRate, f0, f1 };
}

/** Smallest spans zoom may reach: 32 samples in time, 1/50000 of the band in frequency. */
export function minSpans(info: FileShape): { time: number; frequency: number } {
  const b = fileBounds(info);
  return { time: Math.min(b.t1 - b.t0, 32 / info.sampleRate), frequency: (b.f1 - b.f0) / 50_000 };
}

function clampSpan(lo: number, span: number, min: number, max: number): [number, number] {
  span = Math.min(span, max - min);
  lo = Math.min(Math.max(lo, min), max - span);
  return [lo, lo + span];
}

/**
 * Zooms the interval [lo, hi] by `factor` (> 1 zooms in) about the point at fraction `anchor` of it,
 * kept within [min, max] and no narrower than `minSpan`.
 */
export function zoomInterval(
  lo: number,
  hi: number,
  factor: number,
  anchor: number,
  min: number,
  max: number,
  minSpan: number,
): [number, number] {
  const span = hi - lo;
  const next = Math.min(max - min, Math.max(minSpan, span / factor));
  const p = lo + anchor * span;
  return clampSpan(p - anchor * next, next, min, max);
}

/** Moves [lo, hi] by `fraction` of its span (positive: towards higher values), within [min, max]. */
export function panInterval(
  lo: number,
  hi: number,
  fraction: number,
  min: number,
  max: number,
): [number, number] {
  const span = hi - lo;
  return clampSpan(lo + fraction * span, span, min, max);
}

export function zoomTime(region: Region, factor: number, anchorX: number, info: FileShape): Region {
  const b = fileBounds(info);
  const [t0, t1] = zoomInterval(region.t0, region.t1, factor, anchorX, b.t0, b.t1, minSpans(info).time);
  return { ...region, t0, t1 };
}

/** Zooms frequency about the point at screen fraction `anchorY` from the top. */
export function zoomFrequency(region: Region, factor: number, anchorY: number, info: FileShape): Region {
  const b = fileBounds(info);
  const [f0, f1] = zoomInterval(
    region.f0,
    region.f1,
    factor,
    1 - anchorY,
    b.f0,
    b.f1,
    minSpans(info).frequency,
  );
  return { ...region, f0, f1 };
}

/** Pans by screen fractions: dx > 0 shows later times, dy > 0 shows higher frequencies. */
export function panRegion(region: Region, dx: number, dy: number, info: FileShape): Region {
  const b = fileBounds(info);
  const [t0, t1] = dx ? panInterval(region.t0, region.t1, dx, b.t0, b.t1) : [region.t0, region.t1];
  const [f0, f1] = dy ? panInterval(region.f0, region.f1, dy, b.f0, b.f1) : [region.f0, region.f1];
  return { t0, t1, f0, f1 };
}

/** Whether the region shows the whole file. */
export function isWhole(region: Region, info: FileShape): boolean {
  const b = fileBounds(info);
  const eps = 1e-9;
  return (
    region.t0 <= b.t0 + eps * (b.t1 - b.t0 || 1) &&
    region.t1 >= b.t1 - eps * (b.t1 - b.t0 || 1) &&
    region.f0 <= b.f0 + eps * (b.f1 - b.f0) &&
    region.f1 >= b.f1 - eps * (b.f1 - b.f0)
  );
}

export function screenToTime(region: Region, x: number): number {
  return region.t0 + x * (region.t1 - region.t0);
}
export function screenToFrequency(region: Region, y: number): number {
  return region.f1 - y * (region.f1 - region.f0);
}
export function timeToScreen(region: Region, t: number): number {
  return (t - region.t0) / (region.t1 - region.t0);
}
export function frequencyToScreen(region: Region, f: number): number {
  return (region.f1 - f) / (region.f1 - region.f0);
}

/**
 * The fileSpectrogram parameters that fetch `region` at `width` × `height` pixels: the frame range
 * covering it (clamped to the file) and the band when it is narrower than the file's.
 */
export function regionRequest(
  region: Region,
  info: FileShape,
  width: number,
  height: number,
): { start: number; end: number; fLow?: number; fHigh?: number; width: number; height: number } {
  const fs = info.sampleRate;
  const b = fileBounds(info);
  const start = Math.max(0, Math.min(info.samples - 1, Math.floor(region.t0 * fs)));
  const end = Math.max(start + 1, Math.min(info.samples, Math.ceil(region.t1 * fs)));
  const out: ReturnType<typeof regionRequest> = {
    start,
    end,
    width: Math.max(1, Math.min(8192, Math.round(width))),
    height: Math.max(1, Math.min(4096, Math.round(height))),
  };
  const band = b.f1 - b.f0;
  if (region.f0 > b.f0 + band * 1e-9 || region.f1 < b.f1 - band * 1e-9) {
    out.fLow = region.f0;
    out.fHigh = region.f1;
  }
  return out;
}

/** Drags shorter than this (screen fraction) in frequency select a time range only. */
export const BAND_DRAG_MIN = 0.03;

/**
 * The selection a drag from (x0, y0) to (x1, y1) makes (screen fractions, clamped to the plot): always a
 * time range; a frequency band too when the drag also went up or down far enough.
 */
export function selectionFromDrag(
  region: Region,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  info: FileShape,
): Selection {
  const c = (v: number) => Math.min(1, Math.max(0, v));
  const b = fileBounds(info);
  const ta = screenToTime(region, c(Math.min(x0, x1)));
  const tb = screenToTime(region, c(Math.max(x0, x1)));
  const sel: Selection = { t0: Math.max(b.t0, ta), t1: Math.min(b.t1, tb) };
  if (Math.abs(y1 - y0) >= BAND_DRAG_MIN) {
    sel.f0 = screenToFrequency(region, c(Math.max(y0, y1)));
    sel.f1 = screenToFrequency(region, c(Math.min(y0, y1)));
  }
  return sel;
}

/** The frames a selection covers: [start, end), at least one frame, within the file. */
export function selectionFrames(sel: Selection, info: FileShape): { start: number; end: number } {
  const fs = info.sampleRate;
  const start = Math.max(0, Math.min(info.samples - 1, Math.round(sel.t0 * fs)));
  const end = Math.max(start + 1, Math.min(info.samples, Math.round(sel.t1 * fs)));
  return { start, end };
}

export interface SelectionReadout {
  start: number;
  end: number;
  duration: number;
  frames: number;
  fLow?: number;
  fHigh?: number;
  bandwidth?: number;
  centre?: number;
}

export function selectionReadout(sel: Selection, info: FileShape): SelectionReadout {
  const { start, end } = selectionFrames(sel, info);
  const fs = info.sampleRate;
  const out: SelectionReadout = {
    start: start / fs,
    end: end / fs,
    duration: (end - start) / fs,
    frames: end - start,
  };
  if (sel.f0 !== undefined && sel.f1 !== undefined) {
    out.fLow = sel.f0;
    out.fHigh = sel.f1;
    out.bandwidth = sel.f1 - sel.f0;
    out.centre = (sel.f0 + sel.f1) / 2;
  }
  return out;
}

/**
 * A region showing [t0, t1] with `pad` of its length on each side (at least 20 ms of context), the
 * frequency range kept; clamped to the file.
 */
export function regionAround(t0: number, t1: number, current: Region, info: FileShape, pad = 1): Region {
  const b = fileBounds(info);
  const len = Math.max(t1 - t0, minSpans(info).time);
  const margin = Math.max(pad * len, 0.02);
  const [a, z] = clampSpan(t0 - margin, len + 2 * margin, b.t0, b.t1);
  return { ...current, t0: a, t1: z };
}

/** Screen box of an annotation (fractions; may reach past the plot), or null when out of view. */
export interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Where the label goes: the box's visible top-left corner. */
  labelX: number;
  labelY: number;
}

/**
 * Where an annotation's box sits: its frames across (to the end of the file when it has no count) and its
 * band up (the whole height when it has none).
 */
export function annotationBox(a: Annotation, region: Region, info: FileShape): Box | null {
  const fs = info.sampleRate;
  const ta = a.start / fs;
  const tb = a.count !== undefined ? (a.start + a.count) / fs : info.samples / fs;
  const x0 = timeToScreen(region, ta);
  const x1 = timeToScreen(region, Math.max(ta, tb));
  let y0 = 0;
  let y1 = 1;
  if (a.freqLower !== undefined || a.freqUpper !== undefined) {
    y0 = frequencyToScreen(region, a.freqUpper ?? region.f1);
    y1 = frequencyToScreen(region, a.freqLower ?? region.f0);
  }
  if (x1 < 0 || x0 > 1 || y1 < 0 || y0 > 1) return null;
  return { x0, x1, y0, y1, labelX: Math.max(0, x0), labelY: Math.max(0, y0) };
}

/**
 * Frame length and overlap for a fileSpectrogram request: enough bins to fill the plot's height over the
 * visible band, but no longer than about eight columns' worth of samples (so a zoomed view is not smeared
 * in time), with the hop shrunk (overlap up to 95 %) when the region has fewer frames than columns.
 */
export function chooseAnalysis(
  region: Region,
  info: FileShape,
  width: number,
  height: number,
): { fft: number; overlap: number } {
  const b = fileBounds(info);
  const frames = Math.max(1, (region.t1 - region.t0) * info.sampleRate);
  const bandFraction = Math.max(1e-6, (region.f1 - region.f0) / (b.f1 - b.f0));
  // A real frame of n samples has n/2 bins over the band, a complex one n.
  const forFrequency = ((info.complex ? 1 : 2) * Math.max(1, height)) / bandFraction;
  const forTime = Math.max(64, (8 * frames) / Math.max(1, width));
  const want = Math.min(forFrequency, forTime, frames, FILE_FFT_SIZE_MAX);
  const fft = Math.max(
    FFT_SIZE_MIN,
    Math.min(FILE_FFT_SIZE_MAX, 2 ** Math.round(Math.log2(Math.max(FFT_SIZE_MIN, want)))),
  );
  const hopWanted = frames / Math.max(1, width);
  const overlap = Math.min(OVERLAP_MAX, Math.max(0.5, overlapFromHop(fft, hopWanted)));
  return { fft, overlap: Math.round(overlap * 1000) / 1000 };
}

// Frequency-axis math shared by the waterfall shader (mirrored in GLSL), the spectrum trace and the axis
// labels: linear or logarithmic axis, zoom/pan as the visible fraction of that axis, nice ticks.
//
// Terms: a row has `width` columns spanning the extent [e0, e1] uniformly (the bins' centres run from f0 to
// f1, so the extent is half a bin wider at each end). The axis shows [f0, f1] (log: from the first column
// above 0 Hz). A view is the fraction [a, b] of the axis (in axis units) that the plot shows. Which bins
// the engine reduced into a column is the protocol's columnBins.

import { columnBins } from '../../../electron/engine/protocol/shape.js';
import { formatFrequency, linearTickValues, niceStep } from '../../../electron/engine/protocol/ticks.js';

// The tick values and labels are the protocol's (shared with the CLI's framed PNG).
export {
  formatFrequency,
  frequencyUnit,
  linearTickValues,
  niceStep,
} from '../../../electron/engine/protocol/ticks.js';

export interface FrequencyAxis {
  /** Frequencies of the first and last bin (Hz). */
  f0: number;
  f1: number;
  /** Extent of the columns (Hz): column c covers [e0 + c·(e1−e0)/width, e0 + (c+1)·(e1−e0)/width). */
  e0: number;
  e1: number;
  /** Bins per frame, and the columns they were reduced to (each the max of its bins). */
  bins: number;
  width: number;
  log: boolean;
  /** Axis range in axis units: Hz (linear) or log10(Hz). */
  lo: number;
  hi: number;
}

export interface View {
  a: number;
  b: number;
}

export const FULL_VIEW: Readonly<View> = Object.freeze({ a: 0, b: 1 });

/** Whether a log axis makes sense for this range (no negative frequencies). */
export function canLogAxis(range: readonly [number, number]): boolean {
  return range[0] >= 0 && range[1] > 0;
}

export function makeFrequencyAxis(
  range: readonly [number, number],
  bins: number,
  width: number,
  log: boolean,
): FrequencyAxis {
  const [f0, f1] = range;
  const binHz = bins > 1 ? (f1 - f0) / (bins - 1) : Math.max(1, f1 - f0);
  const e0 = f0 - binHz / 2;
  const e1 = f1 + binHz / 2;
  const w = Math.max(1, width);
  if (log && canLogAxis(range)) {
    // log(0) has no place on the axis: start half a bin (or half a column, if wider) above 0 Hz.
    const colHz = (e1 - e0) / w;
    const low = f0 > 0 ? f0 : Math.max(binHz, colHz) / 2;
    return { f0, f1, e0, e1, bins, width: w, log: true, lo: Math.log10(low), hi: Math.log10(f1) };
  }
  return { f0, f1, e0, e1, bins, width: w, log: false, lo: f0, hi: f1 };
}

/** Frequency at a fraction p ∈ [0, 1] of the whole axis. */
export function axisToFrequency(axis: FrequencyAxis, p: number): number {
  const u = axis.lo + p * (axis.hi - axis.lo);
  return axis.log ? Math.pow(10, u) : u;
}

/** Fraction of the whole axis where frequency f lies (may fall outside [0, 1]). */
export function frequencyToAxis(axis: FrequencyAxis, f: number): number {
  const u = axis.log ? Math.log10(Math.max(f, 1e-30)) : f;
  return (u - axis.lo) / (axis.hi - axis.lo);
}

/** Frequency under screen fraction s ∈ [0, 1] (left to right) of the plot. */
export function screenToFrequency(axis: FrequencyAxis, view: View, s: number): number {
  return axisToFrequency(axis, view.a + s * (view.b - view.a));
}

export function frequencyToScreen(axis: FrequencyAxis, view: View, f: number): number {
  return (frequencyToAxis(axis, f) - view.a) / (view.b - view.a);
}

/** Continuous column coordinate of frequency f (column c spans [c, c+1)). */
export function frequencyToColumn(axis: FrequencyAxis, f: number): number {
  return ((f - axis.e0) / (axis.e1 - axis.e0)) * axis.width;
}

/** Frequency of the middle of column c's bins; fractional columns interpolate between neighbours. */
export function columnToFrequency(axis: FrequencyAxis, c: number): number {
  const binHz = axis.bins > 1 ? (axis.f1 - axis.f0) / (axis.bins - 1) : 0;
  const centre = (k: number): number => {
    const [lo, hi] = columnBins(k, axis.bins, axis.width);
    return axis.f0 + binHz * ((lo + hi - 1) / 2);
  };
  const i = Math.floor(c);
  const frac = c - i;
  return frac === 0 ? centre(i) : centre(i) + frac * (centre(i + 1) - centre(i));
}

/** Smallest view span that still shows a few columns (so zoom cannot run away). */
export function minViewSpan(axis: FrequencyAxis): number {
  if (axis.log) return 1e-3;
  return Math.min(1, 4 / axis.width);
}

function clampView(a: number, span: number): View {
  span = Math.min(1, span);
  a = Math.min(Math.max(a, 0), 1 - span);
  return { a, b: a + span };
}

/** Zooms by `factor` (> 1 zooms in) keeping the point under screen fraction `anchor` in place. */
export function zoomView(view: View, factor: number, anchor: number, minSpan: number): View {
  const span = view.b - view.a;
  const next = Math.min(1, Math.max(minSpan, span / factor));
  const p = view.a + anchor * span;
  return clampView(p - anchor * next, next);
}

/** Pans by `ds` screen fractions (positive moves the content right, i.e. shows lower frequencies). */
export function panView(view: View, ds: number): View {
  const span = view.b - view.a;
  return clampView(view.a - ds * span, span);
}

// ---------------------------------------------------------------------------------------------------
// Ticks and labels

export interface Tick {
  value: number;
  /** Screen fraction (0..1). */
  pos: number;
  label: string;
  major: boolean;
}

/** Ticks for the visible part of a frequency axis `pixels` wide (CSS px), about `spacing` px apart. */
export function frequencyTicks(axis: FrequencyAxis, view: View, pixels: number, spacing = 90): Tick[] {
  const fa = screenToFrequency(axis, view, 0);
  const fb = screenToFrequency(axis, view, 1);
  const unitRef = Math.max(Math.abs(fa), Math.abs(fb));
  const decades = axis.log ? Math.log10(fb / fa) : 0;
  if (!axis.log || decades < 0.6) {
    const step = niceStep(((fb - fa) * spacing) / Math.max(1, pixels));
    return linearTickValues(fa, fb, step).map((f) => ({
      value: f,
      pos: frequencyToScreen(axis, view, f),
      label: formatFrequency(f, step, unitRef),
      major: true,
    }));
  }
  const perDecade = pixels / decades;
  const marks = perDecade > 500 ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : perDecade > 180 ? [1, 2, 5] : [1];
  const labelled =
    perDecade > 900 ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : perDecade > 200 ? [1, 2, 5] : perDecade > 90 ? [1] : [];
  const every = perDecade > 90 ? 1 : Math.ceil(90 / perDecade);
  const out: Tick[] = [];
  for (let d = Math.floor(Math.log10(fa)); d <= Math.ceil(Math.log10(fb)); d++) {
    const base = Math.pow(10, d);
    for (const m of [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const f = m * base;
      if (f < fa * (1 - 1e-9) || f > fb * (1 + 1e-9)) continue;
      const tickable = marks.includes(m) || perDecade > 60;
      if (!tickable) continue;
      const isLabelled = labelled.includes(m) || (m === 1 && labelled.length === 0 && d % every === 0);
      out.push({
        value: f,
        pos: frequencyToScreen(axis, view, f),
        label: isLabelled ? formatFrequency(f, f, f) : '',
        major: m === 1,
      });
    }
  }
  return out;
}

/** Level ticks (dB) over [min, max] for a plot `pixels` tall, about `spacing` px apart. pos 0 = max. */
export function levelTicks(min: number, max: number, pixels: number, spacing = 28): Tick[] {
  const step = niceStep(((max - min) * spacing) / Math.max(1, pixels));
  return linearTickValues(min, max, step).map((v) => ({
    value: v,
    pos: (max - v) / (max - min),
    label: `${Math.round(v * 100) / 100}`,
    major: true,
  }));
}

/** Time ticks for a waterfall showing `seconds` of history over `pixels` (pos 0 = newest at top). */
export function timeTicks(offsetSeconds: number, seconds: number, pixels: number, spacing = 40): Tick[] {
  if (!(seconds > 0)) return [];
  const step = niceStep((seconds * spacing) / Math.max(1, pixels));
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
  return linearTickValues(offsetSeconds, offsetSeconds + seconds, step).map((t) => ({
    value: t,
    pos: (t - offsetSeconds) / seconds,
    label: t === 0 ? '0' : `−${t.toFixed(decimals)}`,
    major: true,
  }));
}

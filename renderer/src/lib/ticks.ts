// Ticks for plain linear axes (the file spectrogram's time and frequency): nice steps about `spacing`
// pixels apart, labels in the unit that suits the range.

import { formatTime } from '../../../electron/engine/protocol/ticks.js';
import { formatFrequency, frequencyUnit, linearTickValues, niceStep, type Tick } from './axis.js';

export { formatTime };

/** Ticks along x for times [t0, t1] over `pixels` (pos 0 = t0 at the left). */
export function timeAxisTicks(t0: number, t1: number, pixels: number, spacing = 80): Tick[] {
  if (!(t1 > t0)) return [];
  const step = niceStep(((t1 - t0) * spacing) / Math.max(1, pixels));
  return linearTickValues(t0, t1, step).map((t) => ({
    value: t,
    pos: (t - t0) / (t1 - t0),
    label: formatTime(t, step),
    major: true,
  }));
}

/** Ticks along y for frequencies [f0, f1] over `pixels` (pos 0 = f1 at the top). */
export function frequencyAxisTicks(f0: number, f1: number, pixels: number, spacing = 36): Tick[] {
  if (!(f1 > f0)) return [];
  const step = niceStep(((f1 - f0) * spacing) / Math.max(1, pixels));
  const unitRef = Math.max(Math.abs(f0), Math.abs(f1));
  return linearTickValues(f0, f1, step).map((f) => ({
    value: f,
    pos: (f1 - f) / (f1 - f0),
    // The axis is narrow: the unit goes in the axis title, the labels carry numbers only.
    label: formatFrequency(f, step, unitRef).replace(/\s*[kMG]?Hz$/, ''),
    major: true,
  }));
}

/** The unit frequency labels of this range are written in ('kHz'…). */
export function frequencyAxisUnit(f0: number, f1: number): string {
  return frequencyUnit(Math.max(Math.abs(f0), Math.abs(f1)))[1];
}

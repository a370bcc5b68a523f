// The band the Live view measures (measureLive): between the first two markers when there are two, else
// the part of the spectrum the plot shows when it is zoomed in, else the whole span.

import { screenToFrequency, type FrequencyAxis, type View } from './axis.js';
import type { Marker } from './markers.js';

export interface LiveMeasureBand {
  /** Band edges (Hz, absolute as the session's frequencyRange); absent: the whole span. */
  fLow?: number;
  fHigh?: number;
  from: 'markers' | 'zoom' | 'span';
}

export function liveMeasureBand(
  markers: readonly Marker[],
  axis: FrequencyAxis | null,
  view: View,
): LiveMeasureBand {
  if (markers.length >= 2) {
    const [a, b] = [markers[0].frequency, markers[1].frequency];
    return { fLow: Math.min(a, b), fHigh: Math.max(a, b), from: 'markers' };
  }
  if (axis && (view.a > 0 || view.b < 1)) {
    const lo = screenToFrequency(axis, view, 0);
    const hi = screenToFrequency(axis, view, 1);
    return { fLow: Math.max(lo, axis.f0), fHigh: Math.min(hi, axis.f1), from: 'zoom' };
  }
  return { from: 'span' };
}

/** What the panel says about where the band came from. */
export const LIVE_BAND_SOURCE: Readonly<Record<LiveMeasureBand['from'], string>> = {
  markers: 'between markers 1 and 2',
  zoom: 'the zoomed-in view',
  span: 'the whole span',
};

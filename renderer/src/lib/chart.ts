// uPlot options in Phasor's look (the theme's plot colours, muted grid, the live view's palette), and axis
// label formatters for Hz, dB, seconds, sizes. Colours are functions that read the theme when uPlot draws,
// so a chart made again or redrawn after a theme change takes the new ones.

import type uPlot from 'uplot';
import { formatFrequency, frequencyUnit } from './axis.js';
import { chartColor, themeColor } from './theme.js';

export { chartColor };
export const CHART_FONT = '11px Inter, "Segoe UI", system-ui, sans-serif';

export function axis(label: string, extra: Partial<uPlot.Axis> = {}): uPlot.Axis {
  return {
    label,
    stroke: () => themeColor('chart-axis'),
    font: CHART_FONT,
    labelFont: CHART_FONT,
    labelSize: 16,
    grid: { stroke: () => themeColor('grid'), width: 1 },
    ticks: { stroke: () => themeColor('chart-ticks'), width: 1, size: 4 },
    ...extra,
  };
}

/** Frequency tick labels in one unit for the whole axis (kHz, MHz…). */
export function hzValues(_u: uPlot, values: number[]): string[] {
  const finite = values.filter(Number.isFinite);
  const ref = finite.length ? Math.max(...finite.map(Math.abs)) : 1;
  const step = finite.length > 1 ? Math.abs(finite[1] - finite[0]) : ref || 1;
  return values.map((v) => (Number.isFinite(v) ? formatFrequency(v, step, ref) : ''));
}

/** The unit hzValues writes for a range. */
export function hzUnit(maxAbs: number): string {
  return frequencyUnit(maxAbs)[1];
}

/** 1k, 64k, 1M for sizes on a log2 axis. */
export function sizeLabel(v: number): string {
  if (v >= 1 << 20 && v % (1 << 20) === 0) return `${v / (1 << 20)}M`;
  if (v >= 1024 && v % 1024 === 0) return `${v / 1024}k`;
  return String(v);
}

export function seriesStyle(i: number, extra: Partial<uPlot.Series> = {}): uPlot.Series {
  return { stroke: () => chartColor(i), width: 1.5, points: { show: false }, ...extra };
}

/** Whether uPlot can draw here (a 2D canvas exists: not so in the DOM-less test environment). */
export function canDraw(): boolean {
  try {
    return !!document.createElement('canvas').getContext('2d');
  } catch {
    return false;
  }
}

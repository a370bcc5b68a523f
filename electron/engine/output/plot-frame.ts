// Frames a bare spectrogram image (time →, frequency ↑) for a PNG a person reads on its own: a title line,
// a frequency axis on the left, a time axis below, a colour bar with its dB scale on the right. The image
// itself becomes the plot's data area unchanged, pixel for pixel, with margins added around it.
//
// Ticks sit at nice values (protocol/ticks.ts, as in the app); a value v of an axis spanning [lo, hi] over
// n pixels falls in pixel floor((v − lo) / (hi − lo) · n) from the low end (the top end for frequency and
// level). Text is the 5 × 7 bitmap font of font.ts.

import { binFrequency, binWidth, spectrumBins } from '../protocol/shape.js';
import { formatFrequency, formatTime, frequencyUnit, linearTickValues, niceStep } from '../protocol/ticks.js';
import type { ColormapName } from './colormaps.js';
import { drawText, GLYPH_HEIGHT, textWidth, type RgbaImage } from './font.js';
import { colorize } from './image.js';

export interface PlotFrameOptions {
  /** The bare image (RGBA, width × height): the data area. */
  image: Uint8Array;
  width: number;
  height: number;
  /** Seconds from the start of the recording at the left and right edges of the data area. */
  time: readonly [number, number];
  /** Frequencies (Hz) at the bottom and top edges of the data area. */
  frequency: readonly [number, number];
  /** Levels (dB) mapped onto the colormap, low to high, and the colormap. */
  range: readonly [number, number];
  colormap: ColormapName;
  /** Title line (file name, start time…); cut short with "..." when wider than the image. */
  title: string;
  /** Font pixels per bitmap pixel; default 2 for images at least 1000 × 400, else 1. */
  scale?: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PixelTick {
  value: number;
  /** Column (time) or row (frequency, level) of the tick mark in the framed image. */
  pixel: number;
  label: string;
}

export interface TextBox {
  text: string;
  x: number;
  y: number;
  scale: number;
}

export interface FramedPlot extends RgbaImage {
  /** Where the bare image lies. */
  plot: Rect;
  /** The colour bar (top = highest level). */
  colorBar: Rect;
  frequencyTicks: PixelTick[];
  timeTicks: PixelTick[];
  levelTicks: PixelTick[];
  /** Every text drawn, with its top-left corner. */
  texts: TextBox[];
  scale: number;
}

export const FRAME_BACKGROUND: readonly [number, number, number] = [255, 255, 255];
export const FRAME_INK: readonly [number, number, number] = [0, 0, 0];

/** Pixel (from the low end) where v falls on an axis spanning [lo, hi] over n pixels, or null outside. */
export function axisPixel(v: number, lo: number, hi: number, n: number): number | null {
  const p = Math.floor(((v - lo) / (hi - lo)) * n + 1e-9);
  if (p < 0 || p > n) return null;
  return Math.min(n - 1, p);
}

interface AxisTicks {
  step: number;
  values: number[];
}

function ticksFor(lo: number, hi: number, pixels: number, spacing: number): AxisTicks {
  if (!(hi > lo)) return { step: 1, values: [] };
  const step = niceStep(((hi - lo) * spacing) / Math.max(1, pixels));
  return { step, values: linearTickValues(lo, hi, step) };
}

function fill(img: RgbaImage, r: Rect, c: readonly [number, number, number]): void {
  const x0 = Math.max(0, r.x);
  const x1 = Math.min(img.width, r.x + r.width);
  const y0 = Math.max(0, r.y);
  const y1 = Math.min(img.height, r.y + r.height);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * img.width + x) * 4;
      img.data[o] = c[0];
      img.data[o + 1] = c[1];
      img.data[o + 2] = c[2];
      img.data[o + 3] = 255;
    }
  }
}

/** A one-pixel outline just outside r. */
function outline(img: RgbaImage, r: Rect, c: readonly [number, number, number]): void {
  fill(img, { x: r.x - 1, y: r.y - 1, width: r.width + 2, height: 1 }, c);
  fill(img, { x: r.x - 1, y: r.y + r.height, width: r.width + 2, height: 1 }, c);
  fill(img, { x: r.x - 1, y: r.y, width: 1, height: r.height }, c);
  fill(img, { x: r.x + r.width, y: r.y, width: 1, height: r.height }, c);
}

function copyInto(img: RgbaImage, src: Uint8Array, r: Rect): void {
  for (let y = 0; y < r.height; y++) {
    const from = y * r.width * 4;
    img.data.set(src.subarray(from, from + r.width * 4), ((r.y + y) * img.width + r.x) * 4);
  }
}

function fitText(text: string, width: number, scale: number): string {
  if (textWidth(text, scale) <= width) return text;
  const chars = Array.from(text);
  while (chars.length > 0 && textWidth(`${chars.join('')}...`, scale) > width) chars.pop();
  return chars.length ? `${chars.join('')}...` : '';
}

/** Time (s, from sample 0) at the left and right edges, and frequency (Hz, absolute for I/Q with a centre)
 * at the bottom and top edges, of a whole-file spectrogram image of `frames` frames (pipeline's
 * spectrogramImage): frames are spread evenly across the columns, each centred on its middle sample; bins
 * evenly up the rows, each half a bin wide either side of its frequency. */
export function spectrogramExtent(o: {
  sampleRate: number;
  complex: boolean;
  centerFrequency?: number;
  fft: number;
  hop: number;
  frames: number;
}): { time: [number, number]; frequency: [number, number] } {
  const centre = o.centerFrequency ?? 0;
  const half = binWidth(o.sampleRate, o.fft) / 2;
  const bins = spectrumBins(o.fft, o.complex);
  const centreTime = (f: number): number => (f * o.hop + o.fft / 2) / o.sampleRate;
  return {
    time: [centreTime(-0.5), centreTime(o.frames - 0.5)],
    frequency: [
      binFrequency(0, o.fft, o.sampleRate, o.complex, centre) - half,
      binFrequency(bins - 1, o.fft, o.sampleRate, o.complex, centre) + half,
    ],
  };
}

/** The framed plot of a bare spectrogram image. */
export function framePlot(o: PlotFrameOptions): FramedPlot {
  const W = o.width;
  const H = o.height;
  if (o.image.length !== W * H * 4)
    throw new Error(`internal: image holds ${o.image.length} bytes, not ${W}×${H}×4`);
  const s = o.scale ?? (W >= 1000 && H >= 400 ? 2 : 1);
  const line = GLYPH_HEIGHT * s;
  const tick = 4 * s;
  const gap = 3 * s;
  const pad = 6 * s;

  const [f0, f1] = o.frequency;
  const [t0, t1] = o.time;
  const [lo, hi] = o.range;
  const fAxis = ticksFor(f0, f1, H, 50 * s);
  const tAxis = ticksFor(t0, t1, W, 100 * s);
  const lAxis = ticksFor(lo, hi, H, 40 * s);
  const [unitScale, unitName] = frequencyUnit(Math.max(Math.abs(f0), Math.abs(f1)));
  const fLabels = fAxis.values.map((f) =>
    formatFrequency(f, fAxis.step, unitScale).replace(/\s*[kMG]?Hz$/, ''),
  );
  const tLabels = tAxis.values.map((t) => formatTime(t, tAxis.step));
  const lLabels = lAxis.values.map((v) => `${Math.round(v * 100) / 100}`);
  const widest = (labels: string[]): number => Math.max(0, ...labels.map((l) => textWidth(l, s)));

  // Margins: the frame's outline (1 px) and the tick marks, labels and titles beyond it.
  const unitTitle = unitName;
  const left = pad + Math.max(widest(fLabels), textWidth(unitTitle, s)) + gap + tick + 1;
  // The unit line sits half a line higher than the gap alone would put it: a label of a tick at the top edge
  // reaches that far up.
  const half = Math.floor(line / 2);
  const top = pad + line + 2 * gap + line + gap + half + 1;
  const unitY = top - 1 - half - gap - line;
  const bottom = 1 + tick + gap + line + 2 * gap + line + pad;
  const barGap = 10 * s;
  const barWidth = 12 * s;
  const right =
    1 + barGap + 1 + barWidth + 1 + tick + gap + Math.max(widest(lLabels), textWidth('dBFS', s)) + pad;

  const img: RgbaImage = {
    data: new Uint8Array((left + W + right) * (top + H + bottom) * 4),
    width: left + W + right,
    height: top + H + bottom,
  };
  fill(img, { x: 0, y: 0, width: img.width, height: img.height }, FRAME_BACKGROUND);
  const plot: Rect = { x: left, y: top, width: W, height: H };
  const colorBar: Rect = { x: left + W + 1 + barGap + 1, y: top, width: barWidth, height: H };
  const texts: TextBox[] = [];
  const text = (t: string, x: number, y: number): void => {
    if (!t) return;
    drawText(img, t, x, y, FRAME_INK, s);
    texts.push({ text: t, x, y, scale: s });
  };

  copyInto(img, o.image, plot);
  outline(img, plot, FRAME_INK);

  // Colour bar: each row coloured as the level at its middle would be.
  const column = new Float32Array(H * barWidth);
  for (let y = 0; y < H; y++) column.fill(hi - ((y + 0.5) / H) * (hi - lo), y * barWidth, (y + 1) * barWidth);
  copyInto(img, colorize({ levels: column, width: barWidth, height: H }, [lo, hi], o.colormap), colorBar);
  outline(img, colorBar, FRAME_INK);

  // Frequency axis (left): value f at row floor((f1 − f) / (f1 − f0) · H).
  const frequencyTicks: PixelTick[] = [];
  let lastY = -Infinity;
  fAxis.values.forEach((f, i) => {
    const p = axisPixel(f1 - f, 0, f1 - f0, H);
    if (p === null) return;
    const y = top + p;
    fill(img, { x: left - 1 - tick, y, width: tick, height: 1 }, FRAME_INK);
    frequencyTicks.push({ value: f, pixel: y, label: fLabels[i] });
    const ty = Math.min(img.height - line, Math.max(0, y - half));
    if (Math.abs(ty - lastY) < line + s) return;
    text(fLabels[i], left - 1 - tick - gap - textWidth(fLabels[i], s), ty);
    lastY = ty;
  });
  text(unitTitle, left - 1 - tick - gap - textWidth(unitTitle, s), unitY);

  // Time axis (below): t at column floor((t − t0) / (t1 − t0) · W).
  const timeTicks: PixelTick[] = [];
  let lastRight = -Infinity;
  const labelY = top + H + 1 + tick + gap;
  tAxis.values.forEach((t, i) => {
    const p = axisPixel(t, t0, t1, W);
    if (p === null) return;
    const x = left + p;
    fill(img, { x, y: top + H + 1, width: 1, height: tick }, FRAME_INK);
    timeTicks.push({ value: t, pixel: x, label: tLabels[i] });
    const w = textWidth(tLabels[i], s);
    const lx = Math.min(img.width - w, Math.max(0, x - Math.floor(w / 2)));
    if (lx < lastRight + 4 * s) return;
    text(tLabels[i], lx, labelY);
    lastRight = lx + w;
  });
  const timeTitle =
    Math.max(Math.abs(t0), Math.abs(t1)) >= 60 && tAxis.step >= 1 ? 'time (m:ss)' : 'time (s)';
  text(timeTitle, left + Math.floor((W - textWidth(timeTitle, s)) / 2), labelY + line + 2 * gap);

  // Level scale (right of the colour bar).
  const levelTicks: PixelTick[] = [];
  lastY = -Infinity;
  const barRight = colorBar.x + colorBar.width + 1;
  lAxis.values.forEach((v, i) => {
    const p = axisPixel(hi - v, 0, hi - lo, H);
    if (p === null) return;
    const y = top + p;
    fill(img, { x: barRight, y, width: tick, height: 1 }, FRAME_INK);
    levelTicks.push({ value: v, pixel: y, label: lLabels[i] });
    const ty = Math.min(img.height - line, Math.max(0, y - half));
    if (Math.abs(ty - lastY) < line + s) return;
    text(lLabels[i], barRight + tick + gap, ty);
    lastY = ty;
  });
  text('dBFS', colorBar.x - 1, unitY);

  text(fitText(o.title, img.width - 2 * pad, s), pad, pad);

  return { ...img, plot, colorBar, frequencyTicks, timeTicks, levelTicks, texts, scale: s };
}

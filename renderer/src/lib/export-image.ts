// PNG export of the File view's spectrogram: the plot's canvas as drawn (device pixels), framed by a
// frequency axis, a time axis, a colour bar with its dB scale and a caption (file name, start time, FFT,
// window, range), composed on a 2D canvas. The layout is a pure function so tests can find the parts.

import type { FileInfo } from '../../../electron/engine/protocol/messages.js';
import { levelTicks } from './axis.js';
import { formatSeconds } from './format.js';
import { stem } from './paths.js';
import { themeColor } from './theme.js';
import { download } from './snapshot.js';
import { frequencyToScreen, timeToScreen, type Region } from './file-view.js';
import { frequencyAxisTicks, frequencyAxisUnit, timeAxisTicks } from './ticks.js';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ExportLayout {
  width: number;
  height: number;
  /** The spectrogram, its canvas pixel for pixel. */
  plot: Box;
  /** The colour bar: highest level at the top. */
  colorBar: Box;
  /** Pixels per CSS pixel of the margins' drawing (text, ticks). */
  k: number;
}

/** The export's colours: the theme's page background, muted frame and ticks, text. */
export function exportColors(): { background: string; frame: string; text: string; muted: string } {
  return {
    background: themeColor('bg'),
    frame: themeColor('muted'),
    text: themeColor('text'),
    muted: themeColor('muted'),
  };
}

/** Where the parts of an export of a `width` × `height` plot lie, margins drawn at scale `k`. */
export function exportLayout(width: number, height: number, k = 1): ExportLayout {
  const m = (v: number) => Math.round(v * k);
  const left = m(64);
  const top = m(56);
  const bottom = m(40);
  const right = m(84);
  return {
    width: left + width + right,
    height: top + height + bottom,
    plot: { x: left, y: top, width, height },
    colorBar: { x: left + width + m(14), y: top, width: m(14), height },
    k,
  };
}

export interface SpectrogramExport {
  /** The plot's canvas (as FileSpectrogram draws it). */
  canvas: HTMLCanvasElement;
  file: Pick<FileInfo, 'name' | 'sampleRate' | 'startTime'>;
  region: Region;
  levels: readonly [number, number];
  /** 256 RGBA entries (lib/colormap.ts colormapRgba). */
  colormap: Uint8Array;
  /** FFT length and window of the image on screen. */
  fft?: number;
  window: string;
  k?: number;
}

/** "name · start 2024-…Z" or "name · start time unknown". */
export function exportTitle(file: Pick<FileInfo, 'name' | 'startTime'>): string {
  return `${file.name} · ${file.startTime ? `start ${file.startTime}` : 'start time unknown'}`;
}

/** Colour-bar row y of `rows` (0 = top): the colormap entry of the level at the row's middle. */
export function colorBarIndex(y: number, rows: number): number {
  return Math.max(0, Math.min(255, Math.round((1 - (y + 0.5) / rows) * 255)));
}

/** The framed export drawn on a new canvas. */
export function composeSpectrogramExport(o: SpectrogramExport): HTMLCanvasElement {
  const k = o.k ?? 1;
  const L = exportLayout(o.canvas.width, o.canvas.height, k);
  const out = document.createElement('canvas');
  out.width = L.width;
  out.height = L.height;
  const ctx = out.getContext('2d');
  if (!ctx) throw new Error('cannot draw the export (no 2D canvas)');
  const { plot, colorBar } = L;
  const EXPORT_COLORS = exportColors();
  ctx.fillStyle = EXPORT_COLORS.background;
  ctx.fillRect(0, 0, L.width, L.height);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(o.canvas, plot.x, plot.y);

  // Colour bar, one colormap entry per row.
  const bar = ctx.createImageData(colorBar.width, colorBar.height);
  for (let y = 0; y < colorBar.height; y++) {
    const i = 4 * colorBarIndex(y, colorBar.height);
    for (let x = 0; x < colorBar.width; x++)
      bar.data.set(o.colormap.subarray(i, i + 4), 4 * (y * colorBar.width + x));
  }
  ctx.putImageData(bar, colorBar.x, colorBar.y);

  // Frames: one pixel just outside the plot and the bar.
  ctx.fillStyle = EXPORT_COLORS.frame;
  for (const b of [plot, colorBar]) {
    ctx.fillRect(b.x - 1, b.y - 1, b.width + 2, 1);
    ctx.fillRect(b.x - 1, b.y + b.height, b.width + 2, 1);
    ctx.fillRect(b.x - 1, b.y, 1, b.height);
    ctx.fillRect(b.x + b.width, b.y, 1, b.height);
  }

  const r = o.region;
  const tick = Math.round(5 * k);
  ctx.font = `${Math.round(11 * k)}px Inter, "Segoe UI", system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  // Frequency axis: ticks about 36 CSS px apart over the plot's height.
  ctx.textAlign = 'right';
  for (const t of frequencyAxisTicks(r.f0, r.f1, plot.height / k)) {
    const y = plot.y + Math.min(plot.height - 1, Math.floor(frequencyToScreen(r, t.value) * plot.height));
    ctx.fillStyle = EXPORT_COLORS.frame;
    ctx.fillRect(plot.x - 1 - tick, y, tick, 1);
    ctx.fillStyle = EXPORT_COLORS.text;
    ctx.fillText(t.label, plot.x - 1 - tick - Math.round(3 * k), y);
  }
  // Time axis.
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of timeAxisTicks(r.t0, r.t1, plot.width / k)) {
    const x = plot.x + Math.min(plot.width - 1, Math.floor(timeToScreen(r, t.value) * plot.width));
    ctx.fillStyle = EXPORT_COLORS.frame;
    ctx.fillRect(x, plot.y + plot.height + 1, 1, tick);
    ctx.fillStyle = EXPORT_COLORS.text;
    ctx.fillText(t.label, x, plot.y + plot.height + 1 + tick + Math.round(2 * k));
  }
  ctx.fillStyle = EXPORT_COLORS.muted;
  ctx.fillText(
    Math.max(Math.abs(r.t0), Math.abs(r.t1)) >= 60 ? 'time (s; m:ss past a minute)' : 'time (s)',
    plot.x + plot.width / 2,
    plot.y + plot.height + Math.round(22 * k),
  );
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillText(
    frequencyAxisUnit(r.f0, r.f1),
    plot.x - 1 - tick - Math.round(3 * k),
    plot.y - Math.round(4 * k),
  );

  // Level scale beside the bar.
  const [lo, hi] = o.levels;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  ctx.fillText('dBFS', colorBar.x - 1, colorBar.y - Math.round(4 * k));
  ctx.textBaseline = 'middle';
  for (const t of levelTicks(lo, hi, colorBar.height / k)) {
    const y = colorBar.y + Math.min(colorBar.height - 1, Math.floor(t.pos * colorBar.height));
    ctx.fillStyle = EXPORT_COLORS.frame;
    ctx.fillRect(colorBar.x + colorBar.width + 1, y, tick, 1);
    ctx.fillStyle = EXPORT_COLORS.text;
    ctx.fillText(t.label, colorBar.x + colorBar.width + 1 + tick + Math.round(3 * k), y);
  }

  // Caption: the file and its start time, then the analysis.
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillStyle = EXPORT_COLORS.text;
  ctx.fillText(exportTitle(o.file), Math.round(8 * k), Math.round(6 * k));
  ctx.fillStyle = EXPORT_COLORS.muted;
  ctx.fillText(
    [
      o.fft ? `FFT ${o.fft} ${o.window}` : o.window,
      `${formatSeconds(r.t0)} – ${formatSeconds(r.t1)}`,
      `${lo} to ${hi} dBFS`,
    ].join(' · '),
    Math.round(8 * k),
    Math.round(21 * k),
  );
  return out;
}

/** The canvas as PNG bytes. */
export function canvasPng(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))),
      'image/png',
    ),
  );
}

/** Exports the spectrogram pane `root` (a FileSpectrogram) as `<file>-spectrogram.png`. */
export async function exportSpectrogramPng(
  root: HTMLElement,
  o: Omit<SpectrogramExport, 'canvas' | 'k'>,
): Promise<void> {
  const canvas = root.querySelector<HTMLCanvasElement>('[data-test="file-canvas"]');
  if (!canvas || canvas.width < 2 || canvas.height < 2) throw new Error('the spectrogram is not drawn yet');
  const k = canvas.clientWidth > 0 ? canvas.width / canvas.clientWidth : 1;
  const blob = await canvasPng(composeSpectrogramExport({ ...o, canvas, k }));
  download(blob, `${stem(o.file.name)}-spectrogram.png`);
}

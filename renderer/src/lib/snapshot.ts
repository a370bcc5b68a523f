// PNG snapshot of the live display: every canvas inside it composed at device resolution (the WebGL
// canvas is drawn just before, in the same task, so its buffer still holds the image), a colour bar with
// the waterfall's dB scale beside it, and a caption ending with the UTC time the waterfall's 0 s stands for.

import { levelTicks } from './axis.js';
import { colormapRgba, type ColormapName } from './colormap.js';
import { themeColor } from './theme.js';
import { useSettingsStore } from '../stores/settings.js';

/** The waterfall's colouring, for the colour bar: the settings' levels and colormap unless given. */
export interface SnapshotColors {
  levels: readonly [number, number];
  colormap: ColormapName;
}

/** Width (CSS px) added on the right for the colour bar and its labels. */
export const SNAPSHOT_BAR_AREA = 64;

/** Draws the colour bar (top = highest level) at x over the waterfall's rows [y0, y1), labels to its right. */
function drawColorBar(
  ctx: CanvasRenderingContext2D,
  c: SnapshotColors,
  x: number,
  y0: number,
  y1: number,
  dpr: number,
): void {
  const rows = Math.max(1, Math.round(y1 - y0));
  const width = Math.round(12 * dpr);
  const lut = colormapRgba(c.colormap);
  const bar = ctx.createImageData(width, rows);
  for (let y = 0; y < rows; y++) {
    const i = 4 * Math.max(0, Math.min(255, Math.round((1 - (y + 0.5) / rows) * 255)));
    for (let xx = 0; xx < width; xx++) bar.data.set(lut.subarray(i, i + 4), 4 * (y * width + xx));
  }
  ctx.putImageData(bar, Math.round(x), Math.round(y0));
  ctx.strokeStyle = themeColor('muted');
  ctx.strokeRect(Math.round(x) - 0.5, Math.round(y0) - 0.5, width + 1, rows + 1);
  ctx.fillStyle = themeColor('axis-label');
  ctx.font = `${Math.round(10 * dpr)}px Inter, "Segoe UI", system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  const [lo, hi] = c.levels;
  for (const t of levelTicks(lo, hi, rows / dpr)) {
    const y = Math.round(y0 + t.pos * rows);
    ctx.fillRect(Math.round(x) + width + 1, y, Math.round(4 * dpr), 1);
    ctx.fillText(t.label, Math.round(x) + width + Math.round(7 * dpr), y);
  }
  ctx.textBaseline = 'bottom';
  ctx.fillText('dBFS', Math.round(x), Math.round(y0) - Math.round(7 * dpr));
}

export async function composeSnapshot(
  root: HTMLElement,
  caption: string,
  background: string,
  colors?: SnapshotColors,
): Promise<Blob> {
  const rect = root.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const captionHeight = Math.round(20 * dpr);
  const settings = colors ? null : useSettingsStore().s;
  const coloring: SnapshotColors = colors ?? {
    levels: [settings!.dbMin, settings!.dbMax],
    colormap: settings!.colormap,
  };
  const waterfall = root.querySelector('[data-test="waterfall"]')?.getBoundingClientRect();
  const barArea = waterfall && waterfall.height > 0 ? Math.round(SNAPSHOT_BAR_AREA * dpr) : 0;
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round(rect.width * dpr) + barArea);
  out.height = Math.max(1, Math.round(rect.height * dpr) + captionHeight);
  const ctx = out.getContext('2d');
  if (!ctx) throw new Error('cannot draw the snapshot (no 2D canvas)');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, out.width, out.height);
  for (const c of Array.from(root.querySelectorAll('canvas'))) {
    const r = c.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    ctx.drawImage(
      c,
      Math.round((r.left - rect.left) * dpr),
      Math.round((r.top - rect.top) * dpr),
      Math.round(r.width * dpr),
      Math.round(r.height * dpr),
    );
  }
  if (waterfall && barArea > 0) {
    drawColorBar(
      ctx,
      coloring,
      Math.round(rect.width * dpr) + Math.round(10 * dpr),
      (waterfall.top - rect.top) * dpr,
      (waterfall.bottom - rect.top) * dpr,
      dpr,
    );
  }
  ctx.fillStyle = themeColor('muted');
  ctx.font = `${Math.round(11 * dpr)}px Inter, "Segoe UI", system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  // The waterfall's time axis counts back from its newest row: say when that was, in UTC.
  ctx.fillText(
    `${caption} · 0 s = ${new Date().toISOString()}`,
    Math.round(8 * dpr),
    out.height - captionHeight / 2,
  );
  return new Promise<Blob>((resolve, reject) =>
    out.toBlob(
      (b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))),
      'image/png',
    ),
  );
}

/** Offers `blob` as a download named `name`. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

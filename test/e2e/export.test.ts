// The File view's exports in web mode, end to end: `phasor serve` and the built renderer in headless
// Chromium on a WAV this test writes (two tones). "Export PNG" downloads the spectrogram framed by its axes
// (tick marks where the frequencies and times fall), a colour bar running through the colormap, and a
// caption; "Export CSV" downloads the spectrum pane's Welch average, whose maxima are the two tones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colormapTable } from '../../electron/engine/output/colormaps.js';
import { niceStep } from '../../electron/engine/protocol/ticks.js';
import { colorBarIndex, exportLayout } from '../../renderer/src/lib/export-image.js';
import { AppPage, parseCsv } from './app.js';
import { tones, writeWav } from './fixtures.js';
import { decodePng, launchChromium, startServe, type Image, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

// 16 kHz, 3 s: 1 kHz at 0.3 (−10.46 dBFS) and 5 kHz at 0.1 (−20 dBFS), both on bins of a 4096-point FFT.
const FS = 16000;
const SECONDS = 3;
const TONES: Array<[number, number]> = [
  [1000, 0.3],
  [5000, 0.1],
];

let dir: string;
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

const downloadOf = (selector: string) => app.download(selector, 'e2e-export-');

const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const rgb = (img: Image, x: number, y: number) =>
  Array.from(img.data.subarray(4 * (y * img.width + x), 4 * (y * img.width + x) + 3));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-export-'));
  writeWav(join(dir, 'two-tones.wav'), FS, tones(FS, SECONDS * FS, TONES));
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  app = await AppPage.open(browser, server, { timeout: 15_000, hash: '#/file' });
  page = app.page;
  await app.openFile(dir, 'two-tones.wav');
  await app.until('window.__phasor.fileFramesDrawn > 0');
  await page.waitForTimeout(100);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('File view exports in web mode', needs(chromium), () => {
  it('exports the spectrogram as a PNG with its axes, colour bar and caption', async () => {
    const size = (await page.evaluate(
      `(() => { const c = document.querySelector('[data-test="file-canvas"]'); return [c.width, c.height]; })()`,
    )) as [number, number];
    const { name, bytes } = await downloadOf('[data-test="file-export-png"]');
    expect(name).toBe('two-tones-spectrogram.png');
    const png = decodePng(bytes);
    const L = exportLayout(size[0], size[1], 1);
    expect([png.width, png.height]).toEqual([L.width, L.height]);
    const { plot, colorBar } = L;
    // the export's colours are the page theme's (lib/export-image.ts exportColors)
    const themeVar = async (name: string) =>
      hex(
        (await page.evaluate(
          `getComputedStyle(document.documentElement).getPropertyValue('--${name}').trim()`,
        )) as string,
      );
    const frame = await themeVar('muted');
    const background = await themeVar('bg');

    // The frame: one pixel all round the plot.
    for (let x = plot.x - 1; x <= plot.x + plot.width; x++) {
      expect(rgb(png, x, plot.y - 1)).toEqual(frame);
      expect(rgb(png, x, plot.y + plot.height)).toEqual(frame);
    }
    for (let y = plot.y; y < plot.y + plot.height; y++) expect(rgb(png, plot.x - 1, y)).toEqual(frame);

    // Frequency ticks (whole file: 0 … 8 kHz, about 36 px apart) left of the frame, on the rows the
    // frequencies fall in, and nowhere else in that column.
    const fStep = niceStep((8000 * 36) / plot.height);
    const fRows = new Set<number>();
    for (let f = 0; f <= 8000; f += fStep)
      fRows.add(plot.y + Math.min(plot.height - 1, Math.floor(((8000 - f) / 8000) * plot.height)));
    expect(fRows.size).toBeGreaterThanOrEqual(5);
    for (let y = plot.y; y < plot.y + plot.height; y++)
      expect(rgb(png, plot.x - 3, y), `row ${y}`).toEqual(fRows.has(y) ? frame : background);

    // Time ticks (0 … 3 s, about 80 px apart) under the frame.
    const tStep = niceStep((SECONDS * 80) / plot.width);
    const tCols = new Set<number>();
    for (let k = 0; k * tStep <= SECONDS + 1e-9; k++)
      tCols.add(plot.x + Math.min(plot.width - 1, Math.floor(((k * tStep) / SECONDS) * plot.width)));
    expect(tCols.size).toBeGreaterThanOrEqual(4);
    for (let x = plot.x; x < plot.x + plot.width; x++)
      expect(rgb(png, x, plot.y + plot.height + 3), `column ${x}`).toEqual(tCols.has(x) ? frame : background);

    // The colour bar: viridis from its top entry down to its bottom one, row by row.
    const lut = colormapTable('viridis');
    let last = 256;
    for (let y = 0; y < colorBar.height; y++) {
      const i = colorBarIndex(y, colorBar.height);
      expect(i).toBeLessThanOrEqual(last);
      last = i;
      expect(rgb(png, colorBar.x + 7, colorBar.y + y)).toEqual([lut[3 * i], lut[3 * i + 1], lut[3 * i + 2]]);
    }
    expect(colorBarIndex(0, colorBar.height)).toBe(255);
    expect(last).toBe(0);

    // The plot is the spectrogram: its two brightest rows are those of 1 kHz and 5 kHz.
    const lum = Array.from({ length: plot.height }, (_, y) => {
      let s = 0;
      for (let x = plot.x; x < plot.x + plot.width; x++)
        s += rgb(png, x, plot.y + y).reduce((a, b) => a + b, 0);
      return s;
    });
    const rowOf = (f: number) => Math.floor(((8000 - f) / 8000) * plot.height);
    const top = lum.indexOf(Math.max(...lum));
    expect(Math.abs(top - rowOf(1000))).toBeLessThanOrEqual(2);
    const near5k = lum.slice(rowOf(5000) - 2, rowOf(5000) + 3);
    const elsewhere = lum.filter((_, y) => Math.abs(y - rowOf(5000)) > 6 && Math.abs(y - rowOf(1000)) > 6);
    expect(Math.max(...near5k)).toBeGreaterThan(Math.max(...elsewhere));

    // Caption text drawn in the margin above the plot (the pixels differ from the background there).
    let ink = 0;
    for (let y = 0; y < plot.y - 16; y++)
      for (let x = 0; x < 200; x++)
        if (rgb(png, x, y).some((v, c) => Math.abs(v - background[c]) > 40)) ink++;
    expect(ink).toBeGreaterThan(50);
  });

  it('exports the spectrum pane as CSV whose maxima are the two tones', async () => {
    await app.until(`document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
    await app.shot('e2e-export-view.png');
    const { name, bytes } = await downloadOf('[data-test="file-export-csv"]');
    expect(name).toBe('two-tones-spectrum.csv');
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.filter((l) => l.startsWith('#')).join('\n')).toMatch(
      /two-tones\.wav[\s\S]*fft: 4096, window: hann[\s\S]*rbw: 5\.859375 Hz/,
    );
    const { header, rows } = parseCsv(bytes.toString('utf8'));
    expect(header.slice(0, 2)).toEqual(['frequency_hz', 'level_dbfs']);
    expect(rows.length).toBe(2049);
    const maxIn = (lo: number, hi: number) =>
      rows.filter(([f]) => f >= lo && f <= hi).reduce((a, b) => (b[1] > a[1] ? b : a));
    const [f1, l1] = maxIn(0, 8000);
    expect(f1).toBe(1000);
    expect(l1).toBeCloseTo(20 * Math.log10(0.3), 1);
    const [f2, l2] = maxIn(3000, 8000);
    expect(f2).toBe(5000);
    expect(l2).toBeCloseTo(-20, 1);
    expect(app.errors).toEqual([]);
  });
});

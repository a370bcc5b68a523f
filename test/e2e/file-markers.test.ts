// The File view's markers and trace modes in web mode, end to end: `phasor serve` and the built renderer in
// headless Chromium on a WAV this test writes, 1 kHz in its first half and 3 kHz in its second. Shift+click
// on the spectrogram places a marker at (t, f) on each tone: the table gives Δf ≈ 2 kHz and Δt ≈ the time
// between the clicks, within a pixel. The spectrum's CSV carries the mean and the max / min hold: the max
// hold reads each tone at its level, the mean 3 dB less (each tone is there half the time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppPage, parseCsv } from './app.js';
import { tones, writeWav } from './fixtures.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

// 16 kHz, 4 s: 1 kHz at 0.3 (−10.46 dBFS) for 2 s, then 3 kHz at 0.3; both on bins of a 4096-point FFT.
const FS = 16000;
const SECONDS = 4;
const N = FS * SECONDS;
const LEVEL = 20 * Math.log10(0.3);

let dir: string;
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

interface Row {
  frequency: number;
  level: number;
  time: number;
  deltaFrequency: number;
  deltaTime: number;
}
async function rows(): Promise<Row[]> {
  return (await page.evaluate(`Array.from(document.querySelectorAll('[data-test="file-spectrum"] [data-test="marker-row"]'))
    .map((r) => ({
      frequency: +r.dataset.frequency, level: +r.dataset.level, time: +r.dataset.time,
      deltaFrequency: +r.dataset.deltaFrequency, deltaTime: +r.dataset.deltaTime,
    }))`)) as Row[];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-file-markers-'));
  const low = tones(FS, N, [[1000, 0.3]]);
  const high = tones(FS, N, [[3000, 0.3]], 0);
  const x = Float64Array.from(low, (v, i) =>
    i < N / 2 ? v : v - 0.3 * Math.sin((2 * Math.PI * 1000 * i) / FS) + high[i],
  );
  writeWav(join(dir, 'two-halves.wav'), FS, x);
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  app = await AppPage.open(browser, server, { timeout: 15_000, hash: '#/file' });
  page = app.page;
  await app.openFile(dir, 'two-halves.wav');
  await app.until(`document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
  await page.waitForTimeout(100);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('File view markers and traces in web mode', needs(chromium), () => {
  it('places markers on the spectrogram at (t, f): Δf ≈ 2 kHz, Δt the time between the clicks', async () => {
    const box = (await page.locator('[data-test="file-spectrogram"] .plot').boundingBox())!;
    // The whole file is in view: 0 … 4 s across, 0 … 8 kHz up.
    const at = (t: number, f: number) => ({
      x: box.x + (t / SECONDS) * box.width,
      y: box.y + (1 - f / (FS / 2)) * box.height,
    });
    const a = at(0.8, 1000);
    const b = at(3.1, 3000);
    await page.keyboard.down('Shift');
    await page.mouse.click(a.x, a.y);
    await page.mouse.click(b.x, b.y);
    await page.keyboard.up('Shift');
    // A Shift+click places a marker rather than a selection.
    expect(await page.locator('[data-test="selection"]').count()).toBe(0);
    expect(await page.locator('[data-test="marker-point"]').count()).toBe(2);
    const r = await rows();
    expect(r.length).toBe(2);
    const hzPerPx = FS / 2 / box.height;
    const sPerPx = SECONDS / box.width;
    expect(Math.abs(r[0].frequency - 1000)).toBeLessThan(1.5 * hzPerPx);
    expect(Math.abs(r[1].frequency - 3000)).toBeLessThan(1.5 * hzPerPx);
    expect(Math.abs(r[1].deltaFrequency - 2000)).toBeLessThan(2 * hzPerPx);
    expect(Math.abs(r[0].time - 0.8)).toBeLessThan(1.5 * sPerPx);
    expect(Math.abs(r[1].deltaTime - 2.3)).toBeLessThan(2 * sPerPx);
    expect(r[0].deltaTime).toBe(0);
    // Each reads its tone from the spectrogram, far above the noise (−70 dBFS).
    for (const m of r) expect(m.level).toBeGreaterThan(LEVEL - 15);

    // Dragging the second marker to 2.6 s, still on 3 kHz, moves it: Δt follows.
    const c = at(2.6, 3000);
    await page.mouse.move(b.x, b.y);
    await page.mouse.down();
    await page.mouse.move((b.x + c.x) / 2, c.y);
    await page.mouse.move(c.x, c.y);
    await page.mouse.up();
    const moved = await rows();
    expect(Math.abs(moved[1].deltaTime - 1.8)).toBeLessThan(2 * sPerPx);
    expect(Math.abs(moved[1].deltaFrequency - 2000)).toBeLessThan(2 * hzPerPx);
    expect(await page.locator('[data-test="selection"]').count()).toBe(0);
  });

  it('exports mean, max and min hold: the max hold reads each tone, the mean 3 dB less', async () => {
    await page.check('[data-test="file-max-hold"]');
    const { name, bytes } = await app.download('[data-test="file-export-csv"]');
    expect(name).toBe('two-halves-spectrum.csv');
    const { header, rows: data } = parseCsv(bytes.toString('utf8'));
    expect(header.join(',')).toBe('frequency_hz,level_dbfs,max_hold_dbfs,min_hold_dbfs');
    expect(data.length).toBe(2049);
    for (const f of [1000, 3000]) {
      const [, mean, max, min] = data.find((r) => r[0] === f)!;
      expect(max, `max hold at ${f} Hz`).toBeCloseTo(LEVEL, 1);
      expect(Math.abs(max - mean - 10 * Math.log10(2)), `mean at ${f} Hz`).toBeLessThan(0.5);
      expect(min, `min hold at ${f} Hz`).toBeLessThan(-60);
    }
  });

  it('fits the level axis to the floor and the peaks with A, removes a marker with Delete, places one on a peak with M', async () => {
    await page.locator('[data-test="file-spectrum-chart"]').hover();
    await page.keyboard.press('a');
    const range = (await page.getAttribute('[data-test="file-spectrum"] .chart', 'data-y-range'))!
      .split(',')
      .map(Number);
    expect(range.length).toBe(2);
    // The top above the max hold's tones (+5 dB, rounded up to 5), the bottom under the floor.
    expect(range[1]).toBeGreaterThanOrEqual(LEVEL + 5);
    expect(range[1]).toBeLessThanOrEqual(LEVEL + 10);
    expect(range[0]).toBeLessThan(-60);
    // Both tones are marked: Delete removes the selected marker (the first, picked in the table), then M
    // places one on the strongest peak not marked, 1 kHz, at the middle of the averaged range.
    await page.click('[data-test="file-spectrum"] [data-test="marker-row"] >> nth=0');
    await page.keyboard.press('Delete');
    expect((await rows()).length).toBe(1);
    await page.keyboard.press('m');
    const r = await rows();
    expect(r.length).toBe(2);
    expect(Math.abs(r[1].frequency - 1000)).toBeLessThan(0.5);
    expect(r[1].time).toBeCloseTo(SECONDS / 2, 6);
    expect(Math.abs(r[1].level - (LEVEL - 10 * Math.log10(2)))).toBeLessThan(0.5);
    expect(await page.locator('[data-test="marker-line"]').count()).toBe(1);

    // Dragging it on the spectrum moves it along the frequency axis (0 … 8 kHz across the chart).
    const over = (await page.locator('[data-test="file-spectrum-chart"] .u-over').boundingBox())!;
    const xOf = (f: number) => over.x + (f / (FS / 2)) * over.width;
    const y = over.y + over.height / 2;
    await page.mouse.move(xOf(1000), y);
    await page.mouse.down();
    await page.mouse.move(xOf(1250), y);
    await page.mouse.move(xOf(1500), y);
    await page.mouse.up();
    const dragged = await rows();
    expect(Math.abs(dragged[1].frequency - 1500)).toBeLessThan((2 * (FS / 2)) / over.width);
    expect(dragged[1].level).toBeLessThan(-50);
    expect(dragged.length).toBe(2);
    expect(app.errors).toEqual([]);
  });
});

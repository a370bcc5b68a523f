// The live view in web mode, end to end: `phasor serve` (the real engine) and the built renderer in
// headless Chromium. Picks the generator with a tone, checks that the waterfall's pixels are brighter at
// the tone's column, changes FFT size and colormap, pauses, and takes a snapshot.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { SNAPSHOT_BAR_AREA } from '../../renderer/src/lib/snapshot.js';
import {
  columnLuminance,
  decodePng,
  differingFraction,
  grayFraction,
  launchChromium,
  median,
  startServe,
  type Image,
  type Server,
} from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const TONE_HZ = 3000;
/** Where screenshots go when PHASOR_SHOTS names a folder (for a person to look at). */
const SHOTS = process.env.PHASOR_SHOTS;

let server: Server;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name) });
}

/** The waterfall's pixels, or its top `rows` rows (the newest, already filled after a reset). */
async function waterfallImage(rows?: number): Promise<Image> {
  const img = decodePng(await page.locator('[data-test="waterfall"]').screenshot());
  if (rows === undefined || rows >= img.height) return img;
  return { width: img.width, height: rows, data: img.data.subarray(0, 4 * img.width * rows) };
}

/** Evaluates `fn` on the page's measurement hooks. */
async function hooks<T>(fn: (h: PhasorHooks) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__phasor)`) as Promise<T>;
}

/**
 * Polls `expression` in the page until it is true. (page.waitForFunction builds its predicate with
 * `new Function`, which the page's Content-Security-Policy rightly forbids.)
 */
async function until(expression: string, timeout = 20_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function rowsDrawn(): Promise<number> {
  return hooks((h) => h.rowsDrawn);
}

/** Waits until `more` rows beyond the current count have been drawn. */
async function waitForRows(more: number): Promise<void> {
  const start = await rowsDrawn();
  await until(`window.__phasor.rowsDrawn >= ${start + more}`, 20_000);
}

beforeAll(async () => {
  server = await startServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Content-Security-Policy violations and failed loads show up here.
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(server.url);
  await until('window.__phasor && window.__phasor.info !== null', 20_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('live view in web mode', needs(chromium), () => {
  it('shows a generator tone as a bright column in the waterfall', async () => {
    await page.selectOption('#source-kind', 'generator');
    const form = page.locator('[data-kind="generator"]');
    const signal = form.locator('[data-field="signal"] select');
    if ((await signal.count()) > 0) await signal.selectOption('tone');
    await form.locator('[data-field="frequency"] input').fill(String(TONE_HZ));
    await form.locator('[data-field="frequency"] input').press('Enter');
    await until(
      `(() => { const r = window.__phasor.requests.filter((x) => x.method === 'start').at(-1);
        return r && r.ok && r.params.source.frequency === ${TONE_HZ}; })()`,
      10_000,
    );
    await waitForRows(150);
    await shot('e2e-live-tone.png');

    const info = (await hooks((h) => h.info))!;
    const img = await waterfallImage();
    const lum = columnLuminance(img, 0, 100);
    const [f0, f1] = info.frequencyRange;
    const expectedX = ((TONE_HZ - f0) / (f1 - f0)) * img.width;
    let brightest = 0;
    for (let x = 1; x < img.width; x++) if (lum[x] > lum[brightest]) brightest = x;
    // The tone is one bin (fs/N ≈ 23 Hz of 24 kHz) wide: within a few pixels of where it belongs,
    // and far brighter than the noise floor that fills the other columns.
    expect(Math.abs(brightest - expectedX)).toBeLessThanOrEqual(4);
    expect(lum[brightest]).toBeGreaterThan(median(lum) + 60);
    const away = Array.from(lum).filter((_, x) => Math.abs(x - expectedX) > 20);
    expect(Math.max(...away)).toBeLessThan(lum[brightest] - 40);
  });

  it('draws the tone where the logarithmic axis puts it', async () => {
    await page.click('[data-test="axis-log"]');
    await waitForRows(60);
    const info = (await hooks((h) => h.info))!;
    const img = await waterfallImage(40);
    const lum = columnLuminance(img);
    let brightest = 0;
    for (let x = 1; x < img.width; x++) if (lum[x] > lum[brightest]) brightest = x;
    // The axis runs from half a bin (or column) above 0 Hz to the top bin, in log10 units.
    const binHz = (info.frequencyRange[1] - info.frequencyRange[0]) / (info.bins - 1);
    const colHz = (info.frequencyRange[1] - info.frequencyRange[0] + binHz) / info.width;
    const lo = Math.log10(Math.max(binHz, colHz) / 2);
    const hi = Math.log10(info.frequencyRange[1]);
    const expectedX = ((Math.log10(TONE_HZ) - lo) / (hi - lo)) * img.width;
    await shot('e2e-live-log.png');
    // On a log axis a bin is a few pixels wide here (≈ 23 Hz at 3 kHz): within one bin's width.
    const binPx = ((Math.log10(TONE_HZ + binHz) - Math.log10(TONE_HZ)) / (hi - lo)) * img.width;
    expect(Math.abs(brightest - expectedX)).toBeLessThanOrEqual(binPx + 2);
    expect(lum[brightest]).toBeGreaterThan(median(lum) + 60);
    await page.click('[data-test="axis-lin"]');
  });

  it('changes the FFT size through the engine and the colormap of the image', async () => {
    const fft = page.locator('[data-test="fft-size"]');
    await fft.fill('4096');
    await fft.press('Enter');
    await until('window.__phasor.info && window.__phasor.info.fft === 4096', 10_000);
    // The request that set the size (a resize may send others after it), and its reply, which can come
    // after the first rows at the new size.
    const setFft = `window.__phasor.requests.filter((r) => r.method === 'configure' && r.params?.analysis?.fft === 4096)`;
    await until(`(() => { const r = ${setFft}.at(-1); return !!r && r.ok !== null; })()`, 10_000);
    const configure = await page.evaluate(`${setFft}.at(-1)`);
    expect(configure).toMatchObject({ ok: true, params: { analysis: { fft: 4096 } } });
    await waitForRows(40);

    await page.selectOption('[data-test="colormap"]', 'viridis');
    await waitForRows(5);
    // A new FFT size restarts the history: compare the rows drawn since.
    const before = await waterfallImage(30);
    await page.selectOption('[data-test="colormap"]', 'gray');
    await waitForRows(5);
    const after = await waterfallImage(30);
    await shot('e2e-live-gray.png');
    expect(differingFraction(before, after)).toBeGreaterThan(0.3);
    // viridis has no grey; the gray colormap has nothing else.
    expect(grayFraction(before)).toBeLessThan(0.05);
    expect(grayFraction(after)).toBeGreaterThan(0.99);
  });

  it('stops drawing rows while paused and goes on after resume', async () => {
    await page.click('[data-test="pause"]');
    await page.locator('[data-test="paused-badge"]').waitFor();
    // Rows the display took before the pause are still drawn in the next frame (CI once read 337, then
    // 338): let two frames pass before counting.
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
    const drawn = await rowsDrawn();
    const received = await hooks((h) => h.rowsReceived);
    await until(`window.__phasor.rowsReceived >= ${received + 50}`, 10_000);
    expect(await rowsDrawn()).toBe(drawn);
    await page.keyboard.press('Space'); // the shortcut resumes
    await waitForRows(20);
    expect(await page.locator('[data-test="paused-badge"]').count()).toBe(0);
  });

  it('saves a PNG snapshot of the display', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-test="snapshot"]'),
    ]);
    expect(download.suggestedFilename()).toMatch(/^phasor-\d{8}-\d{6}\.png$/);
    const file = join(tmpdir(), `phasor-e2e-${process.pid}.png`);
    await download.saveAs(file);
    const png = decodePng(readFileSync(file));
    const display = await page.locator('[data-test="live-display"]').boundingBox();
    // The display, and the colour bar beside it.
    expect(png.width).toBe(Math.round(display!.width) + SNAPSHOT_BAR_AREA);
    expect(png.height).toBeGreaterThan(Math.round(display!.height));
    // The waterfall inside it is not blank: its newest rows (at its top) vary across the columns.
    const fall = await page.locator('[data-test="waterfall"]').boundingBox();
    const top = Math.round(fall!.y - display!.y);
    const lum = columnLuminance(png, top + 2, top + 12);
    expect(Math.max(...lum) - Math.min(...lum)).toBeGreaterThan(30);
    // The colour bar beside the waterfall runs from the colormap's brightest entry down to its darkest.
    const barX = Math.round(display!.width) + 14;
    const barLum = Array.from({ length: Math.round(fall!.height) - 4 }, (_, i) => {
      const o = 4 * ((top + 2 + i) * png.width + barX);
      return 0.2126 * png.data[o] + 0.7152 * png.data[o + 1] + 0.0722 * png.data[o + 2];
    });
    expect(barLum[0] - barLum[barLum.length - 1]).toBeGreaterThan(150);
    for (let i = 1; i < barLum.length; i++) expect(barLum[i]).toBeLessThanOrEqual(barLum[i - 1] + 1);
    if (SHOTS) copyFileSync(file, join(SHOTS, 'e2e-snapshot.png'));
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('labels a tone between bins with the engine’s peak: its frequency and level, no scalloping', async () => {
    // 1 kHz at FFT 4096 (set above) is bin 85.33: the display's columns would read ~0.5 dB low and
    // a column's width off; the engine's peaks read the tone itself (amplitude 0.5 → −6.02 dBFS).
    const form = page.locator('[data-kind="generator"]');
    await form.locator('[data-field="frequency"] input').fill('1000');
    await form.locator('[data-field="frequency"] input').press('Enter');
    await until(`(window.__phasor.markerLabels[0] ?? '').startsWith('1.000 kHz')`, 10_000);
    await shot('e2e-live-peaks.png');
    const peaks = (await hooks((h) => h.peaks))!;
    expect(peaks.fft).toBe(4096);
    expect(Math.abs(peaks.peaks[0].frequency - 1000)).toBeLessThan(peaks.binWidth / 50);
    expect(Math.abs(peaks.peaks[0].level - 20 * Math.log10(0.5))).toBeLessThan(0.1);
    expect(await hooks((h) => h.markerLabels[0])).toBe('1.000 kHz  −6.02 dB');
    expect(pageErrors).toEqual([]);
  });

  it('draws the waterfall on a 2D canvas where there is no WebGL2', async () => {
    // The address asks for the fallback the app takes when WebGL2 is missing; a second page, its own
    // session on the same engine.
    const other = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const errors: string[] = [];
    other.on('pageerror', (e) => errors.push(e.message));
    try {
      const url = new URL(server.url);
      url.searchParams.set('waterfall', '2d');
      await other.goto(url.href);
      const poll = async (expression: string) => {
        const end = Date.now() + 20_000;
        while (!(await other.evaluate(expression))) {
          if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await poll('window.__phasor && window.__phasor.info !== null && window.__phasor.peaks !== null');
      expect(await other.evaluate('window.__phasor.waterfallRenderer')).toBe('2d');
      await other.locator('[data-test="waterfall-fallback"]').waitFor();
      const start = (await other.evaluate('window.__phasor.rowsDrawn')) as number;
      await poll(`window.__phasor.rowsDrawn >= ${start + 60}`);
      const info = (await other.evaluate('window.__phasor.info')) as { frequencyRange: [number, number] };
      const tone = (await other.evaluate('window.__phasor.peaks.peaks[0].frequency')) as number;
      const img = decodePng(await other.locator('[data-test="waterfall"]').screenshot());
      const lum = columnLuminance(img, 0, 40);
      let brightest = 0;
      for (let x = 1; x < img.width; x++) if (lum[x] > lum[brightest]) brightest = x;
      const [f0, f1] = info.frequencyRange;
      expect(Math.abs(brightest - ((tone - f0) / (f1 - f0)) * img.width)).toBeLessThanOrEqual(4);
      expect(lum[brightest]).toBeGreaterThan(median(lum) + 60);
      if (SHOTS) await other.screenshot({ path: join(SHOTS, 'e2e-live-2d.png') });
      expect(errors).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

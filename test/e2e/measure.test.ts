// The File view's measurements in web mode, end to end: `phasor serve` (the real engine) and the built
// renderer in headless Chromium. A tone with two harmonics over a noise floor of known power is opened,
// a time range selected by dragging across the spectrogram, and the Measurements panel shows the SNR and
// THD the engine computed, within 0.1 dB of the analytic values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './app.js';
import { noise, writeWav } from './fixtures.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

const FS = 48000;
const F1 = 1000;
const A1 = 0.5;
const HARMONICS: Array<[number, number]> = [
  [2, 0.005],
  [3, 0.0025],
];
// uniform noise in [−A/2, A/2): variance A²/12, power 2·variance in dBFS (AES17), over 0…fs/2
const NOISE = 2e-3;
const NOISE_POWER = 2 * ((NOISE * NOISE) / 12 + 1 / (32767 * 32767 * 12)); // + the 16-bit rounding
const THD_DB = 10 * Math.log10(HARMONICS.reduce((s, [, a]) => s + a * a, 0) / (A1 * A1));
const SNR_DB = 10 * Math.log10((A1 * A1) / NOISE_POWER);

let dir: string;
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

const field = (name: string) => page.locator(`[data-test="measure-panel"] [data-field="${name}"]`);
/** The dB figure of a value such as "1.12 % · -39.03 dB" or "61.78 dB". */
async function dbOf(name: string): Promise<number> {
  const text = (await field(name).textContent()) ?? '';
  const m = /(-?\d+\.\d+) dB$/.exec(text.trim());
  if (!m) throw new Error(`no dB figure in ${name}: "${text}"`);
  return Number(m[1]);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-measure-'));
  const n = 2 * FS;
  const x = noise(n, 5, NOISE);
  for (let i = 0; i < n; i++) {
    x[i] += A1 * Math.sin((2 * Math.PI * F1 * i) / FS);
    for (const [h, a] of HARMONICS) x[i] += a * Math.sin((2 * Math.PI * h * F1 * i) / FS + h);
  }
  writeWav(join(dir, 'distorted.wav'), FS, x);
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  app = await AppPage.open(browser, server, { height: 900, hash: '#/file' });
  page = app.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('File view measurements', needs(chromium), () => {
  it('measures a dragged selection: SNR and THD of a tone with harmonics', async () => {
    await app.openFile(dir, 'distorted.wav');
    await page.locator('[data-test="measure-panel"]').waitFor();
    // drag across the middle of the spectrogram, level: a time range of about a second, no band
    const box = (await page
      .locator('[data-test="file-view"] [data-test="file-canvas"]')
      .first()
      .boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.75, y, { steps: 5 });
    await page.mouse.up();
    await page.locator('[data-test="selection-panel"] [data-field="duration"]').waitFor();

    // measured by itself once the selection settles
    await app.until(`window.__phasor.requests.some((r) => r.method === 'measure' && r.ok)`);
    await app.until(`!!document.querySelector('[data-test="measure-panel"] [data-field="thd"]')`);
    const measured = await page.evaluate(
      `window.__phasor.requests.filter((r) => r.method === 'measure' && r.ok).at(-1)`,
    );
    const params = (measured as { params: { start: number; end: number } }).params;
    expect(params.end - params.start).toBeGreaterThan(0.8 * FS);
    expect(params.end - params.start).toBeLessThan(1.3 * FS);

    expect(Math.abs((await dbOf('thd')) - THD_DB)).toBeLessThan(0.1);
    expect(Math.abs((await dbOf('snr')) - SNR_DB)).toBeLessThan(0.1);
    expect(await field('tone').textContent()).toMatch(/^1\.000\d? kHz · -6\.0[12] dBFS$/);
    expect(await field('band-power').textContent()).toBe('-6.02 dBFS');
    expect(await field('rbw').textContent()).toBe('8.789 Hz'); // 1.5 × 48000 / 8192

    await app.shot('e2e-measure.png');

    // the Measure button measures again; the values stay
    const before = await page.evaluate(
      `window.__phasor.requests.filter((r) => r.method === 'measure').length`,
    );
    await page.click('[data-test="measure-run"]');
    await app.until(
      `window.__phasor.requests.filter((r) => r.method === 'measure' && r.ok).length > ${before as number}`,
    );
    expect(Math.abs((await dbOf('thd')) - THD_DB)).toBeLessThan(0.1);
    expect(app.errors).toEqual([]);
  });
});

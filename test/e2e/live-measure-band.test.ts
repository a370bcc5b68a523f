// Measuring the live samples in web mode, end to end: `phasor serve` and the built renderer in headless
// Chromium, on the generator with two tones (the tone, and a chirp held at one frequency). Measure: the
// engine's measureLive on the newest second of samples reads the strongest tone's frequency and level and
// the power of both tones over the whole span; two markers then narrow the band to theirs.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppPage } from './app.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

const FS = 48000;
const TONE_A = 3000; // amplitude 0.5: −6.02 dBFS
const TONE_B = 7000; // amplitude 0.25: −12.04 dBFS
const LEVEL_A = 20 * Math.log10(0.5);
/** Both tones' power (dBFS; a full-scale sine reads 0), the −100 dBFS noise left out. */
const BOTH = 10 * Math.log10((0.5 ** 2 / 2 + 0.25 ** 2 / 2) / 0.5);

let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

const PANEL = '[data-test="live-measure-panel"]';
const field = (name: string): Promise<string> => page.locator(`${PANEL} [data-field="${name}"]`).innerText();

/** Presses Measure and waits for the n-th measureLive reply. */
async function measure(n: number): Promise<void> {
  await page.click('[data-test="live-measure-run"]');
  await app.replied('measureLive', n);
  await app.until(`!document.querySelector('[data-test="live-measure-run"]').disabled`);
}

/** Hz from "3.0000 kHz" / "980 Hz". */
function hz(text: string): number {
  const m = /(-?[\d.]+) (k|M|G)?Hz/.exec(text);
  if (!m) throw new Error(`no frequency in ${text}`);
  return Number(m[1]) * ({ k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1);
}

beforeAll(async () => {
  server = await startServe();
  browser = await launchChromium();
  app = await AppPage.open(browser, server);
  page = app.page;
  const stored = {
    version: 1,
    settings: {
      sourceKind: 'generator',
      sourceParams: {
        generator: {
          frequency: TONE_A,
          amplitude: 0.5,
          chirp: true,
          chirpFrom: TONE_B,
          chirpTo: TONE_B,
          chirpPeriod: 3600,
          chirpAmplitude: 0.25,
          noise: -100,
          sampleRate: FS,
        },
      },
    },
  };
  await page.addInitScript(
    `localStorage.setItem('phasor.settings', ${JSON.stringify(JSON.stringify(stored))})`,
  );
  await app.load('');
  await app.until(`window.__phasor && window.__phasor.info !== null && window.__phasor.rowsDrawn > 20`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('measuring the live samples', needs(chromium), () => {
  it('reads the tone and the band power of the whole span, then between two markers', async () => {
    expect(await field('live-measure-band')).toBe('Band: the whole span');
    await measure(1);
    expect(await page.locator('[data-test="live-measure-error"]').count()).toBe(0);
    expect(hz(await field('measure-band'))).toBe(0);
    const power = Number((await field('band-power')).replace(' dBFS', ''));
    expect(Math.abs(power - BOTH)).toBeLessThan(0.1);
    const tone = await field('tone');
    expect(Math.abs(hz(tone) - TONE_A)).toBeLessThan(1); // within a fifth of a bin
    expect(Math.abs(Number(/· (-?[\d.]+) dBFS/.exec(tone)![1]) - LEVEL_A)).toBeLessThan(0.05);
    expect(await field('rbw')).toMatch(/^[\d.]+ Hz$/);
    await app.shot('e2e-live-measure-band.png');

    // two markers (on the tones): the band is theirs, and it holds only parts of the tones' lobes
    await page.click('[data-test="marker-add"]');
    await page.click('[data-test="marker-add"]');
    await app.until(`document.querySelectorAll('[data-test="marker-row"]').length === 2`);
    const rows = page.locator('[data-test="marker-row"]');
    const f = [
      Number(await rows.nth(0).getAttribute('data-frequency')),
      Number(await rows.nth(1).getAttribute('data-frequency')),
    ].sort((a, b) => a - b);
    expect(await field('live-measure-band')).toMatch(/^Band: between markers 1 and 2: /);
    await measure(2);
    const band = (await field('measure-band')).split(' – ').map(hz);
    // written to a tenth of a bin
    expect(Math.abs(band[0] - f[0])).toBeLessThan(1);
    expect(Math.abs(band[1] - f[1])).toBeLessThan(1);
    expect(Number((await field('band-power')).replace(' dBFS', ''))).toBeLessThan(power - 0.5);
    expect(app.errors).toEqual([]);
  }, 60_000);
});

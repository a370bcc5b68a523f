// Screenshots of the measuring tools for the docs (not a test: `npx tsx test/e2e/screenshots.ts [DIR]
// [NAME…]`, default docs/screenshots, all shots unless names such as `live-light.png` are given):
// `phasor serve` and the built renderer in headless Chromium at 1280×800, on the generator and on
// recordings this script writes to a temporary folder. The dark theme unless a name says otherwise.
//   live-markers.png      Live view: two markers on the generator's tones, max hold, the marker table
//   file-measure.png      File view: a selection with the Measurements panel filled
//   file-annotations.png  File view: two annotations drawn over the spectrogram, and the panel
//   file-markers.png      File view: markers on the spectrogram (Δf, Δt) and the spectrum's max hold
//   live-light.png, live-contrast.png  Live view: the generator's tones in the light and high-contrast themes
//   file-light.png, file-contrast.png  File view: a measured selection in the light and high-contrast themes
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { noise, tones, writeWav } from './fixtures.js';
import { launchChromium, root, startServe, type Server } from './support.js';

const OUT = process.argv[2] ?? join(root, 'docs', 'screenshots');
/** The shots to make (file names); all when none are given. */
const ONLY = new Set(process.argv.slice(3));

async function until(page: Page, expression: string, timeout = 20_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Theme = 'dark' | 'light' | 'contrast';

/** A page with `settings` stored, whose system asks for `theme` (the app follows it: System is the default). */
async function newPage(browser: Browser, settings?: unknown, theme: Theme = 'dark'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.emulateMedia({
    colorScheme: theme === 'light' ? 'light' : 'dark',
    contrast: theme === 'contrast' ? 'more' : 'no-preference',
  });
  if (settings)
    await page.addInitScript(
      `localStorage.setItem('phasor.settings', ${JSON.stringify(JSON.stringify(settings))})`,
    );
  return page;
}

async function openFile(page: Page, server: Server, dir: string, name: string): Promise<void> {
  await page.goto(`${server.url.replace(/\/?(\?|$)/, '/$1')}#/file`);
  await until(
    page,
    '!!window.__phasor && window.__phasor.requests.some((r) => r.method === "hello" && r.ok)',
  );
  await page.click('[data-test="toolbar-open"]');
  await page.fill('[data-test="browser-path"]', dir);
  await page.press('[data-test="browser-path"]', 'Enter');
  await page.locator(`[data-test="browser-entries"] [data-name="${name}"]`).dblclick();
  await until(
    page,
    `document.querySelector('[data-test="file-view"] [data-test="file-spectrogram"]')?.dataset.state === 'ready'`,
  );
  await until(page, `document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
}

/** Fixed colour levels: the noise floor below them draws as one colour, which keeps the PNGs small. */
async function levels(page: Page, lo: number, hi: number): Promise<void> {
  for (const [label, v] of [
    ['Lowest level (dB)', lo],
    ['Highest level (dB)', hi],
  ] as const) {
    await page.fill(`input[aria-label="${label}"]`, String(v));
    await page.press(`input[aria-label="${label}"]`, 'Tab');
  }
  await page.waitForTimeout(300);
}

async function plotBox(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  return (await page
    .locator('[data-test="file-view"] [data-test="file-spectrogram"] .plot')
    .first()
    .boundingBox())!;
}

async function drag(page: Page, x0: number, y0: number, x1: number, y1: number): Promise<void> {
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(x1, y1, { steps: 4 });
  await page.mouse.up();
}

/** Stored settings of the Live shots: the generator's 3 kHz tone and a steady 7 kHz second tone, peaks held. */
const LIVE_TONES = {
  version: 1,
  settings: {
    fft: 4096,
    sourceKind: 'generator',
    sourceParams: {
      generator: {
        frequency: 3000,
        amplitude: 0.5,
        chirp: true,
        chirpFrom: 7000,
        chirpTo: 7000,
        chirpPeriod: 3600,
        chirpAmplitude: 0.25,
        noise: -80,
        sampleRate: 48000,
      },
    },
    showPeak: true,
    dbMin: -60,
    dbMax: 0,
  },
};

async function liveMarkers(browser: Browser, server: Server): Promise<void> {
  const page = await newPage(browser, LIVE_TONES);
  await page.goto(server.url);
  await until(page, 'window.__phasor && window.__phasor.info !== null && window.__phasor.info.fft === 4096');
  await until(page, 'window.__phasor.rowsDrawn > 120');
  await page.click('[data-test="marker-add"]');
  await page.click('[data-test="marker-add"]');
  await until(page, `document.querySelectorAll('[data-test="marker-row"]').length === 2`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(OUT, 'live-markers.png') });
  await page.close();
}

/** The Live view on the generator's tone and chirp, peaks labelled, max hold on, in `theme`. */
async function liveTheme(browser: Browser, server: Server, theme: Theme): Promise<void> {
  const page = await newPage(browser, LIVE_TONES, theme);
  await page.goto(server.url);
  await until(page, 'window.__phasor && window.__phasor.info !== null && window.__phasor.info.fft === 4096');
  await until(page, 'window.__phasor.rowsDrawn > 120');
  await page.click('[data-test="marker-add"]');
  await until(page, `document.querySelectorAll('[data-test="marker-row"]').length === 1`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(OUT, `live-${theme}.png`) });
  await page.close();
}

async function fileMeasure(
  browser: Browser,
  server: Server,
  dir: string,
  theme: Theme = 'dark',
): Promise<void> {
  const page = await newPage(browser, undefined, theme);
  await openFile(page, server, dir, 'tone-harmonics.wav');
  await levels(page, -80, 0);
  const box = await plotBox(page);
  const y = box.y + box.height / 2;
  await drag(page, box.x + 0.25 * box.width, y, box.x + 0.7 * box.width, y);
  await until(page, `!!document.querySelector('[data-test="measure-panel"] [data-field="thd"]')`);
  await until(page, `document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
  await page.mouse.move(1, 790);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, theme === 'dark' ? 'file-measure.png' : `file-${theme}.png`) });
  await page.close();
}

async function fileAnnotations(browser: Browser, server: Server, dir: string): Promise<void> {
  const page = await newPage(browser);
  await openFile(page, server, dir, 'bursts.sigmf-meta');
  await levels(page, -50, -5);
  const box = await plotBox(page);
  const at = (x: number, y: number): [number, number] => [box.x + x * box.width, box.y + y * box.height];
  const panel = '[data-test="annotations-panel"]';
  // The bursts: 0.1–0.3 of the file at +100 kHz, 0.55–0.8 at −150 kHz (of ±250 kHz).
  const marks: Array<[[number, number, number, number], string]> = [
    [[0.08, 0.22, 0.32, 0.38], 'burst A'],
    [[0.53, 0.73, 0.82, 0.87], 'burst B'],
  ];
  for (const [[x0, y0, x1, y1], label] of marks) {
    await drag(page, ...at(x0, y0), ...at(x1, y1));
    const before = await page.locator(`${panel} [data-test="annotation-row"]`).count();
    await page.click(`${panel} [data-test="annotation-add"]`);
    await until(
      page,
      `document.querySelectorAll('${panel} [data-test="annotation-row"]').length > ${before}`,
    );
    const row = page.locator(`${panel} [data-test="annotation-row"].selected`);
    await row.locator('[data-test="annotation-label"]').fill(label);
    await row.locator('[data-test="annotation-label"]').press('Enter');
    await page.waitForTimeout(200);
  }
  await page.mouse.move(1, 790);
  await page.keyboard.press('Escape');
  await until(page, `document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(OUT, 'file-annotations.png') });
  await page.close();
}

async function fileMarkers(browser: Browser, server: Server, dir: string): Promise<void> {
  const page = await newPage(browser);
  await openFile(page, server, dir, 'two-halves.wav');
  await levels(page, -60, -5);
  const box = await plotBox(page);
  const at = (t: number, f: number) => [box.x + (t / 4) * box.width, box.y + (1 - f / 8000) * box.height];
  await page.keyboard.down('Shift');
  for (const [t, f] of [
    [0.8, 1000],
    [3.1, 3000],
  ]) {
    const [x, y] = at(t, f);
    await page.mouse.click(x, y);
  }
  await page.keyboard.up('Shift');
  await page.check('[data-test="file-max-hold"]');
  await page.locator('[data-test="file-spectrum-chart"]').hover();
  await page.keyboard.press('a');
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(OUT, 'file-markers.png') });
  await page.close();
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'phasor-screenshots-'));
  // 16 kHz, 4 s: 1 kHz for 2 s, then 3 kHz (the File view markers).
  const fs = 16000;
  const n = 4 * fs;
  const a = tones(fs, n, [[1000, 0.3]]);
  const b = tones(fs, n, [[3000, 0.3]], 0);
  writeWav(
    join(dir, 'two-halves.wav'),
    fs,
    Float64Array.from(a, (v, i) =>
      i < n / 2 ? v : v - 0.3 * Math.sin((2 * Math.PI * 1000 * i) / fs) + b[i],
    ),
  );
  // 48 kHz, 3 s: 1 kHz with its 2nd and 3rd harmonics (the Measurements panel's THD).
  writeWav(
    join(dir, 'tone-harmonics.wav'),
    48000,
    tones(48000, 3 * 48000, [
      [1000, 0.5],
      [2000, 0.01],
      [3000, 0.005],
    ]),
  );
  // 500 kHz I/Q, 2 s: two bursts in noise (the annotations), a SigMF recording at 433.92 MHz.
  const rate = 500e3;
  const frames = 2 * rate;
  const iq = new Float32Array(2 * frames);
  const nz = noise(2 * frames, 5, 0.02);
  const bursts: Array<[number, number, number]> = [
    [0.1, 0.3, 100e3],
    [0.55, 0.8, -150e3],
  ];
  for (let i = 0; i < frames; i++) {
    let re = nz[2 * i];
    let im = nz[2 * i + 1];
    for (const [t0, t1, f] of bursts) {
      if (i < t0 * frames || i >= t1 * frames) continue;
      re += 0.3 * Math.cos((2 * Math.PI * f * i) / rate);
      im += 0.3 * Math.sin((2 * Math.PI * f * i) / rate);
    }
    iq[2 * i] = re;
    iq[2 * i + 1] = im;
  }
  writeFileSync(join(dir, 'bursts.sigmf-data'), new Uint8Array(iq.buffer));
  writeFileSync(
    join(dir, 'bursts.sigmf-meta'),
    JSON.stringify({
      global: { 'core:datatype': 'cf32_le', 'core:sample_rate': rate, 'core:version': '1.2.0' },
      captures: [{ 'core:sample_start': 0, 'core:frequency': 433.92e6 }],
      annotations: [],
    }),
  );

  const server = await startServe(['--root', dir]);
  const browser = await launchChromium();
  try {
    const shots: Array<[string, () => Promise<void>]> = [
      ['live-markers.png', () => liveMarkers(browser, server)],
      ['file-measure.png', () => fileMeasure(browser, server, dir)],
      ['file-annotations.png', () => fileAnnotations(browser, server, dir)],
      ['file-markers.png', () => fileMarkers(browser, server, dir)],
      ['live-light.png', () => liveTheme(browser, server, 'light')],
      ['live-contrast.png', () => liveTheme(browser, server, 'contrast')],
      ['file-light.png', () => fileMeasure(browser, server, dir, 'light')],
      ['file-contrast.png', () => fileMeasure(browser, server, dir, 'contrast')],
    ];
    const unknown = [...ONLY].filter((n) => !shots.some(([name]) => name === n));
    if (unknown.length) throw new Error(`no such screenshot: ${unknown.join(', ')}`);
    for (const [name, shoot] of shots) if (ONLY.size === 0 || ONLY.has(name)) await shoot();
    console.log(`screenshots in ${OUT}`);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

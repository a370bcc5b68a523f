// Presets in web mode, end to end: `phasor serve` (its config folder in PHASOR_CONFIG_DIR) and the built
// renderer in headless Chromium, on the generator. Changes the Live and File views' settings, saves them as
// a preset, changes them again, applies the preset and sees both views' controls restored and the engine
// asked for (and sending rows of) the preset's FFT size; renames (a clash refused in one line), exports,
// deletes and imports the exported file back; and finds the presets after a reload and after the server
// restarts with the same config folder.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PresetExport } from '../../electron/engine/protocol/presets.js';
import { presetsDocumentSchema } from '../../electron/engine/protocol/presets.js';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { tempDir } from '../support/cli.js';
import { chromium, needs } from '../support/requirements.js';
import { AppPage } from './app.js';
import { launchChromium, startServe, type Server } from './support.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const config = tempDir('phasor-presets-e2e-');
/** Files the test hands to the page (outside the config folder). */
const scratch = tempDir('phasor-presets-e2e-files-');
const PRESETS_FILE = join(config.dir, 'presets.json');
const START_FFT = 4096;

let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

/** The generator with a light load, so the live view runs from the first load. */
const stored = {
  version: 1,
  settings: {
    fft: START_FFT,
    sourceKind: 'generator',
    sourceParams: { generator: { frequency: 3000, amplitude: 0.5, noise: -80, sampleRate: 48000 } },
  },
};

async function newPage(): Promise<void> {
  app = await AppPage.open(browser, server);
  page = app.page;
  await page.addInitScript(
    `localStorage.setItem('phasor.settings', ${JSON.stringify(JSON.stringify(stored))})`,
  );
  await app.load('');
  await app.until(`window.__phasor.info !== null && window.__phasor.info.fft === ${START_FFT}`);
}

beforeAll(async () => {
  // The server (a child) finds its presets where the hosts look first.
  process.env.PHASOR_CONFIG_DIR = config.dir;
  server = await startServe();
  browser = await launchChromium();
  await newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  config.remove();
  scratch.remove();
});

const LIVE = '[data-test="toolbar"]';
const FILE = '[data-test="file-view"] .toolbar';

async function view(id: 'live' | 'file'): Promise<void> {
  await page.click(`[data-view="${id}"]`);
  await page.locator(id === 'live' ? LIVE : '[data-test="file-view"]').waitFor();
}

/** Opens the Presets menu in the toolbar `bar` (when closed). */
async function openMenu(bar: string): Promise<void> {
  if ((await page.locator(`${bar} [data-test="presets-menu"]`).count()) === 0)
    await page.click(`${bar} [data-test="presets-button"]`);
  await page.locator(`${bar} [data-test="presets-menu"]`).waitFor();
}

async function names(bar: string): Promise<string[]> {
  await openMenu(bar);
  return page
    .locator(`${bar} [data-test="preset-item"]`)
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.name ?? ''));
}

/** Sets the live FFT size by typing it, and waits for the engine's rows of that size. */
async function setFft(n: number): Promise<void> {
  await page.fill('[data-test="fft-size"]', String(n));
  await page.press('[data-test="fft-size"]', 'Enter');
  await app.until(`window.__phasor.info.fft === ${n}`);
}

async function setDbMin(v: number): Promise<void> {
  await page.fill('[data-test="db-min"]', String(v));
  await page.press('[data-test="db-min"]', 'Enter');
}

/** What the two views' controls show now. */
async function controls(): Promise<Record<string, string | boolean>> {
  await view('live');
  const live = {
    fft: await page.inputValue('[data-test="fft-size"]'),
    window: await page.inputValue('[data-test="window"]'),
    overlap: await page.inputValue('[data-test="overlap"]'),
    colormap: await page.inputValue('[data-test="colormap"]'),
    dbMin: await page.inputValue('[data-test="db-min"]'),
    log: (await page.getAttribute('[data-test="axis-log"]', 'class'))?.includes('active') ?? false,
    traceMode: await page.inputValue('[data-test="trace-mode"]'),
  };
  await view('file');
  const file = {
    fileWindow: await page.inputValue('[data-test="file-window"]'),
    fileFft: await page.inputValue('[data-test="file-fft"]'),
    fileColormap: await page.inputValue('[data-test="file-colormap"]'),
  };
  await view('live');
  return { ...live, ...file };
}

const SAVED = {
  fft: '2048',
  window: 'hamming',
  overlap: '0.5',
  colormap: 'inferno',
  dbMin: '-100',
  log: true,
  traceMode: 'exp',
  fileWindow: 'blackman',
  fileFft: '8192',
  fileColormap: 'inferno',
};

describe('presets in web mode', needs(chromium), () => {
  it('saves the settings, and applying the preset restores them in both views and in the engine', async () => {
    // The settings to keep: the live analysis and display, and the File view's spectrogram.
    await setFft(2048);
    await page.selectOption('[data-test="window"]', 'hamming');
    await page.selectOption('[data-test="overlap"]', '0.5');
    await page.selectOption('[data-test="colormap"]', 'inferno');
    await setDbMin(-100);
    await page.click('[data-test="axis-log"]');
    await page.selectOption('[data-test="trace-mode"]', 'exp');
    await view('file');
    await page.selectOption('[data-test="file-window"]', 'blackman');
    await page.selectOption('[data-test="file-fft"]', '8192');
    await view('live');
    expect(await controls()).toEqual(SAVED);

    await openMenu(LIVE);
    expect(await names(LIVE)).toEqual([]);
    await page.fill(`${LIVE} [data-test="preset-name"]`, 'Audio A');
    await page.click(`${LIVE} [data-test="preset-save-as"]`);
    await app.until(`document.querySelectorAll('[data-test="preset-item"]').length === 1`);
    expect(await names(LIVE)).toEqual(['Audio A']);
    // Stored by the engine in the config folder.
    const doc = presetsDocumentSchema.parse(JSON.parse(readFileSync(PRESETS_FILE, 'utf8')));
    expect(doc.presets.map((p) => [p.name, p.settings.live.fft, p.settings.file.fft])).toEqual([
      ['Audio A', 2048, 8192],
    ]);
    // A second name in use is refused, in one line.
    await page.fill(`${LIVE} [data-test="preset-name"]`, 'audio a');
    await page.click(`${LIVE} [data-test="preset-save-as"]`);
    const refused = await page.textContent(`${LIVE} [data-test="preset-error"]`);
    expect(refused?.trim()).toBe(
      'a preset named "Audio A" exists already: choose another name or replace it',
    );
    await page.fill(`${LIVE} [data-test="preset-name"]`, '');
    await page.keyboard.press('Escape');

    // Everything changed again.
    await setFft(8192);
    await page.selectOption('[data-test="window"]', 'blackmanharris');
    await page.selectOption('[data-test="overlap"]', '0.75');
    await page.selectOption('[data-test="colormap"]', 'gray');
    await setDbMin(-130);
    await page.click('[data-test="axis-lin"]');
    await page.selectOption('[data-test="trace-mode"]', 'clear');
    await view('file');
    await page.selectOption('[data-test="file-window"]', 'hann');
    await page.selectOption('[data-test="file-fft"]', '0');
    await view('live');
    expect(await controls()).not.toEqual(SAVED);

    // Applied from the Live toolbar: the controls and the engine's analysis come back.
    const configures = (await page.evaluate(
      `window.__phasor.requests.filter((r) => r.method === 'configure').length`,
    )) as number;
    await openMenu(LIVE);
    await page.click(`${LIVE} [data-test="preset-item"][data-name="Audio A"]`);
    await app.until(`window.__phasor.info.fft === 2048`);
    const asked = (await page.evaluate(
      `window.__phasor.requests.filter((r) => r.method === 'configure').slice(${configures}).map((r) => r.params.analysis)`,
    )) as Array<Record<string, unknown>>;
    expect(asked).toContainEqual({ fft: 2048, window: 'hamming', overlap: 0.5, averaging: 0.1 });
    // Rows of the preset's size arrive: 2048-point frames give 1025 bins of a real signal.
    const info = (await page.evaluate('window.__phasor.info')) as { fft: number; bins: number };
    expect(info).toMatchObject({ fft: 2048, bins: 1025 });
    const drawn = (await page.evaluate('window.__phasor.rowsDrawn')) as number;
    await app.until(`window.__phasor.rowsDrawn > ${drawn + 10}`);
    expect((await page.textContent(`${LIVE} [data-test="presets-current"]`))?.trim()).toBe(': Audio A');
    await page.keyboard.press('Escape');
    expect(await controls()).toEqual(SAVED);
    await app.shot('e2e-presets-applied.png');
  });

  it('renames (a clash refused), exports, deletes and imports the file back', async () => {
    // A second preset from the File view's toolbar.
    await view('file');
    await page.selectOption('[data-test="file-fft"]', '1024');
    // The toolbar tells the settings no longer are the preset's.
    await app.until(
      `document.querySelector('[data-test="file-view"] [data-test="presets-current"]')?.textContent.trim() === ': Audio A\u00a0(changed)'`,
    );
    await openMenu(FILE);
    await page.fill(`${FILE} [data-test="preset-name"]`, 'Other');
    await page.click(`${FILE} [data-test="preset-save-as"]`);
    await app.until(`document.querySelectorAll('[data-test="preset-item"]').length === 2`);
    await page.keyboard.press('Escape');
    await view('live');

    await openMenu(LIVE);
    await page.click(`${LIVE} [data-test="preset-item"][data-name="Audio A"]`);
    await page.fill(`${LIVE} [data-test="preset-name"]`, 'other');
    await page.click(`${LIVE} [data-test="preset-rename"]`);
    const clash = await page.textContent(`${LIVE} [data-test="preset-error"]`);
    expect(clash?.trim()).toBe('cannot rename "Audio A": a preset named "Other" exists already');
    expect(await names(LIVE)).toEqual(['Audio A', 'Other']);
    await page.fill(`${LIVE} [data-test="preset-name"]`, 'Audio B');
    await page.click(`${LIVE} [data-test="preset-rename"]`);
    await app.until(`!!document.querySelector('[data-test="preset-item"][data-name="Audio B"]')`);
    expect(await names(LIVE)).toEqual(['Audio B', 'Other']);

    const { name, bytes } = await app.download(`${LIVE} [data-test="preset-export"]`, 'e2e-presets-');
    expect(name).toBe('Audio B.phasor-preset.json');
    const exported = JSON.parse(bytes.toString('utf8')) as PresetExport;
    expect(exported).toMatchObject({ format: 'phasor-preset', version: 1, name: 'Audio B' });
    expect(exported.settings.live).toMatchObject({ fft: 2048, window: 'hamming', overlap: 0.5, dbMin: -100 });
    expect(exported.settings.file).toMatchObject({ window: 'blackman', fft: 8192 });

    // Delete asks once more.
    await page.click(`${LIVE} [data-test="preset-delete"]`);
    expect(await names(LIVE)).toEqual(['Audio B', 'Other']);
    await page.click(`${LIVE} [data-test="preset-delete"]`);
    await app.until(`document.querySelectorAll('[data-test="preset-item"]').length === 1`);
    expect(await names(LIVE)).toEqual(['Other']);

    // Import the exported file: back under its name, with its settings; a second import is numbered.
    const file = join(scratch.dir, 'exported.json');
    writeFileSync(file, bytes);
    await page.setInputFiles(`${LIVE} [data-test="preset-import-file"]`, file);
    await app.until(`!!document.querySelector('[data-test="preset-item"][data-name="Audio B"]')`);
    await page.setInputFiles(`${LIVE} [data-test="preset-import-file"]`, file);
    await app.until(`!!document.querySelector('[data-test="preset-item"][data-name="Audio B (2)"]')`);
    expect(await names(LIVE)).toEqual(['Other', 'Audio B', 'Audio B (2)']);
    const doc = presetsDocumentSchema.parse(JSON.parse(readFileSync(PRESETS_FILE, 'utf8')));
    expect(doc.presets.find((p) => p.name === 'Audio B')?.settings).toEqual(exported.settings);

    // A file that is not a preset: one line naming it, nothing added.
    await page.setInputFiles(`${LIVE} [data-test="preset-import-file"]`, {
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"fft": 2048'),
    });
    await app.until(`!!document.querySelector('[data-test="preset-error"]')`);
    const bad = (await page.textContent(`${LIVE} [data-test="preset-error"]`))?.trim();
    expect(bad).toBe('notes.json: not a Phasor preset: the file is not valid JSON');
    await page.setInputFiles(`${LIVE} [data-test="preset-import-file"]`, {
      name: 'other.json',
      mimeType: 'application/json',
      buffer: Buffer.from(
        JSON.stringify({ ...exported, settings: { ...exported.settings, colormap: 'plaid' } }),
      ),
    });
    await app.until(
      `/other\\.json/.test(document.querySelector('[data-test="preset-error"]')?.textContent ?? '')`,
    );
    expect((await page.textContent(`${LIVE} [data-test="preset-error"]`))?.trim()).toMatch(
      /^other\.json: preset "Audio B": unknown colormap "plaid"/,
    );
    expect(await names(LIVE)).toEqual(['Other', 'Audio B', 'Audio B (2)']);
    await app.shot('e2e-presets-menu.png');

    // Save replaces the selected preset's settings with the current ones.
    await page.click(`${LIVE} [data-test="preset-item"][data-name="Other"]`);
    await page.keyboard.press('Escape');
    await page.selectOption('[data-test="colormap"]', 'magma');
    const label = `document.querySelector('${LIVE} [data-test="presets-current"]')?.textContent.trim()`;
    await app.until(`${label} === ': Other\u00a0(changed)'`);
    await openMenu(LIVE);
    await page.click(`${LIVE} [data-test="preset-update"]`);
    await app.until(`${label} === ': Other'`);
    expect((await page.textContent(`${LIVE} [data-test="preset-notice"]`))?.trim()).toBe('saved "Other"');
    const after = presetsDocumentSchema.parse(JSON.parse(readFileSync(PRESETS_FILE, 'utf8')));
    expect(after.presets.map((p) => [p.name, p.settings.colormap, p.settings.file.fft])).toEqual([
      ['Other', 'magma', 1024],
      ['Audio B', 'inferno', 8192],
      ['Audio B (2)', 'inferno', 8192],
    ]);
    await page.keyboard.press('Escape');
  });

  it('keeps the presets across a page reload and a server restart with the same config folder', async () => {
    await page.close();
    await newPage();
    expect(await names(LIVE)).toEqual(['Other', 'Audio B', 'Audio B (2)']);
    await page.keyboard.press('Escape');
    await page.close();

    await server.stop();
    server = await startServe();
    await newPage();
    expect(await names(LIVE)).toEqual(['Other', 'Audio B', 'Audio B (2)']);
    // Applied from the File view after the restart: both views take it.
    await page.keyboard.press('Escape');
    await view('file');
    await openMenu(FILE);
    await page.click(`${FILE} [data-test="preset-item"][data-name="Audio B"]`);
    await page.keyboard.press('Escape');
    expect(await controls()).toEqual(SAVED);
    // Back in the Live view, its session runs with the preset's FFT size.
    await app.until(`window.__phasor.info.fft === 2048`);
    expect(app.errors).toEqual([]);
  });
});

// SigMF annotations in the File view, end to end in web mode (`phasor serve` and the built renderer in
// headless Chromium): a region dragged on the spectrogram becomes an annotation, its label and comment are
// edited in the panel and drawn over the spectrogram, it survives a reload and reopening, it is deleted,
// and the .sigmf-meta on disk keeps every field Phasor does not know throughout. An edit after the file
// changed on disk is refused in one line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { AppPage } from './app.js';
import { noise } from './fixtures.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

// rec: 0.5 s of complex samples at 500 kS/s around 100 MHz, a tone at +60 kHz in noise.
const FS = 500_000;
const FRAMES = 250_000;
const CENTRE = 100e6;
const TONE = 60e3;

/** The meta as written: fields Phasor does not know in the global object, the captures, an annotation and
 * at the top level. */
const META = {
  global: {
    'core:datatype': 'cf32_le',
    'core:sample_rate': FS,
    'core:version': '1.2.0',
    'core:author': 'e2e',
    'acme:rig': { antenna: 'discone', gains: [10, 20.5] },
  },
  captures: [{ 'core:sample_start': 0, 'core:frequency': CENTRE, 'acme:tuner': 'R820T' }],
  annotations: [
    {
      'core:sample_start': 200_000,
      'core:sample_count': 25_000,
      'core:label': 'known',
      'core:generator': 'acme-detector 2.1',
      'acme:score': 0.93,
    },
  ],
  'acme:top': { kept: true },
};

let dir: string;
let metaPath: string;
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

const panel = '[data-test="annotations-panel"]';
const rows = `${panel} [data-test="annotation-row"]`;

const load = () => app.load('#/file');
const openRecording = () => app.openFile(dir, 'rec.sigmf-meta');

const onDisk = () => JSON.parse(readFileSync(metaPath, 'utf8')) as typeof META;
const labels = () =>
  page.$$eval(`${rows} [data-test="annotation-label"]`, (l) => l.map((i) => (i as HTMLInputElement).value));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-annotations-'));
  const iq = new Float32Array(2 * FRAMES);
  const nz = noise(2 * FRAMES, 3, 0.02);
  for (let i = 0; i < FRAMES; i++) {
    iq[2 * i] = 0.5 * Math.cos((2 * Math.PI * TONE * i) / FS) + nz[2 * i];
    iq[2 * i + 1] = 0.5 * Math.sin((2 * Math.PI * TONE * i) / FS) + nz[2 * i + 1];
  }
  writeFileSync(join(dir, 'rec.sigmf-data'), new Uint8Array(iq.buffer));
  metaPath = join(dir, 'rec.sigmf-meta');
  writeFileSync(metaPath, JSON.stringify(META, null, 2));
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  app = await AppPage.open(browser, server, { timeout: 15_000, hash: '#/file' });
  page = app.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('SigMF annotations in the File view', needs(chromium), () => {
  it('adds one from a dragged region, edits it, shows it, keeps it over a reload, deletes it', async () => {
    await openRecording();
    expect(await labels()).toEqual(['known']);

    // Drag from 20 % to 40 % across and from 30 % to 60 % down: a time range and a band.
    const plot = page.locator('[data-test="file-view"] [data-test="file-spectrogram"] .plot').first();
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + 0.2 * box.width, box.y + 0.3 * box.height);
    await page.mouse.down();
    await page.mouse.move(box.x + 0.3 * box.width, box.y + 0.45 * box.height, { steps: 4 });
    await page.mouse.move(box.x + 0.4 * box.width, box.y + 0.6 * box.height, { steps: 4 });
    await page.mouse.up();
    await page.locator('[data-test="selection-panel"] [data-field="band"]').waitFor();

    await page.click(`${panel} [data-test="annotation-add"]`);
    await app.replied('addAnnotation', 1);
    await app.until(`document.querySelectorAll('${rows}').length === 2`);
    // Sorted by start: the new one (at 20 %) comes first, selected.
    const added = page.locator(rows).first();
    expect(await added.getAttribute('class')).toContain('selected');
    await added.locator('[data-test="annotation-label"]').fill('my burst');
    await added.locator('[data-test="annotation-label"]').press('Enter');
    await app.replied('updateAnnotation', 1);
    await added.locator('[data-test="annotation-comment"]').fill('seen at 60 kHz');
    await added.locator('[data-test="annotation-comment"]').press('Enter');
    await app.replied('updateAnnotation', 2);

    // The overlay draws it where the region was, labelled.
    const overlay = '[data-test="file-view"] [data-test="annotation-overlay"]';
    await app.until(
      `[...document.querySelectorAll('${overlay} [data-test="annotation-label"]')].some((l) => l.textContent.trim() === 'my burst')`,
    );
    const mine = page.locator(`${overlay} [data-test="annotation"].selected`);
    const mb = (await mine.boundingBox())!;
    expect(Math.abs(mb.x - (box.x + 0.2 * box.width))).toBeLessThan(3);
    expect(Math.abs(mb.x + mb.width - (box.x + 0.4 * box.width))).toBeLessThan(3);
    expect(Math.abs(mb.y - (box.y + 0.3 * box.height))).toBeLessThan(3);
    expect(Math.abs(mb.y + mb.height - (box.y + 0.6 * box.height))).toBeLessThan(3);

    await app.shot('e2e-annotations.png');

    // On disk: the new annotation, sorted first, with the frames and band dragged; everything else as it was.
    const saved = onDisk();
    expect({ ...saved, annotations: null }).toEqual({ ...META, annotations: null });
    expect(saved.annotations).toHaveLength(2);
    expect(saved.annotations[1]).toEqual(META.annotations[0]);
    const a = saved.annotations[0] as Record<string, unknown>;
    expect(a['core:label']).toBe('my burst');
    expect(a['core:comment']).toBe('seen at 60 kHz');
    expect(Math.abs((a['core:sample_start'] as number) - 0.2 * FRAMES)).toBeLessThan(FRAMES / 200);
    expect(Math.abs((a['core:sample_count'] as number) - 0.2 * FRAMES)).toBeLessThan(FRAMES / 200);
    // The plot shows the whole band, CENTRE ± FS/2 top to bottom: 30 % and 60 % down.
    expect(Math.abs((a['core:freq_upper_edge'] as number) - (CENTRE + FS / 2 - 0.3 * FS))).toBeLessThan(
      FS / 200,
    );
    expect(Math.abs((a['core:freq_lower_edge'] as number) - (CENTRE + FS / 2 - 0.6 * FS))).toBeLessThan(
      FS / 200,
    );

    // A reload forgets the open files: reopened, the annotation is there as saved.
    await load();
    await openRecording();
    expect(await labels()).toEqual(['my burst', 'known']);
    expect(await page.locator(rows).first().locator('[data-test="annotation-comment"]').inputValue()).toBe(
      'seen at 60 kHz',
    );
    await app.until(
      `document.querySelectorAll('[data-test="file-view"] [data-test="annotation-overlay"] [data-test="annotation"]').length === 2`,
    );

    // Clicking a row selects its region.
    await page.locator(rows).first().locator('[data-field="start"]').click();
    await page.locator('[data-test="selection-panel"] [data-field="band"]').waitFor();

    // Delete asks once more, then saves.
    const del = page.locator(rows).first().locator('[data-test="annotation-delete"]');
    await del.click();
    expect(await del.textContent()).toContain('Delete?');
    expect(onDisk().annotations).toHaveLength(2);
    await del.click();
    await app.replied('deleteAnnotation', 1);
    await app.until(`document.querySelectorAll('${rows}').length === 1`);
    await load();
    await openRecording();
    expect(await labels()).toEqual(['known']);
    expect(onDisk()).toEqual(META);
    expect(app.errors).toEqual([]);
  }, 120_000);

  it('refuses an edit in one line when the file changed on disk since it was opened', async () => {
    const changed = { ...META, global: { ...META.global, 'core:description': 'edited elsewhere' } };
    writeFileSync(metaPath, JSON.stringify(changed));
    const label = page.locator(rows).first().locator('[data-test="annotation-label"]');
    await label.fill('renamed');
    await label.press('Enter');
    const error = page.locator(`${panel} [data-test="annotations-error"]`);
    await error.waitFor();
    expect(await error.textContent()).toMatch(/changed on disk since it was opened/);
    expect((await error.textContent())!.trim()).not.toContain('\n');
    expect(onDisk()).toEqual(changed);
  });
});

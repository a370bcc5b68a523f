// Extracting a selection in web mode, end to end: `phasor serve` and the built renderer in headless
// Chromium on an I/Q recording this test writes (a tone 40 kHz above its 100 MHz centre, another 80 kHz
// below). A time range and band dragged across the File view's spectrogram prefill the Extract panel
// (shift = the band's centre, low-pass = half its width, decimation from that); the extract then becomes
// the File view's file, at fs/K, as long as the selection, centred on the band, the tone kept.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { AppPage, TOP_SPECTROGRAM } from './app.js';
import { noise } from './fixtures.js';
import { launchChromium, root, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const FS = 256_000;
const CENTRE = 100e6;
const TONE = 40_000; // Hz above the centre, inside the band the test selects
const OTHER = -80_000;
const FRAMES = FS; // 1 s

let dir: string;
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

async function hooks<T>(fn: (h: PhasorHooks) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__phasor)`) as Promise<T>;
}

async function field(name: string): Promise<string> {
  return (await page.locator(`[data-test="file-info"] [data-field="${name}"]`).textContent()) ?? '';
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-extract-'));
  const re = noise(FRAMES, 3, 0.02);
  const im = noise(FRAMES, 5, 0.02);
  const data = new Float32Array(2 * FRAMES);
  for (let n = 0; n < FRAMES; n++) {
    const a = (2 * Math.PI * TONE * n) / FS;
    const b = (2 * Math.PI * OTHER * n) / FS;
    data[2 * n] = re[n] + 0.5 * Math.cos(a) + 0.3 * Math.cos(b);
    data[2 * n + 1] = im[n] + 0.5 * Math.sin(a) + 0.3 * Math.sin(b);
  }
  writeFileSync(join(dir, 'iq.sigmf-data'), Buffer.from(data.buffer));
  writeFileSync(
    join(dir, 'iq.sigmf-meta'),
    JSON.stringify({
      global: { 'core:datatype': 'cf32_le', 'core:sample_rate': FS, 'core:version': '1.0.0' },
      captures: [
        { 'core:sample_start': 0, 'core:frequency': CENTRE, 'core:datetime': '2026-01-01T00:00:00Z' },
      ],
      annotations: [],
    }),
  );
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  app = await AppPage.open(browser, server, { hash: '#/file' });
  page = app.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('extract in web mode', needs(chromium), () => {
  it('extracts a dragged range and band, and the File view shows the new file', async () => {
    await app.openFile(dir, 'iq.sigmf-meta');
    expect(await field('rate')).toBe('256 kS/s');

    // Drag from 0.2 s, 60 kHz above the centre to 0.6 s, 20 kHz above it (the top of the plot is +128 kHz).
    const plot = page.locator('[data-test="file-view"] [data-test="file-spectrogram"] .plot').first();
    const box = (await plot.boundingBox())!;
    const y = (f: number) => box.y + ((FS / 2 - f) / FS) * box.height;
    await page.mouse.move(box.x + 0.2 * box.width, y(60_000));
    await page.mouse.down();
    await page.mouse.move(box.x + 0.4 * box.width, y(40_000), { steps: 4 });
    await page.mouse.move(box.x + 0.6 * box.width, y(20_000), { steps: 4 });
    await page.mouse.up();
    await page.locator('[data-test="selection-panel"] [data-field="band"]').waitFor();

    await page.click('[data-test="extract-button"]');
    await page.locator('[data-test="extract-panel"]').waitFor();
    const shift = Number(await page.inputValue('[data-test="extract-shift"]'));
    const lowpass = Number(await page.inputValue('[data-test="extract-lowpass"]'));
    const k = Number(await page.inputValue('[data-test="extract-decimate"]'));
    // A pixel of the plot is about 256 kHz / its height.
    const px = FS / box.height;
    expect(Math.abs(shift - 40_000)).toBeLessThan(3 * px);
    expect(Math.abs(lowpass - 20_000)).toBeLessThan(3 * px);
    // The largest K keeping fs/K ≥ 2.5 × the low-pass: 5 for 20 kHz.
    expect(k).toBe(Math.floor(FS / (2.5 * lowpass)));
    expect(FS / k).toBeGreaterThanOrEqual(2.5 * lowpass);
    const output = join(dir, 'iq-extract.sigmf-meta');
    expect(await page.inputValue('[data-test="extract-output"]')).toBe(output);
    await app.shot('e2e-extract-panel.png');

    await page.click('[data-test="extract-run"]');
    await page.locator('[data-test="extract-result"]').waitFor({ timeout: 30_000 });
    const request = await hooks((h) => h.requests.filter((r) => r.method === 'extract').at(-1));
    expect(request).toMatchObject({ ok: true, params: { output, decimate: k } });
    const { start, end } = request!.params as { start: number; end: number };
    expect(Math.abs(start / FS - 0.2)).toBeLessThan(0.01);
    expect(Math.abs(end / FS - 0.6)).toBeLessThan(0.01);

    // The File view now shows the extract.
    await app.until(
      `document.querySelector('[data-test="file-info"] .name')?.textContent.includes('iq-extract')`,
    );
    await app.until(`${TOP_SPECTROGRAM}?.dataset.state === 'ready'`, 20_000);
    const rate = FS / k;
    expect(await field('rate')).toBe(`${+(rate / 1e3).toFixed(3)} kS/s`);
    expect(await field('samples')).toBe(Math.ceil((end - start) / k).toLocaleString('en-US'));
    expect(Math.abs(parseFloat(await field('duration')) - (end - start) / FS)).toBeLessThan(0.001);
    expect(await field('encoding')).toBe('cf32_le');
    await app.shot('e2e-extract-result.png');

    // Its strongest peak is the tone, at its own frequency (the centre moved by the shift).
    const r = spawnSync(process.execPath, [join(root, 'bin', 'phasor.js'), 'peaks', '--json', output], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const peaks = JSON.parse(r.stdout) as Array<{ frequency: number; level: number }>;
    expect(Math.abs(peaks[0].frequency - (CENTRE + TONE))).toBeLessThan(100);
    expect(app.errors).toEqual([]);
  });
});

// The offline views in web mode, end to end: `phasor serve` (the real engine) and the built renderer in
// headless Chromium, on recordings this test writes. The File view shows a file's known tones; a low-pass
// filter applied with progress writes a file whose spectrum lost the stop-band tone; cancelling the
// spectrogram and the filter of a large file leaves no output; correlation finds a planted template's lag
// and its peak leads to the File view; the benchmark fills its table for every available backend.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { chirp, noise, tones, writeSparseCf32, writeWav } from './fixtures.js';
import { decodePng, launchChromium, median, root, startServe, type Image, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const SHOTS = process.env.PHASOR_SHOTS;

// tones.wav: 16 kHz, 1 kHz (pass band) and 6 kHz (stop band of a 3 kHz low-pass), 0.3 each (−10.5 dBFS).
const TONES_FS = 16000;
const PASS_HZ = 1000;
const STOP_HZ = 6000;
// signal.wav: 8 kHz noise with template.wav (a 0.1 s chirp) added at a known lag.
const CORR_FS = 8000;
const LAG = 12345;
const TEMPLATE_LEN = 800;
// big.cf32: 40 M complex frames at 1 MS/s (320 MB, almost all of it a hole): seconds of work to cancel.
const BIG_FRAMES = 40_000_000;

let dir: string;
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

/** Polls `expression` in the page until it is true (waitForFunction needs eval, which the CSP forbids). */
async function until(expression: string, timeout = 15_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

async function hooks<T>(fn: (h: PhasorHooks) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__phasor)`) as Promise<T>;
}

async function view(id: string): Promise<void> {
  await page.click(`[data-view="${id}"]`);
  await until(`location.hash === '#/${id}'`);
}

/** Opens a file through the in-app browser (web mode's Open dialog). */
async function openThroughBrowser(name: string): Promise<void> {
  await view('file');
  await page.click('[data-test="toolbar-open"]');
  await page.fill('[data-test="browser-path"]', dir);
  await page.press('[data-test="browser-path"]', 'Enter');
  await page.locator(`[data-test="browser-entries"] [data-name="${name}"]`).dblclick();
}

/** The state of the File view's top spectrogram (data-state: loading, ready, cancelled…). */
function topState(): string {
  return `document.querySelector('[data-test="file-view"] [data-test="file-spectrogram"]')?.dataset.state`;
}

/** Mean luminance (0…255) of each row of an image. */
function rowLuminance(img: Image): Float64Array {
  const out = new Float64Array(img.height);
  for (let y = 0; y < img.height; y++) {
    let s = 0;
    for (let x = 0; x < img.width; x++) {
      const i = 4 * (y * img.width + x);
      s += 0.2126 * img.data[i] + 0.7152 * img.data[i + 1] + 0.0722 * img.data[i + 2];
    }
    out[y] = s / img.width;
  }
  return out;
}

function peaksOf(file: string): Array<{ frequency: number; level: number }> {
  const r = spawnSync(
    process.execPath,
    [join(root, 'bin', 'phasor.js'), 'peaks', '--json', '--count', '12', file],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`phasor peaks failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Array<{ frequency: number; level: number }>;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-offline-'));
  writeWav(
    join(dir, 'tones.wav'),
    TONES_FS,
    tones(TONES_FS, 3 * TONES_FS, [
      [PASS_HZ, 0.3],
      [STOP_HZ, 0.3],
    ]),
  );
  const template = chirp(CORR_FS, TEMPLATE_LEN, 500, 3000, 0.5);
  const signal = noise(4 * CORR_FS, 7, 0.2);
  for (let i = 0; i < TEMPLATE_LEN; i++) signal[LAG + i] += template[i];
  writeWav(join(dir, 'signal.wav'), CORR_FS, signal);
  writeWav(join(dir, 'template.wav'), CORR_FS, template);
  writeSparseCf32(join(dir, 'big.cf32'), BIG_FRAMES, 1 << 17, 1e6, 125e3);

  server = await startServe(['--root', dir]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(`${server.url.replace(/\/?(\?|$)/, '/$1')}#/file`);
  await until('!!window.__phasor && window.__phasor.requests.some((r) => r.method === "hello" && r.ok)');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('offline views in web mode', needs(chromium), () => {
  it('shows the file’s known tones as bright rows of its spectrogram', async () => {
    await openThroughBrowser('tones.wav');
    await until(`${topState()} === 'ready'`);
    await until('window.__phasor.fileFramesDrawn > 0');
    await page.waitForTimeout(100); // the frame after the image arrived
    expect(await page.locator('[data-test="file-info"] [data-field="rate"]').textContent()).toBe('16 kS/s');
    await shot('e2e-file-tones.png');

    const img = decodePng(
      await page.locator('[data-test="file-view"] [data-test="file-canvas"]').first().screenshot(),
    );
    const lum = rowLuminance(img);
    const floor = median(lum);
    // Row 0 is the top of the band (8 kHz); a tone one FFT bin wide lands within a few pixels of its row.
    const rowOf = (f: number) => ((TONES_FS / 2 - f) / (TONES_FS / 2)) * img.height;
    for (const f of [PASS_HZ, STOP_HZ]) {
      const y = Math.round(rowOf(f));
      let best = y;
      for (let k = y - 4; k <= y + 4; k++) if (lum[k] > lum[best]) best = k;
      expect(lum[best]).toBeGreaterThan(floor + 60);
    }
    // Rows far from both tones stay near the noise floor.
    const away = Array.from(lum).filter(
      (_, y) => Math.abs(y - rowOf(PASS_HZ)) > 12 && Math.abs(y - rowOf(STOP_HZ)) > 12,
    );
    expect(Math.max(...away)).toBeLessThan(floor + 30);
  });

  it('applies a low-pass filter with progress; the output has lost the stop-band tone', async () => {
    await view('filter');
    // The default design is drawn before any edit, its exports ready.
    await until(`document.querySelector('[data-test="design-result"]')?.textContent.includes('101 taps')`);
    expect(await page.isEnabled('[data-test="taps-export-json"]')).toBe(true);
    expect(await page.locator('[data-test="filter-charts"] .empty').count()).toBe(0);
    await page.click('[data-kind="lowpass"]');
    await page.click('[data-test="mode-window"]');
    await page.fill('[data-test="cutoff"]', '3000');
    await page.fill('[data-test="numtaps"]', '201');
    await page.selectOption('[data-test="filter-window"]', 'hamming');
    await until(`document.querySelector('[data-test="design-result"]')?.textContent.includes('201 taps')`);
    const output = join(dir, 'tones-filtered.wav');
    expect(await page.inputValue('[data-test="apply-output"]')).toBe(output);
    await page.click('[data-test="apply"]');
    await page.locator('[data-test="apply-done"]').waitFor({ timeout: 20_000 });
    expect(await hooks((h) => h.progress.applyFilter ?? 0)).toBeGreaterThan(0);
    const apply = await hooks((h) => h.requests.filter((r) => r.method === 'applyFilter').at(-1));
    expect(apply).toMatchObject({ ok: true, params: { output } });
    expect((apply!.params as { taps: number[] }).taps).toHaveLength(201);

    // Before and after, stacked.
    await until(`document.querySelectorAll('[data-test="before-after"] [data-state="ready"]').length === 2`);
    await shot('e2e-filter-applied.png');

    const before = peaksOf(join(dir, 'tones.wav'));
    const after = peaksOf(output);
    const near = (list: typeof after, f: number) => list.filter((p) => Math.abs(p.frequency - f) < 30);
    expect(near(before, STOP_HZ)[0].level).toBeGreaterThan(-11.5);
    // The pass-band tone keeps its level (0.3 → −10.46 dBFS); the stop-band one is gone (> 50 dB down or
    // not a peak at all).
    expect(near(after, PASS_HZ)[0].level).toBeCloseTo(near(before, PASS_HZ)[0].level, 0);
    for (const p of near(after, STOP_HZ)) expect(p.level).toBeLessThan(-60);
  });

  it('cancels the spectrogram and the filtering of a large raw file, leaving no output', async () => {
    await openThroughBrowser('big.cf32');
    // Raw I/Q: the format comes from the name; rate and centre are asked.
    await page.locator('[data-test="raw-dialog"]').waitFor();
    expect(await page.inputValue('[data-test="raw-format"]')).toBe('cf32');
    await page.fill('[data-test="raw-rate"]', '1M');
    await page.fill('[data-test="raw-center"]', '100M');
    await page.click('[data-test="raw-open"]');
    // The whole-file spectrogram runs with a progress bar; cancel it.
    const spectrogram = page.locator('[data-test="file-view"] [data-test="file-spectrogram"]').first();
    await spectrogram.locator('[data-test="progress-cancel"]').click();
    await until(`${topState()} === 'cancelled'`);
    const last = await hooks((h) => h.requests.filter((r) => r.method === 'fileSpectrogram').at(-1));
    expect(last).toMatchObject({ ok: false });
    expect(await page.locator('[data-test="file-info"] [data-field="centre"]').textContent()).toBe(
      '100.000000 MHz',
    );
    await shot('e2e-file-cancelled.png');

    await view('filter');
    const output = join(dir, 'big-filtered.sigmf-meta');
    expect(await page.inputValue('[data-test="apply-output"]')).toBe(output);
    const seen = await hooks((h) => h.progress.applyFilter ?? 0);
    await page.click('[data-test="apply"]');
    await until(`(window.__phasor.progress.applyFilter ?? 0) > ${seen}`);
    await shot('e2e-filter-progress.png');
    await page.locator('[data-test="apply-panel"] [data-test="progress-cancel"]').click();
    await page.locator('[data-test="apply-cancelled"]').waitFor();
    const apply = await hooks((h) => h.requests.filter((r) => r.method === 'applyFilter').at(-1));
    expect(apply).toMatchObject({ ok: false });
    // Neither the output nor a temporary file is left.
    expect(readdirSync(dir).filter((n) => n.startsWith('big-filtered') || n.includes('.phasor-'))).toEqual(
      [],
    );
  });

  it('finds the planted template’s lag, and its peak leads to that time in the File view', async () => {
    await openThroughBrowser('signal.wav');
    await until(`${topState()} === 'ready'`);
    // The template comes by drag and drop: web mode uploads it, then opens it.
    const bytes = readFileSync(join(dir, 'template.wav')).toString('base64');
    await page.evaluate(
      `(() => {
        const b = Uint8Array.from(atob(${JSON.stringify(bytes)}), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([b], 'template.wav', { type: 'audio/wav' }));
        const el = document.querySelector('[data-test="file-view"]');
        el.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
        el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      })()`,
    );
    await until(`document.querySelector('[data-test="file-info"]')?.textContent.includes('template.wav')`);

    await view('correlate');
    await page.selectOption('[data-test="corr-signal"]', { label: 'signal.wav' });
    await page.click('[data-test="tpl-file"]');
    await page.selectOption('[data-test="corr-template"]', { label: 'template.wav' });
    await page.click('[data-test="corr-run"]');
    await page.locator('[data-test="peak-table"] tbody tr[data-lag]').first().waitFor({ timeout: 20_000 });
    const lags = await page.$$eval('[data-test="peak-table"] tbody tr[data-lag]', (rows) =>
      rows.map((r) => Number(r.getAttribute('data-lag'))),
    );
    expect(lags[0]).toBe(LAG);
    const score = Number(
      await page
        .locator('[data-test="peak-table"] tbody tr')
        .first()
        .locator('[data-field="score"]')
        .textContent(),
    );
    expect(score).toBeGreaterThan(0.9);
    await shot('e2e-correlation.png');

    await page
      .locator('[data-test="peak-table"] tbody tr')
      .first()
      .locator('[data-test="peak-show"]')
      .click();
    await until(`location.hash === '#/file'`);
    expect(await page.locator('[data-test="selection-panel"] [data-field="start"]').textContent()).toBe(
      `${(LAG / CORR_FS).toFixed(3)} s`,
    );
    expect(await page.locator('[data-test="file-info"] .name').textContent()).toBe('signal.wav');
    await until(`${topState()} === 'ready'`);
    await shot('e2e-correlation-jump.png');
  });

  it('fills the benchmark table for the CPU and every other available backend', async () => {
    await view('bench');
    await page.locator('[data-test="backend-list"] [data-backend="cpu"]').waitFor();
    const available = await page.$$eval('[data-test="backend-list"] li:not(.unavailable)', (li) =>
      li.map((l) => l.getAttribute('data-backend')!),
    );
    expect(available).toContain('cpu');
    // Unavailable backends say why.
    for (const reason of await page.$$eval('[data-test="backend-reason"]', (r) =>
      r.map((x) => x.textContent ?? ''),
    )) {
      expect(reason.trim().length).toBeGreaterThan(3);
    }
    for (const op of ['fft', 'rfft', 'spectrogram', 'fir', 'correlate']) {
      const box = page.locator(`input[data-op="${op}"]`);
      if ((await box.isChecked()) !== (op === 'fft' || op === 'fir')) await box.click();
    }
    await page.fill('[data-test="bench-sizes"]', '256, 1024');
    await page.fill('[data-test="bench-samples"]', '16384');
    await page.fill('#bench-repeats', '2');
    await page.click('[data-test="bench-run"]');
    const expected = available.length * 2 * 2;
    await until(
      `document.querySelectorAll('[data-test="bench-table"] tbody tr[data-backend]').length === ${expected} &&
       !document.querySelector('[data-test="bench-run"]').disabled`,
      40_000,
    );
    const rows = await page.$$eval('[data-test="bench-table"] tbody tr[data-backend]', (trs) =>
      trs.map((tr) => ({
        backend: tr.getAttribute('data-backend'),
        op: tr.getAttribute('data-op'),
        size: Number(tr.getAttribute('data-size')),
        msps: Number(tr.querySelector('[data-field="msps"]')!.textContent!.replace(/,/g, '')),
      })),
    );
    for (const b of available) {
      for (const op of ['fft', 'fir']) {
        for (const size of [256, 1024]) {
          const r = rows.find((x) => x.backend === b && x.op === op && x.size === size);
          expect(r, `${b} ${op} ${size}`).toBeDefined();
          expect(r!.msps).toBeGreaterThan(0);
        }
      }
    }
    const bench = await hooks((h) => h.requests.filter((r) => r.method === 'runBench').at(-1));
    const result = bench!.result as { rows: Array<{ relError: number }> };
    for (const r of result.rows) expect(r.relError).toBeLessThan(1e-3);
    expect(await hooks((h) => h.progress.runBench ?? 0)).toBeGreaterThanOrEqual(expected);
    // a GPU backend with a device timer (WebGPU on SwiftShader has timestamp queries) adds its device rows
    const timed = (result as { deviceTimers?: Array<{ backend: string; method?: string }> }).deviceTimers;
    for (const t of timed ?? []) {
      if (!t.method) continue;
      const kernel = await page.$$eval(
        `[data-test="bench-device-table"] tbody tr[data-backend="${t.backend}"][data-timing="kernel"]`,
        (trs) =>
          trs.map((tr) => Number(tr.querySelector('[data-field="ms"]')!.textContent!.replace(/,/g, ''))),
      );
      expect(kernel.length, t.backend).toBeGreaterThan(0);
      for (const ms of kernel) expect(ms).toBeGreaterThan(0);
    }
    await shot('e2e-bench.png');
  });

  it('starts the live view’s session only when the Live view is shown', async () => {
    // The page opened on #/file: no live session ran meanwhile.
    expect(await hooks((h) => h.requests.filter((r) => r.method === 'start').length)).toBe(0);
    await view('live');
    await until('window.__phasor.info !== null && window.__phasor.rowsDrawn > 20', 20_000);
    await view('file');
    await until(`window.__phasor.requests.some((r) => r.method === 'stop' && r.ok)`);
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});

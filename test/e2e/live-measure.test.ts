// Measuring on the live spectrum in web mode, end to end: `phasor serve` and the built renderer in
// headless Chromium, on the generator with two tones (the tone, and a chirp held at one frequency).
// Places two markers and reads their differences, holds a tone that has gone in max hold, fits the level
// range, exports the traces as CSV, and switches the levels to dBFS/Hz.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { AppPage, parseCsv, rowNear as rowAt, type Csv } from './app.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const FS = 48000;
const FFT = 4096;
const TONE_A = 3000; // amplitude 0.5: −6.02 dBFS
const TONE_B = 7000; // amplitude 0.25: −12.04 dBFS
const MOVED = 5000;
const LEVEL_A = 20 * Math.log10(0.5);
const LEVEL_B = 20 * Math.log10(0.25);

let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

async function waitForRows(more: number): Promise<void> {
  const start = (await page.evaluate('window.__phasor.rowsDrawn')) as number;
  await app.until(`window.__phasor.rowsDrawn >= ${start + more}`);
}

/** Clicks Export CSV and parses what downloads. */
async function exportCsv(): Promise<Csv> {
  const { name, bytes } = await app.download('[data-test="export-csv"]');
  expect(name).toMatch(/^phasor-\d{8}-\d{6}\.csv$/);
  return parseCsv(bytes.toString('utf8'));
}

function median(v: number[]): number {
  const s = v.filter(Number.isFinite).sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Width (Hz) of one display column now. */
async function columnHz(): Promise<number> {
  const info = (await page.evaluate('window.__phasor.info')) as {
    frequencyRange: [number, number];
    bins: number;
    width: number;
  };
  const bin = (info.frequencyRange[1] - info.frequencyRange[0]) / (info.bins - 1);
  return (bin * info.bins) / info.width;
}

beforeAll(async () => {
  server = await startServe();
  browser = await launchChromium();
  app = await AppPage.open(browser, server);
  page = app.page;
  // Stored settings the app starts from: the generator with a tone and a chirp that stays at TONE_B.
  const stored = {
    version: 1,
    settings: {
      fft: FFT,
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
          noise: -80,
          sampleRate: FS,
        },
      },
    },
  };
  await page.addInitScript(
    `localStorage.setItem('phasor.settings', ${JSON.stringify(JSON.stringify(stored))})`,
  );
  await app.load('');
  await app.until(`window.__phasor && window.__phasor.info !== null && window.__phasor.info.fft === ${FFT}`);
  await waitForRows(60);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('measuring on the live spectrum', needs(chromium), () => {
  it('places two markers on the tones and reads their differences', async () => {
    await page.click('[data-test="marker-add"]');
    await page.click('[data-test="marker-add"]');
    const rows = page.locator('[data-test="marker-row"]');
    await app.until(`document.querySelectorAll('[data-test="marker-row"]').length === 2`);
    await app.until(
      `[...document.querySelectorAll('[data-test="marker-row"]')].every((r) => Number.isFinite(Number(r.dataset.level)))`,
    );
    const colHz = await columnHz();
    await app.shot('e2e-live-markers.png');
    const read = async (i: number, name: string) => Number(await rows.nth(i).getAttribute(`data-${name}`));
    // The first marker sits on the strongest tone (the reference), the second on the other.
    expect(Math.abs((await read(0, 'frequency')) - TONE_A)).toBeLessThan(colHz);
    expect(Math.abs((await read(1, 'frequency')) - TONE_B)).toBeLessThan(colHz);
    expect(Math.abs((await read(0, 'level')) - LEVEL_A)).toBeLessThan(1);
    expect(await read(0, 'delta-frequency')).toBe(0);
    // Δf within a column of the tones' 4 kHz; ΔL within a dB of −6.02 (the columns are the highest of
    // two bins each, and the peak's parabola reads between them).
    expect(Math.abs((await read(1, 'delta-frequency')) - (TONE_B - TONE_A))).toBeLessThan(colHz);
    expect(Math.abs((await read(1, 'delta-level')) - (LEVEL_B - LEVEL_A))).toBeLessThan(1);
    expect(await rows.nth(1).locator('[data-test="marker-delta-f"]').textContent()).toMatch(
      /^\+4\.0\d* kHz$/,
    );
    expect(await rows.nth(1).locator('[data-test="marker-delta-level"]').textContent()).toMatch(
      /^−[4-8]\.\d\d$/,
    );
    // Next Peak from the strongest marker moves it to the other tone.
    await rows.nth(0).click();
    await page.keyboard.press('n');
    await app.until(
      `Math.abs(Number(document.querySelectorAll('[data-test="marker-row"]')[0].dataset.frequency) - ${TONE_B}) < ${colHz}`,
      5000,
    );
  });

  it('places a marker with Shift+click, snaps it to the peak, drags it and removes it', async () => {
    await page.click('[data-test="marker-clear"]');
    await app.until(`document.querySelectorAll('[data-test="marker-row"]').length === 0`, 5000);
    const info = (await page.evaluate('window.__phasor.info')) as { frequencyRange: [number, number] };
    const [f0, f1] = info.frequencyRange;
    const box = (await page.locator('[data-test="spectrum-area"]').boundingBox())!;
    const xOf = (f: number): number => box.x + ((f - f0) / (f1 - f0)) * box.width;
    const pxHz = (f1 - f0) / box.width;
    const y = box.y + box.height / 2;
    const row = page.locator('[data-test="marker-row"]').first();
    const freq = async () => Number(await row.getAttribute('data-frequency'));
    // Shift+click 8 columns beside the second tone: the marker lands where the pointer is.
    const colHz = await columnHz();
    await page.keyboard.down('Shift');
    await page.mouse.click(xOf(TONE_B + 8 * colHz), y);
    await page.keyboard.up('Shift');
    await app.until(`document.querySelectorAll('[data-test="marker-row"]').length === 1`, 5000);
    expect(Math.abs((await freq()) - (TONE_B + 8 * colHz))).toBeLessThan(pxHz);
    // K snaps it to the tone (within ±10 columns).
    await page.keyboard.press('k');
    await app.until(
      `Math.abs(Number(document.querySelector('[data-test="marker-row"]').dataset.frequency) - ${TONE_B}) < ${colHz}`,
      5000,
    );
    // Dragging the marker moves it, not the view.
    const from = xOf(await freq());
    await page.mouse.move(from, y);
    await page.mouse.down();
    await page.mouse.move(from + 60, y, { steps: 4 });
    await page.mouse.move(xOf(12000), y, { steps: 4 });
    await page.mouse.up();
    expect(Math.abs((await freq()) - 12000)).toBeLessThan(pxHz);
    // The view did not pan: nothing to reset.
    expect(await page.locator('button[title^="Show the whole spectrum"]').isDisabled()).toBe(true);
    await page.keyboard.press('Delete');
    await app.until(`document.querySelectorAll('[data-test="marker-row"]').length === 0`, 5000);
  });

  it('fits the level range to the floor and the peaks with A', async () => {
    await page.fill('[data-test="db-min"]', '-300');
    await page.press('[data-test="db-min"]', 'Enter');
    await page.fill('[data-test="db-max"]', '60');
    await page.press('[data-test="db-max"]', 'Enter');
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await app.until(`document.querySelector('[data-test="db-min"]').value === '-300'`, 5000);
    await page.keyboard.press('a');
    await app.until(`document.querySelector('[data-test="db-min"]').value !== '-300'`, 5000);
    const lo = Number(await page.inputValue('[data-test="db-min"]'));
    const hi = Number(await page.inputValue('[data-test="db-max"]'));
    const csv = await exportCsv();
    const floor = median(csv.rows.map((r) => r[1]));
    // Round 5 dB ends that bracket the floor (the median level) and the strongest tone, with margins.
    expect(Math.abs(lo % 5)).toBe(0);
    expect(Math.abs(hi % 5)).toBe(0);
    expect(lo).toBeLessThan(floor);
    expect(lo).toBeGreaterThanOrEqual(floor - 20);
    expect(hi).toBeGreaterThan(LEVEL_A);
    expect(hi).toBeLessThanOrEqual(LEVEL_A + 15);
  });

  it('exports the traces as CSV: analysis in comments, units in the header, the tone at its level', async () => {
    const csv = await exportCsv();
    expect(csv.comments).toMatchObject({ fft: String(FFT), window: 'hann', sample_rate_hz: String(FS) });
    expect(Number(csv.comments.enbw_bins)).toBeCloseTo(1.5, 6);
    expect(Number(csv.comments.rbw_hz)).toBeCloseTo((1.5 * FS) / FFT, 5);
    expect(Number(csv.comments.time_s)).toBeGreaterThan(0);
    expect(csv.header).toEqual(['frequency (Hz)', 'clear-write (dBFS)', 'max hold (dBFS)']);
    const f = csv.rows.map((r) => r[0]);
    for (let i = 1; i < f.length; i++) expect(f[i]).toBeGreaterThan(f[i - 1]);
    expect(f[0]).toBeGreaterThanOrEqual(0);
    expect(f.at(-1)).toBeLessThanOrEqual(FS / 2);
    // Columns are the highest of their bins: the tone's column reads its level less the scalloping.
    const peak = csv.rows.reduce((a, b) => (b[1] > a[1] ? b : a));
    expect(Math.abs(peak[0] - TONE_A)).toBeLessThan(await columnHz());
    expect(peak[1]).toBeGreaterThan(LEVEL_A - 1.5);
    expect(peak[1]).toBeLessThan(LEVEL_A + 0.1);
  });

  it('keeps a tone that has gone in max hold while clear-write drops it', async () => {
    const form = page.locator('[data-kind="generator"]');
    await form.locator('[data-field="frequency"] input').fill(String(MOVED));
    await form.locator('[data-field="frequency"] input').press('Enter');
    await app.until(
      `(() => { const r = window.__phasor.requests.filter((x) => x.method === 'start').at(-1);
        return r && r.ok && r.params.source.frequency === ${MOVED}; })()`,
      10_000,
    );
    await waitForRows(60);
    const csv = await exportCsv();
    const [, clearOld, maxOld] = rowAt(csv, TONE_A);
    const [, clearNew, maxNew] = rowAt(csv, MOVED);
    const floor = median(csv.rows.map((r) => r[1]));
    expect(maxOld).toBeGreaterThan(LEVEL_A - 1.5); // still held
    expect(clearOld).toBeLessThan(floor + 20); // gone from the live trace
    expect(clearNew).toBeGreaterThan(LEVEL_A - 1.5);
    expect(maxNew).toBeGreaterThanOrEqual(clearNew);
    // Min hold, shown, lies at or under the live trace; Reset starts the holds again and drops the old tone.
    await page.check('[data-test="min-hold"]');
    await page.click('[data-test="reset-hold"]');
    await waitForRows(30);
    await app.shot('e2e-live-holds.png');
    const after = await exportCsv();
    expect(after.header).toEqual([
      'frequency (Hz)',
      'clear-write (dBFS)',
      'max hold (dBFS)',
      'min hold (dBFS)',
    ]);
    const [, , maxGone] = rowAt(after, TONE_A);
    expect(maxGone).toBeLessThan(floor + 25);
    for (const r of after.rows) expect(r[3]).toBeLessThanOrEqual(r[1]);
    await page.uncheck('[data-test="min-hold"]');
  });

  it('reads levels as density in dBFS/Hz with the RBW shown', async () => {
    expect(await page.textContent('[data-test="rbw-readout"]')).toMatch(
      /RBW 17\.58 Hz · ENBW 1\.50 bins \(hann\)/,
    );
    await page.click('[data-test="pause"]');
    const before = await exportCsv();
    await page.selectOption('[data-test="level-unit"]', 'dBFS/Hz');
    const after = await exportCsv();
    await page.click('[data-test="pause"]');
    expect(after.header[1]).toBe('clear-write (dBFS/Hz)');
    expect(after.comments.rbw_hz).toBe(before.comments.rbw_hz);
    // The same spectrum (paused for both exports) reads −10·log10(RBW) lower, column by column.
    const offset = -10 * Math.log10((1.5 * FS) / FFT);
    expect(after.rows.length).toBe(before.rows.length);
    for (let i = 0; i < before.rows.length; i += 97) {
      expect(after.rows[i][0]).toBe(before.rows[i][0]);
      expect(after.rows[i][1] - before.rows[i][1]).toBeCloseTo(offset, 2);
    }
    await page.selectOption('[data-test="level-unit"]', 'dBFS');
    expect(app.errors).toEqual([]);
  });
});

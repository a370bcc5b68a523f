// The rtl_tcp source in web mode, end to end: a fake rtl_tcp server (the real protocol on 127.0.0.1),
// `phasor serve` granted that server and a folder, and the built renderer in headless Chromium. Connects,
// finds the planted carrier at its absolute frequency, re-centres by double-clicking the waterfall, records
// two seconds, and opens the recording in the File view.
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PhasorHooks } from '../../renderer/src/lib/hooks.js';
import { startFakeRtlTcp, type FakeRtlTcp } from '../support/fake-rtltcp.js';
import { launchChromium, startServe, type Server } from './support.js';
import { chromium, needs } from '../support/requirements.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const CENTRE = 100e6;
const RATE = 1_024_000;
const CARRIER = 100.25e6;
const RECENTRE = 100.1e6;

let fake: FakeRtlTcp;
let server: Server;
let browser: Browser;
let page: Page;
let dir: string;
/** The centre the double-click tuned to (1 kHz steps, so within a pixel's worth of RECENTRE). */
let tuned = 0;
const pageErrors: string[] = [];

async function hooks<T>(fn: (h: PhasorHooks) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.__phasor)`) as Promise<T>;
}

/** Polls `expression` in the page until it is true (the page's CSP forbids waitForFunction's eval). */
async function until(expression: string, timeout = 20_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  fake = await startFakeRtlTcp({ centerFrequency: CENTRE, sampleRate: RATE, carrier: CARRIER });
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-rtltcp-'));
  server = await startServe(['--rtl-tcp', `127.0.0.1:${fake.port}`, '--root', dir]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(server.url);
  await until('window.__phasor && window.__phasor.info !== null', 20_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe('rtl_tcp in web mode', needs(chromium), () => {
  it('connects and marks the planted carrier at its absolute frequency', async () => {
    await page.selectOption('#source-kind', 'rtl_tcp');
    const form = page.locator('[data-kind="rtl_tcp"]');
    await form.locator('[data-field="sampleRate"] select').selectOption(String(RATE));
    await form.locator('[data-field="centerFrequency"] input').fill(String(CENTRE));
    await form.locator('[data-field="centerFrequency"] input').press('Enter');
    await form.locator('[data-field="port"] input').fill(String(fake.port));
    await form.locator('[data-field="port"] input').press('Enter');
    // Picking the kind started it at the default port (refused); start again with the fields filled in.
    await page.click('[data-test="start"]');
    await until(
      `(() => { const r = window.__phasor.requests.filter((x) => x.method === 'start').at(-1);
        return r && r.ok && r.params.source.port === ${fake.port}; })()`,
      15_000,
    );
    const info = (await hooks((h) => h.info))!;
    expect(info.complex).toBe(true);
    expect(info.tunable).toBe(true);
    expect(info.centerFrequency).toBe(CENTRE);
    expect(info.frequencyRange[0]).toBeLessThan(CENTRE - RATE / 2 + 1000);
    expect(info.frequencyRange[1]).toBeGreaterThan(CENTRE + RATE / 2 - 1000);
    // The engine got the tuning before the samples it analyses.
    expect(fake.commands.some((c) => c.cmd === 0x01 && c.value === CENTRE)).toBe(true);
    expect(fake.commands.some((c) => c.cmd === 0x02 && c.value === RATE)).toBe(true);

    await until(
      `(() => { const p = window.__phasor.peaks; return !!p && p.peaks.length > 0 &&
        Math.abs(p.peaks[0].frequency - ${fake.carrier}) < p.binWidth; })()`,
      20_000,
    );
    const peaks = (await hooks((h) => h.peaks))!;
    expect(Math.abs(peaks.peaks[0].frequency - fake.carrier)).toBeLessThan(peaks.binWidth / 4);
    await until(`(window.__phasor.markerLabels[0] ?? '').startsWith('100.25')`, 10_000);
    await page.locator('[data-test="link-status"][data-state="connected"]').waitFor({ timeout: 10_000 });
  });

  it('re-centres on a double-click and keeps the carrier where it is', async () => {
    const box = (await page.locator('[data-test="waterfall"]').boundingBox())!;
    const info = (await hooks((h) => h.info))!;
    const [f0, f1] = info.frequencyRange;
    const x = ((RECENTRE - f0) / (f1 - f0)) * box.width;
    await page.mouse.dblclick(box.x + x, box.y + box.height / 2);
    await until(
      `window.__phasor.info && Math.abs(window.__phasor.info.centerFrequency - ${RECENTRE}) < 2000`,
    );
    tuned = (await hooks((h) => h.info))!.centerFrequency!;
    // The 5-byte frequency command reached the server, on the same connection.
    expect(fake.commands.at(-1)).toMatchObject({ cmd: 0x01, value: tuned });
    expect(fake.connections).toBe(1);
    // The carrier stays at its absolute frequency: now 150 kHz above the new centre.
    await until(
      `(() => { const p = window.__phasor.peaks; return !!p && p.peaks.length > 0 &&
        Math.abs(p.peaks[0].frequency - ${fake.carrier}) < p.binWidth &&
        window.__phasor.info.centerFrequency === ${tuned}; })()`,
      20_000,
    );
    const [g0, g1] = (await hooks((h) => h.info))!.frequencyRange;
    expect((g0 + g1) / 2).toBeCloseTo(tuned, -3);
  });

  it('records two seconds that the File view then opens', async () => {
    await page.click('[data-test="record-button"]');
    await page.locator('[data-test="record-dialog"]').waitFor();
    await until(
      `(document.querySelector('[data-test="record-folder"]')?.value ?? '') === ${JSON.stringify(dir)}`,
    );
    await page.fill('[data-test="record-name"]', 'take.sigmf-meta');
    await page.click('[data-test="record-confirm"]');
    await page.locator('[data-test="recording-status"]').waitFor();
    await until(
      `/REC 0:0[2-9]/.test(document.querySelector('[data-test="recording-status"]')?.textContent ?? '')`,
      20_000,
    );
    await page.click('[data-test="record-button"]');
    await page.locator('[data-test="recording-message"]').waitFor();
    expect(await page.locator('[data-test="recording-message"]').textContent()).toMatch(
      /Recorded take\.sigmf-meta/,
    );

    // On disk: the bytes as received (cu8), whole I/Q pairs, the tuning in the metadata, not "in progress".
    expect(readdirSync(dir).sort()).toEqual(['take.sigmf-data', 'take.sigmf-meta']);
    const meta = JSON.parse(readFileSync(join(dir, 'take.sigmf-meta'), 'utf8')) as {
      global: Record<string, unknown>;
      captures: Array<Record<string, unknown>>;
    };
    expect(meta.global['core:datatype']).toBe('cu8');
    expect(meta.global['core:sample_rate']).toBe(RATE);
    expect(meta.global['phasor:recording']).not.toBe(true);
    expect(meta.captures[0]['core:frequency']).toBe(tuned);
    const bytes = statSync(join(dir, 'take.sigmf-data')).size;
    expect(bytes % 2).toBe(0);
    expect(bytes / 2 / RATE).toBeGreaterThan(1.5);

    await page.click('[data-view="file"]');
    await page.click('[data-test="toolbar-open"]');
    await page.fill('[data-test="browser-path"]', dir);
    await page.press('[data-test="browser-path"]', 'Enter');
    await page.locator('[data-test="browser-entries"] [data-name="take.sigmf-meta"]').dblclick();
    await page.locator('[data-test="file-info"] [data-field="centre"]').waitFor();
    expect(await page.locator('[data-test="file-info"] [data-field="centre"]').textContent()).toBe(
      `${(tuned / 1e6).toFixed(6)} MHz`,
    );
    await until(
      `document.querySelector('[data-test="file-view"] [data-test="file-spectrogram"]')?.dataset.state === 'ready'`,
      30_000,
    );
    expect(await page.locator('[data-test="file-warning"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});

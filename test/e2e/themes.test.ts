// Themes in web mode, end to end: `phasor serve` and the built renderer in headless Chromium. The page
// follows the system (prefers-color-scheme, prefers-contrast, forced-colors) until the user picks a theme in
// the top bar; that choice wins over the system and survives a reload; the File view's uPlot spectrum
// draws its axes in the theme's colour and redraws when the theme changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseColor } from '../../renderer/src/lib/theme.js';
import { chromium, needs } from '../support/requirements.js';
import { AppPage } from './app.js';
import { tones, writeWav } from './fixtures.js';
import { launchChromium, startServe, type Server } from './support.js';

let dir: string;
let server: Server;
let browser: Browser;
const pages: AppPage[] = [];

async function open(hash = '#/file'): Promise<AppPage> {
  const app = await AppPage.open(browser, server);
  pages.push(app);
  await app.load(hash);
  return app;
}

/** The page's theme: its data-theme, and the computed background and text colours of the document. */
async function look(page: Page): Promise<{ theme: string; background: string; color: string }> {
  return (await page.evaluate(`(() => {
    const s = getComputedStyle(document.documentElement);
    return { theme: document.documentElement.dataset.theme, background: s.backgroundColor, color: s.color };
  })()`)) as { theme: string; background: string; color: string };
}

const cssVar = async (page: Page, name: string) =>
  (await page.evaluate(
    `getComputedStyle(document.documentElement).getPropertyValue('--${name}').trim()`,
  )) as string;

/** Pixels of the File view's uPlot canvas within 3 levels of the colour `css` (axis labels are drawn in it). */
async function pixelsOf(page: Page, css: string): Promise<number> {
  const c = parseColor(css)!;
  return (await page.evaluate(`(() => {
    const cv = document.querySelector('[data-test="file-spectrum-chart"] canvas');
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4)
      if (Math.abs(d[i] - ${c[0]}) <= 3 && Math.abs(d[i + 1] - ${c[1]}) <= 3 && Math.abs(d[i + 2] - ${c[2]}) <= 3) n++;
    return n;
  })()`)) as number;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-e2e-themes-'));
  writeWav(join(dir, 'tone.wav'), 16000, tones(16000, 16000, [[1000, 0.3]]));
  server = await startServe(['--root', dir]);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('themes', needs(chromium), () => {
  it('follows the system: light, dark, more contrast, forced colours', async () => {
    const app = await open();
    const { page } = app;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await app.until(`document.documentElement.dataset.theme === 'light'`);
    const light = await look(page);
    expect(light).toEqual({ theme: 'light', background: 'rgb(243, 245, 248)', color: 'rgb(24, 32, 43)' });

    // A change of the system's setting while the page is open is followed at once.
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.until(`document.documentElement.dataset.theme === 'dark'`);
    expect(await look(page)).toEqual({
      theme: 'dark',
      background: 'rgb(13, 16, 21)',
      color: 'rgb(213, 220, 229)',
    });

    await page.emulateMedia({ colorScheme: 'light', contrast: 'more' });
    await app.until(`document.documentElement.dataset.theme === 'contrast'`);
    expect(await look(page)).toEqual({
      theme: 'contrast',
      background: 'rgb(0, 0, 0)',
      color: 'rgb(255, 255, 255)',
    });

    // Forced colours: the browser paints with the system's colours; the page's own canvases use the
    // high-contrast set.
    await page.emulateMedia({ colorScheme: 'light', contrast: 'no-preference', forcedColors: 'active' });
    await app.until(`document.documentElement.dataset.theme === 'contrast'`);
    expect(await cssVar(page, 'plot-bg')).toBe('#000000');
    await page.emulateMedia({ colorScheme: 'light', contrast: 'no-preference', forcedColors: 'none' });
    await app.until(`document.documentElement.dataset.theme === 'light'`);
    expect(app.errors).toEqual([]);
  });

  it('keeps the user’s choice over the system and across a reload', async () => {
    const app = await open();
    const { page } = app;
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.until(`document.documentElement.dataset.theme === 'dark'`);
    const select = page.locator('header [data-test="theme-select"]');
    expect(await select.inputValue()).toBe('system');

    await select.selectOption('light');
    expect((await look(page)).background).toBe('rgb(243, 245, 248)');
    await page.reload();
    await app.until('!!document.querySelector(\'[data-test="theme-select"]\')');
    expect(await look(page)).toEqual({
      theme: 'light',
      background: 'rgb(243, 245, 248)',
      color: 'rgb(24, 32, 43)',
    });
    expect(await select.inputValue()).toBe('light');
    // the system's changes no longer move it
    await page.emulateMedia({ colorScheme: 'dark', contrast: 'more' });
    await page.waitForTimeout(100);
    expect((await look(page)).theme).toBe('light');

    await select.selectOption('contrast');
    expect((await look(page)).theme).toBe('contrast');
    // back to System: the system's (more contrast) again, and nothing kept for the next load
    await select.selectOption('system');
    expect((await look(page)).theme).toBe('contrast');
    await page.emulateMedia({ colorScheme: 'dark', contrast: 'no-preference' });
    await app.until(`document.documentElement.dataset.theme === 'dark'`);
    await page.reload();
    await app.until('!!document.querySelector(\'[data-test="theme-select"]\')');
    expect(await select.inputValue()).toBe('system');
    expect((await look(page)).theme).toBe('dark');
    expect(app.errors).toEqual([]);
  });

  it('draws the uPlot axes in the theme’s colour and redraws on a change', async () => {
    const app = await open();
    const { page } = app;
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.until(`document.documentElement.dataset.theme === 'dark'`);
    await app.openFile(dir, 'tone.wav');
    await app.until(`document.querySelector('[data-test="file-spectrum"]')?.dataset.state === 'ready'`);
    const darkAxis = await cssVar(page, 'chart-axis');
    expect(await pixelsOf(page, darkAxis)).toBeGreaterThan(50);

    await page.locator('[data-test="theme-select"]').selectOption('light');
    const lightAxis = await cssVar(page, 'chart-axis');
    expect(lightAxis).not.toBe(darkAxis);
    await page.waitForTimeout(200);
    expect(await pixelsOf(page, lightAxis)).toBeGreaterThan(50);
    expect(await pixelsOf(page, darkAxis)).toBe(0);
    expect(app.errors).toEqual([]);
  });
});

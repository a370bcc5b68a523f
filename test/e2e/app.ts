// One page of the app in headless Chromium, with what every browser test does on it: load a view and wait
// for the engine's hello, poll a condition (waitForFunction needs eval, which the page's CSP forbids), wait
// for replies, open a file through the web file browser, save a screenshot when PHASOR_SHOTS names a
// folder, and read a CSV the page downloads.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Server } from './support.js';

export interface AppOptions {
  width?: number;
  height?: number;
  /** The route loaded first (e.g. '#/file'); none: load() is called by the test. */
  hash?: string;
  /** Poll timeout (ms) of until() when a call gives none. */
  timeout?: number;
}

export class AppPage {
  /** Uncaught errors of the page, for a test to assert there were none. */
  readonly errors: string[] = [];

  private constructor(
    readonly page: Page,
    private readonly server: Server,
    private readonly timeout: number,
  ) {
    page.on('pageerror', (e) => this.errors.push(e.message));
  }

  static async open(browser: Browser, server: Server, options: AppOptions = {}): Promise<AppPage> {
    const page = await browser.newPage({
      viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
      deviceScaleFactor: 1,
      acceptDownloads: true,
    });
    const app = new AppPage(page, server, options.timeout ?? 20_000);
    if (options.hash !== undefined) await app.load(options.hash);
    return app;
  }

  /** Loads the app at `hash` (e.g. '#/file') and waits until the engine answered hello. */
  async load(hash: string): Promise<void> {
    await this.page.goto(`${this.server.url.replace(/\/?(\?|$)/, '/$1')}${hash}`);
    await this.until(
      '!!window.__phasor && window.__phasor.requests.some((r) => r.method === "hello" && r.ok)',
    );
  }

  /** Polls `expression` in the page until it is true. */
  async until(expression: string, timeout = this.timeout): Promise<void> {
    const end = Date.now() + timeout;
    while (!(await this.page.evaluate(expression))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Waits for the `n`-th successful reply to `method` (counted over the page's life). */
  replied(method: string, n: number): Promise<void> {
    return this.until(
      `window.__phasor.requests.filter((r) => r.method === '${method}' && r.ok).length >= ${n}`,
    );
  }

  /** Opens `dir/name` with the File view's browser and waits until its spectrogram is drawn. */
  async openFile(dir: string, name: string): Promise<void> {
    await this.page.click('[data-test="toolbar-open"]');
    await this.page.fill('[data-test="browser-path"]', dir);
    await this.page.press('[data-test="browser-path"]', 'Enter');
    await this.page.locator(`[data-test="browser-entries"] [data-name="${name}"]`).dblclick();
    await this.until(`${TOP_SPECTROGRAM}?.dataset.state === 'ready'`);
  }

  /** Saves a screenshot as PHASOR_SHOTS/name when PHASOR_SHOTS names a folder (for a person to look at). */
  async shot(name: string): Promise<void> {
    const dir = process.env.PHASOR_SHOTS;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    await this.page.screenshot({ path: join(dir, name) });
  }

  /** Clicks `selector` and returns what the page downloads; with PHASOR_SHOTS set, keeps a copy there named
   * `${keep}${name}` when `keep` is given. */
  async download(selector: string, keep?: string): Promise<{ name: string; bytes: Buffer }> {
    const [d] = await Promise.all([this.page.waitForEvent('download'), this.page.click(selector)]);
    const name = d.suggestedFilename();
    const bytes = readFileSync((await d.path())!);
    const dir = process.env.PHASOR_SHOTS;
    if (dir && keep !== undefined) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${keep}${name}`), bytes);
    }
    return { name, bytes };
  }
}

/** The File view's top spectrogram element, as a page expression. */
export const TOP_SPECTROGRAM = `document.querySelector('[data-test="file-view"] [data-test="file-spectrogram"]')`;

export interface Csv {
  /** `# key: value` comment lines. */
  comments: Record<string, string>;
  header: string[];
  /** Numbers per row; an empty cell is NaN. */
  rows: number[][];
}

/** Parses an exported CSV: a header line and `# key: value` comments (in either order), then numbers. */
export function parseCsv(text: string): Csv {
  const comments: Record<string, string> = {};
  let header: string[] | null = null;
  const rows: number[][] = [];
  for (const line of text.trimEnd().split('\n')) {
    const m = /^# ([^:]+): (.*)$/.exec(line);
    if (m) comments[m[1]] = m[2];
    else if (line.startsWith('#')) continue;
    else if (!header) header = line.split(',');
    else rows.push(line.split(',').map((v) => (v === '' ? NaN : Number(v))));
  }
  return { comments, header: header ?? [], rows };
}

/** The row of `csv` whose first column is nearest `x`. */
export function rowNear(csv: Csv, x: number): number[] {
  let best = csv.rows[0];
  for (const r of csv.rows) if (Math.abs(r[0] - x) < Math.abs(best[0] - x)) best = r;
  return best;
}

// Helpers for the browser tests: the built renderer, `phasor serve` as a child process, Chromium through
// playwright-core, and reading pixels back from screenshots.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { chromium, type Browser } from 'playwright-core';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.PHASOR_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** Builds what web mode serves when it is missing or older than its sources: the CLI (dist/) and the
 * renderer (out/renderer, by electron-vite). */
export function ensureBuilt(): void {
  const cli = join(root, 'dist', 'electron', 'cli', 'main.js');
  if (!existsSync(cli))
    run(process.execPath, [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
    ]);
  const page = join(root, 'out', 'renderer', 'index.html');
  const sources = Math.max(
    newestMtime(join(root, 'renderer')),
    newestMtime(join(root, 'electron', 'engine', 'protocol')),
  );
  if (!existsSync(page) || statSync(page).mtimeMs < sources) {
    run(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']);
  }
}

export interface Server {
  url: string;
  process: ChildProcess | null;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `phasor serve --port 0` (after building what it serves) and resolves with the URL it prints, which
 * carries the access token: open that URL (a page without it is refused). Pass `--root DIR` in `args` for
 * the folders the page may open files from (default: the repository, the server's working folder).
 * PHASOR_E2E_URL points the tests at a server already running instead (for debugging by hand).
 */
export function startServe(args: string[] = []): Promise<Server> {
  const given = process.env.PHASOR_E2E_URL;
  if (given) return Promise.resolve({ url: given, process: null, output: () => '', stop: async () => {} });
  ensureBuilt();
  const child = spawn(process.execPath, [join(root, 'bin', 'phasor.js'), 'serve', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BROWSER: 'none' },
  });
  let out = '';
  return new Promise<Server>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`phasor serve printed no URL within 30 s:\n${out}`));
    }, 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /(https?:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          process: child,
          output: () => out,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`phasor serve exited (${code}) before printing its URL:\n${out}`));
    });
  });
}

/** Headless Chromium; `extraArgs` adds switches (e.g. a fake microphone). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

export interface Image {
  width: number;
  height: number;
  data: Buffer;
}

export function decodePng(buf: Buffer): Image {
  const png = PNG.sync.read(buf);
  return { width: png.width, height: png.height, data: png.data };
}

/** Mean luminance (0…255) of each column over rows [y0, y1). */
export function columnLuminance(img: Image, y0 = 0, y1 = img.height): Float64Array {
  const out = new Float64Array(img.width);
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = 4 * (y * img.width + x);
      out[x] += 0.2126 * img.data[i] + 0.7152 * img.data[i + 1] + 0.0722 * img.data[i + 2];
    }
  }
  for (let x = 0; x < img.width; x++) out[x] /= y1 - y0;
  return out;
}

export function median(values: ArrayLike<number>): number {
  const v = Array.from(values).sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
}

/** Fraction of pixels whose colour differs by more than `tolerance` in some channel. */
export function differingFraction(a: Image, b: Image, tolerance = 8): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i] - b.data[i]) > tolerance ||
      Math.abs(a.data[i + 1] - b.data[i + 1]) > tolerance ||
      Math.abs(a.data[i + 2] - b.data[i + 2]) > tolerance
    ) {
      n++;
    }
  }
  return n / (a.width * a.height);
}

/** Fraction of pixels that are grey (R = G = B within 2). */
export function grayFraction(img: Image): number {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    const r = img.data[i];
    const g = img.data[i + 1];
    const b = img.data[i + 2];
    if (Math.abs(r - g) <= 2 && Math.abs(g - b) <= 2) n++;
  }
  return n / (img.width * img.height);
}

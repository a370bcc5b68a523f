#!/usr/bin/env node
// `npm start`: builds what is missing or stale, then opens the desktop app when Electron's binary is
// installed; otherwise says why in one line and starts web mode (`phasor serve`), opening Chromium or
// Chrome in app mode when one is found, else printing the URL.
//
// `npm start -- FILE…` opens the files in the desktop app.
// Environment: PHASOR_BROWSER (a browser to use), PHASOR_NO_BROWSER=1 (print the URL only),
// PHASOR_PORT (web mode's port; default 5917, or a free one when that is taken).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_STAMP, markAppBuilt } from './app-stamp.mjs';
import { ChromiumLogFilter } from './chromium-log.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const say = (line) => process.stderr.write(`phasor: ${line}\n`);

/** Newest modification time (ms) of the files under the paths (0 when none). */
function newest(paths) {
  let t = 0;
  const walk = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) walk(path.join(p, e));
    } else t = Math.max(t, st.mtimeMs);
  };
  for (const p of paths) walk(path.join(root, p));
  return t;
}

function mtime(file) {
  try {
    return statSync(path.join(root, file)).mtimeMs;
  } catch {
    return 0;
  }
}

/** A package's file, resolved past its "exports" map. */
function packageFile(pkg, file) {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
}

function run(what, args) {
  say(what);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    say(`${what} failed`);
    process.exit(r.status ?? 1);
  }
}

function ensureBuilt() {
  const appSources = ['electron', 'renderer', 'electron.vite.config.ts', 'package.json'];
  if (!existsSync(path.join(root, 'out/renderer/index.html')) || newest(appSources) > mtime(APP_STAMP)) {
    run('building the app (electron-vite build)…', [
      packageFile('electron-vite', 'bin/electron-vite.js'),
      'build',
    ]);
    markAppBuilt(root);
  }
  // tsc --incremental writes only what changed, so the newest output, not one file, says when it last ran.
  if (newest(['electron/engine', 'electron/cli']) > newest(['dist/electron'])) {
    run('building the engine and CLI (tsc)…', [
      packageFile('typescript', 'bin/tsc'),
      '-p',
      'tsconfig.build.json',
    ]);
  }
}

/** The Electron binary, or why there is none. Not require('electron'): that would try to download it. */
function electronBinary() {
  let dir;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { why: 'the electron package is not installed (npm install)' };
  }
  let name;
  try {
    name = readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
  } catch {
    name = undefined;
  }
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(dir, 'dist');
  const binary = name ? path.join(distDir, name) : undefined;
  if (binary && existsSync(binary)) return { path: binary };
  return {
    why: 'the Electron binary is not installed (it was skipped or could not be downloaded; `npx install-electron` fetches it)',
  };
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, process.platform === 'win32' ? `${name}.exe` : name);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

function findBrowser() {
  if (process.env.PHASOR_BROWSER) return process.env.PHASOR_BROWSER;
  for (const n of [
    'chromium',
    'chromium-browser',
    'google-chrome',
    'google-chrome-stable',
    'microsoft-edge',
    'brave-browser',
  ]) {
    const p = onPath(n);
    if (p) return p;
  }
  const fixed =
    process.platform === 'darwin'
      ? [
          '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
          '/Applications/Chromium.app/Contents/MacOS/Chromium',
          '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
        ]
      : process.platform === 'win32'
        ? [
            `${process.env['PROGRAMFILES'] ?? 'C:\\Program Files'}\\Google\\Chrome\\Application\\chrome.exe`,
            `${process.env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)'}\\Microsoft\\Edge\\Application\\msedge.exe`,
          ]
        : [];
  return fixed.find((p) => existsSync(p));
}

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function webMode() {
  const wanted = Number(process.env.PHASOR_PORT ?? 5917);
  // A fixed port keeps the page's origin, so its saved settings, between runs.
  const port = (await portFree(wanted)) ? wanted : 0;
  const server = spawn(
    process.execPath,
    [path.join(root, 'bin/phasor.js'), 'serve', '--port', String(port)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.on('exit', (code) => process.exit(code ?? 0));
  const url = await new Promise((resolve) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d.toString();
      const m = /^(https?:\/\/\S+)$/m.exec(buf);
      if (m) resolve(m[1]);
    });
  });
  server.stdout.resume();
  const browser = process.env.PHASOR_NO_BROWSER ? undefined : findBrowser();
  if (!browser) {
    process.stdout.write(`Open ${url} in a browser (Ctrl-C stops Phasor).\n`);
    return;
  }
  const profile = path.join(
    process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'),
    'phasor',
    'browser-profile',
  );
  mkdirSync(profile, { recursive: true });
  const args = [
    `--app=${url}`,
    `--user-data-dir=${profile}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--window-size=1280,820',
    // Without a usable GPU Chromium refuses WebGL unless its software renderer is allowed; the waterfall
    // needs WebGL2. With a GPU this changes nothing.
    '--enable-unsafe-swiftshader',
  ];
  // Chromium refuses to start as root without this (containers, CI machines).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  say(`opening ${url} in ${path.basename(browser)}`);
  const started = Date.now();
  const b = spawn(browser, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // The browser's own log is not ours to show; its last error says why it could not start.
  const log = new ChromiumLogFilter(() => {}, { debug: false });
  b.stderr.on('data', (d) => log.write(d));
  const fallback = (why) => {
    log.end();
    say(`could not open ${path.basename(browser)} (${[why, log.reason()].filter(Boolean).join(': ')})`);
    process.stdout.write(`Open ${url} in a browser (Ctrl-C stops Phasor).\n`);
  };
  b.on('error', (err) => fallback(err.message));
  b.on('exit', (code) => {
    // A browser that fails at once (no display…) leaves the server running; closing the window ends Phasor.
    if (code !== 0 && Date.now() - started < 5000) fallback(`exit code ${code}`);
    else stop();
  });
}

ensureBuilt();
const electron = process.env.PHASOR_WEB ? { why: 'PHASOR_WEB is set' } : electronBinary();
if (electron.path) {
  // `npm start -- rec.wav`: the files go to the app as on its own command line (it opens them), made
  // absolute against the folder npm was started in (npm runs this script in the package's folder).
  const from = process.env.INIT_CWD ?? process.cwd();
  const files = process.argv.slice(2).map((f) => (f.startsWith('-') ? f : path.resolve(from, f)));
  const child = spawn(electron.path, ['.', ...files], { cwd: root, stdio: ['inherit', 'inherit', 'pipe'] });
  // Chromium's internal log stays off the terminal; a failed start still says why in one line.
  const log = new ChromiumLogFilter((line) => process.stderr.write(line));
  child.stderr.on('data', (d) => log.write(d));
  child.on('exit', (code, signal) => {
    log.end();
    if (code) {
      const why = [log.reason(), log.note()].filter(Boolean);
      say(`the desktop app exited with code ${code}${why.length ? `: ${why.join('; ')}` : ''}`);
    }
    process.exit(code ?? (signal ? 1 : 0));
  });
  process.on('SIGINT', () => child.kill('SIGINT'));
} else {
  say(`${electron.why}; starting web mode instead`);
  if (process.argv.length > 2) say(`web mode opens files from its File view, not from the command line`);
  await webMode();
}

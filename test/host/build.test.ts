// The desktop app's build (electron-vite), checked without an Electron binary: every entry is where the
// main process looks for it, the main process never loads the engine (the engine host does, in a utility
// process), the preload is one sandbox-safe CommonJS file, and the bundled engine runs in plain Node with
// the CPU backend's worker pool and the audio worker found beside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root } from '../support/cli.js';
import { audify } from '../support/requirements.js';
import { mainScript, runWithFakeElectron, useAppBuild, userDataOf } from './app-build.js';

const app = useAppBuild('build');
const out = app.out;

describe('electron-vite build', () => {
  it('builds the main process, the engine host and its workers, the preload and the renderer', () => {
    expect(app.result().stderr).toBe('');
    expect(app.result().status).toBe(0);
    for (const f of [
      'main/index.js',
      'main/engine-host.js',
      'main/engine.js',
      'main/worker.js',
      'main/mic-worker.js',
      'preload/index.cjs',
      'renderer/index.html',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    const main = readFileSync(join(out, 'main/index.js'), 'utf8');
    expect(main).toMatch(/from "electron"/);
    expect(main).toContain('engine-host.js');
    // The engine is the host's: the main process bundle neither imports nor inlines it.
    expect(main).not.toMatch(/from "\.\/engine\.js"/);
    expect(main).not.toContain('createEngineConnection');
    const host = readFileSync(join(out, 'main/engine-host.js'), 'utf8');
    expect(host).toMatch(/from "\.\/engine\.js"/);
    expect(host).not.toMatch(/from "electron"/);
    expect(host).toContain('./worker.js');
    expect(host).toContain('./mic-worker.js');
    // audify is a native addon: loaded at run time from node_modules, never bundled.
    expect(readFileSync(join(out, 'main/mic-worker.js'), 'utf8')).not.toContain('RtAudioWrap');
  });

  it('makes a preload that a sandboxed renderer can run: CommonJS, requiring only electron', () => {
    const preload = readFileSync(join(out, 'preload/index.cjs'), 'utf8');
    const requires = [...preload.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(requires).toEqual(['electron']);
    expect(preload).not.toMatch(/^\s*import\s/m);
    expect(preload).not.toMatch(/^\s*export\s/m);
    expect(preload).toContain('exposeInMainWorld("phasor"');
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer/);
  });

  it('runs the bundled engine in plain Node: worker pool, a live session, the audio worker', () => {
    const engineUrl = pathToFileURL(join(out, 'main/engine.js')).href;
    const workerUrl = pathToFileURL(join(out, 'main/worker.js')).href;
    const script = `
      const { Engine, createEngineConnection } = await import(${JSON.stringify(engineUrl)});
      const engine = new Engine({ cpuWorkerUrl: new URL(${JSON.stringify(workerUrl)}) });
      const backend = await engine.backend();
      // Large enough to go to the worker threads: 256 transforms of 4096 points of a unit impulse.
      const n = 4096, batch = 256, x = new Float32Array(2 * n * batch);
      for (let b = 0; b < batch; b++) x[2 * n * b] = 1;
      const X = await backend.fft(x, n);
      let fftOk = true;
      for (let i = 0; i < X.length; i += 2) if (X[i] !== 1 || X[i + 1] !== 0) { fftOk = false; break; }
      let rows = 0; const replies = [];
      const conn = createEngineConnection((m) => {
        if (m instanceof ArrayBuffer) rows++; else if (m.type === 'reply') replies.push(m);
      }, { engine });
      conn.receive(JSON.stringify({ type: 'request', id: 1, method: 'hello', params: {} }));
      conn.receive(JSON.stringify({ type: 'request', id: 2, method: 'start', params: { source: { kind: 'generator' }, analysis: { fft: 1024, overlap: 0.5, window: 'hann', averaging: 0.1, columns: 256 } } }));
      const t0 = Date.now();
      while (rows < 3 && Date.now() - t0 < 10000) await new Promise((r) => setTimeout(r, 10));
      conn.close();
      await engine.dispose();
      const hello = replies.find((r) => r.id === 1);
      const mic = hello.result.sources.find((s) => s.kind === 'mic');
      process.stdout.write(JSON.stringify({ fftOk, device: backend.device, rows, micUnavailable: mic.unavailable ?? null, started: replies.find((r) => r.id === 2)?.ok }));
      process.exit(0);
    `;
    // A file, not --eval: worker threads inherit the parent's execArgv, and --input-type breaks them.
    const file = join(out, 'check.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60000 });
    expect(r.stderr).toBe('');
    const result = JSON.parse(r.stdout) as {
      fftOk: boolean;
      device: string;
      rows: number;
      micUnavailable: string | null;
      started: boolean;
    };
    expect(result.fftOk).toBe(true);
    expect(result.device).toMatch(/worker thread/);
    expect(result.started).toBe(true);
    expect(result.rows).toBeGreaterThanOrEqual(3);
    // The audio worker was found beside the bundle and loaded audify from node_modules; where the optional
    // audify is not installed (test/support/requirements.ts), the worker, found all the same, says so.
    if (audify.ok || process.env.CI) expect(result.micUnavailable).toBeNull();
    else expect(result.micUnavailable).toMatch(/^audio input needs the optional package audify/);
  });

  it('runs the built main process against a stand-in for Electron: window, page, IPC, engine host, permissions, quit', () => {
    const userData = userDataOf(out);
    const script = mainScript(
      out,
      `
      import { existsSync, readFileSync } from 'node:fs';
      await new Promise((r) => setTimeout(r, 50));
      const res = {};
      const win = fake.windows[0];
      res.windows = fake.windows.length;
      res.webPreferences = win.options.webPreferences;
      res.preloadExists = existsSync(win.options.webPreferences.preload);
      res.url = win.url;
      res.privileged = fake.privileged;
      const serve = fake.protocols.get('phasor');
      const page = await serve({ url: 'phasor://app/index.html' });
      res.page = { status: page.status, csp: page.headers.get('content-security-policy'), type: page.headers.get('content-type'),
        same: (await page.text()) === readFileSync(${JSON.stringify(join(out, 'renderer/index.html'))}, 'utf8') };
      res.traversal = (await serve({ url: 'phasor://app/%2e%2e/%2e%2e/package.json' })).status;
      res.otherHost = (await serve({ url: 'phasor://elsewhere/index.html' })).status;
      const connect = fake.ipc.get('phasor:connect');
      const frame = { url: 'phasor://app/index.html', parent: null };
      res.stranger = connect({ sender: { id: 999 }, senderFrame: frame }, { protocol: 1 });
      res.foreignPage = connect({ sender: win.webContents, senderFrame: { url: 'https://example.com/', parent: null } }, { protocol: 1 });
      res.badPayload = connect({ sender: win.webContents, senderFrame: frame }, 'hello');
      res.connect = connect({ sender: win.webContents, senderFrame: frame }, { protocol: 1 });
      const sent = win.webContents.sent;
      res.portChannel = sent.map((s) => s.channel);
      res.hosts = fake.utilityProcesses.map((u) => ({ entry: u.modulePath, serviceName: u.options.serviceName }));
      const port = sent[0].transfer[0];
      port.start();
      port.postMessage({ type: 'request', id: 1, method: 'hello', params: {} });
      port.postMessage({ type: 'request', id: 2, method: 'listDevices', params: { kind: 7 } });
      port.postMessage('garbage');
      await wait(() => port.received.filter((m) => m.type === 'reply').length >= 3);
      const replies = port.received.filter((m) => m.type === 'reply');
      const hello = replies.find((m) => m.id === 1);
      res.hello = { ok: hello.ok, sources: hello.result.sources.map((s) => s.kind), webgpu: hello.result.backends.find((b) => b.name === 'webgpu') };
      res.errors = replies.filter((m) => !m.ok).map((m) => [m.id, m.error.code]);
      res.permissions = {
        media: await new Promise((r) => fake.permissionRequest(null, 'media', r)),
        geolocation: await new Promise((r) => fake.permissionRequest(null, 'geolocation', r)),
        clipboard: await new Promise((r) => fake.permissionRequest(null, 'clipboard-sanitized-write', r)),
        check: fake.permissionCheck(null, 'notifications'),
      };
      const choose = fake.ipc.get('phasor:choose-file');
      res.chooseOpen = await choose({ sender: win.webContents, senderFrame: frame }, { mode: 'open', filters: [{ name: 'WAV', extensions: ['wav'] }] });
      res.chooseSave = await choose({ sender: win.webContents, senderFrame: frame }, { mode: 'save', defaultPath: 'low.wav' });
      res.chooseStranger = await choose({ sender: { id: 999 }, senderFrame: frame }, { mode: 'open' });
      res.chooseBad = await choose({ sender: win.webContents, senderFrame: frame }, { mode: 'open', filters: 1 });
      res.dialogs = fake.dialogs.map((d) => ({ kind: d.kind, window: d.window, properties: d.options.properties }));
      res.windowOpen = win.webContents.windowOpenHandler({ url: 'https://example.com/docs' });
      res.opened = fake.opened;
      let prevented = false;
      let navPrevented = false;
      for (const fn of win.webContents.listeners.get('will-navigate') ?? []) fn({ url: 'https://evil.example/', preventDefault: () => (navPrevented = true) });
      res.navigationBlocked = navPrevented;
      win.emit('close');
      res.stateSaved = existsSync(${JSON.stringify(join(userData, 'window-state.json'))});
      for (const fn of fake.appEvents.get('will-quit') ?? []) fn({ preventDefault: () => (prevented = true) });
      await wait(() => fake.quits > 0);
      res.quit = { prevented, quits: fake.quits, hostExit: fake.utilityProcesses[0].exitCode };
      res.switches = fake.switches;
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
    `,
    );
    const r = runWithFakeElectron(out, 'main-check.mjs', script);
    expect(r.stderr).toBe('');
    const res = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(res.windows).toBe(1);
    expect(res.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(res.preloadExists).toBe(true);
    expect(res.url).toBe('phasor://app/index.html');
    expect(res.privileged).toEqual([
      expect.objectContaining({
        scheme: 'phasor',
        privileges: expect.objectContaining({ standard: true, secure: true }),
      }),
    ]);
    expect(res.page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', same: true });
    expect(String((res.page as { csp: string }).csp)).toContain("script-src 'self';");
    expect(res.traversal).toBe(404);
    expect(res.otherHost).toBe(404);
    expect(res.stranger).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(res.foreignPage).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(res.badPayload).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(res.connect).toEqual({ ok: true, protocol: 1 });
    expect(res.portChannel).toEqual(['phasor:port']);
    // One engine host, forked from the built entry beside the main bundle; it answered the port's requests.
    expect(res.hosts).toEqual([{ entry: join(out, 'main/engine-host.js'), serviceName: 'Phasor engine' }]);
    expect(res.hello).toMatchObject({
      ok: true,
      sources: ['generator', 'mic', 'file', 'rtl_tcp'],
      // The hidden WebGPU window's preload ran, on a navigator without WebGPU.
      webgpu: { available: false, reason: expect.stringContaining('this browser has no navigator.gpu') },
    });
    expect(res.errors).toEqual([
      [2, 'bad-request'],
      [-1, 'bad-request'],
    ]);
    expect(res.permissions).toEqual({ media: false, geolocation: false, clipboard: true, check: false });
    // The native file dialog: modal to the asking window, validated, trusted senders only.
    expect(res.chooseOpen).toEqual({ ok: true, path: '/data/rec.wav' });
    expect(res.chooseSave).toEqual({ ok: true, path: '/data/out.wav' });
    expect(res.chooseStranger).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(res.chooseBad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(res.dialogs).toEqual([
      { kind: 'open', window: expect.any(Number), properties: ['openFile'] },
      {
        kind: 'save',
        window: expect.any(Number),
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      },
    ]);
    expect(res.windowOpen).toEqual({ action: 'deny' });
    // example.com is no host the app links to: nothing reaches the browser (navigation.test.ts).
    expect(res.opened).toEqual([]);
    expect(res.navigationBlocked).toBe(true);
    expect(res.stateSaved).toBe(true);
    // Quitting waits for the engine host to close its connections and exit by itself.
    expect(res.quit).toEqual({ prevented: true, quits: 1, hostExit: 0 });
    // Software WebGL is allowed where no GPU is usable, so the waterfall shows everywhere.
    // WebGPU for the engine's hidden window: Linux Chromium needs Vulkan switched on as well; exact
    // timestamps and no workgroup zero-fill, as Dawn in Node.
    expect(res.switches).toEqual([
      'enable-unsafe-swiftshader',
      'enable-unsafe-webgpu',
      ...(process.platform === 'linux' ? ['enable-features=Vulkan'] : []),
      'enable-webgpu-developer-features',
      'enable-dawn-features=disable_workgroup_init',
      'disable-dawn-features=timestamp_quantization',
    ]);
  });
});

// The engine in its utility process. First the keeper (engine-process.ts) with fake processes and ports:
// windows linked to each host, told when it dies, restarts with a growing delay and a limit. Then the
// built app against the stand-in for Electron (a worker thread as the utility process, real MessagePorts):
// a window's port reaches the engine and gets replies and rows; the host is killed, the window is told and
// stays open; a new host starts, the window gets a new port, and requests and rows work again. Last, the
// host's WebGPU: the stand-in runs the hidden window's real preload on Dawn, and the engine computes
// through the bridge until that window's renderer crashes, then on the CPU.
import { describe, expect, it } from 'vitest';
import { probeWebGpu } from '../../electron/engine/backends/webgpu/index.js';
import type { HostMessage } from '../../electron/engine-host/messages.js';
import { isHostMessage } from '../../electron/engine-host/messages.js';
import {
  defaultRestartDelay,
  EngineProcess,
  type EngineDown,
  type EngineProcessOptions,
  type UtilityLike,
} from '../../electron/main/engine-process.js';
import { useSwiftShader } from '../webgpu/gpu.js';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';

class FakeChild implements UtilityLike<string> {
  readonly got: Array<{ message: HostMessage; transfer: string[] }> = [];
  killed = false;
  #exit: Array<(code: number) => void> = [];
  postMessage(message: HostMessage, transfer: string[] = []): void {
    this.got.push({ message, transfer });
  }
  on(_event: 'exit', listener: (code: number) => void): this {
    this.#exit.push(listener);
    return this;
  }
  kill(): boolean {
    this.killed = true;
    return true;
  }
  /** The process ends (a crash, or the exit that follows shutdown). */
  exit(code: number): void {
    for (const l of this.#exit) l(code);
  }
}

function keeper(options: Partial<EngineProcessOptions<string>> = {}) {
  const children: FakeChild[] = [];
  const delivered: Array<[number, string]> = [];
  const told: Array<[number, EngineDown]> = [];
  let channels = 0;
  const engine = new EngineProcess<string>({
    fork: () => {
      const c = new FakeChild();
      children.push(c);
      return c;
    },
    createChannel: () => {
      channels++;
      return { host: `host-${channels}`, window: `window-${channels}` };
    },
    deliver: (id, port) => delivered.push([id, port]),
    notify: (id, down) => told.push([id, down]),
    restartDelay: () => 5,
    ...options,
  });
  return { engine, children, delivered, told };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the engine host keeper', () => {
  it('gives each window a channel of its own: one end to the host, the other to the window', () => {
    const { engine, children, delivered } = keeper();
    engine.start();
    engine.attach(3);
    engine.attach(4);
    expect(children).toHaveLength(1);
    expect(children[0].got).toEqual([
      { message: { type: 'connect', window: 3 }, transfer: ['host-1'] },
      { message: { type: 'connect', window: 4 }, transfer: ['host-2'] },
    ]);
    expect(delivered).toEqual([
      [3, 'window-1'],
      [4, 'window-2'],
    ]);
    engine.detach(3);
    engine.detach(3); // once only
    expect(children[0].got.slice(2)).toEqual([{ message: { type: 'disconnect', window: 3 }, transfer: [] }]);
    expect(children[0].got.every((g) => isHostMessage(g.message))).toBe(true);
  });

  it('tells every window when the host dies, restarts it and hands out new ports', async () => {
    const { engine, children, delivered, told } = keeper();
    engine.attach(3); // starts the host when none runs
    engine.attach(4);
    children[0].exit(1);
    expect(engine.running).toBe(false);
    expect(told).toEqual([
      [3, { state: 'reconnecting', detail: 'the engine stopped (exit code 1); restarting…' }],
      [4, { state: 'reconnecting', detail: 'the engine stopped (exit code 1); restarting…' }],
    ]);
    // A window that connects meanwhile hears it too, and is linked once the host is back.
    engine.attach(5);
    expect(told.at(-1)).toEqual([5, told[0][1]]);
    await sleep(30);
    expect(children).toHaveLength(2);
    expect(engine.starts).toBe(2);
    expect(children[1].got.map((g) => g.message)).toEqual([
      { type: 'connect', window: 3 },
      { type: 'connect', window: 4 },
      { type: 'connect', window: 5 },
    ]);
    expect(delivered.slice(2).map(([id]) => id)).toEqual([3, 4, 5]);
    expect(new Set(delivered.map(([, p]) => p)).size).toBe(delivered.length); // every port new
    // The old process's late events change nothing.
    children[0].exit(1);
    expect(engine.running).toBe(true);
  });

  it('waits longer after each death, gives up after too many, and starts again when a window asks', async () => {
    const delays: number[] = [];
    const { engine, children, told } = keeper({
      restartDelay: (attempt) => {
        delays.push(attempt);
        return 1;
      },
      maxRestarts: 3,
      restartWindowMs: 60_000,
    });
    engine.attach(3);
    for (let i = 0; i < 3; i++) {
      children.at(-1)!.exit(1);
      await sleep(20);
    }
    expect(children).toHaveLength(4);
    expect(delays).toEqual([0, 1, 2]);
    children.at(-1)!.exit(134);
    await sleep(20);
    expect(children).toHaveLength(4); // given up
    expect(told.at(-1)).toEqual([
      3,
      {
        state: 'closed',
        detail: 'the engine stopped 4 times in 60 s (exit code 134); reload the window to start it again',
      },
    ]);
    engine.attach(3); // a reload
    expect(children).toHaveLength(5);
    expect(children[4].got.map((g) => g.message)).toEqual([{ type: 'connect', window: 3 }]);
    expect([0, 1, 2, 3, 4, 5, 10].map(defaultRestartDelay)).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('asks the host to shut down on quit, kills it when it does not, and never restarts it', async () => {
    const { engine, children, told } = keeper();
    engine.attach(3);
    const stopped = engine.stop(1000);
    expect(children[0].got.at(-1)!.message).toEqual({ type: 'shutdown' });
    children[0].exit(0);
    await stopped;
    expect(children[0].killed).toBe(false);
    expect(told).toEqual([]);
    engine.start();
    expect(children).toHaveLength(1);

    const stuck = keeper();
    stuck.engine.attach(3);
    await stuck.engine.stop(10);
    expect(stuck.children[0].killed).toBe(true);
    stuck.children[0].exit(15);
    await sleep(20);
    expect(stuck.children).toHaveLength(1);
    expect(stuck.told).toEqual([]);
  });
});

// The built app, as build.test.ts builds it.
const app = useAppBuild('engine-host');

describe('the engine host of the built app, against a stand-in for Electron', () => {
  it('serves a window, survives being killed, restarts, and the window reconnects', () => {
    expect(app.result().status).toBe(0);
    const script = mainScript(
      app.out,
      `
      const res = {};
      const win = fake.windows[0];
      let closed = 0;
      win.on('closed', () => closed++);
      const frame = { url: 'phasor://app/index.html', parent: null };
      res.connect = fake.ipc.get('phasor:connect')({ sender: win.webContents, senderFrame: frame }, { protocol: 1 });
      const ports = () => win.webContents.sent.filter((s) => s.channel === 'phasor:port').map((s) => s.transfer[0]);
      const states = () => win.webContents.sent.filter((s) => s.channel === 'phasor:engine-state').map((s) => s.message);
      const ask = async (port, id, method, params = {}) => {
        port.postMessage({ type: 'request', id, method, params });
        await wait(() => port.received.some((m) => m.type === 'reply' && m.id === id));
        return port.received.find((m) => m.type === 'reply' && m.id === id) ?? null;
      };
      const analysis = { fft: 1024, overlap: 0.5, window: 'hann', averaging: 0.1, columns: 256 };
      // A live session: its rows come over the window's port from the host.
      const live = async (port, id) => {
        const started = await ask(port, id, 'start', { source: { kind: 'generator' }, analysis });
        const rows = () => port.received.filter((m) => m instanceof ArrayBuffer).length;
        await wait(() => rows() >= 3);
        return { started: started?.ok ?? null, rows: rows() >= 3 };
      };

      // Start: one host; the window's port reaches the engine.
      const first = ports()[0];
      first.start();
      const hello = await ask(first, 1, 'hello');
      res.start = { hosts: fake.utilityProcesses.length, hello: hello?.ok ?? null, version: hello?.result?.version, live: await live(first, 2) };

      // A crash: the host is killed; the window is told, and stays.
      const host = fake.utilityProcesses[0];
      const killedAt = Date.now();
      res.kill = host.kill();
      res.exitCode = await new Promise((r) => host.on('exit', r));
      await wait(() => states().length > 0);
      res.told = states();
      // The app's windows (the hidden WebGPU window aside).
      res.window = { windows: fake.windows.filter((w) => !w.url?.startsWith('phasor://gpu/')).length, closed, loads: win.loads, url: win.url };

      // The restart: a new host, a new port for the window, requests and rows again.
      await wait(() => ports().length > 1);
      res.restartMs = Date.now() - killedAt;
      const second = ports()[1];
      second.start();
      const hello2 = await ask(second, 1, 'hello');
      res.restart = {
        hosts: fake.utilityProcesses.length,
        newPort: second !== first,
        hello: hello2?.ok ?? null,
        live: await live(second, 2),
        listDevices: (await ask(second, 3, 'listDevices', { kind: 7 }))?.error?.code ?? null,
        told: states().length,
      };

      // A reload of the page: the same host, a new port, the old connection replaced.
      res.reload = fake.ipc.get('phasor:connect')({ sender: win.webContents, senderFrame: frame }, { protocol: 1 });
      const third = ports()[2];
      third.start();
      res.reloadHello = (await ask(third, 1, 'hello'))?.ok ?? null;
      res.reloadHosts = fake.utilityProcesses.length;

      let prevented = false;
      for (const fn of fake.appEvents.get('will-quit') ?? []) fn({ preventDefault: () => (prevented = true) });
      await wait(() => fake.quits > 0);
      res.quit = { prevented, quits: fake.quits, hostExit: fake.utilityProcesses[1].exitCode };
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
    `,
    );
    const r = runWithFakeElectron(app.out, 'engine-host-check.mjs', script);
    // The main process says why the engine went away, and nothing else.
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^phasor: the engine stopped \(exit code \d+\); restarting…$/),
    ]);
    expect(r.stdout, `the check printed nothing (status ${r.status}, signal ${r.signal})`).not.toBe('');
    const res = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(res.connect).toEqual({ ok: true, protocol: 1 });
    expect(res.start).toEqual({
      hosts: 1,
      hello: true,
      version: 1,
      live: { started: true, rows: true },
    });
    expect(res.kill).toBe(true);
    expect(res.exitCode).not.toBe(0);
    expect(res.told).toEqual([
      {
        state: 'reconnecting',
        detail: `the engine stopped (exit code ${String(res.exitCode)}); restarting…`,
      },
    ]);
    // Neither closed nor reloaded.
    expect(res.window).toEqual({ windows: 1, closed: 0, loads: 1, url: 'phasor://app/index.html' });
    // The first restart waits about 250 ms.
    expect(res.restartMs).toBeGreaterThanOrEqual(200);
    expect(res.restart).toEqual({
      hosts: 2,
      newPort: true,
      hello: true,
      live: { started: true, rows: true },
      listDevices: 'bad-request',
      told: 1,
    });
    expect(res.reload).toEqual({ ok: true, protocol: 1 });
    expect(res.reloadHello).toBe(true);
    expect(res.reloadHosts).toBe(2);
    expect(res.quit).toEqual({ prevented: true, quits: 1, hostExit: 0 });
  });

  it('computes through the WebGPU window, names its adapter, and moves to the CPU when it crashes', async () => {
    expect(app.result().status).toBe(0);
    useSwiftShader();
    const dawn = await probeWebGpu();
    if (!dawn.available) {
      if (process.env.CI) throw new Error(`WebGPU must run in CI, but: ${dawn.reason}`);
      console.log(`skipped: no WebGPU adapter here (${dawn.reason})`);
      return;
    }
    const script = mainScript(
      app.out,
      `
      // The hidden window's navigator.gpu: Dawn (on SwiftShader without a GPU), named as a hardware
      // adapter would be, so that \`auto\` chooses it (it passes over a software adapter).
      const { create } = await import('webgpu');
      const dawn = create(['enable-dawn-features=disable_workgroup_init']);
      globalThis.keepDawn = dawn;
      fake.navigator.gpu = {
        requestAdapter: async (options) => {
          const a = await dawn.requestAdapter(options);
          if (!a) return null;
          const info = { vendor: 'phasor-test', architecture: 'stand-in-arch', description: 'Stand-in GPU', device: '', isFallbackAdapter: false };
          return { info, features: a.features, limits: a.limits, requestDevice: (d) => a.requestDevice(d) };
        },
      };
      const res = {};
      const win = fake.windows[0];
      const frame = { url: 'phasor://app/index.html', parent: null };
      fake.ipc.get('phasor:connect')({ sender: win.webContents, senderFrame: frame }, { protocol: 1 });
      const port = win.webContents.sent.find((s) => s.channel === 'phasor:port').transfer[0];
      port.start();
      const ask = async (id, method, params = {}) => {
        port.postMessage({ type: 'request', id, method, params });
        await wait(() => port.received.some((m) => m.type === 'reply' && m.id === id), 30000);
        return port.received.find((m) => m.type === 'reply' && m.id === id) ?? null;
      };
      // Rows: acknowledged as a window does; each row's loudest column and its level.
      const rows = [];
      port.on('message', (e) => {
        if (!(e.data instanceof ArrayBuffer)) return;
        const dv = new DataView(e.data);
        const n = dv.getUint32(4, true);
        const h = JSON.parse(new TextDecoder().decode(new Uint8Array(e.data, 8, n)));
        port.postMessage({ type: 'ack', session: h.session, seq: h.seq });
        const data = new Float32Array(e.data, 8 + n, h.count * h.width);
        for (let r = 0; r < h.count; r++) {
          const row = data.subarray(r * h.width, (r + 1) * h.width);
          let at = 0;
          for (let i = 1; i < row.length; i++) if (row[i] > row[at]) at = i;
          rows.push({ at, level: row[at] });
        }
      });
      const statuses = () => port.received.filter((m) => m.type === 'event' && m.event === 'status').map((m) => m.data.backend);

      const hello = await ask(1, 'hello');
      const gpuWindow = fake.windows.find((w) => w.url === 'phasor://gpu/index.html');
      res.hello = { ok: hello?.ok, backend: hello?.result?.backend, webgpu: hello?.result?.backends.find((b) => b.name === 'webgpu') };
      res.gpuPorts = gpuWindow?.webContents.sent.filter((s) => s.channel === 'phasor:gpu-port').length ?? 0;
      res.details = (await ask(2, 'listBackends'))?.result?.backends.find((b) => b.name === 'webgpu')?.details ?? null;

      const analysis = { fft: 1024, overlap: 0.5, window: 'hann', averaging: 0.1, columns: 256 };
      res.started = (await ask(3, 'start', { source: { kind: 'generator' }, analysis }))?.ok ?? null;
      await wait(() => rows.length >= 20 && statuses().length > 0, 30000);
      res.before = { rows: rows.length, status: statuses().at(-1) };

      // The window's renderer dies: the bridge's port closes, and the work moves to the CPU.
      gpuWindow.webContents.forcefullyCrashRenderer();
      const crashedAt = rows.length;
      // the last rows before the crash, past the start-up transient of the first rows
      const gpuRows = rows.slice(crashedAt - 10, crashedAt);
      await wait(() => rows.length >= crashedAt + 20 && statuses().at(-1) === 'cpu', 30000);
      res.after = { more: rows.length - crashedAt, status: statuses().at(-1) };
      const cpuRows = rows.slice(-10);
      res.columns = [...new Set([...gpuRows, ...cpuRows].map((r) => r.at))];
      res.levels = { gpu: gpuRows.at(-1).level, cpu: cpuRows.at(-1).level };
      res.helloAfter = (await ask(4, 'hello'))?.result?.backend?.name ?? null;

      for (const fn of fake.appEvents.get('will-quit') ?? []) fn({ preventDefault: () => undefined });
      await wait(() => fake.quits > 0);
      res.hostExit = fake.utilityProcesses[0].exitCode;
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
    `,
    );
    const r = runWithFakeElectron(app.out, 'engine-host-gpu-check.mjs', script);
    expect(
      r.stdout,
      `the check printed nothing (status ${r.status}, signal ${r.signal}): ${r.stderr}`,
    ).not.toBe('');
    const res = JSON.parse(r.stdout) as Record<string, unknown>;
    const device = 'phasor-test Stand-in GPU, stand-in-arch (WebGPU, Electron 45.0.0, Vulkan)';
    expect(res.hello).toEqual({
      ok: true,
      backend: { name: 'webgpu', device },
      webgpu: { name: 'webgpu', available: true, device },
    });
    expect(res.gpuPorts).toBeGreaterThanOrEqual(2); // the probe's backend, then the engine's own
    expect(res.details).toMatchObject({
      vendor: 'phasor-test',
      architecture: 'stand-in-arch',
      api: 'Vulkan, Electron 45.0.0 WebGPU (navigator.gpu)',
      software: 'no',
    });
    expect(res.started).toBe(true);
    expect(res.before).toMatchObject({ status: 'webgpu' });
    expect(res.after).toMatchObject({ status: 'cpu' });
    // The 1 kHz tone in the same column on both backends, at the same level.
    expect(res.columns).toHaveLength(1);
    const levels = res.levels as { gpu: number; cpu: number };
    expect(Math.abs(levels.gpu - levels.cpu)).toBeLessThan(0.01);
    expect(res.helloAfter).toBe('cpu');
    expect(res.hostExit).toBe(0);
    // The failover is said once, in the main process's stderr (the host's inherited stdio); the Vulkan
    // driver may add lines of its own.
    expect(r.stderr.split('\n').filter((line) => line.startsWith('phasor:'))).toEqual([
      expect.stringMatching(/^phasor: .*WebGPU bridge closed.*; continuing on cpu$/),
    ]);
  }, 120000);
});

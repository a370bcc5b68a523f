// The preload with a stand-in for Electron's renderer modules: it exposes exactly the PhasorBridge, asks
// for the port with the protocol version, queues what the page sends before the port arrives, and
// delivers what comes through the port to every listener until it unsubscribes; when the engine host
// stops it reports the state, and a new port reconnects the page without a reload.
import { describe, expect, it, vi } from 'vitest';
import type { PhasorBridge } from '../../electron/engine/protocol/bridge.js';

const exposed = new Map<string, unknown>();
const invoked: Array<[string, unknown]> = [];
const handlers = new Map<string, (event: unknown, ...args: unknown[]) => void>();
/** What the main process answers to the next file-dialog invoke. */
let dialogReply: unknown = { ok: true, path: '/home/user/rec.wav' };
/** Synchronous messages to the main process, and what it answers to a dropped file's grant. */
const sentSync: Array<[string, unknown]> = [];
let grantReply: unknown = true;

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: {
    on: (channel: string, fn: (event: unknown, ...args: unknown[]) => void) => handlers.set(channel, fn),
    invoke: (channel: string, payload: unknown) => {
      invoked.push([channel, payload]);
      return Promise.resolve(channel === 'phasor:choose-file' ? dialogReply : { ok: true, protocol: 1 });
    },
    sendSync: (channel: string, payload: unknown) => {
      sentSync.push([channel, payload]);
      return grantReply;
    },
  },
  webUtils: {
    getPathForFile: (file: { name: string; onDisk?: string }) => {
      if (typeof file !== 'object' || file === null) throw new TypeError('not a File');
      return file.onDisk ?? '';
    },
  },
}));

class FakePort {
  readonly sent: unknown[] = [];
  onmessage: ((e: { data: unknown }) => void) | null = null;
  started = false;
  closed = false;
  postMessage(m: unknown): void {
    this.sent.push(m);
  }
  start(): void {
    this.started = true;
  }
  close(): void {
    this.closed = true;
  }
}

type StateBridge = PhasorBridge & {
  onState(listener: (state: string, detail?: string) => void): () => void;
};

describe('preload', () => {
  it('exposes exactly the bridge, and carries messages over the port it is given', async () => {
    await import('../../electron/preload/index.js');
    expect([...exposed.keys()]).toEqual(['phasor']);
    const bridge = exposed.get('phasor') as PhasorBridge;
    expect(Object.keys(bridge).sort()).toEqual([
      'chooseFile',
      'onCommand',
      'onMessage',
      'onState',
      'pathForFile',
      'send',
    ]);
    expect(invoked).toEqual([['phasor:connect', { protocol: 1 }]]);

    // Sent before the port arrives: kept, then flushed in order.
    bridge.send({ type: 'request', id: 1, method: 'hello', params: {} });
    bridge.send({ type: 'ack', session: 1, seq: 0 });
    const got: unknown[] = [];
    const other: unknown[] = [];
    const stop = bridge.onMessage((m) => got.push(m));
    bridge.onMessage((m) => other.push(m));
    const port = new FakePort();
    handlers.get('phasor:port')!({ ports: [port] });
    expect(port.started).toBe(true);
    expect(port.sent).toEqual([
      { type: 'request', id: 1, method: 'hello', params: {} },
      { type: 'ack', session: 1, seq: 0 },
    ]);
    bridge.send({ type: 'request', id: 2, method: 'stop', params: {} });
    expect(port.sent).toHaveLength(3);

    const rows = new ArrayBuffer(16);
    port.onmessage!({ data: { type: 'reply', id: 1, ok: true, result: {} } });
    port.onmessage!({ data: rows });
    expect(got).toEqual([{ type: 'reply', id: 1, ok: true, result: {} }, rows]);
    stop();
    port.onmessage!({ data: { type: 'event', event: 'status', data: {} } });
    expect(got).toHaveLength(2);
    expect(other).toHaveLength(3);
    expect(() => bridge.onMessage('not a function' as never)).toThrow(/function/);
  });

  it('asks the main process for the file dialog and unwraps its reply', async () => {
    await import('../../electron/preload/index.js');
    const bridge = exposed.get('phasor') as PhasorBridge;
    invoked.length = 0;
    dialogReply = { ok: true, path: '/home/user/rec.wav' };
    expect(await bridge.chooseFile!({ mode: 'open', title: 'Open a recording' })).toBe('/home/user/rec.wav');
    expect(invoked).toEqual([['phasor:choose-file', { mode: 'open', title: 'Open a recording' }]]);
    dialogReply = { ok: true, path: null };
    expect(await bridge.chooseFile!({ mode: 'save' })).toBeNull();
    dialogReply = {
      ok: false,
      error: { code: 'busy', message: 'a file dialog is already open in this window' },
    };
    await expect(bridge.chooseFile!({ mode: 'open' })).rejects.toThrow(/already open/);
    dialogReply = undefined;
    await expect(bridge.chooseFile!({ mode: 'open' })).rejects.toThrow(/not available/);
  });

  it('gives the path of a dropped file once the main process has granted it, else an empty string', async () => {
    await import('../../electron/preload/index.js');
    const bridge = exposed.get('phasor') as PhasorBridge;
    expect(bridge.pathForFile!({ name: 'rec.wav', onDisk: '/data/rec.wav' } as unknown as File)).toBe(
      '/data/rec.wav',
    );
    expect(sentSync).toEqual([['phasor:grant-dropped', { path: '/data/rec.wav' }]]);
    // A File made by the page has no path: nothing to grant.
    expect(bridge.pathForFile!({ name: 'made-in-js.wav' } as unknown as File)).toBe('');
    expect(sentSync).toHaveLength(1);
    grantReply = false;
    expect(bridge.pathForFile!({ name: 'x.wav', onDisk: '/data/x.wav' } as unknown as File)).toBe('');
    grantReply = true;
  });

  it('reports the engine host stopping, and reconnects on the new port it is given', async () => {
    await import('../../electron/preload/index.js');
    const bridge = exposed.get('phasor') as StateBridge;
    const states: Array<[string, string | undefined]> = [];
    const stop = bridge.onState((state, detail) => states.push([state, detail]));
    const got: unknown[] = [];
    bridge.onMessage((m) => got.push(m));
    const first = new FakePort();
    handlers.get('phasor:port')!({ ports: [first] });
    expect(states).toEqual([]); // open from the start: nothing to report

    // Malformed state messages are ignored.
    for (const bad of [undefined, null, 'reconnecting', { state: 'open' }, { state: 'gone' }]) {
      handlers.get('phasor:engine-state')!({}, bad);
    }
    expect(states).toEqual([]);

    handlers.get('phasor:engine-state')!(
      {},
      { state: 'reconnecting', detail: 'the engine stopped (exit code 1); restarting…' },
    );
    expect(states).toEqual([['reconnecting', 'the engine stopped (exit code 1); restarting…']]);
    expect(first.closed).toBe(true);
    expect(first.onmessage).toBeNull();
    // A page that subscribes now hears the state at once.
    const late: string[] = [];
    const stopLate = bridge.onState((state) => late.push(state));
    expect(late).toEqual(['reconnecting']);
    stopLate();

    // Sent while the engine is down: kept for the new port (the renderer sends nothing then, but a
    // message must not go to the dead port).
    bridge.send({ type: 'request', id: 7, method: 'hello', params: {} });
    expect(first.sent).toHaveLength(0);
    const second = new FakePort();
    handlers.get('phasor:port')!({ ports: [second] });
    expect(second.started).toBe(true);
    expect(second.sent).toEqual([{ type: 'request', id: 7, method: 'hello', params: {} }]);
    expect(states.at(-1)).toEqual(['open', undefined]);
    second.onmessage!({ data: { type: 'reply', id: 7, ok: true, result: {} } });
    expect(got).toEqual([{ type: 'reply', id: 7, ok: true, result: {} }]);

    handlers.get('phasor:engine-state')!({}, { state: 'closed', detail: 'x'.repeat(2000) });
    expect(states.at(-1)?.[0]).toBe('closed');
    expect(states.at(-1)?.[1]?.length).toBe(500);
    stop();
    handlers.get('phasor:port')!({ ports: [new FakePort()] });
    expect(states.at(-1)?.[0]).toBe('closed'); // unsubscribed
    expect(() => bridge.onState('not a function' as never)).toThrow(/function/);
  });

  it("passes the main process's commands on: only those it knows, checked, and kept until the page listens", async () => {
    await import('../../electron/preload/index.js');
    const bridge = exposed.get('phasor') as Required<PhasorBridge>;
    const send = (m: unknown) => handlers.get('phasor:command')!({}, m);
    // Before anyone listens (files given at launch): kept.
    send({ type: 'open-files', paths: ['/data/a.wav', '/data/b.sigmf-meta'] });
    send({ type: 'open-files', paths: ['/data/a.wav', 42] });
    send({ type: 'delete-everything' });
    send({ type: 'view', view: 'file' });
    send({ type: 'zoom', zoom: 'sideways' });
    send({ type: 'export-png', extra: 'dropped' });
    send('open');
    send(null);
    const got: unknown[] = [];
    const stop = bridge.onCommand((c) => got.push(c));
    expect(got).toEqual([
      { type: 'open-files', paths: ['/data/a.wav', '/data/b.sigmf-meta'] },
      { type: 'view', view: 'file' },
      { type: 'export-png' },
    ]);
    // Then delivered as they come; About's versions are strings, cut short.
    send({
      type: 'about',
      versions: { app: '0.1.0', electron: 45, chrome: 'c'.repeat(300), node: '22.12.0' },
    });
    send({ type: 'zoom', zoom: 'in' });
    send({ type: 'colormap', colormap: 'magma' });
    expect(got.slice(3)).toEqual([
      { type: 'about', versions: { app: '0.1.0', electron: '', chrome: 'c'.repeat(100), node: '22.12.0' } },
      { type: 'zoom', zoom: 'in' },
      { type: 'colormap', colormap: 'magma' },
    ]);
    stop();
    send({ type: 'record' });
    expect(got).toHaveLength(6);
    expect(() => bridge.onCommand('not a function' as never)).toThrow(/function/);
  });
});

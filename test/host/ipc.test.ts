// The desktop app's IPC rules, run without Electron: fake events, senders, frames and ports. The hub (main
// process) validates the handshake and attaches the window; the engine host's connections (in-process here)
// serve the port it gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { PROTOCOL_VERSION, type ReplyMessage } from '../../electron/engine/protocol/messages.js';
import { EngineConnections, type PortLike } from '../../electron/engine-host/connections.js';
import { IpcHub, senderProblem, type IpcEventLike } from '../../electron/main/ipc.js';

let backend: Backend;
let engine: Engine;
beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend });
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
});

class FakePort implements PortLike {
  readonly sent: unknown[] = [];
  started = false;
  closed = false;
  #message: Array<(e: { data: unknown }) => void> = [];
  #close: Array<() => void> = [];
  postMessage(message: unknown): void {
    this.sent.push(message);
  }
  on(event: 'message' | 'close', listener: ((e: { data: unknown }) => void) | (() => void)): this {
    if (event === 'message') this.#message.push(listener as (e: { data: unknown }) => void);
    else this.#close.push(listener as () => void);
    return this;
  }
  start(): void {
    this.started = true;
  }
  close(): void {
    this.closed = true;
  }
  /** The renderer side sends `data` through the channel. */
  deliver(data: unknown): void {
    for (const l of this.#message) l({ data });
  }
  hangUp(): void {
    for (const l of this.#close) l();
  }
  replies(): ReplyMessage[] {
    return this.sent.filter(
      (m): m is ReplyMessage => typeof m === 'object' && m !== null && (m as ReplyMessage).type === 'reply',
    );
  }
}

const APP_ID = 3;
function makeHub() {
  const ports: FakePort[] = [];
  const delivered: Array<{ to: number; remote: string }> = [];
  const host = new EngineConnections((send) => createEngineConnection(send, { engine }));
  const hub = new IpcHub({
    isAppUrl: (url) => url.startsWith('phasor://app/'),
    isAppWebContents: (id) => id === APP_ID,
    // As engine-process.ts does: a new channel, the engine's end to the host, the other to the window.
    attach: (id) => {
      const local = new FakePort();
      ports.push(local);
      host.add(id, local);
      delivered.push({ to: id, remote: `remote-${ports.length}` });
    },
    detach: (id) => host.remove(id),
  });
  return { hub, ports, delivered, host };
}

const good: IpcEventLike = {
  sender: { id: APP_ID },
  senderFrame: { url: 'phasor://app/index.html', parent: null },
};

describe('IPC sender checks', () => {
  const opts = {
    isAppUrl: (u: string) => u.startsWith('phasor://app/'),
    isAppWebContents: (id: number) => id === APP_ID,
  };
  it('accepts the app window’s main frame on the app’s page', () => {
    expect(senderProblem(good, opts)).toBeNull();
  });
  it.each([
    ['no event', undefined, /no sender/],
    ['a string', 'event', /no sender/],
    ['no sender', { senderFrame: good.senderFrame }, /no sender/],
    ['a sender without id', { sender: {}, senderFrame: good.senderFrame }, /no sender/],
    [
      'another window',
      { sender: { id: 99 }, senderFrame: good.senderFrame },
      /not come from a Phasor window/,
    ],
    ['a destroyed frame', { sender: { id: APP_ID }, senderFrame: null }, /frame is gone/],
    [
      'a subframe',
      { sender: { id: APP_ID }, senderFrame: { url: 'phasor://app/index.html', parent: {} } },
      /main frame/,
    ],
    [
      'a foreign page',
      { sender: { id: APP_ID }, senderFrame: { url: 'https://evil.example/', parent: null } },
      /not Phasor's/,
    ],
    [
      'a file URL',
      { sender: { id: APP_ID }, senderFrame: { url: 'file:///etc/passwd', parent: null } },
      /not Phasor's/,
    ],
    [
      'a URL of the wrong type',
      { sender: { id: APP_ID }, senderFrame: { url: 42, parent: null } },
      /not Phasor's/,
    ],
  ])('refuses %s', (_name, event, why) => {
    expect(senderProblem(event, opts)).toMatch(why);
  });
});

describe('IPC hub', () => {
  it('connects a trusted page and carries the protocol over its port', async () => {
    const { hub, ports, delivered } = makeHub();
    const reply = hub.handleConnect(good, { protocol: PROTOCOL_VERSION });
    expect(reply).toEqual({ ok: true, protocol: PROTOCOL_VERSION });
    expect(delivered).toEqual([{ to: APP_ID, remote: 'remote-1' }]);
    expect(ports[0].started).toBe(true);
    ports[0].deliver({ type: 'request', id: 1, method: 'hello', params: {} });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (ports[0].replies().length > 0) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
    expect(ports[0].replies()[0]).toMatchObject({ id: 1, ok: true, result: { version: PROTOCOL_VERSION } });
    hub.closeAll();
    expect(ports[0].closed).toBe(true);
    expect(hub.size).toBe(0);
  });

  it('refuses untrusted senders and malformed payloads with an error reply, never a throw', () => {
    const { hub, delivered } = makeHub();
    const bad: Array<[unknown, unknown, string]> = [
      [{ sender: { id: 4 }, senderFrame: good.senderFrame }, { protocol: 1 }, 'forbidden'],
      [
        { sender: { id: APP_ID }, senderFrame: { url: 'http://localhost:1/', parent: null } },
        { protocol: 1 },
        'forbidden',
      ],
      [good, undefined, 'bad-request'],
      [good, null, 'bad-request'],
      [good, 'connect', 'bad-request'],
      [good, 1, 'bad-request'],
      [good, [], 'bad-request'],
      [good, {}, 'bad-request'],
      [good, { protocol: '1' }, 'bad-request'],
      [good, { protocol: 1.5 }, 'bad-request'],
      [good, { protocol: 1e308 }, 'bad-request'],
      [good, { protocol: 1, extra: true }, 'bad-request'],
      [good, { protocol: 2 }, 'bad-request'],
      [good, JSON.parse('{"protocol": 1, "__proto__": {"admin": true}}'), 'bad-request'],
      [good, { protocol: PROTOCOL_VERSION }, 'ok'],
    ];
    for (const [event, payload, code] of bad) {
      let reply: ReturnType<IpcHub['handleConnect']> | undefined;
      expect(() => (reply = hub.handleConnect(event, payload))).not.toThrow();
      if (code === 'ok') expect(reply!.ok).toBe(true);
      else {
        expect(reply!.ok).toBe(false);
        if (!reply!.ok) {
          expect(reply!.error.code).toBe(code);
          expect(reply!.error.message.length).toBeGreaterThan(5);
        }
      }
    }
    expect(delivered.length).toBe(1);
    hub.closeAll();
  });

  it('answers malformed messages on the port with bad-request replies', async () => {
    const { hub, ports } = makeHub();
    hub.handleConnect(good, { protocol: PROTOCOL_VERSION });
    const port = ports[0];
    const garbage: unknown[] = [
      undefined,
      null,
      7,
      'not json',
      new ArrayBuffer(8),
      { type: 'request' },
      { type: 'request', id: 5, method: 'nope', params: {} },
      { type: 'request', id: 6, method: 'start', params: { source: 1, analysis: 'x' } },
      { type: 'ack', session: 'x', seq: 1 },
    ];
    for (const g of garbage) expect(() => port.deliver(g)).not.toThrow();
    await new Promise((r) => setTimeout(r, 10));
    const replies = port.replies();
    expect(replies.length).toBe(garbage.length);
    expect(replies.every((r) => !r.ok && r.error.code === 'bad-request')).toBe(true);
    expect(replies.map((r) => r.id)).toEqual([-1, -1, -1, -1, -1, -1, 5, 6, -1]);
    hub.closeAll();
  });

  it('replaces the connection of a reloaded page and forgets a closed port', () => {
    const { hub, ports, host } = makeHub();
    hub.handleConnect(good, { protocol: PROTOCOL_VERSION });
    hub.handleConnect(good, { protocol: PROTOCOL_VERSION });
    expect(ports[0].closed).toBe(true);
    expect(ports[1].closed).toBe(false);
    expect(hub.size).toBe(1);
    expect(host.size).toBe(1);
    ports[0].hangUp(); // a stale port's close must not end the new connection
    expect(host.size).toBe(1);
    ports[1].hangUp(); // the window's end went away: the host forgets the connection
    expect(host.size).toBe(0);
    hub.closeAll();
    expect(hub.size).toBe(0);
  });
});

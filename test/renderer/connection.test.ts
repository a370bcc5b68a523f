// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientMessage, ServerMessage } from '../../electron/engine/protocol/messages.js';
import { encodeRows, type RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import {
  PhasorConnection,
  RequestError,
  type ConnectionState,
  type Transport,
} from '../../renderer/src/transport/connection.js';
import { WebSocketTransport, reconnectDelay, webSocketUrl } from '../../renderer/src/transport/websocket.js';
import { helloResult } from './fake-connection.js';

class FakeTransport implements Transport {
  sent: ClientMessage[] = [];
  private listeners = new Set<(m: ServerMessage | ArrayBuffer) => void>();
  private stateListeners = new Set<(s: ConnectionState, d?: string) => void>();
  state: ConnectionState = 'open';
  send(m: ClientMessage): void {
    this.sent.push(m);
  }
  onMessage(l: (m: ServerMessage | ArrayBuffer) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  onState(l: (s: ConnectionState, d?: string) => void): () => void {
    this.stateListeners.add(l);
    return () => this.stateListeners.delete(l);
  }
  deliver(m: ServerMessage | ArrayBuffer): void {
    for (const l of this.listeners) l(m);
  }
  setState(s: ConnectionState, d?: string): void {
    this.state = s;
    for (const l of this.stateListeners) l(s, d);
  }
}

afterEach(() => vi.useRealTimers());

describe('PhasorConnection', () => {
  it('matches replies to requests by id, whatever their order', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const hello = c.request('hello', {});
    const devices = c.request('listDevices', { kind: 'mic' });
    expect(t.sent).toEqual([
      { type: 'request', id: 1, method: 'hello', params: {} },
      { type: 'request', id: 2, method: 'listDevices', params: { kind: 'mic' } },
    ]);
    t.deliver({ type: 'reply', id: 2, ok: true, result: { devices: [] } });
    t.deliver({ type: 'reply', id: 1, ok: true, result: helloResult() });
    expect((await hello).backend.name).toBe('cpu');
    expect(await devices).toEqual({ devices: [] });
  });

  it('turns an error reply into a RequestError with the engine’s code and message', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const p = c.request('start', {
      source: { kind: 'mic' },
      analysis: { fft: 2048, overlap: 0.75, window: 'hann', averaging: 0.1, columns: 100 },
    });
    t.deliver({ type: 'reply', id: 1, ok: false, error: { code: 'io', message: 'mic: device unplugged' } });
    await expect(p).rejects.toMatchObject({
      name: 'RequestError',
      code: 'io',
      message: 'mic: device unplugged',
    });
  });

  it('fails a request that gets no reply in time, and every pending one when the link drops', async () => {
    vi.useFakeTimers();
    const t = new FakeTransport();
    const c = new PhasorConnection(t, { timeoutMs: 1000 });
    const late = c.request('hello', {});
    const lateErr = late.then(
      () => null,
      (e: RequestError) => e,
    );
    vi.advanceTimersByTime(1001);
    expect((await lateErr)?.code).toBe('timeout');
    const pending = c.request('stop', {}).catch((e: RequestError) => e);
    t.setState('reconnecting', 'connection to the engine lost; reconnecting…');
    const err = await pending;
    expect(err).toBeInstanceOf(RequestError);
    expect(err.code).toBe('disconnected');
    expect(c.state).toBe('reconnecting');
    await expect(c.request('hello', {})).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('hands events to their listeners and decodes binary rows', () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const statuses: number[] = [];
    const rows: RowsMessage[] = [];
    const off = c.on('status', (s) => statuses.push(s.blocksPerSecond));
    c.onRows((r) => rows.push(r));
    const status = {
      session: 1,
      backend: 'cpu',
      sampleRate: 48000,
      blocksPerSecond: 46.9,
      rowsPerSecond: 93.75,
      droppedRows: 0,
      droppedBlocks: 0,
      computeMs: 0.3,
    };
    t.deliver({ type: 'event', event: 'status', data: status });
    const levels = new Float32Array(2 * 3).map((_, i) => -i * 1.5);
    t.deliver(
      encodeRows({
        session: 1,
        seq: 7,
        firstFrame: 14,
        count: 2,
        width: 3,
        captureTime: 1.7e12,
        streamTime: 0.15,
        rows: levels,
        average: new Float32Array([-1, -2, -3]),
      }),
    );
    off();
    t.deliver({ type: 'event', event: 'status', data: status });
    expect(statuses).toEqual([46.9]);
    expect(rows).toHaveLength(1);
    expect(rows[0].seq).toBe(7);
    expect(Array.from(rows[0].rows)).toEqual(Array.from(levels));
    expect(Array.from(rows[0].average!)).toEqual([-1, -2, -3]);
    expect(rows[0].peak).toBeUndefined();
  });

  it('sends acks as protocol messages and drops undecodable binary messages with a note', () => {
    const t = new FakeTransport();
    const problems: string[] = [];
    const c = new PhasorConnection(t, { onProtocolError: (m) => problems.push(m) });
    c.ack(3, 41);
    expect(t.sent).toEqual([{ type: 'ack', session: 3, seq: 41 }]);
    let got = 0;
    c.onRows(() => got++);
    t.deliver(new ArrayBuffer(12));
    expect(got).toBe(0);
    expect(problems[0]).toMatch(/unknown binary message/);
  });
});

describe('web mode transport', () => {
  it('builds the WebSocket URL from the page: same host, ws/wss, the access token', () => {
    expect(webSocketUrl('http://127.0.0.1:5173/?token=abc123#/live')).toBe(
      'ws://127.0.0.1:5173/ws?token=abc123',
    );
    expect(webSocketUrl('https://box.example:8443/app/index.html')).toBe('wss://box.example:8443/ws');
    expect(webSocketUrl('http://[::1]:9000/', '/engine')).toBe('ws://[::1]:9000/engine');
  });

  it('backs off 250 ms doubling to 5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(reconnectDelay)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });

  it('reconnects after the socket closes, says why, and passes JSON and binary messages on', () => {
    vi.useFakeTimers();
    const sockets: FakeSocket[] = [];
    class FakeSocket {
      readyState = 0;
      binaryType = 'blob';
      sent: string[] = [];
      onopen: (() => void) | null = null;
      onclose: ((e: { code: number }) => void) | null = null;
      onmessage: ((e: { data: unknown }) => void) | null = null;
      constructor(readonly url: string) {
        sockets.push(this);
      }
      send(s: string) {
        this.sent.push(s);
      }
      close() {
        this.readyState = 3;
      }
      open() {
        this.readyState = 1;
        this.onopen?.();
      }
      drop(code = 1006) {
        this.readyState = 3;
        this.onclose?.({ code });
      }
    }
    const t = new WebSocketTransport('ws://h/ws', (u) => new FakeSocket(u) as unknown as WebSocket);
    const states: string[] = [];
    const got: unknown[] = [];
    t.onState((s, d) => states.push(`${s}${d ? `: ${d}` : ''}`));
    t.onMessage((m) => got.push(m));
    expect(sockets[0].binaryType).toBe('arraybuffer');
    expect(() => t.send({ type: 'ack', session: 1, seq: 1 })).toThrow(/not connected/);
    sockets[0].open();
    t.send({ type: 'ack', session: 1, seq: 2 });
    expect(JSON.parse(sockets[0].sent[0])).toEqual({ type: 'ack', session: 1, seq: 2 });
    sockets[0].onmessage?.({
      data: '{"type":"event","event":"source","data":{"session":1,"state":"running"}}',
    });
    const buf = new ArrayBuffer(8);
    sockets[0].onmessage?.({ data: buf });
    expect(got).toEqual([{ type: 'event', event: 'source', data: { session: 1, state: 'running' } }, buf]);

    sockets[0].drop();
    expect(states.at(-1)).toMatch(/^reconnecting: connection to the engine lost/);
    vi.advanceTimersByTime(249);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    sockets[1].drop(1008);
    expect(states.at(-1)).toMatch(/access token/);
    vi.advanceTimersByTime(500);
    sockets[2].open();
    expect(states.at(-1)).toBe('open');
    t.close();
    expect(states.at(-1)).toBe('closed');
  });
});

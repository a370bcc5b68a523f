// The transport-agnostic connection: malformed messages of every sort get error replies (never an
// exception), and a well-formed conversation runs a session end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createEngineConnection, type EngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import {
  defaultAnalysis,
  type HelloResult,
  type LiveInfo,
  type ReplyMessage,
  type ServerMessage,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows, type RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import { until } from './helpers.js';

let backend: Backend;
let engine: Engine;

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend, statusIntervalMs: 50 });
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
});

class Client {
  readonly out: Array<ServerMessage | ArrayBuffer> = [];
  readonly conn: EngineConnection;
  autoAck = true;
  constructor() {
    this.conn = createEngineConnection(
      (m) => {
        this.out.push(m);
        if (m instanceof ArrayBuffer && this.autoAck) {
          const r = decodeRows(m);
          this.conn.receive({ type: 'ack', session: r.session, seq: r.seq });
        }
      },
      { engine },
    );
  }
  replies(): ReplyMessage[] {
    return this.out.filter((m): m is ReplyMessage => !(m instanceof ArrayBuffer) && m.type === 'reply');
  }
  rows(): RowsMessage[] {
    return this.out.filter((m): m is ArrayBuffer => m instanceof ArrayBuffer).map(decodeRows);
  }
  async reply(id: number): Promise<ReplyMessage> {
    await until(() => this.replies().some((r) => r.id === id), 10000, `reply ${id}`);
    return this.replies().find((r) => r.id === id)!;
  }
  async request(id: number, method: string, params: unknown): Promise<ReplyMessage> {
    this.conn.receive(JSON.stringify({ type: 'request', id, method, params }));
    return this.reply(id);
  }
}

describe('engine connection: malformed messages', () => {
  const cases: Array<[string, unknown, number]> = [
    ['invalid JSON', '{"type": "request", ', -1],
    ['a JSON number', '42', -1],
    ['a JSON string', '"hello"', -1],
    ['null', null, -1],
    ['undefined', undefined, -1],
    ['a bare number', 3.5, -1],
    ['an array', [1, 2, 3], -1],
    ['an empty object', {}, -1],
    ['an unknown envelope type', { type: 'shout', id: 1 }, 1],
    ['a request without id', { type: 'request', method: 'hello', params: {} }, -1],
    ['a string id', { type: 'request', id: '7', method: 'hello', params: {} }, -1],
    ['a negative id', { type: 'request', id: -3, method: 'hello', params: {} }, -1],
    ['a fractional id', { type: 'request', id: 1.5, method: 'hello', params: {} }, -1],
    ['a huge id', { type: 'request', id: 1e300, method: 'hello', params: {} }, -1],
    ['a method of the wrong type', { type: 'request', id: 4, method: 12, params: {} }, 4],
    ['an unknown method', { type: 'request', id: 5, method: 'format', params: {} }, 5],
    ['a prototype key as method', { type: 'request', id: 6, method: '__proto__', params: {} }, 6],
    ['constructor as method', { type: 'request', id: 7, method: 'constructor', params: {} }, 7],
    ['toString as method', { type: 'request', id: 8, method: 'toString', params: {} }, 8],
    ['a very long method', { type: 'request', id: 9, method: 'x'.repeat(10000), params: {} }, 9],
    ['params of the wrong type', { type: 'request', id: 10, method: 'listDevices', params: 'mic' }, 10],
    ['a missing field', { type: 'request', id: 11, method: 'listDevices', params: {} }, 11],
    [
      'a field of the wrong type',
      { type: 'request', id: 12, method: 'listDevices', params: { kind: 5 } },
      12,
    ],
    [
      'start without analysis',
      { type: 'request', id: 13, method: 'start', params: { source: { kind: 'generator' } } },
      13,
    ],
    [
      'an FFT size too large',
      {
        type: 'request',
        id: 14,
        method: 'start',
        params: { source: { kind: 'generator' }, analysis: { ...defaultAnalysis, fft: 2 ** 40 } },
      },
      14,
    ],
    [
      'an FFT size that is not whole',
      { type: 'request', id: 15, method: 'configure', params: { analysis: { fft: 1024.5 } } },
      15,
    ],
    [
      'an infinite overlap',
      { type: 'request', id: 16, method: 'configure', params: { analysis: { overlap: Infinity } } },
      16,
    ],
    [
      'NaN columns',
      { type: 'request', id: 17, method: 'configure', params: { analysis: { columns: NaN } } },
      17,
    ],
    [
      'a source that is not an object',
      { type: 'request', id: 18, method: 'start', params: { source: 'mic', analysis: defaultAnalysis } },
      18,
    ],
    ['an ack with a string seq', { type: 'ack', session: 1, seq: 'x' }, -1],
    ['an ack with a huge seq', { type: 'ack', session: 1, seq: -1 }, -1],
    ['binary data', new Uint8Array([0x50, 0x48, 0x52, 0x31, 0xff, 0, 1]), -1],
    ['an ArrayBuffer', new ArrayBuffer(16), -1],
    ['a Buffer', Buffer.from('{"type":"request","id":1,"method":"hello","params":{}}'), -1],
    [
      'a message too long',
      JSON.stringify({ type: 'request', id: 19, method: 'hello', params: { pad: 'x'.repeat(1 << 20) } }),
      -1,
    ],
  ];

  for (const [name, message, id] of cases) {
    it(`answers ${name} with a bad-request error`, async () => {
      const c = new Client();
      expect(() => c.conn.receive(message)).not.toThrow();
      // Replies to valid-looking requests come after a microtask; malformed ones at once.
      await new Promise((r) => setTimeout(r, 0));
      const replies = c.replies();
      expect(replies.length).toBe(1);
      const r = replies[0];
      expect(r.id).toBe(id);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('bad-request');
        expect(r.error.message).toMatch(/^bad request: /);
        expect(r.error.message.length).toBeLessThan(600);
      }
      c.conn.close();
    });
  }

  it('ignores acks of sessions it does not run, and still answers afterwards', async () => {
    const c = new Client();
    c.conn.receive({ type: 'ack', session: 99, seq: 3 });
    expect(c.out.length).toBe(0);
    const r = await c.request(1, 'hello', {});
    expect(r.ok).toBe(true);
    c.conn.close();
  });

  it('answers valid requests with bad values with the engine error code', async () => {
    const c = new Client();
    const unknownKind = await c.request(1, 'start', { source: { kind: 'radio' }, analysis: defaultAnalysis });
    expect(unknownKind).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
    const badWindow = await c.request(2, 'start', {
      source: { kind: 'generator' },
      analysis: { ...defaultAnalysis, window: 'triangle' },
    });
    expect(badWindow).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
    if (!badWindow.ok) expect(badWindow.error.message).toMatch(/window/);
    const badTone = await c.request(3, 'start', {
      source: { kind: 'generator', frequency: 1e9 },
      analysis: defaultAnalysis,
    });
    expect(badTone).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
    const missing = await c.request(4, 'start', {
      source: { kind: 'file', path: '/nonexistent/x.wav' },
      analysis: defaultAnalysis,
    });
    expect(missing).toMatchObject({ ok: false, error: { code: 'io' } });
    if (!missing.ok) expect(missing.error.message).toBe('/nonexistent/x.wav: no such file');
    const noSession = await c.request(5, 'configure', { analysis: { fft: 1024 } });
    expect(noSession).toMatchObject({
      ok: false,
      error: { code: 'invalid-argument', message: 'no live session is running: start one first' },
    });
    const devices = await c.request(6, 'listDevices', { kind: 'generator' });
    expect(devices).toMatchObject({ ok: true, result: { devices: [] } });
    c.conn.close();
  });
});

describe('engine connection: a session', () => {
  it('says hello, streams rows, reconfigures, resets the peak and stops', async () => {
    const c = new Client();
    const hello = await c.request(1, 'hello', {});
    expect(hello.ok).toBe(true);
    const h = (hello as { result: HelloResult }).result;
    expect(h.version).toBe(1);
    expect(h.backend.name).toBe('cpu');
    expect(h.sources.map((s) => s.kind)).toEqual(['generator', 'mic', 'file', 'rtl_tcp']);
    expect(h.windows).toContain('hann');
    expect(h.defaults.source).toMatchObject({ kind: 'generator', frequency: 1000 });
    expect(h.backends.find((b) => b.name === 'cpu')?.available).toBe(true);

    const start = await c.request(2, 'start', {
      source: { kind: 'generator', frequency: 3000, amplitude: 0.25 },
      analysis: { ...defaultAnalysis, fft: 1024, overlap: 0.5, columns: 513 },
    });
    expect(start.ok).toBe(true);
    const info = (start as { result: LiveInfo }).result;
    expect(info).toMatchObject({
      sampleRate: 48000,
      fft: 1024,
      hop: 512,
      bins: 513,
      width: 513,
      frequencyRange: [0, 24000],
    });
    await until(() => c.rows().length >= 5, 10000, 'rows');
    const rows = c.rows();
    for (const m of rows) {
      expect(m.session).toBe(info.session);
      let best = 0;
      for (let k = 0; k < m.width; k++) if (m.rows[k] > m.rows[best]) best = k;
      expect(best).toBe(64); // 3000 Hz × 1024 / 48000
      expect(m.peak).toBeDefined();
      expect(m.average).toBeDefined();
    }
    const running = c.out.find(
      (m) => !(m instanceof ArrayBuffer) && m.type === 'event' && m.event === 'source',
    );
    expect(running).toMatchObject({ data: { session: info.session, state: 'running' } });
    await until(
      () => c.out.some((m) => !(m instanceof ArrayBuffer) && m.type === 'event' && m.event === 'status'),
      10000,
      'status',
    );

    const conf = await c.request(3, 'configure', { analysis: { fft: 4096, columns: 300 } });
    expect(conf).toMatchObject({
      ok: true,
      result: { session: info.session, fft: 4096, hop: 2048, width: 300 },
    });
    await until(() => c.rows().some((m) => m.width === 300), 10000, 'reconfigured rows');
    expect(await c.request(4, 'resetPeak', {})).toMatchObject({ ok: true, result: {} });
    expect(await c.request(5, 'stop', {})).toMatchObject({ ok: true, result: {} });
    const n = c.out.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(c.out.length).toBe(n);
    c.conn.close();
  });

  it('drops rows, counting them, when the client stops acknowledging', async () => {
    const c = new Client();
    c.autoAck = false;
    const start = await c.request(1, 'start', {
      source: { kind: 'generator' },
      analysis: { ...defaultAnalysis, fft: 256, overlap: 0.5 },
    });
    expect(start.ok).toBe(true);
    // 48000/128 = 375 rows/s: a status a little later reports the rows the client never acknowledged.
    await until(
      () =>
        c.out.some(
          (m) =>
            !(m instanceof ArrayBuffer) &&
            m.type === 'event' &&
            m.event === 'status' &&
            m.data.droppedRows > 0,
        ),
      10000,
      'dropped rows',
    );
    expect(c.rows().length).toBe(16);
    c.conn.close();
  });

  it('a new start replaces the running session; close ends it', async () => {
    const c = new Client();
    const a = (await c.request(1, 'start', { source: { kind: 'generator' }, analysis: defaultAnalysis })) as {
      result: LiveInfo;
    };
    const b = (await c.request(2, 'start', {
      source: { kind: 'generator', frequency: 500 },
      analysis: defaultAnalysis,
    })) as { result: LiveInfo };
    expect(b.result.session).not.toBe(a.result.session);
    await until(() => c.rows().some((m) => m.session === b.result.session), 10000, 'rows of the new session');
    c.conn.close();
    expect(c.conn.closed).toBe(true);
    const n = c.out.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(c.out.length).toBe(n);
    c.conn.receive({ type: 'request', id: 3, method: 'hello', params: {} });
    await new Promise((r) => setTimeout(r, 20));
    expect(c.out.length).toBe(n);
  });

  it('survives a transport that throws while sending', async () => {
    let calls = 0;
    const conn = createEngineConnection(
      () => {
        calls++;
        throw new Error('socket closed');
      },
      { engine },
    );
    conn.receive({ type: 'request', id: 1, method: 'hello', params: {} });
    conn.receive('garbage');
    await until(() => calls >= 2, 5000, 'two sends');
    conn.close();
  });
});

// @vitest-environment happy-dom
// The transport's offline additions: binary replies, progress routed to the request that started it,
// cancel by AbortSignal, and the idle timeout that progress keeps alive.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientMessage, ServerMessage } from '../../electron/engine/protocol/messages.js';
import { encodeBinaryReply, encodeRows } from '../../electron/engine/protocol/rows-codec.js';
import {
  PhasorConnection,
  RequestError,
  isCancelled,
  type ConnectionState,
  type Transport,
} from '../../renderer/src/transport/connection.js';

class FakeTransport implements Transport {
  sent: ClientMessage[] = [];
  private listeners = new Set<(m: ServerMessage | ArrayBuffer) => void>();
  state: ConnectionState = 'open';
  send(m: ClientMessage): void {
    this.sent.push(m);
  }
  onMessage(l: (m: ServerMessage | ArrayBuffer) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  deliver(m: ServerMessage | ArrayBuffer): void {
    for (const l of this.listeners) l(m);
  }
  requests(method: string): Array<Extract<ClientMessage, { type: 'request' }>> {
    return this.sent.filter(
      (m): m is Extract<ClientMessage, { type: 'request' }> => m.type === 'request' && m.method === method,
    );
  }
}

afterEach(() => vi.useRealTimers());

describe('binary replies', () => {
  it('resolves the request named in a binary reply with its JSON result and the float payload as data', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const p = c.request('fileSpectrogram', { file: 3, width: 4, height: 2 });
    const other = c.request('listBackends', {});
    const levels = new Float32Array([-10, -20.5, -30, -40, -50, -60, -70, -80.25]);
    const result = {
      width: 4,
      height: 2,
      frames: 100,
      start: 0,
      end: 4800,
      fft: 256,
      hop: 128,
      frequencyRange: [0, 24000],
    };
    t.deliver(encodeBinaryReply(1, result, levels));
    const r = await p;
    expect(r.width).toBe(4);
    expect(r.frequencyRange).toEqual([0, 24000]);
    expect(Array.from(r.data)).toEqual(Array.from(levels));
    // The other request is still waiting for its own reply.
    t.deliver({ type: 'reply', id: 2, ok: true, result: { backends: [] } });
    expect(await other).toEqual({ backends: [] });
  });

  it('still hands rows messages to the rows listeners', () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const got: number[] = [];
    c.onRows((m) => got.push(m.seq));
    t.deliver(
      encodeRows({
        session: 1,
        seq: 7,
        firstFrame: 0,
        count: 1,
        width: 2,
        captureTime: 0,
        streamTime: 0,
        rows: new Float32Array([1, 2]),
      }),
    );
    expect(got).toEqual([7]);
  });

  it('ignores a binary reply for a request it does not know (e.g. one that timed out)', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const p = c.request('readSamples', { file: 1, start: 0, end: 2 });
    t.deliver(encodeBinaryReply(99, { start: 0 }, new Float32Array(2)));
    t.deliver(
      encodeBinaryReply(
        1,
        { start: 0, frames: 2, channels: 1, sampleRate: 8000, complex: false },
        new Float32Array([0.5, -0.5]),
      ),
    );
    expect(Array.from((await p).data)).toEqual([0.5, -0.5]);
  });
});

describe('progress and cancel', () => {
  it('routes progress events to the request that started them, and still emits them as events', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const a: number[] = [];
    const b: number[] = [];
    const all: number[] = [];
    c.on('progress', (e) => all.push(e.request));
    const pa = c.request(
      'applyFilter',
      { file: 1, output: '/tmp/a.wav', taps: [1] },
      { onProgress: (e) => a.push(e.done) },
    );
    const pb = c.request(
      'correlate',
      { signal: 1, template: { file: 2 } },
      { onProgress: (e) => b.push(e.done) },
    );
    t.deliver({
      type: 'event',
      event: 'progress',
      data: { request: 2, done: 10, total: 100, unit: 'frames' },
    });
    t.deliver({ type: 'event', event: 'progress', data: { request: 1, done: 5, total: 50, unit: 'frames' } });
    t.deliver({
      type: 'event',
      event: 'progress',
      data: { request: 1, done: 50, total: 50, unit: 'frames' },
    });
    t.deliver({ type: 'event', event: 'progress', data: { request: 42, done: 1, unit: 'rows' } });
    expect(a).toEqual([5, 50]);
    expect(b).toEqual([10]);
    expect(all).toEqual([2, 1, 1, 42]);
    t.deliver({ type: 'reply', id: 1, ok: true, result: { output: '/tmp/a.wav' } });
    t.deliver({ type: 'reply', id: 2, ok: false, error: { code: 'io', message: 'b: gone' } });
    expect(await pa).toMatchObject({ output: '/tmp/a.wav' });
    await expect(pb).rejects.toMatchObject({ code: 'io' });
  });

  it('sends cancel with the request id on abort, and ends with the engine’s cancelled reply', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const ctl = new AbortController();
    const p = c.request('runBench', { backends: ['cpu'], ops: ['fft'] }, { signal: ctl.signal });
    ctl.abort();
    ctl.abort(); // twice: still one cancel
    expect(t.requests('cancel')).toEqual([
      { type: 'request', id: 2, method: 'cancel', params: { request: 1 } },
    ]);
    t.deliver({ type: 'reply', id: 2, ok: true, result: { cancelled: true } });
    t.deliver({
      type: 'reply',
      id: 1,
      ok: false,
      error: { code: 'cancelled', message: 'runBench: cancelled' },
    });
    const e = await p.then(
      () => null,
      (err: unknown) => err,
    );
    expect(isCancelled(e)).toBe(true);
    expect(e).toBeInstanceOf(RequestError);
  });

  it('fails at once, sending nothing, when the signal was aborted before the request', async () => {
    const t = new FakeTransport();
    const c = new PhasorConnection(t);
    const ctl = new AbortController();
    ctl.abort();
    await expect(
      c.request('correlate', { signal: 1, template: { file: 1 } }, { signal: ctl.signal }),
    ).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(t.sent).toEqual([]);
  });

  it('keeps a long request alive while progress comes, and times it out when progress stops', async () => {
    vi.useFakeTimers();
    const t = new FakeTransport();
    const c = new PhasorConnection(t, { timeoutMs: 1000 });
    const p = c.request('applyFilter', { file: 1, output: '/o.wav', taps: [1] }, { timeoutMs: 1000 });
    const outcome = p.then(
      () => 'ok',
      (e: RequestError) => e.code,
    );
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(900);
      t.deliver({ type: 'event', event: 'progress', data: { request: 1, done: i, unit: 'frames' } });
    }
    // 4.5 s in, never silent for a second: still pending.
    vi.advanceTimersByTime(999);
    t.deliver({ type: 'reply', id: 1, ok: true, result: {} });
    expect(await outcome).toBe('ok');

    const q = c.request('applyFilter', { file: 1, output: '/o.wav', taps: [1] }, { timeoutMs: 1000 });
    const qOut = q.then(
      () => 'ok',
      (e: RequestError) => e.code,
    );
    vi.advanceTimersByTime(1001);
    expect(await qOut).toBe('timeout');
  });

  it('gives up on a cancelled request the engine never answers, as cancelled', async () => {
    vi.useFakeTimers();
    const t = new FakeTransport();
    const c = new PhasorConnection(t, { timeoutMs: 1000 });
    const ctl = new AbortController();
    const p = c.request(
      'fileSpectrogram',
      { file: 1, width: 1, height: 1 },
      { signal: ctl.signal, timeoutMs: 0 },
    );
    const out = p.then(
      () => 'ok',
      (e: RequestError) => e.code,
    );
    vi.advanceTimersByTime(60_000); // timeoutMs 0: waits for ever
    ctl.abort();
    vi.advanceTimersByTime(1001);
    expect(await out).toBe('cancelled');
  });
});

// Retuning a live session (what rtl_tcp does, with a fake tuner here): the LiveInfo's range follows the
// new centre, peaks stay at the carrier's absolute frequency before and after, the rows go on at the same
// width, status events carry the source's link; and the connection's `retune` request and its refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { LiveSession } from '../../electron/engine/live/session.js';
import {
  defaultAnalysis,
  type LinkStatus,
  type LiveInfo,
  type PeaksEvent,
  type ReplyMessage,
  type ServerMessage,
  type StatusEvent,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows } from '../../electron/engine/protocol/rows-codec.js';
import { builtInKinds, defineSourceKind, SourceKindRegistry } from '../../electron/engine/sources/kinds.js';
import type { LiveBlock, LiveSource } from '../../electron/engine/sources/live-source.js';
import type { ReadOptions, SourceInfo } from '../../electron/engine/sources/source.js';
import { CollectingSink, until } from './helpers.js';

const FS = 48000;
const C1 = 100e6;
const CARRIER = C1 + 5000; // absolute: +5 kHz from C1, −5 kHz from C2
const C2 = C1 + 10000;
const LINK: LinkStatus = { state: 'connected', reconnects: 2, droppedSamples: 0, detail: 'fake tuner' };

/** A fake tuner: complex blocks of a carrier fixed in absolute frequency, at whatever centre it is tuned
 * to (the offset is CARRIER − centre), plus a little noise. Unpaced; yields to timers between blocks. */
class FakeTuner implements LiveSource {
  center = C1;
  readonly channel = 0;
  readonly droppedBlocks = 0;
  readonly label = 'fake tuner';
  retunes: number[] = [];
  closed = false;
  #seed = 12345;

  get info(): SourceInfo {
    return {
      sampleRate: FS,
      complex: true,
      channels: 1,
      centerFrequency: C1,
      container: 'raw',
      encoding: 'cf32_le',
    } as SourceInfo;
  }

  retune(centerFrequency: number): Promise<void> {
    this.retunes.push(centerFrequency);
    this.center = centerFrequency;
    return Promise.resolve();
  }

  link(): LinkStatus {
    return { ...LINK };
  }

  #noise(): number {
    this.#seed = (Math.imul(this.#seed, 1103515245) + 12345) >>> 0;
    return (this.#seed / 2 ** 32 - 0.5) * 1e-3;
  }

  async *blocks(o: ReadOptions = {}): AsyncGenerator<LiveBlock> {
    const n = o.blockFrames ?? 240;
    let t = 0;
    while (!o.signal?.aborted && !this.closed) {
      const center = this.center;
      const data = new Float32Array(2 * n);
      const w = (2 * Math.PI * (CARRIER - center)) / FS;
      for (let i = 0; i < n; i++) {
        data[2 * i] = 0.5 * Math.cos(w * (t + i)) + this.#noise();
        data[2 * i + 1] = 0.5 * Math.sin(w * (t + i)) + this.#noise();
      }
      const format = { sampleRate: FS, complex: true, channels: 1, centerFrequency: center };
      yield { format, start: t, frames: n, data, captureTime: performance.timeOrigin + performance.now() };
      t += n;
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

let backend: Backend;
beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});

function peaksEvents(sink: CollectingSink): PeaksEvent[] {
  return sink.events.filter((e) => e.event === 'peaks').map((e) => e.data as PeaksEvent);
}

describe('a live session on a tunable source', () => {
  it('moves its range on retune, keeps peaks absolute and rows as wide, and reports the link', async () => {
    const tuner = new FakeTuner();
    const sink = new CollectingSink();
    const session = new LiveSession({
      id: 1,
      backend,
      source: tuner,
      analysis: { ...defaultAnalysis, fft: 2048, overlap: 0.5, columns: 512 },
      sink,
      statusIntervalMs: 50,
    });
    sink.onRows = (m) => session.ack(m.seq);
    session.start();
    const before = session.info();
    expect(before.tunable).toBe(true);
    expect(before.centerFrequency).toBe(C1);
    expect(before.frequencyRange[0]).toBe(C1 - FS / 2);

    await until(() => peaksEvents(sink).length >= 3, 20000, 'peaks at the first centre');
    const binWidth = FS / 2048;
    for (const p of peaksEvents(sink))
      expect(Math.abs(p.peaks[0].frequency - CARRIER)).toBeLessThan(binWidth);

    const seen = peaksEvents(sink).length;
    const rowsBefore = sink.messages.length;
    const after = await session.retune(C2);
    expect(tuner.retunes).toEqual([C2]);
    expect(after.centerFrequency).toBe(C2);
    expect(after.frequencyRange[0] - before.frequencyRange[0]).toBe(C2 - C1);
    expect(after.frequencyRange[1] - before.frequencyRange[1]).toBe(C2 - C1);
    expect(after.width).toBe(before.width);
    expect(session.info()).toEqual(after);

    await until(() => peaksEvents(sink).length >= seen + 4, 20000, 'peaks at the new centre');
    // Every update, across the retune, finds the carrier where it is (never at C1 + (CARRIER − C2)).
    for (const p of peaksEvents(sink).slice(seen))
      expect(Math.abs(p.peaks[0].frequency - CARRIER)).toBeLessThan(binWidth);
    // The rows go on, as wide, and the carrier's column moved by the retune (+5 kHz → −5 kHz).
    await until(() => sink.messages.length > rowsBefore + 4, 20000, 'rows after the retune');
    const argmax = (r: Float32Array, w: number) => {
      let best = 0;
      for (let k = 0; k < w; k++) if (r[k] > r[best]) best = k;
      return best;
    };
    const last = sink.messages[sink.messages.length - 1];
    expect(last.width).toBe(512);
    const first = sink.messages[0];
    // Column of an offset f: (f + fs/2)/fs of the width.
    expect(argmax(first.rows, first.width)).toBe(Math.floor(((5000 + FS / 2) / FS) * 512));
    expect(argmax(last.rows, last.width)).toBe(Math.floor(((-5000 + FS / 2) / FS) * 512));

    await until(() => sink.events.some((e) => e.event === 'status'), 5000, 'status');
    const status = sink.events.find((e) => e.event === 'status')!.data as StatusEvent;
    expect(status.link).toEqual(LINK);
    await session.stop();
  });

  it('refuses a retune of a source without a tuner, and says nothing of a link', async () => {
    const tuner = new FakeTuner();
    // The same source without retune and link.
    const plain: LiveSource = {
      get info() {
        return tuner.info;
      },
      channel: 0,
      droppedBlocks: 0,
      label: 'plain source',
      blocks: (o) => tuner.blocks(o),
      close: () => tuner.close(),
    };
    const sink = new CollectingSink();
    const session = new LiveSession({
      id: 2,
      backend,
      source: plain,
      analysis: defaultAnalysis,
      sink,
      statusIntervalMs: 50,
    });
    sink.onRows = (m) => session.ack(m.seq);
    session.start();
    expect(session.info().tunable).toBeUndefined();
    await expect(session.retune(C2)).rejects.toThrow(/plain source source cannot be retuned/);
    await until(() => sink.events.some((e) => e.event === 'status'), 5000, 'status');
    const status = sink.events.find((e) => e.event === 'status')!.data as StatusEvent;
    expect(status.link).toBeUndefined();
    await session.stop();
  });
});

describe('the connection: retune', () => {
  const tunerKind = defineSourceKind({
    kind: 'tuner',
    label: 'Fake tuner',
    fields: [],
    schema: z.object({ kind: z.literal('tuner') }),
    open: () => Promise.resolve(new FakeTuner()),
  });
  let engine: Engine;
  beforeAll(() => {
    engine = new Engine({
      backend,
      statusIntervalMs: 50,
      kinds: new SourceKindRegistry([...builtInKinds, tunerKind]),
    });
  });
  afterAll(async () => {
    await engine.dispose();
  });

  function client() {
    const out: Array<ServerMessage | ArrayBuffer> = [];
    const conn = createEngineConnection(
      (m) => {
        out.push(m);
        if (m instanceof ArrayBuffer) {
          const r = decodeRows(m);
          conn.receive({ type: 'ack', session: r.session, seq: r.seq });
        }
      },
      { engine },
    );
    const request = async (id: number, method: string, params: unknown): Promise<ReplyMessage> => {
      conn.receive(JSON.stringify({ type: 'request', id, method, params }));
      const find = () =>
        out.find((m): m is ReplyMessage => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id);
      await until(() => find() !== undefined, 10000, `reply ${id}`);
      return find()!;
    };
    return { conn, out, request };
  }

  it('refuses a retune without a session, and of a source that is not tunable', async () => {
    const c = client();
    expect(await c.request(1, 'retune', { centerFrequency: C2 })).toMatchObject({
      ok: false,
      error: { code: 'invalid-argument', message: 'no live session is running: start one first' },
    });
    expect(
      await c.request(2, 'start', { source: { kind: 'generator' }, analysis: defaultAnalysis }),
    ).toMatchObject({ ok: true });
    const r = await c.request(3, 'retune', { centerFrequency: C2 });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
    expect((r as { error: { message: string } }).error.message).toMatch(/^the .* source cannot be retuned$/);
    expect(await c.request(4, 'retune', { centerFrequency: -1 })).toMatchObject({
      ok: false,
      error: { code: 'bad-request' },
    });
    c.conn.close();
  });

  it('retunes a tunable source and answers with the new LiveInfo', async () => {
    const c = client();
    const start = await c.request(1, 'start', { source: { kind: 'tuner' }, analysis: defaultAnalysis });
    const info = (start as { result: LiveInfo }).result;
    expect(info).toMatchObject({ tunable: true, centerFrequency: C1 });
    const r = await c.request(2, 'retune', { centerFrequency: C2 });
    expect(r.ok).toBe(true);
    const moved = (r as { result: LiveInfo }).result;
    expect(moved).toMatchObject({ session: info.session, tunable: true, centerFrequency: C2 });
    expect(moved.frequencyRange[0] - info.frequencyRange[0]).toBe(C2 - C1);
    await until(
      () =>
        c.out.some(
          (m) => !(m instanceof ArrayBuffer) && m.type === 'event' && m.event === 'status' && !!m.data.link,
        ),
      5000,
      'status with the link',
    );
    expect(await c.request(3, 'stop', {})).toMatchObject({ ok: true });
    c.conn.close();
  });
});

// Recording a live session over the connection: recordStart → `recording` events → recordStop, the
// recording readable afterwards; the source ending stops it too; refusals (a path outside the granted
// roots, an existing file, a second recording, no session).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { openSource } from '../../electron/engine/io/index.js';
import { createEngineConnection, type EngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { FileAccess } from '../../electron/engine/offline/access.js';
import {
  defaultAnalysis,
  type RecordingStatus,
  type ReplyMessage,
  type ServerMessage,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows } from '../../electron/engine/protocol/rows-codec.js';
import { SourceKindRegistry, builtInKinds, defineSourceKind } from '../../electron/engine/sources/kinds.js';
import { isRawSamples } from '../../electron/engine/types.js';
import { z } from 'zod';
import { tempDir } from '../support/cli.js';
import { until } from '../live/helpers.js';
import { cu8Bytes, cu8Source, plan } from './helpers.js';

const tmp = tempDir('phasor-record-session-');
const granted = join(tmp.dir, 'granted');
mkdirSync(granted);
let backend: Backend;
/** Holds the fake source after its first block until the recording has started. */
let release!: () => void;
const gate = new Promise<void>((r) => (release = r));
let engine: Engine;

// The built-in kinds and a finite cu8 source (rtl_tcp-like: 40 blocks with a drop after the 20th).
const kinds = new SourceKindRegistry([
  ...builtInKinds,
  defineSourceKind({
    kind: 'fake',
    label: 'fake rtl_tcp',
    fields: [],
    schema: z.object({ kind: z.literal('fake') }),
    open: async () =>
      cu8Source([...plan(0, 20, 4096, 100e6), ...plan(20 * 4096 + 1000, 20, 4096, 100e6)], 2.048e6, gate),
  }),
]);

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend, statusIntervalMs: 50, kinds });
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
  tmp.remove();
});

class Client {
  readonly out: Array<ServerMessage | ArrayBuffer> = [];
  readonly conn: EngineConnection;
  #id = 1;
  constructor(access?: FileAccess) {
    this.conn = createEngineConnection(
      (m) => {
        this.out.push(m);
        if (m instanceof ArrayBuffer) {
          const r = decodeRows(m);
          this.conn.receive({ type: 'ack', session: r.session, seq: r.seq });
        }
      },
      { engine, ...(access ? { access } : {}) },
    );
  }
  recordings(): RecordingStatus[] {
    return this.out.flatMap((m) =>
      !(m instanceof ArrayBuffer) && m.type === 'event' && m.event === 'recording'
        ? [m.data as RecordingStatus]
        : [],
    );
  }
  async request(method: string, params: unknown): Promise<ReplyMessage> {
    const id = this.#id++;
    this.conn.receive(JSON.stringify({ type: 'request', id, method, params }));
    await until(
      () => this.out.some((m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id),
      10000,
      `reply ${id}`,
    );
    return this.out.find(
      (m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id,
    ) as ReplyMessage;
  }
}

describe('recordStart / recordStop over the connection', () => {
  it('records the generator to SigMF with recording events, stops on recordStop', async () => {
    const c = new Client(new FileAccess([granted]));
    const start = await c.request('start', {
      source: { kind: 'generator', frequency: 2000, sampleRate: 16000 },
      analysis: defaultAnalysis,
    });
    expect(start.ok).toBe(true);
    const path = join(granted, 'live.sigmf-meta');
    const r = await c.request('recordStart', { path });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect((r as { result: RecordingStatus }).result).toMatchObject({ state: 'recording', path, frames: 0 });
    // A few status events with frames growing.
    await until(() => c.recordings().filter((s) => s.frames > 4000).length >= 2, 20000, 'recording events');
    const events = c.recordings();
    expect(events.every((s) => s.state === 'recording' && s.freeBytes !== undefined && s.freeBytes > 0)).toBe(
      true,
    );
    // Only one at a time.
    const second = await c.request('recordStart', { path: join(granted, 'second.wav') });
    expect(second.ok).toBe(false);
    expect((second as { error: { message: string } }).error.message).toMatch(
      /a recording is running already/,
    );

    const stop = await c.request('recordStop', {});
    expect(stop.ok).toBe(true);
    const final = (stop as { result: RecordingStatus }).result;
    expect(final.state).toBe('stopped');
    expect(final.reason).toBeUndefined();
    expect(final.frames).toBeGreaterThan(4000);
    const s = await openSource(path);
    expect(s.info).toMatchObject({ sampleRate: 16000, samples: final.frames, encoding: 'rf32_le' });
    await s.close();
    const meta = JSON.parse(readFileSync(path, 'utf8')) as { global: Record<string, unknown> };
    expect(meta.global).toMatchObject({ 'phasor:stopped': 'requested', 'phasor:recording': false });
    expect((await c.request('recordStop', {})).ok).toBe(false);
    await c.request('stop', {});
    c.conn.close();
  }, 30000);

  it('a raw cu8 source is recorded as its bytes, its drop a gap; its end stops the recording', async () => {
    const c = new Client();
    await c.request('start', { source: { kind: 'fake' }, analysis: defaultAnalysis });
    const path = join(tmp.dir, 'fake.sigmf-meta');
    const r = await c.request('recordStart', { path });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    release();
    await until(() => c.recordings().some((s) => s.state !== 'recording'), 20000, 'the recording to stop');
    const last = c.recordings().at(-1)!;
    expect(last).toMatchObject({ state: 'stopped', reason: 'source ended' });
    const s = await openSource(path);
    const parts: Uint8Array[] = [];
    for await (const b of s.blocks({ raw: true })) {
      if (isRawSamples(b.data)) parts.push(new Uint8Array(b.data.data as Uint8Array));
    }
    await s.close();
    const got = Buffer.concat(parts);
    const all = [...plan(0, 20, 4096, 100e6), ...plan(20 * 4096 + 1000, 20, 4096, 100e6)];
    const first = all.length - got.length / (2 * 4096);
    // The first block went by before the recording started.
    expect(first).toBe(1);
    const sent = Buffer.concat(all.slice(first).map((b) => cu8Bytes(b.start, b.frames)));
    expect(got.equals(sent)).toBe(true);
    expect(last).toMatchObject({ gaps: 1, droppedFrames: 1000 });
    const meta = JSON.parse(readFileSync(path, 'utf8')) as { annotations: Array<Record<string, unknown>> };
    expect(meta.annotations[0]).toMatchObject({ 'core:sample_start': 19 * 4096, 'core:label': 'gap' });
    c.conn.close();
  }, 30000);

  it('refuses a path outside the granted roots, an existing file, and recording without a session', async () => {
    const c = new Client(new FileAccess([granted]));
    const none = await c.request('recordStart', { path: join(granted, 'x.wav') });
    expect(none.ok).toBe(false);
    expect((none as { error: { message: string } }).error.message).toMatch(/no live session is running/);
    await c.request('start', { source: { kind: 'generator', sampleRate: 16000 }, analysis: defaultAnalysis });
    const outside = await c.request('recordStart', { path: join(tmp.dir, 'outside.wav') });
    expect(outside.ok).toBe(false);
    expect((outside as { error: { message: string } }).error.message).toMatch(/outside\.wav/);
    writeFileSync(join(granted, 'taken.wav'), 'x');
    const taken = await c.request('recordStart', { path: join(granted, 'taken.wav') });
    expect(taken.ok).toBe(false);
    expect((taken as { error: { message: string } }).error.message).toMatch(/taken\.wav: already exists/);
    expect(readFileSync(join(granted, 'taken.wav'), 'utf8')).toBe('x');
    // Stopping the session stops a recording with it.
    const ok = await c.request('recordStart', { path: join(granted, 'stopped.wav') });
    expect(ok.ok).toBe(true);
    await c.request('stop', {});
    const last = c.recordings().at(-1)!;
    expect(last).toMatchObject({ state: 'stopped', reason: 'session stopped' });
    const s = await openSource(join(granted, 'stopped.wav'));
    expect(s.info.samples).toBe(last.frames);
    await s.close();
    c.conn.close();
  }, 30000);
});

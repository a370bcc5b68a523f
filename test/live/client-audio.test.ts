// The browser's own microphone on the engine side: audio blocks the page sends over its connection
// (protocol/audio-frames.ts) feed a live source (sources/client-audio.ts) and go through the same session
// as the server's microphone. Blocks in → rows and peaks out; blocks the page dropped (a jump in seq) and
// blocks the consumer could not take are counted; malformed blocks are refused in one line and queue
// nothing; a connection whose transport carries no client audio neither offers nor opens the kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createEngineConnection, type EngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import {
  AUDIO_FRAME_HEADER_BYTES,
  audioBlockFrames,
  encodeAudioFrame,
} from '../../electron/engine/protocol/audio-frames.js';
import {
  defaultAnalysis,
  type EventMessage,
  type HelloResult,
  type LiveInfo,
  type PeaksEvent,
  type ReplyMessage,
  type ServerMessage,
  type StatusEvent,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows } from '../../electron/engine/protocol/rows-codec.js';
import { openClientAudio } from '../../electron/engine/sources/client-audio.js';
import { sourceKinds } from '../../electron/engine/sources/kinds.js';
import type { LiveBlock } from '../../electron/engine/sources/live-source.js';
import { until } from './helpers.js';

const FS = 48000;
const TONE = 3000;
const BLOCK = audioBlockFrames(FS);

/** Block `seq` of a 0.5-amplitude tone, its phase continuous across blocks. */
function toneBlock(seq: number, frequency = TONE, frames = BLOCK): Float32Array {
  const s = new Float32Array(frames);
  for (let i = 0; i < frames; i++) s[i] = 0.5 * Math.sin((2 * Math.PI * frequency * (seq * frames + i)) / FS);
  return s;
}

function frame(session: number, seq: number, samples = toneBlock(seq)): Uint8Array {
  return new Uint8Array(encodeAudioFrame({ session, seq, start: seq * samples.length, samples }));
}

/** Takes `n` blocks from a source. */
async function take(it: AsyncIterator<LiveBlock>, n: number): Promise<LiveBlock[]> {
  const out: LiveBlock[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('client audio source', () => {
  it('turns blocks into live blocks with their frames, in order', async () => {
    const src = openClientAudio({ sampleRate: FS, label: 'Fake Mic' });
    expect(src.label).toBe('browser: Fake Mic');
    expect(src.info).toMatchObject({ sampleRate: FS, channels: 1, complex: false, encoding: 'rf32_le' });
    const it = src.blocks()[Symbol.asyncIterator]();
    for (let seq = 0; seq < 3; seq++) src.push(frame(1, seq));
    const got = await take(it, 3);
    expect(got.map((b) => b.start)).toEqual([0, BLOCK, 2 * BLOCK]);
    expect(got[1].frames).toBe(BLOCK);
    expect(Array.from(got[2].data as Float32Array)).toEqual(Array.from(toneBlock(2)));
    expect(got.every((b) => b.captureTime > 0)).toBe(true);
    expect(src.droppedBlocks).toBe(0);
    await src.close();
  });

  it('counts the blocks the page dropped and starts the next block at its real frame', async () => {
    const src = openClientAudio({ sampleRate: FS });
    const it = src.blocks()[Symbol.asyncIterator]();
    src.push(frame(1, 0));
    src.push(frame(1, 4)); // blocks 1–3 never came
    const got = await take(it, 2);
    expect(got.map((b) => b.start)).toEqual([0, 4 * BLOCK]);
    expect(src.droppedBlocks).toBe(3);
    await src.close();
  });

  it('drops the oldest blocks past its queue when the consumer falls behind, and counts them', async () => {
    const src = openClientAudio({ sampleRate: FS, maxQueueSeconds: 0.1 }); // 4800 frames: 4 blocks
    for (let seq = 0; seq < 10; seq++) src.push(frame(1, seq));
    expect(src.droppedBlocks).toBe(6);
    const got = await take(src.blocks()[Symbol.asyncIterator](), 4);
    expect(got.map((b) => b.start / BLOCK)).toEqual([6, 7, 8, 9]);
    await src.close();
  });

  it('refuses malformed blocks and blocks going back in time, queueing nothing', async () => {
    const src = openClientAudio({ sampleRate: FS });
    src.push(frame(1, 5));
    const good = frame(1, 6);
    const badMagic = good.slice();
    badMagic[0] ^= 0xff;
    const badLength = good.slice(0, good.length - 4);
    const nan = good.slice();
    new DataView(nan.buffer).setFloat32(AUDIO_FRAME_HEADER_BYTES + 40, NaN, true);
    const zeroFrames = new Uint8Array(
      encodeAudioFrame({ session: 1, seq: 6, start: 6 * BLOCK, samples: new Float32Array(0) }),
    );
    const huge = new Uint8Array(
      encodeAudioFrame({ session: 1, seq: 6, start: 6 * BLOCK, samples: new Float32Array(20000) }),
    );
    const fractionalStart = good.slice();
    new DataView(fractionalStart.buffer).setFloat64(16, 0.5, true);
    const cases: Array<[Uint8Array, RegExp]> = [
      [good.slice(0, 10), /24-byte header, got 10 bytes/],
      [badMagic, /not an audio block/],
      [badLength, /has \d+ bytes, got \d+/],
      [nan, /not a number \(frame 10\)/],
      [zeroFrames, /holds 1 to 16384 frames, got 0/],
      [huge, /holds 1 to 16384 frames, got 20000/],
      [fractionalStart, /start frame must be a whole number/],
      [frame(1, 5), /goes back before block 6/],
      [frame(1, 3), /goes back before block 6/],
    ];
    for (const [bytes, message] of cases) {
      let error: Error | undefined;
      try {
        src.push(bytes);
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).toMatch(/^browser microphone: /);
      expect(error?.message).toMatch(message);
      expect(error?.message).not.toContain('\n');
    }
    src.push(good);
    const got = await take(src.blocks()[Symbol.asyncIterator](), 2);
    expect(got.map((b) => b.start / BLOCK)).toEqual([5, 6]);
    expect(src.droppedBlocks).toBe(5); // blocks 0–4 before the first one that came
    await src.close();
  });

  it('refuses a sample rate outside 8 kHz … 384 kHz', () => {
    expect(() => openClientAudio({ sampleRate: 1000 })).toThrow(/sample rate must be .* 8000 to 384000/);
    expect(() => openClientAudio({ sampleRate: 44100.5 })).toThrow(/whole number/);
  });

  it('fails with one line when the audio stops coming', async () => {
    const src = openClientAudio({ sampleRate: FS, stallTimeoutMs: 150 });
    const it = src.blocks()[Symbol.asyncIterator]();
    src.push(frame(1, 0));
    await take(it, 1);
    await expect(it.next()).rejects.toThrow(/^browser microphone: no audio from the browser for 0 s/);
    await src.close();
  });

  it('is not opened where no client sends audio (the CLI, the desktop app)', async () => {
    await expect(sourceKinds.open({ kind: 'browser-mic', sampleRate: FS })).rejects.toThrow(
      /captured by a web page of `phasor serve`/,
    );
    expect(() => sourceKinds.fromSpec('browser-mic')).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------------
// Through a connection

function resultOf(r: ReplyMessage): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.message}`);
  return r.result;
}
function errorOf(r: ReplyMessage): { code: string; message: string } {
  if (r.ok) throw new Error('expected a refusal');
  return r.error;
}

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
  #id = 0;
  constructor(clientAudio: boolean) {
    this.conn = createEngineConnection(
      (m) => {
        this.out.push(m);
        if (m instanceof ArrayBuffer) {
          const r = decodeRows(m);
          this.conn.receive({ type: 'ack', session: r.session, seq: r.seq });
        }
      },
      { engine, ...(clientAudio ? { clientAudio: true } : {}) },
    );
  }
  replies(): ReplyMessage[] {
    return this.out.filter((m): m is ReplyMessage => !(m instanceof ArrayBuffer) && m.type === 'reply');
  }
  events<T>(name: string): T[] {
    return this.out
      .filter((m): m is EventMessage => !(m instanceof ArrayBuffer) && m.type === 'event' && m.event === name)
      .map((m) => m.data as T);
  }
  rowCount(): number {
    return this.out.filter((m) => m instanceof ArrayBuffer).reduce((n, m) => n + decodeRows(m).count, 0);
  }
  async request(method: string, params: unknown): Promise<ReplyMessage> {
    const id = ++this.#id;
    this.conn.receive(JSON.stringify({ type: 'request', id, method, params }));
    await until(() => this.replies().some((r) => r.id === id), 10000, `reply ${id}`);
    return this.replies().find((r) => r.id === id)!;
  }
}

describe('client audio over a connection', () => {
  it('streams blocks into rows and finds the tone, counting the blocks the page dropped', async () => {
    const c = new Client(true);
    const hello = resultOf(await c.request('hello', {})) as HelloResult;
    const kind = hello.sources.find((k) => k.kind === 'browser-mic');
    expect(kind).toMatchObject({ label: "This browser's microphone", capture: 'browser-audio', fields: [] });
    const started = await c.request('start', {
      source: { kind: 'browser-mic', sampleRate: FS, device: 'Fake Mic' },
      analysis: { ...defaultAnalysis, fft: 4096, columns: 512 },
    });
    expect(started.ok).toBe(true);
    const info = resultOf(started) as LiveInfo;
    expect(info).toMatchObject({ sampleRate: FS, source: 'browser: Fake Mic', complex: false });
    // 2 s of tone, with blocks 40–44 missing (the page's socket fell behind).
    for (let seq = 0; seq < 94; seq++) {
      if (seq >= 40 && seq < 45) continue;
      c.conn.receive(frame(info.session, seq));
      if (seq % 8 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await until(() => c.events<PeaksEvent>('peaks').some((p) => p.peaks.length > 0), 10000, 'peaks');
    await until(() => c.events<StatusEvent>('status').some((s) => s.droppedBlocks >= 5), 10000, 'drops');
    const peak = c.events<PeaksEvent>('peaks').find((p) => p.peaks.length > 0)!;
    expect(Math.abs(peak.peaks[0].frequency - TONE)).toBeLessThan(peak.binWidth);
    expect(Math.abs(peak.peaks[0].level - 20 * Math.log10(0.5))).toBeLessThan(0.5);
    expect(c.rowCount()).toBeGreaterThan(10);
    expect(c.events<StatusEvent>('status').at(-1)!.droppedBlocks).toBe(5);
    // No error reply: every block was taken.
    expect(c.replies().filter((r) => !r.ok)).toEqual([]);

    // A malformed block is refused in one line; the session goes on.
    const bad = frame(info.session, 94).slice(0, 100);
    c.conn.receive(bad);
    await until(() => c.replies().some((r) => !r.ok), 5000, 'refusal');
    const refusal = c.replies().find((r) => !r.ok)!;
    expect(refusal.id).toBe(-1);
    expect(errorOf(refusal).code).toBe('bad-request');
    expect(errorOf(refusal).message).toMatch(
      /^bad request: browser microphone: an audio block of \d+ frames/,
    );

    // After a stop, blocks still in flight for the old session are dropped without a word.
    await c.request('stop', {});
    const before = c.replies().length;
    c.conn.receive(frame(info.session, 95));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.replies().length).toBe(before);
    c.conn.close();
  });

  it('refuses audio blocks for a session whose source captures nothing', async () => {
    const c = new Client(true);
    const started = await c.request('start', { source: { kind: 'generator' }, analysis: defaultAnalysis });
    const info = resultOf(started) as LiveInfo;
    c.conn.receive(frame(info.session, 0));
    await until(() => c.replies().some((r) => !r.ok), 5000, 'refusal');
    expect(errorOf(c.replies().find((r) => !r.ok)!).message).toMatch(
      /generator: tone 1000 Hz source takes no audio blocks/,
    );
    c.conn.close();
  });

  it('neither offers nor opens the kind where the transport carries no client audio', async () => {
    const c = new Client(false);
    const hello = resultOf(await c.request('hello', {})) as HelloResult;
    expect(hello.sources.map((k) => k.kind)).not.toContain('browser-mic');
    expect(hello.sources.map((k) => k.kind)).toContain('mic');
    const r = await c.request('start', {
      source: { kind: 'browser-mic', sampleRate: FS },
      analysis: defaultAnalysis,
    });
    expect(r.ok).toBe(false);
    expect(errorOf(r).message).toMatch(/captured by a web page of `phasor serve`/);
    c.conn.receive(frame(1, 0));
    await until(() => c.replies().filter((x) => !x.ok).length >= 2, 5000, 'refusal');
    expect(errorOf(c.replies().filter((x) => !x.ok)[1]).message).toMatch(/binary messages are not requests/);
    c.conn.close();
  });
});

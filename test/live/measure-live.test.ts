// Measurements of a live session's newest samples (live/measure.ts): the ring holds exactly the newest
// frames of the stream (the measurement equals dsp/measure.ts on the same frames generated afresh), band
// power, SNR and THD of a generator's tone, harmonics and noise against their known levels, absolute
// frequencies of an I/Q stream and of a tuner after a retune (which empties the ring), a channel of raw
// integers, the ring's bounds and idle release, and the one-line refusals; measureLive over the connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { measureSamples } from '../../electron/engine/dsp/index.js';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { LiveMeasure } from '../../electron/engine/live/measure.js';
import { LiveSession } from '../../electron/engine/live/session.js';
import {
  defaultAnalysis,
  type MeasureResult,
  type ReplyMessage,
  type ServerMessage,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows } from '../../electron/engine/protocol/rows-codec.js';
import { LIVE_MEASURE_FRAMES_MAX } from '../../electron/engine/protocol/shape.js';
import { createGenerator, type GeneratorOptions } from '../../electron/engine/sources/generator.js';
import type { LiveBlock, LiveSource } from '../../electron/engine/sources/live-source.js';
import type { ReadOptions, SourceInfo } from '../../electron/engine/sources/source.js';
import { cu8Source, plan } from '../record/helpers.js';
import { CollectingSink, unpaced, until } from './helpers.js';

const FS = 44100; // 221-frame blocks: the ring wraps inside a block
const A = 0.5;
const H2 = 0.005;
const H3 = 0.0025;
const SIGMA = 1e-3;
const dbfs = (meanSquare: number): number => 10 * Math.log10(meanSquare / 0.5);

const GEN: GeneratorOptions = {
  sampleRate: FS,
  tones: [
    { frequency: 1000, amplitude: A },
    { frequency: 2000, amplitude: H2 },
    { frequency: 3000, amplitude: H3 },
  ],
  noise: { rms: SIGMA },
  seed: 11,
};

let backend: Backend;
beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});

function session(source: LiveSource): LiveSession {
  const sink = new CollectingSink();
  const s: LiveSession = new LiveSession({
    id: 1,
    backend,
    source,
    analysis: { ...defaultAnalysis, fft: 1024 },
    sink,
    peaks: false,
  });
  sink.onRows = (m) => s.ack(m.seq);
  return s;
}

/** Frames [start, end) of a generator, generated afresh in one piece. */
async function framesOf(options: GeneratorOptions, start: number, end: number): Promise<Float32Array> {
  const g = createGenerator(options);
  const w = (options.complex ? 2 : 1) * (options.channels ?? 1);
  const out = new Float32Array((end - start) * w);
  let at = 0;
  for await (const b of g.blocks({ start, end, blockFrames: 4096 })) {
    const d = b.data as Float32Array;
    out.set(d, at);
    at += d.length;
  }
  await g.close();
  return out;
}

/** A live source over a generator whose blocks are raw int16 of every channel, or which stops after
 * `blocks` blocks and then hangs until stopped (a stalled device). */
function rawSource(options: GeneratorOptions, channel: number, hangAfter?: number): LiveSource {
  const inner = createGenerator(options);
  return {
    info: { ...(inner.info as SourceInfo), encoding: 'i16' } as SourceInfo,
    channel,
    label: 'raw test source',
    droppedBlocks: 0,
    async *blocks(o: ReadOptions = {}): AsyncGenerator<LiveBlock> {
      let n = 0;
      for await (const b of inner.blocks({ blockFrames: o.blockFrames ?? 256 })) {
        if (hangAfter !== undefined && n === hangAfter) {
          await new Promise<void>((resolve) => o.signal?.addEventListener('abort', () => resolve()));
          return;
        }
        n++;
        const f = b.data as Float32Array;
        const data = Int16Array.from(f, (v) => Math.round(v * 32768));
        yield { ...b, data: { data, offset: 0, scale: 1 / 32768 }, captureTime: performance.now() };
        if (o.signal?.aborted) return;
      }
    },
    close: () => inner.close(),
  };
}

describe('LiveMeasure', () => {
  it('measures the newest frames of the stream: the tone, its harmonics and the noise', async () => {
    const s = session(unpaced(createGenerator(GEN), { blocks: 1200 }));
    const m = new LiveMeasure(s, backend);
    // asked before the session runs: it taps from the first block and waits for 0.2 s
    const first = m.measure({ seconds: 0.2, fLow: 500, fHigh: 1500 });
    s.start();
    const r1 = await first;
    expect(r1.end - r1.start).toBe(Math.round(0.2 * FS));
    expect(m.capacity).toBe(FS); // one second at least
    expect(r1.tone?.frequency).toBeCloseTo(1000, 1);
    await s.done;
    expect(s.stats().frames).toBe(1200 * 221);

    // the ring has wrapped many times: its newest 0.9 s, against the same frames generated afresh
    const r = await m.measure({ seconds: 0.9 });
    expect(r.end).toBe(1200 * 221);
    expect(r.start).toBe(r.end - Math.round(0.9 * FS));
    const ref = await measureSamples(backend, await framesOf(GEN, r.start, r.end), {
      sampleRate: FS,
      complex: false,
    });
    expect({ ...r, start: 0, end: 0, window: '' }).toEqual({ ...ref, start: 0, end: 0, window: '' });
    expect(r.window).toBe('hann');

    // the known levels: tone −6.02 dBFS, harmonics, white noise of σ² over 0 … fs/2
    const tonePower = (A * A) / 2;
    const distortion = (H2 * H2 + H3 * H3) / 2;
    expect(r.bandPower).toBeCloseTo(dbfs(tonePower + distortion + SIGMA * SIGMA), 1);
    expect(Math.abs(r.tone!.level - 20 * Math.log10(A))).toBeLessThan(0.05);
    expect(r.snr!).toBeCloseTo(10 * Math.log10(tonePower / (SIGMA * SIGMA)), 0);
    expect(r.thd!.thdPercent).toBeCloseTo(100 * Math.sqrt(distortion / tonePower), 2);
    expect(r.thd!.thdnPercent).toBeCloseTo(100 * Math.sqrt((distortion + SIGMA * SIGMA) / tonePower), 2);
    expect(r.thd!.harmonics.slice(0, 2).map((h) => Math.round(h.frequency))).toEqual([2000, 3000]);

    // a band of only the tone: its power within 0.1 dB of the amplitude's dBFS
    const band = await m.measure({ seconds: 0.9, fLow: 900, fHigh: 1100 });
    expect(Math.abs(band.bandPower - 20 * Math.log10(A))).toBeLessThan(0.1);
    expect(band.band).toEqual([900, 1100]);

    // the ring grows for a longer request, keeping what it holds; the source has ended
    await expect(m.measure({ seconds: 2 })).rejects.toThrow(
      /^the live source ended: 1 s buffered, 2 s wanted$/,
    );
    expect(m.capacity).toBe(2 * FS);
    expect(m.buffered).toBe(FS);
    m.dispose();
    expect(m.active).toBe(false);
    expect(m.capacity).toBe(0);
    await s.stop();
  });

  it('reads one channel of raw integers, and says how much is buffered when the source stalls', async () => {
    const two: GeneratorOptions = { ...GEN, channels: 2 };
    // 20 blocks of 221 frames (0.1 s), then nothing
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inner = rawSource(two, 1, 20);
    const gated: LiveSource = {
      ...inner,
      async *blocks(o: ReadOptions = {}) {
        await gate;
        yield* inner.blocks(o);
      },
    };
    const s = session(gated);
    const m = new LiveMeasure(s, backend, { idleMs: 100 });
    s.start();
    const t0 = performance.now();
    const waiting = m.measure({ seconds: 0.2 });
    release();
    await expect(waiting).rejects.toThrow(/^not enough live samples yet: 0\.1 s buffered, 0\.2 s wanted$/);
    // it waited the samples' duration and the margin
    expect(performance.now() - t0).toBeGreaterThan(2000);
    // the same frames of channel 1, int16-rounded, measured directly
    const r = await m.measure({ seconds: 0.05 });
    expect(r.end).toBe(20 * 221);
    const all = await framesOf(two, r.start, r.end);
    const ch1 = new Float32Array(r.end - r.start);
    for (let i = 0; i < ch1.length; i++) ch1[i] = Math.round(all[2 * i + 1] * 32768) / 32768;
    const ref = await measureSamples(backend, ch1, { sampleRate: FS, complex: false });
    expect(r.bandPower).toBe(ref.bandPower);
    expect(r.tone).toEqual(ref.tone);
    // idle: the tap and the ring go
    expect(m.active).toBe(true);
    await until(() => !m.active, 2000, 'idle release');
    expect(m.capacity).toBe(0);
    await s.stop();
  }, 10000);

  it('measures an I/Q stream at absolute frequencies, and refuses bad bands and lengths', async () => {
    const iq: GeneratorOptions = {
      sampleRate: 1e6,
      complex: true,
      centerFrequency: 100e6,
      tones: [{ frequency: 50e3, amplitude: 0.25 }],
      noise: { rms: 1e-3 },
      seed: 5,
    };
    const s = session(unpaced(createGenerator(iq), { blocks: 400 }));
    const m = new LiveMeasure(s, backend);
    await expect(m.measure({ fLow: 1000, fHigh: 2000 })).rejects.toThrow(
      /^the band 1000 Hz … 2000 Hz lies outside the live spectrum 99500000 Hz … 100500000 Hz$/,
    );
    await expect(m.measure({ fLow: 100.06e6, fHigh: 100.04e6 })).rejects.toThrow(
      /^the band's low edge must be below its high edge/,
    );
    const tooLong = Math.ceil((LIVE_MEASURE_FRAMES_MAX + 1e6) / 1e6);
    await expect(m.measure({ seconds: tooLong })).rejects.toThrow(
      /^at most 8\.39 s of a 1000000 Hz stream can be measured \(8388608 frames\)/,
    );
    expect(m.active).toBe(false); // nothing kept for refused requests
    const pending = m.measure({ seconds: 0.5, fLow: 100.04e6, fHigh: 100.06e6 });
    s.start();
    const r = await pending;
    expect(r.band).toEqual([100.04e6, 100.06e6]);
    expect(r.tone!.frequency).toBeCloseTo(100.05e6, -1);
    expect(Math.abs(r.bandPower - 20 * Math.log10(0.25))).toBeLessThan(0.1);
    m.dispose();
    await expect(m.measure()).rejects.toThrow(/^the live session stopped$/);
    await s.stop();
  });
});

describe('LiveMeasure on a tuner', () => {
  it('empties the ring at a retune, and measures at the new centre', async () => {
    // rtl_tcp-like cu8 bytes: a tone at fs/8 above the centre, 0.6 s at 100 MHz, then 0.4 s at 101 MHz
    const FRAMES = 4096;
    const s = session(
      cu8Source([...plan(0, 300, FRAMES, 100e6), ...plan(300 * FRAMES, 200, FRAMES, 101e6)], 2.048e6),
    );
    const m = new LiveMeasure(s, backend);
    const first = m.measure({ seconds: 0.25 });
    s.start();
    const before = await first;
    expect(before.tone!.frequency).toBeCloseTo(100.256e6, -1);
    await s.done;
    expect(m.buffered).toBe(200 * FRAMES);
    const r = await m.measure({ seconds: 0.3, fLow: 101.2e6, fHigh: 101.3e6 });
    expect(r.end).toBe(500 * FRAMES);
    expect(r.tone!.frequency).toBeCloseTo(101.256e6, -1);
    // amplitude 100/127.5 of full scale, the dither 40 dB below
    expect(Math.abs(r.tone!.level - 20 * Math.log10(100 / 127.5))).toBeLessThan(0.1);
    await expect(m.measure({ seconds: 0.5 })).rejects.toThrow(
      /^the live source ended: 0\.4 s buffered, 0\.5 s wanted$/,
    );
    m.dispose();
    await s.stop();
  });
});

describe('measureLive over the connection', () => {
  it('refuses without a session, then measures the generator kind', async () => {
    const engine = new Engine({ backend });
    const out: Array<ServerMessage | ArrayBuffer> = [];
    const conn = createEngineConnection(
      (msg) => {
        out.push(msg);
        if (msg instanceof ArrayBuffer) {
          const rows = decodeRows(msg);
          conn.receive({ type: 'ack', session: rows.session, seq: rows.seq });
        }
      },
      { engine },
    );
    let id = 1;
    const request = async (method: string, params: unknown): Promise<ReplyMessage> => {
      const n = id++;
      conn.receive(JSON.stringify({ type: 'request', id: n, method, params }));
      const find = (): ReplyMessage | undefined =>
        out.find((m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === n) as
          ReplyMessage | undefined;
      await until(() => find() !== undefined, 10000, `reply ${n}`);
      return find()!;
    };
    const none = await request('measureLive', {});
    expect(none).toMatchObject({
      ok: false,
      error: { code: 'invalid-argument', message: 'no live session is running: start one first' },
    });
    const bad = await request('measureLive', { seconds: 11 });
    expect(bad.ok).toBe(false);
    expect(bad.ok === false && bad.error.code).toBe('bad-request');
    const start = await request('start', {
      source: { kind: 'generator', frequency: 3000, amplitude: 0.5, noise: -100 },
      analysis: defaultAnalysis,
    });
    expect(start.ok).toBe(true);
    const reply = await request('measureLive', { seconds: 0.25, fLow: 2500, fHigh: 3500 });
    expect(reply.ok).toBe(true);
    const r = (reply as { result: MeasureResult }).result;
    expect(r.end - r.start).toBe(12000);
    expect(r.tone!.frequency).toBeCloseTo(3000, 1);
    expect(Math.abs(r.bandPower - 20 * Math.log10(0.5))).toBeLessThan(0.1);
    const outside = await request('measureLive', { fLow: 30000, fHigh: 40000 });
    expect(outside.ok === false && outside.error.message).toBe(
      'the band 30000 Hz … 40000 Hz lies outside the live spectrum 0 Hz … 24000 Hz',
    );
    await request('stop', {});
    conn.close();
    await engine.dispose();
  }, 15000);
});

// Peaks events of a live session: computed on full-resolution spectra of the samples, so a generator tone
// reads its true frequency and level (dBFS, no scalloping loss) whatever the display width; real and
// complex (absolute Hz) sources; count and floor; on/off; the protocol's schema for the event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { LivePeaks, median } from '../../electron/engine/live/peaks.js';
import { LiveSession } from '../../electron/engine/live/session.js';
import {
  defaultAnalysis,
  peaksEventSchema,
  requestSchemas,
  type Analysis,
  type PeaksEvent,
  type ReplyMessage,
  type ServerMessage,
} from '../../electron/engine/protocol/messages.js';
import { decodeRows } from '../../electron/engine/protocol/rows-codec.js';
import { createGenerator, type GeneratorOptions } from '../../electron/engine/sources/generator.js';
import { CollectingSink, unpaced, until } from './helpers.js';

const FS = 48000;
let backend: Backend;

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});

/** 20·log10(0.5): a sine of amplitude 0.5, or a complex exponential of modulus 0.5 (AES17). */
const HALF_DBFS = 20 * Math.log10(0.5);

async function runSession(
  gen: GeneratorOptions,
  analysis: Partial<Analysis>,
  blocks: number,
  peaks?: ConstructorParameters<typeof LiveSession>[0]['peaks'],
): Promise<{ events: PeaksEvent[]; session: LiveSession }> {
  const sink = new CollectingSink();
  const session = new LiveSession({
    id: 3,
    backend,
    source: unpaced(createGenerator(gen), { blocks }),
    analysis: { ...defaultAnalysis, ...analysis },
    sink,
    ...(peaks !== undefined ? { peaks } : {}),
  });
  sink.onRows = (m) => session.ack(m.seq);
  session.start();
  await session.done;
  await session.stop();
  const events = sink.events.filter((e) => e.event === 'peaks').map((e) => e.data as PeaksEvent);
  return { events, session };
}

describe('live peaks', () => {
  it('reads a 1 kHz tone at 0.5 as 1000 Hz and −6.02 dBFS whatever the display width', async () => {
    // 1000 Hz is bin 42.67 at FFT 2048: a third of a bin off, where a bin-centred reading loses ~0.6 dB
    // (Hann scalloping) and is 7.8 Hz off.
    for (const columns of [470, 940, 2048]) {
      const { events } = await runSession(
        { sampleRate: FS, tones: [{ frequency: 1000, amplitude: 0.5 }], noise: { rms: 1e-4 }, seed: 5 },
        { fft: 2048, window: 'hann', columns },
        400, // 2 s of 5 ms blocks
      );
      // About 5 updates a second of stream: 2 s → 10 (the first needs a whole frame).
      expect(events.length).toBeGreaterThanOrEqual(8);
      expect(events.length).toBeLessThanOrEqual(10);
      for (const e of events) {
        expect(peaksEventSchema.safeParse(e).success).toBe(true);
        expect(e.session).toBe(3);
        expect(e.fft).toBe(2048);
        expect(e.binWidth).toBeCloseTo(FS / 2048, 12);
        // Only the tone: the noise (−108 dBFS a bin) stays below the floor, Hann's side lobes are leakage.
        expect(e.peaks).toHaveLength(1);
        const p = e.peaks[0];
        // Noise at −108 dBFS against a −6 dBFS tone: its error is ~1e-5 bin and ~1e-4 dB; 1/50 bin and
        // 0.1 dB leave room, and still fail a parabolic or bin-centred reading (≥ 0.1 bin, 0.6 dB).
        expect(Math.abs(p.frequency - 1000)).toBeLessThan(e.binWidth / 50);
        expect(Math.abs(p.level - HALF_DBFS)).toBeLessThan(0.1);
      }
      // Stream times grow by about 0.2 s.
      for (let i = 1; i < events.length; i++) {
        expect(events[i].streamTime - events[i - 1].streamTime).toBeCloseTo(0.2, 2);
      }
    }
  });

  it('reads a complex tone at its absolute frequency (centre + offset), with other windows', async () => {
    const centre = 100e6;
    for (const window of ['blackmanharris', 'flattop', 'kaiser:12']) {
      const { events } = await runSession(
        {
          sampleRate: FS,
          complex: true,
          centerFrequency: centre,
          tones: [{ frequency: -7321.5, amplitude: 0.5 }],
          noise: { rms: 1e-4 },
          seed: 9,
        },
        { fft: 1500, window, columns: 300 },
        120,
      );
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const e of events) {
        expect(e.peaks).toHaveLength(1);
        expect(Math.abs(e.peaks[0].frequency - (centre - 7321.5))).toBeLessThan(e.binWidth / 50);
        expect(Math.abs(e.peaks[0].level - HALF_DBFS)).toBeLessThan(0.1);
      }
    }
  });

  it('reports several tones strongest first, honours the count and the floor', async () => {
    const gen: GeneratorOptions = {
      sampleRate: FS,
      tones: [
        { frequency: 440, amplitude: 0.1 },
        { frequency: 5000.3, amplitude: 0.5 },
        { frequency: 12345.6, amplitude: 0.01 },
      ],
      noise: { rms: 1e-4 },
      seed: 1,
    };
    const expected = [
      { f: 5000.3, db: 20 * Math.log10(0.5) },
      { f: 440, db: 20 * Math.log10(0.1) },
      { f: 12345.6, db: 20 * Math.log10(0.01) },
    ];
    const all = await runSession(gen, { fft: 4096, window: 'hann', columns: 800 }, 200);
    const last = all.events.at(-1)!;
    expect(last.peaks).toHaveLength(3);
    last.peaks.forEach((p, i) => {
      expect(Math.abs(p.frequency - expected[i].f)).toBeLessThan(last.binWidth / 50);
      expect(Math.abs(p.level - expected[i].db)).toBeLessThan(0.1);
    });
    const two = await runSession(gen, { fft: 4096, columns: 800 }, 200, { count: 2 });
    expect(two.events.at(-1)!.peaks.map((p) => Math.round(p.frequency))).toEqual([5000, 440]);
    const floor = await runSession(gen, { fft: 4096, columns: 800 }, 200, { minLevelDb: -30 });
    expect(floor.events.at(-1)!.peaks.map((p) => Math.round(p.frequency))).toEqual([5000, 440]);
  });

  it('labels no noise: white noise alone gives no peaks', async () => {
    const { events } = await runSession(
      { sampleRate: FS, noise: { rms: 0.1 }, seed: 4 },
      { fft: 8192, overlap: 0.75, columns: 1000 },
      300,
    );
    expect(events.length).toBeGreaterThan(3);
    for (const e of events) expect(e.peaks).toEqual([]);
  });

  it('sends nothing when peaks are off, and again after they are turned on', async () => {
    const off = await runSession(
      { sampleRate: FS, tones: [{ frequency: 1000, amplitude: 0.5 }], seed: 1 },
      {},
      200,
      false,
    );
    expect(off.events).toEqual([]);

    const sink = new CollectingSink();
    let blocks = 0;
    const session = new LiveSession({
      id: 4,
      backend,
      source: unpaced(createGenerator({ sampleRate: FS, tones: [{ frequency: 2000, amplitude: 0.25 }] }), {
        blocks: 400,
      }),
      analysis: { ...defaultAnalysis, fft: 1024 },
      sink,
      onBlock: () => {
        blocks++;
        if (blocks === 1) session.setPeaks({ enabled: false });
        if (blocks === 200) session.setPeaks({ enabled: true, count: 1 });
      },
    });
    sink.onRows = (m) => session.ack(m.seq);
    session.start();
    await session.done;
    const peaks = sink.events.filter((e) => e.event === 'peaks').map((e) => e.data as PeaksEvent);
    // Only from block 200 on (1 s of stream): the samples from before were not kept.
    expect(peaks.length).toBeGreaterThanOrEqual(3);
    for (const e of peaks) {
      expect(e.streamTime).toBeGreaterThan(1);
      expect(e.peaks).toHaveLength(1);
      expect(e.peaks[0].level).toBeCloseTo(20 * Math.log10(0.25), 1);
    }
    // A stopped session sends nothing more.
    const before = sink.events.length;
    await session.stop();
    expect(sink.events.slice(before).filter((e) => e.event === 'peaks')).toEqual([]);
  });

  it('keeps its buffers bounded: ≥ 250 ms or ≥ 3 frames, at most 32 segments', () => {
    const big = new LivePeaks({ fft: 65536, hop: 16384, window: 'hann', complex: false, sampleRate: FS });
    expect(big.segments).toBe(3);
    expect(big.capacity).toBe(65536 + 2 * 16384);
    const small = new LivePeaks({ fft: 2048, hop: 512, window: 'hann', complex: false, sampleRate: FS });
    expect(small.capacity).toBeGreaterThanOrEqual(0.25 * FS);
    expect(small.segments).toBeLessThanOrEqual(32);
    const tiny = new LivePeaks({ fft: 16, hop: 1, window: 'hann', complex: true, sampleRate: 2.4e6 });
    expect(tiny.segments).toBe(32);
    expect(tiny.capacity).toBeGreaterThanOrEqual(0.25 * 2.4e6 - tiny.step);
    expect(
      () => new LivePeaks({ fft: 1024, hop: 256, window: 'hann', complex: false, sampleRate: FS, count: 0 }),
    ).toThrow(/peak count/);
  });

  it('finds the median by selection', () => {
    const values = Float64Array.from({ length: 1001 }, (_, i) => ((i * 7919) % 1001) + 0.5);
    expect(median(values.slice())).toBe(500.5);
    const even = Float64Array.from([4, 1, 3, 2]);
    expect(median(even)).toBe(2.5);
  });
});

describe('peaks in the protocol', () => {
  const good: PeaksEvent = {
    session: 1,
    streamTime: 1.25,
    fft: 2048,
    binWidth: 23.4375,
    peaks: [{ frequency: 1000, level: -6.02 }],
    computeMs: 0.4,
  };

  it('accepts a well-formed peaks event and refuses malformed ones', () => {
    expect(peaksEventSchema.safeParse(good).success).toBe(true);
    const bad: unknown[] = [
      { ...good, peaks: [{ frequency: '1000', level: -6 }] },
      { ...good, peaks: [{ frequency: 1000 }] },
      { ...good, peaks: [{ frequency: Number.NaN, level: -6 }] },
      { ...good, peaks: [{ frequency: 1000, level: Infinity }] },
      { ...good, peaks: Array.from({ length: 17 }, () => ({ frequency: 1, level: -1 })) },
      { ...good, binWidth: 0 },
      { ...good, session: -1 },
      { ...good, extra: true },
      { session: 1, peaks: [] },
      null,
    ];
    for (const b of bad) expect(peaksEventSchema.safeParse(b).success).toBe(false);
  });

  it('validates setPeaks requests', () => {
    expect(requestSchemas.setPeaks.safeParse({ enabled: true, count: 5 }).success).toBe(true);
    expect(requestSchemas.setPeaks.safeParse({ enabled: 'yes' }).success).toBe(false);
    expect(requestSchemas.setPeaks.safeParse({ enabled: true, count: 17 }).success).toBe(false);
    expect(requestSchemas.setPeaks.safeParse({ enabled: true, minLevelDb: 3 }).success).toBe(false);
  });
});

describe('peaks through a connection', () => {
  it('sends peaks events as JSON the schema accepts, for a paced I/Q generator, until setPeaks turns them off', async () => {
    const engine = new Engine({ backend });
    const out: unknown[] = [];
    const conn = createEngineConnection((m: ServerMessage | ArrayBuffer) => {
      if (m instanceof ArrayBuffer) {
        const r = decodeRows(m);
        conn.receive({ type: 'ack', session: r.session, seq: r.seq });
        return;
      }
      out.push(JSON.parse(JSON.stringify(m))); // as a WebSocket or a MessagePort carries it
    });
    const reply = async (id: number): Promise<ReplyMessage> => {
      await until(() =>
        out.some((m) => (m as ReplyMessage).type === 'reply' && (m as ReplyMessage).id === id),
      );
      return out.find(
        (m) => (m as ReplyMessage).type === 'reply' && (m as ReplyMessage).id === id,
      ) as ReplyMessage;
    };
    const peaks = (): PeaksEvent[] =>
      out
        .filter((m) => (m as { event?: string }).event === 'peaks')
        .map((m) => peaksEventSchema.parse((m as { data: unknown }).data));
    const source = {
      kind: 'generator',
      complex: true,
      centerFrequency: 433.92e6,
      frequency: 5123.4,
      amplitude: 0.5,
      noise: -90,
    };
    conn.receive(
      JSON.stringify({
        type: 'request',
        id: 1,
        method: 'start',
        params: { source, analysis: { ...defaultAnalysis, fft: 1024, columns: 200 } },
      }),
    );
    expect(await reply(1)).toMatchObject({ ok: true });
    await until(() => peaks().length >= 2, 10000, 'two peaks events');
    for (const e of peaks()) {
      expect(e.peaks).toHaveLength(1);
      expect(Math.abs(e.peaks[0].frequency - (433.92e6 + 5123.4))).toBeLessThan(e.binWidth / 50);
      expect(Math.abs(e.peaks[0].level - HALF_DBFS)).toBeLessThan(0.1);
    }
    conn.receive({ type: 'request', id: 2, method: 'setPeaks', params: { enabled: false } });
    expect(await reply(2)).toMatchObject({ ok: true });
    const sent = peaks().length;
    await new Promise((r) => setTimeout(r, 500));
    expect(peaks().length).toBe(sent);
    conn.receive({ type: 'request', id: 3, method: 'setPeaks', params: { enabled: true, count: 40 } });
    expect(await reply(3)).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    conn.close();
    await engine.dispose();
  });
});

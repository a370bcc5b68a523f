// The live session on the CPU backend: rows from a generator, the tone's column, backpressure (rows
// dropped and counted when acks stop), configure, peak reset, status and source events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { LiveSession, frequencyRange, planAnalysis } from '../../electron/engine/live/session.js';
import { defaultAnalysis, type Analysis } from '../../electron/engine/protocol/messages.js';
import { createGenerator } from '../../electron/engine/sources/generator.js';
import { pacedSource } from '../../electron/engine/sources/pace.js';
import { CollectingSink, unpaced, until } from './helpers.js';

const FS = 48000;
const TONE = 1000;
let backend: Backend;

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});

function tone(frequency = TONE, amplitude = 0.5) {
  return createGenerator({
    sampleRate: FS,
    tones: [{ frequency, amplitude }],
    noise: { rms: 1e-4 },
    seed: 3,
  });
}

/** The display column holding a frequency, by the reduction the backend documents: column c takes the
 * max of bins ⌊c·bins/width⌋ … ⌊(c+1)·bins/width⌋ − 1. */
function columnOf(f: number, analysis: Analysis): number {
  const bins = Math.floor(analysis.fft / 2) + 1;
  const width = Math.min(analysis.columns, bins);
  const bin = Math.round((f * analysis.fft) / FS);
  for (let c = 0; c < width; c++) {
    if (Math.floor((c * bins) / width) <= bin && bin < Math.floor(((c + 1) * bins) / width)) return c;
  }
  throw new Error('no column');
}

function argmax(a: Float32Array, from = 0, n = a.length): number {
  let best = from;
  for (let i = from; i < from + n; i++) if (a[i] > a[best]) best = i;
  return best - from;
}

describe('live session', () => {
  it('sends rows whose brightest column is the tone, at the tone level', async () => {
    const analysis: Analysis = { ...defaultAnalysis, fft: 2048, overlap: 0.75, columns: 512 };
    const sink = new CollectingSink();
    sink.onRows = (m) => session.ack(m.seq);
    const session = new LiveSession({
      id: 7,
      backend,
      source: unpaced(tone(), { blocks: 200 }),
      analysis,
      sink,
    });
    session.start();
    await session.done;
    const info = session.info();
    expect(info.width).toBe(512);
    expect(info.hop).toBe(512);
    expect(info.bins).toBe(1025);
    expect(info.enbw).toBeCloseTo(1.5, 9); // the default window, hann
    expect(info.frequencyRange).toEqual([0, 24000]);
    const frames = session.stats().frames;
    expect(frames).toBe(200 * 240); // 5 ms blocks at 48 kHz
    const expectedRows = Math.floor((frames - 2048) / 512) + 1;
    const total = sink.messages.reduce((s, m) => s + m.count, 0);
    expect(total).toBe(expectedRows);
    expect(session.stats().droppedRows).toBe(0);
    const col = columnOf(TONE, analysis);
    for (const m of sink.messages) {
      expect(m.session).toBe(7);
      for (let r = 0; r < m.count; r++) {
        expect(argmax(m.rows, r * m.width, m.width)).toBe(col);
        // Hann's scalloping loss is at most 1.42 dB; a 0.5 sine is −6.02 dBFS.
        const level = m.rows[r * m.width + col];
        expect(level).toBeGreaterThan(-6.02 - 1.5);
        expect(level).toBeLessThan(-6.02 + 0.05);
      }
    }
    // Stream time of each message: its first frame × hop / rate; sequence numbers count up from 0.
    sink.messages.forEach((m, i) => {
      expect(m.seq).toBe(i);
      expect(m.streamTime).toBeCloseTo((m.firstFrame * 512) / FS, 9);
    });
    expect(sink.sourceEvents().map((e) => e.state)).toEqual(['running', 'ended']);
  });

  it('drops and counts rows when the display stops acknowledging, never queues them', async () => {
    const analysis: Analysis = { ...defaultAnalysis, fft: 1024, overlap: 0.5, columns: 256 };
    const sink = new CollectingSink();
    const session = new LiveSession({
      id: 8,
      backend,
      source: unpaced(tone(), { blocks: 400 }),
      analysis,
      sink,
      maxInFlight: 4,
    });
    session.start();
    await session.done;
    const stats = session.stats();
    const sentRows = sink.messages.reduce((s, m) => s + m.count, 0);
    expect(sink.messages.length).toBe(4);
    expect(stats.rows).toBe(Math.floor((stats.frames - 1024) / 512) + 1);
    expect(stats.droppedRows).toBe(stats.rows - sentRows);
    expect(stats.droppedRows).toBeGreaterThan(100);
  });

  it('sends again once acknowledged (acks are cumulative)', async () => {
    const analysis: Analysis = { ...defaultAnalysis, fft: 1024, overlap: 0.5, columns: 256 };
    const sink = new CollectingSink();
    let acked = false;
    sink.onRows = (m) => {
      // Acknowledge everything once, when the window is full: sending resumes.
      if (m.seq === 2 && !acked) {
        acked = true;
        session.ack(2);
      }
    };
    const session = new LiveSession({
      id: 9,
      backend,
      source: unpaced(tone(), { blocks: 200 }),
      analysis,
      sink,
      maxInFlight: 3,
    });
    session.start();
    await session.done;
    expect(sink.messages.length).toBe(6);
    expect(sink.messages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    const stats = session.stats();
    expect(stats.droppedRows).toBe(stats.rows - sink.messages.reduce((s, m) => s + m.count, 0));
  });

  it('reconfigures on the fly: any FFT size, a new width, rows of the new shape', async () => {
    const analysis: Analysis = { ...defaultAnalysis, fft: 2048, overlap: 0.75, columns: 512 };
    const sink = new CollectingSink();
    let info2: ReturnType<LiveSession['info']> | null = null;
    const next: Analysis = { ...analysis, fft: 1000, overlap: 0.5, window: 'kaiser:8', columns: 4096 };
    sink.onRows = (m) => {
      session.ack(m.seq);
      if (m.seq === 3)
        info2 = session.configure({ fft: 1000, overlap: 0.5, window: 'kaiser:8', columns: 4096 });
    };
    const session = new LiveSession({
      id: 10,
      backend,
      source: unpaced(tone(), { blocks: 300 }),
      analysis,
      sink,
    });
    session.start();
    await session.done;
    expect(info2).not.toBeNull();
    const i2 = info2!;
    expect(i2.fft).toBe(1000);
    expect(i2.hop).toBe(500);
    expect(i2.bins).toBe(501);
    expect(i2.width).toBe(501); // columns beyond the bins: one per bin
    expect(i2.frequencyRange).toEqual([0, 24000]);
    const later = sink.messages.filter((m) => m.width === 501);
    expect(later.length).toBeGreaterThan(5);
    expect(sink.messages.slice(0, 4).every((m) => m.width === 512)).toBe(true);
    const col = columnOf(TONE, next);
    for (const m of later)
      for (let r = 0; r < m.count; r++) expect(argmax(m.rows, r * m.width, m.width)).toBe(col);
    // The new processor's stream time continues the stream (frames before it are counted).
    const first = later[0];
    expect(first.streamTime).toBeGreaterThan(sink.messages[3].streamTime);
  });

  it('holds the peak of every row and resets it on request', async () => {
    const analysis: Analysis = { ...defaultAnalysis, fft: 512, overlap: 0, columns: 257 };
    const sink = new CollectingSink();
    const running = new Float32Array(257).fill(-Infinity);
    let afterReset: number | null = null;
    sink.onRows = (m) => {
      session.ack(m.seq);
      if (afterReset === null) {
        for (let i = 0; i < m.count * m.width; i++)
          running[i % m.width] = Math.max(running[i % m.width], m.rows[i]);
        expect(Array.from(m.peak!)).toEqual(Array.from(running));
        if (m.seq === 5) {
          session.resetPeak();
          afterReset = m.seq + 1;
        }
      }
    };
    // Noise only: each row differs, so a peak that was not reset would show.
    const noise = createGenerator({ sampleRate: FS, noise: { rms: 0.1 }, seed: 11 });
    const session = new LiveSession({
      id: 11,
      backend,
      source: unpaced(noise, { blocks: 40 }),
      analysis,
      sink,
    });
    session.start();
    await session.done;
    const m = sink.messages.find((x) => x.seq === afterReset)!;
    const own = new Float32Array(m.width).fill(-Infinity);
    for (let i = 0; i < m.count * m.width; i++) own[i % m.width] = Math.max(own[i % m.width], m.rows[i]);
    expect(Array.from(m.peak!)).toEqual(Array.from(own));
    expect(m.average).toBeDefined();
  });

  it('reports status about the backend, rate and counts', async () => {
    const sink = new CollectingSink();
    sink.onRows = (m) => session.ack(m.seq);
    const session = new LiveSession({
      id: 12,
      backend,
      source: unpaced(tone(), { blocks: 100 }),
      analysis: defaultAnalysis,
      sink,
      statusIntervalMs: 20,
    });
    session.start();
    await session.done;
    const status = sink.events.filter((e) => e.event === 'status').map((e) => e.data);
    expect(status.length).toBeGreaterThan(0);
    const last = status[status.length - 1] as {
      session: number;
      backend: string;
      sampleRate: number;
      droppedRows: number;
      computeMs: number;
    };
    expect(last.session).toBe(12);
    expect(last.backend).toBe('cpu');
    expect(last.sampleRate).toBe(FS);
    expect(last.droppedRows).toBe(0);
    const all = status as Array<{ blocksPerSecond: number; computeMs: number }>;
    expect(all.some((s) => s.blocksPerSecond > 0 && s.computeMs > 0)).toBe(true);
  });

  it('turns a failing source into a source error event, not an exception', async () => {
    const sink = new CollectingSink();
    const session = new LiveSession({
      id: 13,
      backend,
      source: unpaced(tone(), { failAfter: 5 }),
      analysis: defaultAnalysis,
      sink,
    });
    session.start();
    await session.done;
    const events = sink.sourceEvents();
    expect(events.map((e) => e.state)).toEqual(['running', 'error']);
    expect(events[1].message).toMatch(/the test source broke/);
    await session.stop();
  });

  it('stops promptly and closes its source', async () => {
    let closed = false;
    const gen = tone();
    const src = unpaced({
      info: gen.info,
      blocks: (o) => gen.blocks(o),
      close: async () => void (closed = true),
    });
    const sink = new CollectingSink();
    sink.onRows = (m) => session.ack(m.seq);
    const session = new LiveSession({ id: 14, backend, source: src, analysis: defaultAnalysis, sink });
    session.start();
    await until(() => sink.messages.length > 3, 10000, 'rows');
    await session.stop();
    expect(closed).toBe(true);
    const n = sink.messages.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(sink.messages.length).toBe(n);
    expect(sink.sourceEvents().map((e) => e.state)).toEqual(['running']);
  });

  it('refuses bad analysis settings with the constraint named', () => {
    expect(() => planAnalysis({ ...defaultAnalysis, window: 'triangle' }, { complex: false })).toThrow(
      /window/,
    );
    expect(() => planAnalysis({ ...defaultAnalysis, fft: 8 }, { complex: false })).toThrow(/fft/);
    expect(() => planAnalysis({ ...defaultAnalysis, fft: 300000 }, { complex: false })).toThrow(/fft/);
    const p = planAnalysis(
      { ...defaultAnalysis, fft: 262144, overlap: 0.5, columns: 16384 },
      { complex: true },
    );
    expect(p).toMatchObject({ fft: 262144, hop: 131072, bins: 262144, width: 16384 });
    // Complex: fftshift order around the centre.
    expect(
      frequencyRange(p, { sampleRate: 2.4e6, complex: true, channels: 1, centerFrequency: 100e6 }),
    ).toEqual([100e6 - 1.2e6, 100e6 + 1.2e6 - 2.4e6 / 262144]);
  });

  it('gives the equivalent noise bandwidth of a window in bins, as SciPy has it', () => {
    // N·Σw²/(Σw)² of scipy.signal.get_window(name, 4096) (periodic), in float64.
    const scipy: Record<string, number> = {
      hann: 1.5,
      rectangular: 1,
      blackmanharris: 2.0043529382170475,
      flattop: 3.7702464474434287,
    };
    for (const [window, enbw] of Object.entries(scipy)) {
      expect(planAnalysis({ ...defaultAnalysis, fft: 4096, window }, { complex: false }).enbw).toBeCloseTo(
        enbw,
        9,
      );
    }
  });
});

describe('live session start-up', () => {
  it('starts without drops or a broadband skirt in the peak hold when the first backend call is slow', async () => {
    // The backend's first push takes 600 ms, as a pipeline warming up does (worker start-up, JIT, plans):
    // the paced generator must not count that as a stall, nor cut its signal inside a frame. The pacer
    // runs on a clock that only sleeping and that first push move, so the test does not depend on the
    // machine's speed.
    const clock = { t: 0, now: () => clock.t, sleep: async (ms: number) => void (clock.t += ms) };
    const slow: Backend = new Proxy(backend, {
      get(target, key) {
        if (key === 'createSpectrogram') {
          return (config: Parameters<Backend['createSpectrogram']>[0]) => {
            const proc = target.createSpectrogram(config);
            const push = proc.push.bind(proc);
            let first = true;
            proc.push = async (samples, into) => {
              if (first) {
                first = false;
                clock.t += 600;
              }
              return push(samples, into);
            };
            return proc;
          };
        }
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const analysis: Analysis = { ...defaultAnalysis, fft: 2048, overlap: 0.5, window: 'blackmanharris' };
    // On bin 44, and not a whole number of cycles per 5 ms block (a skip would cut it).
    const f = (44 * FS) / analysis.fft;
    const gen = createGenerator({ sampleRate: FS, tones: [{ frequency: f, amplitude: 0.5 }] });
    const sink = new CollectingSink();
    sink.onRows = (m) => session.ack(m.seq);
    const session = new LiveSession({
      id: 1,
      backend: slow,
      source: pacedSource(gen, { label: 'tone', now: clock.now, sleep: clock.sleep }),
      analysis,
      sink,
    });
    session.start();
    await until(() => session.stats().frames >= FS, 20_000, 'a second of stream');
    await session.stop();
    const stats = session.stats();
    expect(stats.droppedBlocks).toBe(0);
    expect(stats.droppedRows).toBe(0);
    // Every row, in order, from frame 0: nothing skipped.
    const frames = sink.messages.flatMap((m) => Array.from({ length: m.count }, (_, i) => m.firstFrame + i));
    expect(frames).toEqual(frames.map((_, i) => i));
    // The peak hold after every message: the tone at −6.02 dBFS (amplitude 0.5) where it is, and the
    // columns more than 8 bins away at Blackman-Harris's far side lobes, far below any skirt a cut makes.
    const tone = 44;
    for (const m of sink.messages) {
      const peak = m.peak!;
      expect(peak[tone]).toBeGreaterThan(-6.02 - 1.5);
      let far = -Infinity;
      for (let c = 0; c < peak.length; c++) if (Math.abs(c - tone) > 8) far = Math.max(far, peak[c]);
      expect(far).toBeLessThan(-100);
    }
  }, 30_000);
});

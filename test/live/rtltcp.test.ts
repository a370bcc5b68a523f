// The rtl_tcp client against a fake rtl_tcp server speaking the real protocol (test/support/fake-rtltcp.ts):
// setup commands, a carrier at its absolute frequency, retune, reconnects, stalls, a slow consumer, odd
// TCP chunks, errors a person can act on, and the rtl_tcp kind.
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { findPeaks, welch } from '../../electron/engine/dsp/index.js';
import { isRawSamples, type SampleBlock } from '../../electron/engine/types.js';
import type { LiveBlock } from '../../electron/engine/sources/live-source.js';
import { sourceKinds } from '../../electron/engine/sources/kinds.js';
import { openRtlTcp, type RtlTcpOptions, type RtlTcpSource } from '../../electron/engine/sources/rtltcp.js';
import { snapGain } from '../../electron/engine/sources/rtltcp-gains.js';
import { startFakeRtlTcp, type FakeRtlTcp, type FakeRtlTcpOptions } from '../support/fake-rtltcp.js';

let backend: Backend;
beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CENTER = 100e6;
const RATE = 1_024_000;

async function fake(options: FakeRtlTcpOptions = {}): Promise<FakeRtlTcp> {
  const f = await startFakeRtlTcp({ centerFrequency: CENTER, sampleRate: RATE, ...options });
  cleanups.push(() => f.close());
  return f;
}

async function open(f: FakeRtlTcp, options: Partial<RtlTcpOptions> = {}): Promise<RtlTcpSource> {
  const s = await openRtlTcp({
    host: f.host,
    port: f.port,
    centerFrequency: CENTER,
    sampleRate: RATE,
    reconnectDelayMs: 20,
    ...options,
  });
  cleanups.push(() => s.close());
  return s;
}

/** The next `n` blocks (or fewer when the stream ends); `until` may stop early. */
async function take(
  it: AsyncIterator<LiveBlock>,
  n: number,
  until?: (b: LiveBlock) => boolean,
): Promise<LiveBlock[]> {
  const out: LiveBlock[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
    if (until?.(r.value)) break;
  }
  return out;
}

/** The strongest peak (absolute Hz when the blocks carry a centre). */
async function peakOf(blocks: SampleBlock[]): Promise<number> {
  async function* gen(): AsyncGenerator<SampleBlock> {
    yield* blocks;
  }
  const spectrum = await welch(backend, gen(), { nperseg: 1024 });
  return findPeaks(spectrum, { count: 1 })[0].frequency;
}

function rawBytes(blocks: LiveBlock[]): Uint8Array {
  const parts = blocks.map((b) => {
    if (!isRawSamples(b.data)) throw new Error('expected raw blocks');
    return b.data.data as Uint8Array;
  });
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('rtl_tcp source', () => {
  it('sends the setup on connect: rate, frequency, ppm (negative too), gain mode before the gain', async () => {
    const f = await fake();
    const s = await open(f, { ppm: -3, gain: 19.9, agc: true, directSampling: 2 });
    await f.waitForCommands(8);
    const byCmd = (cmd: number) => f.commands.filter((c) => c.cmd === cmd);
    expect(byCmd(0x01)).toEqual([{ cmd: 1, value: CENTER, signed: CENTER }]);
    expect(byCmd(0x02)[0].value).toBe(RATE);
    expect(byCmd(0x05)[0].signed).toBe(-3);
    expect(byCmd(0x05)[0].value).toBe(0xfffffffd);
    expect(byCmd(0x08)[0].value).toBe(1);
    expect(byCmd(0x09)[0].value).toBe(2);
    // Manual mode first, then 19.7 dB (the R820T step nearest 19.9) in tenths of a dB.
    const mode = f.commands.findIndex((c) => c.cmd === 0x03);
    const gain = f.commands.findIndex((c) => c.cmd === 0x04);
    expect(f.commands[mode].value).toBe(1);
    expect(f.commands[gain].value).toBe(197);
    expect(mode).toBeLessThan(gain);
    // Bias tee only when asked (forks read 0x0e as bandwidth).
    expect(byCmd(0x0e)).toEqual([]);
    expect(s.label).toBe(`rtl_tcp://127.0.0.1:${f.port} (R820T)`);
    expect(s.link()).toMatchObject({ state: 'connected', reconnects: 0, droppedSamples: 0 });
    expect(s.info).toMatchObject({
      container: 'live',
      encoding: 'cu8',
      complex: true,
      channels: 1,
      sampleRate: RATE,
      centerFrequency: CENTER,
    });
  });

  it('snaps a manual gain to the connected tuner, auto gain sends mode 0 and no gain', async () => {
    const e4000 = await fake({ tunerType: 1 });
    await open(e4000, { gain: 20, biasTee: true });
    await e4000.waitForCommands(9);
    expect(e4000.commands.find((c) => c.cmd === 0x04)?.value).toBe(190);
    expect(e4000.commands.find((c) => c.cmd === 0x0e)?.value).toBe(1);
    const unknown = await fake({ tunerType: 0, gainCount: 0 });
    await open(unknown, { gain: 20.04 });
    await unknown.waitForCommands(8);
    expect(unknown.commands.find((c) => c.cmd === 0x04)?.value).toBe(200);
    const auto = await fake();
    await open(auto);
    await auto.waitForCommands(7);
    expect(auto.commands.find((c) => c.cmd === 0x03)?.value).toBe(0);
    expect(auto.commands.some((c) => c.cmd === 0x04)).toBe(false);
    expect(snapGain(5, 100)).toBe(496);
    expect(snapGain(2, -20)).toBe(-99);
  });

  it('shows a carrier at its absolute frequency, and follows a retune without reconnecting', async () => {
    const f = await fake({ carrier: CENTER + 300e3, noise: 0.02 });
    const s = await open(f);
    const it = s.blocks({ raw: true })[Symbol.asyncIterator]();
    await f.waitForCommands(7);
    await take(it, 10); // bytes sent before the setup arrived
    const before = await take(it, 40);
    expect(before.every((b) => b.format.centerFrequency === CENTER)).toBe(true);
    expect(Math.abs((await peakOf(before)) - f.carrier)).toBeLessThanOrEqual(1000);

    await s.retune(CENTER + 200e3);
    expect(s.info.centerFrequency).toBe(CENTER + 200e3);
    await f.waitForCommands(f.commands.length + (f.centerFrequency === CENTER + 200e3 ? 0 : 1));
    expect(f.centerFrequency).toBe(CENTER + 200e3);
    // Skip what was in flight when the command arrived: everything read by then.
    await new Promise((r) => setTimeout(r, 150));
    while (s.queuedFrames > 0) await it.next();
    const after = await take(it, 40);
    expect(after.every((b) => b.format.centerFrequency === CENTER + 200e3)).toBe(true);
    // The same carrier, now 100 kHz above the centre, still reads at its absolute frequency.
    expect(Math.abs((await peakOf(after)) - f.carrier)).toBeLessThanOrEqual(1000);
    expect(f.connections).toBe(1);
    expect(s.link().reconnects).toBe(0);
  });

  it('decodes float32 blocks as (x − 127.5) / 127.5 and hands raw blocks over as the bytes sent', async () => {
    const f = await fake({ chunkBytes: 777 }); // odd pieces: half an I/Q pair at every other boundary
    const s = await open(f);
    const blocks = await take(s.blocks({ raw: true })[Symbol.asyncIterator](), 30);
    const bytes = rawBytes(blocks);
    const cycle = f.cycle();
    expect(bytes.length).toBeGreaterThan(cycle.length / 4);
    let same = true;
    for (let i = 0; i < bytes.length && same; i++) same = bytes[i] === cycle[i % cycle.length];
    expect(same).toBe(true);
    // Blocks are consecutive from frame 0.
    let next = 0;
    for (const b of blocks) {
      expect(b.start).toBe(next);
      next += b.frames;
    }
    // I and Q never swapped: the carrier is above the centre, not mirrored below it.
    expect(Math.abs((await peakOf(blocks)) - f.carrier)).toBeLessThanOrEqual(1000);
    await s.close();

    const g = await fake({ chunkBytes: 333 });
    const t = await open(g);
    const [b] = await take(t.blocks()[Symbol.asyncIterator](), 1);
    const data = b.data as Float32Array;
    expect(data).toBeInstanceOf(Float32Array);
    const gc = g.cycle();
    for (let i = 0; i < data.length; i++) {
      if (data[i] !== Math.fround((gc[i % gc.length] - 127.5) / 127.5)) throw new Error(`value ${i}`);
    }
  });

  it('reconnects a dropped connection, sends the setup again, and the stream goes on', async () => {
    for (const dropMode of ['close', 'reset'] as const) {
      const f = await fake({ dropAfter: 200_000, dropMode });
      const s = await open(f, { ppm: 5 });
      const it = s.blocks({ raw: true })[Symbol.asyncIterator]();
      const blocks = await take(it, 400, () => s.link().reconnects > 0);
      expect(s.link().reconnects).toBe(1);
      const more = await take(it, 20);
      expect(more).toHaveLength(20);
      expect(s.link()).toMatchObject({ state: 'connected', reconnects: 1 });
      expect(f.connections).toBe(2);
      expect(f.commands.filter((c) => c.cmd === 0x05).map((c) => c.signed)).toEqual([5, 5]);
      // `start` jumps over the time the link was down; nothing is invented in between.
      const all = [...blocks, ...more];
      let jumps = 0;
      for (let i = 1; i < all.length; i++) {
        const gap = all[i].start - (all[i - 1].start + all[i - 1].frames);
        expect(gap).toBeGreaterThanOrEqual(0);
        if (gap > 0) jumps++;
      }
      expect(jumps).toBeLessThanOrEqual(1);
      await s.close();
    }
  });

  it('does not hang on a stalled server: it reconnects, and resumes when data flows again', async () => {
    const f = await fake();
    const s = await open(f, { stallMs: 150 });
    const it = s.blocks({ raw: true })[Symbol.asyncIterator]();
    await take(it, 5);
    f.stall(true);
    const t0 = performance.now();
    while (f.connections < 2 && performance.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(f.connections).toBeGreaterThanOrEqual(2);
    f.stall(false);
    const more = await take(it, 200, () => s.link().reconnects > 0 && s.link().state === 'connected');
    expect(more.length).toBeGreaterThan(0);
    expect(s.link().reconnects).toBeGreaterThanOrEqual(1);
    expect(await take(it, 5)).toHaveLength(5);
  });

  it('gives up after the reconnection attempts and blocks() throws one line', async () => {
    const f = await fake();
    const s = await open(f, { maxReconnects: 2, reconnectDelayMs: 10 });
    const it = s.blocks()[Symbol.asyncIterator]();
    await take(it, 2);
    await f.close();
    const err = await (async () => {
      try {
        for (;;) if ((await it.next()).done) return undefined;
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toMatch(
      new RegExp(
        `^rtl_tcp://127\\.0\\.0\\.1:${f.port}: connection refused \\(gave up after 2 reconnection attempts\\)$`,
      ),
    );
    expect(s.link().state).toBe('failed');
  });

  it('keeps a bounded queue for a slow consumer, dropping and counting the oldest frames', async () => {
    const f = await fake({ paced: false, sampleRate: 2_048_000 });
    const s = await open(f, { sampleRate: 2_048_000, maxQueueSeconds: 0.1 });
    const rss0 = process.memoryUsage().rss;
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 40));
      peak = Math.max(peak, s.queuedFrames);
    }
    expect(f.bytesSent).toBeGreaterThan(20e6); // far more than the queue holds
    expect(peak).toBeLessThanOrEqual(s.maxQueuedFrames);
    expect(s.maxQueuedFrames).toBeLessThanOrEqual(0.1 * 2_048_000);
    expect(s.droppedSamples).toBeGreaterThan(0);
    expect(s.droppedBlocks).toBeGreaterThan(0);
    expect(s.link().droppedSamples).toBe(s.droppedSamples);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200e6);
    // What was dropped shows as a jump in `start`: everything before the first block pulled.
    const it = s.blocks({ raw: true })[Symbol.asyncIterator]();
    const dropped = s.droppedSamples;
    const [first] = await take(it, 1);
    expect(first.start).toBe(dropped);
  });

  it('closes promptly: blocks() ends and the connection goes', async () => {
    const f = await fake();
    const s = await open(f);
    const it = s.blocks()[Symbol.asyncIterator]();
    await take(it, 2);
    const pending = take(it, 1e6);
    await s.close();
    await pending;
    const t0 = performance.now();
    while (f.open > 0 && performance.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 10));
    expect(f.open).toBe(0);
  });

  it('refuses a peer that is not rtl_tcp, a closed port, an unknown host and a silent peer in one line', async () => {
    const http = await fake({
      greeting: Buffer.from('HTTP/1.1 400 Bad Request\r\nX: \x01\r\n\r\n', 'latin1'),
    });
    const e1 = openRtlTcp({ host: '127.0.0.1', port: http.port, centerFrequency: CENTER, sampleRate: RATE });
    await expect(e1).rejects.toThrow(
      `rtl_tcp://127.0.0.1:${http.port}: not an rtl_tcp server (it sent "HTTP/1.1 400 Bad Request\\r\\nX: \\x01\\r\\n\\r\\n" instead of "RTL0")`,
    );

    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', () => r()));
    const port = (free.address() as { port: number }).port;
    await new Promise<void>((r) => free.close(() => r()));
    await expect(
      openRtlTcp({ host: '127.0.0.1', port, centerFrequency: CENTER, sampleRate: RATE }),
    ).rejects.toThrow(new RegExp(`^rtl_tcp://127\\.0\\.0\\.1:${port}: connection refused$`));
    await expect(
      openRtlTcp({ host: '[::1]', port, centerFrequency: CENTER, sampleRate: RATE }),
    ).rejects.toThrow(new RegExp(`^rtl_tcp://\\[::1\\]:${port}: `));

    await expect(
      openRtlTcp({ host: 'no-such-host.invalid', port: 1234, centerFrequency: CENTER, sampleRate: RATE }),
    ).rejects.toThrow(/^rtl_tcp:\/\/no-such-host\.invalid:1234: (unknown host|host name lookup failed)/);

    const silent = await fake({ greeting: new Uint8Array(0) });
    const e4 = openRtlTcp({
      host: '127.0.0.1',
      port: silent.port,
      centerFrequency: CENTER,
      sampleRate: RATE,
      connectTimeoutMs: 200,
    });
    await expect(e4).rejects.toThrow(/^rtl_tcp:\/\/127\.0\.0\.1:\d+: no rtl_tcp greeting within 0\.2 s/);
    for (const p of [e1, e4]) {
      const message = await p.catch((e: Error) => e.message);
      expect(String(message)).not.toMatch(/\n/);
    }
    await expect(
      openRtlTcp({ host: '127.0.0.1', port: 70000, centerFrequency: CENTER, sampleRate: RATE }),
    ).rejects.toThrow(/port must be 1 to 65535/);
  });
});

describe('the rtl_tcp kind', () => {
  it('parses rtl_tcp://HOST:PORT, [IPv6] and a bare host, and refuses the rest', () => {
    expect(sourceKinds.fromSpec('rtl_tcp://192.168.1.5:5000')).toMatchObject({
      kind: 'rtl_tcp',
      host: '192.168.1.5',
      port: 5000,
      centerFrequency: 100e6,
      sampleRate: 2048000,
      gain: 'auto',
      ppm: 0,
    });
    expect(sourceKinds.fromSpec('rtl_tcp://[::1]:1234')).toMatchObject({ host: '::1', port: 1234 });
    expect(sourceKinds.fromSpec('rtl_tcp://sdr.local')).toMatchObject({ host: 'sdr.local', port: 1234 });
    expect(() => sourceKinds.fromSpec('rtl_tcp://::1')).toThrow(/rtl_tcp:\/\/\[::1\]:1234/);
    expect(() => sourceKinds.fromSpec('rtl_tcp://host:99999')).toThrow(/port/);
    expect(() => sourceKinds.fromSpec('rtl_tcp:host')).toThrow(/rtl_tcp:\/\/HOST/);
  });

  it('validates its parameters with ranges, gain as auto or dB', () => {
    expect(sourceKinds.parse({ kind: 'rtl_tcp', gain: 19.7, ppm: -12 })).toMatchObject({
      gain: 19.7,
      ppm: -12,
    });
    expect(sourceKinds.parse({ kind: 'rtl_tcp', gain: '28' })).toMatchObject({ gain: 28 });
    expect(() => sourceKinds.parse({ kind: 'rtl_tcp', sampleRate: 500000 })).toThrow(/sampleRate/);
    expect(() => sourceKinds.parse({ kind: 'rtl_tcp', gain: 'loud' })).toThrow(/gain/);
    expect(() => sourceKinds.parse({ kind: 'rtl_tcp', directSampling: 3 })).toThrow(/directSampling/);
    expect(() => sourceKinds.parse({ kind: 'rtl_tcp', ppm: 0.5 })).toThrow(/ppm/);
  });

  it('is described as tunable, with notes on the gain and the bias tee', async () => {
    const kinds = await sourceKinds.describe();
    const k = kinds.find((x) => x.kind === 'rtl_tcp')!;
    expect(k.tunable).toBe(true);
    expect(kinds.find((x) => x.kind === 'generator')!.tunable).toBeUndefined();
    const field = (name: string) => k.fields.find((f) => f.name === name)!;
    expect(k.fields.map((f) => f.name)).toEqual([
      'host',
      'port',
      'centerFrequency',
      'sampleRate',
      'gain',
      'ppm',
      'agc',
      'directSampling',
      'offsetTuning',
      'biasTee',
    ]);
    expect(field('gain').note).toMatch(/tuner/);
    expect(field('biasTee').note).toMatch(/0x0e/);
    expect(field('gain').options?.[0]).toEqual({ value: 'auto', label: 'auto' });
    expect(field('sampleRate').options?.map((o) => o.value)).toContain(3200000);
  });

  it('opens a source through the registry', async () => {
    const f = await fake({ sampleRate: 2_048_000 });
    const s = (await sourceKinds.open({ kind: 'rtl_tcp', host: '127.0.0.1', port: f.port })) as RtlTcpSource;
    cleanups.push(() => s.close());
    expect(s.label).toBe(`rtl_tcp://127.0.0.1:${f.port} (R820T)`);
    expect(s.link().detail).toBe(`rtl_tcp://127.0.0.1:${f.port}, R820T`);
    expect(typeof s.retune).toBe('function');
  });
});

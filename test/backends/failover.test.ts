// A backend that fails while running hands its work to the next one: no block is lost, and the switch is
// reported (never silent).
import { afterAll, describe, expect, it } from 'vitest';
import type {
  Backend,
  Correlator,
  FirFilter,
  ProcessorInput,
  SpectrogramProcessor,
} from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import { openBackend, type BackendProvider } from '../../electron/engine/backends/registry.js';
import {
  BackendFailedError,
  InvalidArgumentError,
  type PhasorWarning,
} from '../../electron/engine/errors.js';
import { noise } from '../support/signals.js';

/** A CPU backend posing as 'cuda' that fails (sticky) from its `failAt`-th call on, processors included. */
function flaky(inner: Backend, failAt: number): Backend {
  let calls = 0;
  const tick = () => {
    if (++calls >= failAt)
      throw new BackendFailedError('cuda', 'an illegal memory access was encountered', { sticky: true });
  };
  const wrap = <T extends object>(obj: T, methods: string[]): T =>
    new Proxy(obj, {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv);
        if (typeof v === 'function' && methods.includes(String(prop))) {
          return async (...args: unknown[]) => {
            tick();
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return {
    name: 'cuda',
    device: 'flaky test device',
    upload: (d) => inner.upload(d),
    fft: async (...a) => (tick(), inner.fft(...a)),
    rfft: async (...a) => (tick(), inner.rfft(...a)),
    irfft: async (...a) => (tick(), inner.irfft(...a)),
    createSpectrogram: (c) => wrap<SpectrogramProcessor>(inner.createSpectrogram(c), ['push']),
    createFir: (c) => wrap<FirFilter>(inner.createFir(c), ['process', 'flush']),
    createCorrelator: (c) => wrap<Correlator>(inner.createCorrelator(c), ['process', 'flush']),
    dispose: async () => undefined,
  };
}

const cpus: Backend[] = [];
afterAll(async () => {
  for (const b of cpus) await b.dispose();
});

async function chain(failAt: number, warnings: PhasorWarning[]): Promise<Backend> {
  const cpuInner = await createCpuBackend({ threads: 1 });
  cpus.push(cpuInner);
  const providers: BackendProvider[] = [
    {
      name: 'cuda',
      probe: async () => ({ available: true, device: 'x' }),
      create: async () => flaky(cpuInner, failAt),
    },
    {
      name: 'cpu',
      probe: async () => ({ available: true, device: 'cpu' }),
      create: async () => {
        const b = await createCpuBackend({ threads: 1 });
        cpus.push(b);
        return b;
      },
    },
  ];
  return FailoverBackend.open(providers, (w) => warnings.push(w));
}

function blocks(x: Float32Array, sizes: number[]): Float32Array[] {
  const out: Float32Array[] = [];
  let o = 0;
  for (let i = 0; o < x.length; i++) {
    const n = Math.min(sizes[i % sizes.length], x.length - o);
    out.push(x.subarray(o, o + n));
    o += n;
  }
  return out;
}

function relErr(a: Float32Array, b: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
}

function cat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('failover to the next backend', () => {
  const x = Float32Array.from(noise(200_000, 42));

  it('redoes a failed FFT on the CPU and reports the switch', async () => {
    const warnings: PhasorWarning[] = [];
    const b = await chain(2, warnings);
    const first = await b.fft(x.subarray(0, 2048), 1024);
    expect(b.name).toBe('cuda');
    const second = await b.fft(x.subarray(0, 2048), 1024); // fails on the flaky backend, redone on cpu
    expect(b.name).toBe('cpu');
    expect(relErr(second, first)).toBeLessThan(1e-6);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/illegal memory access.*continuing on cpu/);
  });

  it("a correlator reports its current inner correlator's pushBytes", async () => {
    const b = await chain(100, []);
    const c = b.createCorrelator({ template: new Float32Array([1, 2, 3]), complex: false, peaks: 1 });
    expect(c.pushBytes).toBeUndefined(); // the CPU's correlators take any push size
    const inner = (c as unknown as { inner: object }).inner;
    Object.defineProperty(inner, 'pushBytes', { value: 16 << 20 });
    expect(c.pushBytes).toBe(16 << 20);
    c.dispose();
  });

  it('does not fail over on a bad argument', async () => {
    const b = await chain(100, []);
    await expect(b.fft(new Float32Array(10), 4)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(b.name).toBe('cuda');
  });

  for (const failAt of [1, 3, 6]) {
    it(`keeps a FIR stream exact when the backend fails at call ${failAt}`, async () => {
      const taps = Float32Array.from(noise(301, 5), (v) => v / 30);
      const ref = await (async () => {
        const c = await createCpuBackend({ threads: 1 });
        cpus.push(c);
        const f = c.createFir({ taps, complex: false, channels: 1 });
        return cat([await f.process(x), await f.flush()]);
      })();
      const warnings: PhasorWarning[] = [];
      const b = await chain(failAt, warnings);
      const f = b.createFir({ taps, complex: false, channels: 1 });
      const parts: Float32Array[] = [];
      for (const blk of blocks(x, [7000, 30011, 12345])) parts.push(await f.process(blk as ProcessorInput));
      parts.push(await f.flush());
      const got = cat(parts);
      expect(got.length).toBe(x.length);
      expect(relErr(got, ref)).toBeLessThan(1e-6);
      expect(warnings.length).toBe(1);
    });
  }

  /** Spectrogram rows through a backend that fails at call `failAt` equal the CPU's, frame for frame. */
  async function spectrogramAcrossFailure(hop: number, failAt: number, sizes: number[]): Promise<void> {
    const window = new Float32Array(1000).fill(1);
    const cfg = { fft: 1000, hop, window, complex: false };
    const c = await createCpuBackend({ threads: 1 });
    cpus.push(c);
    const ref = await c.createSpectrogram(cfg).push(x);
    const b = await chain(failAt, []);
    const s = b.createSpectrogram(cfg);
    const rows: Float32Array[] = [];
    let next = 0;
    for (const blk of blocks(x, sizes)) {
      const r = await s.push(blk);
      expect(r.firstFrame).toBe(next);
      next += r.count;
      rows.push(r.rows);
    }
    expect(next).toBe(ref.count);
    const got = cat(rows);
    let maxDiff = 0;
    for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i] - ref.rows[i]));
    expect(maxDiff).toBeLessThan(1e-3); // dB
    expect(b.name).toBe('cpu'); // the failure did happen
  }

  it('keeps spectrogram frames in sequence across a failure', async () => {
    await spectrogramAcrossFailure(300, 3, [9000, 4500, 20000]);
  });

  it('keeps spectrogram frames aligned across a failure in the gap between frames (hop > fft)', async () => {
    // After the first push every kept sample lies before the next frame's start: the tail is empty,
    // and the rebuilt processor must still start its frame 0 at that frame's start, not at the input's.
    await spectrogramAcrossFailure(2500, 2, [1200, 700, 20000]);
  });

  it('keeps correlation lags and peaks across a failure', async () => {
    const t = x.slice(50_000, 52_048);
    const cfg = { template: t, complex: false, scores: true, peaks: 3 };
    const c = await createCpuBackend({ threads: 1 });
    cpus.push(c);
    const cc = c.createCorrelator(cfg);
    const ref = cat([(await cc.process(x)).scores!, (await cc.flush()).scores!]);
    const b = await chain(2, []);
    const corr = b.createCorrelator(cfg);
    const scores: Float32Array[] = [];
    let next = 0;
    let best = { lag: -1, score: 0 };
    for (const blk of [...blocks(x, [33_333, 70_000]), null]) {
      const chunk = blk ? await corr.process(blk) : await corr.flush();
      expect(chunk.startLag).toBe(next);
      next += chunk.count;
      scores.push(chunk.scores!);
      for (const p of chunk.peaks) if (p.score > best.score) best = p;
    }
    expect(next).toBe(x.length - t.length + 1);
    expect(relErr(cat(scores), ref)).toBeLessThan(1e-5);
    expect(best.lag).toBe(50_000);
    expect(b.name).toBe('cpu');
  });
});

describe('auto probes the backends after the one it opens only when the work moves to them', () => {
  it('opens cuda without probing webgpu; on a failure skips a software webgpu and continues on the cpu', async () => {
    const cpuInner = await createCpuBackend({ threads: 1 });
    cpus.push(cpuInner);
    const probes: string[] = [];
    const provider = (name: 'cuda' | 'webgpu', create: () => Promise<Backend>): BackendProvider => ({
      name,
      probe: async () => {
        probes.push(name);
        return name === 'webgpu'
          ? { available: true, device: 'SwiftShader', autoSkip: 'a software adapter' }
          : { available: true, device: 'x' };
      },
      create,
    });
    const replace = {
      cuda: provider('cuda', async () => flaky(cpuInner, 2)),
      webgpu: provider('webgpu', async () => {
        throw new Error('auto must not open a software adapter');
      }),
    };
    const warnings: PhasorWarning[] = [];
    const b = await openBackend('auto', { replace, onWarning: (w) => warnings.push(w) });
    expect(b.name).toBe('cuda');
    expect(probes).toEqual(['cuda']);
    const x = Float32Array.from([1, 0, 2, 0, 3, 0, 4, 0]);
    expect(Array.from(await b.fft(x, 4))).toEqual([10, 0, -2, 2, -2, 0, -2, -2]);
    // the second call fails: webgpu is probed now, passed over (software), and the CPU redoes the call
    expect(Array.from(await b.fft(x, 4))).toEqual([10, 0, -2, 2, -2, 0, -2, -2]);
    expect(b.name).toBe('cpu');
    expect(probes).toEqual(['cuda', 'webgpu']);
    expect(warnings.map((w) => w.message)).toEqual([
      'backend cuda failed: an illegal memory access was encountered; continuing on cpu',
    ]);
    await b.dispose();
  });
});

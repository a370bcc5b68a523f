// The WebGPU bridge in Node, over a real MessageChannel: the engine's proxy backend (bridge/client.ts)
// against the server (bridge/server.ts). With the CPU backend on the far side, every call must give the
// same numbers as the CPU backend called directly; errors cross as the engine's classes; a lost far side
// fails the backend and the failover finishes the stream on the next one. Then the real WebGpuBackend
// (Dawn) behind the bridge. The same code in headless Chromium: chromium-bridge.test.ts.
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend, BackendProvider } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import {
  connectWebGpuBridge,
  webGpuBridgeProvider,
  type BridgedWebGpuBackend,
} from '../../electron/engine/backends/webgpu/bridge/client.js';
import type { BridgePort } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import { serveBackend } from '../../electron/engine/backends/webgpu/bridge/server.js';
import { decodeFrame, encodeFrame } from '../../electron/engine/backends/webgpu/bridge/wire.js';
import { WEBGPU_FIR_DIRECT_MAX_TAPS } from '../../electron/engine/backends/webgpu/fir.js';
import { getWindow } from '../../electron/engine/dsp/index.js';
import {
  BackendFailedError,
  BackendUnavailableError,
  InvalidArgumentError,
  type PhasorWarning,
} from '../../electron/engine/errors.js';
import { concat, randomF32, relL2 } from '../conformance/util.js';
import { needsWebGpu, openWebGpu } from './gpu.js';

const closers: Array<() => void | Promise<void>> = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

/** A bridge over a MessageChannel to a server running `open`'s backend. */
async function bridged(open: () => Promise<Backend>): Promise<BridgedWebGpuBackend> {
  const { port1, port2 } = new MessageChannel();
  serveBackend(port2 as unknown as BridgePort, open, { firDirectMaxTaps: WEBGPU_FIR_DIRECT_MAX_TAPS });
  closers.push(() => {
    port1.close();
    port2.close();
  });
  return connectWebGpuBridge(port1 as unknown as BridgePort);
}

async function cpu(): Promise<Backend> {
  const b = await createCpuBackend({ threads: 0 });
  closers.push(() => b.dispose());
  return b;
}

describe('the WebGPU bridge over a MessageChannel, the CPU backend on the far side', async () => {
  const direct = await cpu();
  const b = await bridged(cpu);
  closers.push(() => b.dispose());

  it('answers every call as the backend does, and leaves the caller’s arrays alone', async () => {
    expect(b.name).toBe('webgpu');
    expect(b.device).toBe(direct.device);
    expect(b.details.bridge).toMatch(/MessagePort/);
    const x = randomF32(2 * 64 * 3, 1);
    const keep = x.slice();
    expect(await b.fft(x, 64)).toEqual(await direct.fft(x, 64));
    expect(x).toEqual(keep); // copied once, then transferred: the caller's buffer is not detached
    expect(await b.fft(x, 64, { inverse: true })).toEqual(await direct.fft(x, 64, { inverse: true }));
    const r = randomF32(100 * 2, 2);
    const bins = await b.rfft(r, 100);
    expect(bins).toEqual(await direct.rfft(r, 100));
    const out = new Float32Array(200);
    expect(await b.irfft(bins, 100, { out })).toBe(out);
    expect(out).toEqual(await direct.irfft(bins, 100));

    const d = await b.upload(x);
    expect(d.owner).toBe(b);
    expect(await d.download()).toEqual(x);
    expect(await b.fft(d, 64)).toEqual(await direct.fft(x, 64));
    d.free();
    await expect(b.fft(d, 64)).rejects.toThrow(/freed/);
  });

  it('runs the processors block by block as the backend does', async () => {
    const x = randomF32(6000, 3);
    const blocks = [1000, 7, 2500, 2493];
    const spec = {
      fft: 256,
      hop: 100,
      window: Float32Array.from(getWindow('hann', 256)),
      complex: false,
      columns: 64,
      averaging: 0.2,
      peakHold: true,
    };
    const fir = { taps: randomF32(40, 4), complex: false, channels: 1 };
    const corr = { template: randomF32(300, 5), complex: false, scores: true, peaks: 2 };
    const run = async (backend: Backend) => {
      const s = backend.createSpectrogram(spec);
      const f = backend.createFir(fir);
      const c = backend.createCorrelator(corr);
      const rows = [];
      const filtered = [];
      const chunks = [];
      let at = 0;
      for (const n of blocks) {
        const block = x.subarray(at, at + n);
        at += n;
        rows.push(await s.push(block));
        filtered.push(await f.process(block));
        chunks.push(await c.process(block));
      }
      filtered.push(await f.flush());
      chunks.push(await c.flush());
      const shape = {
        bins: s.bins,
        width: s.width,
        numtaps: f.numtaps,
        method: f.method,
        m: c.templateLength,
      };
      s.dispose();
      f.dispose();
      c.dispose();
      return { rows, filtered: concat(filtered), chunks, shape };
    };
    const want = await run(direct);
    const got = await run(b);
    expect(got.shape).toEqual(want.shape);
    expect(got.rows).toEqual(want.rows);
    expect(got.filtered).toEqual(want.filtered);
    expect(got.chunks).toEqual(want.chunks);

    // Raw integers cross as they are; a reset forgets the state, as on the backend.
    const raw = {
      data: Int16Array.from(x.subarray(0, 1000), (v) => Math.round(v * 30000)),
      offset: 0,
      scale: 1 / 32768,
    };
    const s = b.createSpectrogram(spec);
    await s.push(x.subarray(0, 500));
    s.reset();
    const ds = direct.createSpectrogram(spec);
    expect(await s.push(raw)).toEqual(await ds.push(raw));
    s.dispose();
    ds.dispose();
    await expect(s.push(x)).rejects.toThrow(/disposed/);
  });

  it('refuses bad arguments with the engine’s own error classes', async () => {
    expect(() =>
      b.createSpectrogram({ fft: 0, hop: 1, window: new Float32Array(0), complex: false }),
    ).toThrow(InvalidArgumentError);
    const err = await b.fft(new Float32Array(10), 4).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    const want = await direct.fft(new Float32Array(10), 4).catch((e: unknown) => e);
    expect((err as Error).message).toBe((want as Error).message);
    const other = await direct.upload(new Float32Array(8));
    await expect(b.fft(other, 4)).rejects.toThrow(/another backend/);
  });
});

/** A CPU backend that fails like a lost GPU device after `calls` calls to fft or a FIR's process. */
async function failingAfter(calls: number): Promise<Backend> {
  const inner = await cpu();
  let left = calls;
  const lost = () => {
    if (left-- <= 0)
      throw new BackendFailedError('webgpu', 'the device was lost (unknown): test', { sticky: true });
  };
  return {
    name: inner.name,
    device: inner.device,
    upload: (d) => inner.upload(d),
    fft: async (x, n, o) => {
      lost();
      return inner.fft(x, n, o);
    },
    rfft: (x, n, o) => inner.rfft(x, n, o),
    irfft: (x, n, o) => inner.irfft(x, n, o),
    createSpectrogram: (c) => inner.createSpectrogram(c),
    createCorrelator: (c) => inner.createCorrelator(c),
    createFir: (config) => {
      const f = inner.createFir(config);
      return {
        numtaps: f.numtaps,
        method: f.method,
        get pending() {
          return f.pending;
        },
        process: async (x) => {
          lost();
          return f.process(x);
        },
        flush: () => f.flush(),
        reset: () => f.reset(),
        dispose: () => f.dispose(),
      };
    },
    dispose: () => inner.dispose(),
  };
}

describe('failures across the bridge', () => {
  it('a lost device arrives as a sticky BackendFailedError, and fails the backend', async () => {
    const b = await bridged(() => failingAfter(1));
    const x = randomF32(64, 6);
    await b.fft(x, 32);
    const err = await b.fft(x, 32).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendFailedError);
    expect((err as BackendFailedError).sticky).toBe(true);
    expect((err as Error).message).toBe('backend webgpu failed: the device was lost (unknown): test');
    await expect(b.rfft(x, 64)).rejects.toBe(err); // every later call, without asking the far side
  });

  it('the far side going away fails the calls in flight', async () => {
    const { port1 } = new MessageChannel();
    closers.push(() => port1.close());
    const { port1: a, port2: z } = new MessageChannel();
    closers.push(() => {
      a.close();
      z.close();
    });
    // A server that answers hello, then never again.
    z.on('message', (m: { id: number }) => {
      if (m.id === 1)
        z.postMessage({
          id: 1,
          ok: true,
          result: { version: 1, device: 'x', details: {}, firDirectMaxTaps: 16, deviceTimer: false },
        });
    });
    const b = await connectWebGpuBridge(a as unknown as BridgePort);
    const call = b.fft(new Float32Array(8), 4);
    b.disconnect('the WebGPU window closed');
    await expect(call).rejects.toThrow(BackendFailedError);
    await expect(call).rejects.toThrow('backend webgpu failed: the WebGPU window closed');
  });

  it('a far side with no adapter is unavailable, with its reason', async () => {
    const provider = webGpuBridgeProvider(async () => {
      const { port1, port2 } = new MessageChannel();
      closers.push(() => {
        port1.close();
        port2.close();
      });
      serveBackend(
        port2 as unknown as BridgePort,
        async () => {
          throw new BackendUnavailableError('webgpu', 'the browser found no WebGPU adapter');
        },
        { firDirectMaxTaps: 16 },
      );
      return { port: port1 as unknown as BridgePort };
    });
    expect(await provider.probe()).toEqual({
      available: false,
      reason: 'backend webgpu is not available: the browser found no WebGPU adapter',
    });
    await expect(provider.create()).rejects.toThrow(BackendUnavailableError);
  });

  it('the failover moves a FIR stream to the CPU without losing a block', async () => {
    const warnings: PhasorWarning[] = [];
    const chain: BackendProvider[] = [
      webGpuBridgeProvider(async () => {
        const { port1, port2 } = new MessageChannel();
        closers.push(() => {
          port1.close();
          port2.close();
        });
        serveBackend(port2 as unknown as BridgePort, () => failingAfter(2), { firDirectMaxTaps: 16 });
        return { port: port1 as unknown as BridgePort };
      }),
      { name: 'cpu', probe: async () => ({ available: true, device: 'cpu' }), create: cpu },
    ];
    const b = await FailoverBackend.open(chain, (w) => warnings.push(w));
    closers.push(() => b.dispose());
    const x = randomF32(5000, 8);
    const taps = randomF32(33, 9);
    const f = b.createFir({ taps, complex: false, channels: 1 });
    const parts: Float32Array[] = [];
    for (let at = 0; at < x.length; at += 1000) parts.push(await f.process(x.subarray(at, at + 1000)));
    parts.push(await f.flush());
    const want = (await cpu()).createFir({ taps, complex: false, channels: 1 });
    const ref = concat([await want.process(x), await want.flush()]);
    expect(b.name).toBe('cpu');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/webgpu failed: the device was lost/);
    expect(relL2(concat(parts), ref)).toBeLessThan(1e-6);
  });
});

describe('the bridge’s byte frames (WebSocket transport)', () => {
  it('carry every typed array and the JSON around them', () => {
    const m = {
      id: 3,
      op: 'process',
      input: { raw: { data: Int16Array.of(-3, 7, 9), offset: 1, scale: 0.5 } },
      list: [Float32Array.of(1.5, -2), Float64Array.of(Math.PI), Uint8Array.of(1, 2, 3)],
      view: randomF32(10, 1).subarray(3, 8),
    };
    const back = decodeFrame(encodeFrame(m)) as typeof m;
    expect(back).toEqual(m);
    expect(back.list[1]).toBeInstanceOf(Float64Array);
    expect(back.view.byteOffset).toBe(0); // a buffer of its own: transferable on
  });
});

describe('the WebGpuBackend (Dawn) behind the bridge', async () => {
  const gpu = await openWebGpu();
  const dawn = gpu.backend;
  if (dawn) closers.push(() => dawn.dispose());
  it('computes as it does when called directly', needsWebGpu(dawn), async () => {
    const b = await bridged(async () => dawn!);
    expect(b.device).toBe(dawn!.device);
    expect(b.details.maxFft).toBe(dawn!.details.maxFft);
    const x = randomF32(2 * 256 * 2, 10);
    expect(await b.fft(x, 256)).toEqual(await dawn!.fft(x, 256));
    const f = b.createFir({ taps: randomF32(40, 11), complex: false, channels: 1 });
    expect(f.method).toBe('overlap-save');
    const y = await f.process(x);
    expect(y.length + f.pending).toBe(x.length);
    f.dispose();
  });
});

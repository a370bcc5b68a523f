// A real GPU failure on the WebGPU backend: its device is destroyed mid-stream (as a driver reset or a
// lost device would), the backend turns failed (BackendFailedError), and the failover finishes the stream
// on the CPU without losing a block.
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import type { BackendProvider } from '../../electron/engine/backends/registry.js';
import {
  createWebGpuBackend,
  probeWebGpu,
  type WebGpuBackend,
} from '../../electron/engine/backends/webgpu/index.js';
import { BackendFailedError, type PhasorWarning } from '../../electron/engine/errors.js';
import { concat, randomF32, relL2 } from '../conformance/util.js';
import { useSwiftShader } from '../webgpu/gpu.js';

useSwiftShader();
const probe = await probeWebGpu();
if (!probe.available) {
  if (process.env.CI) throw new Error(`WebGPU must run in CI, but: ${probe.reason}`);
  console.log(`WebGPU failover tests skipped: ${probe.reason}`);
}

const opened: Backend[] = [];
afterAll(async () => {
  for (const b of opened) await b.dispose().catch(() => undefined);
});

/** A failover chain webgpu → cpu, and the WebGPU backend it made. */
async function chain(warnings: PhasorWarning[]): Promise<{ b: Backend; gpu: () => WebGpuBackend }> {
  let gpu: WebGpuBackend | undefined;
  const providers: BackendProvider[] = [
    {
      name: 'webgpu',
      probe: async () => probe,
      create: async () => {
        gpu = await createWebGpuBackend();
        opened.push(gpu);
        return gpu;
      },
    },
    {
      name: 'cpu',
      probe: async () => ({ available: true, device: 'cpu' }),
      create: async () => {
        const c = await createCpuBackend({ threads: 1 });
        opened.push(c);
        return c;
      },
    },
  ];
  const b = await FailoverBackend.open(providers, (w) => warnings.push(w));
  return { b, gpu: () => gpu! };
}

describe.skipIf(!probe.available)('webgpu failover', () => {
  const x = randomF32(120_000, 7);
  const sizes = [7000, 30_011, 12_345, 40_000, 30_644];

  it('a destroyed device fails the backend and the FIR stream finishes on the CPU', async () => {
    const taps = randomF32(301, 8);
    const cpu = await createCpuBackend({ threads: 1 });
    opened.push(cpu);
    const ref = cpu.createFir({ taps, complex: false, channels: 1 });
    const want = concat([await ref.process(x), await ref.flush()]);
    const warnings: PhasorWarning[] = [];
    const { b, gpu } = await chain(warnings);
    expect(b.name).toBe('webgpu');
    const fir = b.createFir({ taps, complex: false, channels: 1 });
    const parts: Float32Array[] = [];
    let at = 0;
    for (const [i, size] of sizes.entries()) {
      if (i === 2) gpu().ctx.device.destroy();
      parts.push(await fir.process(x.subarray(at, at + size)));
      at += size;
    }
    parts.push(await fir.flush());
    expect(b.name).toBe('cpu');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/webgpu|device|lost|destroyed/i);
    expect(warnings[0].message).toMatch(/continuing on cpu/);
    const got = concat(parts);
    expect(got.length).toBe(x.length);
    expect(relL2(got, want)).toBeLessThanOrEqual(1e-6);
    await expect(gpu().fft(new Float32Array(8), 4)).rejects.toBeInstanceOf(BackendFailedError);
  });

  it('a destroyed device mid-stream keeps correlation lags in sequence', async () => {
    const t = randomF32(500, 9);
    const warnings: PhasorWarning[] = [];
    const { b, gpu } = await chain(warnings);
    const corr = b.createCorrelator({ template: t, complex: false, scores: true });
    const scores: Float32Array[] = [];
    let at = 0;
    let lag = 0;
    for (const [i, size] of sizes.entries()) {
      if (i === 3) gpu().ctx.device.destroy();
      const c = await corr.process(x.subarray(at, at + size));
      expect(c.startLag).toBe(lag);
      lag += c.count;
      scores.push(c.scores!);
      at += size;
    }
    const last = await corr.flush();
    expect(last.startLag).toBe(lag);
    scores.push(last.scores!);
    expect(concat(scores).length).toBe(x.length - t.length + 1);
    expect(b.name).toBe('cpu');
    expect(warnings).toHaveLength(1);
  });
});

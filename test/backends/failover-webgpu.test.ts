// Real GPU failures on the WebGPU backend: its device is destroyed mid-stream (as a driver reset or a
// lost device would), or a submit fails the device's validation (a buffer the stream uses destroyed under
// it: the queue rejects the work with a GPUValidationError, the error an out-of-memory one shares its path
// with in WebGpuBackend.call); the backend turns failed (BackendFailedError), and the failover finishes the
// stream on the CPU without losing a block.
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
import { getWindow } from '../../electron/engine/dsp/windows.js';
import { BackendFailedError, type PhasorWarning } from '../../electron/engine/errors.js';
import { concat, randomF32, relL2 } from '../conformance/util.js';
import { MAP_READ, MAP_WRITE } from '../../electron/engine/backends/webgpu/gpu.js';
import { needs, webgpuAdapter } from '../support/requirements.js';
import { useSwiftShader } from '../webgpu/gpu.js';

useSwiftShader();
const probe = await probeWebGpu();
if (!probe.available) {
  if (process.env.CI) throw new Error(`WebGPU must run in CI, but: ${probe.reason}`);
}
const adapter = needs(webgpuAdapter(probe.available, probe.available ? '' : probe.reason));

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

describe('webgpu failover', adapter, () => {
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

  // Buffers destroyed under the stream: its storage buffers (windows, tables: the next submit fails the
  // device's validation) or its mapped staging buffers (the next upload's getMappedRange throws).
  const cases = [
    { which: 'storage', mapped: false, says: /GPUValidationError: .*destroyed/i },
    { which: 'mapped staging', mapped: true, says: /OperationError/ },
  ];
  it.each(cases)(
    'its $which buffers destroyed mid-stream: the spectrogram finishes on the CPU',
    async (c) => {
      const config = {
        fft: 1024,
        hop: 256,
        window: Float32Array.from(getWindow('hann', 1024)),
        complex: false,
        floorDb: -200,
      };
      const cut = [0, 7000, 37_011, 49_356, 89_356, 120_000];
      const block = (i: number) => x.subarray(cut[i], cut[i + 1]);
      const cpu = await createCpuBackend({ threads: 1 });
      opened.push(cpu);
      const ref = cpu.createSpectrogram(config);
      const want: Float32Array[] = [];
      for (let i = 0; i < 5; i++) want.push((await ref.push(block(i))).rows.slice());
      const warnings: PhasorWarning[] = [];
      const { b, gpu } = await chain(warnings);
      // every buffer made from here on: the stream's own (windows, tables, staging, readbacks)
      const device = gpu().ctx.device;
      const made: GPUBuffer[] = [];
      const createBuffer = device.createBuffer.bind(device);
      device.createBuffer = (d: GPUBufferDescriptor) => {
        const buf = createBuffer(d);
        const mapped = (d.usage & (MAP_READ | MAP_WRITE)) !== 0;
        if (mapped === c.mapped) made.push(buf);
        return buf;
      };
      const spec = b.createSpectrogram(config);
      let frame = 0;
      for (let i = 0; i < 5; i++) {
        if (i === 2) for (const buf of made) buf.destroy();
        const r = await spec.push(block(i));
        expect(r.firstFrame).toBe(frame);
        frame += r.count;
        expect(r.rows.length).toBe(want[i].length);
        let worst = 0;
        for (let k = 0; k < r.rows.length; k++) worst = Math.max(worst, Math.abs(r.rows[k] - want[i][k]));
        expect(worst).toBeLessThan(1e-3); // dB
      }
      expect(frame).toBe(Math.floor((x.length - 1024) / 256) + 1);
      expect(b.name).toBe('cpu');
      expect(warnings).toHaveLength(1);
      expect(warnings[0].message).toMatch(c.says);
      expect(warnings[0].message).toMatch(/continuing on cpu/);
      await expect(gpu().fft(new Float32Array(8), 4)).rejects.toBeInstanceOf(BackendFailedError);
    },
  );

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

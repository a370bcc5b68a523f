// A sticky CUDA error (an illegal address: the context is lost for this process) must fail the backend
// for good and let the engine redo the block on the next backend, so no output is lost. Own file: the
// fault poisons CUDA for the whole test process.
import { describe, expect, it } from 'vitest';
import type { BackendProvider } from '../../electron/engine/backends/registry.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { type CudaBackend, createCudaBackend, probeCuda } from '../../electron/engine/backends/cuda/index.js';
import { BackendFailedError } from '../../electron/engine/errors.js';
import { gaussian, lfilter, relL2 } from './reference.js';

describe('CUDA failure', () => {
  it('[needs-gpu] a sticky error fails the backend, later calls fail at once, and failover finishes the stream on the CPU', async (ctx) => {
    const a = await probeCuda();
    if (!a.available) return ctx.skip(`no CUDA device: ${a.reason}`);
    const chain: BackendProvider[] = [
      { name: 'cuda', probe: async () => a, create: () => createCudaBackend() },
      {
        name: 'cpu',
        probe: async () => ({ available: true, device: 'cpu' }),
        create: () => createCpuBackend({ threads: 0 }),
      },
    ];
    const warnings: string[] = [];
    const fo = (await FailoverBackend.open(chain, (w) => warnings.push(w.message))) as FailoverBackend;
    expect(fo.name).toBe('cuda');
    const taps = Float64Array.from(gaussian(101, 4), (v) => v / 50);
    const x = gaussian(2 * 30000, 8);
    const fir = fo.createFir({ taps, complex: true, channels: 1, method: 'overlap-save' });
    const y1 = await fir.process(x.subarray(0, 20000));

    const cuda = fo.active as CudaBackend;
    const fault = await cuda.injectFault().catch((e: unknown) => e);
    expect(fault).toBeInstanceOf(BackendFailedError);
    expect((fault as BackendFailedError).sticky).toBe(true);
    // the failed backend refuses everything at once
    await expect(cuda.fft(new Float32Array(16), 8)).rejects.toMatchObject({
      name: 'BackendFailedError',
      sticky: true,
    });

    const y2 = await fir.process(x.subarray(20000));
    const y3 = await fir.flush();
    expect(fo.name).toBe('cpu');
    expect(warnings.join('\n')).toMatch(/continuing on cpu/);
    const y = new Float32Array(x.length);
    y.set(y1);
    y.set(y2, y1.length);
    y.set(y3, y1.length + y2.length);
    expect(relL2(y, lfilter(taps, x, 2))).toBeLessThan(1e-6);
    await fo.dispose();
  }, 120_000);
});

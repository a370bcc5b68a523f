import { describe, expect, it } from 'vitest';
import type { BackendProvider } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import {
  cpuThreadsFromEnv,
  getProvider,
  hostProviders,
  listBackends,
  openBackend,
  prepareBackend,
} from '../../electron/engine/backends/registry.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import { BackendUnavailableError, InvalidArgumentError } from '../../electron/engine/errors.js';

describe('backend registry', () => {
  it('lists every backend with its availability, best first, the CPU always available', async () => {
    const list = await listBackends();
    expect(list.map((b) => b.name)).toEqual(['cuda', 'webgpu', 'cpu']);
    const cpu = list.find((b) => b.name === 'cpu')!;
    expect(cpu.available).toBe(true);
    for (const b of list) if (!b.available) expect(b.reason.length).toBeGreaterThan(10);
  });

  it('auto opens a working backend; an unknown name is refused with the valid ones', async () => {
    const b = await openBackend('auto');
    const y = await b.fft(Float32Array.from([1, 0, 2, 0, 3, 0, 4, 0]), 4);
    expect(Array.from(y)).toEqual([10, 0, -2, 2, -2, 0, -2, -2]);
    await b.dispose();
    expect(() => getProvider('opencl')).toThrow(
      /unknown backend "opencl"; choose one of: auto, cuda, webgpu, cpu/,
    );
  });

  it('a backend asked for by name that cannot run here says why', async () => {
    const unavailable = (await listBackends()).filter((b) => !b.available);
    for (const b of unavailable) {
      await expect(openBackend(b.name)).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(openBackend(b.name)).rejects.toThrow(`backend ${b.name} is not available: ${b.reason}`);
    }
  });

  it('a prepared backend goes to the next job that opens it with the same options, once', async () => {
    const active = (b: Awaited<ReturnType<typeof openBackend>>) =>
      b instanceof FailoverBackend ? b.active : b;
    const ready = await prepareBackend('auto', { cpuPrecision: 'single' });
    // another precision is another backend; then auto and the backend's own name both take the prepared one
    const double = await openBackend('cpu', { cpuPrecision: 'double' });
    expect(active(double)).not.toBe(ready);
    // preparing again while it waits hands out the same one, not a second
    expect(await prepareBackend('auto', { cpuPrecision: 'single' })).toBe(ready);
    const taken = await openBackend(ready.name, { cpuPrecision: 'single' });
    expect(active(taken)).toBe(ready);
    const again = await openBackend('auto', { cpuPrecision: 'single' });
    expect(active(again)).not.toBe(ready);
    const y = await taken.fft(Float32Array.from([1, 0, 2, 0, 3, 0, 4, 0]), 4);
    expect(Array.from(y)).toEqual([10, 0, -2, 2, -2, 0, -2, -2]);
    for (const b of [double, taken, again]) await b.dispose();
    await expect(prepareBackend('auto', { exclude: { webgpu: 'not here' } })).rejects.toThrow(
      /default host options/,
    );
  });

  it('reads PHASOR_CPU_THREADS', () => {
    expect(cpuThreadsFromEnv({})).toEqual({});
    expect(cpuThreadsFromEnv({ PHASOR_CPU_THREADS: '3' })).toEqual({ threads: 3 });
    expect(cpuThreadsFromEnv({ PHASOR_CPU_THREADS: '0' })).toEqual({ threads: 0 });
    expect(() => cpuThreadsFromEnv({ PHASOR_CPU_THREADS: '-1' })).toThrow(InvalidArgumentError);
    expect(() => cpuThreadsFromEnv({ PHASOR_CPU_THREADS: 'many' })).toThrow(/PHASOR_CPU_THREADS/);
  });

  it('a host replaces a backend with its own provider, in the same place of the auto order', async () => {
    const calls: string[] = [];
    // The host's own way to "webgpu" (the desktop app's bridge); here a CPU backend underneath.
    const own: BackendProvider = {
      name: 'webgpu',
      probe: async () => {
        calls.push('probe');
        return { available: true, device: 'the host’s adapter', details: { vendor: 'stand-in' } };
      },
      create: async () => {
        calls.push('create');
        return createCpuBackend({ threads: 0 });
      },
    };
    const host = { exclude: { cuda: 'not in this test' }, replace: { webgpu: own } };
    const hosted = hostProviders(host);
    expect(hosted.map((p) => p.name)).toEqual(['cuda', 'webgpu', 'cpu']);
    expect(hosted[1]).toBe(own);
    expect(await hosted[1].probe()).toMatchObject({ available: true, device: 'the host’s adapter' });

    const b = await openBackend('auto', host);
    expect(calls).toEqual(['probe', 'probe', 'create']); // chosen ahead of the CPU
    expect(Array.from(await b.fft(Float32Array.from([1, 0, 2, 0, 3, 0, 4, 0]), 4))).toEqual([
      10, 0, -2, 2, -2, 0, -2, -2,
    ]);
    await b.dispose();
    const named = await openBackend('webgpu', host);
    expect(calls.at(-1)).toBe('create');
    await named.dispose();

    // An exclusion still wins, and a provider given under another backend's name is refused.
    expect(await hostProviders({ ...host, exclude: { webgpu: 'not here' } })[1].probe()).toEqual({
      available: false,
      reason: 'not here',
    });
    expect(() => hostProviders({ replace: { cuda: own } })).toThrow(InvalidArgumentError);
  });
});

// When a job leaves a standby behind (standby/auto.ts), rule by rule, without a GPU: after a job that ran on
// CUDA in its own process, with PHASOR_STANDBY unset or `auto`, on a GPU in the default compute mode, when no
// standby is there; replacing only an automatic standby of another environment. The whole path (a real
// spawn, the next job through it) is test/cli/standby.test.ts's.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Backend, BackendProvider } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import type * as Registry from '../../electron/engine/backends/registry.js';
import { BackendFailedError } from '../../electron/engine/errors.js';
import {
  leavesStandby,
  standbyAction,
  TEST_BACKENDS_VARIABLE,
  type FinishedJob,
  type StandbyState,
} from '../../electron/cli/standby/auto.js';
import { standbyMode } from '../../electron/cli/standby/paths.js';
import { getBackend, jobBackendUsed } from '../../electron/cli/util.js';
import { noise } from '../support/signals.js';

// getBackend opens what this test hands it: a CUDA stand-in that fails on its second call, then the CPU
const opened = vi.hoisted(() => ({ next: undefined as (() => Promise<unknown>) | undefined }));
vi.mock('../../electron/engine/backends/registry.js', async (original) => ({
  ...(await original<typeof Registry>()),
  openBackend: () => opened.next!(),
}));

const cudaJob: FinishedJob = {
  command: 'filter',
  viaStandby: false,
  env: {},
  nodeFlags: false,
  code: 0,
  backend: 'cuda',
  computeMode: 'default',
};
const job = (change: Partial<FinishedJob>): FinishedJob => ({ ...cudaJob, ...change });
const none: StandbyState = 'none';

describe('PHASOR_STANDBY', () => {
  it('is auto when unset or empty; manual; off or 0; anything else is not known', () => {
    expect(standbyMode({})).toBe('auto');
    expect(standbyMode({ PHASOR_STANDBY: '' })).toBe('auto');
    expect(standbyMode({ PHASOR_STANDBY: 'auto' })).toBe('auto');
    expect(standbyMode({ PHASOR_STANDBY: 'manual' })).toBe('manual');
    expect(standbyMode({ PHASOR_STANDBY: 'off' })).toBe('off');
    expect(standbyMode({ PHASOR_STANDBY: '0' })).toBe('off');
    for (const v of ['on', '1', 'yes', 'Auto', 'OFF', ' manual']) {
      expect(standbyMode({ PHASOR_STANDBY: v }), v).toBeUndefined();
    }
  });
});

describe('a job leaves a standby behind', () => {
  it('after a file job on CUDA in its own process, with the default setting, when none is there', () => {
    for (const command of ['peaks', 'measure', 'spectrogram', 'psd', 'filter', 'correlate', 'extract']) {
      expect(standbyAction(job({ command }), none), command).toBe('start');
    }
    expect(standbyAction(job({ env: { PHASOR_STANDBY: 'auto' } }), none)).toBe('start');
    expect(standbyAction(job({ env: { PHASOR_STANDBY: '' } }), none)).toBe('start');
    // a job that failed once CUDA was open (a bad output path): the next attempt finds the GPU ready
    expect(standbyAction(job({ code: 1 }), none)).toBe('start');
  });

  it('not with PHASOR_STANDBY manual or off, nor with a value it does not know', () => {
    for (const v of ['manual', 'off', '0', 'on', 'bogus']) {
      expect(standbyAction(job({ env: { PHASOR_STANDBY: v } }), none), v).toBe('none');
    }
  });

  it('not after a job a standby ran, a cancelled job, or one under Node flags', () => {
    expect(standbyAction(job({ viaStandby: true }), none)).toBe('none');
    expect(standbyAction(job({ code: 130 }), none)).toBe('none');
    expect(standbyAction(job({ nodeFlags: true }), none)).toBe('none');
  });

  it('not after a command that is no file job', () => {
    for (const command of ['serve', 'monitor', 'bench', 'standby', undefined]) {
      expect(standbyAction(job({ command }), none), String(command)).toBe('none');
    }
  });

  it('not after a job on the CPU or WebGPU, or one that opened no backend', () => {
    for (const backend of ['cpu', 'webgpu', undefined]) {
      expect(standbyAction(job({ backend, computeMode: undefined }), none), String(backend)).toBe('none');
    }
    expect(standbyAction(job({ command: 'info', backend: undefined }), none)).toBe('none');
  });

  it('not on a GPU whose compute mode is not default, or unknown (an addon that does not say)', () => {
    for (const computeMode of ['exclusive-process', 'prohibited', 'other', undefined]) {
      expect(standbyAction(job({ computeMode }), none), String(computeMode)).toBe('none');
    }
  });

  it("the tests' variable adds the CPU, and changes nothing else", () => {
    const env = { [TEST_BACKENDS_VARIABLE]: 'cpu' };
    expect(standbyAction(job({ env, backend: 'cpu', computeMode: undefined }), none)).toBe('start');
    expect(standbyAction(job({ env, backend: 'webgpu', computeMode: undefined }), none)).toBe('none');
    expect(standbyAction(job({ env, computeMode: 'exclusive-process' }), none)).toBe('none');
    const manual = { ...env, PHASOR_STANDBY: 'manual' };
    expect(standbyAction(job({ env: manual, backend: 'cpu', computeMode: undefined }), none)).toBe('none');
  });

  it('not when one is starting or waiting; an automatic one of another environment is replaced', () => {
    expect(standbyAction(cudaJob, 'starting')).toBe('none');
    expect(standbyAction(cudaJob, { auto: true, sameEnvironment: true })).toBe('none');
    expect(standbyAction(cudaJob, { auto: false, sameEnvironment: true })).toBe('none');
    // the user's own standby stays, whatever its environment (its jobs are told why they ran without it)
    expect(standbyAction(cudaJob, { auto: false, sameEnvironment: false })).toBe('none');
    expect(standbyAction(cudaJob, { auto: true, sameEnvironment: false })).toBe('replace');
    // and only by a job that would have started one
    const cpuJob = job({ backend: 'cpu', computeMode: undefined });
    expect(standbyAction(cpuJob, { auto: true, sameEnvironment: false })).toBe('none');
    expect(leavesStandby(cpuJob)).toBe(false);
  });
});

describe('the backend a job ran on', () => {
  const backends: Backend[] = [];
  afterAll(async () => {
    for (const b of backends) await b.dispose();
  });

  it('is the one the work ended on: a job that fell back from CUDA to the CPU leaves none', async () => {
    const inner = await createCpuBackend({ threads: 0 });
    backends.push(inner);
    let calls = 0;
    // the CPU posing as a CUDA device in the default compute mode, failing from its second call on
    const flaky: Backend = {
      name: 'cuda',
      device: 'test device',
      details: { computeMode: 'default' },
      upload: (d) => inner.upload(d),
      fft: async (...a) => {
        if (++calls >= 2) throw new BackendFailedError('cuda', 'an illegal memory access', { sticky: true });
        return inner.fft(...a);
      },
      rfft: (...a) => inner.rfft(...a),
      irfft: (...a) => inner.irfft(...a),
      createSpectrogram: (c) => inner.createSpectrogram(c),
      createFir: (c) => inner.createFir(c),
      createCorrelator: (c) => inner.createCorrelator(c),
      dispose: async () => undefined,
    };
    const chain: BackendProvider[] = [
      { name: 'cuda', probe: async () => ({ available: true, device: 'x' }), create: async () => flaky },
      {
        name: 'cpu',
        probe: async () => ({ available: true, device: 'cpu' }),
        create: async () => {
          const b = await createCpuBackend({ threads: 0 });
          backends.push(b);
          return b;
        },
      },
    ];
    opened.next = () => FailoverBackend.open(chain, () => undefined);
    expect(jobBackendUsed()).toBeUndefined();
    const b = await getBackend({ backend: 'auto' });
    const x = Float32Array.from(noise(2048, 3));
    await b.fft(x, 1024);
    expect(jobBackendUsed()).toEqual({ name: 'cuda', computeMode: 'default' });
    expect(leavesStandby(job({ backend: jobBackendUsed()?.name }))).toBe(true);
    await b.fft(x, 1024); // fails on the stand-in, redone on the CPU
    const used = jobBackendUsed();
    expect(used).toEqual({ name: 'cpu' });
    expect(leavesStandby(job({ backend: used?.name, computeMode: used?.computeMode }))).toBe(false);
  });
});

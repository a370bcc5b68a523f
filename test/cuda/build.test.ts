// Runs everywhere, CI included: the addon must have been built wherever nvcc exists (npm install builds it;
// a compile error fails the install), loading it must never crash the process, and without a GPU the
// backend must say why it is unavailable, in words.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '../../electron/engine/errors.js';
import { loadAddon } from '../../electron/engine/backends/cuda/addon.js';
import { createCudaBackend, probeCuda } from '../../electron/engine/backends/cuda/index.js';
import { chooseCudaArchs, queryGpus, queryToolkit } from '../../native/cuda-archs.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const addonPath = path.join(root, 'native', 'build', 'cuda', 'phasor_cuda.node');

/** The nvcc native/build.mjs would use, or undefined. */
function nvccPath(): string | undefined {
  if (process.env.CUDACXX && existsSync(process.env.CUDACXX)) return process.env.CUDACXX;
  const r = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim();
  return existsSync('/usr/local/cuda/bin/nvcc') ? '/usr/local/cuda/bin/nvcc' : undefined;
}

function nvccHere(): boolean {
  return nvccPath() !== undefined;
}

/** What the addon's `build.archs` says for a CMake architecture list (native/CMakeLists.txt's ARCH_TEXT). */
function archText(archs: string): string {
  return archs
    .split(';')
    .map((a) => {
      const n = a.replace(/-(real|virtual)$/, '');
      if (a.endsWith('-real')) return `sm_${n}`;
      if (a.endsWith('-virtual')) return `compute_${n} PTX`;
      return `sm_${n} + compute_${n} PTX`;
    })
    .join(' ');
}

describe('CUDA addon build', () => {
  it('is built wherever nvcc is installed, and loads without a GPU', () => {
    if (!nvccHere()) {
      // no toolkit: the backend reports that it was not built
      expect(existsSync(addonPath) || process.env.PHASOR_CUDA_ADDON !== undefined).toBe(false);
      return;
    }
    expect(
      existsSync(addonPath),
      `${addonPath} missing although nvcc is installed (npm run build:native)`,
    ).toBe(true);
    // loading in a child process: whatever happens there cannot take this process down
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `const a = require(${JSON.stringify(addonPath)}); const p = a.probe();` +
          ` a.probeAsync().then((q) => console.log(JSON.stringify({ p, q, b: a.build })));`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as {
      p: { available: boolean; reason?: string };
      q: unknown;
      b: { archs: string; bench: boolean };
    };
    // the probe off the JavaScript thread answers the same
    expect(out.q).toEqual(out.p);
    // the shipping addon, not the bench build (node native/build.mjs --bench: phasor_cuda_bench.node)
    expect(out.b.bench).toBe(false);
    // built for what npm install chooses on this machine (native/cuda-archs.mjs): the GPUs present, one PTX
    // target without a GPU (CI), or PHASOR_CUDA_ARCHS
    const chosen = chooseCudaArchs({
      env: process.env,
      gpus: queryGpus(),
      toolkit: queryToolkit(nvccPath()!),
    });
    expect(out.b.archs).toBe(archText(chosen.archs));
    if (!out.p.available) {
      expect(out.p.reason).toMatch(/no NVIDIA driver|no CUDA device|driver is too old|CUDA could not start/);
    }
  });

  it('reports a reason in words, or a device, and never throws', async () => {
    const a = await probeCuda();
    if (a.available) {
      expect(a.device).toMatch(/\(driver .*GiB, sm_\d+\)/);
      return;
    }
    expect(a.reason.length).toBeGreaterThan(10);
    expect(a.reason).toMatch(
      /not built|no NVIDIA driver|no CUDA device|driver is too old|could not|older than/,
    );
    await expect(createCudaBackend()).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(createCudaBackend()).rejects.toThrow(/backend cuda is not available: /);
    // a missing addon is a reason too, not a crash
    if (!loadAddon().addon) expect(a.reason).toMatch(/not built|could not be loaded/);
  });

  it('survives worker threads that load it and end, as the desktop stand-in runs the engine', () => {
    const addon = process.env.PHASOR_CUDA_ADDON ?? addonPath;
    if (!existsSync(addon)) {
      expect(nvccHere()).toBe(false); // the first test fails where the addon should exist
      return;
    }
    // Each worker loads the addon, probes and is terminated; the process must outlive all of them. (Its
    // constructors were static references shared by every environment: the heap broke within a few.)
    const body =
      `const a = require(${JSON.stringify(addon)}); a.probe(); new a.Context();` +
      `require('node:worker_threads').parentPort.postMessage(1); setInterval(() => {}, 1000);`;
    const script = `
      const { Worker } = require('node:worker_threads');
      (async () => {
        for (let i = 0; i < 24; i++) {
          const w = new Worker(${JSON.stringify(body)}, { eval: true });
          await new Promise((r) => w.once('message', r));
          await w.terminate();
        }
        process.stdout.write('done');
      })();
    `;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('done');
    expect(r.status).toBe(0);
  });
});

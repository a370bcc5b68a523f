// The probe says in words why WebGPU is unavailable: a child process without SwiftShader's ICD (and
// without any other Vulkan driver that Dawn accepts here) finds no adapter and explains.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeWebGpu } from '../../electron/engine/backends/webgpu/index.js';
import { dawnFlags, noGpuReason } from '../../electron/engine/backends/webgpu/device.js';
import { openBackend } from '../../electron/engine/backends/registry.js';
import { missingNote, swiftShader, vulkanLoader } from '../support/requirements.js';
import { SWIFTSHADER_ICD, useSwiftShader } from './gpu.js';

const script = `
import { probeWebGpu } from ${JSON.stringify(path.resolve('electron/engine/backends/webgpu/device.ts'))};
const p = await probeWebGpu();
process.stdout.write('PROBE ' + JSON.stringify(p) + '\\n');
`;

function probeInChild(env: NodeJS.ProcessEnv): { available: boolean; reason?: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('PROBE '));
  if (!line) throw new Error(`the probe child printed nothing (status ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(6)) as { available: boolean; reason?: string };
}

describe('webgpu probe', () => {
  it('names the adapter when one is found', async () => {
    useSwiftShader();
    const p = await probeWebGpu();
    if (!p.available) {
      if (process.env.CI) throw new Error(`WebGPU must run in CI, but: ${p.reason}`);
      expect(p.reason).toMatch(/adapter|Vulkan|webgpu/);
      return;
    }
    expect(p.device).toMatch(/WebGPU/);
    expect(p.details.workgroupStorage).toBeGreaterThanOrEqual(16384);
  });

  it('says why, in words, when the Vulkan driver is absent', () => {
    const env = { ...process.env };
    delete env.VK_ICD_FILENAMES;
    // A driver file that does not exist: the loader finds no driver at all, whatever is installed.
    env.VK_ICD_FILENAMES = path.resolve('test/webgpu/no-such-driver.json');
    expect(existsSync(env.VK_ICD_FILENAMES)).toBe(false);
    const p = probeInChild(env);
    expect(p.available).toBe(false);
    expect(p.reason).toMatch(/^(no WebGPU adapter was found|the webgpu package)/);
    expect(p.reason).toMatch(/Vulkan|no GPU driver|could not be loaded/);
    console.log(`probe with a missing driver file: ${p.reason}`);
  });

  it('without VK_ICD_FILENAMES, finds a real GPU or says how to select SwiftShader', () => {
    const env = { ...process.env };
    delete env.VK_ICD_FILENAMES;
    const p = probeInChild(env);
    console.log(`probe without VK_ICD_FILENAMES: ${p.available ? 'an adapter' : p.reason}`);
    if (!p.available) expect(p.reason).toMatch(/^(no WebGPU adapter was found|the webgpu package)/);
    if (!p.available && existsSync(SWIFTSHADER_ICD))
      expect(p.reason).toContain(`VK_ICD_FILENAMES=${SWIFTSHADER_ICD}`);
  });

  it('does not load Dawn on a Linux machine without a GPU device node, unless a driver is named', (ctx) => {
    if (!vulkanLoader.ok) ctx.skip(missingNote(vulkanLoader));
    const saved = { icd: process.env.VK_ICD_FILENAMES, drivers: process.env.VK_DRIVER_FILES };
    delete process.env.VK_ICD_FILENAMES;
    delete process.env.VK_DRIVER_FILES;
    const dev = mkdtempSync(path.join(os.tmpdir(), 'phasor-dev-'));
    try {
      writeFileSync(path.join(dev, 'null'), '');
      if (process.platform === 'linux') {
        expect(noGpuReason(dev)).toMatch(/^no WebGPU adapter was found: .*no GPU device/);
        mkdirSync(path.join(dev, 'dri'));
        writeFileSync(path.join(dev, 'dri', 'renderD128'), '');
        expect(noGpuReason(dev)).toBeUndefined(); // a GPU is there: Dawn is asked
        rmSync(path.join(dev, 'dri'), { recursive: true });
        writeFileSync(path.join(dev, 'nvidia0'), '');
        expect(noGpuReason(dev)).toBeUndefined();
      }
      process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
      expect(noGpuReason(path.join(dev, 'missing'))).toBeUndefined(); // a named driver is always tried
    } finally {
      rmSync(dev, { recursive: true, force: true });
      if (saved.icd === undefined) delete process.env.VK_ICD_FILENAMES;
      else process.env.VK_ICD_FILENAMES = saved.icd;
      if (saved.drivers !== undefined) process.env.VK_DRIVER_FILES = saved.drivers;
    }
  });

  it('auto passes a software adapter over; asked for by name, it runs', async (ctx) => {
    if (!swiftShader.ok) ctx.skip(missingNote(swiftShader));
    useSwiftShader();
    const p = await probeWebGpu();
    if (!p.available) throw new Error(`SwiftShader must give an adapter here: ${p.reason}`);
    expect(p.autoSkip).toMatch(/software adapter/);
    const auto = await openBackend('auto');
    const named = await openBackend('webgpu');
    try {
      expect(auto.name).not.toBe('webgpu');
      expect(named.name).toBe('webgpu');
    } finally {
      await auto.dispose();
      await named.dispose();
    }
  });
});

describe("Dawn's options", () => {
  it('adds PHASOR_DAWN_FLAGS to ours, joining toggle lists named twice', () => {
    expect(dawnFlags('')).toEqual([
      'disable-dawn-features=timestamp_quantization',
      'enable-dawn-features=disable_workgroup_init,disable_robustness',
    ]);
    expect(dawnFlags('enable-dawn-features=dump_shaders,disable_workgroup_init  backend=vulkan')).toEqual([
      'disable-dawn-features=timestamp_quantization',
      'enable-dawn-features=disable_workgroup_init,disable_robustness,dump_shaders',
      'backend=vulkan',
    ]);
  });
});

describe('webgpu probe, remembered', () => {
  it('a usable adapter is probed once: asking again returns the same answer without starting Dawn again', async () => {
    useSwiftShader();
    const p = await probeWebGpu();
    if (!p.available) return;
    expect(await probeWebGpu()).toBe(p);
  });
});

// The architectures npm install builds the CUDA addon for (native/cuda-archs.mjs): the GPUs present, one PTX
// target without a GPU, the full fatbin with PHASOR_CUDA_ARCHS=all. The last tests run native/build.mjs
// --print-archs with a fake nvidia-smi and nvcc on PATH, as npm install would find them.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ALL_ARCHS,
  chooseCudaArchs,
  parseComputeCaps,
  parseToolkitArchs,
  queryGpus,
} from '../../native/cuda-archs.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const CUDA13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A folder with executable shell scripts: name -> script body. */
function fakeBin(scripts: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'phasor-fakebin-'));
  dirs.push(dir);
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

const nvccScript = `[ "$1" = --list-gpu-arch ] && printf '${CUDA13.map((a) => `compute_${a}`).join('\\n')}\\n'`;

describe('parsing', () => {
  it('reads, dedupes and sorts nvidia-smi compute capabilities', () => {
    expect(parseComputeCaps('9.0\n8.6\n9.0\n')).toEqual([86, 90]);
    expect(parseComputeCaps('12.0\r\n')).toEqual([120]);
    expect(parseComputeCaps('No devices were found\n')).toEqual([]);
  });
  it("reads nvcc --list-gpu-arch's virtual architectures", () => {
    expect(parseToolkitArchs('compute_75\ncompute_80\ncompute_90\n')).toEqual([75, 80, 90]);
  });
});

describe('chooseCudaArchs', () => {
  it('builds machine code for the GPUs present and PTX of the highest', () => {
    const h200 = chooseCudaArchs({ gpus: { caps: [90] }, toolkit: CUDA13 });
    expect(h200.archs).toBe('90-real;90-virtual');
    expect(h200.reason).toContain('compute capability 9.0');
    const two = chooseCudaArchs({ gpus: { caps: [86, 90] }, toolkit: CUDA13 });
    expect(two.archs).toBe('86-real;90-real;90-virtual');
  });
  it('without a GPU builds one PTX target, the lowest the toolkit supports, and says why', () => {
    const none = chooseCudaArchs({ gpus: { error: 'nvidia-smi not found' }, toolkit: CUDA13 });
    expect(none.archs).toBe('75-virtual');
    expect(none.reason).toContain('nvidia-smi not found');
    expect(none.reason).toContain('PTX');
    // a CUDA 12 toolkit lists older architectures too; the addon needs sm_75 or newer
    const cuda12 = chooseCudaArchs({ gpus: { caps: [] }, toolkit: [50, 60, 70, 75, 80, 90] });
    expect(cuda12.archs).toBe('75-virtual');
  });
  it('gives a GPU newer than the toolkit the newest PTX, and an older one only PTX it cannot run', () => {
    expect(chooseCudaArchs({ gpus: { caps: [150] }, toolkit: CUDA13 }).archs).toBe('121-virtual');
    const old = chooseCudaArchs({ gpus: { caps: [61] }, toolkit: CUDA13 });
    expect(old.archs).toBe('75-virtual');
    expect(old.reason).toContain('older than 7.5');
  });
  it('PHASOR_CUDA_ARCHS=all is the full fatbin; any other value wins as given', () => {
    const all = chooseCudaArchs({ env: { PHASOR_CUDA_ARCHS: 'all' }, gpus: { caps: [90] }, toolkit: CUDA13 });
    expect(all.archs).toBe(ALL_ARCHS);
    expect(ALL_ARCHS.split(';')).toHaveLength(5);
    expect(chooseCudaArchs({ env: { PHASOR_CUDA_ARCHS: '90' }, gpus: { caps: [86] } }).archs).toBe('90');
  });
});

describe('with a fake nvidia-smi on PATH', () => {
  const sysPath = ['/usr/bin', '/bin'].join(path.delimiter);

  it('queryGpus reads its answer, its failure or its absence', () => {
    const ok = fakeBin({ 'nvidia-smi': "printf '9.0\\n9.0\\n'" });
    expect(queryGpus({ PATH: `${ok}${path.delimiter}${sysPath}` })).toEqual({ caps: [90] });
    const broken = fakeBin({
      'nvidia-smi':
        "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'; exit 9",
    });
    expect(queryGpus({ PATH: `${broken}${path.delimiter}${sysPath}` }).error).toMatch(
      /^nvidia-smi failed: NVIDIA-SMI has failed because it could not communicate/,
    );
    const empty = fakeBin({});
    expect(queryGpus({ PATH: empty })).toEqual({ error: 'nvidia-smi not found' });
  });

  function printArchs(scripts: Record<string, string>, extra: Record<string, string> = {}) {
    const bin = fakeBin({ nvcc: nvccScript, ...scripts });
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${sysPath}`, ...extra };
    delete env.CUDACXX;
    if (!('PHASOR_CUDA_ARCHS' in extra)) delete env.PHASOR_CUDA_ARCHS;
    return spawnSync(process.execPath, [path.join(root, 'native', 'build.mjs'), '--print-archs'], {
      env,
      encoding: 'utf8',
    });
  }

  it('native/build.mjs picks the H200 it reports (9.0)', () => {
    const r = printArchs({ 'nvidia-smi': "echo '9.0'" });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('90-real;90-virtual: the GPUs present (compute capability 9.0, nvidia-smi)');
  });
  it('native/build.mjs builds one PTX target when the driver does not answer', () => {
    const r = printArchs({
      'nvidia-smi': "echo 'Failed to initialize NVML: Driver/library version mismatch'; exit 18",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^75-virtual: no NVIDIA GPU found \(nvidia-smi failed: Failed to initialize NVML/,
    );
  });
  it('native/build.mjs takes PHASOR_CUDA_ARCHS over the GPU found', () => {
    const r = printArchs({ 'nvidia-smi': "echo '9.0'" }, { PHASOR_CUDA_ARCHS: 'all' });
    expect(r.stdout.trim()).toBe(`${ALL_ARCHS}: PHASOR_CUDA_ARCHS=all: every supported GPU, for packaging`);
  });
  it('native/build.mjs --if-available without nvcc says in one line what the backend needs, and exits 0', () => {
    const bin = fakeBin({});
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${sysPath}` };
    delete env.CUDACXX;
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'native', 'build.mjs'), '--if-available', '--print-archs'],
      { env, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    // build.mjs also looks in /usr/local/cuda/bin, where a toolkit may be installed
    if (existsSync('/usr/local/cuda/bin/nvcc')) expect(r.stdout).toMatch(/^\S+: /);
    else expect(r.stdout).toContain('it needs the CUDA toolkit 13 (nvcc), which was not found');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { SWIFTSHADER_ICD } from '../webgpu/gpu.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('phasor bench', () => {
  it('times every op on the CPU and reports throughput and error against float64 (not a speed assertion)', async () => {
    const out = join(tmp.dir, 'bench.json');
    const r = await runCli([
      'bench',
      '--backend',
      'cpu',
      '--op',
      'fft,rfft,spectrogram,fir,correlate',
      '--sizes',
      '64,1000',
      '--samples',
      '16384',
      '--repeats',
      '1',
      '--json',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/backend\s+op\s+size/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      machine: { threads: number };
      rows: Array<{
        backend: string;
        op: string;
        size: number;
        samplesPerSecond: number;
        relError: number;
        vsCpu: number;
      }>;
    };
    expect(report.machine.threads).toBeGreaterThan(0);
    const ops = new Set(report.rows.map((x) => `${x.op}:${x.size}`));
    for (const op of ['fft', 'rfft', 'spectrogram', 'fir', 'correlate'])
      for (const s of [64, 1000]) expect(ops.has(`${op}:${s}`)).toBe(true);
    for (const row of report.rows) {
      expect(row.backend).toBe('cpu');
      expect(row.samplesPerSecond).toBeGreaterThan(0);
      expect(row.relError).toBeLessThan(1e-5);
      expect(row.vsCpu).toBe(1);
    }
  });

  it('runs on the WebGPU backend (a smoke run: SwiftShader where there is no GPU)', async (ctx) => {
    const out = join(tmp.dir, 'bench-webgpu.json');
    const env = { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD };
    const args = ['bench', '--backend', 'webgpu', '--op', 'fft', '--sizes', '1024', '--json', out];
    const r = await runCli(args, { env });
    if (r.code === 2 && /backend webgpu is not available/.test(r.stderr) && !process.env.CI) {
      ctx.skip(`no WebGPU adapter here: ${r.stderr.trim().split('\n').pop()}`);
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/webgpu\s+fft\s+1024/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      rows: Array<{ backend: string; op: string; size: number; samplesPerSecond: number; relError: number }>;
    };
    const row = report.rows.find((x) => x.backend === 'webgpu' && x.op === 'fft' && x.size === 1024);
    expect(row).toBeDefined();
    expect(row!.samplesPerSecond).toBeGreaterThan(0);
    expect(row!.relError).toBeLessThan(3e-7);
  });

  it('refuses an unknown op', async () => {
    const r = await runCli(['bench', '--op', 'dance']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown --op "dance"/);
  });
});

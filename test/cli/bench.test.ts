import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceBenchRowInfo } from '../../electron/engine/protocol/messages.js';
import { runCli, tempDir } from '../support/cli.js';
import { missingNote, webgpuAdapter } from '../support/requirements.js';
import { SWIFTSHADER_ICD } from '../webgpu/gpu.js';

type DeviceRow = DeviceBenchRowInfo;

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

  it('runs on the WebGPU backend (a smoke run: SwiftShader where there is no GPU), with device-timed rows', async (ctx) => {
    const out = join(tmp.dir, 'bench-webgpu.json');
    const env = { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD };
    const args = ['bench', '--backend', 'webgpu', '--op', 'fft', '--sizes', '1024', '--json', out];
    const r = await runCli([...args, '--device-samples', '16384'], { env });
    if (r.code === 2 && /backend webgpu is not available/.test(r.stderr) && !process.env.CI) {
      ctx.skip(missingNote(webgpuAdapter(false, r.stderr.trim().split('\n').pop() ?? '')));
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/webgpu\s+fft\s+1024/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      rows: Array<{ backend: string; op: string; size: number; samplesPerSecond: number; relError: number }>;
      deviceRows: DeviceRow[];
      deviceTimers: Array<{ backend: string; method?: string; missing?: string }>;
    };
    const row = report.rows.find((x) => x.backend === 'webgpu' && x.op === 'fft' && x.size === 1024);
    expect(row).toBeDefined();
    expect(row!.samplesPerSecond).toBeGreaterThan(0);
    expect(row!.relError).toBeLessThan(3e-7);
    // SwiftShader has timestamp-query: the device rows are there (one line says so where an adapter has not)
    const timer = report.deviceTimers.find((t) => t.backend === 'webgpu');
    if (timer?.missing) {
      expect(r.stdout).toContain(`webgpu: ${timer.missing}`);
      return;
    }
    expect(timer?.method).toBe('timestamp queries');
    expect(r.stdout).toMatch(/device-timed \(timestamp queries for webgpu;/);
    expect(r.stdout).toMatch(/webgpu\s+fft\s+1024\s+kernel\s/);
    const kernel = report.deviceRows.find((x) => x.op === 'fft' && x.timing === 'kernel');
    const e2e = report.deviceRows.find((x) => x.op === 'fft' && x.timing === 'end-to-end');
    expect(kernel?.backend).toBe('webgpu');
    expect(kernel!.ms).toBeGreaterThan(0);
    expect(kernel!.gbPerSecond).toBeGreaterThan(0);
    expect(Number.isFinite(kernel!.ofCopy)).toBe(true);
    expect(kernel!.relError).toBeLessThan(3e-7);
    expect(kernel!.note).toMatch(/no vendor FFT for WebGPU/);
    expect(e2e!.ms).toBeGreaterThan(0);
    expect(Number.isFinite(e2e!.ofHostToDevice)).toBe(true);
  });

  it('times the WebGPU processors beside their unfused pipelines (fused ÷ unfused, device-timed)', async (ctx) => {
    const out = join(tmp.dir, 'bench-webgpu-streams.json');
    const env = { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD };
    const r = await runCli(
      [
        'bench',
        '--backend',
        'webgpu',
        '--op',
        'spectrogram,fir,correlate',
        '--sizes',
        '256',
        '--samples',
        '16384',
        '--repeats',
        '1',
        '--device-samples',
        '16384',
        '--json',
        out,
      ],
      { env },
    );
    if (r.code === 2 && /backend webgpu is not available/.test(r.stderr) && !process.env.CI) {
      ctx.skip(missingNote(webgpuAdapter(false, r.stderr.trim().split('\n').pop() ?? '')));
    }
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      deviceRows: DeviceRow[];
      deviceTimers: Array<{ backend: string; missing?: string }>;
    };
    if (report.deviceTimers.find((t) => t.backend === 'webgpu')?.missing) return;
    expect(r.stdout).toMatch(/webgpu-unfused\s+spectrogram\s+256\s+kernel/);
    for (const [op, variants] of [
      ['spectrogram', ['spectrogram-f32', 'spectrogram-i16']],
      ['fir', ['fir-real', undefined]],
      ['correlate', ['corr']],
    ] as const) {
      for (const note of variants) {
        const rows = report.deviceRows.filter((x) => x.op === op && x.note === note);
        const fused = rows.find((x) => x.backend === 'webgpu' && x.timing === 'kernel');
        const unfused = rows.find((x) => x.backend === 'webgpu-unfused');
        expect(fused, `${op} ${note}`).toBeDefined();
        expect(unfused, `${op} ${note}`).toBeDefined();
        for (const x of [fused!, unfused!]) {
          expect(x.ms).toBeGreaterThan(0);
          expect(x.samplesPerSecond).toBeGreaterThan(0);
          expect(x.gbPerSecond).toBeGreaterThan(0);
        }
        expect(Number.isFinite(fused!.vsReference)).toBe(true);
        expect(fused!.vsReference).toBeCloseTo(unfused!.ms / fused!.ms, 6);
        // the same results either way (spectrogram: max dB error; correlation: max score error)
        expect(fused!.relError).toBeLessThan(op === 'spectrogram' ? 1e-3 : 1e-5);
        expect(unfused!.relError).toBeLessThan(op === 'spectrogram' ? 1e-3 : 1e-5);
        expect(rows.some((x) => x.backend === 'webgpu' && x.timing === 'end-to-end')).toBe(true);
      }
    }
  });

  it('refuses an unknown op', async () => {
    const r = await runCli(['bench', '--op', 'dance']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown --op "dance"/);
  });
});

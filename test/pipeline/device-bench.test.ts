// The device rows of `phasor bench` and the Benchmark view, on fake device timers: each GPU backend's
// rows (kernel, reference, end-to-end) with the batch it timed, the reference ratio, the comparison with
// CUDA's rows of the same run, and the line for a GPU backend without a timer; and the whole-call rows'
// ratios to the CPU's and CUDA's.
import { describe, expect, it } from 'vitest';
import type { Backend, DeviceBenchResult } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import {
  compareWithCuda,
  deviceTimerInfo,
  runBench,
  runDeviceBenches,
  type DeviceBenchRow,
} from '../../electron/engine/pipeline/bench.js';

/** A backend whose device timer answers `ms(op, reference)` milliseconds, timing at most `cap` samples. */
function fake(
  name: 'cuda' | 'webgpu' | 'cpu',
  ms: (op: string, reference: boolean) => number,
  cap = Infinity,
  timer = true,
): Backend {
  const b = { name, device: `${name} device` } as Record<string, unknown>;
  if (timer) {
    b.benchmark = (op: string, n: number, batch: number, reference = false): Promise<DeviceBenchResult> => {
      const transform = op === 'copy' || op === 'h2d' || op === 'fft';
      const timed = Math.min(batch, transform ? Math.max(1, Math.floor(cap / n)) : cap);
      const k = ms(op, reference);
      const samples = transform ? n * timed : timed;
      return Promise.resolve({
        op,
        impl: reference ? `${name}-ref` : name,
        n,
        batch: timed,
        available: !(reference && name === 'webgpu' && op === 'fft'),
        reason: 'no vendor FFT',
        kernelMs: k,
        endToEndMs: 2 * k,
        samplesPerSecond: samples / (k / 1000),
        bytes: 8 * samples,
        relError: 1e-7,
      });
    };
  }
  return b as unknown as Backend;
}

describe('device-timed bench rows', () => {
  it('runs every GPU backend with a timer, compares WebGPU with CUDA and the unfused reference', async () => {
    const cuda = fake('cuda', (op, ref) => (op === 'copy' ? 1 : ref ? 4 : 2));
    const webgpu = fake('webgpu', (op, ref) => (op === 'copy' ? 1 : ref ? 12 : 4), 1 << 18);
    const cpu = fake('cpu', () => 1, Infinity, false);
    const seen: DeviceBenchRow[] = [];
    const { rows, timers } = await runDeviceBenches([cpu, webgpu, cuda], {
      ops: ['fft', 'spectrogram'],
      sizes: [1024],
      samples: 1 << 20,
      repeats: 1,
      onRow: (r) => seen.push(r),
    });
    expect(timers).toEqual([
      { backend: 'cuda', method: 'CUDA events' },
      { backend: 'webgpu', method: 'timestamp queries' },
    ]);
    expect(seen).toEqual(rows);
    // CUDA first; the WebGPU FFT has no reference, its spectrogram rows have the unfused one
    expect(rows.map((r) => `${r.backend} ${r.op} ${r.timing} ${r.note ?? ''}`)).toEqual([
      'cuda fft kernel ',
      'cuda-ref fft kernel ',
      'cuda fft end-to-end ',
      'cuda spectrogram kernel spectrogram-f32',
      'cuda-ref spectrogram kernel spectrogram-f32',
      'cuda spectrogram end-to-end spectrogram-f32',
      'cuda spectrogram kernel spectrogram-i16',
      'cuda-ref spectrogram kernel spectrogram-i16',
      'cuda spectrogram end-to-end spectrogram-i16',
      'webgpu fft kernel no reference: no vendor FFT',
      'webgpu fft end-to-end ',
      'webgpu spectrogram kernel spectrogram-f32',
      'webgpu-ref spectrogram kernel spectrogram-f32',
      'webgpu spectrogram end-to-end spectrogram-f32',
      'webgpu spectrogram kernel spectrogram-i16',
      'webgpu-ref spectrogram kernel spectrogram-i16',
      'webgpu spectrogram end-to-end spectrogram-i16',
    ]);
    const w = (op: string, timing: string, note?: string) =>
      rows.find((r) => r.backend === 'webgpu' && r.op === op && r.timing === timing && r.note === note)!;
    // the batch the backend timed (capped), not the one asked for
    expect(w('fft', 'end-to-end').batch).toBe((1 << 18) / 1024);
    expect(w('spectrogram', 'kernel', 'spectrogram-f32').batch).toBe(1 << 18);
    // fused ÷ unfused: 12 ms over 4 ms
    expect(w('spectrogram', 'kernel', 'spectrogram-f32').vsReference).toBe(3);
    // against CUDA's rows of the same variant: samples/s ratio (4 ms vs 2 ms on the same samples/op ratio)
    const cudaRow = rows.find((r) => r.backend === 'cuda' && r.op === 'fft' && r.timing === 'kernel')!;
    expect(w('fft', 'kernel', 'no reference: no vendor FFT').vsCuda).toBeCloseTo(
      w('fft', 'kernel', 'no reference: no vendor FFT').samplesPerSecond / cudaRow.samplesPerSecond,
      12,
    );
    expect(w('spectrogram', 'end-to-end', 'spectrogram-i16').vsCuda).toBeGreaterThan(0);
    // references and CUDA's own rows are not compared
    for (const r of rows) if (r.backend !== 'webgpu') expect(r.vsCuda).toBeUndefined();
    for (const r of rows) {
      expect(r.ms).toBeGreaterThan(0);
      expect(Number.isFinite(r.samplesPerSecond)).toBe(true);
      if (r.timing === 'kernel') expect(r.ofCopy).toBeGreaterThan(0);
      else expect(r.ofHostToDevice).toBeGreaterThan(0);
    }
  });

  it('says in one line why a GPU backend has no device rows', async () => {
    const webgpu = fake('webgpu', () => 1, Infinity, false);
    expect(deviceTimerInfo(webgpu)).toEqual({
      backend: 'webgpu',
      missing: 'no device-timed rows: the adapter has no timestamp-query feature',
    });
    expect(deviceTimerInfo(fake('cpu', () => 1, Infinity, false))).toBeUndefined();
    const { rows, timers } = await runDeviceBenches([webgpu], { ops: ['fft'], sizes: [64] });
    expect(rows).toEqual([]);
    expect(timers).toHaveLength(1);
  });

  it('compares only rows of the same op, size, timing and variant', () => {
    const row = (backend: string, note?: string, sps = 1): DeviceBenchRow => ({
      backend,
      op: 'fir',
      size: 255,
      batch: 1,
      timing: 'kernel',
      ms: 1,
      samplesPerSecond: sps,
      relError: 0,
      ...(note ? { note } : {}),
    });
    const rows = [row('cuda', 'fir-real', 4), row('cuda', undefined, 8), row('webgpu', 'fir-real', 2)];
    rows.push(row('webgpu', undefined, 2), row('webgpu-unfused', undefined, 1));
    compareWithCuda(rows);
    expect(rows.map((r) => r.vsCuda)).toEqual([undefined, undefined, 0.5, 0.25, undefined]);
  });
});

describe('whole-call rows', () => {
  it('carry each backend’s speed over the CPU’s and CUDA’s, whichever order they ran in', async () => {
    const cpu = await createCpuBackend({ threads: 1 });
    // the CPU backend under other names: the ratios only need rows of the same op and size
    const as = (name: 'cuda' | 'webgpu'): Backend => Object.create(cpu, { name: { value: name } }) as Backend;
    try {
      const rows = await runBench([as('webgpu'), cpu, as('cuda')], {
        ops: ['fft'],
        sizes: [256],
        samples: 4096,
        repeats: 1,
      });
      const by = (n: string) => rows.find((r) => r.backend === n)!;
      expect(rows.map((r) => r.backend)).toEqual(['webgpu', 'cpu', 'cuda']);
      for (const r of rows) {
        expect(r.vsCpu).toBeCloseTo(r.samplesPerSecond / by('cpu').samplesPerSecond, 12);
      }
      expect(by('webgpu').vsCuda).toBeCloseTo(
        by('webgpu').samplesPerSecond / by('cuda').samplesPerSecond,
        12,
      );
      expect(by('cpu').vsCuda).toBeCloseTo(by('cpu').samplesPerSecond / by('cuda').samplesPerSecond, 12);
      expect(by('cuda').vsCuda).toBeUndefined();
    } finally {
      await cpu.dispose();
    }
  });
});

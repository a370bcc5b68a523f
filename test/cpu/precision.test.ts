// The CPU backend's precision setting: 'single' (default) runs power-of-two transforms on the float32 SIMD
// kernels within the GPU backends' accuracy; 'double' is the float64 path, whose FFT output is the float64
// plan's rounded once to float32; the CLI's --precision picks it and refuses double on a GPU backend.
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { cpuBackendPrecision, createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { SIMD_MAX_SIZE } from '../../electron/engine/backends/cpu/executor.js';
import { getFftPlan } from '../../electron/engine/fft/index.js';
import { backendForPrecision } from '../../electron/cli/util.js';
import { randomF32, relL2, toF64 } from '../conformance/util.js';
import { join } from 'node:path';
import { runCli, tempDir } from '../support/cli.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const opened: Backend[] = [];
afterAll(async () => {
  for (const b of opened) await b.dispose();
});
async function open(options: Parameters<typeof createCpuBackend>[0]): Promise<Backend> {
  const b = await createCpuBackend(options);
  opened.push(b);
  return b;
}

describe('cpu backend precision', () => {
  it("defaults to 'single' and says so in its details", async () => {
    const b = await open({ threads: 0 });
    expect(cpuBackendPrecision(b)).toBe('single');
    expect(String(b.details?.precision)).toMatch(/float32 WebAssembly SIMD/);
    const d = await open({ threads: 0, precision: 'double' });
    expect(cpuBackendPrecision(d)).toBe('double');
    expect(String(d.details?.precision)).toMatch(/^float64 inside/);
  });

  it('refuses an unknown precision', async () => {
    await expect(createCpuBackend({ threads: 0, precision: 'half' as 'single' })).rejects.toThrow(
      /precision must be single or double/,
    );
  });

  for (const threads of [0, 2]) {
    it(`double: FFT output is the float64 plan's, rounded once (threads ${threads})`, async () => {
      const b = await open({ threads, precision: 'double', inlineCostLimit: threads ? 0 : undefined });
      for (const n of [1024, 1000]) {
        const x = randomF32(2 * n * 4, n);
        const y = await b.fft(x, n);
        const ref = new Float32Array(x.length);
        for (let k = 0; k < 4; k++) {
          const out = new Float64Array(2 * n);
          getFftPlan(n).forward(toF64(x.subarray(2 * n * k, 2 * n * (k + 1))), out);
          ref.set(out, 2 * n * k);
        }
        expect(y).toEqual(ref);
      }
    });

    it(`single: power-of-two FFTs within 3e-7 of double, inline and on the pool (threads ${threads})`, async () => {
      const s = await open({ threads, inlineCostLimit: threads ? 0 : undefined });
      const d = await open({ threads, precision: 'double', inlineCostLimit: threads ? 0 : undefined });
      for (const n of [16, 1024, 4096]) {
        const x = randomF32(2 * n * 8, 3 * n);
        const a = await s.fft(x, n);
        const b = await d.fft(x, n);
        expect(a).not.toEqual(b); // really the float32 path
        expect(relL2(a, toF64(b))).toBeLessThan(3e-7);
        const ai = await s.fft(x, n, { inverse: true });
        const bi = await d.fft(x, n, { inverse: true });
        expect(relL2(ai, toF64(bi))).toBeLessThan(3e-7);
      }
    });
  }

  it('single: sizes that are not powers of two, or above SIMD_MAX_SIZE, stay in float64', async () => {
    const s = await open({ threads: 0 });
    const d = await open({ threads: 0, precision: 'double' });
    const n = 1000;
    const x = randomF32(2 * n * 3, 17);
    expect(await s.fft(x, n)).toEqual(await d.fft(x, n));
    const big = 2 * SIMD_MAX_SIZE;
    const y = randomF32(2 * big, 19);
    expect(await s.fft(y, big)).toEqual(await d.fft(y, big));
  });

  it('single: the pool and the calling thread give bit-identical FIR output', async () => {
    const inline = await open({ threads: 0 });
    const pool = await open({ threads: 2, inlineCostLimit: 0 });
    const taps = toF64(randomF32(255, 1));
    const x = randomF32(2 * 50000, 2);
    const run = async (b: Backend): Promise<Float32Array> => {
      const fir = b.createFir({ taps, channels: 1, complex: true });
      const a = await fir.process(x);
      const c = await fir.flush();
      const out = new Float32Array(a.length + c.length);
      out.set(a);
      out.set(c, a.length);
      return out;
    };
    expect(await run(pool)).toEqual(await run(inline));
  });
});

describe('--precision', () => {
  it('double opens the cpu backend; the GPU backends refuse it', () => {
    expect(backendForPrecision('auto', 'double')).toBe('cpu');
    expect(backendForPrecision('cpu', 'double')).toBe('cpu');
    expect(backendForPrecision('auto', 'single')).toBe('auto');
    expect(backendForPrecision('cuda', 'single')).toBe('cuda');
    expect(() => backendForPrecision('webgpu', 'double')).toThrow(/--precision double needs the cpu backend/);
  });

  it('phasor refuses --precision double with --backend webgpu in one line', async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'tone.wav');
      writeTestWav(file, tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
      const r = await runCli(['peaks', file, '--backend', 'webgpu', '--precision', 'double']);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        'phasor: --precision double needs the cpu backend; webgpu computes in float32 (use --backend cpu or leave --backend out)',
      ]);
      const ok = await runCli(['peaks', file, '--precision', 'double', '--json']);
      expect(ok.code).toBe(0);
    } finally {
      tmp.remove();
    }
  });
});

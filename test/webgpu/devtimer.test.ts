// The WebGPU device timer (timestamp queries) on small sizes: every op `phasor bench` times gives a row
// with positive bytes and milliseconds and an error against float64 within the backend's tolerances; the
// unfused pipelines of the spectrogram, FIR and correlation compute the same results as the processors.
// On SwiftShader the timestamps only show that the path works (not a speed assertion).
import { describe, expect, it } from 'vitest';
import { hasDeviceTimer } from '../../electron/engine/backends/backend.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b } = await webgpuSuite();

describe('webgpu device timer', needsWebGpu(b), () => {
  it('times the transforms and the copy ceilings', async () => {
    expect(hasDeviceTimer(b!)).toBe(b!.ctx.timestamps);
    if (!hasDeviceTimer(b!)) return;
    for (const op of ['fft', 'rfft']) {
      const r = await b!.benchmark(op, 256, 64, false, { reps: 2, endToEnd: true });
      console.log(op, r);
      expect(r.available).toBe(true);
      expect(r.kernelMs).toBeGreaterThan(0);
      expect(r.endToEndMs).toBeGreaterThan(0);
      expect(r.bytes).toBeGreaterThan(0);
      expect(r.relError).toBeLessThan(3e-7);
      const ref = await b!.benchmark(op, 256, 64, true, { reps: 1, endToEnd: false });
      expect(ref.available).toBe(false);
      expect(ref.reason).toMatch(/no vendor FFT/);
    }
    for (const op of ['copy', 'h2d']) {
      const r = await b!.benchmark(op, 1 << 16, 1, false, { reps: 2, endToEnd: false });
      console.log(op, r);
      expect(r.kernelMs).toBeGreaterThan(0);
      expect(r.bytes).toBeGreaterThan(0);
      expect(r.relError).toBe(0);
    }
  });

  it('times the processors and their unfused pipelines', async () => {
    if (!hasDeviceTimer(b!)) return;
    const cases: Array<[string, number, number, number]> = [
      ['spectrogram-f32', 1024, 1 << 14, 1e-3],
      ['spectrogram-i16', 1024, 1 << 14, 1e-3],
      ['fir-real', 255, 1 << 14, 1e-5],
      ['fir', 255, 1 << 14, 1e-5],
      ['corr', 256, 1 << 14, 1e-4],
    ];
    for (const [op, n, batch, tol] of cases) {
      for (const reference of [false, true]) {
        const r = await b!.benchmark(op, n, batch, reference, { reps: 2, endToEnd: !reference });
        console.log(op, reference, r);
        expect(r.available).toBe(true);
        expect(r.impl).toBe(reference ? 'webgpu-unfused' : 'webgpu');
        expect(r.kernelMs).toBeGreaterThan(0);
        expect(r.samplesPerSecond).toBeGreaterThan(0);
        expect(r.bytes).toBeGreaterThan(0);
        expect(r.relError).toBeLessThan(tol);
        if (!reference) expect(r.endToEndMs).toBeGreaterThan(0);
      }
    }
  });
});

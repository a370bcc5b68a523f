// The float32 WebAssembly SIMD kernels of the CPU backend (native/wasm/simd.c through
// electron/engine/backends/cpu/simd.ts and kernels32.ts), against float64 on the same float32 inputs:
//   - complex FFT, forward and inverse, every power of two 1 … 4096 and a few larger: relative L2 ≤ 3e-7
//     for n ≤ 4096 (the bound for the GPU backends), ≤ 1e-6 above;
//   - real FFT and its inverse through the half-size complex transform, the same bounds;
//   - the jobs the processors run (overlap-save FIR, FFT correlation, spectrogram frames) in single precision
//     against the same jobs in double precision.
import { describe, expect, it } from 'vitest';
import { runTasks } from '../../electron/engine/backends/cpu/kernels.js';
import { isPowerOfTwo, simdKernels } from '../../electron/engine/backends/cpu/simd.js';
import { getFftPlan, getRealFftPlan } from '../../electron/engine/fft/index.js';
import { referenceFft } from '../conformance/reference.js';
import { randomF32, relL2, toF64 } from '../conformance/util.js';

const SIZES = [...Array.from({ length: 13 }, (_, i) => 2 ** i), 8192, 65536, 1 << 18];
const bound = (n: number): number => (n <= 4096 ? 3e-7 : 1e-6);

describe('float32 SIMD kernels', () => {
  it('load on this machine (WebAssembly SIMD, the committed .wasm)', () => {
    expect(simdKernels()).not.toBeNull();
    expect(isPowerOfTwo(4096)).toBe(true);
    expect(isPowerOfTwo(4095)).toBe(false);
  });

  for (const n of SIZES) {
    it(`complex FFT n = ${n}: forward and inverse within ${bound(n)} of float64`, () => {
      const batch = n <= 64 ? 5 : n >= 65536 ? 1 : 2;
      const x = randomF32(2 * n * batch, 7 + n);
      const fwd = new Float32Array(x.length);
      const inv = new Float32Array(x.length);
      runTasks({ kind: 'fft', n, inverse: false, single: true, input: x, output: fwd }, 0, batch);
      runTasks({ kind: 'fft', n, inverse: true, single: true, input: x, output: inv }, 0, batch);
      for (let b = 0; b < batch; b++) {
        const xb = toF64(x.subarray(2 * n * b, 2 * n * (b + 1)));
        // The conformance suite's independent reference where it is quick, the float64 plan above.
        const ref = n <= 1024 ? referenceFft(xb) : new Float64Array(2 * n);
        const refInv = n <= 1024 ? referenceFft(xb, true) : new Float64Array(2 * n);
        if (n > 1024) {
          getFftPlan(n).forward(xb, ref);
          getFftPlan(n).inverse(xb, refInv);
        }
        expect(relL2(fwd.subarray(2 * n * b, 2 * n * (b + 1)), ref)).toBeLessThan(bound(n));
        expect(relL2(inv.subarray(2 * n * b, 2 * n * (b + 1)), refInv)).toBeLessThan(bound(n));
      }
    });
  }

  for (const n of SIZES.filter((m) => m >= 4)) {
    it(`real FFT n = ${n}: rfft and irfft within ${bound(n)} of float64`, () => {
      const batch = 3;
      const x = randomF32(n * batch, 11 + n);
      const X = new Float32Array((n + 2) * batch);
      runTasks({ kind: 'rfft', n, single: true, input: x, output: X }, 0, batch);
      const back = new Float32Array(n * batch);
      runTasks({ kind: 'irfft', n, single: true, input: X, output: back }, 0, batch);
      const plan = getRealFftPlan(n);
      for (let b = 0; b < batch; b++) {
        const ref = new Float64Array(n + 2);
        plan.forward(toF64(x.subarray(n * b, n * (b + 1))), ref);
        expect(relL2(X.subarray((n + 2) * b, (n + 2) * (b + 1)), ref)).toBeLessThan(bound(n));
        const refBack = new Float64Array(n);
        plan.inverse(toF64(X.subarray((n + 2) * b, (n + 2) * (b + 1))), refBack);
        expect(relL2(back.subarray(n * b, n * (b + 1)), refBack)).toBeLessThan(bound(n));
      }
    });
  }

  it('tasks are independent of how a job is split (bit-identical)', () => {
    const n = 256;
    const batch = 9;
    const x = randomF32(2 * n * batch, 3);
    const whole = new Float32Array(x.length);
    const parts = new Float32Array(x.length);
    runTasks({ kind: 'fft', n, inverse: false, single: true, input: x, output: whole }, 0, batch);
    for (const [a, b] of [
      [0, 1],
      [1, 5],
      [5, 9],
    ])
      runTasks({ kind: 'fft', n, inverse: false, single: true, input: x, output: parts }, a, b);
    expect(parts).toEqual(whole);
  });

  for (const lanes of [1, 2, 3]) {
    it(`overlap-save FIR, ${lanes} lane(s): single within 1e-6 of double`, () => {
      const L = 512;
      const M = 101;
      const S = L - M + 1;
      const segments = 4;
      const frames = segments * S - 17;
      const taps = toF64(randomF32(M, 5));
      const padded = new Float64Array(2 * L);
      for (let i = 0; i < M; i++) padded[2 * i] = taps[i];
      const spectrum = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, spectrum);
      const input = randomF32((segments * S + M - 1) * lanes, 9 + lanes);
      const tasks = segments * ((lanes >> 1) + (lanes & 1));
      const out = (single: boolean): Float32Array => {
        const output = new Float32Array(frames * lanes);
        runTasks(
          { kind: 'fir-os', size: L, numtaps: M, lanes, frames, spectrum, input, output, single },
          0,
          tasks,
        );
        return output;
      };
      const ref = out(false);
      expect(relL2(out(true), toF64(ref))).toBeLessThan(1e-6);
    });
  }

  for (const complex of [false, true]) {
    it(`FFT correlation (${complex ? 'complex' : 'real'}): single scores within 1e-6 of double`, () => {
      const L = 1024;
      const M = 300;
      const S = L - M + 1;
      const vps = complex ? 2 : 1;
      const template = randomF32(M * vps, 21);
      const padded = new Float64Array(2 * L);
      let e = 0;
      for (let k = 0; k < M; k++) {
        padded[2 * k] = template[vps * k];
        padded[2 * k + 1] = complex ? template[2 * k + 1] : 0;
      }
      for (const v of template) e += v * v;
      const spectrum = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, spectrum);
      for (let i = 1; i < spectrum.length; i += 2) spectrum[i] = -spectrum[i];
      const segments = 3;
      const lags = segments * S - 5;
      const input = randomF32((segments * S + M - 1) * vps, 23);
      const scores = (single: boolean): Float32Array => {
        const out = new Float32Array(lags);
        runTasks(
          {
            kind: 'corr-os',
            complex,
            size: L,
            templateLength: M,
            templateNorm: Math.sqrt(e),
            spectrum,
            lags,
            input,
            scores: out,
            single,
          },
          0,
          segments,
        );
        return out;
      };
      expect(relL2(scores(true), toF64(scores(false)))).toBeLessThan(1e-6);
    });
  }

  for (const complex of [false, true]) {
    it(`spectrogram frames (${complex ? 'complex' : 'real'}): single levels within 1e-4 dB of double`, () => {
      const n = 1024;
      const hop = 300;
      const frames = 6;
      const vps = complex ? 2 : 1;
      const bins = complex ? n : n / 2 + 1;
      const window = new Float64Array(n).map((_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
      const samples = randomF32(((frames - 1) * hop + n) * vps, 31);
      const run = (single: boolean, columns: number): { rows: Float32Array; linear: Float64Array } => {
        const width = columns || bins;
        const job = {
          kind: 'spectrogram' as const,
          n,
          hop,
          complex,
          window,
          samples,
          width,
          columns,
          norm: 1e-3,
          normEdge: 5e-4,
          floorDb: -200,
          rows: new Float32Array(frames * width),
          linear: new Float64Array(frames * width),
          single,
        };
        runTasks(job, 0, frames);
        return job;
      };
      for (const columns of [0, 100]) {
        const a = run(true, columns);
        const b = run(false, columns);
        let worst = 0;
        for (let i = 0; i < a.rows.length; i++) worst = Math.max(worst, Math.abs(a.rows[i] - b.rows[i]));
        expect(worst).toBeLessThan(1e-4);
        expect(relL2(a.linear, b.linear)).toBeLessThan(1e-6);
      }
    });
  }
});

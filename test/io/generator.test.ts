// The generator: exact tone phase (against an exact rational reference), phase continuity across blocks,
// independence from blockFrames, chirps, noise statistics, seeds, arguments.

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { createGenerator, type GeneratorOptions } from '../../electron/engine/sources/generator.js';
import { firstDifference, readAll } from './helpers.js';

/** sin/cos of 2π·f·n/fs + φ with the phase reduced exactly (BigInt) for integer f and fs. */
function exactPhase(f: number, fs: number, n: number, phi = 0): number {
  let r = (BigInt(f) * BigInt(n)) % BigInt(fs);
  if (r < 0n) r += BigInt(fs);
  return (2 * Math.PI * Number(r)) / fs + phi;
}

// Float32 output of values computed in float64: error ≤ half an ulp of float32 near 1 (2^-24) plus the
// few-ulp float64 error of sin/cos.
const F32_TOL = 2 ** -24 + 1e-12;

describe('generator tones', () => {
  it('a real tone is a·sin(2πfn/fs + φ), exact even 10^12 frames in', async () => {
    const fs = 48000;
    const f = 997;
    const g = createGenerator({ sampleRate: fs, tones: [{ frequency: f, amplitude: 0.75, phase: 0.3 }] });
    expect(g.info).toMatchObject({
      container: 'generator',
      encoding: 'rf32_le',
      complex: false,
      channels: 1,
      sampleRate: fs,
    });
    expect(g.info.samples).toBeUndefined();
    for (const start of [0, 65530, 1e12 + 3]) {
      const got = await readAll(g, { start, end: start + 100, blockFrames: 7 });
      for (let i = 0; i < 100; i++) {
        expect(Math.abs(got[i] - 0.75 * Math.sin(exactPhase(f, fs, start + i, 0.3)))).toBeLessThanOrEqual(
          F32_TOL,
        );
      }
    }
  });

  it('a complex tone is a unit exponential e^{j2πfn/fs}, negative frequencies included', async () => {
    const fs = 1_000_000;
    const g = createGenerator({
      sampleRate: fs,
      complex: true,
      centerFrequency: 100e6,
      tones: [{ frequency: -123457 }, { frequency: 250000, amplitude: 0.25, phase: 1 }],
      duration: 70000,
    });
    expect(g.info).toMatchObject({
      encoding: 'cf32_le',
      complex: true,
      samples: 70000,
      centerFrequency: 100e6,
    });
    const got = await readAll(g, { blockFrames: 4096 });
    expect(got.length).toBe(140000);
    let maxErr = 0;
    for (let n = 0; n < 70000; n++) {
      const a = exactPhase(-123457, fs, n);
      const b = exactPhase(250000, fs, n, 1);
      maxErr = Math.max(maxErr, Math.abs(got[2 * n] - (Math.cos(a) + 0.25 * Math.cos(b))));
      maxErr = Math.max(maxErr, Math.abs(got[2 * n + 1] - (Math.sin(a) + 0.25 * Math.sin(b))));
    }
    expect(maxErr).toBeLessThanOrEqual(2 * F32_TOL);
  });

  it('non-integer frequencies stay phase-continuous; output is identical whatever blockFrames', async () => {
    const opts: GeneratorOptions = {
      sampleRate: 44100,
      channels: 2,
      tones: [{ frequency: 1234.5678, amplitude: 0.5 }],
      chirps: [{ f0: 100, f1: 5000, period: 0.37 }],
      noise: { rms: 0.05 },
      seed: 42,
      duration: 200_000,
    };
    const ref = await readAll(createGenerator(opts), { blockFrames: 200_000 });
    for (const blockFrames of [1, 1000, 4097, 65536, 65537]) {
      const g = createGenerator(opts);
      const end = blockFrames === 1 ? 3000 : 200_000;
      const got = await readAll(g, { blockFrames, end });
      expect(firstDifference(got, ref.subarray(0, got.length))).toBeUndefined();
    }
    // Random access gives the same samples as reading from the start.
    const mid = await readAll(createGenerator(opts), { start: 131_000, end: 131_050 });
    expect(firstDifference(mid, ref.subarray(2 * 131_000, 2 * 131_050))).toBeUndefined();
    // The tone alone against float64 across the 65536-frame segment boundary.
    const tone = await readAll(createGenerator({ sampleRate: 44100, tones: [{ frequency: 1234.5678 }] }), {
      start: 65530,
      end: 65542,
      blockFrames: 5,
    });
    for (let i = 0; i < tone.length; i++) {
      const n = 65530 + i;
      // Reference: the product reduced in float64 the plain way is precise enough this close to 0.
      expect(Math.abs(tone[i] - Math.sin((2 * Math.PI * ((1234.5678 * n) % 44100)) / 44100))).toBeLessThan(
        1e-7,
      );
    }
  });
});

/** A finite double as an exact fraction num / 2^shift (BigInt). */
function exactDouble(x: number): { num: bigint; shift: bigint } {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const bits = dv.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (exp !== 0) mant |= 1n << 52n;
  const e = (exp === 0 ? 1 : exp) - 1075; // x = mant · 2^e
  const sign = bits >> 63n ? -1n : 1n;
  return e >= 0 ? { num: sign * (mant << BigInt(e)), shift: 0n } : { num: sign * mant, shift: BigInt(-e) };
}

describe('generator tones at non-integer frequencies', () => {
  it('stay exact 10^12 frames in (phase reduced from an error-free product, not accumulated)', async () => {
    // Reference: the double 1234.5678 taken exactly, f·n/fs reduced mod 1 in BigInt.
    const fs = 44100;
    const f = 1234.5678;
    const { num, shift } = exactDouble(f);
    const den = BigInt(fs) << shift;
    for (const start of [1_000_000_007, 1e12 + 11]) {
      const got = await readAll(createGenerator({ sampleRate: fs, tones: [{ frequency: f }] }), {
        start,
        end: start + 64,
        blockFrames: 9,
      });
      for (let i = 0; i < 64; i++) {
        const r = (num * BigInt(start + i)) % den;
        const cycles = Number((r * 2n ** 60n) / den) / 2 ** 60;
        expect(Math.abs(got[i] - Math.sin(2 * Math.PI * cycles))).toBeLessThanOrEqual(F32_TOL);
      }
    }
  });
});

describe('generator chirps', () => {
  it('a linear chirp follows f0 + (f1 − f0)t/T and repeats phase-continuously', async () => {
    const fs = 8000;
    const T = 0.5;
    const g = createGenerator({
      sampleRate: fs,
      complex: true,
      chirps: [{ f0: -1000, f1: 1000, period: T }],
      duration: 3 * fs,
    });
    const x = await readAll(g, { blockFrames: 999 });
    // Instantaneous frequency from the phase step between neighbours.
    const inst = (n: number) =>
      (Math.atan2(
        x[2 * n] * x[2 * n + 3] - x[2 * n + 1] * x[2 * n + 2],
        x[2 * n] * x[2 * n + 2] + x[2 * n + 1] * x[2 * n + 3],
      ) *
        fs) /
      (2 * Math.PI);
    for (const n of [10, 1000, 2000, 3990, 4010, 9000]) {
      const t = ((n + 0.5) / fs) % T;
      expect(inst(n)).toBeCloseTo(-1000 + (2000 * t) / T, 0);
    }
    // Against float64: phase of the linear chirp within the first sweep.
    for (const n of [0, 1, 777, 3999]) {
      const t = n / fs;
      const ph = 2 * Math.PI * (-1000 * t + (0.5 * 2000 * t * t) / T);
      expect(Math.abs(x[2 * n] - Math.cos(ph))).toBeLessThan(1e-6);
    }
    // At the wrap (n = 4000) the sample continues the phase: the step stays small.
    const step = Math.hypot(x[8000] - x[7998], x[8001] - x[7999]);
    expect(step).toBeLessThan((2 * Math.PI * 1000) / fs + 1e-3);
  });

  it('a logarithmic chirp sweeps geometrically (like scipy.signal.chirp method="logarithmic")', async () => {
    const fs = 48000;
    const x = await readAll(
      createGenerator({
        sampleRate: fs,
        chirps: [{ f0: 100, f1: 10000, period: 1, method: 'logarithmic' }],
        duration: fs,
      }),
    );
    // Reference phase: 2π f0 T/ln(f1/f0) (β^(t/T) − 1), β = f1/f0.
    const k = Math.log(100);
    for (const n of [0, 5, 12000, 24000, 47999]) {
      const t = n / fs;
      expect(Math.abs(x[n] - Math.sin(((2 * Math.PI * 100) / k) * Math.expm1(k * t)))).toBeLessThan(1e-6);
    }
  });
});

describe('generator noise', () => {
  it('white Gaussian noise with the asked rms, zero mean, uncorrelated, seeded', async () => {
    const n = 200_000;
    const real = await readAll(createGenerator({ sampleRate: 1, noise: { rms: 0.1 }, seed: 7, duration: n }));
    let s = 0;
    let s2 = 0;
    let lag1 = 0;
    let beyond3 = 0;
    for (let i = 0; i < n; i++) {
      s += real[i];
      s2 += real[i] * real[i];
      if (i > 0) lag1 += real[i] * real[i - 1];
      if (Math.abs(real[i]) > 0.3) beyond3++;
    }
    const rms = Math.sqrt(s2 / n);
    // Standard errors for n = 2e5: mean 0.1/√n ≈ 2.2e-4, rms ≈ 0.1/√(2n) ≈ 1.6e-4; bounds at ~5σ.
    expect(Math.abs(s / n)).toBeLessThan(1.2e-3);
    expect(Math.abs(rms - 0.1)).toBeLessThan(8e-4);
    expect(Math.abs(lag1 / s2)).toBeLessThan(0.012);
    // Gaussian tails: P(|z| > 3σ) = 0.27 %.
    expect(beyond3 / n).toBeGreaterThan(0.0022);
    expect(beyond3 / n).toBeLessThan(0.0032);

    const cplx = await readAll(
      createGenerator({ sampleRate: 1, complex: true, noise: { rms: 0.1 }, seed: 7, duration: n }),
    );
    let p = 0;
    for (let i = 0; i < 2 * n; i++) p += cplx[i] * cplx[i];
    expect(Math.abs(Math.sqrt(p / n) - 0.1)).toBeLessThan(8e-4);

    const same = await readAll(
      createGenerator({ sampleRate: 1, noise: { rms: 0.1 }, seed: 7, duration: 1000 }),
      { blockFrames: 13 },
    );
    expect(firstDifference(same, real.subarray(0, 1000))).toBeUndefined();
    const other = await readAll(
      createGenerator({ sampleRate: 1, noise: { rms: 0.1 }, seed: 8, duration: 1000 }),
    );
    expect(firstDifference(other, same)).toBeDefined();
  });

  it('channels carry the same tone and independent noise', async () => {
    const x = await readAll(
      createGenerator({
        sampleRate: 1000,
        channels: 3,
        tones: [{ frequency: 50 }],
        noise: { rms: 0.01 },
        duration: 1000,
      }),
    );
    let d01 = 0;
    for (let i = 0; i < 1000; i++) d01 += Math.abs(x[3 * i] - x[3 * i + 1]);
    expect(d01 / 1000).toBeGreaterThan(0.005); // noise differs
    expect(d01 / 1000).toBeLessThan(0.03); // tone is shared
  });
});

describe('generator arguments and cancellation', () => {
  it('refuses bad options with InvalidArgumentError', () => {
    const bad: GeneratorOptions[] = [
      { sampleRate: 0 },
      { sampleRate: NaN },
      { sampleRate: 1, channels: 0 },
      { sampleRate: 1, duration: -1 },
      { sampleRate: 1, tones: [{ frequency: Infinity }] },
      { sampleRate: 1, chirps: [{ f0: 1, f1: 2, period: 0 }] },
      { sampleRate: 1, chirps: [{ f0: 0, f1: 2, period: 1, method: 'logarithmic' }] },
      { sampleRate: 1, noise: { rms: -1 } },
    ];
    for (const o of bad) expect(() => createGenerator(o), JSON.stringify(o)).toThrow(InvalidArgumentError);
  });

  it('an endless generator stops on abort', async () => {
    const g = createGenerator({ sampleRate: 48000, tones: [{ frequency: 1000 }] });
    const ac = new AbortController();
    let blocks = 0;
    await expect(
      (async () => {
        for await (const _b of g.blocks({ blockFrames: 256, signal: ac.signal }))
          if (++blocks === 5) ac.abort();
      })(),
    ).rejects.toMatchObject({ name: 'CancelledError' });
    expect(blocks).toBe(5);
  });
});

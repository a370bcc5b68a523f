// extractSource against SciPy (test/fixtures/make_extract_fixtures.py): mixing by −shift with n = 0 at the
// selection's first sample, firwin low-pass in 'same' alignment over the selection only, every K-th
// sample; the output's rate, centre, datetime and provenance; refusals in one line; nothing left behind
// by a cancelled or failed job.
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { PhasorWarning } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import { addSeconds, extractSource, type ExtractOptions } from '../../electron/engine/pipeline/extract.js';
import { suggestedDecimation } from '../../electron/engine/protocol/extract.js';
import type { SampleSource } from '../../electron/engine/sources/source.js';
import { toFloat32 } from '../../electron/engine/types.js';
import { openGpu } from '../cuda/gpu.js';
import { tempDir } from '../support/cli.js';
import { openWebGpu } from '../webgpu/gpu.js';
import { expected, fx, relError, writeIq, writeReal, type ExtractCase } from './extract-fixture.js';

const tmp = tempDir('phasor-extract-');
let cpu: Backend;
let iqPath: string;
let realPath: string;
beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 2 });
  iqPath = writeIq(tmp.dir);
  realPath = writeReal(tmp.dir);
});
afterAll(async () => {
  await cpu.dispose();
  tmp.remove();
});

async function readAll(path: string): Promise<{ data: Float32Array; source: SampleSource }> {
  const source = await openSource(path);
  const parts: Float32Array[] = [];
  for await (const b of source.blocks()) parts.push(toFloat32(b.data).slice());
  await source.close();
  const data = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  return { data, source };
}

function optionsOf(c: ExtractCase): ExtractOptions {
  return {
    start: c.start,
    end: c.end,
    shift: c.shift,
    decimate: c.decimate,
    ...(c.lowpass !== null ? { lowpass: c.lowpass, numtaps: c.numtaps! } : {}),
  };
}

async function run(input: string, output: string, o: ExtractOptions, backend: Backend = cpu) {
  const source = await openSource(input);
  try {
    return await extractSource(backend, source, output, o);
  } finally {
    await source.close();
  }
}

/** Every fixture case on `backend`, whole and in blocks of 777 frames: the worst relative error. */
async function worstOn(backend: Backend): Promise<number> {
  let worst = 0;
  for (const c of fx.cases) {
    for (const blockFrames of [undefined, 777]) {
      const out = join(tmp.dir, `${backend.name}-${c.name}-${blockFrames ?? 'file'}.sigmf-meta`);
      const input = c.source === 'iq' ? iqPath : realPath;
      await run(input, out, { ...optionsOf(c), ...(blockFrames ? { blockFrames } : {}) }, backend);
      const { data } = await readAll(out);
      worst = Math.max(
        worst,
        data.length === c.frames * (c.complex ? 2 : 1) ? relError(data, expected(c)) : 1,
      );
    }
  }
  return worst;
}

describe('extractSource against SciPy', () => {
  for (const c of fx.cases) {
    for (const blockFrames of [undefined, 777]) {
      it(`${c.name}${blockFrames ? ` in blocks of ${blockFrames}` : ''}`, async () => {
        const input = c.source === 'iq' ? iqPath : realPath;
        const ext = c.complex ? 'sigmf-meta' : 'wav';
        const out = join(tmp.dir, `${c.name}-${blockFrames ?? 'file'}.${ext}`);
        const r = await run(input, out, { ...optionsOf(c), ...(blockFrames ? { blockFrames } : {}) });
        const fs = c.source === 'iq' ? fx.iq.fs : fx.real.fs;
        expect(r.frames).toBe(c.frames);
        expect(r.complex).toBe(c.complex);
        expect(r.sampleRate).toBe(fs / c.decimate);
        const { data, source } = await readAll(r.output);
        expect(source.info.complex).toBe(c.complex);
        expect(source.info.sampleRate).toBe(fs / c.decimate);
        expect(source.info.samples).toBe(c.frames);
        expect(source.info.encoding).toBe(c.complex ? 'cf32_le' : 'rf32_le');
        const ref = expected(c);
        expect(data.length).toBe(ref.length);
        const err = relError(data, ref);
        expect(err).toBeLessThan(1e-4);
      });
    }
  }

  it('fails the comparison when the phase reference is the file start instead', async () => {
    // The same selection mixed with n counted from the file's first sample differs by a constant phase.
    const c = fx.cases.find((x) => x.name === 'iq-shift-only')!;
    const out = join(tmp.dir, 'phase.sigmf-meta');
    const r = await run(iqPath, out, optionsOf(c));
    const { data } = await readAll(r.output);
    const ref = expected(c);
    const phi = (-2 * Math.PI * c.shift * c.start) / fx.iq.fs;
    const turned = new Float32Array(ref.length);
    for (let i = 0; i < ref.length; i += 2) {
      turned[i] = ref[i] * Math.cos(phi) - ref[i + 1] * Math.sin(phi);
      turned[i + 1] = ref[i] * Math.sin(phi) + ref[i + 1] * Math.cos(phi);
    }
    expect(relError(data, ref)).toBeLessThan(1e-4);
    expect(relError(data, turned)).toBeGreaterThan(0.1);
  });
});

describe('extractSource on the GPU backends', () => {
  it('webgpu: the fixture’s cases match SciPy', async (ctx) => {
    const gpu = await openWebGpu();
    if (!gpu.backend) return ctx.skip(gpu.skip);
    try {
      expect(await worstOn(gpu.backend)).toBeLessThan(1e-4);
    } finally {
      await gpu.backend.dispose();
    }
  });

  it('[needs-gpu] cuda: the fixture’s cases match SciPy (page-locked blocks)', async (ctx) => {
    const gpu = await openGpu();
    if (!gpu.backend) return ctx.skip(gpu.skip);
    try {
      expect(await worstOn(gpu.backend)).toBeLessThan(1e-4);
    } finally {
      await gpu.backend.dispose();
    }
  });
});

describe('extractSource metadata', () => {
  it('gives the output the new rate, the shifted centre, the selection time and its provenance', async () => {
    const c = fx.cases.find((x) => x.name === 'iq-shift-lowpass-decimate')!;
    const out = join(tmp.dir, 'meta-check.sigmf-meta');
    const r = await run(iqPath, out, optionsOf(c));
    expect(r.centerFrequency).toBe(fx.iq.center + c.shift);
    // 1200 frames at 240 kHz = 5 ms after 05:06:07.123456
    expect(r.datetime).toBe('2026-03-04T05:06:07.128456Z');
    const meta = JSON.parse(readFileSync(out, 'utf8')) as {
      global: Record<string, unknown>;
      captures: Array<Record<string, unknown>>;
      annotations: unknown[];
    };
    expect(meta.global['core:datatype']).toBe('cf32_le');
    expect(meta.global['core:sample_rate']).toBe(fx.iq.fs / c.decimate);
    expect(meta.global['core:description']).toBe('extract fixture');
    expect(meta.captures).toEqual([
      {
        'core:sample_start': 0,
        'core:datetime': '2026-03-04T05:06:07.128456Z',
        'core:frequency': fx.iq.center + c.shift,
      },
    ]);
    expect(meta.annotations).toEqual([]);
    expect(meta.global['phasor:applied']).toEqual({
      extract: {
        source: join(tmp.dir, 'iq.sigmf-data'),
        start: c.start / fx.iq.fs,
        duration: (c.end - c.start) / fx.iq.fs,
        shift: c.shift,
        lowpass: c.lowpass,
        numtaps: c.numtaps,
        decimate: c.decimate,
        phase: 'n = 0 at the first sample of the selection',
      },
    });
    const opened = await openSource(out);
    expect(opened.info.centerFrequency).toBe(fx.iq.center + c.shift);
    await opened.close();
  });

  it('centres a shifted real input on the shift, and keeps an unshifted one real and centreless', async () => {
    const shifted = fx.cases.find((x) => x.name === 'real-shift')!;
    const a = await run(realPath, join(tmp.dir, 'rs.sigmf-meta'), optionsOf(shifted));
    expect(a.centerFrequency).toBe(shifted.shift);
    expect(a.datetime).toBeUndefined();
    const plain = fx.cases.find((x) => x.name === 'real-unshifted')!;
    const b = await run(realPath, join(tmp.dir, 'ru.sigmf-meta'), optionsOf(plain));
    expect(b.complex).toBe(false);
    expect(b.encoding).toBe('rf32_le');
    expect(b.centerFrequency).toBeUndefined();
  });

  it('adds seconds to SigMF datetimes to the nanosecond', () => {
    expect(addSeconds('2026-03-04T05:06:07Z', 0.5)).toBe('2026-03-04T05:06:07.5Z');
    expect(addSeconds('2026-12-31T23:59:59.999999999Z', 1e-9)).toBe('2027-01-01T00:00:00Z');
    expect(addSeconds('2026-03-04T05:06:07.25Z', 3600.000000001)).toBe('2026-03-04T06:06:07.250000001Z');
    expect(addSeconds('yesterday', 1)).toBeUndefined();
  });

  it('suggests the largest decimation keeping 2.5 × the cutoff', () => {
    expect(suggestedDecimation(240_000, 10_000)).toBe(9);
    expect(suggestedDecimation(48_000, 20_000)).toBe(1);
    expect(240_000 / suggestedDecimation(240_000, 7_000)).toBeGreaterThanOrEqual(2.5 * 7_000);
    expect(240_000 / (suggestedDecimation(240_000, 7_000) + 1)).toBeLessThan(2.5 * 7_000);
  });
});

describe('extractSource refusals and failures', () => {
  const refused = async (input: string, output: string, o: ExtractOptions, pattern: RegExp) => {
    await expect(run(input, output, o)).rejects.toThrow(pattern);
  };

  it('refuses bad parameters in one line, writing nothing', async () => {
    const dir = join(tmp.dir, 'refused');
    mkdirSync(dir);
    const out = join(dir, 'x.sigmf-meta');
    await refused(
      iqPath,
      out,
      { start: 8000 },
      /^the start \(0\.033333 s\) is past the end of the file \(0\.033333 s long\)$/,
    );
    await refused(iqPath, out, { decimate: 0 }, /decimation must be a whole number ≥ 1/);
    await refused(iqPath, out, { decimate: 2.5 }, /decimation must be a whole number ≥ 1/);
    await refused(iqPath, out, { lowpass: 120_000 }, /less than fs\/2 = 120000/);
    await refused(iqPath, out, { lowpass: 1000, numtaps: 0 }, /numtaps must be an integer ≥ 1/);
    await refused(iqPath, out, { start: 100, end: 100 }, /selection is empty/);
    await refused(iqPath, join(dir, 'x.wav'), {}, /WAV holds audio, not I\/Q; .*SigMF/);
    await refused(realPath, join(dir, 'x.wav'), { shift: 100 }, /WAV holds audio, not I\/Q/);
    await refused(iqPath, join(dir, 'x.txt'), {}, /cannot tell the output format/);
    await refused(realPath, realPath, {}, /would overwrite the input/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('clamps a range past the end to the file', async () => {
    const r = await run(iqPath, join(tmp.dir, 'clamp.sigmf-meta'), { start: 7000, end: 100_000 });
    expect(r.frames).toBe(1000);
    expect(r.end).toBe(8000);
  });

  it('warns that decimation without a low-pass aliases, and does it', async () => {
    const warnings: PhasorWarning[] = [];
    const r = await run(iqPath, join(tmp.dir, 'alias.sigmf-meta'), {
      decimate: 3,
      onWarning: (w) => warnings.push(w),
    });
    expect(r.frames).toBe(Math.ceil(8000 / 3));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/decimating by 3 without a low-pass/);
    expect(warnings[0].message).not.toMatch(/\n/);
  });

  it('leaves nothing when cancelled mid-job, and the input untouched', async () => {
    const dir = join(tmp.dir, 'cancelled');
    mkdirSync(dir);
    const before = readFileSync(iqPath.replace(/meta$/, 'data'));
    const controller = new AbortController();
    const source = await openSource(iqPath);
    try {
      await expect(
        extractSource(cpu, source, join(dir, 'out.sigmf-meta'), {
          lowpass: 10_000,
          numtaps: 31,
          blockFrames: 500,
          signal: controller.signal,
          onProgress: (done) => {
            if (done >= 2000) controller.abort();
          },
        }),
      ).rejects.toThrow(/cancel/i);
    } finally {
      await source.close();
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(readFileSync(iqPath.replace(/meta$/, 'data')).equals(before)).toBe(true);
  });
});

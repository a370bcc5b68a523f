// designFilter against the dsp functions it is built on, and applyFilter on a generated file: the stop-band
// tone gone from the output's spectrum, progress, cancel leaving neither output nor temporary.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { firResponse, firwin, kaiserord, unwrapPhase } from '../../electron/engine/dsp/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import type {
  ApplyFilterResult,
  FileInfo,
  FilterDesignResult,
} from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { noise, tones } from '../support/signals.js';
import { readTestWav, writeTestWav } from '../support/wav.js';
import { until } from '../live/helpers.js';
import { Client, Gate, gatedBackend, toneAmplitude } from './helpers.js';

const FS = 48000;
const N = 48000;
let cpu: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-filter-');
const pass = tones(N, FS, [{ frequency: 500, amplitude: 0.4 }]);
const stop = tones(N, FS, [{ frequency: 9000, amplitude: 0.4 }]);
const hiss = noise(N, 3, 0.001);
const signal = pass.map((v, i) => v + stop[i] + hiss[i]);

beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend: cpu, progressIntervalMs: 0 });
  writeTestWav(join(tmp.dir, 'in.wav'), signal, FS, 1, 'float32');
});
afterAll(async () => {
  await engine.dispose();
  await cpu.dispose();
  tmp.remove();
});

describe('designFilter', () => {
  it('gives firwin taps and their response on points from 0 to fs/2', async () => {
    const c = new Client(engine);
    const d = await c.ok<FilterDesignResult>('designFilter', {
      kind: 'bandpass',
      cutoff: [1000, 3000],
      fs: FS,
      numtaps: 101,
      window: 'blackman',
      points: 64,
    });
    const taps = firwin(101, [1000, 3000], { window: 'blackman', passZero: 'bandpass', fs: FS });
    expect(d.numtaps).toBe(101);
    expect(d.window).toBe('blackman');
    expect(d.beta).toBeUndefined();
    expect(d.taps).toEqual(Array.from(taps));
    const f = d.response.frequencies;
    expect(f.length).toBe(64);
    expect(f[0]).toBe(0);
    expect(f[63]).toBe(FS / 2);
    const ref = firResponse(taps, f, FS);
    for (let i = 0; i < 64; i++) {
      expect(d.response.magnitudeDb[i]).toBeCloseTo(ref.magnitudeDb[i], 9);
      expect(d.response.groupDelay[i]).toBeCloseTo(ref.groupDelay[i], 6);
    }
    expect(d.response.phase).toEqual(Array.from(unwrapPhase(ref.phase)));
    // A linear-phase filter delays by (numtaps − 1)/2 samples in its pass band.
    const mid = f.findIndex((x) => x >= 2000);
    expect(d.response.groupDelay[mid]).toBeCloseTo(50, 6);
    c.conn.close();
  });

  it('sizes a Kaiser design like kaiserord, rounding up to odd taps where gain at Nyquist needs it', async () => {
    const c = new Client(engine);
    const low = await c.ok<FilterDesignResult>('designFilter', {
      kind: 'lowpass',
      cutoff: 4000,
      fs: FS,
      ripple: 60,
      width: 1000,
    });
    const k = kaiserord(60, 1000, FS);
    expect(low.numtaps).toBe(k.numtaps);
    expect(low.beta).toBe(k.beta);
    expect(low.window).toBe(`kaiser:${k.beta}`);
    expect(low.taps).toEqual(
      Array.from(firwin(k.numtaps, 4000, { window: { name: 'kaiser', beta: k.beta }, fs: FS })),
    );
    expect(low.response.frequencies.length).toBe(1024);
    // At least 60 dB down beyond the transition (4500 Hz and up): the design meets its specification.
    const { frequencies, magnitudeDb } = low.response;
    const worst = Math.max(...magnitudeDb.filter((_, i) => frequencies[i] >= 4500));
    expect(worst).toBeLessThan(-59.5);
    const hk = kaiserord(60, 1100, FS);
    const high = await c.ok<FilterDesignResult>('designFilter', {
      kind: 'highpass',
      cutoff: 4000,
      fs: FS,
      ripple: 60,
      width: 1100,
    });
    expect(hk.numtaps % 2).toBe(0); // kaiserord's length is even here…
    expect(high.numtaps).toBe(hk.numtaps + 1); // …and a highpass needs odd taps
    c.conn.close();
  });

  it('refuses impossible designs with messages naming the constraint', async () => {
    const c = new Client(engine);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ kind: 'highpass', cutoff: 1000, numtaps: 64 }, /numtaps must be odd.*use 65/],
      [{ kind: 'bandstop', cutoff: [1000, 2000], numtaps: 10 }, /numtaps must be odd/],
      [{ kind: 'lowpass', cutoff: 30000, numtaps: 11 }, /less than fs\/2 = 24000/],
      [{ kind: 'bandpass', cutoff: [3000, 1000], numtaps: 11 }, /strictly increasing/],
      [{ kind: 'lowpass', cutoff: [1000, 2000], numtaps: 11 }, /one cutoff/],
      [{ kind: 'bandpass', cutoff: 1000, numtaps: 11 }, /two cutoff/],
      [{ kind: 'lowpass', cutoff: 1000 }, /give numtaps/],
      [{ kind: 'lowpass', cutoff: 1000, numtaps: 11, ripple: 40, width: 100 }, /not both/],
      [{ kind: 'lowpass', cutoff: 1000, ripple: 40 }, /both ripple .* and width/],
      [{ kind: 'lowpass', cutoff: 1000, ripple: 40, width: 100, window: 'hann' }, /leave window out/],
      [{ kind: 'lowpass', cutoff: 1000, ripple: 5, width: 100 }, /at least 8 dB/],
      [{ kind: 'lowpass', cutoff: 1000, ripple: 120, width: 1 }, /more than 65535/],
      [{ kind: 'lowpass', cutoff: 1000, numtaps: 11, window: 'triangle' }, /unknown window/],
    ];
    for (const [params, pattern] of cases) {
      const e = await c.error('designFilter', { fs: FS, ...params });
      expect(e.code, JSON.stringify(params)).toBe('invalid-argument');
      expect(e.message).toMatch(pattern);
    }
    for (const params of [
      { kind: 'notch', cutoff: 1000, fs: FS, numtaps: 11 },
      { kind: 'lowpass', cutoff: -5, fs: FS, numtaps: 11 },
      { kind: 'lowpass', cutoff: 1000, fs: FS, numtaps: 0 },
      { kind: 'lowpass', cutoff: 1000, numtaps: 11 },
      { kind: 'lowpass', cutoff: 1000, fs: FS, numtaps: 11, points: 3 },
    ]) {
      expect((await c.error('designFilter', params)).code).toBe('bad-request');
    }
    c.conn.close();
  });
});

describe('applyFilter', () => {
  it('writes a file whose spectrum lost the stop-band tone, with progress', async () => {
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'in.wav') });
    const d = await c.ok<FilterDesignResult>('designFilter', {
      kind: 'lowpass',
      cutoff: 2000,
      fs: FS,
      ripple: 80,
      width: 2000,
    });
    const id = c.send('applyFilter', { file: f.file, output: 'low.wav', taps: d.taps });
    const r = await c.reply(id);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as ApplyFilterResult;
    expect(res).toMatchObject({
      output: join(tmp.dir, 'low.wav'), // relative to the input's folder
      frames: N,
      clipped: 0,
      encoding: 'rf32_le',
      numtaps: d.numtaps,
      backend: 'cpu',
    });
    expect(res.seconds).toBeGreaterThan(0);
    const out = readTestWav(readFileSync(res.output));
    expect(out.samples.length).toBe(N);
    // Away from the edges (the filter's length): the 500 Hz tone kept within 0.01 dB of its 0.4, the
    // 9 kHz tone 80 dB down (the design's attenuation) — 0.4·1e-4; the window projection leaks < 1e-6.
    const mid = out.samples.subarray(2000, N - 2000);
    expect(20 * Math.log10(toneAmplitude(mid, FS, 500) / 0.4)).toBeCloseTo(0, 1);
    expect(toneAmplitude(mid, FS, 9000)).toBeLessThan(0.4 * 1e-4 * 1.5);
    expect(toneAmplitude(signal.subarray(2000, N - 2000), FS, 9000)).toBeGreaterThan(0.39);
    const p = c.progressOf(id);
    expect(p.length).toBeGreaterThan(0);
    expect(p.every((e) => e.unit === 'frames' && e.total === N)).toBe(true);
    expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    c.conn.close();
  });

  it('refuses to overwrite its input and a name with no known format', async () => {
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'in.wav') });
    const self = await c.error('applyFilter', {
      file: f.file,
      output: join(tmp.dir, 'in.wav'),
      taps: [0.5, 0.5],
    });
    expect(self.message).toMatch(/overwrite the input/);
    const unknown = await c.error('applyFilter', { file: f.file, output: 'x.mp3', taps: [1] });
    expect(unknown.message).toMatch(/cannot tell the output format/);
    expect((await c.error('applyFilter', { file: f.file, output: 'x.wav', taps: [] })).code).toBe(
      'bad-request',
    );
    expect((await c.error('applyFilter', { file: f.file, output: 'x.wav', taps: ['a'] })).code).toBe(
      'bad-request',
    );
    c.conn.close();
  });
});

describe('cancelling a filter', () => {
  it('cancel mid-filter answers cancelled and leaves no output and no temporary', async () => {
    const gate = new Gate();
    const gated = new Engine({ backend: gatedBackend(cpu, { fir: gate }), progressIntervalMs: 0 });
    const c = new Client(gated);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'in.wav') });
    const output = join(tmp.dir, 'cancelled.wav');
    const id = c.send('applyFilter', { file: f.file, output, taps: [0.25, 0.5, 0.25] });
    // Held inside its first block: the temporary exists, the output does not.
    await until(() => gate.reached === 1, 10000, 'the filter to start');
    expect(readdirSync(tmp.dir).some((n) => n.startsWith('.cancelled.wav.phasor-'))).toBe(true);
    const cancel = await c.request('cancel', { request: id });
    expect(cancel).toMatchObject({ ok: true, result: { cancelled: true } });
    gate.open();
    const r = await c.reply(id);
    expect(r).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(existsSync(output)).toBe(false);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('cancelled'))).toEqual([]);
    // A second cancel, or one for a request that is not running, cancels nothing.
    expect(await c.request('cancel', { request: id })).toMatchObject({
      ok: true,
      result: { cancelled: false },
    });
    expect(await c.request('cancel', { request: 424242 })).toMatchObject({ result: { cancelled: false } });
    c.conn.close();
  });

  it('closing the connection cancels its jobs: no output, no temporary', async () => {
    const gate = new Gate();
    const gated = new Engine({ backend: gatedBackend(cpu, { fir: gate }), progressIntervalMs: 0 });
    const c = new Client(gated);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'in.wav') });
    const output = join(tmp.dir, 'closed.wav');
    c.send('applyFilter', { file: f.file, output, taps: [0.25, 0.5, 0.25] });
    await until(() => gate.reached === 1, 10000, 'the filter to start');
    c.conn.close();
    gate.open();
    await until(
      () => readdirSync(tmp.dir).filter((n) => n.includes('closed')).length === 0,
      10000,
      'the temporary to go',
    );
    expect(existsSync(output)).toBe(false);
  });

  it('closing the file cancels the job reading it', async () => {
    const gate = new Gate();
    const gated = new Engine({ backend: gatedBackend(cpu, { fir: gate }), progressIntervalMs: 0 });
    const c = new Client(gated);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'in.wav') });
    const id = c.send('applyFilter', { file: f.file, output: 'closing.wav', taps: [1, 2, 1] });
    await until(() => gate.reached === 1, 10000, 'the filter to start');
    expect(await c.request('closeFile', { file: f.file })).toMatchObject({ ok: true });
    gate.open();
    expect(await c.reply(id)).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(existsSync(join(tmp.dir, 'closing.wav'))).toBe(false);
    c.conn.close();
  });
});

// correlate (a template file, and a frame range of the signal as the template) finds a planted lag, with an
// envelope that keeps the maximum of each bucket; listBackends and runBench with rows as progress events.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { Envelope } from '../../electron/engine/offline/envelope.js';
import type {
  BackendDetails,
  BenchResult,
  CorrelateResult,
  FileInfo,
} from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { Client } from './helpers.js';

const FS = 8000;
const N = 60000;
const M = 800;
const LAG = 31337;
let backend: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-corr-');
const template = noise(M, 11, 0.5);
const signal = noise(N, 12, 0.2);
for (let i = 0; i < M; i++) signal[LAG + i] += template[i];

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({
    backend,
    progressIntervalMs: 0,
    excludeBackends: { webgpu: 'excluded by the test host' },
  });
  writeTestWav(join(tmp.dir, 'signal.wav'), signal, FS, 1, 'float32');
  writeTestWav(join(tmp.dir, 'template.wav'), template, FS, 1, 'float32');
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
  tmp.remove();
});

type Corr = CorrelateResult & { data: Float32Array };

/** Normalized correlation at one lag in float64. */
function score(lag: number, t: Float64Array): number {
  let xt = 0;
  let xx = 0;
  let tt = 0;
  for (let k = 0; k < t.length; k++) {
    xt += signal[lag + k] * t[k];
    xx += signal[lag + k] ** 2;
    tt += t[k] ** 2;
  }
  return Math.abs(xt) / Math.sqrt(xx * tt);
}

describe('correlate', () => {
  it('finds the planted template, with an envelope of bucket maxima', async () => {
    const c = new Client(engine);
    const s = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'signal.wav') });
    const t = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'template.wav') });
    const id = c.send('correlate', { signal: s.file, template: { file: t.file }, points: 1000, top: 3 });
    const r = await c.reply(id);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as unknown as Corr;
    const lags = N - M + 1;
    expect(res).toMatchObject({ lags, templateLength: M, sampleRate: FS, bucket: Math.ceil(lags / 1000) });
    expect(res.points).toBe(Math.ceil(lags / res.bucket));
    expect(res.data.length).toBe(res.points);
    expect(res.peaks.length).toBe(3);
    expect(res.peaks[0].lag).toBe(LAG);
    expect(res.peaks[0].time).toBeCloseTo(LAG / FS, 12);
    // float32 engine vs float64 reference: agreement to 1e-4 of a score in [0, 1].
    const ref = score(LAG, template);
    expect(res.peaks[0].score).toBeCloseTo(ref, 4);
    expect(ref).toBeGreaterThan(0.9);
    // The envelope: the planted lag's bucket holds its score; every bucket holds the max of its lags.
    const b = Math.floor(LAG / res.bucket);
    expect(res.data[b]).toBeCloseTo(res.peaks[0].score, 5);
    for (const k of [0, 17, res.points - 1]) {
      let m = 0;
      for (let lag = k * res.bucket; lag < Math.min(lags, (k + 1) * res.bucket); lag++)
        m = Math.max(m, score(lag, template));
      expect(res.data[k]).toBeCloseTo(m, 4);
    }
    expect(Math.max(...Array.from(res.data).filter((_, i) => i !== b))).toBeLessThan(0.3);
    const p = c.progressOf(id);
    expect(p.length).toBeGreaterThan(0);
    expect(p.every((e) => e.unit === 'frames' && e.total === N)).toBe(true);
    c.conn.close();
  });

  it('uses a frame range of a file (the current selection) as the template', async () => {
    const c = new Client(engine);
    const s = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'signal.wav') });
    const res = (await c.ok('correlate', {
      signal: s.file,
      template: { file: s.file, start: LAG + 100, end: LAG + 500 },
    })) as unknown as Corr;
    expect(res.templateLength).toBe(400);
    expect(res.peaks[0].lag).toBe(LAG + 100);
    expect(res.peaks[0].score).toBeCloseTo(1, 5);
    // At most the default 4096 points: whole buckets of ceil(lags / 4096) lags.
    expect(res.points).toBe(Math.ceil((N - 400 + 1) / Math.ceil((N - 400 + 1) / 4096)));
    const empty = await c.error('correlate', {
      signal: s.file,
      template: { file: s.file, start: 5, end: 5 },
    });
    expect(empty.code).toBe('invalid-argument');
    expect(empty.message).toMatch(/holds no samples/);
    c.conn.close();
  });

  it('says why when the template cannot be used', async () => {
    const c = new Client(engine);
    const s = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'signal.wav') });
    const t = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'template.wav') });
    const longer = await c.error('correlate', { signal: t.file, template: { file: s.file } });
    expect(longer.message).toMatch(/shorter than the template/);
    const notOpen = await c.error('correlate', { signal: s.file, template: { file: 77 } });
    expect(notOpen.message).toMatch(/file 77 is not open/);
    for (const params of [
      { signal: s.file },
      { signal: s.file, template: { file: t.file }, points: 3 },
      { signal: s.file, template: { file: t.file }, top: 0 },
      { signal: s.file, template: { file: t.file, start: -1 } },
    ]) {
      expect((await c.error('correlate', params)).code).toBe('bad-request');
    }
    c.conn.close();
  });
});

describe('Envelope', () => {
  it('keeps the maximum of each bucket whatever the chunking', () => {
    const values = Float32Array.from(noise(1003, 5, 1), Math.abs);
    const whole = new Envelope(1003, 10);
    whole.add(0, values);
    const parts = new Envelope(1003, 10);
    for (let i = 0; i < 1003; i += 37) parts.add(i, values.subarray(i, i + 37));
    expect(whole.bucket).toBe(101);
    expect(Array.from(parts.result())).toEqual(Array.from(whole.result()));
    for (let k = 0; k < whole.data.length; k++) {
      expect(whole.data[k]).toBe(Math.max(...values.subarray(k * 101, (k + 1) * 101)));
    }
    expect(new Envelope(5, 100).data.length).toBe(5);
  });
});

describe('listBackends and runBench', () => {
  it('lists every backend with its device or why it cannot be used', async () => {
    const c = new Client(engine);
    const { backends } = await c.ok<{ backends: BackendDetails[] }>('listBackends', {});
    expect(backends.map((b) => b.name).sort()).toEqual(['cpu', 'cuda', 'webgpu']);
    const cpu = backends.find((b) => b.name === 'cpu')!;
    expect(cpu.available).toBe(true);
    expect(cpu.device).toMatch(/CPU/);
    const webgpu = backends.find((b) => b.name === 'webgpu')!;
    expect(webgpu).toEqual({ name: 'webgpu', available: false, reason: 'excluded by the test host' });
    for (const b of backends) expect(b.available ? b.device : b.reason).toBeTruthy();
    c.conn.close();
  });

  it('sends each benchmark row as a progress event, then the whole result', async () => {
    const c = new Client(engine);
    const id = c.send('runBench', {
      backends: ['cpu'],
      ops: ['fft', 'fir'],
      sizes: [64, 100],
      samples: 4096,
      repeats: 1,
    });
    const r = await c.reply(id);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as BenchResult;
    expect(res.rows.map((x) => [x.backend, x.op, x.size])).toEqual([
      ['cpu', 'fft', 64],
      ['cpu', 'fft', 100],
      ['cpu', 'fir', 64],
      ['cpu', 'fir', 100],
    ]);
    for (const row of res.rows) {
      expect(row.relError).toBeLessThan(1e-5);
      expect(row.samplesPerSecond).toBeGreaterThan(0);
      expect(row.vsCpu).toBe(1);
    }
    const rows = c.progressOf(id).filter((p) => p.row);
    expect(rows.map((p) => p.row)).toEqual(res.rows);
    expect(rows.map((p) => [p.done, p.total, p.unit])).toEqual([
      [1, 4, 'rows'],
      [2, 4, 'rows'],
      [3, 4, 'rows'],
      [4, 4, 'rows'],
    ]);
    expect(res.machine.threads).toBeGreaterThan(0);
    expect(res.backends.find((b) => b.name === 'cpu')?.available).toBe(true);
    c.conn.close();
  });

  it('is cancelled between rows', async () => {
    const c = new Client(engine);
    let id = -1;
    c.onProgress = (p) => {
      if (p.request === id && p.row) c.send('cancel', { request: id });
    };
    id = c.send('runBench', {
      backends: ['cpu'],
      ops: ['fft'],
      sizes: [64, 128, 256, 512],
      samples: 4096,
      repeats: 1,
    });
    expect(await c.reply(id)).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(c.progressOf(id).filter((p) => p.row).length).toBe(1);
    c.conn.close();
  });

  it('refuses unknown and unavailable backends', async () => {
    const c = new Client(engine);
    const unknown = await c.error('runBench', { backends: ['tpu'], ops: ['fft'] });
    expect(unknown.code).toBe('invalid-argument');
    expect(unknown.message).toMatch(/unknown backend "tpu"/);
    const excluded = await c.error('runBench', { backends: ['cpu', 'webgpu'], ops: ['fft'] });
    expect(excluded).toEqual({
      code: 'backend-unavailable',
      message: 'backend webgpu is not available: excluded by the test host',
    });
    for (const params of [
      { backends: [], ops: ['fft'] },
      { backends: ['cpu'], ops: ['fft'], samples: 10 },
      { backends: ['cpu'], ops: ['ifft'] },
      { backends: ['cpu'], ops: ['fft'], repeats: 0 },
    ]) {
      expect((await c.error('runBench', params)).code).toBe('bad-request');
    }
    c.conn.close();
  });
});

// The measure request: band measurements of a file's frame range through a connection, as the File view
// asks for them (test/fixtures/measure: signals with analytic answers).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import type { FileInfo, MeasureResult } from '../../electron/engine/protocol/messages.js';
import { Client } from './helpers.js';

const DIR = new URL('../fixtures/measure/', import.meta.url);
const fixture = JSON.parse(readFileSync(new URL('measure.json', DIR), 'utf8')) as {
  cases: Array<{ file: string; thdDb?: number; thdnDb?: number; snrDb?: number; fundamentalDb?: number }>;
};
const harmonics = fixture.cases.find((c) => c.file === 'harmonics.wav')!;

let backend: Backend;
let engine: Engine;
let client: Client;
let info: FileInfo;

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({
    backend,
    progressIntervalMs: 0,
    excludeBackends: { webgpu: 'excluded by the test host' },
  });
  client = new Client(engine);
  info = await client.ok<FileInfo>('openFile', { path: fileURLToPath(new URL('harmonics.wav', DIR)) });
});
afterAll(async () => {
  await client.conn.close();
  await engine.dispose();
  await backend.dispose();
});

describe('measure request', () => {
  it('measures a selection: THD, THD+N and SNR of the analytic values, with progress', async () => {
    const id = client.send('measure', { file: info.file, start: 4000, end: 30000, fLow: 20, fHigh: 20000 });
    const r = await client.reply(id);
    if (!r.ok) throw new Error(r.error.message);
    const m = r.result as unknown as MeasureResult;
    expect(m.start).toBe(4000);
    expect(m.end).toBe(30000);
    expect(m.window).toBe('hann');
    // 26000 frames: the largest power of two leaving 8 segments
    expect(m.fft).toBe(4096);
    expect(m.rbw).toBeCloseTo((1.5 * 48000) / 4096, 9);
    expect(m.enbw).toBeCloseTo(1.5, 12);
    expect(Math.abs(m.thd!.thdDb - harmonics.thdDb!)).toBeLessThan(0.1);
    expect(Math.abs(m.thd!.thdnDb - harmonics.thdnDb!)).toBeLessThan(0.1);
    expect(Math.abs(m.snr! - harmonics.snrDb!)).toBeLessThan(0.15);
    expect(Math.abs(m.tone!.level - harmonics.fundamentalDb!)).toBeLessThan(0.05);
    const progress = client.progressOf(id);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ done: 26000, total: 26000, unit: 'frames' });
  });

  it('a band without a tone answers without SNR and THD, saying why (no NaN, no null)', async () => {
    const m = await client.ok<MeasureResult>('measure', { file: info.file, fLow: 12000, fHigh: 20000 });
    expect(m.snr).toBeUndefined();
    expect(m.thd).toBeUndefined();
    expect(m.missing.snr).toMatch(/no tone/);
    expect(m.missing.thd).toMatch(/no tone/);
    expect(m.bandPower).toBeLessThan(-40);
    expect(m.occupiedBandwidth!.lower).toBeGreaterThanOrEqual(12000);
  });

  it('refuses a band outside the spectrum and a selection shorter than the FFT, naming the file', async () => {
    const band = await client.error('measure', { file: info.file, fLow: 30000, fHigh: 40000 });
    expect(band.code).toBe('invalid-argument');
    expect(band.message).toMatch(/harmonics\.wav: the band 30000 Hz … 40000 Hz lies outside/);
    const short = await client.error('measure', { file: info.file, start: 0, end: 100, fft: 1024 });
    expect(short.message).toMatch(
      /harmonics\.wav: the selection holds 100 frame\(s\), fewer than the FFT size 1024/,
    );
    const schema = await client.error('measure', { file: info.file, window: 'nope' });
    expect(schema.message).toMatch(/unknown window/);
  });
});

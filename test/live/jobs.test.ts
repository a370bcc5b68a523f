// A live session keeps streaming, and live requests keep being answered, while an offline job runs on the
// same connection: the job is held inside its work by a gate (no timing), the rows and replies must come.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import {
  defaultAnalysis,
  type FileInfo,
  type FileSpectrogramResult,
} from '../../electron/engine/protocol/messages.js';
import { Client, Gate, gatedBackend } from '../offline/helpers.js';
import { tempDir } from '../support/cli.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { until } from './helpers.js';

let cpu: Backend;
const tmp = tempDir('phasor-live-jobs-');
const JOB_FFT = 4096;

beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 0 });
  writeTestWav(
    join(tmp.dir, 'tone.wav'),
    tones(40000, 48000, [{ frequency: 2000, amplitude: 0.5 }]),
    48000,
    1,
  );
});
afterAll(async () => {
  await cpu.dispose();
  tmp.remove();
});

describe('offline jobs beside a live session', () => {
  it('the waterfall streams and live requests are answered while a job is held mid-way', async () => {
    const gate = new Gate();
    const engine = new Engine({
      backend: gatedBackend(cpu, { spectrogramFft: JOB_FFT, spectrogram: gate }),
      progressIntervalMs: 0,
    });
    const c = new Client(engine);
    const start = await c.ok<{ session: number }>('start', {
      source: { kind: 'generator', frequency: 3000 },
      analysis: { ...defaultAnalysis, fft: 1024, overlap: 0.5, columns: 256 },
    });
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'tone.wav') });
    const job = c.send('fileSpectrogram', { file: f.file, fft: JOB_FFT, width: 20, height: 20 });
    await until(() => gate.reached === 1, 10000, 'the job to reach the gate');
    const before = c.rows.length;
    await until(() => c.rows.length >= before + 5, 10000, 'live rows during the job');
    expect(c.rows.slice(before).every((r) => r.session === start.session)).toBe(true);
    const conf = await c.ok<{ fft: number }>('configure', { analysis: { fft: 2048 } });
    expect(conf.fft).toBe(2048);
    expect(await c.ok('listDirectory', { path: tmp.dir })).toMatchObject({ path: tmp.dir });
    expect(c.replies.has(job)).toBe(false);
    gate.open();
    const r = await c.reply(job);
    expect(r.ok).toBe(true);
    expect((r as { result: FileSpectrogramResult }).result).toMatchObject({ fft: JOB_FFT, width: 20 });
    expect(await c.ok('stop', {})).toEqual({});
    c.conn.close();
    await engine.dispose();
  });

  it('cancel is answered at once while the job is held, then the job answers cancelled', async () => {
    const gate = new Gate();
    const engine = new Engine({ backend: gatedBackend(cpu, { spectrogramFft: JOB_FFT, spectrogram: gate }) });
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'tone.wav') });
    const job = c.send('fileSpectrogram', { file: f.file, fft: JOB_FFT, width: 20, height: 20 });
    await until(() => gate.reached === 1, 10000, 'the job to reach the gate');
    expect(await c.ok('cancel', { request: job })).toEqual({ cancelled: true });
    expect(c.replies.has(job)).toBe(false);
    gate.open();
    expect(await c.reply(job)).toMatchObject({
      ok: false,
      error: { code: 'cancelled', message: 'cancelled' },
    });
    // The file stays open and usable after a cancelled job.
    const again = c.send('fileSpectrogram', { file: f.file, fft: 1024, width: 4, height: 4 });
    expect((await c.reply(again)).ok).toBe(true);
    c.conn.close();
    await engine.dispose();
  });
});

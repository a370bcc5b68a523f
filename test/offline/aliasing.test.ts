// The view's applyFilter refuses an output that is its input under another name (a linked folder, the
// other half of a SigMF pair), before anything is written: the input stays as it was.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import type { FileInfo } from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { Client } from './helpers.js';

let cpu: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-aliasing-');
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend: cpu, progressIntervalMs: 0 });
});
afterAll(async () => {
  await engine.dispose();
  await cpu.dispose();
  tmp.remove();
});

describe('applyFilter onto its own input', () => {
  it('through a linked folder: refused, the input untouched', async () => {
    const dir = join(tmp.dir, 'linked');
    mkdirSync(dir);
    writeTestWav(join(dir, 'in.wav'), noise(8000, 4, 0.5), 48000, 1, 'float32');
    symlinkSync('.', join(dir, 'd'));
    const before = sha(join(dir, 'in.wav'));
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: join(dir, 'in.wav') });
    const e = await c.error('applyFilter', {
      file: f.file,
      output: join(dir, 'd', 'in.wav'),
      taps: [0.5, 0.5],
    });
    expect(e.message).toMatch(/d\/in\.wav: the output would overwrite the input .*in\.wav/);
    expect(sha(join(dir, 'in.wav'))).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['d', 'in.wav']);
    c.conn.close();
  });

  it('a SigMF pair written over the pair it reads (rec.sigmf-meta → rec.sigmf): refused', async () => {
    const dir = join(tmp.dir, 'pair');
    mkdirSync(dir);
    writeFileSync(join(dir, 'rec.sigmf-data'), new Uint8Array(Float32Array.from(noise(8000, 6, 0.5)).buffer));
    writeFileSync(
      join(dir, 'rec.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'cf32_le', 'core:sample_rate': 48000, 'core:version': '1.0.0' },
        captures: [{ 'core:sample_start': 0 }],
        annotations: [],
      }),
    );
    const before = [sha(join(dir, 'rec.sigmf-data')), sha(join(dir, 'rec.sigmf-meta'))];
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: join(dir, 'rec.sigmf-meta') });
    const e = await c.error('applyFilter', {
      file: f.file,
      output: join(dir, 'rec.sigmf'),
      taps: [0.5, 0.5],
    });
    expect(e.message).toMatch(/overwrite the input/);
    expect([sha(join(dir, 'rec.sigmf-data')), sha(join(dir, 'rec.sigmf-meta'))]).toEqual(before);
    c.conn.close();
  });
});

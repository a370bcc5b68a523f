// Files through the engine connection: openFile (WAV, SigMF with annotations, raw I/Q with its rate and
// centre, a truncated file's warning), closeFile, listDirectory, readSamples against the samples written.
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import type { DirectoryListing, FileInfo, SamplesResult } from '../../electron/engine/protocol/messages.js';
import { tempDir } from '../support/cli.js';
import { complexTones, interleave, noise, tones } from '../support/signals.js';
import { quantize16, writeTestWav } from '../support/wav.js';
import { Client, writeCf32 } from './helpers.js';

const FS = 48000;
const N = 20000;
let backend: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-files-');
const left = tones(N, FS, [{ frequency: 1000, amplitude: 0.5 }]).map((v, i) => v + noise(N, 1, 0.01)[i]);
const right = noise(N, 2, 0.3);
const stereo = interleave(left, right);
const iq = complexTones(N, 1e6, [{ frequency: 50e3, amplitude: 0.7 }]);

beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend });
  writeTestWav(join(tmp.dir, 'stereo.wav'), stereo, FS, 2);
  writeCf32(join(tmp.dir, 'capture.cf32'), iq);
  // SigMF pair written by hand (independent of the engine's writer), with annotations out of order.
  writeCf32(join(tmp.dir, 'rec.sigmf-data'), iq);
  writeFileSync(
    join(tmp.dir, 'rec.sigmf-meta'),
    JSON.stringify({
      global: { 'core:datatype': 'cf32_le', 'core:sample_rate': 1e6, 'core:version': '1.0.0' },
      captures: [{ 'core:sample_start': 0, 'core:frequency': 433.92e6 }],
      annotations: [
        {
          'core:sample_start': 5000,
          'core:sample_count': 2000,
          'core:freq_lower_edge': 433.96e6,
          'core:freq_upper_edge': 433.98e6,
          'core:label': 'burst',
          'core:comment': 'the tone',
        },
        { 'core:sample_start': 100, 'core:label': 'start' },
        { 'core:label': 'no start: ignored' },
      ],
    }),
  );
  // A WAV whose header promises twice the data present.
  writeTestWav(join(tmp.dir, 'short.wav'), left, FS, 1);
  const bytes = readFileSync(join(tmp.dir, 'short.wav'));
  bytes.writeUInt32LE(bytes.readUInt32LE(40) * 2, 40);
  writeFileSync(join(tmp.dir, 'short.wav'), bytes);
});
afterAll(async () => {
  await engine.dispose();
  await backend.dispose();
  tmp.remove();
});

describe('openFile / closeFile', () => {
  it('opens a WAV and describes it', async () => {
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'stereo.wav') });
    expect(info).toMatchObject({
      path: join(tmp.dir, 'stereo.wav'),
      name: 'stereo.wav',
      container: 'wav',
      encoding: 'ri16_le',
      sampleRate: FS,
      channels: 2,
      complex: false,
      samples: N,
      duration: N / FS,
      bytes: 44 + 4 * N,
      annotations: [],
      warnings: [],
    });
    expect(info.file).toBeGreaterThan(0);
    expect(info.centerFrequency).toBeUndefined();
    expect(await c.ok('closeFile', { file: info.file })).toEqual({});
    const again = await c.error('closeFile', { file: info.file });
    expect(again.code).toBe('invalid-argument');
    expect(again.message).toMatch(/not open/);
    c.conn.close();
  });

  it('maps SigMF annotations, sorted by start, and says what it ignored', async () => {
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'rec.sigmf-meta') });
    expect(info).toMatchObject({
      container: 'sigmf',
      encoding: 'cf32_le',
      complex: true,
      channels: 1,
      sampleRate: 1e6,
      centerFrequency: 433.92e6,
      samples: N,
      bytes: 8 * N,
    });
    expect(info.annotations).toEqual([
      { id: 1, start: 100, label: 'start' },
      {
        id: 0,
        start: 5000,
        count: 2000,
        freqLower: 433.96e6,
        freqUpper: 433.98e6,
        label: 'burst',
        comment: 'the tone',
      },
    ]);
    expect(info.warnings).toEqual(['1 annotation without a valid core:sample_start ignored']);
    c.conn.close();
  });

  it('opens raw I/Q with format, rate and centre, and refuses it without them', async () => {
    const c = new Client(engine);
    const path = join(tmp.dir, 'capture.cf32');
    const info = await c.ok<FileInfo>('openFile', { path, format: 'cf32', rate: 1e6, center: 100e6 });
    expect(info).toMatchObject({ container: 'raw', complex: true, samples: N, centerFrequency: 100e6 });
    const noRate = await c.error('openFile', { path });
    expect(noRate.code).toBe('invalid-argument');
    expect(noRate.message).toMatch(/rate/);
    c.conn.close();
  });

  it('reports a truncated file as a warning, and a missing one as an io error naming it', async () => {
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'short.wav') });
    expect(info.samples).toBe(N);
    expect(info.promisedSamples).toBe(2 * N);
    expect(info.warnings.length).toBe(1);
    expect(info.warnings[0]).toMatch(/truncated/);
    const missing = await c.error('openFile', { path: join(tmp.dir, 'nope.wav') });
    expect(missing).toEqual({ code: 'io', message: `${join(tmp.dir, 'nope.wav')}: no such file` });
    c.conn.close();
  });

  it('refuses malformed parameters with bad-request', async () => {
    const c = new Client(engine);
    for (const [method, params] of [
      ['openFile', {}],
      ['openFile', { path: '' }],
      ['openFile', { path: 'x.wav', rate: -1 }],
      ['openFile', { path: 'x.wav', iq: 'yes' }],
      ['closeFile', { file: -1 }],
      ['closeFile', { file: 'a' }],
      ['listDirectory', { path: 5 }],
      ['readSamples', { file: 1, start: 0 }],
      ['readSamples', { file: 1, start: 0.5, end: 4 }],
    ] as const) {
      const e = await c.error(method, params);
      expect(e.code, `${method} ${JSON.stringify(params)}`).toBe('bad-request');
    }
    c.conn.close();
  });
});

describe('listDirectory', () => {
  it('lists folders first, hides hidden files, marks openable files', async () => {
    const dir = join(tmp.dir, 'browse');
    mkdirSync(join(dir, 'b-folder'), { recursive: true });
    mkdirSync(join(dir, 'A-folder'));
    mkdirSync(join(dir, '.hidden-folder'));
    for (const f of ['z.wav', 'a.txt', 'rec.sigmf-meta', 'cap.cu8', '.secret.wav', 'file10.iq', 'file9.iq']) {
      writeFileSync(join(dir, f), 'x'.repeat(f.length));
    }
    symlinkSync(join(dir, 'A-folder'), join(dir, 'link-to-folder'));
    symlinkSync(join(dir, 'missing'), join(dir, 'broken-link.wav'));
    const c = new Client(engine);
    const l = await c.ok<DirectoryListing>('listDirectory', { path: dir });
    expect(l.path).toBe(dir);
    expect(l.parent).toBe(tmp.dir);
    expect(l.entries.map((e) => [e.name, e.kind, e.openable])).toEqual([
      ['A-folder', 'directory', false],
      ['b-folder', 'directory', false],
      ['link-to-folder', 'directory', false],
      ['a.txt', 'file', false],
      ['cap.cu8', 'file', true],
      ['file9.iq', 'file', true],
      ['file10.iq', 'file', true],
      ['rec.sigmf-meta', 'file', true],
      ['z.wav', 'file', true],
    ]);
    expect(l.entries.find((e) => e.name === 'z.wav')).toMatchObject({ path: join(dir, 'z.wav'), size: 5 });
    c.conn.close();
  });

  it('lists the home folder by default and names a path it cannot list', async () => {
    const c = new Client(engine);
    const home = await c.ok<DirectoryListing>('listDirectory', {});
    expect(home.path).toBe(os.homedir());
    const missing = await c.error('listDirectory', { path: join(tmp.dir, 'no-such') });
    expect(missing).toEqual({ code: 'io', message: `${join(tmp.dir, 'no-such')}: no such folder` });
    const file = await c.error('listDirectory', { path: join(tmp.dir, 'stereo.wav') });
    expect(file).toEqual({ code: 'io', message: `${join(tmp.dir, 'stereo.wav')}: not a folder` });
    const root = await c.ok<DirectoryListing>('listDirectory', { path: '/' });
    expect(root.parent).toBeUndefined();
    c.conn.close();
  });
});

describe('readSamples', () => {
  it('returns one channel or all frames, decoded exactly as stored', async () => {
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path: join(tmp.dir, 'stereo.wav') });
    const one = (await c.ok('readSamples', {
      file: info.file,
      start: 1000,
      end: 1500,
      channel: 1,
    })) as unknown as SamplesResult & { data: Float32Array };
    expect(one).toMatchObject({ start: 1000, frames: 500, channels: 1, sampleRate: FS, complex: false });
    expect(one.data.length).toBe(500);
    // int16 PCM decodes as q / 32768 (exact in float32).
    for (let i = 0; i < 500; i++) expect(one.data[i]).toBe(quantize16(right[1000 + i]) / 32768);
    const all = (await c.ok('readSamples', {
      file: info.file,
      start: N - 10,
      end: N + 100,
    })) as unknown as SamplesResult & { data: Float32Array };
    expect(all).toMatchObject({ start: N - 10, frames: 10, channels: 2 });
    for (let i = 0; i < 20; i++) expect(all.data[i]).toBe(quantize16(stereo[2 * (N - 10) + i]) / 32768);
    const badChannel = await c.error('readSamples', { file: info.file, start: 0, end: 10, channel: 2 });
    expect(badChannel.code).toBe('invalid-argument');
    expect(badChannel.message).toMatch(/channel 2 does not exist/);
    const backwards = await c.error('readSamples', { file: info.file, start: 10, end: 5 });
    expect(backwards.code).toBe('invalid-argument');
    const notOpen = await c.error('readSamples', { file: 999, start: 0, end: 5 });
    expect(notOpen.message).toMatch(/file 999 is not open/);
    c.conn.close();
  });

  it('reads complex frames and refuses a request over the size cap', async () => {
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', {
      path: join(tmp.dir, 'capture.cf32'),
      format: 'cf32',
      rate: 1e6,
    });
    const r = (await c.ok('readSamples', {
      file: info.file,
      start: 3,
      end: 7,
    })) as unknown as SamplesResult & {
      data: Float32Array;
    };
    expect(r).toMatchObject({ frames: 4, channels: 1, complex: true });
    expect(Array.from(r.data)).toEqual(Array.from(Float32Array.from(iq.subarray(6, 14))));
    // An end past the file clamps to it.
    const clamped = (await c.ok('readSamples', {
      file: info.file,
      start: N - 2,
      end: 2 ** 40,
    })) as unknown as SamplesResult & { data: Float32Array };
    expect(clamped.frames).toBe(2);
    // 2^23 + 1 complex frames are 2^24 + 2 values, over the cap. The file is sized, never read.
    const huge = join(tmp.dir, 'huge.cf32');
    writeFileSync(huge, Buffer.from(Float32Array.from(iq.subarray(0, 64)).buffer));
    truncateSync(huge, 8 * (2 ** 23 + 1));
    const h = await c.ok<FileInfo>('openFile', { path: huge, format: 'cf32', rate: 1e6 });
    const big = await c.error('readSamples', { file: h.file, start: 0, end: 2 ** 23 + 1 });
    expect(big.code).toBe('invalid-argument');
    expect(big.message).toMatch(/at most 16777216 values \(8388608 frames of this file\)/);
    const fits = (await c.ok('readSamples', {
      file: h.file,
      start: 0,
      end: 2 ** 23,
    })) as unknown as SamplesResult;
    expect(fits.frames).toBe(2 ** 23);
    c.conn.close();
  });
});

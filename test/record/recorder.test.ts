// The recorder on its own and through runRecord: rtl_tcp-like cu8 bytes kept exactly, drops as gap
// annotations where they fall in the file, retunes as new captures, float sources to SigMF and WAV
// (RF64 past a lowered threshold), an unfinished recording readable with a warning, and the refusals.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PhasorWarning } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import { Recorder } from '../../electron/engine/record/recorder.js';
import { runRecord } from '../../electron/engine/record/run.js';
import { SourceKindRegistry, builtInKinds, defineSourceKind } from '../../electron/engine/sources/kinds.js';
import type { LiveSource } from '../../electron/engine/sources/live-source.js';
import { isRawSamples } from '../../electron/engine/types.js';
import { z } from 'zod';
import { readAll } from '../io/helpers.js';
import { tempDir } from '../support/cli.js';
import { cu8Bytes, cu8Source, plan, type PlannedBlock } from './helpers.js';

const tmp = tempDir('phasor-record-');
afterAll(() => tmp.remove());

/** The raw bytes of a cu8 recording, read back through the reader. */
async function rawBytes(path: string): Promise<Uint8Array> {
  const s = await openSource(path);
  const parts: Uint8Array[] = [];
  for await (const b of s.blocks({ raw: true })) {
    if (!isRawSamples(b.data)) throw new Error('expected raw samples');
    parts.push(new Uint8Array(b.data.data as Uint8Array));
  }
  await s.close();
  return Uint8Array.from(parts.flatMap((p) => Array.from(p)));
}

function meta(path: string): {
  global: Record<string, unknown>;
  captures: Array<Record<string, unknown>>;
  annotations: Array<Record<string, unknown>>;
} {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** A registry whose only kind opens `source`. */
function kindsOf(source: () => LiveSource): SourceKindRegistry {
  return new SourceKindRegistry([
    defineSourceKind({
      kind: 'fake',
      label: 'fake',
      fields: [],
      schema: z.object({ kind: z.literal('fake') }),
      open: async () => source(),
    }),
  ]);
}

describe('recording raw cu8 (rtl_tcp) to SigMF', () => {
  // 3 blocks at 100 MHz, 700 frames dropped, 2 more, then a retune to 101 MHz for 2 blocks.
  const blocks: PlannedBlock[] = [
    ...plan(0, 3, 1000, 100e6),
    ...plan(3700, 2, 1000, 100e6),
    ...plan(5700, 2, 1000, 101e6),
  ];
  const written = blocks.map((b) => cu8Bytes(b.start, b.frames));

  it('keeps the bytes received, marks the gap where it falls and the retune as a capture', async () => {
    const path = join(tmp.dir, 'rtl.sigmf-meta');
    const r = await Recorder.create({
      path,
      format: { sampleRate: 2.048e6, complex: true, channels: 1, centerFrequency: 100e6 },
      encoding: 'cu8',
      label: 'rtl_tcp://127.0.0.1:1234, R820T',
    });
    // In progress: the metadata says so from the start.
    expect(meta(path).global['phasor:recording']).toBe(true);
    for await (const b of cu8Source(blocks).blocks({ raw: true })) expect(await r.write(b)).toBe(true);
    const s = await r.stop('requested');
    expect(s).toMatchObject({
      frames: 7000,
      droppedFrames: 700,
      gaps: 1,
      datatype: 'cu8',
      stopped: 'requested',
    });
    expect(s.centerFrequency).toBe(101e6);

    const bytes = await rawBytes(path);
    expect(bytes).toEqual(Uint8Array.from(written.flatMap((w) => Array.from(w))));
    const m = meta(path);
    expect(m.global).toMatchObject({
      'core:datatype': 'cu8',
      'core:sample_rate': 2.048e6,
      'core:hw': 'rtl_tcp://127.0.0.1:1234, R820T',
      'phasor:recording': false,
      'phasor:stopped': 'requested',
    });
    expect(m.global['core:recorder']).toMatch(/^phasor \d+\.\d+\.\d+/);
    expect(m.captures).toHaveLength(2);
    expect(m.captures[0]).toMatchObject({ 'core:sample_start': 0, 'core:frequency': 100e6 });
    // The first sample arrived one block before the first block's capture time.
    expect(m.captures[0]['core:datetime']).toBe(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)).toISOString());
    expect(m.captures[1]).toMatchObject({ 'core:sample_start': 5000, 'core:frequency': 101e6 });
    expect(m.annotations).toEqual([
      expect.objectContaining({
        'core:sample_start': 3000,
        'core:sample_count': 0,
        'core:label': 'gap',
        'core:comment': '700 samples dropped',
      }),
    ]);
  });

  it('runRecord takes the raw blocks and stops at the duration, to the frame', async () => {
    const path = join(tmp.dir, 'run.sigmf-data');
    const rate = 2.048e6;
    const r = await runRecord({
      source: { kind: 'fake' },
      kinds: kindsOf(() => cu8Source(plan(0, 10, 1000, 433.92e6), rate)),
      duration: 4500 / rate,
      output: path,
    });
    expect(r).toMatchObject({
      path: join(tmp.dir, 'run.sigmf-meta'),
      frames: 4500,
      dropped: 0,
      gaps: 0,
      datatype: 'cu8',
      centerFrequency: 433.92e6,
      stopped: 'duration reached',
      failed: false,
    });
    expect(await rawBytes(r.path)).toEqual(cu8Bytes(0, 4500));
  });

  it('a source that ends stops the recording with "source ended"', async () => {
    const r = await runRecord({
      source: { kind: 'fake' },
      kinds: kindsOf(() => cu8Source(plan(0, 3, 1000, 1e6))),
      duration: 10,
      output: join(tmp.dir, 'ended.sigmf-meta'),
    });
    expect(r).toMatchObject({ frames: 3000, stopped: 'source ended' });
    expect(meta(r.path).global['phasor:stopped']).toBe('source ended');
  });

  it('an unfinished recording (the recorder never stopped) opens with a warning, whole frames only', async () => {
    const path = join(tmp.dir, 'crashed.sigmf-meta');
    const r = await Recorder.create({
      path,
      format: { sampleRate: 1e6, complex: true, channels: 1, centerFrequency: 1e6 },
      encoding: 'cu8',
    });
    for await (const b of cu8Source(plan(0, 2, 1000, 1e6)).blocks({ raw: true })) await r.write(b);
    // A kill mid-write leaves half a frame at the end.
    writeFileSync(join(tmp.dir, 'crashed.sigmf-data'), Uint8Array.of(200), { flag: 'a' });
    const warnings: PhasorWarning[] = [];
    const s = await openSource(path, { onWarning: (w) => warnings.push(w) });
    expect(s.info.samples).toBe(2000);
    await s.close();
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/the recording did not finish/);
    await r.stop('requested');
  });
});

describe('recording float sources', () => {
  const generator = new SourceKindRegistry(builtInKinds);

  it('the generator to WAV: the samples as generated, the header sizes set at the stop', async () => {
    const r = await runRecord({
      source: { kind: 'generator', frequency: 1000, sampleRate: 8000 },
      kinds: generator,
      duration: 0.5,
      output: join(tmp.dir, 'gen.wav'),
    });
    expect(r).toMatchObject({ frames: 4000, datatype: 'rf32_le', stopped: 'duration reached' });
    const warnings: PhasorWarning[] = [];
    const s = await openSource(r.path, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    expect(s.info).toMatchObject({ container: 'wav', samples: 4000, sampleRate: 8000 });
    const x = await readAll(s);
    await s.close();
    // A 0.5 amplitude tone: its RMS is 0.5/√2 (the -80 dBFS noise is far below the tolerance).
    const rms = Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length);
    expect(rms).toBeCloseTo(0.5 / Math.SQRT2, 3);
  });

  it('past the RF64 threshold (lowered) the WAV becomes RF64 and reads back whole', async () => {
    const r = await runRecord({
      source: { kind: 'generator', frequency: 500, sampleRate: 8000 },
      kinds: generator,
      duration: 0.25,
      output: join(tmp.dir, 'big.wav'),
      rf64Threshold: 1000,
    });
    const bytes = readFileSync(r.path);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RF64');
    const s = await openSource(r.path);
    expect(s.info).toMatchObject({ container: 'rf64', samples: 2000 });
    await s.close();
  });

  it('a complex generator to SigMF is cf32_le with its centre frequency', async () => {
    const r = await runRecord({
      source: { kind: 'generator', frequency: 1000, sampleRate: 8000, complex: true, centerFrequency: 7e6 },
      kinds: generator,
      duration: 0.25,
      output: join(tmp.dir, 'iq.sigmf'),
    });
    expect(r).toMatchObject({ path: join(tmp.dir, 'iq.sigmf-meta'), datatype: 'cf32_le', frames: 2000 });
    const m = meta(r.path);
    expect(m.captures[0]).toMatchObject({ 'core:sample_start': 0, 'core:frequency': 7e6 });
    expect(String(m.captures[0]['core:datetime'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
  });
});

describe('refusals', () => {
  const generator = new SourceKindRegistry(builtInKinds);
  const fmt = { sampleRate: 8000, complex: false, channels: 1 };

  it('an existing file, either half of a SigMF pair', async () => {
    writeFileSync(join(tmp.dir, 'taken.wav'), 'x');
    await expect(
      Recorder.create({ path: join(tmp.dir, 'taken.wav'), format: fmt, encoding: 'rf32_le' }),
    ).rejects.toThrow(/already exists/);
    writeFileSync(join(tmp.dir, 'half.sigmf-data'), 'x');
    await expect(
      Recorder.create({ path: join(tmp.dir, 'half.sigmf-meta'), format: fmt, encoding: 'rf32_le' }),
    ).rejects.toThrow(/half\.sigmf-data.*already exists|already exists/);
    expect(readFileSync(join(tmp.dir, 'half.sigmf-data'), 'utf8')).toBe('x');
  });

  it('complex samples into WAV, and an extension that names no format', async () => {
    await expect(
      Recorder.create({
        path: join(tmp.dir, 'iq.wav'),
        format: { ...fmt, complex: true },
        encoding: 'cu8',
      }),
    ).rejects.toThrow(/WAV holds audio, not I\/Q/);
    await expect(
      runRecord({
        source: { kind: 'generator' },
        kinds: generator,
        duration: 1,
        output: join(tmp.dir, 'x.mp3'),
      }),
    ).rejects.toThrow(/\.sigmf-meta \(SigMF\) or \.wav/);
  });

  it("the file a file source plays is refused as the recording's", async () => {
    const input = join(tmp.dir, 'played.sigmf-meta');
    await runRecord({ source: { kind: 'generator' }, kinds: generator, duration: 0.1, output: input });
    await expect(
      Recorder.create({
        path: join(tmp.dir, 'played.sigmf-data'),
        format: fmt,
        encoding: 'rf32_le',
        inputs: [input, join(tmp.dir, 'played.sigmf-data')],
      }),
    ).rejects.toThrow(/would overwrite the input/);
  });
});

// SigMF: round trips of every datatype through the writer, metadata carried over, refusals.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { PhasorError } from '../../electron/engine/errors.js';
import {
  CorruptFileError,
  UnsupportedFormatError,
  type PhasorWarning,
} from '../../electron/engine/errors.js';
import { createWriter, openSource } from '../../electron/engine/io/index.js';
import { lcg, makeTempDir, readAll, firstDifference } from './helpers.js';

const tmp = makeTempDir('sigmf');
afterAll(() => tmp.cleanup());
const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/io');

/** Test values representable exactly in the type (integers: on the grid of the type, ≤ 24 bits). */
function valuesFor(kind: string, bits: number, n: number, seed: number): Float32Array {
  const r = lcg(seed);
  const out = new Float32Array(n);
  if (kind === 'f') {
    for (let i = 0; i < n; i++) out[i] = (r() * 2 - 1) * 3;
    return out;
  }
  const b = Math.min(bits, 24);
  for (let i = 0; i < n; i++) out[i] = (Math.floor(r() * 2 ** b) - 2 ** (b - 1)) * 2 ** -(b - 1);
  if (kind === 'u' && bits === 8) {
    // SigMF u8 decodes (x − 127.5)/127.5: use that grid instead.
    for (let i = 0; i < n; i++) out[i] = (Math.floor(r() * 256) - 127.5) / 127.5;
  }
  return out;
}

describe('SigMF round trips through the writer', () => {
  const types = ['f64', 'f32', 'i32', 'i16', 'i8', 'u32', 'u16', 'u8'];
  for (const t of types) {
    for (const endian of t.endsWith('8') ? [''] : ['_le', '_be']) {
      for (const [complex, channels] of [
        [false, 1],
        [true, 1],
        [false, 3],
        [true, 2],
      ] as const) {
        const datatype = `${complex ? 'c' : 'r'}${t}${endian}`;
        it(`${datatype}, ${channels} channel(s)`, async () => {
          const bits = Number(t.slice(1));
          const frames = 257;
          const vpf = channels * (complex ? 2 : 1);
          const data = valuesFor(t[0], bits, frames * vpf, bits + channels + (complex ? 100 : 0));
          const name = tmp.file(`${datatype}-${channels}.sigmf`);
          const w = await createWriter(name, {
            format: { sampleRate: 1e6, complex, channels, ...(complex ? { centerFrequency: 915e6 } : {}) },
            encoding: datatype,
          });
          await w.write(data.subarray(0, 100 * vpf));
          await w.write(data.subarray(100 * vpf));
          await w.commit();
          expect(w.clipped).toBe(0);
          expect(w.paths).toEqual([
            name.replace(/\.sigmf$/, '.sigmf-data'),
            name.replace(/\.sigmf$/, '.sigmf-meta'),
          ]);
          const s = await openSource(w.path);
          expect(s.info).toMatchObject({
            container: 'sigmf',
            encoding: datatype,
            complex,
            channels,
            samples: frames,
            sampleRate: 1e6,
          });
          if (complex) expect(s.info.centerFrequency).toBe(915e6);
          const back = await readAll(s, { blockFrames: 50 });
          expect(firstDifference(back, data)).toBeUndefined();
          await s.close();
        });
      }
    }
  }
});

describe('SigMF metadata carried over', () => {
  it('keeps global fields, captures and annotations; adjusts datatype, rate, channels; records what was applied', async () => {
    const input = {
      global: {
        'core:datatype': 'cu8',
        'core:sample_rate': 2048000,
        'core:version': '1.0.0',
        'core:author': 'someone',
        'core:description': 'FM broadcast',
        'core:sha512': 'deadbeef',
        'core:extensions': [{ name: 'antenna', version: '1.0.0', optional: true }],
        'antenna:gain': 12.5,
      },
      captures: [
        { 'core:sample_start': 0, 'core:frequency': 97.5e6, 'core:datetime': '2024-01-01T00:00:00Z' },
        { 'core:sample_start': 100, 'core:frequency': 98e6 },
      ],
      annotations: [
        { 'core:sample_start': 10, 'core:sample_count': 20, 'core:label': 'station', 'x:y': { z: [1] } },
      ],
    };
    writeFileSync(tmp.file('in.sigmf-meta'), JSON.stringify(input));
    const r = lcg(9);
    writeFileSync(
      tmp.file('in.sigmf-data'),
      Uint8Array.from({ length: 400 }, () => Math.floor(r() * 256)),
    );
    const src = await openSource(tmp.file('in.sigmf-data'));
    expect(src.info.sigmf).toEqual(input);
    const w = await createWriter(tmp.file('out.sigmf-data'), {
      format: src.info,
      encoding: 'cf32_le',
      sigmf: src.info.sigmf,
      applied: { filter: { lowpass: 100000, numtaps: 255 } },
      checksum: true,
    });
    for await (const b of src.blocks({ blockFrames: 64 })) await w.write(b.data as Float32Array);
    await w.commit();
    // Without the checksum option the output carries none, not even the input's (stale) one.
    const plain = await createWriter(tmp.file('plain.sigmf-data'), {
      format: src.info,
      encoding: 'cf32_le',
      sigmf: src.info.sigmf,
    });
    for await (const b of src.blocks({ blockFrames: 64 })) await plain.write(b.data as Float32Array);
    await plain.commit();
    await src.close();
    const plainMeta = JSON.parse(readFileSync(tmp.file('plain.sigmf-meta'), 'utf8'));
    expect(plainMeta.global).not.toHaveProperty('core:sha512');
    expect(readFileSync(tmp.file('plain.sigmf-data')).equals(readFileSync(tmp.file('out.sigmf-data')))).toBe(
      true,
    );

    const meta = JSON.parse(readFileSync(tmp.file('out.sigmf-meta'), 'utf8'));
    expect(meta.global).toMatchObject({
      'core:datatype': 'cf32_le',
      'core:sample_rate': 2048000,
      'core:num_channels': 1,
      'core:version': '1.2.0',
      'core:author': 'someone',
      'core:description': 'FM broadcast',
      'antenna:gain': 12.5,
      'phasor:applied': { filter: { lowpass: 100000, numtaps: 255 } },
    });
    expect(meta.global['core:extensions']).toEqual([
      { name: 'antenna', version: '1.0.0', optional: true },
      { name: 'phasor', version: '1.0.0', optional: true },
    ]);
    expect(meta.captures).toEqual(input.captures);
    expect(meta.annotations).toEqual(input.annotations);
    // core:sha512 is recomputed over the new data file.
    const sha = createHash('sha512')
      .update(readFileSync(tmp.file('out.sigmf-data')))
      .digest('hex');
    expect(meta.global['core:sha512']).toBe(sha);

    const back = await openSource(tmp.file('out.sigmf-meta'));
    expect(back.info).toMatchObject({ encoding: 'cf32_le', samples: 200, centerFrequency: 97.5e6 });
    await back.close();
  });

  it('a SigMF written from a WAV-like input gets fresh metadata', async () => {
    const w = await createWriter(tmp.file('fresh.sigmf-meta'), {
      format: { sampleRate: 48000, complex: false, channels: 2 },
      encoding: 'ri16_le',
    });
    await w.write(Float32Array.from([0.5, -0.5, 0.25, -0.25]));
    await w.commit();
    const meta = JSON.parse(readFileSync(tmp.file('fresh.sigmf-meta'), 'utf8'));
    expect(meta.global).toMatchObject({
      'core:datatype': 'ri16_le',
      'core:sample_rate': 48000,
      'core:num_channels': 2,
    });
    expect(meta.captures).toEqual([{ 'core:sample_start': 0 }]);
    expect(meta.annotations).toEqual([]);
  });
});

describe('SigMF refusals', () => {
  const meta = (global: Record<string, unknown>, name = 'r') => {
    writeFileSync(tmp.file(`${name}.sigmf-meta`), JSON.stringify({ global, captures: [], annotations: [] }));
    writeFileSync(
      tmp.file(`${name}.sigmf-data`),
      new Uint8Array(16).map((_, i) => i * 13),
    );
    return tmp.file(`${name}.sigmf-meta`);
  };
  const refused = async (path: string) =>
    openSource(path).then(
      () => undefined,
      (e: unknown) => e as PhasorError,
    );

  it('malformed JSON is a CorruptFileError naming the parse problem', async () => {
    writeFileSync(tmp.file('bad.sigmf-meta'), '{"global": {"core:datatype": "cf32_le",');
    writeFileSync(tmp.file('bad.sigmf-data'), new Uint8Array(8));
    const e = await refused(tmp.file('bad.sigmf-data'));
    expect(e).toBeInstanceOf(CorruptFileError);
    expect(e!.file).toBe(tmp.file('bad.sigmf-meta'));
    expect(e!.message).toMatch(/^malformed SigMF metadata: not valid JSON \(.+\)$/);
  });

  it('negative, zero and missing sample rates', async () => {
    const e = await refused(meta({ 'core:datatype': 'cf32_le', 'core:sample_rate': -48000 }));
    expect(e).toBeInstanceOf(CorruptFileError);
    expect(e!.message).toBe('core:sample_rate must be a positive number, got -48000');
    expect((await refused(meta({ 'core:datatype': 'cf32_le', 'core:sample_rate': 0 })))!.message).toBe(
      'core:sample_rate must be a positive number, got 0',
    );
    expect((await refused(meta({ 'core:datatype': 'cf32_le' })))!.message).toMatch(
      /core:sample_rate is missing; pass --rate/,
    );
    // --rate stands in for a missing rate.
    const s = await openSource(meta({ 'core:datatype': 'cf32_le' }, 'norate'), { rate: 1234 });
    expect(s.info.sampleRate).toBe(1234);
    await s.close();
  });

  it('fields of the wrong type are named', async () => {
    const e = await refused(meta({ 'core:datatype': 'cf32_le', 'core:sample_rate': '48000' }));
    expect(e).toBeInstanceOf(CorruptFileError);
    expect(e!.message).toMatch(/^invalid SigMF metadata: global\.core:sample_rate: /);
    writeFileSync(tmp.file('nog.sigmf-meta'), '[1,2]');
    writeFileSync(tmp.file('nog.sigmf-data'), new Uint8Array(8));
    expect(await refused(tmp.file('nog.sigmf-meta'))).toBeInstanceOf(CorruptFileError);
  });

  it('unsupported datatypes and missing byte order', async () => {
    const e = await refused(meta({ 'core:datatype': 'cf16_le', 'core:sample_rate': 1 }));
    expect(e).toBeInstanceOf(UnsupportedFormatError);
    expect(e!.message).toMatch(/core:datatype 'cf16_le' is not supported/);
    const f = await refused(meta({ 'core:datatype': 'ci16', 'core:sample_rate': 1 }));
    expect(f).toBeInstanceOf(CorruptFileError);
    expect(f!.message).toMatch(/needs a byte order suffix/);
    expect(
      await refused(meta({ 'core:datatype': 'ci16_le', 'core:sample_rate': 1, 'core:metadata_only': true })),
    ).toBeInstanceOf(UnsupportedFormatError);
  });

  it('a missing data file or metadata file is a clear I/O error', async () => {
    writeFileSync(
      tmp.file('lonely.sigmf-meta'),
      JSON.stringify({ global: { 'core:datatype': 'cu8', 'core:sample_rate': 1 } }),
    );
    const e = await refused(tmp.file('lonely.sigmf-meta'));
    expect(e).toMatchObject({ code: 'io', file: tmp.file('lonely.sigmf-data') });
    expect(e!.message).toMatch(/SigMF data file not found \(it should sit next to lonely\.sigmf-meta\)/);
    writeFileSync(tmp.file('orphan.sigmf-data'), new Uint8Array(4));
    expect(await refused(tmp.file('orphan.sigmf-data'))).toMatchObject({
      code: 'io',
      file: tmp.file('orphan.sigmf-meta'),
    });
  });

  it('a data file ending inside a frame warns and reads the whole frames', async () => {
    writeFileSync(
      tmp.file('p.sigmf-meta'),
      JSON.stringify({ global: { 'core:datatype': 'ci16_le', 'core:sample_rate': 1 } }),
    );
    writeFileSync(
      tmp.file('p.sigmf-data'),
      new Uint8Array(4 * 5 + 3).map((_, i) => i),
    );
    const warnings: PhasorWarning[] = [];
    const s = await openSource(tmp.file('p.sigmf-meta'), { onWarning: (w) => warnings.push(w) });
    expect(s.info.samples).toBe(5);
    expect(warnings.map((w) => w.message)).toEqual([
      'truncated: the file ends inside a frame (3 bytes after the last whole frame ignored)',
    ]);
    await s.close();
  });
});

describe('SigMF archives (.sigmf)', () => {
  it('a truncated archive reads the samples present, with a warning', async () => {
    const full = readFileSync(join(FIXTURES, 'rec.sigmf'));
    // Cut the archive inside its data member: 38 of its 48 frames remain.
    const dataAt = findMember(full, 'rec/rec.sigmf-data');
    expect(dataAt).toBeGreaterThan(0);
    writeFileSync(tmp.file('cut.sigmf'), full.subarray(0, dataAt + 4 * 38));
    const warnings: PhasorWarning[] = [];
    const s = await openSource(tmp.file('cut.sigmf'), { onWarning: (w) => warnings.push(w) });
    expect(s.info.samples).toBe(38);
    expect(s.info.promisedSamples).toBe(48);
    expect(warnings[0].message).toBe('truncated: header promises 48 frames, file holds 38 (21% missing)');
    expect((await readAll(s)).length).toBe(76);
    await s.close();
  });

  it('an archive without metadata, or not a tar at all, is refused', async () => {
    writeFileSync(
      tmp.file('junk.sigmf'),
      new Uint8Array(1024).map((_, i) => (i * 7) & 0xff),
    );
    await expect(openSource(tmp.file('junk.sigmf'))).rejects.toThrow(CorruptFileError);
    writeFileSync(tmp.file('empty.sigmf'), new Uint8Array(0));
    await expect(openSource(tmp.file('empty.sigmf'))).rejects.toThrow(/empty file/);
  });
});

/** Offset of a tar member's contents (the header holding `name` + 512). */
function findMember(tar: Buffer, name: string): number {
  for (let pos = 0; pos + 512 <= tar.length;) {
    const hname = tar
      .subarray(pos, pos + 100)
      .toString('latin1')
      .replace(/\0.*$/s, '');
    const size = parseInt(
      tar
        .subarray(pos + 124, pos + 136)
        .toString('latin1')
        .replace(/\0.*$/s, '')
        .trim() || '0',
      8,
    );
    if (hname === name) return pos + 512;
    if (hname === '') return -1;
    pos += 512 + Math.ceil(size / 512) * 512;
  }
  return -1;
}

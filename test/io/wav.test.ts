// WAV / RF64: round trips through the writer, files made by other writers (scipy, Python's wave),
// RF64 headers, chunk handling, truncation and refusals.

import { closeSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { PhasorError } from '../../electron/engine/errors.js';
import {
  CorruptFileError,
  InvalidArgumentError,
  UnsupportedFormatError,
  type PhasorWarning,
} from '../../electron/engine/errors.js';
import { createWriter, openSource } from '../../electron/engine/io/index.js';
import type { StreamFormat } from '../../electron/engine/types.js';
import {
  ascii,
  buildWav,
  chunk,
  concat,
  fmtBody,
  lcg,
  makeTempDir,
  readAll,
  writeBytes,
  firstDifference,
} from './helpers.js';

const tmp = makeTempDir('wav');
afterAll(() => tmp.cleanup());
const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/io');

/** Values exactly on the grid of `bits`-bit integers (at most 24 bits, float32's mantissa), full range. */
function gridValues(n: number, bits: number, seed: number): Float32Array {
  const r = lcg(seed);
  const b = Math.min(bits, 24);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (Math.floor(r() * 2 ** b) - 2 ** (b - 1)) * 2 ** -(b - 1);
  out[0] = -1; // the extremes of the range
  out[1] = 1 - 2 ** -(b - 1);
  return out;
}

async function roundTrip(name: string, format: StreamFormat, encoding: string, data: Float32Array) {
  const w = await createWriter(tmp.file(name), { format, encoding });
  // Write in uneven pieces to cross the staging buffer at odd places.
  const vpf = format.channels * (format.complex ? 2 : 1);
  let i = 0;
  for (const frames of [1, 7, 300, 100000]) {
    const n = Math.min(frames * vpf, data.length - i);
    await w.write(data.subarray(i, i + n));
    i += n;
  }
  await w.commit();
  const s = await openSource(tmp.file(name), { iq: format.complex });
  const back = await readAll(s, { blockFrames: 333 });
  return { s, back, w };
}

describe('WAV round trips through the writer', () => {
  const cases: Array<[string, number, number]> = [
    ['ru8', 8, 1],
    ['ri16_le', 16, 2],
    ['ri24_le', 24, 3],
    ['ri32_le', 32, 1],
  ];
  for (const [encoding, bits, channels] of cases) {
    it(`${encoding}, ${channels} channel(s): exact integers`, async () => {
      const frames = 1000;
      const data = gridValues(frames * channels, bits, bits * 7 + channels);
      const { s, back, w } = await roundTrip(
        `${encoding}.wav`,
        { sampleRate: 48000, complex: false, channels },
        encoding,
        data,
      );
      expect(s.info).toMatchObject({
        container: 'wav',
        encoding,
        channels,
        samples: frames,
        sampleRate: 48000,
      });
      expect(w.framesWritten).toBe(frames);
      expect(w.clipped).toBe(0);
      expect(firstDifference(back, data)).toBeUndefined();
      await s.close();
    });
  }

  for (const encoding of ['rf32_le', 'rf64_le']) {
    it(`${encoding}: float values exact (float32 in, float32 out)`, async () => {
      const r = lcg(3);
      const data = Float32Array.from({ length: 5 * 777 }, () => (r() * 2 - 1) * 1.5);
      const { s, back } = await roundTrip(
        `${encoding}.wav`,
        { sampleRate: 96000, complex: false, channels: 5 },
        encoding,
        data,
      );
      expect(s.info).toMatchObject({ encoding, channels: 5, samples: 777 });
      expect(firstDifference(back, data)).toBeUndefined();
      await s.close();
    });
  }

  it('complex output is two channels I, Q (read back with --iq)', async () => {
    const data = gridValues(2 * 500, 16, 11);
    const { s, back } = await roundTrip(
      'iq.wav',
      { sampleRate: 2e6, complex: true, channels: 1, centerFrequency: 1e8 },
      'ci16_le',
      data,
    );
    expect(s.info).toMatchObject({ encoding: 'ci16_le', complex: true, channels: 1, samples: 500 });
    expect(firstDifference(back, data)).toBeUndefined();
    await s.close();
    const plain = await openSource(tmp.file('iq.wav'));
    expect(plain.info).toMatchObject({ encoding: 'ri16_le', complex: false, channels: 2 });
    await plain.close();
  });

  it('headers: PCM for ≤ 2 channels of ≤ 16 bits, WAVE_FORMAT_EXTENSIBLE beyond, a JUNK chunk for RF64', async () => {
    const fmtTag = async (name: string, channels: number, encoding: string) => {
      const w = await createWriter(tmp.file(name), {
        format: { sampleRate: 8000, complex: false, channels },
        encoding,
      });
      await w.write(new Float32Array(channels * 3).fill(0.25));
      await w.commit();
      const b = readFileSync(tmp.file(name));
      expect(b.subarray(12, 16).toString('latin1')).toBe('JUNK');
      expect(b.readUInt32LE(16)).toBe(28);
      expect(b.subarray(48, 52).toString('latin1')).toBe('fmt ');
      expect(b.readUInt32LE(4)).toBe(b.length - 8);
      return b.readUInt16LE(56);
    };
    expect(await fmtTag('h16.wav', 2, 'ri16_le')).toBe(1);
    expect(await fmtTag('h8.wav', 1, 'ru8')).toBe(1);
    expect(await fmtTag('h24.wav', 1, 'ri24_le')).toBe(0xfffe);
    expect(await fmtTag('h16x3.wav', 3, 'ri16_le')).toBe(0xfffe);
    expect(await fmtTag('hf.wav', 2, 'rf32_le')).toBe(3);
    expect(await fmtTag('hfx4.wav', 4, 'rf32_le')).toBe(0xfffe);
  });

  it('odd data sizes get a pad byte counted in the RIFF size', async () => {
    const w = await createWriter(tmp.file('odd.wav'), {
      format: { sampleRate: 8000, complex: false, channels: 1 },
      encoding: 'ru8',
    });
    await w.write(Float32Array.from([0.5, -0.5, 0]));
    await w.commit();
    const b = readFileSync(tmp.file('odd.wav'));
    expect(b.length % 2).toBe(0);
    expect(b.readUInt32LE(4)).toBe(b.length - 8);
    const s = await openSource(tmp.file('odd.wav'));
    expect(Array.from(await readAll(s))).toEqual([0.5, -0.5, 0]);
    await s.close();
  });

  it('integer output rounds and counts clipped samples', async () => {
    const w = await createWriter(tmp.file('clip.wav'), {
      format: { sampleRate: 8000, complex: false, channels: 1 },
      encoding: 'ri16_le',
    });
    await w.write(Float32Array.from([1, -1, 1.5, -2, 0.5, NaN, 0.4 / 32768, 0.6 / 32768]));
    await w.commit();
    expect(w.clipped).toBe(4); // 1.0 (= +32768), 1.5, −2 and NaN; −1 fits exactly
    const s = await openSource(tmp.file('clip.wav'));
    expect(Array.from(await readAll(s))).toEqual([
      32767 / 32768,
      -1,
      32767 / 32768,
      -1,
      0.5,
      0,
      0,
      1 / 32768,
    ]);
    await s.close();
  });
});

describe('RF64', () => {
  it('the writer turns RIFF into RF64 (ds64 in place of JUNK) past the size threshold', async () => {
    const data = gridValues(2 * 600, 16, 5);
    const w = await createWriter(tmp.file('big.wav'), {
      format: { sampleRate: 8000, complex: false, channels: 2 },
      encoding: 'ri16_le',
      rf64Threshold: 2000,
    });
    await w.write(data);
    await w.commit();
    const b = readFileSync(tmp.file('big.wav'));
    expect(b.subarray(0, 4).toString('latin1')).toBe('RF64');
    expect(b.readUInt32LE(4)).toBe(0xffffffff);
    expect(b.subarray(12, 16).toString('latin1')).toBe('ds64');
    expect(Number(b.readBigUInt64LE(20))).toBe(b.length - 8);
    expect(Number(b.readBigUInt64LE(28))).toBe(2400);
    expect(Number(b.readBigUInt64LE(36))).toBe(600);
    const dataAt = b.indexOf('data', 48, 'latin1');
    expect(b.readUInt32LE(dataAt + 4)).toBe(0xffffffff);
    const s = await openSource(tmp.file('big.wav'));
    expect(s.info).toMatchObject({ container: 'rf64', samples: 600 });
    expect(await readAll(s)).toEqual(data);
    await s.close();

    // Below the threshold it stays RIFF.
    const small = await createWriter(tmp.file('small.wav'), {
      format: { sampleRate: 8000, complex: false, channels: 2 },
      encoding: 'ri16_le',
      rf64Threshold: 1_000_000,
    });
    await small.write(data);
    await small.commit();
    expect(readFileSync(tmp.file('small.wav')).subarray(0, 4).toString('latin1')).toBe('RIFF');
  });

  function rf64Header(dataSize: bigint, frames: bigint, fmt: Uint8Array, magic = 'RF64'): Uint8Array {
    const ds64 = new Uint8Array(28);
    const dv = new DataView(ds64.buffer);
    dv.setBigUint64(0, dataSize + 36n + 8n + BigInt(fmt.length) + 8n + 4n, true);
    dv.setBigUint64(8, dataSize, true);
    dv.setBigUint64(16, frames, true);
    dv.setUint32(24, 0, true);
    const head = new Uint8Array(12);
    head.set(ascii(magic), 0);
    new DataView(head.buffer).setUint32(4, 0xffffffff, true);
    head.set(ascii('WAVE'), 8);
    return concat([
      head,
      chunk('ds64', ds64),
      chunk('fmt ', fmt),
      chunk('data', new Uint8Array(0), 0xffffffff),
    ]);
  }

  it('reads a hand-built RF64 and BW64 header', async () => {
    const vals = [1000, -2000, 3000, -4000, 5000, -6000];
    const data = new Uint8Array(12);
    vals.forEach((v, i) => new DataView(data.buffer).setInt16(2 * i, v, true));
    for (const magic of ['RF64', 'BW64']) {
      const h = rf64Header(12n, 3n, fmtBody({ channels: 2, sampleRate: 8000, bits: 16, data }), magic);
      const p = writeBytes(tmp.file(`hand-${magic}.wav`), concat([h, data]));
      const s = await openSource(p);
      expect(s.info).toMatchObject({ container: 'rf64', samples: 3, channels: 2 });
      expect(Array.from(await readAll(s))).toEqual(vals.map((v) => v / 32768));
      await s.close();
    }
  });

  it('reads frames beyond 4 GiB of a sparse RF64 file (random access by seeking)', async () => {
    const dataSize = 5n * 2n ** 30n; // 5 GiB of 16-bit stereo: sparse, takes no disk
    const h = rf64Header(
      dataSize,
      dataSize / 4n,
      fmtBody({ channels: 2, sampleRate: 48000, bits: 16, data: new Uint8Array() }),
    );
    const p = tmp.file('sparse-rf64.wav');
    writeFileSync(p, h);
    truncateSync(p, h.length + Number(dataSize));
    const lastFrame = Number(dataSize / 4n) - 1;
    const marker = new Uint8Array(8);
    new DataView(marker.buffer).setInt16(0, 1234, true);
    new DataView(marker.buffer).setInt16(2, -4321, true);
    new DataView(marker.buffer).setInt16(4, 777, true);
    new DataView(marker.buffer).setInt16(6, -1, true);
    const fd = openSync(p, 'r+');
    writeSync(fd, marker, 0, 8, h.length + (lastFrame - 1) * 4);
    closeSync(fd);
    const s = await openSource(p);
    expect(s.info.samples).toBe(lastFrame + 1);
    const got = await readAll(s, { start: lastFrame - 2 });
    expect(Array.from(got)).toEqual([0, 0, 1234 / 32768, -4321 / 32768, 777 / 32768, -1 / 32768]);
    await s.close();
  });
});

describe('files from other writers (fixtures made by make_fixtures.py)', () => {
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<
    string,
    {
      sampleRate: number;
      channels: number;
      complex: boolean;
      encoding: string;
      frames: number;
      values: number[];
      centerFrequency?: number;
      sigmf?: unknown;
    }
  >;
  for (const [name, want] of Object.entries(expected)) {
    it(`${name} decodes to NumPy's values`, async () => {
      const s = await openSource(join(FIXTURES, name));
      expect(s.info).toMatchObject({
        sampleRate: want.sampleRate,
        channels: want.channels,
        complex: want.complex,
        encoding: want.encoding,
        samples: want.frames,
      });
      if (want.centerFrequency !== undefined) expect(s.info.centerFrequency).toBe(want.centerFrequency);
      if (want.sigmf !== undefined) expect(s.info.sigmf).toEqual(want.sigmf);
      const got = await readAll(s, { blockFrames: 5 });
      expect(got.length).toBe(want.values.length);
      // The reference is float64; the reader returns float32: equal after rounding to float32.
      for (let i = 0; i < got.length; i++) expect(got[i]).toBe(Math.fround(want.values[i]));
      await s.close();
    });
  }
});

describe('chunks and sizes', () => {
  const pcm = (n: number) => {
    const d = new Uint8Array(2 * n);
    for (let i = 0; i < n; i++) new DataView(d.buffer).setInt16(2 * i, ((i * 997) % 30000) - 15000, true);
    return d;
  };
  const decoded = (d: Uint8Array) => Array.from(new Int16Array(d.buffer.slice(0))).map((v) => v / 32768);

  it('skips unknown chunks, honours odd-size padding, and tolerates a missing pad byte', async () => {
    const data = pcm(10);
    const odd = chunk('bext', Uint8Array.from([1, 2, 3])); // padded to 4
    const p = writeBytes(
      tmp.file('chunks.wav'),
      buildWav({
        channels: 1,
        sampleRate: 8000,
        bits: 16,
        data,
        extraChunks: [odd, chunk('LIST', new Uint8Array(20))],
      }),
    );
    const s = await openSource(p);
    expect(Array.from(await readAll(s))).toEqual(decoded(data));
    await s.close();

    const unpadded = concat([ascii('odd!'), Uint8Array.from([3, 0, 0, 0, 9, 9, 9])]); // no pad byte
    const q = writeBytes(
      tmp.file('nopad.wav'),
      buildWav({ channels: 1, sampleRate: 8000, bits: 16, data, extraChunks: [unpadded] }),
    );
    const t = await openSource(q);
    expect(Array.from(await readAll(t))).toEqual(decoded(data));
    await t.close();
  });

  it('a data size of 0 or 0xFFFFFFFF (written to a pipe) reads to the end of the file, with a warning', async () => {
    const data = pcm(9);
    for (const dataSize of [0, 0xffffffff]) {
      const warnings: PhasorWarning[] = [];
      const p = writeBytes(
        tmp.file(`pipe-${dataSize}.wav`),
        buildWav({ channels: 1, sampleRate: 8000, bits: 16, data, dataSize, riffSize: 0xffffffff }),
      );
      const s = await openSource(p, { onWarning: (w) => warnings.push(w) });
      expect(s.info.samples).toBe(9);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].file).toBe(p);
      expect(warnings[0].message).toMatch(/size is not set.*end of the file/);
      expect(Array.from(await readAll(s))).toEqual(decoded(data));
      await s.close();
    }
  });

  it('an empty data chunk followed by another chunk is an empty recording, not a stream', async () => {
    const body = concat([
      ascii('WAVE'),
      chunk('fmt ', fmtBody({ channels: 1, sampleRate: 8000, bits: 16, data: new Uint8Array() })),
      chunk('data', new Uint8Array()),
      chunk('LIST', new Uint8Array(10)),
    ]);
    const head = concat([ascii('RIFF'), Uint8Array.from([body.length & 0xff, body.length >> 8, 0, 0])]);
    const warnings: PhasorWarning[] = [];
    const s = await openSource(writeBytes(tmp.file('empty-data.wav'), concat([head, body])), {
      onWarning: (w) => warnings.push(w),
    });
    expect(s.info.samples).toBe(0);
    expect(warnings).toEqual([]);
    expect((await readAll(s)).length).toBe(0);
    await s.close();
  });

  it('a truncated file reads up to its end and warns once with how much is missing', async () => {
    const full = buildWav({
      channels: 2,
      sampleRate: 48000,
      bits: 16,
      data: new Uint8Array(4 * 480000).map((_, i) => (i * 31) & 0xff),
    });
    const cut = full.subarray(0, full.length - 4 * 240000);
    const warnings: PhasorWarning[] = [];
    const p = writeBytes(tmp.file('trunc.wav'), cut);
    const s = await openSource(p, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([
      { file: p, message: 'truncated: header promises 480000 frames, file holds 240000 (50% missing)' },
    ]);
    expect(s.info.samples).toBe(240000);
    expect(s.info.promisedSamples).toBe(480000);
    const got = await readAll(s);
    expect(got.length).toBe(480000);
    expect(got[got.length - 1]).toBe(
      new DataView(cut.buffer, cut.byteOffset).getInt16(cut.length - 2, true) / 32768,
    );
    await s.close();

    // A partial last frame: 3 bytes past the last whole 4-byte frame.
    const partial = full.subarray(0, full.length - 4 * 10 - 1);
    const w2: PhasorWarning[] = [];
    const s2 = await openSource(writeBytes(tmp.file('partial.wav'), partial), {
      onWarning: (w) => w2.push(w),
    });
    expect(s2.info.samples).toBe(480000 - 11);
    expect(w2[0].message).toBe(
      'truncated: header promises 480000 frames, file holds 479989 (0.0023% missing)',
    );
    expect((await readAll(s2)).length).toBe(2 * 479989);
    await s2.close();
  });

  it('start/end read a range by seeking, with any block size', async () => {
    const data = pcm(1000);
    const p = writeBytes(tmp.file('range.wav'), buildWav({ channels: 1, sampleRate: 8000, bits: 16, data }));
    const s = await openSource(p);
    const all = decoded(data);
    for (const [start, end, blockFrames] of [
      [0, 1000, 64],
      [17, 18, 1],
      [500, 999, 7],
      [990, 5000, 3],
      [1000, 1000, 4],
    ] as const) {
      const starts: number[] = [];
      for await (const b of s.blocks({ start, end, blockFrames })) starts.push(b.start);
      expect(starts[0] ?? start).toBe(start);
      expect(Array.from(await readAll(s, { start, end, blockFrames }))).toEqual(
        all.slice(start, Math.min(end, 1000)),
      );
    }
    expect(() => s.blocks({ start: -1 })).toThrow(InvalidArgumentError);
    expect(() => s.blocks({ blockFrames: 0 })).toThrow(InvalidArgumentError);
    expect(() => s.blocks({ start: 5, end: 2 })).toThrow(InvalidArgumentError);
    await s.close();
  });

  it('a cancelled read throws CancelledError', async () => {
    const p = writeBytes(
      tmp.file('cancel.wav'),
      buildWav({ channels: 1, sampleRate: 8000, bits: 16, data: pcm(1000) }),
    );
    const s = await openSource(p);
    const ac = new AbortController();
    let n = 0;
    await expect(
      (async () => {
        for await (const _b of s.blocks({ blockFrames: 10, signal: ac.signal })) {
          if (++n === 3) ac.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'CancelledError', code: 'cancelled' });
    expect(n).toBe(3);
    await s.close();
  });
});

describe('refusals', () => {
  const refuse = async (
    bytes: Uint8Array | string,
    kind: new (...a: never[]) => PhasorError,
    message: RegExp,
    name = 'x.wav',
  ) => {
    const p = tmp.file(name);
    writeFileSync(p, bytes);
    const err = await openSource(p).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(kind);
    expect((err as PhasorError).message).toMatch(message);
    if (!(err instanceof InvalidArgumentError)) expect((err as PhasorError).file).toBe(p);
  };
  const pcm16 = { channels: 1, sampleRate: 8000, bits: 16, data: new Uint8Array([1, 2, 3, 4]) };

  it('empty file', () => refuse(new Uint8Array(0), CorruptFileError, /^empty file \(0 bytes\)$/));
  it('not a WAV', () =>
    refuse('hello, this is text and not audio', CorruptFileError, /not a WAV file: it starts with 'hell'/));
  it('RIFF but not WAVE', () =>
    refuse(
      concat([ascii('RIFF'), new Uint8Array(4), ascii('AVI ')]),
      CorruptFileError,
      /form type is 'AVI '/,
    ));
  it('µ-law', () =>
    refuse(
      buildWav({ ...pcm16, tag: 7, bits: 8, blockAlign: 1 }),
      UnsupportedFormatError,
      /^unsupported WAV codec: µ-law \(format 7\); convert it to PCM$/,
    ));
  it('A-law, ADPCM, MP3 by name', async () => {
    await refuse(
      buildWav({ ...pcm16, tag: 6, bits: 8, blockAlign: 1 }),
      UnsupportedFormatError,
      /A-law \(format 6\)/,
    );
    await refuse(
      buildWav({ ...pcm16, tag: 2, bits: 4, blockAlign: 256 }),
      UnsupportedFormatError,
      /Microsoft ADPCM \(format 2\)/,
    );
    await refuse(
      buildWav({ ...pcm16, tag: 0x55, bits: 0, blockAlign: 1 }),
      UnsupportedFormatError,
      /MPEG Layer 3 \(MP3\) \(format 85\)/,
    );
    await refuse(buildWav({ ...pcm16, tag: 0x1234 }), UnsupportedFormatError, /format 0x1234/);
    await refuse(
      buildWav({ ...pcm16, extensible: { subFormat: 7, validBits: 8 } }),
      UnsupportedFormatError,
      /µ-law/,
    );
  });
  it('missing fmt or data', async () => {
    await refuse(
      concat([
        ascii('RIFF'),
        Uint8Array.from([16, 0, 0, 0]),
        ascii('WAVE'),
        chunk('data', new Uint8Array(4)),
      ]),
      CorruptFileError,
      /no fmt chunk/,
    );
    await refuse(
      concat([ascii('RIFF'), Uint8Array.from([28, 0, 0, 0]), ascii('WAVE'), chunk('fmt ', fmtBody(pcm16))]),
      CorruptFileError,
      /no data chunk/,
    );
  });
  it('zero channels, zero rate, inconsistent block align, odd bit depths', async () => {
    await refuse(buildWav({ ...pcm16, channels: 0, blockAlign: 2 }), CorruptFileError, /0 channels/);
    await refuse(buildWav({ ...pcm16, sampleRate: 0 }), CorruptFileError, /sample rate of 0 Hz/);
    await refuse(
      buildWav({ ...pcm16, blockAlign: 3 }),
      CorruptFileError,
      /block align is 3 bytes but 1 channel\(s\) × 16 bits need 2/,
    );
    await refuse(buildWav({ ...pcm16, tag: 3, bits: 16 }), UnsupportedFormatError, /16-bit float/);
    await refuse(buildWav({ ...pcm16, bits: 48, blockAlign: 6 }), UnsupportedFormatError, /48-bit PCM/);
    await refuse(
      buildWav({ ...pcm16, extensible: { subFormat: 1, validBits: 20 } }),
      CorruptFileError,
      /validBitsPerSample \(20\) is larger/,
    );
  });
  it('fmt chunk too short', () =>
    refuse(
      concat([
        ascii('RIFF'),
        Uint8Array.from([28, 0, 0, 0]),
        ascii('WAVE'),
        chunk('fmt ', new Uint8Array(8)),
        chunk('data', new Uint8Array(4)),
      ]),
      CorruptFileError,
      /fmt chunk is too short/,
    ));
  it('--iq on a file without two channels', async () => {
    const p = writeBytes(tmp.file('mono.wav'), buildWav(pcm16));
    await expect(openSource(p, { iq: true })).rejects.toThrow(InvalidArgumentError);
    await expect(openSource(p, { iq: true })).rejects.toThrow(
      /--iq reads a two-channel file as I\/Q, but this one has 1 channel$/,
    );
  });
  it('a missing file and a directory are OS errors naming the file', async () => {
    await expect(openSource(tmp.file('nope.wav'))).rejects.toMatchObject({
      code: 'io',
      message: 'no such file',
      file: tmp.file('nope.wav'),
    });
    await expect(openSource(tmp.dir + '/')).rejects.toMatchObject({ code: 'io' });
  });
  it('an unknown extension is sniffed: WAV opens, anything else asks for --format and --rate', async () => {
    const p = writeBytes(tmp.file('audio.xyz'), buildWav(pcm16));
    const s = await openSource(p);
    expect(s.info.container).toBe('wav');
    await s.close();
    await refuse('garbage bytes', UnsupportedFormatError, /pass --format .* and --rate/, 'thing.xyz');
  });
});

// Decoding conventions on hand-built bytes: every stored type to float32, byte order, raw integer blocks.

import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CorruptFileError, InvalidArgumentError, type PhasorWarning } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import { isRawSamples } from '../../electron/engine/types.js';
import { buildWav, makeTempDir, readAll, writeBytes } from './helpers.js';

const tmp = makeTempDir('decode');
afterAll(() => tmp.cleanup());

function bytesOf(fill: (dv: DataView) => void, length: number): Uint8Array {
  const b = new Uint8Array(length);
  fill(new DataView(b.buffer));
  return b;
}

function expectValues(got: Float32Array, want: number[]): void {
  expect(got.length).toBe(want.length);
  // Every expected value is exactly representable in float32 or is checked to float32 rounding.
  for (let i = 0; i < want.length; i++) expect(got[i]).toBe(Math.fround(want[i]));
}

describe('WAV decoding', () => {
  it('8-bit PCM is unsigned with zero at 128: (x − 128)/128', async () => {
    const raw = [0, 1, 127, 128, 129, 255];
    const p = writeBytes(
      tmp.file('u8.wav'),
      buildWav({ channels: 1, sampleRate: 8000, bits: 8, data: Uint8Array.from(raw) }),
    );
    const s = await openSource(p);
    expect(s.info.encoding).toBe('ru8');
    expectValues(
      await readAll(s),
      raw.map((x) => (x - 128) / 128),
    );
    await s.close();
  });

  it('16-bit PCM: x/32768, little-endian, interleaved channels', async () => {
    const raw = [-32768, -1, 0, 1, 12345, 32767];
    const data = bytesOf((dv) => raw.forEach((v, i) => dv.setInt16(2 * i, v, true)), 12);
    const p = writeBytes(tmp.file('i16.wav'), buildWav({ channels: 2, sampleRate: 8000, bits: 16, data }));
    const s = await openSource(p);
    expect(s.info).toMatchObject({
      encoding: 'ri16_le',
      channels: 2,
      complex: false,
      samples: 3,
      sampleRate: 8000,
    });
    expectValues(
      await readAll(s),
      raw.map((x) => x / 32768),
    );
    await s.close();
  });

  it('24-bit PCM: sign-extended x/2^23', async () => {
    const raw = [-8388608, -1, 0, 1, 0x123456, 8388607];
    const data = new Uint8Array(18);
    raw.forEach((v, i) => {
      const u = v & 0xffffff;
      data[3 * i] = u & 0xff;
      data[3 * i + 1] = (u >> 8) & 0xff;
      data[3 * i + 2] = (u >> 16) & 0xff;
    });
    const p = writeBytes(tmp.file('i24.wav'), buildWav({ channels: 1, sampleRate: 8000, bits: 24, data }));
    const s = await openSource(p);
    expect(s.info.encoding).toBe('ri24_le');
    expectValues(
      await readAll(s),
      raw.map((x) => x / 2 ** 23),
    );
    await s.close();
  });

  it('32-bit PCM: x/2^31; float32 and float64 as stored', async () => {
    const i32 = [-2147483648, -256, 0, 256, 2147483392];
    const p32 = writeBytes(
      tmp.file('i32.wav'),
      buildWav({
        channels: 1,
        sampleRate: 8000,
        bits: 32,
        data: bytesOf((dv) => i32.forEach((v, i) => dv.setInt32(4 * i, v, true)), 20),
      }),
    );
    const s32 = await openSource(p32);
    expect(s32.info.encoding).toBe('ri32_le');
    expectValues(
      await readAll(s32),
      i32.map((x) => x / 2 ** 31),
    );
    await s32.close();

    const f = [-1.5, -0.25, 0, 0.1, 3.75];
    const pf = writeBytes(
      tmp.file('f32.wav'),
      buildWav({
        tag: 3,
        channels: 1,
        sampleRate: 8000,
        bits: 32,
        data: bytesOf((dv) => f.forEach((v, i) => dv.setFloat32(4 * i, v, true)), 20),
      }),
    );
    const sf = await openSource(pf);
    expect(sf.info.encoding).toBe('rf32_le');
    expectValues(await readAll(sf), f);
    await sf.close();

    const d = [-0.3, 1e-9, 0.7];
    const pd = writeBytes(
      tmp.file('f64.wav'),
      buildWav({
        tag: 3,
        channels: 1,
        sampleRate: 8000,
        bits: 64,
        data: bytesOf((dv) => d.forEach((v, i) => dv.setFloat64(8 * i, v, true)), 24),
      }),
    );
    const sd = await openSource(pd);
    expect(sd.info.encoding).toBe('rf64_le');
    expectValues(await readAll(sd), d);
    await sd.close();
  });

  it('--iq reads a two-channel WAV as one complex channel', async () => {
    const raw = [100, -200, 300, -400];
    const data = bytesOf((dv) => raw.forEach((v, i) => dv.setInt16(2 * i, v, true)), 8);
    const p = writeBytes(tmp.file('iq.wav'), buildWav({ channels: 2, sampleRate: 8000, bits: 16, data }));
    const s = await openSource(p, { iq: true, center: 1e6 });
    expect(s.info).toMatchObject({
      complex: true,
      channels: 1,
      encoding: 'ci16_le',
      samples: 2,
      centerFrequency: 1e6,
    });
    const blocks = [];
    for await (const b of s.blocks()) blocks.push(b);
    expect(blocks[0].format).toEqual({ sampleRate: 8000, complex: true, channels: 1, centerFrequency: 1e6 });
    expectValues(
      await readAll(s),
      raw.map((x) => x / 32768),
    );
    await s.close();
  });
});

describe('SigMF decoding', () => {
  async function sigmf(
    name: string,
    datatype: string,
    data: Uint8Array,
    extra: Record<string, unknown> = {},
  ) {
    const meta = {
      global: { 'core:datatype': datatype, 'core:sample_rate': 1000, 'core:version': '1.2.0', ...extra },
      captures: [],
      annotations: [],
    };
    writeFileSync(tmp.file(`${name}.sigmf-meta`), JSON.stringify(meta));
    writeFileSync(tmp.file(`${name}.sigmf-data`), data);
    return openSource(tmp.file(`${name}.sigmf-data`));
  }

  it('unsigned 8-bit follows rtl_sdr: (x − 127.5)/127.5', async () => {
    const raw = [0, 127, 128, 255];
    const s = await sigmf('cu8', 'cu8', Uint8Array.from(raw));
    expect(s.info).toMatchObject({ encoding: 'cu8', complex: true, samples: 2 });
    expectValues(
      await readAll(s),
      raw.map((x) => (x - 127.5) / 127.5),
    );
    await s.close();
  });

  it('8-bit types accept an endianness suffix too', async () => {
    const raw = [-128, -1, 0, 127];
    const s = await sigmf('ri8le', 'ri8_le', new Uint8Array(Int8Array.from(raw).buffer));
    expect(s.info.encoding).toBe('ri8');
    expectValues(
      await readAll(s),
      raw.map((x) => x / 128),
    );
    await s.close();
  });

  it('u16/u32 centre on 2^(b−1); big-endian types are swapped', async () => {
    const u16 = [0, 1, 32768, 65535];
    const s16 = await sigmf(
      'u16be',
      'ru16_be',
      bytesOf((dv) => u16.forEach((v, i) => dv.setUint16(2 * i, v, false)), 8),
    );
    expectValues(
      await readAll(s16),
      u16.map((x) => (x - 32768) / 32768),
    );
    await s16.close();

    const u32 = [0, 2 ** 31, 2 ** 32 - 256];
    const s32 = await sigmf(
      'u32le',
      'ru32_le',
      bytesOf((dv) => u32.forEach((v, i) => dv.setUint32(4 * i, v, true)), 12),
    );
    expectValues(
      await readAll(s32),
      u32.map((x) => (x - 2 ** 31) / 2 ** 31),
    );
    await s32.close();

    const i32 = [-(2 ** 31), 65536, 2 ** 31 - 128];
    const si = await sigmf(
      'i32be',
      'ri32_be',
      bytesOf((dv) => i32.forEach((v, i) => dv.setInt32(4 * i, v, false)), 12),
    );
    expectValues(
      await readAll(si),
      i32.map((x) => x / 2 ** 31),
    );
    await si.close();

    const i16 = [-32768, -2, 3, 32767];
    const sh = await sigmf(
      'i16be',
      'ci16_be',
      bytesOf((dv) => i16.forEach((v, i) => dv.setInt16(2 * i, v, false)), 8),
    );
    expectValues(
      await readAll(sh),
      i16.map((x) => x / 32768),
    );
    await sh.close();

    const f = [0.5, -0.125, 2.5, -3];
    const sf = await sigmf(
      'f32be',
      'cf32_be',
      bytesOf((dv) => f.forEach((v, i) => dv.setFloat32(4 * i, v, false)), 16),
    );
    expectValues(await readAll(sf), f);
    await sf.close();

    const d = [0.1, -0.7];
    const sd = await sigmf(
      'f64be',
      'rf64_be',
      bytesOf((dv) => d.forEach((v, i) => dv.setFloat64(8 * i, v, false)), 16),
    );
    expectValues(await readAll(sd), d);
    await sd.close();
  });

  it('core:num_channels interleaves channels; the first capture gives the centre frequency', async () => {
    const vals = [1, 2, 3, 4, 5, 6, 7, 8].map((x) => x * 1000);
    const meta = {
      global: { 'core:datatype': 'ci16_le', 'core:sample_rate': 2e6, 'core:num_channels': 2 },
      captures: [
        { 'core:sample_start': 0, 'core:frequency': 433.92e6 },
        { 'core:sample_start': 1, 'core:frequency': 868e6 },
      ],
      annotations: [
        { 'core:sample_start': 0, 'core:sample_count': 2, 'core:label': 'x', 'my:field': [1, 2] },
      ],
    };
    writeFileSync(tmp.file('mc.sigmf-meta'), JSON.stringify(meta));
    writeFileSync(
      tmp.file('mc.sigmf-data'),
      bytesOf((dv) => vals.forEach((v, i) => dv.setInt16(2 * i, v, true)), 16),
    );
    const s = await openSource(tmp.file('mc.sigmf-meta'));
    expect(s.info).toMatchObject({
      container: 'sigmf',
      channels: 2,
      complex: true,
      samples: 2,
      centerFrequency: 433.92e6,
    });
    expect(s.info.sigmf).toEqual(meta);
    expectValues(
      await readAll(s),
      vals.map((x) => x / 32768),
    );
    await s.close();
    const o = await openSource(tmp.file('mc.sigmf-meta'), { center: 1e9 });
    expect(o.info.centerFrequency).toBe(1e9);
    await o.close();
  });

  it('core:header_bytes (first capture) and core:trailing_bytes are skipped', async () => {
    const vals = [11, -22, 33, -44];
    const data = new Uint8Array(5 + 8 + 3).fill(0x55);
    const dv = new DataView(data.buffer);
    vals.forEach((v, i) => dv.setInt16(5 + 2 * i, v, true));
    const meta = {
      global: { 'core:datatype': 'ri16_le', 'core:sample_rate': 10, 'core:trailing_bytes': 3 },
      captures: [{ 'core:sample_start': 0, 'core:header_bytes': 5 }],
      annotations: [],
    };
    writeFileSync(tmp.file('hb.sigmf-meta'), JSON.stringify(meta));
    writeFileSync(tmp.file('hb.sigmf-data'), data);
    const s = await openSource(tmp.file('hb.sigmf-meta'));
    expect(s.info.samples).toBe(4);
    expectValues(
      await readAll(s),
      vals.map((x) => x / 32768),
    );
    await s.close();
  });
});

describe('raw IQ decoding', () => {
  it('cu8 (rtl_sdr), cs8, cs16 and cf32 by extension; SigMF spellings via format', async () => {
    const u8 = [0, 255, 127, 128];
    writeFileSync(tmp.file('a.cu8'), Uint8Array.from(u8));
    const s1 = await openSource(tmp.file('a.cu8'), { rate: 2.4e6, center: 100e6 });
    expect(s1.info).toMatchObject({
      container: 'raw',
      encoding: 'cu8',
      complex: true,
      channels: 1,
      samples: 2,
      sampleRate: 2.4e6,
      centerFrequency: 100e6,
    });
    expectValues(
      await readAll(s1),
      u8.map((x) => (x - 127.5) / 127.5),
    );
    await s1.close();

    const i8 = [-128, 127, -1, 5];
    writeFileSync(tmp.file('a.cs8'), new Uint8Array(Int8Array.from(i8).buffer));
    const s2 = await openSource(tmp.file('a.cs8'), { rate: 1e6 });
    expect(s2.info.encoding).toBe('ci8');
    expect(s2.info.centerFrequency).toBeUndefined();
    expectValues(
      await readAll(s2),
      i8.map((x) => x / 128),
    );
    await s2.close();

    const i16 = [-32768, 32767, 7, -7];
    writeFileSync(
      tmp.file('a.cs16'),
      bytesOf((dv) => i16.forEach((v, i) => dv.setInt16(2 * i, v, true)), 8),
    );
    const s3 = await openSource(tmp.file('a.cs16'), { rate: 1e6 });
    expect(s3.info.encoding).toBe('ci16_le');
    expectValues(
      await readAll(s3),
      i16.map((x) => x / 32768),
    );
    await s3.close();

    const f = [0.25, -0.5, 1.5, -2];
    writeFileSync(
      tmp.file('a.iq'),
      bytesOf((dv) => f.forEach((v, i) => dv.setFloat32(4 * i, v, true)), 16),
    );
    for (const format of ['cf32', 'cf32_le', 'CF32']) {
      const s4 = await openSource(tmp.file('a.iq'), { rate: 1e6, format });
      expect(s4.info.encoding).toBe('cf32_le');
      expectValues(await readAll(s4), f);
      await s4.close();
    }
    // --format overrides the extension.
    const s5 = await openSource(tmp.file('a.cs16'), { rate: 1e6, format: 'ci16_be' });
    expect(s5.info.encoding).toBe('ci16_be');
    await s5.close();
  });
});

describe('raw integer blocks (ReadOptions.raw)', () => {
  it('u8, i8 and i16 little-endian come undecoded with offset and scale; others decode', async () => {
    const u8 = Uint8Array.from([0, 10, 200, 255, 128, 127]);
    writeFileSync(tmp.file('r.cu8'), u8);
    const s = await openSource(tmp.file('r.cu8'), { rate: 1e6 });
    const blocks = [];
    for await (const b of s.blocks({ raw: true, blockFrames: 2 })) blocks.push(b);
    expect(blocks.map((b) => b.frames)).toEqual([2, 1]);
    const first = blocks[0].data;
    expect(isRawSamples(first)).toBe(true);
    if (!isRawSamples(first)) throw new Error('unreachable');
    expect(first.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(first.data)).toEqual([0, 10, 200, 255]);
    expect(first).toMatchObject({ offset: 127.5, scale: 1 / 127.5 });
    await s.close();

    // WAV 8-bit: the WAV convention travels in offset/scale.
    const pw = writeBytes(tmp.file('r8.wav'), buildWav({ channels: 1, sampleRate: 8000, bits: 8, data: u8 }));
    const sw = await openSource(pw);
    const bw = (await sw.blocks({ raw: true })[Symbol.asyncIterator]().next()).value;
    expect(bw.data).toMatchObject({ offset: 128, scale: 1 / 128 });
    await sw.close();

    const i16 = Int16Array.from([-32768, 5, 32767, -9]);
    const pi = writeBytes(
      tmp.file('r16.wav'),
      buildWav({ channels: 2, sampleRate: 8000, bits: 16, data: new Uint8Array(i16.buffer) }),
    );
    const si = await openSource(pi);
    const bi = (await si.blocks({ raw: true })[Symbol.asyncIterator]().next()).value;
    expect(bi.data.data).toBeInstanceOf(Int16Array);
    expect(Array.from(bi.data.data)).toEqual(Array.from(i16));
    expect(bi.data).toMatchObject({ offset: 0, scale: 1 / 32768 });
    expect(await readAll(si, { raw: true })).toEqual(await readAll(si));
    await si.close();

    const i8 = Int8Array.from([-128, 3]);
    writeFileSync(tmp.file('r.cs8'), new Uint8Array(i8.buffer));
    const s8 = await openSource(tmp.file('r.cs8'), { rate: 1 });
    const b8 = (await s8.blocks({ raw: true })[Symbol.asyncIterator]().next()).value;
    expect(b8.data.data).toBeInstanceOf(Int8Array);
    await s8.close();

    // Big-endian i16 and 24-bit always decode.
    writeFileSync(
      tmp.file('be.sigmf-meta'),
      JSON.stringify({ global: { 'core:datatype': 'ri16_be', 'core:sample_rate': 5 } }),
    );
    writeFileSync(tmp.file('be.sigmf-data'), Uint8Array.from([0x80, 0x00, 0x00, 0x01]));
    const sb = await openSource(tmp.file('be.sigmf-meta'));
    const bb = (await sb.blocks({ raw: true })[Symbol.asyncIterator]().next()).value;
    expect(bb.data).toBeInstanceOf(Float32Array);
    expectValues(bb.data as Float32Array, [-1, 1 / 32768]);
    await sb.close();
  });
});

describe('raw IQ refusals', () => {
  it('bad format, missing or bad rate, no format for .raw, empty file, partial frame', async () => {
    writeFileSync(tmp.file('r.raw'), Uint8Array.from([1, 2, 3, 4, 5]));
    await expect(openSource(tmp.file('r.raw'), { format: 'xyz', rate: 1 })).rejects.toThrow(
      new InvalidArgumentError(
        `unknown raw IQ format 'xyz'; use cu8, cs8, cs16 or cf32 (or a SigMF datatype such as ci16_le)`,
      ),
    );
    const noRate = await openSource(tmp.file('r.raw'), { format: 'cu8' }).catch((e: unknown) => e);
    expect(noRate).toBeInstanceOf(InvalidArgumentError);
    expect((noRate as Error).message).toBe('raw IQ needs --rate (sample rate in Hz)');
    await expect(openSource(tmp.file('r.raw'), { format: 'cu8', rate: -5 })).rejects.toThrow(
      /--rate must be a positive number of Hz, got -5/,
    );
    await expect(openSource(tmp.file('r.raw'), { format: 'cu8', rate: 1, center: NaN })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(openSource(tmp.file('r.raw'), { rate: 1 })).rejects.toThrow(/raw IQ needs --format/);
    writeFileSync(tmp.file('e.cu8'), new Uint8Array(0));
    await expect(openSource(tmp.file('e.cu8'), { rate: 1 })).rejects.toThrow(CorruptFileError);
    const warnings: PhasorWarning[] = [];
    const s = await openSource(tmp.file('r.raw'), {
      format: 'cs16',
      rate: 1,
      onWarning: (w) => warnings.push(w),
    });
    expect(s.info.samples).toBe(1);
    expect(warnings.map((w) => w.message)).toEqual([
      'truncated: the file ends inside a frame (1 byte after the last whole frame ignored)',
    ]);
    await s.close();
  });
});

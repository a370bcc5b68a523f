// NpzWriter: arrays written member by member read back (CRC-32 checked) by an independent reader, with and
// without ZIP64 fields; a failed or aborted archive leaves nothing under its name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { NpzWriter } from '../../electron/engine/output/npz.js';
import { tempDir } from '../support/cli.js';
import { readNpz } from '../support/npz.js';

const tmp = tempDir('phasor-npz-');
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

async function writeSample(path: string, zip64: boolean): Promise<{ m: Float32Array; v: Float64Array }> {
  const v = Float64Array.from({ length: 7 }, (_, i) => Math.PI * i - 1e-300);
  const m = Float32Array.from({ length: 3 * 5 }, (_, i) => Math.sin(i) * 1e3);
  const npz = await NpzWriter.create(path, { zip64, durable: false });
  await npz.add('v', v);
  await npz.add('scalar', Float64Array.of(1.5e8), []);
  // a 3 × 5 matrix in Fortran order, written column by column in two pieces
  const member = await npz.begin('m', 'f4', [3, 5], { fortranOrder: true });
  await member.write(m.subarray(0, 6));
  await member.write(m.subarray(6));
  await member.end();
  await npz.commit();
  return { m, v };
}

describe('NpzWriter', () => {
  for (const zip64 of [false, true]) {
    it(`writes members that read back exactly${zip64 ? ' (ZIP64 fields)' : ''}`, async () => {
      const path = f(`a${zip64 ? '64' : ''}.npz`);
      const { m, v } = await writeSample(path, zip64);
      const bytes = readFileSync(path);
      const arrays = readNpz(bytes);
      expect([...arrays.keys()]).toEqual(['v', 'scalar', 'm']);
      expect(arrays.get('v')!.shape).toEqual([7]);
      expect(arrays.get('v')!.dtype).toBe('f8');
      expect(Array.from(arrays.get('v')!.data)).toEqual(Array.from(v));
      expect(arrays.get('scalar')!.shape).toEqual([]);
      expect(Array.from(arrays.get('scalar')!.data)).toEqual([1.5e8]);
      const mm = arrays.get('m')!;
      expect(mm.shape).toEqual([3, 5]);
      expect(mm.fortranOrder).toBe(true);
      // element (r, c) was value c·3 + r of the stream
      for (let r = 0; r < 3; r++) for (let c = 0; c < 5; c++) expect(mm.data[r * 5 + c]).toBe(m[c * 3 + r]);
      // the ZIP64 end records precede the classic one exactly when asked
      const end = bytes.length - 22;
      expect(bytes.readUInt32LE(end)).toBe(0x06054b50);
      expect(bytes.readUInt32LE(end - 20) === 0x07064b50).toBe(zip64);
      // each local header's CRC is the CRC-32 of its member's bytes
      const first = bytes.readUInt32LE(14);
      const nameLen = bytes.readUInt16LE(26);
      const extraLen = bytes.readUInt16LE(28);
      const size = zip64 ? Number(bytes.readBigUInt64LE(30 + nameLen + 4)) : bytes.readUInt32LE(18);
      const start = 30 + nameLen + extraLen;
      expect(crc32(bytes.subarray(start, start + size)) >>> 0).toBe(first);
    });
  }

  it('abort() leaves no file and no temporary', async () => {
    const path = f('aborted.npz');
    const npz = await NpzWriter.create(path, { durable: false });
    await npz.add('v', Float64Array.of(1, 2, 3));
    await npz.abort();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('aborted'))).toEqual([]);
  });

  it('refuses a member with too few or too many values, a repeated name and a bad name', async () => {
    const npz = await NpzWriter.create(f('bad.npz'), { durable: false });
    try {
      const m = await npz.begin('m', 'f4', [2, 2]);
      await m.write(new Float32Array(3));
      await expect(m.end()).rejects.toThrow(/3 of 4 values/);
      await expect(m.write(new Float32Array(2))).rejects.toThrow(/more than 4 values/);
      await expect(m.write(new Float64Array(1))).rejects.toThrow(/holds f4 values/);
      await m.write(new Float32Array(1));
      await m.end();
      await expect(npz.begin('m', 'f8', [1])).rejects.toThrow(InvalidArgumentError);
      await expect(npz.begin('a/b', 'f8', [1])).rejects.toThrow(/identifier/);
    } finally {
      await npz.abort();
    }
  });
});

// NumPy .npz archives (what np.savez writes: a ZIP of .npy members, stored without compression), written
// as a stream through a temporary file renamed on commit (io/temporary.ts), so nothing stands under the
// final name until the archive is whole.
//
// Each member's local header is written ahead of its data with the CRC-32 left zero, the data streams
// after it (zlib.crc32 over the bytes as they go), and end() writes the header again in place with the CRC;
// commit() appends the central directory. A member of 4 GiB or more (or an archive whose directory starts
// past 4 GiB) gets ZIP64 fields (APPNOTE 4.3.9, 4.5.3, 4.3.14–15), which Python's zipfile reads.

import { crc32 } from 'node:zlib';
import { InvalidArgumentError } from '../errors.js';
import { TemporaryFile, type TemporaryOptions } from '../io/temporary.js';
import { npyHeader, type NpyDtype } from './npy.js';

const LOCAL_SIGNATURE = 0x04034b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const END_SIGNATURE = 0x06054b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EXTRA = 0x0001;
/** A 32-bit size or offset field that says "see the ZIP64 field". */
const MAX32 = 0xffffffff;
/** 2.0 (stored members), 4.5 (ZIP64). */
const VERSION = 20;
const VERSION_ZIP64 = 45;

export interface NpzOptions extends TemporaryOptions {
  /** Write ZIP64 fields even where the sizes do not need them (default: only where they do). */
  zip64?: boolean;
}

interface Member {
  name: Buffer;
  offset: number;
  size: number;
  crc: number;
  zip64: boolean;
  dosTime: number;
  dosDate: number;
}

/** One member being written: write() its values in order (C order, or Fortran order when it was begun
 * so), then end(). */
export interface NpzMember {
  write(values: Float32Array | Float64Array): Promise<void>;
  end(): Promise<void>;
}

function dosTimeDate(d: Date): { dosTime: number; dosDate: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    dosTime: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    dosDate: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

function localHeader(m: Member): Buffer {
  const extra = m.zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + m.name.length + extra);
  b.writeUInt32LE(LOCAL_SIGNATURE, 0);
  b.writeUInt16LE(m.zip64 ? VERSION_ZIP64 : VERSION, 4);
  b.writeUInt16LE(0, 6); // flags
  b.writeUInt16LE(0, 8); // stored
  b.writeUInt16LE(m.dosTime, 10);
  b.writeUInt16LE(m.dosDate, 12);
  b.writeUInt32LE(m.crc >>> 0, 14);
  b.writeUInt32LE(m.zip64 ? MAX32 : m.size, 18);
  b.writeUInt32LE(m.zip64 ? MAX32 : m.size, 22);
  b.writeUInt16LE(m.name.length, 26);
  b.writeUInt16LE(extra, 28);
  m.name.copy(b, 30);
  if (m.zip64) {
    const e = 30 + m.name.length;
    b.writeUInt16LE(ZIP64_EXTRA, e);
    b.writeUInt16LE(16, e + 2);
    b.writeBigUInt64LE(BigInt(m.size), e + 4);
    b.writeBigUInt64LE(BigInt(m.size), e + 12);
  }
  return b;
}

function centralHeader(m: Member): Buffer {
  const bigSize = m.zip64;
  const bigOffset = m.zip64 || m.offset >= MAX32;
  const extraData = (bigSize ? 16 : 0) + (bigOffset ? 8 : 0);
  const extra = extraData > 0 ? 4 + extraData : 0;
  const b = Buffer.alloc(46 + m.name.length + extra);
  const version = extra > 0 ? VERSION_ZIP64 : VERSION;
  b.writeUInt32LE(CENTRAL_SIGNATURE, 0);
  b.writeUInt16LE(version, 4); // made by (MS-DOS attributes)
  b.writeUInt16LE(version, 6); // needed
  b.writeUInt16LE(0, 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt16LE(m.dosTime, 12);
  b.writeUInt16LE(m.dosDate, 14);
  b.writeUInt32LE(m.crc >>> 0, 16);
  b.writeUInt32LE(bigSize ? MAX32 : m.size, 20);
  b.writeUInt32LE(bigSize ? MAX32 : m.size, 24);
  b.writeUInt16LE(m.name.length, 28);
  b.writeUInt16LE(extra, 30);
  b.writeUInt16LE(0, 32); // comment
  b.writeUInt16LE(0, 34); // disk
  b.writeUInt16LE(0, 36); // internal attributes
  b.writeUInt32LE(0, 38); // external attributes
  b.writeUInt32LE(bigOffset ? MAX32 : m.offset, 42);
  m.name.copy(b, 46);
  if (extra > 0) {
    let e = 46 + m.name.length;
    b.writeUInt16LE(ZIP64_EXTRA, e);
    b.writeUInt16LE(extraData, e + 2);
    e += 4;
    if (bigSize) {
      b.writeBigUInt64LE(BigInt(m.size), e);
      b.writeBigUInt64LE(BigInt(m.size), e + 8);
      e += 16;
    }
    if (bigOffset) b.writeBigUInt64LE(BigInt(m.offset), e);
  }
  return b;
}

function endRecords(count: number, cdOffset: number, cdSize: number, zip64: boolean): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_SIGNATURE, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(zip64 ? MAX32 : cdSize, 12);
  end.writeUInt32LE(zip64 ? MAX32 : cdOffset, 16);
  if (!zip64) return end;
  const rec = Buffer.alloc(56);
  rec.writeUInt32LE(ZIP64_END_SIGNATURE, 0);
  rec.writeBigUInt64LE(44n, 4); // size of the rest of the record
  rec.writeUInt16LE(VERSION_ZIP64, 12);
  rec.writeUInt16LE(VERSION_ZIP64, 14);
  rec.writeBigUInt64LE(BigInt(count), 24);
  rec.writeBigUInt64LE(BigInt(count), 32);
  rec.writeBigUInt64LE(BigInt(cdSize), 40);
  rec.writeBigUInt64LE(BigInt(cdOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(ZIP64_LOCATOR_SIGNATURE, 0);
  locator.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
  locator.writeUInt32LE(1, 16); // disks
  return Buffer.concat([rec, locator, end]);
}

function bytesOf(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** Writes an .npz member by member; commit() puts it under its name, abort() (or a failure) leaves none. */
export class NpzWriter {
  readonly path: string;
  readonly #file: TemporaryFile;
  readonly #zip64: boolean;
  readonly #members: Member[] = [];
  readonly #names = new Set<string>();
  #position = 0;
  #open = false;

  private constructor(path: string, file: TemporaryFile, zip64: boolean) {
    this.path = path;
    this.#file = file;
    this.#zip64 = zip64;
  }

  static async create(path: string, options: NpzOptions = {}): Promise<NpzWriter> {
    return new NpzWriter(path, await TemporaryFile.create(path, options), options.zip64 ?? false);
  }

  async #write(bytes: Uint8Array): Promise<void> {
    await this.#file.writeAll(bytes, this.#position);
    this.#position += bytes.length;
  }

  /** Starts member `name`.npy: an array of `shape` of dtype `dtype`, whose values follow by write(). */
  async begin(
    name: string,
    dtype: NpyDtype,
    shape: readonly number[],
    options: { fortranOrder?: boolean } = {},
  ): Promise<NpzMember> {
    if (this.#open) throw new Error('internal: an .npz member is still being written');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || this.#names.has(name)) {
      throw new InvalidArgumentError(`an .npz member needs a new identifier as its name, got "${name}"`);
    }
    const header = npyHeader(shape, { dtype, fortranOrder: options.fortranOrder ?? false });
    const itemSize = dtype === 'f8' ? 8 : 4;
    const count = shape.reduce((a, b) => a * b, 1);
    const size = header.length + count * itemSize;
    const m: Member = {
      name: Buffer.from(`${name}.npy`, 'latin1'),
      offset: this.#position,
      size,
      crc: 0,
      zip64: this.#zip64 || size >= MAX32,
      ...dosTimeDate(new Date()),
    };
    this.#names.add(name);
    this.#open = true;
    await this.#write(localHeader(m));
    await this.#write(header);
    let crc = crc32(header);
    let values = 0;
    return {
      write: async (v) => {
        if ((v instanceof Float64Array ? 8 : 4) !== itemSize) {
          throw new Error(`internal: ${name} holds ${dtype} values`);
        }
        if (values + v.length > count) throw new Error(`internal: more than ${count} values for ${name}`);
        const bytes = bytesOf(v);
        crc = crc32(bytes, crc);
        values += v.length;
        await this.#write(bytes);
      },
      end: async () => {
        if (values !== count) throw new Error(`internal: ${values} of ${count} values written to ${name}`);
        m.crc = crc;
        await this.#file.writeAll(localHeader(m), m.offset);
        this.#members.push(m);
        this.#open = false;
      },
    };
  }

  /** Adds a whole array as member `name`.npy (a scalar has shape []). */
  async add(name: string, values: Float32Array | Float64Array, shape: readonly number[] = [values.length]) {
    const member = await this.begin(name, values instanceof Float64Array ? 'f8' : 'f4', shape);
    await member.write(values);
    await member.end();
  }

  /** Writes the central directory and renames the archive into place. */
  async commit(): Promise<void> {
    if (this.#open) throw new Error('internal: an .npz member was not ended');
    const cdOffset = this.#position;
    const central = Buffer.concat(this.#members.map(centralHeader));
    const zip64 =
      this.#zip64 ||
      this.#members.length >= 0xffff ||
      this.#members.some((m) => m.zip64 || m.offset >= MAX32) ||
      cdOffset + central.length >= MAX32;
    await this.#write(central);
    await this.#write(endRecords(this.#members.length, cdOffset, central.length, zip64));
    await this.#file.close();
    await this.#file.publish();
  }

  /** Removes the temporary file; never throws. */
  abort(): Promise<void> {
    return this.#file.discard();
  }
}

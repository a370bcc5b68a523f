// A small reader of NumPy .npz archives (stored members only, ZIP64 included) and .npy arrays (float32 or
// float64, little-endian, C or Fortran order), for the tests: checks every member's CRC-32 and returns the
// arrays in C order as float64.
import { crc32 } from 'node:zlib';

export interface NpyArray {
  shape: number[];
  dtype: 'f4' | 'f8';
  fortranOrder: boolean;
  /** Values in C order (row-major), whatever the file's order. */
  data: Float64Array;
}

export function readNpy(bytes: Buffer): NpyArray {
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error('not a .npy array');
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const dict = bytes.toString('latin1', start, start + headerLen);
  const descr = /'descr': '([^']*)'/.exec(dict)?.[1];
  if (descr !== '<f4' && descr !== '<f8') throw new Error(`unsupported dtype ${descr}`);
  const fortranOrder = /'fortran_order': True/.test(dict);
  const m = /'shape': \(([^)]*)\)/.exec(dict);
  if (!m) throw new Error('.npy header has no shape');
  const shape = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const item = descr === '<f8' ? 8 : 4;
  const body = bytes.subarray(start + headerLen);
  if (body.length !== count * item) throw new Error(`.npy holds ${body.length} bytes for ${count} values`);
  const raw = new Uint8Array(body).buffer;
  const flat = item === 8 ? new Float64Array(raw) : Float64Array.from(new Float32Array(raw));
  let data = flat;
  if (fortranOrder && shape.length === 2) {
    const [rows, cols] = shape;
    data = new Float64Array(count);
    for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) data[r * cols + c] = flat[c * rows + r];
  } else if (fortranOrder && shape.length > 2) {
    throw new Error('Fortran order is read for 1-D and 2-D arrays only');
  }
  return { shape, dtype: descr === '<f8' ? 'f8' : 'f4', fortranOrder, data };
}

interface Entry {
  name: string;
  method: number;
  crc: number;
  size: number;
  offset: number;
}

/** The archive's members by name without `.npy`, in the order of its central directory. */
export function readNpz(bytes: Buffer): Map<string, NpyArray> {
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('no end of central directory record');
  let count = bytes.readUInt16LE(end + 10);
  let cdOffset = bytes.readUInt32LE(end + 16);
  if (end >= 20 && bytes.readUInt32LE(end - 20) === 0x07064b50) {
    const rec = Number(bytes.readBigUInt64LE(end - 20 + 8));
    if (bytes.readUInt32LE(rec) !== 0x06064b50) throw new Error('bad ZIP64 end record');
    count = Number(bytes.readBigUInt64LE(rec + 32));
    cdOffset = Number(bytes.readBigUInt64LE(rec + 48));
  }
  const entries: Entry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (bytes.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central header at ${p}`);
    const nameLen = bytes.readUInt16LE(p + 28);
    const extraLen = bytes.readUInt16LE(p + 30);
    const commentLen = bytes.readUInt16LE(p + 32);
    let size = bytes.readUInt32LE(p + 24);
    const compressed = bytes.readUInt32LE(p + 20);
    let offset = bytes.readUInt32LE(p + 42);
    // ZIP64 extra: the 64-bit values of the fields that hold 0xffffffff, in the order size, csize, offset
    for (let e = p + 46 + nameLen; e < p + 46 + nameLen + extraLen;) {
      const id = bytes.readUInt16LE(e);
      const len = bytes.readUInt16LE(e + 2);
      if (id === 1) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = Number(bytes.readBigUInt64LE(q));
          q += 8;
        }
        if (compressed === 0xffffffff) q += 8;
        if (offset === 0xffffffff) offset = Number(bytes.readBigUInt64LE(q));
      }
      e += 4 + len;
    }
    entries.push({
      name: bytes.toString('latin1', p + 46, p + 46 + nameLen),
      method: bytes.readUInt16LE(p + 10),
      crc: bytes.readUInt32LE(p + 16),
      size,
      offset,
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  const out = new Map<string, NpyArray>();
  for (const e of entries) {
    if (e.method !== 0) throw new Error(`${e.name}: compressed members are not read here`);
    if (bytes.readUInt32LE(e.offset) !== 0x04034b50) throw new Error(`${e.name}: bad local header`);
    const nameLen = bytes.readUInt16LE(e.offset + 26);
    const extraLen = bytes.readUInt16LE(e.offset + 28);
    if (bytes.toString('latin1', e.offset + 30, e.offset + 30 + nameLen) !== e.name) {
      throw new Error(`${e.name}: the local header names another file`);
    }
    if (bytes.readUInt32LE(e.offset + 14) !== e.crc)
      throw new Error(`${e.name}: local and central CRC differ`);
    const start = e.offset + 30 + nameLen + extraLen;
    const data = bytes.subarray(start, start + e.size);
    if (crc32(data) >>> 0 !== e.crc) throw new Error(`${e.name}: CRC-32 mismatch`);
    out.set(e.name.replace(/\.npy$/, ''), readNpy(data));
  }
  return out;
}

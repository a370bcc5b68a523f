// NumPy .npy (format 1.0) header for a float32 (default) or float64 array, C-ordered unless asked for
// Fortran order, written ahead of streamed values.

/** Little-endian float32 or float64. */
export type NpyDtype = 'f4' | 'f8';

export function npyHeader(
  shape: readonly number[],
  options: { dtype?: NpyDtype; fortranOrder?: boolean } = {},
): Buffer {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  const order = options.fortranOrder ? 'True' : 'False';
  let dict = `{'descr': '<${options.dtype ?? 'f4'}', 'fortran_order': ${order}, 'shape': (${dims}), }`;
  // magic(6) + version(2) + length(2) + dict + '\n' padded with spaces to a multiple of 64 bytes.
  const unpadded = 10 + dict.length + 1;
  dict += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const header = Buffer.alloc(10 + dict.length);
  header.write('\x93NUMPY', 0, 'latin1');
  header[6] = 1;
  header[7] = 0;
  header.writeUInt16LE(dict.length, 8);
  header.write(dict, 10, 'latin1');
  return header;
}

/** Parses a float32 .npy (for tests and for reading back exported matrices). */
export function parseNpy(bytes: Buffer): { shape: number[]; data: Float32Array } {
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error('not a .npy file');
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const dict = bytes.toString('latin1', start, start + headerLen);
  if (!dict.includes("'<f4'")) throw new Error('only little-endian float32 .npy is supported');
  const m = /'shape': \(([^)]*)\)/.exec(dict);
  if (!m) throw new Error('.npy header has no shape');
  const shape = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(Number);
  const offset = start + headerLen;
  const copy = new Uint8Array(bytes.subarray(offset));
  return { shape, data: new Float32Array(copy.buffer, 0, copy.byteLength / 4) };
}

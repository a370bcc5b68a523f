// Small helpers around FileHandle: opening a regular file, positional reads that check their length.

import { open, type FileHandle } from 'node:fs/promises';
import { CorruptFileError, PhasorError, ioError } from '../errors.js';

export interface OpenedFile {
  readonly handle: FileHandle;
  readonly size: number;
}

/** Opens a regular file for reading; OS errors become PhasorErrors naming the file. */
export async function openRegularFile(path: string): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw ioError(path, err);
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new PhasorError('io', 'is a directory, not a file', { file: path });
    if (!st.isFile()) {
      throw new PhasorError('io', 'not a regular file (pipes and devices cannot be read at random)', {
        file: path,
      });
    }
    return { handle, size: st.size };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw ioError(path, err);
  }
}

/** Reads up to `length` bytes at `position`; returns fewer only at the end of the file. */
export async function readAt(
  handle: FileHandle,
  path: string,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  const got = await readInto(handle, path, buf, length, position);
  return got === length ? buf : buf.subarray(0, got);
}

/** Fills buf[0, length) from `position`, looping over short reads; returns the bytes read (less at EOF). */
export async function readInto(
  handle: FileHandle,
  path: string,
  buf: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let got = 0;
  while (got < length) {
    let n: number;
    try {
      ({ bytesRead: n } = await handle.read(buf, got, length - got, position + got));
    } catch (err) {
      throw ioError(path, err);
    }
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Like readInto, but a short read (the file shrank while being read) is an error. */
export async function readExactly(
  handle: FileHandle,
  path: string,
  buf: Uint8Array,
  length: number,
  position: number,
): Promise<void> {
  const got = await readInto(handle, path, buf, length, position);
  if (got < length) {
    throw new CorruptFileError(
      path,
      `the file ended early at byte ${position + got} (did it shrink while being read?)`,
    );
  }
}

/** A fourcc as text for messages: printable ASCII as is, otherwise hex. */
export function fourccText(b: Uint8Array, at = 0): string {
  let s = '';
  let printable = true;
  for (let i = 0; i < 4; i++) {
    const c = b[at + i];
    if (c === undefined || c < 0x20 || c > 0x7e) printable = false;
    s += String.fromCharCode(c ?? 0);
  }
  if (printable) return `'${s}'`;
  return (
    '0x' +
    Array.from(b.subarray(at, at + 4))
      .map((x) => x.toString(16).padStart(2, '0'))
      .join('')
  );
}

export function isPrintableFourcc(b: Uint8Array, at: number): boolean {
  if (at + 4 > b.length) return false;
  for (let i = 0; i < 4; i++) {
    const c = b[at + i];
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** "50%", "0.21%", "0.0013%": enough digits to be non-zero. */
export function percentText(part: number, whole: number): string {
  const p = (part / whole) * 100;
  if (p >= 10 || p === 0) return `${Math.round(p)}%`;
  if (p >= 1) return `${p.toFixed(1).replace(/\.0$/, '')}%`;
  return `${Number(p.toPrecision(2))}%`;
}

/** PhasorErrors pass through; operating-system errors (with an errno code) become PhasorErrors naming the
 * file; anything else is a bug and is rethrown as is, so tests see it. */
export function wrapOsError(path: string, err: unknown): unknown {
  if (err instanceof PhasorError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return ioError(path, err);
  return err;
}

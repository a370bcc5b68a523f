// Just enough of the tar format (POSIX ustar, pax and GNU long names) to find the members of a SigMF
// archive (.sigmf) and read them in place: the samples are read at their offset inside the archive.

import type { FileHandle } from 'node:fs/promises';
import { CorruptFileError } from '../errors.js';
import { readAt } from './file.js';

export interface TarMember {
  readonly name: string;
  /** Byte offset of the member's contents in the archive. */
  readonly offset: number;
  readonly size: number;
}

const MAX_MEMBERS = 10000;
const MAX_HEADER_BODY = 1 << 20;

function cstring(b: Uint8Array, at: number, n: number): string {
  let end = at;
  while (end < at + n && b[end] !== 0) end++;
  return new TextDecoder().decode(b.subarray(at, end));
}

/** Octal (space/NUL terminated) or GNU base-256 number; undefined when malformed. */
function tarNumber(b: Uint8Array, at: number, n: number): number | undefined {
  if (b[at] & 0x80) {
    let v = b[at] & 0x7f;
    for (let i = 1; i < n; i++) v = v * 256 + b[at + i];
    return Number.isSafeInteger(v) ? v : undefined;
  }
  const s = cstring(b, at, n).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) return undefined;
  const v = parseInt(s, 8);
  return Number.isSafeInteger(v) ? v : undefined;
}

function checksumOk(h: Uint8Array): boolean {
  const stored = tarNumber(h, 148, 8);
  if (stored === undefined) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
  return sum === stored;
}

function parsePax(body: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const text = new TextDecoder().decode(body);
  let i = 0;
  while (i < text.length) {
    const sp = text.indexOf(' ', i);
    if (sp < 0) break;
    const len = Number(text.slice(i, sp));
    if (!Number.isSafeInteger(len) || len <= 0) break;
    const rec = text.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out.set(rec.slice(0, eq), rec.slice(eq + 1));
    i += len;
  }
  return out;
}

/** Lists the regular files of a tar archive of `size` bytes. */
export async function listTar(handle: FileHandle, path: string, size: number): Promise<TarMember[]> {
  const members: TarMember[] = [];
  let pos = 0;
  let longName: string | undefined;
  let pax = new Map<string, string>();
  for (let n = 0; pos + 512 <= size; n++) {
    if (n >= MAX_MEMBERS) throw new CorruptFileError(path, `more than ${MAX_MEMBERS} entries in the archive`);
    const h = await readAt(handle, path, pos, 512);
    if (h.length < 512) break;
    if (h.every((x) => x === 0)) break;
    if (!checksumOk(h)) {
      throw new CorruptFileError(path, `not a valid tar archive (header checksum mismatch at byte ${pos})`);
    }
    let memberSize = tarNumber(h, 124, 12);
    if (memberSize === undefined)
      throw new CorruptFileError(path, `tar header at byte ${pos} has a malformed size`);
    const type = String.fromCharCode(h[156]);
    const body = pos + 512;
    if (type === 'x' || type === 'L') {
      if (memberSize > MAX_HEADER_BODY)
        throw new CorruptFileError(path, `tar extended header at byte ${pos} is too large`);
      const b = await readAt(handle, path, body, memberSize);
      if (b.length < memberSize) throw new CorruptFileError(path, 'the archive ends inside a tar header');
      if (type === 'x') pax = parsePax(b);
      else longName = cstring(b, 0, b.length);
    } else {
      if (pax.has('size')) {
        const s = Number(pax.get('size'));
        if (!Number.isSafeInteger(s) || s < 0)
          throw new CorruptFileError(path, `tar member at byte ${pos} has a malformed size`);
        memberSize = s;
      }
      if (type === '0' || type === '\0' || type === '7') {
        let name = pax.get('path') ?? longName;
        if (name === undefined) {
          name = cstring(h, 0, 100);
          if (cstring(h, 257, 5) === 'ustar') {
            const prefix = cstring(h, 345, 155);
            if (prefix !== '') name = `${prefix}/${name}`;
          }
        }
        members.push({ name, offset: body, size: memberSize });
      }
      longName = undefined;
      pax = new Map();
    }
    pos = body + Math.ceil(memberSize / 512) * 512;
  }
  return members;
}

// Web mode's upload endpoint: a file dropped on the page is sent with `PUT /upload?name=<file name>` (same
// origin and access token as the page) and streamed to disk, never held in memory, into a folder of this
// server's own (under the system's temporary folder, removed when the server stops). The reply is JSON
// { "path": "<where it is>" }; the page then opens that path. Names are reduced to a safe file name (no
// folders, no hidden files); two uploads of one name get paths of their own ("x (2).wav"). The space an
// upload needs is reserved before it starts and counted against every upload running beside it: one that
// would leave less than the reserve free on the disk is refused (507), as is one over the per-file limit
// (413); an upload that fails or is cut short leaves nothing behind.

import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { link, mkdtemp, rm, statfs } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const UPLOAD_PATH = '/upload';
/** Free space an upload must leave on the disk, unless PHASOR_UPLOAD_RESERVE_BYTES says otherwise. */
export const DEFAULT_UPLOAD_RESERVE = 1 << 30;
/** Largest upload accepted unless the server is told otherwise (`phasor serve --max-upload`). */
export const DEFAULT_MAX_UPLOAD = 64 * 2 ** 30;
/** Free space is checked again (and, without a Content-Length, reserved) every this many bytes. */
const RECHECK_BYTES = 16 << 20;
const MAX_NAME_BYTES = 200;

/**
 * A safe file name from a browser's: the last path component, characters outside letters, digits and
 * ` ._-()+,=@~` replaced by `_`, no leading dots or spaces (no hidden files, no `..`), at most 200 bytes
 * with the extension kept. Null when nothing usable is left.
 */
export function sanitizeUploadName(raw: string): string | null {
  let name = raw.normalize('NFC').split(/[/\\]/).pop() ?? '';
  name = name.replace(/[^\p{L}\p{N} ._\-()+,=@~]/gu, '_');
  name = name.replace(/^[. ]+/, '').replace(/[. ]+$/, '');
  if (name === '' || /^_+$/.test(name)) return null;
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  if (bytes(name) > MAX_NAME_BYTES) {
    const ext = path.extname(name);
    const keep = bytes(ext) <= 24 ? ext : '';
    let stem = name.slice(0, name.length - keep.length);
    while (bytes(stem) + bytes(keep) > MAX_NAME_BYTES) stem = stem.slice(0, -1);
    name = stem.replace(/[. ]+$/, '') + keep;
  }
  return name;
}

export function uploadReserveFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const t = env.PHASOR_UPLOAD_RESERVE_BYTES;
  if (t === undefined || t === '') return DEFAULT_UPLOAD_RESERVE;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_UPLOAD_RESERVE;
}

async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function size(n: number): string {
  return n >= 2 ** 30 ? gib(n) : `${(n / 2 ** 20).toFixed(1)} MiB`;
}

function gib(n: number): string {
  return `${(n / 2 ** 30).toFixed(1)} GiB`;
}

export interface UploadStoreOptions {
  /** Where the server's upload folder is made (default: the system's temporary folder). */
  parent?: string;
  /** Free bytes every upload must leave on the disk. */
  reserveBytes?: number;
  /** Largest upload accepted (bytes). */
  maxBytes?: number;
  /** Called with the upload folder once it is made (the server grants it to its clients). */
  onFolder?: (dir: string) => Promise<void> | void;
}

/** "name (2).ext" for the second file of a name, and so on. */
function numbered(name: string, n: number): string {
  if (n === 1) return name;
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

export class UploadStore {
  readonly #parent: string;
  readonly #reserve: number;
  readonly #max: number;
  readonly #onFolder: ((dir: string) => Promise<void> | void) | undefined;
  /** Bytes reserved by the uploads running now and not yet written. */
  #claimed = 0;
  #dir: Promise<string> | null = null;
  #closed = false;

  constructor(options: UploadStoreOptions = {}) {
    this.#parent = options.parent ?? os.tmpdir();
    this.#reserve = options.reserveBytes ?? uploadReserveFromEnv();
    this.#max = options.maxBytes ?? DEFAULT_MAX_UPLOAD;
    this.#onFolder = options.onFolder;
  }

  /** The upload folder, made on the first upload. */
  #folder(): Promise<string> {
    if (!this.#dir) {
      const made = mkdtemp(path.join(this.#parent, 'phasor-uploads-')).then(async (dir) => {
        await this.#onFolder?.(dir);
        return dir;
      });
      this.#dir = made;
      made.catch(() => {
        if (this.#dir === made) this.#dir = null; // try again next time
      });
    }
    return this.#dir;
  }

  /** Serves one PUT /upload (the caller has checked host, origin and token). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    headers: Record<string, string>,
  ): Promise<void> {
    const reply = (status: number, body: string, type: string, extra: Record<string, string> = {}): void => {
      if (res.headersSent) return;
      res.writeHead(status, { ...headers, ...extra, 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    const refuse = (status: number, text: string, extra: Record<string, string> = {}): void => {
      // The body is not read: close the connection rather than drain it.
      reply(status, text + '\n', 'text/plain; charset=utf-8', { ...extra, Connection: 'close' });
      req.unpipe();
      res.once('finish', () => req.destroy());
    };
    if (req.method !== 'PUT') {
      refuse(405, 'upload with PUT /upload?name=<file name>', { Allow: 'PUT' });
      return;
    }
    if (this.#closed) {
      refuse(503, 'the server is stopping');
      return;
    }
    const name = sanitizeUploadName(url.searchParams.get('name') ?? '');
    if (name === null) {
      refuse(400, 'name the file: PUT /upload?name=<file name>');
      return;
    }
    const lengthHeader = req.headers['content-length'];
    const length = lengthHeader === undefined ? undefined : Number(lengthHeader);
    if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) {
      refuse(400, 'bad Content-Length');
      return;
    }
    if (length !== undefined && length > this.#max) {
      refuse(
        413,
        `the file is larger than the ${size(this.#max)} this server accepts (phasor serve --max-upload)`,
      );
      return;
    }
    let tmp: string | null = null;
    // What this upload has reserved and not yet written; given back however it ends.
    let claim = 0;
    try {
      const dir = await this.#folder();
      const reserve = this.#reserve;
      /** Reserves `more` bytes if the disk keeps the reserve free with every running upload counted. */
      const claimMore = async (more: number): Promise<void> => {
        const free = await freeBytes(dir);
        if (free - this.#claimed - more < reserve) {
          const others = this.#claimed - claim;
          throw new Refusal(
            507,
            `not enough disk space for this upload: ${gib(free)} free, ${gib(reserve)} must stay free` +
              (others > 0 ? `, ${gib(others)} promised to uploads under way` : ''),
          );
        }
        claim += more;
        this.#claimed += more;
      };
      await claimMore(length ?? Math.min(RECHECK_BYTES, this.#max));
      tmp = path.join(dir, `.${name}.upload-${randomBytes(6).toString('hex')}.tmp`);
      let written = 0;
      let nextCheck = RECHECK_BYTES;
      const max = this.#max;
      const meter = new Transform({
        transform: (chunk: Buffer, _enc, done: TransformCallback) => {
          written += chunk.length;
          // Written bytes are on the disk now: free space shows them, the claim no longer needs to.
          const used = Math.min(claim, chunk.length);
          claim -= used;
          this.#claimed -= used;
          if (length !== undefined && written > length) {
            done(new Refusal(400, 'the body is longer than its Content-Length'));
            return;
          }
          if (written > max) {
            done(
              new Refusal(
                413,
                `the file is larger than the ${size(max)} this server accepts (phasor serve --max-upload)`,
              ),
            );
            return;
          }
          if (written < nextCheck) {
            done(null, chunk);
            return;
          }
          nextCheck = written + RECHECK_BYTES;
          // Without a Content-Length the next piece is reserved; with one, the rest is held already.
          claimMore(length === undefined ? RECHECK_BYTES : 0).then(
            () => done(null, chunk),
            (e: unknown) => done(e as Error),
          );
        },
      });
      await pipeline(req, meter, createWriteStream(tmp, { flags: 'wx' }));
      if (length !== undefined && written !== length) throw new Refusal(400, 'the upload was cut short');
      // A name of its own: link() never replaces a file, so two uploads of one name never share a path.
      let target = '';
      for (let n = 1; ; n++) {
        target = path.join(dir, numbered(name, n));
        try {
          await link(tmp, target);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 10000) throw err;
        }
      }
      await rm(tmp, { force: true });
      tmp = null;
      reply(200, JSON.stringify({ path: target }) + '\n', 'application/json');
    } catch (err) {
      if (tmp !== null) await rm(tmp, { force: true }).catch(() => undefined);
      if (err instanceof Refusal) refuse(err.status, err.message);
      else if ((err as NodeJS.ErrnoException).code === 'ENOSPC') refuse(507, 'the disk is full');
      else if (!req.destroyed) refuse(500, 'the upload could not be stored');
    } finally {
      this.#claimed -= claim;
      claim = 0;
    }
  }

  /** Removes the upload folder and everything in it. */
  async dispose(): Promise<void> {
    this.#closed = true;
    const dir = this.#dir;
    this.#dir = null;
    const folder = dir ? await dir.catch(() => null) : null;
    if (folder) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}

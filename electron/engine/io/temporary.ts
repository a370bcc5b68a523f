// Temporary files for atomic writes: created beside the target, renamed into place on success, removed on
// failure, cancel or exit. A partial file never stands under its final name. Every byte of an output goes
// through writeAll, which takes no short write for a whole one, and close() checks the file's length
// against what was written. A temporary is named `.NAME.phasor-<host>-<pid>-<hex>.tmp`: one left by a
// process of this machine that was killed (SIGKILL, power loss) is removed when this user next makes a
// temporary in that folder.

import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PhasorError, ioError } from '../errors.js';

/** Temporaries not yet renamed or removed, for removePendingTemporaries(). */
const pending = new Set<string>();

/**
 * Removes every temporary file a writer of this process still holds (synchronous, so hosts can call it
 * from an 'exit' handler or on SIGINT/SIGTERM). Writers left open become unusable.
 */
export function removePendingTemporaries(): void {
  for (const p of pending) {
    try {
      rmSync(p, { force: true });
    } catch {
      // Best effort at exit.
    }
  }
  pending.clear();
}

/** This machine in a temporary's name: a pid tells whether the writer still runs only on the machine
 * that made the temporary (a folder may be shared over the network). */
const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A temporary's name: `.NAME.phasor-<host>-<pid>-<hex>.tmp`, the machine and process writing it. */
const TEMPORARY_NAME = /^\..+\.phasor-([0-9a-f]{8})-(\d+)-[0-9a-f]+\.tmp$/;

/** The hidden name beside `target` for a file of this process, ending in `suffix`. */
export function hiddenName(target: string, suffix: string): string {
  const name = `.${basename(target)}.phasor-${HOST}-${process.pid}-${randomBytes(6).toString('hex')}${suffix}`;
  return join(dirname(target), name);
}

/** Whether process `pid` runs (a process of another user counts as running). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the temporaries in `dir` left by processes of this machine that no longer run: regular files
 * of this user named as ours. A running process's temporaries, and another machine's, are kept. Never
 * throws (a folder that cannot be listed fails the job later, when the temporary is created). Returns the
 * paths removed.
 */
export async function removeStaleTemporaries(dir: string): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = TEMPORARY_NAME.exec(name);
    if (m === null || m[1] !== HOST) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || running(pid)) continue;
    const path = join(dir, name);
    try {
      const s = await lstat(path);
      if (!s.isFile() || (uid !== undefined && s.uid !== uid)) continue;
      await rm(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

/** Paths of the temporaries still pending (for tests and diagnostics). */
export function pendingTemporaries(): string[] {
  return [...pending];
}

export interface TemporaryOptions {
  /** Flush the file to the disk before it is renamed into place (default true), so that not even a power
   * loss leaves an incomplete file under the target's name. Without it a killed or failed job still leaves
   * nothing there; the rename no longer waits for the disk, as `cp` or `numpy.save` do not. */
  durable?: boolean;
  /** Bytes between background flushes of a durable file (default 128 MiB). */
  syncEveryBytes?: number;
}

/** A durable temporary starts a background flush after this many bytes written since the last one began, so
 * the disk writes while the job computes and the final flush before the rename is short. */
const SYNC_EVERY_BYTES = 128 << 20;

export class TemporaryFile {
  readonly target: string;
  readonly path: string;
  readonly #handle: FileHandle;
  /** close() flushes the file to the disk before it is renamed (see TemporaryOptions.durable). */
  readonly durable: boolean;
  readonly #syncEvery: number;
  #unsynced = 0;
  /** One past the last byte written: the length close() expects the file to have. */
  #end = 0;
  #syncing: Promise<void> | undefined;

  private constructor(target: string, path: string, handle: FileHandle, options: TemporaryOptions) {
    this.target = target;
    this.path = path;
    this.#handle = handle;
    this.durable = options.durable ?? true;
    this.#syncEvery = options.syncEveryBytes ?? SYNC_EVERY_BYTES;
  }

  static async create(target: string, options: TemporaryOptions = {}): Promise<TemporaryFile> {
    await removeStaleTemporaries(dirname(target));
    const path = hiddenName(target, '.tmp');
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        throw new PhasorError('io', `cannot write here: the folder ${dirname(target)} does not exist`, {
          file: target,
          cause: err,
        });
      }
      throw ioError(target, err);
    }
    pending.add(path);
    return new TemporaryFile(target, path, handle, options);
  }

  get pending(): boolean {
    return pending.has(this.path);
  }

  /** Writes all of `bytes` at `position`: a write may store fewer bytes than asked (a disk filling up), so
   * it goes on until all are stored or a write fails (ENOSPC), never taking a short write for a whole one;
   * a write that stores nothing without an error fails too. Errors name the target. */
  async writeAll(bytes: Uint8Array, position: number): Promise<void> {
    for (let done = 0; done < bytes.length;) {
      let bytesWritten: number;
      try {
        ({ bytesWritten } = await this.#handle.write(bytes, done, bytes.length - done, position + done));
      } catch (err) {
        throw ioError(this.target, err);
      }
      if (!(bytesWritten > 0)) {
        throw new PhasorError(
          'io',
          `a write stored nothing, without an error (${done} of ${bytes.length} bytes stored)`,
          { file: this.target },
        );
      }
      done += bytesWritten;
    }
    this.#end = Math.max(this.#end, position + bytes.length);
    this.#unsynced += bytes.length;
    if (this.durable && this.#syncing === undefined && this.#unsynced >= this.#syncEvery) {
      this.#unsynced = 0;
      const sync = this.#handle.datasync().finally(() => {
        this.#syncing = undefined;
      });
      sync.catch(() => undefined); // a failure shows again in close()'s flush
      this.#syncing = sync;
    }
  }

  /** Waits for a background flush (before the final one, or before the file is discarded). */
  async #settled(): Promise<void> {
    await this.#syncing?.catch(() => undefined);
  }

  /** Closes the handle, flushing the file to the disk first when durable (it stays a temporary). Fails
   * when the file holds fewer or more bytes than were written. */
  async close(): Promise<void> {
    await this.#settled();
    let size: number;
    try {
      if (this.durable) await this.#handle.sync();
      size = (await this.#handle.stat()).size;
      await this.#handle.close();
    } catch (err) {
      throw ioError(this.target, err);
    }
    if (size !== this.#end) {
      throw new PhasorError('io', `the file holds ${size} of ${this.#end} bytes written`, {
        file: this.target,
      });
    }
  }

  /** Renames the (closed) temporary to its target. */
  async publish(): Promise<void> {
    try {
      await rename(this.path, this.target);
    } catch (err) {
      throw ioError(this.target, err);
    }
    pending.delete(this.path);
  }

  /** Closes (if open) and deletes the temporary; never throws. */
  async discard(): Promise<void> {
    await this.#settled();
    await this.#handle.close().catch(() => undefined);
    await rm(this.path, { force: true }).catch(() => undefined);
    pending.delete(this.path);
  }
}

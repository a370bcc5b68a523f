// Temporary files for atomic writes: created beside the target, renamed into place on success, removed on
// failure, cancel or exit. A partial file never stands under its final name.

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
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
  readonly handle: FileHandle;
  /** close() flushes the file to the disk before it is renamed (see TemporaryOptions.durable). */
  readonly durable: boolean;
  readonly #syncEvery: number;
  #unsynced = 0;
  #syncing: Promise<void> | undefined;

  private constructor(target: string, path: string, handle: FileHandle, options: TemporaryOptions) {
    this.target = target;
    this.path = path;
    this.handle = handle;
    this.durable = options.durable ?? true;
    this.#syncEvery = options.syncEveryBytes ?? SYNC_EVERY_BYTES;
  }

  static async create(target: string, options: TemporaryOptions = {}): Promise<TemporaryFile> {
    const path = join(dirname(target), `.${basename(target)}.phasor-${randomBytes(6).toString('hex')}.tmp`);
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
   * it goes on until all are stored or a write fails (ENOSPC), never taking a short write for a whole one.
   * Errors are the OS's (callers name the file). */
  async writeAll(bytes: Uint8Array, position: number): Promise<void> {
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, position + done);
      done += bytesWritten;
    }
    this.#unsynced += bytes.length;
    if (this.durable && this.#syncing === undefined && this.#unsynced >= this.#syncEvery) {
      this.#unsynced = 0;
      const sync = this.handle.datasync().finally(() => {
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

  /** Closes the handle, flushing the file to the disk first when durable (it stays a temporary). */
  async close(): Promise<void> {
    await this.#settled();
    try {
      if (this.durable) await this.handle.sync();
      await this.handle.close();
    } catch (err) {
      throw ioError(this.target, err);
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
    await this.handle.close().catch(() => undefined);
    await rm(this.path, { force: true }).catch(() => undefined);
    pending.delete(this.path);
  }
}

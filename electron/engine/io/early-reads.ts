// Reads a job's input files into the OS's cache from the process's first moments, while Node loads the
// job's modules and the input has not been opened yet (the first 0.15 s on the lent H100): a cold file's
// disk starts that much sooner. When the job's source begins its own prefetch (FileSampleSource.prefetch)
// it takes over where the early read got to (claimEarlyRead), so no byte is read twice. A hint only:
// errors are the job's own reads' to report.

import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fromCache, PREFETCH_DEFAULTS, PREFETCH_PIECE } from './prefetch-policy.js';

/** How far a file is read before its source takes over: the prefetch's lead. */
const LIMIT = PREFETCH_DEFAULTS.lead;

interface EarlyRead {
  /** The byte after the last read issued. */
  next: number;
  stopped: boolean;
  done: Promise<void>;
}

const reads = new Map<string, EarlyRead>();

/** Starts reading each path that names a regular file (others are ignored), one read at a time a file. */
export function readEarly(paths: readonly string[]): void {
  for (const p of paths) {
    const key = resolve(p);
    if (reads.has(key)) continue;
    const r: EarlyRead = { next: 0, stopped: false, done: Promise.resolve() };
    r.done = readThrough(key, r);
    reads.set(key, r);
  }
}

async function readThrough(path: string, r: EarlyRead): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size === 0 || r.stopped) return;
    const handle = await open(path, 'r');
    try {
      const end = Math.min(info.size, LIMIT);
      const scratch = new Uint8Array(Math.min(PREFETCH_PIECE, end));
      let cached = 0;
      while (!r.stopped && r.next < end) {
        const pos = r.next;
        const n = Math.min(scratch.length, end - pos);
        r.next = pos + n;
        const t = performance.now();
        const { bytesRead } = await handle.read(scratch, 0, n, pos);
        if (bytesRead === 0) return;
        cached = fromCache(bytesRead, performance.now() - t) ? cached + 1 : 0;
        if (cached >= PREFETCH_DEFAULTS.cachedReads) return;
      }
    } finally {
      await handle.close();
    }
  } catch {
    // a hint only
  }
}

/** Stops the early read of `path`, if any, and returns the byte it had got to (its reads issued); 0 if none. */
export function claimEarlyRead(path: string): number {
  const r = reads.get(resolve(path));
  if (r === undefined) return 0;
  r.stopped = true;
  return r.next;
}

/** Resolves when the early read of `path` (if any) has ended: its file read through, cached, or stopped. */
export async function earlyReadEnded(path: string): Promise<void> {
  await reads.get(resolve(path))?.done;
}

/** Stops every early read; resolves when their files are closed (a job that ends leaves none running). */
export async function stopEarlyReads(): Promise<void> {
  const all = [...reads.values()];
  reads.clear();
  for (const r of all) r.stopped = true;
  await Promise.all(all.map((r) => r.done));
}

// Reads a file job's inputs into the OS's cache from the first milliseconds of the process, while Node
// loads the job and a GPU's driver starts (0.3–0.5 s with CUDA): from a cold cache the disk is busy from
// the start instead of from the moment the input is opened. Only a hint: errors are the job's to report.

import { open, stat } from 'node:fs/promises';

/** Bytes of one read (one in flight a file, into one scratch buffer). */
const PIECE = 4 << 20;

/** Options whose next word is an output, never read. */
const OUTPUT_OPTIONS = new Set(['-o', '--output']);

let running: AbortController | undefined;

/** The words of a job's command line that may name its inputs: every word that is not an option and
 * not the value of -o/--output (option values that are not files are dropped by the caller's stat). */
export function inputCandidates(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (OUTPUT_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) words.push(a);
  }
  // a SigMF recording named by its metadata keeps its samples beside it
  return words.flatMap((w) => (w.endsWith('.sigmf-meta') ? [w, `${w.slice(0, -'meta'.length)}data`] : [w]));
}

/** Reads one file through; returns the bytes read (0 for anything that is not a readable file). */
async function readThrough(path: string, signal: AbortSignal): Promise<number> {
  const info = await stat(path);
  if (!info.isFile() || info.size === 0) return 0;
  const handle = await open(path, 'r');
  let pos = 0;
  try {
    const scratch = new Uint8Array(Math.min(PIECE, info.size));
    while (pos < info.size && !signal.aborted) {
      const { bytesRead } = await handle.read(scratch, 0, scratch.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return pos;
}

/** Starts reading the job's input files (the command word itself is skipped) until stopPrefetch(). The
 * promise (never rejected) tells the bytes read of each file it read. */
export function startPrefetch(
  argv: string[],
  command: string,
): Promise<Array<[path: string, bytes: number]>> {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  const paths = inputCandidates(argv).filter((w) => w !== command);
  // one file after the other: the first named is the one the job reads first
  return (async () => {
    const read: Array<[string, number]> = [];
    for (const path of paths) {
      if (controller.signal.aborted) break;
      const bytes = await readThrough(path, controller.signal).catch(() => 0);
      if (bytes > 0) read.push([path, bytes]);
    }
    return read;
  })();
}

/** Whether startPrefetch began reading the named files (finished or not) and stopPrefetch has not been
 * called since: a source need not read ahead for itself. */
export function prefetching(): boolean {
  return running !== undefined && !running.signal.aborted;
}

/** Stops the reads begun by startPrefetch (the job reads for itself from here on). */
export function stopPrefetch(): void {
  running?.abort();
  running = undefined;
}

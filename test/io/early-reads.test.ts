// The CLI's early reads: the files a job names are read from the process's first moments, and the source's
// prefetch takes over where they got to, so no byte is read twice.

import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { inputCandidates } from '../../electron/cli/early.js';
import {
  claimEarlyRead,
  earlyReadEnded,
  readEarly,
  stopEarlyReads,
} from '../../electron/engine/io/early-reads.js';
import { openSource } from '../../electron/engine/io/index.js';
import { makeTempDir } from './helpers.js';

const tmp = makeTempDir('early-reads');
afterAll(() => tmp.cleanup());
const MiB = 1 << 20;

type Prefetching = { prefetch: (s: AbortSignal, o: object) => Promise<void> };

describe('early reads', () => {
  it('names the inputs: words after the command, not options or the output', () => {
    const argv = ['--debug', 'filter', 'in.cf32', '--format', 'cf32', '-o', 'out.wav', '--lowpass', '1k'];
    expect(inputCandidates(argv, 'filter')).toEqual(['in.cf32', 'cf32', '1k']);
    expect(inputCandidates(['correlate', 'a.sigmf-meta', 't.wav', '--output', 'x'], 'correlate')).toEqual([
      'a.sigmf-meta',
      'a.sigmf-data',
      't.wav',
    ]);
    // the command's name as a later word is a file name like any other
    expect(inputCandidates(['peaks', 'peaks'], 'peaks')).toEqual(['peaks']);
  });

  it('reads a named file, and the prefetch starts where it got to', async () => {
    const path = tmp.file('early.cf32');
    writeFileSync(path, new Uint8Array(12 * MiB).fill(3));
    const dir = tmp.file('a-directory');
    mkdirSync(dir);
    // what is not a regular file, or not there, is passed over without a word
    readEarly([path, dir, tmp.file('missing.cf32'), 'cf32']);
    await earlyReadEnded(path);
    const source = (await openSource(path, { format: 'cf32', rate: 1e6 })) as Awaited<
      ReturnType<typeof openSource>
    > &
      Prefetching;
    try {
      const reads: number[] = [];
      await source.prefetch(new AbortController().signal, {
        cacheBytesPerMs: Infinity,
        onRead: (from: number) => reads.push(from),
      });
      // the early read had got through the file: nothing left to fetch
      expect(reads).toEqual([]);
      expect(claimEarlyRead(path)).toBe(12 * MiB);
    } finally {
      await source.close();
    }
    // a file never read early starts from its first byte
    const other = tmp.file('late.cf32');
    writeFileSync(other, new Uint8Array(6 * MiB).fill(1));
    expect(claimEarlyRead(other)).toBe(0);
    const late = (await openSource(other, { format: 'cf32', rate: 1e6 })) as Awaited<
      ReturnType<typeof openSource>
    > &
      Prefetching;
    try {
      const reads: number[] = [];
      await late.prefetch(new AbortController().signal, {
        cacheBytesPerMs: Infinity,
        onRead: (from: number) => reads.push(from),
      });
      expect(reads).toEqual([0, 4 * MiB]);
    } finally {
      await late.close();
    }
    await stopEarlyReads();
    expect(claimEarlyRead(path)).toBe(0);
  });
});

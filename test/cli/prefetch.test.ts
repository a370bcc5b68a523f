import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inputCandidates, prefetching, startPrefetch, stopPrefetch } from '../../electron/cli/prefetch.js';

afterEach(() => stopPrefetch());

describe('the CLI reads its inputs ahead from its first milliseconds', () => {
  it('names the words that may be inputs, never the output', () => {
    expect(
      inputCandidates(['filter', 'rec.cf32', '-o', 'out.cf32', '--lowpass', '3k', '--output', 'x', '--json']),
    ).toEqual(['filter', 'rec.cf32', '3k']);
    expect(inputCandidates(['correlate', 'a.wav', 'b.wav'])).toEqual(['correlate', 'a.wav', 'b.wav']);
    // a SigMF recording named by its metadata: its samples are read ahead too
    expect(inputCandidates(['peaks', 'r.sigmf-meta'])).toEqual(['peaks', 'r.sigmf-meta', 'r.sigmf-data']);
  });

  it('reads the named files whole, in order, skipping what is not a file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'phasor-prefetch-'));
    try {
      const a = path.join(dir, 'a.raw');
      const b = path.join(dir, 'b.raw');
      writeFileSync(a, new Uint8Array((9 << 20) + 3));
      writeFileSync(b, new Uint8Array(10));
      writeFileSync(path.join(dir, 'out'), new Uint8Array(10));
      expect(prefetching()).toBe(false);
      const read = startPrefetch(
        ['filter', path.join(dir, 'missing'), dir, a, '-o', path.join(dir, 'out'), b],
        'filter',
      );
      expect(prefetching()).toBe(true);
      expect(await read).toEqual([
        [a, (9 << 20) + 3],
        [b, 10],
      ]);
      // finished, but the job's sources still need not read ahead until it stops
      expect(prefetching()).toBe(true);
      stopPrefetch();
      expect(prefetching()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops reading when stopped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'phasor-prefetch-'));
    try {
      const a = path.join(dir, 'a.raw');
      const b = path.join(dir, 'b.raw');
      writeFileSync(a, new Uint8Array(64 << 20));
      writeFileSync(b, new Uint8Array(10));
      const read = startPrefetch(['peaks', a, b], 'peaks');
      stopPrefetch();
      const got = await read;
      // at most the piece in flight when stopped, and nothing of the next file
      expect(got.length).toBeLessThanOrEqual(1);
      for (const [p, bytes] of got) {
        expect(p).toBe(a);
        expect(bytes).toBeLessThanOrEqual(4 << 20);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

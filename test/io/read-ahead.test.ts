// Reading ahead and reusing read buffers change when the disk is read, never what a block holds.

import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSource } from '../../electron/engine/io/index.js';
import type { SampleBlock } from '../../electron/engine/types.js';
import { makeTempDir } from './helpers.js';

const tmp = makeTempDir('read-ahead');
afterAll(() => tmp.cleanup());

function pattern(bytes: number): Uint8Array {
  const b = new Uint8Array(bytes);
  let s = 7;
  for (let i = 0; i < bytes; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    b[i] = s >>> 16;
  }
  return b;
}

/** A block's values as plain numbers (a copy, so later reuse of the buffer cannot change it). */
function values(block: SampleBlock): number[] {
  const d = block.data;
  return d instanceof Float32Array ? Array.from(d) : Array.from(d.data as ArrayLike<number>);
}

describe('read-ahead and buffer reuse', () => {
  for (const format of ['cf32', 'cs16', 'cu8', 'cs8'] as const) {
    it(`yields the same blocks for ${format}, raw and decoded`, async () => {
      const path = tmp.file(`x.${format}`);
      // 10,007 frames: blocks of 1000 leave a short last one.
      const frameBytes = { cf32: 8, cs16: 4, cu8: 2, cs8: 2 }[format];
      const data = pattern(10_007 * frameBytes);
      if (format === 'cf32') {
        // Finite floats only: random bytes could spell NaN, which compares unequal.
        const f = new Float32Array(data.buffer);
        for (let i = 0; i < f.length; i++) f[i] = Math.sin(i * 0.37) * (1 + (i % 5));
      }
      writeFileSync(path, data);
      const source = await openSource(path, { format, rate: 1e6 });
      try {
        for (const raw of [false, true]) {
          const want: Array<[number, number, number[]]> = [];
          for await (const b of source.blocks({ blockFrames: 1000, raw }))
            want.push([b.start, b.frames, values(b)]);
          expect(want.length).toBe(11);
          for (const readAhead of [1, 3]) {
            for (const reuse of [false, true]) {
              const got: Array<[number, number, number[]]> = [];
              let previous: { block: SampleBlock; copy: number[] } | undefined;
              for await (const b of source.blocks({ blockFrames: 1000, raw, readAhead, reuse })) {
                // The block before this one is still intact (a reused buffer is refilled only later).
                if (previous !== undefined) expect(values(previous.block)).toEqual(previous.copy);
                const copy = values(b);
                got.push([b.start, b.frames, copy]);
                previous = { block: b, copy };
              }
              expect(got).toEqual(want);
            }
          }
        }
      } finally {
        await source.close();
      }
    });
  }

  it('reads a middle range ahead and stops early without an unhandled rejection', async () => {
    const path = tmp.file('range.cf32');
    const f = new Float32Array(2 * 5000).map((_, i) => Math.cos(i));
    writeFileSync(path, new Uint8Array(f.buffer));
    const source = await openSource(path, { format: 'cf32', rate: 1e6 });
    const starts: number[] = [];
    for await (const b of source.blocks({
      start: 1234,
      end: 4321,
      blockFrames: 500,
      readAhead: 4,
      reuse: true,
    })) {
      starts.push(b.start);
      expect(b.data).toEqual(f.subarray(2 * b.start, 2 * (b.start + b.frames)));
      if (starts.length === 3) break;
    }
    // Reads still in flight fail once the handle closes; they must not surface.
    await source.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(starts).toEqual([1234, 1734, 2234]);
  });

  it('reads into the buffers it is given, where they hold a block, and into its own otherwise', async () => {
    const path = tmp.file('given.cf32');
    const f = new Float32Array(2 * 3000).map((_, i) => Math.sin(i * 0.1));
    writeFileSync(path, new Uint8Array(f.buffer));
    const source = await openSource(path, { format: 'cf32', rate: 1e6 });
    try {
      // a ring of readAhead + 2 = 3: slot 1's buffer is too small for a block of 500 frames (4000 bytes)
      const given = [new ArrayBuffer(4000), new ArrayBuffer(100), new ArrayBuffer(8000)];
      const seen: ArrayBufferLike[] = [];
      for await (const b of source.blocks({ blockFrames: 500, readAhead: 1, reuse: true, buffers: given })) {
        expect(b.data).toEqual(f.subarray(2 * b.start, 2 * (b.start + b.frames)));
        seen.push((b.data as Float32Array).buffer);
      }
      expect(seen.length).toBe(6);
      expect(seen[0]).toBe(given[0]);
      expect(seen[1]).not.toBe(given[1]);
      expect(seen[2]).toBe(given[2]);
      expect(seen[3]).toBe(given[0]);
    } finally {
      await source.close();
    }
  });

  it('prefetches the samples to the end, stops when aborted, and never throws', async () => {
    const path = tmp.file('prefetch.cf32');
    writeFileSync(path, new Uint8Array(9 << 20).fill(1)); // 9 MiB: three reads of at most 4 MiB
    const source = await openSource(path, { format: 'cf32', rate: 1e6 });
    const handle = await import('node:fs/promises').then((fs) => fs.open(path));
    const proto = Object.getPrototypeOf(handle) as { read: (...a: unknown[]) => unknown };
    await handle.close();
    const spy = vi.spyOn(proto, 'read');
    try {
      await source.prefetch!(new AbortController().signal);
      const reads = spy.mock.calls.length;
      expect(reads).toBe(3);
      const stopped = new AbortController();
      stopped.abort();
      await source.prefetch!(stopped.signal);
      expect(spy.mock.calls.length).toBe(reads);
      // the blocks are unchanged by it, and a prefetch racing close() settles quietly
      let frames = 0;
      for await (const b of source.blocks({ blockFrames: 1 << 18 })) frames += b.frames;
      expect(frames).toBe((9 << 20) / 8);
      const racing = source.prefetch!(new AbortController().signal);
      await source.close();
      await expect(racing).resolves.toBeUndefined();
    } finally {
      spy.mockRestore();
      await source.close();
    }
  });

  it('prefetches ahead of the job within its lead, skips what the job read, and stops when cached', async () => {
    const path = tmp.file('prefetch-lead.cf32');
    const MiB = 1 << 20;
    writeFileSync(path, new Uint8Array(40 * MiB).fill(2));
    const source = (await openSource(path, { format: 'cf32', rate: 1e6 })) as Awaited<
      ReturnType<typeof openSource>
    > & { prefetch: (s: AbortSignal, o: object) => Promise<void> };
    const never = new AbortController().signal;
    try {
      // every read counts as a disk's (never cached): it runs beside a slow job, at most 8 MiB ahead
      const reads: Array<[number, number, number]> = [];
      let consumed = 0;
      const prefetching = source.prefetch(never, {
        cacheBytesPerMs: Infinity,
        lead: 8 * MiB,
        onRead: (from: number, to: number) => reads.push([from, to, consumed]),
      });
      for await (const b of source.blocks({ blockFrames: MiB / 8, readAhead: 2 })) {
        consumed = (b.start + b.frames) * 8;
        await new Promise((r) => setTimeout(r, 2));
      }
      await prefetching;
      expect(reads.length).toBeGreaterThan(0);
      for (const [from, , at] of reads) {
        // the job had issued reads up to `at` + 2 blocks ahead: the prefetch starts within its lead of that
        expect(from).toBeLessThan(at + 3 * MiB + 8 * MiB);
      }
      // after a whole pass there is nothing left ahead of the job
      reads.length = 0;
      await source.prefetch(never, {
        cacheBytesPerMs: Infinity,
        onRead: (f: number, t: number) => reads.push([f, t, 0]),
      });
      expect(reads).toEqual([]);
    } finally {
      await source.close();
    }
    // a cached file: it stops after `cachedReads` reads that came from the cache
    const again = (await openSource(path, { format: 'cf32', rate: 1e6 })) as typeof source;
    try {
      let n = 0;
      await again.prefetch(never, { cacheBytesPerMs: 0, cachedReads: 3, onRead: () => n++ });
      expect(n).toBe(3);
      // and a prefetch held at its lead ends when the source closes
      const held = again.prefetch(never, { cacheBytesPerMs: Infinity, lead: 4 * MiB });
      await new Promise((r) => setTimeout(r, 20));
      await again.close();
      await expect(held).resolves.toBeUndefined();
    } finally {
      await again.close();
    }
  });
});

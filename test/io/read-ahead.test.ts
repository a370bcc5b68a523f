// Reading ahead and reusing read buffers change when the disk is read, never what a block holds.

import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
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
});

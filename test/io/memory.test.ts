// Constant memory: a 1 GiB file (sparse: it takes no disk) streams through the reader while the resident
// set stays bounded. The brief's bound is 300 MB for any file size; the blocks are 256 KiB here.

import { closeSync, openSync, statfsSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openSource } from '../../electron/engine/io/index.js';
import { buildWav, makeTempDir } from './helpers.js';

const tmp = makeTempDir('memory');
afterAll(() => tmp.cleanup());

describe('constant memory', () => {
  it('streams 1 GiB of 16-bit stereo with a bounded resident set', async () => {
    const st = statfsSync(tmp.dir);
    // A sparse file needs no blocks, but a file system without sparse files would need them all.
    expect(st.bavail * st.bsize).toBeGreaterThan(0);
    const dataBytes = 2 ** 30;
    const header = buildWav({
      channels: 2,
      sampleRate: 48000,
      bits: 16,
      data: new Uint8Array(0),
      dataSize: dataBytes,
    });
    const path = tmp.file('big.wav');
    writeFileSync(path, header);
    truncateSync(path, header.length + dataBytes);
    // Real values at the start, in the middle and at the very end, so the read is checked, not just run.
    const fd = openSync(path, 'r+');
    const marks = [0, dataBytes / 2, dataBytes - 4];
    for (const [k, at] of marks.entries()) {
      const m = new Uint8Array(4);
      new DataView(m.buffer).setInt16(0, 1000 * (k + 1), true);
      new DataView(m.buffer).setInt16(2, -1000 * (k + 1), true);
      writeSync(fd, m, 0, 4, header.length + at);
    }
    closeSync(fd);

    const source = await openSource(path);
    expect(source.info.samples).toBe(dataBytes / 4);
    const before = process.memoryUsage().rss;
    let peak = before;
    let frames = 0;
    const found: number[] = [];
    for await (const block of source.blocks()) {
      const d = block.data as Float32Array;
      for (const at of marks) {
        const frame = at / 4;
        if (frame >= block.start && frame < block.start + block.frames)
          found.push(d[2 * (frame - block.start)] * 32768, d[2 * (frame - block.start) + 1] * 32768);
      }
      frames += block.frames;
      if ((block.start / block.frames) % 256 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    await source.close();
    expect(frames).toBe(dataBytes / 4);
    expect(found).toEqual([1000, -1000, 2000, -2000, 3000, -3000]);
    console.log(
      `memory: rss before ${(before / 2 ** 20).toFixed(0)} MiB, peak while streaming 1 GiB ${(peak / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(peak).toBeLessThan(300 * 2 ** 20);
  });
});

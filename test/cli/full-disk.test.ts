// A job whose output does not fit on its disk fails with one line and leaves nothing behind: no partial file
// under the output's name, no temporary, the input untouched. The disk is a 2 MiB tmpfs mounted for the job:
// directly as root, else in a user and mount namespace of its own (support/disk.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phasorBin, tempDir } from '../support/cli.js';
import { onSmallDisk } from '../support/disk.js';
import { needs, smallDisk } from '../support/requirements.js';

const tmp = tempDir('phasor-full-disk-');
afterAll(() => tmp.remove());

/** 4 MiB of cf32 noise and tones (never zeros); its SHA-256. */
function writeInput(path: string): string {
  const x = new Float32Array(2 * (1 << 19));
  let s = 99;
  for (let i = 0; i < x.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    x[i] = 0.3 * Math.sin(i * 0.013) + ((s >>> 9) / 2 ** 23 - 0.5) * 0.1;
  }
  writeFileSync(path, new Uint8Array(x.buffer));
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('a full disk', needs(smallDisk), () => {
  for (const [job, out, extra] of [
    ['filter', 'out.sigmf-data', ['--lowpass', '100k']],
    ['spectrogram', 'out.npy', ['--fft', '1024']],
  ] as const) {
    it(`phasor ${job}: one line naming the output, nothing left on the disk, the input untouched`, () => {
      const disk = join(tmp.dir, `disk-${job}`);
      mkdirSync(disk);
      const input = join(tmp.dir, `in-${job}.cf32`);
      const before = writeInput(input);
      const r = onSmallDisk(disk, [
        process.execPath,
        phasorBin,
        job,
        input,
        '--format',
        'cf32',
        '--rate',
        '1M',
        '-o',
        join(disk, out),
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^phasor: .*out\.(sigmf-data|sigmf-meta|npy).*(space|ENOSPC)/i);
      expect(r.left).toEqual([]);
      expect(createHash('sha256').update(readFileSync(input)).digest('hex')).toBe(before);
    });
  }
});

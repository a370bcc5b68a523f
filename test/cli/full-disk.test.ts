// A job whose output does not fit on its disk fails with one line and leaves nothing behind: no partial file
// under the output's name, no temporary, the input untouched. The disk is a 2 MiB tmpfs mounted for the job:
// directly as root, else in a user and mount namespace of its own (unshare -rm), so any Linux user runs it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phasorBin, tempDir } from '../support/cli.js';

const tmp = tempDir('phasor-full-disk-');
afterAll(() => tmp.remove());

// $1: the mount point; the rest: the command. Prints the command's exit status, then what the disk holds.
const SCRIPT =
  'disk=$1; shift; mount -t tmpfs -o size=2m tmpfs "$disk" || exit 97; "$@"; echo "exit $?"; ls -A "$disk"; ' +
  'umount "$disk" 2>/dev/null; true';

/** Runs argv with a full-able disk at `disk`: its exit status, stderr and the files left on the disk. */
function onSmallDisk(disk: string, argv: string[]): { code: number; stderr: string; left: string[] } {
  const asRoot = process.getuid?.() === 0;
  const shell = asRoot ? ['sh'] : ['unshare', '--user', '--map-root-user', '--mount', 'sh'];
  const r = spawnSync(shell[0], [...shell.slice(1), '-c', SCRIPT, 'sh', disk, ...argv], {
    encoding: 'utf8',
    // the job in its own process, as runCli's: no standby used, none left behind after a job on CUDA
    env: { ...process.env, PHASOR_STANDBY: 'off' },
  });
  if (r.status === 97 || r.error) {
    throw new Error(`cannot mount a tmpfs for the test (${asRoot ? 'as root' : 'unshare -rm'}): ${r.stderr}`);
  }
  const lines = r.stdout.trim().split('\n');
  const at = lines.findIndex((l) => l.startsWith('exit '));
  return { code: Number(lines[at].slice(5)), stderr: r.stderr, left: lines.slice(at + 1) };
}

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

describe('a full disk', () => {
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

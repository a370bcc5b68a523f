// What a job writes, through the real CLI: an output that would replace an input is refused before
// anything is written, whatever name reaches it (a SigMF pair's other half, a linked folder, a hard link);
// an output that does not fit its disk fails with nothing left; a job killed with SIGKILL leaves a
// temporary that the next job writing into that folder removes.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phasorBin, runCli, tempDir, untilWriting } from '../support/cli.js';
import { onSmallDisk, type SmallDiskRun } from '../support/disk.js';
import { needs, smallDisk } from '../support/requirements.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir('phasor-writes-');
afterAll(() => tmp.remove());

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** `frames` of cf32 noise plus a tone, never zeros. */
function cf32(frames: number, seed: number): Uint8Array {
  const n = noise(2 * frames, seed, 0.1);
  const x = new Float32Array(2 * frames);
  for (let i = 0; i < frames; i++) {
    x[2 * i] = 0.4 * Math.cos(0.05 * i) + n[2 * i];
    x[2 * i + 1] = 0.4 * Math.sin(0.05 * i) + n[2 * i + 1];
  }
  return new Uint8Array(x.buffer);
}

/** A SigMF pair `base`.sigmf-data/-meta of cf32 noise. */
function sigmfPair(base: string, frames: number): void {
  writeFileSync(`${base}.sigmf-data`, cf32(frames, 5));
  writeFileSync(
    `${base}.sigmf-meta`,
    JSON.stringify({
      global: { 'core:datatype': 'cf32_le', 'core:sample_rate': 48000, 'core:version': '1.0.0' },
      captures: [{ 'core:sample_start': 0 }],
      annotations: [],
    }),
  );
}

/** A folder of its own with a short stereo WAV in it. */
function folderWithWav(name: string): { dir: string; wav: string } {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const wav = join(dir, 'x.wav');
  writeTestWav(wav, noise(2 * 4000, 3, 0.5), 48000, 2);
  return { dir, wav };
}

describe('an output that is one of the inputs', () => {
  it('filter rec.sigmf-meta -o rec.sigmf: refused, the pair untouched', async () => {
    const dir = join(tmp.dir, 'pair');
    mkdirSync(dir);
    sigmfPair(join(dir, 'rec'), 4000);
    const before = [sha(join(dir, 'rec.sigmf-data')), sha(join(dir, 'rec.sigmf-meta'))];
    const r = await runCli(['filter', 'rec.sigmf-meta', '-o', 'rec.sigmf', '--lowpass', '1000'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(2); // refused as a bad argument
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: .*rec\.sigmf-(data|meta).*rec\.sigmf-(data|meta).*same file/);
    expect([sha(join(dir, 'rec.sigmf-data')), sha(join(dir, 'rec.sigmf-meta'))]).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['rec.sigmf-data', 'rec.sigmf-meta']);
  });

  it('filter x.wav --taps t.wav -o d/t.wav: the taps file is an input too, refused and untouched', async () => {
    const { dir } = folderWithWav('taps-file');
    symlinkSync('.', join(dir, 'd'));
    writeFileSync(join(dir, 't.wav'), '0.25 0.5 0.25\n');
    const before = sha(join(dir, 't.wav'));
    const r = await runCli(['filter', 'x.wav', '--taps', 't.wav', '-o', 'd/t.wav'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2); // refused as a bad argument
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: d\/t\.wav: .*t\.wav.*same file/);
    expect(sha(join(dir, 't.wav'))).toBe(before);
  });

  it('filter x.wav -o d/x.wav through `ln -s . d`: refused, x.wav untouched', async () => {
    const { dir, wav } = folderWithWav('linked-folder');
    symlinkSync('.', join(dir, 'd'));
    const before = sha(wav);
    const r = await runCli(['filter', 'x.wav', '-o', 'd/x.wav', '--lowpass', '1000'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2); // refused as a bad argument
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: d\/x\.wav: .*x\.wav.*same file/);
    expect(sha(wav)).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['d', 'x.wav']);
  });

  it('filter x.wav -o y.wav where y.wav is a hard link to x.wav: refused', async () => {
    const { dir, wav } = folderWithWav('hard-link');
    linkSync(wav, join(dir, 'y.wav'));
    const before = sha(wav);
    const r = await runCli(['filter', 'x.wav', '-o', 'y.wav', '--lowpass', '1000'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2); // refused as a bad argument
    expect(r.stderr).toMatch(/same file/);
    expect(sha(wav)).toBe(before);
  });

  it('spectrogram d/in.npy -o in.npy (raw input named .npy, reached through a link): refused', async () => {
    const dir = join(tmp.dir, 'spectrogram');
    mkdirSync(dir);
    symlinkSync('.', join(dir, 'd'));
    writeFileSync(join(dir, 'in.npy'), cf32(8192, 9));
    const before = sha(join(dir, 'in.npy'));
    const r = await runCli(
      ['spectrogram', 'd/in.npy', '--format', 'cf32', '--rate', '1M', '--fft', '256', '-o', 'in.npy'],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(2); // refused as a bad argument
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: in\.npy: .*same file/);
    expect(sha(join(dir, 'in.npy'))).toBe(before);
  });

  it('names that only look alike are not refused: filter rec.sigmf-meta -o copy/rec.sigmf', async () => {
    const dir = join(tmp.dir, 'not-alias');
    mkdirSync(join(dir, 'copy'), { recursive: true });
    sigmfPair(join(dir, 'rec'), 4000);
    const r = await runCli(['filter', 'rec.sigmf-meta', '-o', 'copy/rec.sigmf', '--lowpass', '1000'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(dir, 'copy')).sort()).toEqual(['rec.sigmf-data', 'rec.sigmf-meta']);
  });
});

/** A 1 MiB disk holding `fill` bytes of filler already (more than 1 MiB: full). */
const onNearlyFullDisk = (disk: string, argv: string[], fill = 900000): SmallDiskRun =>
  onSmallDisk(disk, argv, '1m', fill);

const tmpfs = needs(smallDisk);
describe('an output that does not fit: the job fails, nothing is renamed into place', tmpfs, () => {
  const input = join(tmp.dir, 'full-in.wav');
  writeTestWav(input, noise(2 * 300000, 11, 0.5), 48000, 2);
  for (const [job, out, extra] of [
    ['spectrogram', 's.png', ['--width', '4000', '--height', '2000']],
    ['spectrogram', 's.npy', ['--fft', '256']],
    ['filter', 'f.wav', ['--lowpass', '1000', '--encoding', 'rf32_le']],
    ['filter', 'f.sigmf', ['--lowpass', '1000', '--encoding', 'rf32_le']],
  ] as const) {
    it(`phasor ${job} -o ${out}`, () => {
      const disk = join(tmp.dir, `full-${out}`);
      mkdirSync(disk);
      const before = sha(input);
      const r = onNearlyFullDisk(disk, [
        process.execPath,
        phasorBin,
        job,
        input,
        '-o',
        join(disk, out),
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).not.toMatch(/wrote/);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^phasor: .*(s\.png|s\.npy|f\.wav|f\.sigmf-data|f\.sigmf-meta): no space left/,
      );
      expect(r.left).toEqual(['filler']);
      expect(sha(input)).toBe(before);
    });
  }
});

describe('a SigMF output whose metadata cannot be put in place', () => {
  it('fails, and the data file that stood there is as it was', async () => {
    const { dir, wav } = folderWithWav('pair-rollback');
    const old = cf32(1000, 13);
    writeFileSync(join(dir, 'out.sigmf-data'), old);
    mkdirSync(join(dir, 'out.sigmf-meta')); // a folder holds the metadata's name
    const r = await runCli(['filter', wav, '-o', join(dir, 'out.sigmf-data'), '--lowpass', '1000']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: .*out\.sigmf-(meta|data): /);
    expect(readdirSync(dir).sort()).toEqual(['out.sigmf-data', 'out.sigmf-meta', 'x.wav']);
    expect(new Uint8Array(readFileSync(join(dir, 'out.sigmf-data')))).toEqual(old);
  });
});

describe('phasor bench --json onto a full disk', tmpfs, () => {
  it('fails with one line; no file of any length stands under the name', () => {
    const disk = join(tmp.dir, 'full-bench');
    mkdirSync(disk);
    const r = onNearlyFullDisk(
      disk,
      [
        process.execPath,
        phasorBin,
        'bench',
        '--backend',
        'cpu',
        '--op',
        'fft',
        '--sizes',
        '256',
        '--samples',
        '4096',
        '--repeats',
        '1',
        '--json',
        join(disk, 'b.json'),
      ],
      2 << 20,
    );
    expect(r.code, r.stderr).toBe(1);
    // bench reports its progress on stderr; the failure is its last line
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^phasor: .*b\.json: no space left/);
    expect(r.left).toEqual(['filler']);
  });
});

describe('a job killed with SIGKILL while it writes', () => {
  it('leaves a temporary that the next job writing into that folder removes', async () => {
    const dir = join(tmp.dir, 'killed');
    const out = join(dir, 'out');
    mkdirSync(out, { recursive: true });
    const big = join(dir, 'big.cf32');
    writeFileSync(big, cf32(4 << 20, 21));
    const child = spawn(
      process.execPath,
      [
        phasorBin,
        'filter',
        big,
        '--format',
        'cf32',
        '--rate',
        '1M',
        '-o',
        join(out, 'big.wav'),
        '--lowpass',
        '1k',
      ],
      { env: { ...process.env, PHASOR_STANDBY: 'off' }, stdio: 'ignore' },
    );
    const closed = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_c, s) => r(s)));
    await untilWriting(out);
    child.kill('SIGKILL');
    expect(await closed).toBe('SIGKILL');
    const stale = readdirSync(out);
    expect(stale, 'the killed job left its temporary').toHaveLength(1);
    expect(stale[0]).toMatch(/^\.big\.wav\.phasor-.*\.tmp$/);

    const { wav } = folderWithWav('killed-small');
    const r = await runCli(['filter', wav, '-o', join(out, 'small.wav'), '--lowpass', '1000']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(['small.wav']);
  });
});

// `phasor extract` end to end through the built CLI: the SciPy fixture's cases from seconds and SI
// frequencies on the command line, the summary and --json, one-line refusals that leave nothing, and
// Ctrl-C during a long extraction.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../electron/engine/io/index.js';
import { toFloat32 } from '../../electron/engine/types.js';
import { expected, fx, relError, writeIq, writeReal } from '../pipeline/extract-fixture.js';
import { phasorBin, runCli, tempDir, untilWriting } from '../support/cli.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir('phasor-cli-extract-');
let iq: string;
let real: string;
beforeAll(() => {
  iq = writeIq(tmp.dir);
  real = writeReal(tmp.dir);
});
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

async function samples(path: string): Promise<Float32Array> {
  const source = await openSource(path);
  const parts: number[] = [];
  for await (const b of source.blocks()) parts.push(...toFloat32(b.data));
  await source.close();
  return Float32Array.from(parts);
}

describe('phasor extract', () => {
  it('extracts the I/Q band of the fixture and prints a summary', async () => {
    const c = fx.cases.find((x) => x.name === 'iq-shift-lowpass-decimate')!;
    // 1200 frames = 5 ms, 6000 frames = 25 ms at 240 kHz
    const r = await runCli([
      'extract',
      iq,
      '-o',
      f('band.sigmf-meta'),
      '--start',
      '0.005',
      '--duration',
      '0.025',
      '--shift',
      '30k',
      '--lowpass',
      '10k',
      '--numtaps',
      String(c.numtaps),
      '--decimate',
      String(c.decimate),
      '--backend',
      'cpu',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^output +.*band\.sigmf-meta$/m);
    expect(r.stdout).toMatch(/^frames +750 \(complex, cf32_le\)$/m);
    expect(r.stdout).toMatch(/^rate +30000 Hz$/m);
    expect(r.stdout).toMatch(/^centre +100030000 Hz$/m);
    expect(r.stdout).toMatch(/^seconds +0\.025 /m);
    expect(r.stdout).toMatch(/^datetime +2026-03-04T05:06:07\.128456Z$/m);
    expect(relError(await samples(f('band.sigmf-meta')), expected(c))).toBeLessThan(1e-4);
  });

  it('turns a shifted real WAV into complex SigMF, and keeps an unshifted one a real WAV (--json)', async () => {
    const c = fx.cases.find((x) => x.name === 'real-shift')!;
    const a = await runCli([
      'extract',
      real,
      '-o',
      f('rs.sigmf-data'),
      '--start',
      '0.02',
      '--duration',
      '0.1',
      '--shift',
      '6k',
      '--lowpass',
      '2k',
      '--numtaps',
      '63',
      '--decimate',
      '4',
      '--json',
    ]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const ja = JSON.parse(a.stdout) as Record<string, unknown>;
    expect(ja).toMatchObject({ frames: 1200, complex: true, sampleRate: 12000, centerFrequency: 6000 });
    expect(relError(await samples(f('rs.sigmf-meta')), expected(c))).toBeLessThan(1e-4);

    const u = fx.cases.find((x) => x.name === 'real-unshifted')!;
    const b = await runCli([
      'extract',
      real,
      '-o',
      f('ru.wav'),
      '--start',
      String(100 / fx.real.fs),
      '--lowpass',
      '3000',
      '--numtaps',
      '64',
      '--decimate',
      '2',
      '--json',
    ]);
    expect(b.code).toBe(0);
    const jb = JSON.parse(b.stdout) as Record<string, unknown>;
    expect(jb).toMatchObject({ frames: 4750, complex: false, sampleRate: 24000, encoding: 'rf32_le' });
    expect(jb.centerFrequency).toBeUndefined();
    const wav = await openSource(f('ru.wav'));
    expect([wav.info.container, wav.info.encoding, wav.info.complex]).toEqual(['wav', 'rf32_le', false]);
    await wav.close();
    expect(relError(await samples(f('ru.wav')), expected(u))).toBeLessThan(1e-4);
  });

  it('warns on one line when it decimates without a low-pass', async () => {
    const r = await runCli(['extract', iq, '-o', f('alias.sigmf-meta'), '--decimate', '4']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^phasor: warning: .*iq\.sigmf-data: decimating by 4 without a low-pass[^\n]*\n$/,
    );
  });

  const refusals: Array<[string, string[], RegExp]> = [
    ['a start past the end', ['--start', '1'], /^phasor: the start \(1 s\) is past the end of the file/],
    [
      'a cutoff at fs/2',
      ['--lowpass', '120k'],
      /^phasor: cutoff frequency 120000 is out of range: .*fs\/2 = 120000/,
    ],
    ['decimation 0', ['--decimate', '0'], /^phasor: --decimate must be a whole number ≥ 1, got "0"/],
    ['a negative start', ['--start', '-1'], /--start must be a number of seconds ≥ 0/],
    ['I/Q into WAV', ['-o', 'OUTDIR/x.wav'], /^phasor: .*x\.wav: WAV holds audio, not I\/Q/],
    ['a missing folder', ['-o', 'OUTDIR/missing/x.sigmf-meta'], /^phasor: .*missing/],
  ];
  for (const [what, args, pattern] of refusals) {
    it(`refuses ${what} in one line and writes nothing`, async () => {
      const dir = tempDir('phasor-extract-refused-');
      try {
        const out = args.includes('-o') ? [] : ['-o', join(dir.dir, 'x.sigmf-meta')];
        const r = await runCli(['extract', iq, ...out, ...args.map((a) => a.replace('OUTDIR', dir.dir))]);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(pattern);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(readdirSync(dir.dir)).toEqual([]);
      } finally {
        dir.remove();
      }
    });
  }

  it('refuses to write over its input', async () => {
    const r = await runCli(['extract', real, '-o', real]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/would overwrite the input/);
    expect(existsSync(real)).toBe(true);
  });

  it('Ctrl-C during a long extraction leaves no output and no temporary file', async () => {
    const dir = tempDir('phasor-extract-cancel-');
    try {
      const big = join(dir.dir, 'big.wav');
      writeTestWav(big, noise(6_000_000, 5, 0.5), 48000, 1, 'float32');
      const out = join(dir.dir, 'out.sigmf-meta');
      const child = spawn(
        process.execPath,
        [phasorBin, 'extract', big, '-o', out, '--shift', '1k', '--lowpass', '1000', '--numtaps', '2047'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PHASOR_STANDBY: 'off' } },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      await untilWriting(dir.dir);
      child.kill('SIGINT');
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      expect(code).toBe(130);
      expect(stderr).toMatch(/phasor: cancelled/);
      expect(readdirSync(dir.dir)).toEqual(['big.wav']);
    } finally {
      dir.remove();
    }
  });
});

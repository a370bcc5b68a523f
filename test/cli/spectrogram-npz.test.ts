// `phasor spectrogram -o OUT.npz` end to end: f, t and Sxx against scipy.signal.spectrogram (detrend=False,
// mode='psd'; test/fixtures/make_psd_fixtures.py) for real and complex input, both scalings, an odd FFT
// size; the archive read back by an independent reader (CRC-32 checked); its refusals.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phasorBin, runCli, tempDir, untilWriting } from '../support/cli.js';
import { readNpz } from '../support/npz.js';
import {
  CENTRE,
  expectClose,
  fixture,
  fixtureDir,
  realInput,
  spectrograms,
} from '../support/psd-fixtures.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir('phasor-spectrogram-npz-');
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);
const iqFile = fileURLToPath(new URL('iq.cf32', fixtureDir));
const IQ = ['--format', 'cf32', '--rate', '1M', '--center', '100M'];

beforeAll(() => {
  writeTestWav(f('real.wav'), realInput, 48000, 1, 'float32');
});

describe('phasor spectrogram -o OUT.npz equals scipy.signal.spectrogram', () => {
  for (const c of fixture.spectrogram) {
    it(`${c.name}: --fft ${c.nperseg} --overlap ${c.overlap} --window ${c.window} --scaling ${c.scaling}`, async () => {
      const out = f(`${c.name}.npz`);
      const input = c.input === 'iq' ? [iqFile, ...IQ] : [f('real.wav')];
      const args = ['spectrogram', ...input, '-o', out, '--fft', String(c.nperseg)];
      args.push('--overlap', String(c.overlap), '--window', c.window, '--scaling', c.scaling, '--json');
      const r = await runCli(args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout) as { noverlap: number; frames: number; bins: number };
      expect(summary.noverlap).toBe(c.noverlap);
      const got = readNpz(readFileSync(out));
      const keys = c.input === 'iq' ? ['f', 't', 'center_frequency', 'Sxx'] : ['f', 't', 'Sxx'];
      expect([...got.keys()]).toEqual(keys);
      const ref = (k: string) => spectrograms.get(`${c.name}_${k}`)!;
      // the axes bit for bit, f in SciPy's order (FFT order for complex input)
      expect(got.get('f')!.dtype).toBe('f8');
      expect(Array.from(got.get('f')!.data)).toEqual(Array.from(ref('f').data));
      expect(got.get('t')!.dtype).toBe('f8');
      expect(Array.from(got.get('t')!.data)).toEqual(Array.from(ref('t').data));
      if (c.input === 'iq') expect(Array.from(got.get('center_frequency')!.data)).toEqual([CENTRE]);
      const sxx = got.get('Sxx')!;
      expect(sxx.dtype).toBe('f4');
      expect(sxx.fortranOrder).toBe(true);
      expect(sxx.shape).toEqual(ref('Sxx').shape);
      const [bins, frames] = sxx.shape;
      expect([summary.bins, summary.frames]).toEqual([bins, frames]);
      // column by column (each a transform of its own): 1e-6 of the column's maximum + 1e-5 relative
      for (let t = 0; t < frames; t++) {
        const col = (a: Float64Array) => Array.from({ length: bins }, (_, k) => a[k * frames + t]);
        expectClose(col(sxx.data), col(ref('Sxx').data), `${c.name} frame ${t}`);
      }
    });
  }

  it('the .png and .npy outputs refuse --scaling; a failed job leaves no .npz', async () => {
    const png = await runCli(['spectrogram', f('real.wav'), '-o', f('x.png'), '--scaling', 'spectrum']);
    expect(png.code).toBe(2);
    expect(png.stderr).toBe(
      'phasor: --scaling applies to an .npz output only (.png and .npy hold dBFS levels)\n',
    );
    const bad = await runCli(['spectrogram', f('real.wav'), '-o', f('x.npz'), '--scaling', 'power']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^phasor: option '--scaling <s>' argument 'power' is invalid/);
    const long = await runCli(['spectrogram', f('real.wav'), '-o', f('long.npz'), '--fft', '4096']);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(
      /^phasor: .*fewer samples than one FFT frame \(4096\); use a smaller --fft\n$/,
    );
    const other = await runCli(['spectrogram', f('real.wav'), '-o', f('x.txt')]);
    expect(other.stderr).toBe('phasor: -o must name a .png, .npy or .npz file, got "' + f('x.txt') + '"\n');
    expect(existsSync(f('long.npz'))).toBe(false);
    expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('Ctrl-C while the archive is written leaves no output and no temporary file', async () => {
    const dir = tempDir('phasor-npz-cancel-');
    try {
      // 4 M complex samples of noise: 262 143 frames of 64 bins, 64 MiB of Sxx
      const big = join(dir.dir, 'big.cf32');
      const x = new Float32Array(8_388_608);
      for (let i = 0, s = 1; i < x.length; i++) x[i] = (s = (s * 48271) % 2147483647) / 2147483647 - 0.5;
      writeFileSync(big, x);
      const out = join(dir.dir, 'out.npz');
      const child = spawn(
        process.execPath,
        [phasorBin, 'spectrogram', big, ...IQ, '-o', out, '--fft', '64', '--overlap', '0.75'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PHASOR_STANDBY: 'off' } },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      await untilWriting(dir.dir);
      child.kill('SIGINT');
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      expect(code).toBe(130);
      expect(stderr).toMatch(/phasor: cancelled/);
      expect(readdirSync(dir.dir)).toEqual(['big.cf32']);
    } finally {
      dir.remove();
    }
  });
});

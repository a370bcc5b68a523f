import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { phasorBin, root, runCli, tempDir, untilWriting } from '../support/cli.js';
import { noise } from '../support/signals.js';
import { readTestWav, writeTestWav } from '../support/wav.js';

interface Fixture {
  fs: number;
  stereo: {
    frames: number;
    int16_le_b64: string;
    lowpass: number;
    numtaps: number;
    indices: number[];
    same: number[][];
    causal: number[][];
  };
  complex: {
    frames: number;
    center: number;
    cf32_le_b64: string;
    bandpass: [number, number];
    numtaps: number;
    window: string;
    indices: number[];
    same_re: number[];
    same_im: number[];
  };
}

const fx = JSON.parse(readFileSync(join(root, 'test/fixtures/cli/filter.json'), 'utf8')) as Fixture;
const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

/** Writes the fixture's exact int16 frames as a canonical stereo PCM16 WAV. */
function stereoWav(path: string): void {
  const b = Buffer.from(fx.stereo.int16_le_b64, 'base64');
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + b.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(fx.fs, 24);
  header.writeUInt32LE(fx.fs * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(b.length, 40);
  writeFileSync(path, Buffer.concat([header, b]));
}

function maxRelError(got: (i: number) => number, ref: number[], indices: number[]): number {
  let num = 0;
  let den = 0;
  indices.forEach((idx, j) => {
    num = Math.max(num, Math.abs(got(idx) - ref[j]));
    den = Math.max(den, Math.abs(ref[j]));
  });
  return num / den;
}

describe('phasor filter', () => {
  stereoWav(f('in.wav'));

  it('low-pass equals scipy oaconvolve(x, firwin(...), mode="same") per channel', async () => {
    const r = await runCli([
      'filter',
      f('in.wav'),
      '-o',
      f('lp.wav'),
      '--lowpass',
      '3000',
      '--numtaps',
      '255',
      '--encoding',
      'rf32_le',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ frames: fx.stereo.frames, numtaps: 255, clipped: 0 });
    const out = readTestWav(readFileSync(f('lp.wav')));
    expect(out.channels).toBe(2);
    expect(out.samples.length).toBe(2 * fx.stereo.frames);
    for (const c of [0, 1]) {
      expect(maxRelError((i) => out.samples[2 * i + c], fx.stereo.same[c], fx.stereo.indices)).toBeLessThan(
        2e-6,
      );
    }
  });

  it('--no-sync writes the same file (without waiting for the disk)', async () => {
    const args = ['filter', f('in.wav'), '--lowpass', '3000', '--numtaps', '255', '--encoding', 'rf32_le'];
    const r = await runCli([...args, '-o', f('lp-nosync.wav'), '--no-sync']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(f('lp-nosync.wav'))).toEqual(readFileSync(f('lp.wav')));
  });

  it('--causal equals scipy lfilter(taps, 1, x)', async () => {
    const r = await runCli([
      'filter',
      f('in.wav'),
      '-o',
      f('causal.wav'),
      '--lowpass',
      '3k',
      '--causal',
      '--encoding',
      'rf32_le',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = readTestWav(readFileSync(f('causal.wav')));
    for (const c of [0, 1]) {
      expect(maxRelError((i) => out.samples[2 * i + c], fx.stereo.causal[c], fx.stereo.indices)).toBeLessThan(
        2e-6,
      );
    }
  });

  it("keeps the input's int16 encoding by default and matches the reference to a quantization step", async () => {
    const r = await runCli(['filter', f('in.wav'), '-o', f('lp16.wav'), '--lowpass', '3000', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).encoding).toBe('ri16_le');
    const out = readTestWav(readFileSync(f('lp16.wav')));
    fx.stereo.indices.forEach((idx, j) => {
      expect(Math.abs(out.samples[2 * idx] - fx.stereo.same[0][j])).toBeLessThanOrEqual(1 / 32768 + 1e-9);
    });
  });

  it('filters complex SigMF I/Q and keeps its centre frequency and annotations', async () => {
    writeFileSync(f('iq.sigmf-data'), Buffer.from(fx.complex.cf32_le_b64, 'base64'));
    writeFileSync(
      f('iq.sigmf-meta'),
      JSON.stringify({
        global: {
          'core:datatype': 'cf32_le',
          'core:sample_rate': fx.fs,
          'core:version': '1.2.0',
          'core:author': 'test',
        },
        captures: [{ 'core:sample_start': 0, 'core:frequency': fx.complex.center }],
        annotations: [{ 'core:sample_start': 100, 'core:sample_count': 50, 'core:label': 'keep me' }],
      }),
    );
    const r = await runCli([
      'filter',
      f('iq.sigmf-meta'),
      '-o',
      f('bp.sigmf-data'),
      '--bandpass',
      '1000:4000',
      '--numtaps',
      '101',
      '--window',
      'blackman',
      '--sha512',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const meta = JSON.parse(readFileSync(f('bp.sigmf-meta'), 'utf8'));
    expect(meta.global['core:datatype']).toBe('cf32_le');
    expect(meta.global['core:sha512']).toBe(
      createHash('sha512')
        .update(readFileSync(f('bp.sigmf-data')))
        .digest('hex'),
    );
    expect(meta.global['core:author']).toBe('test');
    expect(meta.captures[0]['core:frequency']).toBe(fx.complex.center);
    expect(meta.annotations[0]['core:label']).toBe('keep me');
    const y = new Float32Array(new Uint8Array(readFileSync(f('bp.sigmf-data'))).buffer);
    expect(y.length).toBe(2 * fx.complex.frames);
    expect(maxRelError((i) => y[2 * i], fx.complex.same_re, fx.complex.indices)).toBeLessThan(2e-6);
    expect(maxRelError((i) => y[2 * i + 1], fx.complex.same_im, fx.complex.indices)).toBeLessThan(2e-6);
    const info = await runCli(['info', f('bp.sigmf-meta'), '--json']);
    expect(JSON.parse(info.stdout).centerFrequency).toBe(fx.complex.center);
  });

  it('counts and reports clipping on integer output', async () => {
    // A full-scale square wave low-passed overshoots (Gibbs): int16 output must clip.
    const fs = 8000;
    const sq = Float64Array.from({ length: 8000 }, (_, i) => (Math.floor(i / 20) % 2 ? -0.999 : 0.999));
    writeTestWav(f('square.wav'), sq, fs, 1);
    const r = await runCli([
      'filter',
      f('square.wav'),
      '-o',
      f('sq.wav'),
      '--lowpass',
      '1000',
      '--numtaps',
      '63',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).clipped).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/clipped/);
  });

  it('refuses a bad design with the constraint, and writes nothing', async () => {
    const even = await runCli([
      'filter',
      f('in.wav'),
      '-o',
      f('bad.wav'),
      '--highpass',
      '1000',
      '--numtaps',
      '100',
    ]);
    expect(even.code).not.toBe(0);
    expect(even.stderr).toMatch(/odd/i);
    const tooHigh = await runCli(['filter', f('in.wav'), '-o', f('bad.wav'), '--lowpass', '30000']);
    expect(tooHigh.code).not.toBe(0);
    expect(tooHigh.stderr).toMatch(/cutoff|Nyquist|fs\/2/i);
    const two = await runCli([
      'filter',
      f('in.wav'),
      '-o',
      f('bad.wav'),
      '--lowpass',
      '1000',
      '--highpass',
      '2000',
    ]);
    expect(two.code).toBe(2);
    expect(existsSync(f('bad.wav'))).toBe(false);
  });

  it('applies taps from a text file', async () => {
    writeFileSync(f('taps.txt'), '# a 3-tap moving average\n0.25, 0.5\n0.25\n');
    const r = await runCli([
      'filter',
      f('in.wav'),
      '-o',
      f('ma.wav'),
      '--taps',
      f('taps.txt'),
      '--encoding',
      'rf32_le',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const x = readTestWav(readFileSync(f('in.wav'))).samples;
    const y = readTestWav(readFileSync(f('ma.wav'))).samples;
    for (const i of [1, 500, 11998]) {
      const ref = 0.25 * x[2 * (i - 1)] + 0.5 * x[2 * i] + 0.25 * x[2 * (i + 1)];
      expect(Math.abs(y[2 * i] - ref)).toBeLessThan(1e-6);
    }
  });

  it('Ctrl-C during a long filter leaves no output and no temporary file', async () => {
    const dir = tempDir('phasor-cancel-');
    try {
      const big = join(dir.dir, 'big.wav');
      writeTestWav(big, noise(6_000_000, 5, 0.5), 48000, 1, 'float32');
      const out = join(dir.dir, 'out.wav');
      const child = spawn(
        process.execPath,
        [phasorBin, 'filter', big, '-o', out, '--lowpass', '1000', '--numtaps', '2047'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          // in its own process, as runCli's jobs: no standby used, none left behind
          env: { ...process.env, PHASOR_STANDBY: 'off' },
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // Interrupt once the temporary output exists, i.e. while the job is writing.
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

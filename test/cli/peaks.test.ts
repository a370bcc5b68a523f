import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { add, complexTones, noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

interface Peak {
  frequency: number;
  level: number;
}

describe('phasor peaks', () => {
  it('finds off-bin tones with sub-Hz frequency and 0.1 dB level accuracy (float WAV)', async () => {
    const fs = 48000;
    const n = fs * 4;
    const x = add(
      tones(n, fs, [
        { frequency: 1234.56, amplitude: 0.5 }, // −6.02 dBFS
        { frequency: 7000.3, amplitude: 0.1, phase: 1 }, // −20 dBFS
      ]),
      noise(n, 7, 1e-4),
    );
    writeTestWav(f('two.wav'), x, fs, 1, 'float32');
    const r = await runCli(['peaks', f('two.wav'), '--count', '2', '--json']);
    expect(r.code).toBe(0);
    const peaks = JSON.parse(r.stdout) as Peak[];
    expect(peaks).toHaveLength(2);
    expect(peaks[0].frequency).toBeCloseTo(1234.56, 1);
    expect(Math.abs(peaks[0].frequency - 1234.56)).toBeLessThan(0.05);
    expect(Math.abs(peaks[0].level - 20 * Math.log10(0.5))).toBeLessThan(0.1);
    expect(Math.abs(peaks[1].frequency - 7000.3)).toBeLessThan(0.05);
    expect(Math.abs(peaks[1].level + 20)).toBeLessThan(0.1);
  });

  it('reads a full-scale sine at 0 dBFS whatever the window, with a non-power-of-two FFT', async () => {
    const fs = 44100;
    const x = tones(fs * 2, fs, [{ frequency: 997, amplitude: 1 }]);
    writeTestWav(
      f('fs.wav'),
      x.map((v) => v * 0.999),
      fs,
      1,
      'float32',
    );
    for (const w of ['hann', 'flattop', 'rectangular', 'blackmanharris', 'kaiser:12']) {
      const r = await runCli([
        'peaks',
        f('fs.wav'),
        '--fft',
        '3000',
        '--window',
        w,
        '--count',
        '1',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const [p] = JSON.parse(r.stdout) as Peak[];
      expect(Math.abs(p.frequency - 997)).toBeLessThan(0.1);
      expect(Math.abs(p.level - 20 * Math.log10(0.999))).toBeLessThan(0.1);
    }
  });

  it('reports absolute frequencies for I/Q with a known centre frequency (SigMF cf32)', async () => {
    const fs = 1e6;
    const n = 1 << 18;
    const z = add(
      complexTones(n, fs, [
        { frequency: -125000.5, amplitude: 1 },
        { frequency: 250123, amplitude: 0.01 },
      ]),
      noise(2 * n, 3, 1e-4),
    );
    writeFileSync(f('iq.sigmf-data'), Buffer.from(Float32Array.from(z).buffer));
    writeFileSync(
      f('iq.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'cf32_le', 'core:sample_rate': fs, 'core:version': '1.2.0' },
        captures: [{ 'core:sample_start': 0, 'core:frequency': 433.92e6 }],
        annotations: [],
      }),
    );
    const r = await runCli(['peaks', f('iq.sigmf-meta'), '--count', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const peaks = JSON.parse(r.stdout) as Peak[];
    expect(Math.abs(peaks[0].frequency - (433.92e6 - 125000.5))).toBeLessThan(1);
    expect(Math.abs(peaks[0].level)).toBeLessThan(0.1);
    expect(Math.abs(peaks[1].frequency - (433.92e6 + 250123))).toBeLessThan(1);
    expect(Math.abs(peaks[1].level + 40)).toBeLessThan(0.2);
  });

  it('prints a table without --json and refuses --fft below 8', async () => {
    const r = await runCli(['peaks', f('two.wav'), '--count', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/frequency \(Hz\)\s+level \(dBFS\)/);
    expect(r.stdout).toMatch(/1234\.5\d/);
    const bad = await runCli(['peaks', f('two.wav'), '--fft', '4']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fft/);
  });
});

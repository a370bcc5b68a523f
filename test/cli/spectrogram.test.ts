import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../electron/engine/output/image.js';
import { parseNpy } from '../../electron/engine/output/npy.js';
import { runCli, tempDir } from '../support/cli.js';
import { add, noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);
const fs = 16000;
const n = fs * 2;
const x = add(tones(n, fs, [{ frequency: 3000, amplitude: 0.5 }]), noise(n, 11, 1e-3));
writeTestWav(f('tone.wav'), x, fs, 1);

describe('phasor spectrogram', () => {
  it('writes a bare PNG of the asked size whose tone row is brighter than the rest', async () => {
    const r = await runCli([
      'spectrogram',
      f('tone.wav'),
      '-o',
      f('s.png'),
      '--fft',
      '512',
      '--width',
      '200',
      '--height',
      '257',
      '--colormap',
      'gray',
      '--bare',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const img = decodePng(readFileSync(f('s.png')));
    expect([img.width, img.height]).toEqual([200, 257]);
    // 257 rows = 257 bins; bottom row is DC. The tone at 3000 Hz is bin 96 → row 256 − 96 = 160.
    const rowMean = (y: number) => {
      let s = 0;
      for (let x = 0; x < img.width; x++) s += img.data[4 * (y * img.width + x)];
      return s / img.width;
    };
    const toneRow = rowMean(160);
    for (const y of [10, 60, 120, 200, 250]) expect(toneRow).toBeGreaterThan(rowMean(y) + 60);
  });

  it('writes the dB matrix as .npy (frames × bins float32) matching a float64 reference', async () => {
    const r = await runCli([
      'spectrogram',
      f('tone.wav'),
      '-o',
      f('s.npy'),
      '--fft',
      '500',
      '--overlap',
      '0.5',
      '--window',
      'hamming',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { shape, data } = parseNpy(readFileSync(f('s.npy')));
    const hop = 250;
    const frames = Math.floor((n - 500) / hop) + 1;
    expect(shape).toEqual([frames, 251]);
    // Reference: frame 7 with a periodic Hamming window, dBFS with a full-scale sine at 0 dB.
    const q = Float64Array.from(x, (v) => (Math.sign(v) * Math.round(Math.abs(v) * 32767)) / 32768);
    const w = Float64Array.from({ length: 500 }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / 500));
    const sum = w.reduce((a, b) => a + b, 0);
    for (const k of [0, 37, 94, 250]) {
      let re = 0;
      let im = 0;
      for (let i = 0; i < 500; i++) {
        const v = q[7 * hop + i] * w[i];
        re += v * Math.cos((2 * Math.PI * k * i) / 500);
        im -= v * Math.sin((2 * Math.PI * k * i) / 500);
      }
      const oneSided = k === 0 || k === 250 ? 1 : 4; // amplitude ×2, but DC and Nyquist have no negative twin
      const db = 10 * Math.log10((oneSided * (re * re + im * im)) / (sum * sum));
      expect(Math.abs(data[7 * 251 + k] - db)).toBeLessThan(0.01);
    }
    // the tone (3000 Hz = bin 93.75) is the loudest bin of the frame, near −6 dB
    const row = data.subarray(7 * 251, 8 * 251);
    const top = row.indexOf(Math.max(...row));
    expect(top === 93 || top === 94).toBe(true);
  });

  it('refuses a bad colormap or output name and leaves nothing behind', async () => {
    const r = await runCli(['spectrogram', f('tone.wav'), '-o', f('x.png'), '--colormap', 'rainbow']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/colormap/);
    const r2 = await runCli(['spectrogram', f('tone.wav'), '-o', f('x.jpg')]);
    expect(r2.code).toBe(2);
    expect(readdirSync(tmp.dir).filter((e) => e.startsWith('x.') || e.includes('.tmp'))).toEqual([]);
  });
});

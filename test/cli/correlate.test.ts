import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

interface Match {
  lag: number;
  time: number;
  score: number;
}

describe('phasor correlate', () => {
  const fs = 48000;
  // A linear chirp template, planted twice into noise (full and 0.3 amplitude).
  const m = 4096;
  const template = Float64Array.from(
    { length: m },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * (200 * i + (6000 * i * i) / (2 * m))) / fs),
  );
  const n = 400_000;
  const sig = noise(n, 21, 0.05);
  const lags = [123_457, 301_000];
  const gains = [1, 0.3];
  lags.forEach((lag, j) => {
    for (let i = 0; i < m; i++) sig[lag + i] += gains[j] * template[i];
  });
  writeTestWav(f('signal.wav'), sig, fs, 1, 'float32');
  writeTestWav(f('template.wav'), template, fs, 1, 'float32');

  it('finds the planted template at its exact lags, best first', async () => {
    const r = await runCli(['correlate', f('signal.wav'), f('template.wav'), '--top', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const matches = JSON.parse(r.stdout) as Match[];
    expect(matches.map((x) => x.lag)).toEqual(lags);
    expect(matches[0].time).toBeCloseTo(lags[0] / fs, 9);
    expect(matches[0].score).toBeGreaterThan(0.95);
    expect(matches[0].score).toBeLessThanOrEqual(1);
    expect(matches[1].score).toBeGreaterThan(0.5);
    expect(matches[1].score).toBeLessThan(matches[0].score);
  });

  it('works on complex I/Q (raw cf32) as well', async () => {
    const iq = new Float32Array(2 * 100_000);
    const nz = noise(2 * 100_000, 9, 0.1);
    iq.set(nz);
    const tpl = new Float32Array(2 * 1000);
    for (let i = 0; i < 1000; i++) {
      const p = (Math.PI * i * i) / 1000;
      tpl[2 * i] = Math.cos(p);
      tpl[2 * i + 1] = Math.sin(p);
    }
    const at = 54_321;
    for (let i = 0; i < 2000; i++) iq[2 * at + i] += tpl[i];
    writeFileSync(f('sig.cf32'), Buffer.from(iq.buffer));
    writeFileSync(f('tpl.cf32'), Buffer.from(tpl.buffer));
    const r = await runCli([
      'correlate',
      f('sig.cf32'),
      f('tpl.cf32'),
      '--rate',
      '1M',
      '--top',
      '1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [best] = JSON.parse(r.stdout) as Match[];
    expect(best.lag).toBe(at);
    expect(best.time).toBeCloseTo(at / 1e6, 12);
  });

  it('refuses a template longer than the signal, or of another kind', async () => {
    const r = await runCli(['correlate', f('template.wav'), f('signal.wav')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/shorter than the template/);
    const r2 = await runCli(['correlate', f('signal.wav'), f('tpl.cf32'), '--rate', '48000']);
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(/complex|real/);
  });
});

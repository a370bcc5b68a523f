// phasor measure end to end: the fixtures of test/fixtures/measure (analytic answers), a selection given in
// seconds, the text and JSON outputs and one-line refusals.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MeasureResult } from '../../electron/engine/protocol/messages.js';
import { runCli } from '../support/cli.js';

const DIR = new URL('../fixtures/measure/', import.meta.url);
const file = (name: string): string => fileURLToPath(new URL(name, DIR));
const fixture = JSON.parse(readFileSync(new URL('measure.json', DIR), 'utf8')) as {
  cases: Array<{
    file: string;
    bandPowerDb: number;
    snrDb?: number;
    thdDb?: number;
    thdnDb?: number;
    occupiedBandwidth?: { width: number; lower: number; upper: number };
  }>;
};
const fx = (name: string) => fixture.cases.find((c) => c.file === name)!;

describe('phasor measure', () => {
  it('prints THD, THD+N and SNR of a band as JSON within 0.1 dB of the analytic values', async () => {
    const c = fx('harmonics.wav');
    const r = await runCli(['measure', file(c.file), '--band', '20:20k', '--backend', 'cpu', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const m = JSON.parse(r.stdout) as MeasureResult;
    expect(m.band).toEqual([20, 20000]);
    expect(Math.abs(m.thd!.thdDb - c.thdDb!)).toBeLessThan(0.1);
    expect(Math.abs(m.thd!.thdnDb - c.thdnDb!)).toBeLessThan(0.1);
    expect(Math.abs(m.snr! - c.snrDb!)).toBeLessThan(0.1);
    expect(m.window).toBe('hann');
    expect(m.rbw).toBeCloseTo((1.5 * 48000) / m.fft, 9);
  });

  it('measures a selection in seconds, and prints a table for people', async () => {
    const c = fx('band-noise.wav');
    // frames 4800 … 28800 of 32768
    const json = await runCli([
      'measure',
      file(c.file),
      '--start',
      '0.1',
      '--duration',
      '0.5',
      '--backend',
      'cpu',
      '--json',
    ]);
    expect(json.code).toBe(0);
    const m = JSON.parse(json.stdout) as MeasureResult;
    expect([m.start, m.end]).toEqual([4800, 28800]);
    expect(Math.abs(m.occupiedBandwidth!.width - c.occupiedBandwidth!.width)).toBeLessThan(m.binWidth);
    expect(Math.abs(m.bandPower - c.bandPowerDb)).toBeLessThan(0.2);
    expect(m.missing.snr).toMatch(/no tone/);
    const text = await runCli([
      'measure',
      file(c.file),
      '--fft',
      '2048',
      '--window',
      'blackmanharris',
      '--backend',
      'cpu',
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^band power\s+-16\.9\d dBFS$/m);
    expect(text.stdout).toMatch(/^occupied BW\s+59\d\d\.\d+ Hz \(30\d\d\.\d+ Hz … 89\d\d\.\d+ Hz\)$/m);
    expect(text.stdout).toMatch(/^SNR\s+— \(no tone stands 15 dB above the noise in the band\)$/m);
    expect(text.stdout).toMatch(
      /^RBW\s+46\.97\d Hz \(blackmanharris, ENBW 2\.004 bins, fft 2048, 31 segments\)$/m,
    );
  });

  it('refuses a bad band, window or selection with one line', async () => {
    const f = file('tone-noise.wav');
    const band = await runCli(['measure', f, '--band', '5k:1k', '--backend', 'cpu']);
    expect(band.code).toBe(2);
    expect(band.stderr).toMatch(
      /^phasor: .*tone-noise\.wav: the band's low edge must be below its high edge, got 5000 … 1000 Hz\n$/,
    );
    const pair = await runCli(['measure', f, '--band', '5k', '--backend', 'cpu']);
    expect(pair.code).toBe(2);
    expect(pair.stderr).toMatch(/--band takes two values as LOW:HIGH/);
    const short = await runCli(['measure', f, '--start', '0.6', '--fft', '4096', '--backend', 'cpu']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(
      /^phasor: .*tone-noise\.wav: the selection holds 3968 frame\(s\), fewer than the FFT size 4096: select more/,
    );
    expect(short.stderr.split('\n')).toHaveLength(2);
  });
});

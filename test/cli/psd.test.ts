// `phasor psd` end to end: the fixture's samples in a float WAV or a cf32 file, the CLI's JSON and CSV
// against scipy.signal.welch (test/fixtures/make_psd_fixtures.py), the summary, and its refusals.
import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import {
  caseName,
  CENTRE,
  expectClose,
  fftshift,
  fixture,
  fixtureDir,
  realInput,
  type WelchCase,
} from '../support/psd-fixtures.js';
import { writeTestWav } from '../support/wav.js';
import { fileURLToPath } from 'node:url';

const tmp = tempDir('phasor-psd-');
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);
const iqFile = fileURLToPath(new URL('iq.cf32', fixtureDir));
const IQ = ['--format', 'cf32', '--rate', '1M', '--center', '100M'];

beforeAll(() => {
  writeTestWav(f('real.wav'), realInput, 48000, 1, 'float32');
  writeTestWav(f('short.wav'), realInput.subarray(0, 200), 48000, 1, 'float32');
  const two = new Float32Array(realInput.length * 2);
  for (let i = 0; i < realInput.length; i++) {
    two[2 * i] = 0.25 * Math.sin(0.3 * i);
    two[2 * i + 1] = realInput[i];
  }
  writeTestWav(f('two.wav'), two, 48000, 2, 'float32');
});

interface PsdJson {
  frequencies: number[];
  psd: number[];
  units: string;
  nperseg: number;
  noverlap: number;
  segments: number;
  sampleRate: number;
  centerFrequency?: number;
  enbw: number;
}

function argsOf(c: WelchCase): string[] {
  const file = c.input === 'iq' ? [iqFile, ...IQ] : [f(`${c.input}.wav`)];
  const opts: string[] = [];
  if (c.nperseg !== undefined) opts.push('--nperseg', String(c.nperseg));
  if (c.noverlap !== undefined) opts.push('--noverlap', String(c.noverlap));
  if (c.window !== undefined) opts.push('--window', c.window);
  if (c.scaling !== undefined) opts.push('--scaling', c.scaling);
  if (c.detrend !== undefined) opts.push('--detrend', c.detrend);
  if (c.average !== undefined) opts.push('--average', c.average);
  return ['psd', ...file, ...opts];
}

function expected(c: WelchCase): { f: number[]; p: number[] } {
  if (c.input !== 'iq') return { f: c.frequencies, p: c.psd };
  return { f: fftshift(c.frequencies).map((v) => v + CENTRE), p: fftshift(c.psd) };
}

function expectFrequencies(got: number[], ref: number[]): void {
  expect(got.length).toBe(ref.length);
  for (let k = 0; k < ref.length; k++) {
    expect(Math.abs(got[k] - ref[k])).toBeLessThanOrEqual(1e-12 * Math.abs(ref[k]) + 1e-9);
  }
}

// a spread of the fixture's cases: defaults, every option, odd nperseg, short and complex input
const chosen = fixture.welch.filter(
  (c, i) =>
    i === 0 ||
    c.nperseg !== undefined ||
    c.input === 'short' ||
    (c.input === 'iq' && c.scaling === 'spectrum' && c.detrend === 'linear' && c.average === 'median') ||
    (c.input === 'real' && c.scaling === 'spectrum' && c.detrend === 'none' && c.average === 'mean'),
);

describe('phasor psd equals scipy.signal.welch', () => {
  it('covers the cases chosen', () => {
    expect(chosen.length).toBeGreaterThanOrEqual(9);
  });

  for (const c of chosen) {
    it(`--json: ${caseName(c)}`, async () => {
      const r = await runCli([...argsOf(c), '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout) as PsdJson;
      const ref = expected(c);
      expectClose(j.psd, ref.p, caseName(c));
      expectFrequencies(j.frequencies, ref.f);
      expect(j.segments).toBe(c.segments);
      expect(j.nperseg).toBe(c.nperseg_used);
      expect(j.noverlap).toBe(c.noverlap_used);
      expect(j.units).toBe((c.scaling ?? 'density') === 'density' ? 'V**2/Hz' : 'V**2');
      expect(j.centerFrequency).toBe(c.input === 'iq' ? CENTRE : undefined);
    });
  }

  it('-o writes a CSV that reads back as SciPy’s spectrum (median, linear detrend, complex)', async () => {
    const c = fixture.welch.find(
      (w) => w.input === 'iq' && w.nperseg === 200 && w.average === 'median',
    ) as WelchCase;
    const out = f('iq.csv');
    const r = await runCli([...argsOf(c), '-o', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`wrote ${out} (200 bins)`);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('frequency_hz,psd_V2_per_Hz');
    const comments = lines.filter((l) => l.startsWith('#'));
    expect(comments.length).toBe(3);
    expect(comments[1]).toContain("window='blackmanharris', nperseg=200, noverlap=150");
    expect(comments[1]).toContain("average='median')");
    expect(comments[1]).toContain('after numpy.fft.fftshift');
    expect(lines.slice(1, 4)).toEqual(comments);
    const rows = lines.slice(4).map((l) => l.split(',').map(Number));
    const ref = expected(c);
    expectFrequencies(
      rows.map((x) => x[0]),
      ref.f,
    );
    expectClose(
      rows.map((x) => x[1]),
      ref.p,
      'csv',
    );
    expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('--channel picks one channel of a multi-channel file (default 0)', async () => {
    const c = fixture.welch[0];
    const one = await runCli(['psd', f('two.wav'), '--channel', '1', '--json']);
    expect(one.code).toBe(0);
    expectClose((JSON.parse(one.stdout) as PsdJson).psd, c.psd, 'channel 1');
    const zero = await runCli(['psd', f('two.wav'), '--json']);
    const p0 = (JSON.parse(zero.stdout) as PsdJson).psd;
    // channel 0 holds a tone at 0.3·fs/(2π) ≈ 2292 Hz, bin 12 of 256 at 48 kHz
    expect(p0.indexOf(Math.max(...p0))).toBe(12);
  });

  it('prints a short summary without --json', async () => {
    const r = await runCli(['psd', f('real.wav')]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(2);
    expect(lines[0]).toBe('22 segments of 256 (noverlap 128, hann), bin width 187.5 Hz, ENBW 281.3 Hz');
    expect(lines[1]).toMatch(/^strongest bin 1312\.5 Hz: [0-9.e-]+ V\*\*2\/Hz \(-?\d+\.\d dB\)$/);
    expect(r.stderr).toMatch(/^density, detrend constant, average mean, backend cpu\n$/);
  });
});

describe('phasor psd refusals', () => {
  const refusals: Array<[string, string[], RegExp]> = [
    ['--noverlap ≥ nperseg', ['--nperseg', '64', '--noverlap', '64'], /0 ≤ noverlap < nperseg = 64/],
    ['--nperseg below 8', ['--nperseg', '4'], /--nperseg must be a whole number ≥ 8/],
    ['an unknown window', ['--window', 'hat'], /unknown window "hat"/],
    ['a channel that is not there', ['--channel', '1'], /channel 1 does not exist/],
    ['-o that is not .csv', ['-o', 'x.txt'], /-o must name a \.csv file/],
    ['an unknown --scaling', ['--scaling', 'power'], /argument 'power' is invalid/],
    ['an unknown --detrend', ['--detrend', 'quad'], /argument 'quad' is invalid/],
    ['an unknown --average', ['--average', 'max'], /argument 'max' is invalid/],
  ];
  for (const [what, args, message] of refusals) {
    it(`${what}: exit 2, one line`, async () => {
      const r = await runCli(['psd', f('real.wav'), ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const first = r.stderr.split('\n')[0];
      expect(first).toMatch(/^phasor: /);
      expect(first).toMatch(message);
      // the engine's refusals are one line; Commander's usage errors add its "(run phasor --help…)" hint
      if (!/is invalid/.test(first)) expect(r.stderr.slice(0, -1)).not.toContain('\n');
    });
  }

  it('a median that needs more than its memory limit is refused before reading, leaving no output', async () => {
    // 1 GiB / (8 bytes × 5 bins) segments of nperseg 8, hop 1: a file of about 27 M samples is too many
    const out = f('big.csv');
    const big = f('big.cf32');
    // a sparse file: nothing is read before the refusal
    writeFileSync(big, '');
    truncateSync(big, 8 * 27_000_000);
    const r = await runCli([
      'psd',
      big,
      ...IQ,
      '--nperseg',
      '8',
      '--noverlap',
      '7',
      '--average',
      'median',
      '-o',
      out,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^phasor: average median keeps every segment's spectrum: 26999993 segments of nperseg 8 need 1648 MiB, over the 1024 MiB limit/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

// The File view spectrum pane's pure parts: which frames and band it averages, and the CSV it exports.
import { describe, expect, it } from 'vitest';
import type { FileInfo } from '../../electron/engine/protocol/messages.js';
import {
  enbwBins,
  meanTrace,
  spectrumCsv,
  spectrumSpan,
  traceLevels,
  type FileSpectrum,
} from '../../renderer/src/lib/file-spectrum.js';
import { levelAt } from '../../renderer/src/lib/markers.js';
import { unitOffset } from '../../renderer/src/lib/traces.js';

const info: FileInfo = {
  file: 3,
  path: '/data/rx.sigmf-meta',
  name: 'rx.sigmf-meta',
  container: 'sigmf',
  encoding: 'cf32_le',
  sampleRate: 1e6,
  channels: 1,
  complex: true,
  samples: 2_000_000,
  duration: 2,
  centerFrequency: 100e6,
  bytes: 16_000_000,
  annotations: [],
  warnings: [],
};
const region = { t0: 0.5, t1: 1.5, f0: 99.8e6, f1: 100.1e6 };
const display = { window: 'blackman', fft: 0 };

describe('spectrumSpan', () => {
  it('averages the visible range and band when nothing is selected', () => {
    expect(spectrumSpan(info, region, null, display)).toEqual({
      params: {
        file: 3,
        start: 500_000,
        end: 1_500_000,
        window: 'blackman',
        channel: 0,
        fLow: 99.8e6,
        fHigh: 100.1e6,
        traces: ['mean'],
      },
      of: 'visible range',
      t0: 0.5,
      t1: 1.5,
    });
  });

  it('averages the selection: its band when it has one, every frequency when it has none', () => {
    const band = spectrumSpan(info, region, { t0: 0.25, t1: 0.75, f0: 100e6, f1: 100.05e6 }, display)!;
    expect(band.of).toBe('selection');
    expect(band.params).toMatchObject({ start: 250_000, end: 750_000, fLow: 100e6, fHigh: 100.05e6 });
    const time = spectrumSpan(info, region, { t0: 1, t1: 1.002 }, { window: 'hann', fft: 4096 })!;
    expect(time.params).toEqual({
      file: 3,
      start: 1_000_000,
      end: 1_002_000,
      window: 'hann',
      channel: 0,
      traces: ['mean'],
    });
    expect(spectrumSpan(info, region, null, display, ['mean', 'max'])!.params.traces).toEqual([
      'mean',
      'max',
    ]);
    // The chosen FFT is kept when the range holds it.
    expect(spectrumSpan(info, region, { t0: 1, t1: 1.01 }, { window: 'hann', fft: 4096 })!.params.fft).toBe(
      4096,
    );
    // Fewer frames than the shortest segment: nothing to ask.
    expect(spectrumSpan(info, region, { t0: 1, t1: 1 + 5e-6 }, display)).toBeNull();
  });
});

describe('spectrumCsv', () => {
  it('writes comment lines, a header and one row per bin with absolute frequencies', () => {
    const s: FileSpectrum = {
      traces: ['mean'],
      f0: 99_999_023.4375,
      binWidth: 976.5625,
      bins: 3,
      start: 250_000,
      end: 750_000,
      segments: 975,
      fft: 1024,
      window: 'hann',
      rbw: 1464.84375,
      sampleRate: 1e6,
      data: Float32Array.from([-80.25, -6.0206, -300]),
    };
    const csv = spectrumCsv(info, s);
    expect(csv.split('\n')).toEqual([
      '# Phasor spectrum (Welch average, levels in dBFS: a full-scale sine reads 0 dBFS)',
      '# file: /data/rx.sigmf-meta',
      '# range: frames 250000 to 750000 (0.250000 s to 0.750000 s)',
      '# fft: 1024, window: hann, segments: 975, overlap: 50 %',
      '# rbw: 1464.84375 Hz, bin width: 976.5625 Hz',
      'frequency_hz,level_dbfs',
      '99999023.4375,-80.250',
      '100000000,-6.021',
      '100000976.5625,-300.000',
      '',
    ]);
    // Parsed back as a spreadsheet would: the data rows, skipping comments and the header.
    const rows = csv
      .split('\n')
      .filter((l) => l && !l.startsWith('#') && !l.startsWith('frequency'))
      .map((l) => l.split(',').map(Number));
    expect(rows.map((r) => r[0])).toEqual([99_999_023.4375, 100e6, 100_000_976.5625]);
  });

  it('writes each trace asked for, in dBFS/Hz with the unit offset, and reads them back as traces', () => {
    const s: FileSpectrum = {
      traces: ['mean', 'max', 'min'],
      f0: 0,
      binWidth: 48000 / 4096,
      bins: 3,
      start: 0,
      end: 96000,
      segments: 45,
      fft: 4096,
      window: 'hann',
      rbw: 1.5 * (48000 / 4096),
      sampleRate: 48000,
      data: Float32Array.from([-60, -9, -61, -50, -6, -52, -70, -12, -75]),
    };
    expect(Array.from(traceLevels(s, 'max')!)).toEqual([-50, -6, -52]);
    expect(traceLevels({ ...s, traces: ['mean'] }, 'min')).toBeNull();
    expect(enbwBins(s)).toBeCloseTo(1.5, 12);
    // The marker trace is the mean, at the middle of the range.
    const t = meanTrace(s);
    expect(t.time).toBe(1);
    expect(levelAt(t, s.binWidth)).toBe(-9);
    const off = unitOffset('dBFS/Hz', enbwBins(s), 48000, 4096);
    expect(off).toBeCloseTo(-10 * Math.log10(17.578125), 9);
    const lines = spectrumCsv(info, s, { unit: 'dBFS/Hz', offset: off }).split('\n');
    expect(lines[0]).toMatch(/holds over its segments, levels in dBFS\/Hz/);
    expect(lines[5]).toBe('frequency_hz,level_dbfs_per_hz,max_hold_dbfs_per_hz,min_hold_dbfs_per_hz');
    expect(lines[7].split(',').map(Number)).toEqual(
      [11.7188, -9 + off, -6 + off, -12 + off].map((v, i) => (i === 0 ? v : +v.toFixed(3))),
    );
  });
});

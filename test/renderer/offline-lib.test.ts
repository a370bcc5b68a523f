// @vitest-environment happy-dom
// The offline views' pure parts: spectrogram geometry and selection math, annotation boxes, analysis
// choice, raw-format memory, taps files, benchmark files, output names, filter response, progress.
import { beforeEach, describe, expect, it } from 'vitest';
import type { BenchResult } from '../../electron/engine/protocol/messages.js';
import {
  BenchFileError,
  benchToCsv,
  benchToJson,
  compareRuns,
  parseBenchFile,
  withSpeedups,
} from '../../renderer/src/lib/bench-io.js';
import { benchSeries } from '../../renderer/src/lib/bench-series.js';
import {
  annotationBox,
  chooseAnalysis,
  fileBounds,
  isWhole,
  panRegion,
  regionAround,
  regionRequest,
  screenToTime,
  selectionFromDrag,
  selectionFrames,
  selectionReadout,
  zoomFrequency,
  zoomInterval,
  zoomTime,
} from '../../renderer/src/lib/file-view.js';
import { tapsResponse, unwrapPhase } from '../../renderer/src/lib/filter-response.js';
import { parseHz } from '../../renderer/src/lib/format-offline.js';
import { filteredOutputPath, stem } from '../../renderer/src/lib/paths.js';
import { ProgressMeter } from '../../renderer/src/lib/progress.js';
import {
  RAW_MEMORY_KEY,
  RAW_MEMORY_LIMIT,
  defaultRawFormat,
  isRawPath,
  needsRawParams,
  recallRawParams,
  rememberRawParams,
} from '../../renderer/src/lib/raw-formats.js';
import { autoLevels, paintLevels } from '../../renderer/src/lib/spectrogram-image.js';
import { TapsError, parseTaps, tapsToJson, tapsToText } from '../../renderer/src/lib/taps.js';
import { parseSizes } from '../../renderer/src/stores/bench.js';

const audio = { sampleRate: 48000, samples: 192000, complex: false } as const;
const iq = { sampleRate: 2e6, samples: 4_000_000, complex: true, centerFrequency: 100e6 } as const;

beforeEach(() => localStorage.clear());

describe('file spectrogram geometry', () => {
  it('bounds a real file by [0, fs/2] and an I/Q file by its centre ± fs/2', () => {
    expect(fileBounds(audio)).toEqual({ t0: 0, t1: 4, f0: 0, f1: 24000 });
    expect(fileBounds(iq)).toEqual({ t0: 0, t1: 2, f0: 99e6, f1: 101e6 });
    expect(fileBounds({ ...iq, centerFrequency: undefined })).toEqual({ t0: 0, t1: 2, f0: -1e6, f1: 1e6 });
  });

  it('zooms about the anchor, keeping the point under it in place, and clamps to the bounds', () => {
    const [a, b] = zoomInterval(0, 4, 2, 0.25, 0, 4, 0.001);
    expect([a, b]).toEqual([0.5, 2.5]); // t = 1 s stays at a quarter of the way
    expect(a + 0.25 * (b - a)).toBe(1);
    // Zooming out past the file clamps to it; zooming in stops at the minimum span.
    expect(zoomInterval(1, 2, 0.01, 0.5, 0, 4, 0.001)).toEqual([0, 4]);
    const [c, d] = zoomInterval(1, 1.002, 100, 0.5, 0, 4, 0.001);
    expect(d - c).toBeCloseTo(0.001, 12);
    // Time zoom at the right edge of the plot keeps the file's end there.
    const r = zoomTime(fileBounds(audio), 4, 1, audio);
    expect(r).toEqual({ t0: 3, t1: 4, f0: 0, f1: 24000 });
    // Frequency zoom about the top (anchor y = 0) keeps the top edge.
    expect(zoomFrequency(fileBounds(audio), 2, 0, audio)).toEqual({ t0: 0, t1: 4, f0: 12000, f1: 24000 });
  });

  it('pans within the file only', () => {
    const r = { t0: 1, t1: 2, f0: 0, f1: 24000 };
    expect(panRegion(r, 0.5, 0, audio)).toEqual({ t0: 1.5, t1: 2.5, f0: 0, f1: 24000 });
    expect(panRegion(r, 10, 0, audio)).toEqual({ t0: 3, t1: 4, f0: 0, f1: 24000 });
    expect(panRegion(r, -10, 0, audio).t0).toBe(0);
    expect(isWhole(fileBounds(audio), audio)).toBe(true);
    expect(isWhole(r, audio)).toBe(false);
  });

  it('asks for the frames of the region, and the band only when zoomed in frequency', () => {
    const whole = regionRequest(fileBounds(audio), audio, 1200.4, 600);
    expect(whole).toEqual({ start: 0, end: 192000, width: 1200, height: 600 });
    const zoomed = regionRequest({ t0: 0.5, t1: 1.25, f0: 1000, f1: 3000 }, audio, 20000, 9000);
    expect(zoomed).toEqual({ start: 24000, end: 60000, fLow: 1000, fHigh: 3000, width: 8192, height: 4096 });
  });

  it('chooses a frame length that fills the height but does not smear a zoomed view in time', () => {
    // Whole 4 s file, 600 px tall: 2·600 bins → 1024; a hop of 192 samples gives one frame per column.
    const whole = chooseAnalysis(fileBounds(audio), audio, 1000, 600);
    expect(whole.fft).toBe(1024);
    expect(whole.overlap).toBeCloseTo(1 - 192 / 1024, 3);
    // A long recording has far more frames than columns: half-overlapping frames are plenty.
    const long = { ...audio, samples: 1e9 };
    expect(chooseAnalysis(fileBounds(long), long, 1000, 600)).toEqual({ fft: 1024, overlap: 0.5 });
    // 0.1 s (4800 samples) over 1000 px: at most ~8 columns (38 samples) a frame → 64, hop ≈ 4.8 → 92.5 %.
    const z = chooseAnalysis({ t0: 1, t1: 1.1, f0: 0, f1: 24000 }, audio, 1000, 600);
    expect(z.fft).toBe(64);
    expect(z.overlap).toBeCloseTo(1 - 4.8 / 64, 3);
  });

  it('turns a drag into a time range, with a band only when dragged vertically enough', () => {
    const region = { t0: 1, t1: 3, f0: 0, f1: 20000 };
    const flat = selectionFromDrag(region, 0.75, 0.5, 0.25, 0.51, audio);
    expect(flat).toEqual({ t0: 1.5, t1: 2.5 });
    const box = selectionFromDrag(region, 0.25, 0.25, 0.5, 0.75, audio);
    expect(box).toEqual({ t0: 1.5, t1: 2, f0: 5000, f1: 15000 });
    // Past the plot's edges: clamped to what is shown.
    expect(selectionFromDrag(region, -1, 0, 2, 0.01, audio)).toEqual({ t0: 1, t1: 3 });
  });

  it('reads out a selection in frames, seconds and Hz', () => {
    const sel = { t0: 1.5, t1: 2.0, f0: 5000, f1: 15000 };
    expect(selectionFrames(sel, audio)).toEqual({ start: 72000, end: 96000 });
    expect(selectionReadout(sel, audio)).toEqual({
      start: 1.5,
      end: 2,
      duration: 0.5,
      frames: 24000,
      fLow: 5000,
      fHigh: 15000,
      bandwidth: 10000,
      centre: 10000,
    });
    // An empty range still selects one frame.
    expect(selectionFrames({ t0: 4, t1: 4 }, audio)).toEqual({ start: 191999, end: 192000 });
  });

  it('places annotation boxes by their frames and band, and drops those out of view', () => {
    const region = { t0: 0, t1: 2, f0: 99e6, f1: 101e6 };
    const b = annotationBox(
      { start: 500_000, count: 1_000_000, freqLower: 100e6, freqUpper: 100.5e6 },
      region,
      iq,
    );
    expect(b).toEqual({ x0: 0.125, x1: 0.375, y0: 0.25, y1: 0.5, labelX: 0.125, labelY: 0.25 });
    // No band: the whole height; no count: to the end of the file.
    expect(annotationBox({ start: 3_000_000 }, region, iq)).toEqual({
      x0: 0.75,
      x1: 1,
      y0: 0,
      y1: 1,
      labelX: 0.75,
      labelY: 0,
    });
    // Starting left of the view: the label stays at the visible edge.
    const zoomed = { t0: 0.5, t1: 1, f0: 99e6, f1: 101e6 };
    expect(annotationBox({ start: 0, count: 1_500_000 }, zoomed, iq)).toMatchObject({
      x0: -1,
      x1: 0.5,
      labelX: 0,
    });
    expect(annotationBox({ start: 0, count: 100 }, zoomed, iq)).toBeNull();
    expect(annotationBox({ start: 0, count: 1e6, freqLower: 90e6, freqUpper: 95e6 }, region, iq)).toBeNull();
  });

  it('frames a time range with context around it', () => {
    const r = regionAround(2, 2.1, fileBounds(audio), audio, 1);
    expect(r.t0).toBeCloseTo(1.9, 12);
    expect(r.t1).toBeCloseTo(2.2, 12);
    expect(screenToTime(r, 1 / 3)).toBeCloseTo(2, 12);
    // Near the start it slides right rather than leaving the file.
    expect(regionAround(0, 0.1, fileBounds(audio), audio, 1)).toMatchObject({ t0: 0 });
  });
});

describe('raw I/Q parameters', () => {
  it('knows which names are raw I/Q and what format their extension names', () => {
    expect(isRawPath('/x/capture.cu8')).toBe(true);
    expect(isRawPath('/x/capture.IQ')).toBe(true);
    expect(isRawPath('/x/a.wav')).toBe(false);
    expect(isRawPath('/x/a.sigmf-data')).toBe(false);
    expect(defaultRawFormat('a.cs16')).toBe('cs16');
    expect(defaultRawFormat('a.cfile')).toBe('cf32');
    expect(defaultRawFormat('a.bin')).toBe('cu8');
    expect(needsRawParams('/x/a.bin: raw IQ needs --format (cu8, …) and --rate')).toBe(true);
    expect(needsRawParams('/x/a.wav: truncated')).toBe(false);
  });

  it('remembers the answer per path, most recent kept when the list is full', () => {
    rememberRawParams('/a.cu8', { format: 'cu8', rate: 2.048e6, center: 100.1e6 });
    rememberRawParams('/b.cs16', { format: 'cs16', rate: 1e6 });
    expect(recallRawParams('/a.cu8')).toEqual({ format: 'cu8', rate: 2.048e6, center: 100.1e6 });
    expect(recallRawParams('/b.cs16')).toEqual({ format: 'cs16', rate: 1e6 });
    expect(recallRawParams('/c.cu8')).toBeNull();
    rememberRawParams('/a.cu8', { format: 'cs8', rate: 8e6 });
    expect(recallRawParams('/a.cu8')).toEqual({ format: 'cs8', rate: 8e6 });
    for (let i = 0; i < RAW_MEMORY_LIMIT; i++)
      rememberRawParams(`/f${i}.iq`, { format: 'cf32', rate: i + 1 });
    expect(recallRawParams('/b.cs16')).toBeNull(); // the oldest went first
    expect(recallRawParams(`/f${RAW_MEMORY_LIMIT - 1}.iq`)).toEqual({
      format: 'cf32',
      rate: RAW_MEMORY_LIMIT,
    });
  });

  it('survives damaged storage and refuses nonsense', () => {
    localStorage.setItem(RAW_MEMORY_KEY, '{not json');
    expect(recallRawParams('/a.cu8')).toBeNull();
    localStorage.setItem(
      RAW_MEMORY_KEY,
      JSON.stringify({ version: 1, entries: [['/a.cu8', { format: 'cu8', rate: -1 }]] }),
    );
    expect(recallRawParams('/a.cu8')).toBeNull();
    rememberRawParams('/z.cu8', { format: 'cu8', rate: NaN });
    expect(recallRawParams('/z.cu8')).toBeNull();
  });

  it('reads frequencies as people type them', () => {
    expect(parseHz('2.048M')).toBe(2048000);
    expect(parseHz('100.1 MHz')).toBeCloseTo(100.1e6, 3);
    expect(parseHz('48k')).toBe(48000);
    expect(parseHz('1e6')).toBe(1e6);
    expect(parseHz('-250k')).toBe(-250000);
    expect(parseHz('fast')).toBeNaN();
  });
});

describe('taps files', () => {
  it('reads one tap per line, with comments, commas and blank lines', () => {
    expect(parseTaps('# lowpass\n0.25\n\n 0.5 # centre\n0.25\n')).toEqual([0.25, 0.5, 0.25]);
    expect(parseTaps('1e-3, -2.5e-1;3')).toEqual([0.001, -0.25, 3]);
  });

  it('reads JSON arrays and {taps} objects (also from our own export)', () => {
    expect(parseTaps('[1, "2", 3.5]')).toEqual([1, 2, 3.5]);
    expect(parseTaps('{"kind":"lowpass","taps":[0.1,0.8,0.1]}')).toEqual([0.1, 0.8, 0.1]);
    const taps = [0.1 + 0.2, -1 / 3, 1e-17, 12345.678];
    expect(parseTaps(tapsToJson(taps, { kind: 'bandpass' }))).toEqual(taps);
    expect(parseTaps(tapsToText(taps, 'made by a test\nsecond line'))).toEqual(taps); // exact round trip
  });

  it('names the problem in bad files', () => {
    expect(() => parseTaps('', 'f.txt')).toThrow(/f\.txt: the file is empty/);
    expect(() => parseTaps('0.1\nabc\n0.3', 'f.txt')).toThrow(/tap 2 is not a finite number \("abc"\)/);
    expect(() => parseTaps('{"coefficients": [1]}', 'f.json')).toThrow(/expected a JSON array/);
    expect(() => parseTaps('[1, 2', 'f.json')).toThrow(TapsError);
    expect(() => parseTaps('[1, null]', 'f.json')).toThrow(/tap 2/);
    expect(() => parseTaps(Array(70000).fill('1').join('\n'), 'big')).toThrow(/at most 65535/);
  });
});

describe('benchmark files', () => {
  const run: BenchResult = {
    machine: {
      date: '2025-01-02T03:04:05.000Z',
      cpu: 'Test CPU, 8 cores',
      threads: 8,
      node: 'v20.20.0',
      platform: 'linux x64',
    },
    backends: [{ name: 'cpu', available: true, device: 'CPU' }],
    rows: [
      {
        backend: 'cpu',
        op: 'fft',
        size: 1024,
        batch: 1024,
        samples: 1048576,
        medianMs: 10,
        samplesPerSecond: 104857600,
        gflops: 5.24,
        relError: 2.5e-8,
        vsCpu: 1,
      },
      {
        backend: 'webgpu',
        op: 'fft',
        size: 1024,
        batch: 1024,
        samples: 1048576,
        medianMs: 2,
        samplesPerSecond: 524288000,
        gflops: 26.2,
        relError: 3.1e-7,
        vsCpu: 5,
      },
      {
        backend: 'cpu',
        op: 'fir',
        size: 255,
        batch: 1,
        samples: 1048576,
        medianMs: 50,
        samplesPerSecond: 20971520,
        relError: 0,
      },
    ],
  };

  it('exports CSV with the machine in comments and reads it back to the same rows', () => {
    const csv = benchToCsv(run);
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('# phasor bench');
    expect(lines).toContain('# cpu: Test CPU, 8 cores');
    expect(lines[6]).toBe('backend,op,size,batch,samples,median_ms,msamples_per_s,gflops,rel_error,vs_cpu');
    expect(lines[7]).toBe('cpu,fft,1024,1024,1048576,10,104.8576,5.24,2.5e-8,1');
    expect(lines[9]).toBe('cpu,fir,255,1,1048576,50,20.97152,,0,');
    const back = parseBenchFile(csv);
    expect(back.machine).toEqual(run.machine);
    expect(back.rows).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      expect(back.rows[i]).toMatchObject({
        backend: run.rows[i].backend,
        op: run.rows[i].op,
        size: run.rows[i].size,
      });
      expect(back.rows[i].samplesPerSecond).toBeCloseTo(run.rows[i].samplesPerSecond, 3);
      expect(back.rows[i].relError).toBe(run.rows[i].relError);
      expect(back.rows[i].gflops).toBe(run.rows[i].gflops);
    }
  });

  it('reads its JSON back as is, and refuses what is not a run', () => {
    expect(parseBenchFile(benchToJson(run))).toEqual(run);
    expect(() => parseBenchFile('{"hello": 1}')).toThrow(/expected an object with "rows"/);
    expect(() => parseBenchFile('size,op\n1,fft')).toThrow(/no "backend" column/);
    expect(() =>
      parseBenchFile('{"rows":[{"backend":"cpu","op":"fft","size":"big","samplesPerSecond":1}]}'),
    ).toThrow(BenchFileError);
  });

  it('joins two runs by backend, op and size, with the ratio of their throughputs', () => {
    const other: BenchResult = {
      ...run,
      rows: [
        { ...run.rows[0], samplesPerSecond: 2 * run.rows[0].samplesPerSecond },
        {
          backend: 'cuda',
          op: 'fft',
          size: 1024,
          batch: 1024,
          samples: 1048576,
          medianMs: 0.5,
          samplesPerSecond: 2097152000,
          relError: 1e-7,
        },
      ],
    };
    const c = compareRuns(run, other);
    expect(c.map((x) => `${x.backend}/${x.op}/${x.size}`)).toEqual([
      'cpu/fft/1024',
      'cpu/fir/255',
      'cuda/fft/1024',
      'webgpu/fft/1024',
    ]);
    expect(c[0].ratio).toBe(2);
    expect(c[1].b).toBeUndefined();
    expect(c[2].a).toBeUndefined();
    expect(c[2].ratio).toBeUndefined();
  });

  it('fills the speedup over the CPU where a run lacks it, and builds chart series per backend', () => {
    const rows = withSpeedups([{ ...run.rows[1], vsCpu: undefined }, run.rows[0]]);
    expect(rows[0].vsCpu).toBe(5);
    const s = benchSeries('fft', 'throughput', run.rows);
    expect(s.sizes).toEqual([1024]);
    expect(s.series.map((x) => [x.backend, x.values])).toEqual([
      ['cpu', [104.8576]],
      ['webgpu', [524.288]],
    ]);
    expect(benchSeries('fft', 'speedup', run.rows).series.map((x) => x.backend)).toEqual(['webgpu']);
    // An exact result sits at the floor of the log axis rather than vanishing.
    expect(benchSeries('fir', 'error', run.rows).series[0].values).toEqual([1e-17]);
  });

  it('reads sizes as people write them', () => {
    expect(parseSizes('4096, 1024 2^10 64k')).toEqual([1024, 4096, 65536]);
    expect(parseSizes('1024, zero')).toBe('"zero" is not a size from 1 to 16777216');
    expect(parseSizes('0')).toMatch(/not a size/);
  });
});

describe('names and numbers', () => {
  it('suggests the filtered output beside the input', () => {
    expect(filteredOutputPath('/rec/tones.wav')).toBe('/rec/tones-filtered.wav');
    expect(filteredOutputPath('/rec/burst.sigmf-meta')).toBe('/rec/burst-filtered.sigmf-meta');
    expect(filteredOutputPath('/rec/capture.cu8')).toBe('/rec/capture-filtered.sigmf-meta');
    expect(filteredOutputPath('C:\\rec\\a.b.wav')).toBe('C:\\rec\\a.b-filtered.wav');
    expect(stem('/x/y.sigmf-data')).toBe('y');
  });

  it('computes the response of taps like a direct float64 sum (|H|, phase, group delay)', () => {
    // h = [0.25, 0.5, 0.25]: H(ω) = e^(−jω)·(0.5 + 0.5 cos ω), so |H| = 0.5(1 + cos ω), delay 1 sample.
    const fs = 1000;
    const r = tapsResponse([0.25, 0.5, 0.25], fs, 11);
    for (let k = 0; k < 10; k++) {
      const w = (2 * Math.PI * r.frequencies[k]) / fs;
      expect(r.frequencies[k]).toBeCloseTo(50 * k, 12);
      expect(r.magnitudeDb[k]).toBeCloseTo(20 * Math.log10(0.5 * (1 + Math.cos(w))), 9);
      expect(r.groupDelay[k]).toBeCloseTo(1, 9);
    }
    // A long random filter against a plain sum at one frequency (the rotation is re-seeded as it goes).
    let s = 12345;
    const taps = Array.from({ length: 3000 }, () => ((s = (s * 16807) % 2147483647), s / 2147483647 - 0.5));
    const f = 123.4;
    const rr = tapsResponse(taps, fs, 2);
    const one = tapsResponse(taps, 2 * f, 2); // point 1 is fs/2 = f
    let re = 0;
    let im = 0;
    for (let n = 0; n < taps.length; n++) {
      re += taps[n] * Math.cos((2 * Math.PI * f * n) / (2 * f));
      im -= taps[n] * Math.sin((2 * Math.PI * f * n) / (2 * f));
    }
    expect(one.magnitudeDb[1]).toBeCloseTo(10 * Math.log10(re * re + im * im), 6);
    expect(rr.magnitudeDb[0]).toBeCloseTo(20 * Math.log10(Math.abs(taps.reduce((a, b) => a + b, 0))), 6);
  });

  it('unwraps phase like NumPy', () => {
    const wrapped = [0, 2, 3, -3, -2, 0.5, 3, -2.9];
    const u = unwrapPhase(wrapped);
    for (let i = 1; i < u.length; i++) expect(Math.abs(u[i] - u[i - 1])).toBeLessThanOrEqual(Math.PI);
    expect(u[3]).toBeCloseTo(-3 + 2 * Math.PI, 12);
    for (let i = 0; i < u.length; i++) expect(Math.abs(Math.sin(u[i] - wrapped[i]))).toBeLessThan(1e-12);
  });

  it('measures throughput over the recent window and the time left at that rate', () => {
    const m = new ProgressMeter(3000);
    m.push({ request: 1, done: 0, total: 1000, unit: 'frames' }, 0);
    m.push({ request: 1, done: 100, total: 1000, unit: 'frames' }, 1000);
    const v = m.push({ request: 1, done: 200, total: 1000, unit: 'frames' }, 2000);
    expect(v.rate).toBeCloseTo(100, 9);
    expect(v.eta).toBeCloseTo(8, 9);
    expect(v.fraction).toBeCloseTo(0.2, 12);
    // Faster now: the old samples leave the window and the rate follows.
    m.push({ request: 1, done: 600, total: 1000, unit: 'frames' }, 3000);
    const w = m.push({ request: 1, done: 1000, total: 1000, unit: 'frames' }, 4000);
    expect(w.rate).toBeCloseTo((1000 - 100) / 3, 9);
    expect(w.eta).toBe(0);
    const unknown = new ProgressMeter().push({ request: 2, done: 5, unit: 'rows' }, 0);
    expect(unknown.fraction).toBeNaN();
    expect(unknown.eta).toBeNaN();
  });

  it('colours levels through the colormap and picks levels from the noise floor to the peak', () => {
    const data = new Float32Array(1000);
    for (let i = 0; i < data.length; i++) data[i] = -100 + (i % 10); // floor −100…−91
    data[500] = -3;
    data[501] = -Infinity;
    const [lo, hi] = autoLevels(data);
    expect(hi).toBe(-3);
    expect(lo).toBe(-100);
    const lut = new Uint8Array(256 * 4);
    for (let i = 0; i < 256; i++) lut.set([i, 255 - i, 7, 255], 4 * i);
    const out = new Uint8ClampedArray(4 * 4);
    paintLevels(new Float32Array([-100, -3, -51.5, NaN]), -100, -3, lut, out);
    expect(Array.from(out)).toEqual([0, 255, 7, 255, 255, 0, 7, 255, 127, 128, 7, 255, 0, 255, 7, 255]);
  });
});

// @vitest-environment happy-dom
// The offline views' stores against a fake connection: opening files (raw prompt and its memory, drops,
// reconnection), the file browser, the filter designer (both design modes, debounce) and applying it
// with progress and cancel, correlation and the jump to the File view, the benchmark run with rows
// arriving as progress, export and re-import; and the spectrogram loader's debounce and cancel.
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FileSpectrogramResult, MethodParams } from '../../electron/engine/protocol/messages.js';
import { SpectrogramLoader } from '../../renderer/src/lib/spectrogram-loader.js';
import { useBenchStore } from '../../renderer/src/stores/bench.js';
import { BROWSER_DIR_KEY, useBrowserStore } from '../../renderer/src/stores/browser.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useCorrelationStore } from '../../renderer/src/stores/correlation.js';
import { pickDropped, useFilesStore } from '../../renderer/src/stores/files.js';
import {
  DESIGN_DEBOUNCE_MS,
  DesignError,
  defaultDesign,
  designParams,
  loadDesign,
  useFilterStore,
} from '../../renderer/src/stores/filter.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { deinterleave } from '../../renderer/src/stores/playback.js';
import { RequestError } from '../../renderer/src/transport/connection.js';
import { FakeConnection, settle } from './fake-connection.js';
import { drive, fileInfo } from './offline-fixtures.js';

async function connected(): Promise<FakeConnection> {
  const conn = new FakeConnection();
  await useConnectionStore().attach(conn);
  await settle();
  return conn;
}

/** openFile answers with a FileInfo for the path (raw files need format and rate). */
function serveFiles(conn: FakeConnection): void {
  conn.handle('openFile', (p) => {
    const name = p.path.split('/').pop()!;
    if (/\.(cu8|cs16|bin|iq)$/.test(name) && (p.format === undefined || p.rate === undefined)) {
      throw new RequestError(
        'invalid-argument',
        `${p.path}: raw IQ needs --format (cu8, cs8, cs16 or cf32) and --rate`,
      );
    }
    return fileInfo({
      path: p.path,
      name,
      complex: p.format !== undefined,
      sampleRate: p.rate ?? 48000,
      samples: 96000,
      duration: 96000 / (p.rate ?? 48000),
      ...(p.center !== undefined ? { centerFrequency: p.center } : {}),
    });
  });
  conn.handle('closeFile', () => ({}));
}

beforeEach(() => {
  localStorage.clear();
  setActivePinia(createPinia());
  window.location.hash = '';
});
afterEach(() => vi.useRealTimers());

describe('files store', () => {
  it('opens a file, makes it current and shows all of it', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const info = await files.open('/rec/tones.wav');
    expect(conn.last('openFile')).toEqual({ path: '/rec/tones.wav' });
    expect(files.current?.file).toBe(info!.file);
    expect(files.region).toEqual({ t0: 0, t1: 2, f0: 0, f1: 24000 });
    expect(files.selection).toBeNull();
  });

  it('asks for raw parameters once, remembers them per path, and opens with them next time', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    expect(await files.open('/sdr/capture.cu8')).toBeNull();
    expect(conn.count('openFile')).toBe(0); // asked before trying
    expect(files.rawPrompt).toMatchObject({ path: '/sdr/capture.cu8', params: { format: 'cu8', rate: 0 } });
    await files.submitRaw({ format: 'cu8', rate: 2.048e6, center: 100.1e6 });
    expect(conn.last('openFile')).toEqual({
      path: '/sdr/capture.cu8',
      format: 'cu8',
      rate: 2.048e6,
      center: 100.1e6,
    });
    expect(files.rawPrompt).toBeNull();
    expect(files.region).toEqual({
      t0: 0,
      t1: 96000 / 2.048e6,
      f0: 100.1e6 - 1.024e6,
      f1: 100.1e6 + 1.024e6,
    });

    // A new window (new stores) opens the same path without asking.
    setActivePinia(createPinia());
    const conn2 = await connected();
    serveFiles(conn2);
    const again = useFilesStore();
    await again.open('/sdr/capture.cu8');
    expect(again.rawPrompt).toBeNull();
    expect(conn2.last('openFile')).toEqual({
      path: '/sdr/capture.cu8',
      format: 'cu8',
      rate: 2.048e6,
      center: 100.1e6,
    });
  });

  it('asks when the engine says an unknown file needs raw parameters, and shows other errors', async () => {
    const conn = await connected();
    serveFiles(conn);
    conn.handle('openFile', (p) => {
      if (p.format === undefined) {
        throw new RequestError(
          'unsupported-format',
          `${p.path}: unknown file type (not WAV, RF64 or SigMF); for raw IQ pass --format (cu8…) and --rate (Hz)`,
        );
      }
      return fileInfo({ path: p.path, name: 'x.u8', complex: true, sampleRate: p.rate! });
    });
    const files = useFilesStore();
    expect(await files.open('/rec/mystery.u8')).toBeNull();
    expect(files.rawPrompt?.message).toMatch(/no header Phasor knows/);
    await files.submitRaw({ format: 'cs8', rate: 1e6 });
    expect(files.current?.sampleRate).toBe(1e6);

    conn.handle('openFile', () => {
      throw new RequestError('io', '/rec/gone.wav: no such file');
    });
    expect(await files.open('/rec/gone.wav')).toBeNull();
    expect(files.error).toBe('/rec/gone.wav: no such file');
    expect(files.rawPrompt).toBeNull();
  });

  it('closes files in the engine and moves to another one', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const a = (await files.open('/rec/a.wav'))!;
    const b = (await files.open('/rec/b.wav'))!;
    files.setCompare(a.file);
    expect(files.compareId).toBe(a.file);
    await files.close(b.file);
    expect(conn.last('closeFile')).toEqual({ file: b.file });
    expect(files.currentId).toBe(a.file);
    expect(files.compareId).toBeNull(); // a file is not compared with itself
  });

  it('opens dropped files by their real path on the desktop and uploads them in web mode', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const f = new File([new Uint8Array([82, 73, 70, 70])], 'drop.wav');
    window.phasor = { send: () => {}, onMessage: () => () => {}, pathForFile: () => '/home/u/drop.wav' };
    await files.openDropped([f]);
    expect(conn.last('openFile')).toEqual({ path: '/home/u/drop.wav' });

    delete window.phasor;
    const calls: Array<[string, RequestInit | undefined]> = [];
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (url, init) => {
      calls.push([String(url), init]);
      return new Response(JSON.stringify({ path: '/srv/uploads/drop.wav' }), { status: 200 });
    });
    await files.openDropped([f]);
    fetchSpy.mockRestore();
    expect(calls).toHaveLength(1);
    const url = new URL(calls[0][0]);
    expect(url.pathname).toBe('/upload');
    expect(url.searchParams.get('name')).toBe('drop.wav');
    expect(calls[0][1]?.method).toBe('PUT');
    expect(conn.last('openFile')).toEqual({ path: '/srv/uploads/drop.wav' });
  });

  it('picks the SigMF metadata among dropped files', () => {
    expect(pickDropped(['a.sigmf-data', 'a.sigmf-meta'])).toBe(1);
    expect(pickDropped(['notes.txt', 'b.wav'])).toBe(1);
    expect(pickDropped(['x.txt'])).toBe(0);
  });

  it('opens every file again after a reconnection, keeping what was current and compared', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const a = (await files.open('/rec/a.wav'))!;
    await files.open('/sdr/c.cu8', { raw: { format: 'cu8', rate: 1e6 } });
    files.select(a.file);
    files.setSelection({ t0: 0.5, t1: 1 });
    const before = files.files.map((f) => f.file);
    conn.setState('reconnecting');
    conn.setState('open');
    await settle(10);
    expect(files.files.map((f) => f.path)).toEqual(['/rec/a.wav', '/sdr/c.cu8']);
    expect(files.files.map((f) => f.file)).not.toEqual(before);
    expect(files.current?.path).toBe('/rec/a.wav');
    expect(files.selection).toEqual({ t0: 0.5, t1: 1 });
    expect(conn.last('openFile')).toEqual({ path: '/sdr/c.cu8', format: 'cu8', rate: 1e6 });
  });

  it('shows a time range of a file with it selected', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const a = (await files.open('/rec/a.wav'))!;
    await files.open('/rec/b.wav');
    files.showTime(a.file, 1.0, 1.1);
    expect(files.currentId).toBe(a.file);
    expect(files.selection).toEqual({ t0: 1.0, t1: 1.1 });
    expect(files.region!.t0).toBeCloseTo(0.9, 9);
    expect(files.region!.t1).toBeCloseTo(1.2, 9);
    expect(files.jumps).toBe(1);
  });
});

describe('file browser store', () => {
  it('lists folders first, hides what cannot be opened, remembers the folder and goes up', async () => {
    const conn = await connected();
    conn.handle('listDirectory', (p) => ({
      path: p.path ?? '/home/u',
      parent: (p.path ?? '/home/u') === '/home/u' ? '/home' : '/home/u',
      entries: [
        { name: 'z.wav', path: '/home/u/z.wav', kind: 'file', size: 10, openable: true },
        { name: 'notes.txt', path: '/home/u/notes.txt', kind: 'file', size: 3, openable: false },
        { name: 'rec10', path: '/home/u/rec10', kind: 'directory', openable: false },
        { name: 'rec9', path: '/home/u/rec9', kind: 'directory', openable: false },
        { name: 'A.cu8', path: '/home/u/A.cu8', kind: 'file', size: 8, openable: true },
      ],
    }));
    const browser = useBrowserStore();
    await browser.list();
    expect(conn.last('listDirectory')).toEqual({});
    expect(browser.entries.map((e) => e.name)).toEqual(['rec9', 'rec10', 'A.cu8', 'z.wav']);
    browser.onlyOpenable = false;
    expect(browser.entries.map((e) => e.name)).toContain('notes.txt');
    expect(localStorage.getItem(BROWSER_DIR_KEY)).toBe('/home/u');
    await browser.up();
    expect(conn.last('listDirectory')).toEqual({ path: '/home' });

    setActivePinia(createPinia());
    const conn2 = await connected();
    conn2.handle('listDirectory', (p) => {
      if (p.path === '/home') throw new RequestError('io', '/home: gone');
      return { path: '/home/u', entries: [] };
    });
    const b2 = useBrowserStore();
    await b2.list(); // the remembered folder is gone: falls back to the default
    expect(conn2.requests.filter((r) => r.method === 'listDirectory').map((r) => r.params)).toEqual([
      { path: '/home' },
      {},
    ]);
    expect(b2.listing?.path).toBe('/home/u');
  });
});

describe('filter designer', () => {
  it('maps the window design to designFilter parameters', () => {
    const d = {
      ...defaultDesign(),
      kind: 'bandpass' as const,
      band: [1000, 3000] as [number, number],
      numtaps: 151,
      window: 'kaiser:8.6',
    };
    expect(designParams(d, 48000)).toEqual({
      kind: 'bandpass',
      cutoff: [1000, 3000],
      fs: 48000,
      numtaps: 151,
      window: 'kaiser:8.6',
      points: 1024,
    });
    expect(designParams({ ...defaultDesign(), cutoff: 5000 }, 44100, 512)).toEqual({
      kind: 'lowpass',
      cutoff: 5000,
      fs: 44100,
      numtaps: 101,
      window: 'hamming',
      points: 512,
    });
  });

  it('maps the Kaiser design (width + attenuation) to ripple and width, without numtaps', () => {
    const d = {
      ...defaultDesign(),
      kind: 'highpass' as const,
      cutoff: 300,
      mode: 'kaiser' as const,
      width: 100,
      ripple: 65,
    };
    expect(designParams(d, 8000)).toEqual({
      kind: 'highpass',
      cutoff: 300,
      fs: 8000,
      ripple: 65,
      width: 100,
      points: 1024,
    });
  });

  it('says what to fix before asking the engine', () => {
    const d = defaultDesign();
    expect(() => designParams({ ...d, cutoff: 30000 }, 48000)).toThrow(/between 0 and 24000 Hz/);
    expect(() => designParams({ ...d, kind: 'bandstop', band: [3000, 1000] }, 48000)).toThrow(
      /0 < low < high/,
    );
    expect(() => designParams({ ...d, kind: 'highpass', numtaps: 100 }, 48000)).toThrow(/odd number of taps/);
    expect(() => designParams({ ...d, numtaps: 1.5 }, 48000)).toThrow(DesignError);
    expect(() => designParams({ ...d, mode: 'kaiser', ripple: 0 }, 48000)).toThrow(/attenuation/);
    expect(() => designParams({ ...d, mode: 'kaiser', width: 0 }, 48000)).toThrow(/transition width/);
  });

  it('loads a stored design field by field', () => {
    const d = loadDesign(
      JSON.stringify({
        kind: 'bandstop',
        cutoff: -1,
        band: [50, 60],
        numtaps: 2.5,
        ripple: 80,
        mode: 'kaiser',
      }),
    );
    expect(d).toMatchObject({
      kind: 'bandstop',
      cutoff: 4000,
      band: [50, 60],
      numtaps: 101,
      ripple: 80,
      mode: 'kaiser',
    });
    expect(loadDesign('{oops')).toEqual(defaultDesign());
  });

  it('designs once per burst of changes, with the latest values, and shows the Kaiser β', async () => {
    const conn = await connected();
    vi.useFakeTimers();
    conn.handle('designFilter', (p) => ({
      taps: [0.1, 0.8, 0.1],
      numtaps: 3,
      window: 'kaiser',
      beta: p.ripple === 70 ? 6.7553 : 5.6533,
      response: { frequencies: [0, 100], magnitudeDb: [0, -70], phase: [0, 0], groupDelay: [1, 1] },
    }));
    const filter = useFilterStore();
    filter.design.mode = 'kaiser';
    filter.design.width = 800;
    await Promise.resolve();
    filter.design.ripple = 60;
    await Promise.resolve();
    filter.design.ripple = 70;
    await vi.advanceTimersByTimeAsync(DESIGN_DEBOUNCE_MS - 50);
    expect(conn.count('designFilter')).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(conn.count('designFilter')).toBe(1);
    expect(conn.last('designFilter')).toEqual({
      kind: 'lowpass',
      cutoff: 4000,
      fs: 48000,
      ripple: 70,
      width: 800,
      points: 1024,
    });
    expect(filter.result?.beta).toBe(6.7553);
    expect(filter.taps).toEqual([0.1, 0.8, 0.1]);
    // A design that cannot be made is not sent; the message says why.
    filter.design.cutoff = 0;
    await vi.advanceTimersByTimeAsync(DESIGN_DEBOUNCE_MS + 10);
    expect(conn.count('designFilter')).toBe(1);
    expect(filter.designError).toMatch(/cutoff/);
  });

  it('uses imported taps instead of the design until cleared, with their response computed here', async () => {
    await connected();
    const filter = useFilterStore();
    expect(filter.importTaps('0.25\n0.5\n0.25\n', 'smooth.txt')).toBe(true);
    expect(filter.taps).toEqual([0.25, 0.5, 0.25]);
    expect(filter.response?.magnitudeDb[0]).toBeCloseTo(0, 12);
    expect(filter.response?.groupDelay[10]).toBeCloseTo(1, 9);
    expect(filter.importTaps('{"taps": "no"}', 'bad.json')).toBe(false);
    expect(filter.importError).toMatch(/bad\.json/);
    expect(filter.taps).toEqual([0.25, 0.5, 0.25]); // the good import stays
    filter.clearImport();
    expect(filter.taps).toBeNull();
  });

  it('applies the taps with progress, then opens the output beside the input', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const input = (await files.open('/rec/tones.wav'))!;
    const filter = useFilterStore();
    filter.importTaps('0.2 0.6 0.2', 'taps.txt');
    expect(filter.outputPath).toBe('/rec/tones-filtered.wav');
    const job = drive(conn, 'applyFilter');
    const done = filter.apply();
    await settle();
    expect(job.params).toEqual({
      file: input.file,
      output: '/rec/tones-filtered.wav',
      taps: [0.2, 0.6, 0.2],
    });
    expect(filter.task.running).toBe(true);
    job.progress(48000, 96000);
    expect(filter.task.progress?.fraction).toBe(0.5);
    job.resolve({
      output: '/rec/tones-filtered.wav',
      frames: 96000,
      clipped: 0,
      encoding: 'ri16_le',
      numtaps: 3,
      method: 'direct',
      backend: 'cpu',
      seconds: 0.1,
    });
    expect(await done).toMatchObject({ frames: 96000 });
    expect(filter.task.outcome).toBe('done');
    expect(files.compare?.path).toBe('/rec/tones-filtered.wav');
    expect(files.current?.file).toBe(input.file);
  });

  it('cancels an application: the engine is told, nothing is opened, the outcome says so', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    await files.open('/rec/tones.wav');
    const filter = useFilterStore();
    filter.importTaps('1', 't');
    filter.outputPath = '/tmp/out.sigmf-meta';
    const job = drive(conn, 'applyFilter');
    const done = filter.apply();
    await settle();
    expect(job.params?.output).toBe('/tmp/out.sigmf-meta');
    filter.task.cancel();
    expect(await done).toBeNull();
    expect(job.cancelled).toBe(true);
    expect(filter.task.outcome).toBe('cancelled');
    expect(filter.applyError).toBe('');
    expect(files.compare).toBeNull();
  });
});

describe('correlation', () => {
  it('correlates the signal against a template file or the File view’s selection', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const tpl = (await files.open('/rec/template.wav'))!;
    const sig = (await files.open('/rec/signal.wav'))!;
    const corr = useCorrelationStore();
    expect(corr.params()).toMatch(/choose a template file/);
    corr.templateId = tpl.file;
    expect(corr.params()).toEqual({ signal: sig.file, template: { file: tpl.file }, top: 5, points: 4096 });
    corr.templateMode = 'selection';
    expect(corr.params()).toMatch(/select a time range/);
    files.setSelection({ t0: 0.25, t1: 0.5 });
    expect(corr.params(1000)).toEqual({
      signal: sig.file,
      template: { file: sig.file, start: 12000, end: 24000 },
      top: 5,
      points: 1000,
    });
  });

  it('jumps from a peak to its time in the File view', async () => {
    const conn = await connected();
    serveFiles(conn);
    const files = useFilesStore();
    const tpl = (await files.open('/rec/template.wav'))!;
    const sig = (await files.open('/rec/signal.wav'))!;
    const corr = useCorrelationStore();
    corr.templateId = tpl.file;
    const job = drive(conn, 'correlate');
    const running = corr.run();
    await settle();
    job.progress(1000, 96000);
    expect(corr.task.progress?.done).toBe(1000);
    job.resolve({
      peaks: [{ lag: 37520, time: 37520 / 48000, score: 0.97 }],
      lags: 94401,
      templateLength: 1600,
      sampleRate: 48000,
      points: 4,
      bucket: 23601,
      data: new Float32Array([0.1, 0.97, 0.1, 0.05]),
    });
    await running;
    files.select(tpl.file); // the user looks elsewhere meanwhile
    corr.jumpTo(corr.result!.peaks[0]);
    expect(window.location.hash).toBe('#/file');
    expect(files.currentId).toBe(sig.file);
    expect(files.selection!.t0).toBeCloseTo(37520 / 48000, 12);
    expect(files.selection!.t1).toBeCloseTo((37520 + 1600) / 48000, 12);
  });
});

describe('benchmark', () => {
  const row = (backend: string, op: string, size: number, msps: number) => ({
    backend,
    op,
    size,
    batch: 1,
    samples: 65536,
    medianMs: 1,
    samplesPerSecond: msps * 1e6,
    relError: 1e-7,
  });

  it('lists backends, runs the chosen ones, and shows rows as progress brings them', async () => {
    const conn = await connected();
    conn.handle('listBackends', () => ({
      backends: [
        { name: 'cuda', available: false, reason: 'no NVIDIA driver' },
        { name: 'cpu', available: true, device: 'CPU (2 threads)', details: { threads: 2 } },
      ],
    }));
    const bench = useBenchStore();
    await bench.loadBackends();
    expect(bench.available).toEqual(['cpu']);
    expect(bench.selectedBackends).toEqual(['cpu']);
    bench.choice.ops = ['fft'];
    bench.choice.sizes = '1024, 256';
    bench.choice.samples = '65536';
    const job = drive(conn, 'runBench');
    const running = bench.start();
    await settle();
    expect(job.params).toEqual({ backends: ['cpu'], ops: ['fft'], sizes: [256, 1024], samples: 65536 });
    job.progress(1, 2, { unit: 'rows', row: row('cpu', 'fft', 256, 20) });
    expect(bench.shownRows.map((r) => r.size)).toEqual([256]);
    job.progress(2, 2, { unit: 'rows', row: row('cpu', 'fft', 1024, 40) });
    expect(bench.rows).toHaveLength(2);
    job.resolve({
      machine: { date: '2025-01-01T00:00:00Z', cpu: 'Test', threads: 2, node: 'v20', platform: 'linux x64' },
      backends: [],
      rows: [row('cpu', 'fft', 256, 20), row('cpu', 'fft', 1024, 40)],
    });
    await running;
    expect(bench.run?.machine.cpu).toBe('Test');
  });

  it('asks for device-timed rows when a GPU backend runs, and keeps them with the run', async () => {
    const conn = await connected();
    conn.handle('listBackends', () => ({
      backends: [
        { name: 'webgpu', available: true, device: 'SwiftShader (WebGPU, Dawn)' },
        { name: 'cpu', available: true, device: 'CPU (2 threads)' },
      ],
    }));
    const bench = useBenchStore();
    await bench.loadBackends();
    bench.choice.ops = ['fir'];
    bench.choice.sizes = '255';
    bench.choice.samples = '16384';
    expect(bench.choice.device).toBe(true);
    const job = drive(conn, 'runBench');
    const running = bench.start();
    await settle();
    expect(job.params).toEqual({
      backends: ['webgpu', 'cpu'],
      ops: ['fir'],
      sizes: [255],
      samples: 16384,
      device: true,
      deviceSamples: 16384,
    });
    const deviceRow = {
      backend: 'webgpu',
      op: 'fir',
      size: 255,
      batch: 1 << 18,
      timing: 'kernel' as const,
      ms: 2,
      samplesPerSecond: 1.3e8,
      gbPerSecond: 1,
      ofCopy: 0.2,
      vsReference: 2.1,
      relError: 1.5e-7,
      note: 'fir-real',
    };
    const timers = [{ backend: 'webgpu', method: 'timestamp queries' }];
    job.resolve({
      machine: { date: '2025-01-01T00:00:00Z', cpu: 'Test', threads: 2, node: 'v20', platform: 'linux x64' },
      backends: [],
      rows: [row('cpu', 'fir', 255, 20), row('webgpu', 'fir', 255, 40)],
      deviceRows: [deviceRow],
      deviceTimers: timers,
    });
    await running;
    expect(bench.deviceRows).toEqual([deviceRow]);
    expect(bench.deviceTimers).toEqual(timers);
    // an exported run keeps them, and they come back on import
    const json = bench.exportJson()!;
    setActivePinia(createPinia());
    const conn2 = await connected();
    const again = useBenchStore();
    expect(again.importRun(json, 'run.json')).toBe(true);
    expect(again.deviceRows).toEqual([deviceRow]);
    expect(again.deviceTimers).toEqual(timers);
    // without the choice, no device rows are asked for
    again.backends = [{ name: 'webgpu', available: true }];
    again.choice.device = false;
    again.choice.sizes = '';
    const next = drive(conn2, 'runBench');
    void again.start();
    await settle();
    expect(next.params).not.toHaveProperty('device');
  });

  it('exports a run as CSV and compares a re-imported one side by side', async () => {
    await connected();
    const bench = useBenchStore();
    bench.importRun(
      JSON.stringify({
        machine: { cpu: 'Here', date: '2025-01-01' },
        rows: [row('cpu', 'fft', 1024, 40), row('webgpu', 'fft', 1024, 200)],
      }),
      'here.json',
    );
    expect(bench.run?.machine.cpu).toBe('Here'); // nothing measured yet: it becomes this run
    const csv = bench.exportCsv()!;
    const other = csv
      .replace('# cpu: Here', '# cpu: There')
      .replace(',40,', ',80,')
      .replace(/\n(cpu,fft,1024,1,65536,1,)40/, '\n$180');
    expect(bench.importRun(other, 'there.csv')).toBe(true);
    expect(bench.comparedName).toBe('there.csv');
    const c = bench.comparison;
    expect(c.map((x) => [x.backend, x.ratio])).toEqual([
      ['cpu', 2],
      ['webgpu', 1],
    ]);
    expect(bench.importRun('nonsense', 'x.csv')).toBe(false);
    expect(bench.error).toMatch(/x\.csv/);
  });

  it('refuses to run what cannot run, saying why', async () => {
    await connected();
    const bench = useBenchStore();
    await bench.start();
    expect(bench.error).toBe('no backend is available to run');
    bench.backends = [{ name: 'cpu', available: true }];
    bench.choice.sizes = '12, abc';
    await bench.start();
    expect(bench.error).toMatch(/"abc" is not a size/);
  });
});

describe('live session while another view is shown', () => {
  it('does not start while hidden, starts when shown, and stops again when left', async () => {
    const live = useLiveStore();
    await live.setActive(false); // the page opened on #/file
    const conn = await connected();
    expect(conn.count('start')).toBe(0);
    await live.setActive(true);
    await settle();
    expect(conn.count('start')).toBe(1);
    expect(live.sourceState).toBe('running');
    await live.setActive(false);
    expect(conn.count('stop')).toBe(1);
    await live.setActive(true);
    await settle();
    expect(conn.count('start')).toBe(2);
  });
});

describe('playback', () => {
  it('splits interleaved frames into channels', () => {
    const ch = deinterleave(new Float32Array([1, -1, 2, -2, 3, -3]), 2);
    expect(ch.map((c) => Array.from(c))).toEqual([
      [1, 2, 3],
      [-1, -2, -3],
    ]);
  });
});

describe('spectrogram loader', () => {
  const info = fileInfo({ file: 77, sampleRate: 1000, samples: 10000, duration: 10 });
  const whole = { t0: 0, t1: 10, f0: 0, f1: 500 };
  type Call = { params: MethodParams['fileSpectrogram']; signal: AbortSignal; resolve(): void };

  function setup() {
    vi.useFakeTimers();
    const calls: Call[] = [];
    const states: string[] = [];
    const loader = new SpectrogramLoader(
      (params, options) =>
        new Promise((resolve, reject) => {
          const call: Call = {
            params,
            signal: options.signal!,
            resolve: () => {
              const r: FileSpectrogramResult & { data: Float32Array } = {
                width: params.width,
                height: params.height,
                frames: 10,
                start: params.start ?? 0,
                end: params.end ?? 10000,
                fft: 64,
                hop: 32,
                frequencyRange: [params.fLow ?? 0, params.fHigh ?? 500],
                data: new Float32Array(params.width * params.height).fill(-50),
              };
              resolve(r);
            },
          };
          options.signal!.addEventListener('abort', () => reject(new RequestError('cancelled', 'cancelled')));
          calls.push(call);
        }),
      (s) =>
        states.push(
          s.loading
            ? s.loadingWhole
              ? 'whole'
              : 'loading'
            : s.cancelled
              ? 'cancelled'
              : s.detail
                ? 'ready'
                : 'idle',
        ),
      { debounceMs: 100 },
    );
    return { loader, calls, states };
  }

  it('computes the whole file at once, then one request per burst of zooms, cancelling the stale one', async () => {
    const { loader, calls, states } = setup();
    loader.want(info, whole, 400, 200);
    expect(calls).toHaveLength(1);
    expect(calls[0].params).toMatchObject({ file: 77, start: 0, end: 10000, width: 400, height: 200 });
    expect(states.at(-1)).toBe('whole');
    calls[0].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(loader.state.overview).not.toBeNull();
    // A burst of wheel events: one request, for the last view, after the pause.
    loader.want(info, { ...whole, t0: 1, t1: 9 }, 400, 200);
    loader.want(info, { ...whole, t0: 2, t1: 8 }, 400, 200);
    loader.want(info, { ...whole, t0: 3, t1: 7 }, 400, 200);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(calls).toHaveLength(2);
    expect(calls[1].params).toMatchObject({ start: 3000, end: 7000 });
    // Zooming on while it runs: the running one is cancelled, the newest fetched.
    loader.want(info, { ...whole, t0: 4, t1: 6, f0: 100, f1: 200 }, 400, 200);
    await vi.advanceTimersByTimeAsync(101);
    expect(calls[1].signal.aborted).toBe(true);
    expect(calls[2].params).toMatchObject({ start: 4000, end: 6000, fLow: 100, fHigh: 200 });
    calls[2].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(loader.state.detail?.frequencyRange).toEqual([100, 200]);
    expect(loader.state.cancelled).toBe(false);
    // Back to the whole file at the same size: the overview, no request.
    loader.want(info, whole, 400, 200);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toHaveLength(3);
    expect(loader.state.detail).toBe(loader.state.overview);
    loader.dispose();
  });

  it('stops on cancel and computes again only when asked', async () => {
    const { loader, calls } = setup();
    loader.want(info, whole, 400, 200);
    loader.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0].signal.aborted).toBe(true);
    expect(loader.state.cancelled).toBe(true);
    expect(loader.state.loading).toBe(false);
    loader.want(info, { ...whole, t0: 1 }, 400, 200);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(1); // the user said stop
    loader.refresh(info, whole, 400, 200);
    expect(calls).toHaveLength(2);
    calls[1].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(loader.state.overview).not.toBeNull();
    loader.dispose();
  });
});

// @vitest-environment happy-dom
// Components of the offline views with a fake connection: the file browser, the raw-format prompt, the
// spectrogram's annotation boxes and selection, the filter form, taps import, the benchmark table and
// import, and a correlation peak leading to the File view.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { firwin } from '../../electron/engine/dsp/firwin.js';
import type { BenchRowInfo, DeviceBenchRowInfo } from '../../electron/engine/protocol/messages.js';
import BenchCharts from '../../renderer/src/components/BenchCharts.vue';
import BenchTable from '../../renderer/src/components/BenchTable.vue';
import DeviceBenchTable from '../../renderer/src/components/DeviceBenchTable.vue';
import FileBrowser from '../../renderer/src/components/FileBrowser.vue';
import FileSpectrogram from '../../renderer/src/components/FileSpectrogram.vue';
import FilterDesignPanel from '../../renderer/src/components/FilterDesignPanel.vue';
import RawFormatDialog from '../../renderer/src/components/RawFormatDialog.vue';
import TapsPanel from '../../renderer/src/components/TapsPanel.vue';
import { compareRuns } from '../../renderer/src/lib/bench-io.js';
import { tapsResponse } from '../../renderer/src/lib/filter-response.js';
import { useBenchStore } from '../../renderer/src/stores/bench.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useCorrelationStore } from '../../renderer/src/stores/correlation.js';
import { useFilesStore } from '../../renderer/src/stores/files.js';
import { DESIGN_DEBOUNCE_MS, FILTER_DESIGN_KEY, useFilterStore } from '../../renderer/src/stores/filter.js';
import BenchView from '../../renderer/src/views/BenchView.vue';
import CorrelationView from '../../renderer/src/views/CorrelationView.vue';
import FileView from '../../renderer/src/views/FileView.vue';
import FilterView from '../../renderer/src/views/FilterView.vue';
import { FakeConnection, settle } from './fake-connection.js';
import { fileInfo } from './offline-fixtures.js';

let pinia: Pinia;
const stubs = { UChart: true };

async function connected(): Promise<FakeConnection> {
  const conn = new FakeConnection();
  await useConnectionStore().attach(conn);
  await settle();
  return conn;
}

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
  window.location.hash = '';
  delete window.phasor;
});

describe('FileBrowser', () => {
  it('lists the folder, walks into folders with the keyboard, and opens a file on double-click', async () => {
    const conn = await connected();
    conn.handle('listDirectory', (p) => ({
      path: p.path ?? '/home/u',
      parent: '/home',
      entries:
        p.path === '/home/u/rec'
          ? [{ name: 'deep.wav', path: '/home/u/rec/deep.wav', kind: 'file', size: 2048, openable: true }]
          : [
              { name: 'tone.wav', path: '/home/u/tone.wav', kind: 'file', size: 1_500_000, openable: true },
              { name: 'rec', path: '/home/u/rec', kind: 'directory', openable: false },
            ],
    }));
    const w = mount(FileBrowser, { global: { plugins: [pinia] }, attachTo: document.body });
    await settle();
    const names = () => w.findAll('[role="option"]').map((o) => o.attributes('data-name'));
    expect(names()).toEqual(['rec', 'tone.wav']);
    expect(w.find('[data-name="tone.wav"] .size').text()).toBe('1.43 MiB');
    expect((w.find('[data-test="browser-path"]').element as HTMLInputElement).value).toBe('/home/u');
    const list = w.find('[data-test="browser-entries"]');
    await list.trigger('keydown', { key: 'Enter' }); // the first entry: the folder
    await settle();
    expect(conn.last('listDirectory')).toEqual({ path: '/home/u/rec' });
    expect(names()).toEqual(['deep.wav']);
    await w.find('[data-name="deep.wav"]').trigger('dblclick');
    expect(w.emitted('open')).toEqual([['/home/u/rec/deep.wav']]);
    // A typed path goes there.
    await w.find('[data-test="browser-path"]').setValue('/srv/data');
    await w.find('[data-test="browser-path"]').trigger('keydown', { key: 'Enter' });
    expect(conn.last('listDirectory')).toEqual({ path: '/srv/data' });
    w.unmount();
  });
});

describe('RawFormatDialog', () => {
  it('reads the rate and centre as typed and submits the format, refusing an invalid rate', async () => {
    const w = mount(RawFormatDialog, {
      props: {
        prompt: { path: '/sdr/x.cs16', params: { format: 'cs16', rate: 0 }, message: 'raw', compare: false },
      },
      attachTo: document.body,
    });
    const open = () => w.find('[data-test="raw-open"]');
    expect(open().attributes('disabled')).toBeDefined();
    await w.find('[data-test="raw-rate"]').setValue('fast');
    expect(w.text()).toContain('a positive number of Hz');
    await w.find('[data-test="raw-rate"]').setValue('2.4M');
    await w.find('[data-test="raw-center"]').setValue('433.92 MHz');
    await w.find('[data-test="raw-format"]').setValue('cu8');
    await open().trigger('click');
    expect(w.emitted('submit')).toEqual([[{ format: 'cu8', rate: 2.4e6, center: 433.92e6 }]]);
    w.unmount();
  });
});

describe('FileSpectrogram overlays', () => {
  it('draws SigMF annotations as labelled boxes where their frames and band are, and the selection', async () => {
    await connected();
    const files = useFilesStore();
    const info = fileInfo({
      complex: true,
      sampleRate: 1e6,
      samples: 1_000_000,
      duration: 1,
      centerFrequency: 100e6,
      annotations: [
        { start: 250_000, count: 250_000, freqLower: 100.1e6, freqUpper: 100.3e6, label: 'burst' },
        { start: 900_000, label: 'tail', comment: 'to the end' },
        { start: 0, count: 10, freqLower: 50e6, freqUpper: 60e6, label: 'out of band' },
      ],
    });
    files.files = [info];
    files.currentId = info.file;
    files.setRegion({ t0: 0, t1: 1, f0: 99.5e6, f1: 100.5e6 });
    files.setSelection({ t0: 0.5, t1: 0.75 });
    const w = mount(FileSpectrogram, { props: { file: info }, global: { plugins: [pinia] } });
    await flushPromises();
    const boxes = w.findAll('[data-test="annotation"]');
    expect(boxes).toHaveLength(2);
    const style = (i: number) => boxes[i].attributes('style');
    expect(style(0)).toContain('left: 25.0000%');
    expect(style(0)).toContain('width: 25.0000%');
    expect(style(0)).toContain('top: 20.0000%');
    expect(style(0)).toContain('height: 20.0000%');
    expect(style(1)).toContain('left: 90.0000%');
    expect(style(1)).toContain('width: 10.0000%');
    expect(style(1)).toContain('height: 100.0000%');
    expect(w.findAll('[data-test="annotation-label"]').map((l) => l.text())).toEqual(['burst', 'tail']);
    expect(boxes[1].attributes('title')).toBe('tail — to the end');
    const sel = w.find('[data-test="selection"]').attributes('style');
    expect(sel).toContain('left: 50.0000%');
    expect(sel).toContain('width: 25.0000%');
    // Zoomed into the burst: its box follows.
    files.setRegion({ t0: 0.25, t1: 0.5, f0: 100e6, f1: 100.4e6 });
    await flushPromises();
    const z = w.findAll('[data-test="annotation"]')[0].attributes('style');
    expect(z).toContain('left: 0.0000%');
    expect(z).toContain('width: 100.0000%');
    expect(z).toContain('top: 25.0000%');
    expect(z).toContain('height: 50.0000%');
    w.unmount();
  });
});

describe('FileView', () => {
  it('opens a file dropped on it by its desktop path', async () => {
    const conn = await connected();
    conn.handle('openFile', (p) => fileInfo({ path: p.path, name: 'd.wav' }));
    window.phasor = { send: () => {}, onMessage: () => () => {}, pathForFile: () => '/home/u/d.wav' };
    const w = mount(FileView, { global: { plugins: [pinia], stubs } });
    const file = new File([new Uint8Array(8)], 'd.wav');
    const dataTransfer = { files: [file], types: ['Files'], dropEffect: 'none' };
    await w.find('[data-test="file-view"]').trigger('dragenter', { dataTransfer });
    expect(w.find('[data-test="drop-overlay"]').exists()).toBe(true);
    await w.find('[data-test="file-view"]').trigger('drop', { dataTransfer });
    await settle();
    expect(conn.last('openFile')).toEqual({ path: '/home/u/d.wav' });
    expect(w.find('[data-test="drop-overlay"]').exists()).toBe(false);
    expect(w.find('[data-test="file-info"]').text()).toContain('d.wav');
    w.unmount();
  });
});

describe('FilterDesignPanel', () => {
  it('edits the design in the store and shows the length and β the engine computed', async () => {
    const conn = await connected();
    conn.handle('designFilter', (p) => ({
      taps: [1],
      numtaps: p.ripple ? 261 : p.numtaps!,
      window: p.ripple ? 'kaiser:6.755' : p.window!,
      ...(p.ripple ? { beta: 6.7553 } : {}),
      response: { frequencies: [0], magnitudeDb: [0], phase: [0], groupDelay: [0] },
    }));
    const filter = useFilterStore();
    const w = mount(FilterDesignPanel, { global: { plugins: [pinia] } });
    await w.find('[data-kind="bandpass"]').trigger('click');
    expect(filter.design.kind).toBe('bandpass');
    await w.find('[data-test="band-low"]').setValue('500');
    await w.find('[data-test="band-high"]').setValue('2500');
    expect(filter.design.band).toEqual([500, 2500]);
    await w.find('[data-test="mode-kaiser"]').setValue(true);
    await w.find('[data-test="ripple"]').setValue('70');
    await w.find('[data-test="width"]').setValue('400');
    await filter.designNow();
    await flushPromises();
    expect(conn.last('designFilter')).toEqual({
      kind: 'bandpass',
      cutoff: [500, 2500],
      fs: 48000,
      ripple: 70,
      width: 400,
      points: 1024,
    });
    expect(w.find('[data-test="design-result"]').text()).toContain('261 taps');
    expect(w.find('[data-test="kaiser-beta"]').text()).toBe('β 6.755');
    // Arrow keys move between the types.
    await w.find('[role="radiogroup"]').trigger('keydown', { key: 'ArrowRight' });
    expect(filter.design.kind).toBe('bandstop');
    w.unmount();
  });
});

describe('FilterView', () => {
  /** An engine that designs with firwin (window designs only). */
  function designer(conn: FakeConnection): void {
    conn.handle('designFilter', (p) => {
      const taps = Array.from(
        firwin(p.numtaps!, p.cutoff, {
          window: p.window,
          fs: p.fs,
          passZero: p.kind === 'lowpass' || p.kind === 'bandstop',
        }),
      );
      return { taps, numtaps: taps.length, window: p.window!, response: tapsResponse(taps, p.fs, p.points) };
    });
  }

  it('draws the default design at once: response and exports without an edit', async () => {
    const conn = await connected();
    designer(conn);
    const w = mount(FilterView, { global: { plugins: [pinia], stubs: { ...stubs, FileSpectrogram: true } } });
    await new Promise((r) => setTimeout(r, DESIGN_DEBOUNCE_MS + 20));
    await settle();
    expect(conn.count('designFilter')).toBe(1);
    expect(conn.last('designFilter')).toEqual({
      kind: 'lowpass',
      cutoff: 4000,
      fs: 48000,
      numtaps: 101,
      window: 'hamming',
      points: 1024,
    });
    const filter = useFilterStore();
    expect(filter.taps).toHaveLength(101);
    // Pass band at 0 dB, stop band (2 kHz past the edge) below hamming's ~−53 dB side lobes.
    const r = filter.response!;
    const at = (f: number) => r.magnitudeDb[r.frequencies.findIndex((x) => x >= f)];
    expect(at(0)).toBeCloseTo(0, 2);
    expect(at(6000)).toBeLessThan(-50);
    expect(w.find('[data-test="design-result"]').text()).toContain('101 taps');
    expect(w.find('.empty').exists()).toBe(false);
    expect(w.find('[data-test="taps-export-txt"]').attributes('disabled')).toBeUndefined();
    expect(w.find('[data-test="taps-export-json"]').attributes('disabled')).toBeUndefined();
    w.unmount();
  });

  it('draws the stored design once the engine says hello, when the view opened before', async () => {
    localStorage.setItem(FILTER_DESIGN_KEY, JSON.stringify({ kind: 'highpass', cutoff: 300, numtaps: 51 }));
    const conn = new FakeConnection();
    conn.state = 'connecting';
    designer(conn);
    const store = useConnectionStore();
    void store.attach(conn);
    const w = mount(FilterView, { global: { plugins: [pinia], stubs: { ...stubs, FileSpectrogram: true } } });
    await new Promise((r) => setTimeout(r, DESIGN_DEBOUNCE_MS + 20));
    expect(conn.count('designFilter')).toBe(0);
    conn.setState('open');
    await settle();
    await new Promise((r) => setTimeout(r, DESIGN_DEBOUNCE_MS + 20));
    await settle();
    expect(conn.count('designFilter')).toBe(1);
    expect(conn.last('designFilter')).toMatchObject({ kind: 'highpass', cutoff: 300, numtaps: 51 });
    expect(w.find('[data-test="design-result"]').text()).toContain('51 taps');
    w.unmount();
  });
});

describe('TapsPanel', () => {
  it('imports taps from a chosen file', async () => {
    await connected();
    const filter = useFilterStore();
    const w = mount(TapsPanel, { global: { plugins: [pinia] } });
    const input = w.find('[data-test="taps-file"]');
    const file = new File(['{"taps": [0.5, 0.5]}'], 'avg.json');
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
    await input.trigger('change');
    await settle();
    expect(filter.imported).toEqual({ name: 'avg.json', taps: [0.5, 0.5] });
    expect(w.find('[data-test="taps-imported"]').text()).toContain('2 taps from avg.json');
    w.unmount();
  });
});

describe('BenchTable', () => {
  const r = (
    backend: string,
    size: number,
    msps: number,
    extra: Partial<BenchRowInfo> = {},
  ): BenchRowInfo => ({
    backend,
    op: 'fft',
    size,
    batch: 1,
    samples: 1,
    medianMs: 1,
    samplesPerSecond: msps * 1e6,
    relError: 2.5e-8,
    ...extra,
  });

  it('shows one line per measurement with throughput, GFLOP/s, error and speedups', () => {
    const w = mount(BenchTable, {
      props: {
        rows: [
          r('cpu', 1024, 104.8576, { gflops: 5.24, vsCpu: 1 }),
          r('cuda', 1024, 1048.576, { vsCpu: 10 }),
          r('webgpu', 1024, 524.288, { vsCpu: 5, relError: 0.01 }),
          r('webgpu', 4096, 300, {}),
        ],
      },
    });
    const cells = w.findAll('tbody tr').map((tr) => tr.findAll('td').map((td) => td.text()));
    expect(cells).toEqual([
      ['cpu', 'fft', '1,024', '105', '5.24', '2.5e-8', '1×', '0.1×'],
      ['cuda', 'fft', '1,024', '1,049', '—', '2.5e-8', '10×', '—'],
      ['webgpu', 'fft', '1,024', '524', '—', '1.0e-2', '5×', '0.5×'],
      ['webgpu', 'fft', '4,096', '300', '—', '2.5e-8', '—', '—'],
    ]);
    expect(w.findAll('tbody td.bad')).toHaveLength(1); // an error above 1e-3 stands out
  });

  it('puts two runs side by side with the ratio', () => {
    const a = {
      machine: { date: '', cpu: 'A', threads: 1, node: '', platform: '' },
      backends: [],
      rows: [r('cpu', 256, 10)],
    };
    const b = { ...a, rows: [r('cpu', 256, 25), r('cuda', 256, 900)] };
    const w = mount(BenchTable, {
      props: { rows: a.rows, comparison: compareRuns(a, b), labels: ['here', 'there'] },
    });
    expect(w.find('thead').text()).toContain('here');
    expect(w.find('thead').text()).toContain('there');
    const ratio = w.findAll('[data-field="ratio"]').map((c) => c.text());
    expect(ratio).toEqual(['2.5×', '—']);
  });
});

const cpuRow: BenchRowInfo = {
  backend: 'cpu',
  op: 'fft',
  size: 256,
  batch: 1,
  samples: 1,
  medianMs: 1,
  samplesPerSecond: 1e7,
  relError: 1e-8,
};

/** Device-timed rows as the engine sends them: WebGPU beside CUDA, with WebGPU's unfused reference. */
function deviceRows(): DeviceBenchRowInfo[] {
  const d = (backend: string, timing: 'kernel' | 'end-to-end', ms: number, extra = {}) => ({
    backend,
    op: 'spectrogram',
    size: 4096,
    batch: 1 << 26,
    timing,
    ms,
    samplesPerSecond: (1 << 26) / (ms / 1000),
    relError: 2e-5,
    note: 'spectrogram-f32',
    ...extra,
  });
  return [
    d('cuda', 'kernel', 0.5, { gbPerSecond: 2000, ofCopy: 0.66 }),
    d('webgpu', 'kernel', 1, { gbPerSecond: 1000, ofCopy: 0.35, vsReference: 2.5, vsCuda: 0.5 }),
    d('webgpu-unfused', 'kernel', 2.5, { gbPerSecond: 400, ofCopy: 0.14 }),
    d('webgpu', 'end-to-end', 20, { ofHostToDevice: 0.8, vsCuda: 0.75 }),
  ];
}

describe('DeviceBenchTable', () => {
  it("shows each GPU backend's device-timed rows with the reference and CUDA ratios", () => {
    const w = mount(DeviceBenchTable, {
      props: {
        rows: deviceRows(),
        timers: [
          { backend: 'cuda', method: 'CUDA events' },
          { backend: 'webgpu', method: 'timestamp queries' },
        ],
      },
    });
    expect(w.text()).toContain('Device-timed (CUDA events for cuda, timestamp queries for webgpu)');
    const row = (backend: string, timing: string) =>
      w.find(`[data-backend="${backend}"][data-timing="${timing}"]`);
    expect(w.findAll('tbody tr')).toHaveLength(4);
    expect(row('webgpu', 'kernel').find('[data-field="ref"]').text()).toBe('2.5×');
    expect(row('webgpu', 'kernel').find('[data-field="cuda"]').text()).toBe('0.5×');
    expect(row('webgpu', 'kernel').find('[data-field="gsps"]').text()).toBe('67.1');
    expect(row('webgpu', 'kernel').text()).toContain('35%');
    expect(row('webgpu-unfused', 'kernel').find('[data-field="ref"]').text()).toBe('—');
    expect(row('webgpu', 'end-to-end').text()).toContain('80%');
    expect(row('cuda', 'kernel').find('[data-field="cuda"]').text()).toBe('—');
  });

  it('says why a GPU backend has no device rows', () => {
    const missing = 'no device-timed rows: the adapter has no timestamp-query feature';
    const w = mount(DeviceBenchTable, {
      props: { rows: [], timers: [{ backend: 'webgpu', missing }] },
    });
    expect(w.find('[data-test="bench-device-missing"]').text()).toBe(`webgpu: ${missing}`);
    expect(w.find('[data-test="bench-device-table"]').exists()).toBe(false);
  });
});

describe('BenchCharts', () => {
  const chartStub = {
    name: 'UChart',
    props: ['options', 'data', 'test'],
    template: '<div :data-test="test" />',
  };
  const charts = (props: { rows: BenchRowInfo[]; deviceRows?: DeviceBenchRowInfo[] }) =>
    mount(BenchCharts, { props, global: { stubs: { UChart: chartStub } } });

  it('charts device-timed kernel throughput against size per backend and reference', () => {
    const rows = deviceRows();
    rows.push({ ...rows[1], size: 1024, samplesPerSecond: 3e10 });
    const w = charts({ rows: [], deviceRows: rows });
    const chart = w.findAllComponents({ name: 'UChart' }).find((c) => c.props('test') === 'chart-device');
    expect(chart).toBeDefined();
    const data = chart!.props('data') as Array<Array<number | null>>;
    const series = (chart!.props('options') as { series: Array<{ label: string; dash?: number[] }> }).series;
    expect(data[0]).toEqual([1024, 4096]);
    expect(series.slice(1).map((s) => s.label)).toEqual([
      'cuda spectrogram-f32',
      'webgpu spectrogram-f32',
      'webgpu-unfused spectrogram-f32',
    ]);
    expect(series[3].dash).toBeDefined(); // the reference dashed
    expect(series[2].dash).toBeUndefined();
    expect(data[2]).toEqual([3e4, (1 << 26) / 1e-3 / 1e6]); // webgpu: Msamples/s at each size
    expect(data[1]).toEqual([null, (1 << 26) / 0.5e-3 / 1e6]); // CUDA: none at 1024
  });

  it('has no device chart without device rows', () => {
    const w = charts({ rows: [cpuRow] });
    expect(w.find('[data-test="chart-throughput"]').exists()).toBe(true);
    expect(w.find('[data-test="chart-device"]').exists()).toBe(false);
  });
});

describe('BenchView', () => {
  it('lists the backends with their devices or why not, and imports a run to compare', async () => {
    const conn = await connected();
    conn.handle('listBackends', () => ({
      backends: [
        { name: 'cuda', available: false, reason: 'no NVIDIA driver' },
        { name: 'cpu', available: true, device: 'CPU (2 threads)', details: { copyBandwidthGBs: 11.5 } },
      ],
    }));
    const w = mount(BenchView, { global: { plugins: [pinia], stubs } });
    await settle();
    expect(w.find('[data-backend="cuda"] [data-test="backend-reason"]').text()).toBe('no NVIDIA driver');
    expect(w.find('[data-backend="cpu"]').text()).toContain('CPU (2 threads)');
    expect(w.find('[data-backend="cpu"]').text()).toContain('Copy Bandwidth GBs');
    const bench = useBenchStore();
    bench.rows = [cpuRow];
    const input = w.find('[data-test="bench-file"]');
    const csv =
      '# phasor bench\n# cpu: Other\nbackend,op,size,msamples_per_s,rel_error\ncpu,fft,256,30,1e-8\n';
    Object.defineProperty(input.element, 'files', {
      value: [new File([csv], 'other.csv')],
      configurable: true,
    });
    await input.trigger('change');
    await settle();
    expect(w.find('[data-test="bench-compared"]').text()).toContain('other.csv');
    expect(w.find('[data-field="ratio"]').text()).toBe('3×');
    w.unmount();
  });

  it('shows the device-timed rows of every GPU backend that has them', async () => {
    await connected();
    const w = mount(BenchView, { global: { plugins: [pinia], stubs } });
    await settle();
    expect(w.find('[data-test="bench-device-table"]').exists()).toBe(false);
    expect((w.find('[data-test="bench-device-choice"]').element as HTMLInputElement).checked).toBe(true);
    const bench = useBenchStore();
    bench.deviceRows = deviceRows();
    bench.deviceTimers = [
      { backend: 'cuda', method: 'CUDA events' },
      { backend: 'webgpu', method: 'timestamp queries' },
    ];
    await settle();
    await w.vm.$nextTick();
    const table = w.find('[data-test="bench-device-table"]');
    expect(table.exists()).toBe(true);
    expect(table.findAll('tbody tr').map((tr) => tr.attributes('data-backend'))).toEqual([
      'cuda',
      'webgpu',
      'webgpu-unfused',
      'webgpu',
    ]);
    w.unmount();
  });
});

describe('CorrelationView', () => {
  it('lists the top peaks and shows a clicked one in the File view', async () => {
    const conn = await connected();
    const files = useFilesStore();
    const sig = fileInfo({ name: 'signal.wav', sampleRate: 16000, samples: 80000, duration: 5 });
    files.files = [sig];
    files.currentId = sig.file;
    files.setRegion({ t0: 0, t1: 5, f0: 0, f1: 8000 });
    const corr = useCorrelationStore();
    corr.result = {
      peaks: [
        { lag: 37520, time: 2.345, score: 0.9749 },
        { lag: 8279, time: 0.5174375, score: 0.1024 },
      ],
      lags: 78401,
      templateLength: 1600,
      sampleRate: 16000,
      points: 4,
      bucket: 19601,
      data: new Float32Array([0.1, 0.97, 0.1, 0.1]),
    };
    corr.resultSignal = sig.file;
    const w = mount(CorrelationView, { global: { plugins: [pinia], stubs } });
    const rows = w.findAll('[data-test="peak-table"] tbody tr');
    expect(
      rows.map((tr) =>
        tr
          .findAll('td')
          .slice(0, 4)
          .map((td) => td.text()),
      ),
    ).toEqual([
      ['1', '37,520', '2.345 s', '0.9749'],
      ['2', '8,279', '0.5174 s', '0.1024'],
    ]);
    await rows[0].find('[data-test="peak-show"]').trigger('click');
    expect(window.location.hash).toBe('#/file');
    expect(files.selection!.t0).toBe(2.345);
    expect(files.selection!.t1).toBeCloseTo(2.445, 12);
    expect(files.region!.t0).toBeLessThan(2.345);
    expect(files.region!.t1).toBeGreaterThan(2.445);
    expect(conn.count('correlate')).toBe(0);
    w.unmount();
  });
});

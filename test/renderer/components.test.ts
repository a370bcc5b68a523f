// @vitest-environment happy-dom
import { mount, flushPromises } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SourceKind } from '../../electron/engine/protocol/messages.js';
import AnalysisControls from '../../renderer/src/components/AnalysisControls.vue';
import BackendList from '../../renderer/src/components/BackendList.vue';
import DisplayControls from '../../renderer/src/components/DisplayControls.vue';
import LiveToolbar from '../../renderer/src/components/LiveToolbar.vue';
import SourceForm from '../../renderer/src/components/SourceForm.vue';
import SourcePanel from '../../renderer/src/components/SourcePanel.vue';
import StatusBar from '../../renderer/src/components/StatusBar.vue';
import ViewSwitcher from '../../renderer/src/components/ViewSwitcher.vue';
import { hooks } from '../../renderer/src/lib/hooks.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { useStatusStore } from '../../renderer/src/stores/status.js';
import { VIEWS, viewForHash } from '../../renderer/src/views.js';
import { FakeConnection, MIC_KIND, helloResult, settle } from './fake-connection.js';

let pinia: Pinia;

async function connected(conn = new FakeConnection()): Promise<FakeConnection> {
  useLiveStore();
  useStatusStore();
  await useConnectionStore().attach(conn);
  await settle();
  return conn;
}

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
  hooks.reset();
});

// A kind this view has never heard of: the form must still draw it.
const RTL_TCP: SourceKind = {
  kind: 'rtl_tcp',
  label: 'rtl_tcp',
  fields: [
    { name: 'host', label: 'Host', type: 'text', default: '127.0.0.1' },
    { name: 'port', label: 'Port', type: 'number', default: 1234, min: 1, max: 65535 },
    { name: 'centerFrequency', label: 'Centre', type: 'number', default: 100e6, unit: 'Hz' },
    { name: 'agc', label: 'AGC', type: 'boolean', default: true },
    {
      name: 'rate',
      label: 'Rate',
      type: 'select',
      default: 2048000,
      options: [
        { value: 1024000, label: '1.024 MS/s' },
        { value: 2048000, label: '2.048 MS/s' },
      ],
    },
    { name: 'recording', label: 'Recording', type: 'file' },
  ],
};

describe('SourceForm', () => {
  it('draws one control per field descriptor, of the field’s type', () => {
    const w = mount(SourceForm, {
      props: {
        kind: RTL_TCP,
        values: {
          host: 'sdr.local',
          port: 1234,
          centerFrequency: 100e6,
          agc: true,
          rate: 2048000,
          recording: '',
        },
      },
    });
    const field = (n: string) => w.find(`[data-field="${n}"]`);
    expect((field('host').find('input[type="text"]').element as HTMLInputElement).value).toBe('sdr.local');
    const port = field('port').find('input[type="number"]').element as HTMLInputElement;
    expect([port.value, port.min, port.max]).toEqual(['1234', '1', '65535']);
    expect(field('centerFrequency').find('.unit').text()).toBe('Hz');
    expect((field('agc').find('input[type="checkbox"]').element as HTMLInputElement).checked).toBe(true);
    expect(
      field('rate')
        .findAll('option')
        .map((o) => o.text()),
    ).toEqual(['1.024 MS/s', '2.048 MS/s']);
    expect((field('rate').find('select').element as HTMLSelectElement).value).toBe('2048000');
    expect(field('recording').find('input').attributes('placeholder')).toMatch(/WAV/);
    expect(w.findAll('label').map((l) => l.text())).toEqual([
      'Host',
      'Port',
      'Centre',
      'AGC',
      'Rate',
      'Recording',
    ]);
  });

  it('emits typed values: numbers as numbers, options in their own type, booleans', async () => {
    const w = mount(SourceForm, {
      props: {
        kind: RTL_TCP,
        values: { host: '', port: 1234, centerFrequency: 1e8, agc: true, rate: 2048000, recording: '' },
      },
    });
    await w.find('[data-field="port"] input').setValue('7355');
    await w.find('[data-field="rate"] select').setValue('1024000');
    await w.find('[data-field="agc"] input').setValue(false);
    await w.find('[data-field="host"] input').setValue('10.0.0.2');
    expect(w.emitted('update')).toEqual([
      ['port', 7355],
      ['rate', 1024000],
      ['agc', false],
      ['host', '10.0.0.2'],
    ]);
    expect(w.emitted('commit')).toHaveLength(4);
  });

  it('refuses a number outside the field’s range', async () => {
    const w = mount(SourceForm, {
      props: {
        kind: RTL_TCP,
        values: { host: '', port: 1234, centerFrequency: 1e8, agc: true, rate: 2048000, recording: '' },
      },
    });
    await w.find('[data-field="port"] input').setValue('70000');
    expect(w.emitted('update')).toBeUndefined();
  });

  it('lists devices, marks the default, and keeps a stored device that is gone', () => {
    const w = mount(SourceForm, {
      props: {
        kind: MIC_KIND,
        values: { device: 'usb-old', sampleRate: 48000 },
        devices: [
          {
            id: 'hw:0',
            name: 'Built-in',
            isDefault: true,
            channels: 2,
            sampleRates: [48000],
            preferredSampleRate: 48000,
          },
          {
            id: 'hw:1',
            name: 'USB mic',
            isDefault: false,
            channels: 1,
            sampleRates: [44100, 48000],
            preferredSampleRate: 48000,
          },
        ],
      },
    });
    expect(
      w
        .find('[data-field="device"]')
        .findAll('option')
        .map((o) => o.text()),
    ).toEqual(['Default device', 'Built-in (default)', 'USB mic', 'usb-old (not connected)']);
  });
});

describe('SourcePanel', () => {
  it('offers the engine’s kinds, greys out an unavailable one with its reason', async () => {
    const conn = new FakeConnection();
    conn.handle('hello', () =>
      helloResult({
        sources: [helloResult().sources[0], { ...MIC_KIND, unavailable: 'audify is not installed' }],
      }),
    );
    await connected(conn);
    const w = mount(SourcePanel, { global: { plugins: [pinia] } });
    await flushPromises();
    const options = w.find('#source-kind').findAll('option');
    expect(options.map((o) => o.text())).toEqual(['Generator', 'Microphone — unavailable']);
    expect(options[1].attributes('disabled')).toBeDefined();
    expect(options[1].attributes('title')).toBe('audify is not installed');
    expect(w.find('[data-test="source-state"]').attributes('data-state')).toBe('running');
  });

  it('lists the microphone’s devices when the mic is picked, and restarts with it', async () => {
    const conn = await connected();
    conn.handle('listDevices', () => ({
      devices: [
        {
          id: 'hw:2',
          name: 'Scarlett 2i2',
          isDefault: true,
          channels: 2,
          sampleRates: [48000],
          preferredSampleRate: 48000,
        },
      ],
    }));
    const w = mount(SourcePanel, { global: { plugins: [pinia] } });
    await w.find('#source-kind').setValue('mic');
    await flushPromises();
    expect(conn.last('listDevices')).toEqual({ kind: 'mic' });
    expect(conn.last('start')!.source).toEqual({ kind: 'mic', device: '', sampleRate: 48000 });
    expect(w.find('[data-field="device"]').text()).toContain('Scarlett 2i2 (default)');
    await w.find('[data-field="device"] select').setValue('hw:2');
    await flushPromises();
    expect(conn.last('start')!.source).toEqual({ kind: 'mic', device: 'hw:2', sampleRate: 48000 });
    expect(useSettingsStore().s.sourceParams.mic.device).toBe('hw:2');
  });

  it('shows a source error (device unplugged) and offers a restart', async () => {
    const conn = await connected();
    const w = mount(SourcePanel, { global: { plugins: [pinia] } });
    conn.emit('source', { session: 1, state: 'error', message: 'mic: the device was unplugged' });
    await flushPromises();
    expect(w.find('[data-test="source-error"]').text()).toBe('mic: the device was unplugged');
    expect(w.find('[data-test="start"]').text()).toBe('Restart');
    const starts = conn.methods().filter((m) => m === 'start').length;
    await w.find('[data-test="start"]').trigger('click');
    await flushPromises();
    expect(conn.methods().filter((m) => m === 'start').length).toBe(starts + 1);
  });
});

describe('AnalysisControls', () => {
  it('sends any FFT size in range (not only powers of two) and refuses others', async () => {
    const conn = await connected();
    const w = mount(AnalysisControls, { global: { plugins: [pinia] } });
    const input = w.find('[data-test="fft-size"]');
    await input.setValue('3000');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { fft: 3000 } });
    const before = conn.requests.length;
    await input.setValue('10');
    await input.setValue('70000.5');
    await flushPromises();
    expect(conn.requests.length).toBe(before);
    expect(w.text()).toMatch(/FFT size must be a whole number from 16 to 262144/);
    await w
      .findAll('.presets button')
      .find((b) => b.text() === '8k')!
      .trigger('click');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { fft: 8192 } });
    expect(useSettingsStore().s.fft).toBe(8192);
  });

  it('sends window (Kaiser with its beta), overlap and averaging', async () => {
    const conn = await connected();
    const w = mount(AnalysisControls, { global: { plugins: [pinia] } });
    expect(
      w
        .find('[data-test="window"]')
        .findAll('option')
        .map((o) => o.text()),
    ).toEqual(['hann', 'hamming', 'blackman', 'kaiser']);
    await w.find('[data-test="window"]').setValue('kaiser');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { window: 'kaiser:8.6' } });
    await w.find('input[aria-label="Kaiser beta"]').setValue('5');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { window: 'kaiser:5' } });
    await w.find('[data-test="overlap"]').setValue('0.5');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { overlap: 0.5 } });
    await w.find('[data-test="averaging"]').setValue('0.02');
    await flushPromises();
    expect(conn.last('configure')).toEqual({ analysis: { averaging: 0.02 } });
  });

  it('shows the engine’s refusal and keeps the previous value', async () => {
    const conn = await connected();
    conn.handle('configure', () => {
      throw new Error('the backend cannot make an FFT of 262144 points here');
    });
    const w = mount(AnalysisControls, { global: { plugins: [pinia] } });
    await w.find('[data-test="fft-size"]').setValue('262144');
    await flushPromises();
    expect(w.find('[data-test="analysis-error"]').text()).toMatch(/cannot make an FFT/);
    expect(useSettingsStore().s.fft).toBe(2048);
  });
});

describe('DisplayControls', () => {
  it('changes display settings locally, without a request', async () => {
    const conn = await connected();
    const w = mount(DisplayControls, { global: { plugins: [pinia] } });
    const settings = useSettingsStore();
    const before = conn.requests.length;
    await w.find('[data-test="colormap"]').setValue('inferno');
    await w.find('[data-test="db-min"]').setValue('-90');
    await w.find('[data-test="db-max"]').setValue('-100'); // below the minimum: refused
    await w.find('[data-test="axis-log"]').trigger('click');
    expect([settings.s.colormap, settings.s.dbMin, settings.s.dbMax, settings.s.logFrequency]).toEqual([
      'inferno',
      -90,
      0,
      true,
    ]);
    expect(conn.requests.length).toBe(before);
  });
});

describe('LiveToolbar', () => {
  it('pauses and resumes, asks for a snapshot, resets the peak hold', async () => {
    const conn = await connected();
    const w = mount(LiveToolbar, { global: { plugins: [pinia] } });
    const live = useLiveStore();
    await w.find('[data-test="pause"]').trigger('click');
    expect(live.paused).toBe(true);
    expect(w.find('[data-test="pause"]').text()).toMatch(/Resume/);
    await w.find('[data-test="pause"]').trigger('click');
    expect(live.paused).toBe(false);
    await w.find('[data-test="snapshot"]').trigger('click');
    expect(w.emitted('snapshot')).toHaveLength(1);
    await w.find('[data-test="reset-peak"]').trigger('click');
    await flushPromises();
    expect(conn.methods().at(-1)).toBe('resetPeak');
    expect(w.text()).toContain('FFT 2048 hann');
  });
});

describe('StatusBar and views', () => {
  it('shows the backend, rate, throughput, drops, compute time and fps', async () => {
    const conn = await connected();
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    conn.emit('status', {
      session: 1,
      backend: 'cpu',
      sampleRate: 48000,
      blocksPerSecond: 46.875,
      rowsPerSecond: 93.75,
      droppedRows: 12,
      droppedBlocks: 0,
      computeMs: 0.314,
    });
    useStatusStore().sampleRenderer(59.9);
    await flushPromises();
    const text = w.text().replace(/\s+/g, ' ');
    expect(text).toContain('Backend cpu · test CPU');
    expect(text).toContain('Rate 48 kS/s');
    expect(text).toContain('Blocks/s 46.9');
    expect(text).toContain('Dropped rows 12');
    expect(text).toContain('Compute 0.31 ms');
    expect(text).toContain('FPS 60');
  });

  it('names the WebGPU adapter the live analysis runs on', async () => {
    const conn = new FakeConnection();
    const device = 'NVIDIA H100 80GB HBM3, hopper (WebGPU, Electron 45.0.0, Vulkan)';
    conn.handle('hello', () => helloResult({ backend: { name: 'webgpu', device } }));
    await connected(conn);
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    conn.emit('status', {
      session: 1,
      backend: 'webgpu',
      sampleRate: 48000,
      blocksPerSecond: 46.875,
      rowsPerSecond: 93.75,
      droppedRows: 0,
      droppedBlocks: 0,
      computeMs: 0.2,
    });
    await flushPromises();
    expect(w.text().replace(/\s+/g, ' ')).toContain(`Backend webgpu · ${device}`);
  });

  it('switches views by id and finds them by hash', async () => {
    const w = mount(ViewSwitcher, { props: { views: VIEWS, current: 'live' } });
    expect(w.findAll('[role="tab"]').map((t) => t.text())).toEqual([
      'Live',
      'File',
      'Filter',
      'Correlation',
      'Benchmark',
    ]);
    await w.find('[data-view="file"]').trigger('click');
    expect(w.emitted('select')).toEqual([['file']]);
    expect(viewForHash('#/live').id).toBe('live');
    for (const id of ['file', 'filter', 'correlate', 'bench']) expect(viewForHash(`#/${id}`).id).toBe(id);
    expect(viewForHash('#/nope').id).toBe('live');
  });
});

describe('BackendList', () => {
  it('shows each backend’s device and details (the WebGPU adapter’s vendor, architecture, API) or why not', async () => {
    const w = mount(BackendList, {
      props: {
        selected: ['webgpu'],
        backends: [
          { name: 'cuda', available: false, reason: 'no NVIDIA GPU' },
          {
            name: 'webgpu',
            available: true,
            device: 'NVIDIA H100 80GB HBM3, hopper (WebGPU, Electron 45.0.0, Vulkan)',
            details: {
              vendor: 'nvidia',
              architecture: 'hopper',
              api: 'Vulkan, Electron 45.0.0 WebGPU (navigator.gpu)',
              workgroupStorage: 49152,
            },
          },
        ],
      },
    });
    const gpu = w.find('[data-backend="webgpu"]');
    expect(gpu.find('.device').text()).toBe(
      'NVIDIA H100 80GB HBM3, hopper (WebGPU, Electron 45.0.0, Vulkan)',
    );
    const details = Object.fromEntries(
      gpu.findAll('dt').map((dt, i) => [dt.text(), gpu.findAll('dd')[i].text()]),
    );
    expect(details).toEqual({
      Vendor: 'nvidia',
      Architecture: 'hopper',
      API: 'Vulkan, Electron 45.0.0 WebGPU (navigator.gpu)',
      'Workgroup Storage': '49152',
    });
    expect((gpu.find('input').element as HTMLInputElement).checked).toBe(true);
    expect(w.find('[data-backend="cuda"] [data-test="backend-reason"]').text()).toBe('no NVIDIA GPU');
    await gpu.find('input').setValue(false);
    expect(w.emitted('toggle')).toEqual([['webgpu', false]]);
  });
});

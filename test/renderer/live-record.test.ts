// @vitest-environment happy-dom
// Issue 24's app side: a source field's note, select values that keep their type (rtl_tcp's gain mixes
// 'auto' with numbers), double-click re-centring a tunable source, the link in the status bar, and
// recording the live source (the store's life cycle, the toolbar's indicator, web mode's dialog, the
// desktop's save dialog).
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  DirectoryListing,
  LiveInfo,
  RecordingStatus,
  SourceKind,
  StatusEvent,
} from '../../electron/engine/protocol/messages.js';
import LiveDisplay from '../../renderer/src/components/LiveDisplay.vue';
import LiveToolbar from '../../renderer/src/components/LiveToolbar.vue';
import RecordDialog from '../../renderer/src/components/RecordDialog.vue';
import SourceForm from '../../renderer/src/components/SourceForm.vue';
import SourcePanel from '../../renderer/src/components/SourcePanel.vue';
import StatusBar from '../../renderer/src/components/StatusBar.vue';
import { formatFrequency, frequencyTicks } from '../../renderer/src/lib/axis.js';
import { recordingName } from '../../renderer/src/lib/format.js';
import { hooks } from '../../renderer/src/lib/hooks.js';
import { shortcutFor } from '../../renderer/src/lib/shortcuts.js';
import { useBrowserStore } from '../../renderer/src/stores/browser.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useRecordingStore } from '../../renderer/src/stores/recording.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { useStatusStore } from '../../renderer/src/stores/status.js';
import { useViewportStore } from '../../renderer/src/stores/viewport.js';
import { FakeConnection, GENERATOR_KIND, helloResult, liveInfo, settle } from './fake-connection.js';

let pinia: Pinia;

// A display left mounted keeps its frame loop, whose store actions would make an old test's Pinia the
// active one again in the middle of the next test.
enableAutoUnmount(afterEach);

const GAIN_NOTE = 'some rtl_tcp forks read this as bandwidth';

const RTL_TCP: SourceKind = {
  kind: 'rtl_tcp',
  label: 'rtl_tcp',
  tunable: true,
  fields: [
    { name: 'host', label: 'Host', type: 'text', default: '127.0.0.1' },
    { name: 'port', label: 'Port', type: 'number', default: 1234, min: 1, max: 65535 },
    { name: 'centerFrequency', label: 'Centre', type: 'number', default: 100e6, unit: 'Hz' },
    {
      name: 'gain',
      label: 'Gain',
      type: 'select',
      default: 'auto',
      unit: 'dB',
      options: [
        { value: 'auto', label: 'auto' },
        { value: 0, label: '0.0' },
        { value: 49.6, label: '49.6' },
      ],
    },
    { name: 'biasTee', label: 'Bias tee', type: 'boolean', default: false, note: GAIN_NOTE },
  ],
};

/** 2.048 MS/s of I/Q around 100 MHz: 2048 bins 1 kHz apart, absolute. */
function radioInfo(centre = 100e6, extra: Partial<LiveInfo> = {}): LiveInfo {
  return liveInfo({
    source: 'rtl_tcp 127.0.0.1:1234',
    sampleRate: 2.048e6,
    complex: true,
    centerFrequency: centre,
    fft: 2048,
    bins: 2048,
    width: 2048,
    frequencyRange: [centre - 1.024e6, centre + 1.024e6 - 1000],
    tunable: true,
    ...extra,
  });
}

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
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  delete (window as { phasor?: unknown }).phasor;
});

describe('source form: rtl_tcp fields', () => {
  it('shows a field’s note beside its control', () => {
    const w = mount(SourceForm, {
      props: {
        kind: RTL_TCP,
        values: { host: 'h', port: 1, centerFrequency: 1, gain: 'auto', biasTee: false },
      },
    });
    const notes = w.findAll('[data-test="field-note"]');
    expect(notes.map((n) => n.text())).toEqual([GAIN_NOTE]);
    expect(notes[0].element.closest('[data-field]')?.getAttribute('data-field')).toBe('biasTee');
  });

  it('sends the gain as a number, or as the string auto, and the host as text', async () => {
    const conn = new FakeConnection();
    conn.handle('hello', () =>
      helloResult({ sources: [GENERATOR_KIND, RTL_TCP], defaults: { ...helloResult().defaults } }),
    );
    await connected(conn);
    useSettingsStore().s.sourceKind = 'rtl_tcp';
    const w = mount(SourcePanel, { global: { plugins: [pinia] } });
    await flushPromises();
    const live = useLiveStore();
    await live.start();
    expect(conn.last('start')!.source).toMatchObject({ kind: 'rtl_tcp', gain: 'auto', host: '127.0.0.1' });

    const gain = w.find('[data-field="gain"] select');
    await gain.setValue('49.6');
    await settle();
    const numeric = conn.last('start')!.source as Record<string, unknown>;
    expect(numeric.gain).toBe(49.6);
    expect(typeof numeric.gain).toBe('number');

    await gain.setValue('0');
    await settle();
    expect(conn.last('start')!.source.gain).toBe(0);

    await gain.setValue('auto');
    await settle();
    expect(conn.last('start')!.source.gain).toBe('auto');

    const host = w.find('[data-field="host"] input');
    await host.setValue('10.0.0.7');
    await host.trigger('change');
    await settle();
    expect(conn.last('start')!.source).toMatchObject({ host: '10.0.0.7', gain: 'auto', port: 1234 });
    // Kept in the settings with their types, so the next run starts with the same values.
    expect(live.sourceParams(RTL_TCP)).toMatchObject({ gain: 'auto', host: '10.0.0.7', port: 1234 });
  });
});

describe('absolute frequency axis of I/Q around a centre', () => {
  it('labels ticks and readouts in MHz around the centre', () => {
    expect(formatFrequency(100.25e6, 1000)).toBe('100.250 MHz');
    const ticks = frequencyTicks(
      {
        f0: 98.976e6,
        f1: 101.023e6,
        e0: 98.9755e6,
        e1: 101.0235e6,
        bins: 2048,
        width: 2048,
        log: false,
        lo: 98.976e6,
        hi: 101.023e6,
      },
      { a: 0, b: 1 },
      900,
    );
    expect(ticks.map((t) => t.label)).toContain('100.0 MHz');
    expect(ticks.every((t) => t.label.endsWith(' MHz'))).toBe(true);
  });
});

describe('double-click re-centres a tunable source', () => {
  const W = 1000;

  async function mountDisplay(info: LiveInfo) {
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(
      () => ({ width: W, height: 200, x: 0, y: 0, top: 0, left: 0, right: W, bottom: 200 }) as DOMRect,
    );
    vi.stubGlobal('ResizeObserver', undefined);
    const conn = await connected();
    conn.info = info;
    conn.handle('retune', (p) => (conn.info = radioInfo(p.centerFrequency)));
    const live = useLiveStore();
    await live.start();
    const w = mount(LiveDisplay, {
      global: {
        plugins: [pinia],
        stubs: {
          WaterfallCanvas: { template: '<canvas data-test="waterfall" />' },
          SpectrumPlot: { template: '<canvas data-test="spectrum" />' },
          AxisCanvas: true,
        },
      },
    });
    await flushPromises();
    return { conn, live, w, viewport: useViewportStore() };
  }

  it('sends retune with the absolute frequency under the pointer (1 kHz steps), and the axis follows', async () => {
    const { conn, live, w, viewport } = await mountDisplay(radioInfo());
    // A marker at the planted carrier, in absolute Hz, until the retune moves the axis under it.
    conn.emit('peaks', {
      session: live.info!.session,
      streamTime: 1,
      fft: 2048,
      binWidth: 1000,
      peaks: [{ frequency: 100.25e6, level: -20 }],
      computeMs: 0.1,
    });
    expect(live.peaks?.peaks[0].frequency).toBe(100.25e6);
    // 3/4 across 98.976 … 101.023 MHz: 100.51125 MHz, sent as 100.511 MHz.
    await w.find('[data-test="waterfall"]').trigger('dblclick', { clientX: 0.75 * W, clientY: 50 });
    await settle();
    expect(conn.last('retune')).toEqual({ centerFrequency: 100_511_000 });
    expect(live.info?.centerFrequency).toBe(100_511_000);
    expect(viewport.axis?.f0).toBe(100_511_000 - 1.024e6);
    expect(live.peaks).toBeNull(); // the next peaks event places the markers again

    // The spectrum too; zoomed in, the view's fraction counts.
    viewport.view = { a: 0.5, b: 0.75 };
    await w.find('[data-test="spectrum"]').trigger('dblclick', { clientX: W, clientY: 20 });
    await settle();
    const f0 = 100_511_000 - 1.024e6;
    const expected = Math.round((f0 + 0.75 * 2.047e6) / 1000) * 1000;
    expect(expected).toBe(101_022_000);
    expect(conn.last('retune')).toEqual({ centerFrequency: expected });
    expect(viewport.view).toEqual({ a: 0, b: 1 }); // the new range shows whole
  });

  it('does nothing new for a source that is not tunable: the double-click shows everything', async () => {
    const { conn, w, viewport } = await mountDisplay(radioInfo(100e6, { tunable: false }));
    viewport.view = { a: 0.2, b: 0.4 };
    await w.find('[data-test="waterfall"]').trigger('dblclick', { clientX: 500, clientY: 50 });
    await settle();
    expect(conn.count('retune')).toBe(0);
    expect(viewport.view).toEqual({ a: 0, b: 1 });
  });

  it('shows the engine’s refusal without losing the session', async () => {
    const { conn, live, w } = await mountDisplay(radioInfo());
    conn.handle('retune', () => {
      throw new Error('the tuner cannot reach 3 GHz');
    });
    await w.find('[data-test="waterfall"]').trigger('dblclick', { clientX: 100, clientY: 50 });
    await settle();
    expect(live.lastError).toBe('the tuner cannot reach 3 GHz');
    expect(live.info?.centerFrequency).toBe(100e6);
  });
});

describe('status bar: the link of a networked source', () => {
  function statusEvent(link?: StatusEvent['link']): StatusEvent {
    return {
      session: 1,
      backend: 'cpu',
      sampleRate: 2.048e6,
      blocksPerSecond: 30,
      rowsPerSecond: 60,
      droppedRows: 0,
      droppedBlocks: 0,
      computeMs: 0.5,
      ...(link ? { link } : {}),
    };
  }

  it('shows connected / reconnecting (n) / failed, reconnects and drops, the detail as tooltip', async () => {
    const conn = await connected();
    conn.info = radioInfo();
    await useLiveStore().start();
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    conn.emit('status', statusEvent());
    await flushPromises();
    expect(w.find('[data-test="link-status"]').exists()).toBe(false); // not a networked source

    const link = () => w.find('[data-test="link-status"]');
    conn.emit(
      'status',
      statusEvent({
        state: 'connected',
        reconnects: 0,
        droppedSamples: 0,
        detail: 'rtl_tcp://127.0.0.1:1234, R820T',
      }),
    );
    await flushPromises();
    expect(link().text()).toBe('Link connected');
    expect(link().attributes('title')).toBe('rtl_tcp://127.0.0.1:1234, R820T');
    expect(link().attributes('data-state')).toBe('connected');

    conn.emit(
      'status',
      statusEvent({ state: 'reconnecting', reconnects: 2, droppedSamples: 16384, detail: 'ECONNREFUSED' }),
    );
    await flushPromises();
    expect(link().text()).toBe('Link reconnecting (2) · 16.4 k dropped');
    expect(link().attributes('title')).toBe('ECONNREFUSED');
    expect(link().classes()).toContain('bad');

    conn.emit('status', statusEvent({ state: 'connected', reconnects: 2, droppedSamples: 16384 }));
    await flushPromises();
    expect(link().text()).toBe('Link connected · 2 reconnects · 16.4 k dropped');

    conn.emit(
      'status',
      statusEvent({ state: 'failed', reconnects: 5, droppedSamples: 16384, detail: 'gave up' }),
    );
    await flushPromises();
    expect(link().text()).toBe('Link failed · 5 reconnects · 16.4 k dropped');
    expect(link().find('.dot').classes()).toContain('err');
  });
});

// ---------------------------------------------------------------------------------------------------
// Recording

const FOLDER = '/srv/phasor/granted';

function recStatus(extra: Partial<RecordingStatus> = {}): RecordingStatus {
  return {
    session: 1,
    state: 'recording',
    path: `${FOLDER}/rec.sigmf-meta`,
    frames: 0,
    seconds: 0,
    bytes: 0,
    droppedFrames: 0,
    gaps: 0,
    ...extra,
  };
}

async function recordingSetup(info: LiveInfo = radioInfo()) {
  const conn = await connected();
  conn.info = info;
  const listings: string[] = [];
  conn.handle('listDirectory', (p) => {
    listings.push(p.path ?? '');
    const listing: DirectoryListing = { path: p.path ?? FOLDER, entries: [] };
    return listing;
  });
  let current: RecordingStatus | null = null;
  conn.handle('recordStart', (p) => (current = recStatus({ path: p.path })));
  conn.handle('recordStop', () => {
    if (!current || current.state !== 'recording') throw new Error('not recording');
    current = { ...current, state: 'stopped', frames: 4096000, seconds: 2, bytes: 8_196_000 };
    return current;
  });
  const live = useLiveStore();
  await live.start();
  const rec = useRecordingStore();
  return { conn, live, rec, listings, browser: useBrowserStore() };
}

describe('recording store', () => {
  it('starts, follows the engine’s events, stops, and lists the folder again', async () => {
    const { conn, rec, listings } = await recordingSetup();
    expect(rec.available).toBe(true);
    expect(await rec.start(`${FOLDER}/a.sigmf-meta`)).toBe(true);
    expect(conn.last('recordStart')).toEqual({ path: `${FOLDER}/a.sigmf-meta` });
    expect(rec.recording).toBe(true);

    conn.emit(
      'recording',
      recStatus({
        path: `${FOLDER}/a.sigmf-meta`,
        frames: 2048000,
        seconds: 1,
        bytes: 4_100_000,
        freeBytes: 5e9,
      }),
    );
    expect(rec.status).toMatchObject({ seconds: 1, bytes: 4_100_000, freeBytes: 5e9 });

    await rec.stop();
    await settle();
    expect(conn.count('recordStop')).toBe(1);
    expect(rec.recording).toBe(false);
    expect(rec.message).toBe('Recorded a.sigmf-meta (0:02, 8.2 MB)');
    expect(listings).toEqual([FOLDER]); // the browser shows the new file

    // A late event of the finished recording changes nothing; its final event does not list again.
    conn.emit('recording', recStatus({ path: `${FOLDER}/a.sigmf-meta`, seconds: 1.5 }));
    conn.emit('recording', recStatus({ path: `${FOLDER}/a.sigmf-meta`, state: 'stopped', seconds: 2 }));
    await settle();
    expect(rec.recording).toBe(false);
    expect(listings).toEqual([FOLDER]);
  });

  it('says why a recording stopped by itself (a full disk), and a failed one', async () => {
    const { conn, rec, listings } = await recordingSetup();
    await rec.start(`${FOLDER}/b.wav`);
    conn.emit(
      'recording',
      recStatus({
        path: `${FOLDER}/b.wav`,
        state: 'stopped',
        seconds: 61,
        bytes: 12_300_000,
        reason: 'the disk is full',
      }),
    );
    await settle();
    expect(rec.recording).toBe(false);
    expect(rec.message).toBe('Recording stopped: the disk is full — b.wav (1:01, 12.3 MB)');
    expect(listings).toEqual([FOLDER]);

    await rec.start(`${FOLDER}/c.sigmf-meta`);
    expect(rec.message).toBe('');
    conn.emit(
      'recording',
      recStatus({ path: `${FOLDER}/c.sigmf-meta`, state: 'failed', seconds: 3, bytes: 1e6, reason: 'EIO' }),
    );
    await settle();
    expect(rec.message).toBe('Recording failed: EIO — c.sigmf-meta (0:03, 1.0 MB)');
    expect(listings).toEqual([FOLDER, FOLDER]);
  });

  it('keeps the engine’s refusal (an existing file) and records nothing', async () => {
    const { conn, rec } = await recordingSetup();
    conn.handle('recordStart', () => {
      throw new Error('phasor: /srv/phasor/granted/x.wav: the file exists');
    });
    expect(await rec.start(`${FOLDER}/x.wav`)).toBe(false);
    expect(rec.recording).toBe(false);
    expect(rec.error).toBe('phasor: /srv/phasor/granted/x.wav: the file exists');
  });

  it('a lost engine connection ends the recording with a reason', async () => {
    const { rec } = await recordingSetup();
    await rec.start(`${FOLDER}/d.sigmf-meta`);
    await useConnectionStore().attach(new FakeConnection());
    await settle();
    expect(rec.recording).toBe(false);
    expect(rec.message).toMatch(/^Recording failed: the connection to the engine was lost/);
  });

  it('names recordings rec-YYYYMMDD-HHMMSS', () => {
    expect(recordingName(new Date(2025, 0, 2, 3, 4, 5), 'sigmf-meta')).toBe('rec-20250102-030405.sigmf-meta');
    expect(shortcutFor({ key: 'r' })).toBe('record');
    expect(shortcutFor({ key: 'R' })).toBe('record');
  });
});

describe('record button and indicator', () => {
  it('web mode: the button opens the naming dialog; confirming records in the browser’s folder', async () => {
    const { conn, rec, browser } = await recordingSetup(liveInfo()); // a real source: WAV allowed
    await browser.list(FOLDER);
    const bar = mount(LiveToolbar, { global: { plugins: [pinia] } });
    await bar.find('[data-test="record-button"]').trigger('click');
    await flushPromises();
    expect(rec.dialogOpen).toBe(true);

    const dialog = mount(RecordDialog, { global: { plugins: [pinia] }, attachTo: document.body });
    const name = dialog.find('[data-test="record-name"]');
    expect((name.element as HTMLInputElement).value).toMatch(/^rec-\d{8}-\d{6}\.sigmf-meta$/);
    await dialog.find('[data-test="record-format"]').setValue('wav');
    expect((name.element as HTMLInputElement).value).toMatch(/^rec-\d{8}-\d{6}\.wav$/);
    await name.setValue('take1.wav');
    await dialog.find('[data-test="record-confirm"]').trigger('click');
    await flushPromises();
    expect(conn.last('recordStart')).toEqual({ path: `${FOLDER}/take1.wav` });
    expect(rec.dialogOpen).toBe(false);
    dialog.unmount();

    conn.emit(
      'recording',
      recStatus({
        path: `${FOLDER}/take1.wav`,
        seconds: 65,
        bytes: 6_300_000,
        freeBytes: 2 * 1024 ** 3,
        gaps: 1,
        droppedFrames: 512,
      }),
    );
    await flushPromises();
    const indicator = bar.find('[data-test="recording-status"]');
    expect(indicator.text()).toBe('REC 1:05 · 6.3 MB · 2.00 GiB free · 1 gaps, 512 frames dropped');
    expect(bar.find('[data-test="record-button"]').text()).toBe('Stop');

    await bar.find('[data-test="record-button"]').trigger('click');
    await flushPromises();
    expect(conn.count('recordStop')).toBe(1);
    expect(bar.find('[data-test="recording-status"]').exists()).toBe(false);
    expect(bar.find('[data-test="recording-message"]').text()).toContain('Recorded take1.wav');
  });

  it('web mode: WAV is not offered for a complex source; a refusal stays in the dialog', async () => {
    const { conn, rec, browser, listings } = await recordingSetup(radioInfo());
    await browser.list(FOLDER);
    rec.dialogOpen = true;
    const dialog = mount(RecordDialog, { global: { plugins: [pinia] } });
    const wav = dialog.find('[data-test="record-format"] option[value="wav"]');
    expect((wav.element as HTMLOptionElement).disabled).toBe(true);
    // Another folder typed in the dialog becomes the browser's (listed, so checked by the engine).
    const folder = dialog.find('[data-test="record-folder"]');
    expect((folder.element as HTMLInputElement).value).toBe(FOLDER);
    await folder.setValue('/srv/phasor/other');
    await folder.trigger('change');
    await flushPromises();
    expect(rec.folder).toBe('/srv/phasor/other');
    expect(listings).toEqual([FOLDER, '/srv/phasor/other']);
    await dialog.find('[data-test="record-name"]').setValue('iq.sigmf-meta');
    conn.handle('recordStart', () => {
      throw new Error('the path lies outside the shared folders');
    });
    await dialog.find('[data-test="record-confirm"]').trigger('click');
    await flushPromises();
    expect(rec.dialogOpen).toBe(true);
    expect(conn.last('recordStart')).toEqual({ path: '/srv/phasor/other/iq.sigmf-meta' });
    expect(dialog.find('[data-test="record-error"]').text()).toBe('the path lies outside the shared folders');
    dialog.unmount();
  });

  it('desktop: the save dialog chooses the file', async () => {
    const chooseFile = vi.fn(async () => '/home/me/take.sigmf-meta');
    (window as { phasor?: unknown }).phasor = { send() {}, onMessage: () => () => {}, chooseFile };
    const { conn, rec } = await recordingSetup(radioInfo());
    await rec.toggle();
    await flushPromises();
    expect(chooseFile).toHaveBeenCalledWith(
      expect.objectContaining({ mode: 'save', filters: [{ name: 'SigMF', extensions: ['sigmf-meta'] }] }),
    );
    expect(conn.last('recordStart')).toEqual({ path: '/home/me/take.sigmf-meta' });
    expect(rec.dialogOpen).toBe(false);
  });

  it('is disabled with no running source', async () => {
    await connected();
    const bar = mount(LiveToolbar, { global: { plugins: [pinia] } });
    await useLiveStore().stop();
    await flushPromises();
    expect(bar.find('[data-test="record-button"]').attributes('disabled')).toBeDefined();
  });
});

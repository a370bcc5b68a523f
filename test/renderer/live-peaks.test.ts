// @vitest-environment happy-dom
// The peak markers come from the engine's peaks events: the live store keeps the latest (validated, of the
// current session and FFT size, frozen while paused), asks the engine for them only while they are shown,
// and the spectrum plot draws them where the axis puts their frequency, with labels from the bin width.
// Also: the status bar shows the live display's figures only while the live session runs.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PeaksEvent } from '../../electron/engine/protocol/messages.js';
import SpectrumPlot from '../../renderer/src/components/SpectrumPlot.vue';
import StatusBar from '../../renderer/src/components/StatusBar.vue';
import { frequencyToScreen, makeFrequencyAxis } from '../../renderer/src/lib/axis.js';
import { FRAME_LOOP } from '../../renderer/src/lib/display-context.js';
import { FrameLoop } from '../../renderer/src/lib/frame-loop.js';
import { hooks } from '../../renderer/src/lib/hooks.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { useStatusStore } from '../../renderer/src/stores/status.js';
import { useViewportStore } from '../../renderer/src/stores/viewport.js';
import { FakeConnection, liveInfo, rowsMessage, settle } from './fake-connection.js';

let pinia: Pinia;

async function setup(conn = new FakeConnection()) {
  conn.handle('setPeaks', () => ({}));
  const live = useLiveStore();
  const status = useStatusStore();
  await useConnectionStore().attach(conn);
  await settle();
  return { conn, live, status, settings: useSettingsStore(), viewport: useViewportStore() };
}

function peaksEvent(extra: Partial<PeaksEvent> = {}): PeaksEvent {
  return {
    session: 1,
    streamTime: 2.5,
    fft: 2048,
    binWidth: 48000 / 2048,
    peaks: [
      { frequency: 1000.00002, level: -6.020601 },
      { frequency: 7500.3, level: -40.5 },
    ],
    computeMs: 0.7,
    ...extra,
  };
}

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
  hooks.reset();
  hooks.peaks = null;
  hooks.markerLabels = [];
});

describe('live store: peaks', () => {
  it('keeps the engine’s latest peaks of this session and FFT size', async () => {
    const { conn, live } = await setup();
    expect(live.peaks).toBeNull();
    conn.emit('peaks', peaksEvent());
    expect(live.peaks?.peaks[0].frequency).toBe(1000.00002);
    expect(hooks.peaks).toBe(live.peaks);
    conn.emit('peaks', peaksEvent({ session: 9, peaks: [] })); // another session
    conn.emit('peaks', peaksEvent({ fft: 4096, peaks: [] })); // settings from before
    expect(live.peaks?.peaks).toHaveLength(2);
    conn.emit('peaks', peaksEvent({ streamTime: 2.7, peaks: [{ frequency: 999.9, level: -6 }] }));
    expect(live.peaks?.streamTime).toBe(2.7);
  });

  it('refuses malformed peaks events', async () => {
    const { conn, live } = await setup();
    conn.emit('peaks', peaksEvent());
    const bad = [
      { ...peaksEvent(), peaks: [{ frequency: 'x', level: 0 }] },
      { ...peaksEvent(), binWidth: -1 },
      { session: 1 },
    ];
    for (const b of bad) conn.emit('peaks', b as unknown as PeaksEvent);
    expect(hooks.badPeaks).toBe(3);
    expect(live.peaks?.peaks[0].level).toBe(-6.020601);
  });

  it('forgets the peaks when the FFT size changes', async () => {
    const { conn, live } = await setup();
    conn.emit('peaks', peaksEvent());
    await live.setAnalysis({ fft: 4096 });
    expect(live.info?.fft).toBe(4096);
    expect(live.peaks).toBeNull();
    conn.emit('peaks', peaksEvent({ fft: 4096, binWidth: 48000 / 4096 }));
    expect(live.peaks?.fft).toBe(4096);
  });

  it('freezes the markers while paused and asks the engine for no peaks meanwhile', async () => {
    const { conn, live } = await setup();
    conn.emit('peaks', peaksEvent());
    live.setPaused(true);
    await settle();
    expect(conn.last('setPeaks')).toEqual({ enabled: false });
    conn.emit('peaks', peaksEvent({ peaks: [] }));
    expect(live.peaks?.peaks).toHaveLength(2);
    live.setPaused(false);
    await settle();
    expect(conn.last('setPeaks')).toEqual({ enabled: true });
    conn.emit('peaks', peaksEvent({ peaks: [] }));
    expect(live.peaks?.peaks).toEqual([]);
  });

  it('turns the engine’s peaks off with the markers, and asks a new session for none while they are off', async () => {
    const { conn, live, settings } = await setup();
    expect(conn.count('setPeaks')).toBe(0); // each session starts with them on
    conn.emit('peaks', peaksEvent());
    settings.s.showMarkers = false;
    await settle();
    expect(live.peaks).toBeNull();
    expect(conn.last('setPeaks')).toEqual({ enabled: false });
    conn.info = liveInfo({ session: 2 });
    await live.start();
    await settle();
    expect(conn.count('setPeaks')).toBe(2);
    expect(conn.last('setPeaks')).toEqual({ enabled: false });
  });
});

/** A 2D context that records the text drawn and where. */
function recordingContext() {
  const texts: Array<{ text: string; x: number; y: number }> = [];
  /** Marker tips: a move to (x, y) followed by a line to (x − 4, y − 6), the triangle's left corner. */
  const tips: number[] = [];
  let last = [NaN, NaN];
  const noop = () => {};
  const ctx = {
    texts,
    tips,
    fillText: (text: string, x: number, y: number) => texts.push({ text, x, y }),
    measureText: (t: string) => ({ width: 6 * t.length }),
    setTransform: noop,
    fillRect: noop,
    beginPath: noop,
    moveTo: (x: number, y: number) => (last = [x, y]),
    lineTo: (x: number, y: number) => {
      if (x === last[0] - 4 && y === last[1] - 6) tips.push(last[0]);
      last = [x, y];
    },
    closePath: noop,
    // max hold is dashed, min hold dotted (colour is not the only difference)
    setLineDash: noop,
    stroke: noop,
    fill: noop,
    fillStyle: '',
    strokeStyle: '',
    lineWidth: 1,
    font: '',
    textBaseline: '',
    textAlign: '',
  };
  return ctx;
}

describe('SpectrumPlot markers', () => {
  const W = 940;
  let ctx: ReturnType<typeof recordingContext>;

  beforeEach(() => {
    ctx = recordingContext();
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(
      () => ctx as unknown as CanvasRenderingContext2D,
    );
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(
      () => ({ width: W, height: 200, x: 0, y: 0, top: 0, left: 0, right: W, bottom: 200 }) as DOMRect,
    );
    // The canvas is measured once from its box (no ResizeObserver here).
    vi.stubGlobal('ResizeObserver', undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  async function mountPlot() {
    const s = await setup();
    // A display ~940 px wide: 940 columns of 1025 bins (columns are not bins).
    s.conn.info = liveInfo({ width: W });
    await s.live.start();
    s.conn.pushRows(rowsMessage(1, 0, 1, W));
    const loop = new FrameLoop(
      () => {},
      () => {},
      () => 1,
      () => {},
    );
    const w = mount(SpectrumPlot, {
      props: { frequencyTicks: [], levelTicks: [] },
      global: { plugins: [pinia], provide: { [FRAME_LOOP as symbol]: loop } },
    });
    await flushPromises();
    const render = () => {
      ctx.texts.length = 0;
      ctx.tips.length = 0;
      (w.vm as unknown as { render(): void }).render();
      return ctx.texts.slice();
    };
    return { ...s, w, render };
  }

  it('labels the engine’s peaks with their frequency and level, where the axis puts them', async () => {
    const { conn, viewport, render } = await mountPlot();
    expect(render()).toEqual([]); // no peaks yet: no markers
    conn.emit('peaks', peaksEvent());
    const texts = render();
    expect(texts.map((t) => t.text)).toEqual(['1.000 kHz  −6.02 dB', '7.500 kHz  −40.50 dB']);
    expect(hooks.markerLabels).toEqual(texts.map((t) => t.text));
    // The marker's tip at the frequency's place on the axis (not at a column's centre).
    const axis = makeFrequencyAxis([0, 24000], 1025, W, false);
    expect(ctx.tips[0]).toBeCloseTo(frequencyToScreen(axis, viewport.view, 1000.00002) * W, 9);
    expect(ctx.tips[1]).toBeCloseTo(frequencyToScreen(axis, viewport.view, 7500.3) * W, 9);

    // Zoomed in around 1 kHz: the marker moves with the axis; the other one leaves the plot.
    viewport.view = { a: 0.03, b: 0.06 };
    const zoomed = render();
    expect(zoomed.map((t) => t.text)).toEqual(['1.000 kHz  −6.02 dB']);
    expect(ctx.tips[0]).toBeCloseTo((((1000.00002 - axis.lo) / (axis.hi - axis.lo) - 0.03) / 0.03) * W, 3);
  });

  it('places markers on the logarithmic axis too, and hides them with the markers setting', async () => {
    const { conn, viewport, settings, render } = await mountPlot();
    settings.s.logFrequency = true;
    await flushPromises();
    conn.emit('peaks', peaksEvent());
    const texts = render();
    const axis = viewport.axis!;
    expect(axis.log).toBe(true);
    const x = frequencyToScreen(axis, viewport.view, 1000.00002) * W;
    expect(texts[0].text).toBe('1.000 kHz  −6.02 dB');
    expect(ctx.tips[0]).toBeCloseTo(x, 9);
    settings.s.showMarkers = false;
    await flushPromises();
    expect(render()).toEqual([]);
  });
});

describe('StatusBar', () => {
  it('shows the latency and fps only while the live session runs', async () => {
    const { live, status } = await setup();
    const w = mount(StatusBar, { global: { plugins: [pinia] } });
    for (let i = 1; i <= 100; i++) hooks.latency.push(i);
    status.sampleRenderer(60);
    await flushPromises();
    expect(w.find('[data-test="latency"]').text()).toMatch(/Latency\s*51 \/ 99 ms/);
    expect(w.find('[data-test="fps"]').text()).toMatch(/FPS\s*60/);
    live.setPaused(true);
    await flushPromises();
    expect(w.find('[data-test="latency"]').text()).toMatch(/Latency\s*— \/ — ms/);
    live.setPaused(false);
    // Another view stops the session: the last live figures are no longer shown.
    await live.setActive(false);
    await flushPromises();
    expect(live.sourceState).toBe('stopped');
    expect(w.find('[data-test="latency"]').text()).toMatch(/Latency\s*— \/ — ms/);
    expect(w.find('[data-test="fps"]').text()).toMatch(/FPS\s*—/);
  });
});

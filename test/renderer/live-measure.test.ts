// @vitest-environment happy-dom
// The Live view's measurements: the band (two markers, else the zoomed-in view, else the whole span), the
// measureLive request, continuous measuring that skips a tick while a request is on its way, and
// LiveMeasurePanel's values.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MeasureResult } from '../../electron/engine/protocol/messages.js';
import LiveMeasurePanel from '../../renderer/src/components/LiveMeasurePanel.vue';
import { makeFrequencyAxis } from '../../renderer/src/lib/axis.js';
import { liveMeasureBand } from '../../renderer/src/lib/live-measure.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { LIVE_MEASURE_PERIOD_MS, useLiveMeasureStore } from '../../renderer/src/stores/live-measure.js';
import { useMarkersStore } from '../../renderer/src/stores/markers.js';
import { useViewportStore } from '../../renderer/src/stores/viewport.js';
import { FakeConnection, settle } from './fake-connection.js';
import { drive } from './offline-fixtures.js';

let pinia: Pinia;

const RESULT: MeasureResult = {
  start: 48000,
  end: 96000,
  band: [2500, 3500],
  bandPower: -6.0206,
  occupiedBandwidth: { width: 4.4, lower: 2997.8, upper: 3002.2 },
  snr: 73.41,
  tone: { frequency: 3000.0004, level: -6.0207 },
  thd: {
    fundamental: 3000.0004,
    level: -6.0207,
    thdPercent: 0.00012,
    thdDb: -118.4,
    thdnPercent: 0.0213,
    thdnDb: -73.43,
    harmonics: [],
  },
  missing: {},
  enbw: 1.5,
  rbw: 2.197265625,
  fft: 32768,
  window: 'hann',
  segments: 1,
  binWidth: 1.46484375,
};

async function started(): Promise<FakeConnection> {
  const conn = new FakeConnection();
  await useConnectionStore().attach(conn);
  await settle();
  await useLiveStore().start();
  await settle();
  return conn;
}

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
});
afterEach(() => vi.useRealTimers());

describe('liveMeasureBand', () => {
  const axis = makeFrequencyAxis([0, 24000], 1025, 1025, false);
  it('takes the first two markers in either order, else the zoomed view, else the span', () => {
    const m = [
      { id: 1, frequency: 3500 },
      { id: 2, frequency: 2500 },
      { id: 3, frequency: 9000 },
    ];
    expect(liveMeasureBand(m, axis, { a: 0, b: 1 })).toEqual({ fLow: 2500, fHigh: 3500, from: 'markers' });
    expect(liveMeasureBand(m.slice(0, 1), axis, { a: 0.25, b: 0.5 })).toEqual({
      fLow: 6000,
      fHigh: 12000,
      from: 'zoom',
    });
    expect(liveMeasureBand([], axis, { a: 0, b: 1 })).toEqual({ from: 'span' });
    expect(liveMeasureBand([], null, { a: 0.25, b: 0.5 })).toEqual({ from: 'span' });
  });
});

describe('live measure store', () => {
  it('measures between two markers, and once a second while continuous, skipping while busy', async () => {
    const conn = await started();
    const store = useLiveMeasureStore();
    const markers = useMarkersStore();
    markers.add(3500);
    markers.add(2500);
    const job = drive(conn, 'measureLive');
    vi.useFakeTimers();
    store.continuous = true;
    await vi.advanceTimersByTimeAsync(0);
    expect(job.calls).toBe(1);
    expect(job.params).toEqual({ seconds: 1, window: 'hann', fLow: 2500, fHigh: 3500 });
    // the engine is still measuring: the next ticks are skipped
    await vi.advanceTimersByTimeAsync(2 * LIVE_MEASURE_PERIOD_MS);
    expect(job.calls).toBe(1);
    job.resolve(RESULT);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.result).toEqual(RESULT);
    await vi.advanceTimersByTimeAsync(LIVE_MEASURE_PERIOD_MS);
    expect(job.calls).toBe(2);
    job.reject('invalid-argument', 'not enough live samples yet: 0.4 s buffered, 1 s wanted');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.error).toBe('not enough live samples yet: 0.4 s buffered, 1 s wanted');
    // stopping the source stops the ticks
    await useLiveStore().stop();
    await vi.advanceTimersByTimeAsync(3 * LIVE_MEASURE_PERIOD_MS);
    expect(job.calls).toBe(2);
  });

  it('measures the zoomed-in view without markers, and refuses without a running source', async () => {
    const store = useLiveMeasureStore();
    await store.run();
    expect(store.error).toBe('start the live source first');
    const conn = await started();
    useViewportStore().view = { a: 0.5, b: 0.75 };
    const job = drive(conn, 'measureLive');
    void store.run();
    await settle();
    expect(job.params).toEqual({ seconds: 1, window: 'hann', fLow: 12000, fHigh: 18000 });
    job.resolve(RESULT);
    await settle();
    expect(store.error).toBe('');
  });
});

describe('LiveMeasurePanel', () => {
  it('says where the band comes from and shows the values with MeasurePanel’s fields', async () => {
    const conn = await started();
    const w = mount(LiveMeasurePanel, { global: { plugins: [pinia] } });
    expect(w.get('[data-field=live-measure-band]').text()).toBe('Band: the whole span');
    const markers = useMarkersStore();
    markers.add(2500);
    markers.add(3500);
    await flushPromises();
    expect(w.get('[data-field=live-measure-band]').text()).toBe(
      'Band: between markers 1 and 2: 2.500 kHz – 3.500 kHz',
    );
    const job = drive(conn, 'measureLive');
    await w.get('[data-test=live-measure-run]').trigger('click');
    await settle();
    expect(w.get('[data-test=live-measure-run]').attributes('disabled')).toBeDefined();
    job.resolve(RESULT);
    await flushPromises();
    const field = (name: string): string => w.get(`[data-field=${name}]`).text();
    expect(field('band-power')).toBe('-6.02 dBFS');
    expect(field('tone')).toBe('3.0000 kHz · -6.02 dBFS');
    expect(field('snr')).toBe('73.41 dB');
    expect(field('thd')).toBe('1.20e-4 % · -118.40 dB');
    expect(field('thdn')).toBe('0.0213 % · -73.43 dB');
    expect(field('rbw')).toBe('2.197 Hz');
    expect(field('obw')).toBe('4.4 Hz');
    expect(w.text()).not.toMatch(/NaN|undefined/);
  });
});

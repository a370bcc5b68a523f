// @vitest-environment happy-dom
// The File view's measurements: the measure store (the request from the selection, debounce, a new
// selection cancelling the request in flight, results of another file dropped) and MeasurePanel's values.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MeasureResult } from '../../electron/engine/protocol/messages.js';
import MeasurePanel from '../../renderer/src/components/MeasurePanel.vue';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useFilesStore } from '../../renderer/src/stores/files.js';
import { MEASURE_DEBOUNCE_MS, useMeasureStore } from '../../renderer/src/stores/measure.js';
import { FakeConnection, settle } from './fake-connection.js';
import { drive, fileInfo } from './offline-fixtures.js';

let pinia: Pinia;

async function connected(): Promise<FakeConnection> {
  const conn = new FakeConnection();
  await useConnectionStore().attach(conn);
  await settle();
  conn.handle('openFile', (p) =>
    fileInfo({
      path: p.path,
      name: p.path.split('/').pop()!,
      sampleRate: 48000,
      samples: 96000,
      duration: 2,
    }),
  );
  return conn;
}

const RESULT: MeasureResult = {
  start: 12000,
  end: 36000,
  band: [20, 20000],
  bandPower: -6.0189,
  occupiedBandwidth: { width: 34.47, lower: 978.96, upper: 1013.43 },
  snr: 41.755,
  tone: { frequency: 997.0001, level: -6.0215 },
  thd: {
    fundamental: 997.0001,
    level: -6.0215,
    thdPercent: 2.2774,
    thdDb: -32.851,
    thdnPercent: 2.4195,
    thdnDb: -32.325,
    harmonics: [{ order: 2, frequency: 1994, level: -40.01 }],
  },
  missing: {},
  enbw: 1.5,
  rbw: 17.578125,
  fft: 4096,
  window: 'hann',
  segments: 10,
  binWidth: 11.71875,
};

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
});
afterEach(() => vi.useRealTimers());

describe('measure store', () => {
  it('measures the selection once it settles, and a new selection cancels the request in flight', async () => {
    const conn = await connected();
    const files = useFilesStore();
    const info = (await files.open('/rec/tone.wav'))!;
    const measure = useMeasureStore();
    const job = drive(conn, 'measure');
    vi.useFakeTimers();
    files.setSelection({ t0: 0.25, t1: 0.5 });
    await vi.advanceTimersByTimeAsync(MEASURE_DEBOUNCE_MS / 2);
    files.setSelection({ t0: 0.25, t1: 0.75, f0: 20, f1: 20000 });
    await vi.advanceTimersByTimeAsync(MEASURE_DEBOUNCE_MS - 50);
    expect(job.calls).toBe(0); // still dragging
    await vi.advanceTimersByTimeAsync(100);
    expect(job.calls).toBe(1);
    expect(job.params).toEqual({
      file: info.file,
      window: 'hann',
      start: 12000,
      end: 36000,
      fLow: 20,
      fHigh: 20000,
    });
    // the selection moves while the engine measures: that request is cancelled, the next one follows
    files.setSelection({ t0: 1, t1: 1.5 });
    await vi.advanceTimersByTimeAsync(0);
    expect(job.cancelled).toBe(true);
    expect(measure.task.outcome).toBe('cancelled');
    await vi.advanceTimersByTimeAsync(MEASURE_DEBOUNCE_MS);
    expect(job.calls).toBe(2);
    expect(job.params).toEqual({ file: info.file, window: 'hann', start: 48000, end: 72000 });
    vi.useRealTimers();
    job.resolve(RESULT);
    await settle();
    expect(measure.result).toEqual(RESULT);
    expect(measure.task.outcome).toBe('done');
    // another file: the result goes
    await files.open('/rec/other.wav');
    await settle();
    expect(measure.result).toBeNull();
  });

  it('measures the whole file on demand, without a selection, and shows the error of a refusal', async () => {
    const conn = await connected();
    const files = useFilesStore();
    const info = (await files.open('/rec/tone.wav'))!;
    const measure = useMeasureStore();
    measure.auto = false;
    files.setSelection({ t0: 0.25, t1: 0.5 });
    await settle();
    expect(conn.count('measure')).toBe(0);
    files.setSelection(null);
    const job = drive(conn, 'measure');
    const running = measure.run();
    await settle();
    expect(job.params).toEqual({ file: info.file, window: 'hann' });
    job.reject('invalid-argument', '/rec/tone.wav: the band lies outside');
    await running;
    expect(measure.error).toMatch(/the band lies outside/);
  });
});

describe('MeasurePanel', () => {
  it('shows every value with its field, and the reasons for what could not be measured', async () => {
    const conn = await connected();
    const files = useFilesStore();
    await files.open('/rec/tone.wav');
    const job = drive(conn, 'measure');
    const w = mount(MeasurePanel, { global: { plugins: [pinia] } });
    await w.get('[data-test=measure-run]').trigger('click');
    await settle();
    job.resolve(RESULT);
    await flushPromises();
    const field = (name: string): string => w.get(`[data-field=${name}]`).text();
    expect(field('band-power')).toBe('-6.02 dBFS');
    expect(field('obw')).toBe('34 Hz');
    expect(field('obw-edges')).toBe('979 Hz – 1.013 kHz');
    expect(field('snr')).toBe('41.76 dB');
    expect(field('thd')).toBe('2.28 % · -32.85 dB');
    expect(field('thdn')).toBe('2.42 % · -32.33 dB');
    expect(field('rbw')).toBe('17.58 Hz');
    expect(field('tone')).toBe('997 Hz · -6.02 dBFS');
    expect(w.get('[data-field=snr]').element.parentElement!.title).toMatch(/harmonics count in THD\+N/);
    expect(w.find('[data-test=measure-missing]').exists()).toBe(false);

    const noTone: MeasureResult = {
      ...RESULT,
      snr: undefined,
      tone: undefined,
      thd: undefined,
      missing: {
        snr: 'no tone stands 15 dB above the noise in the band',
        thd: 'no tone stands 15 dB above the noise in the band',
      },
    };
    await w.get('[data-test=measure-run]').trigger('click');
    await settle();
    job.resolve(noTone);
    await flushPromises();
    expect(field('snr')).toBe('—');
    expect(field('thd')).toBe('—');
    expect(w.get('[data-test=measure-missing]').text()).toBe(
      'no tone stands 15 dB above the noise in the band',
    );
    expect(w.text()).not.toMatch(/NaN|undefined/);
  });
});

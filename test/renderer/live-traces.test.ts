// @vitest-environment happy-dom
// The live store's trace modes fed by rows messages, the level unit, and the marker table on a trace.
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { beforeEach, describe, expect, it } from 'vitest';
import MarkerTable from '../../renderer/src/components/MarkerTable.vue';
import { hooks } from '../../renderer/src/lib/hooks.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useMarkersStore } from '../../renderer/src/stores/markers.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { FakeConnection, liveInfo, rowsMessage, settle } from './fake-connection.js';

async function setup(conn = new FakeConnection()) {
  const live = useLiveStore();
  await useConnectionStore().attach(conn);
  await settle();
  return { conn, live, settings: useSettingsStore() };
}

beforeEach(() => {
  localStorage.clear();
  setActivePinia(createPinia());
  hooks.reset();
});

describe('live trace modes', () => {
  it('follows every row: clear-write, max hold with the engine peak, min hold, row time', async () => {
    const { conn, live, settings } = await setup();
    settings.s.showMin = true;
    // Rows: −20 − c/10 − r; the engine's peak −10 − c/30 (above every row).
    conn.pushRows(rowsMessage(1, 0, 3, 1025));
    const m = live.traces.modes;
    expect(m.main[10]).toBeCloseTo(-23, 5);
    expect(m.max[30]).toBeCloseTo(-11, 5);
    expect(m.min[10]).toBeCloseTo(-23, 5);
    // The latest row starts (0 + 2 rows) · hop 512 / 48 kHz into the stream.
    expect(live.traces.time).toBeCloseTo((2 * 512) / 48000, 12);

    // An exponential average on power over the next rows (the previous ones are the first frame's).
    settings.s.traceMode = 'exp';
    settings.s.traceAlpha = 0.5;
    await nextTick();
    conn.pushRows(rowsMessage(1, 1, 2, 1025, { peak: undefined }));
    // Rows of message 1: −20 − c/10 − r, r = 0, 1 → at c = 0: −20, −21.
    const expected = 10 * Math.log10(0.5 * 10 ** -2.1 + 0.5 * 10 ** -2.0);
    expect(m.main[0]).toBeCloseTo(expected, 5);
    expect(m.min[0]).toBeCloseTo(-22, 5);
  });

  it('resets the holds with the engine’s, keeps them over a restarted session, drops them for a new axis', async () => {
    const { conn, live } = await setup();
    conn.pushRows(rowsMessage(1, 0, 1, 1025));
    await live.resetPeak();
    expect(conn.requests.some((r) => r.method === 'resetPeak')).toBe(true);
    expect(live.traces.modes.max[0]).toBe(-Infinity);
    conn.pushRows(rowsMessage(1, 1, 1, 1025, { peak: undefined }));
    expect(live.traces.modes.max[0]).toBeCloseTo(-20, 5);
    // The same axis in a new session (a source restarted): the hold stays.
    conn.info = liveInfo({ session: 2 });
    await live.start();
    await settle();
    expect(live.traces.modes.max[0]).toBeCloseTo(-20, 5);
    // Another FFT size: the columns mean other frequencies.
    await live.setAnalysis({ fft: 4096 });
    await settle();
    expect(live.traces.modes.max[0]).toBe(-Infinity);
  });

  it('gives the density offset −10·log10(ENBW·fs/N) in dBFS/Hz', async () => {
    const { live, settings } = await setup();
    expect(live.levelOffset).toBe(0);
    settings.s.levelUnit = 'dBFS/Hz';
    // Hann (1.5 bins) at 48 kHz, 2048 points: RBW 35.15625 Hz.
    expect(live.levelOffset).toBeCloseTo(-10 * Math.log10(35.15625), 12);
  });
});

describe('marker table', () => {
  it('lists each marker with level in the unit and differences to the reference', async () => {
    setActivePinia(createPinia());
    const markers = useMarkersStore();
    const trace = { levels: [-80, -20, -80, -80, -32, -80], f0: 1000, df: 100, time: 2.5 };
    markers.addAtPeak(trace);
    markers.addAtPeak(trace);
    markers.update(trace);
    const w = mount(MarkerTable, {
      props: { levelOffset: -10, unit: 'dBFS/Hz', resolution: 1, unitRef: 2000 },
    });
    await nextTick();
    const rows = w.findAll('[data-test="marker-row"]');
    expect(rows).toHaveLength(2);
    expect(w.find('thead').text()).toContain('Level (dBFS/Hz)');
    expect(rows[0].find('[data-field="level"]').text()).toBe('−30.00');
    expect(rows[1].find('[data-field="frequency"]').text()).toBe('1.400 kHz');
    expect(rows[1].find('[data-test="marker-delta-f"]').text()).toBe('+0.300 kHz');
    expect(rows[1].find('[data-test="marker-delta-level"]').text()).toBe('−12.00');
    // R on the second makes it the reference.
    await rows[1].find('[data-test="marker-reference"]').trigger('click');
    markers.update(trace);
    await nextTick();
    expect(w.findAll('[data-test="marker-delta-level"]')[0].text()).toBe('+12.00');
    await w.findAll('[data-test="marker-remove"]')[0].trigger('click');
    expect(w.findAll('[data-test="marker-row"]')).toHaveLength(1);
  });
});

// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia';
import { nextTick } from 'vue';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  SETTINGS_KEY,
  SETTINGS_VERSION,
  defaultSettings,
  parseStoredSettings,
  serializeSettings,
  type Migration,
} from '../../renderer/src/lib/settings-schema.js';
import { coerceParam, fieldDefault, useSettingsStore } from '../../renderer/src/stores/settings.js';

describe('settings schema', () => {
  it('round-trips every field through the stored form', () => {
    const s = {
      ...defaultSettings(),
      fft: 3000,
      overlap: 0.5,
      window: 'kaiser:8.6',
      averaging: 0.02,
      dbMin: -140,
      dbMax: -10,
      colormap: 'turbo' as const,
      logFrequency: true,
      showPeak: false,
      sourceKind: 'mic',
      sourceParams: { mic: { device: 'hw:1', sampleRate: 96000 }, generator: { signal: 'chirp' } },
    };
    const raw = serializeSettings(s);
    expect(JSON.parse(raw).version).toBe(SETTINGS_VERSION);
    const back = parseStoredSettings(raw);
    expect(back.settings).toEqual(s);
    expect(back.notes).toEqual([]);
  });

  it('gives the defaults for nothing stored, corrupt JSON or a non-object', () => {
    expect(parseStoredSettings(null).settings).toEqual(defaultSettings());
    for (const raw of ['{not json', '42', '[1,2]', 'null']) {
      const r = parseStoredSettings(raw);
      expect(r.settings).toEqual(defaultSettings());
      expect(r.notes.length).toBe(1);
    }
  });

  it('repairs each bad field on its own and keeps the good ones', () => {
    const raw = JSON.stringify({
      version: SETTINGS_VERSION,
      settings: {
        fft: 8,
        overlap: 0.5,
        colormap: 'jet',
        window: 'hamming',
        dbMin: 'low',
        showAverage: false,
      },
    });
    const r = parseStoredSettings(raw);
    expect(r.settings.fft).toBe(defaultSettings().fft);
    expect(r.settings.colormap).toBe('viridis');
    expect(r.settings.dbMin).toBe(defaultSettings().dbMin);
    expect(r.settings.overlap).toBe(0.5);
    expect(r.settings.window).toBe('hamming');
    expect(r.settings.showAverage).toBe(false);
    expect(r.notes.join('\n')).toMatch(/"fft"/);
    expect(r.notes.join('\n')).toMatch(/"colormap"/);
  });

  it('resets an empty level range', () => {
    const raw = JSON.stringify({ version: 1, settings: { dbMin: -10, dbMax: -20 } });
    const r = parseStoredSettings(raw);
    expect([r.settings.dbMin, r.settings.dbMax]).toEqual([-120, 0]);
  });

  it('migrates older versions step by step before validating', () => {
    // Pretend version 3 is current: v1 kept the level range as a pair, v2 called the colormap "palette".
    const migrations: Record<number, Migration> = {
      1: (old) => {
        const { range, ...rest } = old as { range?: [number, number] };
        return { ...rest, dbMin: range?.[0], dbMax: range?.[1] };
      },
      2: (old) => {
        const { palette, ...rest } = old as { palette?: string };
        return { ...rest, colormap: palette };
      },
    };
    const raw = JSON.stringify({ version: 1, settings: { range: [-90, -30], palette: 'magma', fft: 1000 } });
    const r = parseStoredSettings(raw, migrations, 3);
    expect(r.settings.dbMin).toBe(-90);
    expect(r.settings.dbMax).toBe(-30);
    expect(r.settings.colormap).toBe('magma');
    expect(r.settings.fft).toBe(1000);
    // A version with no way forward gives the defaults (and says so).
    const lost = parseStoredSettings(JSON.stringify({ version: 0, settings: { fft: 1000 } }), migrations, 3);
    expect(lost.settings).toEqual(defaultSettings());
    expect(lost.notes[0]).toMatch(/no migration from settings version 0/);
  });

  it('reads what it knows from a newer version', () => {
    const raw = JSON.stringify({ version: SETTINGS_VERSION + 5, settings: { fft: 4096, newThing: 1 } });
    const r = parseStoredSettings(raw);
    expect(r.settings.fft).toBe(4096);
    expect(r.settings).not.toHaveProperty('newThing');
    expect(r.notes[0]).toMatch(/newer Phasor/);
  });
});

describe('settings store', () => {
  beforeEach(() => {
    localStorage.clear();
    setActivePinia(createPinia());
  });

  it('saves every change and reads it back in the next run', async () => {
    const a = useSettingsStore();
    a.s.fft = 1000;
    a.s.colormap = 'inferno';
    a.setParam('generator', 'frequency', 440);
    await nextTick();
    const stored = JSON.parse(localStorage.getItem(SETTINGS_KEY)!);
    expect(stored.version).toBe(SETTINGS_VERSION);
    expect(stored.settings.fft).toBe(1000);

    setActivePinia(createPinia()); // a new run
    const b = useSettingsStore();
    expect(b.s.fft).toBe(1000);
    expect(b.s.colormap).toBe('inferno');
    expect(b.s.sourceParams.generator.frequency).toBe(440);
  });

  it('starts from the defaults when the stored settings are damaged', () => {
    localStorage.setItem(SETTINGS_KEY, '{"version":1,"settings":');
    const s = useSettingsStore();
    expect(s.s).toEqual(defaultSettings());
  });
});

describe('source parameter values', () => {
  it('takes a field default, else the first option, else an empty value of the type', () => {
    expect(fieldDefault({ name: 'f', label: 'F', type: 'number', default: 5 })).toBe(5);
    expect(fieldDefault({ name: 'f', label: 'F', type: 'number', min: 8000 })).toBe(8000);
    expect(
      fieldDefault({ name: 's', label: 'S', type: 'select', options: [{ value: 48000, label: '48k' }] }),
    ).toBe(48000);
    expect(fieldDefault({ name: 'b', label: 'B', type: 'boolean' })).toBe(false);
    expect(fieldDefault({ name: 'p', label: 'P', type: 'file' })).toBe('');
  });

  it('drops stored values that no longer fit the field', () => {
    const num = { name: 'f', label: 'F', type: 'number' as const, min: 0, max: 10 };
    expect(coerceParam(num, 5)).toBe(5);
    expect(coerceParam(num, 11)).toBeUndefined();
    expect(coerceParam(num, '5')).toBeUndefined();
    const sel = { name: 's', label: 'S', type: 'select' as const, options: [{ value: 1, label: 'one' }] };
    expect(coerceParam(sel, 1)).toBe(1);
    expect(coerceParam(sel, 2)).toBeUndefined();
    expect(coerceParam({ name: 'd', label: 'D', type: 'device' }, 'hw:0')).toBe('hw:0');
  });
});

// @vitest-environment happy-dom
// What the presets store checks on its own: a file the user imports (one exported preset or a whole
// presets.json; anything else refused in one line), a preset this renderer cannot apply (a colormap or
// trace mode it does not know), the name an export is offered under, and when the settings differ from
// the selected preset's.
import { describe, expect, it } from 'vitest';
import type { PresetSettings } from '../../electron/engine/protocol/presets.js';
import {
  parsePresetFile,
  presetFileName,
  presetProblem,
  sameSettings,
} from '../../renderer/src/stores/presets.js';

function settings(fft = 2048): PresetSettings {
  return {
    colormap: 'magma',
    live: {
      fft,
      window: 'hann',
      overlap: 0.75,
      averaging: 0.1,
      dbMin: -120,
      dbMax: 0,
      logFrequency: false,
      levelUnit: 'dBFS',
      traceMode: 'linear',
      traceAlpha: 0.1,
      traceFrames: 16,
    },
    file: { window: 'hann', fft: 0, autoLevels: true, dbMin: -120, dbMax: 0 },
  };
}

describe('importing a preset file', () => {
  it('reads one exported preset, or every preset of a presets.json', () => {
    const one = { format: 'phasor-preset', version: 1, name: 'Audio', settings: settings(4096) };
    expect(parsePresetFile(JSON.stringify(one))).toEqual([{ name: 'Audio', settings: settings(4096) }]);
    const all = {
      format: 'phasor-presets',
      version: 1,
      presets: [
        { name: 'A', settings: settings(512), saved: '2026-01-01T00:00:00Z' },
        { name: 'B', settings: settings(1024) },
      ],
    };
    expect(parsePresetFile(JSON.stringify(all)).map((p) => [p.name, p.settings.live.fft])).toEqual([
      ['A', 512],
      ['B', 1024],
    ]);
  });

  it('refuses anything else in one line saying what is wrong', () => {
    const refusal = (text: string) => {
      try {
        parsePresetFile(text);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('{"fft": 1')).toBe('not a Phasor preset: the file is not valid JSON');
    expect(refusal('{"fft": 1024}')).toBe('not a Phasor preset: no "format": "phasor-preset" in it');
    const one = { format: 'phasor-preset', version: 1, name: 'x', settings: settings() };
    expect(refusal(JSON.stringify({ ...one, version: 3 }))).toMatch(/^written by a newer Phasor/);
    expect(refusal(JSON.stringify({ ...one, name: '' }))).toBe(
      'not a Phasor preset: name: a preset needs a name',
    );
    const big = { ...one, settings: { ...settings(), live: { ...settings().live, fft: 1 << 30 } } };
    expect(refusal(JSON.stringify(big))).toMatch(/^not a Phasor preset: settings\.live\.fft: /);
    const odd = { ...one, settings: { ...settings(), live: { ...settings().live, traceMode: 'rms' } } };
    expect(refusal(JSON.stringify(odd))).toBe('preset "x": setting "traceMode" was not valid');
    expect(refusal(JSON.stringify({ format: 'phasor-presets', version: 1, presets: [] }))).toBe(
      'the file holds no presets',
    );
    const twins = { format: 'phasor-presets', version: 1, presets: [one, { ...one, name: 'X' }] };
    expect(refusal(JSON.stringify(twins))).toBe(
      'not a Phasor preset: presets: two presets have the same name',
    );
    for (const text of ['{"fft": 1', JSON.stringify(big), JSON.stringify(twins)])
      expect(refusal(text)).not.toContain('\n');
  });

  it('knows which presets this renderer can apply', () => {
    expect(presetProblem(settings())).toBe('');
    expect(presetProblem({ ...settings(), colormap: 'jet' })).toMatch(/^unknown colormap "jet" \(viridis, /);
    expect(presetProblem({ ...settings(), live: { ...settings().live, levelUnit: 'dBm' } })).toMatch(
      /levelUnit/,
    );
  });
});

describe('preset helpers', () => {
  it('offers an export under a name any file system takes', () => {
    expect(presetFileName('Audio B')).toBe('Audio B.phasor-preset.json');
    expect(presetFileName('a/b:c*?')).toBe('a-b-c.phasor-preset.json');
    expect(presetFileName('..')).toBe('preset.phasor-preset.json');
  });

  it('compares the settings this renderer knows, ignoring fields a newer Phasor added', () => {
    expect(sameSettings(settings(), settings())).toBe(true);
    expect(sameSettings(settings(), { ...settings(), future: 1 })).toBe(true);
    expect(sameSettings(settings(), settings(4096))).toBe(false);
    expect(sameSettings(settings(), { ...settings(), file: { ...settings().file, autoLevels: false } })).toBe(
      false,
    );
  });
});

// Named presets of analysis settings, kept by the engine in the user's config folder (listPresets,
// savePreset, renamePreset, deletePreset; protocol/presets.ts). A preset carries both views' analysis:
// the Live view's FFT size, window, overlap, averaging, dB range, frequency axis, level unit and trace
// mode, the File view's window, FFT size and levels, and the colormap they share. Applying one sets them
// all (the running live session is reconfigured); exporting downloads one as JSON, and importing reads such
// a file (or a whole presets.json) the user picked. Every refusal is one line.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import {
  PRESET_EXPORT_FORMAT,
  PRESETS_FORMAT,
  PRESETS_VERSION,
  presetExportSchema,
  presetIssues,
  presetKey,
  presetsDocumentSchema,
  type Preset,
  type PresetExport,
  type PresetSettings,
  type PresetsResult,
} from '../../../electron/engine/protocol/presets.js';
import { colormapNames, type ColormapName } from '../lib/colormap.js';
import { sanitizeSettings } from '../lib/settings-schema.js';
import { download } from '../lib/snapshot.js';
import type { LevelUnit, TraceMode } from '../lib/traces.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';
import { useLiveStore } from './live.js';
import { useSettingsStore } from './settings.js';

/** Largest file an import reads (a presets.json is at most a few hundred kB). */
export const PRESET_IMPORT_MAX_BYTES = 4 << 20;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Why this renderer cannot apply `s` (a colormap, trace mode or level unit it does not know), or ''. */
export function presetProblem(s: PresetSettings): string {
  if (!(colormapNames as readonly string[]).includes(s.colormap))
    return `unknown colormap "${s.colormap}" (${colormapNames.join(', ')})`;
  const notes: string[] = [];
  sanitizeSettings({ ...s.live }, notes);
  // The notes are the stored settings' ("…; using the default"): a preset is refused instead.
  return notes.map((n) => n.replace(/; using the defaults?$/, '')).join('; ');
}

/** Whether `a` and `b` set the same values (fields this renderer does not know are left out). */
export function sameSettings(a: PresetSettings, b: PresetSettings): boolean {
  const same = (x: Record<string, unknown>, y: Record<string, unknown>, keys: string[]) =>
    keys.every((k) => x[k] === y[k]);
  return (
    a.colormap === b.colormap &&
    same(a.live, b.live, Object.keys(a.live)) &&
    same(a.file, b.file, Object.keys(a.file))
  );
}

/** The file name an exported preset is offered under: its name, made safe for any file system. */
export function presetFileName(name: string): string {
  const safe = name
    .replace(/[\\/:*?"<>|]+/g, '-')
    .replace(/\s+/g, ' ')
    .replace(/^[.\s-]+|[.\s-]+$/g, '');
  return `${safe || 'preset'}.phasor-preset.json`;
}

/** The presets in an imported file: one exported preset, or every preset of a presets.json. */
export function parsePresetFile(text: string): Array<{ name: string; settings: PresetSettings }> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('not a Phasor preset: the file is not valid JSON');
  }
  const format = (doc as { format?: unknown } | null)?.format;
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > PRESETS_VERSION)
    throw new Error(`written by a newer Phasor (presets version ${version}); update Phasor to import it`);
  let list: Array<{ name: string; settings: PresetSettings }>;
  if (format === PRESET_EXPORT_FORMAT) {
    const one = presetExportSchema.safeParse(doc);
    if (!one.success) throw new Error(`not a Phasor preset: ${presetIssues(one.error)}`);
    list = [one.data];
  } else if (format === PRESETS_FORMAT) {
    const all = presetsDocumentSchema.safeParse(doc);
    if (!all.success) throw new Error(`not a Phasor preset: ${presetIssues(all.error)}`);
    list = all.data.presets;
  } else throw new Error('not a Phasor preset: no "format": "phasor-preset" in it');
  if (list.length === 0) throw new Error('the file holds no presets');
  for (const p of list) {
    const why = presetProblem(p.settings);
    if (why) throw new Error(`preset "${p.name}": ${why}`);
  }
  return list.map((p) => ({ name: p.name, settings: p.settings }));
}

export const usePresetsStore = defineStore('presets', () => {
  const connection = useConnectionStore();
  const settings = useSettingsStore();
  const files = useFilesStore();
  const live = useLiveStore();

  const presets = shallowRef<Preset[]>([]);
  /** Where the engine keeps them. */
  const file = ref('');
  /** Why the stored presets could not be read (the engine's line), shown until the next save. */
  const problem = ref('');
  /** The last action's refusal (one line), or ''. */
  const error = ref('');
  /** What the last action did worth a word (a preset applied, imported, an unreadable file kept aside). */
  const notice = ref('');
  /** The preset last applied or saved: the one Save, Rename, Delete and Export act on. */
  const selected = ref('');
  const busy = ref(false);

  function take(r: PresetsResult): void {
    presets.value = r.presets;
    file.value = r.file;
    problem.value = r.problem ?? '';
    if (!r.presets.some((p) => presetKey(p.name) === presetKey(selected.value))) selected.value = '';
  }

  async function act(what: () => Promise<void>): Promise<boolean> {
    busy.value = true;
    error.value = '';
    notice.value = '';
    try {
      await what();
      return true;
    } catch (e) {
      error.value = message(e);
      return false;
    } finally {
      busy.value = false;
    }
  }

  function refresh(): Promise<boolean> {
    return act(async () => take(await connection.request('listPresets', {})));
  }
  // The engine's list after each hello (first connection, reconnection, a restarted server).
  watch(
    () => connection.epoch,
    (n) => {
      if (n > 0) void refresh();
    },
    { immediate: true },
  );

  /** The settings both views use now. */
  function current(): PresetSettings {
    const s = settings.s;
    return {
      colormap: s.colormap,
      live: {
        fft: s.fft,
        window: s.window,
        overlap: s.overlap,
        averaging: s.averaging,
        dbMin: s.dbMin,
        dbMax: s.dbMax,
        logFrequency: s.logFrequency,
        levelUnit: s.levelUnit,
        traceMode: s.traceMode,
        traceAlpha: s.traceAlpha,
        traceFrames: s.traceFrames,
      },
      file: {
        window: files.display.window,
        fft: files.display.fft,
        autoLevels: files.display.autoLevels,
        dbMin: files.display.dbMin,
        dbMax: files.display.dbMax,
      },
    };
  }

  function find(name: string): Preset | undefined {
    return presets.value.find((p) => presetKey(p.name) === presetKey(name));
  }

  /** The settings were changed since the selected preset was applied or saved. */
  const changed = computed(() => {
    const p = selected.value ? find(selected.value) : undefined;
    return !!p && !sameSettings(current(), p.settings);
  });

  /** Sets both views to preset `name`; a running live session is reconfigured. */
  function apply(name: string): Promise<boolean> {
    return act(async () => {
      const p = find(name);
      if (!p) throw new Error(`there is no preset named "${name}"`);
      const why = presetProblem(p.settings);
      if (why) throw new Error(`preset "${p.name}" cannot be applied: ${why}`);
      const l = p.settings.live;
      Object.assign(settings.s, {
        colormap: p.settings.colormap as ColormapName,
        dbMin: l.dbMin,
        dbMax: l.dbMax,
        logFrequency: l.logFrequency,
        levelUnit: l.levelUnit as LevelUnit,
        traceMode: l.traceMode as TraceMode,
        traceAlpha: l.traceAlpha,
        traceFrames: l.traceFrames,
      });
      const f = p.settings.file;
      Object.assign(files.display, {
        window: f.window,
        fft: f.fft,
        autoLevels: f.autoLevels,
        dbMin: f.dbMin,
        dbMax: f.dbMax,
      });
      selected.value = p.name;
      const analysis = { fft: l.fft, window: l.window, overlap: l.overlap, averaging: l.averaging };
      await live.setAnalysis(analysis);
      // setAnalysis puts the old values back when the engine refuses them: say so.
      const s = settings.s;
      if (s.fft !== l.fft || s.window !== l.window || s.overlap !== l.overlap || s.averaging !== l.averaging)
        throw new Error(`the live analysis of "${p.name}" was refused: ${live.lastError}`);
      notice.value = `applied "${p.name}"`;
    });
  }

  /** Saves the current settings as a new preset `name` (refused when the name is taken). */
  function saveAs(name: string): Promise<boolean> {
    return act(async () => {
      const r = await connection.request('savePreset', { name, settings: current() });
      take(r);
      selected.value = r.name ?? name.trim();
      if (r.notice) notice.value = r.notice;
    });
  }

  /** Stores the current settings in the existing preset `name`. */
  function update(name: string): Promise<boolean> {
    return act(async () => {
      const r = await connection.request('savePreset', {
        name,
        settings: current(),
        conflict: 'replace',
      });
      take(r);
      selected.value = r.name ?? name;
      notice.value = r.notice ?? `saved "${selected.value}"`;
    });
  }

  function rename(name: string, to: string): Promise<boolean> {
    return act(async () => {
      take(await connection.request('renamePreset', { name, to }));
      if (presetKey(selected.value) === presetKey(name) || !selected.value) selected.value = to.trim();
    });
  }

  function remove(name: string): Promise<boolean> {
    return act(async () => {
      take(await connection.request('deletePreset', { name }));
    });
  }

  /** Downloads preset `name` as `<name>.phasor-preset.json` (the desktop app saves it as other exports). */
  function exportPreset(name: string): Promise<boolean> {
    return act(async () => {
      const p = find(name);
      if (!p) throw new Error(`there is no preset named "${name}"`);
      const doc: PresetExport = {
        format: PRESET_EXPORT_FORMAT,
        version: PRESETS_VERSION,
        name: p.name,
        settings: p.settings,
      };
      download(
        new Blob([JSON.stringify(doc, null, 2) + '\n'], { type: 'application/json' }),
        presetFileName(p.name),
      );
    });
  }

  /** Imports the presets of a file the user picked; a name already taken gets a number ("name (2)"). */
  function importFile(f: File): Promise<boolean> {
    return act(async () => {
      if (f.size > PRESET_IMPORT_MAX_BYTES)
        throw new Error(`${f.name}: not a Phasor preset: larger than ${PRESET_IMPORT_MAX_BYTES >> 20} MiB`);
      let list: ReturnType<typeof parsePresetFile>;
      try {
        list = parsePresetFile(await f.text());
      } catch (e) {
        throw new Error(`${f.name}: ${message(e)}`, { cause: e });
      }
      const names: string[] = [];
      for (const p of list) {
        const r = await connection.request('savePreset', { ...p, conflict: 'number' });
        take(r);
        names.push(r.name ?? p.name);
      }
      notice.value = `imported ${names.map((n) => `"${n}"`).join(', ')}`;
    });
  }

  return {
    presets,
    file,
    problem,
    error,
    notice,
    selected,
    changed,
    busy,
    refresh,
    current,
    apply,
    saveAs,
    update,
    rename,
    remove,
    exportPreset,
    importFile,
  };
});

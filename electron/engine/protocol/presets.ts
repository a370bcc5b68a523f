// Named presets of analysis settings: what one holds, the presets file in the user's config folder
// (io/presets.ts reads and writes it) and the file a preset is exported to. Shared by the engine, which
// validates what it stores, and the renderer, which validates a file the user imports.
//
//   presets.json   { "format": "phasor-presets", "version": 1, "presets": [{ "name", "settings", "saved" }] }
//   an export      { "format": "phasor-preset", "version": 1, "name", "settings" }
//
// Objects are loose: a field a newer Phasor adds is kept through a rewrite by an older one.

import { z } from 'zod';
import { FFT_SIZE_MIN, FILE_FFT_SIZE_MAX, LIVE_FFT_SIZE_MAX, OVERLAP_MAX } from './shape.js';

/** The presets file's format version this Phasor reads and writes. */
export const PRESETS_VERSION = 1;
export const PRESETS_FORMAT = 'phasor-presets';
export const PRESET_EXPORT_FORMAT = 'phasor-preset';
/** Longest preset name (characters). */
export const PRESET_NAME_MAX = 64;
/** Most presets one file holds. */
export const PRESETS_MAX = 500;
/** Largest presets file read (bytes); anything larger is not one Phasor wrote. */
export const PRESETS_FILE_MAX_BYTES = 4 << 20;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A preset's name: trimmed, 1 to PRESET_NAME_MAX characters, on one line. */
export const presetNameSchema = z
  .string()
  .trim()
  .min(1, 'a preset needs a name')
  .max(PRESET_NAME_MAX, `a preset name has at most ${PRESET_NAME_MAX} characters`)
  .refine((s) => !CONTROL.test(s), 'a preset name must be one line of printable characters');

/** Two names are the same preset when they differ only in case (and Unicode spelling). */
export function presetKey(name: string): string {
  return name.trim().normalize('NFC').toLocaleLowerCase('en');
}

const db = z.number().min(-400).max(100);
const windowName = z.string().min(1).max(32);
const levels = (o: { dbMin: number; dbMax: number }) => o.dbMin < o.dbMax;

/** The Live view's analysis and display (renderer/src/lib/settings-schema.ts names the same fields). */
export const presetLiveSchema = z
  .looseObject({
    fft: z.number().int().min(FFT_SIZE_MIN).max(LIVE_FFT_SIZE_MAX),
    window: windowName,
    overlap: z.number().min(0).max(OVERLAP_MAX),
    /** Exponential averaging of the rows (1 = none). */
    averaging: z.number().gt(0).max(1),
    dbMin: db,
    dbMax: db,
    /** Frequency axis: logarithmic or linear. */
    logFrequency: z.boolean(),
    /** Levels per bin (dBFS) or as a density (dBFS/Hz): the renderer's LEVEL_UNITS. */
    levelUnit: z.string().min(1).max(16),
    /** The spectrum's main trace: the renderer's TRACE_MODES, and their parameters. */
    traceMode: z.string().min(1).max(16),
    traceAlpha: z.number().gt(0).max(1),
    traceFrames: z
      .number()
      .int()
      .min(2)
      .max(1 << 20),
  })
  .refine(levels, 'dbMin must be below dbMax');

/** The File view's spectrogram (renderer/src/stores/files.ts FileDisplay). */
export const presetFileSchema = z
  .looseObject({
    window: windowName,
    /** Frame length; 0 fits it to the zoom. */
    fft: z.union([z.literal(0), z.number().int().min(FFT_SIZE_MIN).max(FILE_FFT_SIZE_MAX)]),
    /** Levels from each image's own range, else dbMin…dbMax. */
    autoLevels: z.boolean(),
    dbMin: db,
    dbMax: db,
  })
  .refine(levels, 'dbMin must be below dbMax');

/** What a preset carries: both views' analysis settings and the colormap they share. */
export const presetSettingsSchema = z.looseObject({
  colormap: z.string().min(1).max(32),
  live: presetLiveSchema,
  file: presetFileSchema,
});
export type PresetSettings = z.infer<typeof presetSettingsSchema>;

export const presetSchema = z.looseObject({
  name: presetNameSchema,
  settings: presetSettingsSchema,
  /** When it was last saved (ISO 8601). */
  saved: z.string().max(64).optional(),
});
export type Preset = z.infer<typeof presetSchema>;

function uniqueNames(presets: readonly { name: string }[]): boolean {
  return new Set(presets.map((p) => presetKey(p.name))).size === presets.length;
}

/** presets.json. Its version is checked first (a newer file is refused, never rewritten). */
export const presetsDocumentSchema = z.looseObject({
  format: z.literal(PRESETS_FORMAT),
  version: z.literal(PRESETS_VERSION),
  presets: z.array(presetSchema).max(PRESETS_MAX).refine(uniqueNames, 'two presets have the same name'),
});
export type PresetsDocument = z.infer<typeof presetsDocumentSchema>;

/** A preset exported to a file of its own. */
export const presetExportSchema = z.looseObject({
  format: z.literal(PRESET_EXPORT_FORMAT),
  version: z.literal(PRESETS_VERSION),
  name: presetNameSchema,
  settings: presetSettingsSchema,
});
export type PresetExport = z.infer<typeof presetExportSchema>;

/** Every preset request's reply: the presets as now stored, in the file's order. */
export interface PresetsResult {
  /** The presets file (in the user's config folder). */
  file: string;
  presets: Preset[];
  /** The name a save stored under (a numbered one when it was taken and conflict was 'number'). */
  name?: string;
  /** Why the stored presets cannot be read (one line naming the file): the list is then empty, and the
   * next save keeps that file aside (or, for a newer Phasor's file, is refused). */
  problem?: string;
  /** Something the user should know about the save (the unreadable file kept aside, and where). */
  notice?: string;
}

/** What a save does when the name is taken: refuse, replace that preset, or take "name (2)", "(3)"… */
export const presetConflictSchema = z.enum(['refuse', 'replace', 'number']);
export type PresetConflict = z.infer<typeof presetConflictSchema>;

/** `name`, or "name (2)", "name (3)"…: the first not in `taken` (compared as presetKey). */
export function freePresetName(name: string, taken: Iterable<string>): string {
  const keys = new Set(Array.from(taken, presetKey));
  if (!keys.has(presetKey(name))) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = name.slice(0, PRESET_NAME_MAX - suffix.length).trimEnd() + suffix;
    if (!keys.has(presetKey(candidate))) return candidate;
  }
}

/** Issues of a failed parse, in one line (the first three). */
export function presetIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

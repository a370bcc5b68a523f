// Settings kept between runs (localStorage), with a schema version. Loading never fails: a corrupt store
// gives the defaults, an older version is migrated step by step, and each field that does not validate
// falls back to its default on its own (so one bad value does not cost the user every other setting).

import { z } from 'zod';
import { defaultAnalysis } from '../../../electron/engine/protocol/messages.js';
import {
  DEFAULT_DB_RANGE,
  FFT_SIZE_MIN,
  LIVE_FFT_SIZE_MAX,
  OVERLAP_MAX,
} from '../../../electron/engine/protocol/shape.js';
import { colormapNames, type ColormapName } from './colormap.js';
import {
  LEVEL_UNITS,
  TRACE_ALPHA_DEFAULT,
  TRACE_FRAMES_DEFAULT,
  TRACE_FRAMES_MAX,
  TRACE_MODES,
  type LevelUnit,
  type TraceMode,
} from './traces.js';

export const SETTINGS_KEY = 'phasor.settings';
export const SETTINGS_VERSION = 1;

export type ParamValue = string | number | boolean;

export interface Settings {
  fft: number;
  overlap: number;
  window: string;
  averaging: number;
  dbMin: number;
  dbMax: number;
  colormap: ColormapName;
  logFrequency: boolean;
  showCurrent: boolean;
  showAverage: boolean;
  showPeak: boolean;
  showMarkers: boolean;
  /** The spectrum's main trace: clear-write or an average (lib/traces.ts), and its parameters. */
  traceMode: TraceMode;
  traceAlpha: number;
  traceFrames: number;
  /** Min hold trace (max hold is showPeak). */
  showMin: boolean;
  /** Levels shown per bin (dBFS) or as density (dBFS/Hz). */
  levelUnit: LevelUnit;
  /** Last source kind picked ('' = the engine's default). */
  sourceKind: string;
  /** Parameters per source kind, so switching kinds keeps each one's values. */
  sourceParams: Record<string, Record<string, ParamValue>>;
}

export function defaultSettings(): Settings {
  const { fft, overlap, window, averaging } = defaultAnalysis;
  return {
    fft,
    overlap,
    window,
    averaging,
    dbMin: DEFAULT_DB_RANGE[0],
    dbMax: DEFAULT_DB_RANGE[1],
    colormap: 'viridis',
    logFrequency: false,
    showCurrent: true,
    showAverage: true,
    showPeak: true,
    showMarkers: true,
    traceMode: 'clear',
    traceAlpha: TRACE_ALPHA_DEFAULT,
    traceFrames: TRACE_FRAMES_DEFAULT,
    showMin: false,
    levelUnit: 'dBFS',
    sourceKind: '',
    sourceParams: {},
  };
}

const paramValue = z.union([z.string().max(4096), z.number().refine(Number.isFinite), z.boolean()]);

const fieldSchemas: { [K in keyof Settings]: z.ZodType<Settings[K]> } = {
  fft: z.number().int().min(FFT_SIZE_MIN).max(LIVE_FFT_SIZE_MAX),
  overlap: z.number().min(0).max(OVERLAP_MAX),
  window: z.string().min(1).max(32),
  averaging: z.number().gt(0).max(1),
  dbMin: z.number().min(-400).max(100),
  dbMax: z.number().min(-400).max(100),
  colormap: z.enum(colormapNames),
  logFrequency: z.boolean(),
  showCurrent: z.boolean(),
  showAverage: z.boolean(),
  showPeak: z.boolean(),
  showMarkers: z.boolean(),
  traceMode: z.enum(TRACE_MODES.map((m) => m.value) as [TraceMode, ...TraceMode[]]),
  traceAlpha: z.number().gt(0).max(1),
  traceFrames: z.number().int().min(2).max(TRACE_FRAMES_MAX),
  showMin: z.boolean(),
  levelUnit: z.enum(LEVEL_UNITS as [LevelUnit, ...LevelUnit[]]),
  sourceKind: z.string().max(32),
  sourceParams: z.record(z.string().max(32), z.record(z.string().max(64), paramValue)),
};

/** Converts the stored object of version v into version v + 1. */
export type Migration = (old: Record<string, unknown>) => Record<string, unknown>;

/** Migrations by the version they start from. None yet: version 1 is the first. */
export const MIGRATIONS: Record<number, Migration> = {};

export interface LoadedSettings {
  settings: Settings;
  /** What was repaired, for the console (empty when the store was clean). */
  notes: string[];
}

/** Validates and completes a stored object of the current version, field by field. */
export function sanitizeSettings(data: Record<string, unknown>, notes: string[] = []): Settings {
  const out = defaultSettings();
  const target = out as unknown as Record<string, unknown>;
  for (const key of Object.keys(fieldSchemas) as Array<keyof Settings>) {
    if (!(key in data)) continue;
    const parsed = fieldSchemas[key].safeParse(data[key]);
    if (parsed.success) target[key] = parsed.data;
    else notes.push(`setting "${key}" was not valid; using the default`);
  }
  if (!(out.dbMin < out.dbMax)) {
    notes.push('dB range was empty; using the default');
    const d = defaultSettings();
    out.dbMin = d.dbMin;
    out.dbMax = d.dbMax;
  }
  return out;
}

/** Parses what localStorage held (null when nothing), migrating older versions. */
export function parseStoredSettings(
  raw: string | null,
  migrations: Record<number, Migration> = MIGRATIONS,
  currentVersion = SETTINGS_VERSION,
): LoadedSettings {
  const notes: string[] = [];
  if (raw === null) return { settings: defaultSettings(), notes };
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    notes.push('stored settings were not valid JSON; using the defaults');
    return { settings: defaultSettings(), notes };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    notes.push('stored settings were not an object; using the defaults');
    return { settings: defaultSettings(), notes };
  }
  const envelope = doc as { version?: unknown; settings?: unknown };
  let version =
    typeof envelope.version === 'number' && Number.isInteger(envelope.version) ? envelope.version : 0;
  let data =
    typeof envelope.settings === 'object' && envelope.settings !== null && !Array.isArray(envelope.settings)
      ? (envelope.settings as Record<string, unknown>)
      : {};
  while (version < currentVersion) {
    const step = migrations[version];
    if (!step) {
      notes.push(`no migration from settings version ${version}; using the defaults`);
      return { settings: defaultSettings(), notes };
    }
    data = step(data);
    version++;
  }
  if (version > currentVersion) {
    notes.push(`settings from a newer Phasor (version ${version}); keeping the fields this one knows`);
  }
  return { settings: sanitizeSettings(data, notes), notes };
}

export function serializeSettings(settings: Settings): string {
  return JSON.stringify({ version: SETTINGS_VERSION, settings });
}

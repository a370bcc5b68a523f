// The FIR filter designer: the design form (kept between runs), the engine's design and response for it
// (designFilter, debounced, stale answers dropped), taps imported from a file instead, and applying the
// taps to the open file (output path, progress, cancel), after which the output opens beside the input.

import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, toRaw, watch } from 'vue';
import type {
  ApplyFilterResult,
  FilterDesignResult,
  FilterKind,
  FilterResponse,
  MethodParams,
} from '../../../electron/engine/protocol/messages.js';
import { chooseFile, hasNativeDialog } from '../lib/bridge.js';
import { tapsResponse } from '../lib/filter-response.js';
import { filteredOutputPath } from '../lib/paths.js';
import { createTask } from '../lib/task.js';
import { parseTaps } from '../lib/taps.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';

export type DesignMode = 'window' | 'kaiser';

export interface FilterDesign {
  kind: FilterKind;
  /** Edge (Hz) of a low- or high-pass. */
  cutoff: number;
  /** Edges (Hz) of a band-pass or band-stop. */
  band: [number, number];
  mode: DesignMode;
  /** Window design: length and window (hann, hamming, blackman, kaiser:β…). */
  numtaps: number;
  window: string;
  /** Kaiser design (scipy.signal.kaiserord): transition width (Hz) and stop-band attenuation (dB). */
  width: number;
  ripple: number;
  /** Sample rate used when no file is open (Hz). */
  fs: number;
}

export const FILTER_DESIGN_KEY = 'phasor.filterDesign';
export const DESIGN_DEBOUNCE_MS = 200;

export function defaultDesign(): FilterDesign {
  return {
    kind: 'lowpass',
    cutoff: 4000,
    band: [1000, 4000],
    mode: 'window',
    numtaps: 101,
    window: 'hamming',
    width: 500,
    ripple: 60,
    fs: 48000,
  };
}

export class DesignError extends Error {
  override name = 'DesignError';
}

const fmtHz = (f: number) => `${+f.toFixed(3)} Hz`;

/**
 * The designFilter request for a design at sample rate `fs`, or a DesignError naming what to fix (the
 * same constraints firwin puts on its arguments, so the user learns before the engine refuses).
 */
export function designParams(d: FilterDesign, fs: number, points = 1024): MethodParams['designFilter'] {
  if (!(fs > 0) || !Number.isFinite(fs))
    throw new DesignError('the sample rate must be a positive number of Hz');
  const nyq = fs / 2;
  let cutoff: number | [number, number];
  if (d.kind === 'lowpass' || d.kind === 'highpass') {
    if (!(d.cutoff > 0 && d.cutoff < nyq)) {
      throw new DesignError(`the cutoff must lie between 0 and ${fmtHz(nyq)} (half the sample rate)`);
    }
    cutoff = d.cutoff;
  } else {
    const [lo, hi] = d.band;
    if (!(lo > 0 && hi < nyq && lo < hi)) {
      throw new DesignError(`the band edges must satisfy 0 < low < high < ${fmtHz(nyq)}`);
    }
    cutoff = [lo, hi];
  }
  const passesNyquist = d.kind === 'highpass' || d.kind === 'bandstop';
  if (d.mode === 'window') {
    if (!Number.isInteger(d.numtaps) || d.numtaps < 1 || d.numtaps > 65535) {
      throw new DesignError('the number of taps must be a whole number from 1 to 65535');
    }
    if (passesNyquist && d.numtaps % 2 === 0) {
      throw new DesignError(
        `a ${d.kind === 'highpass' ? 'high-pass' : 'band-stop'} filter needs an odd number of taps`,
      );
    }
    if (!d.window) throw new DesignError('choose a window');
    return { kind: d.kind, cutoff, fs, numtaps: d.numtaps, window: d.window, points };
  }
  if (!(d.ripple > 0 && d.ripple <= 300)) {
    throw new DesignError('the stop-band attenuation must be a positive number of dB (at most 300)');
  }
  if (!(d.width > 0 && d.width < nyq)) {
    throw new DesignError(`the transition width must lie between 0 and ${fmtHz(nyq)}`);
  }
  return { kind: d.kind, cutoff, fs, ripple: d.ripple, width: d.width, points };
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The stored design, each field checked on its own (a bad one falls back to its default). */
export function loadDesign(text: string | null): FilterDesign {
  const d = defaultDesign();
  if (!text) return d;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return d;
  }
  if (!o || typeof o !== 'object') return d;
  const pos = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (['lowpass', 'highpass', 'bandpass', 'bandstop'].includes(o.kind as string))
    d.kind = o.kind as FilterKind;
  if (pos(o.cutoff)) d.cutoff = o.cutoff as number;
  if (Array.isArray(o.band) && o.band.length === 2 && o.band.every(pos)) d.band = [o.band[0], o.band[1]];
  if (o.mode === 'window' || o.mode === 'kaiser') d.mode = o.mode;
  if (Number.isInteger(o.numtaps) && (o.numtaps as number) >= 1 && (o.numtaps as number) <= 65535)
    d.numtaps = o.numtaps as number;
  if (typeof o.window === 'string' && o.window.length > 0 && o.window.length <= 32) d.window = o.window;
  if (pos(o.width)) d.width = o.width as number;
  if (pos(o.ripple) && (o.ripple as number) <= 300) d.ripple = o.ripple as number;
  if (pos(o.fs)) d.fs = o.fs as number;
  return d;
}

export const useFilterStore = defineStore('filter', () => {
  const connection = useConnectionStore();
  const files = useFilesStore();

  const design = reactive<FilterDesign>(loadDesign(storage()?.getItem(FILTER_DESIGN_KEY) ?? null));
  const result = shallowRef<FilterDesignResult | null>(null);
  const designError = ref('');
  const designing = ref(false);
  const imported = shallowRef<{ name: string; taps: number[] } | null>(null);
  const importError = ref('');

  /** The sample rate designs are for: the open file's, else the one typed in. */
  const fs = computed(() => files.current?.sampleRate ?? design.fs);

  const taps = computed<number[] | null>(() => imported.value?.taps ?? result.value?.taps ?? null);
  const response = computed<FilterResponse | null>(() =>
    imported.value ? tapsResponse(imported.value.taps, fs.value, 1024) : (result.value?.response ?? null),
  );

  // ---------------------------------------------------------------------------------------------
  // Design

  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function designNow(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const mine = ++seq;
    let params: MethodParams['designFilter'];
    try {
      params = designParams(toRaw(design), fs.value);
    } catch (e) {
      designError.value = e instanceof Error ? e.message : String(e);
      return;
    }
    designing.value = true;
    try {
      const r = await connection.request('designFilter', params);
      if (mine !== seq) return;
      result.value = r;
      designError.value = '';
    } catch (e) {
      if (mine === seq) designError.value = e instanceof Error ? e.message : String(e);
    } finally {
      if (mine === seq) designing.value = false;
    }
  }

  function scheduleDesign(): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void designNow(), DESIGN_DEBOUNCE_MS);
  }

  watch(
    design,
    () => {
      try {
        storage()?.setItem(FILTER_DESIGN_KEY, JSON.stringify(toRaw(design)));
      } catch {
        // Kept for this run only.
      }
      scheduleDesign();
    },
    { deep: true },
  );
  watch(fs, scheduleDesign);
  watch(
    () => connection.epoch,
    () => scheduleDesign(),
  );
  // The design the form opens with (default or stored) is drawn without waiting for an edit; before the
  // engine has said hello, the epoch watch above does it.
  if (connection.ready) scheduleDesign();

  function setKind(kind: FilterKind): void {
    design.kind = kind;
    // High-pass and band-stop need an odd length.
    if ((kind === 'highpass' || kind === 'bandstop') && design.numtaps % 2 === 0) design.numtaps += 1;
  }

  // ---------------------------------------------------------------------------------------------
  // Taps in and out

  function importTaps(text: string, name: string): boolean {
    try {
      imported.value = { name, taps: parseTaps(text, name) };
      importError.value = '';
      return true;
    } catch (e) {
      importError.value = e instanceof Error ? e.message : String(e);
      return false;
    }
  }

  function clearImport(): void {
    imported.value = null;
    importError.value = '';
  }

  /** What the exported files say about the taps. */
  function describe(): Record<string, unknown> {
    if (imported.value) return { source: imported.value.name, fs: fs.value };
    const r = result.value;
    const d = design;
    const cutoff = d.kind === 'lowpass' || d.kind === 'highpass' ? d.cutoff : [...d.band];
    return {
      kind: d.kind,
      cutoff,
      fs: fs.value,
      window: r?.window ?? d.window,
      ...(r?.beta !== undefined ? { beta: r.beta } : {}),
      ...(d.mode === 'kaiser' ? { ripple: d.ripple, width: d.width } : {}),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Apply to the open file

  const task = createTask();
  const applied = shallowRef<ApplyFilterResult | null>(null);
  /** The output path typed or chosen; '' follows the default beside the input. */
  const outputEdited = ref('');
  const outputPath = computed({
    get: () => outputEdited.value || (files.current ? filteredOutputPath(files.current.path) : ''),
    set: (v: string) => (outputEdited.value = v),
  });
  const applyError = ref('');

  watch(
    () => files.currentId,
    () => {
      outputEdited.value = '';
      applied.value = null;
    },
  );

  /** Save dialog (desktop); web mode edits the path in place. */
  async function chooseOutput(): Promise<void> {
    if (!hasNativeDialog()) return;
    const p = await chooseFile({
      mode: 'save',
      title: 'Save the filtered file as',
      defaultPath: outputPath.value,
      filters: [
        { name: 'WAV', extensions: ['wav'] },
        { name: 'SigMF', extensions: ['sigmf-meta'] },
      ],
    });
    if (p) outputEdited.value = p;
  }

  async function apply(): Promise<ApplyFilterResult | null> {
    const input = files.current;
    const t = taps.value;
    applyError.value = '';
    if (!input) {
      applyError.value = 'open a file first (File view)';
      return null;
    }
    if (!t || t.length === 0) {
      applyError.value = designError.value || 'no taps: design a filter or import taps';
      return null;
    }
    const output = outputPath.value.trim();
    if (!output) {
      applyError.value = 'say where the filtered file goes';
      return null;
    }
    applied.value = null;
    const r = await task.run((options) =>
      connection.request('applyFilter', { file: input.file, output, taps: t }, options),
    );
    if (!r) {
      if (task.outcome === 'failed') applyError.value = task.error;
      return null;
    }
    applied.value = r;
    // The output beside the input, for the before/after spectrograms.
    if (files.currentId === input.file) await files.open(r.output, { compare: true });
    return r;
  }

  return {
    design,
    result,
    designError,
    designing,
    imported,
    importError,
    fs,
    taps,
    response,
    designNow,
    scheduleDesign,
    setKind,
    importTaps,
    clearImport,
    describe,
    task,
    applied,
    outputPath,
    applyError,
    chooseOutput,
    apply,
  };
});

// The backend benchmark: every backend with its device or why it is unavailable (listBackends), the run
// (backends × ops × sizes, rows arriving with the progress events), its export, and a second run imported
// from a file to compare machines side by side.

import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, toRaw, watch } from 'vue';
import type {
  BackendDetails,
  BenchResult,
  BenchRowInfo,
  DeviceBenchRowInfo,
  DeviceTimerInfo,
} from '../../../electron/engine/protocol/messages.js';
import { SPECTRUM_FFT_SIZE_MAX } from '../../../electron/engine/protocol/shape.js';
import { benchToCsv, benchToJson, compareRuns, parseBenchFile, withSpeedups } from '../lib/bench-io.js';
import { createTask } from '../lib/task.js';
import { useConnectionStore } from './connection.js';

export const BENCH_OPS = ['fft', 'rfft', 'spectrogram', 'fir', 'correlate'] as const;
export type BenchOp = (typeof BENCH_OPS)[number];

export const BENCH_CHOICE_KEY = 'phasor.benchChoice';

export interface BenchChoice {
  backends: string[];
  ops: BenchOp[];
  /** Sizes as typed ('' = each op's defaults, as `phasor bench`). */
  sizes: string;
  /** Input samples per timed call ('' = the engine's default). */
  samples: string;
  repeats: string;
  /** Also the GPU backends' device-timed rows (CUDA events, WebGPU timestamp queries). */
  device: boolean;
}

export function defaultChoice(): BenchChoice {
  return {
    backends: [],
    ops: ['fft', 'fir'],
    sizes: '256, 1024, 4096, 16384',
    samples: '',
    repeats: '',
    device: true,
  };
}

/** Sizes from text ("1024, 4096 65536", "2^14", "64k"), or an error sentence. */
export function parseSizes(text: string): number[] | string {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const out: number[] = [];
  for (const p of parts) {
    let v: number;
    const pow = /^2\^(\d+)$/.exec(p);
    const k = /^(\d+(?:\.\d+)?)k$/i.exec(p);
    if (pow) v = 2 ** Number(pow[1]);
    else if (k) v = Math.round(Number(k[1]) * 1024);
    else v = Number(p);
    if (!Number.isInteger(v) || v < 1 || v > SPECTRUM_FFT_SIZE_MAX)
      return `"${p}" is not a size from 1 to ${SPECTRUM_FFT_SIZE_MAX}`;
    if (!out.includes(v)) out.push(v);
  }
  if (out.length > 64) return 'at most 64 sizes';
  return out.sort((a, b) => a - b);
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function loadChoice(): BenchChoice {
  const d = defaultChoice();
  try {
    const o = JSON.parse(storage()?.getItem(BENCH_CHOICE_KEY) ?? 'null') as Partial<BenchChoice> | null;
    if (!o) return d;
    if (Array.isArray(o.backends)) d.backends = o.backends.filter((b) => typeof b === 'string');
    if (Array.isArray(o.ops))
      d.ops = o.ops.filter((x): x is BenchOp => (BENCH_OPS as readonly string[]).includes(x));
    for (const k of ['sizes', 'samples', 'repeats'] as const) if (typeof o[k] === 'string') d[k] = o[k];
    if (typeof o.device === 'boolean') d.device = o.device;
  } catch {
    // Defaults.
  }
  return d;
}

export const useBenchStore = defineStore('bench', () => {
  const connection = useConnectionStore();

  const backends = shallowRef<BackendDetails[]>([]);
  const loadingBackends = ref(false);
  const backendsError = ref('');
  const choice = reactive<BenchChoice>(loadChoice());
  /** Rows of the run in progress (as the progress events bring them) or of the last run. */
  const rows = shallowRef<BenchRowInfo[]>([]);
  /** Device-timed rows of the last run (they arrive with its result), and how each GPU backend timed. */
  const deviceRows = shallowRef<DeviceBenchRowInfo[]>([]);
  const deviceTimers = shallowRef<DeviceTimerInfo[]>([]);
  const run = shallowRef<BenchResult | null>(null);
  const compared = shallowRef<BenchResult | null>(null);
  const comparedName = ref('');
  const error = ref('');
  const task = createTask();

  watch(
    choice,
    () => {
      try {
        storage()?.setItem(BENCH_CHOICE_KEY, JSON.stringify(toRaw(choice)));
      } catch {
        // Kept for this run only.
      }
    },
    { deep: true },
  );

  const available = computed(() => backends.value.filter((b) => b.available).map((b) => b.name));
  /** The backends to run: those chosen that are available, else every available one. */
  const selectedBackends = computed(() => {
    const picked = choice.backends.filter((b) => available.value.includes(b));
    return picked.length ? picked : available.value;
  });

  const shownRows = computed(() => withSpeedups(rows.value));
  const comparison = computed(() =>
    compared.value
      ? compareRuns(
          run.value ?? { machine: compared.value.machine, backends: [], rows: shownRows.value },
          compared.value,
        )
      : [],
  );

  async function loadBackends(): Promise<void> {
    loadingBackends.value = true;
    backendsError.value = '';
    try {
      backends.value = (await connection.request('listBackends', {})).backends;
    } catch (e) {
      backendsError.value = e instanceof Error ? e.message : String(e);
    } finally {
      loadingBackends.value = false;
    }
  }

  function toggleBackend(name: string, on: boolean): void {
    const base = choice.backends.length ? choice.backends : [...selectedBackends.value];
    choice.backends = on ? [...new Set([...base, name])] : base.filter((b) => b !== name);
  }

  function toggleOp(op: BenchOp, on: boolean): void {
    choice.ops = on
      ? BENCH_OPS.filter((o) => o === op || choice.ops.includes(o))
      : choice.ops.filter((o) => o !== op);
  }

  async function start(): Promise<void> {
    error.value = '';
    const sizes = choice.sizes.trim() ? parseSizes(choice.sizes) : undefined;
    if (typeof sizes === 'string') {
      error.value = sizes;
      return;
    }
    const names = selectedBackends.value;
    if (names.length === 0) {
      error.value = 'no backend is available to run';
      return;
    }
    if (choice.ops.length === 0) {
      error.value = 'choose at least one operation';
      return;
    }
    const params: Parameters<typeof connection.request<'runBench'>>[1] = {
      backends: names.slice(0, 8),
      ops: [...choice.ops],
    };
    if (sizes && sizes.length) params.sizes = sizes;
    const samples = Number(choice.samples);
    if (choice.samples.trim() && Number.isInteger(samples)) params.samples = samples;
    const repeats = Number(choice.repeats);
    if (choice.repeats.trim() && Number.isInteger(repeats)) params.repeats = repeats;
    // the CPU has no device rows: ask only when a GPU backend runs; the samples chosen apply to them too
    if (choice.device && names.some((n) => n !== 'cpu')) {
      params.device = true;
      if (params.samples !== undefined) params.deviceSamples = params.samples;
    }
    rows.value = [];
    deviceRows.value = [];
    deviceTimers.value = [];
    run.value = null;
    const r = await task.run(
      (options) => connection.request('runBench', params, options),
      (e) => {
        if (e.row) rows.value = [...rows.value, e.row];
      },
    );
    if (r) {
      run.value = r;
      rows.value = r.rows;
      deviceRows.value = r.deviceRows ?? [];
      deviceTimers.value = r.deviceTimers ?? [];
      if (r.backends.length) backends.value = r.backends;
    } else if (task.outcome === 'failed') error.value = task.error;
  }

  /** The run to export: the finished one, else the rows measured so far. */
  function current(): BenchResult | null {
    if (run.value) return run.value;
    if (rows.value.length === 0) return null;
    return {
      machine: { date: new Date().toISOString(), cpu: 'unknown', threads: 0, node: '', platform: '' },
      backends: backends.value,
      rows: rows.value,
    };
  }

  function exportJson(): string | null {
    const r = current();
    return r ? benchToJson(r) : null;
  }

  function exportCsv(): string | null {
    const r = current();
    return r ? benchToCsv(r) : null;
  }

  /** Loads an exported run: to compare with the current one, or as the current one when there is none. */
  function importRun(text: string, name: string): boolean {
    try {
      const r = parseBenchFile(text);
      if (!run.value && rows.value.length === 0) {
        run.value = r;
        rows.value = r.rows;
        deviceRows.value = r.deviceRows ?? [];
        deviceTimers.value = r.deviceTimers ?? [];
      } else {
        compared.value = r;
        comparedName.value = name;
      }
      error.value = '';
      return true;
    } catch (e) {
      error.value = `${name}: ${e instanceof Error ? e.message : String(e)}`;
      return false;
    }
  }

  function clearCompared(): void {
    compared.value = null;
    comparedName.value = '';
  }

  return {
    backends,
    loadingBackends,
    backendsError,
    choice,
    rows,
    deviceRows,
    deviceTimers,
    run,
    compared,
    comparedName,
    error,
    task,
    available,
    selectedBackends,
    shownRows,
    comparison,
    loadBackends,
    toggleBackend,
    toggleOp,
    start,
    exportJson,
    exportCsv,
    importRun,
    clearCompared,
  };
});

// Files opened in the engine (handles live as long as the connection): which one the File view shows, the
// one compared with it (a filtered copy), the visible region and the selection, and the ways to open a
// file (native dialog, the in-app browser, drag and drop, raw I/Q parameters asked once and remembered).
// After a reconnection the engine has forgotten the handles: every file is opened again by its path.

import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, toRaw, watch } from 'vue';
import type { FileInfo, MethodParams } from '../../../electron/engine/protocol/messages.js';
import {
  DEFAULT_DB_RANGE,
  DEFAULT_WINDOW,
  FFT_SIZE_MIN,
  FILE_FFT_SIZE_MAX,
} from '../../../electron/engine/protocol/shape.js';
import { chooseFile, hasNativeDialog, pathForFile } from '../lib/bridge.js';
import {
  fileBounds,
  panRegion,
  regionAround,
  zoomFrequency as zoomFrequencyOf,
  zoomTime as zoomTimeOf,
  type Region,
  type Selection,
} from '../lib/file-view.js';
import {
  OPENABLE_EXTENSIONS,
  baseName,
  defaultRawFormat,
  extensionOf,
  isRawPath,
  needsRawParams,
  recallRawParams,
  rememberRawParams,
  type RawParams,
} from '../lib/raw-formats.js';
import { uploadFile } from '../lib/upload.js';
import { useConnectionStore } from './connection.js';

type OpenParams = MethodParams['openFile'];

/** A raw file waiting for the user to say its format, rate and centre. */
export interface RawPrompt {
  path: string;
  /** Pre-filled answer: remembered, else from the extension. */
  params: RawParams;
  /** Why we ask (the engine's message when it refused without them). */
  message: string;
  /** Open as the comparison file rather than the current one. */
  compare: boolean;
}

/** How file spectrograms are computed and coloured (kept between runs). */
export interface FileDisplay {
  window: string;
  /** Frame length; 0 chooses one per view (chooseAnalysis). */
  fft: number;
  /** Levels from each image's own range, else dbMin…dbMax. */
  autoLevels: boolean;
  dbMin: number;
  dbMax: number;
}

export const FILE_DISPLAY_KEY = 'phasor.fileDisplay';

function loadDisplay(): FileDisplay {
  const d: FileDisplay = {
    window: DEFAULT_WINDOW,
    fft: 0,
    autoLevels: true,
    dbMin: DEFAULT_DB_RANGE[0],
    dbMax: DEFAULT_DB_RANGE[1],
  };
  try {
    const o = JSON.parse(localStorage.getItem(FILE_DISPLAY_KEY) ?? 'null') as Partial<FileDisplay> | null;
    if (o && typeof o === 'object') {
      if (typeof o.window === 'string' && o.window.length > 0 && o.window.length <= 32) d.window = o.window;
      if (typeof o.autoLevels === 'boolean') d.autoLevels = o.autoLevels;
      if (Number.isInteger(o.fft) && (o.fft === 0 || (o.fft! >= FFT_SIZE_MIN && o.fft! <= FILE_FFT_SIZE_MAX)))
        d.fft = o.fft!;
      if (Number.isFinite(o.dbMin) && Number.isFinite(o.dbMax) && o.dbMin! < o.dbMax!) {
        d.dbMin = o.dbMin!;
        d.dbMax = o.dbMax!;
      }
    }
  } catch {
    // Defaults.
  }
  return d;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Which of several dropped files to open: a SigMF metadata file first, else the first openable one. */
export function pickDropped(names: string[]): number {
  const meta = names.findIndex((n) => extensionOf(n) === 'sigmf-meta' || extensionOf(n) === 'sigmf');
  if (meta >= 0) return meta;
  const ok = names.findIndex((n) => OPENABLE_EXTENSIONS.includes(extensionOf(n)));
  return ok >= 0 ? ok : 0;
}

export const useFilesStore = defineStore('files', () => {
  const connection = useConnectionStore();

  const files = shallowRef<FileInfo[]>([]);
  /** How each file was opened (to open it again after a reconnection). */
  const openedWith = new Map<number, OpenParams>();
  const currentId = ref<number | null>(null);
  const compareId = ref<number | null>(null);
  const region = shallowRef<Region | null>(null);
  const selection = shallowRef<Selection | null>(null);
  const opening = ref(false);
  const error = ref('');
  const rawPrompt = shallowRef<RawPrompt | null>(null);
  const browserOpen = ref(false);
  /** Increments whenever code (not a gesture) moves the view, e.g. to show a correlation peak. */
  const jumps = ref(0);
  const display = reactive<FileDisplay>(loadDisplay());
  watch(
    display,
    () => {
      try {
        localStorage.setItem(FILE_DISPLAY_KEY, JSON.stringify(toRaw(display)));
      } catch {
        // Kept for this run only.
      }
    },
    { deep: true },
  );

  const current = computed(() => files.value.find((f) => f.file === currentId.value) ?? null);
  const compare = computed(() => files.value.find((f) => f.file === compareId.value) ?? null);

  function byId(id: number | null): FileInfo | null {
    return files.value.find((f) => f.file === id) ?? null;
  }

  function add(info: FileInfo, params: OpenParams): void {
    openedWith.set(info.file, params);
    files.value = [...files.value.filter((f) => f.file !== info.file), info];
  }

  function show(info: FileInfo): void {
    // A comparison belongs to the file it was made for.
    if (currentId.value !== info.file) compareId.value = null;
    currentId.value = info.file;
    region.value = fileBounds(info);
    selection.value = null;
  }

  /**
   * Opens `path` (with raw parameters when given, remembered ones, or by asking). Makes it current, or the
   * comparison file when `compare`. Resolves with the file, or null when it waits for the user or failed.
   */
  async function open(
    path: string,
    options: { raw?: RawParams; compare?: boolean } = {},
  ): Promise<FileInfo | null> {
    const compare = !!options.compare;
    let raw = options.raw ?? null;
    if (!raw && isRawPath(path)) {
      raw = recallRawParams(path);
      if (!raw) {
        rawPrompt.value = {
          path,
          params: { format: defaultRawFormat(path), rate: 0 },
          message: `${baseName(path)} is raw I/Q: say how its samples are stored`,
          compare,
        };
        return null;
      }
    }
    const params: OpenParams = { path };
    if (raw) {
      params.format = raw.format;
      params.rate = raw.rate;
      if (raw.center !== undefined) params.center = raw.center;
    }
    opening.value = true;
    error.value = '';
    try {
      const info = await connection.request('openFile', params);
      if (raw) rememberRawParams(path, raw);
      add(info, params);
      if (compare) compareId.value = info.file;
      else show(info);
      rawPrompt.value = null;
      return info;
    } catch (e) {
      const text = message(e);
      if (needsRawParams(text) || (raw && /raw IQ|format|rate/i.test(text) && isRawPath(path))) {
        rawPrompt.value = {
          path,
          params: raw ?? recallRawParams(path) ?? { format: defaultRawFormat(path), rate: 0 },
          message: raw ? text : `${baseName(path)} has no header Phasor knows: is it raw I/Q?`,
          compare,
        };
      } else error.value = text;
      return null;
    } finally {
      opening.value = false;
    }
  }

  function submitRaw(params: RawParams): Promise<FileInfo | null> {
    const p = rawPrompt.value;
    if (!p) return Promise.resolve(null);
    return open(p.path, { raw: params, compare: p.compare });
  }

  function cancelRaw(): void {
    rawPrompt.value = null;
  }

  async function close(id: number): Promise<void> {
    files.value = files.value.filter((f) => f.file !== id);
    openedWith.delete(id);
    if (compareId.value === id) compareId.value = null;
    if (currentId.value === id) {
      const next = files.value.at(-1) ?? null;
      if (next) {
        show(next);
        if (compareId.value === next.file) compareId.value = null;
      } else {
        currentId.value = null;
        region.value = null;
        selection.value = null;
      }
    }
    try {
      await connection.request('closeFile', { file: id });
    } catch {
      // Already gone (e.g. the connection was lost): nothing to free.
    }
  }

  function select(id: number): void {
    const info = byId(id);
    if (info && id !== currentId.value) {
      show(info);
      if (compareId.value === id) compareId.value = null;
    }
  }

  function setCompare(id: number | null): void {
    compareId.value = id !== null && byId(id) && id !== currentId.value ? id : null;
  }

  // -------------------------------------------------------------------------------------------------
  // Ways to open

  /** Open… : the native dialog in the desktop app, the in-app browser in web mode. */
  async function chooseAndOpen(): Promise<void> {
    if (!hasNativeDialog()) {
      browserOpen.value = true;
      return;
    }
    try {
      const path = await chooseFile({
        mode: 'open',
        title: 'Open a recording',
        filters: [
          { name: 'Recordings', extensions: OPENABLE_EXTENSIONS },
          { name: 'All files', extensions: ['*'] },
        ],
      });
      if (path) await open(path);
    } catch (e) {
      error.value = message(e);
    }
  }

  /** Files dropped on the window: their real paths (desktop) or uploaded first (web mode). */
  async function openDropped(list: ArrayLike<File>): Promise<FileInfo | null> {
    const dropped = Array.from(list);
    if (dropped.length === 0) return null;
    error.value = '';
    const pick = pickDropped(dropped.map((f) => f.name));
    const native = pathForFile(dropped[pick]);
    if (native) return open(native);
    opening.value = true;
    try {
      // A SigMF pair needs both halves beside each other on the server.
      const uploads =
        dropped.length > 1 && extensionOf(dropped[pick].name).startsWith('sigmf') ? dropped : [dropped[pick]];
      let path = '';
      for (const f of uploads) {
        const stored = await uploadFile(f);
        if (f === dropped[pick]) path = stored;
      }
      opening.value = false;
      return await open(path);
    } catch (e) {
      error.value = message(e);
      return null;
    } finally {
      opening.value = false;
    }
  }

  // -------------------------------------------------------------------------------------------------
  // View and selection

  function setRegion(r: Region): void {
    region.value = r;
  }

  function zoomTime(factor: number, anchorX = 0.5): void {
    const info = current.value;
    if (info && region.value) region.value = zoomTimeOf(region.value, factor, anchorX, info);
  }

  function zoomFrequency(factor: number, anchorY = 0.5): void {
    const info = current.value;
    if (info && region.value) region.value = zoomFrequencyOf(region.value, factor, anchorY, info);
  }

  function pan(dx: number, dy: number): void {
    const info = current.value;
    if (info && region.value) region.value = panRegion(region.value, dx, dy, info);
  }

  function resetView(): void {
    const info = current.value;
    if (info) region.value = fileBounds(info);
  }

  function setSelection(sel: Selection | null): void {
    selection.value = sel && sel.t1 > sel.t0 ? sel : null;
  }

  function zoomToSelection(): void {
    const info = current.value;
    const sel = selection.value;
    if (!info || !region.value || !sel) return;
    const r = regionAround(sel.t0, sel.t1, region.value, info, 0.05);
    region.value =
      sel.f0 !== undefined && sel.f1 !== undefined && sel.f1 > sel.f0 ? { ...r, f0: sel.f0, f1: sel.f1 } : r;
  }

  /** Shows file `id` around [t0, t1] with that range selected (e.g. a correlation peak). */
  function showTime(id: number, t0: number, t1: number): void {
    const info = byId(id);
    if (!info) return;
    if (currentId.value !== id) show(info);
    const whole = fileBounds(info);
    selection.value = { t0: Math.max(0, t0), t1: Math.min(whole.t1, Math.max(t1, t0 + 1 / info.sampleRate)) };
    region.value = regionAround(selection.value.t0, selection.value.t1, { ...whole }, info, 1);
    jumps.value++;
  }

  // -------------------------------------------------------------------------------------------------
  // Reconnection: open everything again, keeping what was current and compared.

  async function reopenAll(): Promise<void> {
    const before = files.value;
    if (before.length === 0) return;
    const cur = currentId.value;
    const cmp = compareId.value;
    const keptRegion = region.value;
    const keptSelection = selection.value;
    const params = new Map(openedWith);
    files.value = [];
    openedWith.clear();
    currentId.value = null;
    compareId.value = null;
    for (const old of before) {
      const p = params.get(old.file) ?? { path: old.path };
      try {
        const info = await connection.request('openFile', p);
        add(info, p);
        if (old.file === cur) {
          currentId.value = info.file;
          region.value = keptRegion ?? fileBounds(info);
          selection.value = keptSelection;
        }
        if (old.file === cmp) compareId.value = info.file;
      } catch (e) {
        error.value = `${old.name}: could not open it again after reconnecting (${message(e)})`;
      }
    }
    if (currentId.value === null && files.value.length) show(files.value[0]);
  }

  let seenEpoch = connection.epoch;
  watch(
    () => connection.epoch,
    (epoch) => {
      if (epoch !== seenEpoch && seenEpoch > 0) void reopenAll();
      seenEpoch = epoch;
    },
  );

  return {
    files,
    currentId,
    compareId,
    current,
    compare,
    region,
    selection,
    opening,
    error,
    rawPrompt,
    browserOpen,
    jumps,
    display,
    byId,
    open,
    submitRaw,
    cancelRaw,
    close,
    select,
    setCompare,
    chooseAndOpen,
    openDropped,
    setRegion,
    zoomTime,
    zoomFrequency,
    pan,
    resetView,
    setSelection,
    zoomToSelection,
    showTime,
    reopenAll,
  };
});

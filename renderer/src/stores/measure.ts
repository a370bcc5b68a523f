// Band measurements of the File view's selection (the engine's measure request): band power, occupied
// bandwidth, SNR, THD/THD+N and the RBW they were made with. Measured again, debounced, when the selection,
// the file or the window changes (while `auto` is on); a new request cancels the one before.

import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef, watch } from 'vue';
import type { MeasureResult, MethodParams } from '../../../electron/engine/protocol/messages.js';
import { selectionFrames } from '../lib/file-view.js';
import { createTask } from '../lib/task.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';

/** Quiet time after the last selection change before measuring (ms). */
export const MEASURE_DEBOUNCE_MS = 300;

export const useMeasureStore = defineStore('measure', () => {
  const connection = useConnectionStore();
  const files = useFilesStore();

  /** Measure whenever the selection changes. */
  const auto = ref(true);
  const result = shallowRef<MeasureResult | null>(null);
  /** The file the result belongs to. */
  const resultFile = ref<number | null>(null);
  const error = ref('');
  const task = createTask();

  /** The request for the current selection (the whole file without one), or null without a file. */
  const params = computed<MethodParams['measure'] | null>(() => {
    const info = files.current;
    if (!info) return null;
    const sel = files.selection;
    const p: MethodParams['measure'] = { file: info.file, window: files.display.window };
    if (sel) {
      const { start, end } = selectionFrames(sel, info);
      p.start = start;
      p.end = end;
      if (sel.f0 !== undefined && sel.f1 !== undefined && sel.f1 > sel.f0) {
        p.fLow = sel.f0;
        p.fHigh = sel.f1;
      }
    }
    return p;
  });

  async function run(): Promise<void> {
    cancelPending();
    const p = params.value;
    error.value = '';
    if (!p) {
      error.value = 'open a file first';
      return;
    }
    const r = await task.run((options) => connection.request('measure', p, options));
    if (r) {
      result.value = markRaw(r);
      resultFile.value = p.file;
    } else if (task.outcome === 'failed') error.value = task.error;
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  function cancelPending(): void {
    if (timer) clearTimeout(timer);
    timer = null;
  }
  function schedule(): void {
    cancelPending();
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, MEASURE_DEBOUNCE_MS);
  }

  // A result of another file says nothing about this one.
  watch(
    () => files.current?.file,
    (id) => {
      if (id !== resultFile.value) {
        result.value = null;
        error.value = '';
      }
    },
  );
  watch(
    () => (auto.value && files.selection ? JSON.stringify(params.value) : null),
    (key) => {
      if (key === null) {
        cancelPending();
        return;
      }
      // the request in flight is for a selection no longer there
      if (task.running) task.cancel();
      schedule();
    },
  );

  return { auto, result, resultFile, error, task, params, run, schedule, cancelPending };
});

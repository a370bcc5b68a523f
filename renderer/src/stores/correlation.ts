// Streaming correlation of a signal file against a template (another file, or the File view's selection):
// the run with progress and cancel, the normalized score envelope and its top peaks, and the jump from a
// peak to that time in the File view.

import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { CorrelateResult, MethodParams } from '../../../electron/engine/protocol/messages.js';
import { selectionFrames } from '../lib/file-view.js';
import { goToView } from '../lib/navigate.js';
import { createTask } from '../lib/task.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';

export type TemplateMode = 'file' | 'selection';
export type Peak = CorrelateResult['peaks'][number];

/** Times (s) of the envelope's points: point i is the best of lags [i·bucket, (i+1)·bucket). */
export function envelopeTimes(r: Pick<CorrelateResult, 'points' | 'bucket' | 'sampleRate'>): Float64Array {
  const t = new Float64Array(r.points);
  for (let i = 0; i < r.points; i++) t[i] = (i * r.bucket) / r.sampleRate;
  return t;
}

export const useCorrelationStore = defineStore('correlation', () => {
  const connection = useConnectionStore();
  const files = useFilesStore();

  /** The signal; null follows the File view's current file. */
  const signalChoice = ref<number | null>(null);
  const templateMode = ref<TemplateMode>('file');
  const templateId = ref<number | null>(null);
  const top = ref(5);
  const result = shallowRef<(CorrelateResult & { data: Float32Array }) | null>(null);
  /** Which signal the result belongs to (the jump goes there). */
  const resultSignal = ref<number | null>(null);
  const error = ref('');
  const task = createTask();

  const signalId = computed(() =>
    signalChoice.value !== null && files.byId(signalChoice.value) ? signalChoice.value : files.currentId,
  );
  const signal = computed(() => files.byId(signalId.value));

  /** The template part of the request, or a sentence saying what is missing. */
  const template = computed<MethodParams['correlate']['template'] | string>(() => {
    if (templateMode.value === 'selection') {
      const info = files.current;
      const sel = files.selection;
      if (!info || !sel) return 'select a time range in the File view first (drag across the spectrogram)';
      const { start, end } = selectionFrames(sel, info);
      return { file: info.file, start, end };
    }
    const t = files.byId(templateId.value);
    if (!t) return 'choose a template file (open it in the File view)';
    return { file: t.file };
  });

  function params(points = 4096): MethodParams['correlate'] | string {
    const s = signalId.value;
    if (s === null || !files.byId(s)) return 'open a signal file first (File view)';
    const t = template.value;
    if (typeof t === 'string') return t;
    return { signal: s, template: t, top: top.value, points };
  }

  async function run(points = 4096): Promise<void> {
    const p = params(points);
    error.value = '';
    if (typeof p === 'string') {
      error.value = p;
      return;
    }
    result.value = null;
    const r = await task.run((options) => connection.request('correlate', p, options));
    if (r) {
      result.value = markRaw(r);
      resultSignal.value = p.signal;
    } else if (task.outcome === 'failed') error.value = task.error;
  }

  /** Shows the peak in the File view: that file, the template's span selected, zoomed around it. */
  function jumpTo(peak: Peak): void {
    const r = result.value;
    const id = resultSignal.value;
    if (!r || id === null) return;
    files.showTime(id, peak.time, peak.time + r.templateLength / r.sampleRate);
    goToView('file');
  }

  return {
    signalChoice,
    templateMode,
    templateId,
    top,
    result,
    resultSignal,
    error,
    task,
    signalId,
    signal,
    template,
    params,
    run,
    jumpTo,
  };
});

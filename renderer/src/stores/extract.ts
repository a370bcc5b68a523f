// Extracting the File view's selection to a new file (the engine's `extract`): the form, prefilled from
// the selection when the panel opens — shift = the selected band's centre relative to the file's centre
// (0 Hz for real audio), low-pass = half the band's width, decimation = the largest K keeping
// fs/K ≥ 2.5 × the low-pass (protocol/extract.ts) — the output beside the input, progress and cancel,
// and afterwards the new file opened in the File view.

import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef } from 'vue';
import { EXTRACT_NUMTAPS, suggestedDecimation } from '../../../electron/engine/protocol/extract.js';
import type { ExtractResult, FileInfo } from '../../../electron/engine/protocol/messages.js';
import { chooseFile, hasNativeDialog } from '../lib/bridge.js';
import { selectionFrames, type Selection } from '../lib/file-view.js';
import { filteredOutputPath } from '../lib/paths.js';
import { createTask } from '../lib/task.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';

export interface ExtractForm {
  /** Hz moved to 0 Hz (relative to the centre of I/Q). */
  shift: number;
  /** Low-pass cutoff (Hz); 0 or empty: none. */
  lowpass: number | '';
  numtaps: number;
  decimate: number;
  output: string;
}

/** The form a selection suggests for a file. */
export function suggestExtract(info: FileInfo, sel: Selection | null): Omit<ExtractForm, 'output'> {
  let shift = 0;
  let lowpass: number | '' = '';
  if (sel && sel.f0 !== undefined && sel.f1 !== undefined && sel.f1 > sel.f0) {
    const centre = (sel.f0 + sel.f1) / 2;
    shift = info.complex ? centre - (info.centerFrequency ?? 0) : centre;
    lowpass = Math.min((sel.f1 - sel.f0) / 2, info.sampleRate / 2);
    // firwin needs the cutoff below fs/2
    if (lowpass >= info.sampleRate / 2) lowpass = '';
  }
  const decimate = lowpass === '' ? 1 : suggestedDecimation(info.sampleRate, lowpass);
  return { shift, lowpass, numtaps: EXTRACT_NUMTAPS, decimate };
}

/** `<name>-extract.sigmf-meta` beside the input, or `.wav` for a real WAV left unshifted. */
export function extractOutputPath(info: FileInfo, shift: number): string {
  const path = filteredOutputPath(info.path, '-extract');
  return info.complex || shift !== 0 ? path.replace(/\.wav$/, '.sigmf-meta') : path;
}

export const useExtractStore = defineStore('extract', () => {
  const connection = useConnectionStore();
  const files = useFilesStore();

  /** The panel is shown (opened by the selection's Extract… button). */
  const open = ref(false);
  const form = reactive<ExtractForm>({
    shift: 0,
    lowpass: '',
    numtaps: EXTRACT_NUMTAPS,
    decimate: 1,
    output: '',
  });
  /** The selection the form was filled from, in the file's frames. */
  const range = shallowRef<{ file: number; start: number; end: number } | null>(null);
  const task = createTask();
  const result = shallowRef<ExtractResult | null>(null);
  const error = ref('');

  /** The rate the extract will have (of the file the form was filled from, not the one shown now). */
  const outputRate = computed(() => {
    const i = range.value ? files.byId(range.value.file) : null;
    return i && form.decimate >= 1 ? i.sampleRate / form.decimate : 0;
  });

  /** Opens the panel with the form filled from the current file's selection. */
  function start(): void {
    const info = files.current;
    if (!info) return;
    const sel = files.selection;
    const s = suggestExtract(info, sel);
    Object.assign(form, s, { output: extractOutputPath(info, s.shift) });
    const { start: a, end: b } = sel ? selectionFrames(sel, info) : { start: 0, end: info.samples };
    range.value = { file: info.file, start: a, end: b };
    result.value = null;
    error.value = '';
    open.value = true;
  }

  function close(): void {
    task.cancel();
    open.value = false;
  }

  /** Save dialog (desktop); web mode edits the path in place. */
  async function chooseOutput(): Promise<void> {
    if (!hasNativeDialog()) return;
    const p = await chooseFile({
      mode: 'save',
      title: 'Save the extract as',
      defaultPath: form.output,
      filters: [
        { name: 'SigMF', extensions: ['sigmf-meta'] },
        { name: 'WAV', extensions: ['wav'] },
      ],
    });
    if (p) form.output = p;
  }

  async function run(): Promise<ExtractResult | null> {
    const r = range.value;
    error.value = '';
    if (!r || files.byId(r.file) === null) {
      error.value = 'open a file and select a range first';
      return null;
    }
    const output = form.output.trim();
    if (!output) {
      error.value = 'say where the extract goes';
      return null;
    }
    const lowpass = typeof form.lowpass === 'number' && form.lowpass > 0 ? form.lowpass : undefined;
    for (const [name, v] of [
      ['the decimation', form.decimate],
      ['the number of taps', form.numtaps],
    ] as const) {
      if (!Number.isInteger(v) || v < 1) {
        error.value = `${name} must be a whole number ≥ 1`;
        return null;
      }
    }
    result.value = null;
    const done = await task.run((options) =>
      connection.request(
        'extract',
        {
          file: r.file,
          output,
          start: r.start,
          end: r.end,
          shift: Number(form.shift) || 0,
          ...(lowpass !== undefined ? { lowpass, numtaps: form.numtaps } : {}),
          decimate: form.decimate,
        },
        options,
      ),
    );
    if (!done) {
      if (task.outcome === 'failed') error.value = task.error;
      return null;
    }
    result.value = done;
    // The new file takes the File view.
    await files.open(done.output);
    return done;
  }

  return { open, form, range, task, result, error, outputRate, start, close, chooseOutput, run };
});

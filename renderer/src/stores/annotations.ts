// SigMF annotations of the File view's recording: the one selected (highlighted in the spectrogram, shown
// by selecting its time and band), and edits saved to the recording's .sigmf-meta at once through the
// engine (addAnnotation, updateAnnotation, deleteAnnotation), one after another. Each reply carries the
// file's annotations as saved (with their new ids): the open file's FileInfo takes them. A refused edit
// leaves the list as it was and says why in one line.

import { defineStore } from 'pinia';
import { ref } from 'vue';
import type {
  Annotation,
  AnnotationsResult,
  FileInfo,
  MethodParams,
} from '../../../electron/engine/protocol/messages.js';
import { fileBounds, selectionFrames, type FileShape, type Selection } from '../lib/file-view.js';
import { useConnectionStore } from './connection.js';
import { useFilesStore } from './files.js';

export type AnnotationFields = MethodParams['addAnnotation']['annotation'];

/** The fields an edit sends for `a` (its id left out; empty texts dropped). */
export function annotationFields(a: Annotation): AnnotationFields {
  const f: AnnotationFields = { start: a.start };
  if (a.count !== undefined) f.count = a.count;
  if (a.freqLower !== undefined) f.freqLower = a.freqLower;
  if (a.freqUpper !== undefined) f.freqUpper = a.freqUpper;
  if (a.label) f.label = a.label;
  if (a.comment) f.comment = a.comment;
  return f;
}

/** A new annotation covering the selection: its frames, and its band when it has one. */
export function fieldsFromSelection(sel: Selection, info: FileShape): AnnotationFields {
  const { start, end } = selectionFrames(sel, info);
  const f: AnnotationFields = { start, count: end - start };
  if (sel.f0 !== undefined && sel.f1 !== undefined) {
    f.freqLower = Math.min(sel.f0, sel.f1);
    f.freqUpper = Math.max(sel.f0, sel.f1);
  }
  return f;
}

/** The selection an annotation covers: its frames (to the end of the file without a count) and its band
 * (an edge it lacks is the file's). */
export function annotationSelection(a: Annotation, info: FileShape): Selection {
  const fs = info.sampleRate;
  const end = a.count !== undefined ? a.start + a.count : info.samples;
  const sel: Selection = { t0: a.start / fs, t1: Math.max(a.start + 1, end) / fs };
  if (a.freqLower !== undefined || a.freqUpper !== undefined) {
    const b = fileBounds(info);
    sel.f0 = a.freqLower ?? b.f0;
    sel.f1 = a.freqUpper ?? b.f1;
  }
  return sel;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const useAnnotationsStore = defineStore('annotations', () => {
  const connection = useConnectionStore();
  const files = useFilesStore();

  /** The selected annotation: its file handle and id. */
  const selected = ref<{ file: number; id: number } | null>(null);
  const error = ref('');
  const saving = ref(false);
  let queue: Promise<unknown> = Promise.resolve();

  function isSelected(info: FileInfo, a: Annotation): boolean {
    return selected.value?.file === info.file && selected.value.id === a.id;
  }

  /** Selects `a`: its time and band become the selection, and the view zooms to it. */
  function select(info: FileInfo, a: Annotation): void {
    if (a.id === undefined) return;
    selected.value = { file: info.file, id: a.id };
    if (files.currentId === info.file) {
      files.setSelection(annotationSelection(a, info));
      files.zoomToSelection();
    }
  }

  /** Sends one edit after those before it; the file's annotations become the reply's. */
  function save<M extends 'addAnnotation' | 'updateAnnotation' | 'deleteAnnotation'>(
    info: FileInfo,
    method: M,
    params: MethodParams[M],
  ): Promise<AnnotationsResult | null> {
    const run = async (): Promise<AnnotationsResult | null> => {
      saving.value = true;
      error.value = '';
      try {
        const r = await connection.request(method, params);
        files.files = files.files.map((f) =>
          f.file === info.file ? { ...f, annotations: r.annotations } : f,
        );
        if (r.id !== undefined) selected.value = { file: info.file, id: r.id };
        else if (method === 'deleteAnnotation') selected.value = null;
        return r;
      } catch (e) {
        error.value = message(e);
        return null;
      } finally {
        saving.value = false;
      }
    };
    const next = queue.then(run, run);
    queue = next;
    return next;
  }

  /** Adds an annotation over the selection (its band too), labelled `label`. */
  function addFromSelection(info: FileInfo, sel: Selection, label = ''): Promise<AnnotationsResult | null> {
    const annotation = fieldsFromSelection(sel, info);
    if (label) annotation.label = label;
    return save(info, 'addAnnotation', { file: info.file, annotation });
  }

  /** Changes some fields of `a` (an empty label or comment removes it). */
  function update(
    info: FileInfo,
    a: Annotation,
    patch: Partial<AnnotationFields>,
  ): Promise<AnnotationsResult | null> {
    if (a.id === undefined) return Promise.resolve(null);
    const annotation = { ...annotationFields(a), ...patch };
    if (!annotation.label) delete annotation.label;
    if (!annotation.comment) delete annotation.comment;
    return save(info, 'updateAnnotation', { file: info.file, id: a.id, annotation });
  }

  function remove(info: FileInfo, a: Annotation): Promise<AnnotationsResult | null> {
    if (a.id === undefined) return Promise.resolve(null);
    return save(info, 'deleteAnnotation', { file: info.file, id: a.id });
  }

  return { selected, error, saving, isSelected, select, addFromSelection, update, remove };
});

// @vitest-environment happy-dom
// The annotations store and panel against a fake engine: a selection becomes an annotation's frames and band
// and back, edits send the annotation's id with all its fields, the file's list follows each reply, delete
// asks twice, a refusal shows in one line, a file that cannot carry annotations says why.
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Annotation, FileInfo } from '../../electron/engine/protocol/messages.js';
import AnnotationsPanel from '../../renderer/src/components/AnnotationsPanel.vue';
import {
  annotationSelection,
  fieldsFromSelection,
  useAnnotationsStore,
} from '../../renderer/src/stores/annotations.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useFilesStore } from '../../renderer/src/stores/files.js';
import { RequestError } from '../../renderer/src/transport/connection.js';
import { FakeConnection, settle } from './fake-connection.js';
import { fileInfo } from './offline-fixtures.js';

let pinia: Pinia;

beforeEach(() => {
  localStorage.clear();
  pinia = createPinia();
  setActivePinia(pinia);
});

async function connected(): Promise<FakeConnection> {
  const conn = new FakeConnection();
  await useConnectionStore().attach(conn);
  await settle();
  return conn;
}

const iq = (annotations: Annotation[], extra: Partial<FileInfo> = {}) =>
  fileInfo({
    container: 'sigmf',
    complex: true,
    sampleRate: 1e6,
    samples: 1_000_000,
    duration: 1,
    centerFrequency: 100e6,
    annotations,
    ...extra,
  });

describe('annotation geometry', () => {
  it('turns a selection into frames and a band, and back', () => {
    const info = iq([]);
    const f = fieldsFromSelection({ t0: 0.25, t1: 0.5, f0: 100.1e6, f1: 100.3e6 }, info);
    expect(f).toEqual({ start: 250_000, count: 250_000, freqLower: 100.1e6, freqUpper: 100.3e6 });
    expect(annotationSelection({ id: 0, ...f }, info)).toEqual({
      t0: 0.25,
      t1: 0.5,
      f0: 100.1e6,
      f1: 100.3e6,
    });
    // No count: to the end of the file; one edge only: the file's band gives the other.
    expect(annotationSelection({ start: 900_000, freqLower: 100.2e6 }, info)).toEqual({
      t0: 0.9,
      t1: 1,
      f0: 100.2e6,
      f1: 100.5e6,
    });
    expect(fieldsFromSelection({ t0: 0.1, t1: 0.2 }, info)).toEqual({ start: 100_000, count: 100_000 });
  });
});

describe('AnnotationsPanel', () => {
  it('adds from the selection, edits the label with every other field kept, and deletes on a second click', async () => {
    const conn = await connected();
    const files = useFilesStore();
    const burst = {
      id: 1,
      start: 250_000,
      count: 1000,
      freqLower: 100.1e6,
      freqUpper: 100.2e6,
      label: 'burst',
      comment: 'c',
    };
    const info = iq([{ id: 0, start: 10, label: 'first' }, burst]);
    files.files = [info];
    files.currentId = info.file;
    files.setRegion({ t0: 0, t1: 1, f0: 99.5e6, f1: 100.5e6 });
    const saved: Annotation[] = [
      { id: 0, start: 10, label: 'first' },
      { id: 1, start: 100_000, count: 100_000 },
      { ...burst, id: 2 },
    ];
    conn.handle('addAnnotation', () => ({ annotations: saved, id: 1 }));
    conn.handle('updateAnnotation', (p) => ({
      annotations: saved.map((a) => (a.id === p.id ? { id: p.id, ...p.annotation } : a)),
      id: p.id,
    }));
    conn.handle('deleteAnnotation', (p) => ({ annotations: saved.filter((a) => a.id !== p.id) }));
    const current = () => files.byId(info.file)!;
    const w = mount(AnnotationsPanel, {
      props: { info: current(), selection: null },
      global: { plugins: [pinia] },
    });
    const add = w.find('[data-test="annotation-add"]');
    expect(add.attributes('disabled')).toBeDefined();
    await w.setProps({ selection: { t0: 0.1, t1: 0.2 } });
    await add.trigger('click');
    await flushPromises();
    expect(conn.requests.at(-1)).toMatchObject({
      method: 'addAnnotation',
      params: { file: info.file, annotation: { start: 100_000, count: 100_000 } },
    });
    expect(current().annotations).toBe(saved);
    expect(useAnnotationsStore().selected).toEqual({ file: info.file, id: 1 });

    await w.setProps({ info: current() });
    const rows = w.findAll('[data-test="annotation-row"]');
    expect(rows).toHaveLength(3);
    expect(rows[1].classes()).toContain('selected');
    const label = rows[2].find('[data-test="annotation-label"]');
    await label.setValue('renamed');
    await label.trigger('change');
    await flushPromises();
    expect(conn.requests.at(-1)).toEqual(
      expect.objectContaining({
        method: 'updateAnnotation',
        params: {
          file: info.file,
          id: 2,
          annotation: {
            start: 250_000,
            count: 1000,
            freqLower: 100.1e6,
            freqUpper: 100.2e6,
            label: 'renamed',
            comment: 'c',
          },
        },
      }),
    );

    await w.setProps({ info: current() });
    const del = w.findAll('[data-test="annotation-row"]')[0].find('[data-test="annotation-delete"]');
    const before = conn.requests.length;
    await del.trigger('click');
    expect(conn.requests.length).toBe(before);
    expect(del.text()).toBe('Delete?');
    await del.trigger('click');
    await flushPromises();
    expect(conn.requests.at(-1)).toMatchObject({
      method: 'deleteAnnotation',
      params: { file: info.file, id: 0 },
    });
    expect(current().annotations.map((a) => a.id)).toEqual([1, 2]);
    w.unmount();
  });

  it('selects and zooms to an annotation clicked, and shows a refusal in one line', async () => {
    const conn = await connected();
    const files = useFilesStore();
    const info = iq([
      { id: 0, start: 250_000, count: 250_000, freqLower: 100.1e6, freqUpper: 100.3e6, label: 'b' },
    ]);
    files.files = [info];
    files.currentId = info.file;
    files.setRegion({ t0: 0, t1: 1, f0: 99.5e6, f1: 100.5e6 });
    conn.handle('updateAnnotation', () => {
      throw new RequestError('io', 'rec.sigmf-meta: the SigMF metadata changed on disk since it was opened');
    });
    const w = mount(AnnotationsPanel, { props: { info, selection: null }, global: { plugins: [pinia] } });
    await w.find('[data-test="annotation-row"]').trigger('click');
    expect(files.selection).toEqual({ t0: 0.25, t1: 0.5, f0: 100.1e6, f1: 100.3e6 });
    expect(files.region!.f0).toBe(100.1e6);
    expect(files.region!.t0).toBeLessThan(0.25);
    const comment = w.find('[data-test="annotation-comment"]');
    await comment.setValue('note');
    await comment.trigger('change');
    await flushPromises();
    expect(w.find('[data-test="annotations-error"]').text()).toMatch(/changed on disk/);
    expect(files.byId(info.file)!.annotations).toBe(info.annotations);
    w.unmount();
  });

  it('says why a file cannot carry annotations and offers no edit', async () => {
    await connected();
    const info = fileInfo({
      annotationsLocked: 'only SigMF recordings carry annotations (this is a WAV file)',
    });
    const w = mount(AnnotationsPanel, {
      props: { info, selection: { t0: 0, t1: 1 } },
      global: { plugins: [pinia] },
    });
    expect(w.find('[data-test="annotations-locked"]').text()).toMatch(/only SigMF recordings/);
    expect(w.find('[data-test="annotation-add"]').attributes('disabled')).toBeDefined();
    w.unmount();
  });
});

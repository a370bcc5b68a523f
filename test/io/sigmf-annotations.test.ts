// SigMF annotations edited and saved back to the .sigmf-meta (io/sigmf-annotations.ts) and through the
// protocol (addAnnotation, updateAnnotation, deleteAnnotation): every field Phasor does not know survives,
// the list stays sorted, a failed write leaves the original, a file changed on disk is not overwritten, and
// files that cannot carry annotations are refused in one line.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import {
  applyAnnotationEdit,
  editSigmfAnnotations,
  readSigmfMetaFile,
} from '../../electron/engine/io/sigmf-annotations.js';
import type { AnnotationsResult, FileInfo } from '../../electron/engine/protocol/messages.js';
import { Client, writeCf32 } from '../offline/helpers.js';
import { tempDir } from '../support/cli.js';
import { complexTones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const N = 40_000;
const FS = 1e6;
const iq = complexTones(N, FS, [{ frequency: 120e3, amplitude: 0.6 }]);
const tmp = tempDir('phasor-annotations-');
afterAll(() => tmp.remove());
afterEach(() => vi.restoreAllMocks());

/** A meta with fields Phasor does not know at every level, annotations out of order. */
function meta(): Record<string, unknown> {
  return {
    global: {
      'core:datatype': 'cf32_le',
      'core:sample_rate': FS,
      'core:version': '1.2.0',
      'core:author': 'test',
      'acme:rig': { antenna: 'yagi', gains: [1, 2.5, -3] },
    },
    captures: [{ 'core:sample_start': 0, 'core:frequency': 433.92e6, 'acme:tuner': 'R820T' }],
    annotations: [
      {
        'core:sample_start': 20_000,
        'core:sample_count': 1000,
        'core:label': 'late',
        'core:generator': 'acme-detector 2.1',
        'acme:score': 0.93,
      },
      {
        'core:sample_start': 5000,
        'core:sample_count': 2000,
        'core:freq_lower_edge': 433.9e6,
        'core:freq_upper_edge': 434.0e6,
        'core:label': 'burst',
        'core:comment': 'the tone',
        'core:uuid': '2a1b',
        'acme:nested': { a: [1, { b: null }] },
      },
      { 'core:label': 'no start', 'acme:keep': true },
    ],
    'acme:top': 'kept',
  };
}

let n = 0;
function recording(doc: Record<string, unknown> = meta()): string {
  const base = join(tmp.dir, `rec${n++}`);
  writeCf32(`${base}.sigmf-data`, iq);
  writeFileSync(`${base}.sigmf-meta`, JSON.stringify(doc, null, 4));
  return `${base}.sigmf-meta`;
}

const read = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
const annotationsOf = (p: string) => read(p).annotations as Array<Record<string, unknown>>;

describe('editing a .sigmf-meta', () => {
  it('updates one annotation and keeps every other field, sorted by core:sample_start', async () => {
    const path = recording();
    const snap = await readSigmfMetaFile(path);
    // index 1 in the file: 'burst'
    const { index } = await editSigmfAnnotations(path, snap.tag, {
      op: 'update',
      index: 1,
      fields: { start: 5000, count: 2500, label: 'burst 2', comment: 'edited' },
    });
    const after = read(path);
    const before = meta();
    // Everything but the annotations is deep-equal to what was there.
    expect({ ...after, annotations: null }).toEqual({ ...before, annotations: null });
    const [late, burst, nostart] = before.annotations as Array<Record<string, unknown>>;
    const edited: Record<string, unknown> = {
      ...burst,
      'core:sample_count': 2500,
      'core:label': 'burst 2',
      'core:comment': 'edited',
    };
    // The band was not given: removed; the unknown fields stay.
    delete edited['core:freq_lower_edge'];
    delete edited['core:freq_upper_edge'];
    expect(after.annotations).toEqual([edited, late, nostart]);
    expect(index).toBe(0);
    // Keys keep their order in the edited annotation.
    expect(Object.keys((after.annotations as object[])[0])).toEqual(Object.keys(edited));
  });

  it('adds and deletes, keeping the list sorted and the other annotations whole', async () => {
    const path = recording();
    let tag = (await readSigmfMetaFile(path)).tag;
    const added = await editSigmfAnnotations(path, tag, {
      op: 'add',
      fields: { start: 10_000, count: 300, freqLower: 433.95e6, freqUpper: 433.97e6, label: 'new' },
    });
    expect(added.index).toBe(1);
    expect(annotationsOf(path).map((a) => a['core:sample_start'])).toEqual([5000, 10_000, 20_000, undefined]);
    expect(annotationsOf(path)[1]).toEqual({
      'core:sample_start': 10_000,
      'core:sample_count': 300,
      'core:freq_lower_edge': 433.95e6,
      'core:freq_upper_edge': 433.97e6,
      'core:label': 'new',
    });
    tag = added.snapshot.tag;
    const deleted = await editSigmfAnnotations(path, tag, { op: 'delete', index: 2 });
    expect(deleted.index).toBeUndefined();
    const m = meta().annotations as Array<Record<string, unknown>>;
    expect(annotationsOf(path)).toEqual([m[1], annotationsOf(path)[1], m[2]]);
    expect(annotationsOf(path)[1]['core:label']).toBe('new');
    expect(read(path).global).toEqual(meta().global);
  });

  it('sorts stably and leaves annotations without a start last', () => {
    const list = [
      { 'core:sample_start': 9 },
      { x: 1 },
      { 'core:sample_start': 3, y: 1 },
      { 'core:sample_start': 3 },
    ];
    const r = applyAnnotationEdit(list, { op: 'add', fields: { start: 3, label: 'z' } });
    expect(r.annotations).toEqual([
      { 'core:sample_start': 3, y: 1 },
      { 'core:sample_start': 3 },
      { 'core:sample_start': 3, 'core:label': 'z' },
      { 'core:sample_start': 9 },
      { x: 1 },
    ]);
    expect(r.index).toBe(2);
    expect(() => applyAnnotationEdit(list, { op: 'delete', index: 4 })).toThrow(/annotation 4 is not in/);
    expect(() =>
      applyAnnotationEdit(list, { op: 'add', fields: { start: 0, freqLower: 2, freqUpper: 1 } }),
    ).toThrow(/lower frequency edge/);
  });

  it('does not copy a core:description into core:comment when the comment was not changed', () => {
    const list = [{ 'core:sample_start': 1, 'core:description': 'old style' }];
    const r = applyAnnotationEdit(list, {
      op: 'update',
      index: 0,
      fields: { start: 1, label: 'x', comment: 'old style' },
    });
    expect(r.annotations).toEqual([
      { 'core:sample_start': 1, 'core:description': 'old style', 'core:label': 'x' },
    ]);
  });

  it('refuses to overwrite a file changed on disk since it was read', async () => {
    const path = recording();
    const snap = await readSigmfMetaFile(path);
    const other = meta();
    (other.global as Record<string, unknown>)['core:description'] = 'edited elsewhere';
    writeFileSync(path, JSON.stringify(other));
    const text = readFileSync(path, 'utf8');
    await expect(editSigmfAnnotations(path, snap.tag, { op: 'delete', index: 0 })).rejects.toThrow(
      /changed on disk since it was opened/,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('leaves the original whole and no temporary behind when the write fails', async () => {
    const path = recording();
    const text = readFileSync(path, 'utf8');
    const snap = await readSigmfMetaFile(path);
    const h = await open(join(tmp.dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(h) as { write: () => Promise<unknown> };
    await h.close();
    vi.spyOn(proto, 'write').mockImplementation(() =>
      Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' })),
    );
    await expect(editSigmfAnnotations(path, snap.tag, { op: 'add', fields: { start: 1 } })).rejects.toThrow(
      /no space left/,
    );
    vi.restoreAllMocks();
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses an edit whose result would not read back', async () => {
    const path = recording();
    const snap = await readSigmfMetaFile(path);
    const text = readFileSync(path, 'utf8');
    await expect(
      editSigmfAnnotations(path, snap.tag, { op: 'add', fields: { start: 1, label: 'x'.repeat(9 << 20) } }),
    ).rejects.toThrow(/more than the/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});

describe('annotations through the protocol', () => {
  let backend: Backend;
  let engine: Engine;
  beforeAll(async () => {
    backend = await createCpuBackend({ threads: 0 });
    engine = new Engine({ backend });
  });
  afterAll(async () => {
    await engine.dispose();
    await backend.dispose();
  });

  it('opens with ids, adds, updates, deletes, and a reopened file shows what was saved', async () => {
    const path = recording();
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path });
    expect(info.annotationsLocked).toBeUndefined();
    expect(info.annotations.map((a) => [a.id, a.start, a.label])).toEqual([
      [1, 5000, 'burst'],
      [0, 20_000, 'late'],
    ]);
    const add = await c.ok<AnnotationsResult>('addAnnotation', {
      file: info.file,
      annotation: { start: 30_000, count: 4000, freqLower: 433.93e6, freqUpper: 433.94e6, label: 'mine' },
    });
    expect(add.id).toBe(2);
    expect(add.annotations.map((a) => [a.id, a.label])).toEqual([
      [0, 'burst'],
      [1, 'late'],
      [2, 'mine'],
    ]);
    const upd = await c.ok<AnnotationsResult>('updateAnnotation', {
      file: info.file,
      id: 2,
      annotation: { start: 1000, count: 4000, label: 'moved', comment: 'a note' },
    });
    expect(upd.id).toBe(0);
    expect(upd.annotations[0]).toEqual({
      id: 0,
      start: 1000,
      count: 4000,
      label: 'moved',
      comment: 'a note',
    });
    const del = await c.ok<AnnotationsResult>('deleteAnnotation', { file: info.file, id: 2 });
    expect(del.annotations.map((a) => a.label)).toEqual(['moved', 'burst']);
    expect(annotationsOf(path).map((a) => a['core:label'])).toEqual(['moved', 'burst', 'no start']);
    expect(annotationsOf(path)[1]).toEqual((meta().annotations as object[])[1]);
    await c.ok('closeFile', { file: info.file });
    const again = await c.ok<FileInfo>('openFile', { path });
    expect(again.annotations).toEqual(del.annotations);
    c.conn.close();
  });

  it('runs edits sent together one after another, losing none', async () => {
    const path = recording();
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path });
    const ids = [100, 200, 300].map((s) =>
      c.send('addAnnotation', { file: info.file, annotation: { start: s } }),
    );
    for (const id of ids) expect((await c.reply(id)).ok).toBe(true);
    expect(annotationsOf(path).map((a) => a['core:sample_start'])).toEqual([
      100,
      200,
      300,
      5000,
      20_000,
      undefined,
    ]);
    c.conn.close();
  });

  it('refuses an edit after the file changed on disk, and one past the end of the recording', async () => {
    const path = recording();
    const c = new Client(engine);
    const info = await c.ok<FileInfo>('openFile', { path });
    const err = await c.error('addAnnotation', { file: info.file, annotation: { start: N } });
    expect(err.message).toMatch(/past the end of the recording/);
    writeFileSync(path, JSON.stringify({ ...meta(), annotations: [] }));
    const changed = await c.error('deleteAnnotation', { file: info.file, id: 0 });
    expect(changed.code).toBe('io');
    expect(changed.message).toMatch(/changed on disk since it was opened/);
    expect(changed.message).not.toMatch(/\n/);
    expect(annotationsOf(path)).toEqual([]);
    c.conn.close();
  });

  it('refuses files that cannot carry annotations, in one line, and says so at open', async () => {
    const c = new Client(engine);
    const wav = join(tmp.dir, 'tone.wav');
    writeTestWav(
      wav,
      Float64Array.from({ length: 4800 }, (_, i) => 0.5 * Math.sin(i / 7)),
      48000,
      1,
    );
    const w = await c.ok<FileInfo>('openFile', { path: wav });
    expect(w.annotationsLocked).toMatch(/only SigMF recordings carry annotations/);
    const e = await c.error('addAnnotation', { file: w.file, annotation: { start: 0 } });
    expect(e.code).toBe('unsupported');
    expect(e.message).toMatch(/only SigMF recordings carry annotations \(this is a WAV file\)/);
    const archive = await c.ok<FileInfo>('openFile', { path: join(__dirname, '../fixtures/io/rec.sigmf') });
    expect(archive.annotationsLocked).toMatch(/inside a \.sigmf archive cannot be edited/);
    const before = readFileSync(join(__dirname, '../fixtures/io/rec.sigmf'));
    expect((await c.error('addAnnotation', { file: archive.file, annotation: { start: 0 } })).code).toBe(
      'unsupported',
    );
    expect(readFileSync(join(__dirname, '../fixtures/io/rec.sigmf')).equals(before)).toBe(true);
    const bad = await c.error('addAnnotation', {
      file: w.file,
      annotation: { start: 0, freqLower: 5, freqUpper: 1 },
    });
    expect(bad.code).toBe('bad-request');
    c.conn.close();
  });
});

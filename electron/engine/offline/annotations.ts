// The SigMF annotations of the files one connection has open, edited from the File view and saved back to
// their .sigmf-meta at once (io/sigmf-annotations.ts). When a SigMF pair is opened its metadata is read
// again here: the annotations the view gets carry ids (their places in that file) and the bytes' tag, so an
// edit changes the annotation the user saw, or is refused when the file changed on disk since. Files whose
// annotations cannot be saved (not SigMF, a .sigmf archive, outside the client's folders, a folder not
// writable) say why in FileInfo.annotationsLocked. Edits of one file run one after another.

import { constants } from 'node:fs';
import { access as fsAccess } from 'node:fs/promises';
import path from 'node:path';
import { PhasorError } from '../errors.js';
import { editSigmfAnnotations, readSigmfMetaFile, type AnnotationEdit } from '../io/sigmf-annotations.js';
import { sigmfPair } from '../io/sigmf.js';
import type { AnnotationsResult, FileInfo } from '../protocol/messages.js';
import type { SampleSource, SigmfMetadata } from '../sources/source.js';
import type { FileAccess } from './access.js';
import { mapAnnotations } from './files.js';

interface Editable {
  readonly meta: string;
  tag: string;
  /** The last edit of this file (the next waits for it). */
  queue: Promise<unknown>;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class FileAnnotations {
  readonly #access: FileAccess;
  readonly #files = new Map<number, Editable>();

  constructor(access: FileAccess) {
    this.#access = access;
  }

  /** Where `source` keeps its annotations, or why they cannot be edited. */
  #metaOf(source: SampleSource): { meta: string } | { locked: string } {
    const i = source.info;
    if (i.container !== 'sigmf') {
      return {
        locked: `only SigMF recordings carry annotations (this is a ${i.container.toUpperCase()} file)`,
      };
    }
    if (!i.path || !/\.sigmf-data$/i.test(i.path)) {
      return {
        locked:
          'annotations inside a .sigmf archive cannot be edited: unpack it to a .sigmf-meta and .sigmf-data pair',
      };
    }
    return { meta: sigmfPair(i.path).meta };
  }

  /** At openFile: reads the metadata again (ids and tag from the same bytes) or says why it is locked. */
  async opened(info: FileInfo, source: SampleSource): Promise<void> {
    const where = this.#metaOf(source);
    if ('locked' in where) {
      info.annotationsLocked = where.locked;
      return;
    }
    try {
      await this.#access.check(where.meta, 'write');
      await fsAccess(path.dirname(where.meta), constants.W_OK).catch((err: unknown) => {
        throw new PhasorError('io', `its folder is not writable (${message(err)})`, { file: where.meta });
      });
      const snap = await readSigmfMetaFile(where.meta);
      info.annotations = mapAnnotations(this.#asMetadata(snap.annotations), []);
      this.#files.set(info.file, { meta: where.meta, tag: snap.tag, queue: Promise.resolve() });
    } catch (err) {
      info.annotationsLocked = `its annotations cannot be saved: ${message(err)}`;
    }
  }

  forget(file: number): void {
    this.#files.delete(file);
  }

  #asMetadata(annotations: Array<Record<string, unknown>>): SigmfMetadata {
    return { global: {}, captures: [], annotations };
  }

  /** Applies `edit` to file `info`'s metadata; `info.annotations` (and the source's metadata, which a
   * filtered copy carries over) follow. */
  async edit(info: FileInfo, source: SampleSource, edit: AnnotationEdit): Promise<AnnotationsResult> {
    const e = this.#files.get(info.file);
    if (!e) {
      throw new PhasorError('unsupported', info.annotationsLocked ?? 'its annotations cannot be saved', {
        file: info.path,
      });
    }
    if (edit.op !== 'delete' && info.samples > 0 && edit.fields.start >= info.samples) {
      throw new PhasorError(
        'invalid-argument',
        `an annotation starting at frame ${edit.fields.start} lies past the end of the recording (${info.samples} frames)`,
        { file: info.path },
      );
    }
    const run = async (): Promise<AnnotationsResult> => {
      await this.#access.check(e.meta, 'write');
      const { snapshot, index } = await editSigmfAnnotations(e.meta, e.tag, edit);
      e.tag = snapshot.tag;
      info.annotations = mapAnnotations(this.#asMetadata(snapshot.annotations), []);
      const kept = source.info.sigmf?.annotations;
      if (kept) kept.splice(0, kept.length, ...snapshot.annotations);
      const out: AnnotationsResult = { annotations: info.annotations };
      if (index !== undefined) out.id = index;
      return out;
    };
    const next = e.queue.then(run, run);
    e.queue = next.catch(() => undefined);
    return next;
  }
}

// Editing the annotations of a SigMF recording's .sigmf-meta in place. The document is edited as parsed
// JSON, never regenerated: the global object, the captures, any other top-level member and every field of
// an annotation Phasor does not know stay as they were; only the annotations array is replaced, kept sorted
// by core:sample_start as SigMF requires. The new text must read back (sigmf-meta.ts, its limits too)
// before it is written through a temporary file, flushed and renamed over the original, so a failed write
// leaves the original whole.
//
// Each read carries a tag (SHA-256 of its bytes). An edit names the tag it was based on and is refused when
// the file changed on disk since (another program, another window), rather than overwriting that change.
//
//   const snap = await readSigmfMetaFile('/data/rec.sigmf-meta');
//   const { snapshot, index } = await editSigmfAnnotations(snap.path, snap.tag, { op: 'add', fields });

import { createHash } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { CorruptFileError, InvalidArgumentError, PhasorError, ioError } from '../errors.js';
import { parseSigmfMeta } from './sigmf-meta.js';
import { MAX_META_BYTES } from './sigmf.js';
import { TemporaryFile } from './temporary.js';

/** An annotation's fields Phasor knows, in the protocol's names (frames and Hz). */
export interface AnnotationFields {
  start: number;
  count?: number;
  freqLower?: number;
  freqUpper?: number;
  label?: string;
  comment?: string;
}

/** Each known field and its SigMF key, in the order a new annotation lists them. */
const KEYS = [
  ['start', 'core:sample_start'],
  ['count', 'core:sample_count'],
  ['freqLower', 'core:freq_lower_edge'],
  ['freqUpper', 'core:freq_upper_edge'],
  ['label', 'core:label'],
  ['comment', 'core:comment'],
] as const satisfies ReadonlyArray<readonly [keyof AnnotationFields, string]>;

/** One edit; `index` is the annotation's position in the document's annotations array. */
export type AnnotationEdit =
  | { op: 'add'; fields: AnnotationFields }
  | { op: 'update'; index: number; fields: AnnotationFields }
  | { op: 'delete'; index: number };

export interface MetaSnapshot {
  readonly path: string;
  /** SHA-256 of the bytes read (hex). */
  readonly tag: string;
  /** The whole document as parsed. */
  readonly document: Record<string, unknown>;
  /** Its annotations array (the same objects; empty when it has none). */
  readonly annotations: Array<Record<string, unknown>>;
}

function tagOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function validate(text: string, metaPath: string): void {
  // A recording without core:sample_rate was opened with a rate given by the user: any rate checks the rest.
  parseSigmfMeta(text, metaPath, 1);
}

function snapshot(metaPath: string, bytes: Uint8Array, text: string): MetaSnapshot {
  const document = JSON.parse(text.replace(/^\uFEFF/, '')) as Record<string, unknown>;
  const list = document.annotations;
  return {
    path: metaPath,
    tag: tagOf(bytes),
    document,
    annotations: Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [],
  };
}

/** Reads and validates a .sigmf-meta file; its tag identifies these bytes. */
export async function readSigmfMetaFile(metaPath: string): Promise<MetaSnapshot> {
  let bytes: Uint8Array;
  try {
    const s = await stat(metaPath);
    if (s.size > MAX_META_BYTES) {
      throw new CorruptFileError(metaPath, `SigMF metadata of ${s.size} bytes is more than Phasor reads`);
    }
    bytes = await readFile(metaPath);
  } catch (err) {
    throw ioError(metaPath, err);
  }
  const text = new TextDecoder().decode(bytes);
  validate(text, metaPath);
  return snapshot(metaPath, bytes, text);
}

function startOf(a: Record<string, unknown>): number {
  const s = a['core:sample_start'];
  return typeof s === 'number' && Number.isFinite(s) ? s : Infinity;
}

/** Writes `fields` into `target`: a field given is set (an existing key keeps its place), one absent or
 * an empty text removed. A comment equal to a core:description it came from is not copied into
 * core:comment. */
function assign(target: Record<string, unknown>, fields: AnnotationFields): Record<string, unknown> {
  const fromDescription = !('core:comment' in target) && fields.comment === target['core:description'];
  for (const [name, key] of KEYS) {
    const v = fields[name];
    if (v === undefined || v === '' || (key === 'core:comment' && fromDescription)) delete target[key];
    else target[key] = v;
  }
  return target;
}

function checkFields(f: AnnotationFields): void {
  if (f.freqLower !== undefined && f.freqUpper !== undefined && f.freqLower > f.freqUpper) {
    throw new InvalidArgumentError(
      `an annotation's lower frequency edge (${f.freqLower} Hz) is above its upper edge (${f.freqUpper} Hz)`,
    );
  }
}

/**
 * The annotations after `edit` (a new array; untouched annotations are the same objects, an updated one a
 * copy with its unknown fields), sorted by core:sample_start (stable; one without a valid start goes
 * last), and where the added or updated annotation now stands.
 */
export function applyAnnotationEdit(
  annotations: ReadonlyArray<Record<string, unknown>>,
  edit: AnnotationEdit,
): { annotations: Array<Record<string, unknown>>; index?: number } {
  const list = [...annotations];
  if (edit.op !== 'add' && !(Number.isInteger(edit.index) && edit.index >= 0 && edit.index < list.length)) {
    throw new InvalidArgumentError(
      `annotation ${edit.index} is not in the metadata (it holds ${list.length}): open the file again`,
    );
  }
  let edited: Record<string, unknown> | undefined;
  if (edit.op === 'delete') list.splice(edit.index, 1);
  else {
    checkFields(edit.fields);
    if (edit.op === 'add') list.push((edited = assign({}, edit.fields)));
    else list[edit.index] = edited = assign({ ...list[edit.index] }, edit.fields);
  }
  const order = list.map((a, i) => ({ a, i, s: startOf(a) }));
  order.sort((x, y) => x.s - y.s || x.i - y.i);
  const sorted = order.map((o) => o.a);
  return edited ? { annotations: sorted, index: sorted.indexOf(edited) } : { annotations: sorted };
}

/**
 * Applies `edit` to the .sigmf-meta at `metaPath`, which must still be the file read with `tag`. Returns
 * the file as written (its new tag) and where the added or updated annotation now stands.
 */
export async function editSigmfAnnotations(
  metaPath: string,
  tag: string,
  edit: AnnotationEdit,
): Promise<{ snapshot: MetaSnapshot; index?: number }> {
  const changed = (): PhasorError =>
    new PhasorError(
      'io',
      'the SigMF metadata changed on disk since it was opened: open the file again to edit its annotations',
      { file: metaPath },
    );
  const before = await readSigmfMetaFile(metaPath);
  if (before.tag !== tag) throw changed();
  const next = applyAnnotationEdit(before.annotations, edit);
  // Spread keeps the annotations member where it was (or adds it last).
  const document = { ...before.document, annotations: next.annotations };
  const text = JSON.stringify(document, null, 2) + '\n';
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > MAX_META_BYTES) {
    throw new InvalidArgumentError(
      `the metadata would grow to ${bytes.length} bytes, more than the ${MAX_META_BYTES} Phasor reads`,
    );
  }
  try {
    validate(text, metaPath);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new InvalidArgumentError(`the edited metadata would not read back: ${why}`);
  }
  const mode = (await stat(metaPath).catch(() => null))?.mode;
  const tmp = await TemporaryFile.create(metaPath);
  try {
    await tmp.writeAll(bytes, 0);
    await tmp.close();
    if (mode !== undefined) await chmod(tmp.path, mode & 0o7777).catch(() => undefined);
    // Checked again just before the rename: the window in which another writer's change is lost is short.
    const now = await readFile(metaPath).catch((err: unknown) => {
      throw ioError(metaPath, err);
    });
    if (tagOf(now) !== tag) throw changed();
    await tmp.publish();
  } catch (err) {
    await tmp.discard();
    throw err;
  }
  const result: { snapshot: MetaSnapshot; index?: number } = { snapshot: snapshot(metaPath, bytes, text) };
  if (next.index !== undefined) result.index = next.index;
  return result;
}

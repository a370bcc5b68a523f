// Whether an output would replace one of a job's inputs, decided by file identity (device and inode, links
// followed) rather than by path text: `d/x.wav` through `ln -s . d`, a hard link, or `rec.sigmf` whose
// pair holds the input's rec.sigmf-data all reach the same file under another name.
//
//   await refuseOverwritingInputs(writerPaths('out.sigmf'), recordingFiles('rec.sigmf-meta'));

import { stat } from 'node:fs/promises';
import { InvalidArgumentError } from '../errors.js';
import { sigmfPair } from './sigmf.js';

/** `dev:ino` of the file a path reaches (links followed), or undefined when there is none. */
export async function fileIdentity(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/** The files a recording named `path` is read from: both halves of a SigMF pair, else the file itself. */
export function recordingFiles(path: string): string[] {
  if (!/\.sigmf-(data|meta)$/i.test(path)) return [path];
  const { data, meta } = sigmfPair(path);
  return [data, meta];
}

/**
 * Throws (one line naming both files) when any of `outputs` is the same file as any of `inputs`, before
 * anything is written. Names that reach no file yet are never the same file as anything.
 */
export async function refuseOverwritingInputs(
  outputs: readonly string[],
  inputs: readonly string[],
): Promise<void> {
  const read = new Map<string, string>();
  for (const i of inputs) {
    const id = await fileIdentity(i);
    if (id !== undefined && !read.has(id)) read.set(id, i);
  }
  if (read.size === 0) return;
  for (const o of outputs) {
    const id = await fileIdentity(o);
    const input = id === undefined ? undefined : read.get(id);
    if (input !== undefined) {
      throw new InvalidArgumentError(
        `${o}: the output would overwrite the input ${input} (the same file); choose another name`,
      );
    }
  }
}

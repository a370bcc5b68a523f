// Path helpers for names the user sees and outputs suggested beside an input (either separator: the
// engine may run on Windows).

import { baseName, extensionOf } from './raw-formats.js';

export function dirName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? '' : i === 0 ? path[0] : path.slice(0, i);
}

function separatorOf(path: string): string {
  return path.includes('\\') && !path.includes('/') ? '\\' : '/';
}

export function joinPath(dir: string, name: string): string {
  if (!dir) return name;
  const sep = separatorOf(dir);
  return dir.endsWith('/') || dir.endsWith('\\') ? dir + name : dir + sep + name;
}

/** The name without its extension (SigMF's two-part extensions counted as one). */
export function stem(path: string): string {
  const name = baseName(path);
  const ext = extensionOf(path);
  return ext ? name.slice(0, name.length - ext.length - 1) : name;
}

/**
 * Where a filtered copy of `input` goes by default: `<name>-filtered.<ext>` beside it; WAV stays WAV,
 * everything else (SigMF, raw I/Q) becomes SigMF, which keeps rate, centre and I/Q.
 */
export function filteredOutputPath(input: string, suffix = '-filtered'): string {
  const ext = extensionOf(input);
  const wav = ['wav', 'wave', 'rf64', 'bw64'].includes(ext);
  return joinPath(dirName(input), `${stem(input)}${suffix}.${wav ? 'wav' : 'sigmf-meta'}`);
}

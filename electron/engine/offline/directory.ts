// The server-side file browser of web mode (the desktop app also has the native dialog): one folder's
// entries, folders first, hidden files left out, each file marked openable by its extension.

import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DirectoryEntry, DirectoryListing } from '../protocol/messages.js';
import { FileAccess } from './access.js';
import { folderError } from './files.js';

/** Extensions Phasor opens (WAV family, SigMF, raw I/Q). */
export const OPENABLE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.wav',
  '.wave',
  '.rf64',
  '.bw64',
  '.sigmf-meta',
  '.sigmf-data',
  '.sigmf',
  '.cu8',
  '.cs8',
  '.cs16',
  '.cf32',
  '.cfile',
  '.raw',
  '.iq',
  '.bin',
  '.dat',
]);

export function isOpenable(name: string): boolean {
  return OPENABLE_EXTENSIONS.has(path.extname(name).toLowerCase());
}

/** Entries stat'ed at once (a folder may hold many thousands). */
const STAT_BATCH = 64;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

const ANY = new FileAccess('any');

/**
 * One folder's entries. With `access`, the folder must lie in its roots (default: the first root), entries
 * that are links leading out of them are left out, and the parent is given only when it lies in them too.
 */
export async function listDirectory(requested?: string, access: FileAccess = ANY): Promise<DirectoryListing> {
  const home = access.unrestricted ? os.homedir() : access.home;
  const dir = await access.check(requested === undefined ? home : access.resolve(requested), 'list');
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw folderError(dir, err);
  }
  const visible = dirents.filter((d) => !d.name.startsWith('.'));
  const entries: DirectoryEntry[] = [];
  for (let i = 0; i < visible.length; i += STAT_BATCH) {
    const batch = await Promise.all(
      visible.slice(i, i + STAT_BATCH).map(async (d): Promise<DirectoryEntry | null> => {
        const full = path.join(dir, d.name);
        let isDir = d.isDirectory();
        let isFile = d.isFile();
        let size: number | undefined;
        if (d.isSymbolicLink() && !access.unrestricted) {
          const real = await realpath(full).catch(() => null);
          if (real === null || !access.allows(real)) return null;
        }
        try {
          // Follows links, so a link to a folder browses like a folder; also gives the size.
          const st = await stat(full);
          isDir = st.isDirectory();
          isFile = st.isFile();
          if (isFile) size = st.size;
        } catch {
          if (d.isSymbolicLink()) return null; // a broken link
        }
        if (isDir) return { name: d.name, path: full, kind: 'directory', openable: false };
        if (!isFile) return null; // sockets, devices, pipes
        const e: DirectoryEntry = { name: d.name, path: full, kind: 'file', openable: isOpenable(d.name) };
        if (size !== undefined) e.size = size;
        return e;
      }),
    );
    for (const e of batch) if (e) entries.push(e);
  }
  entries.sort((a, b) =>
    a.kind !== b.kind ? (a.kind === 'directory' ? -1 : 1) : collator.compare(a.name, b.name),
  );
  const listing: DirectoryListing = { path: dir, entries };
  if (!access.unrestricted) listing.roots = [...access.roots];
  const parent = path.dirname(dir);
  if (
    parent !== dir &&
    (access.unrestricted ||
      (await access.check(parent, 'list').then(
        () => true,
        () => false,
      )))
  )
    listing.parent = parent;
  return listing;
}

// The recently opened files of the desktop app (File ▸ Open Recent), kept between runs in a JSON file in
// the user-data folder: most recent first, each once, at most MAX_RECENT. Written whole to a temporary
// file and renamed over the old one, so a crash never leaves half a list. Files that are gone are dropped
// when the list is read for showing. Plain Node: tested without Electron.

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** How many files Open Recent keeps. */
export const MAX_RECENT = 10;

const recentSchema = z.object({
  version: z.literal(1),
  files: z.array(z.string().min(1).max(4096)).max(1000),
});

export interface RecentFilesOptions {
  /** Whether a file is still there (existsSync unless a test says otherwise). */
  exists?: (file: string) => boolean;
  /** Called after every change with the new list (the menu is rebuilt, the OS list told). */
  changed?: (files: readonly string[]) => void;
}

export class RecentFiles {
  readonly #file: string;
  readonly #exists: (file: string) => boolean;
  readonly #changed: (files: readonly string[]) => void;
  #files: string[];

  /** `file`: the JSON file (e.g. <userData>/recent-files.json). A missing or unreadable one is an empty
   * list; a broken one too, and it is replaced at the next change. */
  constructor(file: string, options: RecentFilesOptions = {}) {
    this.#file = file;
    this.#exists = options.exists ?? existsSync;
    this.#changed = options.changed ?? (() => undefined);
    this.#files = load(file);
  }

  /** The list to show: files that are gone are dropped (and the file rewritten when some were). */
  list(): string[] {
    const kept = this.#files.filter((f) => this.#exists(f));
    if (kept.length !== this.#files.length) this.#set(kept);
    return [...this.#files];
  }

  /** `file` (absolute) was opened: it goes first; one that is not there is dropped instead. */
  add(file: string): void {
    if (!path.isAbsolute(file)) return;
    if (!this.#exists(file)) return this.remove(file);
    this.#set([file, ...this.#files.filter((f) => f !== file)].slice(0, MAX_RECENT));
  }

  remove(file: string): void {
    if (this.#files.includes(file)) this.#set(this.#files.filter((f) => f !== file));
  }

  clear(): void {
    this.#set([]);
  }

  #set(files: string[]): void {
    this.#files = files;
    save(this.#file, files);
    this.#changed([...files]);
  }
}

function load(file: string): string[] {
  try {
    const r = recentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!r.success) return [];
    const files = r.data.files.filter((f) => path.isAbsolute(f));
    return [...new Set(files)].slice(0, MAX_RECENT);
  } catch {
    return [];
  }
}

/** Writes the list atomically; a failure (a read-only folder) keeps it for this run and says so. */
function save(file: string, files: string[]): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ version: 1, files }, null, 2) + '\n');
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    console.error(
      `phasor: ${file}: cannot save the recent files: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

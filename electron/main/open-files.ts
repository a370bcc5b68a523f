// Files the user gives the desktop app from outside: on its command line, from the file manager (argv on
// Linux and Windows, 'open-file' on macOS), from a second launch ('second-instance' passes its command
// line here), or from Open Recent. Kept free of Electron imports so tests run it as it is.
//
// A path given this way is the user's choice, as one picked in the Open dialog is: it is granted to the
// window's engine connection the same way (dialog.ts's grant, with `beside`) and the page opens it through
// the File view's own Open (an 'open-files' command). Files that come before any window is connected (at
// launch, or macOS's 'open-file' before 'ready') wait for the first one.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files named on a command line, absolute (relative ones resolved against `cwd`, the directory the
 * command ran in). `argv` is Electron's process.argv: the executable, then the app's arguments; run as
 * `electron . file` (`defaultApp`, development) the app's path comes first. Chromium and Electron switches
 * (`--no-sandbox`, macOS's `-psn_…`) are not files; after `--` everything is. `file://` URLs (what a
 * desktop entry's %U gives) become paths; other URLs are not files.
 */
export function filesFromArgv(
  argv: readonly string[],
  options: { defaultApp: boolean; cwd: string },
): string[] {
  const out: string[] = [];
  let switches = true;
  for (const arg of argv.slice(options.defaultApp ? 2 : 1)) {
    if (typeof arg !== 'string' || arg === '' || arg.includes('\0')) continue;
    if (switches && arg === '--') {
      switches = false;
      continue;
    }
    if (switches && arg.startsWith('-')) continue;
    let file = arg;
    if (/^[a-z][a-z0-9+.-]+:/i.test(arg) && !/^[a-z]:[\\/]/i.test(arg)) {
      // A URL (a Windows drive letter is not one): only file:// names a file.
      if (!arg.toLowerCase().startsWith('file:')) continue;
      try {
        file = fileURLToPath(arg);
      } catch {
        continue;
      }
    }
    const abs = path.resolve(options.cwd, file);
    if (!out.includes(abs)) out.push(abs);
  }
  return out;
}

export interface OpenFilesHost {
  /** The window files go to among `ready` ones (the focused one, else the first), or null for none. */
  pick(ready: readonly number[]): number | null;
  /** Lets window `id`'s engine connection open `path`, as the Open dialog does (and remembers it). */
  grant(id: number, path: string): void;
  /** Asks window `id`'s page to open `paths` (the 'open-files' command). */
  send(id: number, paths: string[]): void;
  /** Brings window `id` to the front (restored when minimized). */
  focus(id: number): void;
}

/** Routes the files given from outside to a connected window, keeping them until there is one. */
export class OpenFiles {
  readonly #host: OpenFilesHost;
  /** Windows (webContents ids) connected to the engine, in the order they connected. */
  readonly #ready: number[] = [];
  readonly #waiting: string[] = [];

  constructor(host: OpenFilesHost) {
    this.#host = host;
  }

  /** Files waiting for a window. */
  get waiting(): readonly string[] {
    return this.#waiting;
  }

  /** Opens absolute `paths` in a connected window now, or in the first one that connects. */
  open(paths: readonly string[]): void {
    for (const p of paths) if (path.isAbsolute(p) && !this.#waiting.includes(p)) this.#waiting.push(p);
    this.#flush();
  }

  /** Window `id` connected to the engine (its page is there, its grants reach its connection). */
  ready(id: number): void {
    if (!this.#ready.includes(id)) this.#ready.push(id);
    this.#flush();
  }

  /** Window `id` went away (closed, crashed): files go elsewhere. */
  gone(id: number): void {
    const i = this.#ready.indexOf(id);
    if (i >= 0) this.#ready.splice(i, 1);
  }

  #flush(): void {
    if (this.#waiting.length === 0 || this.#ready.length === 0) return;
    const id = this.#host.pick(this.#ready);
    if (id === null || !this.#ready.includes(id)) return;
    const paths = this.#waiting.splice(0);
    for (const p of paths) this.#host.grant(id, p);
    this.#host.send(id, paths);
    this.#host.focus(id);
  }
}

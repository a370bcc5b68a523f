// What a client may read, list and write: the roots its host granted (folders on `phasor serve`'s command
// line, files and folders the desktop app's dialogs returned). Every path is resolved through its links
// before the check, so a link inside a root that leads out of it is refused like the place it leads to.
//
//   const access = new FileAccess(['/data'], { hint: 'start phasor serve with --root to allow it' });
//   const real = await access.check('/data/x.wav', 'read');   // the path to open, or a PhasorError
//   access.grant('/home/me/chosen.wav');                        // a file the user chose in a dialog

import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PhasorError } from '../errors.js';

export type AccessMode = 'read' | 'list' | 'write';

export interface FileAccessOptions {
  /** What the refusal tells the user to do instead (one short clause). */
  hint?: string;
}

/** SigMF keeps a recording in two files: granting or writing one concerns the other too. */
function sigmfCompanion(p: string): string | null {
  const ext = path.extname(p).toLowerCase();
  if (ext === '.sigmf-meta') return p.slice(0, -ext.length) + '.sigmf-data';
  if (ext === '.sigmf-data') return p.slice(0, -ext.length) + '.sigmf-meta';
  return null;
}

function inside(root: string, p: string): boolean {
  if (p === root) return true;
  const r = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(r);
}

/** The real path of `p`, or of its deepest existing ancestor with the rest appended (a file to be made). */
async function realOrPlanned(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    // A dangling link is not a file to be made: it would be written where it points.
    const st = await lstat(p).catch(() => null);
    if (st?.isSymbolicLink()) return realpath(p);
    const up = path.dirname(p);
    if (up === p) return p;
    return path.join(await realOrPlanned(up), path.basename(p));
  }
}

/** realOrPlanned, synchronously (a grant must be in force before the next message is handled). */
function realOrPlannedSync(p: string): string {
  try {
    return realpathSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    let link = false;
    try {
      link = lstatSync(p).isSymbolicLink();
    } catch {
      // nothing there
    }
    if (link) return realpathSync(p);
    const up = path.dirname(p);
    if (up === p) return p;
    return path.join(realOrPlannedSync(up), path.basename(p));
  }
}

export class FileAccess {
  readonly #roots: string[] = [];
  /** Folders where new files may be made (beside a file the user opened), none replaced. */
  readonly #beside: string[] = [];
  readonly #any: boolean;
  readonly #hint: string;

  /** `roots`: folders or files (resolved now, so they must exist); 'any': no restriction (tests, CLI). */
  constructor(roots: readonly string[] | 'any', options: FileAccessOptions = {}) {
    this.#any = roots === 'any';
    this.#hint = options.hint ?? 'choose it in the app to allow it';
    if (roots !== 'any') for (const r of roots) this.#add(realpathSync(path.resolve(r)));
  }

  /** The real paths granted, in order (the first is where browsing starts). */
  get roots(): readonly string[] {
    return this.#roots;
  }

  get unrestricted(): boolean {
    return this.#any;
  }

  /** Where a file browser starts: the first root, else the home folder. */
  get home(): string {
    return this.#roots[0] ?? os.homedir();
  }

  #add(real: string): void {
    if (!this.#roots.includes(real)) this.#roots.push(real);
  }

  /** Grants a file or folder the user chose (and a SigMF file's companion); a path still to be made counts
   * as planned under its existing folder. */
  grant(p: string, options: { createBeside?: boolean } = {}): void {
    const abs = path.resolve(p);
    const real = realOrPlannedSync(abs);
    this.#add(real);
    const other = sigmfCompanion(abs);
    if (other) this.#add(realOrPlannedSync(other));
    // A filtered copy goes next to its input by default: making a new file there is what the user expects.
    if (options.createBeside && !this.#beside.includes(path.dirname(real)))
      this.#beside.push(path.dirname(real));
  }

  /** True when `real` (a path that does not exist yet) may be made: its folder holds a granted file. */
  #mayCreate(real: string): boolean {
    return this.#beside.includes(path.dirname(real)) && !existsSync(real);
  }

  /** A path from the view, absolute: `~` and `~/…` from the home folder, a relative one from where browsing
   * starts (the first root; the home folder when unrestricted). */
  resolve(p: string): string {
    if (p === '~') return os.homedir();
    if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
    return path.resolve(this.#any ? os.homedir() : this.home, p);
  }

  /** True when the real path `real` lies in a root. */
  allows(real: string): boolean {
    return this.#any || this.#roots.some((r) => inside(r, real));
  }

  #refuse(p: string): PhasorError {
    return new PhasorError('io', `outside the folders this client may use: ${this.#hint}`, { file: p });
  }

  /**
   * The path to use for `p` (absolute) when it lies in a root after its links are followed; else a
   * PhasorError naming it. A file to be written may not exist yet: its folder is checked. A SigMF file's
   * companion (the -meta beside the -data) must lie in the roots too.
   */
  async check(p: string, mode: AccessMode): Promise<string> {
    const abs = path.resolve(p);
    if (this.#any) return abs;
    let real: string;
    try {
      real = mode === 'write' ? await realOrPlanned(abs) : await realpath(abs);
    } catch {
      // Nothing there (or no permission to see): say so only for a place the client may see.
      if (!this.allows(abs)) throw this.#refuse(abs);
      return abs;
    }
    const ok = (r: string) => this.allows(r) || (mode === 'write' && this.#mayCreate(r));
    if (!ok(real)) throw this.#refuse(abs);
    const other = mode === 'list' ? null : sigmfCompanion(abs);
    if (other && !ok(await realOrPlanned(other).catch(() => other))) throw this.#refuse(other);
    return abs;
  }
}
